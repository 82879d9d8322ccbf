//! Cycle-accurate model of the EXPB core's ports (Uyeda et al. §3.2,
//! Algorithm 2): the golden model's arithmetic, timed as the RTL times it, so
//! the Verilated core is compared with it every cycle.
//!
//! Timing (see `docs/cores/dbm.md`):
//! - Packets and the time input `now` enter through one register each. A
//!   packet is applied to its base interval's sum `acc` and to every scale's
//!   majority from that register.
//! - A base interval closes when the registered packet or `now` has reached
//!   its end (`boundary`) and the cascade engine is idle: `acc` moves into
//!   the engine, the majorities of the scales that close (j ≤ d, d = the
//!   trailing zeros of the interval's 1-based index, at most m − 1) are taken
//!   and restarted, and a packet of the next interval is applied in the same
//!   cycle. A packet beyond the next interval waits (`ready` low).
//! - The engine walks one scale per cycle: v_j = sums[j] + v_{j−1}, which it
//!   sends to the statistics bank and clears, for j = 0..=d; then, if d + 1 < m,
//!   one more cycle adds v_d into sums[d + 1] (Algorithm 2's `sum[j+1] += sum[j]`).
//! - v² is computed in three pipeline stages; the update {1, v, v², max v,
//!   flow} reaches the ping-pong statistics bank ([`CounterBankCycle`], one row
//!   per scale) three cycles after its engine step. The update of scale m − 1 at
//!   the last interval of a period carries the bank's flip: the period's
//!   statistics freeze and stream out on `ro_*`, and its packet count and
//!   saturation flag appear on `period_*`.
//! - A period's last interval closes only when the bank can flip (the previous
//!   period has been read out) and no flip is in flight, so a period is never
//!   lost: if the consumer is late, the core back-pressures.

use super::config::*;
use super::culprit::majority;
use super::expb::ScaleStats;
use crate::counter_bank::{CounterBankCycle, CounterBankInputs, Record, Word};

/// Width of a scale's interval count (≤ 2^20 intervals per period).
pub const EXPB_COUNT_BITS: u32 = 21;
/// Width of a scale's Σ of interval sums (≤ 2^20 × (2^32 − 1)).
pub const EXPB_SUM_BITS: u32 = 52;
/// Width of a scale's Σ of squared interval sums (≤ (Σ)²).
pub const EXPB_SUMSQ_BITS: u32 = 104;
/// Width of an interval sum at any scale (≤ 2^15 × (2^32 − 1)) and of the maximum.
pub const EXPB_V_BITS: u32 = 48;
/// Width of the maximum's interval index.
pub const EXPB_INDEX_BITS: u32 = 20;
/// Width of the statistics record: {max_flow, max_index, max, sumsq, sum, count}.
pub const EXPB_RECORD_BITS: u32 =
    EXPB_COUNT_BITS + EXPB_SUM_BITS + EXPB_SUMSQ_BITS + EXPB_V_BITS + EXPB_INDEX_BITS + 32;
/// Cycles from an engine step to its update at the statistics bank (the squaring pipeline).
pub const EXPB_SQUARE_STAGES: usize = 3;

/// A scale's statistics as the RTL stores them, one bank row per scale. An
/// update is a record too: {count 1, Σ v, Σ v², max v, flow}; it replaces the
/// maximum (with this row's count as its index) when v exceeds it or the row
/// is empty, as `ExpbGolden` does.
impl Record for ScaleStats {
    type Layout = ();

    #[inline]
    fn apply(&mut self, op: &Self, _: &()) -> bool {
        if op.max > self.max || self.count == 0 {
            self.max = op.max;
            self.max_index = self.count;
            self.max_flow = op.max_flow;
        }
        self.count += op.count;
        self.sum += op.sum;
        self.sumsq += op.sumsq;
        // The field widths hold every value a valid configuration reaches.
        false
    }

