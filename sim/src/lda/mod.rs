//! Lossy difference aggregator (Kompella et al., ToN 2012): config and
//! register map, golden models, and the host estimators.

pub mod config;
pub mod estimate;
pub mod model;

pub use config::*;
pub use estimate::{LdaEstimate, PairError, estimate};
pub use model::*;
