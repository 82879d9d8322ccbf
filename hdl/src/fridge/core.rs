//! Fridge core: unbiased request/response delay measurement at one packet per
//! clock (Zheng, Chen, Braverman, Rexford, §3.2 single fridge, §4.2 multiple
//! fridges, §6.1 data-plane implementation, §6.2 in-fabric correction).
//!
//! N = 1..4 fridges share one entry memory: an H3 hash of the request/response
//! ID picks the fridge (its top 16 bits, scaled by N) and the entry (its low
//! log2 M_k bits, §4.2). Each fridge has its own entry probability p_k (an
//! xorshift32 PRNG compared with `THRESH_k`, §6.1) and its own insertion
//! counter, which counts the requests routed to it (what (1 − p/M)^x of
//! eq. 3.1 assumes). A stored request overwrites its entry; a response that
//! finds its ID invalidates the entry and yields {fridge, delay, x}.
//!
//! Pipeline (a packet accepted at cycle t):
//! - **p1** (t+1) packet registered; the index hash of its ID (combinational).
//! - **p2** (t+2) hash registered; fridge k and row = base_k + (h mod M_k).
//! - **p3** (t+3) fridge k's PRNG draw (precomputed in `nxt_k`) is compared
//!   with `THRESH_k`; a request steps the PRNG and the counter; stored requests
//!   and all responses go to the entry bank.
//! - **e1..e4** (t+4..t+7) the entry bank's read-modify-write (one copy of
//!   [`RmwBank`]: a response right after its request is forwarded); in e4 the
//!   record arithmetic decides the hit; the hit and both records' timestamps
//!   and stamps are registered (the compare feeds the entry write-back, so the
//!   sample's subtractions and the output enable wait one clock).
//! - **m** (t+8) delay = response ts − request ts, x = counter − stamp.
//! - **smp** (t+9) the sample on `m_smp_*` (a one-entry output register; a
//!   sample that finds it full is dropped and counted in `smp_dropped`) and,
//!   never dropped, in the histogram pipeline ([`FridgeHistogram`], six more
//!   stages).
//!
//! Entry record (`W` = 114): valid [0], spare [1], ID [33:2], timestamp
//! [81:34], insertion stamp [113:82]. The update operand has the same layout
//! with [0] = 1 and [1] = response; its stamp field holds the counter after a
//! request and the counter now for a response, so x = op − old.
//!
//! A `FLIP` write or the `flip` input sets `flip_pending`; when no flip travels the pipeline and
//! the previous read-out is done, a flip token enters p1 beside the packet
//! accepted in that cycle, which is then the last of the old epoch everywhere.

use super::histogram::FridgeHistogram;
use crate::common::h3::H3Unit;
use crate::common::rmw_bank::RmwBank;
use crate::common::unused::Unused;
use netmeas_sim::fridge::{
    FRIDGE_ENTRY_BITS, FRIDGE_REG_FLIP, FRIDGE_REG_HIST_COUNT, FRIDGE_REG_HIST_POP, FRIDGE_REG_HIST_ROW,
    FRIDGE_REG_HIST_WSUM_LO, FRIDGE_REG_SATURATED, FRIDGE_REG_SMP_DROPPED, FRIDGE_REG_STATUS, FRIDGE_REG_THRESH,
    FridgeConfig, xorshift32,
};
use rust_hdl::prelude::*;

/// Entry record width.
pub const ENTRY_W: usize = FRIDGE_ENTRY_BITS;
/// Fridge slots in the register file (the core supports 1..=4 fridges).
const SLOTS: usize = 4;

