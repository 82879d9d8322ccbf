//! The survivorship-bias correction of a fridge sample (§3.2.1, eq. 3.1):
//! 1/q = p^-1 (1 - p/M)^-x, exactly on the host and quantized in the fabric.
//!
//! In the fabric (§6.2 maps x to factors "starting from 1/p with 1.1x
//! increment" by prefix match) the core works in the log domain, where the
//! factor is linear in x: log2(1/q) = log2(1/p) + x·c with c = -log2(1 - p/M).
//! One 32 × 18 multiply gives x·c, the sum is rounded to 1/8 of an octave
//! (steps of 2^(1/8) = 1.0905, the paper's 1.1×), and a constant 8-entry
//! mantissa table turns it back into a factor. The per-fridge "table
//! generated from (p_k, M_k)" is thus three registers (`CorrectionRegs`),
//! which the host rewrites whenever p changes.

/// Fractional bits of the log-domain factor.
pub const LOG_FRAC_BITS: u32 = 16;
/// Steps per octave of the quantized factor.
pub const STEPS_PER_OCTAVE: u32 = 8;
/// Largest exponent of a quantized factor: factors of 2^32 and above saturate (and are flagged).
pub const MAX_EXPONENT: u32 = 31;
/// Fractional bits of the histogram's Σ factor.
pub const WSUM_FRAC_BITS: u32 = 8;
/// Mantissa table: round(2^15 · 2^(j/8)), j = 0..7.
pub const MANTISSA: [u32; 8] = [32768, 35734, 38968, 42495, 46341, 50535, 55109, 60097];
/// Width of `CORR_PINV`.
pub const PINV_BITS: u32 = 22;
/// Width of `CORR_CM`.
pub const CM_BITS: u32 = 18;

/// Exact correction factor p^-1 (1 - p/M)^-x of a sample that survived x insertions (§3.2.1).
pub fn exact_factor(p: f64, m: usize, x: u64) -> f64 {
    (-(x as f64) * (-(p / m as f64)).ln_1p() - p.ln()).exp()
}

/// A fridge's correction registers: log2(1/p) and c = -log2(1 - p/M) in fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorrectionRegs {
    /// round(log2(1/p) · 2^16).
    pub pinv: u32,
    /// Mantissa of c, in [2^17, 2^18).
    pub cm: u32,
    /// x·c · 2^16 = (x · cm) >> sh.
    pub sh: u32,
}

impl CorrectionRegs {
    /// The registers for entry probability `p` (0 < p ≤ 1) and `m` ≥ 2 entries.
    pub fn new(p: f64, m: usize) -> Self {
        let pinv = ((-p.log2()) * (1u64 << LOG_FRAC_BITS) as f64).round() as u32;
        let c = -(-(p / m as f64)).ln_1p() / std::f64::consts::LN_2;
        // c · 2^e in [2^17, 2^18): e = 17 - floor(log2 c).
        let mut e = 17 - c.log2().floor() as i32;
        let mut cm = (c * (e as f64).exp2()).round() as u64;
        if cm >= 1 << CM_BITS {
            cm >>= 1;
            e -= 1;
        }
        assert!(e >= LOG_FRAC_BITS as i32, "p/M ≤ 1/2 keeps c ≤ 1");
        Self { pinv: pinv.min((1 << PINV_BITS) - 1), cm: cm as u32, sh: (e - LOG_FRAC_BITS as i32) as u32 }
    }

    /// The quantized log2 factor of a sample with x survived insertions, in
    /// 1/8 octaves (q = 8·e + j), and whether it saturated at 2^32.
    #[inline]
    pub fn quantize(&self, x: u32) -> (u32, bool) {
        quantize(self.pinv, self.cm, self.sh, x)
    }
}

