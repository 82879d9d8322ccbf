//! One SVBF partition (MAPLE §3.3.3, split per hash function): the 2^`P`
//! bits that hash function h_j owns, in two [`RmwBank`]s of 64-bit words —
//! the even words and the odd words, 2^`A` = 2^(P−7) rows each — so that a
//! k-bit window starting anywhere (words w and w + 1: the ⌈k/64⌉ + 1 = 2-word
//! burst of §3.3.3 with k ≤ 64) is one access to each bank.
//!
//! - **Insert**: `s_upd_bit` = (h_j(s) + i) mod 2^P goes to the bank of its
//!   word's parity (row = word / 2) with the bit's 6-bit offset as operand,
//!   ORed in as a one-hot word at the bank's arithmetic; the bank's
//!   forwarding makes back-to-back inserts into one word exact.
//! - **Epochs**: both banks flip together and, after the drain, *hold* the
//!   frozen copy for queries until `release_frozen`; then it streams (unread) and
//!   clears.
//! - **Query** (`q_base` = h_j(s), presented at c+2 of the core's query
//!   pipeline): registered unchanged at c+3, and from that register the
//!   rows (even row ⌈w/2⌉ mod 2^A, odd row ⌊w/2⌋) enter the banks' address
//!   registers, words back at c+7 (the banks read through one extra stage,
//!   [`SVBF_PART_READ_STAGES`]) and registered as they come, ordered by the
//!   parity of w, at c+8 shifted right by whole bytes of the offset (four
//!   slices of the result, each with its own copy of the byte count,
//!   [`KeptReg`]), at c+9 by the remaining bits, `q_window` registered at c+10: bit i =
//!   partition bit (h_j(s) + i) mod 2^P.
//! - **Read stage**: each bank copy is two depth slices of two 512 × 36
//!   blocks (at P = 17), so a partition has sixteen blocks, spread over tens
//!   of columns of a block-RAM row and far from the record arithmetic. The
//!   extra read stage gives every block's output a register of its own that
//!   placement can put between the two, so the forwarding select in front of
//!   the arithmetic (`s3_base` in [`RmwBank`]) starts from a register, not
//!   from a block across the die. It costs one clock on the drain, the
//!   forwarding depth and the query.
//! - **Two slice selects**: the query reads each bank copy through a select
//!   over its two slices of its own ([`RmwBank::with_second_read_select`]), so
//!   the query's word registers (`q8_lo`, `q8_hi`) and the insert's forwarding
//!   select share no gate behind the slices' registers.
//!
//! Per-clock model: `netmeas_sim::svbf::cycle` (its `parts`).

use crate::common::kept_reg::KeptReg;
use crate::common::rmw_bank::RmwBank;
use crate::common::unused::Unused;
use netmeas_sim::svbf::cycle::SVBF_PART_READ_STAGES;
use rust_hdl::prelude::*;

/// Slices of the byte shift's 71 outputs, each with its own copy of the byte count.
const SLICES: usize = 4;

// The query pipeline below waits one clock for the read stage (`q7_off`, `q7_par`).
const _: () = assert!(SVBF_PART_READ_STAGES == 1, "the query pipeline is written for one read stage");

