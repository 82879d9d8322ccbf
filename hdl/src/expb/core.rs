//! EXPB core: bandwidth statistics at m exponential time scales
//! Δ_j = 2^j Δ_1 (Uyeda et al. §3.2, Algorithm 2, Lemma 2), with a
//! one-counter Misra–Gries majority per scale as its culprit (§3.3).
//!
//! Packets {ts, len, flow} and the time input `now` enter through one
//! register each (`p_*`, `n_*`); their compares against the interval ends
//! are made as they are registered (against the ends the next cycle will
//! hold), so the close decision starts from flags. Per cycle:
//! - A registered packet whose timestamp is before the current base
//!   interval's end (`boundary`) is applied: its length goes into the
//!   interval sum `acc` (saturating at 2^32 − 1, flagged), and into every
//!   scale's majority (a cycle later: the majority stage `mj_*` replays each
//!   cycle's packet and closes, so the wide majority registers hang off
//!   registers rather than off the close decision).
//! - Otherwise, when the packet or `now` has reached `boundary` and the
//!   cascade engine is idle, the interval closes: `acc` moves into the engine,
//!   the scales j ≤ d close (d = trailing zeros of the interval's 1-based
//!   index, at most m − 1: Algorithm 2's `i mod 2^j = 0`), their majority
//!   candidates are taken and restarted, and the packet, if it belongs to the
//!   next interval, is applied to the fresh sums in the same cycle. A packet
//!   beyond the next interval waits (`s_ready` low): only time jumps do that.
//! - The cascade engine walks one scale per cycle: v_0 = acc, v_j = sums[j] +
//!   v_{j−1} goes to the statistics bank and sums[j] clears, for j = 0..=d;
//!   then, if d + 1 < m, one more cycle adds v_d into sums[d + 1]. The next
//!   sums[j] is selected into a register a cycle ahead, so a step is one add.
//! - v² takes three stages (`e1`..`e3`: six 16 × 16 products of v's limbs,
//!   then two adds), and the update {count 1, Σ v, Σ v², max v, flow} reaches
//!   the ping-pong statistics bank ([`RmwBank`], one row per scale), whose
//!   record arithmetic adds the sums and replaces the maximum when v exceeds
//!   it or the row is empty (index = the row's count, culprit = the flow).
//! - The update of scale m − 1 at a period's last interval carries the flip:
//!   the period freezes and streams out on `m_ro_*`, its packet count and
//!   saturation flag on `period_*`. A period's last interval closes only when
//!   the bank can flip and no flip is in flight, so a late consumer
//!   back-pressures the packets instead of losing a period.
//!
//! With `now` given every cycle, a base interval of at least m + 2 cycles and
//! a period at least as long as its read-out, `s_ready` never drops.
//!
//! Statistics record (`EXPB_W` = 277): count [20:0], Σ [72:21], Σ² [176:73],
//! max [224:177], max index [244:225], max flow [276:245].

use crate::common::rmw_bank::RmwBank;
use crate::common::unused::Unused;
use netmeas_sim::dbm::ExpbConfig;
use netmeas_sim::dbm::expb_cycle::{
    EXPB_COUNT_BITS, EXPB_INDEX_BITS, EXPB_RECORD_BITS, EXPB_SUM_BITS, EXPB_SUMSQ_BITS, EXPB_V_BITS,
};
use rust_hdl::prelude::*;

/// Width of a statistics record.
pub const EXPB_W: usize = EXPB_RECORD_BITS as usize;
/// Field offsets of the record, from the per-clock model's layout.
const SUM_LSB: usize = EXPB_COUNT_BITS as usize;
const SUMSQ_LSB: usize = SUM_LSB + EXPB_SUM_BITS as usize;
const MAX_LSB: usize = SUMSQ_LSB + EXPB_SUMSQ_BITS as usize;
const INDEX_LSB: usize = MAX_LSB + EXPB_V_BITS as usize;
const FLOW_LSB: usize = INDEX_LSB + EXPB_INDEX_BITS as usize;
// The `get_bits` part-selects in `update` take literal offsets and widths: they are these.
const _: () =
    assert!(SUM_LSB == 21 && SUMSQ_LSB == 73 && MAX_LSB == 177 && INDEX_LSB == 225 && FLOW_LSB == 245 && EXPB_W == 277);
/// Scale slots in the register file (the core supports 1..=16 scales).
const SLOTS: usize = 16;
/// Interval-index bits that can end a cascade below the coarsest scale.
const DEPTH_BITS: usize = SLOTS - 1;
/// Width of a boundary time: a 48-bit timestamp plus two base intervals.
const BW: usize = 50;

