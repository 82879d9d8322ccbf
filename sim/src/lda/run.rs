//! One measurement interval end to end on the golden model: the sender's and
//! the receiver's LDA over a FIFO segment's trace, the §III-D/E estimates and
//! their error against the ground truth; and the §III-D tuning rule.

use super::config::{LDA_SAMPLE_BITS, LDA_TS_BITS, LdaConfig};
use super::estimate::{LdaEstimate, PairError, estimate};
use super::model::{LdaGolden, LdaPacket, LdaSynopsis};
use crate::traffic::{Trace, Truth};
use serde::Serialize;

/// The two ends' synopses of one interval.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LdaPair {
    /// At the sender (every packet, send times).
    pub sender: LdaSynopsis,
    /// At the receiver (packets that arrived, arrival times).
    pub receiver: LdaSynopsis,
}

/// The synopsis of one epoch of a fresh golden core fed `stream` (key, ns timestamp).
pub fn golden_synopsis(cfg: &LdaConfig, stream: impl Iterator<Item = (u128, u64)>) -> LdaSynopsis {
    let mut core = LdaGolden::new(cfg);
    for (key, ts) in stream {
        core.packet(&LdaPacket { key, ts, class: 0 });
    }
    core.end_epoch()
}

/// Sender and receiver synopses of `trace` on the golden model.
pub fn golden_pair(cfg: &LdaConfig, trace: &Trace) -> LdaPair {
    LdaPair { sender: golden_synopsis(cfg, trace.sender()), receiver: golden_synopsis(cfg, trace.receiver()) }
}

/// Checks that the LDA can measure `trace` exactly: a row's timestamp sums are
/// modular (40 bits) and their difference is read as signed, so the delays a
/// row holds must add up to less than 2^39 ns (about 9 minutes). The check is
/// on all received packets together, which bounds every row.
pub fn check_delay_range(trace: &Trace) -> Result<(), String> {
    let total: u128 = trace.packets.iter().filter_map(|p| p.received.map(|b| (b - p.sent) as u128)).sum();
    let limit = 1u128 << (LDA_TS_BITS - 1);
    if total >= limit {
        return Err(format!(
            "the trace's delays add up to {total} ns, past the 2^39 ns that the 40-bit timestamp sums of a row \
             can carry (§III-D): shorter delays or fewer packets"
        ));
    }
    Ok(())
}

/// |estimate − truth| / |truth| of the mean and the standard deviation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RelError {
    /// Of the mean delay.
    pub mean: f64,
    /// Of the standard deviation.
    pub std: f64,
}

/// Estimates of one interval against the truth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LdaOutcome {
    /// §III-D/E estimates (delays in ns).
    pub estimates: LdaEstimate,
    /// Ground truth.
    pub truth: Truth,
    /// Relative errors (the paper's Fig. 4 metric).
    pub rel_error: RelError,
}

/// Estimates from `pair` and their error against `truth`.
pub fn outcome(pair: &LdaPair, truth: Truth) -> Result<LdaOutcome, PairError> {
    let e = estimate(&pair.sender, &pair.receiver)?;
    let rel = crate::stats::rel_error;
    Ok(LdaOutcome {
        rel_error: RelError { mean: rel(e.mean, truth.mean), std: rel(e.std, truth.std) },
        estimates: e,
        truth,
    })
}

/// The §III-D tuning of one bank of `rows` rows for `lost` lost packets:
/// p = α m / (L + 1) with α = 0.5, rounded to the nearest power of two 2^-k
/// (the hardware samples by leading zeros) and returned as k in 0..=24.
pub fn tuned_prob_log2(rows: usize, lost: f64) -> u32 {
    let p = 0.5 * rows as f64 / (lost + 1.0);
    (-p.log2()).round().clamp(0.0, LDA_SAMPLE_BITS as f64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::{DelayDist, LossModel, Source, TrafficSpec};

    #[test]
    fn tuning_follows_the_paper() {
        // 5 M packets: 0.5 % loss → 25 000 lost; p = 256 / 25 001 ≈ 2^-6.6 → 2^-7 for 512 rows.
        assert_eq!(tuned_prob_log2(512, 25_000.0), 7);
        assert_eq!(tuned_prob_log2(512, 500_000.0), 11);
        assert_eq!(tuned_prob_log2(1024, 0.0), 0);
        assert_eq!(tuned_prob_log2(64, 1e12), 24);
    }

    #[test]
    fn with_no_loss_the_mean_is_exact() {
        let cfg = LdaConfig { bank_prob_log2: vec![0, 5], ..Default::default() };
        let t = Trace::build(&TrafficSpec {
            source: Source::Synthetic { packets: 100_000, rate_pps: 5e6, flows: 500 },
            delay: DelayDist::PAPER_WEIBULL,
            loss_rate: 0.0,
            loss_model: LossModel::Uniform,
            seed: 4,
        })
        .unwrap();
        let o = outcome(&golden_pair(&cfg, &t), t.truth()).unwrap();
        assert_eq!(o.estimates.samples, 100_000);
        assert_eq!(o.estimates.mean, o.truth.mean);
        assert_eq!(o.estimates.loss, 0.0);
    }
}
