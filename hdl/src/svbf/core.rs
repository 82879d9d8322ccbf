//! SVBF store core: MAPLE's packet latency store at one packet per clock
//! (Lee, Duffield, Kompella, SIGMETRICS 2012, §3.2 delay centers, §3.3.3
//! shared-vector Bloom filter, §4 queries, §6 hardware), with a query engine
//! on the frozen epoch answering one query per clock.
//!
//! Insert pipeline (a packet accepted at t):
//! - **s1** (t+1) latency registered, and the key in every hash unit's own
//!   key register (one copy per unit, kept apart in synthesis, so no one
//!   register drives all h XOR networks across the die); the classifier compares the
//!   latency with the 63 active boundaries (`use_j` & `b_j ≤ latency`), each
//!   compare as registered 16-bit halves, each group of 16 boundaries from a
//!   latency copy of its own ([`KeptReg`]).
//! - **s2** (t+2) hashes h_j(key) out of their registers; the halves
//!   combined and the compare bits counted in sixteen groups of four.
//! - **s3** (t+3) the group counts summed by fours (four quarter counts).
//! - **s4** (t+4) center i = the sum of the quarter counts (the number of
//!   boundaries at or below the latency).
//! - **s5** (t+5) bit position (h_j + i) mod 2^P for every partition.
//! - **s6** (t+6) the update registered again, a bit register per
//!   partition (placed beside its banks: the path across the die carries
//!   no logic).
//! - **s7** (t+7) every [`SvbfPartition`] sets its bit; the center bank
//!   adds {1, latency} to row i.
//!
//! Epochs: a `flip` taken at t travels with the packet slot of t (that
//! packet is still in the old epoch). When it passes s1, the boundaries and
//! the center count written into the shadow registers since the last flip
//! become active, and the old epoch's center mask is kept for its queries;
//! at s7 every bank flips. The partitions hold the frozen epoch for queries
//! (`held`, kept in a core register beside the banks' own state: the hold
//! begins after their seven-clock drain) until `release_frozen`; the center bank streams its 64 rows {count,
//! latency sum} out after the drain through a two-entry [`SkidBuffer`] (its
//! outputs and the ready it gives the bank are registers, so no later take
//! reaches the bank's read-out state); the [`SvbfAnswer`] unit takes each
//! row into the frozen epoch's center table and divides it into the refined
//! estimate (§3.3; a row is passed on only while its divider is free) as the
//! row enters a second skid buffer, the port stage, which presents it on
//! `m_ro_*` (registered outputs; `m_ro_ready` reaches only that stage).
//! `flip_ready` (a register) rises the clock after every bank is clean, both
//! read-out stages are empty (the consumer has taken every row), no flip is
//! on its way and no divider is busy; it falls the clock after a flip is taken.
//!
//! Query pipeline (a query accepted at c, one per clock while held and the
//! center table is refined): c+1 key registered (in each hash unit), c+2 hashes, c+3 … c+10 the
//! partitions' window reads (see [`SvbfPartition`]), c+10 AND of the windows
//! and the frozen epoch's k-bit mask, c+11 … c+17 the answer unit's
//! tie-break by the centers' ranks (largest count, lowest index among equal
//! counts, §3.3.4) and beside it the kind (counted per group of eight at
//! c+12, decided at c+13), c+17 … c+20 the winner's row read from the
//! table's block RAM, c+22 result with the query's tag, chosen center, its
//! count and refined latency.
//! A release waits until no query is still on its way to the banks; `held`
//! falls the clock after it is taken, and the partitions take it a clock
//! later (`rel_go`, a register per partition beside its banks).
//!
//! Per-clock model: `netmeas_sim::svbf::cycle::SvbfCycle`.

use super::answer::SvbfAnswer;
use super::partition::SvbfPartition;
use crate::common::clear_sequence::ClearSequence;
use crate::common::h3::H3Unit;
use crate::common::kept_reg::KeptReg;
use crate::common::rmw_bank::{RmwBank, flip_to_held};
use crate::common::skid_buffer::SkidBuffer;
use crate::common::unused::Unused;
use netmeas_sim::h3::H3Config;
use netmeas_sim::svbf::SvbfConfig;
use netmeas_sim::svbf::cycle::SVBF_PART_READ_STAGES;
use rust_hdl::prelude::*;

/// Boundaries of the classifier (k ≤ 64 centers).
const BOUNDS: usize = 63;
/// Copies of the s1 latency register, each beside the compares of 16 boundaries.
const LAT_COPIES: usize = 4;
/// Rows of the center bank (one per center).
const CENTER_ROWS: u64 = 64;
/// Registers between `s8_flip` and `held_m`: the token reaches `held_m` on the clock the
/// partitions' banks report `held` (`s8_flip` is a clock after the banks take the flip,
/// `held_m` a clock after the chain's last register). The chain is indexed by literals in
/// `update` (`hf[5]`), which this length must match.
const HOLD_CHAIN: usize = 6;
const _: () = assert!(
    1 + HOLD_CHAIN + 1 == flip_to_held(SVBF_PART_READ_STAGES),
    "the hold chain must follow the partitions' drain"
);

