//! Cycle-accurate model of the fridge core (`docs/cores/fridge.md`, pipeline):
//! the same stages, the same register sampling points and a
//! [`CounterBankCycle`] of [`HistBin`]s for the double-buffered histograms
//! (§6.2). The co-simulation compares it with the Verilated core on every
//! output of every cycle; a unit test ties it to the packet-level
//! [`FridgeGolden`](super::FridgeGolden).
//!
//! Stages of a packet accepted at cycle t (the RTL's register names):
//! - `p1` (t+1): packet registered; the index hash (H3, 32 → 32) of its ID.
//! - `p2` (t+2): fridge k = ⌊r·N/2^16⌋ and row = base_k + (h mod M_k).
//! - `p3` (t+3): fridge k's PRNG and insertion counter step for a request,
//!   which is stored iff the draw is ≤ `THRESH_k` (§6.1); the entry memory's
//!   read-modify-write takes stored requests and every response.
//! - `e1..e4` (t+4..t+7): the entry bank (one copy of [`RmwBank`] semantics:
//!   back-to-back packets to one entry are forwarded). In `e4` a response that
//!   finds its ID clears the entry; the hit and both records are registered.
//! - `m` (t+8): the sample {k, delay, x} is formed from those registers.
//! - `smp` (t+9): the sample on the output stream (a one-entry register; a
//!   sample that finds it full is dropped and counted) and, never dropped, in
//!   the histogram pipeline `h1`, which reads fridge k's correction registers
//!   and `BIN_SHIFT`.
//! - `h2..h6` (t+10..t+14): multiply, round to 1/8 octave, factor and factor²;
//!   the histogram bank adds {1, factor, factor²} to row 32k + bin.
//!
//! A `FLIP` write or the `flip` input sets a pending flag; once no flip travels the pipeline and
//! the previous read-out is done, a flip token enters `p1` beside the packet
//! accepted in that cycle and reaches the histogram bank with its sample
//! slot, so that packet is the last of the old epoch at every stage.
//!
//! [`RmwBank`]: ../../../netmeas_hdl/common/rmw_bank/index.html

use super::config::*;
use super::factor::CorrectionRegs;
use super::model::{FridgeCsrEffect, FridgeEntry, FridgeRegs, FridgeSample, HistBin, delay_bin, xorshift32};
use crate::counter_bank::{CounterBankCycle, CounterBankInputs};

/// Stages of the entry bank, from its update port to the record arithmetic.
const ENTRY_DEPTH: usize = 4;
/// Stages between a sample's `h1` and the histogram bank's update port.
const HIST_DEPTH: usize = 5;

/// Inputs of the fridge core in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FridgeInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// A packet is offered.
    pub valid: bool,
    /// Its 32-bit ID digest.
    pub id: u32,
    /// It is a response (else a request).
    pub response: bool,
    /// Its timestamp (the core keeps 48 bits).
    pub ts: u64,
    /// Flip request (the `flip` input): sets the pending flag as a `FLIP` write does.
    pub flip: bool,
    /// CSR write enable.
    pub csr_we: bool,
    /// CSR read strobe: `csr_rdata` holds the register at `csr_addr` from the next cycle.
    pub csr_re: bool,
    /// CSR word address (5 bits kept).
    pub csr_addr: u32,
    /// CSR write data.
    pub csr_wdata: u32,
    /// The sample consumer takes the presented sample.
    pub smp_ready: bool,
    /// The histogram read-out consumer takes the presented bin.
    pub ro_ready: bool,
    /// Clear the sticky overflow flag.
    pub ovf_clear: bool,
}

/// Outputs of the fridge core in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FridgeOutputs {
    /// A packet offered now is accepted (low only while the memories clear).
    pub ready: bool,
    /// A `FLIP` write waits for the previous read-out.
    pub flip_pending: bool,
    /// Live histogram copy (toggles when a flip reaches the histogram bank).
    pub epoch: bool,
    /// A sample is presented.
    pub smp_valid: bool,
    /// The sample (meaningful when `smp_valid`).
    pub smp: FridgeSample,
    /// Samples dropped because the output was full (saturating at 2^32 − 1).
    pub smp_dropped: u32,
    /// A histogram bin of the frozen epoch is presented.
    pub ro_valid: bool,
    /// Its row: 32 · fridge + bin.
    pub ro_row: u32,
    /// Its contents.
    pub ro_data: HistBin,
    /// Last bin of the last fridge.
    pub ro_last: bool,
    /// A histogram field wrapped since the flag was last cleared.
    pub ovf_sticky: bool,
    /// Samples whose factor saturated at 2^32 (saturating at 2^32 − 1).
    pub saturated: u32,
    /// Read data of the last CSR read.
    pub csr_rdata: u32,
}