/// The fabric's quantizer on raw register values (registers may hold any value).
#[inline]
pub fn quantize(pinv: u32, cm: u32, sh: u32, x: u32) -> (u32, bool) {
    let prod = x as u64 * (cm & ((1 << CM_BITS) - 1)) as u64;
    let lx = prod >> (sh & 63);
    let l = (pinv & ((1 << PINV_BITS) - 1)) as u64 + lx;
    let q = (l + (1 << (LOG_FRAC_BITS - 4))) >> (LOG_FRAC_BITS - 3);
    let max = ((MAX_EXPONENT + 1) * STEPS_PER_OCTAVE - 1) as u64;
    if q > max { (max as u32, true) } else { (q as u32, false) }
}

/// The factor of quantized q in 8 fractional bits: 2^(q/8) · 2^8.
#[inline]
pub fn weight_q8(q: u32) -> u64 {
    ((MANTISSA[(q & 7) as usize] as u64) << (q >> 3)) >> (15 - WSUM_FRAC_BITS)
}

/// The squared factor of quantized q, integer part: 2^(2q/8).
#[inline]
pub fn weight_sq(q: u32) -> u64 {
    let q2 = 2 * q;
    (((MANTISSA[(q2 & 7) as usize] as u128) << (q2 >> 3)) >> 15) as u64
}

/// The factor a quantized q stands for.
pub fn quantized_factor(q: u32) -> f64 {
    (q as f64 / STEPS_PER_OCTAVE as f64).exp2()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mantissa_table_is_two_to_the_eighths() {
        for (j, &m) in MANTISSA.iter().enumerate() {
            assert_eq!(m, (32768.0 * (j as f64 / 8.0).exp2()).round() as u32);
        }
    }

    #[test]
    fn exact_factor_matches_the_formula() {
        let (p, m) = (2f64.powi(-9), 2048);
        assert!((exact_factor(p, m, 0) - 512.0).abs() < 1e-9);
        let x = 1_000_000u64;
        let want = (1.0 / p) * (1.0 - p / m as f64).powf(-(x as f64));
        assert!((exact_factor(p, m, x) / want - 1.0).abs() < 1e-12);
    }

    #[test]
    fn quantized_factor_is_within_half_a_step_of_the_exact_one() {
        for (p, m) in
            [(2f64.powi(-9), 2048usize), (0.5, 2), (2f64.powf(-10.4), 1024), (1.0, 65536), (2f64.powi(-20), 4)]
        {
            let regs = CorrectionRegs::new(p, m);
            assert!((1 << 17..1 << 18).contains(&regs.cm), "{regs:?}");
            let life = m as f64 / p;
            for x in [0.0, 0.3, 1.0, 2.0, 5.0, 10.0].map(|f| (f * life).min(u32::MAX as f64) as u32) {
                let exact = exact_factor(p, m, x as u64);
                let (q, sat) = regs.quantize(x);
                if exact >= 2f64.powi(32) {
                    assert!(sat);
                    continue;
                }
                assert!(!sat, "{p} {m} {x}");
                let err = (quantized_factor(q) / exact).log2().abs();
                assert!(err <= 1.0 / 16.0 + 1e-4, "{p} {m} {x}: q {q} exact {exact} err {err}");
                // The histogram's fixed point truncates: Q.8 for the factor, integer for its square.
                let (f, w) = (quantized_factor(q), weight_q8(q) as f64 / 256.0);
                assert!(w <= f * (1.0 + 1e-4) && f - w < 1.0 / 256.0 + f * 1e-4, "{w} vs {f}");
                let w2 = weight_sq(q) as f64;
                assert!(w2 <= f * f * (1.0 + 1e-4) && f * f - w2 < 1.0 + f * f * 1e-4, "{w2} vs {}", f * f);
            }
        }
    }

    #[test]
    fn saturation_is_flagged() {
        let regs = CorrectionRegs::new(2f64.powi(-20), 2);
        assert_eq!(regs.quantize(u32::MAX), (255, true));
        assert_eq!(quantize(u32::MAX, u32::MAX, 0, u32::MAX), (255, true));
        assert_eq!(weight_q8(255), (60097u64 << 31) >> 7);
        assert!(weight_sq(255) > 1 << 62);
    }
}