/// SVBF store with `H` hash functions, partitions of 2^`P` bits (`WA` = P − 6, `A` = P − 7).
#[derive(LogicBlock)]
pub struct SvbfCore<const H: usize, const P: usize, const WA: usize, const A: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, registered at the boundary (it acts one clock after it is sampled): drops
    /// packets and queries in flight, those taken in the clock it is sampled and the next
    /// included, and clears every bank (the CSRs keep their values).
    pub reset: Signal<In, Bit>,
    // --- packet stream ---
    /// A packet is offered.
    pub s_valid: Signal<In, Bit>,
    /// Packets are accepted (low only while the banks clear after reset: the largest bank's
    /// rows + 1 clocks, counted by the core itself).
    pub s_ready: Signal<Out, Bit>,
    /// Packet key (§4: a digest of the invariant header fields and a few payload bytes).
    pub s_key: Signal<In, Bits<64>>,
    /// The packet's latency, ticks.
    pub s_latency: Signal<In, Bits<32>>,
    // --- CSR write port (register map in docs/cores/svbf.md) ---
    /// Write strobe.
    pub csr_we: Signal<In, Bit>,
    /// Word address: 0..=62 boundary b_{addr+1}, 63 the number of boundaries k − 1.
    pub csr_addr: Signal<In, Bits<6>>,
    /// Write data.
    pub csr_wdata: Signal<In, Bits<32>>,
    // --- epochs ---
    /// Request an epoch flip.
    pub flip: Signal<In, Bit>,
    /// A flip requested now is taken.
    pub flip_ready: Signal<Out, Bit>,
    /// The live copy of every bank.
    pub live_epoch: Signal<Out, Bit>,
    /// The frozen epoch is held for queries.
    pub held: Signal<Out, Bit>,
    /// Release the held epoch (it clears; a release while nothing is held is ignored).
    pub release_frozen: Signal<In, Bit>,
    // --- query stream (frozen epoch) ---
    /// A query is offered.
    pub q_valid: Signal<In, Bit>,
    /// Queries are accepted (held, the frozen epoch's center table refined, no release pending).
    pub q_ready: Signal<Out, Bit>,
    /// The packet key looked up.
    pub q_key: Signal<In, Bits<64>>,
    /// Tag returned with the result.
    pub q_tag: Signal<In, Bits<16>>,
    // --- result stream (twenty clocks after the query; no back-pressure) ---
    /// A result is presented.
    pub r_valid: Signal<Out, Bit>,
    /// The query's tag.
    pub r_tag: Signal<Out, Bits<16>>,
    /// 0 No-Match, 1 Match, 2 Multi-Match.
    pub r_kind: Signal<Out, Bits<2>>,
    /// The chosen center: the only candidate, or among several the one with the
    /// largest count in the frozen epoch, the lowest index among equal counts (§3.3.4; 0 for No-Match).
    pub r_center: Signal<Out, Bits<6>>,
    /// The chosen center's packet count in the frozen epoch (0 with a candidate: an empty center).
    pub r_count: Signal<Out, Bits<32>>,
    /// Its refined latency ⌊sum / count⌋ (§3.3; 0 for an empty center or No-Match).
    pub r_latency: Signal<Out, Bits<32>>,
    /// The AND of the h windows: bit i set = center i possible.
    pub r_candidates: Signal<Out, Bits<64>>,
    // --- read-out of the frozen epoch's center counters (the payload is meaningful while valid) ---
    /// A center row is presented (rows in order 0 … 63, each once per epoch).
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Its center index.
    pub m_ro_center: Signal<Out, Bits<6>>,
    /// Packets of the center (mod 2^32).
    pub m_ro_count: Signal<Out, Bits<32>>,
    /// Their latency sum (mod 2^48).
    pub m_ro_sum: Signal<Out, Bits<48>>,
    /// Center 63, the last row.
    pub m_ro_last: Signal<Out, Bit>,
    // --- status ---
    /// A center count wrapped since the flag was last cleared.
    pub ovf_sticky: Signal<Out, Bit>,
    /// Clear the overflow flag.
    pub ovf_clear: Signal<In, Bit>,
    // --- blocks ---
    hash: [H3Unit<64, P>; H],
    qhash: [H3Unit<64, P>; H],
    parts: [SvbfPartition<P, WA, A>; H],
    centers: RmwBank<80, 6>,
    /// The center bank's read-out stream, registered on its way to the answer unit and the
    /// port: beats {last, row, sum, count} (1 + 6 + 48 + 32 bits, count lowest).
    ro_skid: SkidBuffer<Bits<87>>,
    /// The port stage: rows the answer unit has taken, on their way to `m_ro_*`. Its outputs
    /// and the ready it gives the answer unit are registers, so `m_ro_ready` reaches only this
    /// stage and never the answer unit's divider state.
    ro_port: SkidBuffer<Bits<87>>,
    answer: SvbfAnswer,
    hash_valid_sink: [Unused<Bit>; H],
    qhash_valid_sink: [Unused<Bit>; H],
    centers_held_sink: Unused<Bit>,
    /// The banks' own "cleared after reset" flags (the core counts the same clocks: `init_*`).
    ready_sink: [Unused<Bit>; H],
    centers_ready_sink: Unused<Bit>,
    centers_q_sink: Unused<Bits<80>>,
    /// The stages' flag copies the core has no use for (the answer unit reads the read-out
    /// stage's valid copy and the port stage's ready copy).
    ro_skid_ready_sink: Unused<Bit>,
    ro_port_valid_sink: Unused<Bit>,
    // --- constants ---
    idx6: [Constant<Bits<6>>; BOUNDS],
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    thirty_two: Constant<Bits<7>>,
    one3: Constant<Bits<3>>,
    zero3: Constant<Bits<3>>,
    zero6: Constant<Bits<6>>,
    ones64: Constant<Bits<64>>,
    zero8: Constant<Bits<8>>,
    one4: Constant<Bits<4>>,
    zero4: Constant<Bits<4>>,
    zero64: Constant<Bits<64>>,
    c63: Constant<Bits<6>>,
    kind_none: Constant<Bits<2>>,
    kind_match: Constant<Bits<2>>,
    kind_multi: Constant<Bits<2>>,
    count_one: Constant<Bits<80>>,
    ones32: Constant<Bits<32>>,
    // --- classifier registers ---
    shadow: [DFF<Bits<32>>; BOUNDS],
    shadow_nb: DFF<Bits<6>>,
    bound: [DFF<Bits<32>>; BOUNDS],
    use_b: [DFF<Bit>; BOUNDS],
    nb: DFF<Bits<6>>,
    frozen_kmask: DFF<Bits<64>>,
    /// Clear after reset: the banks' sequence, run here for the largest bank. Its `done` is
    /// "every bank is clear": packets are accepted (`s_ready` reads this one register, not an
    /// AND of 2h + 1 banks' flags gathered across the die).
    init: ClearSequence<16>,
    init_row_sink: Unused<Bits<16>>,
    // --- insert pipeline ---
    s1_valid: DFF<Bit>,
    s1_flip: DFF<Bit>,
    s1_lat: DFF<Bits<32>>,
    /// The latency again, one copy per 16 boundaries (each beside its compares, not one
    /// register fanned out to 189 comparators).
    s1_lat_c: [KeptReg<Bits<32>>; LAT_COPIES],
    s2_valid: DFF<Bit>,
    s2_flip: DFF<Bit>,
    s2_lat: DFF<Bits<32>>,
    /// Per boundary j (in use): the latency's high half above b_j's, the high halves equal,
    /// the low half at or above b_j's (the compare `b_j ≤ latency` in halves, combined at s2).
    s2_hi_gt: [DFF<Bit>; BOUNDS],
    s2_hi_eq: [DFF<Bit>; BOUNDS],
    s2_lo_ge: [DFF<Bit>; BOUNDS],
    s3_valid: DFF<Bit>,
    s3_flip: DFF<Bit>,
    s3_lat: DFF<Bits<32>>,
    /// The compare bits counted in groups of four (bits 4g … 4g + 3).
    s3_grp: [DFF<Bits<3>>; 16],
    s3_hash: [DFF<Bits<P>>; H],
    s4_valid: DFF<Bit>,
    s4_flip: DFF<Bit>,
    s4_lat: DFF<Bits<32>>,
    /// The group counts summed by fours (compare bits 16q … 16q + 15).
    s4_qtr: [DFF<Bits<5>>; 4],
    s4_hash: [DFF<Bits<P>>; H],
    s5_valid: DFF<Bit>,
    s5_flip: DFF<Bit>,
    s5_lat: DFF<Bits<32>>,
    s5_center: DFF<Bits<6>>,
    s5_hash: [DFF<Bits<P>>; H],
    s6_valid: DFF<Bit>,
    s6_flip: DFF<Bit>,
    s6_lat: DFF<Bits<32>>,
    s6_center: DFF<Bits<6>>,
    s6_bit: [DFF<Bits<P>>; H],
    /// The update registered again, one bit register per partition: the hop to a bank spread
    /// over the die is a plain wire.
    s7_valid: DFF<Bit>,
    s7_flip: DFF<Bit>,
    s7_lat: DFF<Bits<32>>,
    s7_center: DFF<Bits<6>>,
    s7_bit: [DFF<Bits<P>>; H],
    /// The update's valid and flip bits again, one copy per partition beside its banks (as
    /// `s7_bit`): no one register routed across the die into every bank's flip take.
    s7_part_valid: [KeptReg<Bit>; H],
    s7_part_flip: [KeptReg<Bit>; H],
    s8_flip: DFF<Bit>,
    /// A flip token is in s1 … s9 (the OR of their next values, registered: the handshake
    /// reads one register). It covers the clocks until the banks' falling `flip_ready` has
    /// passed `fr_part`/`fr_cent` and `fr_q`.
    flip_on_way: DFF<Bit>,
    /// Each partition's `flip_ready` and the center bank's, registered beside it: the AND across
    /// the die into `fr_q` starts from registers.
    fr_part: [DFF<Bit>; H],
    fr_cent: DFF<Bit>,
    /// Every bank's `flip_ready` (two clocks late).
    fr_q: DFF<Bit>,
    /// `flip_ready` itself, a register: the handshake with the consumer's `flip` is register to
    /// register. It shows the readiness of the clock before, cleared the clock after a take.
    fr_out: DFF<Bit>,
    /// The read-out stage presented a row last clock (taken then, its divider shows busy only
    /// from the clock after this one: the flip waits meanwhile).
    ro_seen: DFF<Bit>,
    /// The flip token after the banks took it (s8 … s14): the partitions' drain, clock by clock.
    hf: [DFF<Bit>; HOLD_CHAIN],
    /// The partitions hold the frozen epoch: the banks' own state kept here as well (they report
    /// `held` `flip_to_held(1)` = 8 clocks after taking a flip, after a seven-clock drain), so
    /// `held`, `q_ready` and the release never wait for an AND over banks spread across the die.
    /// It falls the clock after a release is taken, a clock before the banks' own (`rel_go`).
    held_m: DFF<Bit>,
    /// The partitions' own `held` (`held_m`, and one clock longer after a release; not read).
    held_sink: [Unused<Bit>; H],
    // --- query pipeline ---
    q1_valid: DFF<Bit>,
    q1_tag: DFF<Bits<16>>,
    q2_valid: DFF<Bit>,
    q2_tag: DFF<Bits<16>>,
    qv: [DFF<Bit>; 19],
    qt: [DFF<Bits<16>>; 19],
    q11_cand: DFF<Bits<64>>,
    /// Per group of eight candidates: any, and at least two (c+12).
    kd_any: [DFF<Bit>; 8],
    kd_many: [DFF<Bit>; 8],
    /// The kind, decided at c+13 (`qk[0]`) and waiting until c+21 (`qk[8]`).
    qk: [DFF<Bits<2>>; 9],
    qc: [DFF<Bits<64>>; 10],
    r_valid_q: DFF<Bit>,
    /// The result's payload registers clear at the next edge (no query at c+21, or the reset's
    /// copy high): registered a clock early, so their clear is one register, not a gate routed
    /// between the query's valid bit and the reset copy.
    r_zero: DFF<Bit>,
    r_tag_q: DFF<Bits<16>>,
    r_kind_q: DFF<Bits<2>>,
    r_center_q: DFF<Bits<6>>,
    r_cand_q: DFF<Bits<64>>,
    r_count_q: DFF<Bits<32>>,
    r_latency_q: DFF<Bits<32>>,
    rel_pend: DFF<Bit>,
    /// The release taken a clock ago, to the partitions (`held_m` has fallen already, so no
    /// query is taken meanwhile): one kept copy per partition, beside its banks, not one
    /// register routed across the die into every bank's read-out state.
    rel_go: [KeptReg<Bit>; H],
    // --- the reset, registered once and copied ---
    /// `reset` one clock late, one kept copy per region that clears on it: each partition (its
    /// banks and the core's registers beside it), the center bank, the answer unit, the
    /// read-out stages, the clear counter, the insert pipeline and the query pipeline. No one
    /// register drives every synchronous clear across the die.
    rst_part: [KeptReg<Bit>; H],
    rst_centers: KeptReg<Bit>,
    rst_answer: KeptReg<Bit>,
    rst_ro: KeptReg<Bit>,
    rst_init: KeptReg<Bit>,
    rst_ins: KeptReg<Bit>,
    rst_query: KeptReg<Bit>,
    // --- combinational helpers ---
    accept: Signal<Local, Bit>,
    take_flip: Signal<Local, Bit>,
    q_accept: Signal<Local, Bit>,
    release_now: Signal<Local, Bit>,
    fr_chain: [Signal<Local, Bit>; H],
    and_chain: [Signal<Local, Bits<64>>; H],
    fr_all: Signal<Local, Bit>,
    cmp_w: [Signal<Local, Bits<3>>; 64],
    cand: Signal<Local, Bits<64>>,
    /// The candidates by groups of eight.
    oct: [Signal<Local, Bits<8>>; 8],
    kd_any_w: [Signal<Local, Bits<4>>; 8],
    kd_groups: Signal<Local, Bits<4>>,
    kd_many_any: Signal<Local, Bit>,
    center_old: Signal<Local, Bits<80>>,
    count_sum: Signal<Local, Bits<32>>,
    sum_new: Signal<Local, Bits<48>>,
}

