//! Golden model of the EXPB core (Uyeda et al. §3.2 Algorithm 2, Lemma 2;
//! §3.3 a heavy hitter per time scale).
//!
//! At the end of base interval i (1-based in the period) its sum enters scale
//! 0, and the trailing-zero cascade of Algorithm 2 runs: scale j's interval
//! ends (its statistics are updated and its sum moves up into scale j + 1)
//! for j = 0, 1, … while 2^j divides i. Every scale keeps {count, Σ, Σ², max}
//! of its interval sums, and a one-counter Misra–Gries majority over the
//! bytes of its current interval; the majority at the interval that set the
//! maximum is the scale's culprit.

use super::config::*;
use super::culprit::majority;
use super::stream::{PeriodCore, TimeOrder, run_periods};
use super::traffic::BwPacket;
use serde::{Deserialize, Serialize};

/// Statistics of one time scale Δ_j over a period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleStats {
    /// Intervals of this scale that ended.
    pub count: u64,
    /// Σ of their byte sums.
    pub sum: u64,
    /// Σ of their squares.
    pub sumsq: u128,
    /// The largest interval sum.
    pub max: u64,
    /// Index (0-based, in units of this scale) of the first interval with that maximum.
    pub max_index: u64,
    /// Majority flow of that interval (§3.3).
    pub max_flow: u32,
}

impl ScaleStats {
    /// Mean of the interval sums (exact).
    pub fn mean(&self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum as f64 / self.count as f64 }
    }

    /// Population standard deviation of the interval sums.
    pub fn std(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let n = self.count as f64;
        let m = self.sum as f64 / n;
        (self.sumsq as f64 / n - m * m).max(0.0).sqrt()
    }
}

/// The synopsis of one period: statistics per scale, finest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpbPeriod {
    /// Index of the period.
    pub index: u64,
    /// Scale j = 0..m (Δ_{j+1} = 2^j Δ_1).
    pub scales: Vec<ScaleStats>,
    /// Packets of the period.
    pub packets: u64,
    /// A base-interval sum saturated at 2^32 − 1.
    pub interval_saturated: bool,
}

/// What an EXPB point reports for one period (a saved synopsis, one epoch
/// of the station): the core's config and the period's statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpbSynopsis {
    /// The core's config.
    pub config: ExpbConfig,
    /// The period.
    pub period: ExpbPeriod,
}

/// EXPB golden model.
#[derive(Clone, Debug)]
pub struct ExpbGolden {
    cfg: ExpbConfig,
    /// Algorithm 2's sum[]: the running sum of every scale's current interval.
    sums: Vec<u64>,
    stats: Vec<ScaleStats>,
    /// Per scale: majority candidate and its byte count.
    maj: Vec<(u32, u32)>,
    acc: u64,
    interval: u64,
    period: u64,
    packets: u64,
    saturated: bool,
    order: TimeOrder,
}

impl ExpbGolden {
    /// An empty EXPB for `cfg` (validated).
    pub fn new(cfg: &ExpbConfig) -> Result<Self, crate::ConfigError> {
        cfg.validate()?;
        let m = cfg.scales;
        Ok(Self {
            cfg: cfg.clone(),
            sums: vec![0; m],
            stats: vec![ScaleStats::default(); m],
            maj: vec![(0, 0); m],
            acc: 0,
            interval: 0,
            period: 0,
            packets: 0,
            saturated: false,
            order: TimeOrder::default(),
        })
    }

    /// Adds a packet, closing the base intervals and periods that end at or
    /// before its timestamp first. Timestamps must not go backwards.
    pub fn push(&mut self, p: &BwPacket, out: &mut Vec<ExpbPeriod>) -> Result<(), String> {
        self.order.check(p.ts)?;
        self.advance(p.ts, out);
        self.packets += 1;
        let sum = self.acc + p.len as u64;
        self.saturated |= sum > INTERVAL_SUM_MAX;
        self.acc = sum.min(INTERVAL_SUM_MAX);
        for m in &mut self.maj {
            *m = majority(*m, p.flow, p.len);
        }
        Ok(())
    }

    /// Closes every base interval and period that ends at or before tick `now`.
    pub fn advance(&mut self, now: u64, out: &mut Vec<ExpbPeriod>) {
        let t = self.cfg.period_ticks;
        while now >= (self.period + 1) * t {
            while self.interval < self.cfg.intervals() {
                self.close_interval();
            }
            out.push(self.take_period());
        }
        let current = (now - self.period * t) / self.cfg.base_ticks;
        while self.interval < current {
            self.close_interval();
        }
    }

    /// Closes the period in progress and returns it.
    pub fn finish(&mut self) -> ExpbPeriod {
        while self.interval < self.cfg.intervals() {
            self.close_interval();
        }
        self.take_period()
    }

