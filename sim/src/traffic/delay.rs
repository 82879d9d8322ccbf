//! One-way delay distributions of the LDA evaluation (Kompella et al. §IV):
//! Weibull (Papagiannaki et al.'s backbone-router model, shape 0.6–0.8) and
//! Pareto (shape 3–5, bounded variance), drawn by inverse transform.

use crate::prng::SplitMix64;
use std::fmt;
use std::str::FromStr;

/// A delay distribution; scales are in microseconds (the paper's unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DelayDist {
    /// P(X ≤ x) = 1 − exp(−(x/α)^β) (§IV).
    Weibull {
        /// Scale α, µs.
        scale_us: f64,
        /// Shape β.
        shape: f64,
    },
    /// P(X ≤ x) = 1 − (x/α)^−β for x ≥ α (§IV).
    Pareto {
        /// Scale α (the minimum delay), µs.
        scale_us: f64,
        /// Shape β (> 2 for a finite variance).
        shape: f64,
    },
    /// Every packet has the same delay.
    Constant {
        /// The delay, µs.
        delay_us: f64,
    },
}

impl DelayDist {
    /// The paper's hardest case (Fig. 4(b)): Weibull α = 0.133 µs, β = 0.6 (mean 0.2 µs).
    pub const PAPER_WEIBULL: DelayDist = DelayDist::Weibull { scale_us: 0.133, shape: 0.6 };

    /// One delay, µs.
    #[inline]
    pub fn sample(&self, rng: &mut SplitMix64) -> f64 {
        match *self {
            DelayDist::Weibull { scale_us, shape } => scale_us * (-rng.unit_open().ln()).powf(1.0 / shape),
            DelayDist::Pareto { scale_us, shape } => scale_us * rng.unit_open().powf(-1.0 / shape),
            DelayDist::Constant { delay_us } => delay_us,
        }
    }

    /// The delay below which a fraction `p` (in (0, 1)) of delays lie, µs.
    pub fn quantile(&self, p: f64) -> f64 {
        match *self {
            DelayDist::Weibull { scale_us, shape } => scale_us * (-(1.0 - p).ln()).powf(1.0 / shape),
            DelayDist::Pareto { scale_us, shape } => scale_us * (1.0 - p).powf(-1.0 / shape),
            DelayDist::Constant { delay_us } => delay_us,
        }
    }

    /// The distribution's mean, µs.
    pub fn mean(&self) -> f64 {
        match *self {
            DelayDist::Weibull { scale_us, shape } => scale_us * gamma(1.0 + 1.0 / shape),
            DelayDist::Pareto { scale_us, shape } if shape > 1.0 => scale_us * shape / (shape - 1.0),
            DelayDist::Pareto { .. } => f64::INFINITY,
            DelayDist::Constant { delay_us } => delay_us,
        }
    }
}

/// Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error < 1e-13).
fn gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * gamma(1.0 - x));
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let a = G.iter().enumerate().skip(1).fold(G[0], |a, (i, g)| a + g / (x + i as f64));
    (2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
}

impl fmt::Display for DelayDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DelayDist::Weibull { scale_us, shape } => write!(f, "weibull:{scale_us}:{shape}"),
            DelayDist::Pareto { scale_us, shape } => write!(f, "pareto:{scale_us}:{shape}"),
            DelayDist::Constant { delay_us } => write!(f, "const:{delay_us}"),
        }
    }
}

impl FromStr for DelayDist {
    type Err = String;

    /// `weibull:SCALE:SHAPE`, `pareto:SCALE:SHAPE` or `const:DELAY` (µs).
    fn from_str(s: &str) -> Result<Self, String> {
        let usage = "expected weibull:SCALE_US:SHAPE, pareto:SCALE_US:SHAPE or const:DELAY_US";
        let parts: Vec<&str> = s.split(':').collect();
        let num = |t: &str, what: &str| -> Result<f64, String> {
            match t.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => Err(format!("delay `{s}`: {what} `{t}` is not a positive number ({usage})")),
            }
        };
        match parts.as_slice() {
            ["weibull", a, b] => Ok(DelayDist::Weibull { scale_us: num(a, "scale")?, shape: num(b, "shape")? }),
            ["pareto", a, b] => {
                let shape = num(b, "shape")?;
                if shape <= 2.0 {
                    return Err(format!("delay `{s}`: Pareto shape must be above 2 (finite variance; §IV uses 3–5)"));
                }
                Ok(DelayDist::Pareto { scale_us: num(a, "scale")?, shape })
            }
            ["const", d] => Ok(DelayDist::Constant { delay_us: num(d, "delay")? }),
            _ => Err(format!("delay `{s}`: {usage}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_matches_known_values() {
        assert!((gamma(5.0) - 24.0).abs() < 1e-10);
        assert!((gamma(0.5) - std::f64::consts::PI.sqrt()).abs() < 1e-12);
        assert!((gamma(1.0 + 1.0 / 0.6) - 1.504_575_488_251_556).abs() < 1e-9);
    }

    #[test]
    fn paper_weibull_has_mean_0_2_us() {
        assert!((DelayDist::PAPER_WEIBULL.mean() - 0.2).abs() < 0.001);
    }

    #[test]
    fn sample_means_match_the_distributions() {
        for d in [DelayDist::PAPER_WEIBULL, DelayDist::Pareto { scale_us: 0.15, shape: 4.0 }] {
            let mut rng = SplitMix64::new(9);
            let n = 2_000_000;
            let m = (0..n).map(|_| d.sample(&mut rng)).sum::<f64>() / n as f64;
            assert!((m / d.mean() - 1.0).abs() < 0.01, "{d}: sample mean {m} vs {}", d.mean());
        }
    }

    #[test]
    fn parses_and_rejects() {
        assert_eq!("weibull:0.133:0.6".parse::<DelayDist>().unwrap(), DelayDist::PAPER_WEIBULL);
        assert_eq!("const:2".parse::<DelayDist>().unwrap(), DelayDist::Constant { delay_us: 2.0 });
        for bad in ["weibull:0.1", "pareto:1:1.5", "normal:1:2", "weibull:-1:0.6", "weibull:x:0.6", "const:nan"] {
            assert!(bad.parse::<DelayDist>().is_err(), "{bad}");
        }
    }
}