impl<const H: usize, const P: usize, const WA: usize, const A: usize> SvbfCore<H, P, WA, A> {
    /// The core for `cfg` (its `hashes` and `partition_log2` must be `H` and `P`).
    pub fn new(cfg: &SvbfConfig) -> Self {
        assert_eq!((cfg.hashes, cfg.partition_log2 as usize), (H, P), "SVBF widths differ from the config");
        assert!(A <= 16, "the clear counter holds 16-bit rows");
        let hash_cfg =
            |j: usize| H3Config { key_bits: 64, out_bits: P, seed: cfg.hash_seed(j), registered: true, name: None };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_key: Default::default(),
            s_latency: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            flip: Default::default(),
            flip_ready: Default::default(),
            live_epoch: Default::default(),
            held: Default::default(),
            release_frozen: Default::default(),
            q_valid: Default::default(),
            q_ready: Default::default(),
            q_key: Default::default(),
            q_tag: Default::default(),
            r_valid: Default::default(),
            r_tag: Default::default(),
            r_kind: Default::default(),
            r_center: Default::default(),
            r_count: Default::default(),
            r_latency: Default::default(),
            r_candidates: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_center: Default::default(),
            m_ro_count: Default::default(),
            m_ro_sum: Default::default(),
            m_ro_last: Default::default(),
            ovf_sticky: Default::default(),
            ovf_clear: Default::default(),
            hash: std::array::from_fn(|j| H3Unit::new(&hash_cfg(j)).with_key_register()),
            qhash: std::array::from_fn(|j| H3Unit::new(&hash_cfg(j)).with_key_register()),
            parts: std::array::from_fn(|_| SvbfPartition::default()),
            centers: RmwBank::new(CENTER_ROWS as usize),
            ro_skid: Default::default(),
            ro_port: Default::default(),
            answer: Default::default(),
            hash_valid_sink: std::array::from_fn(|_| Default::default()),
            qhash_valid_sink: std::array::from_fn(|_| Default::default()),
            centers_held_sink: Default::default(),
            ready_sink: std::array::from_fn(|_| Default::default()),
            centers_ready_sink: Default::default(),
            centers_q_sink: Default::default(),
            ro_skid_ready_sink: Default::default(),
            ro_port_valid_sink: Default::default(),
            idx6: std::array::from_fn(|j| Constant::new((j as u64).into())),
            zero16: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
            thirty_two: Constant::new(32u64.into()),
            one3: Constant::new(1u64.into()),
            zero3: Constant::new(0u64.into()),
            zero6: Constant::new(0u64.into()),
            ones64: Constant::new(u64::MAX.into()),
            zero8: Constant::new(0u64.into()),
            one4: Constant::new(1u64.into()),
            zero4: Constant::new(0u64.into()),
            zero64: Constant::new(0u64.into()),
            c63: Constant::new(63u64.into()),
            kind_none: Constant::new(0u64.into()),
            kind_match: Constant::new(1u64.into()),
            kind_multi: Constant::new(2u64.into()),
            count_one: Constant::new(1u64.into()),
            ones32: Constant::new(0xffff_ffffu64.into()),
            shadow: std::array::from_fn(|_| Default::default()),
            shadow_nb: Default::default(),
            bound: std::array::from_fn(|_| Default::default()),
            use_b: std::array::from_fn(|_| Default::default()),
            nb: Default::default(),
            frozen_kmask: Default::default(),
            s1_valid: Default::default(),
            s1_flip: Default::default(),
            s1_lat: Default::default(),
            s1_lat_c: std::array::from_fn(|_| Default::default()),
            init: ClearSequence::new((1usize << A).max(CENTER_ROWS as usize)),
            init_row_sink: Default::default(),
            s2_valid: Default::default(),
            s2_flip: Default::default(),
            s2_lat: Default::default(),
            s2_hi_gt: std::array::from_fn(|_| Default::default()),
            s2_hi_eq: std::array::from_fn(|_| Default::default()),
            s2_lo_ge: std::array::from_fn(|_| Default::default()),
            s3_valid: Default::default(),
            s3_flip: Default::default(),
            s3_lat: Default::default(),
            s3_grp: std::array::from_fn(|_| Default::default()),
            s3_hash: std::array::from_fn(|_| Default::default()),
            s4_valid: Default::default(),
            s4_flip: Default::default(),
            s4_lat: Default::default(),
            s4_qtr: std::array::from_fn(|_| Default::default()),
            s4_hash: std::array::from_fn(|_| Default::default()),
            s5_valid: Default::default(),
            s5_flip: Default::default(),
            s5_lat: Default::default(),
            s5_center: Default::default(),
            s5_hash: std::array::from_fn(|_| Default::default()),
            s6_valid: Default::default(),
            s6_flip: Default::default(),
            s6_lat: Default::default(),
            s6_center: Default::default(),
            s6_bit: std::array::from_fn(|_| Default::default()),
            s7_valid: Default::default(),
            s7_flip: Default::default(),
            s7_lat: Default::default(),
            s7_center: Default::default(),
            s7_bit: std::array::from_fn(|_| Default::default()),
            s7_part_valid: std::array::from_fn(|_| Default::default()),
            s7_part_flip: std::array::from_fn(|_| Default::default()),
            s8_flip: Default::default(),
            flip_on_way: Default::default(),
            fr_part: std::array::from_fn(|_| Default::default()),
            fr_cent: Default::default(),
            fr_q: Default::default(),
            fr_out: Default::default(),
            ro_seen: Default::default(),
            hf: std::array::from_fn(|_| Default::default()),
            held_m: Default::default(),
            held_sink: std::array::from_fn(|_| Default::default()),
            q1_valid: Default::default(),
            q1_tag: Default::default(),
            q2_valid: Default::default(),
            q2_tag: Default::default(),
            qv: std::array::from_fn(|_| Default::default()),
            qt: std::array::from_fn(|_| Default::default()),
            q11_cand: Default::default(),
            kd_any: std::array::from_fn(|_| Default::default()),
            kd_many: std::array::from_fn(|_| Default::default()),
            qk: std::array::from_fn(|_| Default::default()),
            qc: std::array::from_fn(|_| Default::default()),
            r_valid_q: Default::default(),
            r_zero: Default::default(),
            r_tag_q: Default::default(),
            r_kind_q: Default::default(),
            r_center_q: Default::default(),
            r_cand_q: Default::default(),
            r_count_q: Default::default(),
            r_latency_q: Default::default(),
            rel_pend: Default::default(),
            rel_go: std::array::from_fn(|_| Default::default()),
            rst_part: std::array::from_fn(|_| Default::default()),
            rst_centers: Default::default(),
            rst_answer: Default::default(),
            rst_ro: Default::default(),
            rst_init: Default::default(),
            rst_ins: Default::default(),
            rst_query: Default::default(),
            accept: Default::default(),
            take_flip: Default::default(),
            q_accept: Default::default(),
            release_now: Default::default(),
            fr_chain: std::array::from_fn(|_| Default::default()),
            and_chain: std::array::from_fn(|_| Default::default()),
            fr_all: Default::default(),
            cmp_w: std::array::from_fn(|_| Default::default()),
            cand: Default::default(),
            oct: std::array::from_fn(|_| Default::default()),
            kd_any_w: std::array::from_fn(|_| Default::default()),
            kd_groups: Default::default(),
            kd_many_any: Default::default(),
            center_old: Default::default(),
            count_sum: Default::default(),
            sum_new: Default::default(),
        }
    }
}

