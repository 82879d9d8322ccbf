//! DBM core: per-packet dynamic bucket merge by mass (Uyeda et al. §3.1,
//! Algorithm 1, Lemma 1), culprits (§3.3), and the merge keys of all
//! adjacent pairs in a two-level radix-32 min structure (§5: "a 1000 bucket
//! heap can be maintained in hardware using a 2-level radix-32 heap that uses
//! 32-way comparators"). It equals the per-clock model
//! [`DbmCycle`](netmeas_sim::dbm::DbmCycle) every clock; that model documents
//! the organisation, this file how the clocks of a merge are spent.
//!
//! **State.** m slots hold the buckets as a list in time order: the records
//! (312 bits: first, last, mass, n, max, min, flow, flow count) with the
//! next link (10 bits) in two ping-pong copies of a 1024 × 322 RAM, the
//! previous links in a 1024 × 10 RAM, and the raw merge key of each slot's
//! pair (49 bits: mass_s + mass_next(s), 2^48 meaning "saturated") in 32
//! lane RAMs of 32 rows (slot s is lane s mod 32, row s / 32), so one read
//! of row g gives the 32 keys of group g. Each group's minimum (packed key ·
//! 2^10 + slot, the tie rule) is a register, and so is their minimum
//! `s_min`. The tail and its predecessor (the pred) are registers outside
//! the structure, with the pred's raw key `kp`.
//!
//! **One clock per packet** while the partition fills (the pred enters the
//! structure: its key, record and links are written, its group minimum and
//! `s_min` only decrease) and when the packet joins the tail (K(tail, b) is
//! below the pred's key and `s_min`: only registers change).
//!
//! **A real merge** takes [`DBM_MERGE_CYCLES`] clocks, numbered by `cnt`
//! from the decision (0):
//! - 0: case A (the pred pair is the smallest) or B (the pair of the
//!   structure's minimum w); the record and previous link of w are read.
//! - 1: w's record, its next v and previous u arrive; group rows are read in
//!   1..4 (groups of w, pred, u, v), each through a masked 32-way min tree
//!   (three register stages) that leaves out every lane whose key changes or
//!   becomes masked (u, w, pred, v, tail): the *partial* minima, registered
//!   in 4..7.
//! - 2–3: v's record arrives (the pred's registers if v is the pred), the
//!   merge operands are set (A: pred and tail; B: w and v).
//! - 4–7: the merge in four stages: sums and the PRNG step; the four 16 × 16
//!   products of the draw; their partial sums; the draw's compare and the
//!   merged record. The new keys: K'(u) = raw(u) + mass_v (5), K'(w) =
//!   mass_w + raw(v) (6), written to their lanes in 6 and 7.
//! - 7–10: the groups of w, the pred, u and v in turn: the minimum of the
//!   group's partial and the new keys that fall in it (u, w, and the pred
//!   entering in case B), written to the group minimum one clock later
//!   (8–11) through the minima's single write port.
//! - 8: the merged record and the links around it are written; 9: the pred
//!   enters the structure; 10: the tail and pred registers move (B: the tail
//!   becomes the pred, b the tail in the freed slot v; A: the merged pair is
//!   the pred).
//! - 12–14: `s_min` from the 32 group minima (three stages).
//! - 17: the packet is consumed.
//!
//! **Close and read-out** as in the model: 3 clocks (the pred's and tail's
//! records are written, the copies flip), then the frozen partition streams
//! out oldest first, two clocks per bucket (the next link of the word read
//! addresses the next one), then an end beat with the period's counts.
//!
//! Registers whose reset value is not zero (the period end, the PRNG, the
//! minima) are held as XOR with it, so power-up equals reset.

use crate::common::sync_ram::SyncRam;
use crate::common::unused::Unused;
use netmeas_sim::dbm::DbmConfig;
use netmeas_sim::dbm::dbm_cycle::DBM_MERGE_CYCLES;
use rust_hdl::prelude::*;

/// Bits of a bucket record without its link.
const BKT: usize = 312;
/// Bits of a record word: the bucket and its next link.
const REC: usize = 322;
/// Bits of a packed (key, slot) word: 48-bit key, 10-bit slot, and the "none" bit.
const PK: usize = 59;
/// Bits of a raw key (2^48 means saturated).
const RAW: usize = 49;
/// Lanes of a group, groups of the structure.
const LANES: usize = 32;
/// Width of a period-end time: a 48-bit timestamp plus one period.
const TW: usize = 50;
/// The merge clock that sets `s_min` (the last of its three tree stages).
const C_SMIN: u64 = 14;
// The record layout the `get_bits` offsets below spell out, and the merge's
// work ending before its packet is consumed.
const _: () =
    assert!(BKT == 48 + 48 + 56 + 32 * 5 && REC == BKT + 10 && DBM_MERGE_CYCLES == 18 && C_SMIN < DBM_MERGE_CYCLES - 1);

