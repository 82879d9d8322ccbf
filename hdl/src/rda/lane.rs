//! One bank of the RDA core (Fu et al. §V-A: "we insert each incoming packet
//! into a random bucket in each bank"): its bucket hash h_l, a ping-pong
//! [`RmwBank`] of m buckets {ID xor, TS sum, count}, and the bucket
//! arithmetic. Every bank is its own memory, so all k banks take one packet
//! per clock together; back-to-back packets to one bucket are forwarded by
//! the bank.
//!
//! The bank is read through the config's `read_stages` extra registers
//! behind each block RAM (`RmwBank::with_read_stages`, 2 by default): the
//! default core's 80 ECP5 blocks spread over the die, and the register right
//! behind a block must stay beside it.
//!
//! Pipeline (a packet offered at cycle t): the hash unit's six stages run
//! beside a six-deep delay line of {valid, id, ts, flip}; at t+6 the bank's
//! update port gets {bucket, op = {id, ts, 1}}. An epoch flip travels the
//! delay line with the packets, so it reaches the bank between the same two
//! packets as it entered the lane.
//!
//! Record layout in the RAM word (`W` = 32 + `TW` + 64): count in `[31:0]`,
//! timestamp sum in `[TW+31:32]`, ID xor in `[W-1:TW+32]`.

use super::bucket_hash::RdaBucketHash;
use crate::common::rmw_bank::RmwBank;
use crate::common::unused::Unused;
use netmeas_sim::rda::BucketHash;
use rust_hdl::prelude::*;

/// One RDA bank: `2^A` ≥ m buckets of `W` bits with a `TW`-bit timestamp sum.
#[derive(LogicBlock)]
pub struct RdaLane<const A: usize, const TW: usize, const W: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops packets in flight and the read-out, then clears both copies.
    pub reset: Signal<In, Bit>,
    // --- packet stream (no back-pressure: the core checks `s_ready`) ---
    /// A packet is offered.
    pub s_valid: Signal<In, Bit>,
    /// The bank takes packets (low while it clears after reset; registered, so it
    /// rises one clock after the bank's own ready).
    pub s_ready: Signal<Out, Bit>,
    /// Packet ID.
    pub s_id: Signal<In, Bits<64>>,
    /// Timestamp, already cut to the sum width.
    pub s_ts: Signal<In, Bits<TW>>,
    /// Epoch flip between the previous packet and the next one.
    pub s_flip: Signal<In, Bit>,
    /// Copy of the bank being updated.
    pub epoch: Signal<Out, Bit>,
    /// A flip offered now would be taken: none in flight and the frozen copy is
    /// clean. Registered from the bank's flip_ready and the flips in the delay
    /// line one clock earlier, so it rises one clock after the bank's and falls
    /// with it; a flip offered in the clock before this one is not seen here
    /// (the core holds it in its p2 register and checks that itself).
    pub flip_ready: Signal<Out, Bit>,
    // --- read-out of the frozen copy ---
    /// A bucket is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Bucket index.
    pub m_ro_row: Signal<Out, Bits<A>>,
    /// Bucket record.
    pub m_ro_data: Signal<Out, Bits<W>>,
    /// Last bucket of the bank.
    pub m_ro_last: Signal<Out, Bit>,
    // --- status ---
    /// A bucket count wrapped since the flag was last cleared.
    pub ovf_sticky: Signal<Out, Bit>,
    /// Clear the sticky overflow flag.
    pub ovf_clear: Signal<In, Bit>,
    // --- blocks ---
    hash: RdaBucketHash<A>,
    bank: RmwBank<W, A>,
    /// The bank's hold port is not used (its frozen copy streams out).
    unused_held: Unused<Bit>,
    no_q_row: Constant<Bits<A>>,
    unused_q_data: Unused<Bits<W>>,
    /// The row's current record: the bank's candidates selected before the arithmetic.
    old: Signal<Local, Bits<W>>,
    // --- status registers (keep the banks' control off the core's interval logic) ---
    rdy_q: DFF<Bit>,
    fr_q: DFF<Bit>,
    // --- delay line beside the hash ---
    d1_valid: DFF<Bit>,
    d1_id: DFF<Bits<64>>,
    d1_ts: DFF<Bits<TW>>,
    d1_flip: DFF<Bit>,
    d2_valid: DFF<Bit>,
    d2_id: DFF<Bits<64>>,
    d2_ts: DFF<Bits<TW>>,
    d2_flip: DFF<Bit>,
    d3_valid: DFF<Bit>,
    d3_id: DFF<Bits<64>>,
    d3_ts: DFF<Bits<TW>>,
    d3_flip: DFF<Bit>,
    d4_valid: DFF<Bit>,
    d4_id: DFF<Bits<64>>,
    d4_ts: DFF<Bits<TW>>,
    d4_flip: DFF<Bit>,
    d5_valid: DFF<Bit>,
    d5_id: DFF<Bits<64>>,
    d5_ts: DFF<Bits<TW>>,
    d5_flip: DFF<Bit>,
    d6_valid: DFF<Bit>,
    d6_id: DFF<Bits<64>>,
    d6_ts: DFF<Bits<TW>>,
    d6_flip: DFF<Bit>,
    // --- constants ---
    tsum_lsb: Constant<Bits<16>>,
    id_lsb: Constant<Bits<16>>,
    one32: Constant<Bits<32>>,
    ones32: Constant<Bits<32>>,
    // --- bucket arithmetic ---
    count_old: Signal<Local, Bits<32>>,
    count_new: Signal<Local, Bits<32>>,
    tsum_new: Signal<Local, Bits<TW>>,
    id_new: Signal<Local, Bits<64>>,
}

