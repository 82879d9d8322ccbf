//! The RDA core in the core registry (Fu et al., ToN 2018, §III-A, §V-A).

use crate::export::{Port, generate};
use crate::point::binding::{PointBinding, RecordField, RecordSource, TimeInput};
use crate::rda::RdaCore;
use crate::registry::{CoreSpec, FieldOp, Kind, Reference, RmwGeometry, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::csr::RegisterDesc;
use netmeas_sim::rda::{RDA_COUNT_BITS, RDA_ID_BITS, RdaConfig, rda_registers};

impl CoreSpec for RdaConfig {
    const NAME: &'static str = "rda";
    const KIND: Kind = Kind::Core;
    const PAPER: &'static str = "RDA §III, §V";
    const RATE: &'static str = "1";
    const DATASHEET: &'static str = "docs/cores/rda.md";

    /// The paper's two banks of 2500 buckets with 48-bit sums, or one bank of
    /// 512 with 32-bit sums on the iCE40-HX8K (its 32 EBRs hold exactly two
    /// copies of 512 × 128 bits, and two banks' hash and bucket logic exceed
    /// its 7680 logic cells; one slice of 512 rows per copy needs no extra
    /// read stages, for which it has no room).
    fn default_for(target: Option<Target>) -> Self {
        match target {
            Some(Target::Ice40Hx8k) => {
                RdaConfig { banks: 1, buckets: 512, tsum_bits: 32, read_stages: 0, ..Default::default() }
            }
            _ => RdaConfig::default(),
        }
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "RDA core (Fu et al., ToN 2018, §III-A, §V-A): k banks of {ID xor, TS sum, count} buckets, \
         non-linear bucket hash per bank, one packet per clock, intervals delimited by the synchronized clock"
    }
    fn registers(&self) -> Vec<RegisterDesc> {
        rda_registers(self)
    }
    fn csr_data_bits(&self) -> u32 {
        32
    }
    /// One bank: the banks are independent memories side by side.
    fn reference(&self) -> Reference {
        Reference::Rmw(RmwGeometry {
            rows: self.buckets,
            addr_bits: self.addr_bits(),
            fields: vec![
                (RDA_COUNT_BITS as usize, FieldOp::Add),
                (self.tsum_bits, FieldOp::Add),
                (RDA_ID_BITS as usize, FieldOp::Xor),
            ],
        })
    }
    /// Behind the frame parser: the packet's 64-bit ID is the H3 digest of
    /// its key (5-tuple and IP ID, the fields both ends see alike, §VIII-A),
    /// the ingress time in ns modulo 2^48 its timestamp and its `now`: the
    /// intervals close on time (§III-A), on a link that falls idle by the
    /// point's time markers.
    fn point_binding(&self) -> Option<PointBinding> {
        Some(PointBinding {
            packet: vec![
                ("s_id".into(), RecordSource::KeyDigest),
                ("s_ts".into(), RecordSource::Field(RecordField::Ts)),
            ],
            role_only: false,
            flip: None,
            readout_last: "m_ro_last".into(),
            epoch_marker: "live_epoch".into(),
            now: Some(TimeInput::now(RecordSource::Field(RecordField::Ts))),
            query: None,
        })
    }
    fn generate(&self) -> (String, Vec<Port>) {
        match (self.banks, self.tsum_bits) {
            (1, 32) => generate(RdaCore::<1, 32, 128>::new(self)),
            (1, 40) => generate(RdaCore::<1, 40, 136>::new(self)),
            (1, 48) => generate(RdaCore::<1, 48, 144>::new(self)),
            (1, 64) => generate(RdaCore::<1, 64, 160>::new(self)),
            (2, 32) => generate(RdaCore::<2, 32, 128>::new(self)),
            (2, 40) => generate(RdaCore::<2, 40, 136>::new(self)),
            (2, 48) => generate(RdaCore::<2, 48, 144>::new(self)),
            (2, 64) => generate(RdaCore::<2, 64, 160>::new(self)),
            (3, 32) => generate(RdaCore::<3, 32, 128>::new(self)),
            (3, 40) => generate(RdaCore::<3, 40, 136>::new(self)),
            (3, 48) => generate(RdaCore::<3, 48, 144>::new(self)),
            (3, 64) => generate(RdaCore::<3, 64, 160>::new(self)),
            (4, 32) => generate(RdaCore::<4, 32, 128>::new(self)),
            (4, 40) => generate(RdaCore::<4, 40, 136>::new(self)),
            (4, 48) => generate(RdaCore::<4, 48, 144>::new(self)),
            (4, 64) => generate(RdaCore::<4, 64, 160>::new(self)),
            other => unreachable!("RDA geometry {other:?} passed validation but has no instance"),
        }
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        Ok(crate::rda::vectors::rda_vectors(self, seed, cycles))
    }
}
