//! A reset on either side of a clock crossing, taken to both sides
//! (`netmeas_reset_bridge`, hand-written Verilog-2005 like the crossing it
//! serves: its flip-flops need the `ASYNC_REG` attribute and a clock each,
//! which rust-hdl's one-clock export does not give). The record FIFO and
//! the status counters each keep state in the MAC's and the core's clock
//! domains; a MAC's rx reset on a link flap, or a core reset by its host,
//! must restart both halves together (`docs/cores/async-fifo.md`, *Reset*).

/// The bridge's Verilog (module [`MODULE`]).
pub const VERILOG: &str = include_str!("netmeas_reset_bridge.v");
/// Its module.
pub const MODULE: &str = "netmeas_reset_bridge";
/// Its file name in an export.
pub const FILE: &str = "netmeas_reset_bridge.v";