/// The per-packet DBM-mm core for one [`DbmConfig`] (`base_ticks` = 0).
#[derive(LogicBlock)]
pub struct DbmCore {
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
    // --- read-out of the frozen partition, oldest bucket first ---
    /// A beat is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// The beat is the period's end (no bucket).
    pub m_ro_end: Signal<Out, Bit>,
    /// The bucket's first tick.
    pub m_ro_first: Signal<Out, Bits<48>>,
    /// Its last tick.
    pub m_ro_last_ts: Signal<Out, Bits<48>>,
    /// Its bytes.
    pub m_ro_mass: Signal<Out, Bits<56>>,
    /// Its packets.
    pub m_ro_n: Signal<Out, Bits<32>>,
    /// Σ s_i² of its interval sums: 0 per packet (the base-interval core's port).
    pub m_ro_sumsq: Signal<Out, Bits<84>>,
    /// Its largest packet.
    pub m_ro_max: Signal<Out, Bits<32>>,
    /// Its smallest packet.
    pub m_ro_min: Signal<Out, Bits<32>>,
    /// Its culprit flow (§3.3).
    pub m_ro_flow: Signal<Out, Bits<32>>,
    /// The bytes counted for the culprit.
    pub m_ro_flow_count: Signal<Out, Bits<32>>,
    // --- frozen period status ---
    /// Index of the frozen period (counted from reset).
    pub period_index: Signal<Out, Bits<32>>,
    /// Packets of the frozen period.
    pub period_packets: Signal<Out, Bits<64>>,
    /// Merges of the frozen period.
    pub period_merges: Signal<Out, Bits<64>>,
    /// Of them, joins of the tail.
    pub period_tail_joins: Signal<Out, Bits<64>>,
    /// A merge key of the frozen period saturated.
    pub period_key_saturated: Signal<Out, Bit>,
    /// A bucket mass of the frozen period saturated.
    pub period_mass_saturated: Signal<Out, Bit>,
    /// An interval sum saturated: never per packet (the base-interval core's port).
    pub period_interval_saturated: Signal<Out, Bit>,
    /// Zero Σs² (every per-packet bucket's).
    zero84: Constant<Bits<84>>,
    // --- memories ---
    rec0: SyncRam<REC, 10>,
    rec1: SyncRam<REC, 10>,
    prv: SyncRam<10, 10>,
    /// Raw keys shifted to the key field of a packed word (raw · 2^10); lane j
    /// holds slots j, j + 32, …
    lanes: [SyncRam<PK, 5>; LANES],
    /// The slot field of a lane word is always zero.
    unused_pick_slot: Unused<Bits<10>>,
    // --- constants ---
    buckets: Constant<Bits<11>>,
    period: Constant<Bits<TW>>,
    seed: Constant<Bits<32>>,
    none: Constant<Bits<PK>>,
    key_max: Constant<Bits<48>>,
    raw_sat: Constant<Bits<RAW>>,
    mass_max: Constant<Bits<56>>,
    ones32: Constant<Bits<32>>,
    /// Clock numbers 0..=10 of a merge, the clock that sets `s_min`, and the last clock.
    kc: [Constant<Bits<5>>; 11],
    c_smin: Constant<Bits<5>>,
    c_last: Constant<Bits<5>>,
    kg: [Constant<Bits<5>>; LANES],
    kslot: [Constant<Bits<PK>>; LANES],
    key_max_pk: Constant<Bits<PK>>,
    /// Bit r of lane j's mask: row r of lane j is a slot (below `buckets`).
    lane_rows: [Constant<Bits<32>>; LANES],
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    three2: Constant<Bits<2>>,
    zero2: Constant<Bits<2>>,
    zero10: Constant<Bits<10>>,
    one11: Constant<Bits<11>>,
    two11: Constant<Bits<11>>,
    zero11: Constant<Bits<11>>,
    one32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    one33: Constant<Bits<33>>,
    one64: Constant<Bits<64>>,
    zero64: Constant<Bits<64>>,
    zero9: Constant<Bits<9>>,
    zero_tw: Constant<Bits<TW>>,
    zero_pk: Constant<Bits<PK>>,
    sh5: Constant<Bits<9>>,
    sh10: Constant<Bits<9>>,
    sh13: Constant<Bits<9>>,
    sh16: Constant<Bits<9>>,
    sh17: Constant<Bits<9>>,
    sh32: Constant<Bits<9>>,
    sh48: Constant<Bits<9>>,
    sh96: Constant<Bits<9>>,
    sh152: Constant<Bits<9>>,
    sh184: Constant<Bits<9>>,
    sh216: Constant<Bits<9>>,
    sh248: Constant<Bits<9>>,
    sh280: Constant<Bits<9>>,
    sh312: Constant<Bits<9>>,
    // --- input register and skid, time ---
    q_v: DFF<Bit>,
    q_ts: DFF<Bits<48>>,
    q_len: DFF<Bits<32>>,
    q_flow: DFF<Bits<32>>,
    k_v: DFF<Bit>,
    k_ts: DFF<Bits<48>>,
    k_len: DFF<Bits<32>>,
    k_flow: DFF<Bits<32>>,
    nw_v: DFF<Bit>,
    nw: DFF<Bits<48>>,
    // --- the live period ---
    /// Period end xor `period`.
    pe_x: DFF<Bits<TW>>,
    /// PRNG xor `seed`.
    prng_x: DFF<Bits<32>>,
    live: DFF<Bits<11>>,
    epoch: DFF<Bit>,
    tail: DFF<Bits<BKT>>,
    t: DFF<Bits<10>>,
    pred: DFF<Bits<BKT>>,
    p: DFF<Bits<10>>,
    pp: DFF<Bits<10>>,
    /// Raw key of (pred, tail).
    kp: DFF<Bits<RAW>>,
    /// Group minima xor `none`.
    gm_x: [DFF<Bits<PK>>; LANES],
    /// Their minimum xor `none`.
    sm_x: DFF<Bits<PK>>,
    st_index: DFF<Bits<32>>,
    st_packets: DFF<Bits<64>>,
    st_merges: DFF<Bits<64>>,
    st_joins: DFF<Bits<64>>,
    st_ksat: DFF<Bit>,
    st_msat: DFF<Bit>,
    // --- the frozen period and its read-out (0 idle, 1 fetch, 2 show, 3 end) ---
    fz_index: DFF<Bits<32>>,
    fz_packets: DFF<Bits<64>>,
    fz_merges: DFF<Bits<64>>,
    fz_joins: DFF<Bits<64>>,
    fz_ksat: DFF<Bit>,
    fz_msat: DFF<Bit>,
    ro_state: DFF<Bits<2>>,
    ro_slot: DFF<Bits<10>>,
    ro_left: DFF<Bits<11>>,
    // --- close and merge sequencing ---
    closing: DFF<Bit>,
    ccnt: DFF<Bits<2>>,
    busy: DFF<Bit>,
    cnt: DFF<Bits<5>>,
    case_a: DFF<Bit>,
    en_u: DFF<Bit>,
    vpk: DFF<Bit>,
    w_r: DFF<Bits<10>>,
    u_r: DFF<Bits<10>>,
    v_r: DFF<Bits<10>>,
    x_r: DFF<Bits<10>>,
    kt_r: DFF<Bits<RAW>>,
    wb: DFF<Bits<REC>>,
    ma: DFF<Bits<BKT>>,
    mb: DFF<Bits<BKT>>,
    // --- group-row min tree ---
    row_d: DFF<Bits<5>>,
    st1: [DFF<Bits<PK>>; 16],
    st2: [DFF<Bits<PK>>; 4],
    part_w: DFF<Bits<PK>>,
    part_p: DFF<Bits<PK>>,
    part_u: DFF<Bits<PK>>,
    part_v: DFF<Bits<PK>>,
    lane_u: DFF<Bits<RAW>>,
    lane_v: DFF<Bits<RAW>>,
    new_u: DFF<Bits<RAW>>,
    new_w: DFF<Bits<RAW>>,
    // --- group minima: the write port and the s_min tree ---
    /// The group minimum computed for the write of the next clock.
    cb_r: DFF<Bits<PK>>,
    /// Its group.
    cb_gr: DFF<Bits<5>>,
    /// It is written next clock.
    cb_we: DFF<Bit>,
    /// The group, its partial minimum and which new keys fall in it, for the next clock's minimum.
    cb_sel_part: DFF<Bits<PK>>,
    cb_sel_g: DFF<Bits<5>>,
    cb_mu: DFF<Bit>,
    cb_mw: DFF<Bit>,
    cb_mp: DFF<Bit>,
    sa: [DFF<Bits<PK>>; 16],
    sb: [DFF<Bits<PK>>; 4],
    // --- merge arithmetic ---
    m1_mass: DFF<Bits<56>>,
    m1_n: DFF<Bits<32>>,
    m1_max: DFF<Bits<32>>,
    m1_min: DFF<Bits<32>>,
    m1_first: DFF<Bits<48>>,
    m1_last: DFF<Bits<48>>,
    m1_fa: DFF<Bits<32>>,
    m1_ca: DFF<Bits<32>>,
    m1_fb: DFF<Bits<32>>,
    m1_cb: DFF<Bits<32>>,
    m1_same: DFF<Bit>,
    m1_tot: DFF<Bits<33>>,
    m1_r: DFF<Bits<32>>,
    m2_p00: DFF<Bits<32>>,
    m2_p01: DFF<Bits<32>>,
    m2_p10: DFF<Bits<32>>,
    m2_p11: DFF<Bits<32>>,
    m3_a: DFF<Bits<66>>,
    m3_b: DFF<Bits<66>>,
    m_rec: DFF<Bits<BKT>>,
    // --- combinational ---
    idle: Signal<Local, Bit>,
    pe: Signal<Local, Bits<TW>>,
    prng: Signal<Local, Bits<32>>,
    s_min: Signal<Local, Bits<PK>>,
    gm: [Signal<Local, Bits<PK>>; LANES],
    close_now: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    decide: Signal<Local, Bit>,
    consume: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    tl_mass: Signal<Local, Bits<56>>,
    kt_sum: Signal<Local, Bits<57>>,
    kt_raw: Signal<Local, Bits<RAW>>,
    kp_key: Signal<Local, Bits<48>>,
    ppk: Signal<Local, Bits<PK>>,
    kt_ext: Signal<Local, Bits<67>>,
    jn_lt_p: Signal<Local, Bit>,
    jn_lt_s: Signal<Local, Bit>,
    sat_lt_p: Signal<Local, Bit>,
    sat_lt_s: Signal<Local, Bit>,
    tail_join: Signal<Local, Bit>,
    kpj_sum: Signal<Local, Bits<57>>,
    pkt_word: Signal<Local, Bits<BKT>>,
    jn_n: Signal<Local, Bits<33>>,
    jn_n32: Signal<Local, Bits<32>>,
    jn_max: Signal<Local, Bits<32>>,
    jn_min: Signal<Local, Bits<32>>,
    jn_add: Signal<Local, Bits<33>>,
    jn_flow: Signal<Local, Bits<32>>,
    jn_cnt: Signal<Local, Bits<32>>,
    jn_mass: Signal<Local, Bits<56>>,
    jn_word: Signal<Local, Bits<BKT>>,
    gs1: [Signal<Local, Bits<PK>>; 16],
    gs2: [Signal<Local, Bits<PK>>; 8],
    gs3: [Signal<Local, Bits<PK>>; 4],
    gs4: [Signal<Local, Bits<PK>>; 2],
    gsel_p: Signal<Local, Bits<PK>>,
    gw_we: Signal<Local, Bit>,
    gw_all: Signal<Local, Bit>,
    gw_g: Signal<Local, Bits<5>>,
    gw_d: Signal<Local, Bits<PK>>,
    gw_x: Signal<Local, Bits<PK>>,
    pred_rec: Signal<Local, Bits<REC>>,
    rdl: Signal<Local, Bits<REC>>,
    rdf: Signal<Local, Bits<REC>>,
    eng_ra: Signal<Local, Bits<10>>,
    rec_we: Signal<Local, Bit>,
    rec_wa: Signal<Local, Bits<10>>,
    rec_wd: Signal<Local, Bits<REC>>,
    prv_we: Signal<Local, Bit>,
    prv_wa: Signal<Local, Bits<10>>,
    prv_wd: Signal<Local, Bits<10>>,
    lane_we: Signal<Local, Bit>,
    lane_ws: Signal<Local, Bits<10>>,
    lane_wd: Signal<Local, Bits<RAW>>,
    row_ra: Signal<Local, Bits<5>>,
    row_base: Signal<Local, Bits<PK>>,
    u_pk: Signal<Local, Bits<PK>>,
    w_pk: Signal<Local, Bits<PK>>,
    p_pk: Signal<Local, Bits<PK>>,
    v_pk: Signal<Local, Bits<PK>>,
    t_pk: Signal<Local, Bits<PK>>,
    lane_wa: Signal<Local, Bits<5>>,
    lane_wl: Signal<Local, Bits<5>>,
    slot_j: [Signal<Local, Bits<PK>>; LANES],
    pk_j: [Signal<Local, Bits<PK>>; LANES],
    lv1: [Signal<Local, Bits<PK>>; 16],
    lv2: [Signal<Local, Bits<PK>>; 8],
    lw1: [Signal<Local, Bits<PK>>; 4],
    lw2: [Signal<Local, Bits<PK>>; 2],
    tree_out: Signal<Local, Bits<PK>>,
    lane_sel: Signal<Local, Bits<5>>,
    lp1: [Signal<Local, Bits<PK>>; 16],
    lp2: [Signal<Local, Bits<PK>>; 8],
    lp3: [Signal<Local, Bits<PK>>; 4],
    lp4: [Signal<Local, Bits<PK>>; 2],
    lane_pick: Signal<Local, Bits<PK>>,
    lane_wd_pk: Signal<Local, Bits<PK>>,
    nu_sum: Signal<Local, Bits<57>>,
    nw_sum: Signal<Local, Bits<57>>,
    raw_v: Signal<Local, Bits<RAW>>,
    xs1: Signal<Local, Bits<32>>,
    xs2: Signal<Local, Bits<32>>,
    xs3: Signal<Local, Bits<32>>,
    ma_mass_sum: Signal<Local, Bits<57>>,
    ma_n_sum: Signal<Local, Bits<33>>,
    m4_sum: Signal<Local, Bits<66>>,
    keep_a: Signal<Local, Bit>,
    m4_flow: Signal<Local, Bits<32>>,
    m4_cnt: Signal<Local, Bits<32>>,
    cand_u: Signal<Local, Bits<PK>>,
    cand_w: Signal<Local, Bits<PK>>,
    nu_key: Signal<Local, Bits<48>>,
    nw_key: Signal<Local, Bits<48>>,
    cb_part: Signal<Local, Bits<PK>>,
    cb_g: Signal<Local, Bits<5>>,
    cb_u: Signal<Local, Bits<PK>>,
    cb_w: Signal<Local, Bits<PK>>,
    cb_p: Signal<Local, Bits<PK>>,
    cb_m1: Signal<Local, Bits<PK>>,
    cb_m2: Signal<Local, Bits<PK>>,
    cb_min: Signal<Local, Bits<PK>>,
    sv1: [Signal<Local, Bits<PK>>; 16],
    sv2: [Signal<Local, Bits<PK>>; 8],
    sv3: [Signal<Local, Bits<PK>>; 4],
    sw1: [Signal<Local, Bits<PK>>; 2],
    sw2: Signal<Local, Bits<PK>>,
    ka_sum: Signal<Local, Bits<57>>,
}

