//! The DBM cores in the core registry (Uyeda et al., NSDI 2011, §3.1, §3.3, §5):
//! per packet by mass (`base_ticks` = 0), or over base-interval sums by mass,
//! range or variance.

use crate::dbm::{DbmCore, DbmIntervalCore};
use crate::export::{Port, generate};
use crate::registry::{CoreSpec, Kind, Reference, StreamProof, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::dbm::DbmConfig;

impl CoreSpec for DbmConfig {
    const NAME: &'static str = "dbm";
    const KIND: Kind = Kind::Core;
    const PAPER: &'static str = "bandwidth §3.1, §3.3, §5";
    const RATE: &'static str = "1 (a merge: 18 clocks)";
    const DATASHEET: &'static str = "docs/cores/dbm.md";

    fn default_for(_target: Option<Target>) -> Self {
        DbmConfig::default()
    }
    fn unfit_for(target: Target) -> Option<&'static str> {
        (target == Target::Ice40Hx8k).then_some(
            "dbm: two copies of m × 322-bit (per packet) or 416-bit (base interval) bucket records and \
             the merge keys (about 700 kbit at 1024 buckets) exceed the HX8K's 128 kbit of EBR; build it \
             for ecp5-85k",
        )
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        if self.base_ticks == 0 {
            "DBM core (Uyeda et al., NSDI 2011, §3.1, §3.3, §5): per-packet dynamic bucket merge by mass, \
             m buckets as a time-ordered list in block RAM, merge keys in a two-level radix-32 min structure, \
             a join of the tail in one clock, a real merge in 18, culprits, ping-pong periods streamed out"
        } else {
            "DBM core (Uyeda et al., NSDI 2011, §3.1.3, §3.3, §5): dynamic bucket merge over base-interval \
             byte sums by mass, range or variance, an interval front end taking one packet per clock, a \
             sequential list back end with m buckets in block RAM and merge keys in a two-level radix-32 min \
             structure, culprits, ping-pong periods streamed out"
        }
    }
    fn reference(&self) -> Reference {
        Reference::Without("none: the DBM core's goal is an absolute packet rate (§5), not a RAM loop's")
    }
    fn stream_proof() -> StreamProof {
        StreamProof::Skipped(
            "the induction step does not finish in ten minutes with z3, even at 8 buckets (the 32x32-bit \
             squares and the radix-32 merge keys); the co-simulation checks the read-out under back-pressure",
        )
    }
    /// Behind the frame parser: each frame's length and flow ID, its time
    /// since the point's first packet; a period ends when a packet's time
    /// passes it, and its period's buckets stream out (§3.3 culprits included).
    fn point_binding(&self) -> Option<crate::point::binding::PointBinding> {
        Some(crate::point::binding::bandwidth_binding("m_ro_end", "period_index"))
    }
    fn generate(&self) -> (String, Vec<Port>) {
        if self.base_ticks == 0 { generate(DbmCore::new(self)) } else { generate(DbmIntervalCore::new(self)) }
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        crate::dbm::vectors::dbm_vectors(self, seed, cycles)
    }
}
