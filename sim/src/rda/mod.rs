//! The reconcilable difference aggregator (Fu, Barlet-Ros, Li, *Every
//! Timestamp Counts*, IEEE/ACM ToN 2018): config and hashes, golden model of
//! the core, and the host's decode and estimators.

pub mod config;
pub mod cycle;
pub mod decode;
pub mod hash;
pub mod model;
pub mod run;

pub use config::*;
pub use cycle::{RdaCycle, RdaInputs, RdaOutputs, RdaReadout};
pub use decode::{
    BucketMap, CaptureTimestamps, Decoded, RdaEstimate, RdaPairError, RepairMode, Timestamps, peel, reconcile, subtract,
};
pub use hash::BucketHash;
pub use model::*;
pub use run::{
    DecodeReport, IntervalTrace, RdaOutcome, RdaPair, RdaTrafficSpec, RdaTruth, golden_pair, outcome, packet_id,
};
