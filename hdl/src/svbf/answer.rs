//! SVBF answer unit: the frozen epoch's per-center table, its refined
//! estimates and the tie-break (MAPLE §3.3 "refined estimates", §3.3.4
//! tie-breaking, §6 "two extra counters per center").
//!
//! - **Table fill.** The core's center bank streams the frozen epoch's 64
//!   rows {count, latency sum} out after a flip. Each row the consumer takes
//!   (`ro_take`) is written into the count table and loaded into divider
//!   `row mod 8`; a row is offered only while its divider is free
//!   (`ro_free`). A divider is a radix-2 restoring divider of the 48-bit
//!   sum by the 32-bit count: 48 clocks, then the refined estimate
//!   ⌊sum / count⌋ mod 2^32 (0 for an empty center) enters the latency
//!   table. Eight dividers take the 64 rows in about 8 × 49 clocks;
//!   `table_ok` rises when the last row's quotient is written and falls
//!   when the banks flip to a new epoch; `busy` holds the next flip back
//!   until every divider is idle, so no late quotient lands in the next
//!   epoch's table.
//! - **Tie-break** (a query's candidates presented at c+9 of the core's
//!   query pipeline): a six-level tree over the 64 centers, one level per
//!   clock, keeps per node the candidate with the larger count, the lower
//!   index among equal counts, with its count and refined latency; the root
//!   is registered at c+15 (`a_found` low when there is no candidate).
//!
//! Per-clock model: `netmeas_sim::svbf::cycle` (its `table` and `tree`).

use rust_hdl::prelude::*;

/// Serial dividers, one per row residue mod 8.
const DIVIDERS: usize = 8;
/// Centers (rows of the center bank).
const CENTERS: usize = 64;
/// Nodes of the tie-break tree: 32 + 16 + 8 + 4 + 2 + 1, level by level.
const NODES: usize = 63;

/// Per-center table of the frozen epoch, eight serial dividers and the tie-break tree.
#[derive(LogicBlock)]
pub struct SvbfAnswer {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the dividers stop and the table is not ready.
    pub reset: Signal<In, Bit>,
    // --- center read-out of the frozen epoch (as the consumer takes it) ---
    /// The row the center bank presents.
    pub ro_row: Signal<In, Bits<6>>,
    /// That row's divider is free: the row may be offered.
    pub ro_free: Signal<Out, Bit>,
    /// The row is taken this clock.
    pub ro_take: Signal<In, Bit>,
    /// Its packet count.
    pub ro_count: Signal<In, Bits<32>>,
    /// Its latency sum.
    pub ro_sum: Signal<In, Bits<48>>,
    /// It is the last row (center 63).
    pub ro_last: Signal<In, Bit>,
    // --- epochs ---
    /// The banks flip this clock: the table no longer describes the frozen epoch.
    pub epoch_flip: Signal<In, Bit>,
    /// Every row of the frozen epoch is in the table, refined.
    pub table_ok: Signal<Out, Bit>,
    /// A divider is still at work (the core takes no flip until it is done).
    pub busy: Signal<Out, Bit>,
    // --- tie-break (candidates at c+9, winner at c+15) ---
    /// The AND of the windows and the center mask.
    pub q_cand: Signal<In, Bits<64>>,
    /// There was a candidate.
    pub a_found: Signal<Out, Bit>,
    /// The chosen center: largest count, lowest index among equal counts.
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
    last_step: Constant<Bits<6>>,
    zero32: Constant<Bits<32>>,
    zero33: Constant<Bits<33>>,
    one33: Constant<Bits<33>>,
    one48: Constant<Bits<48>>,
    // --- table of the frozen epoch ---
    tab_count: [DFF<Bits<32>>; CENTERS],
    tab_latency: [DFF<Bits<32>>; CENTERS],
    tab_ok: DFF<Bit>,
    // --- dividers ---
    dv_busy: [DFF<Bit>; DIVIDERS],
    dv_step: [DFF<Bits<6>>; DIVIDERS],
    dv_row: [DFF<Bits<6>>; DIVIDERS],
    dv_last: [DFF<Bit>; DIVIDERS],
    /// Partial remainder (below the divisor, so bit 32 is 0 between steps).
    dv_rem: [DFF<Bits<33>>; DIVIDERS],
    /// Dividend bits still to enter, MSB first, with the quotient bits shifted in behind them.
    dv_dq: [DFF<Bits<48>>; DIVIDERS],
    dv_div: [DFF<Bits<33>>; DIVIDERS],
    dv_t: [Signal<Local, Bits<33>>; DIVIDERS],
    dv_ge: [Signal<Local, Bit>; DIVIDERS],
    dv_dq_next: [Signal<Local, Bits<48>>; DIVIDERS],
    dv_done: [Signal<Local, Bit>; DIVIDERS],
    ro_count33: Signal<Local, Bits<33>>,
    // --- tie-break tree ---
    nd_valid: [DFF<Bit>; NODES],
    nd_count: [DFF<Bits<32>>; NODES],
    nd_center: [DFF<Bits<6>>; NODES],
    nd_latency: [DFF<Bits<32>>; NODES],
}

