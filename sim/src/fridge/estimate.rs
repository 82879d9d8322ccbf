//! Host estimators of the fridge core: exact correction of every raw sample
//! (§3.2.1), the estimated CDF with linear interpolation (eq. 3.3),
//! percentiles, inverse-variance weighting of several fridges (§4.2, eq.
//! 4.5–4.7), the §5 error metrics, the in-fabric histograms turned into a CDF
//! (§6.2) and the p-tuning rule of §5.2.

use super::config::{FRIDGE_BINS, FridgeConfig};
use super::factor::{WSUM_FRAC_BITS, exact_factor};
use super::model::{FridgeSample, HistBin};

/// A sample with its exact correction factor and weight factor (§4.2's 4-tuple).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightedSample {
    /// Fridge index k.
    pub fridge: usize,
    /// Delay t in ticks.
    pub delay: u64,
    /// Correction factor p_k^-1 (1 - p_k/M_k)^-x.
    pub factor: f64,
}

/// The exact correction of every raw sample, with the p the hardware implements.
pub fn correct(cfg: &FridgeConfig, samples: &[FridgeSample]) -> Vec<WeightedSample> {
    let p: Vec<f64> = (0..cfg.fridges()).map(|k| cfg.hw_prob(k)).collect();
    samples
        .iter()
        .map(|s| {
            let k = s.fridge as usize;
            WeightedSample { fridge: k, delay: s.delay, factor: exact_factor(p[k], cfg.entries[k], s.x as u64) }
        })
        .collect()
}

/// The delay bin in which fridges are combined: the octave ⌊log2 t⌋ (§4.2
/// combines the estimators of one t; one octave, as the §6.2 histogram:
/// narrower bins hold fewer samples, and the weights, estimated from the same
/// samples, then favour whichever fridge happened to undercount).
fn ivw_bin(delay: u64) -> usize {
    (63 - delay.max(1).leading_zeros()) as usize
}

/// (delay, weight) pairs of the multi-fridge estimator f̂ = Σ_k ŵ_k f̂_k (§4.2):
/// in every delay bin (one octave), fridge k's estimator is the sum of its
/// factors and its variance estimate V̂_k (eq. 4.7) the sum of their squares;
/// ŵ_k = (1/V̂_k) / Σ_j 1/V̂_j over the fridges with samples in the bin.
/// Every sample keeps its factor times its fridge's weight, so the CDF keeps
/// the samples' own delays. With one fridge the weights are the factors.
pub fn combine(samples: &[WeightedSample], fridges: usize) -> Vec<(u64, f64)> {
    if fridges <= 1 {
        return samples.iter().map(|s| (s.delay, s.factor)).collect();
    }
    let bins: Vec<usize> = samples.iter().map(|s| ivw_bin(s.delay)).collect();
    // V̂ per (octave, fridge), then turned into the weights ŵ in place.
    let mut w = vec![vec![0.0f64; fridges]; 64];
    for (s, &b) in samples.iter().zip(&bins) {
        w[b][s.fridge] += s.factor * s.factor;
    }
    for vk in &mut w {
        let inv: f64 = vk.iter().filter(|&&x| x > 0.0).map(|x| 1.0 / x).sum();
        for x in vk.iter_mut() {
            *x = if *x > 0.0 { (1.0 / *x) / inv } else { 0.0 };
        }
    }
    samples.iter().zip(&bins).map(|(s, &b)| (s.delay, s.factor * w[b][s.fridge])).collect()
}

/// A CDF as points (t, F(t)) joined by straight lines (§3.2.2: "we assume
/// linear interpolation for both F̂ and F").
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    points: Vec<(f64, f64)>,
}

impl Cdf {
    /// F̂ of eq. 3.3 from (delay, weight) pairs; None when the total weight is 0.
    pub fn from_weighted(pairs: impl IntoIterator<Item = (u64, f64)>) -> Option<Self> {
        let mut v: Vec<(u64, f64)> = pairs.into_iter().filter(|p| p.1 > 0.0).collect();
        v.sort_unstable_by_key(|p| p.0);
        let total: f64 = v.iter().map(|p| p.1).sum();
        if total.is_nan() || total <= 0.0 {
            return None;
        }
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(v.len());
        let mut acc = 0.0;
        for (t, w) in v {
            acc += w;
            match points.last_mut() {
                Some(last) if last.0 == t as f64 => last.1 = acc / total,
                _ => points.push((t as f64, acc / total)),
            }
        }
        points.last_mut().unwrap().1 = 1.0;
        Some(Self { points })
    }

    /// The ground-truth CDF F of a list of delays.
    pub fn from_delays(delays: &[u64]) -> Option<Self> {
        Self::from_weighted(delays.iter().map(|&d| (d, 1.0)))
    }

