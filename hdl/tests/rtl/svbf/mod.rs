//! MAPLE's SVBF blocks: synthesizable, and the properties of their Verilog.

mod answer;
mod core;
mod partition;