    /// Algorithm 2 for base interval i = `self.interval` + 1.
    fn close_interval(&mut self) {
        let m = self.cfg.scales;
        let i = self.interval + 1;
        self.sums[0] = self.acc;
        let mut j = 0;
        loop {
            let v = self.sums[j];
            let st = &mut self.stats[j];
            if v > st.max || st.count == 0 {
                st.max = v;
                st.max_index = st.count;
                st.max_flow = self.maj[j].0;
            }
            st.count += 1;
            st.sum += v;
            st.sumsq += v as u128 * v as u128;
            self.maj[j] = (0, 0);
            if j + 1 < m {
                self.sums[j + 1] += v;
            }
            self.sums[j] = 0;
            j += 1;
            if !i.is_multiple_of(1u64 << j) || j >= m {
                break;
            }
        }
        self.interval += 1;
        self.acc = 0;
    }

    fn take_period(&mut self) -> ExpbPeriod {
        let out = ExpbPeriod {
            index: self.period,
            scales: std::mem::replace(&mut self.stats, vec![ScaleStats::default(); self.cfg.scales]),
            packets: self.packets,
            interval_saturated: self.saturated,
        };
        self.period += 1;
        self.interval = 0;
        self.packets = 0;
        self.saturated = false;
        self.sums.iter_mut().for_each(|s| *s = 0);
        self.maj.iter_mut().for_each(|m| *m = (0, 0));
        out
    }
}

impl PeriodCore for ExpbGolden {
    type Period = ExpbPeriod;
    fn push(&mut self, p: &BwPacket, out: &mut Vec<ExpbPeriod>) -> Result<(), String> {
        ExpbGolden::push(self, p, out)
    }
    fn finish(&mut self) -> ExpbPeriod {
        ExpbGolden::finish(self)
    }
}

/// Runs a whole packet stream through a new core for `cfg` and returns every
/// period up to the one holding the last packet.
pub fn run_expb(cfg: &ExpbConfig, packets: &[BwPacket]) -> Result<Vec<ExpbPeriod>, String> {
    run_periods(ExpbGolden::new(cfg).map_err(|e| e.to_string())?, packets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    #[test]
    fn a_synopsis_survives_json_with_its_widest_values() {
        let cfg = ExpbConfig::default();
        let st = ScaleStats { count: 3, sum: u64::MAX, sumsq: u128::MAX, max: 7, max_index: 2, max_flow: u32::MAX };
        let s = ExpbSynopsis {
            config: cfg.clone(),
            period: ExpbPeriod { index: 5, scales: vec![st; cfg.scales], packets: 9, interval_saturated: true },
        };
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<ExpbSynopsis>(&text).unwrap(), s);
        let extra = text.replacen("\"packets\"", "\"colour\":1,\"packets\"", 1);
        assert!(serde_json::from_str::<ExpbSynopsis>(&extra).is_err(), "unknown fields are refused");
    }

    #[test]
    fn every_scale_equals_the_direct_sums() {
        let cfg = ExpbConfig { scales: 5, base_ticks: 10, period_ticks: 10 * 16 * 4 };
        let mut rng = SplitMix64::new(9);
        let mut ts = 0;
        let mut packets = Vec::new();
        while ts < 3 * cfg.period_ticks {
            ts += rng.below(7);
            packets.push(BwPacket { ts, len: 1 + rng.below(1500) as u32, flow: rng.below(3) as u32 });
        }
        packets.retain(|p| p.ts < 3 * cfg.period_ticks);
        let periods = run_expb(&cfg, &packets).unwrap();
        assert_eq!(periods.len(), 3);
        for p in &periods {
            let t0 = p.index * cfg.period_ticks;
            for (j, st) in p.scales.iter().enumerate() {
                let d = cfg.scale_ticks(j);
                let k = cfg.period_ticks / d;
                let mut s = vec![0u64; k as usize];
                for q in packets.iter().filter(|q| (t0..t0 + cfg.period_ticks).contains(&q.ts)) {
                    s[((q.ts - t0) / d) as usize] += q.len as u64;
                }
                assert_eq!(st.count, k);
                assert_eq!(st.sum, s.iter().sum::<u64>());
                assert_eq!(st.sumsq, s.iter().map(|&v| v as u128 * v as u128).sum::<u128>());
                let max = *s.iter().max().unwrap();
                assert_eq!(st.max, max);
                assert_eq!(st.max_index, s.iter().position(|&v| v == max).unwrap() as u64);
            }
        }
    }

    #[test]
    fn figure_3_example() {
        // §3.2.1: 3 scales of 1, 2, 4 units; intervals of 10, 20, 30, 40 bytes.
        let cfg = ExpbConfig { scales: 3, base_ticks: 1, period_ticks: 4 };
        let packets: Vec<_> =
            [10, 20, 30, 40].iter().enumerate().map(|(i, &l)| BwPacket { ts: i as u64, len: l, flow: 1 }).collect();
        let p = &run_expb(&cfg, &packets).unwrap()[0];
        assert_eq!(
            p.scales.iter().map(|s| (s.count, s.sum, s.max)).collect::<Vec<_>>(),
            vec![(4, 100, 40), (2, 100, 70), (1, 100, 100)]
        );
    }

    #[test]
    fn backwards_time_is_an_error() {
        let cfg = ExpbConfig::default();
        let e = run_expb(&cfg, &[BwPacket { ts: 9, len: 1, flow: 0 }, BwPacket { ts: 8, len: 1, flow: 0 }]);
        assert!(e.unwrap_err().contains("backwards"));
    }
}