/// A packet in `p1..p3`; `k` and `row` are known from `p3` on.
#[derive(Clone, Copy, Debug, Default)]
struct Packet {
    id: u32,
    response: bool,
    ts: u64,
    k: usize,
    row: usize,
}

/// An entry-bank update: the operand the RTL packs into one word.
#[derive(Clone, Copy, Debug)]
struct EntryOp {
    row: usize,
    k: usize,
    response: bool,
    id: u32,
    ts: u64,
    /// Request: its stamp (the counter after it); response: the counter now.
    ctr: u32,
}

/// A histogram update travelling `h2..h6`.
#[derive(Clone, Copy, Debug)]
struct HistUpdate {
    row: usize,
    op: HistBin,
    saturated: bool,
}

/// One pipeline register with the flip token beside it.
#[derive(Clone, Copy, Debug)]
struct Slot<T> {
    item: Option<T>,
    flip: bool,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self { item: None, flip: false }
    }
}

/// Cycle-accurate model of the fridge core.
#[derive(Clone, Debug)]
pub struct FridgeCycle {
    cfg: FridgeConfig,
    index: FridgeIndex,
    regs: FridgeRegs,
    prng: Vec<u32>,
    ctr: Vec<u32>,
    entries: Vec<FridgeEntry>,
    entry_init_done: bool,
    entry_init_ptr: usize,
    flip_pending: bool,
    p1: Slot<Packet>,
    p2: Slot<Packet>,
    p3: Slot<Packet>,
    e: [Slot<EntryOp>; ENTRY_DEPTH],
    m: Slot<FridgeSample>,
    smp_out: Option<FridgeSample>,
    smp_dropped: u32,
    h1: Slot<FridgeSample>,
    h: [Slot<HistUpdate>; HIST_DEPTH],
    saturated: u32,
    hist: CounterBankCycle<HistBin>,
    rdata: u32,
}

impl FridgeCycle {
    /// The core at power-up: clearing its memories, as after a reset.
    pub fn new(cfg: &FridgeConfig) -> Self {
        let n = cfg.fridges();
        Self {
            cfg: cfg.clone(),
            index: FridgeIndex::new(cfg),
            regs: FridgeRegs::reset(cfg),
            prng: (0..n).map(|k| cfg.prng_seed(k)).collect(),
            ctr: vec![0; n],
            entries: vec![FridgeEntry::default(); cfg.total_entries()],
            entry_init_done: false,
            entry_init_ptr: 0,
            flip_pending: false,
            p1: Slot::default(),
            p2: Slot::default(),
            p3: Slot::default(),
            e: [Slot::default(); ENTRY_DEPTH],
            m: Slot::default(),
            smp_out: None,
            smp_dropped: 0,
            h1: Slot::default(),
            h: [Slot::default(); HIST_DEPTH],
            saturated: 0,
            hist: CounterBankCycle::new(n * FRIDGE_BINS, ()),
            rdata: 0,
        }
    }

    /// The config.
    pub fn config(&self) -> &FridgeConfig {
        &self.cfg
    }

    /// A flip token is somewhere between `p1` and the histogram bank.
    fn flip_in_flight(&self) -> bool {
        self.p1.flip
            || self.p2.flip
            || self.p3.flip
            || self.e.iter().any(|s| s.flip)
            || self.m.flip
            || self.h1.flip
            || self.h.iter().any(|s| s.flip)
    }

    /// The histogram update of a sample, with the registers of this cycle.
    fn quantize(&self, s: &FridgeSample) -> HistUpdate {
        let k = s.fridge as usize;
        let c: CorrectionRegs = self.regs.corr[k];
        let (q, saturated) = c.quantize(s.x);
        HistUpdate { row: k * FRIDGE_BINS + delay_bin(s.delay, self.regs.bin_shift), op: HistBin::sample(q), saturated }
    }

