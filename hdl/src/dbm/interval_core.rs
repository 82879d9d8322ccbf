//! Base-interval DBM core: dynamic bucket merge over the sequence of
//! Δ-interval byte sums S_Δ (Uyeda et al. §3.1.3: "DBM-mr and DBM-mv … work
//! on the sequence defined by S_Δ"), by mass, range or variance, with a
//! culprit per bucket (§3.3) and the merge keys of all adjacent pairs in a
//! two-level radix-32 min structure (§5). It equals the golden model
//! [`DbmGolden`](netmeas_sim::dbm::DbmGolden) bucket for bucket, flags and
//! counts included (`docs/cores/dbm.md` spells out the shared rules).
//!
//! **Two halves.**
//! - The *interval front end* takes one packet per clock and never waits
//!   for the list: it adds the packet's length to the open interval's sum
//!   (saturating at 2^32 − 1) and steps the interval's weighted one-counter
//!   majority flow. When a packet's timestamp or `now` reaches the interval's
//!   end, the interval's bucket {first, last, s, majority} is handed to the
//!   back end through a one-deep register and a new interval opens. Only a
//!   second close while that register is still full holds a packet back
//!   (`s_ready` low), so the input never stalls while every base interval
//!   lasts at least [`DBM_BASE_INSERT_CLOCKS`] clocks.
//! - The *list back end* is a sequential machine that inserts one bucket at
//!   a time exactly as Algorithm 1 does (allocate b_{m+1}, merge the adjacent
//!   pair with the smallest key): it has a whole base interval for it (the
//!   paper's 78.125 µs are 3 906 clocks at 50 MHz), so it spends clocks, not
//!   logic: one record RAM port, a sequential shift-and-add multiplier for
//!   s² and for the culprit draw, and a key unit that computes merge-by-
//!   variance keys ⌊(n·Q − S²) / n²⌋ with shift-and-add products and a
//!   restoring division (106-bit operands, one bit per clock).
//!
//! **State.** m slots hold the buckets as a list in time order: records
//! (first, last, mass, n, Σs², max, min, flow, flow count, previous and
//! next link: 416 bits) in two ping-pong copies of an m × 416 RAM, the
//! packed merge key of each slot's pair (none bit · key · slot, 59 bits, so
//! one unsigned compare applies the tie rule "lowest slot among equal keys")
//! in a 1024 × 59 RAM read as 32 groups of 32, each group's minimum in a
//! register, and the minimum of the 32 group minima from a 32-way
//! comparator tree (two register stages). A key change re-minimises its
//! group from the RAM, 32 keys in 33 clocks; a key that only enters a group
//! (the tail's, which was "none") lowers its minimum directly.
//!
//! **Close and read-out.** After the last interval of a period is inserted
//! the copies flip (once the previous period has been read out) and the
//! frozen partition streams out oldest bucket first, two clocks per bucket,
//! then one end beat with the period's counts and flags.
//!
//! Registers whose reset value is not zero (the PRNG, the group minima) are
//! held as XOR with it, so power-up equals reset.

use crate::common::sync_ram::SyncRam;
use crate::common::unused::Unused;
use netmeas_sim::dbm::{DBM_BASE_INSERT_CLOCKS, DbmConfig, MergeRule};
use rust_hdl::prelude::*;

/// Bits of a record word (see the layout below).
const REC: usize = 416;
/// Bits of a packed (none, key, slot) word.
const PK: usize = 59;
/// Lanes of a group, groups of the structure.
const LANES: usize = 32;
/// Width of an interval boundary: a 48-bit timestamp plus one period.
const TW: usize = 50;
/// Width of the variance key's products (n·Q and S² below 2^104 with at
/// most 2^20 intervals of at most 2^32 − 1 bytes per period).
const WW: usize = 106;
// Record layout, the offsets the `get_bits` calls below spell out:
// first 0 (48), last 48 (48), mass 96 (56), n 152 (32), sumsq 184 (84),
// max 268 (32), min 300 (32), flow 332 (32), count 364 (32), prev 396 (10),
// next 406 (10).
const _: () = assert!(REC == 48 + 48 + 56 + 32 + 84 + 32 * 4 + 10 + 10);

/// What the list back end is doing.
mod step {
    /// Waiting for an interval's bucket or a period flip.
    pub const IDLE: u64 = 0;
    /// s² of the new bucket by shift and add.
    pub const SQUARE: u64 = 1;
    /// Read the tail's record.
    pub const START: u64 = 2;
    /// The tail's record arrives; the key K(tail, b) starts.
    pub const LOAD_TAIL: u64 = 3;
    /// A key is being computed; then `ret`.
    pub const KEY: u64 = 4;
    /// Filling: the old tail's key and next link are written.
    pub const FILL: u64 = 5;
    /// Full: the tail's key K(tail, b) enters its group.
    pub const FULL: u64 = 6;
    /// The structure's minimum settles (two tree stages).
    pub const MIN_WAIT: u64 = 7;
    /// Join the tail or merge the structure's minimum w with next(w).
    pub const DECIDE: u64 = 8;
    /// The new bucket joins the tail.
    pub const JOIN: u64 = 9;
    /// w's record arrives; v = next(w) is read.
    pub const LOAD_W: u64 = 10;
    /// v's record arrives; the culprit draw starts if the flows differ.
    pub const LOAD_V: u64 = 11;
    /// The culprit draw's product by shift and add.
    pub const DRAW: u64 = 12;
    /// w and v become one bucket.
    pub const MERGE: u64 = 13;
    /// The record of p = prev(w) arrives; its key K(p, merged) starts.
    pub const LOAD_P: u64 = 14;
    /// p's key is written.
    pub const KEY_P: u64 = 15;
    /// After p: the key of w with its new right neighbour.
    pub const AFTER_P: u64 = 16;
    /// u = next(v) arrives: its previous link becomes w.
    pub const LOAD_U: u64 = 17;
    /// w's key and merged record are written.
    pub const KEY_W: u64 = 18;
    /// The old tail's record arrives: its next link becomes v.
    pub const LOAD_TAIL2: u64 = 19;
    /// The new bucket is written as the tail.
    pub const NEW: u64 = 20;
    /// Groups whose keys changed are re-minimised.
    pub const SCAN: u64 = 21;
    /// The insert is done.
    pub const END: u64 = 22;
}

/// What the key unit is doing.
mod key_step {
    /// No key requested.
    pub const IDLE: u64 = 0;
    /// Operands taken (mass and range keys are ready next clock).
    pub const START: u64 = 1;
    /// n·Q.
    pub const MUL_NQ: u64 = 2;
    /// S².
    pub const MUL_SS: u64 = 3;
    /// n².
    pub const MUL_NN: u64 = 4;
    /// n·Q − S², and n² · 2^48 for the saturation test.
    pub const SUB: u64 = 5;
    /// The quotient reaches 2^48 (saturated) or the division starts.
    pub const SAT: u64 = 6;
    /// One quotient bit per clock.
    pub const DIV: u64 = 7;
    /// The key is in `kres`.
    pub const DONE: u64 = 8;
}

/// The read-out of the frozen period.
mod read_out {
    /// Nothing frozen.
    pub const IDLE: u64 = 0;
    /// A record is being read.
    pub const FETCH: u64 = 1;
    /// A record is presented.
    pub const SHOW: u64 = 2;
    /// The end beat is presented.
    pub const END: u64 = 3;
}

