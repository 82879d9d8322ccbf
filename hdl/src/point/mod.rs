//! The measurement point around a core (`docs/architecture.md`, "From
//! frames to a core"): what carries the frame parser's records from the
//! MAC's clock domain to the core's, the structural check that nothing
//! else crosses, and the register block with its AXI4-Lite and Wishbone
//! slaves.

pub mod async_fifo;
pub mod binding;
pub mod bus;
pub mod cdc;
pub mod control;
pub mod cosim;
pub mod counters;
pub mod package;
pub mod regs;
pub mod reset_bridge;
pub mod segment;
pub mod sim;
pub mod top;
