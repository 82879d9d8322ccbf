//! MAPLE packet latency store (Lee, Duffield, Kompella, SIGMETRICS 2012):
//! delay centers, the shared-vector Bloom filter (§3.3.3) in h partitions,
//! refined estimates and tie-breaking (§3.3), its dimensioning (§3.4) and
//! the query interface (§4: neighbouring epochs, range queries).

pub mod baselines;
pub mod centers;
pub mod config;
pub mod cycle;
pub mod dimension;
pub mod query;
pub mod run;
pub mod store;

pub use config::{SVBF_MAX_CENTERS, SVBF_RTL_BUILDS, SvbfConfig, svbf_registers};
pub use dimension::{Dimensioning, dimension};
pub use store::{Answer, Centers, MatchKind, SvbfStore, answer, port_answer, refined};
