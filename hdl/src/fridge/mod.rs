//! Fridge core (Zheng, Chen, Braverman, Rexford, *Unbiased Delay Measurement
//! in the Data Plane*, §6): the entry pipeline and the in-fabric correction
//! and histograms.

pub mod core;
pub mod histogram;
pub mod spec;
pub mod vectors;

pub use self::core::FridgeCore;
pub use histogram::FridgeHistogram;