    /// One clock: returns the outputs seen during this cycle, then advances.
    pub fn step(&mut self, i: &FridgeInputs) -> FridgeOutputs {
        // The core keeps the low FRIDGE_CSR_ADDR_BITS of the address for reads, writes and pops.
        let addr = i.csr_addr & ((1 << FRIDGE_CSR_ADDR_BITS) - 1);
        let last = &self.h[HIST_DEPTH - 1];
        let hist_in = CounterBankInputs {
            reset: i.reset,
            upd_valid: last.item.is_some(),
            upd_row: last.item.map_or(0, |u| u.row as u32),
            upd_op: last.item.map_or_else(HistBin::default, |u| u.op),
            flip: last.flip,
            // The stream's consumer or a HIST_POP write takes the presented row.
            ro_ready: i.ro_ready || (i.csr_we && addr == FRIDGE_REG_HIST_POP),
            ovf_clear: i.ovf_clear,
            ..Default::default()
        };
        let ho = self.hist.step(&hist_in);
        let flip_ok = ho.flip_ready && !self.flip_in_flight();
        let out = FridgeOutputs {
            ready: self.entry_init_done && ho.upd_ready,
            flip_pending: self.flip_pending,
            epoch: ho.epoch,
            smp_valid: self.smp_out.is_some(),
            smp: self.smp_out.unwrap_or_default(),
            smp_dropped: self.smp_dropped,
            ro_valid: ho.ro_valid,
            ro_row: ho.ro_row,
            ro_data: ho.ro_data,
            ro_last: ho.ro_last,
            ovf_sticky: ho.ovf_sticky,
            saturated: self.saturated,
            csr_rdata: self.rdata,
        };
        if i.reset {
            let hist = std::mem::replace(&mut self.hist, CounterBankCycle::new(0, ()));
            *self = Self { hist, ..Self::new(&self.cfg) };
            return out;
        }

        // e4: the entry's read-modify-write; a response that finds its ID yields a sample.
        let mut sample = None;
        if let Some(op) = self.e[ENTRY_DEPTH - 1].item {
            let e = &mut self.entries[op.row];
            if !op.response {
                *e = FridgeEntry { valid: true, id: op.id, ts: op.ts, stamp: op.ctr };
            } else if e.valid && e.id == op.id {
                sample = Some(FridgeSample {
                    fridge: op.k as u8,
                    delay: op.ts.wrapping_sub(e.ts) & FRIDGE_TS_MASK,
                    x: op.ctr.wrapping_sub(e.stamp),
                });
                *e = FridgeEntry::default();
            }
        }

        // The sample output register (one entry; a sample that finds it full is counted).
        let pop = self.smp_out.is_some() && i.smp_ready;
        if pop {
            self.smp_out = None;
        }
        if let Some(s) = self.m.item {
            if self.smp_out.is_none() {
                self.smp_out = Some(s);
            } else {
                self.smp_dropped = self.smp_dropped.saturating_add(1);
            }
        }

        // Histogram pipeline: h1 reads the registers, then a plain delay line.
        if self.h[HIST_DEPTH - 2].item.is_some_and(|u| u.saturated) {
            self.saturated = self.saturated.saturating_add(1);
        }
        self.h.copy_within(..HIST_DEPTH - 1, 1);
        self.h[0] = Slot { item: self.h1.item.map(|s| self.quantize(&s)), flip: self.h1.flip };
        self.h1 = self.m;
        self.m = Slot { item: sample, flip: self.e[ENTRY_DEPTH - 1].flip };

        // p3: PRNG and insertion counter of fridge k; the entry bank takes the update.
        self.e.copy_within(..ENTRY_DEPTH - 1, 1);
        self.e[0] = Slot { item: None, flip: self.p3.flip };
        if let Some(p) = self.p3.item {
            let k = p.k;
            let ctr = if p.response {
                Some(self.ctr[k])
            } else {
                let draw = xorshift32(self.prng[k]);
                let store = draw <= self.regs.thresh[k];
                self.prng[k] = draw;
                self.ctr[k] = self.ctr[k].wrapping_add(1);
                store.then_some(self.ctr[k])
            };
            self.e[0].item = ctr.map(|ctr| EntryOp { row: p.row, k, response: p.response, id: p.id, ts: p.ts, ctr });
        }

        // p2: route to a fridge and an entry; p1: the index hash; input.
        self.p3 = self.p2;
        if let Some(p) = &mut self.p3.item {
            (p.k, p.row) = self.index.locate(p.id);
        }
        self.p2 = self.p1;
        let take_flip = self.flip_pending && flip_ok;
        self.p1 = Slot {
            item: (i.valid && out.ready).then_some(Packet {
                id: i.id,
                response: i.response,
                ts: i.ts & FRIDGE_TS_MASK,
                ..Default::default()
            }),
            flip: take_flip,
        };
        self.flip_pending &= !take_flip;

        // The entry memory clears one row per clock after reset, then one clock for
        // the last clear write to land (the RAM's write port is registered).
        if !self.entry_init_done {
            if self.entry_init_ptr < self.entries.len() {
                self.entries[self.entry_init_ptr] = FridgeEntry::default();
            }
            self.entry_init_done = self.entry_init_ptr == self.entries.len();
            self.entry_init_ptr += 1;
        }

        // CSR reads of this cycle's outputs, writes taking effect from the next cycle.
        if i.csr_re {
            self.rdata = csr_read(addr, &out);
        }
        let flip_write = i.csr_we && self.regs.write(addr, i.csr_wdata) == FridgeCsrEffect::Flip;
        if flip_write || i.flip {
            self.flip_pending = true;
        }
        out
    }
}

