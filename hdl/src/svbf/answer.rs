//! SVBF answer unit: the frozen epoch's per-center table, its refined
//! estimates and the tie-break (MAPLE §3.3 "refined estimates", §3.3.4
//! tie-breaking, §6 "two extra counters per center").
//!
//! - **Table fill.** The core's center bank streams the frozen epoch's 64
//!   rows {count, latency sum} out after a flip, in row order. Each row the
//!   core passes on to its read-out port is registered (the take, formed
//!   here too from copies of both stages' flags and the unit's own "blocked"
//!   flag, so the loop through that flag stays beside this unit), and a clock later written
//!   into the count table and loaded into divider `row mod 8` (so the
//!   handshake does not reach the table's enables); a row is offered only
//!   while its divider is free (`ro_free`: not busy, not about to load). A
//!   divider is a radix-2 non-restoring divider of the 48-bit sum by the
//!   32-bit count (a step adds or subtracts the count by the partial
//!   remainder's sign: one addition straight into the remainder register;
//!   the quotient bits are restoring division's): the first quotient bit as
//!   the row loads, the other 47 in the
//!   next 47 clocks (counted down by the divider's timer; the datapath
//!   steps every clock and has no enable), and in the 48th the refined estimate ⌊sum / count⌋ mod
//!   2^32 (0 for an empty center) enters the latency table from the
//!   divider's register, 49 clocks after the take. Eight dividers take the
//!   64 rows in about 8 × 50 clocks; `table_ok` rises when the last row's
//!   quotient is written and falls when the banks flip to a new epoch;
//!   `busy` (a busy divider) holds the next flip back
//!   until every divider is idle, so no late quotient lands in the next
//!   epoch's table.
//! - **Ranks.** The §3.3.4 rule (largest count, lowest index among equal
//!   counts) is a total order on the 64 centers that is fixed once the
//!   table is filled, so the unit ranks the centers while they arrive:
//!   rank(i) = the number of centers that beat i. A taken row r with count
//!   c is compared with every row i < r already in the table (one 32-bit
//!   comparator per row, as two registered 16-bit halves combined a clock
//!   later; each group of 8 rows reads a copy of c of its own, [`KeptReg`]): c > count(i) adds one to rank(i); the rows with count(i) ≥ c
//!   beat r and their number (a pipelined popcount: groups of four,
//!   quarters, total) is added to rank(r) six clocks after the take. The
//!   ranks are final seven clocks after the last take, long before its
//!   quotient (`table_ok`), and from them each
//!   group of four centers keeps its six pairwise orders.
//! - **Tie-break** (a query's candidates presented at c+11 of the core's
//!   query pipeline): the candidate of lowest rank wins. c+12: in each
//!   group of four centers the winner by the group's pairwise orders,
//!   registered as a one-hot flag per center; c+13: the winners' ranks and
//!   indices selected by those flags (16 nodes {found, rank, center});
//!   c+14 … c+17: four levels of 2:1
//!   nodes comparing 6-bit ranks (8, 4, 2, 1 nodes). The winner's count and
//!   refined latency are read at its row (c+17) from two 64 × 32 block RAMs
//!   written beside the count registers and the dividers (one DP16KD each
//!   on ECP5, three clocks), and registered with the winner (`a_*`, c+21):
//!   no 64-row multiplexer of registers sits on the query path, and the
//!   latencies need no registers at all.
//!
//! Per-clock model: `netmeas_sim::svbf::cycle` (its `table` and
//! `tie_break`, which reads the table directly: the ranks are how the RTL
//! evaluates the same rule in a clock).

use crate::common::block_ram::BlockRam;
use crate::common::kept_reg::KeptReg;
use crate::common::unused::Unused;
use rust_hdl::prelude::*;

/// Serial dividers, one per row residue mod 8.
const DIVIDERS: usize = 8;
/// Centers (rows of the center bank).
const CENTERS: usize = 64;
/// Groups of four centers decided by their pairwise orders at c+12.
const QUADS: usize = 16;
/// Pairwise orders kept: six per group of four.
const QUAD_BEATS: usize = 6 * QUADS;
/// Winner flags of the first three centers of each group of four.
const QUAD_WINS: usize = 3 * QUADS;
/// Rank-compare nodes over the 16 group winners, level by level: 8 (c+14; node k from
/// group winners 2k, 2k + 1), then 4, 2, 1 (node n ≥ 8 from nodes 2n − 16 and 2n − 15; the root is 14).
const NODES: usize = 15;
/// Rows that can precede a later row (0..=62).
const EARLIER: usize = CENTERS - 1;
/// Groups of four rows counted together in the rank pipeline.
const QUARTETS: usize = 16;
/// Clocks a divider steps after its load (48 quotient bits: the first as the row loads, the
/// other 47 in these clocks; the next clock writes the table). A row taken at t loads at t+1,
/// steps at t+2 … t+48 (`dv_left` counts them down from 47) and writes at t+49; `nb_left`, beside
/// the blocked flag, counts the same span a clock ahead (47 at t+1 … 1 at t+47).
const STEPS: u64 = 47;
/// Copies of the taken count for the rank compares, each beside the compares of 8 rows.
const COUNT_COPIES: usize = 8;

