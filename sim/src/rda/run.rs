//! One measurement interval of a sender/receiver pair of RDA cores end to end
//! (Fu, Barlet-Ros, Li, ToN 2018, §VII-A set-up): a segment's trace with
//! random loss and reordering at the interval edges, both ends' streams of
//! {64-bit ID, timestamp}, the cores on the golden model, and the host's
//! decode and estimates against the exact ground truth.

use super::decode::{CaptureTimestamps, RdaEstimate, RdaPairError, Timestamps, reconcile};
use super::{RDA_TS_BITS, RdaConfig, RdaGolden, RdaHashes, RdaSynopsis};
use crate::lda::RelError;
use crate::prng::SplitMix64;
use crate::traffic::{Trace, TrafficSpec};
use serde::Serialize;
use std::collections::HashMap;

/// A packet's 64-bit identifier (§VIII-A "a distinct 64-bit identifier for
/// each unique packet"): a digest of its 120-bit key (5-tuple and IP ID, the
/// fields that do not change between the two ends). Both ends compute it the
/// same way; a core's `s_id` port takes it.
#[inline]
pub fn packet_id(key: u128) -> u64 {
    let hi = SplitMix64::new((key >> 64) as u64 ^ 0x5244_415f_6b65_7931).next_u64();
    SplitMix64::new(key as u64 ^ hi).next_u64()
}

/// Most ticks one interval may span (the `DELTA` register is 32 bits wide).
pub const MAX_INTERVAL_TICKS: u64 = (1 << 32) - 1;

/// The §VII reordering model on top of a [`TrafficSpec`]: a fraction of the
/// packets straddle an edge of the measurement interval, sent before the edge
/// and received after it, half at the start edge (seen only by the receiver:
/// reordered) and half at the end edge (seen only by the sender in this
/// interval: counted with the lost packets by the decode).
#[derive(Clone, Debug, PartialEq)]
pub struct RdaTrafficSpec {
    /// Keys, send times, delays and random loss.
    pub base: TrafficSpec,
    /// Fraction of the packets that straddle an interval edge, in [0, 1).
    pub reorder_rate: f64,
    /// A straddling packet is sent within this many ns before its edge and
    /// arrives within this many ns after it.
    pub window_ns: u64,
}

/// One interval's traffic as each end's measurement point sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct IntervalTrace {
    /// Start t_0 of the interval, ns (the cores' `T0`).
    pub t0: u64,
    /// Its length δ, ns (the cores' `DELTA`).
    pub delta: u64,
    /// (ID, send time) of every packet sent, in time order.
    pub sender: Vec<(u64, u64)>,
    /// (ID, arrival time) of every packet received, in time order.
    pub receiver: Vec<(u64, u64)>,
}

impl IntervalTrace {
    /// Builds the interval: the base trace's send times span [t_0, t_0 + δ);
    /// `reorder_rate` × N of its packets (drawn at random) are moved across an
    /// edge. The same spec always gives the same interval.
    pub fn build(spec: &RdaTrafficSpec) -> Result<Self, String> {
        if !(0.0..1.0).contains(&spec.reorder_rate) {
            return Err(format!("reorder rate {} is not in [0, 1)", spec.reorder_rate));
        }
        if spec.window_ns == 0 || spec.window_ns > MAX_INTERVAL_TICKS {
            return Err(format!(
                "the reordering window of {} ns is outside 1..={MAX_INTERVAL_TICKS} ns (one interval at most)",
                spec.window_ns
            ));
        }
        if let crate::traffic::Source::Synthetic { packets, rate_pps, .. } = spec.base.source
            && rate_pps > 0.0
            && packets as f64 / rate_pps * 1e9 > MAX_INTERVAL_TICKS as f64
        {
            return Err(format!(
                "{packets} packets at {rate_pps} packets/s span more than one interval ({MAX_INTERVAL_TICKS} ticks at most; use fewer packets or a higher rate)"
            ));
        }
        let mut trace = Trace::build(&spec.base)?;
        let n = trace.packets.len();
        let t0 = trace.packets[0].sent.max(spec.window_ns + 1);
        let shift = t0 - trace.packets[0].sent;
        for p in &mut trace.packets {
            p.sent += shift;
            p.received = p.received.map(|b| b + shift);
        }
        let delta = trace.packets[n - 1].sent + 1 - t0;
        if delta > MAX_INTERVAL_TICKS {
            return Err(format!(
                "the trace spans {delta} ns; one interval holds at most {MAX_INTERVAL_TICKS} ticks (use fewer packets or a higher rate)"
            ));
        }
        if spec.window_ns > delta {
            return Err(format!(
                "the reordering window of {} ns is longer than the interval of {delta} ns: a packet moved across \
                 one edge would cross the other",
                spec.window_ns
            ));
        }
        let end = t0 + delta;
        let reordered = (spec.reorder_rate * n as f64).round() as usize;
        let mut rng = SplitMix64::new(spec.base.seed ^ 0x7265_6f72_6465_72);
        let mut order: Vec<usize> = (0..n).collect();
        let w = spec.window_ns;
        for j in 0..reordered {
            // Partial Fisher-Yates: distinct packets.
            let k = j + rng.below((n - j) as u64) as usize;
            order.swap(j, k);
            let p = &mut trace.packets[order[j]];
            let before = 1 + rng.below(w);
            let after = rng.below(w);
            let edge = if j % 2 == 0 { t0 } else { end };
            p.sent = edge - before;
            p.received = p.received.map(|_| edge + after);
        }
        let mut sender: Vec<(u64, u64)> = trace.packets.iter().map(|p| (packet_id(p.key), p.sent)).collect();
        let mut receiver: Vec<(u64, u64)> =
            trace.packets.iter().filter_map(|p| p.received.map(|b| (packet_id(p.key), b))).collect();
        sender.sort_by_key(|&(_, t)| t);
        receiver.sort_by_key(|&(_, t)| t);
        Ok(Self { t0, delta, sender, receiver })
    }