/// The register at `addr` as a CSR read during a cycle with outputs `o`
/// returns it; the histogram row registers read 0 when no row is presented.
pub fn csr_read(addr: u32, o: &FridgeOutputs) -> u32 {
    let hist_row = (FRIDGE_REG_HIST_ROW..FRIDGE_REG_HIST_WSUM_LO + 4).contains(&addr);
    if hist_row && !o.ro_valid {
        return 0;
    }
    match addr {
        FRIDGE_REG_HIST_ROW => (1 << 31) | ((o.ro_last as u32) << 30) | o.ro_row,
        FRIDGE_REG_HIST_COUNT => o.ro_data.count,
        a if a == FRIDGE_REG_HIST_WSUM_LO => o.ro_data.wsum as u32,
        a if a == FRIDGE_REG_HIST_WSUM_LO + 1 => (o.ro_data.wsum >> 32) as u32,
        a if a == FRIDGE_REG_HIST_WSUM_LO + 2 => o.ro_data.w2sum as u32,
        a if a == FRIDGE_REG_HIST_WSUM_LO + 3 => (o.ro_data.w2sum >> 32) as u32,
        FRIDGE_REG_SMP_DROPPED => o.smp_dropped,
        FRIDGE_REG_SATURATED => o.saturated,
        FRIDGE_REG_STATUS => o.ovf_sticky as u32 | (o.epoch as u32) << 1 | (o.flip_pending as u32) << 2,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fridge::{FridgeGolden, FridgePacket};
    use crate::prng::SplitMix64;

    /// Runs `packets` through the cycle model at the offered rate `valid`
    /// (parts per 65536), flipping after every `flip_every` packets; returns
    /// the samples and the frozen histograms of every epoch.
    fn run_cycle(
        cfg: &FridgeConfig,
        packets: &[FridgePacket],
        flip_every: usize,
        seed: u64,
    ) -> (Vec<FridgeSample>, Vec<Vec<HistBin>>, Vec<usize>) {
        let mut m = FridgeCycle::new(cfg);
        let mut rng = SplitMix64::new(seed);
        let rows = cfg.fridges() * FRIDGE_BINS;
        let (mut samples, mut frozen, mut flips_after) = (Vec::new(), Vec::new(), Vec::new());
        let mut cur = vec![HistBin::default(); rows];
        let mut next = 0;
        let mut since_flip = 0;
        let mut flip_wanted = false;
        let mut idle = 0;
        while idle < 200 || next < packets.len() {
            let mut inp = FridgeInputs { smp_ready: true, ro_ready: rng.below(4) != 0, ..Default::default() };
            if next < packets.len() && rng.below(4) != 0 {
                let p = packets[next];
                inp = FridgeInputs { valid: true, id: p.id, response: p.response, ts: p.ts, ..inp };
            }
            if flip_wanted && rng.below(16) == 0 {
                inp = FridgeInputs { csr_we: true, csr_addr: FRIDGE_REG_FLIP, ..inp };
                flip_wanted = false;
            }
            let o = m.step(&inp);
            if o.smp_valid && inp.smp_ready {
                samples.push(o.smp);
            }
            if o.ro_valid && inp.ro_ready {
                cur[o.ro_row as usize] = o.ro_data;
                if o.ro_last {
                    frozen.push(std::mem::replace(&mut cur, vec![HistBin::default(); rows]));
                }
            }
            let accepted = inp.valid && o.ready;
            if accepted {
                next += 1;
                since_flip += 1;
            }
            // The token goes out beside the packet accepted in the cycle it is taken.
            if m.p1.flip {
                flips_after.push(next);
            }
            if since_flip >= flip_every && !flip_wanted && !m.flip_pending {
                flip_wanted = true;
                since_flip = 0;
            }
            idle = if next == packets.len() && !o.ro_valid { idle + 1 } else { 0 };
            assert_eq!(o.smp_dropped, 0, "the consumer is fast enough in this test");
        }
        (samples, frozen, flips_after)
    }

    fn traffic(n: usize, seed: u64) -> Vec<FridgePacket> {
        let mut rng = SplitMix64::new(seed);
        let mut open: Vec<u32> = Vec::new();
        let mut ts = 0u64;
        (0..n)
            .map(|_| {
                ts += rng.below(50);
                if !open.is_empty() && rng.below(3) == 0 {
                    // A response to a recent request (often the very last one: forwarding).
                    let j = open.len() - 1 - (rng.below(open.len().min(40) as u64) as usize);
                    FridgePacket { id: open.swap_remove(j), response: true, ts }
                } else {
                    let id = rng.next_u64() as u32;
                    open.push(id);
                    FridgePacket { id, response: false, ts }
                }
            })
            .collect()
    }

    #[test]
    fn cycle_model_equals_the_packet_level_golden_model() {
        for (cfg, seed) in [
            (FridgeConfig { entries: vec![8, 4], entry_prob_log2: vec![-1.0, 0.0], ..Default::default() }, 1),
            (
                FridgeConfig {
                    entries: vec![64, 16, 2, 128],
                    entry_prob_log2: vec![-2.0, -0.5, 0.0, -3.0],
                    bin_shift: 3,
                    ..Default::default()
                },
                2,
            ),
        ] {
            let packets = traffic(20_000, seed);
            let (samples, frozen, flips_after) = run_cycle(&cfg, &packets, 3000, seed);
            // The golden model on the same packets, flipping where the tokens went out.
            let mut g = FridgeGolden::new(&cfg);
            let mut want_samples = Vec::new();
            let mut want_frozen = Vec::new();
            let mut flips = flips_after.iter().peekable();
            for (n, p) in packets.iter().enumerate() {
                while flips.next_if(|&&f| f == n).is_some() {
                    want_frozen.push(g.flip());
                }
                want_samples.extend(g.process(p));
            }
            while flips.next().is_some() {
                want_frozen.push(g.flip());
            }
            assert!(want_samples.len() > 1000 && frozen.len() >= 4, "{} {}", want_samples.len(), frozen.len());
            assert_eq!(samples, want_samples);
            assert_eq!(frozen, want_frozen);
        }
    }

    #[test]
    fn a_response_right_after_its_request_is_matched() {
        let cfg = FridgeConfig { entries: vec![4], entry_prob_log2: vec![0.0], ..Default::default() };
        let mut m = FridgeCycle::new(&cfg);
        let idle = FridgeInputs { smp_ready: true, ..Default::default() };
        while !m.step(&idle).ready {}
        let req = FridgeInputs { valid: true, id: 9, ts: 100, ..idle };
        let resp = FridgeInputs { valid: true, id: 9, response: true, ts: 103, ..idle };
        assert!(m.step(&req).ready && m.step(&resp).ready);
        // The response was accepted at t: its sample is presented at t+9, the eighth idle cycle.
        let mut seen = Vec::new();
        for c in 0..12 {
            let o = m.step(&idle);
            if o.smp_valid {
                seen.push((c, o.smp));
            }
        }
        assert_eq!(seen, vec![(8, FridgeSample { fridge: 0, delay: 3, x: 0 })]);
    }

    #[test]
    fn a_full_sample_output_drops_and_counts() {
        let cfg = FridgeConfig { entries: vec![1024], entry_prob_log2: vec![0.0], ..Default::default() };
        let mut m = FridgeCycle::new(&cfg);
        let idle = FridgeInputs::default();
        while !m.step(&idle).ready {}
        for id in [1, 2, 3] {
            m.step(&FridgeInputs { valid: true, id, ..idle });
        }
        for id in [1, 2, 3] {
            m.step(&FridgeInputs { valid: true, id, response: true, ts: 5, ..idle });
        }
        let mut o = m.step(&idle);
        for _ in 0..20 {
            o = m.step(&idle);
        }
        // Unless the three IDs share an entry, the first sample waits and two are dropped.
        assert!(o.smp_valid);
        assert_eq!(o.smp_dropped, 2);
        // The histogram counts every sample: flip and read it out.
        m.step(&FridgeInputs { csr_we: true, csr_addr: FRIDGE_REG_FLIP, ..idle });
        let mut count = 0;
        for _ in 0..200 {
            let o = m.step(&FridgeInputs { ro_ready: true, ..idle });
            if o.ro_valid {
                count += o.ro_data.count;
            }
        }
        assert_eq!(count, 3);
    }

    /// Reads the register at `addr`: the strobe in one cycle, the data in the next.
    fn read(m: &mut FridgeCycle, addr: u32) -> u32 {
        m.step(&FridgeInputs { csr_re: true, csr_addr: addr, ..Default::default() });
        m.step(&FridgeInputs::default()).csr_rdata
    }

    #[test]
    fn histograms_read_by_register_equal_the_golden_ones() {
        let cfg = FridgeConfig { entries: vec![64, 256], entry_prob_log2: vec![0.0, -2.0], ..Default::default() };
        let mut rng = SplitMix64::new(12);
        let packets: Vec<FridgePacket> = (0..6000u64)
            .map(|t| FridgePacket { id: rng.below(300) as u32, response: rng.chance(1, 2), ts: t * 37 })
            .collect();
        let mut g = FridgeGolden::new(&cfg);
        let mut m = FridgeCycle::new(&cfg);
        let idle = FridgeInputs { smp_ready: true, ..Default::default() };
        while !m.step(&idle).ready {}
        for p in &packets {
            g.process(p);
            assert!(m.step(&FridgeInputs { valid: true, id: p.id, response: p.response, ts: p.ts, ..idle }).ready);
        }
        let want = g.flip();
        for _ in 0..20 {
            m.step(&idle);
        }
        assert_eq!(read(&mut m, FRIDGE_REG_STATUS) & 4, 0, "the flip is not pending before the write");
        m.step(&FridgeInputs { csr_we: true, csr_addr: FRIDGE_REG_FLIP, ..idle });
        for _ in 0..40 {
            m.step(&idle);
        }
        let rows = cfg.fridges() * FRIDGE_BINS;
        let mut got = vec![HistBin::default(); rows];
        let mut seen = 0;
        loop {
            let row = read(&mut m, FRIDGE_REG_HIST_ROW);
            assert_ne!(row >> 31, 0, "a row is presented until the last one is popped");
            let wl = read(&mut m, FRIDGE_REG_HIST_WSUM_LO) as u64;
            let wh = read(&mut m, FRIDGE_REG_HIST_WSUM_LO + 1) as u64;
            let ql = read(&mut m, FRIDGE_REG_HIST_WSUM_LO + 2) as u64;
            let qh = read(&mut m, FRIDGE_REG_HIST_WSUM_LO + 3) as u64;
            got[(row & 127) as usize] =
                HistBin { count: read(&mut m, FRIDGE_REG_HIST_COUNT), wsum: wl | wh << 32, w2sum: ql | qh << 32 };
            seen += 1;
            m.step(&FridgeInputs { csr_we: true, csr_addr: FRIDGE_REG_HIST_POP, ..idle });
            if row & (1 << 30) != 0 {
                break;
            }
        }
        assert_eq!(seen, rows);
        assert_eq!(got, want);
        assert!(want.iter().map(|b| b.count).sum::<u32>() > 500);
        for _ in 0..5 {
            m.step(&idle);
        }
        assert_eq!(read(&mut m, FRIDGE_REG_HIST_ROW) >> 31, 0, "nothing presented after the last row");
        assert_eq!(read(&mut m, FRIDGE_REG_STATUS), 2, "epoch 1, no overflow, no flip pending");
        assert_eq!(read(&mut m, 31), 0);
    }
}
