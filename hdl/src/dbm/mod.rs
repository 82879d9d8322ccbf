//! DBM cores (Uyeda, Foschini, Baker, Suri, Varghese, *Efficiently Measuring
//! Bandwidth at All Time Scales*, NSDI 2011, §3.1 and §5): dynamic bucket
//! merge on a two-level radix-32 min structure with a culprit per bucket
//! (§3.3), per packet by mass ([`DbmCore`]) and over base-interval sums by
//! mass, range or variance ([`DbmIntervalCore`], §3.1.3).

pub mod core;
pub mod interval_core;
pub mod spec;
pub mod vectors;

pub use self::core::DbmCore;
pub use self::interval_core::DbmIntervalCore;
