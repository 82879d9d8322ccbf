//! Per-clock model of the SVBF store core (MAPLE §3.3.3 insert and burst
//! lookup, §6 hardware): what the RTL does in every clock, ports included.
//! Its stored state equals [`SvbfStore`](super::SvbfStore) (the golden
//! store) packet for packet and its query candidates equal
//! [`SvbfStore::candidates`](super::SvbfStore::candidates) (tested below);
//! the RTL is to equal this model every clock.
//!
//! **Memories.** Partition j (2^p bits, hash function h_j) is two
//! [`CounterBankCycle`]s of 64-bit words ORed by updates: the even words
//! and the odd words, 2^(p−7) rows each. A query window starting in word w
//! needs words w and w + 1 (the ⌈k/w⌉ + 1 = 2-word burst of §3.3.3); one of
//! them is even and the other odd, so one access to each bank reads the
//! whole window. The per-center {count, latency sum} are a third kind of
//! bank, 64 rows of [`CountSum`] (32 + 48 bits).
//!
//! **Insert pipeline** (a packet accepted at t; one per clock):
//! - t+1 (s1): key and latency registered; the classifier compares the
//!   latency with the k − 1 active boundaries (`b_j ≤ latency`, j < k − 1).
//! - t+2 (s2): hashes h_j(key) out of their registers; the compare vector's
//!   sixteen 4-bit groups are counted.
//! - t+3 (s3): the group counts summed by fours (four quarter counts).
//! - t+4 (s4): center i = the sum of the quarter counts.
//! - t+5 (s5): bit position (h_j + i) mod 2^p.
//! - t+6 (s6): the update registered again beside the banks (in the RTL a
//!   register per partition, so the path across the die carries no logic).
//! - t+7 (s7): every partition's bank of that word's parity takes the
//!   update (row = word / 2, operand = the bit as a one-hot word); the
//!   center bank takes {1, latency} at row i.
//!
//! **Epochs.** `flip` (taken when `flip_ready`) travels with the packet slot
//! of its cycle: that packet still belongs to the old epoch, the banks flip
//! when the slot reaches them, and the boundaries written since (shadow
//! registers) become active when it passes the classifier (t+1). The
//! partitions drain and are then *held*: `held` rises and queries read the
//! frozen epoch until `release`, after which they stream out and clear
//! (one row per clock, not presented). The center bank streams its 64 rows
//! out on `ro_*` after the drain and clears them. `flip_ready` (a register)
//! rises the clock after every bank is clean, no flip is in flight and the
//! read-out is over, and falls the clock after a flip is taken.
//!
//! **Query pipeline** (a query accepted at c; one per clock while `held`
//! and no release is pending):
//! - c+1: key and tag registered (hash inputs).
//! - c+2: hashes out; word w, its bit offset r.
//! - c+3: rows of words w and w + 1 registered (even row ⌈w/2⌉ mod rows, odd row ⌊w/2⌋).
//! - c+7: both words read (four clocks: the RAM's registers and the
//!   partitions' read stage, [`SVBF_PART_READ_STAGES`]) and
//!   registered as they come.
//! - c+8: the pair ordered by the parity of w (the RTL also shifts it right
//!   by whole bytes of r here).
//! - c+9: window = the 128-bit pair shifted right by r (low 64 bits).
//! - c+10: AND of the h windows and the frozen epoch's k-bit mask.
//! - c+11: kind (No-Match, Match, Multi-Match); the candidates enter the
//!   tie-break over the frozen epoch's center table, ten clocks (the RTL
//!   ranks the centers while the table fills and compares ranks, six
//!   clocks, then reads the winner's count and refined latency from the
//!   table's block RAM; the choice is the rule's, taken here from the table
//!   directly).
//! - c+21: the chosen center (largest count, lowest index among equal
//!   counts, §3.3.4) with its count and refined latency.
//! - c+22: result presented with the query's tag.
//!
//! **Center table** (§3.3 refined estimates): the center bank's rows pass
//! two two-entry skid buffers on their way to the port, the read-out stage
//! and the port stage (a row is taken into a stage while its skid entry is
//! empty and presented from the next clock); the read-out stage's row passes
//! on to the port stage only while divider `row mod 8` is free, and passing
//! it on writes its count into the table and loads the divider (the RTL
//! registers the row first and does both a clock later), which writes
//! ⌊sum / count⌋ mod 2^32 (0 for an empty center) into the table 49 clocks
//! later. The consumer takes rows from the port stage. Queries are taken
//! once the last row's quotient is in (`table_ok`), until the banks flip
//! again; a flip waits until every divider is idle and both stages are
//! empty.
//!
//! A release requested while queries are on their way to the banks waits
//! until the last of them has read (`rel_pend`); a release while nothing
//! is held is ignored. `held` falls the clock after the release is taken;
//! the partitions' banks see it a clock later still (`rel_go`: the RTL
//! registers it before the path to the banks spread over the die), so
//! they leave the hold, clear and are ready to flip one clock after that.

use super::config::SvbfConfig;
use crate::counter_bank::{CountSum, CountSumLayout, CounterBankCycle, CounterBankInputs, Record, Word};
use crate::h3::H3;