/// One partition of 2^`P` bits: word addresses of `WA` = P − 6 bits, bank rows of `A` = P − 7 bits.
#[derive(LogicBlock)]
pub struct SvbfPartition<const P: usize, const WA: usize, const A: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: both banks clear.
    pub reset: Signal<In, Bit>,
    // --- insert ---
    /// Set a bit.
    pub s_upd_valid: Signal<In, Bit>,
    /// Inserts are accepted (both banks cleared after reset).
    pub s_upd_ready: Signal<Out, Bit>,
    /// The bit's position in the partition.
    pub s_upd_bit: Signal<In, Bits<P>>,
    // --- epochs ---
    /// Flip both banks (with the update of this cycle still in the old epoch).
    pub flip: Signal<In, Bit>,
    /// Both banks would take a flip.
    pub flip_ready: Signal<Out, Bit>,
    /// Both banks hold their frozen copy.
    pub held: Signal<Out, Bit>,
    /// Leave the hold: the frozen copy clears.
    pub release_frozen: Signal<In, Bit>,
    // --- query window on the held copy ---
    /// Window start h_j(s) (c+2).
    pub q_base: Signal<In, Bits<P>>,
    /// The 64 bits from `q_base` on, wrapping at 2^P (c+10; the core masks k of them).
    pub q_window: Signal<Out, Bits<64>>,
    // --- blocks ---
    even: RmwBank<64, A>,
    odd: RmwBank<64, A>,
    even_sink: [Unused<Bit>; 4],
    odd_sink: [Unused<Bit>; 4],
    even_sink_row: Unused<Bits<A>>,
    odd_sink_row: Unused<Bits<A>>,
    even_sink_data: Unused<Bits<64>>,
    odd_sink_data: Unused<Bits<64>>,
    /// The operand registers' constant-zero bits above the 6-bit offset.
    even_op_hi_sink: Unused<Bits<58>>,
    odd_op_hi_sink: Unused<Bits<58>>,
    /// Bits the byte step and the bit step move out.
    bytes_hi_sink: Unused<Bits<57>>,
    bits_hi_sink: Unused<Bits<7>>,
    // --- constants ---
    one64: Constant<Bits<64>>,
    one_a: Constant<Bits<A>>,
    sixty_four: Constant<Bits<7>>,
    three: Constant<Bits<7>>,
    /// The bits of `q9_bytes` each byte-select copy drives (four slices of 18, 18, 18, 17).
    slice_mask: [Constant<Bits<128>>; SLICES],
    // --- query pipeline ---
    /// The window start, registered as it arrives (c+3).
    q3_base: DFF<Bits<P>>,
    q4_off: DFF<Bits<7>>,
    q4_par: DFF<Bit>,
    q5_off: DFF<Bits<7>>,
    q5_par: DFF<Bit>,
    q6_off: DFF<Bits<7>>,
    q6_par: DFF<Bit>,
    q7_off: DFF<Bits<7>>,
    q7_par: DFF<Bit>,
    /// The words as read (c+8), ordered by the parity of w on their way in: word w (low)
    /// and word w + 1 (high).
    q8_lo: DFF<Bits<64>>,
    q8_hi: DFF<Bits<64>>,
    /// The offset's bit count (bits 0..=2), for the bit step.
    q8_off: DFF<Bits<3>>,
    /// The byte count of the offset (bits 3..=5) again, one copy per slice of the byte shift's
    /// outputs (not one register fanned out to all 71 multiplexers).
    q8_bsel: [KeptReg<Bits<3>>; SLICES],
    /// The ordered pair shifted right by whole bytes of the offset: the 71 bits the bit step reads (c+9).
    q9_bytes: DFF<Bits<71>>,
    q9_bit: DFF<Bits<7>>,
    q10_win: DFF<Bits<64>>,
    // --- combinational helpers ---
    upd_word: Signal<Local, Bits<WA>>,
    /// The operand's bit as a one-hot word, per bank.
    even_mask: Signal<Local, Bits<64>>,
    odd_mask: Signal<Local, Bits<64>>,
    q_word: Signal<Local, Bits<WA>>,
    q_half: Signal<Local, Bits<A>>,
    even_old: Signal<Local, Bits<64>>,
    odd_old: Signal<Local, Bits<64>>,
    pair: Signal<Local, Bits<128>>,
    byte_shift: [Signal<Local, Bits<7>>; SLICES],
    /// Each slice's copy of the byte count, and the pair shifted by it.
    by_slice: [Signal<Local, Bits<128>>; SLICES],
    by_bytes: Signal<Local, Bits<128>>,
    by_bits: Signal<Local, Bits<71>>,
}

impl<const P: usize, const WA: usize, const A: usize> Default for SvbfPartition<P, WA, A> {
    fn default() -> Self {
        assert!(WA + 6 == P && A + 7 == P, "partition widths: WA = P - 6, A = P - 7");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_upd_valid: Default::default(),
            s_upd_ready: Default::default(),
            s_upd_bit: Default::default(),
            flip: Default::default(),
            flip_ready: Default::default(),
            held: Default::default(),
            release_frozen: Default::default(),
            q_base: Default::default(),
            q_window: Default::default(),
            even: RmwBank::with_read_stages(1 << A, SVBF_PART_READ_STAGES)
                .with_one_read_address_register()
                .with_second_read_select(),
            odd: RmwBank::with_read_stages(1 << A, SVBF_PART_READ_STAGES)
                .with_one_read_address_register()
                .with_second_read_select(),
            even_sink: Default::default(),
            odd_sink: Default::default(),
            even_sink_row: Default::default(),
            odd_sink_row: Default::default(),
            even_sink_data: Default::default(),
            odd_sink_data: Default::default(),
            even_op_hi_sink: Default::default(),
            odd_op_hi_sink: Default::default(),
            bytes_hi_sink: Default::default(),
            bits_hi_sink: Default::default(),
            one64: Constant::new(1u64.into()),
            one_a: Constant::new(1u64.into()),
            sixty_four: Constant::new(64u64.into()),
            three: Constant::new(3u64.into()),
            slice_mask: std::array::from_fn(|k| {
                let (lo, hi) = (18 * k, (18 * k + 18).min(71));
                let mut m = Bits::<128>::default();
                for i in lo..hi {
                    m = m.replace_bit(i, true);
                }
                Constant::new(m)
            }),
            q3_base: Default::default(),
            q4_off: Default::default(),
            q4_par: Default::default(),
            q5_off: Default::default(),
            q5_par: Default::default(),
            q6_off: Default::default(),
            q6_par: Default::default(),
            q7_off: Default::default(),
            q7_par: Default::default(),
            q8_lo: Default::default(),
            q8_hi: Default::default(),
            q8_off: Default::default(),
            q8_bsel: std::array::from_fn(|_| Default::default()),
            q9_bytes: Default::default(),
            q9_bit: Default::default(),
            q10_win: Default::default(),
            upd_word: Default::default(),
            even_mask: Default::default(),
            odd_mask: Default::default(),
            q_word: Default::default(),
            q_half: Default::default(),
            even_old: Default::default(),
            odd_old: Default::default(),
            pair: Default::default(),
            byte_shift: std::array::from_fn(|_| Default::default()),
            by_slice: std::array::from_fn(|_| Default::default()),
            by_bytes: Default::default(),
            by_bits: Default::default(),
        }
    }
}