impl<const A: usize, const TW: usize, const W: usize> RdaLane<A, TW, W> {
    /// The lane of one bank with hash `hash` (m = `hash.buckets` buckets),
    /// its RAM read through `read_stages` extra registers.
    pub fn new(hash: &BucketHash, read_stages: usize) -> Self {
        assert_eq!(W, 32 + TW + 64, "W must be 32 + TW + 64");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_id: Default::default(),
            s_ts: Default::default(),
            s_flip: Default::default(),
            flip_ready: Default::default(),
            epoch: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_row: Default::default(),
            m_ro_data: Default::default(),
            m_ro_last: Default::default(),
            ovf_sticky: Default::default(),
            ovf_clear: Default::default(),
            hash: RdaBucketHash::new(hash),
            bank: RmwBank::with_read_stages(hash.buckets as usize, read_stages),
            unused_held: Default::default(),
            no_q_row: Constant::new(0u64.into()),
            unused_q_data: Default::default(),
            old: Default::default(),
            rdy_q: Default::default(),
            fr_q: Default::default(),
            d1_valid: Default::default(),
            d1_id: Default::default(),
            d1_ts: Default::default(),
            d1_flip: Default::default(),
            d2_valid: Default::default(),
            d2_id: Default::default(),
            d2_ts: Default::default(),
            d2_flip: Default::default(),
            d3_valid: Default::default(),
            d3_id: Default::default(),
            d3_ts: Default::default(),
            d3_flip: Default::default(),
            d4_valid: Default::default(),
            d4_id: Default::default(),
            d4_ts: Default::default(),
            d4_flip: Default::default(),
            d5_valid: Default::default(),
            d5_id: Default::default(),
            d5_ts: Default::default(),
            d5_flip: Default::default(),
            d6_valid: Default::default(),
            d6_id: Default::default(),
            d6_ts: Default::default(),
            d6_flip: Default::default(),
            tsum_lsb: Constant::new(32u64.into()),
            id_lsb: Constant::new(((32 + TW) as u64).into()),
            one32: Constant::new(1u64.into()),
            ones32: Constant::new(0xffff_ffffu64.into()),
            count_old: Default::default(),
            count_new: Default::default(),
            tsum_new: Default::default(),
            id_new: Default::default(),
        }
    }
}