/// CSR word addresses 0..=62: shadow boundary b_{j+1} (j = address), ticks.
pub const SVBF_REG_BOUND0: u32 = 0;
/// CSR: shadow number of boundaries in use, k − 1 (1..=63; k centers).
pub const SVBF_REG_NBOUNDS: u32 = 63;
/// Per-center counter layout: 32-bit count, 48-bit latency sum.
pub const SVBF_CENTER_LAYOUT: CountSumLayout = CountSumLayout { count_bits: 32, tsum_bits: 48 };
/// Clocks from an accepted query to its result.
pub const SVBF_QUERY_LATENCY: usize = 22;
/// Extra read stages of the partitions' banks (see `CounterBankCycle::with_read_stages`):
/// one register behind each block, so a query's words come back four clocks after
/// its rows and the drain after a flip takes seven clocks.
pub const SVBF_PART_READ_STAGES: usize = 1;
/// Clocks a divider of the center table is busy with one row, from the take
/// (one for the registered row, 48 for the division and the table write).
pub const SVBF_DIVIDE_CLOCKS: u32 = 49;
/// Dividers of the center table (row r goes to divider r mod 8).
const DIVIDERS: usize = 8;
/// Clocks from the candidates (c+11) to the answer with the winner's table row (c+21).
const TREE_LEVELS: usize = 10;
/// Rows of the center bank (one per possible center).
const CENTER_ROWS: usize = 64;

/// A 64-bit word of a partition; an update ORs its operand in (sets bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BitWord(pub u64);

impl Record for BitWord {
    type Layout = ();

    fn apply(&mut self, op: &Self, _: &()) -> bool {
        self.0 |= op.0;
        false
    }

    fn pack(&self, _: &()) -> Word {
        let mut w = Word::default();
        w[0] = self.0 as u32;
        w[1] = (self.0 >> 32) as u32;
        w
    }
}

/// Kind of a query result on the port (§4: a 2-bit type tag).
pub const SVBF_KIND_NO_MATCH: u8 = 0;
/// Exactly one candidate center.
pub const SVBF_KIND_MATCH: u8 = 1;
/// Several candidate centers: the tie is broken by the per-center counts (§3.3.4).
pub const SVBF_KIND_MULTI: u8 = 2;

/// Inputs of the SVBF core in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SvbfInputs {
    /// Synchronous reset, acting one clock after it is sampled (the core registers it).
    pub reset: bool,
    /// A packet is offered.
    pub valid: bool,
    /// Its key digest.
    pub key: u64,
    /// Its latency, ticks.
    pub latency: u32,
    /// CSR write strobe, word address and data.
    pub csr_we: bool,
    /// CSR word address.
    pub csr_addr: u32,
    /// CSR write data.
    pub csr_wdata: u32,
    /// Request an epoch flip.
    pub flip: bool,
    /// Release the held frozen epoch (it clears).
    pub release: bool,
    /// A query is offered.
    pub q_valid: bool,
    /// Its key digest.
    pub q_key: u64,
    /// Its tag, returned with the result.
    pub q_tag: u16,
    /// The center read-out consumer takes the presented row.
    pub ro_ready: bool,
    /// Clear the sticky overflow flag.
    pub ovf_clear: bool,
}

/// Outputs of the SVBF core in one clock (payloads are zero when not valid).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SvbfOutputs {
    /// A packet offered now is taken.
    pub ready: bool,
    /// A flip requested now is taken.
    pub flip_ready: bool,
    /// The live copy.
    pub epoch: bool,
    /// The frozen epoch is held for queries.
    pub held: bool,
    /// A query offered now is taken.
    pub q_ready: bool,
    /// A query result is presented.
    pub r_valid: bool,
    /// Its tag.
    pub r_tag: u16,
    /// No-Match, Match or Multi-Match ([`SVBF_KIND_MATCH`] …).
    pub r_kind: u8,
    /// The chosen center: the only candidate, or the one with the largest
    /// count, the lowest index among equal counts (0 for No-Match).
    pub r_center: u8,
    /// The chosen center's packet count in the frozen epoch (0: empty).
    pub r_count: u32,
    /// Its refined latency ⌊sum / count⌋ mod 2^32 (0 when empty or No-Match).
    pub r_latency: u32,
    /// The AND of the h windows: bit i set = center i possible.
    pub r_candidates: u64,
    /// A center row of the frozen epoch is presented.
    pub ro_valid: bool,
    /// Its center index.
    pub ro_center: u8,
    /// Packets of the center (mod 2^32).
    pub ro_count: u32,
    /// Their latency sum (mod 2^48).
    pub ro_sum: u64,
    /// It is center 63, the last row.
    pub ro_last: bool,
    /// A center count wrapped since the flag was last cleared.
    pub ovf_sticky: bool,
}

/// A slot of the insert pipeline: a packet and/or the flip token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    valid: bool,
    flip: bool,
    latency: u32,
}

/// A slot of the query pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct QSlot {
    valid: bool,
    tag: u16,
}

/// A query in the tie-break tree: its kind, candidates and the winner
/// (center, count, refined latency), fixed when it enters at c+11.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TreeSlot {
    q: QSlot,
    kind: u8,
    cand: u64,
    winner: Option<(u8, u32, u32)>,
}

/// A center row on its way from the bank to the read-out port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct RoBeat {
    row: u32,
    data: CountSum,
    last: bool,
}

