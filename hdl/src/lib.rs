//! rust-hdl RTL of the netmeas cores and their Verilog export.
//!
//! - [`common`]: building blocks every core reuses (H3 hash, block RAM,
//!   read-modify-write bank, counter bank).
//! - [`registry`]: every block, described once ([`registry::CoreSpec`]) and
//!   listed once ([`registry::CORES`]).
//! - [`export`]: one config → one lint-clean Verilog file with a unique top.
//! - [`shipped_testbench`]: the self-checking Verilog testbench an export
//!   ships with, from each block's golden per-clock vectors.
//! - [`tools`]: where Verilator and the YoWASP tools are found.

pub mod board;
pub mod c_header;
pub mod common;
pub mod dbm;
pub mod expb;
pub mod export;
pub mod frame;
pub mod fridge;
pub mod fusesoc;
pub mod lda;
pub mod point;
pub mod rda;
pub mod registry;
pub mod shipped_testbench;
pub mod svbf;
pub mod tools;

/// A `Bits<N>` from a `u128` (the widest value the golden models use for keys and words).
pub fn bits_from_u128<const N: usize>(v: u128) -> rust_hdl::prelude::Bits<N> {
    num_bigint::BigUint::from(v).into()
}
