//! Cycle-accurate model of the RDA core (`docs/cores/rda.md`, pipeline): the
//! same registers, the same one-step-per-clock interval logic (§III-A) and one
//! [`CounterBankCycle`] of [`RdaRecord`]s per bank (§V-A). The co-simulation
//! compares it with the Verilated core on every output of every cycle; a
//! unit test ties it to the transaction-level [`RdaGolden`](super::RdaGolden).

use super::config::{CsrEffect, RDA_EPOCH_COUNT_BITS, RDA_REG_DELTA, RDA_TS_BITS, RdaConfig, RdaHashes, RdaRegs};
use super::model::{RdaLayout, RdaRecord, ts_ge};
use crate::counter_bank::{CounterBankCycle, CounterBankInputs};

const TS_MASK: u64 = (1 << RDA_TS_BITS) - 1;
const EPOCH_MASK: u64 = (1 << RDA_EPOCH_COUNT_BITS) - 1;
/// Clocks of a lane's bucket hash, hence of its delay line.
const LANE_DEPTH: usize = 6;

/// Inputs of the RDA core in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RdaInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// A packet is offered.
    pub valid: bool,
    /// Its ID.
    pub id: u64,
    /// Its timestamp (the core keeps 48 bits).
    pub ts: u64,
    /// `now` is valid.
    pub now_valid: bool,
    /// The synchronized clock (48 bits kept).
    pub now: u64,
    /// CSR write enable.
    pub csr_we: bool,
    /// CSR word address (3 bits kept).
    pub csr_addr: u32,
    /// CSR write data.
    pub csr_wdata: u32,
    /// The read-out consumer takes the presented bucket.
    pub ro_ready: bool,
    /// Clear the sticky overflow flag.
    pub ovf_clear: bool,
}

/// Outputs of the RDA core in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RdaOutputs {
    /// A packet offered now is accepted.
    pub ready: bool,
    /// A bucket of the frozen epoch is presented.
    pub ro_valid: bool,
    /// Its bank.
    pub ro_bank: u32,
    /// Its index in the bank.
    pub ro_row: u32,
    /// Its contents.
    pub ro_data: RdaRecord,
    /// Last bucket of the last bank.
    pub ro_last: bool,
    /// Interval index of the frozen epoch.
    pub frozen_interval: u32,
    /// Packets of the frozen interval.
    pub frozen_packets: u64,
    /// Sampled packets of the frozen interval.
    pub frozen_sampled: u64,
    /// Index of the live interval.
    pub live_interval: u32,
    /// Packets dropped for a timestamp before the live interval.
    pub out_of_interval: u64,
    /// Copy of the banks being updated.
    pub live_epoch: bool,
    /// A bucket count wrapped since the flag was last cleared.
    pub ovf_sticky: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    valid: bool,
    id: u64,
    ts: u64,
    flip: bool,
    bucket: u32,
}

