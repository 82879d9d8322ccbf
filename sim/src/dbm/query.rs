//! A posteriori queries (Uyeda et al. §3: statistics of S_Δ for a Δ chosen
//! after the fact): from a DBM partition (Lemma 1, Theorems 1 and 2), from
//! EXPB's per-scale statistics (Lemma 2), and exactly from the raw packets as
//! the ground truth.
//!
//! S_Δ over a period [t0, t0 + T) is the byte sum of each interval
//! [t0 + iΔ, t0 + (i + 1)Δ), i = 0..⌈T/Δ⌉ (the last one may be shorter).

use super::config::ExpbConfig;
use super::expb::ExpbPeriod;
use super::model::Bucket;
use super::traffic::BwPacket;
use crate::stats::quantile;

/// Statistics of a series S_Δ.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SeriesStats {
    /// Intervals.
    pub len: usize,
    /// Mean interval sum (bytes).
    pub mean: f64,
    /// Largest interval sum.
    pub max: f64,
    /// Population standard deviation.
    pub std: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
}

/// Mean, max, standard deviation and 95th percentile of a series.
pub fn series_stats(s: &[f64]) -> SeriesStats {
    if s.is_empty() {
        return SeriesStats::default();
    }
    let n = s.len() as f64;
    let mean = s.iter().sum::<f64>() / n;
    let var = s.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    SeriesStats {
        len: s.len(),
        mean,
        max: s.iter().cloned().fold(f64::MIN, f64::max),
        std: var.sqrt(),
        p95: quantile(s, 0.95),
    }
}

/// Intervals of S_Δ in a period of `period` ticks.
pub fn intervals(period: u64, delta: u64) -> usize {
    period.div_ceil(delta) as usize
}

/// S_Δ exactly, from the packets of the period [t0, t0 + period).
pub fn true_series(packets: &[BwPacket], t0: u64, period: u64, delta: u64) -> Vec<f64> {
    let mut s = vec![0.0; intervals(period, delta)];
    for p in packets.iter().filter(|p| p.ts >= t0 && p.ts - t0 < period) {
        s[((p.ts - t0) / delta) as usize] += p.len as f64;
    }
    s
}

/// Bytes of the packets in [a, b).
pub fn true_mass(packets: &[BwPacket], a: u64, b: u64) -> u64 {
    packets.iter().filter(|p| (a..b).contains(&p.ts)).map(|p| p.len as u64).sum()
}

/// The share of bucket `b`'s mass that falls in [a, c): its mass spread
/// evenly over the ticks [first, last] it spans.
fn share(b: &Bucket, a: u64, c: u64) -> f64 {
    let (lo, hi) = (b.first.max(a), (b.last + 1).min(c));
    if hi <= lo {
        return 0.0;
    }
    b.mass as f64 * (hi - lo) as f64 / (b.last + 1 - b.first) as f64
}

/// DBM's estimate of the bytes in [a, b) (Lemma 1: within 4B/m in merge-by-mass).
pub fn dbm_mass(buckets: &[Bucket], a: u64, b: u64) -> f64 {
    buckets.iter().map(|k| share(k, a, b)).sum()
}

/// DBM's estimate of S_Δ for the period [t0, t0 + period) (Theorem 1).
pub fn dbm_series(buckets: &[Bucket], t0: u64, period: u64, delta: u64) -> Vec<f64> {
    let k = intervals(period, delta);
    let mut s = vec![0.0; k];
    for b in buckets {
        if b.last < t0 || b.first >= t0 + period {
            continue;
        }
        let i0 = ((b.first.max(t0) - t0) / delta) as usize;
        let i1 = (((b.last.min(t0 + period - 1)) - t0) / delta) as usize;
        for (i, v) in s.iter_mut().enumerate().take(i1 + 1).skip(i0) {
            let a = t0 + i as u64 * delta;
            *v += share(b, a, (a + delta).min(t0 + period));
        }
    }
    s
}

/// The scale EXPB answers a query at Δ from: the finest Δ_j ≥ Δ (§3.2.2),
/// or `None` when Δ is outside [Δ_1, Δ_m].
pub fn expb_scale(cfg: &ExpbConfig, delta: u64) -> Option<usize> {
    if delta < cfg.base_ticks || delta > cfg.scale_ticks(cfg.scales - 1) {
        return None;
    }
    (0..cfg.scales).find(|&j| cfg.scale_ticks(j) >= delta)
}

/// EXPB's estimate of S_Δ's statistics (§3.2.2: "the maximum of the
/// bandwidth corresponding to the smallest index j for which Δ_j ≥ Δ"): the
/// statistics of scale Δ_j as bandwidths, brought back to bytes per Δ (× Δ /
/// Δ_j). Lemma 2 bounds the unscaled maximum, [`ScaleStats::max`] of that
/// scale, within [1/2, 3] of the true one; the scaled one is within [1/4, 3].
pub fn expb_stats(p: &ExpbPeriod, cfg: &ExpbConfig, delta: u64) -> Option<SeriesStats> {
    let j = expb_scale(cfg, delta)?;
    let st = &p.scales[j];
    let f = delta as f64 / cfg.scale_ticks(j) as f64;
    Some(SeriesStats {
        len: st.count as usize,
        mean: st.mean() * f,
        max: st.max as f64 * f,
        std: st.std() * f,
        p95: f64::NAN,
    })
}