impl<const A: usize, const TW: usize, const W: usize> Logic for RdaLane<A, TW, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rdy_q, fr_q, d1_valid, d1_id, d1_ts, d1_flip, d2_valid, d2_id, d2_ts, d2_flip, d3_valid,
            d3_id, d3_ts, d3_flip, d4_valid, d4_id, d4_ts, d4_flip, d5_valid, d5_id, d5_ts, d5_flip, d6_valid, d6_id,
            d6_ts, d6_flip
        );
        self.hash.clock.next = self.clock.val();
        self.bank.clock.next = self.clock.val();
        self.bank.hold.next = false;
        self.bank.release_frozen.next = false;
        self.bank.q_row.next = self.no_q_row.val();
        self.unused_held.sig.next = self.bank.held.val();
        self.unused_q_data.sig.next = self.bank.q_data.val();
        self.bank.reset.next = self.reset.val();

        // ---- outputs ----
        self.s_ready.next = self.rdy_q.q.val();
        self.epoch.next = self.bank.epoch.val();
        self.flip_ready.next = self.fr_q.q.val();
        // Next clock's flip readiness: the bank ready now, no flip entering the
        // line or in it (the one in d6 is taken by the bank now).
        self.rdy_q.d.next = self.bank.s_upd_ready.val() & !self.reset.val();
        self.fr_q.d.next = self.bank.flip_ready.val()
            & !self.reset.val()
            & !self.s_flip.val()
            & !self.d1_flip.q.val()
            & !self.d2_flip.q.val()
            & !self.d3_flip.q.val()
            & !self.d4_flip.q.val()
            & !self.d5_flip.q.val()
            & !self.d6_flip.q.val();
        self.m_ro_valid.next = self.bank.m_ro_valid.val();
        self.bank.m_ro_ready.next = self.m_ro_ready.val();
        self.m_ro_row.next = self.bank.m_ro_row.val();
        self.m_ro_data.next = self.bank.m_ro_data.val();
        self.m_ro_last.next = self.bank.m_ro_last.val();
        self.ovf_sticky.next = self.bank.ovf_sticky.val();
        self.bank.ovf_clear.next = self.ovf_clear.val();

        // ---- hash and delay line (six stages) ----
        self.hash.s_valid.next = self.s_valid.val();
        self.hash.s_id.next = self.s_id.val();
        self.d1_valid.d.next = self.s_valid.val();
        self.d1_id.d.next = self.s_id.val();
        self.d1_ts.d.next = self.s_ts.val();
        self.d1_flip.d.next = self.s_flip.val();
        self.d2_valid.d.next = self.d1_valid.q.val();
        self.d2_id.d.next = self.d1_id.q.val();
        self.d2_ts.d.next = self.d1_ts.q.val();
        self.d2_flip.d.next = self.d1_flip.q.val();
        self.d3_valid.d.next = self.d2_valid.q.val();
        self.d3_id.d.next = self.d2_id.q.val();
        self.d3_ts.d.next = self.d2_ts.q.val();
        self.d3_flip.d.next = self.d2_flip.q.val();
        self.d4_valid.d.next = self.d3_valid.q.val();
        self.d4_id.d.next = self.d3_id.q.val();
        self.d4_ts.d.next = self.d3_ts.q.val();
        self.d4_flip.d.next = self.d3_flip.q.val();
        self.d5_valid.d.next = self.d4_valid.q.val();
        self.d5_id.d.next = self.d4_id.q.val();
        self.d5_ts.d.next = self.d4_ts.q.val();
        self.d5_flip.d.next = self.d4_flip.q.val();
        self.d6_valid.d.next = self.d5_valid.q.val();
        self.d6_id.d.next = self.d5_id.q.val();
        self.d6_ts.d.next = self.d5_ts.q.val();
        self.d6_flip.d.next = self.d5_flip.q.val();

        // ---- the bank's update port: {bucket, {id, ts, count = 1}} ----
        // (The hash carries the same valid through its stages.)
        self.bank.s_upd_valid.next = self.d6_valid.q.val() & self.hash.m_valid.val();
        self.bank.s_upd_row.next = self.hash.m_bucket.val();
        self.bank.s_upd_op.next = bit_cast::<W, 32>(self.one32.val())
            | (bit_cast::<W, TW>(self.d6_ts.q.val()) << self.tsum_lsb.val())
            | (bit_cast::<W, 64>(self.d6_id.q.val()) << self.id_lsb.val());
        self.bank.flip.next = self.d6_flip.q.val();

        // ---- bucket arithmetic (§V-A): ID ^= id, TS += ts, count += 1 ----
        if self.bank.alu_fwd.val() {
            self.old.next = self.bank.alu_old_fwd.val();
        } else {
            self.old.next = self.bank.alu_old_base.val();
        }
        self.count_old.next = self.old.val().get_bits::<32>(0);
        self.count_new.next = self.count_old.val() + self.bank.alu_op.val().get_bits::<32>(0);
        // (Fields are cut by a shift and a resize: a part-select would need an index of
        // exactly ceil(log2(W)) bits, which differs between the record widths.)
        self.tsum_new.next = bit_cast::<TW, W>(self.old.val() >> self.tsum_lsb.val())
            + bit_cast::<TW, W>(self.bank.alu_op.val() >> self.tsum_lsb.val());
        self.id_new.next = bit_cast::<64, W>(self.old.val() >> self.id_lsb.val())
            ^ bit_cast::<64, W>(self.bank.alu_op.val() >> self.id_lsb.val());
        self.bank.alu_new.next = bit_cast::<W, 32>(self.count_new.val())
            | (bit_cast::<W, TW>(self.tsum_new.val()) << self.tsum_lsb.val())
            | (bit_cast::<W, 64>(self.id_new.val()) << self.id_lsb.val());
        // The count wraps only from all ones (the operand is always 1).
        self.bank.alu_ovf.next = self.count_old.val() == self.ones32.val();

        // ---- synchronous reset: nothing stays in flight ----
        if self.reset.val() {
            self.d1_valid.d.next = false;
            self.d1_flip.d.next = false;
            self.d2_valid.d.next = false;
            self.d2_flip.d.next = false;
            self.d3_valid.d.next = false;
            self.d3_flip.d.next = false;
            self.d4_valid.d.next = false;
            self.d4_flip.d.next = false;
            self.d5_valid.d.next = false;
            self.d5_flip.d.next = false;
            self.d6_valid.d.next = false;
            self.d6_flip.d.next = false;
        }
    }
}
