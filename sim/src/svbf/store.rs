//! Golden model of the packet latency store (MAPLE §3.3): delay-center
//! classifier, per-center count and latency sum (refined estimates, §3.3),
//! and the shared-vector Bloom filter (SVBF, §3.3.3) with its burst lookup
//! and tie-breaking (§3.3.4), answering Match / Multi-Match / No-Match (§4).
//!
//! Partitioned layout: hash function j owns partition j of 2^p bits, and an
//! insert of a packet in center i sets bit (h_j(s) + i) mod 2^p of every
//! partition j. The paper's single vector of m bits becomes h vectors of
//! m / h bits; the false-positive probability of one window offset becomes
//! (1 − (1 − h/m)^n)^h instead of (1 − (1 − 1/m)^{nh})^h (both tend to
//! (1 − e^{−nh/m})^h, eq. (3) of §3.4 is otherwise unchanged;
//! [`super::dimension`] has both forms).

use super::config::{SVBF_COUNT_BITS, SVBF_LATENCY_BITS, SVBF_SUM_BITS, SvbfConfig};
use crate::error::ConfigError;
use crate::h3::H3;

const COUNT_MASK: u64 = (1 << SVBF_COUNT_BITS) - 1;
const SUM_MASK: u64 = (1 << SVBF_SUM_BITS) - 1;

/// The delay centers of one epoch: values c_0 < … < c_{k−1} and the
/// classifier boundaries b_1 < … < b_{k−1}; a latency l belongs to center
/// i = #{b ≤ l} (the RTL counts the boundaries at or below the latency in
/// one clock). From values alone, b_i is the midpoint rounded up, so each
/// latency goes to its nearest center and a tie to the upper one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Centers {
    values: Vec<u32>,
    bounds: Vec<u32>,
}

impl Centers {
    /// Centers at `values` (strictly increasing, 2..=64 of them) with
    /// nearest-center boundaries.
    pub fn new(values: &[u32]) -> Result<Self, ConfigError> {
        if !(2..=super::SVBF_MAX_CENTERS).contains(&values.len()) {
            return Err(ConfigError::new(
                "centers",
                format!("{} centers, expected 2..={}", values.len(), super::SVBF_MAX_CENTERS),
            ));
        }
        if let Some(w) = values.windows(2).position(|w| w[0] >= w[1]) {
            return Err(ConfigError::new(
                "centers",
                format!("not increasing: center {} = {} ≥ center {} = {}", w, values[w], w + 1, values[w + 1]),
            ));
        }
        let bounds = values.windows(2).map(|w| ((w[0] as u64 + w[1] as u64 + 1) / 2) as u32).collect();
        Ok(Self { values: values.to_vec(), bounds })
    }

    /// Number of centers k.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Never true: there are at least two centers.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Center values.
    pub fn values(&self) -> &[u32] {
        &self.values
    }

    /// Classifier boundaries b_1..b_{k−1} (the values loaded into the RTL's boundary registers).
    pub fn bounds(&self) -> &[u32] {
        &self.bounds
    }

    /// Center index of a latency: the number of boundaries ≤ it.
    pub fn classify(&self, latency: u32) -> usize {
        self.bounds.partition_point(|&b| b <= latency)
    }
}

/// Kind of a lookup answer (§4: a 2-bit type tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum MatchKind {
    /// Exactly one window offset survived the AND.
    Match,
    /// Several offsets survived; the center with the largest count was chosen (§3.3.4 tie-breaking).
    MultiMatch,
    /// No offset survived: the packet was not stored in this epoch.
    NoMatch,
}

/// Answer to one packet query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Match, Multi-Match or No-Match.
    pub kind: MatchKind,
    /// The chosen center (0 for No-Match).
    pub center: usize,
    /// The AND of the h windows: bit i set = center i possible.
    pub candidates: u64,
    /// Refined latency of the chosen center: ⌊sum / count⌋ of its packets,
    /// or the center's value when it holds none (0 for No-Match).
    pub latency: u32,
}

/// Refined latency of center i from an epoch's per-center counts and sums
/// (§3.3): ⌊sum_i / count_i⌋, or c_i when the center is empty.
pub fn refined(i: usize, counts: &[u64], sums: &[u64], centers: &Centers) -> u32 {
    if counts[i] == 0 { centers.values[i] } else { (sums[i] / counts[i]) as u32 }
}

