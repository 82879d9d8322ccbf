//! The LDA core (Kompella et al., ToN 2012).

pub mod core;
pub mod spec;
pub mod vectors;

pub use self::core::LdaCore;