    fn pack(&self, _: &()) -> Word {
        let fields: [(u128, u32); 6] = [
            (self.count as u128, EXPB_COUNT_BITS),
            (self.sum as u128, EXPB_SUM_BITS),
            (self.sumsq, EXPB_SUMSQ_BITS),
            (self.max as u128, EXPB_V_BITS),
            (self.max_index as u128, EXPB_INDEX_BITS),
            (self.max_flow as u128, 32),
        ];
        let mut w = Word::default();
        let mut lsb = 0;
        for (v, bits) in fields {
            for b in 0..bits {
                if (v >> b) & 1 == 1 {
                    let at = lsb + b;
                    w[(at / 32) as usize] |= 1 << (at % 32);
                }
            }
            lsb += bits;
        }
        w
    }
}

/// Inputs of the EXPB core in one clock.
pub type ExpbInputs = super::stream::BwInputs;

/// Outputs of the EXPB core in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpbOutputs {
    /// A packet offered now is accepted.
    pub ready: bool,
    /// A scale of the frozen period is presented.
    pub ro_valid: bool,
    /// Its index j (Δ = 2^j Δ_1).
    pub ro_scale: u32,
    /// Its statistics.
    pub ro_data: ScaleStats,
    /// It is the coarsest scale.
    pub ro_last: bool,
    /// Index of the frozen period (counted from reset).
    pub period_index: u32,
    /// Packets of the frozen period.
    pub period_packets: u64,
    /// A base-interval sum of the frozen period saturated at 2^32 − 1.
    pub period_saturated: bool,
    /// Index of the live period.
    pub live_period: u32,
}

/// One engine step on its way to the statistics bank.
#[derive(Clone, Copy, Debug, Default)]
struct Update {
    scale: usize,
    v: u64,
    flow: u32,
    flip: bool,
}

/// What the cascade engine does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Idle,
    /// Close scale j (of 0..=d).
    Close(usize),
    /// Add v_d into scale j = d + 1.
    Add(usize),
}

/// Cycle-accurate model of the EXPB core.
#[derive(Clone, Debug)]
pub struct ExpbCycle {
    cfg: ExpbConfig,
    bank: CounterBankCycle<ScaleStats>,
    pkt: Option<(u64, u32, u32)>,
    now: Option<u64>,
    boundary: u64,
    boundary2: u64,
    ivl: u64,
    period: u32,
    acc: u64,
    packets: u64,
    saturated: bool,
    maj: Vec<(u32, u32)>,
    snap: Vec<u32>,
    sums: Vec<u64>,
    engine: Engine,
    depth: usize,
    last: bool,
    v: u64,
    pipe: [Option<Update>; EXPB_SQUARE_STAGES],
    fin: (u32, u64, bool),
    frozen: (u32, u64, bool),
}

impl ExpbCycle {
    /// The core at power-up (as after a reset).
    pub fn new(cfg: &ExpbConfig) -> Result<Self, crate::ConfigError> {
        cfg.validate()?;
        let m = cfg.scales;
        Ok(Self {
            cfg: cfg.clone(),
            bank: CounterBankCycle::new(m, ()),
            pkt: None,
            now: None,
            boundary: cfg.base_ticks,
            boundary2: 2 * cfg.base_ticks,
            ivl: 1,
            period: 0,
            acc: 0,
            packets: 0,
            saturated: false,
            maj: vec![(0, 0); m],
            snap: vec![0; m],
            sums: vec![0; m],
            engine: Engine::Idle,
            depth: 0,
            last: false,
            v: 0,
            pipe: [None; EXPB_SQUARE_STAGES],
            fin: (0, 0, false),
            frozen: (0, 0, false),
        })
    }