/// Fridge core whose shared entry memory has `2^A` ≥ Σ M_k rows.
#[derive(LogicBlock)]
pub struct FridgeCore<const A: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops packets and samples in flight, restores the
    /// registers, PRNGs and counters, clears the entries and both histogram copies.
    pub reset: Signal<In, Bit>,
    // --- packet stream ---
    /// A packet is offered.
    pub s_valid: Signal<In, Bit>,
    /// Packets are accepted (low only while the memories clear after reset).
    pub s_ready: Signal<Out, Bit>,
    /// 32-bit request/response ID digest (§6.1).
    pub s_id: Signal<In, Bits<32>>,
    /// The packet is a response (else a request).
    pub s_response: Signal<In, Bit>,
    /// Timestamp in ticks (mod 2^48).
    pub s_ts: Signal<In, Bits<48>>,
    // --- epochs ---
    /// Flip request, as a `FLIP` write: sets `flip_pending` from the next cycle (a system that ends
    /// its epochs in hardware drives this instead of the register).
    pub flip: Signal<In, Bit>,
    // --- CSR port (register map in docs/cores/fridge.md and csr.json) ---
    /// Write strobe.
    pub csr_we: Signal<In, Bit>,
    /// Read strobe: `csr_rdata` holds the register at `csr_addr` from the next cycle.
    pub csr_re: Signal<In, Bit>,
    /// Word address (of the write and of the read).
    pub csr_addr: Signal<In, Bits<5>>,
    /// Write data.
    pub csr_wdata: Signal<In, Bits<32>>,
    /// Read data of the last read (0 for an address that holds no readable register).
    pub csr_rdata: Signal<Out, Bits<32>>,
    // --- delay samples (§6.1: {delay, x} per matched response) ---
    /// A sample is presented.
    pub m_smp_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_smp_ready: Signal<In, Bit>,
    /// Fridge that held the request.
    pub m_smp_fridge: Signal<Out, Bits<2>>,
    /// Response timestamp − request timestamp (mod 2^48).
    pub m_smp_delay: Signal<Out, Bits<48>>,
    /// Insertions the request survived in its fridge (mod 2^32).
    pub m_smp_x: Signal<Out, Bits<32>>,
    /// Samples dropped because the output register was full (saturating).
    pub smp_dropped: Signal<Out, Bits<32>>,
    // --- histogram epochs and read-out (§6.2) ---
    /// A `FLIP` write waits for the previous read-out.
    pub flip_pending: Signal<Out, Bit>,
    /// Live histogram copy (toggles when a flip reaches the histogram bank).
    pub epoch: Signal<Out, Bit>,
    /// A bin of the frozen histograms is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Its row: 32 · fridge + bin.
    pub m_ro_row: Signal<Out, Bits<7>>,
    /// Samples in the bin.
    pub m_ro_count: Signal<Out, Bits<32>>,
    /// Σ correction factor, 8 fractional bits.
    pub m_ro_wsum: Signal<Out, Bits<64>>,
    /// Σ correction factor², integer part.
    pub m_ro_w2sum: Signal<Out, Bits<64>>,
    /// Last bin of the last fridge.
    pub m_ro_last: Signal<Out, Bit>,
    // --- status ---
    /// A histogram field wrapped since the flag was last cleared.
    pub ovf_sticky: Signal<Out, Bit>,
    /// Clear the overflow flag.
    pub ovf_clear: Signal<In, Bit>,
    /// Samples whose correction factor saturated at 2^32 (saturating).
    pub saturated: Signal<Out, Bits<32>>,
    // --- blocks ---
    index_hash: H3Unit<32, 32>,
    entries: RmwBank<ENTRY_W, A>,
    /// The bank's hold port is not used (its frozen copy streams out).
    unused_held: Unused<Bit>,
    no_q_row: Constant<Bits<A>>,
    unused_q_data: Unused<Bits<ENTRY_W>>,
    hist: FridgeHistogram,
    // The entry bank never flips: its epoch and read-out outputs are constant.
    unused_flip_ready: Unused<Bit>,
    unused_epoch: Unused<Bit>,
    unused_ro_valid: Unused<Bit>,
    unused_ro_row: Unused<Bits<A>>,
    unused_ro_data: Unused<Bits<ENTRY_W>>,
    unused_ro_last: Unused<Bit>,
    unused_ovf: Unused<Bit>,
    // --- constants ---
    has: [Constant<Bit>; SLOTS],
    kidx: [Constant<Bits<2>>; SLOTS],
    base: [Constant<Bits<A>>; SLOTS],
    mask: [Constant<Bits<A>>; SLOTS],
    reg_thresh: [Constant<Bits<5>>; SLOTS],
    rst_thresh: [Constant<Bits<32>>; SLOTS],
    rst_nxt: [Constant<Bits<32>>; SLOTS],
    reg_flip: Constant<Bits<5>>,
    reg_pop: Constant<Bits<5>>,
    reg_hist_row: Constant<Bits<5>>,
    reg_hist_count: Constant<Bits<5>>,
    reg_wsum_lo: Constant<Bits<5>>,
    reg_wsum_hi: Constant<Bits<5>>,
    reg_w2sum_lo: Constant<Bits<5>>,
    reg_w2sum_hi: Constant<Bits<5>>,
    reg_smp_dropped: Constant<Bits<5>>,
    reg_saturated: Constant<Bits<5>>,
    reg_status: Constant<Bits<5>>,
    rd_bit: [Constant<Bits<32>>; 5],
    rdata: DFF<Bits<32>>,
    rd: Signal<Local, Bits<32>>,
    route_m1: Constant<Bits<18>>,
    route_m2: Constant<Bits<18>>,
    route_m4: Constant<Bits<18>>,
    sh1: Constant<Bits<2>>,
    sh2: Constant<Bits<2>>,
    sh13: Constant<Bits<4>>,
    sh17: Constant<Bits<5>>,
    sh5: Constant<Bits<3>>,
    sh16: Constant<Bits<5>>,
    id_lsb: Constant<Bits<2>>,
    ts_lsb: Constant<Bits<6>>,
    ctr_lsb: Constant<Bits<7>>,
    bit0: Constant<Bits<ENTRY_W>>,
    bit1: Constant<Bits<ENTRY_W>>,
    not_valid: Constant<Bits<ENTRY_W>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    ones32: Constant<Bits<32>>,
    // --- registers (held as XOR with their reset values) ---
    thresh_x: [DFF<Bits<32>>; SLOTS],
    nxt_x: [DFF<Bits<32>>; SLOTS],
    ctr: [DFF<Bits<32>>; SLOTS],
    pending: DFF<Bit>,
    dropped: DFF<Bits<32>>,
    // --- pipeline ---
    p1_valid: DFF<Bit>,
    p1_id: DFF<Bits<32>>,
    p1_resp: DFF<Bit>,
    p1_ts: DFF<Bits<48>>,
    p1_flip: DFF<Bit>,
    p2_valid: DFF<Bit>,
    p2_id: DFF<Bits<32>>,
    p2_resp: DFF<Bit>,
    p2_ts: DFF<Bits<48>>,
    p2_h: DFF<Bits<32>>,
    p2_flip: DFF<Bit>,
    p3_valid: DFF<Bit>,
    p3_k: DFF<Bits<2>>,
    p3_row: DFF<Bits<A>>,
    p3_id: DFF<Bits<32>>,
    p3_resp: DFF<Bit>,
    p3_ts: DFF<Bits<48>>,
    p3_flip: DFF<Bit>,
    e1_valid: DFF<Bit>,
    e1_k: DFF<Bits<2>>,
    e1_flip: DFF<Bit>,
    e2_valid: DFF<Bit>,
    e2_k: DFF<Bits<2>>,
    e2_flip: DFF<Bit>,
    e3_valid: DFF<Bit>,
    e3_k: DFF<Bits<2>>,
    e3_flip: DFF<Bit>,
    e4_valid: DFF<Bit>,
    e4_k: DFF<Bits<2>>,
    e4_flip: DFF<Bit>,
    m_valid: DFF<Bit>,
    m_k: DFF<Bits<2>>,
    m_op_ts: DFF<Bits<48>>,
    m_old_ts: DFF<Bits<48>>,
    m_op_ctr: DFF<Bits<32>>,
    m_old_stamp: DFF<Bits<32>>,
    m_flip: DFF<Bit>,
    o_valid: DFF<Bit>,
    o_k: DFF<Bits<2>>,
    o_delay: DFF<Bits<48>>,
    o_x: DFF<Bits<32>>,
    // --- combinational helpers ---
    route: Signal<Local, Bits<18>>,
    k: Signal<Local, Bits<2>>,
    row: Signal<Local, Bits<A>>,
    nxt_sel: Signal<Local, Bits<32>>,
    thresh_sel: Signal<Local, Bits<32>>,
    ctr_sel: Signal<Local, Bits<32>>,
    store: Signal<Local, Bit>,
    op_ctr: Signal<Local, Bits<32>>,
    op: Signal<Local, Bits<ENTRY_W>>,
    xs1: Signal<Local, Bits<32>>,
    xs2: Signal<Local, Bits<32>>,
    old: Signal<Local, Bits<ENTRY_W>>,
    /// The update one ahead's ID equals the operand's.
    id_fwd: Signal<Local, Bit>,
    /// The base record's ID equals the operand's.
    id_base: Signal<Local, Bit>,
    /// The row's current ID equals the operand's.
    id_match: Signal<Local, Bit>,
    upd: Signal<Local, Bits<ENTRY_W>>,
    hit: Signal<Local, Bit>,
    delay: Signal<Local, Bits<48>>,
    x: Signal<Local, Bits<32>>,
    pop: Signal<Local, Bit>,
    flip_ok: Signal<Local, Bit>,
    take_flip: Signal<Local, Bit>,
}

