//! Collision analysis and dimensioning of the latency store (MAPLE §3.4.2,
//! Table 2): false-positive probability of one group's locations,
//! classification-failure rates of SVBF (eq. 3), PBF (eq. 1) and COMB
//! (eq. 2), and the smallest h and largest load n/m for a target rate.

/// p(m, n, h) = (1 − (1 − 1/m)^{nh})^h: all h locations of one group set
/// after n background packets in one vector of m bits (§3.4.2).
pub fn p_fp(m: f64, n: f64, h: f64) -> f64 {
    (1.0 - (1.0 - 1.0 / m).powf(n * h)).powf(h)
}

/// The same probability when each hash function owns a partition of m / h
/// bits (the layout of this store): (1 − (1 − h/m)^n)^h.
pub fn p_fp_partitioned(m: f64, n: f64, h: f64) -> f64 {
    (1.0 - (1.0 - h / m).powf(n)).powf(h)
}

/// SVBF classification failure, eq. (3): 1 − (1 − p)^{k−1} for the
/// false-positive probability `p` of one window offset.
pub fn p_cf_svbf(p: f64, k: usize) -> f64 {
    // −expm1((k−1)·ln(1−p)): exact where 1 − (1 − p)^{k−1} would round to 0.
    -((k as f64 - 1.0) * (-p).ln_1p()).exp_m1()
}

/// PBF classification failure, eq. (1): groups of `m_i` bits holding `n_i` packets.
pub fn p_cf_pbf(m_i: &[f64], n_i: &[f64], h: f64) -> f64 {
    let n: f64 = n_i.iter().sum();
    let fp: Vec<f64> = m_i.iter().zip(n_i).map(|(&m, &ni)| p_fp(m, ni, h)).collect();
    1.0 - (0..fp.len())
        .map(|j| n_i[j] / n * (0..fp.len()).filter(|&i| i != j).map(|i| 1.0 - fp[i]).product::<f64>())
        .sum::<f64>()
}

/// COMB classification failure, eq. (2): θ bits of an f-bit code, h hashes per code bit.
pub fn p_cf_comb(m: f64, n: f64, h: f64, f: usize, theta: usize) -> f64 {
    1.0 - (1.0 - p_fp(m, theta as f64 * n, h)).powi((f - theta) as i32)
}

/// Lower bound on h for a target classification failure ε with k groups
/// (§3.4.2, Table 2): −log2(1 − (1 − ε)^{1/(k−1)}).
pub fn h_lower_bound(k: usize, eps: f64) -> f64 {
    // 1 − (1 − ε)^{1/(k−1)} as −expm1(ln(1−ε)/(k−1)): finite for any ε in (0, 1).
    -(-((-eps).ln_1p() / (k as f64 - 1.0)).exp_m1()).log2()
}

/// A dimensioning: hash functions and memory per stored packet.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Dimensioning {
    /// Delay centers k.
    pub centers: usize,
    /// Target classification failure ε.
    pub target: f64,
    /// Real-valued lower bound on h.
    pub h_bound: f64,
    /// Hash functions to use: ⌈h_bound⌉.
    pub hashes: usize,
    /// Bits per packet at the optimum load for that h: h / ln 2 (m/n ≥ this).
    pub bits_per_packet: f64,
    /// The resulting failure rate at that load (eq. 3 with q = 2^{−h}).
    pub expected_failure: f64,
}