/// Rows of lane `j` (slots j, j + 32, … below `buckets`).
fn lane_rows(buckets: usize, j: usize) -> usize {
    if j < buckets { (buckets - j).div_ceil(LANES) } else { 0 }
}

impl DbmCore {
    /// The core for `cfg` (validated by the caller; per-packet mode).
    pub fn new(cfg: &DbmConfig) -> Self {
        let m = cfg.buckets;
        assert!((2..=1024).contains(&m) && cfg.base_ticks == 0, "per-packet DBM with 2..=1024 buckets");
        let none: u64 = (1 << 58) | 1023;
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
            m_ro_end: Default::default(),
            m_ro_first: Default::default(),
            m_ro_last_ts: Default::default(),
            m_ro_mass: Default::default(),
            m_ro_n: Default::default(),
            m_ro_sumsq: Default::default(),
            m_ro_max: Default::default(),
            m_ro_min: Default::default(),
            m_ro_flow: Default::default(),
            m_ro_flow_count: Default::default(),
            period_index: Default::default(),
            period_packets: Default::default(),
            period_merges: Default::default(),
            period_tail_joins: Default::default(),
            period_key_saturated: Default::default(),
            period_mass_saturated: Default::default(),
            period_interval_saturated: Default::default(),
            zero84: Constant::new(0u64.into()),
            rec0: SyncRam::with_depth(m),
            rec1: SyncRam::with_depth(m),
            prv: SyncRam::with_depth(m),
            lanes: std::array::from_fn(|j| SyncRam::with_depth(lane_rows(m, j).max(1))),
            unused_pick_slot: Default::default(),
            buckets: Constant::new((m as u64).into()),
            period: Constant::new(cfg.period_ticks.into()),
            seed: Constant::new((cfg.seed as u64).into()),
            none: Constant::new(none.into()),
            key_max: Constant::new(((1u64 << 48) - 1).into()),
            raw_sat: Constant::new((1u64 << 48).into()),
            mass_max: Constant::new(((1u64 << 56) - 1).into()),
            ones32: Constant::new(0xFFFF_FFFFu64.into()),
            kc: std::array::from_fn(|c| Constant::new((c as u64).into())),
            c_smin: Constant::new(C_SMIN.into()),
            c_last: Constant::new((DBM_MERGE_CYCLES - 1).into()),
            kg: std::array::from_fn(|g| Constant::new((g as u64).into())),
            kslot: std::array::from_fn(|j| Constant::new((j as u64).into())),
            key_max_pk: Constant::new((((1u64 << 48) - 1) << 10).into()),
            lane_rows: std::array::from_fn(|j| Constant::new(((1u64 << lane_rows(m, j)) - 1).into())),
            one2: Constant::new(1u64.into()),
            two2: Constant::new(2u64.into()),
            three2: Constant::new(3u64.into()),
            zero2: Constant::new(0u64.into()),
            zero10: Constant::new(0u64.into()),
            one11: Constant::new(1u64.into()),
            two11: Constant::new(2u64.into()),
            zero11: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            one33: Constant::new(1u64.into()),
            one64: Constant::new(1u64.into()),
            zero64: Constant::new(0u64.into()),
            zero9: Constant::new(0u64.into()),
            zero_tw: Constant::new(0u64.into()),
            zero_pk: Constant::new(0u64.into()),
            sh5: Constant::new(5u64.into()),
            sh10: Constant::new(10u64.into()),
            sh13: Constant::new(13u64.into()),
            sh16: Constant::new(16u64.into()),
            sh17: Constant::new(17u64.into()),
            sh32: Constant::new(32u64.into()),
            sh48: Constant::new(48u64.into()),
            sh96: Constant::new(96u64.into()),
            sh152: Constant::new(152u64.into()),
            sh184: Constant::new(184u64.into()),
            sh216: Constant::new(216u64.into()),
            sh248: Constant::new(248u64.into()),
            sh280: Constant::new(280u64.into()),
            sh312: Constant::new(312u64.into()),
            q_v: Default::default(),
            q_ts: Default::default(),
            q_len: Default::default(),
            q_flow: Default::default(),
            k_v: Default::default(),
            k_ts: Default::default(),
            k_len: Default::default(),
            k_flow: Default::default(),
            nw_v: Default::default(),
            nw: Default::default(),
            pe_x: Default::default(),
            prng_x: Default::default(),
            live: Default::default(),
            epoch: Default::default(),
            tail: Default::default(),
            t: Default::default(),
            pred: Default::default(),
            p: Default::default(),
            pp: Default::default(),
            kp: Default::default(),
            gm_x: Default::default(),
            sm_x: Default::default(),
            st_index: Default::default(),
            st_packets: Default::default(),
            st_merges: Default::default(),
            st_joins: Default::default(),
            st_ksat: Default::default(),
            st_msat: Default::default(),
            fz_index: Default::default(),
            fz_packets: Default::default(),
            fz_merges: Default::default(),
            fz_joins: Default::default(),
            fz_ksat: Default::default(),
            fz_msat: Default::default(),
            ro_state: Default::default(),
            ro_slot: Default::default(),
            ro_left: Default::default(),
            closing: Default::default(),
            ccnt: Default::default(),
            busy: Default::default(),
            cnt: Default::default(),
            case_a: Default::default(),
            en_u: Default::default(),
            vpk: Default::default(),
            w_r: Default::default(),
            u_r: Default::default(),
            v_r: Default::default(),
            x_r: Default::default(),
            kt_r: Default::default(),
            wb: Default::default(),
            ma: Default::default(),
            mb: Default::default(),
            row_d: Default::default(),
            st1: Default::default(),
            st2: Default::default(),
            part_w: Default::default(),
            part_p: Default::default(),
            part_u: Default::default(),
            part_v: Default::default(),
            lane_u: Default::default(),
            lane_v: Default::default(),
            new_u: Default::default(),
            new_w: Default::default(),
            cb_r: Default::default(),
            cb_gr: Default::default(),
            cb_we: Default::default(),
            cb_sel_part: Default::default(),
            cb_sel_g: Default::default(),
            cb_mu: Default::default(),
            cb_mw: Default::default(),
            cb_mp: Default::default(),
            sa: Default::default(),
            sb: Default::default(),
            m1_mass: Default::default(),
            m1_n: Default::default(),
            m1_max: Default::default(),
            m1_min: Default::default(),
            m1_first: Default::default(),
            m1_last: Default::default(),
            m1_fa: Default::default(),
            m1_ca: Default::default(),
            m1_fb: Default::default(),
            m1_cb: Default::default(),
            m1_same: Default::default(),
            m1_tot: Default::default(),
            m1_r: Default::default(),
            m2_p00: Default::default(),
            m2_p01: Default::default(),
            m2_p10: Default::default(),
            m2_p11: Default::default(),
            m3_a: Default::default(),
            m3_b: Default::default(),
            m_rec: Default::default(),
            idle: Default::default(),
            pe: Default::default(),
            prng: Default::default(),
            s_min: Default::default(),
            gm: Default::default(),
            close_now: Default::default(),
            full: Default::default(),
            decide: Default::default(),
            consume: Default::default(),
            take: Default::default(),
            tl_mass: Default::default(),
            kt_sum: Default::default(),
            kt_raw: Default::default(),
            kp_key: Default::default(),
            ppk: Default::default(),
            kt_ext: Default::default(),
            jn_lt_p: Default::default(),
            jn_lt_s: Default::default(),
            sat_lt_p: Default::default(),
            sat_lt_s: Default::default(),
            tail_join: Default::default(),
            kpj_sum: Default::default(),
            pkt_word: Default::default(),
            jn_n: Default::default(),
            jn_n32: Default::default(),
            jn_max: Default::default(),
            jn_min: Default::default(),
            jn_add: Default::default(),
            jn_flow: Default::default(),
            jn_cnt: Default::default(),
            jn_mass: Default::default(),
            jn_word: Default::default(),
            gs1: Default::default(),
            gs2: Default::default(),
            gs3: Default::default(),
            gs4: Default::default(),
            gsel_p: Default::default(),
            gw_we: Default::default(),
            gw_all: Default::default(),
            gw_g: Default::default(),
            gw_d: Default::default(),
            gw_x: Default::default(),
            pred_rec: Default::default(),
            rdl: Default::default(),
            rdf: Default::default(),
            eng_ra: Default::default(),
            rec_we: Default::default(),
            rec_wa: Default::default(),
            rec_wd: Default::default(),
            prv_we: Default::default(),
            prv_wa: Default::default(),
            prv_wd: Default::default(),
            lane_we: Default::default(),
            lane_ws: Default::default(),
            lane_wd: Default::default(),
            row_ra: Default::default(),
            row_base: Default::default(),
            u_pk: Default::default(),
            w_pk: Default::default(),
            p_pk: Default::default(),
            v_pk: Default::default(),
            t_pk: Default::default(),
            lane_wa: Default::default(),
            lane_wl: Default::default(),
            slot_j: Default::default(),
            pk_j: Default::default(),
            lv1: Default::default(),
            lv2: Default::default(),
            lw1: Default::default(),
            lw2: Default::default(),
            tree_out: Default::default(),
            lane_sel: Default::default(),
            lp1: Default::default(),
            lp2: Default::default(),
            lp3: Default::default(),
            lp4: Default::default(),
            lane_pick: Default::default(),
            lane_wd_pk: Default::default(),
            nu_sum: Default::default(),
            nw_sum: Default::default(),
            raw_v: Default::default(),
            xs1: Default::default(),
            xs2: Default::default(),
            xs3: Default::default(),
            ma_mass_sum: Default::default(),
            ma_n_sum: Default::default(),
            m4_sum: Default::default(),
            keep_a: Default::default(),
            m4_flow: Default::default(),
            m4_cnt: Default::default(),
            cand_u: Default::default(),
            cand_w: Default::default(),
            nu_key: Default::default(),
            nw_key: Default::default(),
            cb_part: Default::default(),
            cb_g: Default::default(),
            cb_u: Default::default(),
            cb_w: Default::default(),
            cb_p: Default::default(),
            cb_m1: Default::default(),
            cb_m2: Default::default(),
            cb_min: Default::default(),
            sv1: Default::default(),
            sv2: Default::default(),
            sv3: Default::default(),
            sw1: Default::default(),
            sw2: Default::default(),
            ka_sum: Default::default(),
        }
    }
}

