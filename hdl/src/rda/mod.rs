//! The RDA core (Fu, Barlet-Ros, Li, ToN 2018).

pub mod bucket_hash;
pub mod core;
pub mod lane;
pub mod spec;
pub mod vectors;

pub use self::core::RdaCore;
