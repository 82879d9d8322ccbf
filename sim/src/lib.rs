//! Golden models, estimators and traffic for the netmeas cores.
//!
//! Pure Rust: this crate depends on neither rust-hdl nor Verilator, so the
//! models are fast and usable on their own. Every config type lives here so
//! that the RTL generator (`netmeas-hdl`) and the golden models read the same
//! parameters and derive the same hash matrices from the same seeds.

pub mod board;
pub mod counter_bank;
pub mod csr;
pub mod dbm;
pub mod error;
pub mod files;
pub mod frame;
pub mod fridge;
pub mod h3;
pub mod lda;
pub mod prng;
pub mod rda;
pub mod stats;
pub mod svbf;
pub mod traffic;

pub use error::ConfigError;

/// Checks that `name` is a plain Verilog identifier usable as a module name.
pub fn check_module_name(field: &str, name: &str) -> Result<(), ConfigError> {
    let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64;
    if ok {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!("{name:?} is not a Verilog identifier ([A-Za-z_][A-Za-z0-9_]*, at most 64)"),
        ))
    }
}