/// Per-center table of the frozen epoch, eight serial dividers, the centers' ranks and the tie-break tree.
#[derive(LogicBlock)]
pub struct SvbfAnswer {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the dividers stop and the table is not ready.
    pub reset: Signal<In, Bit>,
    // --- center read-out of the frozen epoch (as the core passes it on to its read-out port) ---
    /// The row the center bank presents.
    pub ro_row: Signal<In, Bits<6>>,
    /// That row's divider is free: the row may be offered (the core passes it on to its port
    /// stage while the stage has room; the take is `ro_avail & ro_room & ro_free`).
    pub ro_free: Signal<Out, Bit>,
    /// `ro_free` again, from a kept register of its own: the read-out stage's full flags
    /// follow it, so they share no gate with the stage's 87 load enables.
    pub ro_free_copy: Signal<Out, Bit>,
    /// The read-out stage presents the row (its valid, from a kept copy of its own).
    pub ro_avail: Signal<In, Bit>,
    /// The port stage has room for it (its ready, from a kept copy of its own).
    pub ro_room: Signal<In, Bit>,
    /// Its packet count.
    pub ro_count: Signal<In, Bits<32>>,
    /// Its latency sum.
    pub ro_sum: Signal<In, Bits<48>>,
    /// It is the last row (center 63).
    pub ro_last: Signal<In, Bit>,
    // --- epochs ---
    /// The banks flip this clock: the table no longer describes the frozen epoch.
    pub epoch_flip: Signal<In, Bit>,
    /// Every row of the frozen epoch is in the table, refined and ranked.
    pub table_ok: Signal<Out, Bit>,
    /// A divider is at work (the core takes no flip until done). A row taken at t shows from t+2
    /// on (it loads its divider at t+1): the core holds the flip at t+1 itself.
    pub busy: Signal<Out, Bit>,
    // --- tie-break (candidates at c+11, answer at c+21) ---
    /// The AND of the windows and the center mask.
    pub q_cand: Signal<In, Bits<64>>,
    /// `q_cand` belongs to a query (else the answer is all zeros).
    pub q_live: Signal<In, Bit>,
    /// The chosen center: largest count, lowest index among equal counts (0 without a
    /// query or without a candidate; so are `a_count` and `a_latency`).
    pub a_center: Signal<Out, Bits<6>>,
    /// Its packet count in the frozen epoch (0: an empty center, no refined estimate).
    pub a_count: Signal<Out, Bits<32>>,
    /// Its refined latency ⌊sum / count⌋ (0 when empty).
    pub a_latency: Signal<Out, Bits<32>>,
    // --- constants ---
    idx6: [Constant<Bits<6>>; CENTERS],
    idx3: [Constant<Bits<3>>; DIVIDERS],
    zero6: Constant<Bits<6>>,
    one6: Constant<Bits<6>>,
    zero4: Constant<Bits<4>>,
    zero5: Constant<Bits<5>>,
    zero3: Constant<Bits<3>>,
    steps: Constant<Bits<6>>,
    zero32: Constant<Bits<32>>,
    zero34: Constant<Bits<34>>,
    one34: Constant<Bits<34>>,
    one3: Constant<Bits<3>>,
    one48: Constant<Bits<48>>,
    // --- table of the frozen epoch ---
    /// The counts in registers (every rank compare reads them all).
    tab_count: [DFF<Bits<32>>; CENTERS],
    /// The counts again and the refined latencies in block RAM, read at the winner's row.
    count_ram: BlockRam<32, 6>,
    latency_ram: BlockRam<32, 6>,
    tab_ok: DFF<Bit>,
    /// The finishing divider's row and quotient (one divider at most finishes per clock).
    lat_we: Signal<Local, Bit>,
    lat_wa: Signal<Local, Bits<6>>,
    lat_wd: Signal<Local, Bits<32>>,
    /// Per divider: its row and quotient while it finishes, else zero.
    fin_row: [Signal<Local, Bits<6>>; DIVIDERS],
    fin_q: [Signal<Local, Bits<32>>; DIVIDERS],
    // --- dividers ---
    /// `busy` as a register: the OR of the dividers' next busy flags (the core's flip handshake
    /// reads one register, not an OR of eight spread over the unit).
    busy_q: DFF<Bit>,
    /// Steps left: `STEPS` the clock after the load, down to 1 in the last step, 0 in the table
    /// write and while idle. The divider's only timer: its datapath steps every clock (the
    /// quotient is read only in the write clock) and needs no enable.
    dv_left: [DFF<Bits<6>>; DIVIDERS],
    dv_last: [DFF<Bit>; DIVIDERS],
    /// Partial remainder of the non-restoring division, two's complement: in [−count, count).
    dv_rem: [DFF<Bits<34>>; DIVIDERS],
    /// Dividend bits still to enter, MSB first, with the quotient bits shifted in behind them.
    dv_dq: [DFF<Bits<48>>; DIVIDERS],
    /// The count and its negative: added to a negative / a non-negative partial remainder.
    dv_div: [DFF<Bits<34>>; DIVIDERS],
    dv_ndiv: [DFF<Bits<34>>; DIVIDERS],
    /// The divisor (the center's count) is 0: the table gets 0, not what the steps leave in the quotient.
    dv_zero: [DFF<Bit>; DIVIDERS],
    /// The divider's last clock (the table write), registered from `dv_left == 1`.
    dv_fin: [DFF<Bit>; DIVIDERS],
    /// Stepping (loaded, not yet in its last clock), registered from the load and `dv_left`:
    /// the divider stays busy next clock without a load.
    dv_stay: [DFF<Bit>; DIVIDERS],
    dv_row: [DFF<Bits<6>>; DIVIDERS],
    /// Twice the partial remainder plus the next dividend bit; it plus the count and it minus
    /// the count (both adders run, so the remainder's sign picks a sum and not an operand at
    /// the head of the carry chain); the chosen sum, the next partial remainder, whose sign bit
    /// is the complement of the quotient bit.
    dv_t: [Signal<Local, Bits<34>>; DIVIDERS],
    dv_sum_add: [Signal<Local, Bits<34>>; DIVIDERS],
    dv_sum_sub: [Signal<Local, Bits<34>>; DIVIDERS],
    dv_sum: [Signal<Local, Bits<34>>; DIVIDERS],
    dv_dq_next: [Signal<Local, Bits<48>>; DIVIDERS],
    dv_done: [Signal<Local, Bit>; DIVIDERS],
    /// The offered row's count and the sum's top bit t, widened for the divider's arithmetic.
    ro_count34: Signal<Local, Bits<34>>,
    ro_t34: Signal<Local, Bits<34>>,
    /// The taken row's count, widened.
    tk_count34: Signal<Local, Bits<34>>,
    /// Registered with the taken row: −count, t − count (the first step's partial remainder, its
    /// sign the first quotient bit's complement) and "the count is 0".
    tk_ncount: DFF<Bits<34>>,
    tk_tmc: DFF<Bits<34>>,
    tk_zero: DFF<Bit>,
    /// The dividend shifted with the first quotient bit, loaded into the divider.
    ld_dq: Signal<Local, Bits<48>>,
    // --- ranks (a taken row at t: compared in halves at t+1, combined at t+2, counted by fours
    // at t+3, summed by quarters at t+4, totalled at t+5, added at t+6) ---
    /// The centers' ranks: how many centers beat each one (final once the last row is through).
    tab_rank: [DFF<Bits<6>>; CENTERS],
    /// The presented row is taken this clock (the core's take, from this unit's registers).
    take: Signal<Local, Bit>,
    /// The row taken, registered (t): it enters the table, loads its divider and starts its rank.
    tk_valid: DFF<Bit>,
    tk_row: DFF<Bits<6>>,
    tk_count: DFF<Bits<32>>,
    /// The taken count again, one copy per 8 rows compared with it (not one register
    /// fanned out to 189 comparators beside the table's 64 loads).
    tk_count_c: [KeptReg<Bits<32>>; COUNT_COPIES],
    tk_sum: DFF<Bits<48>>,
    tk_last: DFF<Bit>,
    /// The presented row is row j (one-hot, registered with every presented row): with
    /// `tk_valid`, the enable of table row j (the take reaches one register, not 64 gates).
    tk_hot: [DFF<Bit>; CENTERS],
    /// The taken row loads divider d (one-hot over the dividers, registered with the row).
    tk_ld: [DFF<Bit>; DIVIDERS],
    /// The row the center bank presents next (the one after the last taken; rows arrive in order).
    nxt_row: DFF<Bits<6>>,
    /// Its divider, one-hot (entry 0 stored inverted, so the all-zero power-up and reset state
    /// is row 0): a take loads divider d from the take and entry d alone (one gate).
    nxt_hot: [DFF<Bit>; DIVIDERS],
    /// Divider d is the presented row's (`nxt_hot` with entry 0 restored).
    ld_sel: [Signal<Local, Bit>; DIVIDERS],
    /// The divider of the row presented is busy or about to load: the row is not offered
    /// (registered: from the dividers' next state and the row presented next).
    ro_blocked: DFF<Bit>,
    /// `ro_blocked` again, behind `ro_free` (whose loads are the core's read-out stages).
    ro_blocked_out: KeptReg<Bit>,
    /// Per divider: busy in the next clock (a registered row loading it, or busy and not
    /// finishing), registered beside the flag from `nb_left` and the take, not from the
    /// divider's own state: the flag's loop reads only registers beside it.
    dv_next_busy: [DFF<Bit>; DIVIDERS],
    /// Per divider: the clocks after this one in which it stays busy without a load, counted
    /// down beside the flag from the take (`STEPS` the clock after it, 0 when the divider
    /// is idle or in its last clock): `dv_left` a clock ahead.
    nb_left: [DFF<Bits<6>>; DIVIDERS],
    /// `ro_blocked` again, behind `ro_free_copy` (whose load is the read-out stage's full flags).
    ro_blocked_copy: KeptReg<Bit>,
    /// The divider of the row after the presented one, and of the presented one, busy next clock.
    blk_after: Signal<Local, Bit>,
    blk_same: Signal<Local, Bit>,
    /// Row i < r (the new row r is later in the fill).
    rk2_earlier: [DFF<Bit>; EARLIER],
    /// r's count against row i's, in halves: high half larger, high halves equal, low half larger.
    rk2_hi_gt: [DFF<Bit>; EARLIER],
    rk2_hi_eq: [DFF<Bit>; EARLIER],
    rk2_lo_gt: [DFF<Bit>; EARLIER],
    rk2_valid: DFF<Bit>,
    rk2_row: DFF<Bits<6>>,
    /// r's count is larger than row i's (the halves combined, t+2).
    rk_larger: [Signal<Local, Bit>; EARLIER],
    /// Row i < r, and the new row r's count is larger: i falls one place.
    rk3_passed: [DFF<Bit>; EARLIER],
    /// Row i < r beats the new row r (its count is at least r's).
    rk3_beats: [DFF<Bit>; EARLIER],
    rk3_valid: DFF<Bit>,
    rk3_row: DFF<Bits<6>>,
    /// The rows that beat r, counted in groups of four (rows 4g … 4g + 3).
    rk4_grp: [DFF<Bits<3>>; QUARTETS],
    rk4_valid: DFF<Bit>,
    rk4_row: DFF<Bits<6>>,
    /// The group counts summed by fours (rows 16q … 16q + 15).
    rk5_qtr: [DFF<Bits<5>>; 4],
    rk5_valid: DFF<Bit>,
    rk5_row: DFF<Bits<6>>,
    /// Their total, and the row it goes to (one-hot).
    rk6_sum: DFF<Bits<6>>,
    rk6_hot: [DFF<Bit>; CENTERS],
    rk_beats_w: [Signal<Local, Bits<3>>; CENTERS],
    rk_inc: [Signal<Local, Bits<6>>; CENTERS],
    rk_add: [Signal<Local, Bits<6>>; CENTERS],
    /// Group q of four centers, entry 6q + m: center 4q + a outranks 4q + b for the m-th pair
    /// (a, b) of (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3).
    quad_beats: [DFF<Bit>; QUAD_BEATS],
    // --- tie-break tree ---
    /// Entry 3q + a: center 4q + a (a < 3) is its group's winner (from the candidates at c+11;
    /// else the fourth, if any).
    quad_win: [Signal<Local, Bit>; QUAD_WINS],
    /// `quad_win` registered (c+12): the select of the group winner's rank and index.
    quad_hot: [DFF<Bit>; QUAD_WINS],
    /// Group q has a candidate of a query (c+12).
    quad_any: [DFF<Bit>; QUADS],
    /// The group winners {found, rank, center} (c+13).
    grp_found: [DFF<Bit>; QUADS],
    grp_rank: [DFF<Bits<6>>; QUADS],
    grp_center: [DFF<Bits<6>>; QUADS],
    /// The rank-compare nodes (c+14 … c+17).
    nd_found: [DFF<Bit>; NODES],
    nd_rank: [DFF<Bits<6>>; NODES],
    nd_center: [DFF<Bits<6>>; NODES],
    /// The root's found flag and center while its row is read (c+18 … c+20).
    lk_found: [DFF<Bit>; 3],
    lk_center: [DFF<Bits<6>>; 3],
    a_center_q: DFF<Bits<6>>,
    a_count_q: DFF<Bits<32>>,
    a_latency_q: DFF<Bits<32>>,
    /// The root's rank (only its center is looked up).
    root_rank_sink: Unused<Bits<6>>,
    /// The tables' second read ports (one slice each: the same word as `read_data`).
    count_copy_sink: Unused<Bits<32>>,
    latency_copy_sink: Unused<Bits<32>>,
}