impl<const A: usize> FridgeCore<A> {
    /// The core for `cfg` (`A` must be its entry-address width).
    pub fn new(cfg: &FridgeConfig) -> Self {
        assert_eq!(cfg.addr_bits(), A, "entry-address width differs from the config");
        let n = cfg.fridges();
        let n_bit =
            |b: usize| -> Constant<Bits<18>> { Constant::new((if n & b != 0 { 0x3FFFFu64 } else { 0 }).into()) };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_id: Default::default(),
            s_response: Default::default(),
            s_ts: Default::default(),
            flip: Default::default(),
            csr_we: Default::default(),
            csr_re: Default::default(),
            csr_rdata: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            m_smp_valid: Default::default(),
            m_smp_ready: Default::default(),
            m_smp_fridge: Default::default(),
            m_smp_delay: Default::default(),
            m_smp_x: Default::default(),
            smp_dropped: Default::default(),
            flip_pending: Default::default(),
            epoch: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_row: Default::default(),
            m_ro_count: Default::default(),
            m_ro_wsum: Default::default(),
            m_ro_w2sum: Default::default(),
            m_ro_last: Default::default(),
            ovf_sticky: Default::default(),
            ovf_clear: Default::default(),
            saturated: Default::default(),
            index_hash: H3Unit::new(&cfg.index_hash_config()),
            // The key is the ID field [33:2]: the bank compares it before its forwarding mux.
            entries: RmwBank::single(cfg.total_entries()),
            unused_held: Default::default(),
            no_q_row: Constant::new(0u64.into()),
            unused_q_data: Default::default(),
            hist: FridgeHistogram::new(cfg),
            unused_flip_ready: Default::default(),
            unused_epoch: Default::default(),
            unused_ro_valid: Default::default(),
            unused_ro_row: Default::default(),
            unused_ro_data: Default::default(),
            unused_ro_last: Default::default(),
            unused_ovf: Default::default(),
            has: std::array::from_fn(|k| Constant::new(k < n)),
            kidx: std::array::from_fn(|k| Constant::new((k as u64).into())),
            base: std::array::from_fn(|k| Constant::new((if k < n { cfg.base(k) as u64 } else { 0 }).into())),
            mask: std::array::from_fn(|k| Constant::new((if k < n { cfg.entries[k] as u64 - 1 } else { 0 }).into())),
            reg_thresh: std::array::from_fn(|k| Constant::new(((FRIDGE_REG_THRESH + 4 * k as u32) as u64).into())),
            rst_thresh: std::array::from_fn(|k| {
                Constant::new((if k < n { cfg.threshold(k) as u64 } else { 0 }).into())
            }),
            rst_nxt: std::array::from_fn(|k| {
                Constant::new((if k < n { xorshift32(cfg.prng_seed(k)) as u64 } else { 0 }).into())
            }),
            reg_flip: Constant::new((FRIDGE_REG_FLIP as u64).into()),
            reg_pop: Constant::new((FRIDGE_REG_HIST_POP as u64).into()),
            reg_hist_row: Constant::new((FRIDGE_REG_HIST_ROW as u64).into()),
            reg_hist_count: Constant::new((FRIDGE_REG_HIST_COUNT as u64).into()),
            reg_wsum_lo: Constant::new((FRIDGE_REG_HIST_WSUM_LO as u64).into()),
            reg_wsum_hi: Constant::new((FRIDGE_REG_HIST_WSUM_LO as u64 + 1).into()),
            reg_w2sum_lo: Constant::new((FRIDGE_REG_HIST_WSUM_LO as u64 + 2).into()),
            reg_w2sum_hi: Constant::new((FRIDGE_REG_HIST_WSUM_LO as u64 + 3).into()),
            reg_smp_dropped: Constant::new((FRIDGE_REG_SMP_DROPPED as u64).into()),
            reg_saturated: Constant::new((FRIDGE_REG_SATURATED as u64).into()),
            reg_status: Constant::new((FRIDGE_REG_STATUS as u64).into()),
            // HIST_ROW's valid (31) and last (30) bits; STATUS's bits 0, 1, 2.
            rd_bit: [
                Constant::new((1u64 << 31).into()),
                Constant::new((1u64 << 30).into()),
                Constant::new(1u64.into()),
                Constant::new(2u64.into()),
                Constant::new(4u64.into()),
            ],
            rdata: Default::default(),
            rd: Default::default(),
            route_m1: n_bit(1),
            route_m2: n_bit(2),
            route_m4: n_bit(4),
            sh1: Constant::new(1u64.into()),
            sh2: Constant::new(2u64.into()),
            sh13: Constant::new(13u64.into()),
            sh17: Constant::new(17u64.into()),
            sh5: Constant::new(5u64.into()),
            sh16: Constant::new(16u64.into()),
            id_lsb: Constant::new(2u64.into()),
            ts_lsb: Constant::new(34u64.into()),
            ctr_lsb: Constant::new(82u64.into()),
            bit0: Constant::new(1u64.into()),
            bit1: Constant::new(2u64.into()),
            not_valid: Constant::new(crate::bits_from_u128::<ENTRY_W>((1u128 << ENTRY_W) - 2)),
            zero32: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            ones32: Constant::new(0xFFFF_FFFFu64.into()),
            thresh_x: Default::default(),
            nxt_x: Default::default(),
            ctr: Default::default(),
            pending: Default::default(),
            dropped: Default::default(),
            p1_valid: Default::default(),
            p1_id: Default::default(),
            p1_resp: Default::default(),
            p1_ts: Default::default(),
            p1_flip: Default::default(),
            p2_valid: Default::default(),
            p2_id: Default::default(),
            p2_resp: Default::default(),
            p2_ts: Default::default(),
            p2_h: Default::default(),
            p2_flip: Default::default(),
            p3_valid: Default::default(),
            p3_k: Default::default(),
            p3_row: Default::default(),
            p3_id: Default::default(),
            p3_resp: Default::default(),
            p3_ts: Default::default(),
            p3_flip: Default::default(),
            e1_valid: Default::default(),
            e1_k: Default::default(),
            e1_flip: Default::default(),
            e2_valid: Default::default(),
            e2_k: Default::default(),
            e2_flip: Default::default(),
            e3_valid: Default::default(),
            e3_k: Default::default(),
            e3_flip: Default::default(),
            e4_valid: Default::default(),
            e4_k: Default::default(),
            e4_flip: Default::default(),
            m_valid: Default::default(),
            m_k: Default::default(),
            m_op_ts: Default::default(),
            m_old_ts: Default::default(),
            m_op_ctr: Default::default(),
            m_old_stamp: Default::default(),
            m_flip: Default::default(),
            o_valid: Default::default(),
            o_k: Default::default(),
            o_delay: Default::default(),
            o_x: Default::default(),
            route: Default::default(),
            k: Default::default(),
            row: Default::default(),
            nxt_sel: Default::default(),
            thresh_sel: Default::default(),
            ctr_sel: Default::default(),
            store: Default::default(),
            op_ctr: Default::default(),
            op: Default::default(),
            xs1: Default::default(),
            xs2: Default::default(),
            old: Default::default(),
            id_fwd: Default::default(),
            id_base: Default::default(),
            id_match: Default::default(),
            upd: Default::default(),
            hit: Default::default(),
            delay: Default::default(),
            x: Default::default(),
            pop: Default::default(),
            flip_ok: Default::default(),
            take_flip: Default::default(),
        }
    }
}

