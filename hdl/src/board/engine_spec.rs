//! The measurement engine in the core registry (docs/board.md): two LDA cores
//! (Kompella et al., ToN 2012, §III, §V), the fridge, EXPB and DBM cores, the
//! on-chip traffic source and the host link.

use crate::board::engine::Engine;
use crate::export::{Port, generate};
use crate::lda::spec::lda_geometry;
use crate::registry::{CoreSpec, Kind, Reference, StreamProof, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::board::engine::{EngineConfig, engine_registers, engine_registers_markdown};

macro_rules! engine_rows {
    ($c:expr, $k:literal) => {
        match ($c.lda.row_bits(), $c.lda.bank_bits()) {
            (6, 0) => generate(Engine::<$k, 6, 6>::new($c)),
            (6, 1) => generate(Engine::<$k, 6, 7>::new($c)),
            (6, 2) => generate(Engine::<$k, 6, 8>::new($c)),
            (7, 0) => generate(Engine::<$k, 7, 7>::new($c)),
            (7, 1) => generate(Engine::<$k, 7, 8>::new($c)),
            (7, 2) => generate(Engine::<$k, 7, 9>::new($c)),
            (8, 0) => generate(Engine::<$k, 8, 8>::new($c)),
            (8, 1) => generate(Engine::<$k, 8, 9>::new($c)),
            (8, 2) => generate(Engine::<$k, 8, 10>::new($c)),
            (9, 0) => generate(Engine::<$k, 9, 9>::new($c)),
            (9, 1) => generate(Engine::<$k, 9, 10>::new($c)),
            (9, 2) => generate(Engine::<$k, 9, 11>::new($c)),
            (10, 0) => generate(Engine::<$k, 10, 10>::new($c)),
            (10, 1) => generate(Engine::<$k, 10, 11>::new($c)),
            (10, 2) => generate(Engine::<$k, 10, 12>::new($c)),
            (11, 0) => generate(Engine::<$k, 11, 11>::new($c)),
            (11, 1) => generate(Engine::<$k, 11, 12>::new($c)),
            (11, 2) => generate(Engine::<$k, 11, 13>::new($c)),
            other => {
                unreachable!("engine geometry {other:?} passed validation but has no instance")
            }
        }
    };
}

impl CoreSpec for EngineConfig {
    const NAME: &'static str = "engine";
    const KIND: Kind = Kind::System;
    const PAPER: &'static str = "LDA §III, §V; fridge, EXPB, DBM on the same packets";
    const RATE: &'static str = "1 per end";
    const DATASHEET: &'static str = "docs/board.md";

    /// The ULX3S engine, or the HX8K board's reduced one on the iCE40.
    fn default_for(target: Option<Target>) -> Self {
        match target {
            Some(Target::Ice40Hx8k) => EngineConfig::hx8k(),
            _ => EngineConfig::default(),
        }
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "Measurement engine (docs/board.md): sender and receiver LDA cores (Kompella et al., ToN 2012, §III, §V) \
         fed by an on-chip traffic source with programmable delay, loss and reordering, a 40-bit timestamp \
         counter, and the host link onto the engine's register bus"
    }
    /// The engine's register map: `csr.json` and the Markdown table of docs/board.md.
    fn extra_files(&self, top: &str) -> Vec<(String, String)> {
        vec![
            (
                format!("{top}.csr.json"),
                serde_json::to_string_pretty(&serde_json::json!({
                    "top": top,
                    "bus": { "link": "UART frames with CRC-16 (docs/board.md)", "addr_bits": 16, "data_bits": 32 },
                    "registers": engine_registers(self),
                }))
                .expect("serializes"),
            ),
            (format!("{top}.registers.md"), engine_registers_markdown(self)),
        ]
    }
    /// The engine's memories are its LDA cores' counter memories.
    fn reference(&self) -> Reference {
        Reference::Rmw(lda_geometry(&self.lda))
    }
    fn stream_proof() -> StreamProof {
        StreamProof::Skipped("its only streams go into its two LDA cores, whose own proof covers them")
    }
    fn generate(&self) -> (String, Vec<Port>) {
        match self.lda.key_bits {
            32 => engine_rows!(self, 32),
            64 => engine_rows!(self, 64),
            120 => engine_rows!(self, 120),
            other => unreachable!("engine key_bits {other} passed validation but has no instance"),
        }
    }
    fn test_vectors(&self, _seed: u64, _cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        Err("the engine's golden model answers whole register transactions over the link, not clocks; \
             its parts ship their own testbenches (lda, fridge, expb, dbm, link)"
            .into())
    }
}
