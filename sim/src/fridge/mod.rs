//! Fridges (Zheng, Chen, Braverman, Rexford, *Unbiased Delay Measurement in
//! the Data Plane*): config and index hash, golden model of the core, the
//! survivorship-bias correction, host estimators, the §2.1 simple baseline
//! and request/response traffic.

pub mod baseline;
pub mod config;
pub mod cycle;
pub mod estimate;
pub mod factor;
pub mod model;
pub mod run;
pub mod traffic;

pub use baseline::SimpleMonitor;
pub use config::*;
pub use cycle::{FridgeCycle, FridgeInputs, FridgeOutputs};
pub use estimate::{
    Cdf, WeightedSample, combine, correct, histogram_cdf, log2_error, max_horizontal_gap, tune_prob_log2,
};
pub use factor::{CorrectionRegs, exact_factor};
pub use model::*;
pub use run::{FridgeRun, Percentiles, Scored, golden_epochs, run_golden, run_simple, score_histograms, score_samples};
pub use traffic::{Exchange, FridgeTrace, SyntheticSpec, pcap_pairs, write_exchange_pcap};