impl Default for SvbfAnswer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ro_row: Default::default(),
            ro_free: Default::default(),
            ro_take: Default::default(),
            ro_count: Default::default(),
            ro_sum: Default::default(),
            ro_last: Default::default(),
            epoch_flip: Default::default(),
            table_ok: Default::default(),
            busy: Default::default(),
            q_cand: Default::default(),
            a_found: Default::default(),
            a_center: Default::default(),
            a_count: Default::default(),
            a_latency: Default::default(),
            idx6: std::array::from_fn(|j| Constant::new((j as u64).into())),
            idx3: std::array::from_fn(|d| Constant::new((d as u64).into())),
            zero6: Constant::new(0u64.into()),
            one6: Constant::new(1u64.into()),
            last_step: Constant::new(47u64.into()),
            zero32: Constant::new(0u64.into()),
            zero33: Constant::new(0u64.into()),
            one33: Constant::new(1u64.into()),
            one48: Constant::new(1u64.into()),
            tab_count: std::array::from_fn(|_| Default::default()),
            tab_latency: std::array::from_fn(|_| Default::default()),
            tab_ok: Default::default(),
            dv_busy: std::array::from_fn(|_| Default::default()),
            dv_step: std::array::from_fn(|_| Default::default()),
            dv_row: std::array::from_fn(|_| Default::default()),
            dv_last: std::array::from_fn(|_| Default::default()),
            dv_rem: std::array::from_fn(|_| Default::default()),
            dv_dq: std::array::from_fn(|_| Default::default()),
            dv_div: std::array::from_fn(|_| Default::default()),
            dv_t: std::array::from_fn(|_| Default::default()),
            dv_ge: std::array::from_fn(|_| Default::default()),
            dv_dq_next: std::array::from_fn(|_| Default::default()),
            dv_done: std::array::from_fn(|_| Default::default()),
            ro_count33: Default::default(),
            nd_valid: std::array::from_fn(|_| Default::default()),
            nd_count: std::array::from_fn(|_| Default::default()),
            nd_center: std::array::from_fn(|_| Default::default()),
            nd_latency: std::array::from_fn(|_| Default::default()),
        }
    }
}