/// The EXPB core for one [`ExpbConfig`].
#[derive(LogicBlock)]
pub struct ExpbCore {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: a new first period starting at time 0.
    pub reset: Signal<In, Bit>,
    // --- packet stream ---
    /// A packet is offered.
    pub s_valid: Signal<In, Bit>,
    /// The packet is taken.
    pub s_ready: Signal<Out, Bit>,
    /// Its timestamp (ticks; not going backwards).
    pub s_ts: Signal<In, Bits<48>>,
    /// Its length in bytes.
    pub s_len: Signal<In, Bits<32>>,
    /// Its flow (the culprit's ID).
    pub s_flow: Signal<In, Bits<32>>,
    // --- time ---
    /// `now` carries the current time.
    pub now_valid: Signal<In, Bit>,
    /// The current time (ticks; not going backwards, not behind the packets to come).
    pub now: Signal<In, Bits<48>>,
    // --- read-out of the frozen period, one scale per row ---
    /// A scale is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Its index j (Δ = 2^j Δ_1).
    pub m_ro_scale: Signal<Out, Bits<4>>,
    /// Intervals of this scale in the period.
    pub m_ro_count: Signal<Out, Bits<21>>,
    /// Σ of their byte sums.
    pub m_ro_sum: Signal<Out, Bits<52>>,
    /// Σ of their squares.
    pub m_ro_sumsq: Signal<Out, Bits<104>>,
    /// The largest interval sum.
    pub m_ro_max: Signal<Out, Bits<48>>,
    /// The first interval with that maximum (0-based, in units of this scale).
    pub m_ro_max_index: Signal<Out, Bits<20>>,
    /// The majority flow of that interval.
    pub m_ro_max_flow: Signal<Out, Bits<32>>,
    /// It is the coarsest scale.
    pub m_ro_last: Signal<Out, Bit>,
    // --- period status ---
    /// Index of the frozen period (counted from reset).
    pub period_index: Signal<Out, Bits<32>>,
    /// Packets of the frozen period.
    pub period_packets: Signal<Out, Bits<64>>,
    /// A base-interval sum of the frozen period saturated.
    pub period_saturated: Signal<Out, Bit>,
    /// Index of the live period.
    pub live_period: Signal<Out, Bits<32>>,
    // --- blocks ---
    bank: RmwBank<EXPB_W, 4>,
    /// The bank's hold port is not used (its frozen copy streams out).
    unused_held: Unused<Bit>,
    no_q_row: Constant<Bits<4>>,
    unused_q_data: Unused<Bits<EXPB_W>>,
    unused_epoch: Unused<Bit>,
    unused_ovf: Unused<Bit>,
    /// The update's index field is not an operand (the row's own count is the index).
    unused_op_index: Unused<Bits<20>>,
    // --- constants ---
    has: [Constant<Bit>; SLOTS],
    kidx: [Constant<Bits<4>>; SLOTS],
    base: Constant<Bits<BW>>,
    base2: Constant<Bits<BW>>,
    base3: Constant<Bits<BW>>,
    n_last_m1: Constant<Bits<21>>,
    first_is_last: Constant<Bit>,
    top_scale: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    one21: Constant<Bits<21>>,
    one32: Constant<Bits<32>>,
    one64: Constant<Bits<64>>,
    zero4: Constant<Bits<4>>,
    zero21: Constant<Bits<21>>,
    zero_bw: Constant<Bits<BW>>,
    one_w: Constant<Bits<EXPB_W>>,
    low_mask: [Constant<Bits<21>>; DEPTH_BITS],
    zero32: Constant<Bits<32>>,
    zero48: Constant<Bits<48>>,
    zero64: Constant<Bits<64>>,
    ones32: Constant<Bits<32>>,
    sum_lsb: Constant<Bits<9>>,
    sumsq_lsb: Constant<Bits<9>>,
    max_lsb: Constant<Bits<9>>,
    index_lsb: Constant<Bits<9>>,
    flow_lsb: Constant<Bits<9>>,
    sh17: Constant<Bits<7>>,
    sh32: Constant<Bits<7>>,
    sh33: Constant<Bits<7>>,
    sh49: Constant<Bits<7>>,
    sh64: Constant<Bits<7>>,
    // --- input registers ---
    p_valid: DFF<Bit>,
    p_ts: DFF<Bits<48>>,
    p_len: DFF<Bits<32>>,
    p_flow: DFF<Bits<32>>,
    n_valid: DFF<Bit>,
    // --- intervals and periods (held as XOR with their reset values, so power-up is reset) ---
    boundary_x: DFF<Bits<BW>>,
    boundary2_x: DFF<Bits<BW>>,
    boundary3_x: DFF<Bits<BW>>,
    ivl_x: DFF<Bits<21>>,
    last_x: DFF<Bit>,
    // --- the time compares, registered as their operands are (valid with p_valid / n_valid) ---
    /// p_ts < boundary.
    p_lt1: DFF<Bit>,
    /// p_ts < boundary2.
    p_lt2: DFF<Bit>,
    /// n_now < boundary.
    n_lt1: DFF<Bit>,
    period: DFF<Bits<32>>,
    acc: DFF<Bits<32>>,
    packets: DFF<Bits<64>>,
    sat: DFF<Bit>,
    fin_period: DFF<Bits<32>>,
    fin_packets: DFF<Bits<64>>,
    fin_sat: DFF<Bit>,
    frz_period: DFF<Bits<32>>,
    frz_packets: DFF<Bits<64>>,
    frz_sat: DFF<Bit>,
    // --- the majority stage: this cycle's packet and closes, applied to the majorities next cycle ---
    mj_apply: DFF<Bit>,
    mj_new: DFF<Bit>,
    mj_len: DFF<Bits<32>>,
    mj_flow: DFF<Bits<32>>,
    mj_close: [DFF<Bit>; SLOTS],
    // --- per scale: majority, its snapshot at the close, running sum ---
    maj_cand: [DFF<Bits<32>>; SLOTS],
    maj_cnt: [DFF<Bits<32>>; SLOTS],
    snap: [DFF<Bits<32>>; SLOTS],
    /// Running sums of the open intervals of scales 1.. (slot 0 stays zero: scale 0's is `acc`).
    sums: [DFF<Bits<48>>; SLOTS],
    // --- cascade engine ---
    eng_busy: DFF<Bit>,
    eng_add: DFF<Bit>,
    eng_last: DFF<Bit>,
    eng_j: DFF<Bits<4>>,
    eng_d: DFF<Bits<4>>,
    eng_v: DFF<Bits<48>>,
    /// sums[eng_j], selected the cycle before.
    eng_sum: DFF<Bits<48>>,
    // --- squaring pipeline ---
    e1_valid: DFF<Bit>,
    e1_row: DFF<Bits<4>>,
    e1_v: DFF<Bits<48>>,
    e1_flip: DFF<Bit>,
    e2_valid: DFF<Bit>,
    e2_row: DFF<Bits<4>>,
    e2_v: DFF<Bits<48>>,
    e2_flow: DFF<Bits<32>>,
    e2_flip: DFF<Bit>,
    e2_p00: DFF<Bits<32>>,
    e2_p11: DFF<Bits<32>>,
    e2_p22: DFF<Bits<32>>,
    e2_p01: DFF<Bits<32>>,
    e2_p02: DFF<Bits<32>>,
    e2_p12: DFF<Bits<32>>,
    e3_valid: DFF<Bit>,
    e3_row: DFF<Bits<4>>,
    e3_v: DFF<Bits<48>>,
    e3_flow: DFF<Bits<32>>,
    e3_flip: DFF<Bit>,
    e3_s: DFF<Bits<96>>,
    e3_p02: DFF<Bits<32>>,
    // --- combinational ---
    boundary: Signal<Local, Bits<BW>>,
    boundary2: Signal<Local, Bits<BW>>,
    boundary3: Signal<Local, Bits<BW>>,
    ivl: Signal<Local, Bits<21>>,
    is_last: Signal<Local, Bit>,
    p_cur: Signal<Local, Bit>,
    due: Signal<Local, Bit>,
    flip_busy: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    p_new: Signal<Local, Bit>,
    apply: Signal<Local, Bit>,
    acc_sum: Signal<Local, Bits<33>>,
    depth: Signal<Local, Bits<4>>,
    closes: [Signal<Local, Bit>; SLOTS],
    maj_take: [Signal<Local, Bit>; SLOTS],
    maj_add: [Signal<Local, Bits<32>>; SLOTS],
    maj_next_cand: [Signal<Local, Bits<32>>; SLOTS],
    maj_next_cnt: [Signal<Local, Bits<32>>; SLOTS],
    sum_next: Signal<Local, Bits<48>>,
    snap_sel: Signal<Local, Bits<32>>,
    vj: Signal<Local, Bits<48>>,
    sq: Signal<Local, Bits<96>>,
    old: Signal<Local, Bits<EXPB_W>>,
    old_count: Signal<Local, Bits<21>>,
    old_max: Signal<Local, Bits<48>>,
    op_max: Signal<Local, Bits<48>>,
    take_max: Signal<Local, Bit>,
    new_count: Signal<Local, Bits<21>>,
    new_sum: Signal<Local, Bits<52>>,
    new_sumsq: Signal<Local, Bits<104>>,
    new_max: Signal<Local, Bits<48>>,
    new_index: Signal<Local, Bits<20>>,
    new_flow: Signal<Local, Bits<32>>,
}