    /// One clock: returns the outputs seen during this cycle, then advances.
    pub fn step(&mut self, i: &ExpbInputs) -> ExpbOutputs {
        let m = self.cfg.scales;
        let flip_in_flight = self.last || self.pipe.iter().flatten().any(|u| u.flip);
        let head = self.pipe[EXPB_SQUARE_STAGES - 1];
        let bank_in = CounterBankInputs {
            reset: i.reset,
            upd_valid: head.is_some(),
            upd_row: head.map_or(0, |u| u.scale as u32),
            upd_op: head.map_or(ScaleStats::default(), |u| ScaleStats {
                count: 1,
                sum: u.v,
                sumsq: u.v as u128 * u.v as u128,
                max: u.v,
                max_index: 0,
                max_flow: u.flow,
            }),
            flip: head.is_some_and(|u| u.flip),
            ro_ready: i.ro_ready,
            ovf_clear: false,
            ..Default::default()
        };
        // The bank's inputs come from registers: it steps first, and its outputs
        // of this cycle (registers too) gate the interval close.
        let bank = self.bank.step(&bank_in);
        let is_last = self.ivl == self.cfg.intervals();
        let p_cur = self.pkt.is_some_and(|(ts, _, _)| ts < self.boundary);
        let due =
            self.pkt.is_some_and(|(ts, _, _)| ts >= self.boundary) || self.now.is_some_and(|n| n >= self.boundary);
        let start = due
            && self.engine == Engine::Idle
            && bank.upd_ready
            && (!is_last || (bank.flip_ready && !flip_in_flight))
            && !p_cur;
        let p_new = start && self.pkt.is_some_and(|(ts, _, _)| ts < self.boundary2);
        let apply = p_cur || p_new;
        let out = ExpbOutputs {
            ready: self.pkt.is_none() || apply,
            ro_valid: bank.ro_valid,
            ro_scale: bank.ro_row,
            ro_data: bank.ro_data,
            ro_last: bank.ro_last,
            period_index: self.frozen.0,
            period_packets: self.frozen.1,
            period_saturated: self.frozen.2,
            live_period: self.period,
        };
        if i.reset {
            let bank = std::mem::replace(&mut self.bank, CounterBankCycle::new(0, ()));
            *self = Self::new(&self.cfg).expect("validated");
            self.bank = bank;
            return out;
        }
        if bank_in.flip && bank.flip_ready {
            self.frozen = self.fin;
        }

        // ---- squaring pipeline and cascade engine ----
        self.pipe.rotate_right(1);
        self.pipe[0] = None;
        match self.engine {
            Engine::Idle => {}
            Engine::Close(j) => {
                let v = self.sums[j] + self.v;
                self.pipe[0] = Some(Update { scale: j, v, flow: self.snap[j], flip: self.last && j == m - 1 });
                self.sums[j] = 0;
                self.v = v;
                self.engine = if j < self.depth {
                    Engine::Close(j + 1)
                } else if j + 1 < m {
                    Engine::Add(j + 1)
                } else {
                    self.last = false;
                    Engine::Idle
                };
            }
            Engine::Add(j) => {
                self.sums[j] += self.v;
                self.engine = Engine::Idle;
                self.last = false;
            }
        }

        // ---- packets and interval closes ----
        // A close and a packet of the interval it ends never share a cycle; a
        // packet of the next interval lands on the sums the close has just restarted.
        if start {
            let d = (self.ivl.trailing_zeros() as usize).min(m - 1);
            self.sums[0] = self.acc;
            for j in 0..=d {
                self.snap[j] = self.maj[j].0;
                self.maj[j] = (0, 0);
            }
            self.acc = 0;
            if is_last {
                self.fin = (self.period, self.packets, self.saturated);
                self.packets = 0;
                self.saturated = false;
                self.period = self.period.wrapping_add(1);
                self.ivl = 1;
            } else {
                self.ivl += 1;
            }
            self.boundary = self.boundary2;
            self.boundary2 += self.cfg.base_ticks;
            self.engine = Engine::Close(0);
            self.depth = d;
            self.last = is_last;
            self.v = 0;
        }
        if apply && let Some((_, len, flow)) = self.pkt {
            let sum = self.acc + len as u64;
            self.saturated |= sum > INTERVAL_SUM_MAX;
            self.acc = sum.min(INTERVAL_SUM_MAX);
            self.packets += 1;
            for mj in &mut self.maj {
                *mj = majority(*mj, flow, len);
            }
        }

        // ---- input registers ----
        if apply {
            self.pkt = None;
        }
        if i.valid && out.ready {
            self.pkt = Some((i.ts, i.len, i.flow));
        }
        self.now = i.now_valid.then_some(i.now);
        out
    }
}