impl Default for SvbfAnswer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ro_row: Default::default(),
            ro_free: Default::default(),
            ro_free_copy: Default::default(),
            ro_avail: Default::default(),
            ro_room: Default::default(),
            ro_count: Default::default(),
            ro_sum: Default::default(),
            ro_last: Default::default(),
            epoch_flip: Default::default(),
            table_ok: Default::default(),
            busy: Default::default(),
            q_cand: Default::default(),
            q_live: Default::default(),
            a_center: Default::default(),
            a_count: Default::default(),
            a_latency: Default::default(),
            idx6: std::array::from_fn(|j| Constant::new((j as u64).into())),
            idx3: std::array::from_fn(|d| Constant::new((d as u64).into())),
            zero6: Constant::new(0u64.into()),
            one6: Constant::new(1u64.into()),
            zero4: Constant::new(0u64.into()),
            zero5: Constant::new(0u64.into()),
            zero3: Constant::new(0u64.into()),
            steps: Constant::new(STEPS.into()),
            zero32: Constant::new(0u64.into()),
            zero34: Constant::new(0u64.into()),
            one34: Constant::new(1u64.into()),
            one3: Constant::new(1u64.into()),
            one48: Constant::new(1u64.into()),
            tab_count: std::array::from_fn(|_| Default::default()),
            count_ram: BlockRam::default(),
            latency_ram: BlockRam::default(),
            lat_we: Default::default(),
            lat_wa: Default::default(),
            lat_wd: Default::default(),
            fin_row: std::array::from_fn(|_| Default::default()),
            fin_q: std::array::from_fn(|_| Default::default()),
            tab_ok: Default::default(),
            busy_q: Default::default(),
            dv_left: std::array::from_fn(|_| Default::default()),
            dv_last: std::array::from_fn(|_| Default::default()),
            dv_rem: std::array::from_fn(|_| Default::default()),
            dv_dq: std::array::from_fn(|_| Default::default()),
            dv_div: std::array::from_fn(|_| Default::default()),
            dv_ndiv: std::array::from_fn(|_| Default::default()),
            dv_zero: std::array::from_fn(|_| Default::default()),
            dv_fin: std::array::from_fn(|_| Default::default()),
            dv_stay: std::array::from_fn(|_| Default::default()),
            dv_row: std::array::from_fn(|_| Default::default()),
            dv_t: std::array::from_fn(|_| Default::default()),
            dv_sum_add: std::array::from_fn(|_| Default::default()),
            dv_sum_sub: std::array::from_fn(|_| Default::default()),
            dv_sum: std::array::from_fn(|_| Default::default()),
            dv_dq_next: std::array::from_fn(|_| Default::default()),
            dv_done: std::array::from_fn(|_| Default::default()),
            ro_count34: Default::default(),
            ro_t34: Default::default(),
            tk_count34: Default::default(),
            tk_ncount: Default::default(),
            tk_tmc: Default::default(),
            tk_zero: Default::default(),
            ld_dq: Default::default(),
            tab_rank: std::array::from_fn(|_| Default::default()),
            take: Default::default(),
            tk_valid: Default::default(),
            tk_row: Default::default(),
            tk_count: Default::default(),
            tk_count_c: std::array::from_fn(|_| Default::default()),
            tk_sum: Default::default(),
            tk_last: Default::default(),
            tk_hot: std::array::from_fn(|_| Default::default()),
            tk_ld: std::array::from_fn(|_| Default::default()),
            nxt_row: Default::default(),
            nxt_hot: std::array::from_fn(|_| Default::default()),
            ld_sel: std::array::from_fn(|_| Default::default()),
            ro_blocked: Default::default(),
            ro_blocked_out: Default::default(),
            dv_next_busy: std::array::from_fn(|_| Default::default()),
            nb_left: std::array::from_fn(|_| Default::default()),
            ro_blocked_copy: Default::default(),
            blk_after: Default::default(),
            blk_same: Default::default(),
            rk2_earlier: std::array::from_fn(|_| Default::default()),
            rk2_hi_gt: std::array::from_fn(|_| Default::default()),
            rk2_hi_eq: std::array::from_fn(|_| Default::default()),
            rk2_lo_gt: std::array::from_fn(|_| Default::default()),
            rk2_valid: Default::default(),
            rk2_row: Default::default(),
            rk_larger: std::array::from_fn(|_| Default::default()),
            rk3_passed: std::array::from_fn(|_| Default::default()),
            rk3_beats: std::array::from_fn(|_| Default::default()),
            rk3_valid: Default::default(),
            rk3_row: Default::default(),
            rk4_grp: std::array::from_fn(|_| Default::default()),
            rk4_valid: Default::default(),
            rk4_row: Default::default(),
            rk5_qtr: std::array::from_fn(|_| Default::default()),
            rk5_valid: Default::default(),
            rk5_row: Default::default(),
            rk6_sum: Default::default(),
            rk6_hot: std::array::from_fn(|_| Default::default()),
            rk_beats_w: std::array::from_fn(|_| Default::default()),
            rk_inc: std::array::from_fn(|_| Default::default()),
            rk_add: std::array::from_fn(|_| Default::default()),
            quad_beats: std::array::from_fn(|_| Default::default()),
            quad_win: std::array::from_fn(|_| Default::default()),
            quad_hot: std::array::from_fn(|_| Default::default()),
            quad_any: std::array::from_fn(|_| Default::default()),
            grp_found: std::array::from_fn(|_| Default::default()),
            grp_rank: std::array::from_fn(|_| Default::default()),
            grp_center: std::array::from_fn(|_| Default::default()),
            nd_found: std::array::from_fn(|_| Default::default()),
            nd_rank: std::array::from_fn(|_| Default::default()),
            nd_center: std::array::from_fn(|_| Default::default()),
            lk_found: std::array::from_fn(|_| Default::default()),
            lk_center: std::array::from_fn(|_| Default::default()),
            a_center_q: Default::default(),
            a_count_q: Default::default(),
            a_latency_q: Default::default(),
            root_rank_sink: Default::default(),
            count_copy_sink: Default::default(),
            latency_copy_sink: Default::default(),
        }
    }
}