impl ExpbCore {
    /// The core for `cfg` (validated by the caller).
    pub fn new(cfg: &ExpbConfig) -> Self {
        let m = cfg.scales;
        assert!((1..=SLOTS).contains(&m), "1..=16 scales");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_ts: Default::default(),
            s_len: Default::default(),
            s_flow: Default::default(),
            now_valid: Default::default(),
            now: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_scale: Default::default(),
            m_ro_count: Default::default(),
            m_ro_sum: Default::default(),
            m_ro_sumsq: Default::default(),
            m_ro_max: Default::default(),
            m_ro_max_index: Default::default(),
            m_ro_max_flow: Default::default(),
            m_ro_last: Default::default(),
            period_index: Default::default(),
            period_packets: Default::default(),
            period_saturated: Default::default(),
            live_period: Default::default(),
            bank: RmwBank::new(m),
            unused_held: Default::default(),
            no_q_row: Constant::new(0u64.into()),
            unused_q_data: Default::default(),
            unused_epoch: Default::default(),
            unused_ovf: Default::default(),
            unused_op_index: Default::default(),
            has: std::array::from_fn(|j| Constant::new(j < m)),
            kidx: std::array::from_fn(|j| Constant::new((j as u64).into())),
            base: Constant::new(cfg.base_ticks.into()),
            base2: Constant::new((2 * cfg.base_ticks).into()),
            base3: Constant::new((3 * cfg.base_ticks).into()),
            n_last_m1: Constant::new((cfg.intervals() - 1).into()),
            first_is_last: Constant::new(cfg.intervals() == 1),
            top_scale: Constant::new(((m - 1) as u64).into()),
            one4: Constant::new(1u64.into()),
            one21: Constant::new(1u64.into()),
            one32: Constant::new(1u64.into()),
            one64: Constant::new(1u64.into()),
            zero4: Constant::new(0u64.into()),
            zero21: Constant::new(0u64.into()),
            zero_bw: Constant::new(0u64.into()),
            one_w: Constant::new(1u64.into()),
            low_mask: std::array::from_fn(|k| Constant::new(((1u64 << k) - 1).into())),
            zero32: Constant::new(0u64.into()),
            zero48: Constant::new(0u64.into()),
            zero64: Constant::new(0u64.into()),
            ones32: Constant::new(0xFFFF_FFFFu64.into()),
            sum_lsb: Constant::new((SUM_LSB as u64).into()),
            sumsq_lsb: Constant::new((SUMSQ_LSB as u64).into()),
            max_lsb: Constant::new((MAX_LSB as u64).into()),
            index_lsb: Constant::new((INDEX_LSB as u64).into()),
            flow_lsb: Constant::new((FLOW_LSB as u64).into()),
            sh17: Constant::new(17u64.into()),
            sh32: Constant::new(32u64.into()),
            sh33: Constant::new(33u64.into()),
            sh49: Constant::new(49u64.into()),
            sh64: Constant::new(64u64.into()),
            p_valid: Default::default(),
            p_ts: Default::default(),
            p_len: Default::default(),
            p_flow: Default::default(),
            n_valid: Default::default(),
            boundary_x: Default::default(),
            boundary2_x: Default::default(),
            boundary3_x: Default::default(),
            ivl_x: Default::default(),
            last_x: Default::default(),
            p_lt1: Default::default(),
            p_lt2: Default::default(),
            n_lt1: Default::default(),
            period: Default::default(),
            acc: Default::default(),
            packets: Default::default(),
            sat: Default::default(),
            fin_period: Default::default(),
            fin_packets: Default::default(),
            fin_sat: Default::default(),
            frz_period: Default::default(),
            frz_packets: Default::default(),
            frz_sat: Default::default(),
            mj_apply: Default::default(),
            mj_new: Default::default(),
            mj_len: Default::default(),
            mj_flow: Default::default(),
            mj_close: Default::default(),
            maj_cand: Default::default(),
            maj_cnt: Default::default(),
            snap: Default::default(),
            sums: Default::default(),
            eng_busy: Default::default(),
            eng_add: Default::default(),
            eng_last: Default::default(),
            eng_j: Default::default(),
            eng_d: Default::default(),
            eng_v: Default::default(),
            eng_sum: Default::default(),
            e1_valid: Default::default(),
            e1_row: Default::default(),
            e1_v: Default::default(),
            e1_flip: Default::default(),
            e2_valid: Default::default(),
            e2_row: Default::default(),
            e2_v: Default::default(),
            e2_flow: Default::default(),
            e2_flip: Default::default(),
            e2_p00: Default::default(),
            e2_p11: Default::default(),
            e2_p22: Default::default(),
            e2_p01: Default::default(),
            e2_p02: Default::default(),
            e2_p12: Default::default(),
            e3_valid: Default::default(),
            e3_row: Default::default(),
            e3_v: Default::default(),
            e3_flow: Default::default(),
            e3_flip: Default::default(),
            e3_s: Default::default(),
            e3_p02: Default::default(),
            boundary: Default::default(),
            boundary2: Default::default(),
            boundary3: Default::default(),
            ivl: Default::default(),
            is_last: Default::default(),
            p_cur: Default::default(),
            due: Default::default(),
            flip_busy: Default::default(),
            start: Default::default(),
            p_new: Default::default(),
            apply: Default::default(),
            acc_sum: Default::default(),
            depth: Default::default(),
            closes: Default::default(),
            maj_take: Default::default(),
            maj_add: Default::default(),
            maj_next_cand: Default::default(),
            maj_next_cnt: Default::default(),
            sum_next: Default::default(),
            snap_sel: Default::default(),
            vj: Default::default(),
            sq: Default::default(),
            old: Default::default(),
            old_count: Default::default(),
            old_max: Default::default(),
            op_max: Default::default(),
            take_max: Default::default(),
            new_count: Default::default(),
            new_sum: Default::default(),
            new_sumsq: Default::default(),
            new_max: Default::default(),
            new_index: Default::default(),
            new_flow: Default::default(),
        }
    }
}