    /// A CDF given by its points directly (t increasing, F non-decreasing up to 1).
    pub fn from_points(points: Vec<(f64, f64)>) -> Option<Self> {
        let ok = !points.is_empty()
            && points.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1)
            && (points.last().unwrap().1 - 1.0).abs() < 1e-9;
        ok.then_some(Self { points })
    }

    /// The points.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// The y-quantile: the t where the interpolated CDF first reaches y.
    pub fn quantile(&self, y: f64) -> f64 {
        let i = self.points.partition_point(|p| p.1 < y);
        if i == 0 {
            return self.points[0].0;
        }
        if i >= self.points.len() {
            return self.points.last().unwrap().0;
        }
        let (t0, f0) = self.points[i - 1];
        let (t1, f1) = self.points[i];
        t0 + (y - f0) / (f1 - f0) * (t1 - t0)
    }

    /// F(t), interpolated.
    pub fn value(&self, t: f64) -> f64 {
        let i = self.points.partition_point(|p| p.0 < t);
        if i == 0 {
            return if t >= self.points[0].0 { self.points[0].1 } else { 0.0 };
        }
        if i >= self.points.len() {
            return 1.0;
        }
        let (t0, f0) = self.points[i - 1];
        let (t1, f1) = self.points[i];
        f0 + (t - t0) / (t1 - t0) * (f1 - f0)
    }
}

/// §5's relative error of a percentile: |log2(estimate / truth)| (delays below one tick count as one).
pub fn log2_error(est: f64, truth: f64) -> f64 {
    (est.max(1.0) / truth.max(1.0)).log2().abs()
}

/// §5's maximum horizontal gap between two CDFs for y in [lo, hi], in the same
/// log2 units, evaluated on a grid of 0.001 in y.
pub fn max_horizontal_gap(est: &Cdf, truth: &Cdf, lo: f64, hi: f64) -> f64 {
    let n = ((hi - lo) * 1000.0).round() as usize;
    (0..=n)
        .map(|i| lo + (hi - lo) * i as f64 / n.max(1) as f64)
        .map(|y| log2_error(est.quantile(y), truth.quantile(y)))
        .fold(0.0, f64::max)
}

/// Lower edge of histogram bin `b` in ticks. Bin 0 holds the delays below
/// 2^shift: drawn from one tick (the CDF's log scale has no zero), or from half
/// a tick when `shift` is 0 and bin 1 already starts at one tick.
pub fn bin_low(b: usize, shift: u32) -> f64 {
    if b == 0 { if shift == 0 { 0.5 } else { 1.0 } } else { ((shift + b as u32 - 1) as f64).exp2() }
}

/// The CDF of the in-fabric histograms (§6.2): fridges combined per bin by
/// inverse-variance weighting with V̂ = Σ factor², mass spread linearly
/// inside each bin (bin 31 is closed at twice its lower edge).
pub fn histogram_cdf(hist: &[HistBin], fridges: usize, shift: u32) -> Option<Cdf> {
    let mut mass = vec![0.0; FRIDGE_BINS];
    for (b, m) in mass.iter_mut().enumerate() {
        let bins: Vec<&HistBin> = (0..fridges).map(|k| &hist[k * FRIDGE_BINS + b]).collect();
        let inv: f64 = bins.iter().filter(|h| h.w2sum > 0).map(|h| 1.0 / h.w2sum as f64).sum();
        *m = bins
            .iter()
            .filter(|h| h.w2sum > 0)
            .map(|h| h.wsum as f64 / (1u64 << WSUM_FRAC_BITS) as f64 * (1.0 / h.w2sum as f64) / inv)
            .sum();
    }
    let total: f64 = mass.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let first = mass.iter().position(|&m| m > 0.0)?;
    let mut points = vec![(bin_low(first, shift), 0.0)];
    let mut acc = 0.0;
    for (b, &m) in mass.iter().enumerate().skip(first) {
        acc += m;
        if m > 0.0 || b + 1 < FRIDGE_BINS {
            let hi = if b + 1 < FRIDGE_BINS { bin_low(b + 1, shift) } else { 2.0 * bin_low(b, shift) };
            points.push((hi, (acc / total).min(1.0)));
        }
    }
    // Trailing empty bins add flat segments; drop them so the CDF ends at its last mass.
    while points.len() > 2 && points[points.len() - 2].1 >= 1.0 - 1e-12 {
        points.pop();
    }
    points.last_mut().unwrap().1 = 1.0;
    Cdf::from_points(points)
}

