//! Terminates an output a parent deliberately leaves unread.
//!
//! rust-hdl declares a wire for every port of every child, so an output the
//! parent has no use for (a block reused in a mode that makes it constant)
//! would trip `verilator -Wall`'s UNUSEDSIGNAL. Connecting it here states the
//! intent in the parent's code and keeps the one waiver in one place; synthesis
//! removes the sink and whatever only fed it.

use rust_hdl::prelude::*;

/// A sink for one signal of type `T`: no outputs, no logic after synthesis.
#[derive(LogicBlock, Default)]
pub struct Unused<T: Synth> {
    /// The signal left unread.
    pub sig: Signal<In, T>,
}

impl<T: Synth> Logic for Unused<T> {
    fn update(&mut self) {}

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "/* verilator lint_off UNUSEDSIGNAL */\nwire unused = ^sig;\n/* verilator lint_on UNUSEDSIGNAL */\n".into(),
        )
    }
}