/// The base-interval DBM core for one [`DbmConfig`] (`base_ticks` = Δ > 0).
#[derive(LogicBlock)]
pub struct DbmIntervalCore {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: a new first period starting at time 0.
    pub reset: Signal<In, Bit>,
    // --- packet stream ---
    /// A packet is offered.
    pub s_valid: Signal<In, Bit>,
    /// The packet is taken (low only while a second interval closes before the first is inserted).
    pub s_ready: Signal<Out, Bit>,
    /// Its timestamp (ticks; not below the previous one).
    pub s_ts: Signal<In, Bits<48>>,
    /// Its length in bytes.
    pub s_len: Signal<In, Bits<32>>,
    /// Its flow (for the culprit).
    pub s_flow: Signal<In, Bits<32>>,
    // --- time ---
    /// `now` carries the current time this clock.
    pub now_valid: Signal<In, Bit>,
    /// The current time: intervals and periods that end at or before it close.
    pub now: Signal<In, Bits<48>>,
    // --- read-out of the frozen period: buckets oldest first, then an end beat ---
    /// A beat is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// The beat is the period's end (no bucket).
    pub m_ro_end: Signal<Out, Bit>,
    /// First tick of the bucket (its first interval's start).
    pub m_ro_first: Signal<Out, Bits<48>>,
    /// Last tick of the bucket (its last interval's last tick).
    pub m_ro_last_ts: Signal<Out, Bits<48>>,
    /// Bytes.
    pub m_ro_mass: Signal<Out, Bits<56>>,
    /// Base intervals merged into it.
    pub m_ro_n: Signal<Out, Bits<32>>,
    /// Σ s_i² of its interval sums.
    pub m_ro_sumsq: Signal<Out, Bits<84>>,
    /// Largest interval sum.
    pub m_ro_max: Signal<Out, Bits<32>>,
    /// Smallest interval sum.
    pub m_ro_min: Signal<Out, Bits<32>>,
    /// Culprit flow.
    pub m_ro_flow: Signal<Out, Bits<32>>,
    /// The bytes counted for the culprit.
    pub m_ro_flow_count: Signal<Out, Bits<32>>,
    // --- the frozen period's counts and flags (valid with the end beat) ---
    /// Index of the period (counted from reset).
    pub period_index: Signal<Out, Bits<32>>,
    /// Packets of the period.
    pub period_packets: Signal<Out, Bits<64>>,
    /// Merges made.
    pub period_merges: Signal<Out, Bits<64>>,
    /// Of them, joins of the tail by the new bucket.
    pub period_tail_joins: Signal<Out, Bits<64>>,
    /// A merge key saturated at 2^48 − 1.
    pub period_key_saturated: Signal<Out, Bit>,
    /// A bucket mass saturated at 2^56 − 1.
    pub period_mass_saturated: Signal<Out, Bit>,
    /// An interval sum saturated at 2^32 − 1.
    pub period_interval_saturated: Signal<Out, Bit>,
    // --- memories ---
    rec0: SyncRam<REC, 10>,
    rec1: SyncRam<REC, 10>,
    keys: SyncRam<PK, 10>,
    /// The records' previous links are not read out.
    unused_ro_prev: Unused<Bits<10>>,
    /// An interval's last tick fits 48 bits (timestamps do).
    unused_iv_last: Unused<Bits<2>>,
    // --- config and sized constants ---
    st_idle: Constant<Bits<5>>,
    st_square: Constant<Bits<5>>,
    st_start: Constant<Bits<5>>,
    st_load_tail: Constant<Bits<5>>,
    st_key: Constant<Bits<5>>,
    st_fill: Constant<Bits<5>>,
    st_full: Constant<Bits<5>>,
    st_min_wait: Constant<Bits<5>>,
    st_decide: Constant<Bits<5>>,
    st_join: Constant<Bits<5>>,
    st_load_w: Constant<Bits<5>>,
    st_load_v: Constant<Bits<5>>,
    st_draw: Constant<Bits<5>>,
    st_merge: Constant<Bits<5>>,
    st_load_p: Constant<Bits<5>>,
    st_key_p: Constant<Bits<5>>,
    st_after_p: Constant<Bits<5>>,
    st_load_u: Constant<Bits<5>>,
    st_key_w: Constant<Bits<5>>,
    st_load_tail2: Constant<Bits<5>>,
    st_new: Constant<Bits<5>>,
    st_scan: Constant<Bits<5>>,
    st_end: Constant<Bits<5>>,
    ks_idle: Constant<Bits<4>>,
    ks_start: Constant<Bits<4>>,
    ks_mul_nq: Constant<Bits<4>>,
    ks_mul_ss: Constant<Bits<4>>,
    ks_mul_nn: Constant<Bits<4>>,
    ks_sub: Constant<Bits<4>>,
    ks_sat: Constant<Bits<4>>,
    ks_div: Constant<Bits<4>>,
    ks_done: Constant<Bits<4>>,
    rs_idle: Constant<Bits<2>>,
    rs_fetch: Constant<Bits<2>>,
    rs_show: Constant<Bits<2>>,
    rs_end: Constant<Bits<2>>,
    buckets: Constant<Bits<11>>,
    delta: Constant<Bits<TW>>,
    last_iv: Constant<Bits<21>>,
    rule_mr: Constant<Bit>,
    rule_mv: Constant<Bit>,
    seed: Constant<Bits<32>>,
    none: Constant<Bits<PK>>,
    key_max: Constant<Bits<48>>,
    mass_max: Constant<Bits<56>>,
    count_max: Constant<Bits<32>>,
    one_tw: Constant<Bits<TW>>,
    one_11: Constant<Bits<11>>,
    one_21: Constant<Bits<21>>,
    one_6: Constant<Bits<6>>,
    one_64: Constant<Bits<64>>,
    zero_10: Constant<Bits<10>>,
    zero_11: Constant<Bits<11>>,
    zero_32: Constant<Bits<32>>,
    zero_6: Constant<Bits<6>>,
    zero_w: Constant<Bits<WW>>,
    zero_21: Constant<Bits<21>>,
    zero_48: Constant<Bits<48>>,
    zero_64: Constant<Bits<64>>,
    zero_65: Constant<Bits<65>>,
    zero_pk: Constant<Bits<PK>>,
    zero_tw: Constant<Bits<TW>>,
    zero_9: Constant<Bits<9>>,
    one_32: Constant<Bits<32>>,
    one_48: Constant<Bits<48>>,
    lanes_end: Constant<Bits<6>>,
    div_steps: Constant<Bits<6>>,
    min_wait: Constant<Bits<6>>,
    kg: [Constant<Bits<5>>; LANES],
    sh5: Constant<Bits<4>>,
    sh10: Constant<Bits<4>>,
    sh13: Constant<Bits<5>>,
    sh17: Constant<Bits<5>>,
    sh5_32: Constant<Bits<5>>,
    sh32: Constant<Bits<6>>,
    sh48: Constant<Bits<6>>,
    shr48: Constant<Bits<9>>,
    shr96: Constant<Bits<9>>,
    shr152: Constant<Bits<9>>,
    shr184: Constant<Bits<9>>,
    shr268: Constant<Bits<9>>,
    shr300: Constant<Bits<9>>,
    shr332: Constant<Bits<9>>,
    shr364: Constant<Bits<9>>,
    shr396: Constant<Bits<9>>,
    shr406: Constant<Bits<9>>,
    // --- interval front end ---
    pk_v: DFF<Bit>,
    pk_ts: DFF<Bits<48>>,
    pk_len: DFF<Bits<32>>,
    pk_flow: DFF<Bits<32>>,
    tk: DFF<Bits<48>>,
    iv_start: DFF<Bits<TW>>,
    iv: DFF<Bits<21>>,
    acc: DFF<Bits<32>>,
    mj_flow: DFF<Bits<32>>,
    mj_count: DFF<Bits<32>>,
    f_packets: DFF<Bits<64>>,
    f_isat: DFF<Bit>,
    // --- the closed interval handed to the back end ---
    h_v: DFF<Bit>,
    h_first: DFF<Bits<48>>,
    h_last: DFF<Bits<48>>,
    h_s: DFF<Bits<32>>,
    h_flow: DFF<Bits<32>>,
    h_count: DFF<Bits<32>>,
    h_lastp: DFF<Bit>,
    h_packets: DFF<Bits<64>>,
    h_isat: DFF<Bit>,
    // --- list back end ---
    step: DFF<Bits<5>>,
    ret: DFF<Bits<5>>,
    nb: DFF<Bits<REC>>,
    nb_lastp: DFF<Bit>,
    nb_packets: DFF<Bits<64>>,
    nb_isat: DFF<Bit>,
    opx: DFF<Bits<REC>>,
    opy: DFF<Bits<REC>>,
    rm: DFF<Bits<REC>>,
    live: DFF<Bits<11>>,
    head: DFF<Bits<10>>,
    tail: DFF<Bits<10>>,
    w: DFF<Bits<10>>,
    v: DFF<Bits<10>>,
    p: DFF<Bits<10>>,
    u: DFF<Bits<10>>,
    ns: DFF<Bits<10>>,
    np: DFF<Bits<10>>,
    is_join: DFF<Bit>,
    same: DFF<Bit>,
    wait_cnt: DFF<Bits<6>>,
    prng_x: DFF<Bits<32>>,
    mx: DFF<Bits<65>>,
    my: DFF<Bits<32>>,
    macc: DFF<Bits<65>>,
    st_index: DFF<Bits<32>>,
    st_merges: DFF<Bits<64>>,
    st_joins: DFF<Bits<64>>,
    st_ksat: DFF<Bit>,
    st_msat: DFF<Bit>,
    flip_pending: DFF<Bit>,
    fl_packets: DFF<Bits<64>>,
    fl_isat: DFF<Bit>,
    epoch: DFF<Bit>,
    // --- key unit ---
    kst: DFF<Bits<4>>,
    kx: DFF<Bits<WW>>,
    ky: DFF<Bits<WW>>,
    kacc: DFF<Bits<WW>>,
    kn: DFF<Bits<WW>>,
    ks: DFF<Bits<WW>>,
    knq: DFF<Bits<WW>>,
    kss: DFF<Bits<WW>>,
    krem: DFF<Bits<WW>>,
    kd: DFF<Bits<WW>>,
    kq: DFF<Bits<48>>,
    ki: DFF<Bits<6>>,
    kres: DFF<Bits<48>>,
    ksat: DFF<Bit>,
    // --- min structure ---
    gm_x: [DFF<Bits<PK>>; LANES],
    t1: [DFF<Bits<PK>>; 4],
    smin: DFF<Bits<PK>>,
    sc_p: DFF<Bits<5>>,
    sc_w: DFF<Bits<5>>,
    sc_v: DFF<Bits<5>>,
    sc_pv: DFF<Bit>,
    sc_wv: DFF<Bit>,
    sc_vv: DFF<Bit>,
    scan_act: DFF<Bit>,
    scan_g: DFF<Bits<5>>,
    scan_lane: DFF<Bits<6>>,
    scan_slot: DFF<Bits<11>>,
    scan_min: DFF<Bits<PK>>,
    // --- read-out ---
    ro: DFF<Bits<2>>,
    ro_slot: DFF<Bits<10>>,
    ro_left: DFF<Bits<11>>,
    fz_index: DFF<Bits<32>>,
    fz_packets: DFF<Bits<64>>,
    fz_merges: DFF<Bits<64>>,
    fz_joins: DFF<Bits<64>>,
    fz_ksat: DFF<Bit>,
    fz_msat: DFF<Bit>,
    fz_isat: DFF<Bit>,
    // --- combinational ---
    iv_end: Signal<Local, Bits<TW>>,
    t_cur: Signal<Local, Bits<TW>>,
    want_close: Signal<Local, Bit>,
    apply: Signal<Local, Bit>,
    acc_sum: Signal<Local, Bits<33>>,
    mj_sum: Signal<Local, Bits<33>>,
    iv_last: Signal<Local, Bits<TW>>,
    prng: Signal<Local, Bits<32>>,
    prng_step: Signal<Local, Bits<32>>,
    gm: [Signal<Local, Bits<PK>>; LANES],
    l1: [Signal<Local, Bits<PK>>; 16],
    l2: [Signal<Local, Bits<PK>>; 8],
    l4: [Signal<Local, Bits<PK>>; 2],
    rdata: Signal<Local, Bits<REC>>,
    rdf: Signal<Local, Bits<REC>>,
    raddr: Signal<Local, Bits<10>>,
    we: Signal<Local, Bit>,
    waddr: Signal<Local, Bits<10>>,
    wdata: Signal<Local, Bits<REC>>,
    kwe: Signal<Local, Bit>,
    kwaddr: Signal<Local, Bits<10>>,
    kwdata: Signal<Local, Bits<PK>>,
    kraddr: Signal<Local, Bits<10>>,
    ro_addr: Signal<Local, Bits<10>>,
    key_word: Signal<Local, Bits<PK>>,
    tail_g: Signal<Local, Bits<5>>,
    gm_upd: Signal<Local, Bit>,
    gm_upd_g: Signal<Local, Bits<5>>,
    gm_upd_d: Signal<Local, Bits<PK>>,
    gm_clear: Signal<Local, Bit>,
    // the two operands' fields
    xm: Signal<Local, Bits<57>>,
    xn: Signal<Local, Bits<33>>,
    xmax: Signal<Local, Bits<32>>,
    xmin: Signal<Local, Bits<32>>,
    xfc: Signal<Local, Bits<33>>,
    mflow: Signal<Local, Bits<32>>,
    mcount: Signal<Local, Bits<32>>,
    mmass: Signal<Local, Bits<56>>,
    mn: Signal<Local, Bits<32>>,
    merged: Signal<Local, Bits<REC>>,
    kq_next: Signal<Local, Bits<48>>,
    krem_sub: Signal<Local, Bits<WW>>,
    new_rec: Signal<Local, Bits<REC>>,
}