/// The answer to a lookup whose h windows ANDed to `candidates` (§4): No-Match
/// without candidates, Match for one, else Multi-Match with the tie broken by
/// the largest per-center count and the lower index among equal counts
/// (§3.3.4); the latency is the chosen center's refined estimate. The host
/// applies this to the RTL's candidates with the epoch's read-out counts.
pub fn answer(candidates: u64, counts: &[u64], sums: &[u64], centers: &Centers) -> Answer {
    let b = candidates;
    let (kind, center) = match b.count_ones() {
        0 => return Answer { kind: MatchKind::NoMatch, center: 0, candidates: 0, latency: 0 },
        1 => (MatchKind::Match, b.trailing_zeros() as usize),
        _ => {
            let mut best = b.trailing_zeros() as usize;
            let mut rest = b & (b - 1);
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                if counts[i] > counts[best] {
                    best = i;
                }
                rest &= rest - 1;
            }
            (MatchKind::MultiMatch, best)
        }
    };
    Answer { kind, center, candidates: b, latency: refined(center, counts, sums, centers) }
}

/// The answer a core's result port gives (§4): its kind, the center it
/// chose (§3.3.4), its candidates and the refined latency it computed; an
/// empty chosen center (`count` 0, possible only for a key the epoch never
/// stored) has no mean, and the host, which wrote the centers, gives the
/// center's value as [`refined`] does. Equals [`answer`] on the same epoch.
pub fn port_answer(kind: u8, center: u8, count: u32, latency: u32, candidates: u64, centers: &Centers) -> Answer {
    use super::cycle::{SVBF_KIND_MATCH, SVBF_KIND_MULTI};
    let (kind, latency) = match kind {
        SVBF_KIND_MATCH | SVBF_KIND_MULTI => {
            let k = if kind == SVBF_KIND_MATCH { MatchKind::Match } else { MatchKind::MultiMatch };
            (k, if count == 0 { centers.values[center as usize] } else { latency })
        }
        _ => (MatchKind::NoMatch, 0),
    };
    Answer { kind, center: center as usize, candidates, latency }
}

/// One epoch of the store: SVBF partitions, per-center counters, centers.
#[derive(Clone, Debug)]
pub struct SvbfStore {
    cfg: SvbfConfig,
    hashes: Vec<H3>,
    centers: Centers,
    /// Partition j as 64-bit words, bit b of the partition = bit b % 64 of word b / 64.
    parts: Vec<Vec<u64>>,
    counts: Vec<u64>,
    sums: Vec<u64>,
    ovf: bool,
}

impl SvbfStore {
    /// An empty store for `cfg` classifying by `centers` (their count must be `cfg.centers`).
    pub fn new(cfg: &SvbfConfig, centers: Centers) -> Result<Self, ConfigError> {
        cfg.validate()?;
        if centers.len() != cfg.centers {
            return Err(ConfigError::new(
                "centers",
                format!("{} center values for a store of k = {}", centers.len(), cfg.centers),
            ));
        }
        let words = (cfg.partition_bits() / 64).max(1);
        Ok(Self {
            hashes: (0..cfg.hashes).map(|j| cfg.hash(j)).collect(),
            parts: vec![vec![0; words]; cfg.hashes],
            counts: vec![0; cfg.centers],
            sums: vec![0; cfg.centers],
            ovf: false,
            cfg: cfg.clone(),
            centers,
        })
    }

    /// The config.
    pub fn config(&self) -> &SvbfConfig {
        &self.cfg
    }

    /// The centers of this epoch.
    pub fn centers(&self) -> &Centers {
        &self.centers
    }

    /// Position h_j(key) in partition j.
    pub fn base(&self, j: usize, key: u64) -> usize {
        self.hashes[j].hash(key as u128) as usize
    }

    /// Stores a packet: classifies its latency (clipped to 32 bits), sets bit
    /// (h_j(key) + i) mod 2^p in every partition j, counts it in center i.
    /// Returns the center index.
    pub fn insert(&mut self, key: u64, latency: u64) -> usize {
        let l = latency.min((1u64 << SVBF_LATENCY_BITS) - 1) as u32;
        let i = self.centers.classify(l);
        let pmask = self.cfg.partition_bits() - 1;
        for j in 0..self.cfg.hashes {
            let b = (self.base(j, key) + i) & pmask;
            self.parts[j][b / 64] |= 1 << (b % 64);
        }
        let c = (self.counts[i] + 1) & COUNT_MASK;
        self.ovf |= c == 0;
        self.counts[i] = c;
        self.sums[i] = (self.sums[i] + l as u64) & SUM_MASK;
        i
    }

