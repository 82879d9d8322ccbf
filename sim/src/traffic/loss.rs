//! Packet loss between sender and receiver (Kompella et al. §IV): uniform
//! loss, or exponentially distributed loss episodes of about 100 packets
//! (§IV-C, after Misra et al. and Sommers et al.).

use crate::prng::SplitMix64;
use std::str::FromStr;

/// How losses are placed in the stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel {
    /// Every packet is lost independently with the loss rate.
    Uniform,
    /// Episodes of consecutive losses: lengths and gaps are geometric (the
    /// discrete exponential); `mean_episode` packets per episode on average.
    Bursty {
        /// Mean episode length in packets (§IV-C: about 100).
        mean_episode: f64,
    },
}

impl FromStr for LossModel {
    type Err = String;

    /// `uniform` or `bursty` (episodes of 100 packets on average).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "uniform" => Ok(LossModel::Uniform),
            "bursty" => Ok(LossModel::Bursty { mean_episode: 100.0 }),
            _ => Err(format!("loss model `{s}`: expected uniform or bursty")),
        }
    }
}

/// Draws, packet by packet, whether it is lost. A two-state chain: outside an
/// episode a packet starts one with probability q; inside, the episode goes
/// on with probability 1 − 1/B. The long-run loss fraction is q·B / (1 + q·B),
/// so q = R / (B (1 − R)) gives loss rate R.
#[derive(Clone, Debug)]
pub struct LossProcess {
    /// Per-packet probability, scaled to 2^64, of starting an episode (or, uniform, of a loss).
    start: u64,
    /// Per-packet probability, scaled to 2^64, of an episode continuing.
    go_on: u64,
    in_episode: bool,
}

fn scaled(p: f64) -> u64 {
    if p >= 1.0 { u64::MAX } else { (p * 18_446_744_073_709_551_616.0) as u64 }
}

impl LossProcess {
    /// Loss rate `rate` in [0, 1) with `model`.
    pub fn new(rate: f64, model: LossModel) -> Result<Self, String> {
        if !(0.0..1.0).contains(&rate) {
            return Err(format!("loss rate {rate} is outside [0, 1)"));
        }
        Ok(match model {
            LossModel::Uniform => Self { start: scaled(rate), go_on: scaled(rate), in_episode: false },
            LossModel::Bursty { mean_episode } => {
                if !(mean_episode >= 1.0 && mean_episode.is_finite()) {
                    return Err(format!("mean loss episode {mean_episode} must be at least one packet"));
                }
                let q = rate / (mean_episode * (1.0 - rate));
                Self { start: scaled(q), go_on: scaled(1.0 - 1.0 / mean_episode), in_episode: false }
            }
        })
    }

    /// Whether the next packet is lost.
    #[inline]
    pub fn lost(&mut self, rng: &mut SplitMix64) -> bool {
        let u = rng.next_u64();
        self.in_episode = if self.in_episode { u < self.go_on } else { u < self.start };
        self.in_episode
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rate: f64, model: LossModel, n: usize) -> (f64, f64) {
        let mut p = LossProcess::new(rate, model).unwrap();
        let mut rng = SplitMix64::new(1);
        let (mut lost, mut episodes, mut prev) = (0usize, 0usize, false);
        for _ in 0..n {
            let l = p.lost(&mut rng);
            lost += l as usize;
            episodes += (l && !prev) as usize;
            prev = l;
        }
        (lost as f64 / n as f64, lost as f64 / episodes.max(1) as f64)
    }

    #[test]
    fn uniform_loss_has_the_rate_and_no_bursts() {
        let (r, burst) = run(0.05, LossModel::Uniform, 4_000_000);
        assert!((r - 0.05).abs() < 0.001, "{r}");
        assert!(burst < 1.1, "{burst}");
        assert_eq!(run(0.0, LossModel::Uniform, 100_000).0, 0.0);
    }

    #[test]
    fn bursty_loss_has_the_rate_and_100_packet_episodes() {
        let (r, burst) = run(0.02, LossModel::Bursty { mean_episode: 100.0 }, 20_000_000);
        assert!((r - 0.02).abs() < 0.002, "{r}");
        assert!((burst - 100.0).abs() < 8.0, "{burst}");
    }

    #[test]
    fn impossible_rates_are_refused() {
        assert!(LossProcess::new(1.0, LossModel::Uniform).is_err());
        assert!(LossProcess::new(-0.1, LossModel::Uniform).is_err());
        assert!(LossProcess::new(0.1, LossModel::Bursty { mean_episode: 0.5 }).is_err());
        assert!("gilbert".parse::<LossModel>().is_err());
    }
}