/// A sized constant.
fn konst<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

impl DbmIntervalCore {
    /// The core for `cfg` (validated by the caller; base-interval mode).
    pub fn new(cfg: &DbmConfig) -> Self {
        let m = cfg.buckets;
        assert!((2..=1024).contains(&m) && cfg.base_ticks > 0, "base-interval DBM with 2..=1024 buckets");
        let none: u64 = (1 << 59) - 1;
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
            rec0: SyncRam::with_depth(m),
            rec1: SyncRam::with_depth(m),
            keys: SyncRam::default(),
            unused_ro_prev: Default::default(),
            unused_iv_last: Default::default(),
            st_idle: konst(step::IDLE),
            st_square: konst(step::SQUARE),
            st_start: konst(step::START),
            st_load_tail: konst(step::LOAD_TAIL),
            st_key: konst(step::KEY),
            st_fill: konst(step::FILL),
            st_full: konst(step::FULL),
            st_min_wait: konst(step::MIN_WAIT),
            st_decide: konst(step::DECIDE),
            st_join: konst(step::JOIN),
            st_load_w: konst(step::LOAD_W),
            st_load_v: konst(step::LOAD_V),
            st_draw: konst(step::DRAW),
            st_merge: konst(step::MERGE),
            st_load_p: konst(step::LOAD_P),
            st_key_p: konst(step::KEY_P),
            st_after_p: konst(step::AFTER_P),
            st_load_u: konst(step::LOAD_U),
            st_key_w: konst(step::KEY_W),
            st_load_tail2: konst(step::LOAD_TAIL2),
            st_new: konst(step::NEW),
            st_scan: konst(step::SCAN),
            st_end: konst(step::END),
            ks_idle: konst(key_step::IDLE),
            ks_start: konst(key_step::START),
            ks_mul_nq: konst(key_step::MUL_NQ),
            ks_mul_ss: konst(key_step::MUL_SS),
            ks_mul_nn: konst(key_step::MUL_NN),
            ks_sub: konst(key_step::SUB),
            ks_sat: konst(key_step::SAT),
            ks_div: konst(key_step::DIV),
            ks_done: konst(key_step::DONE),
            rs_idle: konst(read_out::IDLE),
            rs_fetch: konst(read_out::FETCH),
            rs_show: konst(read_out::SHOW),
            rs_end: konst(read_out::END),
            buckets: Constant::new((m as u64).into()),
            delta: Constant::new(cfg.base_ticks.into()),
            last_iv: Constant::new((cfg.intervals() - 1).into()),
            rule_mr: Constant::new(cfg.rule == MergeRule::Mr),
            rule_mv: Constant::new(cfg.rule == MergeRule::Mv),
            seed: Constant::new((cfg.seed as u64).into()),
            none: Constant::new(none.into()),
            key_max: Constant::new(((1u64 << 48) - 1).into()),
            mass_max: Constant::new(((1u64 << 56) - 1).into()),
            count_max: Constant::new((u32::MAX as u64).into()),
            one_tw: konst(1),
            one_11: konst(1),
            one_21: konst(1),
            one_6: konst(1),
            one_64: konst(1),
            zero_10: konst(0),
            zero_11: konst(0),
            zero_32: konst(0),
            zero_6: konst(0),
            zero_w: konst(0),
            zero_21: konst(0),
            zero_48: konst(0),
            zero_64: konst(0),
            zero_65: konst(0),
            zero_pk: konst(0),
            zero_tw: konst(0),
            zero_9: konst(0),
            one_32: konst(1),
            one_48: konst(1),
            lanes_end: konst(LANES as u64),
            div_steps: konst(48),
            min_wait: konst(3),
            kg: std::array::from_fn(|g| Constant::new((g as u64).into())),
            sh5: konst(5),
            sh10: konst(10),
            sh13: konst(13),
            sh17: konst(17),
            sh5_32: konst(5),
            sh32: konst(32),
            sh48: konst(48),
            shr48: konst(48),
            shr96: konst(96),
            shr152: konst(152),
            shr184: konst(184),
            shr268: konst(268),
            shr300: konst(300),
            shr332: konst(332),
            shr364: konst(364),
            shr396: konst(396),
            shr406: konst(406),
            pk_v: Default::default(),
            pk_ts: Default::default(),
            pk_len: Default::default(),
            pk_flow: Default::default(),
            tk: Default::default(),
            iv_start: Default::default(),
            iv: Default::default(),
            acc: Default::default(),
            mj_flow: Default::default(),
            mj_count: Default::default(),
            f_packets: Default::default(),
            f_isat: Default::default(),
            h_v: Default::default(),
            h_first: Default::default(),
            h_last: Default::default(),
            h_s: Default::default(),
            h_flow: Default::default(),
            h_count: Default::default(),
            h_lastp: Default::default(),
            h_packets: Default::default(),
            h_isat: Default::default(),
            step: Default::default(),
            ret: Default::default(),
            nb: Default::default(),
            nb_lastp: Default::default(),
            nb_packets: Default::default(),
            nb_isat: Default::default(),
            opx: Default::default(),
            opy: Default::default(),
            rm: Default::default(),
            live: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            w: Default::default(),
            v: Default::default(),
            p: Default::default(),
            u: Default::default(),
            ns: Default::default(),
            np: Default::default(),
            is_join: Default::default(),
            same: Default::default(),
            wait_cnt: Default::default(),
            prng_x: Default::default(),
            mx: Default::default(),
            my: Default::default(),
            macc: Default::default(),
            st_index: Default::default(),
            st_merges: Default::default(),
            st_joins: Default::default(),
            st_ksat: Default::default(),
            st_msat: Default::default(),
            flip_pending: Default::default(),
            fl_packets: Default::default(),
            fl_isat: Default::default(),
            epoch: Default::default(),
            kst: Default::default(),
            kx: Default::default(),
            ky: Default::default(),
            kacc: Default::default(),
            kn: Default::default(),
            ks: Default::default(),
            knq: Default::default(),
            kss: Default::default(),
            krem: Default::default(),
            kd: Default::default(),
            kq: Default::default(),
            ki: Default::default(),
            kres: Default::default(),
            ksat: Default::default(),
            gm_x: Default::default(),
            t1: Default::default(),
            smin: Default::default(),
            sc_p: Default::default(),
            sc_w: Default::default(),
            sc_v: Default::default(),
            sc_pv: Default::default(),
            sc_wv: Default::default(),
            sc_vv: Default::default(),
            scan_act: Default::default(),
            scan_g: Default::default(),
            scan_lane: Default::default(),
            scan_slot: Default::default(),
            scan_min: Default::default(),
            ro: Default::default(),
            ro_slot: Default::default(),
            ro_left: Default::default(),
            fz_index: Default::default(),
            fz_packets: Default::default(),
            fz_merges: Default::default(),
            fz_joins: Default::default(),
            fz_ksat: Default::default(),
            fz_msat: Default::default(),
            fz_isat: Default::default(),
            iv_end: Default::default(),
            t_cur: Default::default(),
            want_close: Default::default(),
            apply: Default::default(),
            acc_sum: Default::default(),
            mj_sum: Default::default(),
            iv_last: Default::default(),
            prng: Default::default(),
            prng_step: Default::default(),
            gm: Default::default(),
            l1: Default::default(),
            l2: Default::default(),
            l4: Default::default(),
            rdata: Default::default(),
            rdf: Default::default(),
            raddr: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            kwe: Default::default(),
            kwaddr: Default::default(),
            kwdata: Default::default(),
            kraddr: Default::default(),
            ro_addr: Default::default(),
            key_word: Default::default(),
            tail_g: Default::default(),
            gm_upd: Default::default(),
            gm_upd_g: Default::default(),
            gm_upd_d: Default::default(),
            gm_clear: Default::default(),
            xm: Default::default(),
            xn: Default::default(),
            xmax: Default::default(),
            xmin: Default::default(),
            xfc: Default::default(),
            mflow: Default::default(),
            mcount: Default::default(),
            mmass: Default::default(),
            mn: Default::default(),
            merged: Default::default(),
            kq_next: Default::default(),
            krem_sub: Default::default(),
            new_rec: Default::default(),
        }
    }
}

