//! Lossy difference aggregator (Kompella et al., ToN 2012): config and
//! register map, golden models, and the host estimators.

pub mod config;
pub mod estimate;
pub mod model;
pub mod run;

pub use config::*;
pub use estimate::{LdaEstimate, PairError, estimate};
pub use model::*;
pub use run::{
    LdaOutcome, LdaPair, RelError, check_delay_range, golden_pair, golden_synopsis, outcome, tuned_prob_log2,
};
