//! Counter bank: the LDA's memory (Kompella et al. §V: "72-bit SRAM words:
//! 32-bit packet counter + 40-bit timestamp sum", updated by read-modify-write
//! at line rate, two copies for read-out) as an [`RmwBank`] whose record
//! arithmetic adds `{count, tsum}` lane by lane.
//!
//! Record layout in the RAM word: `count` in bits `[CW-1:0]`, `tsum` in
//! `[W-1:CW]`. The count must not wrap (an overflow sets `ovf_sticky`); the
//! timestamp sum is modular by design (the host takes differences mod 2^TW).

use super::index_bits::index_bits;
use super::rmw_bank::RmwBank;
use crate::common::unused::Unused;
use netmeas_sim::counter_bank::CounterBankConfig;
use rust_hdl::prelude::*;

/// Ping-pong bank of `rows` × {count: `CW` bits, tsum: `TW` bits}; `W` = `CW + TW`
/// and `IW` = ⌈log2 W⌉ (the width of a bit index into a word) are implied by the others.
#[derive(LogicBlock)]
pub struct CounterBank<const A: usize, const CW: usize, const TW: usize, const W: usize, const IW: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops in-flight updates and the read-out, then clears both copies.
    pub reset: Signal<In, Bit>,
    // --- update stream: add (count, tsum) to row ---
    /// An update is offered.
    pub s_upd_valid: Signal<In, Bit>,
    /// Updates are accepted (low only while clearing after reset).
    pub s_upd_ready: Signal<Out, Bit>,
    /// Row to update.
    pub s_upd_row: Signal<In, Bits<A>>,
    /// Added to the row's packet count (usually 1).
    pub s_upd_count: Signal<In, Bits<CW>>,
    /// Added to the row's timestamp sum, modulo 2^TW: with the update, or, in
    /// a bank built by [`CounterBank::with_late_tsum`], four clocks after it
    /// (in the clock of its arithmetic).
    pub s_upd_tsum: Signal<In, Bits<TW>>,
    // --- epochs ---
    /// Request an epoch flip.
    pub flip: Signal<In, Bit>,
    /// A flip is taken this cycle if requested.
    pub flip_ready: Signal<Out, Bit>,
    /// The live copy (toggles on every flip).
    pub epoch: Signal<Out, Bit>,
    // --- read-out stream of the frozen copy (rows in order, then cleared) ---
    /// A row is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Row index.
    pub m_ro_row: Signal<Out, Bits<A>>,
    /// Packet count of the row.
    pub m_ro_count: Signal<Out, Bits<CW>>,
    /// Timestamp sum of the row.
    pub m_ro_tsum: Signal<Out, Bits<TW>>,
    /// Last row of the epoch.
    pub m_ro_last: Signal<Out, Bit>,
    // --- status ---
    /// A packet count wrapped since the flag was last cleared.
    pub ovf_sticky: Signal<Out, Bit>,
    /// Clear the sticky overflow flag.
    pub ovf_clear: Signal<In, Bit>,
    // --- internals ---
    bank: RmwBank<W, A>,
    /// The bank's hold port is not used (its frozen copy streams out).
    unused_held: Unused<Bit>,
    no_q_row: Constant<Bits<A>>,
    unused_q_data: Unused<Bits<W>>,
    /// The row's current record: the bank's candidates selected before the arithmetic.
    old: Signal<Local, Bits<W>>,
    tsum_lsb: Constant<Bits<IW>>,
    /// `s_upd_tsum` comes four clocks after its update, at the arithmetic (not carried by the bank's pipeline).
    late_tsum: Constant<Bit>,
    tsum_op: Signal<Local, Bits<TW>>,
    count_msb: Constant<Bits<IW>>,
    count_old: Signal<Local, Bits<CW>>,
    count_op: Signal<Local, Bits<CW>>,
    count_new: Signal<Local, Bits<CW>>,
    tsum_new: Signal<Local, Bits<TW>>,
    word_new: Signal<Local, Bits<W>>,
}

impl<const A: usize, const CW: usize, const TW: usize, const W: usize, const IW: usize> CounterBank<A, CW, TW, W, IW> {
    /// The bank for `cfg` (whose widths must match the type's).
    pub fn new(cfg: &CounterBankConfig) -> Self {
        Self::with_late_tsum(cfg, false)
    }

