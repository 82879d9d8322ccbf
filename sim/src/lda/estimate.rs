//! Host estimators of the LDA (Kompella et al. §III-D mean, eq. (1) Hoeffding
//! bound, §III-E second moment and standard deviation by collapsing adjacent
//! rows, eq. (3)-(5)), combined across all banks.

use super::config::{LDA_COUNT_BITS, LDA_EPOCH_COUNT_BITS, LDA_TS_BITS};
use super::model::LdaSynopsis;
use serde::Serialize;

/// Why a sender/receiver pair of synopses cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairError {
    /// The two cores are configured differently.
    ConfigMismatch,
    /// The epochs differ (a lost control packet, §III: "the latency estimate for an interval is unusable").
    SequenceMismatch {
        /// Sender's epoch.
        sender: u32,
        /// Receiver's epoch.
        receiver: u32,
    },
    /// Row counts do not match the config.
    Malformed(String),
    /// A row count wrapped at one end.
    Overflow,
    /// The receiver counted more packets than the sender: the two are swapped,
    /// or come from different segments.
    MoreReceivedThanSent {
        /// Packets at the sender.
        sent: u64,
        /// Packets at the receiver.
        received: u64,
    },
}

impl std::fmt::Display for PairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairError::ConfigMismatch => {
                write!(f, "sender and receiver synopses come from differently configured cores")
            }
            PairError::SequenceMismatch { sender, receiver } => {
                write!(f, "sender epoch {sender} and receiver epoch {receiver} differ: the interval is unusable")
            }
            PairError::Malformed(m) => write!(f, "malformed synopsis: {m}"),
            PairError::Overflow => write!(f, "a row packet count overflowed: the interval is unusable"),
            PairError::MoreReceivedThanSent { sent, received } => write!(
                f,
                "the receiver counted {received} packets, more than the sender's {sent}: \
                 are sender and receiver swapped?"
            ),
        }
    }
}

impl std::error::Error for PairError {}

/// Per-bank figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BankFigures {
    /// Rows whose counts agree at both ends.
    pub usable_rows: usize,
    /// Packets in usable rows.
    pub samples: u64,
}

/// Estimates from one sender/receiver pair of synopses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LdaEstimate {
    /// Packets measured at the sender.
    pub sent: u64,
    /// Packets measured at the receiver.
    pub received: u64,
    /// Loss rate (sent − received) / sent.
    pub loss: f64,
    /// Usable rows over all banks (§III-D).
    pub usable_rows: usize,
    /// Effective sample size S (§III-D).
    pub samples: u64,
    /// Mean delay D = (T_B − T_A) / S, in ticks (§III-D); NaN when S = 0.
    pub mean: f64,
    /// Second moment F of eq. (5), ticks².
    pub second_moment: f64,
    /// Effective sample size of the collapsed estimator, S̃.
    pub collapsed_samples: u64,
    /// Standard deviation sqrt(F − D²), ticks (eq. (3)); NaN without usable rows.
    pub std: f64,
    /// Half-width of the 98 % Hoeffding interval of the mean, eq. (1), with σ
    /// replaced by its estimate: σ·sqrt(2 ln(2/0.02) / S).
    pub mean_bound_98: f64,
    /// Per bank.
    pub banks: Vec<BankFigures>,
}

/// `b − a` modulo 2^40, read as signed (exact while |b − a| < 2^39 ticks).
#[inline]
pub fn mod_diff(b: u64, a: u64) -> i64 {
    let m = 1u64 << LDA_TS_BITS;
    let d = b.wrapping_sub(a) & (m - 1);
    if d >= m / 2 { d as i64 - m as i64 } else { d as i64 }
}

/// Half-width ε·μ of eq. (1) at confidence 1 − δ: σ·sqrt(2 ln(2/δ) / S).
pub fn hoeffding_half_width(sigma: f64, samples: u64, delta: f64) -> f64 {
    if samples == 0 {
        return f64::INFINITY;
    }
    sigma * (2.0 * (2.0 / delta).ln() / samples as f64).sqrt()
}

