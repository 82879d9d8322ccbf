//! Two-entry skid buffer: a stream stage whose every output is a register.
//!
//! A valid/ready stream between two blocks far apart on the die closes a
//! loop through both when `ready` is combinational: the consumer's decision
//! travels back into the producer's state in the same clock. This stage
//! registers the stream (`m_valid`, `m_data`) and also the `ready` it gives
//! the producer (`s_ready` = the skid entry is empty), so neither side's
//! logic reaches the other's registers without a register in between. It
//! still moves one beat per clock: a beat that arrives while the output is
//! held waits in the skid entry and goes out next.
//!
//! Beats leave in the order they arrive, none lost or repeated. A beat
//! offered while `s_ready` is high is taken; it is presented the clock after
//! (through an empty stage) or once the beats ahead of it have gone.
//!
//! `s_ready` comes from a copy of the "skid entry full" register of its own,
//! kept apart in synthesis ([`KeptReg`]): the stage's registers sit beside
//! the consumer, whose take they follow, and the copy sits beside the
//! producer, whose read-out logic it drives.
//!
//! A consumer that forms its take from the stage's flags in a loop of its own
//! (a take that also decides the consumer's next state) reads `m_valid_copy`
//! and `s_ready_copy`: the same flags from two more kept registers, which
//! placement can put beside that loop instead of beside the stage's data
//! registers, where `m_valid` and `s_ready` drive the load enables.
//!
//! The consumer gives its decision twice: `m_ready` moves the data (the load
//! enables of both entries) and `m_ready_copy`, the same value every clock
//! from registers of the consumer's own, moves the flags (`m_valid`, the skid
//! entry's full flag and their copies). A stage whose data is wide then has
//! no gate shared by its flags and its many load enables, which placement
//! spreads along the data.

use super::kept_reg::KeptReg;
use rust_hdl::prelude::*;

/// A valid/ready stream stage of two entries with registered outputs and a registered `s_ready`.
#[derive(LogicBlock, Default)]
pub struct SkidBuffer<T: Synth> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: both entries empty.
    pub reset: Signal<In, Bit>,
    // --- upstream ---
    /// The producer offers a beat.
    pub s_valid: Signal<In, Bit>,
    /// The stage takes a beat offered now (a register: the skid entry is empty).
    pub s_ready: Signal<Out, Bit>,
    /// The beat offered.
    pub s_data: Signal<In, T>,
    // --- downstream ---
    /// A beat is presented (a register).
    pub m_valid: Signal<Out, Bit>,
    /// The consumer takes it (drives the data's load enables).
    pub m_ready: Signal<In, Bit>,
    /// `m_ready` again, equal to it every clock (drives the flags; tie it to `m_ready` when
    /// the consumer has no copy).
    pub m_ready_copy: Signal<In, Bit>,
    /// The beat presented (a register; meaningful while `m_valid`).
    pub m_data: Signal<Out, T>,
    // --- the flags again, for a consumer's take loop far from the stage ---
    /// `m_valid` from a kept register of its own.
    pub m_valid_copy: Signal<Out, Bit>,
    /// `s_ready` from a kept register of its own.
    pub s_ready_copy: Signal<Out, Bit>,
    // --- state ---
    out_valid: DFF<Bit>,
    out_data: DFF<T>,
    /// A beat waits behind the presented one.
    skid_valid: DFF<Bit>,
    skid_data: DFF<T>,
    /// `skid_valid` again, for `s_ready` (placed beside the producer).
    full_copy: KeptReg<Bit>,
    /// `out_valid` again, for `m_valid_copy`.
    valid_copy2: KeptReg<Bit>,
    /// `skid_valid` again, for `s_ready_copy`.
    full_copy2: KeptReg<Bit>,
    /// The consumer takes the presented beat this clock (from `m_ready`: the data moves).
    take: Signal<Local, Bit>,
    /// The same take from `m_ready_copy` (the flags follow).
    take_flags: Signal<Local, Bit>,
    /// `skid_valid` at the next edge.
    skid_next: Signal<Local, Bit>,
}

impl<T: Synth> Logic for SkidBuffer<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_valid, out_data, skid_valid, skid_data);
        self.full_copy.clock.next = self.clock.val();
        self.valid_copy2.clock.next = self.clock.val();
        self.full_copy2.clock.next = self.clock.val();
        self.s_ready.next = !self.full_copy.q.val();
        self.s_ready_copy.next = !self.full_copy2.q.val();
        self.m_valid_copy.next = self.valid_copy2.q.val();
        self.m_valid.next = self.out_valid.q.val();
        self.m_data.next = self.out_data.q.val();
        self.take.next = self.out_valid.q.val() & self.m_ready.val();
        self.take_flags.next = self.out_valid.q.val() & self.m_ready_copy.val();
        // Data: the skid entry follows the input while it is empty (only `skid_valid` says it
        // holds a beat); the output loads the waiting beat with a take, else the offered one
        // whenever it is free (empty or taken).
        if !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s_data.val();
        }
        if self.skid_valid.q.val() {
            if self.take.val() {
                self.out_data.d.next = self.skid_data.q.val();
            }
        } else if !self.out_valid.q.val() | self.take.val() {
            self.out_data.d.next = self.s_data.val();
        }
        // Flags, from the same decisions made with `take_flags`.
        self.skid_next.next = self.skid_valid.q.val();
        if self.skid_valid.q.val() {
            // Full: nothing is taken from upstream; the waiting beat moves out with the take.
            if self.take_flags.val() {
                self.skid_next.next = false;
            }
        } else if !self.out_valid.q.val() | self.take_flags.val() {
            // The output is free this clock: the offered beat (if any) goes straight to it.
            self.out_valid.d.next = self.s_valid.val();
        } else {
            // The output is held: the offered beat waits in the skid entry.
            self.skid_next.next = self.s_valid.val();
        }
        if self.reset.val() {
            self.out_valid.d.next = false;
            self.skid_next.next = false;
        }
        self.skid_valid.d.next = self.skid_next.val();
        self.full_copy.d.next = self.skid_next.val();
        self.full_copy2.d.next = self.skid_next.val();
        self.valid_copy2.d.next = self.out_valid.d.val();
    }
}