/// One serial divider of the center table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Divider {
    busy: bool,
    /// Clocks left until the quotient is written.
    left: u32,
    row: usize,
    last: bool,
    quotient: u32,
}

/// Cycle-accurate model of the SVBF store core.
#[derive(Clone, Debug)]
pub struct SvbfCycle {
    cfg: SvbfConfig,
    hashes: Vec<H3>,
    /// Per partition: [even words, odd words].
    parts: Vec<[CounterBankCycle<BitWord>; 2]>,
    centers: CounterBankCycle<CountSum>,
    // Classifier registers (CSR shadow, active for the live epoch, mask of the frozen one).
    shadow_bounds: [u32; 63],
    shadow_nb: u32,
    bounds: [u32; 63],
    nb: u32,
    frozen_kmask: u64,
    // Insert pipeline.
    s1: Slot,
    s1_key: u64,
    s2: Slot,
    s2_cmp: u64,
    s2_hash: Vec<u64>,
    s3: Slot,
    s3_groups: [u32; 16],
    s3_hash: Vec<u64>,
    s4: Slot,
    s4_quarters: [u32; 4],
    s4_hash: Vec<u64>,
    s5: Slot,
    s5_center: u32,
    s5_hash: Vec<u64>,
    s6: Slot,
    s6_center: u32,
    s6_bit: Vec<u64>,
    s7: Slot,
    s7_center: u32,
    s7_bit: Vec<u64>,
    /// The banks took the flip last clock.
    s8_flip: bool,
    /// ... two clocks ago.
    s9_flip: bool,
    /// Every bank's flip_ready, one clock late (registered per bank).
    fr_bank: bool,
    /// ... two clocks late.
    fr_q: bool,
    /// `flip_ready` (a register): the core's readiness of the clock before, false the clock after a
    /// flip is taken.
    fr_out: bool,
    // Query pipeline.
    q1: QSlot,
    q1_key: u64,
    q2: QSlot,
    q2_hash: Vec<u64>,
    /// c+3 … c+7: per partition (even row, odd row, bit offset, word w odd).
    q_mid: [QSlot; 5],
    q_geom: [Vec<(u32, u32, u32, bool)>; 5],
    /// c+8: per partition (even word, odd word, bit offset, word w odd) as read.
    q8: QSlot,
    q8_words: Vec<(u64, u64, u32, bool)>,
    /// c+9: per partition (low word, high word, bit offset).
    q9: QSlot,
    q9_pair: Vec<(u64, u64, u32)>,
    q10: QSlot,
    q10_win: Vec<u64>,
    q11: QSlot,
    q11_cand: u64,
    /// c+12 … c+21: the tie-break and the table read, one slot per clock.
    tree: [TreeSlot; TREE_LEVELS],
    r_valid: bool,
    r_tag: u16,
    r_kind: u8,
    r_center: u8,
    r_count: u32,
    r_latency: u32,
    r_cand: u64,
    rel_pend: bool,
    /// The release taken a clock ago, on its way to the partitions' banks.
    rel_go: bool,
    // Center table of the frozen epoch.
    tab_count: [u32; CENTER_ROWS],
    tab_latency: [u32; CENTER_ROWS],
    tab_ok: bool,
    divs: [Divider; DIVIDERS],
    /// The read-out stage, between the center bank and the answer unit.
    ro_stage: SkidStage,
    /// The port stage, between the answer unit and `ro_*`.
    port_stage: SkidStage,
    /// `reset` one clock late: the core registers it at its boundary, and every clear reads the
    /// registered value.
    reset_q: bool,
}

/// A two-entry skid buffer (the RTL's `SkidBuffer`): the row presented, and the row behind it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SkidStage {
    out: Option<RoBeat>,
    skid: Option<RoBeat>,
}

impl SkidStage {
    /// The stage takes an offered row (its skid entry is empty).
    fn ready(&self) -> bool {
        self.skid.is_none()
    }

    /// One clock: `offered` enters only while `ready`, and `taken` says the consumer took `out`.
    fn step(&mut self, offered: Option<RoBeat>, taken: bool) {
        if self.skid.is_some() {
            if taken {
                self.out = self.skid.take();
            }
        } else if self.out.is_none() || taken {
            self.out = offered;
        } else {
            self.skid = offered;
        }
    }
}

/// Mask of centers 0..=nb (k = nb + 1 centers).
fn kmask(nb: u32) -> u64 {
    if nb >= 63 { u64::MAX } else { (1u64 << (nb + 1)) - 1 }
}