    /// The k-bit window of partition j starting at bit `base` (wrapping at
    /// 2^p): bit i of the result is bit (base + i) mod 2^p. Read from two
    /// consecutive words, the burst read of §3.3.3 with ⌈k/w⌉ + 1 = 2 words of w = 64.
    pub fn window(&self, j: usize, base: usize) -> u64 {
        let part = &self.parts[j];
        let pbits = self.cfg.partition_bits();
        let k = self.cfg.centers;
        let kmask = if k == 64 { u64::MAX } else { (1 << k) - 1 };
        if pbits < 64 {
            // Whole partition in one word: rotate within it.
            let w = part[0] & ((1u64 << pbits) - 1);
            let mut out = 0u64;
            for i in 0..k {
                out |= ((w >> ((base + i) % pbits)) & 1) << i;
            }
            return out;
        }
        let q = base / 64;
        let r = base % 64;
        let lo = part[q];
        let hi = part[(q + 1) % part.len()];
        let win = if r == 0 { lo } else { (lo >> r) | (hi << (64 - r)) };
        win & kmask
    }

    /// Candidate centers of a key: the AND of its h windows.
    pub fn candidates(&self, key: u64) -> u64 {
        (0..self.cfg.hashes).fold(u64::MAX, |acc, j| acc & self.window(j, self.base(j, key)))
    }

    /// Looks a packet up (§3.3.3) and breaks ties by the largest per-center
    /// count, the lower index among equal counts (§3.3.4).
    pub fn lookup(&self, key: u64) -> Answer {
        answer(self.candidates(key), &self.counts, &self.sums, &self.centers)
    }

    /// Refined latency of center i (§3.3): ⌊sum_i / count_i⌋, or c_i when empty.
    pub fn refined(&self, i: usize) -> u32 {
        refined(i, &self.counts, &self.sums, &self.centers)
    }

    /// Packets counted per center (mod 2^32).
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Latency sum per center (mod 2^48).
    pub fn sums(&self) -> &[u64] {
        &self.sums
    }

    /// A per-center count wrapped.
    pub fn overflowed(&self) -> bool {
        self.ovf
    }

    /// Fraction of set bits over all partitions.
    pub fn fill(&self) -> f64 {
        let set: u64 = self.parts.iter().flatten().map(|w| w.count_ones() as u64).sum();
        set as f64 / self.cfg.total_bits() as f64
    }