/// One bank lane: the delay line beside the bucket hash, the bank, and the
/// registered copies of the bank's readiness that the core sees.
#[derive(Clone, Debug)]
struct Lane {
    line: [Slot; LANE_DEPTH],
    bank: CounterBankCycle<RdaRecord>,
    /// The bank's update readiness of the previous clock (low after a reset).
    ready_q: bool,
    /// The bank's flip readiness of the previous clock, with no flip entering or in the line then.
    flip_ready_q: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct P1 {
    valid: bool,
    id: u64,
    ts: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct P2 {
    valid: bool,
    id: u64,
    ts: u64,
    flip: bool,
}

/// Cycle-accurate RDA core: p1 input register and interval check, p2
/// coordinated sampling, then per bank six hash clocks and the bank.
#[derive(Clone, Debug)]
pub struct RdaCycle {
    cfg: RdaConfig,
    hashes: RdaHashes,
    regs: RdaRegs,
    lanes: Vec<Lane>,
    start: u64,
    end: u64,
    interval: u32,
    now_g: u64,
    now_g_valid: bool,
    now_g2: u64,
    now_g2_valid: bool,
    /// A T0_HI or DELTA write or a restart in the previous clock, or reset: p1 holds while the core
    /// redoes its compares.
    hold: bool,
    /// The t0 of last clock's T0_HI write: the interval restarts at it in this clock.
    restart: Option<u64>,
    p1: P1,
    p2: P2,
    live_packets: u64,
    /// The live interval saw a packet (the RTL's flag; `live_packets` wraps at 2^48).
    live_any: bool,
    live_sampled: u64,
    frozen_packets: u64,
    frozen_sampled: u64,
    frozen_interval: u32,
    out_of_interval: u64,
    ro_sel: usize,
}

impl RdaCycle {
    /// The core at power-up (clearing its banks, as after a reset).
    pub fn new(cfg: &RdaConfig) -> Self {
        let layout = RdaLayout { tsum_bits: cfg.tsum_bits as u32 };
        let lanes = (0..cfg.banks)
            .map(|_| Lane {
                line: [Slot::default(); LANE_DEPTH],
                bank: CounterBankCycle::with_read_stages(cfg.buckets, layout, cfg.read_stages),
                ready_q: false,
                flip_ready_q: false,
            })
            .collect();
        Self::with_parts(cfg.clone(), RdaHashes::new(cfg), lanes)
    }

    fn with_parts(cfg: RdaConfig, hashes: RdaHashes, lanes: Vec<Lane>) -> Self {
        let regs = RdaRegs::reset(&cfg);
        Self {
            start: cfg.t0 & TS_MASK,
            end: (cfg.t0 + regs.delta) & TS_MASK,
            regs,
            cfg,
            hashes,
            lanes,
            interval: 0,
            now_g: 0,
            now_g_valid: false,
            now_g2: 0,
            now_g2_valid: false,
            hold: false,
            restart: None,
            p1: P1::default(),
            p2: P2::default(),
            live_packets: 0,
            live_any: false,
            live_sampled: 0,
            frozen_packets: 0,
            frozen_sampled: 0,
            frozen_interval: 0,
            out_of_interval: 0,
            ro_sel: 0,
        }
    }

    /// The config.
    pub fn config(&self) -> &RdaConfig {
        &self.cfg
    }

    /// One clock: returns the outputs seen during this cycle, then advances.
    pub fn step(&mut self, i: &RdaInputs) -> RdaOutputs {
        let nb = self.cfg.banks;
        // p2: coordinated sampling with this cycle's SAMPLE_LZ.
        let sampled =
            self.p2.valid && (self.hashes.sample.hash(self.p2.id as u128) as u32) & self.regs.sample_mask == 0;
        // Lanes: the bank sees the delay line's last slot; the line shifts in p2.
        let mut lanes_ready = true;
        let mut lanes_flip_ready = true;
        let mut ovf = false;
        let mut epoch = false;
        let mut sel = None;
        for (l, lane) in self.lanes.iter_mut().enumerate() {
            let d_last = lane.line[LANE_DEPTH - 1];
            let b = lane.bank.step(&CounterBankInputs {
                reset: i.reset,
                upd_valid: d_last.valid,
                upd_row: d_last.bucket,
                upd_op: RdaRecord { id: d_last.id, tsum: d_last.ts, count: 1 },
                flip: d_last.flip,
                ro_ready: i.ro_ready && l == self.ro_sel,
                ovf_clear: i.ovf_clear,
                ..Default::default()
            });
            lanes_ready &= lane.ready_q;
            lanes_flip_ready &= lane.flip_ready_q;
            lane.ready_q = b.upd_ready && !i.reset;
            lane.flip_ready_q = b.flip_ready && !i.reset && !self.p2.flip && !lane.line.iter().any(|s| s.flip);
            ovf |= b.ovf_sticky;
            epoch |= b.epoch;
            if l == self.ro_sel {
                sel = Some(b);
            }
            lane.line.copy_within(..LANE_DEPTH - 1, 1);
            lane.line[0] = if i.reset {
                Slot::default()
            } else {
                let tmask = if self.cfg.tsum_bits >= 64 { u64::MAX } else { (1 << self.cfg.tsum_bits) - 1 };
                Slot {
                    valid: sampled,
                    id: self.p2.id,
                    ts: self.p2.ts & tmask,
                    flip: self.p2.flip,
                    bucket: self.hashes.buckets[l].bucket(self.p2.id),
                }
            };
            if i.reset {
                lane.line.iter_mut().for_each(|s| *s = Slot::default());
            }
        }
        let sel = sel.expect("ro_sel names a bank");

        // p1: interval check (§III-A), one boundary step per clock; `now` of two clocks ago.
        let hold = self.hold;
        let ge_end = ts_ge(self.p1.ts, self.end);
        let ge_start = ts_ge(self.p1.ts, self.start);
        let time_up = self.now_g2_valid && ts_ge(self.now_g2, self.end);
        let crossing = !hold && if self.p1.valid { ge_end } else { time_up };
        let need_flip = crossing && self.live_any;
        let step = crossing && (!need_flip || (lanes_flip_ready && !self.p2.flip));
        let flip_now = step && need_flip;
        let advance = !hold && self.p1.valid && !ge_end;
        let measured = advance && ge_start;
        let ready = lanes_ready && !hold && !(self.p1.valid && ge_end);

        let out = RdaOutputs {
            ready,
            ro_valid: sel.ro_valid,
            ro_bank: self.ro_sel as u32,
            ro_row: sel.ro_row,
            ro_data: sel.ro_data,
            ro_last: sel.ro_last && self.ro_sel == nb - 1,
            frozen_interval: self.frozen_interval,
            frozen_packets: self.frozen_packets,
            frozen_sampled: self.frozen_sampled,
            live_interval: self.interval,
            out_of_interval: self.out_of_interval,
            live_epoch: epoch,
            ovf_sticky: ovf,
        };
        if i.reset {
            let lanes = std::mem::take(&mut self.lanes);
            *self = Self::with_parts(self.cfg.clone(), self.hashes.clone(), lanes);
            self.hold = true;
            return out;
        }

        // Next state of p1 and the interval.
        let p1 = if i.valid && ready {
            P1 { valid: true, id: i.id, ts: i.ts & TS_MASK }
        } else if advance {
            P1 { valid: false, ..self.p1 }
        } else {
            self.p1
        };
        if step {
            self.start = self.end;
            self.end = (self.end + self.regs.delta) & TS_MASK;
        }
        if flip_now {
            self.frozen_interval = self.interval;
            self.frozen_packets = self.live_packets;
            self.live_packets = 0;
            self.live_any = false;
        } else if measured {
            self.live_packets = (self.live_packets + 1) & EPOCH_MASK;
            self.live_any = true;
        }
        if step {
            self.interval = self.interval.wrapping_add(1);
        }
        if advance && !ge_start {
            self.out_of_interval = (self.out_of_interval + 1) & EPOCH_MASK;
        }
        self.now_g2 = self.now_g;
        self.now_g2_valid = self.now_g_valid;
        self.now_g = i.now.wrapping_sub(self.regs.guard) & TS_MASK;
        self.hold = false;
        self.now_g_valid = i.now_valid;
        // p2 counters, then p1 -> p2.
        if self.p2.flip {
            self.frozen_sampled = self.live_sampled;
            self.live_sampled = 0;
        } else if sampled {
            self.live_sampled = (self.live_sampled + 1) & EPOCH_MASK;
        }
        self.p2 = P2 { valid: measured, id: self.p1.id, ts: self.p1.ts, flip: flip_now };
        self.p1 = p1;
        // Read-out: bank by bank.
        if sel.ro_valid && i.ro_ready && sel.ro_last {
            self.ro_sel = if self.ro_sel == nb - 1 { 0 } else { self.ro_sel + 1 };
        }
        // Last clock's T0_HI write restarts the interval at t0, with this clock's δ
        // (before this clock's write; it wins over a boundary step, and p1 holds).
        if let Some(t0) = self.restart.take() {
            self.start = t0;
            self.end = (t0 + self.regs.delta) & TS_MASK;
            self.hold = true;
        }
        // CSR writes; a T0_HI write is registered (the restart above, next clock)
        // and zeroes the interval index now; after a DELTA write p1 holds for a clock
        // while the core forms end + δ with the new δ.
        if i.csr_we {
            if let CsrEffect::Restart(t0) = self.regs.write(i.csr_addr & 7, i.csr_wdata) {
                self.restart = Some(t0);
                self.interval = 0;
                self.hold = true;
            }
            if i.csr_addr & 7 == RDA_REG_DELTA {
                self.hold = true;
            }
        }
        out
    }
}

/// Turns the read-out stream of one frozen epoch into a synopsis.
#[derive(Clone, Debug)]
pub struct RdaReadout {
    cfg: RdaConfig,
    buckets: Vec<RdaRecord>,
    next: usize,
}

impl RdaReadout {
    /// Expects every bucket of every bank of `cfg`, in order.
    pub fn new(cfg: &RdaConfig) -> Self {
        Self { cfg: cfg.clone(), buckets: Vec::with_capacity(cfg.banks * cfg.buckets), next: 0 }
    }

    /// Takes one cycle's outputs (the consumer is ready); returns the synopsis
    /// after the last bucket, or an error when the stream is out of order.
    pub fn take(&mut self, o: &RdaOutputs) -> Result<Option<super::RdaSynopsis>, String> {
        if !o.ro_valid {
            return Ok(None);
        }
        let m = self.cfg.buckets;
        let want = (self.next / m, self.next % m);
        if (o.ro_bank as usize, o.ro_row as usize) != want {
            return Err(format!("read-out gave bank {} bucket {}, expected {want:?}", o.ro_bank, o.ro_row));
        }
        self.buckets.push(o.ro_data);
        self.next += 1;
        let last = self.next == self.cfg.banks * m;
        if o.ro_last != last {
            return Err(format!("read-out `last` is {} at bucket {}", o.ro_last, self.next - 1));
        }
        if !last {
            return Ok(None);
        }
        self.next = 0;
        Ok(Some(super::RdaSynopsis {
            config: self.cfg.clone(),
            interval: o.frozen_interval,
            packets: o.frozen_packets,
            sampled: o.frozen_sampled,
            overflow: o.ovf_sticky,
            buckets: std::mem::take(&mut self.buckets),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::RdaGolden;
    use super::*;
    use crate::prng::SplitMix64;

    /// Drives packets (with random idle gaps) and a final `now` through the
    /// cycle model, collecting every synopsis read out.
    fn cycle_run(
        cfg: &RdaConfig,
        pkts: &[(u64, u64)],
        now_end: u64,
        rng: &mut SplitMix64,
    ) -> Vec<super::super::RdaSynopsis> {
        let mut m = RdaCycle::new(cfg);
        let mut ro = RdaReadout::new(cfg);
        let mut out = Vec::new();
        let mut k = 0;
        let mut idle_after = 0;
        let mut cycles = 0;
        while idle_after < 3 * cfg.banks * cfg.buckets + 100 {
            let valid = k < pkts.len() && rng.below(4) != 0;
            let (id, ts) = pkts.get(k).copied().unwrap_or_default();
            let ro_ready = rng.below(8) != 0;
            let i =
                RdaInputs { valid, id, ts, now_valid: k == pkts.len(), now: now_end, ro_ready, ..Default::default() };
            let o = m.step(&i);
            if ro_ready && let Some(s) = ro.take(&o).unwrap() {
                out.push(s);
            }
            k += (valid && o.ready) as usize;
            if k == pkts.len() {
                idle_after += 1;
            }
            cycles += 1;
            assert!(cycles < 10_000_000, "stuck");
        }
        out
    }

    #[test]
    fn cycle_and_transaction_models_agree_across_interval_boundaries() {
        let cfg = RdaConfig {
            banks: 2,
            buckets: 61,
            tsum_bits: 40,
            t0: 5000,
            interval_ticks: 700,
            guard_ticks: 50,
            sample_prob_log2: 1,
            ..Default::default()
        };
        let mut rng = SplitMix64::new(8);
        let mut ts = 4800u64;
        let pkts: Vec<(u64, u64)> = (0..3000)
            .map(|_| {
                ts += rng.below(4) + if rng.below(300) == 0 { 2000 } else { 0 };
                (rng.below(400), ts)
            })
            .collect();
        let mut g = RdaGolden::new(&cfg);
        let mut want = Vec::new();
        for &(id, t) in &pkts {
            g.packet(id, t, &mut want);
        }
        g.advance(ts + 10_000, &mut want);
        assert!(want.len() > 5, "{} intervals", want.len());
        assert!(g.out_of_interval() > 0);
        let got = cycle_run(&cfg, &pkts, ts + 10_000, &mut rng);
        assert_eq!(got.len(), want.len());
        for (a, b) in got.iter().zip(&want) {
            assert_eq!(a, b, "interval {}", b.interval);
        }
    }
}