/// Checks that every value of a synopsis fits the register it was read from:
/// row counts in 32 bits, timestamp sums in 40, epoch counters in 48, and no
/// more packets sampled than classified.
fn check_ranges(who: &str, s: &LdaSynopsis) -> Result<(), String> {
    let bits = |v: u64, w: u32| v >> w == 0;
    if !bits(s.packets, LDA_EPOCH_COUNT_BITS) || !bits(s.sampled, LDA_EPOCH_COUNT_BITS) {
        return Err(format!(
            "{who}'s packet counters {} / {} exceed {LDA_EPOCH_COUNT_BITS} bits",
            s.packets, s.sampled
        ));
    }
    if s.sampled > s.packets {
        return Err(format!("{who} sampled {} of {} packets", s.sampled, s.packets));
    }
    if let Some((i, (c, t))) =
        s.rows.iter().enumerate().find(|(_, (c, t))| !bits(*c, LDA_COUNT_BITS) || !bits(*t, LDA_TS_BITS))
    {
        return Err(format!(
            "{who}'s row {i} holds count {c} and timestamp sum {t}, wider than {LDA_COUNT_BITS} / {LDA_TS_BITS} bits"
        ));
    }
    let counted: u64 = s.rows.iter().map(|r| r.0).sum();
    if counted > s.sampled {
        return Err(format!("{who}'s rows count {counted} packets, more than the {} it sampled", s.sampled));
    }
    Ok(())
}

/// Checks that two synopses describe the same interval of the same segment.
pub fn check_pair(a: &LdaSynopsis, b: &LdaSynopsis) -> Result<(), PairError> {
    if !a.config.same_measurement(&b.config) {
        return Err(PairError::ConfigMismatch);
    }
    if a.seq != b.seq {
        return Err(PairError::SequenceMismatch { sender: a.seq, receiver: b.seq });
    }
    let n = a.config.banks * a.config.rows;
    for (who, s) in [("sender", a), ("receiver", b)] {
        if s.rows.len() != n {
            return Err(PairError::Malformed(format!("{who} has {} rows, config says {n}", s.rows.len())));
        }
    }
    for (who, s) in [("sender", a), ("receiver", b)] {
        check_ranges(who, s).map_err(PairError::Malformed)?;
    }
    if b.packets > a.packets {
        return Err(PairError::MoreReceivedThanSent { sent: a.packets, received: b.packets });
    }
    if a.config.rows % 2 != 0 {
        return Err(PairError::Malformed(format!("{} rows per bank cannot be collapsed in pairs", a.config.rows)));
    }
    if a.overflow || b.overflow {
        return Err(PairError::Overflow);
    }
    Ok(())
}