/// §5.2's rule: the entry probability whose average lifetime M/p equals the
/// insertion attempts expected within the largest delay of interest
/// (`requests_per_tick` × `max_delay_ticks` requests routed to this fridge),
/// clamped to (0, 1]. Returned as log2 p.
pub fn tune_prob_log2(entries: usize, requests_per_tick: f64, max_delay_ticks: f64) -> f64 {
    let attempts = requests_per_tick * max_delay_ticks;
    if attempts.is_nan() || attempts <= 0.0 {
        return 0.0;
    }
    (entries as f64 / attempts).log2().min(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_interpolates_and_inverts() {
        let c = Cdf::from_weighted([(10, 1.0), (20, 1.0), (20, 1.0), (40, 2.0)]).unwrap();
        assert_eq!(c.points(), &[(10.0, 0.2), (20.0, 0.6), (40.0, 1.0)]);
        assert_eq!(c.quantile(0.1), 10.0);
        assert!((c.quantile(0.4) - 15.0).abs() < 1e-12);
        assert!((c.quantile(0.8) - 30.0).abs() < 1e-12);
        assert_eq!(c.quantile(1.0), 40.0);
        assert!((c.value(30.0) - 0.8).abs() < 1e-12);
        assert_eq!(c.value(5.0), 0.0);
        assert_eq!(c.value(50.0), 1.0);
        assert!(Cdf::from_weighted([(1, 0.0)]).is_none());
    }

    #[test]
    fn gap_is_zero_for_equal_cdfs_and_one_for_a_doubling() {
        let d: Vec<u64> = (1..=1000).collect();
        let t = Cdf::from_delays(&d).unwrap();
        assert_eq!(max_horizontal_gap(&t, &t, 0.05, 0.95), 0.0);
        let d2: Vec<u64> = d.iter().map(|x| 2 * x).collect();
        let e = Cdf::from_delays(&d2).unwrap();
        assert!((max_horizontal_gap(&e, &t, 0.05, 0.95) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn combination_prefers_the_low_variance_fridge() {
        // Same delay bin: fridge 0 has small factors (low variance), fridge 1 large ones.
        let s = [
            WeightedSample { fridge: 0, delay: 100, factor: 2.0 },
            WeightedSample { fridge: 0, delay: 101, factor: 2.0 },
            WeightedSample { fridge: 1, delay: 102, factor: 8.0 },
        ];
        let w = combine(&s, 2);
        // V0 = 8, V1 = 64 → ŵ0 = (1/8)/(1/8+1/64) = 8/9, ŵ1 = 1/9.
        assert!((w[0].1 - 2.0 * 8.0 / 9.0).abs() < 1e-12);
        assert!((w[2].1 - 8.0 / 9.0).abs() < 1e-12);
        // A bin only one fridge saw keeps that fridge's factors whole.
        let w = combine(&[WeightedSample { fridge: 1, delay: 5000, factor: 3.0 }], 2);
        assert_eq!(w[0].1, 3.0);
    }

    #[test]
    fn histogram_cdf_spreads_each_bin() {
        let mut h = vec![HistBin::default(); FRIDGE_BINS];
        h[2] = HistBin { count: 1, wsum: 256, w2sum: 1 };
        h[3] = HistBin { count: 1, wsum: 256, w2sum: 1 };
        let c = histogram_cdf(&h, 1, 10).unwrap();
        // Bin 2 = [2048, 4096), bin 3 = [4096, 8192).
        assert_eq!(c.points(), &[(2048.0, 0.0), (4096.0, 0.5), (8192.0, 1.0)]);
        assert!((c.quantile(0.25) - 3072.0).abs() < 1e-9);
        // With BIN_SHIFT 0 bin 0 holds delays of 0 ticks and bin 1 starts at one tick:
        // bin 0 is drawn over [0.5, 1), not collapsed onto one point.
        let mut h = vec![HistBin::default(); FRIDGE_BINS];
        h[0] = HistBin { count: 1, wsum: 256, w2sum: 1 };
        h[1] = HistBin { count: 1, wsum: 256, w2sum: 1 };
        let c = histogram_cdf(&h, 1, 0).expect("bin 0 with BIN_SHIFT 0 gives a CDF");
        assert_eq!(c.points(), &[(0.5, 0.0), (1.0, 0.5), (2.0, 1.0)]);
    }

    #[test]
    fn tuning_aims_the_lifetime_at_the_largest_delay() {
        // §5.2 Fig. 3a: 2^12 ms at 1 M requests/s → 4·10^6 insertions; M = 2^12 → p ≈ 2^-10.
        let v = tune_prob_log2(4096, 1e-3, 4096.0 * 1e6);
        assert!((v - (4096.0f64 / 4.096e6).log2()).abs() < 1e-12);
        assert_eq!(tune_prob_log2(4096, 1e-3, 1.0), 0.0);
    }
}