/// Drives an [`ExpbCycle`] (or anything with its ports) with a packet stream
/// in real time order: each cycle the next packet is offered, `now` (when
/// `now_every` says so) carries that packet's timestamp, and after the last
/// packet `now` moves to the end of its period; the read-out is taken when
/// `ro_ready` says so. Returns the periods read out and the cycles in which a
/// packet was offered and not taken.
pub fn drive_expb(
    cfg: &ExpbConfig,
    packets: &[super::traffic::BwPacket],
    mut step: impl FnMut(&ExpbInputs) -> ExpbOutputs,
    mut now_every: impl FnMut(u64) -> bool,
    mut ro_ready: impl FnMut(u64) -> bool,
) -> (Vec<super::expb::ExpbPeriod>, u64) {
    let end = packets.last().map_or(0, |p| p.ts) / cfg.period_ticks * cfg.period_ticks + cfg.period_ticks;
    let periods_expected = end / cfg.period_ticks;
    let mut out = Vec::new();
    let mut rows: Vec<ScaleStats> = Vec::new();
    let (mut next, mut stalls, mut cycle) = (0usize, 0u64, 0u64);
    // Generous bound: every interval close and read-out takes well under 64 cycles.
    let limit = 64 * (packets.len() as u64 + (end / cfg.base_ticks + 1) * (cfg.scales as u64 + 8)) + 1000;
    while (out.len() as u64) < periods_expected {
        assert!(cycle < limit, "EXPB stopped making progress at cycle {cycle}");
        let p = packets.get(next);
        let i = ExpbInputs::offer(p, end, now_every(cycle), ro_ready(cycle));
        let o = step(&i);
        if i.valid {
            if o.ready {
                next += 1;
            } else {
                stalls += 1;
            }
        }
        if o.ro_valid && i.ro_ready {
            assert_eq!(o.ro_scale as usize, rows.len(), "scales stream out in order");
            rows.push(o.ro_data);
            if o.ro_last {
                out.push(super::expb::ExpbPeriod {
                    index: o.period_index as u64,
                    scales: std::mem::take(&mut rows),
                    packets: o.period_packets,
                    interval_saturated: o.period_saturated,
                });
            }
        }
        cycle += 1;
    }
    (out, stalls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dbm::expb::run_expb;
    use crate::dbm::traffic::BwPacket;
    use crate::prng::SplitMix64;

    /// A random stream: bursts of packets in few flows, gaps of whole periods, huge lengths.
    fn stream(rng: &mut SplitMix64, cfg: &ExpbConfig, n: usize) -> Vec<BwPacket> {
        let mut ts = rng.below(2 * cfg.base_ticks);
        (0..n)
            .map(|_| {
                ts += match rng.below(20) {
                    0 => rng.below(3 * cfg.period_ticks),
                    1..=5 => rng.below(4 * cfg.base_ticks),
                    _ => rng.below(2),
                };
                let len = if rng.chance(1, 30) { u32::MAX - rng.below(4) as u32 } else { 40 + rng.below(1500) as u32 };
                BwPacket { ts, len, flow: rng.below(4) as u32 }
            })
            .collect()
    }

    fn random_config(rng: &mut SplitMix64) -> ExpbConfig {
        let scales = 1 + rng.below(6) as usize;
        let base_ticks = 1 + rng.below(40);
        let period_ticks = (base_ticks << (scales - 1)) * (1 + rng.below(3));
        ExpbConfig { scales, base_ticks, period_ticks }
    }

    #[test]
    fn the_cycle_model_reads_out_the_golden_periods() {
        let mut rng = SplitMix64::new(31);
        for case in 0..300 {
            let cfg = random_config(&mut rng);
            let n = 1 + rng.below(400) as usize;
            let packets = stream(&mut rng, &cfg, n);
            let golden = run_expb(&cfg, &packets).unwrap();
            let mut core = ExpbCycle::new(&cfg).unwrap();
            let (now_p, ro_p) = (rng.below(4), rng.below(4));
            let mut r2 = SplitMix64::new(case);
            let (got, _) =
                drive_expb(&cfg, &packets, |i| core.step(i), |_| r2.below(4) < now_p, |c| (c ^ (c >> 3)) % 4 <= ro_p);
            assert_eq!(got, golden, "case {case}: {cfg:?}");
        }
    }

    #[test]
    fn with_the_time_input_the_core_never_stalls() {
        // Real time: `now` is given every cycle, every base interval lasts at
        // least m + 2 cycles (the engine's longest cascade plus its add step)
        // and every period at least 2m + 24 (a read-out of m rows).
        let mut rng = SplitMix64::new(5);
        for _ in 0..50 {
            let scales = 1 + rng.below(16) as usize;
            let base_ticks = (scales as u64 + 2) * (1 + rng.below(3));
            let coarsest = base_ticks << (scales - 1);
            let period_ticks = coarsest * (2 * scales as u64 + 24).div_ceil(coarsest) * (1 + rng.below(2));
            let cfg = ExpbConfig { scales, base_ticks, period_ticks };
            // One packet per tick per cycle at most: timestamps advance by 0 or 1.
            let mut ts = 0;
            let packets: Vec<_> = (0..3000)
                .map(|_| {
                    ts += rng.below(2);
                    BwPacket { ts, len: 64 + rng.below(1400) as u32, flow: rng.below(3) as u32 }
                })
                .collect();
            let mut core = ExpbCycle::new(&cfg).unwrap();
            let (got, stalls) = drive_expb(&cfg, &packets, |i| core.step(i), |_| true, |_| true);
            assert_eq!(stalls, 0, "{cfg:?}");
            assert_eq!(got, run_expb(&cfg, &packets).unwrap());
        }
    }

    #[test]
    fn without_the_time_input_a_packet_past_an_empty_interval_waits() {
        let cfg = ExpbConfig { scales: 2, base_ticks: 10, period_ticks: 20 };
        let packets = [
            BwPacket { ts: 1, len: 5, flow: 1 },
            BwPacket { ts: 35, len: 7, flow: 2 },
            BwPacket { ts: 36, len: 1, flow: 2 },
        ];
        let mut core = ExpbCycle::new(&cfg).unwrap();
        let (got, stalls) = drive_expb(&cfg, &packets, |i| core.step(i), |_| false, |_| true);
        assert!(stalls > 0, "the packet behind the one at 35 waits for its three closes");
        assert_eq!(got, run_expb(&cfg, &packets).unwrap());
        assert_eq!(got[0].scales[1].sum, 5);
        assert_eq!(got[1].scales[0].max, 8);
    }

    #[test]
    fn the_record_packs_its_fields_in_order() {
        let r = ScaleStats { count: 1, sum: 2, sumsq: 3, max: 4, max_index: 5, max_flow: 0xFFFF_FFFF };
        let w = r.pack(&());
        assert_eq!(w[0], 1 | (2 << 21));
        assert_eq!(EXPB_RECORD_BITS, 277);
        let flow_lsb = EXPB_RECORD_BITS - 32;
        assert_eq!(w[(flow_lsb / 32) as usize] >> (flow_lsb % 32), u32::MAX >> (flow_lsb % 32));
    }
}