impl SvbfCycle {
    /// The core at power-up (clearing its memories, as after a reset).
    pub fn new(cfg: &SvbfConfig) -> Self {
        cfg.validate().expect("valid SVBF config");
        assert!(cfg.partition_log2 >= 8, "a partition holds at least two 64-bit words per bank");
        let rows = cfg.partition_bits() / 128;
        let h = cfg.hashes;
        Self {
            hashes: (0..h).map(|j| cfg.hash(j)).collect(),
            parts: (0..h)
                .map(|_| {
                    [
                        CounterBankCycle::with_read_stages(rows, (), SVBF_PART_READ_STAGES),
                        CounterBankCycle::with_read_stages(rows, (), SVBF_PART_READ_STAGES),
                    ]
                })
                .collect(),
            centers: CounterBankCycle::new(CENTER_ROWS, SVBF_CENTER_LAYOUT),
            shadow_bounds: [0; 63],
            shadow_nb: 0,
            bounds: [0; 63],
            nb: 0,
            frozen_kmask: 0,
            s1: Slot::default(),
            s1_key: 0,
            s2: Slot::default(),
            s2_cmp: 0,
            s2_hash: vec![0; h],
            s3: Slot::default(),
            s3_groups: [0; 16],
            s3_hash: vec![0; h],
            s4: Slot::default(),
            s4_quarters: [0; 4],
            s4_hash: vec![0; h],
            s5: Slot::default(),
            s5_center: 0,
            s5_hash: vec![0; h],
            s6: Slot::default(),
            s6_center: 0,
            s6_bit: vec![0; h],
            s7: Slot::default(),
            s7_center: 0,
            s7_bit: vec![0; h],
            s8_flip: false,
            s9_flip: false,
            fr_bank: false,
            fr_q: false,
            fr_out: false,
            q1: QSlot::default(),
            q1_key: 0,
            q2: QSlot::default(),
            q2_hash: vec![0; h],
            q_mid: [QSlot::default(); 5],
            q_geom: std::array::from_fn(|_| vec![(0, 0, 0, false); h]),
            q8: QSlot::default(),
            q8_words: vec![(0, 0, 0, false); h],
            q9: QSlot::default(),
            q9_pair: vec![(0, 0, 0); h],
            q10: QSlot::default(),
            q10_win: vec![0; h],
            q11: QSlot::default(),
            q11_cand: 0,
            tree: [TreeSlot::default(); TREE_LEVELS],
            r_valid: false,
            r_tag: 0,
            r_kind: 0,
            r_center: 0,
            r_count: 0,
            r_latency: 0,
            r_cand: 0,
            rel_pend: false,
            rel_go: false,
            tab_count: [0; CENTER_ROWS],
            tab_latency: [0; CENTER_ROWS],
            tab_ok: false,
            divs: [Divider::default(); DIVIDERS],
            ro_stage: SkidStage::default(),
            port_stage: SkidStage::default(),
            reset_q: false,
            cfg: cfg.clone(),
        }
    }

    /// The config.
    pub fn config(&self) -> &SvbfConfig {
        &self.cfg
    }

    /// Bit `b` of partition `j` in copy `copy` (0 or 1).
    pub fn bit(&self, copy: usize, j: usize, b: usize) -> bool {
        let w = b / 64;
        self.parts[j][w & 1].store().get(copy, w >> 1).0 >> (b % 64) & 1 == 1
    }

    /// Partition `j` of copy `copy` as 64-bit words (bit b at word b / 64, bit b % 64).
    pub fn partition(&self, copy: usize, j: usize) -> Vec<u64> {
        let words = self.cfg.partition_bits() / 64;
        (0..words).map(|w| self.parts[j][w & 1].store().get(copy, w >> 1).0).collect()
    }

    /// {count, sum} of center `i` in copy `copy`.
    pub fn center(&self, copy: usize, i: usize) -> CountSum {
        self.centers.store().get(copy, i)
    }

    /// The tie-break over the center table (§3.3.4): among the candidates the
    /// largest count, the lowest index among equal counts, with its count and
    /// refined latency; `None` without a candidate.
    fn tie_break(&self, cand: u64) -> Option<(u8, u32, u32)> {
        let mut best: Option<usize> = None;
        for i in (0..CENTER_ROWS).filter(|&i| cand >> i & 1 == 1) {
            if best.is_none_or(|b| self.tab_count[i] > self.tab_count[b]) {
                best = Some(i);
            }
        }
        best.map(|b| (b as u8, self.tab_count[b], self.tab_latency[b]))
    }

    /// The outputs during this cycle (from the registered state and the
    /// inputs that act combinationally: `release` gates `q_ready`).
    fn outputs(&self, i: &SvbfInputs) -> SvbfOutputs {
        let c = self.centers.outputs();
        let ready = c.upd_ready && self.parts.iter().flatten().all(|b| b.outputs().upd_ready);
        // The core's own hold flag: the banks stay held one clock longer (`rel_go`).
        let held = self.parts[0][0].outputs().held && !self.rel_go;
        let mut o = SvbfOutputs {
            ready,
            flip_ready: self.fr_out,
            epoch: c.epoch,
            held,
            q_ready: held && self.tab_ok && !self.rel_pend && !i.release,
            r_valid: self.r_valid,
            r_tag: self.r_tag,
            r_kind: self.r_kind,
            r_center: self.r_center,
            r_count: self.r_count,
            r_latency: self.r_latency,
            r_candidates: self.r_cand,
            ovf_sticky: c.ovf_sticky,
            ..Default::default()
        };
        if let Some(b) = self.port_stage.out {
            o.ro_valid = true;
            o.ro_center = b.row as u8;
            o.ro_count = b.data.count as u32;
            o.ro_sum = b.data.tsum;
            o.ro_last = b.last;
        }
        o
    }