    /// End of the interval, t_0 + δ.
    pub fn end(&self) -> u64 {
        self.t0 + self.delta
    }

    /// The cores' config for this interval: `base` with `T0` and `DELTA` set.
    pub fn core_config(&self, base: &RdaConfig) -> RdaConfig {
        RdaConfig { t0: self.t0 & ((1 << RDA_TS_BITS) - 1), interval_ticks: self.delta, ..base.clone() }
    }

    /// Whether `t` falls into the interval.
    fn inside(&self, t: u64) -> bool {
        t >= self.t0 && t < self.end()
    }

    /// The sender's packets of the interval, (ID, send time).
    pub fn sender_in_interval(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sender.iter().copied().filter(|&(_, t)| self.inside(t))
    }

    /// The receiver's packets of the interval, (ID, arrival time).
    pub fn receiver_in_interval(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.receiver.iter().copied().filter(|&(_, t)| self.inside(t))
    }

    /// The exact truth of the interval for cores of `cfg` (coordinated
    /// sampling decides which packets either end measures).
    pub fn truth(&self, cfg: &RdaConfig) -> RdaTruth {
        let hashes = RdaHashes::new(cfg);
        let mask = crate::lda::lz_mask(cfg.sample_prob_log2);
        let measured = |id: u64| (hashes.sample.hash(id as u128) as u32) & mask == 0;
        let mut at: HashMap<u64, (u32, u32, u64, u64)> = HashMap::new();
        let (mut sent, mut received) = (0u64, 0u64);
        for (id, t) in self.sender_in_interval() {
            sent += 1;
            if measured(id) {
                let e = at.entry(id).or_default();
                e.0 += 1;
                e.2 = t;
            }
        }
        for (id, t) in self.receiver_in_interval() {
            received += 1;
            if measured(id) {
                let e = at.entry(id).or_default();
                e.1 += 1;
                e.3 = t;
            }
        }
        let (mut lost, mut reordered, mut duplicates) = (Vec::new(), Vec::new(), 0usize);
        let (mut n, mut s, mut s2) = (0u128, 0i128, 0u128);
        for (&id, &(a, b, ta, tb)) in &at {
            match (a, b) {
                (1, 1) => {
                    let d = tb as i128 - ta as i128;
                    n += 1;
                    s += d;
                    s2 += (d * d) as u128;
                }
                (1, 0) => lost.push(id),
                (0, 1) => reordered.push(id),
                _ => duplicates += 1,
            }
        }
        lost.sort_unstable();
        reordered.sort_unstable();
        let (mean, std) = if n > 0 {
            let var = (n as f64 * s2 as f64 - (s as f64) * (s as f64)) / (n as f64 * n as f64);
            (s as f64 / n as f64, var.max(0.0).sqrt())
        } else {
            (f64::NAN, f64::NAN)
        };
        RdaTruth {
            sent,
            received,
            common: n as u64,
            set_difference: lost.len() + reordered.len(),
            lost,
            reordered,
            duplicate_ids: duplicates,
            mean,
            std,
        }
    }

