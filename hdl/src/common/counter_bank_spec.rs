//! The counter bank in the core registry (Kompella et al., ToN 2012, §V: 72-bit
//! {count, timestamp sum} words, read-modify-write, two copies for read-out).

use crate::common::counter_bank::CounterBank;
use crate::export::{Port, generate};
use crate::registry::{CoreSpec, FieldOp, Kind, Reference, RmwGeometry, StreamRule, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::counter_bank::CounterBankConfig;

macro_rules! cb_addr {
    ($c:expr, $cw:literal, $tw:literal, $w:literal, $iw:literal) => {
        match $c.addr_bits() {
            1 => generate(CounterBank::<1, $cw, $tw, $w, $iw>::new($c)),
            2 => generate(CounterBank::<2, $cw, $tw, $w, $iw>::new($c)),
            3 => generate(CounterBank::<3, $cw, $tw, $w, $iw>::new($c)),
            4 => generate(CounterBank::<4, $cw, $tw, $w, $iw>::new($c)),
            5 => generate(CounterBank::<5, $cw, $tw, $w, $iw>::new($c)),
            6 => generate(CounterBank::<6, $cw, $tw, $w, $iw>::new($c)),
            7 => generate(CounterBank::<7, $cw, $tw, $w, $iw>::new($c)),
            8 => generate(CounterBank::<8, $cw, $tw, $w, $iw>::new($c)),
            9 => generate(CounterBank::<9, $cw, $tw, $w, $iw>::new($c)),
            10 => generate(CounterBank::<10, $cw, $tw, $w, $iw>::new($c)),
            11 => generate(CounterBank::<11, $cw, $tw, $w, $iw>::new($c)),
            12 => generate(CounterBank::<12, $cw, $tw, $w, $iw>::new($c)),
            13 => generate(CounterBank::<13, $cw, $tw, $w, $iw>::new($c)),
            14 => generate(CounterBank::<14, $cw, $tw, $w, $iw>::new($c)),
            15 => generate(CounterBank::<15, $cw, $tw, $w, $iw>::new($c)),
            16 => generate(CounterBank::<16, $cw, $tw, $w, $iw>::new($c)),
            other => unreachable!("addr_bits {other} passed validation but has no instance"),
        }
    };
}

/// The reference loop of a counter bank: its rows with {count, tsum} added.
pub(crate) fn counter_bank_geometry(c: &CounterBankConfig) -> RmwGeometry {
    RmwGeometry {
        rows: c.rows,
        addr_bits: c.addr_bits(),
        fields: vec![(c.count_bits, FieldOp::Add), (c.tsum_bits, FieldOp::Add)],
    }
}

impl CoreSpec for CounterBankConfig {
    const NAME: &'static str = "counter-bank";
    const KIND: Kind = Kind::Block;
    const PAPER: &'static str = "LDA §V (counter SRAM, two copies)";
    const RATE: &'static str = "1 update";
    const DATASHEET: &'static str = "docs/cores/counter-bank.md";

    /// The paper's 1024 rows, or 512 on the iCE40-HX8K, whose 32 EBRs (128
    /// kbit) cannot hold two copies of 1024 × 72 bits.
    fn default_for(target: Option<Target>) -> Self {
        match target {
            Some(Target::Ice40Hx8k) => CounterBankConfig { rows: 512, ..Default::default() },
            _ => CounterBankConfig::default(),
        }
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "Counter bank (Kompella et al., ToN 2012, §V): ping-pong RAM of {count, tsum} rows, \
         one read-modify-write per clock with forwarding, streamed read-out, hardware clear"
    }
    fn reference(&self) -> Reference {
        Reference::Rmw(counter_bank_geometry(self))
    }
    /// `s_upd_ready` is low only while the rows clear after reset (docs/cores/counter-bank.md).
    fn stream_rule(&self) -> StreamRule {
        StreamRule { ready_after_reset: vec!["s_upd"], register_takes: vec![], reset_latency: 1 }
    }
    fn generate(&self) -> (String, Vec<Port>) {
        match (self.count_bits, self.tsum_bits) {
            (16, 32) => cb_addr!(self, 16, 32, 48, 6),
            (16, 40) => cb_addr!(self, 16, 40, 56, 6),
            (16, 48) => cb_addr!(self, 16, 48, 64, 6),
            (16, 64) => cb_addr!(self, 16, 64, 80, 7),
            (32, 32) => cb_addr!(self, 32, 32, 64, 6),
            (32, 40) => cb_addr!(self, 32, 40, 72, 7),
            (32, 48) => cb_addr!(self, 32, 48, 80, 7),
            (32, 64) => cb_addr!(self, 32, 64, 96, 7),
            other => unreachable!("widths {other:?} passed validation but have no instance"),
        }
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        Ok(crate::common::counter_bank_vectors::counter_bank_vectors(self, seed, cycles))
    }
}