    /// The core may take a flip: every bank is clean and no flip is in flight; the next epoch
    /// waits for the dividers, so a late quotient never lands in its table, and for both read-out
    /// stages to empty, since their rows belong to the epoch being read. Offered on `flip_ready`
    /// a clock later.
    fn flip_ok(&self) -> bool {
        let in_flight = self.s1.flip
            || self.s2.flip
            || self.s3.flip
            || self.s4.flip
            || self.s5.flip
            || self.s6.flip
            || self.s7.flip
            || self.s8_flip
            || self.s9_flip;
        self.fr_q
            && !in_flight
            && !self.divs.iter().any(|d| d.busy)
            && self.ro_stage.out.is_none()
            && self.port_stage.out.is_none()
    }

    /// One clock: returns the outputs seen during this cycle, then advances.
    pub fn step(&mut self, i: &SvbfInputs) -> SvbfOutputs {
        let out = self.outputs(i);
        let h = self.cfg.hashes;
        let pmask = self.cfg.partition_bits() as u64 - 1;
        let wmask = pmask >> 6;
        let accept = i.valid && out.ready;
        let flip = i.flip && out.flip_ready;
        let fr_next = self.flip_ok() && !flip;
        // The read-out stage's row passes on to the port stage (and loads its divider) while its
        // divider is free and the port stage's skid entry is empty.
        let passed =
            self.ro_stage.out.filter(|b| !self.divs[b.row as usize % DIVIDERS].busy && self.port_stage.ready());
        let q_accept = i.q_valid && out.q_ready;
        let release_now = (self.rel_pend || i.release) && out.held && !self.q1.valid && !self.q2.valid;

        // ---- banks: the update in s7, the query rows in q_mid[0] (c+3) ----
        let mut fr_all = true;
        let mut words = vec![[0u64; 2]; h];
        for j in 0..h {
            let b = self.s7_bit[j];
            let w = b >> 6;
            let (even_row, odd_row, _, _) = self.q_geom[0][j];
            for (par, bank) in self.parts[j].iter_mut().enumerate() {
                let o = bank.step(&CounterBankInputs {
                    reset: self.reset_q,
                    upd_valid: self.s7.valid && (w & 1) as usize == par,
                    upd_row: (w >> 1) as u32,
                    upd_op: BitWord(1 << (b & 63)),
                    flip: self.s7.flip,
                    ro_ready: true,
                    hold: true,
                    release: self.rel_go,
                    q_row: if par == 0 { even_row } else { odd_row },
                    ..Default::default()
                });
                fr_all &= o.flip_ready;
                words[j][par] = o.q_data.0;
            }
        }
        let c_out = self.centers.outputs();
        let c = self.centers.step(&CounterBankInputs {
            reset: self.reset_q,
            upd_valid: self.s7.valid,
            upd_row: self.s7_center,
            upd_op: CountSum { count: 1, tsum: self.s7.latency as u64 },
            flip: self.s7.flip,
            // The read-out stage takes a row while its skid entry is empty.
            ro_ready: self.ro_stage.ready(),
            ovf_clear: i.ovf_clear,
            ..Default::default()
        });
        fr_all &= c.flip_ready;

        // ---- query pipeline, last stage first ----
        // c+21 -> result registers (zero payload without a result).
        let root = self.tree[TREE_LEVELS - 1];
        let v = root.q.valid;
        self.r_valid = v;
        self.r_tag = if v { root.q.tag } else { 0 };
        self.r_kind = if v { root.kind } else { SVBF_KIND_NO_MATCH };
        self.r_cand = if v { root.cand } else { 0 };
        (self.r_center, self.r_count, self.r_latency) = if v { root.winner.unwrap_or_default() } else { (0, 0, 0) };
        // c+11 -> c+21: the tie-break (the table holds still while queries are taken: it fills only after a flip).
        self.tree.copy_within(0..TREE_LEVELS - 1, 1);
        let cand = self.q11_cand;
        self.tree[0] = TreeSlot {
            q: self.q11,
            kind: match cand.count_ones() {
                0 => SVBF_KIND_NO_MATCH,
                1 => SVBF_KIND_MATCH,
                _ => SVBF_KIND_MULTI,
            },
            cand,
            winner: self.tie_break(cand),
        };
        // c+10: AND of the windows and the frozen epoch's center mask.
        self.q11 = self.q10;
        self.q11_cand = self.q10_win.iter().fold(self.frozen_kmask, |a, &w| a & w);
        // c+9: window = (hi:lo) >> r.
        self.q10 = self.q9;
        for j in 0..h {
            let (lo, hi, r) = self.q9_pair[j];
            self.q10_win[j] = ((((hi as u128) << 64) | lo as u128) >> r) as u64;
        }
        // c+8: the two words, ordered by the parity of w.
        self.q9 = self.q8;
        for j in 0..h {
            let (even, oddw, r, odd) = self.q8_words[j];
            self.q9_pair[j] = if odd { (oddw, even, r) } else { (even, oddw, r) };
        }
        // c+7: the two words as read.
        self.q8 = self.q_mid[4];
        for j in 0..h {
            let (_, _, r, odd) = self.q_geom[4][j];
            let [even, oddw] = words[j];
            self.q8_words[j] = (even, oddw, r, odd);
        }
        // c+3 .. c+7: carried.
        self.q_mid.copy_within(0..4, 1);
        let g = self.q_geom.clone();
        self.q_geom[1..].clone_from_slice(&g[..4]);
        // c+2: word w, rows of w and w + 1, bit offset.
        self.q_mid[0] = self.q2;
        for j in 0..h {
            let hv = self.q2_hash[j];
            let w = hv >> 6;
            let even_row = (((w + 1) & wmask) >> 1) as u32;
            let odd_row = (w >> 1) as u32;
            self.q_geom[0][j] = (even_row, odd_row, (hv & 63) as u32, w & 1 == 1);
        }
        // c+1: hashes.
        self.q2 = self.q1;
        for j in 0..h {
            self.q2_hash[j] = self.hashes[j].hash(self.q1_key as u128);
        }
        // c: accept.
        self.q1 = QSlot { valid: q_accept, tag: i.q_tag };
        self.q1_key = i.q_key;
        self.rel_pend = (self.rel_pend || (i.release && out.held)) && !release_now;
        self.rel_go = release_now;

        // ---- center table: dividers finish, a taken row loads its divider ----
        for dv in self.divs.iter_mut().filter(|d| d.busy) {
            dv.left -= 1;
            if dv.left == 0 {
                dv.busy = false;
                self.tab_latency[dv.row] = dv.quotient;
                self.tab_ok |= dv.last;
            }
        }
        // The row passed on to the port stage.
        if let Some(b) = passed {
            let row = b.row as usize;
            let count = b.data.count as u32;
            self.tab_count[row] = count;
            self.divs[row % DIVIDERS] = Divider {
                busy: true,
                left: SVBF_DIVIDE_CLOCKS,
                row,
                last: b.last,
                // ⌊sum / count⌋ mod 2^32; an empty center gets 0.
                quotient: b.data.tsum.checked_div(count as u64).map_or(0, |q| q as u32),
            };
        }
        if self.s7.flip {
            self.tab_ok = false;
        }
        // ---- read-out stage: a row whose divider is busy is not offered, and stays ----
        let offered = c_out.ro_valid.then_some(RoBeat { row: c_out.ro_row, data: c_out.ro_data, last: c_out.ro_last });
        self.ro_stage.step(offered, passed.is_some());
        // ---- port stage: the consumer takes the row on `ro_*` ----
        self.port_stage.step(passed, out.ro_valid && i.ro_ready);

        // ---- insert pipeline, last stage first ----
        self.s9_flip = self.s8_flip;
        self.s8_flip = self.s7.flip;
        self.s7 = self.s6;
        self.s7_center = self.s6_center;
        self.s7_bit.clone_from(&self.s6_bit);
        self.s6 = self.s5;
        self.s6_center = self.s5_center;
        for j in 0..h {
            self.s6_bit[j] = (self.s5_hash[j] + self.s5_center as u64) & pmask;
        }
        self.s5 = self.s4;
        self.s5_center = self.s4_quarters.iter().sum();
        self.s5_hash.clone_from(&self.s4_hash);
        self.s4 = self.s3;
        for (q, n) in self.s4_quarters.iter_mut().enumerate() {
            *n = self.s3_groups[4 * q..4 * q + 4].iter().sum();
        }
        self.s4_hash.clone_from(&self.s3_hash);
        self.s3 = self.s2;
        for (g, n) in self.s3_groups.iter_mut().enumerate() {
            *n = (self.s2_cmp >> (4 * g) & 0xf).count_ones();
        }
        self.s3_hash.clone_from(&self.s2_hash);
        self.s2 = self.s1;
        self.s2_cmp = (0..63)
            .filter(|&j| (j as u32) < self.nb && self.s1.latency >= self.bounds[j])
            .fold(0u64, |m, j| m | 1 << j);
        for j in 0..h {
            self.s2_hash[j] = self.hashes[j].hash(self.s1_key as u128);
        }
        if self.s1.flip {
            // The epoch being frozen keeps its center mask; the next one classifies with the shadow set.
            self.frozen_kmask = kmask(self.nb);
            self.bounds = self.shadow_bounds;
            self.nb = self.shadow_nb;
        }
        self.s1 = Slot { valid: accept, flip, latency: i.latency };
        self.s1_key = i.key;
        if i.csr_we {
            match i.csr_addr {
                a if a < SVBF_REG_NBOUNDS => self.shadow_bounds[a as usize] = i.csr_wdata,
                SVBF_REG_NBOUNDS => self.shadow_nb = i.csr_wdata & 63,
                _ => {}
            }
        }
        self.fr_q = self.fr_bank;
        self.fr_bank = fr_all;
        self.fr_out = fr_next;

        if self.reset_q {
            // Control state resets (the CSRs keep their values); the banks clear themselves.
            for s in [&mut self.s1, &mut self.s2, &mut self.s3, &mut self.s4, &mut self.s5, &mut self.s6, &mut self.s7]
            {
                *s = Slot::default();
            }
            self.s8_flip = false;
            self.s9_flip = false;
            self.fr_bank = false;
            self.fr_q = false;
            self.fr_out = false;
            for q in [&mut self.q1, &mut self.q2, &mut self.q8, &mut self.q9, &mut self.q10, &mut self.q11] {
                q.valid = false;
            }
            for q in self.q_mid.iter_mut() {
                q.valid = false;
            }
            for t in self.tree.iter_mut() {
                t.q.valid = false;
            }
            self.r_valid = false;
            self.r_tag = 0;
            self.r_kind = 0;
            self.r_center = 0;
            self.r_count = 0;
            self.r_latency = 0;
            self.r_cand = 0;
            self.rel_pend = false;
            self.rel_go = false;
            self.tab_ok = false;
            for d in self.divs.iter_mut() {
                d.busy = false;
            }
            self.ro_stage = SkidStage::default();
            self.port_stage = SkidStage::default();
        }
        self.reset_q = i.reset;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;
    use crate::svbf::{Centers, SvbfStore, port_answer};

    fn cfg(p: u32, h: usize, k: usize) -> SvbfConfig {
        SvbfConfig { hashes: h, partition_log2: p, centers: k, seed: 77 }
    }

    fn idle() -> SvbfInputs {
        SvbfInputs { ro_ready: true, ..Default::default() }
    }

    fn load_centers(m: &mut SvbfCycle, c: &Centers) {
        for (j, &b) in c.bounds().iter().enumerate() {
            m.step(&SvbfInputs { csr_we: true, csr_addr: j as u32, csr_wdata: b, ..idle() });
        }
        let nb = c.bounds().len() as u32;
        m.step(&SvbfInputs { csr_we: true, csr_addr: SVBF_REG_NBOUNDS, csr_wdata: nb, ..idle() });
    }

    /// Releases the held epoch if there is one, then flips.
    fn flip(m: &mut SvbfCycle) {
        for _ in 0..100_000 {
            let held = m.outputs(&idle()).held;
            let o = m.step(&SvbfInputs { flip: !held, release: held, ..idle() });
            if !held && o.flip_ready {
                return;
            }
        }
        panic!("flip never ready");
    }

    /// The core registers `reset`: the clock it is sampled and the next still show the state
    /// before it (ready high, a packet taken), the clock after shows it cleared, and the packet
    /// taken in between never reaches the counters; one taken after the clear does.
    #[test]
    fn reset_acts_one_clock_after_it_is_sampled() {
        let cfg = cfg(8, 1, 2);
        let centers = Centers::new(&[10, 50]).unwrap();
        let mut m = SvbfCycle::new(&cfg);
        load_centers(&mut m, &centers);
        flip(&mut m);
        while !m.step(&idle()).ready {}
        assert!(m.step(&SvbfInputs { reset: true, ..idle() }).ready, "the reset's own clock");
        let o = m.step(&SvbfInputs { valid: true, key: 1, latency: 20, ..idle() });
        assert!(o.ready, "the clock after the reset is sampled: the packet is taken");
        assert!(!m.step(&idle()).ready, "the banks clear from the clock after");
        let mut clear = 1;
        while !m.step(&idle()).ready {
            clear += 1;
        }
        assert_eq!(clear, 64 + 1, "a 64-row bank clears in rows + 1 clocks");
        assert!(m.step(&SvbfInputs { valid: true, key: 2, latency: 60, ..idle() }).ready);
        flip(&mut m);
        let mut total = 0;
        let mut rows = 0;
        while rows < 64 {
            let o = m.step(&idle());
            if o.ro_valid {
                total += o.ro_count;
                rows += 1;
            }
        }
        assert_eq!(total, 1, "only the packet taken after the clear is counted");
    }

    /// Inserts packets (back to back, some stalls) in one epoch, freezes it,
    /// queries every key and some strangers; compares the stored bits, the
    /// center counters and every answer with the golden store.
    #[test]
    fn equals_the_golden_store() {
        let mut rng = SplitMix64::new(9);
        for (p, h, k) in [(8, 1, 2), (10, 3, 7), (12, 9, 50), (9, 4, 64)] {
            let cfg = cfg(p, h, k);
            let vals: Vec<u32> = (0..k as u32).map(|i| 10 + 37 * i + (i * i) % 5).collect();
            let centers = Centers::new(&vals).unwrap();
            let mut m = SvbfCycle::new(&cfg);
            let mut gold = SvbfStore::new(&cfg, centers.clone()).unwrap();
            load_centers(&mut m, &centers);
            flip(&mut m); // the centers become active for the epoch after the flip
            let n = (cfg.total_bits() / 13).max(20);
            let pkts: Vec<(u64, u32)> = (0..n).map(|_| (rng.next_u64(), rng.below(40 * k as u64) as u32)).collect();
            let mut next = 0;
            while next < pkts.len() {
                let offer = rng.below(4) != 0;
                let (key, latency) = pkts[next];
                let o = m.step(&SvbfInputs { valid: offer, key, latency, ..idle() });
                if offer && o.ready {
                    gold.insert(key, latency as u64);
                    next += 1;
                }
            }
            flip(&mut m);
            // Center counters stream out after the drain.
            let mut rows = Vec::new();
            while rows.len() < 64 {
                let o = m.step(&idle());
                if o.ro_valid {
                    rows.push((o.ro_center, o.ro_count, o.ro_sum));
                }
            }
            for (c, (row, count, sum)) in rows.iter().enumerate() {
                assert_eq!(*row as usize, c);
                let (gc, gs) = if c < k { (gold.counts()[c], gold.sums()[c]) } else { (0, 0) };
                assert_eq!((*count as u64, *sum), (gc, gs), "center {c}");
            }
            // Queries wait for the held partitions and the refined center table.
            while !m.step(&idle()).q_ready {}
            let copy = if m.outputs(&idle()).epoch { 0 } else { 1 };
            for j in 0..h {
                assert_eq!(m.partition(copy, j), gold.partition(j), "partition {j}, p={p} h={h} k={k}");
            }
            // Queries: every key (Match / Multi-Match) and strangers (mostly No-Match).
            let mut keys: Vec<u64> = pkts.iter().map(|&(k, _)| k).collect();
            keys.extend((0..200).map(|_| rng.next_u64()));
            let mut sent = 0;
            let mut got = Vec::new();
            let mut idle_cycles = 0;
            while got.len() < keys.len() {
                let offer = sent < keys.len() && rng.below(5) != 0;
                let o = m.step(&SvbfInputs {
                    q_valid: offer,
                    q_key: if offer { keys[sent] } else { 0 },
                    q_tag: sent as u16,
                    ..idle()
                });
                assert!(o.held && o.q_ready);
                if offer {
                    sent += 1;
                }
                if o.r_valid {
                    got.push(o);
                }
                idle_cycles += 1;
                assert!(idle_cycles < 10 * keys.len() + 100);
            }
            let mut stranger_hits = 0;
            for (t, o) in got.iter().enumerate() {
                assert_eq!(o.r_tag, t as u16);
                let a = gold.lookup(keys[t]);
                assert_eq!(o.r_candidates, a.candidates, "query {t}");
                let port = port_answer(o.r_kind, o.r_center, o.r_count, o.r_latency, o.r_candidates, &centers);
                assert_eq!(port, a, "query {t}: tie-break and refined latency");
                if a.kind != crate::svbf::MatchKind::NoMatch {
                    assert_eq!(o.r_count as u64, gold.counts()[a.center], "query {t}: count");
                }
                if t >= pkts.len() && o.r_kind != SVBF_KIND_NO_MATCH {
                    stranger_hits += 1;
                }
            }
            assert!(stranger_hits < 100, "strangers mostly miss");
            // Release: the partitions clear; the next flip is possible again.
            m.step(&SvbfInputs { release: true, ..idle() });
            flip(&mut m);
            assert!(m.partition(copy, 0).iter().all(|&w| w == 0), "released epoch cleared");
        }
    }

    #[test]
    fn query_latency_and_one_query_per_clock() {
        let cfg = cfg(10, 2, 4);
        let mut m = SvbfCycle::new(&cfg);
        flip(&mut m);
        while !m.step(&idle()).q_ready {}
        let mut first = None;
        let mut results = 0;
        for t in 0..50u16 {
            let o = m.step(&SvbfInputs { q_valid: t < 20, q_key: t as u64, q_tag: t, ..idle() });
            if o.r_valid {
                first.get_or_insert(t);
                assert_eq!(o.r_tag, t - first.unwrap());
                results += 1;
            }
        }
        assert_eq!(first, Some(SVBF_QUERY_LATENCY as u16));
        assert_eq!(results, 20);
    }

    #[test]
    fn release_waits_for_queries_on_their_way_to_the_banks() {
        let cfg = cfg(10, 2, 4);
        let mut m = SvbfCycle::new(&cfg);
        flip(&mut m);
        while !m.step(&idle()).q_ready {}
        m.step(&SvbfInputs { q_valid: true, q_key: 5, ..idle() });
        let o = m.step(&SvbfInputs { release: true, q_valid: true, ..idle() });
        assert!(!o.q_ready, "no query taken with a release");
        assert!(m.step(&idle()).held, "still held while the query is before the banks");
        assert!(m.step(&idle()).held);
        assert!(!m.step(&idle()).held, "released");
    }
    /// The read-out waits for its consumer: rows come out in order, each once, only while
    /// the consumer takes them, and the next flip waits until the last row has left the
    /// read-out stage (its rows belong to the frozen epoch).
    #[test]
    fn read_out_follows_the_consumer_and_holds_the_next_flip() {
        let cfg = cfg(10, 2, 4);
        let mut m = SvbfCycle::new(&cfg);
        flip(&mut m);
        for n in 0..200u32 {
            m.step(&SvbfInputs { valid: true, key: n as u64 * 7919, latency: n % 90, ..idle() });
        }
        flip(&mut m);
        let stalled = SvbfInputs { ro_ready: false, ..Default::default() };
        let mut rows = Vec::new();
        let mut packets = 0u64;
        let mut rng = SplitMix64::new(3);
        // A slow consumer: it often leaves rows waiting longer than a division takes.
        for clk in 0..100_000 {
            let take = rng.below(100) == 0;
            let o = m.step(&SvbfInputs { flip: true, release: true, ro_ready: take, ..stalled });
            assert!(!(o.flip_ready && rows.len() < 64), "a flip taken at clock {clk} with {} rows out", rows.len());
            if o.ro_valid && take {
                rows.push(o.ro_center);
                packets += o.ro_count as u64;
            }
            if o.flip_ready {
                break;
            }
        }
        assert_eq!(rows, (0..64).collect::<Vec<u8>>());
        assert_eq!(packets, 200);
        assert_eq!((0..64).map(|i| m.center(1 - m.outputs(&idle()).epoch as usize, i).count).sum::<u64>(), 0);
    }
}