impl Logic for SvbfAnswer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tab_ok,
            busy_q,
            tk_valid,
            tk_row,
            tk_count,
            tk_ncount,
            tk_tmc,
            tk_zero,
            tk_sum,
            tk_last,
            nxt_row,
            ro_blocked,
            rk2_valid,
            rk2_row,
            rk3_valid,
            rk3_row,
            rk4_valid,
            rk4_row,
            rk5_valid,
            rk5_row,
            rk6_sum,
            a_center_q,
            a_count_q,
            a_latency_q
        );
        for j in 0..CENTERS {
            self.tab_count[j].clock.next = self.clock.val();
            self.tab_count[j].d.next = self.tab_count[j].q.val();
            self.tab_rank[j].clock.next = self.clock.val();
            self.tk_hot[j].clock.next = self.clock.val();
        }
        for j in 0..EARLIER {
            self.rk2_earlier[j].clock.next = self.clock.val();
            self.rk2_hi_gt[j].clock.next = self.clock.val();
            self.rk2_hi_eq[j].clock.next = self.clock.val();
            self.rk2_lo_gt[j].clock.next = self.clock.val();
            self.rk3_passed[j].clock.next = self.clock.val();
            self.rk3_beats[j].clock.next = self.clock.val();
        }
        for d in 0..DIVIDERS {
            self.dv_left[d].clock.next = self.clock.val();
            self.dv_row[d].clock.next = self.clock.val();
            self.dv_row[d].d.next = self.dv_row[d].q.val();
            self.dv_fin[d].clock.next = self.clock.val();
            self.dv_stay[d].clock.next = self.clock.val();
            self.tk_ld[d].clock.next = self.clock.val();
            self.dv_next_busy[d].clock.next = self.clock.val();
            self.nb_left[d].clock.next = self.clock.val();
            self.dv_last[d].clock.next = self.clock.val();
            self.dv_last[d].d.next = self.dv_last[d].q.val();
            self.dv_rem[d].clock.next = self.clock.val();
            self.dv_dq[d].clock.next = self.clock.val();
            self.dv_div[d].clock.next = self.clock.val();
            self.dv_div[d].d.next = self.dv_div[d].q.val();
            self.dv_ndiv[d].clock.next = self.clock.val();
            self.dv_ndiv[d].d.next = self.dv_ndiv[d].q.val();
            self.dv_zero[d].clock.next = self.clock.val();
            self.dv_zero[d].d.next = self.dv_zero[d].q.val();
        }
        for g in 0..QUARTETS {
            self.rk4_grp[g].clock.next = self.clock.val();
        }
        for q in 0..4 {
            self.rk5_qtr[q].clock.next = self.clock.val();
        }
        for j in 0..CENTERS {
            self.rk6_hot[j].clock.next = self.clock.val();
        }
        for m in 0..QUAD_WINS {
            self.quad_hot[m].clock.next = self.clock.val();
        }
        for q in 0..QUADS {
            self.quad_any[q].clock.next = self.clock.val();
            self.grp_found[q].clock.next = self.clock.val();
            self.grp_rank[q].clock.next = self.clock.val();
            self.grp_center[q].clock.next = self.clock.val();
        }
        for m in 0..QUAD_BEATS {
            self.quad_beats[m].clock.next = self.clock.val();
        }
        for n in 0..3 {
            self.lk_found[n].clock.next = self.clock.val();
            self.lk_center[n].clock.next = self.clock.val();
        }
        for n in 0..NODES {
            self.nd_found[n].clock.next = self.clock.val();
            self.nd_rank[n].clock.next = self.clock.val();
            self.nd_center[n].clock.next = self.clock.val();
        }

        // ---- the presented row's divider is free (neither busy nor about to load) ----
        // The rows arrive in order, so the row presented next is the one after the last
        // taken: a take moves to it, and its divider differs from the taken row's (row + 1
        // mod 8), so the take's own load never blocks it. The flag is registered from the
        // dividers' next state (itself registered here, `dv_next_busy`); the handshake reads a
        // register. The take is the core's, formed from this unit's own copies of the stages'
        // flags, so the loop through the flag reads only registers beside it.
        self.take.next = self.ro_avail.val() & self.ro_room.val() & !self.ro_blocked.q.val();
        self.ro_blocked_out.clock.next = self.clock.val();
        self.ro_blocked_copy.clock.next = self.clock.val();
        self.blk_after.next = false;
        self.blk_same.next = false;
        for d in 0..DIVIDERS {
            if (self.nxt_row.q.val().get_bits::<3>(0) + self.one3.val()) == self.idx3[d].val() {
                self.blk_after.next = self.dv_next_busy[d].q.val();
            }
            if self.nxt_row.q.val().get_bits::<3>(0) == self.idx3[d].val() {
                self.blk_same.next = self.dv_next_busy[d].q.val();
            }
        }
        self.ld_sel[0].next = !self.nxt_hot[0].q.val();
        for d in 1..DIVIDERS {
            self.ld_sel[d].next = self.nxt_hot[d].q.val();
        }
        for d in 0..DIVIDERS {
            self.nxt_hot[d].clock.next = self.clock.val();
            self.nxt_hot[d].d.next = self.nxt_hot[d].q.val();
        }
        if self.take.val() {
            self.nxt_row.d.next = self.nxt_row.q.val() + self.one6.val();
            self.nxt_hot[0].d.next = !self.ld_sel[7].val();
            for d in 1..DIVIDERS {
                self.nxt_hot[d].d.next = self.ld_sel[d - 1].val();
            }
            self.ro_blocked.d.next = self.blk_after.val();
        } else {
            self.ro_blocked.d.next = self.blk_same.val();
        }
        self.ro_free.next = !self.ro_blocked_out.q.val();
        self.ro_free_copy.next = !self.ro_blocked_copy.q.val();
        // ---- a taken row is registered (with one-hot enables), then its count enters the table ----
        self.tk_valid.d.next = self.take.val();
        self.tk_row.d.next = self.ro_row.val();
        self.tk_count.d.next = self.ro_count.val();
        for c in 0..COUNT_COPIES {
            self.tk_count_c[c].clock.next = self.clock.val();
            self.tk_count_c[c].d.next = self.ro_count.val();
        }
        self.tk_sum.d.next = self.ro_sum.val();
        // The divider's operands, ready when the row loads: count, −count, t − count.
        self.ro_count34.next = bit_cast::<34, 32>(self.ro_count.val());
        if self.ro_sum.val().get_bit(47) {
            self.ro_t34.next = self.one34.val();
        } else {
            self.ro_t34.next = self.zero34.val();
        }
        self.tk_count34.next = bit_cast::<34, 32>(self.tk_count.q.val());
        self.tk_ncount.d.next = self.zero34.val() - self.ro_count34.val();
        self.tk_tmc.d.next = self.ro_t34.val() - self.ro_count34.val();
        self.tk_zero.d.next = self.ro_count.val() == self.zero32.val();
        self.tk_last.d.next = self.ro_last.val();
        for j in 0..CENTERS {
            self.tk_hot[j].d.next = self.ro_row.val() == self.idx6[j].val();
            if self.tk_valid.q.val() & self.tk_hot[j].q.val() {
                self.tab_count[j].d.next = self.tk_count.q.val();
            }
        }
        for d in 0..DIVIDERS {
            self.tk_ld[d].d.next = self.take.val() & self.ld_sel[d].val();
        }

        // ---- dividers: one quotient bit per clock, MSB first, non-restoring ----
        // The first step as the row loads: the shifted-in dividend is the sum's top bit t, the
        // partial remainder t − count (registered with the take), and the quotient bit is 1
        // where that is not negative (t ≥ count: count 0, or count 1 with t = 1).
        if !self.tk_tmc.q.val().get_bit(33) {
            self.ld_dq.next = (self.tk_sum.q.val() << self.one48.val()) | self.one48.val();
        } else {
            self.ld_dq.next = self.tk_sum.q.val() << self.one48.val();
        }
        for d in 0..DIVIDERS {
            // Partial remainder P in [−count, count): 2P + the next dividend bit, plus the count if
            // P < 0, else minus it (both 34-bit additions, one picked by P's sign bit after the
            // carry chains); the quotient bit is 1 where the result is not negative, the bit
            // restoring division gives (its remainder is P where P ≥ 0, P + count where P < 0).
            if self.dv_dq[d].q.val().get_bit(47) {
                self.dv_t[d].next = (self.dv_rem[d].q.val() << self.one34.val()) | self.one34.val();
            } else {
                self.dv_t[d].next = self.dv_rem[d].q.val() << self.one34.val();
            }
            self.dv_sum_add[d].next = self.dv_t[d].val() + self.dv_div[d].q.val();
            self.dv_sum_sub[d].next = self.dv_t[d].val() + self.dv_ndiv[d].q.val();
            if self.dv_rem[d].q.val().get_bit(33) {
                self.dv_sum[d].next = self.dv_sum_add[d].val();
            } else {
                self.dv_sum[d].next = self.dv_sum_sub[d].val();
            }
            if self.dv_sum[d].val().get_bit(33) {
                self.dv_dq_next[d].next = self.dv_dq[d].q.val() << self.one48.val();
            } else {
                self.dv_dq_next[d].next = (self.dv_dq[d].q.val() << self.one48.val()) | self.one48.val();
            }
            // The datapath steps every clock: from the load to the last step these are the 2nd
            // to the 48th quotient bits, in the write clock the quotient is read (the step it
            // takes then, and while idle, is never read). The timer: `dv_left` counts the steps
            // down, its last (1) registers the write clock.
            self.dv_dq[d].d.next = self.dv_dq_next[d].val();
            self.dv_rem[d].d.next = self.dv_sum[d].val();
            self.dv_left[d].d.next = self.dv_left[d].q.val();
            if self.dv_left[d].q.val() != self.zero6.val() {
                self.dv_left[d].d.next = self.dv_left[d].q.val() - self.one6.val();
            }
            self.dv_fin[d].d.next = self.dv_left[d].q.val() == self.one6.val();
            self.dv_done[d].next = self.dv_fin[d].q.val();
            if self.dv_done[d].val() & self.dv_last[d].q.val() {
                self.tab_ok.d.next = true;
            }
            // The registered row loads its divider (free: a row is offered only then).
            if self.tk_ld[d].q.val() {
                self.dv_left[d].d.next = self.steps.val();
                self.dv_row[d].d.next = self.tk_row.q.val();
                self.dv_last[d].d.next = self.tk_last.q.val();
                self.dv_rem[d].d.next = self.tk_tmc.q.val();
                self.dv_dq[d].d.next = self.ld_dq.val();
                self.dv_div[d].d.next = self.tk_count34.val();
                self.dv_ndiv[d].d.next = self.tk_ncount.q.val();
                self.dv_zero[d].d.next = self.tk_zero.q.val();
            }
        }
        // ---- a finished quotient into the latency table (the dividers load one per clock at
        // most and all take 48 clocks, so at most one finishes per clock) ----
        // One-hot over the dividers: an OR of the finishing one's row and quotient (no priority chain).
        for d in 0..DIVIDERS {
            self.fin_row[d].next = self.zero6.val();
            self.fin_q[d].next = self.zero32.val();
            if self.dv_done[d].val() {
                self.fin_row[d].next = self.dv_row[d].q.val();
                if !self.dv_zero[d].q.val() {
                    self.fin_q[d].next = self.dv_dq[d].q.val().get_bits::<32>(0);
                }
            }
        }
        self.lat_we.next = self.dv_done[0].val()
            | self.dv_done[1].val()
            | self.dv_done[2].val()
            | self.dv_done[3].val()
            | self.dv_done[4].val()
            | self.dv_done[5].val()
            | self.dv_done[6].val()
            | self.dv_done[7].val();
        self.lat_wa.next = ((self.fin_row[0].val() | self.fin_row[1].val())
            | (self.fin_row[2].val() | self.fin_row[3].val()))
            | ((self.fin_row[4].val() | self.fin_row[5].val()) | (self.fin_row[6].val() | self.fin_row[7].val()));
        self.lat_wd.next = ((self.fin_q[0].val() | self.fin_q[1].val()) | (self.fin_q[2].val() | self.fin_q[3].val()))
            | ((self.fin_q[4].val() | self.fin_q[5].val()) | (self.fin_q[6].val() | self.fin_q[7].val()));
        self.latency_ram.clock.next = self.clock.val();
        self.latency_ram.write_enable.next = self.lat_we.val();
        self.latency_ram.write_address.next = self.lat_wa.val();
        self.latency_ram.write_data.next = self.lat_wd.val();
        self.count_ram.clock.next = self.clock.val();
        self.count_ram.write_enable.next = self.tk_valid.q.val();
        self.count_ram.write_address.next = self.tk_row.q.val();
        self.count_ram.write_data.next = self.tk_count.q.val();
        if self.epoch_flip.val() {
            self.tab_ok.d.next = false;
        }
        self.table_ok.next = self.tab_ok.q.val();
        self.busy.next = self.busy_q.q.val();

        // ---- ranks: a taken row r (registered at t) against the rows i < r already in the table ----
        // t+1: compare (the rows before r entered the table from this register a clock or more earlier).
        // Row j reads count copy j / 8 (written out per copy: hdl_gen indexes by literals and
        // loop variables only).
        for j in 0..EARLIER {
            self.rk2_earlier[j].d.next = self.tk_valid.q.val() & (self.idx6[j].val() < self.tk_row.q.val());
        }
        for j in 0..8 {
            self.rk2_hi_gt[j].d.next =
                self.tk_count_c[0].q.val().get_bits::<16>(16) > self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_hi_eq[j].d.next =
                self.tk_count_c[0].q.val().get_bits::<16>(16) == self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_lo_gt[j].d.next =
                self.tk_count_c[0].q.val().get_bits::<16>(0) > self.tab_count[j].q.val().get_bits::<16>(0);
        }
        for j in 8..16 {
            self.rk2_hi_gt[j].d.next =
                self.tk_count_c[1].q.val().get_bits::<16>(16) > self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_hi_eq[j].d.next =
                self.tk_count_c[1].q.val().get_bits::<16>(16) == self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_lo_gt[j].d.next =
                self.tk_count_c[1].q.val().get_bits::<16>(0) > self.tab_count[j].q.val().get_bits::<16>(0);
        }
        for j in 16..24 {
            self.rk2_hi_gt[j].d.next =
                self.tk_count_c[2].q.val().get_bits::<16>(16) > self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_hi_eq[j].d.next =
                self.tk_count_c[2].q.val().get_bits::<16>(16) == self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_lo_gt[j].d.next =
                self.tk_count_c[2].q.val().get_bits::<16>(0) > self.tab_count[j].q.val().get_bits::<16>(0);
        }
        for j in 24..32 {
            self.rk2_hi_gt[j].d.next =
                self.tk_count_c[3].q.val().get_bits::<16>(16) > self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_hi_eq[j].d.next =
                self.tk_count_c[3].q.val().get_bits::<16>(16) == self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_lo_gt[j].d.next =
                self.tk_count_c[3].q.val().get_bits::<16>(0) > self.tab_count[j].q.val().get_bits::<16>(0);
        }
        for j in 32..40 {
            self.rk2_hi_gt[j].d.next =
                self.tk_count_c[4].q.val().get_bits::<16>(16) > self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_hi_eq[j].d.next =
                self.tk_count_c[4].q.val().get_bits::<16>(16) == self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_lo_gt[j].d.next =
                self.tk_count_c[4].q.val().get_bits::<16>(0) > self.tab_count[j].q.val().get_bits::<16>(0);
        }
        for j in 40..48 {
            self.rk2_hi_gt[j].d.next =
                self.tk_count_c[5].q.val().get_bits::<16>(16) > self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_hi_eq[j].d.next =
                self.tk_count_c[5].q.val().get_bits::<16>(16) == self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_lo_gt[j].d.next =
                self.tk_count_c[5].q.val().get_bits::<16>(0) > self.tab_count[j].q.val().get_bits::<16>(0);
        }
        for j in 48..56 {
            self.rk2_hi_gt[j].d.next =
                self.tk_count_c[6].q.val().get_bits::<16>(16) > self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_hi_eq[j].d.next =
                self.tk_count_c[6].q.val().get_bits::<16>(16) == self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_lo_gt[j].d.next =
                self.tk_count_c[6].q.val().get_bits::<16>(0) > self.tab_count[j].q.val().get_bits::<16>(0);
        }
        for j in 56..EARLIER {
            self.rk2_hi_gt[j].d.next =
                self.tk_count_c[7].q.val().get_bits::<16>(16) > self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_hi_eq[j].d.next =
                self.tk_count_c[7].q.val().get_bits::<16>(16) == self.tab_count[j].q.val().get_bits::<16>(16);
            self.rk2_lo_gt[j].d.next =
                self.tk_count_c[7].q.val().get_bits::<16>(0) > self.tab_count[j].q.val().get_bits::<16>(0);
        }
        self.rk2_valid.d.next = self.tk_valid.q.val();
        self.rk2_row.d.next = self.tk_row.q.val();
        // t+2: the halves combined; row i either falls behind r or beats it.
        for j in 0..EARLIER {
            self.rk_larger[j].next =
                self.rk2_hi_gt[j].q.val() | (self.rk2_hi_eq[j].q.val() & self.rk2_lo_gt[j].q.val());
            self.rk3_passed[j].d.next = self.rk2_earlier[j].q.val() & self.rk_larger[j].val();
            self.rk3_beats[j].d.next = self.rk2_earlier[j].q.val() & !self.rk_larger[j].val();
        }
        self.rk3_valid.d.next = self.rk2_valid.q.val();
        self.rk3_row.d.next = self.rk2_row.q.val();
        // t+3: the rows that beat r, counted in groups of four.
        for j in 0..EARLIER {
            if self.rk3_beats[j].q.val() {
                self.rk_beats_w[j].next = self.one3.val();
            } else {
                self.rk_beats_w[j].next = self.zero3.val();
            }
        }
        self.rk_beats_w[63].next = self.zero3.val();
        for g in 0..QUARTETS {
            self.rk4_grp[g].d.next = (self.rk_beats_w[4 * g].val() + self.rk_beats_w[4 * g + 1].val())
                + (self.rk_beats_w[4 * g + 2].val() + self.rk_beats_w[4 * g + 3].val());
        }
        self.rk4_valid.d.next = self.rk3_valid.q.val();
        self.rk4_row.d.next = self.rk3_row.q.val();
        // t+4: the group counts summed by fours (written out: hdl_gen widens only literal indices).
        self.rk5_qtr[0].d.next = (bit_cast::<5, 3>(self.rk4_grp[0].q.val())
            + bit_cast::<5, 3>(self.rk4_grp[1].q.val()))
            + (bit_cast::<5, 3>(self.rk4_grp[2].q.val()) + bit_cast::<5, 3>(self.rk4_grp[3].q.val()));
        self.rk5_qtr[1].d.next = (bit_cast::<5, 3>(self.rk4_grp[4].q.val())
            + bit_cast::<5, 3>(self.rk4_grp[5].q.val()))
            + (bit_cast::<5, 3>(self.rk4_grp[6].q.val()) + bit_cast::<5, 3>(self.rk4_grp[7].q.val()));
        self.rk5_qtr[2].d.next = (bit_cast::<5, 3>(self.rk4_grp[8].q.val())
            + bit_cast::<5, 3>(self.rk4_grp[9].q.val()))
            + (bit_cast::<5, 3>(self.rk4_grp[10].q.val()) + bit_cast::<5, 3>(self.rk4_grp[11].q.val()));
        self.rk5_qtr[3].d.next = (bit_cast::<5, 3>(self.rk4_grp[12].q.val())
            + bit_cast::<5, 3>(self.rk4_grp[13].q.val()))
            + (bit_cast::<5, 3>(self.rk4_grp[14].q.val()) + bit_cast::<5, 3>(self.rk4_grp[15].q.val()));
        self.rk5_valid.d.next = self.rk4_valid.q.val();
        self.rk5_row.d.next = self.rk4_row.q.val();
        // t+5: their number (at most 63), and the row it goes to.
        self.rk6_sum.d.next = (bit_cast::<6, 5>(self.rk5_qtr[0].q.val()) + bit_cast::<6, 5>(self.rk5_qtr[1].q.val()))
            + (bit_cast::<6, 5>(self.rk5_qtr[2].q.val()) + bit_cast::<6, 5>(self.rk5_qtr[3].q.val()));
        for j in 0..CENTERS {
            self.rk6_hot[j].d.next = self.rk5_valid.q.val() & (self.rk5_row.q.val() == self.idx6[j].val());
        }
        // Every rank: one place down for a later, larger row (t+3), plus r's own count (t+6).
        for j in 0..EARLIER {
            if self.rk3_passed[j].q.val() {
                self.rk_inc[j].next = self.one6.val();
            } else {
                self.rk_inc[j].next = self.zero6.val();
            }
        }
        // No row comes after the last one.
        self.rk_inc[63].next = self.zero6.val();
        for j in 0..CENTERS {
            if self.rk6_hot[j].q.val() {
                self.rk_add[j].next = self.rk6_sum.q.val();
            } else {
                self.rk_add[j].next = self.zero6.val();
            }
            self.tab_rank[j].d.next = self.tab_rank[j].q.val() + self.rk_inc[j].val() + self.rk_add[j].val();
            // The first row of a fill starts the ranking afresh.
            if self.tk_valid.q.val() & self.tk_hot[0].q.val() {
                self.tab_rank[j].d.next = self.zero6.val();
            }
        }
        // The pairwise orders inside each group of four.
        for q in 0..QUADS {
            self.quad_beats[6 * q].d.next = self.tab_rank[4 * q].q.val() < self.tab_rank[4 * q + 1].q.val();
            self.quad_beats[6 * q + 1].d.next = self.tab_rank[4 * q].q.val() < self.tab_rank[4 * q + 2].q.val();
            self.quad_beats[6 * q + 2].d.next = self.tab_rank[4 * q].q.val() < self.tab_rank[4 * q + 3].q.val();
            self.quad_beats[6 * q + 3].d.next = self.tab_rank[4 * q + 1].q.val() < self.tab_rank[4 * q + 2].q.val();
            self.quad_beats[6 * q + 4].d.next = self.tab_rank[4 * q + 1].q.val() < self.tab_rank[4 * q + 3].q.val();
            self.quad_beats[6 * q + 5].d.next = self.tab_rank[4 * q + 2].q.val() < self.tab_rank[4 * q + 3].q.val();
        }

        // ---- tie-break: each group of four by its pairwise orders, the winner flags (c+11 -> c+12) ----
        for q in 0..QUADS {
            self.quad_win[3 * q].next = self.q_cand.val().get_bit(4 * q)
                & (!self.q_cand.val().get_bit(4 * q + 1) | self.quad_beats[6 * q].q.val())
                & (!self.q_cand.val().get_bit(4 * q + 2) | self.quad_beats[6 * q + 1].q.val())
                & (!self.q_cand.val().get_bit(4 * q + 3) | self.quad_beats[6 * q + 2].q.val());
            self.quad_win[3 * q + 1].next = self.q_cand.val().get_bit(4 * q + 1)
                & (!self.q_cand.val().get_bit(4 * q) | !self.quad_beats[6 * q].q.val())
                & (!self.q_cand.val().get_bit(4 * q + 2) | self.quad_beats[6 * q + 3].q.val())
                & (!self.q_cand.val().get_bit(4 * q + 3) | self.quad_beats[6 * q + 4].q.val());
            self.quad_win[3 * q + 2].next = self.q_cand.val().get_bit(4 * q + 2)
                & (!self.q_cand.val().get_bit(4 * q) | !self.quad_beats[6 * q + 1].q.val())
                & (!self.q_cand.val().get_bit(4 * q + 1) | !self.quad_beats[6 * q + 3].q.val())
                & (!self.q_cand.val().get_bit(4 * q + 3) | self.quad_beats[6 * q + 5].q.val());
            self.quad_hot[3 * q].d.next = self.quad_win[3 * q].val();
            self.quad_hot[3 * q + 1].d.next = self.quad_win[3 * q + 1].val();
            self.quad_hot[3 * q + 2].d.next = self.quad_win[3 * q + 2].val();
            self.quad_any[q].d.next = self.q_live.val() & (self.q_cand.val().get_bits::<4>(4 * q) != self.zero4.val());
        }
        // ---- c+12 -> c+13: each group winner's rank and index, selected by its registered flag ----
        for q in 0..QUADS {
            self.grp_found[q].d.next = self.quad_any[q].q.val();
            if self.quad_hot[3 * q].q.val() {
                self.grp_rank[q].d.next = self.tab_rank[4 * q].q.val();
                self.grp_center[q].d.next = self.idx6[4 * q].val();
            } else if self.quad_hot[3 * q + 1].q.val() {
                self.grp_rank[q].d.next = self.tab_rank[4 * q + 1].q.val();
                self.grp_center[q].d.next = self.idx6[4 * q + 1].val();
            } else if self.quad_hot[3 * q + 2].q.val() {
                self.grp_rank[q].d.next = self.tab_rank[4 * q + 2].q.val();
                self.grp_center[q].d.next = self.idx6[4 * q + 2].val();
            } else {
                // The fourth center, or no candidate (then `grp_found` is low).
                self.grp_rank[q].d.next = self.tab_rank[4 * q + 3].q.val();
                self.grp_center[q].d.next = self.idx6[4 * q + 3].val();
            }
        }
        // ---- c+13 -> c+14: the group winners pairwise by rank ----
        for n in 0..8 {
            if self.grp_found[2 * n].q.val()
                & (!self.grp_found[2 * n + 1].q.val()
                    | (self.grp_rank[2 * n].q.val() < self.grp_rank[2 * n + 1].q.val()))
            {
                self.nd_found[n].d.next = true;
                self.nd_rank[n].d.next = self.grp_rank[2 * n].q.val();
                self.nd_center[n].d.next = self.grp_center[2 * n].q.val();
            } else {
                self.nd_found[n].d.next = self.grp_found[2 * n + 1].q.val();
                self.nd_rank[n].d.next = self.grp_rank[2 * n + 1].q.val();
                self.nd_center[n].d.next = self.grp_center[2 * n + 1].q.val();
            }
        }
        // ---- c+14 -> c+17: three more levels, one per clock ----
        for n in 8..NODES {
            if self.nd_found[2 * n - 16].q.val()
                & (!self.nd_found[2 * n - 15].q.val()
                    | (self.nd_rank[2 * n - 16].q.val() < self.nd_rank[2 * n - 15].q.val()))
            {
                self.nd_found[n].d.next = true;
                self.nd_rank[n].d.next = self.nd_rank[2 * n - 16].q.val();
                self.nd_center[n].d.next = self.nd_center[2 * n - 16].q.val();
            } else {
                self.nd_found[n].d.next = self.nd_found[2 * n - 15].q.val();
                self.nd_rank[n].d.next = self.nd_rank[2 * n - 15].q.val();
                self.nd_center[n].d.next = self.nd_center[2 * n - 15].q.val();
            }
        }
        // ---- c+17: the root's row read from both tables (three clocks), found and center wait ----
        self.count_ram.read_address.next = self.nd_center[14].q.val();
        self.latency_ram.read_address.next = self.nd_center[14].q.val();
        self.lk_found[0].d.next = self.nd_found[14].q.val();
        self.lk_center[0].d.next = self.nd_center[14].q.val();
        for n in 1..3 {
            self.lk_found[n].d.next = self.lk_found[n - 1].q.val();
            self.lk_center[n].d.next = self.lk_center[n - 1].q.val();
        }
        // ---- c+20 -> c+21: the answer registered, zero without a winner (the clear comes
        // straight from `lk_found[2]`, a register, so the core's result registers take the
        // answer without a decode of their own) ----
        self.a_center_q.d.next = self.zero6.val();
        self.a_count_q.d.next = self.zero32.val();
        self.a_latency_q.d.next = self.zero32.val();
        if self.lk_found[2].q.val() {
            self.a_center_q.d.next = self.lk_center[2].q.val();
            self.a_count_q.d.next = self.count_ram.read_data.val();
            self.a_latency_q.d.next = self.latency_ram.read_data.val();
        }
        self.root_rank_sink.sig.next = self.nd_rank[14].q.val();
        self.count_copy_sink.sig.next = self.count_ram.read_data_copy.val();
        self.latency_copy_sink.sig.next = self.latency_ram.read_data_copy.val();
        self.a_center.next = self.a_center_q.q.val();
        self.a_count.next = self.a_count_q.q.val();
        self.a_latency.next = self.a_latency_q.q.val();

        // ---- synchronous reset of the control state ----
        if self.reset.val() {
            self.tab_ok.d.next = false;
            for d in 0..DIVIDERS {
                self.dv_left[d].d.next = self.zero6.val();
            }
            self.tk_valid.d.next = false;
            self.nxt_row.d.next = self.zero6.val();
            for d in 0..DIVIDERS {
                self.nxt_hot[d].d.next = false;
            }
            self.ro_blocked.d.next = false;
            for d in 0..DIVIDERS {
                self.tk_ld[d].d.next = false;
                self.dv_fin[d].d.next = false;
            }
            // A reset ends the queries in flight: their answers must stay zero like the results.
            for q in 0..QUADS {
                self.quad_any[q].d.next = false;
                self.grp_found[q].d.next = false;
            }
            for n in 0..NODES {
                self.nd_found[n].d.next = false;
            }
            for n in 0..3 {
                self.lk_found[n].d.next = false;
            }
            self.a_center_q.d.next = self.zero6.val();
            self.a_count_q.d.next = self.zero32.val();
            self.a_latency_q.d.next = self.zero32.val();
            self.rk2_valid.d.next = false;
            self.rk3_valid.d.next = false;
            self.rk4_valid.d.next = false;
            self.rk5_valid.d.next = false;
            for j in 0..CENTERS {
                self.rk6_hot[j].d.next = false;
            }
            for j in 0..EARLIER {
                self.rk2_earlier[j].d.next = false;
                self.rk3_passed[j].d.next = false;
                self.rk3_beats[j].d.next = false;
            }
        }

        // ---- busy next clock: a divider loading or at work (after the reset above). A row taken
        // at t loads its divider at t+1 and counts from t+2; at t+1 the core's own register
        // ("the read-out stage presented a row last clock") holds the flip.
        // The OR of their next busy flags: a take loads exactly one divider (`tk_valid` is the OR
        // of the `tk_ld`), and the others stay busy unless in their last clock (`dv_stay`, a
        // register per divider: loading now, or two or more steps left), so the flag is one
        // level of OR over registers.
        // The blocked flag's copy of the same (`dv_next_busy`) comes from `nb_left` beside it: a
        // take loads STEPS (the divider is busy and not finishing at t+2 … t+48, and
        // `nb_left` is nonzero at t+1 … t+47, a clock ahead), otherwise it counts down to 0. A
        // row is taken only while its divider is idle, so a load never cuts a count short.
        for d in 0..DIVIDERS {
            self.dv_stay[d].d.next = !self.reset.val()
                & (self.tk_ld[d].q.val() | (self.dv_left[d].q.val().get_bits::<5>(1) != self.zero5.val()));
            self.nb_left[d].d.next = self.nb_left[d].q.val();
            if self.nb_left[d].q.val() != self.zero6.val() {
                self.nb_left[d].d.next = self.nb_left[d].q.val() - self.one6.val();
            }
            if self.tk_ld[d].d.val() {
                self.nb_left[d].d.next = self.steps.val();
            }
            self.dv_next_busy[d].d.next = self.tk_ld[d].d.val() | (self.nb_left[d].q.val() != self.zero6.val());
            if self.reset.val() {
                self.nb_left[d].d.next = self.zero6.val();
                self.dv_next_busy[d].d.next = false;
            }
        }
        self.ro_blocked_out.d.next = self.ro_blocked.d.val();
        self.ro_blocked_copy.d.next = self.ro_blocked.d.val();
        self.busy_q.d.next = self.tk_valid.q.val()
            | self.dv_stay[0].q.val()
            | self.dv_stay[1].q.val()
            | self.dv_stay[2].q.val()
            | self.dv_stay[3].q.val()
            | self.dv_stay[4].q.val()
            | self.dv_stay[5].q.val()
            | self.dv_stay[6].q.val()
            | self.dv_stay[7].q.val();
        if self.reset.val() {
            self.busy_q.d.next = false;
        }
    }
}
