//! Clear after reset: a row counter that walks a bank's rows once.
//!
//! A block RAM holds whatever it held before reset, so every bank zeroes its
//! rows after reset, one row per clock through its write port, and accepts
//! updates only once the last zero has landed. This block is that sequence:
//! [`RmwBank`](super::rmw_bank::RmwBank) writes a zero at `row` while `done`
//! is low, and a core that must know when its largest bank is ready without
//! gathering every bank's flag runs a copy with the same row count (the same
//! clocks, one register to read).
//!
//! Timing: on the clocks after reset is released `row` is 0, 1, … rows − 1;
//! the clock after the last row (whose write lands then) is still not done,
//! and `done` is high from the next one on: rows + 1 clocks after reset.

use rust_hdl::prelude::*;

/// Walks rows 0 … `rows` − 1, one per clock after reset, then holds `done` high until the next reset.
#[derive(LogicBlock)]
pub struct ClearSequence<const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: restarts the sequence at row 0.
    pub reset: Signal<In, Bit>,
    /// The row to clear this clock (meaningful while `done` is low).
    pub row: Signal<Out, Bits<A>>,
    /// Every row has been cleared (a register).
    pub done: Signal<Out, Bit>,
    /// The row cleared now.
    ptr: DFF<Bits<A>>,
    /// The last row was cleared this clock; its write lands at the next edge.
    last: DFF<Bit>,
    done_q: DFF<Bit>,
    last_row: Constant<Bits<A>>,
    one: Constant<Bits<A>>,
    zero: Constant<Bits<A>>,
}

impl<const A: usize> ClearSequence<A> {
    /// A sequence over `rows` rows (1 ≤ rows ≤ 2^A).
    pub fn new(rows: usize) -> Self {
        assert!(rows >= 1 && (A >= 64 || rows <= 1usize << A), "clear sequence of {rows} rows in {A} bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            row: Default::default(),
            done: Default::default(),
            ptr: Default::default(),
            last: Default::default(),
            done_q: Default::default(),
            last_row: Constant::new(((rows - 1) as u64).into()),
            one: Constant::new(1u64.into()),
            zero: Constant::new(0u64.into()),
        }
    }
}

impl<const A: usize> Logic for ClearSequence<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ptr, last, done_q);
        self.row.next = self.ptr.q.val();
        self.done.next = self.done_q.q.val();
        if !self.done_q.q.val() & !self.last.q.val() {
            self.ptr.d.next = self.ptr.q.val() + self.one.val();
            if self.ptr.q.val() == self.last_row.val() {
                self.last.d.next = true;
            }
        }
        if self.last.q.val() {
            self.last.d.next = false;
            self.done_q.d.next = true;
        }
        if self.reset.val() {
            self.ptr.d.next = self.zero.val();
            self.last.d.next = false;
            self.done_q.d.next = false;
        }
    }
}
