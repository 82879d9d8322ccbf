//! The measurement point around a core (`docs/architecture.md`, "From core
//! to measurement point"): what carries the frame parser's records from the
//! MAC's clock domain to the core's.

pub mod async_fifo;