impl Logic for SvbfAnswer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tab_ok);
        for j in 0..CENTERS {
            self.tab_count[j].clock.next = self.clock.val();
            self.tab_count[j].d.next = self.tab_count[j].q.val();
            self.tab_latency[j].clock.next = self.clock.val();
            self.tab_latency[j].d.next = self.tab_latency[j].q.val();
        }
        for d in 0..DIVIDERS {
            self.dv_busy[d].clock.next = self.clock.val();
            self.dv_busy[d].d.next = self.dv_busy[d].q.val();
            self.dv_step[d].clock.next = self.clock.val();
            self.dv_step[d].d.next = self.dv_step[d].q.val();
            self.dv_row[d].clock.next = self.clock.val();
            self.dv_row[d].d.next = self.dv_row[d].q.val();
            self.dv_last[d].clock.next = self.clock.val();
            self.dv_last[d].d.next = self.dv_last[d].q.val();
            self.dv_rem[d].clock.next = self.clock.val();
            self.dv_rem[d].d.next = self.dv_rem[d].q.val();
            self.dv_dq[d].clock.next = self.clock.val();
            self.dv_dq[d].d.next = self.dv_dq[d].q.val();
            self.dv_div[d].clock.next = self.clock.val();
            self.dv_div[d].d.next = self.dv_div[d].q.val();
        }
        for n in 0..NODES {
            self.nd_valid[n].clock.next = self.clock.val();
            self.nd_valid[n].d.next = self.nd_valid[n].q.val();
            self.nd_count[n].clock.next = self.clock.val();
            self.nd_count[n].d.next = self.nd_count[n].q.val();
            self.nd_center[n].clock.next = self.clock.val();
            self.nd_center[n].d.next = self.nd_center[n].q.val();
            self.nd_latency[n].clock.next = self.clock.val();
            self.nd_latency[n].d.next = self.nd_latency[n].q.val();
        }

        // ---- the presented row's divider is free ----
        self.ro_free.next = false;
        for d in 0..DIVIDERS {
            if self.ro_row.val().get_bits::<3>(0) == self.idx3[d].val() {
                self.ro_free.next = !self.dv_busy[d].q.val();
            }
        }
        // ---- a taken row: its count into the table ----
        for j in 0..CENTERS {
            if self.ro_take.val() & (self.ro_row.val() == self.idx6[j].val()) {
                self.tab_count[j].d.next = self.ro_count.val();
            }
        }

        // ---- dividers: one quotient bit per clock, MSB first ----
        self.ro_count33.next = bit_cast::<33, 32>(self.ro_count.val());
        for d in 0..DIVIDERS {
            // Partial remainder shifted left with the next dividend bit.
            if self.dv_dq[d].q.val().get_bit(47) {
                self.dv_t[d].next = (self.dv_rem[d].q.val() << self.one33.val()) | self.one33.val();
            } else {
                self.dv_t[d].next = self.dv_rem[d].q.val() << self.one33.val();
            }
            self.dv_ge[d].next = self.dv_t[d].val() >= self.dv_div[d].q.val();
            if self.dv_ge[d].val() {
                self.dv_dq_next[d].next = (self.dv_dq[d].q.val() << self.one48.val()) | self.one48.val();
            } else {
                self.dv_dq_next[d].next = self.dv_dq[d].q.val() << self.one48.val();
            }
            self.dv_done[d].next = self.dv_busy[d].q.val() & (self.dv_step[d].q.val() == self.last_step.val());
            if self.dv_busy[d].q.val() {
                self.dv_dq[d].d.next = self.dv_dq_next[d].val();
                self.dv_step[d].d.next = self.dv_step[d].q.val() + self.one6.val();
                if self.dv_ge[d].val() {
                    self.dv_rem[d].d.next = self.dv_t[d].val() - self.dv_div[d].q.val();
                } else {
                    self.dv_rem[d].d.next = self.dv_t[d].val();
                }
            }
            if self.dv_done[d].val() {
                self.dv_busy[d].d.next = false;
                if self.dv_last[d].q.val() {
                    self.tab_ok.d.next = true;
                }
            }
            // A taken row loads its divider (free: it is offered only then).
            if self.ro_take.val() & (self.ro_row.val().get_bits::<3>(0) == self.idx3[d].val()) {
                self.dv_busy[d].d.next = true;
                self.dv_step[d].d.next = self.zero6.val();
                self.dv_row[d].d.next = self.ro_row.val();
                self.dv_last[d].d.next = self.ro_last.val();
                self.dv_rem[d].d.next = self.zero33.val();
                self.dv_dq[d].d.next = self.ro_sum.val();
                self.dv_div[d].d.next = self.ro_count33.val();
            }
        }
        // ---- a finished quotient into the latency table (row j only from divider j mod 8) ----
        for j in 0..CENTERS {
            if self.dv_done[j % 8].val() & (self.dv_row[j % 8].q.val() == self.idx6[j].val()) {
                if self.dv_div[j % 8].q.val() == self.zero33.val() {
                    self.tab_latency[j].d.next = self.zero32.val();
                } else {
                    self.tab_latency[j].d.next = self.dv_dq_next[j % 8].val().get_bits::<32>(0);
                }
            }
        }
        if self.epoch_flip.val() {
            self.tab_ok.d.next = false;
        }
        self.table_ok.next = self.tab_ok.q.val();
        self.busy.next = false;
        for d in 0..DIVIDERS {
            if self.dv_busy[d].q.val() {
                self.busy.next = true;
            }
        }

        // ---- tie-break tree: level 1 from the candidates (c+9 -> c+10) ----
        for k in 0..32 {
            if self.q_cand.val().get_bit(2 * k)
                & (!self.q_cand.val().get_bit(2 * k + 1)
                    | (self.tab_count[2 * k].q.val() >= self.tab_count[2 * k + 1].q.val()))
            {
                self.nd_valid[k].d.next = true;
                self.nd_count[k].d.next = self.tab_count[2 * k].q.val();
                self.nd_center[k].d.next = self.idx6[2 * k].val();
                self.nd_latency[k].d.next = self.tab_latency[2 * k].q.val();
            } else {
                self.nd_valid[k].d.next = self.q_cand.val().get_bit(2 * k + 1);
                self.nd_count[k].d.next = self.tab_count[2 * k + 1].q.val();
                self.nd_center[k].d.next = self.idx6[2 * k + 1].val();
                self.nd_latency[k].d.next = self.tab_latency[2 * k + 1].q.val();
            }
        }
        // Levels 2..6, one per clock: node n (32..63) from nodes 2n − 64 and
        // 2n − 63 (32..48 from 0..32, 48..56 from 32..48, 56..60, 60..62, 62).
        for n in 32..NODES {
            if self.nd_valid[2 * n - 64].q.val()
                & (!self.nd_valid[2 * n - 63].q.val()
                    | (self.nd_count[2 * n - 64].q.val() >= self.nd_count[2 * n - 63].q.val()))
            {
                self.nd_valid[n].d.next = true;
                self.nd_count[n].d.next = self.nd_count[2 * n - 64].q.val();
                self.nd_center[n].d.next = self.nd_center[2 * n - 64].q.val();
                self.nd_latency[n].d.next = self.nd_latency[2 * n - 64].q.val();
            } else {
                self.nd_valid[n].d.next = self.nd_valid[2 * n - 63].q.val();
                self.nd_count[n].d.next = self.nd_count[2 * n - 63].q.val();
                self.nd_center[n].d.next = self.nd_center[2 * n - 63].q.val();
                self.nd_latency[n].d.next = self.nd_latency[2 * n - 63].q.val();
            }
        }
        self.a_found.next = self.nd_valid[62].q.val();
        self.a_center.next = self.nd_center[62].q.val();
        self.a_count.next = self.nd_count[62].q.val();
        self.a_latency.next = self.nd_latency[62].q.val();

        // ---- synchronous reset of the control state ----
        if self.reset.val() {
            self.tab_ok.d.next = false;
            for d in 0..DIVIDERS {
                self.dv_busy[d].d.next = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit alone passes `verilator --lint-only -Wall`.
    #[test]
    fn answer_unit_is_synthesizable() {
        crate::export::lint_block(SvbfAnswer::default(), "svbf_answer").unwrap();
    }
}