impl<const P: usize, const WA: usize, const A: usize> Logic for SvbfPartition<P, WA, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, q3_base, q4_off, q4_par, q5_off, q5_par, q6_off, q6_par, q7_off, q7_par, q8_lo, q8_hi, q8_off,
            q9_bytes, q9_bit, q10_win
        );
        self.even.clock.next = self.clock.val();
        self.odd.clock.next = self.clock.val();
        self.even.reset.next = self.reset.val();
        self.odd.reset.next = self.reset.val();

        // ---- insert: the word's parity picks the bank; the operand is the bit's offset in
        // the word (six bits: the bank's operand registers above them hold constant zeros
        // and synthesis drops them), decoded to a one-hot word only at the OR ----
        self.upd_word.next = self.s_upd_bit.val().get_bits::<WA>(6);
        self.even.s_upd_valid.next = self.s_upd_valid.val() & !self.upd_word.val().get_bit(0);
        self.odd.s_upd_valid.next = self.s_upd_valid.val() & self.upd_word.val().get_bit(0);
        self.even.s_upd_row.next = self.upd_word.val().get_bits::<A>(1);
        self.odd.s_upd_row.next = self.upd_word.val().get_bits::<A>(1);
        self.even.s_upd_op.next = bit_cast::<64, 6>(self.s_upd_bit.val().get_bits::<6>(0));
        self.odd.s_upd_op.next = bit_cast::<64, 6>(self.s_upd_bit.val().get_bits::<6>(0));
        self.s_upd_ready.next = self.even.s_upd_ready.val() & self.odd.s_upd_ready.val();

        // ---- record arithmetic: OR the operand's bit in (bits are only ever set) ----
        if self.even.alu_fwd.val() {
            self.even_old.next = self.even.alu_old_fwd.val();
        } else {
            self.even_old.next = self.even.alu_old_base.val();
        }
        if self.odd.alu_fwd.val() {
            self.odd_old.next = self.odd.alu_old_fwd.val();
        } else {
            self.odd_old.next = self.odd.alu_old_base.val();
        }
        self.even_mask.next = self.one64.val() << self.even.alu_op.val().get_bits::<6>(0);
        self.odd_mask.next = self.one64.val() << self.odd.alu_op.val().get_bits::<6>(0);
        self.even_op_hi_sink.sig.next = self.even.alu_op.val().get_bits::<58>(6);
        self.odd_op_hi_sink.sig.next = self.odd.alu_op.val().get_bits::<58>(6);
        self.even.alu_new.next = self.even_old.val() | self.even_mask.val();
        self.odd.alu_new.next = self.odd_old.val() | self.odd_mask.val();
        self.even.alu_ovf.next = false;
        self.odd.alu_ovf.next = false;
        self.even.ovf_clear.next = false;
        self.odd.ovf_clear.next = false;

        // ---- epochs: flip together, hold the frozen copy, clear it on release ----
        self.even.flip.next = self.flip.val();
        self.odd.flip.next = self.flip.val();
        self.flip_ready.next = self.even.flip_ready.val() & self.odd.flip_ready.val();
        self.even.hold.next = true;
        self.odd.hold.next = true;
        self.held.next = self.even.held.val() & self.odd.held.val();
        self.even.release_frozen.next = self.release_frozen.val();
        self.odd.release_frozen.next = self.release_frozen.val();
        self.even.m_ro_ready.next = true;
        self.odd.m_ro_ready.next = true;

        // ---- query: the start registered (c+2 -> c+3), then the rows of words w and w + 1
        // into the banks' address registers (the core's hash register to this one is a
        // plain wire across the die) ----
        self.q3_base.d.next = self.q_base.val();
        self.q_word.next = self.q3_base.q.val().get_bits::<WA>(6);
        self.q_half.next = self.q_word.val().get_bits::<A>(1);
        if self.q_word.val().get_bit(0) {
            self.even.q_row.next = self.q_half.val() + self.one_a.val();
        } else {
            self.even.q_row.next = self.q_half.val();
        }
        self.odd.q_row.next = self.q_half.val();
        // c+3 .. c+7: the offset and parity wait for the words.
        self.q4_off.d.next = bit_cast::<7, 6>(self.q3_base.q.val().get_bits::<6>(0));
        self.q4_par.d.next = self.q_word.val().get_bit(0);
        self.q5_off.d.next = self.q4_off.q.val();
        self.q5_par.d.next = self.q4_par.q.val();
        self.q6_off.d.next = self.q5_off.q.val();
        self.q6_par.d.next = self.q5_par.q.val();
        self.q7_off.d.next = self.q6_off.q.val();
        self.q7_par.d.next = self.q6_par.q.val();
        // c+7: both words registered as they come out of the banks, ordered by the parity of w
        // (w low, w + 1 high: the bank's copy select and this one share a LUT level).
        if self.q7_par.q.val() {
            self.q8_lo.d.next = self.odd.q_data.val();
            self.q8_hi.d.next = self.even.q_data.val();
        } else {
            self.q8_lo.d.next = self.even.q_data.val();
            self.q8_hi.d.next = self.odd.q_data.val();
        }
        self.q8_off.d.next = self.q7_off.q.val().get_bits::<3>(0);
        for k in 0..SLICES {
            self.q8_bsel[k].clock.next = self.clock.val();
            self.q8_bsel[k].d.next = self.q7_off.q.val().get_bits::<3>(3);
        }
        // c+8: the pair shifted right by 8 × (offset / 8), each slice of the result by its own
        // copy of the byte count (synthesis keeps only the bits each mask lets through).
        self.pair.next = (bit_cast::<128, 64>(self.q8_hi.q.val()) << self.sixty_four.val())
            | bit_cast::<128, 64>(self.q8_lo.q.val());
        // (Written out: hdl_gen takes a cast of a loop-indexed value for a runtime index.)
        self.byte_shift[0].next = bit_cast::<7, 3>(self.q8_bsel[0].q.val());
        self.byte_shift[1].next = bit_cast::<7, 3>(self.q8_bsel[1].q.val());
        self.byte_shift[2].next = bit_cast::<7, 3>(self.q8_bsel[2].q.val());
        self.byte_shift[3].next = bit_cast::<7, 3>(self.q8_bsel[3].q.val());
        for k in 0..SLICES {
            self.by_slice[k].next =
                (self.pair.val() >> (self.byte_shift[k].val() << self.three.val())) & self.slice_mask[k].val();
        }
        self.by_bytes.next =
            (self.by_slice[0].val() | self.by_slice[1].val()) | (self.by_slice[2].val() | self.by_slice[3].val());
        self.q9_bytes.d.next = self.by_bytes.val().get_bits::<71>(0);
        self.bytes_hi_sink.sig.next = self.by_bytes.val().get_bits::<57>(71);
        self.q9_bit.d.next = bit_cast::<7, 3>(self.q8_off.q.val());
        // c+9: the window, shifted right by offset mod 8.
        self.by_bits.next = self.q9_bytes.q.val() >> self.q9_bit.q.val();
        self.q10_win.d.next = self.by_bits.val().get_bits::<64>(0);
        self.bits_hi_sink.sig.next = self.by_bits.val().get_bits::<7>(64);
        self.q_window.next = self.q10_win.q.val();

        // ---- outputs of the banks this partition does not use ----
        self.even_sink[0].sig.next = self.even.m_ro_valid.val();
        self.even_sink[1].sig.next = self.even.m_ro_last.val();
        self.even_sink[2].sig.next = self.even.epoch.val();
        self.even_sink[3].sig.next = self.even.ovf_sticky.val();
        self.odd_sink[0].sig.next = self.odd.m_ro_valid.val();
        self.odd_sink[1].sig.next = self.odd.m_ro_last.val();
        self.odd_sink[2].sig.next = self.odd.epoch.val();
        self.odd_sink[3].sig.next = self.odd.ovf_sticky.val();
        self.even_sink_row.sig.next = self.even.m_ro_row.val();
        self.odd_sink_row.sig.next = self.odd.m_ro_row.val();
        self.even_sink_data.sig.next = self.even.m_ro_data.val();
        self.odd_sink_data.sig.next = self.odd.m_ro_data.val();
    }
}
