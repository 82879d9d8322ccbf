//! The measurement point's front end: the frame parser, which turns the
//! frames a MAC delivers into the records the cores take.

pub mod frame_parser;
pub mod spec;
pub mod vectors;
pub mod verilog;