    /// Partition j's words (bit b at word b / 64, bit b % 64).
    pub fn partition(&self, j: usize) -> &[u64] {
        &self.parts[j]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    fn cfg(p: u32, k: usize) -> SvbfConfig {
        SvbfConfig { partition_log2: p, centers: k, ..Default::default() }
    }

    fn even_centers(k: usize) -> Centers {
        Centers::new(&(0..k as u32).map(|i| 100 + 1000 * i).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn classifier_counts_boundaries_at_or_below() {
        let c = Centers::new(&[10, 20, 40]).unwrap();
        assert_eq!(c.bounds(), &[15, 30]);
        let got: Vec<usize> = [0, 14, 15, 29, 30, 1000].iter().map(|&l| c.classify(l)).collect();
        assert_eq!(got, [0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn centers_must_increase_and_fit_the_window() {
        assert_eq!(Centers::new(&[5, 5]).unwrap_err().field, "centers");
        assert!(Centers::new(&[9, 3, 4]).unwrap_err().message.contains("not increasing"));
        assert!(Centers::new(&[1]).is_err());
        assert!(Centers::new(&(0..65).collect::<Vec<_>>()).is_err());
        let s = SvbfStore::new(&cfg(10, 8), even_centers(7));
        assert_eq!(s.unwrap_err().field, "centers");
    }

    #[test]
    fn window_wraps_around_the_partition() {
        let mut s = SvbfStore::new(&cfg(8, 8), even_centers(8)).unwrap();
        s.parts[0][3] = 1 << 63; // bit 255, the last of the partition
        s.parts[0][0] = 0b101; // bits 0 and 2
        assert_eq!(s.window(0, 255), 0b1011);
        assert_eq!(s.window(0, 254), 0b10110);
        assert_eq!(s.window(0, 0), 0b101);
    }

    #[test]
    fn an_inserted_packet_always_finds_its_center() {
        let mut s = SvbfStore::new(&cfg(12, 50), even_centers(50)).unwrap();
        let mut rng = SplitMix64::new(3);
        let pkts: Vec<(u64, u64)> = (0..3000).map(|_| (rng.next_u64(), rng.below(60_000))).collect();
        let cls: Vec<usize> = pkts.iter().map(|&(k, l)| s.insert(k, l)).collect();
        for (&(k, _), &i) in pkts.iter().zip(&cls) {
            let a = s.lookup(k);
            assert_ne!(a.kind, MatchKind::NoMatch);
            assert!(a.candidates >> i & 1 == 1, "no false negatives");
        }
        assert_eq!(s.counts().iter().sum::<u64>(), 3000);
    }

    #[test]
    fn refined_estimate_is_the_mean_of_the_center() {
        let mut s = SvbfStore::new(&cfg(12, 4), Centers::new(&[10, 100, 1000, 10000]).unwrap()).unwrap();
        s.insert(1, 90);
        s.insert(2, 120);
        s.insert(3, 101);
        let a = s.lookup(2);
        assert_eq!(a.center, 1);
        assert_eq!(a.latency, (90 + 120 + 101) / 3);
        assert_eq!(s.refined(3), 10000, "an empty center answers its value");
    }

    #[test]
    fn ties_go_to_the_largest_count_then_the_lower_index() {
        let mut s = SvbfStore::new(&cfg(10, 4), Centers::new(&[10, 100, 1000, 10000]).unwrap()).unwrap();
        for k in 0..5 {
            s.insert(1000 + k, 1000);
        }
        s.insert(7, 10);
        // Force key 7's windows to also admit centers 2 and 3.
        for j in 0..s.cfg.hashes {
            for i in [2, 3] {
                let b = (s.base(j, 7) + i) & 1023;
                s.parts[j][b / 64] |= 1 << (b % 64);
            }
        }
        let a = s.lookup(7);
        assert_eq!((a.kind, a.center, a.candidates), (MatchKind::MultiMatch, 2, 0b1101));
        s.counts[3] = 5;
        assert_eq!(s.lookup(7).center, 2, "equal counts: lower index");
        s.counts[0] = 9;
        assert_eq!(s.lookup(7).center, 0);
    }

    #[test]
    fn an_unknown_key_in_an_empty_store_is_no_match() {
        let s = SvbfStore::new(&cfg(10, 8), even_centers(8)).unwrap();
        assert_eq!(s.lookup(42).kind, MatchKind::NoMatch);
    }
}

#[cfg(test)]
mod failure_rate {
    use super::*;
    use crate::prng::SplitMix64;
    use crate::svbf::dimension::{p_cf_svbf, p_fp_partitioned};

    /// Classification failure of stored packets matches eq. (3) (with the
    /// partitioned false-positive probability) at the paper's 12.8 bits per
    /// packet, k = 50, h = 9.
    #[test]
    fn classification_failure_follows_eq_3() {
        let cfg = SvbfConfig { hashes: 9, partition_log2: 16, centers: 50, seed: 11 };
        let m = cfg.total_bits() as f64;
        let n = (m / 12.8) as usize;
        let centers = Centers::new(&(0..50u32).map(|i| 1 + 20 * i).collect::<Vec<_>>()).unwrap();
        let mut s = SvbfStore::new(&cfg, centers).unwrap();
        let mut rng = SplitMix64::new(5);
        let keys: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        for &k in &keys {
            s.insert(k, rng.below(1000));
        }
        let failed = keys.iter().filter(|&&k| s.lookup(k).candidates.count_ones() > 1).count();
        let rate = failed as f64 / n as f64;
        let want = p_cf_svbf(p_fp_partitioned(m, n as f64, 9.0), 50);
        let sd = (want * (1.0 - want) / n as f64).sqrt();
        assert!((rate - want).abs() < 5.0 * sd, "measured {rate}, eq. (3) {want} ± {sd}");
        // Unknown keys: a No-Match unless all h windows share a bit.
        let stray = (0..n).filter(|_| s.lookup(rng.next_u64()).kind != MatchKind::NoMatch).count();
        let want_stray = 1.0 - (1.0 - p_fp_partitioned(m, n as f64, 9.0)).powi(50);
        assert!((stray as f64 / n as f64 - want_stray).abs() < 5.0 * (want_stray / n as f64).sqrt() + 1e-4);
    }
}