    /// Per-packet timestamps as the two ends' captures hold them (the §VIII-A
    /// caches that let the host repair the timestamp sums).
    pub fn timestamps(&self) -> CaptureTimestamps {
        CaptureTimestamps { sent: self.sender_in_interval().collect(), received: self.receiver_in_interval().collect() }
    }
}

/// Ground truth of one interval over the measured (sampled) packets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RdaTruth {
    /// Packets the sender saw in the interval (sampled or not).
    pub sent: u64,
    /// Packets the receiver saw in the interval.
    pub received: u64,
    /// Measured packets seen once at both ends.
    pub common: u64,
    /// |S_S ⊕ S_R| over measured IDs seen once (§IV-B).
    pub set_difference: usize,
    /// IDs only the sender saw, ascending.
    #[serde(skip)]
    pub lost: Vec<u64>,
    /// IDs only the receiver saw, ascending.
    #[serde(skip)]
    pub reordered: Vec<u64>,
    /// IDs seen more than once at an end (not part of the truth sets).
    pub duplicate_ids: usize,
    /// Mean delay of the common packets, ns.
    pub mean: f64,
    /// Their standard deviation, ns.
    pub std: f64,
}

/// The two ends' synopses of interval 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RdaPair {
    /// At the sender (send times).
    pub sender: RdaSynopsis,
    /// At the receiver (arrival times).
    pub receiver: RdaSynopsis,
}

/// Interval 0's synopsis of a fresh golden core of `cfg` fed `stream` (ID,
/// timestamp); time then advances to `now` so that the interval closes.
/// An interval without packets has no synopsis in the core: it is all zero.
pub fn golden_synopsis(cfg: &RdaConfig, stream: &[(u64, u64)], now: u64) -> RdaSynopsis {
    let mut core = RdaGolden::new(cfg);
    let mut out = Vec::new();
    core.packets(stream, &mut out);
    core.advance(now, &mut out);
    out.into_iter().find(|s| s.interval == 0).unwrap_or_else(|| RdaSynopsis::empty(cfg, 0))
}

/// `now` at which both ends have closed the interval: its end plus the guard.
pub fn closing_time(iv: &IntervalTrace, cfg: &RdaConfig) -> u64 {
    iv.end() + cfg.guard_ticks
}

/// Sender and receiver synopses of `iv` on the golden model; `cfg` is the
/// cores' config for the interval ([`IntervalTrace::core_config`]).
pub fn golden_pair(cfg: &RdaConfig, iv: &IntervalTrace) -> RdaPair {
    let now = closing_time(iv, cfg);
    RdaPair { sender: golden_synopsis(cfg, &iv.sender, now), receiver: golden_synopsis(cfg, &iv.receiver, now) }
}

/// How the decode did against the truth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecodeReport {
    /// The decode emptied every bucket (Algorithm 1 succeeded).
    pub complete: bool,
    /// Decoded packets / true set difference (1 when both are 0).
    pub success: f64,
    /// Lost packets listed.
    pub lost: usize,
    /// Reordered packets listed.
    pub reordered: usize,
    /// The lists equal the true lost and reordered sets.
    pub exact: bool,
    /// Listed IDs that are not in the true set difference.
    pub wrong_ids: usize,
}

/// Estimates of one interval against the truth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RdaOutcome {
    /// Decode, repair and §V-C estimates (delays in ns).
    pub estimates: RdaEstimate,
    /// How the decode did.
    pub decode: DecodeReport,
    /// Ground truth.
    pub truth: RdaTruth,
    /// Relative errors of mean and std-dev.
    pub rel_error: RelError,
}