impl<const A: usize> Logic for FridgeCore<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rdata,
            pending,
            dropped,
            p1_valid,
            p1_id,
            p1_resp,
            p1_ts,
            p1_flip,
            p2_valid,
            p2_id,
            p2_resp,
            p2_ts,
            p2_h,
            p2_flip,
            p3_valid,
            p3_k,
            p3_row,
            p3_id,
            p3_resp,
            p3_ts,
            p3_flip,
            e1_valid,
            e1_k,
            e1_flip,
            e2_valid,
            e2_k,
            e2_flip,
            e3_valid,
            e3_k,
            e3_flip,
            e4_valid,
            e4_k,
            e4_flip,
            m_valid,
            m_k,
            m_op_ts,
            m_old_ts,
            m_op_ctr,
            m_old_stamp,
            m_flip,
            o_valid,
            o_k,
            o_delay,
            o_x
        );
        for j in 0..SLOTS {
            self.thresh_x[j].clock.next = self.clock.val();
            self.thresh_x[j].d.next = self.thresh_x[j].q.val();
            self.nxt_x[j].clock.next = self.clock.val();
            self.nxt_x[j].d.next = self.nxt_x[j].q.val();
            self.ctr[j].clock.next = self.clock.val();
            self.ctr[j].d.next = self.ctr[j].q.val();
        }
        self.index_hash.clock.next = self.clock.val();
        self.entries.clock.next = self.clock.val();
        self.entries.hold.next = false;
        self.entries.release_frozen.next = false;
        self.entries.q_row.next = self.no_q_row.val();
        self.unused_held.sig.next = self.entries.held.val();
        self.unused_q_data.sig.next = self.entries.q_data.val();
        self.entries.reset.next = self.reset.val();
        self.hist.clock.next = self.clock.val();
        self.hist.reset.next = self.reset.val();

        // ---- the entry bank never flips and is never read out ----
        self.entries.flip.next = false;
        self.entries.m_ro_ready.next = false;
        self.entries.ovf_clear.next = false;
        self.entries.alu_ovf.next = false;
        self.unused_flip_ready.sig.next = self.entries.flip_ready.val();
        self.unused_epoch.sig.next = self.entries.epoch.val();
        self.unused_ro_valid.sig.next = self.entries.m_ro_valid.val();
        self.unused_ro_row.sig.next = self.entries.m_ro_row.val();
        self.unused_ro_data.sig.next = self.entries.m_ro_data.val();
        self.unused_ro_last.sig.next = self.entries.m_ro_last.val();
        self.unused_ovf.sig.next = self.entries.ovf_sticky.val();

        // ---- outputs ----
        self.s_ready.next = self.entries.s_upd_ready.val() & self.hist.s_ready.val();
        self.m_smp_valid.next = self.o_valid.q.val();
        self.m_smp_fridge.next = self.o_k.q.val();
        self.m_smp_delay.next = self.o_delay.q.val();
        self.m_smp_x.next = self.o_x.q.val();
        self.smp_dropped.next = self.dropped.q.val();
        self.flip_pending.next = self.pending.q.val();
        self.epoch.next = self.hist.epoch.val();
        self.m_ro_valid.next = self.hist.m_ro_valid.val();
        // The stream's consumer or a HIST_POP write takes the presented row.
        self.hist.m_ro_ready.next =
            self.m_ro_ready.val() | (self.csr_we.val() & (self.csr_addr.val() == self.reg_pop.val()));
        self.m_ro_row.next = self.hist.m_ro_row.val();
        self.m_ro_count.next = self.hist.m_ro_count.val();
        self.m_ro_wsum.next = self.hist.m_ro_wsum.val();
        self.m_ro_w2sum.next = self.hist.m_ro_w2sum.val();
        self.m_ro_last.next = self.hist.m_ro_last.val();
        self.ovf_sticky.next = self.hist.ovf_sticky.val();
        self.hist.ovf_clear.next = self.ovf_clear.val();
        self.saturated.next = self.hist.saturated.val();
        self.hist.csr_we.next = self.csr_we.val();
        self.hist.csr_addr.next = self.csr_addr.val();
        self.hist.csr_wdata.next = self.csr_wdata.val().get_bits::<22>(0);

        // ---- input -> p1; a pending flip goes out beside this cycle's packet ----
        self.flip_ok.next = self.hist.flip_ready.val()
            & !self.hist.flip_busy.val()
            & !self.p1_flip.q.val()
            & !self.p2_flip.q.val()
            & !self.p3_flip.q.val()
            & !self.e1_flip.q.val()
            & !self.e2_flip.q.val()
            & !self.e3_flip.q.val()
            & !self.e4_flip.q.val()
            & !self.m_flip.q.val();
        self.take_flip.next = self.pending.q.val() & self.flip_ok.val();
        self.p1_valid.d.next = self.s_valid.val() & self.s_ready.val();
        self.p1_id.d.next = self.s_id.val();
        self.p1_resp.d.next = self.s_response.val();
        self.p1_ts.d.next = self.s_ts.val();
        self.p1_flip.d.next = self.take_flip.val();
        self.pending.d.next = self.pending.q.val() & !self.take_flip.val();

        // ---- p1: index hash ----
        self.index_hash.s_valid.next = self.p1_valid.q.val();
        self.index_hash.s_key.next = self.p1_id.q.val();
        self.p2_valid.d.next = self.p1_valid.q.val() & self.index_hash.m_valid.val();
        self.p2_h.d.next = self.index_hash.m_hash.val();
        self.p2_id.d.next = self.p1_id.q.val();
        self.p2_resp.d.next = self.p1_resp.q.val();
        self.p2_ts.d.next = self.p1_ts.q.val();
        self.p2_flip.d.next = self.p1_flip.q.val();

        // ---- p2: fridge k = (h[31:16] · N) >> 16, row = base_k + (h mod M_k) ----
        self.route.next = (bit_cast::<18, 16>(self.p2_h.q.val().get_bits::<16>(16)) & self.route_m1.val())
            + ((bit_cast::<18, 16>(self.p2_h.q.val().get_bits::<16>(16)) << self.sh1.val()) & self.route_m2.val())
            + ((bit_cast::<18, 16>(self.p2_h.q.val().get_bits::<16>(16)) << self.sh2.val()) & self.route_m4.val());
        self.k.next = bit_cast::<2, 18>(self.route.val() >> self.sh16.val());
        self.row.next = self.base[0].val() + (bit_cast::<A, 32>(self.p2_h.q.val()) & self.mask[0].val());
        for j in 1..SLOTS {
            if self.k.val() == self.kidx[j].val() {
                self.row.next = self.base[j].val() + (bit_cast::<A, 32>(self.p2_h.q.val()) & self.mask[j].val());
            }
        }
        self.p3_valid.d.next = self.p2_valid.q.val();
        self.p3_k.d.next = self.k.val();
        self.p3_row.d.next = self.row.val();
        self.p3_id.d.next = self.p2_id.q.val();
        self.p3_resp.d.next = self.p2_resp.q.val();
        self.p3_ts.d.next = self.p2_ts.q.val();
        self.p3_flip.d.next = self.p2_flip.q.val();

        // ---- p3: PRNG draw against THRESH_k; counter; entry-bank update ----
        self.nxt_sel.next = self.nxt_x[0].q.val() ^ self.rst_nxt[0].val();
        self.thresh_sel.next = self.thresh_x[0].q.val() ^ self.rst_thresh[0].val();
        self.ctr_sel.next = self.ctr[0].q.val();
        for j in 1..SLOTS {
            if self.p3_k.q.val() == self.kidx[j].val() {
                self.nxt_sel.next = self.nxt_x[j].q.val() ^ self.rst_nxt[j].val();
                self.thresh_sel.next = self.thresh_x[j].q.val() ^ self.rst_thresh[j].val();
                self.ctr_sel.next = self.ctr[j].q.val();
            }
        }
        self.store.next = !(self.thresh_sel.val() < self.nxt_sel.val());
        // xorshift32 of the draw: the next draw of fridge k.
        self.xs1.next = self.nxt_sel.val() ^ (self.nxt_sel.val() << self.sh13.val());
        self.xs2.next = self.xs1.val() ^ (self.xs1.val() >> self.sh17.val());
        if self.p3_resp.q.val() {
            self.op_ctr.next = self.ctr_sel.val();
        } else {
            self.op_ctr.next = self.ctr_sel.val() + self.one32.val();
        }
        for j in 0..SLOTS {
            if self.p3_valid.q.val() & !self.p3_resp.q.val() & (self.p3_k.q.val() == self.kidx[j].val()) {
                self.nxt_x[j].d.next = (self.xs2.val() ^ (self.xs2.val() << self.sh5.val())) ^ self.rst_nxt[j].val();
                self.ctr[j].d.next = self.op_ctr.val();
            }
        }
        self.op.next = self.bit0.val()
            | (bit_cast::<ENTRY_W, 32>(self.p3_id.q.val()) << self.id_lsb.val())
            | (bit_cast::<ENTRY_W, 48>(self.p3_ts.q.val()) << self.ts_lsb.val())
            | (bit_cast::<ENTRY_W, 32>(self.op_ctr.val()) << self.ctr_lsb.val());
        if self.p3_resp.q.val() {
            self.op.next = self.op.val() | self.bit1.val();
        }
        self.entries.s_upd_valid.next = self.p3_valid.q.val() & (self.p3_resp.q.val() | self.store.val());
        self.entries.s_upd_row.next = self.p3_row.q.val();
        self.entries.s_upd_op.next = self.op.val();
        // Side-band beside the bank's sa..s3: the update's fridge and the flip token.
        self.e1_valid.d.next =
            self.p3_valid.q.val() & (self.p3_resp.q.val() | self.store.val()) & self.entries.s_upd_ready.val();
        self.e1_k.d.next = self.p3_k.q.val();
        self.e1_flip.d.next = self.p3_flip.q.val();
        self.e2_valid.d.next = self.e1_valid.q.val();
        self.e2_k.d.next = self.e1_k.q.val();
        self.e2_flip.d.next = self.e1_flip.q.val();
        self.e3_valid.d.next = self.e2_valid.q.val();
        self.e3_k.d.next = self.e2_k.q.val();
        self.e3_flip.d.next = self.e2_flip.q.val();
        self.e4_valid.d.next = self.e3_valid.q.val();
        self.e4_k.d.next = self.e3_k.q.val();
        self.e4_flip.d.next = self.e3_flip.q.val();

        // ---- e4: entry arithmetic: a request overwrites; a response invalidates its own ID ----
        // Only the valid bit depends on the ID compare (fanout 1 in the RMW loop); the
        // rest of a matched entry stays, unobservable behind the cleared valid bit.
        // The ID is compared on both of the bank's candidates and the select comes
        // after the compare: no mux in front of the 32-bit compare in the RMW loop.
        if self.entries.alu_fwd.val() {
            self.old.next = self.entries.alu_old_fwd.val();
        } else {
            self.old.next = self.entries.alu_old_base.val();
        }
        self.id_fwd.next =
            self.entries.alu_old_fwd.val().get_bits::<32>(2) == self.entries.alu_op.val().get_bits::<32>(2);
        self.id_base.next =
            self.entries.alu_old_base.val().get_bits::<32>(2) == self.entries.alu_op.val().get_bits::<32>(2);
        self.id_match.next =
            (self.entries.alu_fwd.val() & self.id_fwd.val()) | (!self.entries.alu_fwd.val() & self.id_base.val());
        self.hit.next = self.e4_valid.q.val()
            & self.entries.alu_op.val().get_bit(1)
            & self.old.val().get_bit(0)
            & self.id_match.val();
        self.upd.next = self.entries.alu_op.val();
        if self.entries.alu_op.val().get_bit(1) {
            self.upd.next = self.old.val();
            if self.id_match.val() {
                self.upd.next = self.old.val() & self.not_valid.val();
            }
        }
        self.entries.alu_new.next = self.upd.val();
        self.m_valid.d.next = self.hit.val();
        self.m_k.d.next = self.e4_k.q.val();
        self.m_op_ts.d.next = self.entries.alu_op.val().get_bits::<48>(34);
        self.m_old_ts.d.next = self.old.val().get_bits::<48>(34);
        self.m_op_ctr.d.next = self.entries.alu_op.val().get_bits::<32>(82);
        self.m_old_stamp.d.next = self.old.val().get_bits::<32>(82);
        self.m_flip.d.next = self.e4_flip.q.val();

        // ---- m: the sample, to the histogram pipeline and the output register ----
        self.delay.next = self.m_op_ts.q.val() - self.m_old_ts.q.val();
        self.x.next = self.m_op_ctr.q.val() - self.m_old_stamp.q.val();
        self.hist.s_valid.next = self.m_valid.q.val();
        self.hist.s_fridge.next = self.m_k.q.val();
        self.hist.s_delay.next = self.delay.val();
        self.hist.s_x.next = self.x.val();
        self.hist.s_flip.next = self.m_flip.q.val();

        // ---- smp: one-entry output register; a sample that finds it full is counted ----
        self.pop.next = self.o_valid.q.val() & self.m_smp_ready.val();
        if self.pop.val() {
            self.o_valid.d.next = false;
        }
        if self.m_valid.q.val() {
            if !self.o_valid.q.val() | self.pop.val() {
                self.o_valid.d.next = true;
                self.o_k.d.next = self.m_k.q.val();
                self.o_delay.d.next = self.delay.val();
                self.o_x.d.next = self.x.val();
            } else if self.dropped.q.val() != self.ones32.val() {
                self.dropped.d.next = self.dropped.q.val() + self.one32.val();
            }
        }

        // ---- flip requests and CSR writes (effective from the next cycle) ----
        if self.flip.val() {
            self.pending.d.next = true;
        }
        if self.csr_we.val() {
            if self.csr_addr.val() == self.reg_flip.val() {
                self.pending.d.next = true;
            }
            for j in 0..SLOTS {
                if self.has[j].val() & (self.csr_addr.val() == self.reg_thresh[j].val()) {
                    self.thresh_x[j].d.next = self.csr_wdata.val() ^ self.rst_thresh[j].val();
                }
            }
        }

        // ---- CSR reads: the frozen histogram row presented on m_ro_* (0 when none is), counters, status ----
        self.rd.next = self.zero32.val();
        if self.hist.m_ro_valid.val() {
            if self.csr_addr.val() == self.reg_hist_row.val() {
                self.rd.next = bit_cast::<32, 7>(self.hist.m_ro_row.val()) | self.rd_bit[0].val();
                if self.hist.m_ro_last.val() {
                    self.rd.next = self.rd.val() | self.rd_bit[1].val();
                }
            }
            if self.csr_addr.val() == self.reg_hist_count.val() {
                self.rd.next = self.hist.m_ro_count.val();
            }
            if self.csr_addr.val() == self.reg_wsum_lo.val() {
                self.rd.next = self.hist.m_ro_wsum.val().get_bits::<32>(0);
            }
            if self.csr_addr.val() == self.reg_wsum_hi.val() {
                self.rd.next = self.hist.m_ro_wsum.val().get_bits::<32>(32);
            }
            if self.csr_addr.val() == self.reg_w2sum_lo.val() {
                self.rd.next = self.hist.m_ro_w2sum.val().get_bits::<32>(0);
            }
            if self.csr_addr.val() == self.reg_w2sum_hi.val() {
                self.rd.next = self.hist.m_ro_w2sum.val().get_bits::<32>(32);
            }
        }
        if self.csr_addr.val() == self.reg_smp_dropped.val() {
            self.rd.next = self.dropped.q.val();
        }
        if self.csr_addr.val() == self.reg_saturated.val() {
            self.rd.next = self.hist.saturated.val();
        }
        if self.csr_addr.val() == self.reg_status.val() {
            if self.hist.ovf_sticky.val() {
                self.rd.next = self.rd.val() | self.rd_bit[2].val();
            }
            if self.hist.epoch.val() {
                self.rd.next = self.rd.val() | self.rd_bit[3].val();
            }
            if self.pending.q.val() {
                self.rd.next = self.rd.val() | self.rd_bit[4].val();
            }
        }
        if self.csr_re.val() {
            self.rdata.d.next = self.rd.val();
        }
        self.csr_rdata.next = self.rdata.q.val();

        // ---- synchronous reset ----
        if self.reset.val() {
            self.rdata.d.next = self.zero32.val();
            for j in 0..SLOTS {
                self.thresh_x[j].d.next = self.zero32.val();
                self.nxt_x[j].d.next = self.zero32.val();
                self.ctr[j].d.next = self.zero32.val();
            }
            self.pending.d.next = false;
            self.dropped.d.next = self.zero32.val();
            self.p1_valid.d.next = false;
            self.p1_flip.d.next = false;
            self.p2_valid.d.next = false;
            self.p2_flip.d.next = false;
            self.p3_valid.d.next = false;
            self.p3_flip.d.next = false;
            self.e1_valid.d.next = false;
            self.e1_flip.d.next = false;
            self.e2_valid.d.next = false;
            self.e2_flip.d.next = false;
            self.e3_valid.d.next = false;
            self.e3_flip.d.next = false;
            self.e4_valid.d.next = false;
            self.e4_flip.d.next = false;
            self.m_valid.d.next = false;
            self.m_flip.d.next = false;
            self.o_valid.d.next = false;
        }
    }
}