impl Logic for ExpbCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            p_valid,
            p_ts,
            p_len,
            p_flow,
            mj_apply,
            mj_new,
            mj_len,
            mj_flow,
            n_valid,
            boundary_x,
            boundary2_x,
            boundary3_x,
            ivl_x,
            last_x,
            p_lt1,
            p_lt2,
            n_lt1,
            period,
            acc,
            packets,
            sat,
            fin_period,
            fin_packets,
            fin_sat,
            frz_period,
            frz_packets,
            frz_sat,
            eng_busy,
            eng_add,
            eng_last,
            eng_j,
            eng_d,
            eng_v,
            eng_sum,
            e1_valid,
            e1_row,
            e1_v,
            e1_flip,
            e2_valid,
            e2_row,
            e2_v,
            e2_flow,
            e2_flip,
            e2_p00,
            e2_p11,
            e2_p22,
            e2_p01,
            e2_p02,
            e2_p12,
            e3_valid,
            e3_row,
            e3_v,
            e3_flow,
            e3_flip,
            e3_s,
            e3_p02
        );
        for j in 0..SLOTS {
            self.maj_cand[j].clock.next = self.clock.val();
            self.maj_cand[j].d.next = self.maj_cand[j].q.val();
            self.maj_cnt[j].clock.next = self.clock.val();
            self.maj_cnt[j].d.next = self.maj_cnt[j].q.val();
            self.mj_close[j].clock.next = self.clock.val();
            self.snap[j].clock.next = self.clock.val();
            self.snap[j].d.next = self.snap[j].q.val();
            self.sums[j].clock.next = self.clock.val();
            self.sums[j].d.next = self.sums[j].q.val();
        }
        self.bank.clock.next = self.clock.val();
        self.bank.hold.next = false;
        self.bank.release_frozen.next = false;
        self.bank.q_row.next = self.no_q_row.val();
        self.unused_held.sig.next = self.bank.held.val();
        self.unused_q_data.sig.next = self.bank.q_data.val();
        self.bank.reset.next = self.reset.val();
        self.bank.ovf_clear.next = false;
        self.bank.alu_ovf.next = false;
        self.unused_epoch.sig.next = self.bank.epoch.val();
        self.unused_ovf.sig.next = self.bank.ovf_sticky.val();
        self.unused_op_index.sig.next = self.bank.alu_op.val().get_bits::<20>(225);

        // ---- outputs ----
        self.m_ro_valid.next = self.bank.m_ro_valid.val();
        self.bank.m_ro_ready.next = self.m_ro_ready.val();
        self.m_ro_scale.next = self.bank.m_ro_row.val();
        self.m_ro_count.next = self.bank.m_ro_data.val().get_bits::<21>(0);
        self.m_ro_sum.next = self.bank.m_ro_data.val().get_bits::<52>(21);
        self.m_ro_sumsq.next = self.bank.m_ro_data.val().get_bits::<104>(73);
        self.m_ro_max.next = self.bank.m_ro_data.val().get_bits::<48>(177);
        self.m_ro_max_index.next = self.bank.m_ro_data.val().get_bits::<20>(225);
        self.m_ro_max_flow.next = self.bank.m_ro_data.val().get_bits::<32>(245);
        self.m_ro_last.next = self.bank.m_ro_last.val();
        self.period_index.next = self.frz_period.q.val();
        self.period_packets.next = self.frz_packets.q.val();
        self.period_saturated.next = self.frz_sat.q.val();
        self.live_period.next = self.period.q.val();

        // ---- what happens this cycle (all from registers) ----
        self.boundary.next = self.boundary_x.q.val() ^ self.base.val();
        self.boundary2.next = self.boundary2_x.q.val() ^ self.base2.val();
        self.boundary3.next = self.boundary3_x.q.val() ^ self.base3.val();
        self.ivl.next = self.ivl_x.q.val() ^ self.one21.val();
        self.is_last.next = self.last_x.q.val() ^ self.first_is_last.val();
        self.p_cur.next = self.p_valid.q.val() & self.p_lt1.q.val();
        self.due.next = (self.p_valid.q.val() & !self.p_lt1.q.val()) | (self.n_valid.q.val() & !self.n_lt1.q.val());
        self.flip_busy.next =
            self.eng_last.q.val() | self.e1_flip.q.val() | self.e2_flip.q.val() | self.e3_flip.q.val();
        self.start.next = self.due.val()
            & !self.eng_busy.q.val()
            & self.bank.s_upd_ready.val()
            & (!self.is_last.val() | (self.bank.flip_ready.val() & !self.flip_busy.val()))
            & !self.p_cur.val();
        self.p_new.next = self.start.val() & self.p_valid.q.val() & self.p_lt2.q.val();
        self.apply.next = self.p_cur.val() | self.p_new.val();
        self.s_ready.next = !self.p_valid.q.val() | self.apply.val();

        // ---- the scales that close: j ≤ d = min(trailing zeros of the interval index, m − 1) ----
        self.depth.next = self.top_scale.val();
        for k in 0..DEPTH_BITS {
            if self.has[k + 1].val()
                & self.ivl.val().get_bit(k)
                & ((self.ivl.val() & self.low_mask[k].val()) == self.zero21.val())
            {
                self.depth.next = self.kidx[k].val();
            }
        }

        // ---- per scale: the majority step, one cycle behind the decision (stage `mj_*`) ----
        // The snapshot a close takes is read by the squaring pipeline's second stage, after it is written.
        self.closes[0].next = self.start.val();
        for j in 1..SLOTS {
            self.closes[j].next = self.has[j].val() & self.start.val() & !(self.depth.val() < self.kidx[j].val());
        }
        for j in 0..SLOTS {
            self.mj_close[j].d.next = self.closes[j].val();
        }
        self.mj_apply.d.next = self.apply.val();
        self.mj_new.d.next = self.p_new.val();
        self.mj_len.d.next = self.p_len.q.val();
        self.mj_flow.d.next = self.p_flow.q.val();
        for j in 0..SLOTS {
            // (A wrapped sum is below either operand: the saturation needs no 33rd bit.)
            self.maj_add[j].next = self.maj_cnt[j].q.val() + self.mj_len.q.val();
            self.maj_take[j].next = self.mj_len.q.val() > self.maj_cnt[j].q.val();
            if self.maj_cnt[j].q.val() == self.zero32.val() {
                self.maj_next_cand[j].next = self.mj_flow.q.val();
                self.maj_next_cnt[j].next = self.mj_len.q.val();
            } else if self.mj_flow.q.val() == self.maj_cand[j].q.val() {
                self.maj_next_cand[j].next = self.maj_cand[j].q.val();
                if self.maj_add[j].val() < self.maj_cnt[j].q.val() {
                    self.maj_next_cnt[j].next = self.ones32.val();
                } else {
                    self.maj_next_cnt[j].next = self.maj_add[j].val();
                }
            } else if self.maj_take[j].val() {
                self.maj_next_cand[j].next = self.mj_flow.q.val();
                self.maj_next_cnt[j].next = self.mj_len.q.val() - self.maj_cnt[j].q.val();
            } else {
                self.maj_next_cand[j].next = self.maj_cand[j].q.val();
                self.maj_next_cnt[j].next = self.maj_cnt[j].q.val() - self.mj_len.q.val();
            }
            if self.mj_close[j].q.val() {
                self.snap[j].d.next = self.maj_cand[j].q.val();
                if self.mj_new.q.val() {
                    self.maj_cand[j].d.next = self.mj_flow.q.val();
                    self.maj_cnt[j].d.next = self.mj_len.q.val();
                } else {
                    self.maj_cand[j].d.next = self.zero32.val();
                    self.maj_cnt[j].d.next = self.zero32.val();
                }
            } else if self.has[j].val() & self.mj_apply.q.val() {
                self.maj_cand[j].d.next = self.maj_next_cand[j].val();
                self.maj_cnt[j].d.next = self.maj_next_cnt[j].val();
            }
        }

        // ---- the base interval's sum, packet count and saturation ----
        self.acc_sum.next = bit_cast::<33, 32>(self.acc.q.val()) + bit_cast::<33, 32>(self.p_len.q.val());
        if self.p_cur.val() {
            if self.acc_sum.val().get_bit(32) {
                self.acc.d.next = self.ones32.val();
                self.sat.d.next = true;
            } else {
                self.acc.d.next = self.acc_sum.val().get_bits::<32>(0);
            }
            self.packets.d.next = self.packets.q.val() + self.one64.val();
        }

        // ---- the cascade engine: one scale per cycle ----
        // sums[eng_j] is selected into eng_sum the cycle before (the step writes only sums[eng_j]).
        self.sum_next.next = self.sums[1].q.val();
        for j in 2..SLOTS {
            if self.eng_j.q.val() == self.kidx[j - 1].val() {
                self.sum_next.next = self.sums[j].q.val();
            }
        }
        self.vj.next = self.eng_sum.q.val() + self.eng_v.q.val();
        self.e1_valid.d.next = self.eng_busy.q.val() & !self.eng_add.q.val();
        self.e1_row.d.next = self.eng_j.q.val();
        self.e1_v.d.next = self.vj.val();
        self.e1_flip.d.next = self.eng_busy.q.val()
            & !self.eng_add.q.val()
            & self.eng_last.q.val()
            & (self.eng_j.q.val() == self.top_scale.val());
        if self.eng_busy.q.val() {
            for j in 1..SLOTS {
                if self.has[j].val() & (self.eng_j.q.val() == self.kidx[j].val()) {
                    if self.eng_add.q.val() {
                        self.sums[j].d.next = self.vj.val();
                    } else {
                        self.sums[j].d.next = self.zero48.val();
                    }
                }
            }
            self.eng_v.d.next = self.vj.val();
            self.eng_sum.d.next = self.sum_next.val();
            if self.eng_add.q.val() {
                self.eng_busy.d.next = false;
                self.eng_add.d.next = false;
                self.eng_last.d.next = false;
            } else if self.eng_j.q.val() != self.eng_d.q.val() {
                self.eng_j.d.next = self.eng_j.q.val() + self.one4.val();
            } else if self.eng_j.q.val() != self.top_scale.val() {
                self.eng_add.d.next = true;
                self.eng_j.d.next = self.eng_j.q.val() + self.one4.val();
            } else {
                self.eng_busy.d.next = false;
                self.eng_last.d.next = false;
            }
        }

        // ---- an interval closes ----
        if self.start.val() {
            if self.p_new.val() {
                self.acc.d.next = self.p_len.q.val();
            } else {
                self.acc.d.next = self.zero32.val();
            }
            if self.is_last.val() {
                self.fin_period.d.next = self.period.q.val();
                self.fin_packets.d.next = self.packets.q.val();
                self.fin_sat.d.next = self.sat.q.val();
                self.sat.d.next = false;
                if self.p_new.val() {
                    self.packets.d.next = self.one64.val();
                } else {
                    self.packets.d.next = self.zero64.val();
                }
                self.period.d.next = self.period.q.val() + self.one32.val();
                self.ivl_x.d.next = self.zero21.val();
                self.last_x.d.next = false;
            } else {
                if self.p_new.val() {
                    self.packets.d.next = self.packets.q.val() + self.one64.val();
                }
                self.ivl_x.d.next = (self.ivl.val() + self.one21.val()) ^ self.one21.val();
                self.last_x.d.next = (self.ivl.val() == self.n_last_m1.val()) ^ self.first_is_last.val();
            }
            self.boundary_x.d.next = self.boundary2.val() ^ self.base.val();
            self.boundary2_x.d.next = self.boundary3.val() ^ self.base2.val();
            self.boundary3_x.d.next = (self.boundary3.val() + self.base.val()) ^ self.base3.val();
            self.eng_busy.d.next = true;
            self.eng_add.d.next = false;
            self.eng_last.d.next = self.is_last.val();
            self.eng_j.d.next = self.zero4.val();
            self.eng_d.d.next = self.depth.val();
            self.eng_v.d.next = self.zero48.val();
            self.eng_sum.d.next = bit_cast::<48, 32>(self.acc.q.val());
        }

        // ---- v² in three stages: v = l2·2^32 + l1·2^16 + l0 ----
        self.e2_valid.d.next = self.e1_valid.q.val();
        self.e2_row.d.next = self.e1_row.q.val();
        self.e2_v.d.next = self.e1_v.q.val();
        self.snap_sel.next = self.snap[0].q.val();
        for j in 1..SLOTS {
            if self.e1_row.q.val() == self.kidx[j].val() {
                self.snap_sel.next = self.snap[j].q.val();
            }
        }
        self.e2_flow.d.next = self.snap_sel.val();
        self.e2_flip.d.next = self.e1_flip.q.val();
        self.e2_p00.d.next = self.e1_v.q.val().get_bits::<16>(0) * self.e1_v.q.val().get_bits::<16>(0);
        self.e2_p11.d.next = self.e1_v.q.val().get_bits::<16>(16) * self.e1_v.q.val().get_bits::<16>(16);
        self.e2_p22.d.next = self.e1_v.q.val().get_bits::<16>(32) * self.e1_v.q.val().get_bits::<16>(32);
        self.e2_p01.d.next = self.e1_v.q.val().get_bits::<16>(0) * self.e1_v.q.val().get_bits::<16>(16);
        self.e2_p02.d.next = self.e1_v.q.val().get_bits::<16>(0) * self.e1_v.q.val().get_bits::<16>(32);
        self.e2_p12.d.next = self.e1_v.q.val().get_bits::<16>(16) * self.e1_v.q.val().get_bits::<16>(32);
        self.e3_valid.d.next = self.e2_valid.q.val();
        self.e3_row.d.next = self.e2_row.q.val();
        self.e3_v.d.next = self.e2_v.q.val();
        self.e3_flow.d.next = self.e2_flow.q.val();
        self.e3_flip.d.next = self.e2_flip.q.val();
        // {l2², l1², l0²} and {l1·l2, l0·l1} << 17 are disjoint bit fields: two concatenations, one add.
        self.e3_s.d.next = (bit_cast::<96, 32>(self.e2_p00.q.val())
            | (bit_cast::<96, 32>(self.e2_p11.q.val()) << self.sh32.val())
            | (bit_cast::<96, 32>(self.e2_p22.q.val()) << self.sh64.val()))
            + ((bit_cast::<96, 32>(self.e2_p01.q.val()) << self.sh17.val())
                | (bit_cast::<96, 32>(self.e2_p12.q.val()) << self.sh49.val()));
        self.e3_p02.d.next = self.e2_p02.q.val();
        self.sq.next = self.e3_s.q.val() + (bit_cast::<96, 32>(self.e3_p02.q.val()) << self.sh33.val());

        // ---- the statistics bank: {count 1, Σ v, Σ v², max v, flow} to row j ----
        self.bank.s_upd_valid.next = self.e3_valid.q.val();
        self.bank.s_upd_row.next = self.e3_row.q.val();
        self.bank.s_upd_op.next = self.one_w.val()
            | (bit_cast::<EXPB_W, 48>(self.e3_v.q.val()) << self.sum_lsb.val())
            | (bit_cast::<EXPB_W, 96>(self.sq.val()) << self.sumsq_lsb.val())
            | (bit_cast::<EXPB_W, 48>(self.e3_v.q.val()) << self.max_lsb.val())
            | (bit_cast::<EXPB_W, 32>(self.e3_flow.q.val()) << self.flow_lsb.val());
        self.bank.flip.next = self.e3_valid.q.val() & self.e3_flip.q.val();
        if self.e3_valid.q.val() & self.e3_flip.q.val() & self.bank.flip_ready.val() {
            self.frz_period.d.next = self.fin_period.q.val();
            self.frz_packets.d.next = self.fin_packets.q.val();
            self.frz_sat.d.next = self.fin_sat.q.val();
        }
        // Record arithmetic: the sums add; the maximum, its index and flow are replaced
        // when v exceeds it or the row is empty.
        if self.bank.alu_fwd.val() {
            self.old.next = self.bank.alu_old_fwd.val();
        } else {
            self.old.next = self.bank.alu_old_base.val();
        }
        self.old_count.next = self.old.val().get_bits::<21>(0);
        self.old_max.next = self.old.val().get_bits::<48>(177);
        self.op_max.next = self.bank.alu_op.val().get_bits::<48>(177);
        self.take_max.next = (self.old_max.val() < self.op_max.val()) | (self.old_count.val() == self.zero21.val());
        self.new_count.next = self.old_count.val() + self.bank.alu_op.val().get_bits::<21>(0);
        self.new_sum.next = self.old.val().get_bits::<52>(21) + self.bank.alu_op.val().get_bits::<52>(21);
        self.new_sumsq.next = self.old.val().get_bits::<104>(73) + self.bank.alu_op.val().get_bits::<104>(73);
        if self.take_max.val() {
            self.new_max.next = self.op_max.val();
            self.new_index.next = self.old_count.val().get_bits::<20>(0);
            self.new_flow.next = self.bank.alu_op.val().get_bits::<32>(245);
        } else {
            self.new_max.next = self.old_max.val();
            self.new_index.next = self.old.val().get_bits::<20>(225);
            self.new_flow.next = self.old.val().get_bits::<32>(245);
        }
        self.bank.alu_new.next = bit_cast::<EXPB_W, 21>(self.new_count.val())
            | (bit_cast::<EXPB_W, 52>(self.new_sum.val()) << self.sum_lsb.val())
            | (bit_cast::<EXPB_W, 104>(self.new_sumsq.val()) << self.sumsq_lsb.val())
            | (bit_cast::<EXPB_W, 48>(self.new_max.val()) << self.max_lsb.val())
            | (bit_cast::<EXPB_W, 20>(self.new_index.val()) << self.index_lsb.val())
            | (bit_cast::<EXPB_W, 32>(self.new_flow.val()) << self.flow_lsb.val());

        // ---- input registers, with their compares against the boundaries of the next cycle ----
        if self.apply.val() {
            self.p_valid.d.next = false;
        }
        // A packet held through a close was not before the old end (p_lt1 stays low) nor
        // before the next one (or it would be applied now): only its second flag moves on.
        if self.start.val() {
            self.p_lt2.d.next = bit_cast::<BW, 48>(self.p_ts.q.val()) < self.boundary3.val();
        }
        if self.s_valid.val() & self.s_ready.val() {
            self.p_valid.d.next = true;
            self.p_ts.d.next = self.s_ts.val();
            self.p_len.d.next = self.s_len.val();
            self.p_flow.d.next = self.s_flow.val();
            if self.start.val() {
                self.p_lt1.d.next = bit_cast::<BW, 48>(self.s_ts.val()) < self.boundary2.val();
                self.p_lt2.d.next = bit_cast::<BW, 48>(self.s_ts.val()) < self.boundary3.val();
            } else {
                self.p_lt1.d.next = bit_cast::<BW, 48>(self.s_ts.val()) < self.boundary.val();
                self.p_lt2.d.next = bit_cast::<BW, 48>(self.s_ts.val()) < self.boundary2.val();
            }
        }
        self.n_valid.d.next = self.now_valid.val();
        if self.start.val() {
            self.n_lt1.d.next = bit_cast::<BW, 48>(self.now.val()) < self.boundary2.val();
        } else {
            self.n_lt1.d.next = bit_cast::<BW, 48>(self.now.val()) < self.boundary.val();
        }

        // ---- synchronous reset ----
        if self.reset.val() {
            self.p_valid.d.next = false;
            self.n_valid.d.next = false;
            self.boundary_x.d.next = self.zero_bw.val();
            self.boundary2_x.d.next = self.zero_bw.val();
            self.boundary3_x.d.next = self.zero_bw.val();
            self.ivl_x.d.next = self.zero21.val();
            self.last_x.d.next = false;
            self.period.d.next = self.zero32.val();
            self.acc.d.next = self.zero32.val();
            self.packets.d.next = self.zero64.val();
            self.sat.d.next = false;
            self.fin_period.d.next = self.zero32.val();
            self.fin_packets.d.next = self.zero64.val();
            self.fin_sat.d.next = false;
            self.frz_period.d.next = self.zero32.val();
            self.frz_packets.d.next = self.zero64.val();
            self.frz_sat.d.next = false;
            for j in 0..SLOTS {
                self.maj_cand[j].d.next = self.zero32.val();
                self.maj_cnt[j].d.next = self.zero32.val();
                self.sums[j].d.next = self.zero48.val();
            }
            self.eng_busy.d.next = false;
            self.eng_add.d.next = false;
            self.eng_last.d.next = false;
            self.eng_v.d.next = self.zero48.val();
            self.mj_apply.d.next = false;
            self.mj_new.d.next = false;
            for j in 0..SLOTS {
                self.mj_close[j].d.next = false;
            }
            self.e1_valid.d.next = false;
            self.e1_flip.d.next = false;
            self.e2_valid.d.next = false;
            self.e2_flip.d.next = false;
            self.e3_valid.d.next = false;
            self.e3_flip.d.next = false;
        }
    }
}
