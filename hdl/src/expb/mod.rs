//! EXPB core (Uyeda, Foschini, Baker, Suri, Varghese, *Efficiently Measuring
//! Bandwidth at All Time Scales*, NSDI 2011, §3.2): exponential bucketing of
//! byte counts at m time scales with a majority culprit per scale.

pub mod core;
pub mod spec;
pub mod vectors;

pub use self::core::ExpbCore;
