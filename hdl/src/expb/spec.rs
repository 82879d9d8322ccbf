//! The EXPB core in the core registry (Uyeda et al., NSDI 2011, §3.2, §3.3).

use crate::expb::ExpbCore;
use crate::export::{Port, generate};
use crate::registry::{CoreSpec, FieldOp, Kind, Reference, RmwGeometry, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::dbm::ExpbConfig;
use netmeas_sim::dbm::expb_cycle::{EXPB_COUNT_BITS, EXPB_INDEX_BITS, EXPB_SUM_BITS, EXPB_SUMSQ_BITS, EXPB_V_BITS};

impl CoreSpec for ExpbConfig {
    const NAME: &'static str = "expb";
    const KIND: Kind = Kind::Core;
    const PAPER: &'static str = "bandwidth §3.2, §3.3";
    const RATE: &'static str = "1";
    const DATASHEET: &'static str = "docs/cores/dbm.md";

    fn default_for(_target: Option<Target>) -> Self {
        ExpbConfig::default()
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "EXPB core (Uyeda et al., NSDI 2011, §3.2, §3.3): byte counts at m time scales 2^j base intervals, \
         Algorithm 2's trailing-zero cascade one scale per clock, {count, sum, sum of squares, max} per scale \
         with a majority culprit, ping-pong periods streamed out"
    }
    /// The statistics bank: one row per scale, {count, Σ, Σ²} added, the maximum replaced.
    fn reference(&self) -> Reference {
        Reference::Rmw(RmwGeometry {
            rows: self.scales,
            addr_bits: 4,
            fields: vec![
                (EXPB_COUNT_BITS as usize, FieldOp::Add),
                (EXPB_SUM_BITS as usize, FieldOp::Add),
                (EXPB_SUMSQ_BITS as usize, FieldOp::Add),
                ((EXPB_V_BITS + EXPB_INDEX_BITS + 32) as usize, FieldOp::ScaleMax),
            ],
        })
    }
    /// Behind the frame parser: each frame's length and flow ID, its time
    /// since the point's first packet; a period ends when a packet's time
    /// passes it, and its statistics stream out, one row per scale (§3.3
    /// culprits included).
    fn point_binding(&self) -> Option<crate::point::binding::PointBinding> {
        Some(crate::point::binding::bandwidth_binding("m_ro_last", "live_period"))
    }
    fn generate(&self) -> (String, Vec<Port>) {
        generate(ExpbCore::new(self))
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        crate::expb::vectors::expb_vectors(self, seed, cycles)
    }
}
