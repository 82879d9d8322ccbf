//! The measurement point around a core (`docs/architecture.md`, "From
//! frames to a core"): what carries the frame parser's records from the
//! MAC's clock domain to the core's, and the structural check that nothing
//! else crosses.

pub mod async_fifo;
pub mod cdc;
