//! The tests of the rust-hdl blocks in `hdl/src`, one file per module at the
//! same path (`common/h3.rs` tests `netmeas_hdl::common::h3`): each block is
//! synthesizable (exported and lint-clean), the generated Verilog has the
//! properties the timing and the memory inference rest on, and the blocks
//! with a per-clock model equal it in rust-hdl's own simulator.
//!
//! They live here, as one integration-test binary, and not in `#[cfg(test)]`
//! modules beside the blocks, because a unit-test harness compiles the whole
//! crate a second time, and this crate is most of the project's build.

mod board;
mod common;
mod dbm;
mod export;
mod formal;
mod fusesoc;
mod point;
mod registry;
mod stream_rule;
mod svbf;
