//! One measurement run of the fridge core on a request/response stream and
//! its evaluation against the ground truth with the §5 metrics.

use super::baseline::SimpleMonitor;
use super::config::FridgeConfig;
use super::estimate::{Cdf, combine, correct, histogram_cdf, log2_error, max_horizontal_gap};
use super::model::{FridgeGolden, FridgePacket, FridgeSample, FridgeSynopsis, HistBin};
use serde::Serialize;

/// What the core produced over a stream (one histogram epoch).
#[derive(Clone, Debug, PartialEq)]
pub struct FridgeRun {
    /// Every sample, in output order.
    pub samples: Vec<FridgeSample>,
    /// The epoch's histograms, fridge-major.
    pub histograms: Vec<HistBin>,
    /// Samples whose in-fabric factor saturated.
    pub saturated: u32,
    /// A histogram field wrapped.
    pub hist_overflow: bool,
    /// Requests counted by each fridge's insertion counter.
    pub insertions: Vec<u32>,
}

/// The golden core over `packets`, histograms frozen at the end.
pub fn run_golden(cfg: &FridgeConfig, packets: &[FridgePacket]) -> FridgeRun {
    let mut g = FridgeGolden::new(cfg);
    let samples: Vec<FridgeSample> = packets.iter().filter_map(|p| g.process(p)).collect();
    let insertions = (0..cfg.fridges()).map(|k| g.insertions(k)).collect();
    FridgeRun { samples, histograms: g.flip(), saturated: g.saturated, hist_overflow: g.hist_overflow, insertions }
}

/// Percentile delays (ticks).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Percentiles {
    /// The three percentiles of a CDF.
    pub fn of(c: &Cdf) -> Self {
        Self { p50: c.quantile(0.50), p95: c.quantile(0.95), p99: c.quantile(0.99) }
    }

    /// |log2(self / truth)| of each.
    pub fn errors(&self, truth: &Percentiles) -> Percentiles {
        Percentiles {
            p50: log2_error(self.p50, truth.p50),
            p95: log2_error(self.p95, truth.p95),
            p99: log2_error(self.p99, truth.p99),
        }
    }
}

/// An estimated distribution scored against the truth (§5 "Distance metric").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scored {
    /// Samples the estimate rests on.
    pub samples: usize,
    /// Estimated percentiles.
    pub estimates: Percentiles,
    /// |log2(estimate / truth)| per percentile.
    pub errors: Percentiles,
    /// Maximum horizontal gap between the CDFs for y in [5 %, 95 %], log2 units.
    pub max_cdf_gap: f64,
    /// The estimated CDF (not serialized).
    #[serde(skip)]
    pub cdf: Cdf,
}

impl Scored {
    /// Scores `cdf` against `truth`; None without samples.
    pub fn new(cdf: Option<Cdf>, samples: usize, truth: &Cdf) -> Option<Self> {
        let cdf = cdf?;
        let estimates = Percentiles::of(&cdf);
        Some(Self {
            samples,
            errors: estimates.errors(&Percentiles::of(truth)),
            estimates,
            max_cdf_gap: max_horizontal_gap(&cdf, truth, 0.05, 0.95),
            cdf,
        })
    }
}

/// The fridge estimate from the raw samples (exact correction, §4.2 combination).
pub fn score_samples(cfg: &FridgeConfig, samples: &[FridgeSample], truth: &Cdf) -> Option<Scored> {
    let w = combine(&correct(cfg, samples), cfg.fridges());
    Scored::new(Cdf::from_weighted(w), samples.len(), truth)
}

/// The fridge estimate from the in-fabric histograms (§6.2).
pub fn score_histograms(cfg: &FridgeConfig, hist: &[HistBin], bin_shift: u32, truth: &Cdf) -> Option<Scored> {
    let n: u64 = hist.iter().map(|b| b.count as u64).sum();
    Scored::new(histogram_cdf(hist, cfg.fridges(), bin_shift), n as usize, truth)
}

/// The golden core fed `packets` (in time order) with its histograms
/// flipped at every multiple of `epoch_ticks` (§6.2's `EPOCH_FLIP`), up to
/// and including the epoch of the last packet: what a fridge point reports,
/// one [`FridgeSynopsis`] per epoch. Its entries survive a flip, so the
/// histograms of consecutive epochs add up to those of one longer epoch.
pub fn golden_epochs(cfg: &FridgeConfig, packets: &[FridgePacket], epoch_ticks: u64) -> Vec<FridgeSynopsis> {
    assert!(epoch_ticks > 0, "an epoch lasts at least one tick");
    let mut core = FridgeGolden::new(cfg);
    let mut out: Vec<FridgeSynopsis> = Vec::new();
    let flip = |core: &mut FridgeGolden, out: &mut Vec<FridgeSynopsis>| {
        let histograms = core.flip();
        let (overflow, saturated) = (core.hist_overflow, core.saturated);
        out.push(FridgeSynopsis { config: cfg.clone(), epoch: out.len() as u64, histograms, overflow, saturated });
    };
    for p in packets {
        while p.ts >= (out.len() as u64 + 1).saturating_mul(epoch_ticks) {
            flip(&mut core, &mut out);
        }
        core.process(p);
    }
    if !packets.is_empty() {
        flip(&mut core, &mut out);
    }
    out
}