impl Logic for DbmCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            q_v,
            q_ts,
            q_len,
            q_flow,
            k_v,
            k_ts,
            k_len,
            k_flow,
            nw_v,
            nw,
            pe_x,
            prng_x,
            live,
            epoch,
            tail,
            t,
            pred,
            p,
            pp,
            kp,
            sm_x,
            st_index,
            st_packets,
            st_merges,
            st_joins,
            st_ksat,
            st_msat,
            fz_index,
            fz_packets,
            fz_merges,
            fz_joins,
            fz_ksat,
            fz_msat,
            ro_state,
            ro_slot,
            ro_left,
            closing,
            ccnt,
            busy,
            cnt,
            case_a,
            en_u,
            vpk,
            w_r,
            u_r,
            v_r,
            x_r,
            kt_r,
            wb,
            ma,
            mb,
            row_d,
            part_w,
            part_p,
            part_u,
            part_v,
            lane_u,
            lane_v,
            new_u,
            new_w,
            m1_mass,
            m1_n,
            m1_max,
            m1_min,
            m1_first,
            m1_last,
            m1_fa,
            m1_ca,
            m1_fb,
            m1_cb,
            m1_same,
            m1_tot,
            m1_r,
            m2_p00,
            m2_p01,
            m2_p10,
            m2_p11,
            m3_a,
            m3_b,
            m_rec,
            cb_r,
            cb_gr,
            cb_we,
            cb_sel_part,
            cb_sel_g,
            cb_mu,
            cb_mw,
            cb_mp
        );
        for g in 0..LANES {
            self.gm_x[g].clock.next = self.clock.val();
            self.gm_x[g].d.next = self.gm_x[g].q.val();
            self.gm[g].next = self.gm_x[g].q.val() ^ self.none.val();
        }
        for j in 0..16 {
            self.st1[j].clock.next = self.clock.val();
            self.st1[j].d.next = self.st1[j].q.val();
        }
        for j in 0..4 {
            self.st2[j].clock.next = self.clock.val();
            self.st2[j].d.next = self.st2[j].q.val();
            self.sb[j].clock.next = self.clock.val();
            self.sb[j].d.next = self.sb[j].q.val();
        }
        for j in 0..16 {
            self.sa[j].clock.next = self.clock.val();
            self.sa[j].d.next = self.sa[j].q.val();
        }
        self.rec0.clock.next = self.clock.val();
        self.rec1.clock.next = self.clock.val();
        self.prv.clock.next = self.clock.val();
        for j in 0..LANES {
            self.lanes[j].clock.next = self.clock.val();
        }

        // ---- decoded registers ----
        self.pe.next = self.pe_x.q.val() ^ self.period.val();
        self.prng.next = self.prng_x.q.val() ^ self.seed.val();
        self.s_min.next = self.sm_x.q.val() ^ self.none.val();
        self.idle.next = !self.busy.q.val() & !self.closing.q.val();
        self.full.next = self.live.q.val() == self.buckets.val();
        if self.epoch.q.val() {
            self.rdl.next = self.rec1.read_data.val();
            self.rdf.next = self.rec0.read_data.val();
        } else {
            self.rdl.next = self.rec0.read_data.val();
            self.rdf.next = self.rec1.read_data.val();
        }

        // ---- outputs ----
        self.s_ready.next = !self.k_v.q.val();
        self.m_ro_valid.next = self.ro_state.q.val().get_bit(1);
        self.m_ro_end.next = self.ro_state.q.val() == self.three2.val();
        self.m_ro_first.next = self.rdf.val().get_bits::<48>(0);
        self.m_ro_last_ts.next = self.rdf.val().get_bits::<48>(48);
        self.m_ro_mass.next = self.rdf.val().get_bits::<56>(96);
        self.m_ro_n.next = self.rdf.val().get_bits::<32>(152);
        self.m_ro_max.next = self.rdf.val().get_bits::<32>(184);
        self.m_ro_min.next = self.rdf.val().get_bits::<32>(216);
        self.m_ro_flow.next = self.rdf.val().get_bits::<32>(248);
        self.m_ro_flow_count.next = self.rdf.val().get_bits::<32>(280);
        self.period_index.next = self.fz_index.q.val();
        self.period_packets.next = self.fz_packets.q.val();
        self.period_merges.next = self.fz_merges.q.val();
        self.period_tail_joins.next = self.fz_joins.q.val();
        self.period_key_saturated.next = self.fz_ksat.q.val();
        self.period_mass_saturated.next = self.fz_msat.q.val();
        self.m_ro_sumsq.next = self.zero84.val();
        self.period_interval_saturated.next = false;

        // ---- the tail's pair with the packet: K(tail, b), packed with the tail's slot ----
        self.tl_mass.next = self.tail.q.val().get_bits::<56>(96);
        self.kt_sum.next = bit_cast::<57, 56>(self.tl_mass.val()) + bit_cast::<57, 32>(self.q_len.q.val());
        if self.kt_sum.val().get_bits::<9>(48) == self.zero9.val() {
            self.kt_raw.next = self.kt_sum.val().get_bits::<RAW>(0);
        } else {
            self.kt_raw.next = self.raw_sat.val();
        }
        if self.kp.q.val().get_bit(48) {
            self.kp_key.next = self.key_max.val();
        } else {
            self.kp_key.next = self.kp.q.val().get_bits::<48>(0);
        }
        self.ppk.next = (bit_cast::<PK, 48>(self.kp_key.val()) << self.sh10.val()) | bit_cast::<PK, 10>(self.p.q.val());
        // Join iff pt < ppk and pt < s_min, pt = min(K(tail, b), 2^48 − 1) · 2^10 + t.
        // The compares take the unsaturated sum (kt_sum · 2^10 + t equals pt
        // below 2^48); a saturated pt, (2^48 − 1, t),
        // is below ppk iff the pred's key is saturated too and t < p, and below
        // s_min iff s_min is none or has that key and a slot above t. Both
        // come from registers, beside the add.
        self.kt_ext.next =
            (bit_cast::<67, 57>(self.kt_sum.val()) << self.sh10.val()) | bit_cast::<67, 10>(self.t.q.val());
        self.jn_lt_p.next = self.kt_ext.val() < bit_cast::<67, PK>(self.ppk.val());
        self.jn_lt_s.next = self.kt_ext.val() < bit_cast::<67, PK>(self.s_min.val());
        self.sat_lt_p.next = (self.kp_key.val() == self.key_max.val()) & (self.t.q.val() < self.p.q.val());
        self.sat_lt_s.next = self.s_min.val().get_bit(58)
            | ((self.s_min.val().get_bits::<48>(10) == self.key_max.val())
                & (self.t.q.val() < self.s_min.val().get_bits::<10>(0)));
        if self.kt_sum.val().get_bits::<9>(48) == self.zero9.val() {
            self.tail_join.next = self.jn_lt_p.val() & self.jn_lt_s.val();
        } else {
            self.tail_join.next = self.sat_lt_p.val() & self.sat_lt_s.val();
        }
        self.kpj_sum.next = bit_cast::<57, RAW>(self.kp.q.val()) + bit_cast::<57, 32>(self.q_len.q.val());

        // ---- the packet as a bucket, and the tail joined by it ----
        self.pkt_word.next = bit_cast::<BKT, 48>(self.q_ts.q.val())
            | (bit_cast::<BKT, 48>(self.q_ts.q.val()) << self.sh48.val())
            | (bit_cast::<BKT, 32>(self.q_len.q.val()) << self.sh96.val())
            | (bit_cast::<BKT, 32>(self.one32.val()) << self.sh152.val())
            | (bit_cast::<BKT, 32>(self.q_len.q.val()) << self.sh184.val())
            | (bit_cast::<BKT, 32>(self.q_len.q.val()) << self.sh216.val())
            | (bit_cast::<BKT, 32>(self.q_flow.q.val()) << self.sh248.val())
            | (bit_cast::<BKT, 32>(self.q_len.q.val()) << self.sh280.val());
        if self.kt_sum.val().get_bit(56) {
            self.jn_mass.next = self.mass_max.val();
        } else {
            self.jn_mass.next = self.kt_sum.val().get_bits::<56>(0);
        }
        self.jn_n.next = bit_cast::<33, 32>(self.tail.q.val().get_bits::<32>(152)) + self.one33.val();
        self.jn_n32.next = self.ones32.val();
        if !self.jn_n.val().get_bit(32) {
            self.jn_n32.next = self.jn_n.val().get_bits::<32>(0);
        }
        self.jn_max.next = self.tail.q.val().get_bits::<32>(184);
        if self.jn_max.val() < self.q_len.q.val() {
            self.jn_max.next = self.q_len.q.val();
        }
        self.jn_min.next = self.tail.q.val().get_bits::<32>(216);
        if self.q_len.q.val() < self.jn_min.val() {
            self.jn_min.next = self.q_len.q.val();
        }
        // The weighted one-counter majority (§3.3): a joined packet's culprit step.
        self.jn_add.next =
            bit_cast::<33, 32>(self.tail.q.val().get_bits::<32>(280)) + bit_cast::<33, 32>(self.q_len.q.val());
        if self.tail.q.val().get_bits::<32>(280) == self.zero32.val() {
            self.jn_flow.next = self.q_flow.q.val();
            self.jn_cnt.next = self.q_len.q.val();
        } else if self.q_flow.q.val() == self.tail.q.val().get_bits::<32>(248) {
            self.jn_flow.next = self.q_flow.q.val();
            if self.jn_add.val().get_bit(32) {
                self.jn_cnt.next = self.ones32.val();
            } else {
                self.jn_cnt.next = self.jn_add.val().get_bits::<32>(0);
            }
        } else if self.tail.q.val().get_bits::<32>(280) < self.q_len.q.val() {
            self.jn_flow.next = self.q_flow.q.val();
            self.jn_cnt.next = self.q_len.q.val() - self.tail.q.val().get_bits::<32>(280);
        } else {
            self.jn_flow.next = self.tail.q.val().get_bits::<32>(248);
            self.jn_cnt.next = self.tail.q.val().get_bits::<32>(280) - self.q_len.q.val();
        }
        self.jn_word.next = bit_cast::<BKT, 48>(self.tail.q.val().get_bits::<48>(0))
            | (bit_cast::<BKT, 48>(self.q_ts.q.val()) << self.sh48.val())
            | (bit_cast::<BKT, 56>(self.jn_mass.val()) << self.sh96.val())
            | (bit_cast::<BKT, 32>(self.jn_n32.val()) << self.sh152.val())
            | (bit_cast::<BKT, 32>(self.jn_max.val()) << self.sh184.val())
            | (bit_cast::<BKT, 32>(self.jn_min.val()) << self.sh216.val())
            | (bit_cast::<BKT, 32>(self.jn_flow.val()) << self.sh248.val())
            | (bit_cast::<BKT, 32>(self.jn_cnt.val()) << self.sh280.val());

        // The pred's record word (its next link is the tail).
        self.pred_rec.next =
            bit_cast::<REC, BKT>(self.pred.q.val()) | (bit_cast::<REC, 10>(self.t.q.val()) << self.sh312.val());
        // The pred's group minimum (fill: it only decreases), a 32:1 select by
        // the pred's row, one level per row bit.
        for j in 0..16 {
            self.gs1[j].next = self.gm[2 * j].val();
            if self.p.q.val().get_bit(5) {
                self.gs1[j].next = self.gm[2 * j + 1].val();
            }
        }
        for j in 0..8 {
            self.gs2[j].next = self.gs1[2 * j].val();
            if self.p.q.val().get_bit(6) {
                self.gs2[j].next = self.gs1[2 * j + 1].val();
            }
        }
        for j in 0..4 {
            self.gs3[j].next = self.gs2[2 * j].val();
            if self.p.q.val().get_bit(7) {
                self.gs3[j].next = self.gs2[2 * j + 1].val();
            }
        }
        for j in 0..2 {
            self.gs4[j].next = self.gs3[2 * j].val();
            if self.p.q.val().get_bit(8) {
                self.gs4[j].next = self.gs3[2 * j + 1].val();
            }
        }
        self.gsel_p.next = self.gs4[0].val();
        if self.p.q.val().get_bit(9) {
            self.gsel_p.next = self.gs4[1].val();
        }

        // ---- what the idle core does with the registered packet ----
        if self.q_v.q.val() {
            self.close_now.next = !(bit_cast::<TW, 48>(self.q_ts.q.val()) < self.pe.val());
        } else {
            self.close_now.next = self.nw_v.q.val() & !(bit_cast::<TW, 48>(self.nw.q.val()) < self.pe.val());
        }
        self.decide.next = self.idle.val() & !self.close_now.val() & self.q_v.q.val();
        self.consume.next = self.decide.val() & (!self.full.val() | self.tail_join.val());
        if self.busy.q.val() & (self.cnt.q.val() == self.c_last.val()) {
            self.consume.next = true;
            self.busy.d.next = false;
        }

        // Memory write ports (at most one write per memory per clock).
        self.rec_we.next = false;
        self.rec_wa.next = self.p.q.val();
        self.rec_wd.next = self.pred_rec.val();
        self.prv_we.next = false;
        self.prv_wa.next = self.p.q.val();
        self.prv_wd.next = self.pp.q.val();
        self.lane_we.next = false;
        self.lane_ws.next = self.p.q.val();
        self.lane_wd.next = self.kp.q.val();
        // The group minima's write port: one group per clock (the pred's in a fill,
        // the merge's four from its clocks 8–11), or all of them cleared.
        self.gw_we.next = self.cb_we.q.val();
        self.gw_all.next = false;
        if self.cb_we.q.val() {
            self.gw_g.next = self.cb_gr.q.val();
            self.gw_d.next = self.cb_r.q.val();
        } else {
            self.gw_g.next = self.p.q.val().get_bits::<5>(5);
            self.gw_d.next = self.ppk.val();
        }

        if self.decide.val() {
            self.st_packets.d.next = self.st_packets.q.val() + self.one64.val();
            if !self.full.val() {
                // Fill: b takes slot `live`; the pred enters the structure.
                if !(self.live.q.val() < self.two11.val()) {
                    self.rec_we.next = true;
                    self.prv_we.next = true;
                    self.lane_we.next = true;
                    self.gw_we.next = self.ppk.val() < self.gsel_p.val();
                    if self.ppk.val() < self.s_min.val() {
                        self.sm_x.d.next = self.ppk.val() ^ self.none.val();
                    }
                }
                if self.live.q.val() != self.zero11.val() {
                    self.kp.d.next = self.kt_raw.val();
                    self.st_ksat.d.next = self.st_ksat.q.val() | self.kt_raw.val().get_bit(48);
                    self.pp.d.next = self.p.q.val();
                    self.pred.d.next = self.tail.q.val();
                    self.p.d.next = self.t.q.val();
                }
                self.tail.d.next = self.pkt_word.val();
                self.t.d.next = self.live.q.val().get_bits::<10>(0);
                self.live.d.next = self.live.q.val() + self.one11.val();
            } else {
                self.st_ksat.d.next = self.st_ksat.q.val() | self.kt_raw.val().get_bit(48);
                if self.tail_join.val() {
                    // Join: the tail takes b.
                    self.tail.d.next = self.jn_word.val();
                    self.st_msat.d.next = self.st_msat.q.val() | self.kt_sum.val().get_bit(56);
                    if self.kpj_sum.val().get_bits::<9>(48) == self.zero9.val() {
                        self.kp.d.next = self.kpj_sum.val().get_bits::<RAW>(0);
                    } else {
                        self.kp.d.next = self.raw_sat.val();
                        self.st_ksat.d.next = true;
                    }
                    self.st_joins.d.next = self.st_joins.q.val() + self.one64.val();
                    self.st_merges.d.next = self.st_merges.q.val() + self.one64.val();
                } else {
                    // A real merge: case A (the pred pair) or B (the structure's minimum).
                    self.busy.d.next = true;
                    self.cnt.d.next = self.kc[1].val();
                    self.kt_r.d.next = self.kt_raw.val();
                    self.case_a.d.next = self.ppk.val() < self.s_min.val();
                    if self.ppk.val() < self.s_min.val() {
                        self.w_r.d.next = self.p.q.val();
                    } else {
                        self.w_r.d.next = self.s_min.val().get_bits::<10>(0);
                    }
                }
            }
        }

        // ---- close: the pred's and tail's records are written, then the copies flip ----
        if self.idle.val() & self.close_now.val() & (self.ro_state.q.val() == self.zero2.val()) {
            self.closing.d.next = true;
            self.ccnt.d.next = self.one2.val();
            self.rec_we.next = !(self.live.q.val() < self.two11.val());
        }
        if self.closing.q.val() {
            self.ccnt.d.next = self.ccnt.q.val() + self.one2.val();
            if self.ccnt.q.val() == self.one2.val() {
                self.rec_we.next = self.live.q.val() != self.zero11.val();
                self.rec_wa.next = self.t.q.val();
                self.rec_wd.next = bit_cast::<REC, BKT>(self.tail.q.val());
            }
        }

        // ---- read-out of the frozen copy ----
        if self.ro_state.q.val() == self.one2.val() {
            self.ro_state.d.next = self.two2.val();
        }
        if (self.ro_state.q.val() == self.two2.val()) & self.m_ro_ready.val() {
            if self.ro_left.q.val() == self.one11.val() {
                self.ro_state.d.next = self.three2.val();
            } else {
                self.ro_state.d.next = self.one2.val();
                self.ro_slot.d.next = self.rdf.val().get_bits::<10>(312);
                self.ro_left.d.next = self.ro_left.q.val() - self.one11.val();
            }
        }
        if (self.ro_state.q.val() == self.three2.val()) & self.m_ro_ready.val() {
            self.ro_state.d.next = self.zero2.val();
        }
        if self.closing.q.val() & (self.ccnt.q.val() == self.two2.val()) {
            // The flip: the live copy freezes and streams out, a new period starts.
            self.closing.d.next = false;
            self.epoch.d.next = !self.epoch.q.val();
            self.fz_index.d.next = self.st_index.q.val();
            self.fz_packets.d.next = self.st_packets.q.val();
            self.fz_merges.d.next = self.st_merges.q.val();
            self.fz_joins.d.next = self.st_joins.q.val();
            self.fz_ksat.d.next = self.st_ksat.q.val();
            self.fz_msat.d.next = self.st_msat.q.val();
            self.st_index.d.next = self.st_index.q.val() + self.one32.val();
            self.st_packets.d.next = self.zero64.val();
            self.st_merges.d.next = self.zero64.val();
            self.st_joins.d.next = self.zero64.val();
            self.st_ksat.d.next = false;
            self.st_msat.d.next = false;
            self.ro_slot.d.next = self.zero10.val();
            self.ro_left.d.next = self.live.q.val();
            if self.live.q.val() == self.zero11.val() {
                self.ro_state.d.next = self.three2.val();
            } else {
                self.ro_state.d.next = self.one2.val();
            }
            self.pe_x.d.next = (self.pe.val() + self.period.val()) ^ self.period.val();
            self.live.d.next = self.zero11.val();
            self.gw_all.next = true;
            self.gw_d.next = self.none.val();
            self.sm_x.d.next = self.zero_pk.val();
        }

        // ---- the merge, clock by clock ----
        if self.busy.q.val() & (self.cnt.q.val() != self.c_last.val()) {
            self.cnt.d.next = self.cnt.q.val() + self.kc[1].val();
        }
        // Engine read port of the live records: w at 0, v at 2; the previous links: w at 0.
        self.eng_ra.next = self.s_min.val().get_bits::<10>(0);
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[2].val()) {
            self.eng_ra.next = self.v_r.q.val();
        }
        // 1: w's record, its next and previous links.
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[1].val()) {
            self.wb.d.next = self.rdl.val();
            if self.case_a.q.val() {
                self.v_r.d.next = self.t.q.val();
                if self.p.q.val() == self.zero10.val() {
                    self.u_r.d.next = self.t.q.val();
                    self.en_u.d.next = false;
                } else {
                    self.u_r.d.next = self.pp.q.val();
                    self.en_u.d.next = true;
                }
            } else {
                self.v_r.d.next = self.rdl.val().get_bits::<10>(312);
                if self.w_r.q.val() == self.zero10.val() {
                    self.u_r.d.next = self.t.q.val();
                    self.en_u.d.next = false;
                } else {
                    self.u_r.d.next = self.prv.read_data.val();
                    self.en_u.d.next = true;
                }
            }
        }
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[2].val()) {
            self.vpk.d.next = !self.case_a.q.val() & (self.v_r.q.val() == self.p.q.val());
        }
        // 3: v's record (the pred's registers if v is the pred); the merge operands.
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[3].val()) {
            if self.vpk.q.val() {
                self.x_r.d.next = self.t.q.val();
            } else {
                self.x_r.d.next = self.rdl.val().get_bits::<10>(312);
            }
            if self.case_a.q.val() {
                self.ma.d.next = self.pred.q.val();
                self.mb.d.next = self.tail.q.val();
            } else {
                self.ma.d.next = self.wb.q.val().get_bits::<BKT>(0);
                if self.vpk.q.val() {
                    self.mb.d.next = self.pred.q.val();
                } else {
                    self.mb.d.next = self.rdl.val().get_bits::<BKT>(0);
                }
            }
        }

        // Group rows: w at 1, pred at 2, u at 3, v at 4; each arrives a clock later.
        self.row_ra.next = self.kc[0].val();
        if self.cnt.q.val() == self.kc[1].val() {
            self.row_ra.next = self.w_r.q.val().get_bits::<5>(5);
        }
        if self.cnt.q.val() == self.kc[2].val() {
            self.row_ra.next = self.p.q.val().get_bits::<5>(5);
        }
        if self.cnt.q.val() == self.kc[3].val() {
            self.row_ra.next = self.u_r.q.val().get_bits::<5>(5);
        }
        if self.cnt.q.val() == self.kc[4].val() {
            self.row_ra.next = self.v_r.q.val().get_bits::<5>(5);
        }
        self.row_d.d.next = self.row_ra.val();
        // The masked row: lanes whose key changes or that are masked (u, w, pred, v, tail)
        // are left out, as are lanes beyond the last slot.
        self.row_base.next = bit_cast::<PK, 5>(self.row_d.q.val()) << self.sh5.val();
        self.u_pk.next = bit_cast::<PK, 10>(self.u_r.q.val());
        self.w_pk.next = bit_cast::<PK, 10>(self.w_r.q.val());
        self.p_pk.next = bit_cast::<PK, 10>(self.p.q.val());
        self.v_pk.next = bit_cast::<PK, 10>(self.v_r.q.val());
        self.t_pk.next = bit_cast::<PK, 10>(self.t.q.val());
        for j in 0..LANES {
            self.lanes[j].read_address.next = self.row_ra.val();
            self.slot_j[j].next = self.row_base.val() | self.kslot[j].val();
            if self.lanes[j].read_data.val().get_bit(58) {
                self.pk_j[j].next = self.key_max_pk.val() | self.slot_j[j].val();
            } else {
                self.pk_j[j].next = self.lanes[j].read_data.val() | self.slot_j[j].val();
            }
            if !self.lane_rows[j].val().get_bit(self.row_d.q.val().index())
                | (self.slot_j[j].val() == self.u_pk.val())
                | (self.slot_j[j].val() == self.w_pk.val())
                | (self.slot_j[j].val() == self.p_pk.val())
                | (self.slot_j[j].val() == self.v_pk.val())
                | (self.slot_j[j].val() == self.t_pk.val())
            {
                self.pk_j[j].next = self.none.val();
            }
        }
        // Stage 1: the masked lanes, 32 → 16.
        for j in 0..16 {
            if self.pk_j[2 * j].val() < self.pk_j[2 * j + 1].val() {
                self.lv1[j].next = self.pk_j[2 * j].val();
            } else {
                self.lv1[j].next = self.pk_j[2 * j + 1].val();
            }
            self.st1[j].d.next = self.lv1[j].val();
        }
        // Stage 2: 16 → 4.
        for j in 0..8 {
            if self.st1[2 * j].q.val() < self.st1[2 * j + 1].q.val() {
                self.lv2[j].next = self.st1[2 * j].q.val();
            } else {
                self.lv2[j].next = self.st1[2 * j + 1].q.val();
            }
        }
        for j in 0..4 {
            if self.lv2[2 * j].val() < self.lv2[2 * j + 1].val() {
                self.lw1[j].next = self.lv2[2 * j].val();
            } else {
                self.lw1[j].next = self.lv2[2 * j + 1].val();
            }
            self.st2[j].d.next = self.lw1[j].val();
        }
        // Stage 3: 4 → 1, the partial minimum of the row read three clocks ago.
        for j in 0..2 {
            if self.st2[2 * j].q.val() < self.st2[2 * j + 1].q.val() {
                self.lw2[j].next = self.st2[2 * j].q.val();
            } else {
                self.lw2[j].next = self.st2[2 * j + 1].q.val();
            }
        }
        if self.lw2[0].val() < self.lw2[1].val() {
            self.tree_out.next = self.lw2[0].val();
        } else {
            self.tree_out.next = self.lw2[1].val();
        }
        if self.cnt.q.val() == self.kc[4].val() {
            self.part_w.d.next = self.tree_out.val();
        }
        if self.cnt.q.val() == self.kc[5].val() {
            self.part_p.d.next = self.tree_out.val();
        }
        if self.cnt.q.val() == self.kc[6].val() {
            self.part_u.d.next = self.tree_out.val();
        }
        if self.cnt.q.val() == self.kc[7].val() {
            self.part_v.d.next = self.tree_out.val();
        }
        // Raw keys of u (row arrives at 4) and v (at 5).
        if self.cnt.q.val() == self.kc[4].val() {
            self.lane_sel.next = self.u_r.q.val().get_bits::<5>(0);
        } else {
            self.lane_sel.next = self.v_r.q.val().get_bits::<5>(0);
        }
        // A 32:1 select by the lane, one level per lane bit.
        for j in 0..16 {
            self.lp1[j].next = self.lanes[2 * j].read_data.val();
            if self.lane_sel.val().get_bit(0) {
                self.lp1[j].next = self.lanes[2 * j + 1].read_data.val();
            }
        }
        for j in 0..8 {
            self.lp2[j].next = self.lp1[2 * j].val();
            if self.lane_sel.val().get_bit(1) {
                self.lp2[j].next = self.lp1[2 * j + 1].val();
            }
        }
        for j in 0..4 {
            self.lp3[j].next = self.lp2[2 * j].val();
            if self.lane_sel.val().get_bit(2) {
                self.lp3[j].next = self.lp2[2 * j + 1].val();
            }
        }
        for j in 0..2 {
            self.lp4[j].next = self.lp3[2 * j].val();
            if self.lane_sel.val().get_bit(3) {
                self.lp4[j].next = self.lp3[2 * j + 1].val();
            }
        }
        self.lane_pick.next = self.lp4[0].val();
        if self.lane_sel.val().get_bit(4) {
            self.lane_pick.next = self.lp4[1].val();
        }
        self.unused_pick_slot.sig.next = self.lane_pick.val().get_bits::<10>(0);
        if self.cnt.q.val() == self.kc[4].val() {
            self.lane_u.d.next = self.lane_pick.val().get_bits::<RAW>(10);
        }
        if self.cnt.q.val() == self.kc[5].val() {
            self.lane_v.d.next = self.lane_pick.val().get_bits::<RAW>(10);
        }
        // 5: K'(u) = raw(u) + mass_v; 6: K'(w) = mass_w + raw(v).
        self.nu_sum.next =
            bit_cast::<57, RAW>(self.lane_u.q.val()) + bit_cast::<57, 56>(self.mb.q.val().get_bits::<56>(96));
        if self.vpk.q.val() {
            self.raw_v.next = self.kp.q.val();
        } else {
            self.raw_v.next = self.lane_v.q.val();
        }
        self.nw_sum.next =
            bit_cast::<57, 56>(self.ma.q.val().get_bits::<56>(96)) + bit_cast::<57, RAW>(self.raw_v.val());
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[5].val()) {
            if self.nu_sum.val().get_bits::<9>(48) == self.zero9.val() {
                self.new_u.d.next = self.nu_sum.val().get_bits::<RAW>(0);
            } else {
                self.new_u.d.next = self.raw_sat.val();
                self.st_ksat.d.next = self.st_ksat.q.val() | self.en_u.q.val();
            }
        }
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[6].val()) {
            if self.nw_sum.val().get_bits::<9>(48) == self.zero9.val() {
                self.new_w.d.next = self.nw_sum.val().get_bits::<RAW>(0);
            } else {
                self.new_w.d.next = self.raw_sat.val();
                self.st_ksat.d.next = self.st_ksat.q.val() | !self.case_a.q.val();
            }
            self.lane_we.next = self.en_u.q.val();
            self.lane_ws.next = self.u_r.q.val();
            self.lane_wd.next = self.new_u.q.val();
        }

        // ---- the merged record: four stages from the operands ma (earlier) and mb ----
        self.ma_mass_sum.next = bit_cast::<57, 56>(self.ma.q.val().get_bits::<56>(96))
            + bit_cast::<57, 56>(self.mb.q.val().get_bits::<56>(96));
        self.ma_n_sum.next = bit_cast::<33, 32>(self.ma.q.val().get_bits::<32>(152))
            + bit_cast::<33, 32>(self.mb.q.val().get_bits::<32>(152));
        self.xs1.next = self.prng.val() ^ (self.prng.val() << self.sh13.val());
        self.xs2.next = self.xs1.val() ^ (self.xs1.val() >> self.sh17.val());
        self.xs3.next = self.xs2.val() ^ (self.xs2.val() << self.sh5.val());
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[4].val()) {
            if self.ma_mass_sum.val().get_bit(56) {
                self.m1_mass.d.next = self.mass_max.val();
                self.st_msat.d.next = true;
            } else {
                self.m1_mass.d.next = self.ma_mass_sum.val().get_bits::<56>(0);
            }
            if self.ma_n_sum.val().get_bit(32) {
                self.m1_n.d.next = self.ones32.val();
            } else {
                self.m1_n.d.next = self.ma_n_sum.val().get_bits::<32>(0);
            }
            if self.ma.q.val().get_bits::<32>(184) < self.mb.q.val().get_bits::<32>(184) {
                self.m1_max.d.next = self.mb.q.val().get_bits::<32>(184);
            } else {
                self.m1_max.d.next = self.ma.q.val().get_bits::<32>(184);
            }
            if self.mb.q.val().get_bits::<32>(216) < self.ma.q.val().get_bits::<32>(216) {
                self.m1_min.d.next = self.mb.q.val().get_bits::<32>(216);
            } else {
                self.m1_min.d.next = self.ma.q.val().get_bits::<32>(216);
            }
            self.m1_first.d.next = self.ma.q.val().get_bits::<48>(0);
            self.m1_last.d.next = self.mb.q.val().get_bits::<48>(48);
            self.m1_fa.d.next = self.ma.q.val().get_bits::<32>(248);
            self.m1_ca.d.next = self.ma.q.val().get_bits::<32>(280);
            self.m1_fb.d.next = self.mb.q.val().get_bits::<32>(248);
            self.m1_cb.d.next = self.mb.q.val().get_bits::<32>(280);
            self.m1_same.d.next = self.ma.q.val().get_bits::<32>(248) == self.mb.q.val().get_bits::<32>(248);
            self.m1_tot.d.next = bit_cast::<33, 32>(self.ma.q.val().get_bits::<32>(280))
                + bit_cast::<33, 32>(self.mb.q.val().get_bits::<32>(280));
            self.m1_r.d.next = self.xs3.val();
        }
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[5].val()) {
            self.m2_p00.d.next = self.m1_r.q.val().get_bits::<16>(0) * self.m1_tot.q.val().get_bits::<16>(0);
            self.m2_p01.d.next = self.m1_r.q.val().get_bits::<16>(0) * self.m1_tot.q.val().get_bits::<16>(16);
            self.m2_p10.d.next = self.m1_r.q.val().get_bits::<16>(16) * self.m1_tot.q.val().get_bits::<16>(0);
            self.m2_p11.d.next = self.m1_r.q.val().get_bits::<16>(16) * self.m1_tot.q.val().get_bits::<16>(16);
        }
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[6].val()) {
            self.m3_a.d.next =
                bit_cast::<66, 32>(self.m2_p00.q.val()) + (bit_cast::<66, 32>(self.m2_p01.q.val()) << self.sh16.val());
            self.m3_b.d.next = (bit_cast::<66, 32>(self.m2_p10.q.val()) << self.sh16.val())
                + (bit_cast::<66, 32>(self.m2_p11.q.val()) << self.sh32.val());
            if self.m1_tot.q.val().get_bit(32) {
                self.m3_b.d.next = (bit_cast::<66, 32>(self.m2_p10.q.val()) << self.sh16.val())
                    + (bit_cast::<66, 32>(self.m2_p11.q.val()) << self.sh32.val())
                    + (bit_cast::<66, 32>(self.m1_r.q.val()) << self.sh32.val());
            }
        }
        // 7: ⌊r·(c_a + c_b) / 2^32⌋ < c_a keeps a's flow (one flow: the counts add).
        self.m4_sum.next = self.m3_a.q.val() + self.m3_b.q.val();
        self.keep_a.next = (self.m4_sum.val() >> self.sh32.val()) < bit_cast::<66, 32>(self.m1_ca.q.val());
        if self.m1_same.q.val() {
            self.m4_flow.next = self.m1_fa.q.val();
            if self.m1_tot.q.val().get_bit(32) {
                self.m4_cnt.next = self.ones32.val();
            } else {
                self.m4_cnt.next = self.m1_tot.q.val().get_bits::<32>(0);
            }
        } else if self.keep_a.val() {
            self.m4_flow.next = self.m1_fa.q.val();
            self.m4_cnt.next = self.m1_ca.q.val();
        } else {
            self.m4_flow.next = self.m1_fb.q.val();
            self.m4_cnt.next = self.m1_cb.q.val();
        }
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[7].val()) {
            self.m_rec.d.next = bit_cast::<BKT, 48>(self.m1_first.q.val())
                | (bit_cast::<BKT, 48>(self.m1_last.q.val()) << self.sh48.val())
                | (bit_cast::<BKT, 56>(self.m1_mass.q.val()) << self.sh96.val())
                | (bit_cast::<BKT, 32>(self.m1_n.q.val()) << self.sh152.val())
                | (bit_cast::<BKT, 32>(self.m1_max.q.val()) << self.sh184.val())
                | (bit_cast::<BKT, 32>(self.m1_min.q.val()) << self.sh216.val())
                | (bit_cast::<BKT, 32>(self.m4_flow.val()) << self.sh248.val())
                | (bit_cast::<BKT, 32>(self.m4_cnt.val()) << self.sh280.val());
            if !self.m1_same.q.val() {
                self.prng_x.d.next = self.m1_r.q.val() ^ self.seed.val();
            }
            if !self.case_a.q.val() {
                self.lane_we.next = true;
                self.lane_ws.next = self.w_r.q.val();
                self.lane_wd.next = self.new_w.q.val();
            }
        }

        // ---- 7: the touched groups' minima: partial, and the new keys that fall in them ----
        if self.new_u.q.val().get_bit(48) {
            self.nu_key.next = self.key_max.val();
        } else {
            self.nu_key.next = self.new_u.q.val().get_bits::<48>(0);
        }
        if self.new_w.q.val().get_bit(48) {
            self.nw_key.next = self.key_max.val();
        } else {
            self.nw_key.next = self.new_w.q.val().get_bits::<48>(0);
        }
        self.cand_u.next = self.none.val();
        if self.en_u.q.val() {
            self.cand_u.next =
                (bit_cast::<PK, 48>(self.nu_key.val()) << self.sh10.val()) | bit_cast::<PK, 10>(self.u_r.q.val());
        }
        self.cand_w.next = self.none.val();
        if !self.case_a.q.val() {
            self.cand_w.next =
                (bit_cast::<PK, 48>(self.nw_key.val()) << self.sh10.val()) | bit_cast::<PK, 10>(self.w_r.q.val());
        }
        // The group of w (clock 7), the pred (8), u (9), v (10): its partial
        // minimum and the new keys that fall in it, written in the next clock.
        // The group and which new keys fall in it are chosen a clock ahead.
        self.cb_part.next = self.part_v.q.val();
        self.cb_g.next = self.v_r.q.val().get_bits::<5>(5);
        if self.cnt.q.val() == self.kc[6].val() {
            self.cb_part.next = self.part_w.q.val();
            self.cb_g.next = self.w_r.q.val().get_bits::<5>(5);
        }
        if self.cnt.q.val() == self.kc[7].val() {
            self.cb_part.next = self.part_p.q.val();
            self.cb_g.next = self.p.q.val().get_bits::<5>(5);
        }
        if self.cnt.q.val() == self.kc[8].val() {
            self.cb_part.next = self.part_u.q.val();
            self.cb_g.next = self.u_r.q.val().get_bits::<5>(5);
        }
        self.cb_sel_part.d.next = self.cb_part.val();
        self.cb_sel_g.d.next = self.cb_g.val();
        self.cb_mu.d.next = self.cb_g.val() == self.u_r.q.val().get_bits::<5>(5);
        self.cb_mw.d.next = self.cb_g.val() == self.w_r.q.val().get_bits::<5>(5);
        self.cb_mp.d.next =
            !self.case_a.q.val() & !self.vpk.q.val() & (self.cb_g.val() == self.p.q.val().get_bits::<5>(5));
        self.cb_u.next = self.none.val();
        if self.cb_mu.q.val() {
            self.cb_u.next = self.cand_u.val();
        }
        self.cb_w.next = self.none.val();
        if self.cb_mw.q.val() {
            self.cb_w.next = self.cand_w.val();
        }
        self.cb_p.next = self.none.val();
        if self.cb_mp.q.val() {
            self.cb_p.next = self.ppk.val();
        }
        self.cb_m1.next = self.cb_sel_part.q.val();
        if self.cb_u.val() < self.cb_sel_part.q.val() {
            self.cb_m1.next = self.cb_u.val();
        }
        self.cb_m2.next = self.cb_w.val();
        if self.cb_p.val() < self.cb_w.val() {
            self.cb_m2.next = self.cb_p.val();
        }
        self.cb_min.next = self.cb_m1.val();
        if self.cb_m2.val() < self.cb_m1.val() {
            self.cb_min.next = self.cb_m2.val();
        }
        self.cb_r.d.next = self.cb_min.val();
        self.cb_gr.d.next = self.cb_sel_g.q.val();
        self.cb_we.d.next =
            self.busy.q.val() & !(self.cnt.q.val() < self.kc[7].val()) & !(self.kc[10].val() < self.cnt.q.val());
        // 8: the merged record and the links around it.
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[8].val()) {
            self.rec_we.next = !self.case_a.q.val();
            self.rec_wa.next = self.w_r.q.val();
            self.rec_wd.next =
                bit_cast::<REC, BKT>(self.m_rec.q.val()) | (bit_cast::<REC, 10>(self.x_r.q.val()) << self.sh312.val());
            self.prv_we.next = !self.case_a.q.val() & !self.vpk.q.val() & (self.x_r.q.val() != self.p.q.val());
            self.prv_wa.next = self.x_r.q.val();
            self.prv_wd.next = self.w_r.q.val();
            self.st_merges.d.next = self.st_merges.q.val() + self.one64.val();
        }
        // 9: the pred enters the structure (case B, v not the pred).
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[9].val()) {
            self.rec_we.next = !self.case_a.q.val() & !self.vpk.q.val();
            self.prv_we.next = !self.case_a.q.val() & !self.vpk.q.val();
            self.lane_we.next = !self.case_a.q.val() & !self.vpk.q.val();
            if self.x_r.q.val() == self.p.q.val() {
                self.prv_wd.next = self.w_r.q.val();
            }
        }
        // 12–14: s_min from the 32 group minima (three stages: 32 → 16 → 4 → 1).
        for j in 0..16 {
            if self.gm[2 * j].val() < self.gm[2 * j + 1].val() {
                self.sv1[j].next = self.gm[2 * j].val();
            } else {
                self.sv1[j].next = self.gm[2 * j + 1].val();
            }
            self.sa[j].d.next = self.sv1[j].val();
        }
        for j in 0..8 {
            if self.sa[2 * j].q.val() < self.sa[2 * j + 1].q.val() {
                self.sv2[j].next = self.sa[2 * j].q.val();
            } else {
                self.sv2[j].next = self.sa[2 * j + 1].q.val();
            }
        }
        for j in 0..4 {
            if self.sv2[2 * j].val() < self.sv2[2 * j + 1].val() {
                self.sv3[j].next = self.sv2[2 * j].val();
            } else {
                self.sv3[j].next = self.sv2[2 * j + 1].val();
            }
            self.sb[j].d.next = self.sv3[j].val();
        }
        for j in 0..2 {
            if self.sb[2 * j].q.val() < self.sb[2 * j + 1].q.val() {
                self.sw1[j].next = self.sb[2 * j].q.val();
            } else {
                self.sw1[j].next = self.sb[2 * j + 1].q.val();
            }
        }
        if self.sw1[0].val() < self.sw1[1].val() {
            self.sw2.next = self.sw1[0].val();
        } else {
            self.sw2.next = self.sw1[1].val();
        }
        if self.busy.q.val() & (self.cnt.q.val() == self.c_smin.val()) {
            self.sm_x.d.next = self.sw2.val() ^ self.none.val();
        }
        // 10: the tail and pred registers move.
        self.ka_sum.next =
            bit_cast::<57, 56>(self.m_rec.q.val().get_bits::<56>(96)) + bit_cast::<57, 32>(self.q_len.q.val());
        if self.busy.q.val() & (self.cnt.q.val() == self.kc[10].val()) {
            self.tail.d.next = self.pkt_word.val();
            if self.case_a.q.val() {
                self.pred.d.next = self.m_rec.q.val();
                if self.ka_sum.val().get_bits::<9>(48) == self.zero9.val() {
                    self.kp.d.next = self.ka_sum.val().get_bits::<RAW>(0);
                } else {
                    self.kp.d.next = self.raw_sat.val();
                    self.st_ksat.d.next = true;
                }
            } else {
                self.pred.d.next = self.tail.q.val();
                self.kp.d.next = self.kt_r.q.val();
                self.p.d.next = self.t.q.val();
                if self.vpk.q.val() {
                    self.pp.d.next = self.w_r.q.val();
                    self.t.d.next = self.p.q.val();
                } else {
                    self.pp.d.next = self.p.q.val();
                    self.t.d.next = self.v_r.q.val();
                }
            }
        }

        // ---- memory ports ----
        self.rec0.read_address.next = self.ro_slot.q.val();
        self.rec1.read_address.next = self.ro_slot.q.val();
        if self.epoch.q.val() {
            self.rec1.read_address.next = self.eng_ra.val();
        } else {
            self.rec0.read_address.next = self.eng_ra.val();
        }
        self.rec0.write_address.next = self.rec_wa.val();
        self.rec1.write_address.next = self.rec_wa.val();
        self.rec0.write_data.next = self.rec_wd.val();
        self.rec1.write_data.next = self.rec_wd.val();
        self.rec0.write_enable.next = self.rec_we.val() & !self.epoch.q.val();
        self.rec1.write_enable.next = self.rec_we.val() & self.epoch.q.val();
        self.prv.read_address.next = self.s_min.val().get_bits::<10>(0);
        self.prv.write_address.next = self.prv_wa.val();
        self.prv.write_data.next = self.prv_wd.val();
        self.prv.write_enable.next = self.prv_we.val();
        self.lane_wa.next = self.lane_ws.val().get_bits::<5>(5);
        self.lane_wl.next = self.lane_ws.val().get_bits::<5>(0);
        self.lane_wd_pk.next = bit_cast::<PK, RAW>(self.lane_wd.val()) << self.sh10.val();
        for j in 0..LANES {
            self.lanes[j].write_address.next = self.lane_wa.val();
            self.lanes[j].write_data.next = self.lane_wd_pk.val();
            self.lanes[j].write_enable.next = self.lane_we.val() & (self.lane_wl.val() == self.kg[j].val());
        }

        // ---- input register and skid; time ----
        self.take.next = self.s_valid.val() & !self.k_v.q.val();
        if !self.q_v.q.val() | self.consume.val() {
            if self.k_v.q.val() {
                self.q_v.d.next = true;
                self.q_ts.d.next = self.k_ts.q.val();
                self.q_len.d.next = self.k_len.q.val();
                self.q_flow.d.next = self.k_flow.q.val();
                self.k_v.d.next = false;
            } else {
                self.q_v.d.next = self.take.val();
                self.q_ts.d.next = self.s_ts.val();
                self.q_len.d.next = self.s_len.val();
                self.q_flow.d.next = self.s_flow.val();
            }
        } else if self.take.val() {
            self.k_v.d.next = true;
            self.k_ts.d.next = self.s_ts.val();
            self.k_len.d.next = self.s_len.val();
            self.k_flow.d.next = self.s_flow.val();
        }
        if self.now_valid.val() {
            self.nw_v.d.next = true;
            self.nw.d.next = self.now.val();
        }

        // ---- synchronous reset ----
        if self.reset.val() {
            self.q_v.d.next = false;
            self.k_v.d.next = false;
            self.nw_v.d.next = false;
            self.busy.d.next = false;
            self.closing.d.next = false;
            self.pe_x.d.next = self.zero_tw.val();
            self.prng_x.d.next = self.zero32.val();
            self.live.d.next = self.zero11.val();
            self.epoch.d.next = false;
            self.gw_all.next = true;
            self.gw_d.next = self.none.val();
            self.cb_we.d.next = false;
            self.sm_x.d.next = self.zero_pk.val();
            self.st_index.d.next = self.zero32.val();
            self.st_packets.d.next = self.zero64.val();
            self.st_merges.d.next = self.zero64.val();
            self.st_joins.d.next = self.zero64.val();
            self.st_ksat.d.next = false;
            self.st_msat.d.next = false;
            self.fz_index.d.next = self.zero32.val();
            self.fz_packets.d.next = self.zero64.val();
            self.fz_merges.d.next = self.zero64.val();
            self.fz_joins.d.next = self.zero64.val();
            self.fz_ksat.d.next = false;
            self.fz_msat.d.next = false;
            self.ro_state.d.next = self.zero2.val();
        }

        // ---- the group minima's write port ----
        self.gw_x.next = self.gw_d.val() ^ self.none.val();
        for g in 0..LANES {
            if (self.gw_we.val() & (self.gw_g.val() == self.kg[g].val())) | self.gw_all.val() {
                self.gm_x[g].d.next = self.gw_x.val();
            }
        }
    }
}
