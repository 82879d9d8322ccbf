//! Statistics helpers the estimators and reports share: quantiles of a
//! sample (the two rank conventions the reports use), and relative errors
//! of an estimate against its ground truth.

/// The q-quantile of `s` by nearest rank: the ⌈q·n⌉-th smallest (`s` need not
/// be sorted; q in (0, 1]; 0 for an empty sample). The DBM/EXPB paper's
/// 95th percentile of a bandwidth series (Uyeda et al. §3).
pub fn quantile(s: &[f64], q: f64) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut v = s.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// The q-quantile of the sorted sample `v` at the rounded index q·(n − 1)
/// (q in [0, 1]; `v` not empty): the per-packet error percentiles of the
/// SVBF reports.
pub fn quantile_sorted_rounded(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// |estimate − truth| / |truth|: 0 when both are 0, infinite when only the
/// truth is (so no report ever shows a NaN for an exact zero).
pub fn rel_error(estimate: f64, truth: f64) -> f64 {
    if truth == 0.0 {
        if estimate == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        (estimate - truth).abs() / truth.abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_follow_their_rank_conventions() {
        let s: Vec<f64> = (1..=100).rev().map(|v| v as f64).collect();
        assert_eq!(quantile(&s, 0.95), 95.0);
        assert_eq!(quantile(&s, 1.0), 100.0);
        assert_eq!(quantile(&s, 0.001), 1.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
        let sorted: Vec<f64> = (0..=10).map(|v| v as f64).collect();
        assert_eq!(quantile_sorted_rounded(&sorted, 0.5), 5.0);
        assert_eq!(quantile_sorted_rounded(&sorted, 0.99), 10.0);
        assert_eq!(quantile_sorted_rounded(&sorted, 0.04), 0.0);
    }

    #[test]
    fn relative_errors_have_no_nan() {
        assert_eq!(rel_error(1.1, 1.0), 0.10000000000000009);
        assert_eq!(rel_error(-3.0, -2.0), 0.5);
        assert_eq!(rel_error(0.0, 0.0), 0.0);
        assert_eq!(rel_error(1.0, 0.0), f64::INFINITY);
    }
}