/// The §2.1 simple algorithm over the same stream: its unweighted samples.
pub fn run_simple(packets: &[FridgePacket], entries: usize, stages: usize, expiry: u64, seed: u64) -> Vec<u64> {
    let mut m = SimpleMonitor::new(entries, stages, expiry, seed);
    packets.iter().filter_map(|p| m.process(p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fridge::traffic::SyntheticSpec;

    /// Lemma 3.1: Σ correction factors of the samples in a delay range is an
    /// unbiased estimate of the pairs in that range. Over many hash/PRNG seeds
    /// the mean estimate must sit within 4 standard errors of the truth, in
    /// every range, including the large delays the simple algorithm loses.
    #[test]
    fn correction_is_unbiased_over_seeds() {
        let trace =
            SyntheticSpec { requests: 40_000, max_delay_ns: 16e6, seed: 3, ..Default::default() }.build().unwrap();
        // M/p = 256 / 2^-4 = 4096 insertions ≈ 4 ms at 1 M/s: pairs up to 16 ms are heavily evicted.
        let ranges = [(0u64, 100_000u64), (100_000, 1_000_000), (1_000_000, 4_000_000), (4_000_000, 16_000_000)];
        let truth: Vec<f64> =
            ranges.iter().map(|&(a, b)| trace.truth.iter().filter(|&&d| d >= a && d < b).count() as f64).collect();
        let seeds = 48;
        let mut est = vec![Vec::new(); ranges.len()];
        let mut simple = vec![0.0; ranges.len()];
        for s in 0..seeds {
            let cfg =
                FridgeConfig { entries: vec![256], entry_prob_log2: vec![-4.0], seed: 100 + s, ..Default::default() };
            let run = run_golden(&cfg, &trace.packets);
            let w = correct(&cfg, &run.samples);
            for (i, &(a, b)) in ranges.iter().enumerate() {
                est[i].push(w.iter().filter(|x| x.delay >= a && x.delay < b).map(|x| x.factor).sum::<f64>());
            }
            for d in run_simple(&trace.packets, 256, 1, 0, 100 + s) {
                if let Some(i) = ranges.iter().position(|&(a, b)| d >= a && d < b) {
                    simple[i] += 1.0 / seeds as f64;
                }
            }
        }
        for (i, e) in est.iter().enumerate() {
            let n = e.len() as f64;
            let mean = e.iter().sum::<f64>() / n;
            let sd = (e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let se = sd / n.sqrt();
            assert!((mean - truth[i]).abs() <= 4.0 * se, "range {i}: mean {mean} truth {} se {se}", truth[i]);
        }
        // The simple algorithm is biased against large delays (§2.2): far below the truth there.
        assert!(simple[3] < 0.2 * truth[3], "{simple:?} vs {truth:?}");
    }

    #[test]
    fn fridge_beats_the_simple_algorithm_on_the_tail() {
        let trace =
            SyntheticSpec { requests: 200_000, max_delay_ns: 64e6, seed: 5, ..Default::default() }.build().unwrap();
        let truth = Cdf::from_delays(&trace.truth).unwrap();
        let cfg = FridgeConfig { entries: vec![1024], entry_prob_log2: vec![-6.0], ..Default::default() };
        let run = run_golden(&cfg, &trace.packets);
        let fridge = score_samples(&cfg, &run.samples, &truth).unwrap();
        let simple = Scored::new(Cdf::from_delays(&run_simple(&trace.packets, 1024, 1, 0, 9)), 0, &truth).unwrap();
        assert!(fridge.errors.p99 < simple.errors.p99 / 2.0, "{:?} vs {:?}", fridge.errors, simple.errors);
        assert!(fridge.max_cdf_gap < simple.max_cdf_gap, "{} vs {}", fridge.max_cdf_gap, simple.max_cdf_gap);
        // The in-fabric histogram (factor-2 bins) agrees with the samples' estimate to within a bin.
        let h = score_histograms(&cfg, &run.histograms, cfg.bin_shift, &truth).unwrap();
        assert_eq!(h.samples, run.samples.len());
        assert!(log2_error(h.estimates.p50, fridge.estimates.p50) < 1.0, "{:?} {:?}", h.estimates, fridge.estimates);
        assert!(!run.hist_overflow && run.saturated == 0);
    }
}