/// Decodes `pair` with the cores' `hashes` (repairing with `ts` when given),
/// estimates, and scores the result against `truth`.
pub fn outcome(
    pair: &RdaPair,
    hashes: &RdaHashes,
    truth: RdaTruth,
    ts: Option<&dyn Timestamps>,
) -> Result<RdaOutcome, RdaPairError> {
    let e = reconcile(&pair.sender, &pair.receiver, hashes, ts)?;
    let mut lost = e.decode.lost.clone();
    let mut reordered = e.decode.reordered.clone();
    lost.sort_unstable();
    reordered.sort_unstable();
    let listed = lost.len() + reordered.len();
    let wrong = lost.iter().filter(|id| truth.lost.binary_search(id).is_err()).count()
        + reordered.iter().filter(|id| truth.reordered.binary_search(id).is_err()).count();
    let decode = DecodeReport {
        complete: e.decode.complete,
        success: if truth.set_difference == 0 { 1.0 } else { (listed - wrong) as f64 / truth.set_difference as f64 },
        lost: lost.len(),
        reordered: reordered.len(),
        exact: lost == truth.lost && reordered == truth.reordered,
        wrong_ids: wrong,
    };
    let rel = crate::stats::rel_error;
    Ok(RdaOutcome {
        rel_error: RelError { mean: rel(e.mean, truth.mean), std: rel(e.std, truth.std) },
        estimates: e,
        decode,
        truth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::{DelayDist, LossModel, Source};

    fn spec(packets: u64, loss: f64, reorder: f64, seed: u64) -> RdaTrafficSpec {
        RdaTrafficSpec {
            base: TrafficSpec {
                source: Source::Synthetic { packets, rate_pps: 5e6, flows: 1000 },
                delay: DelayDist::PAPER_WEIBULL,
                loss_rate: loss,
                loss_model: LossModel::Uniform,
                seed,
            },
            reorder_rate: reorder,
            window_ns: 10_000,
        }
    }

    #[test]
    fn straddlers_become_lost_or_reordered_at_the_edges() {
        let iv = IntervalTrace::build(&spec(100_000, 0.0, 0.004, 3)).unwrap();
        let cfg = iv.core_config(&RdaConfig::default());
        let t = iv.truth(&cfg);
        // 400 straddlers, half at each edge; a few regular packets near the end arrive after it.
        assert_eq!(t.reordered.len(), 200);
        assert!(t.lost.len() >= 200 && t.lost.len() < 210, "{}", t.lost.len());
        assert_eq!(t.duplicate_ids, 0);
        assert_eq!(iv.sender.len(), 100_000);
        assert!(iv.sender.windows(2).all(|w| w[0].1 <= w[1].1));
        assert!(iv.receiver.windows(2).all(|w| w[0].1 <= w[1].1));
    }

    #[test]
    fn golden_run_decodes_and_repairs_to_the_exact_mean() {
        let iv = IntervalTrace::build(&spec(200_000, 0.002, 0.002, 5)).unwrap();
        let cfg = iv.core_config(&RdaConfig::default());
        let pair = golden_pair(&cfg, &iv);
        assert_eq!(pair.sender.packets, iv.truth(&cfg).sent);
        let ts = iv.timestamps();
        let o = outcome(&pair, &RdaHashes::new(&cfg), iv.truth(&cfg), Some(&ts)).unwrap();
        assert!(o.truth.set_difference > 700, "{}", o.truth.set_difference);
        assert!(o.decode.complete && o.decode.exact, "{:?}", o.decode);
        assert_eq!(o.decode.success, 1.0);
        assert!(o.rel_error.mean <= 1e-12, "{}", o.rel_error.mean);
        // Without the timestamps, the buckets that held a decoded packet are left out.
        let x = outcome(&pair, &RdaHashes::new(&cfg), iv.truth(&cfg), None).unwrap();
        assert!(x.estimates.usable_buckets < o.estimates.usable_buckets);
        assert!(x.rel_error.mean < 0.05, "{}", x.rel_error.mean);
    }

    #[test]
    fn an_overfull_difference_reports_failure() {
        let iv = IntervalTrace::build(&spec(200_000, 0.05, 0.0, 9)).unwrap();
        let cfg = iv.core_config(&RdaConfig { buckets: 500, ..Default::default() });
        let o =
            outcome(&golden_pair(&cfg, &iv), &RdaHashes::new(&cfg), iv.truth(&cfg), Some(&iv.timestamps())).unwrap();
        assert!(o.truth.set_difference > 5000);
        assert!(!o.decode.complete);
        assert!(o.decode.success < 0.5);
    }

    #[test]
    fn bad_traffic_is_refused() {
        assert!(IntervalTrace::build(&spec(1000, 0.0, 1.0, 1)).unwrap_err().contains("reorder"));
        let slow = RdaTrafficSpec {
            base: TrafficSpec {
                source: Source::Synthetic { packets: 100, rate_pps: 10.0, flows: 10 },
                ..spec(1, 0.0, 0.0, 1).base
            },
            ..spec(1, 0.0, 0.0, 1)
        };
        assert!(IntervalTrace::build(&slow).unwrap_err().contains("span more than one interval"));
    }
}