/// Worst-case clocks of one insert, checked against the constant the docs and
/// the drivers use: s² (32), the tail's record and key, the minimum (3 + 2),
/// the merge's three reads, the draw (32), three keys, three group scans (34
/// each) and the writes.
const _: () = assert!(DBM_BASE_INSERT_CLOCKS >= 32 + 4 + 3 * KEY_CLOCKS_MAX + 8 + 32 + 12 + 3 * 34 + 4);
/// Worst-case clocks of a merge-by-variance key: operands, n·Q (21), S²
/// (53), n² (21), subtract, saturation test, 48 quotient bits, done.
const KEY_CLOCKS_MAX: u64 = 1 + 21 + 53 + 21 + 1 + 1 + 48 + 1;

impl Logic for DbmIntervalCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pk_v,
            pk_ts,
            pk_len,
            pk_flow,
            tk,
            iv_start,
            iv,
            acc,
            mj_flow,
            mj_count,
            f_packets,
            f_isat,
            h_v,
            h_first,
            h_last,
            h_s,
            h_flow,
            h_count,
            h_lastp,
            h_packets,
            h_isat,
            step,
            ret,
            nb,
            nb_lastp,
            nb_packets,
            nb_isat,
            opx,
            opy,
            rm,
            live,
            head,
            tail,
            w,
            v,
            p,
            u,
            ns,
            np,
            is_join,
            same,
            wait_cnt,
            prng_x,
            mx,
            my,
            macc,
            st_index,
            st_merges,
            st_joins,
            st_ksat,
            st_msat,
            flip_pending,
            fl_packets,
            fl_isat,
            epoch,
            kst,
            kx,
            ky,
            kacc,
            kn,
            ks,
            knq,
            kss,
            krem,
            kd,
            kq,
            ki,
            kres,
            ksat,
            smin,
            sc_p,
            sc_w,
            sc_v,
            sc_pv,
            sc_wv,
            sc_vv,
            scan_act,
            scan_g,
            scan_lane,
            scan_slot,
            scan_min,
            ro,
            ro_slot,
            ro_left,
            fz_index,
            fz_packets,
            fz_merges,
            fz_joins,
            fz_ksat,
            fz_msat,
            fz_isat
        );
        for g in 0..LANES {
            self.gm_x[g].clock.next = self.clock.val();
            self.gm_x[g].d.next = self.gm_x[g].q.val();
            self.gm[g].next = self.gm_x[g].q.val() ^ self.none.val();
        }
        for j in 0..4 {
            self.t1[j].clock.next = self.clock.val();
            self.t1[j].d.next = self.t1[j].q.val();
        }
        self.rec0.clock.next = self.clock.val();
        self.rec1.clock.next = self.clock.val();
        self.keys.clock.next = self.clock.val();
        self.prng.next = self.prng_x.q.val() ^ self.seed.val();
        self.prng_step.next = self.prng.val() ^ (self.prng.val() << self.sh13.val());
        self.prng_step.next = self.prng_step.val() ^ (self.prng_step.val() >> self.sh17.val());
        self.prng_step.next = self.prng_step.val() ^ (self.prng_step.val() << self.sh5_32.val());

        // ================= interval front end =================
        self.iv_end.next = self.iv_start.q.val() + self.delta.val();
        self.t_cur.next = bit_cast::<TW, 48>(self.tk.q.val());
        if self.pk_v.q.val() {
            self.t_cur.next = bit_cast::<TW, 48>(self.pk_ts.q.val());
        }
        self.want_close.next = !(self.t_cur.val() < self.iv_end.val());
        self.apply.next = self.pk_v.q.val() & !self.want_close.val();
        self.s_ready.next = !self.pk_v.q.val() | self.apply.val();
        self.acc_sum.next = bit_cast::<33, 32>(self.acc.q.val()) + bit_cast::<33, 32>(self.pk_len.q.val());
        self.mj_sum.next = bit_cast::<33, 32>(self.mj_count.q.val()) + bit_cast::<33, 32>(self.pk_len.q.val());
        self.iv_last.next = self.iv_end.val() - self.one_tw.val();
        self.unused_iv_last.sig.next = self.iv_last.val().get_bits::<2>(48);
        if self.apply.val() {
            self.pk_v.d.next = false;
            self.f_packets.d.next = self.f_packets.q.val() + self.one_64.val();
            if self.acc_sum.val().get_bit(32) {
                self.acc.d.next = self.count_max.val();
                self.f_isat.d.next = true;
            } else {
                self.acc.d.next = self.acc_sum.val().get_bits::<32>(0);
            }
            // One step of the weighted one-counter majority (`culprit::majority`).
            if self.mj_count.q.val() == self.zero_32.val() {
                self.mj_flow.d.next = self.pk_flow.q.val();
                self.mj_count.d.next = self.pk_len.q.val();
            } else if self.pk_flow.q.val() == self.mj_flow.q.val() {
                if self.mj_sum.val().get_bit(32) {
                    self.mj_count.d.next = self.count_max.val();
                } else {
                    self.mj_count.d.next = self.mj_sum.val().get_bits::<32>(0);
                }
            } else if self.mj_count.q.val() < self.pk_len.q.val() {
                self.mj_flow.d.next = self.pk_flow.q.val();
                self.mj_count.d.next = self.pk_len.q.val() - self.mj_count.q.val();
            } else {
                self.mj_count.d.next = self.mj_count.q.val() - self.pk_len.q.val();
            }
        }
        if self.want_close.val() & !self.h_v.q.val() {
            self.h_v.d.next = true;
            self.h_first.d.next = self.iv_start.q.val().get_bits::<48>(0);
            self.h_last.d.next = self.iv_last.val().get_bits::<48>(0);
            self.h_s.d.next = self.acc.q.val();
            self.h_flow.d.next = self.mj_flow.q.val();
            self.h_count.d.next = self.mj_count.q.val();
            self.h_lastp.d.next = self.iv.q.val() == self.last_iv.val();
            self.h_packets.d.next = self.f_packets.q.val();
            self.h_isat.d.next = self.f_isat.q.val();
            self.iv_start.d.next = self.iv_end.val();
            self.acc.d.next = self.zero_32.val();
            self.mj_flow.d.next = self.zero_32.val();
            self.mj_count.d.next = self.zero_32.val();
            if self.iv.q.val() == self.last_iv.val() {
                self.iv.d.next = self.zero_21.val();
                self.f_packets.d.next = self.zero_64.val();
                self.f_isat.d.next = false;
            } else {
                self.iv.d.next = self.iv.q.val() + self.one_21.val();
            }
        }
        if self.s_valid.val() & self.s_ready.val() {
            self.pk_v.d.next = true;
            self.pk_ts.d.next = self.s_ts.val();
            self.pk_len.d.next = self.s_len.val();
            self.pk_flow.d.next = self.s_flow.val();
        }
        if self.now_valid.val() {
            self.tk.d.next = self.now.val();
        }

        // ================= record RAM ports (the live copy is `epoch`) =================
        self.rdata.next = self.rec0.read_data.val();
        self.rdf.next = self.rec1.read_data.val();
        if self.epoch.q.val() {
            self.rdata.next = self.rec1.read_data.val();
            self.rdf.next = self.rec0.read_data.val();
        }
        self.raddr.next = self.tail.q.val();
        self.we.next = false;
        self.waddr.next = self.tail.q.val();
        self.wdata.next = self.rm.q.val();
        self.kwe.next = false;
        self.kwaddr.next = self.tail.q.val();
        self.kwdata.next = self.none.val();
        self.key_word.next = bit_cast::<PK, 48>(self.kres.q.val()) << self.sh10.val();
        self.tail_g.next = self.tail.q.val().get_bits::<5>(5);
        self.gm_upd.next = false;
        self.gm_upd_g.next = self.tail_g.val();
        self.gm_upd_d.next = self.none.val();
        self.gm_clear.next = false;

        // ================= merge of opx and opy (combinational) =================
        self.xm.next = bit_cast::<57, 56>(self.opx.q.val().get_bits::<56>(96))
            + bit_cast::<57, 56>(self.opy.q.val().get_bits::<56>(96));
        self.xn.next = bit_cast::<33, 32>(self.opx.q.val().get_bits::<32>(152))
            + bit_cast::<33, 32>(self.opy.q.val().get_bits::<32>(152));
        self.xmax.next = self.opx.q.val().get_bits::<32>(268);
        if self.xmax.val() < self.opy.q.val().get_bits::<32>(268) {
            self.xmax.next = self.opy.q.val().get_bits::<32>(268);
        }
        self.xmin.next = self.opx.q.val().get_bits::<32>(300);
        if self.opy.q.val().get_bits::<32>(300) < self.xmin.val() {
            self.xmin.next = self.opy.q.val().get_bits::<32>(300);
        }
        self.xfc.next = bit_cast::<33, 32>(self.opx.q.val().get_bits::<32>(364))
            + bit_cast::<33, 32>(self.opy.q.val().get_bits::<32>(364));
        // Culprit of the merged pair: same flow adds the counts (saturating);
        // a join steps the tail's majority by the new bucket's (flow, count);
        // otherwise the draw keeps x's flow iff ⌊r·(c_x + c_y) / 2^32⌋ < c_x.
        self.mflow.next = self.opy.q.val().get_bits::<32>(332);
        self.mcount.next = self.opy.q.val().get_bits::<32>(364);
        if self.opx.q.val().get_bits::<32>(332) == self.opy.q.val().get_bits::<32>(332) {
            self.mflow.next = self.opx.q.val().get_bits::<32>(332);
            self.mcount.next = self.xfc.val().get_bits::<32>(0);
            if self.xfc.val().get_bit(32) {
                self.mcount.next = self.count_max.val();
            }
        } else if self.is_join.q.val() {
            if self.opx.q.val().get_bits::<32>(364) == self.zero_32.val() {
                self.mflow.next = self.opy.q.val().get_bits::<32>(332);
                self.mcount.next = self.opy.q.val().get_bits::<32>(364);
            } else if self.opx.q.val().get_bits::<32>(364) < self.opy.q.val().get_bits::<32>(364) {
                self.mflow.next = self.opy.q.val().get_bits::<32>(332);
                self.mcount.next = self.opy.q.val().get_bits::<32>(364) - self.opx.q.val().get_bits::<32>(364);
            } else {
                self.mflow.next = self.opx.q.val().get_bits::<32>(332);
                self.mcount.next = self.opx.q.val().get_bits::<32>(364) - self.opy.q.val().get_bits::<32>(364);
            }
        } else if (self.macc.q.val() >> self.sh32.val()) < bit_cast::<65, 32>(self.opx.q.val().get_bits::<32>(364)) {
            self.mflow.next = self.opx.q.val().get_bits::<32>(332);
            self.mcount.next = self.opx.q.val().get_bits::<32>(364);
        }
        self.mmass.next = self.xm.val().get_bits::<56>(0);
        if self.xm.val().get_bit(56) {
            self.mmass.next = self.mass_max.val();
        }
        self.mn.next = self.xn.val().get_bits::<32>(0);
        if self.xn.val().get_bit(32) {
            self.mn.next = self.count_max.val();
        }
        self.merged.next = bit_cast::<REC, 48>(self.opx.q.val().get_bits::<48>(0))
            | (bit_cast::<REC, 48>(self.opy.q.val().get_bits::<48>(48)) << self.shr48.val())
            | (bit_cast::<REC, 56>(self.mmass.val()) << self.shr96.val())
            | (bit_cast::<REC, 32>(self.mn.val()) << self.shr152.val())
            | (bit_cast::<REC, 84>(self.opx.q.val().get_bits::<84>(184) + self.opy.q.val().get_bits::<84>(184))
                << self.shr184.val())
            | (bit_cast::<REC, 32>(self.xmax.val()) << self.shr268.val())
            | (bit_cast::<REC, 32>(self.xmin.val()) << self.shr300.val())
            | (bit_cast::<REC, 32>(self.mflow.val()) << self.shr332.val())
            | (bit_cast::<REC, 32>(self.mcount.val()) << self.shr364.val())
            | (bit_cast::<REC, 10>(self.opx.q.val().get_bits::<10>(396)) << self.shr396.val());
        // The new bucket with its previous link `np`.
        self.new_rec.next = bit_cast::<REC, 396>(self.nb.q.val().get_bits::<396>(0))
            | (bit_cast::<REC, 10>(self.np.q.val()) << self.shr396.val());

        // ================= key unit: K(opx, opy) into `kres` =================
        self.kq_next.next = self.kq.q.val() << self.one_6.val();
        self.krem_sub.next = self.krem.q.val() - self.kd.q.val();
        // The products n·Q, S² and n² by shift and add, one multiplier bit per clock.
        if ((self.kst.q.val() == self.ks_mul_nq.val())
            | (self.kst.q.val() == self.ks_mul_ss.val())
            | (self.kst.q.val() == self.ks_mul_nn.val()))
            & (self.ky.q.val() != self.zero_w.val())
        {
            if self.ky.q.val().get_bit(0) {
                self.kacc.d.next = self.kacc.q.val() + self.kx.q.val();
            }
            self.kx.d.next = self.kx.q.val() << self.one_6.val();
            self.ky.d.next = self.ky.q.val() >> self.one_6.val();
        }
        match self.kst.q.val().index() {
            0 => {} // Idle
            1 => {
                // Start
                if self.rule_mv.val() {
                    self.kn.d.next = bit_cast::<WW, 33>(self.xn.val());
                    self.ks.d.next = bit_cast::<WW, 57>(self.xm.val());
                    self.kx.d.next = bit_cast::<WW, 85>(
                        bit_cast::<85, 84>(self.opx.q.val().get_bits::<84>(184))
                            + bit_cast::<85, 84>(self.opy.q.val().get_bits::<84>(184)),
                    );
                    self.ky.d.next = bit_cast::<WW, 33>(self.xn.val());
                    self.kacc.d.next = self.zero_w.val();
                    self.kst.d.next = self.ks_mul_nq.val();
                } else if self.rule_mr.val() {
                    self.kres.d.next = bit_cast::<48, 32>(self.xmax.val() - self.xmin.val());
                    self.ksat.d.next = false;
                    self.kst.d.next = self.ks_done.val();
                } else {
                    self.kres.d.next = self.xm.val().get_bits::<48>(0);
                    self.ksat.d.next = false;
                    if self.xm.val().get_bits::<9>(48) != self.zero_9.val() {
                        self.kres.d.next = self.key_max.val();
                        self.ksat.d.next = true;
                    }
                    self.kst.d.next = self.ks_done.val();
                }
            }
            2 => {
                // MulNq
                if self.ky.q.val() == self.zero_w.val() {
                    self.knq.d.next = self.kacc.q.val();
                    self.kacc.d.next = self.zero_w.val();
                    self.kx.d.next = self.ks.q.val();
                    self.ky.d.next = self.ks.q.val();
                    self.kst.d.next = self.ks_mul_ss.val();
                }
            }
            3 => {
                // MulSs
                if self.ky.q.val() == self.zero_w.val() {
                    self.kss.d.next = self.kacc.q.val();
                    self.kacc.d.next = self.zero_w.val();
                    self.kx.d.next = self.kn.q.val();
                    self.ky.d.next = self.kn.q.val();
                    self.kst.d.next = self.ks_mul_nn.val();
                }
            }
            4 => {
                // MulNn
                if self.ky.q.val() == self.zero_w.val() {
                    self.kd.d.next = self.kacc.q.val() << self.sh48.val();
                    self.kst.d.next = self.ks_sub.val();
                }
            }
            5 => {
                // Sub
                self.krem.d.next = self.knq.q.val() - self.kss.q.val();
                self.kst.d.next = self.ks_sat.val();
            }
            6 => {
                // Sat
                if !(self.krem.q.val() < self.kd.q.val()) {
                    self.kres.d.next = self.key_max.val();
                    self.ksat.d.next = true;
                    self.kst.d.next = self.ks_done.val();
                } else {
                    self.ksat.d.next = false;
                    self.kd.d.next = self.kd.q.val() >> self.one_6.val();
                    self.kq.d.next = self.zero_48.val();
                    self.ki.d.next = self.div_steps.val();
                    self.kst.d.next = self.ks_div.val();
                }
            }
            7 => {
                // Div
                self.kq.d.next = self.kq_next.val();
                if !(self.krem.q.val() < self.kd.q.val()) {
                    self.krem.d.next = self.krem_sub.val();
                    self.kq.d.next = self.kq_next.val() | self.one_48.val();
                }
                self.kd.d.next = self.kd.q.val() >> self.one_6.val();
                self.ki.d.next = self.ki.q.val() - self.one_6.val();
                if self.ki.q.val() == self.one_6.val() {
                    self.kres.d.next = self.kq_next.val();
                    if !(self.krem.q.val() < self.kd.q.val()) {
                        self.kres.d.next = self.kq_next.val() | self.one_48.val();
                    }
                    self.kst.d.next = self.ks_done.val();
                }
            }
            8 => {} // Done
            _ => {}
        }

        // ================= min structure: 32-way comparator over the group minima =================
        for j in 0..16 {
            self.l1[j].next = self.gm[2 * j].val();
            if self.gm[2 * j + 1].val() < self.gm[2 * j].val() {
                self.l1[j].next = self.gm[2 * j + 1].val();
            }
        }
        for j in 0..8 {
            self.l2[j].next = self.l1[2 * j].val();
            if self.l1[2 * j + 1].val() < self.l1[2 * j].val() {
                self.l2[j].next = self.l1[2 * j + 1].val();
            }
        }
        for j in 0..4 {
            self.t1[j].d.next = self.l2[2 * j].val();
            if self.l2[2 * j + 1].val() < self.l2[2 * j].val() {
                self.t1[j].d.next = self.l2[2 * j + 1].val();
            }
        }
        for j in 0..2 {
            self.l4[j].next = self.t1[2 * j].q.val();
            if self.t1[2 * j + 1].q.val() < self.t1[2 * j].q.val() {
                self.l4[j].next = self.t1[2 * j + 1].q.val();
            }
        }
        self.smin.d.next = self.l4[0].val();
        if self.l4[1].val() < self.l4[0].val() {
            self.smin.d.next = self.l4[1].val();
        }

        // ================= group re-minimisation (reads the key RAM) =================
        self.kraddr.next = bit_cast::<10, 5>(self.scan_g.q.val()) << self.sh5.val()
            | bit_cast::<10, 5>(self.scan_lane.q.val().get_bits::<5>(0));

        // ================= list back end =================
        match self.step.q.val().index() {
            0 => {
                // Idle
                if self.flip_pending.q.val() {
                    if self.ro.q.val() == self.rs_idle.val() {
                        // Flip: freeze the period, start its read-out, open the next.
                        self.flip_pending.d.next = false;
                        self.epoch.d.next = !self.epoch.q.val();
                        self.fz_index.d.next = self.st_index.q.val();
                        self.fz_packets.d.next = self.fl_packets.q.val();
                        self.fz_merges.d.next = self.st_merges.q.val();
                        self.fz_joins.d.next = self.st_joins.q.val();
                        self.fz_ksat.d.next = self.st_ksat.q.val();
                        self.fz_msat.d.next = self.st_msat.q.val();
                        self.fz_isat.d.next = self.fl_isat.q.val();
                        self.ro_slot.d.next = self.head.q.val();
                        self.ro_left.d.next = self.live.q.val();
                        self.ro.d.next = self.rs_fetch.val();
                        if self.live.q.val() == self.zero_11.val() {
                            self.ro.d.next = self.rs_end.val();
                        }
                        self.st_index.d.next = self.st_index.q.val() + self.one_32.val();
                        self.st_merges.d.next = self.zero_64.val();
                        self.st_joins.d.next = self.zero_64.val();
                        self.st_ksat.d.next = false;
                        self.st_msat.d.next = false;
                        self.live.d.next = self.zero_11.val();
                        self.gm_clear.next = true;
                    }
                } else if self.h_v.q.val() {
                    // Take the closed interval: its bucket {first, last, s, n = 1, s², s, s, majority}.
                    self.h_v.d.next = false;
                    self.nb.d.next = bit_cast::<REC, 48>(self.h_first.q.val())
                        | (bit_cast::<REC, 48>(self.h_last.q.val()) << self.shr48.val())
                        | (bit_cast::<REC, 32>(self.h_s.q.val()) << self.shr96.val())
                        | (bit_cast::<REC, 32>(self.one_32.val()) << self.shr152.val())
                        | (bit_cast::<REC, 32>(self.h_s.q.val()) << self.shr268.val())
                        | (bit_cast::<REC, 32>(self.h_s.q.val()) << self.shr300.val())
                        | (bit_cast::<REC, 32>(self.h_flow.q.val()) << self.shr332.val())
                        | (bit_cast::<REC, 32>(self.h_count.q.val()) << self.shr364.val());
                    self.nb_lastp.d.next = self.h_lastp.q.val();
                    self.nb_packets.d.next = self.h_packets.q.val();
                    self.nb_isat.d.next = self.h_isat.q.val();
                    self.mx.d.next = bit_cast::<65, 32>(self.h_s.q.val());
                    self.my.d.next = self.h_s.q.val();
                    self.macc.d.next = self.zero_65.val();
                    self.step.d.next = self.st_square.val();
                }
            }
            1 => {
                // Square
                if self.my.q.val() != self.zero_32.val() {
                    if self.my.q.val().get_bit(0) {
                        self.macc.d.next = self.macc.q.val() + self.mx.q.val();
                    }
                    self.mx.d.next = self.mx.q.val() << self.one_6.val();
                    self.my.d.next = self.my.q.val() >> self.one_6.val();
                } else {
                    self.nb.d.next = self.nb.q.val() | (bit_cast::<REC, 65>(self.macc.q.val()) << self.shr184.val());
                    self.step.d.next = self.st_start.val();
                }
            }
            2 => {
                // Start
                if self.live.q.val() == self.zero_11.val() {
                    self.ns.d.next = self.zero_10.val();
                    self.np.d.next = self.zero_10.val();
                    self.head.d.next = self.zero_10.val();
                    self.step.d.next = self.st_new.val();
                } else {
                    self.raddr.next = self.tail.q.val();
                    self.step.d.next = self.st_load_tail.val();
                }
            }
            3 => {
                // LoadTail
                self.opx.d.next = self.rdata.val();
                self.opy.d.next = self.nb.q.val();
                self.kst.d.next = self.ks_start.val();
                self.step.d.next = self.st_key.val();
                self.ret.d.next = self.st_full.val();
                if self.live.q.val() < self.buckets.val() {
                    self.ret.d.next = self.st_fill.val();
                }
            }
            4 => {
                // Key
                if self.kst.q.val() == self.ks_done.val() {
                    self.kst.d.next = self.ks_idle.val();
                    self.st_ksat.d.next = self.st_ksat.q.val() | self.ksat.q.val();
                    self.step.d.next = self.ret.q.val();
                }
            }
            5 => {
                // Fill
                // The old tail gets its key and its next link (the new slot `live`).
                self.kwe.next = true;
                self.kwaddr.next = self.tail.q.val();
                self.kwdata.next = self.key_word.val() | bit_cast::<PK, 10>(self.tail.q.val());
                self.gm_upd.next = true;
                self.gm_upd_d.next = self.key_word.val() | bit_cast::<PK, 10>(self.tail.q.val());
                self.we.next = true;
                self.waddr.next = self.tail.q.val();
                self.wdata.next = bit_cast::<REC, 406>(self.opx.q.val().get_bits::<406>(0))
                    | (bit_cast::<REC, 10>(self.live.q.val().get_bits::<10>(0)) << self.shr406.val());
                self.ns.d.next = self.live.q.val().get_bits::<10>(0);
                self.np.d.next = self.tail.q.val();
                self.step.d.next = self.st_new.val();
            }
            6 => {
                // Full
                // The tail's key K(tail, b) enters its group (it was "none").
                self.kwe.next = true;
                self.kwaddr.next = self.tail.q.val();
                self.kwdata.next = self.key_word.val() | bit_cast::<PK, 10>(self.tail.q.val());
                self.gm_upd.next = true;
                self.gm_upd_d.next = self.key_word.val() | bit_cast::<PK, 10>(self.tail.q.val());
                self.wait_cnt.d.next = self.min_wait.val();
                self.step.d.next = self.st_min_wait.val();
            }
            7 => {
                // MinWait
                self.wait_cnt.d.next = self.wait_cnt.q.val() - self.one_6.val();
                if self.wait_cnt.q.val() == self.zero_6.val() {
                    self.w.d.next = self.smin.q.val().get_bits::<10>(0);
                    self.step.d.next = self.st_decide.val();
                }
            }
            8 => {
                // Decide
                if self.w.q.val() == self.tail.q.val() {
                    self.is_join.d.next = true;
                    self.step.d.next = self.st_join.val();
                } else {
                    self.is_join.d.next = false;
                    self.raddr.next = self.w.q.val();
                    self.step.d.next = self.st_load_w.val();
                }
            }
            9 => {
                // Join
                // b joins the tail: the tail's record becomes the merged one, its key none.
                self.rm.d.next = self.merged.val();
                self.we.next = true;
                self.waddr.next = self.tail.q.val();
                self.wdata.next = self.merged.val();
                self.kwe.next = true;
                self.kwaddr.next = self.tail.q.val();
                self.kwdata.next = self.none.val();
                self.st_merges.d.next = self.st_merges.q.val() + self.one_64.val();
                self.st_joins.d.next = self.st_joins.q.val() + self.one_64.val();
                self.st_msat.d.next = self.st_msat.q.val() | self.xm.val().get_bit(56);
                self.sc_w.d.next = self.tail_g.val();
                self.sc_wv.d.next = true;
                self.p.d.next = self.opx.q.val().get_bits::<10>(396);
                if self.tail.q.val() == self.head.q.val() {
                    self.step.d.next = self.st_scan.val();
                } else {
                    self.raddr.next = self.opx.q.val().get_bits::<10>(396);
                    self.step.d.next = self.st_load_p.val();
                }
            }
            10 => {
                // LoadW
                self.opx.d.next = self.rdata.val();
                self.p.d.next = self.rdata.val().get_bits::<10>(396);
                self.v.d.next = self.rdata.val().get_bits::<10>(406);
                self.raddr.next = self.rdata.val().get_bits::<10>(406);
                self.step.d.next = self.st_load_v.val();
            }
            11 => {
                // LoadV
                self.opy.d.next = self.rdata.val();
                self.u.d.next = self.rdata.val().get_bits::<10>(406);
                if self.opx.q.val().get_bits::<32>(332) == self.rdata.val().get_bits::<32>(332) {
                    self.step.d.next = self.st_merge.val();
                } else {
                    // The draw: r = the next xorshift32 state, times c_w + c_v.
                    self.prng_x.d.next = self.prng_step.val() ^ self.seed.val();
                    self.mx.d.next = bit_cast::<65, 33>(
                        bit_cast::<33, 32>(self.opx.q.val().get_bits::<32>(364))
                            + bit_cast::<33, 32>(self.rdata.val().get_bits::<32>(364)),
                    );
                    self.my.d.next = self.prng_step.val();
                    self.macc.d.next = self.zero_65.val();
                    self.step.d.next = self.st_draw.val();
                }
            }
            12 => {
                // Draw
                if self.my.q.val() != self.zero_32.val() {
                    if self.my.q.val().get_bit(0) {
                        self.macc.d.next = self.macc.q.val() + self.mx.q.val();
                    }
                    self.mx.d.next = self.mx.q.val() << self.one_6.val();
                    self.my.d.next = self.my.q.val() >> self.one_6.val();
                } else {
                    self.step.d.next = self.st_merge.val();
                }
            }
            13 => {
                // Merge
                // (w, v) become one bucket in slot w.
                self.rm.d.next = self.merged.val();
                self.st_merges.d.next = self.st_merges.q.val() + self.one_64.val();
                self.st_msat.d.next = self.st_msat.q.val() | self.xm.val().get_bit(56);
                if self.w.q.val() == self.head.q.val() {
                    self.step.d.next = self.st_after_p.val();
                } else {
                    self.raddr.next = self.p.q.val();
                    self.step.d.next = self.st_load_p.val();
                }
            }
            14 => {
                // LoadP
                self.opx.d.next = self.rdata.val();
                self.opy.d.next = self.rm.q.val();
                self.kst.d.next = self.ks_start.val();
                self.ret.d.next = self.st_key_p.val();
                self.step.d.next = self.st_key.val();
            }
            15 => {
                // KeyP
                self.kwe.next = true;
                self.kwaddr.next = self.p.q.val();
                self.kwdata.next = self.key_word.val() | bit_cast::<PK, 10>(self.p.q.val());
                self.sc_p.d.next = self.p.q.val().get_bits::<5>(5);
                self.sc_pv.d.next = true;
                self.step.d.next = self.st_after_p.val();
                if self.is_join.q.val() {
                    self.step.d.next = self.st_scan.val();
                }
            }
            16 => {
                // AfterP
                self.opx.d.next = self.rm.q.val();
                if self.v.q.val() == self.tail.q.val() {
                    self.opy.d.next = self.nb.q.val();
                    self.kst.d.next = self.ks_start.val();
                    self.ret.d.next = self.st_key_w.val();
                    self.step.d.next = self.st_key.val();
                } else {
                    self.raddr.next = self.u.q.val();
                    self.step.d.next = self.st_load_u.val();
                }
            }
            17 => {
                // LoadU
                // u's previous link becomes w.
                self.we.next = true;
                self.waddr.next = self.u.q.val();
                self.wdata.next = bit_cast::<REC, 396>(self.rdata.val().get_bits::<396>(0))
                    | (bit_cast::<REC, 10>(self.w.q.val()) << self.shr396.val())
                    | (bit_cast::<REC, 10>(self.rdata.val().get_bits::<10>(406)) << self.shr406.val());
                self.opy.d.next = self.rdata.val();
                self.kst.d.next = self.ks_start.val();
                self.ret.d.next = self.st_key_w.val();
                self.step.d.next = self.st_key.val();
            }
            18 => {
                // KeyW
                // w's key and record: next link v (v was the tail) or u.
                self.kwe.next = true;
                self.kwaddr.next = self.w.q.val();
                self.kwdata.next = self.key_word.val() | bit_cast::<PK, 10>(self.w.q.val());
                self.sc_w.d.next = self.w.q.val().get_bits::<5>(5);
                self.sc_wv.d.next = true;
                self.we.next = true;
                self.waddr.next = self.w.q.val();
                self.wdata.next = bit_cast::<REC, 406>(self.rm.q.val().get_bits::<406>(0))
                    | (bit_cast::<REC, 10>(self.u.q.val()) << self.shr406.val());
                if self.v.q.val() == self.tail.q.val() {
                    self.wdata.next = bit_cast::<REC, 406>(self.rm.q.val().get_bits::<406>(0))
                        | (bit_cast::<REC, 10>(self.v.q.val()) << self.shr406.val());
                    self.ns.d.next = self.v.q.val();
                    self.np.d.next = self.w.q.val();
                    self.step.d.next = self.st_new.val();
                } else {
                    self.raddr.next = self.tail.q.val();
                    self.step.d.next = self.st_load_tail2.val();
                }
            }
            19 => {
                // LoadTail2
                // The old tail links to v, the new tail.
                self.we.next = true;
                self.waddr.next = self.tail.q.val();
                self.wdata.next = bit_cast::<REC, 406>(self.rdata.val().get_bits::<406>(0))
                    | (bit_cast::<REC, 10>(self.v.q.val()) << self.shr406.val());
                self.ns.d.next = self.v.q.val();
                self.np.d.next = self.tail.q.val();
                self.step.d.next = self.st_new.val();
            }
            20 => {
                // New
                // b becomes the tail in slot ns, its key none.
                self.we.next = true;
                self.waddr.next = self.ns.q.val();
                self.wdata.next = self.new_rec.val();
                self.kwe.next = true;
                self.kwaddr.next = self.ns.q.val();
                self.kwdata.next = self.none.val();
                self.tail.d.next = self.ns.q.val();
                if self.live.q.val() < self.buckets.val() {
                    self.live.d.next = self.live.q.val() + self.one_11.val();
                    self.step.d.next = self.st_end.val();
                } else {
                    self.sc_v.d.next = self.ns.q.val().get_bits::<5>(5);
                    self.sc_vv.d.next = true;
                    self.step.d.next = self.st_scan.val();
                }
            }
            21 => {
                // Scan
                if !self.scan_act.q.val() {
                    self.scan_lane.d.next = self.zero_6.val();
                    self.scan_min.d.next = self.none.val();
                    self.scan_act.d.next = true;
                    if self.sc_pv.q.val() {
                        self.sc_pv.d.next = false;
                        self.scan_g.d.next = self.sc_p.q.val();
                    } else if self.sc_wv.q.val() {
                        self.sc_wv.d.next = false;
                        self.scan_g.d.next = self.sc_w.q.val();
                    } else if self.sc_vv.q.val() {
                        self.sc_vv.d.next = false;
                        self.scan_g.d.next = self.sc_v.q.val();
                    } else {
                        self.scan_act.d.next = false;
                        self.step.d.next = self.st_end.val();
                    }
                } else {
                    // Lane `scan_lane` is read; the key read a clock ago (slot `scan_slot`) arrives.
                    self.scan_lane.d.next = self.scan_lane.q.val() + self.one_6.val();
                    self.scan_slot.d.next = bit_cast::<11, 10>(self.kraddr.val());
                    if (self.scan_lane.q.val() != self.zero_6.val())
                        & (self.scan_slot.q.val() < self.buckets.val())
                        & (self.keys.read_data.val() < self.scan_min.q.val())
                    {
                        self.scan_min.d.next = self.keys.read_data.val();
                    }
                    if self.scan_lane.q.val() == self.lanes_end.val() {
                        self.scan_act.d.next = false;
                        self.gm_upd.next = true;
                        self.gm_upd_g.next = self.scan_g.q.val();
                        self.gm_upd_d.next = self.scan_min.q.val();
                        if (self.scan_slot.q.val() < self.buckets.val())
                            & (self.keys.read_data.val() < self.scan_min.q.val())
                        {
                            self.gm_upd_d.next = self.keys.read_data.val();
                        }
                    }
                }
            }
            22 => {
                // End
                if self.nb_lastp.q.val() {
                    self.flip_pending.d.next = true;
                    self.fl_packets.d.next = self.nb_packets.q.val();
                    self.fl_isat.d.next = self.nb_isat.q.val();
                }
                self.step.d.next = self.st_idle.val();
            }
            _ => {}
        }

        // ================= group minima write port =================
        for g in 0..LANES {
            if self.gm_upd.val() & (self.gm_upd_g.val() == self.kg[g].val()) {
                if self.step.q.val() == self.st_scan.val() {
                    self.gm_x[g].d.next = self.gm_upd_d.val() ^ self.none.val();
                } else if self.gm_upd_d.val() < self.gm[g].val() {
                    self.gm_x[g].d.next = self.gm_upd_d.val() ^ self.none.val();
                }
            }
            if self.gm_clear.val() {
                self.gm_x[g].d.next = self.zero_pk.val();
            }
        }

        // ================= RAM ports (the read-out reads the frozen copy at `ro_slot`) =================
        self.ro_addr.next = self.ro_slot.q.val();
        self.rec0.read_address.next = self.raddr.val();
        self.rec1.read_address.next = self.ro_addr.val();
        self.rec0.write_address.next = self.waddr.val();
        self.rec1.write_address.next = self.waddr.val();
        self.rec0.write_data.next = self.wdata.val();
        self.rec1.write_data.next = self.wdata.val();
        self.rec0.write_enable.next = self.we.val() & !self.epoch.q.val();
        self.rec1.write_enable.next = self.we.val() & self.epoch.q.val();
        if self.epoch.q.val() {
            self.rec0.read_address.next = self.ro_addr.val();
            self.rec1.read_address.next = self.raddr.val();
        }
        self.keys.read_address.next = self.kraddr.val();
        self.keys.write_address.next = self.kwaddr.val();
        self.keys.write_data.next = self.kwdata.val();
        self.keys.write_enable.next = self.kwe.val();

        // ================= read-out of the frozen copy =================
        match self.ro.q.val().index() {
            0 => {} // Idle
            1 => {
                // Fetch
                self.ro.d.next = self.rs_show.val();
            }
            2 => {
                // Show
                if self.m_ro_ready.val() {
                    self.ro_left.d.next = self.ro_left.q.val() - self.one_11.val();
                    if self.ro_left.q.val() == self.one_11.val() {
                        self.ro.d.next = self.rs_end.val();
                    } else {
                        self.ro_slot.d.next = self.rdf.val().get_bits::<10>(406);
                        self.ro.d.next = self.rs_fetch.val();
                    }
                }
            }
            3 => {
                // End
                if self.m_ro_ready.val() {
                    self.ro.d.next = self.rs_idle.val();
                }
            }
            _ => {}
        }
        self.m_ro_valid.next = (self.ro.q.val() == self.rs_show.val()) | (self.ro.q.val() == self.rs_end.val());
        self.m_ro_end.next = self.ro.q.val() == self.rs_end.val();
        self.m_ro_first.next = self.rdf.val().get_bits::<48>(0);
        self.m_ro_last_ts.next = self.rdf.val().get_bits::<48>(48);
        self.m_ro_mass.next = self.rdf.val().get_bits::<56>(96);
        self.m_ro_n.next = self.rdf.val().get_bits::<32>(152);
        self.m_ro_sumsq.next = self.rdf.val().get_bits::<84>(184);
        self.m_ro_max.next = self.rdf.val().get_bits::<32>(268);
        self.m_ro_min.next = self.rdf.val().get_bits::<32>(300);
        self.m_ro_flow.next = self.rdf.val().get_bits::<32>(332);
        self.m_ro_flow_count.next = self.rdf.val().get_bits::<32>(364);
        self.unused_ro_prev.sig.next = self.rdf.val().get_bits::<10>(396);
        self.period_index.next = self.fz_index.q.val();
        self.period_packets.next = self.fz_packets.q.val();
        self.period_merges.next = self.fz_merges.q.val();
        self.period_tail_joins.next = self.fz_joins.q.val();
        self.period_key_saturated.next = self.fz_ksat.q.val();
        self.period_mass_saturated.next = self.fz_msat.q.val();
        self.period_interval_saturated.next = self.fz_isat.q.val();

        // ================= synchronous reset =================
        if self.reset.val() {
            self.pk_v.d.next = false;
            self.tk.d.next = self.zero_48.val();
            self.iv_start.d.next = self.zero_tw.val();
            self.iv.d.next = self.zero_21.val();
            self.acc.d.next = self.zero_32.val();
            self.mj_flow.d.next = self.zero_32.val();
            self.mj_count.d.next = self.zero_32.val();
            self.f_packets.d.next = self.zero_64.val();
            self.f_isat.d.next = false;
            self.h_v.d.next = false;
            self.step.d.next = self.st_idle.val();
            self.kst.d.next = self.ks_idle.val();
            self.live.d.next = self.zero_11.val();
            self.prng_x.d.next = self.zero_32.val();
            self.st_index.d.next = self.zero_32.val();
            self.st_merges.d.next = self.zero_64.val();
            self.st_joins.d.next = self.zero_64.val();
            self.st_ksat.d.next = false;
            self.st_msat.d.next = false;
            self.flip_pending.d.next = false;
            self.sc_pv.d.next = false;
            self.sc_wv.d.next = false;
            self.sc_vv.d.next = false;
            self.scan_act.d.next = false;
            self.ro.d.next = self.rs_idle.val();
            for g in 0..LANES {
                self.gm_x[g].d.next = self.zero_pk.val();
            }
        }
    }
}