/// The coarsest Δ among `candidates` at which the peak bandwidth (largest
/// interval sum / Δ, bytes per tick) exceeds `rate`, given the largest
/// interval sum at each Δ.
pub fn coarsest_exceeding(candidates: &[u64], rate: f64, max_at: impl Fn(u64) -> Option<f64>) -> Option<u64> {
    candidates.iter().copied().filter(|&d| max_at(d).is_some_and(|m| m / d as f64 > rate)).max()
}

#[cfg(test)]
mod tests {
    use super::super::config::DbmConfig;
    use super::super::expb::run_expb;
    use super::super::model::run_dbm;
    use super::*;
    use proptest::prelude::*;

    fn stream(seed: u64, n: usize, gap: u64) -> Vec<BwPacket> {
        let mut rng = crate::prng::SplitMix64::new(seed);
        let mut ts = 0;
        (0..n)
            .map(|_| {
                // Bursty: mostly short gaps, sometimes long ones, sizes 1..1500.
                ts += if rng.chance(1, 20) { rng.below(gap * 50) } else { rng.below(gap) };
                BwPacket { ts, len: 1 + rng.below(1500) as u32, flow: rng.below(8) as u32 }
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Lemma 1: DBM-mm estimates the mass of any interval within 4B/m.
        #[test]
        fn lemma_1(seed in any::<u64>(), m in 2usize..200, n in 1usize..3000, gap in 1u64..1000,
                   qa in 0.0f64..1.0, qb in 0.0f64..1.0) {
            let packets = stream(seed, n, gap);
            let end = packets.last().unwrap().ts + 1;
            let cfg = DbmConfig { buckets: m, period_ticks: 1 << 47, ..Default::default() };
            let periods = run_dbm(&cfg, &packets).unwrap();
            prop_assert_eq!(periods.len(), 1);
            let total: u64 = packets.iter().map(|p| p.len as u64).sum();
            let (a, b) = ((qa.min(qb) * end as f64) as u64, (qa.max(qb) * end as f64) as u64 + 1);
            let est = dbm_mass(&periods[0].buckets, a, b);
            let truth = true_mass(&packets, a, b) as f64;
            let bound = 4.0 * total as f64 / m as f64;
            prop_assert!((est - truth).abs() <= bound + 1e-6, "est {} truth {} bound {}", est, truth, bound);
        }

        /// Lemma 2: EXPB's maximum for any Δ in [Δ_1, Δ_m] is within [1/2, 3] of the true one,
        /// and the bandwidth-scaled estimate within [1/4, 3].
        #[test]
        fn lemma_2(seed in any::<u64>(), n in 1usize..3000, gap in 1u64..200, scales in 1usize..8,
                   base in 1u64..50, dq in 0.0f64..1.0) {
            let cfg = ExpbConfig { scales, base_ticks: base, period_ticks: (base << (scales - 1)) * 8 };
            let packets: Vec<_> = stream(seed, n, gap).into_iter().filter(|p| p.ts < cfg.period_ticks).collect();
            prop_assume!(!packets.is_empty());
            let p = &run_expb(&cfg, &packets).unwrap()[0];
            let top = cfg.scale_ticks(scales - 1);
            let delta = base + ((top - base) as f64 * dq) as u64;
            let est = p.scales[expb_scale(&cfg, delta).unwrap()].max as f64;
            let truth = series_stats(&true_series(&packets, 0, cfg.period_ticks, delta)).max;
            prop_assert!(est >= truth / 2.0 && est <= truth * 3.0, "Δ {} est {} truth {}", delta, est, truth);
            let scaled = expb_stats(p, &cfg, delta).unwrap().max;
            prop_assert!(scaled >= truth / 4.0 - 1e-9 && scaled <= truth * 3.0 + 1e-9, "Δ {} scaled {} truth {}", delta, scaled, truth);
        }
    }

    #[test]
    fn series_of_a_fine_partition_is_exact_and_mean_is_exact() {
        // With a bucket per packet (no merges) the estimate is the truth.
        let packets = stream(2, 500, 100);
        let cfg = DbmConfig { buckets: 1024, period_ticks: 1 << 40, ..Default::default() };
        let b = &run_dbm(&cfg, &packets).unwrap()[0].buckets;
        let period = packets.last().unwrap().ts + 1;
        for delta in [1u64, 7, 100, 1000, period] {
            assert_eq!(dbm_series(b, 0, period, delta), true_series(&packets, 0, period, delta));
        }
        // Merged: the mean is still exact (Σ is kept), the max is not.
        let cfg = DbmConfig { buckets: 16, ..cfg };
        let b = &run_dbm(&cfg, &packets).unwrap()[0].buckets;
        let est = series_stats(&dbm_series(b, 0, period, 1000));
        let truth = series_stats(&true_series(&packets, 0, period, 1000));
        assert!((est.mean - truth.mean).abs() < 1e-6 * truth.mean);
        assert!(est.max < truth.max);
    }

    #[test]
    fn coarsest_scale_exceeding_a_rate() {
        // Peak rate 10/Δ at Δ = 1, 2, 4: only Δ ≤ 2 exceeds rate 4.
        assert_eq!(coarsest_exceeding(&[1, 2, 4], 4.0, |_| Some(10.0)), Some(2));
        assert_eq!(coarsest_exceeding(&[1, 2, 4], 40.0, |_| Some(10.0)), None);
    }
}