/// SVBF dimensioning for k centers and target ε (k in 2..=64, ε in (0, 1)).
pub fn dimension(k: usize, eps: f64) -> Result<Dimensioning, crate::ConfigError> {
    if !(2..=super::SVBF_MAX_CENTERS).contains(&k) {
        return Err(crate::ConfigError::new("centers", format!("{k} is outside 2..={}", super::SVBF_MAX_CENTERS)));
    }
    if !(eps > 0.0 && eps < 1.0) {
        return Err(crate::ConfigError::new("target-failure", format!("{eps} is outside (0, 1)")));
    }
    let h_bound = h_lower_bound(k, eps);
    let hashes = h_bound.ceil().max(1.0) as usize;
    let most = *super::config::SVBF_HASHES.end();
    if hashes > most {
        return Err(crate::ConfigError::new(
            "target-failure",
            format!(
                "{eps} needs h ≥ {h_bound:.3} hash functions; the core has at most {most}, which reach {:.3e} with k = {k}",
                p_cf_svbf(0.5f64.powi(most as i32), k)
            ),
        ));
    }
    Ok(Dimensioning {
        centers: k,
        target: eps,
        h_bound,
        hashes,
        bits_per_packet: hashes as f64 / std::f64::consts::LN_2,
        expected_failure: p_cf_svbf(0.5f64.powi(hashes as i32), k),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_1_svbf_row() {
        // Table 1: p_CF = 0.1, k = 50 → 9 hash functions and 12.8 bits/packet.
        let d = dimension(50, 0.1).unwrap();
        assert_eq!(d.hashes, 9);
        assert!((d.bits_per_packet - 12.98).abs() < 0.01, "{}", d.bits_per_packet);
        assert!(d.expected_failure <= 0.1);
        // At the paper's 12.8 bits/packet eq. (3) gives just under 10 %.
        let p = p_cf_svbf(p_fp(12.8e6, 1e6, 9.0), 50);
        assert!((0.095..0.1).contains(&p), "{p}");
    }

    /// Tiny targets stay finite (no 1 − (1 − ε) rounding to 0) and are refused
    /// past the core's 16 hash functions.
    #[test]
    fn tiny_targets_are_exact_or_refused() {
        let d = dimension(50, 1e-3).unwrap();
        assert_eq!(d.hashes, 16);
        assert!(d.expected_failure > 0.0 && d.expected_failure <= 1e-3, "{d:?}");
        let h = h_lower_bound(50, 1e-300);
        assert!((1002.0..1002.5).contains(&h), "{h}");
        let e = dimension(50, 1e-300).unwrap_err();
        assert!(e.message.contains("needs h ≥ 1002.193") && e.message.contains("at most 16"), "{e}");
        // Where 1 − (1 − p)^49 rounds to 0, the failure rate is still ≈ 49 p.
        let p = p_cf_svbf(1e-20, 50);
        assert!((p / 49e-20 - 1.0).abs() < 1e-9, "{p}");
    }

    #[test]
    fn partitioning_costs_little_at_large_m() {
        let (m, n) = (1_179_648.0, 1_179_648.0 / 12.8);
        let a = p_fp(m, n, 9.0);
        let b = p_fp_partitioned(m, n, 9.0);
        assert!(b >= a && b / a < 1.001, "{a} {b}");
    }

    #[test]
    fn svbf_is_never_worse_than_pbf_at_equal_sizes() {
        // §3.4.2: with equal m_i, p_CF(SVBF) ≤ p_CF(PBF) for any {n_i}.
        let k = 10;
        let m = 100_000.0;
        let n_i: Vec<f64> = (0..k).map(|i| 100.0 * (i as f64 + 1.0).powi(2)).collect();
        let n: f64 = n_i.iter().sum();
        let pbf = p_cf_pbf(&vec![m / k as f64; k], &n_i, 7.0);
        let svbf = p_cf_svbf(p_fp(m, n, 7.0), k);
        assert!(svbf <= pbf, "{svbf} {pbf}");
    }

    #[test]
    fn bad_targets_are_refused() {
        assert_eq!(dimension(1, 0.1).unwrap_err().field, "centers");
        assert_eq!(dimension(50, 0.0).unwrap_err().field, "target-failure");
        assert_eq!(dimension(50, 1.5).unwrap_err().field, "target-failure");
        assert!(dimension(50, 1e-3).unwrap().hashes > dimension(50, 0.1).unwrap().hashes);
    }
}
