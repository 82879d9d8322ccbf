//! A register that synthesis keeps apart from its twins.
//!
//! Yosys merges flip-flops with the same clock and the same input
//! (`opt_merge`), so a register copied by hand to split a large fanout — one
//! copy beside each group of its consumers — comes back out of synthesis as a
//! single register driving them all across the die. This block carries
//! `(* keep *)` on its register, which stops the merge: each instance stays a
//! register of its own that placement puts beside what it feeds.

use rust_hdl::prelude::*;

/// A `T` register (`q` is `d` one clock later) that synthesis never merges with another.
#[derive(LogicBlock, Default)]
pub struct KeptReg<T: Synth> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// The value registered at the next edge.
    pub d: Signal<In, T>,
    /// The registered value.
    pub q: Signal<Out, T>,
}

impl<T: Synth> Logic for KeptReg<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = self.d.val();
        }
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "// `keep`: synthesis does not merge this register with a copy of the same value.\n\
             (* keep *)\nalways @(posedge clock) begin\n   q <= d;\nend\n"
                .into(),
        )
    }
}
