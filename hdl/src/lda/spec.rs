//! The LDA core in the core registry (Kompella et al., ToN 2012, §III-B..E, §V).

use crate::common::counter_bank_spec::counter_bank_geometry;
use crate::export::{Port, generate};
use crate::lda::LdaCore;
use crate::point::binding::{PointBinding, RecordField, RecordSource};
use crate::registry::{CoreSpec, Kind, Reference, RmwGeometry, StreamRule, Target};
use crate::shipped_testbench::Vectors;
use netmeas_sim::ConfigError;
use netmeas_sim::counter_bank::CounterBankConfig;
use netmeas_sim::csr::RegisterDesc;
use netmeas_sim::lda::{LdaConfig, lda_registers};

macro_rules! lda_rows {
    ($c:expr, $k:literal) => {
        match ($c.row_bits(), $c.bank_bits()) {
            (6, 0) => generate(LdaCore::<$k, 6, 6>::new($c)),
            (6, 1) => generate(LdaCore::<$k, 6, 7>::new($c)),
            (6, 2) => generate(LdaCore::<$k, 6, 8>::new($c)),
            (7, 0) => generate(LdaCore::<$k, 7, 7>::new($c)),
            (7, 1) => generate(LdaCore::<$k, 7, 8>::new($c)),
            (7, 2) => generate(LdaCore::<$k, 7, 9>::new($c)),
            (8, 0) => generate(LdaCore::<$k, 8, 8>::new($c)),
            (8, 1) => generate(LdaCore::<$k, 8, 9>::new($c)),
            (8, 2) => generate(LdaCore::<$k, 8, 10>::new($c)),
            (9, 0) => generate(LdaCore::<$k, 9, 9>::new($c)),
            (9, 1) => generate(LdaCore::<$k, 9, 10>::new($c)),
            (9, 2) => generate(LdaCore::<$k, 9, 11>::new($c)),
            (10, 0) => generate(LdaCore::<$k, 10, 10>::new($c)),
            (10, 1) => generate(LdaCore::<$k, 10, 11>::new($c)),
            (10, 2) => generate(LdaCore::<$k, 10, 12>::new($c)),
            (11, 0) => generate(LdaCore::<$k, 11, 11>::new($c)),
            (11, 1) => generate(LdaCore::<$k, 11, 12>::new($c)),
            (11, 2) => generate(LdaCore::<$k, 11, 13>::new($c)),
            other => unreachable!("LDA geometry {other:?} passed validation but has no instance"),
        }
    };
}

/// The reference loop of an LDA core: its counter memory, a counter bank of
/// banks × rows rows.
pub(crate) fn lda_geometry(l: &LdaConfig) -> RmwGeometry {
    counter_bank_geometry(&CounterBankConfig {
        rows: l.total_rows(),
        addr_bits: Some(l.addr_bits()),
        ..Default::default()
    })
}

impl CoreSpec for LdaConfig {
    const NAME: &'static str = "lda";
    const KIND: Kind = Kind::Core;
    const PAPER: &'static str = "LDA §III-B..E, §V";
    const RATE: &'static str = "1";
    const DATASHEET: &'static str = "docs/cores/lda.md";

    /// The paper's two banks of 512 rows, or two of 256 on the iCE40-HX8K (two
    /// copies of 1024 × 72 bits exceed its 32 EBRs).
    fn default_for(target: Option<Target>) -> Self {
        match target {
            Some(Target::Ice40Hx8k) => LdaConfig { rows: 256, ..Default::default() },
            _ => LdaConfig::default(),
        }
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "LDA core (Kompella et al., ToN 2012, §III-B..C, §V): classifier, H3 row and sampling hashes, \
         banks chosen by leading zeros, {count, tsum} rows at one packet per clock, ping-pong epochs"
    }
    fn registers(&self) -> Vec<RegisterDesc> {
        lda_registers(self)
    }
    fn csr_data_bits(&self) -> u32 {
        8
    }
    fn reference(&self) -> Reference {
        Reference::Rmw(lda_geometry(self))
    }
    /// The key's low `key_bits` (§III-C, §V: 5-tuple and IP ID), the ingress
    /// time in ns modulo 2^40 as the tick, the class byte for the classifier
    /// (§V); `EPOCH_FLIP` raises `flip` until `flip_ready` takes it.
    fn point_binding(&self) -> Option<PointBinding> {
        Some(PointBinding {
            packet: vec![
                ("s_key".into(), RecordSource::Field(RecordField::Key)),
                ("s_ts".into(), RecordSource::Field(RecordField::Ts)),
                ("s_class".into(), RecordSource::Field(RecordField::Class)),
            ],
            role_only: false,
            flip: Some(("flip".into(), Some("flip_ready".into()))),
            readout_last: "m_ro_last".into(),
            epoch_marker: "epoch".into(),
            now: None,
            query: None,
        })
    }
    /// `s_ready` is low only while the counters clear after reset (docs/cores/lda.md).
    fn stream_rule(&self) -> StreamRule {
        StreamRule { ready_after_reset: vec!["s"], register_takes: vec![], reset_latency: 1 }
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<Vectors, String> {
        Ok(crate::lda::vectors::lda_vectors(self, seed, cycles))
    }
    fn generate(&self) -> (String, Vec<Port>) {
        match self.key_bits {
            32 => lda_rows!(self, 32),
            64 => lda_rows!(self, 64),
            104 => lda_rows!(self, 104),
            120 => lda_rows!(self, 120),
            128 => lda_rows!(self, 128),
            other => unreachable!("key_bits {other} passed validation but has no instance"),
        }
    }
}
