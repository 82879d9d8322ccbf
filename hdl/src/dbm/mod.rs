//! DBM core (Uyeda, Foschini, Baker, Suri, Varghese, *Efficiently Measuring
//! Bandwidth at All Time Scales*, NSDI 2011, §3.1 and §5): per-packet dynamic
//! bucket merge by mass on a two-level radix-32 min structure, with a culprit
//! per bucket (§3.3).

pub mod core;

pub use self::core::DbmCore;