    /// The bank for `cfg`; with `late_tsum`, `s_upd_tsum` belongs to the update
    /// offered four clocks before (the one whose arithmetic runs in this
    /// clock) instead of the one offered with it. The bank's pipeline then
    /// carries no timestamp: a parent that already delays the timestamp (the
    /// LDA's block-RAM delay line, `LdaConfig::ts_in_ram`) hands it over at
    /// the add and saves the pipeline's registers.
    pub fn with_late_tsum(cfg: &CounterBankConfig, late_tsum: bool) -> Self {
        assert_eq!(
            (cfg.addr_bits(), cfg.count_bits, cfg.tsum_bits, cfg.word_bits(), index_bits(W)),
            (A, CW, TW, W, IW),
            "counter bank widths differ from the config"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_upd_valid: Default::default(),
            s_upd_ready: Default::default(),
            s_upd_row: Default::default(),
            s_upd_count: Default::default(),
            s_upd_tsum: Default::default(),
            flip: Default::default(),
            flip_ready: Default::default(),
            epoch: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_row: Default::default(),
            m_ro_count: Default::default(),
            m_ro_tsum: Default::default(),
            m_ro_last: Default::default(),
            ovf_sticky: Default::default(),
            ovf_clear: Default::default(),
            bank: RmwBank::new(cfg.rows),
            unused_held: Default::default(),
            no_q_row: Constant::new(0u64.into()),
            unused_q_data: Default::default(),
            old: Default::default(),
            tsum_lsb: Constant::new((CW as u64).into()),
            late_tsum: Constant::new(late_tsum),
            tsum_op: Default::default(),
            count_msb: Constant::new(((CW - 1) as u64).into()),
            count_old: Default::default(),
            count_op: Default::default(),
            count_new: Default::default(),
            tsum_new: Default::default(),
            word_new: Default::default(),
        }
    }
}

impl<const A: usize, const CW: usize, const TW: usize, const W: usize, const IW: usize> Logic
    for CounterBank<A, CW, TW, W, IW>
{
    #[hdl_gen]
    fn update(&mut self) {
        // Plumbing to the bank.
        self.bank.clock.next = self.clock.val();
        self.bank.hold.next = false;
        self.bank.release_frozen.next = false;
        self.bank.q_row.next = self.no_q_row.val();
        self.unused_held.sig.next = self.bank.held.val();
        self.unused_q_data.sig.next = self.bank.q_data.val();
        self.bank.reset.next = self.reset.val();
        self.bank.s_upd_valid.next = self.s_upd_valid.val();
        self.s_upd_ready.next = self.bank.s_upd_ready.val();
        self.bank.s_upd_row.next = self.s_upd_row.val();
        // A late timestamp skips the pipeline: the operand carries a zero tsum
        // (its registers are constant and vanish in synthesis).
        if self.late_tsum.val() {
            self.bank.s_upd_op.next = bit_cast::<W, CW>(self.s_upd_count.val());
        } else {
            self.bank.s_upd_op.next = bit_cast::<W, CW>(self.s_upd_count.val())
                | (bit_cast::<W, TW>(self.s_upd_tsum.val()) << self.tsum_lsb.val());
        }
        self.bank.flip.next = self.flip.val();
        self.flip_ready.next = self.bank.flip_ready.val();
        self.epoch.next = self.bank.epoch.val();
        self.m_ro_valid.next = self.bank.m_ro_valid.val();
        self.bank.m_ro_ready.next = self.m_ro_ready.val();
        self.m_ro_row.next = self.bank.m_ro_row.val();
        self.m_ro_count.next = self.bank.m_ro_data.val().get_bits::<CW>(0);
        self.m_ro_tsum.next = self.bank.m_ro_data.val().get_bits::<TW>(self.tsum_lsb.val().index());
        self.m_ro_last.next = self.bank.m_ro_last.val();
        self.ovf_sticky.next = self.bank.ovf_sticky.val();
        self.bank.ovf_clear.next = self.ovf_clear.val();

        // Record arithmetic: lane-wise add. The count wrapped iff the adder's
        // carry out is set, recovered from the top bits (carry into the top bit
        // = its sum bit xor both operand bits): no second carry chain.
        // Select first: one 2:1 mux in front of the adds.
        if self.bank.alu_fwd.val() {
            self.old.next = self.bank.alu_old_fwd.val();
        } else {
            self.old.next = self.bank.alu_old_base.val();
        }
        self.count_old.next = self.old.val().get_bits::<CW>(0);
        self.count_op.next = self.bank.alu_op.val().get_bits::<CW>(0);
        self.count_new.next = self.count_old.val() + self.count_op.val();
        if self.late_tsum.val() {
            self.tsum_op.next = self.s_upd_tsum.val();
        } else {
            self.tsum_op.next = self.bank.alu_op.val().get_bits::<TW>(self.tsum_lsb.val().index());
        }
        self.tsum_new.next = self.old.val().get_bits::<TW>(self.tsum_lsb.val().index()) + self.tsum_op.val();
        self.word_new.next =
            bit_cast::<W, CW>(self.count_new.val()) | (bit_cast::<W, TW>(self.tsum_new.val()) << self.tsum_lsb.val());
        self.bank.alu_new.next = self.word_new.val();
        // Top count bits, taken from the W-bit words (the index is IW bits wide).
        self.bank.alu_ovf.next = (self.old.val().get_bit(self.count_msb.val().index())
            & self.bank.alu_op.val().get_bit(self.count_msb.val().index()))
            | ((self.old.val().get_bit(self.count_msb.val().index())
                | self.bank.alu_op.val().get_bit(self.count_msb.val().index()))
                & !self.word_new.val().get_bit(self.count_msb.val().index()));
    }
}