impl<const H: usize, const P: usize, const WA: usize, const A: usize> Logic for SvbfCore<H, P, WA, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            shadow_nb,
            nb,
            frozen_kmask,
            s1_valid,
            s1_flip,
            s1_lat,
            s2_valid,
            s2_flip,
            s2_lat,
            s3_valid,
            s3_flip,
            s3_lat,
            s4_valid,
            s4_flip,
            s4_lat,
            s5_valid,
            s5_flip,
            s5_lat,
            s5_center,
            s6_valid,
            s6_flip,
            s6_lat,
            s6_center,
            s7_valid,
            s7_flip,
            s7_lat,
            s7_center,
            s8_flip,
            flip_on_way,
            fr_cent,
            fr_q,
            fr_out,
            ro_seen,
            held_m,
            q1_valid,
            q1_tag,
            q2_valid,
            q2_tag,
            q11_cand,
            r_valid_q,
            r_zero,
            r_tag_q,
            r_kind_q,
            r_center_q,
            r_cand_q,
            r_count_q,
            r_latency_q,
            rel_pend
        );
        for j in 0..BOUNDS {
            self.shadow[j].clock.next = self.clock.val();
            self.shadow[j].d.next = self.shadow[j].q.val();
            self.bound[j].clock.next = self.clock.val();
            self.bound[j].d.next = self.bound[j].q.val();
            self.use_b[j].clock.next = self.clock.val();
            self.use_b[j].d.next = self.use_b[j].q.val();
        }
        for c in 0..LAT_COPIES {
            self.s1_lat_c[c].clock.next = self.clock.val();
        }
        // ---- the reset, registered into a copy per region (every clear below reads a copy) ----
        for j in 0..H {
            self.rst_part[j].clock.next = self.clock.val();
            self.rst_part[j].d.next = self.reset.val();
        }
        self.rst_centers.clock.next = self.clock.val();
        self.rst_centers.d.next = self.reset.val();
        self.rst_answer.clock.next = self.clock.val();
        self.rst_answer.d.next = self.reset.val();
        self.rst_ro.clock.next = self.clock.val();
        self.rst_ro.d.next = self.reset.val();
        self.rst_init.clock.next = self.clock.val();
        self.rst_init.d.next = self.reset.val();
        self.rst_ins.clock.next = self.clock.val();
        self.rst_ins.d.next = self.reset.val();
        self.rst_query.clock.next = self.clock.val();
        self.rst_query.d.next = self.reset.val();
        for j in 0..BOUNDS {
            self.s2_hi_gt[j].clock.next = self.clock.val();
            self.s2_hi_eq[j].clock.next = self.clock.val();
            self.s2_lo_ge[j].clock.next = self.clock.val();
        }
        for g in 0..16 {
            self.s3_grp[g].clock.next = self.clock.val();
            self.s3_grp[g].d.next = self.s3_grp[g].q.val();
        }
        for q in 0..4 {
            self.s4_qtr[q].clock.next = self.clock.val();
            self.s4_qtr[q].d.next = self.s4_qtr[q].q.val();
        }
        for n in 0..19 {
            self.qv[n].clock.next = self.clock.val();
            self.qv[n].d.next = self.qv[n].q.val();
            self.qt[n].clock.next = self.clock.val();
            self.qt[n].d.next = self.qt[n].q.val();
        }
        for n in 0..6 {
            self.hf[n].clock.next = self.clock.val();
        }
        for n in 0..9 {
            self.qk[n].clock.next = self.clock.val();
            self.qk[n].d.next = self.qk[n].q.val();
        }
        for g in 0..8 {
            self.kd_any[g].clock.next = self.clock.val();
            self.kd_many[g].clock.next = self.clock.val();
        }
        for n in 0..10 {
            self.qc[n].clock.next = self.clock.val();
            self.qc[n].d.next = self.qc[n].q.val();
        }
        for j in 0..H {
            self.s3_hash[j].clock.next = self.clock.val();
            self.s3_hash[j].d.next = self.s3_hash[j].q.val();
            self.s4_hash[j].clock.next = self.clock.val();
            self.s4_hash[j].d.next = self.s4_hash[j].q.val();
            self.s5_hash[j].clock.next = self.clock.val();
            self.s5_hash[j].d.next = self.s5_hash[j].q.val();
            self.s6_bit[j].clock.next = self.clock.val();
            self.s6_bit[j].d.next = self.s6_bit[j].q.val();
            self.s7_bit[j].clock.next = self.clock.val();
            self.s7_part_valid[j].clock.next = self.clock.val();
            self.s7_part_flip[j].clock.next = self.clock.val();
            self.rel_go[j].clock.next = self.clock.val();
            self.hash[j].clock.next = self.clock.val();
            self.qhash[j].clock.next = self.clock.val();
            self.parts[j].clock.next = self.clock.val();
            self.parts[j].reset.next = self.rst_part[j].q.val();
        }
        self.centers.clock.next = self.clock.val();
        self.centers.reset.next = self.rst_centers.q.val();
        self.ro_skid.clock.next = self.clock.val();
        self.ro_skid.reset.next = self.rst_ro.q.val();
        self.ro_port.clock.next = self.clock.val();
        self.ro_port.reset.next = self.rst_ro.q.val();
        self.answer.clock.next = self.clock.val();
        self.answer.reset.next = self.rst_answer.q.val();

        // ---- clear after reset: every bank zeroes its rows one per clock and is ready the clock
        // after its last; the core counts the same clocks for the largest bank (its
        // sequence, `RmwBank`'s), so readiness is one register here ----
        self.init.clock.next = self.clock.val();
        self.init.reset.next = self.rst_init.q.val();
        self.init_row_sink.sig.next = self.init.row.val();
        self.s_ready.next = self.init.done.val();
        self.centers_ready_sink.sig.next = self.centers.s_upd_ready.val();
        for j in 0..H {
            self.ready_sink[j].sig.next = self.parts[j].s_upd_ready.val();
        }

        // ---- the banks' flip readiness (registered per bank, ANDed across the die into `fr_q`) ----
        for j in 0..H {
            self.fr_part[j].clock.next = self.clock.val();
            self.fr_part[j].d.next = self.parts[j].flip_ready.val();
        }
        self.fr_cent.d.next = self.centers.flip_ready.val();
        self.fr_chain[0].next = self.fr_part[0].q.val() & self.fr_cent.q.val();
        self.fr_all.next = self.fr_chain[0].val();
        for j in 1..H {
            self.fr_chain[j].next = self.fr_chain[j - 1].val() & self.fr_part[j].q.val();
            // The last link is the AND over every partition.
            self.fr_all.next = self.fr_chain[j].val();
        }
        for j in 0..H {
            self.held_sink[j].sig.next = self.parts[j].held.val();
        }
        self.held.next = self.held_m.q.val();
        // The read-out stage presented a row (see `fr_out`).
        self.ro_seen.d.next = self.ro_skid.m_valid.val();
        self.q_ready.next =
            self.held_m.q.val() & self.answer.table_ok.val() & !self.rel_pend.q.val() & !self.release_frozen.val();
        self.fr_q.d.next = self.fr_all.val();
        self.live_epoch.next = self.centers.epoch.val();
        self.ovf_sticky.next = self.centers.ovf_sticky.val();
        self.centers.ovf_clear.next = self.ovf_clear.val();

        self.accept.next = self.s_valid.val() & self.init.done.val();
        self.take_flip.next = self.flip.val() & self.fr_out.q.val();
        // The banks are clean and no flip is on its way. Both read-out stages must be empty too,
        // since their rows belong to the epoch being read out (the consumer has taken every row),
        // and the first must have been a clock ago: the answer unit's `busy` covers a row taken
        // at t from t+2 on (the center bank, a register away behind the stage, may be ready long
        // before). Registered: this clock's readiness is offered on the next, unless a flip is
        // taken now (only a flip makes any of these terms fall).
        self.fr_out.d.next = self.fr_q.q.val()
            & !self.answer.busy.val()
            & !self.flip_on_way.q.val()
            & !self.ro_skid.m_valid.val()
            & !self.ro_seen.q.val()
            & !self.ro_port.m_valid.val()
            & !self.take_flip.val();
        self.flip_ready.next = self.fr_out.q.val();
        self.q_accept.next = self.q_valid.val() & self.q_ready.val();
        self.release_now.next = (self.rel_pend.q.val() | self.release_frozen.val())
            & self.held_m.q.val()
            & !self.q1_valid.q.val()
            & !self.q2_valid.q.val();
        self.rel_pend.d.next =
            (self.rel_pend.q.val() | (self.release_frozen.val() & self.held_m.q.val())) & !self.release_now.val();
        // The partitions' drain: the hold begins `flip_to_held(1)` = 8 clocks after the banks
        // take a flip (`HOLD_CHAIN` = 6 registers here).
        self.hf[0].d.next = self.s8_flip.q.val();
        for n in 1..6 {
            self.hf[n].d.next = self.hf[n - 1].q.val();
        }
        self.held_m.d.next = (self.held_m.q.val() | self.hf[5].q.val()) & !self.release_now.val();

        // ---- CSR writes into the shadow registers ----
        for j in 0..BOUNDS {
            if self.csr_we.val() & (self.csr_addr.val() == self.idx6[j].val()) {
                self.shadow[j].d.next = self.csr_wdata.val();
            }
        }
        if self.csr_we.val() & (self.csr_addr.val() == self.c63.val()) {
            self.shadow_nb.d.next = self.csr_wdata.val().get_bits::<6>(0);
        }

        // ---- s0 -> s1: the packet and the flip token ----
        self.s1_valid.d.next = self.accept.val();
        self.s1_flip.d.next = self.take_flip.val();
        self.s1_lat.d.next = self.s_latency.val();
        for c in 0..LAT_COPIES {
            self.s1_lat_c[c].d.next = self.s_latency.val();
        }

        // ---- s0 -> s1 -> s2: each hash unit registers its own copy of the key, then the hash ----
        for j in 0..H {
            self.hash[j].s_valid.next = self.accept.val();
            self.hash[j].s_key.next = self.s_key.val();
            self.hash_valid_sink[j].sig.next = self.hash[j].m_valid.val();
        }
        // Boundary j reads latency copy j / 16 (written out per copy: hdl_gen indexes by literals
        // and loop variables only).
        for j in 0..16 {
            self.s2_hi_gt[j].d.next = self.use_b[j].q.val()
                & (self.s1_lat_c[0].q.val().get_bits::<16>(16) > self.bound[j].q.val().get_bits::<16>(16));
            self.s2_hi_eq[j].d.next = self.use_b[j].q.val()
                & (self.s1_lat_c[0].q.val().get_bits::<16>(16) == self.bound[j].q.val().get_bits::<16>(16));
            self.s2_lo_ge[j].d.next =
                self.s1_lat_c[0].q.val().get_bits::<16>(0) >= self.bound[j].q.val().get_bits::<16>(0);
        }
        for j in 16..32 {
            self.s2_hi_gt[j].d.next = self.use_b[j].q.val()
                & (self.s1_lat_c[1].q.val().get_bits::<16>(16) > self.bound[j].q.val().get_bits::<16>(16));
            self.s2_hi_eq[j].d.next = self.use_b[j].q.val()
                & (self.s1_lat_c[1].q.val().get_bits::<16>(16) == self.bound[j].q.val().get_bits::<16>(16));
            self.s2_lo_ge[j].d.next =
                self.s1_lat_c[1].q.val().get_bits::<16>(0) >= self.bound[j].q.val().get_bits::<16>(0);
        }
        for j in 32..48 {
            self.s2_hi_gt[j].d.next = self.use_b[j].q.val()
                & (self.s1_lat_c[2].q.val().get_bits::<16>(16) > self.bound[j].q.val().get_bits::<16>(16));
            self.s2_hi_eq[j].d.next = self.use_b[j].q.val()
                & (self.s1_lat_c[2].q.val().get_bits::<16>(16) == self.bound[j].q.val().get_bits::<16>(16));
            self.s2_lo_ge[j].d.next =
                self.s1_lat_c[2].q.val().get_bits::<16>(0) >= self.bound[j].q.val().get_bits::<16>(0);
        }
        for j in 48..BOUNDS {
            self.s2_hi_gt[j].d.next = self.use_b[j].q.val()
                & (self.s1_lat_c[3].q.val().get_bits::<16>(16) > self.bound[j].q.val().get_bits::<16>(16));
            self.s2_hi_eq[j].d.next = self.use_b[j].q.val()
                & (self.s1_lat_c[3].q.val().get_bits::<16>(16) == self.bound[j].q.val().get_bits::<16>(16));
            self.s2_lo_ge[j].d.next =
                self.s1_lat_c[3].q.val().get_bits::<16>(0) >= self.bound[j].q.val().get_bits::<16>(0);
        }
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_flip.d.next = self.s1_flip.q.val();
        self.s2_lat.d.next = self.s1_lat.q.val();
        if self.s1_flip.q.val() {
            // The epoch being frozen keeps its center mask; the next one classifies with the shadow set.
            self.frozen_kmask.d.next = self.ones64.val() >> (self.c63.val() - self.nb.q.val());
            self.nb.d.next = self.shadow_nb.q.val();
            for j in 0..BOUNDS {
                self.bound[j].d.next = self.shadow[j].q.val();
                self.use_b[j].d.next = self.idx6[j].val() < self.shadow_nb.q.val();
            }
        }

        // ---- s2: the compares' halves combined, counted in groups of four ----
        for j in 0..BOUNDS {
            if self.s2_hi_gt[j].q.val() | (self.s2_hi_eq[j].q.val() & self.s2_lo_ge[j].q.val()) {
                self.cmp_w[j].next = self.one3.val();
            } else {
                self.cmp_w[j].next = self.zero3.val();
            }
        }
        self.cmp_w[63].next = self.zero3.val();
        for g in 0..16 {
            self.s3_grp[g].d.next = (self.cmp_w[4 * g].val() + self.cmp_w[4 * g + 1].val())
                + (self.cmp_w[4 * g + 2].val() + self.cmp_w[4 * g + 3].val());
        }
        for j in 0..H {
            self.s3_hash[j].d.next = self.hash[j].m_hash.val();
        }
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_flip.d.next = self.s2_flip.q.val();
        self.s3_lat.d.next = self.s2_lat.q.val();

        // ---- s3: the group counts summed by fours (written out: hdl_gen widens only literal indices) ----
        self.s4_qtr[0].d.next = (bit_cast::<5, 3>(self.s3_grp[0].q.val()) + bit_cast::<5, 3>(self.s3_grp[1].q.val()))
            + (bit_cast::<5, 3>(self.s3_grp[2].q.val()) + bit_cast::<5, 3>(self.s3_grp[3].q.val()));
        self.s4_qtr[1].d.next = (bit_cast::<5, 3>(self.s3_grp[4].q.val()) + bit_cast::<5, 3>(self.s3_grp[5].q.val()))
            + (bit_cast::<5, 3>(self.s3_grp[6].q.val()) + bit_cast::<5, 3>(self.s3_grp[7].q.val()));
        self.s4_qtr[2].d.next = (bit_cast::<5, 3>(self.s3_grp[8].q.val()) + bit_cast::<5, 3>(self.s3_grp[9].q.val()))
            + (bit_cast::<5, 3>(self.s3_grp[10].q.val()) + bit_cast::<5, 3>(self.s3_grp[11].q.val()));
        self.s4_qtr[3].d.next = (bit_cast::<5, 3>(self.s3_grp[12].q.val()) + bit_cast::<5, 3>(self.s3_grp[13].q.val()))
            + (bit_cast::<5, 3>(self.s3_grp[14].q.val()) + bit_cast::<5, 3>(self.s3_grp[15].q.val()));
        for j in 0..H {
            self.s4_hash[j].d.next = self.s3_hash[j].q.val();
        }
        self.s4_valid.d.next = self.s3_valid.q.val();
        self.s4_flip.d.next = self.s3_flip.q.val();
        self.s4_lat.d.next = self.s3_lat.q.val();

        // ---- s4: the center ----
        self.s5_center.d.next = (bit_cast::<6, 5>(self.s4_qtr[0].q.val()) + bit_cast::<6, 5>(self.s4_qtr[1].q.val()))
            + (bit_cast::<6, 5>(self.s4_qtr[2].q.val()) + bit_cast::<6, 5>(self.s4_qtr[3].q.val()));
        for j in 0..H {
            self.s5_hash[j].d.next = self.s4_hash[j].q.val();
        }
        self.s5_valid.d.next = self.s4_valid.q.val();
        self.s5_flip.d.next = self.s4_flip.q.val();
        self.s5_lat.d.next = self.s4_lat.q.val();

        // ---- s5: bit positions ----
        for j in 0..H {
            self.s6_bit[j].d.next = self.s5_hash[j].q.val() + bit_cast::<P, 6>(self.s5_center.q.val());
        }
        self.s6_valid.d.next = self.s5_valid.q.val();
        self.s6_flip.d.next = self.s5_flip.q.val();
        self.s6_lat.d.next = self.s5_lat.q.val();
        self.s6_center.d.next = self.s5_center.q.val();

        // ---- s6: the update registered beside the banks, which take it at s7 ----
        for j in 0..H {
            self.s7_bit[j].d.next = self.s6_bit[j].q.val();
            // The copies of `s7_valid` and `s7_flip`, cleared by reset as they are.
            self.s7_part_valid[j].d.next = self.s6_valid.q.val() & !self.rst_part[j].q.val();
            self.s7_part_flip[j].d.next = self.s6_flip.q.val() & !self.rst_part[j].q.val();
            self.parts[j].s_upd_valid.next = self.s7_part_valid[j].q.val();
            self.parts[j].s_upd_bit.next = self.s7_bit[j].q.val();
            self.parts[j].flip.next = self.s7_part_flip[j].q.val();
            self.rel_go[j].d.next = self.release_now.val() & !self.rst_part[j].q.val();
            self.parts[j].release_frozen.next = self.rel_go[j].q.val();
        }
        self.s7_valid.d.next = self.s6_valid.q.val();
        self.s7_flip.d.next = self.s6_flip.q.val();
        self.s7_lat.d.next = self.s6_lat.q.val();
        self.s7_center.d.next = self.s6_center.q.val();
        self.s8_flip.d.next = self.s7_flip.q.val();
        self.flip_on_way.d.next = self.take_flip.val()
            | self.s1_flip.q.val()
            | self.s2_flip.q.val()
            | self.s3_flip.q.val()
            | self.s4_flip.q.val()
            | self.s5_flip.q.val()
            | self.s6_flip.q.val()
            | self.s7_flip.q.val()
            | self.s8_flip.q.val();
        self.centers.s_upd_valid.next = self.s7_valid.q.val();
        self.centers.s_upd_row.next = self.s7_center.q.val();
        self.centers.s_upd_op.next =
            (bit_cast::<80, 32>(self.s7_lat.q.val()) << self.thirty_two.val()) | self.count_one.val();
        self.centers.flip.next = self.s7_flip.q.val();
        self.centers.hold.next = false;
        self.centers.release_frozen.next = false;
        self.centers.q_row.next = self.zero6.val();
        self.centers_held_sink.sig.next = self.centers.held.val();
        self.centers_q_sink.sig.next = self.centers.q_data.val();
        // Center arithmetic: count (low 32 bits) += 1 with overflow, sum (high 48) += latency.
        if self.centers.alu_fwd.val() {
            self.center_old.next = self.centers.alu_old_fwd.val();
        } else {
            self.center_old.next = self.centers.alu_old_base.val();
        }
        self.count_sum.next = self.center_old.val().get_bits::<32>(0) + self.centers.alu_op.val().get_bits::<32>(0);
        self.sum_new.next = self.center_old.val().get_bits::<48>(32) + self.centers.alu_op.val().get_bits::<48>(32);
        self.centers.alu_new.next = (bit_cast::<80, 48>(self.sum_new.val()) << self.thirty_two.val())
            | bit_cast::<80, 32>(self.count_sum.val());
        // The count wraps exactly when it was all ones (every update adds one packet): an AND
        // tree beside the adder, not the end of its carry chain.
        self.centers.alu_ovf.next = self.center_old.val().get_bits::<32>(0) == self.ones32.val();
        // Read-out of the frozen counters: the bank's stream passes a skid buffer (its ready to
        // the bank a register, so the take below never reaches the bank's read-out state); a row
        // is passed on while its divider in the answer unit is free, and the unit takes it as it
        // enters the port stage (a second skid buffer: its ready to the unit a register, so the
        // consumer's `m_ro_ready` never reaches the unit's divider state). The payload is
        // meaningful while `m_ro_valid`.
        self.ro_skid.s_valid.next = self.centers.m_ro_valid.val();
        self.centers.m_ro_ready.next = self.ro_skid.s_ready.val();
        self.ro_skid.s_data.next = bit_cast::<87, 80>(self.centers.m_ro_data.val())
            | (bit_cast::<87, 6>(self.centers.m_ro_row.val()) << 80)
            | (bit_cast::<87, 1>(self.centers.m_ro_last.val().into()) << 86);
        self.answer.ro_row.next = self.ro_skid.m_data.val().get_bits::<6>(80);
        self.answer.ro_count.next = self.ro_skid.m_data.val().get_bits::<32>(0);
        self.answer.ro_sum.next = self.ro_skid.m_data.val().get_bits::<48>(32);
        self.answer.ro_last.next = self.ro_skid.m_data.val().get_bit(86);
        self.answer.epoch_flip.next = self.s7_flip.q.val();
        // A row passes on to the port stage while its divider is free: the port stage's take is
        // the answer unit's.
        self.ro_port.s_valid.next = self.ro_skid.m_valid.val() & self.answer.ro_free.val();
        self.ro_skid.m_ready.next = self.ro_port.s_ready.val() & self.answer.ro_free.val();
        // The stage's flags follow the same decision from copies of both registers of their
        // own (the port stage's ready copy, the unit's second copy of its flag), so the full
        // flag behind the center bank's ready shares no gate with the stage's load enables.
        self.ro_skid.m_ready_copy.next = self.ro_port.s_ready_copy.val() & self.answer.ro_free_copy.val();
        // The unit forms the same take (`ro_port.s_valid & ro_port.s_ready`) from kept copies of
        // the two stages' flags, placed beside its blocked flag.
        self.answer.ro_avail.next = self.ro_skid.m_valid_copy.val();
        self.answer.ro_room.next = self.ro_port.s_ready_copy.val();
        self.ro_skid_ready_sink.sig.next = self.ro_skid.s_ready_copy.val();
        self.ro_port_valid_sink.sig.next = self.ro_port.m_valid_copy.val();
        self.ro_port.s_data.next = self.ro_skid.m_data.val();
        self.ro_port.m_ready.next = self.m_ro_ready.val();
        self.ro_port.m_ready_copy.next = self.m_ro_ready.val();
        self.m_ro_valid.next = self.ro_port.m_valid.val();
        self.m_ro_center.next = self.ro_port.m_data.val().get_bits::<6>(80);
        self.m_ro_count.next = self.ro_port.m_data.val().get_bits::<32>(0);
        self.m_ro_sum.next = self.ro_port.m_data.val().get_bits::<48>(32);
        self.m_ro_last.next = self.ro_port.m_data.val().get_bit(86);

        // ---- query: c -> c+1 key (in each hash unit), c+1 -> c+2 hashes, c+2 the partitions ----
        self.q1_valid.d.next = self.q_accept.val();
        self.q1_tag.d.next = self.q_tag.val();
        for j in 0..H {
            self.qhash[j].s_valid.next = self.q_accept.val();
            self.qhash[j].s_key.next = self.q_key.val();
            self.qhash_valid_sink[j].sig.next = self.qhash[j].m_valid.val();
            self.parts[j].q_base.next = self.qhash[j].m_hash.val();
        }
        self.q2_valid.d.next = self.q1_valid.q.val();
        self.q2_tag.d.next = self.q1_tag.q.val();
        // c+3 .. c+21: the tag waits for the windows, the candidates, the
        // tie-break and the table read (qv[0] is c+3, qv[8] c+11, qv[18] c+21).
        self.qv[0].d.next = self.q2_valid.q.val();
        self.qt[0].d.next = self.q2_tag.q.val();
        for n in 1..19 {
            self.qv[n].d.next = self.qv[n - 1].q.val();
            self.qt[n].d.next = self.qt[n - 1].q.val();
        }
        // c+10: AND of the windows and the center mask.
        self.and_chain[0].next = self.frozen_kmask.q.val() & self.parts[0].q_window.val();
        self.cand.next = self.and_chain[0].val();
        for j in 1..H {
            self.and_chain[j].next = self.and_chain[j - 1].val() & self.parts[j].q_window.val();
            self.cand.next = self.and_chain[j].val();
        }
        self.q11_cand.d.next = self.cand.val();
        // c+11: the candidates enter the answer unit's tie-break (winner at
        // c+17, its table row read by c+21) while the kind is counted beside it: per group of eight, any
        // and at least two at c+12, the kind at c+13.
        self.answer.q_cand.next = self.q11_cand.q.val();
        self.answer.q_live.next = self.qv[8].q.val();
        for g in 0..8 {
            self.oct[g].next = self.q11_cand.q.val().get_bits::<8>(8 * g);
            self.kd_any[g].d.next = self.oct[g].val() != self.zero8.val();
            // At least two of eight: two in the low four, two in the high four, or one in each
            // (pairs written out: no carry chain between the candidates and the register).
            self.kd_many[g].d.next = (self.oct[g].val().get_bit(0) & self.oct[g].val().get_bit(1))
                | (self.oct[g].val().get_bit(0) & self.oct[g].val().get_bit(2))
                | (self.oct[g].val().get_bit(0) & self.oct[g].val().get_bit(3))
                | (self.oct[g].val().get_bit(1) & self.oct[g].val().get_bit(2))
                | (self.oct[g].val().get_bit(1) & self.oct[g].val().get_bit(3))
                | (self.oct[g].val().get_bit(2) & self.oct[g].val().get_bit(3))
                | (self.oct[g].val().get_bit(4) & self.oct[g].val().get_bit(5))
                | (self.oct[g].val().get_bit(4) & self.oct[g].val().get_bit(6))
                | (self.oct[g].val().get_bit(4) & self.oct[g].val().get_bit(7))
                | (self.oct[g].val().get_bit(5) & self.oct[g].val().get_bit(6))
                | (self.oct[g].val().get_bit(5) & self.oct[g].val().get_bit(7))
                | (self.oct[g].val().get_bit(6) & self.oct[g].val().get_bit(7))
                | ((self.oct[g].val().get_bits::<4>(0) != self.zero4.val())
                    & (self.oct[g].val().get_bits::<4>(4) != self.zero4.val()));
            if self.kd_any[g].q.val() {
                self.kd_any_w[g].next = self.one4.val();
            } else {
                self.kd_any_w[g].next = self.zero4.val();
            }
        }
        self.kd_groups.next = ((self.kd_any_w[0].val() + self.kd_any_w[1].val())
            + (self.kd_any_w[2].val() + self.kd_any_w[3].val()))
            + ((self.kd_any_w[4].val() + self.kd_any_w[5].val()) + (self.kd_any_w[6].val() + self.kd_any_w[7].val()));
        self.kd_many_any.next = self.kd_many[0].q.val()
            | self.kd_many[1].q.val()
            | self.kd_many[2].q.val()
            | self.kd_many[3].q.val()
            | self.kd_many[4].q.val()
            | self.kd_many[5].q.val()
            | self.kd_many[6].q.val()
            | self.kd_many[7].q.val();
        self.qk[0].d.next = self.kind_none.val();
        if self.kd_groups.val() != self.zero4.val() {
            if (self.kd_groups.val() == self.one4.val()) & !self.kd_many_any.val() {
                self.qk[0].d.next = self.kind_match.val();
            } else {
                self.qk[0].d.next = self.kind_multi.val();
            }
        }
        self.qc[0].d.next = self.q11_cand.q.val();
        for n in 1..9 {
            self.qk[n].d.next = self.qk[n - 1].q.val();
        }
        for n in 1..10 {
            self.qc[n].d.next = self.qc[n - 1].q.val();
        }
        // c+21 -> c+22: the result; zero payload without a result (the answer unit's
        // center, count and latency are already zero without a query or a winner).
        self.r_valid_q.d.next = self.qv[18].q.val();
        // `r_zero` is !qv[18] | rst_query of the next clock, formed from their inputs (the raw
        // reset is the query copy's next value).
        self.r_zero.d.next = !self.qv[17].q.val() | self.rst_query.q.val() | self.reset.val();
        self.r_tag_q.d.next = self.qt[18].q.val();
        self.r_kind_q.d.next = self.qk[8].q.val();
        self.r_cand_q.d.next = self.qc[9].q.val();
        if self.r_zero.q.val() {
            self.r_tag_q.d.next = self.zero16.val();
            self.r_kind_q.d.next = self.kind_none.val();
            self.r_cand_q.d.next = self.zero64.val();
        }
        self.r_center_q.d.next = self.answer.a_center.val();
        self.r_count_q.d.next = self.answer.a_count.val();
        self.r_latency_q.d.next = self.answer.a_latency.val();
        self.r_valid.next = self.r_valid_q.q.val();
        self.r_tag.next = self.r_tag_q.q.val();
        self.r_kind.next = self.r_kind_q.q.val();
        self.r_center.next = self.r_center_q.q.val();
        self.r_candidates.next = self.r_cand_q.q.val();
        self.r_count.next = self.r_count_q.q.val();
        self.r_latency.next = self.r_latency_q.q.val();

        // ---- synchronous reset of the control state (the insert side, then the query side) ----
        if self.rst_ins.q.val() {
            self.s1_valid.d.next = false;
            self.s1_flip.d.next = false;
            self.s2_valid.d.next = false;
            self.s2_flip.d.next = false;
            self.s3_valid.d.next = false;
            self.s3_flip.d.next = false;
            self.s4_valid.d.next = false;
            self.s4_flip.d.next = false;
            self.s5_valid.d.next = false;
            self.s5_flip.d.next = false;
            self.s6_valid.d.next = false;
            self.s6_flip.d.next = false;
            self.s7_valid.d.next = false;
            self.s7_flip.d.next = false;
            self.s8_flip.d.next = false;
            self.flip_on_way.d.next = false;
            self.fr_cent.d.next = false;
            self.fr_q.d.next = false;
            self.fr_out.d.next = false;
            self.ro_seen.d.next = false;
            self.held_m.d.next = false;
            for n in 0..6 {
                self.hf[n].d.next = false;
            }
        }
        for j in 0..H {
            if self.rst_part[j].q.val() {
                self.fr_part[j].d.next = false;
            }
        }
        if self.rst_query.q.val() {
            self.q1_valid.d.next = false;
            self.q2_valid.d.next = false;
            for n in 0..19 {
                self.qv[n].d.next = false;
            }
            self.r_valid_q.d.next = false;
            self.r_center_q.d.next = self.zero6.val();
            self.r_count_q.d.next = self.zero32.val();
            self.r_latency_q.d.next = self.zero32.val();
            self.rel_pend.d.next = false;
        }
    }
}
