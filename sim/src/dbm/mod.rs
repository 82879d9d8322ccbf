//! Bandwidth at all time scales (Uyeda, Foschini, Baker, Suri, Varghese,
//! *Efficiently Measuring Bandwidth at All Time Scales*, NSDI 2011): configs,
//! the golden models of the DBM (§3.1, with the two-level radix-32 min
//! structure of §5) and EXPB (§3.2) cores with their culprits (§3.3), the a
//! posteriori queries and their ground truth, and bursty traffic.

pub mod config;
pub mod culprit;
pub mod dbm_cycle;
pub mod expb;
pub mod expb_cycle;
pub mod model;
pub mod query;
pub mod radix_min;
pub mod stream;
pub mod traffic;

pub use config::*;
pub use dbm_cycle::{DbmCycle, DbmDrive, DbmInputs, DbmOutputs, DbmReadOut, drive_dbm};
pub use expb::{ExpbGolden, ExpbPeriod, ExpbSynopsis, ScaleStats, run_expb};
pub use expb_cycle::{ExpbCycle, ExpbInputs, ExpbOutputs};
pub use model::{Bucket, DbmFlags, DbmGolden, DbmPeriod, DbmSynopsis, merge_key, run_dbm};
pub use query::{
    SeriesStats, coarsest_exceeding, dbm_mass, dbm_series, expb_scale, expb_stats, series_stats, true_mass, true_series,
};
pub use radix_min::RadixMin;
pub use stream::{BwInputs, PeriodCore, TimeOrder, run_periods};
pub use traffic::{BurstySpec, BwPacket, pcap_bandwidth};