/// All estimates of §III-D/E from sender `a` and receiver `b`.
pub fn estimate(a: &LdaSynopsis, b: &LdaSynopsis) -> Result<LdaEstimate, PairError> {
    check_pair(a, b)?;
    let m = a.config.rows;
    let mut banks = Vec::with_capacity(a.config.banks);
    let (mut sum, mut samples, mut usable) = (0i128, 0u64, 0usize);
    let (mut sq, mut csamples) = (0f64, 0u64);
    for j in 0..a.config.banks {
        let ra = &a.rows[j * m..(j + 1) * m];
        let rb = &b.rows[j * m..(j + 1) * m];
        let mut bank = BankFigures { usable_rows: 0, samples: 0 };
        for (x, y) in ra.iter().zip(rb) {
            if x.0 == y.0 {
                bank.usable_rows += 1;
                bank.samples += x.0;
                sum += mod_diff(y.1, x.1) as i128;
            }
        }
        // §III-E: rows 2i and 2i+1 collapse, the low row-hash bit is the sign.
        for i in 0..m / 2 {
            let (x0, x1, y0, y1) = (ra[2 * i], ra[2 * i + 1], rb[2 * i], rb[2 * i + 1]);
            if x0.0 + x1.0 == y0.0 + y1.0 {
                let d = mod_diff(y1.1, x1.1) as f64 - mod_diff(y0.1, x0.1) as f64;
                sq += d * d;
                csamples += x0.0 + x1.0;
            }
        }
        usable += bank.usable_rows;
        samples += bank.samples;
        banks.push(bank);
    }
    let sent = a.packets;
    let received = b.packets;
    let mean = if samples > 0 { sum as f64 / samples as f64 } else { f64::NAN };
    let second_moment = if csamples > 0 { sq / csamples as f64 } else { f64::NAN };
    // NaN without a usable (collapsed) row: f64::max would turn it into 0.
    let std =
        if second_moment.is_nan() || mean.is_nan() { f64::NAN } else { (second_moment - mean * mean).max(0.0).sqrt() };
    Ok(LdaEstimate {
        sent,
        received,
        loss: if sent > 0 { (sent as f64 - received as f64) / sent as f64 } else { 0.0 },
        usable_rows: usable,
        samples,
        mean,
        second_moment,
        collapsed_samples: csamples,
        std,
        mean_bound_98: hoeffding_half_width(std, samples, 0.02),
        banks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lda::config::LdaConfig;

    fn syn(rows: &[(u64, u64)], seq: u32) -> LdaSynopsis {
        LdaSynopsis {
            config: LdaConfig { banks: 1, rows: rows.len(), bank_prob_log2: vec![0], ..Default::default() },
            seq,
            packets: rows.iter().map(|r| r.0).sum(),
            sampled: rows.iter().map(|r| r.0).sum(),
            overflow: false,
            rows: rows.to_vec(),
        }
    }

    /// Fig. 2: one bank of four rows, one packet lost in the second row.
    #[test]
    fn paper_figure_2() {
        let a = syn(&[(5, 120), (10, 234), (2, 15), (1, 6)], 4);
        let b = syn(&[(5, 180), (9, 348), (2, 37), (1, 14)], 4);
        let e = estimate(&a, &b).unwrap();
        assert_eq!(e.usable_rows, 3);
        assert_eq!(e.samples, 8);
        assert_eq!(e.mean, 11.25);
        assert_eq!((e.sent, e.received), (18, 17));
    }

    /// Values no core can have read out, and a swapped pair, are refused by name.
    #[test]
    fn impossible_synopses_and_swapped_ends_are_refused() {
        let a = syn(&[(5, 120), (10, 234), (2, 15), (1, 6)], 4);
        let b = syn(&[(5, 180), (9, 348), (2, 37), (1, 14)], 4);
        assert_eq!(estimate(&b, &a).unwrap_err(), PairError::MoreReceivedThanSent { sent: 17, received: 18 });
        let malformed = |s: &LdaSynopsis| match estimate(s, &b) {
            Err(PairError::Malformed(m)) => m,
            other => panic!("{other:?}"),
        };
        let mut wide = a.clone();
        wide.rows[1].0 = 1 << 32;
        assert!(malformed(&wide).contains("row 1 holds count 4294967296"));
        let mut wide = a.clone();
        wide.rows[2].1 = 1 << 40;
        assert!(malformed(&wide).contains("row 2"));
        let mut wide = a.clone();
        wide.packets = 1 << 48;
        assert!(malformed(&wide).contains("exceed 48 bits"));
        let mut over = a.clone();
        over.sampled = over.packets + 1;
        assert!(malformed(&over).contains("sampled 19 of 18"));
        let mut over = a.clone();
        over.sampled -= 1;
        assert!(malformed(&over).contains("rows count 18 packets, more than the 17"));
    }

    #[test]
    fn modular_sums_wrap_correctly() {
        let m = 1u64 << 40;
        assert_eq!(mod_diff(5, m - 3), 8);
        assert_eq!(mod_diff(m - 3, 5), -8);
        let a = syn(&[(2, m - 10), (1, 7)], 0);
        let b = syn(&[(2, 30), (1, 9)], 0);
        let e = estimate(&a, &b).unwrap();
        assert_eq!(e.mean, 42.0 / 3.0);
    }

    #[test]
    fn collapsed_second_moment_is_exact_for_one_packet_per_row() {
        // One packet per row: (T̃_B − T̃_A)² = (w1 − w0)², summed over pairs / S̃.
        let a = syn(&[(1, 100), (1, 200), (1, 300), (1, 400)], 0);
        let b = syn(&[(1, 103), (1, 205), (1, 302), (1, 410)], 0);
        let e = estimate(&a, &b).unwrap();
        assert_eq!(e.second_moment, ((5.0 - 3.0f64).powi(2) + (10.0 - 2.0f64).powi(2)) / 4.0);
    }

    #[test]
    fn without_usable_rows_the_estimates_are_undefined_not_zero() {
        let a = syn(&[(2, 10), (1, 20)], 0);
        let b = syn(&[(1, 12), (0, 0)], 0);
        let e = estimate(&a, &b).unwrap();
        assert_eq!((e.samples, e.collapsed_samples), (0, 0));
        assert!(e.mean.is_nan() && e.second_moment.is_nan() && e.std.is_nan());
        assert_eq!(e.mean_bound_98, f64::INFINITY);
    }

    #[test]
    fn mismatched_pairs_are_refused() {
        let a = syn(&[(1, 1), (1, 1)], 3);
        assert_eq!(
            estimate(&a, &syn(&[(1, 2), (1, 2)], 4)).unwrap_err(),
            PairError::SequenceMismatch { sender: 3, receiver: 4 }
        );
        let mut c = syn(&[(1, 2), (1, 2)], 3);
        c.config.seed ^= 1;
        assert_eq!(estimate(&a, &c).unwrap_err(), PairError::ConfigMismatch);
        let mut d = syn(&[(1, 2), (1, 2)], 3);
        d.rows.pop();
        assert!(matches!(estimate(&a, &d).unwrap_err(), PairError::Malformed(_)));
        let mut o = syn(&[(1, 2), (1, 2)], 3);
        o.overflow = true;
        assert_eq!(estimate(&a, &o).unwrap_err(), PairError::Overflow);
    }
}
