//! Host side of the RDA (Fu et al. §V-B..C): the subtraction RDA, the
//! pure-bucket test and peeling decode of Algorithm 1, repair of the
//! timestamp sums (or exclusion of the buckets that held a decoded packet),
//! the mean over the usable buckets of all banks, and the standard deviation
//! by selective collapse (Algorithm 2) and Algorithm 3.

use super::config::{RDA_COUNT_BITS, RDA_EPOCH_COUNT_BITS, RdaHashes};
use super::model::{RdaRecord, RdaSynopsis};
use serde::Serialize;
use std::collections::HashMap;

/// Where a packet ID lands: one bucket per bank, as global (bank-major) indices.
pub trait BucketMap {
    /// Banks k.
    fn banks(&self) -> usize;
    /// Buckets over all banks.
    fn cells(&self) -> usize;
    /// The global index of `id`'s bucket in bank `l`; `None` if `id` maps nowhere (test maps only).
    fn cell(&self, l: usize, id: u64) -> Option<usize>;
}

/// The bucket map of an RDA core: bucket h_l(id) of bank l is cell `l·m + h_l(id)`.
impl BucketMap for RdaHashes {
    fn banks(&self) -> usize {
        self.buckets.len()
    }

    fn cells(&self) -> usize {
        self.buckets.iter().map(|h| h.buckets as usize).sum()
    }

    #[inline]
    fn cell(&self, l: usize, id: u64) -> Option<usize> {
        let h = &self.buckets[l];
        Some(l * h.buckets as usize + h.bucket(id) as usize)
    }
}

/// One bucket of the subtraction RDA I_B − I_A (§V-B (i)): receiver minus sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffCell {
    /// ID_B ⊕ ID_A: the XOR of the IDs in the set difference.
    pub id: u64,
    /// Δ_B − Δ_A: reordered minus lost packets in the bucket.
    pub delta: i64,
}

impl DiffCell {
    /// The bucket holds no difference.
    pub fn is_empty(&self) -> bool {
        self.id == 0 && self.delta == 0
    }
}

/// The subtraction RDA of a sender/receiver pair of bucket arrays.
pub fn subtract(sender: &[RdaRecord], receiver: &[RdaRecord]) -> Vec<DiffCell> {
    sender
        .iter()
        .zip(receiver)
        .map(|(a, b)| DiffCell { id: a.id ^ b.id, delta: b.count as i64 - a.count as i64 })
        .collect()
}

/// What the peeling decode found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Decoded {
    /// IDs only the sender saw (Δ = −1): lost, or sent late in the interval and received in the next.
    pub lost: Vec<u64>,
    /// IDs only the receiver saw (Δ = +1): sent in an earlier interval.
    pub reordered: Vec<u64>,
    /// Every bucket of the subtraction RDA is empty after peeling: the lists are the whole set difference.
    pub complete: bool,
    /// Buckets that still hold undecoded differences.
    pub residual_buckets: usize,
}

#[inline]
fn is_pure(map: &dyn BucketMap, cells: &[DiffCell], c: usize) -> bool {
    let x = cells[c];
    x.delta.abs() == 1 && (0..map.banks()).any(|l| map.cell(l, x.id) == Some(c))
}

/// Algorithm 1: lists the lost and reordered packets of a subtraction RDA,
/// peeling pure buckets (|Δ| = 1 and h_l(ID) = the bucket) until none is
/// left. `cells` is left holding what could not be decoded.
///
/// When the result is `complete`, the lists are the set difference (up to
/// the hash's false-purity rate, about 1/m per odd mixture, and with k ≥ 2
/// a wrongly peeled ID leaves residue in other banks, so it shows up as an
/// incomplete decode). An incomplete decode is a failure: its lists are partial.
pub fn peel(map: &dyn BucketMap, cells: &mut [DiffCell]) -> Decoded {
    let mut out = Decoded::default();
    let mut stack: Vec<usize> = (0..cells.len()).filter(|&c| is_pure(map, cells, c)).collect();
    // A genuine packet is decoded once; a second time means a falsely pure
    // bucket started a chain of bogus IDs: stop and report failure.
    let mut seen = std::collections::HashSet::new();
    let mut bogus = false;
    while let Some(c) = stack.pop() {
        // The bucket may have changed since it was pushed (Alg. 1 line 9).
        if !is_pure(map, cells, c) {
            continue;
        }
        let DiffCell { id, delta } = cells[c];
        if !seen.insert(id) {
            bogus = true;
            break;
        }
        if delta == 1 {
            out.reordered.push(id)
        } else {
            out.lost.push(id)
        }
        for l in 0..map.banks() {
            if let Some(q) = map.cell(l, id) {
                cells[q].id ^= id;
                cells[q].delta -= delta;
                if is_pure(map, cells, q) {
                    stack.push(q);
                }
            }
        }
    }
    out.residual_buckets = cells.iter().filter(|x| !x.is_empty()).count();
    out.complete = out.residual_buckets == 0 && !bogus;
    out
}

/// Per-packet timestamps of decoded packets, when the host has them (e.g.
/// from the captures that fed the two cores): sender time of lost packets,
/// receiver time of reordered ones.
pub trait Timestamps {
    /// The sender's timestamp of `id`.
    fn sent(&self, id: u64) -> Option<u64>;
    /// The receiver's timestamp of `id`.
    fn received(&self, id: u64) -> Option<u64>;
}

/// Per-packet timestamps by ID at both ends, as the two captures hold them.
#[derive(Clone, Debug, Default)]
pub struct CaptureTimestamps {
    /// Sender timestamps.
    pub sent: HashMap<u64, u64>,
    /// Receiver timestamps.
    pub received: HashMap<u64, u64>,
}

impl Timestamps for CaptureTimestamps {
    fn sent(&self, id: u64) -> Option<u64> {
        self.sent.get(&id).copied()
    }
    fn received(&self, id: u64) -> Option<u64> {
        self.received.get(&id).copied()
    }
}

/// How the decoded packets were taken out of the latency sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairMode {
    /// Their timestamps were subtracted from the buckets (§VIII-A "deletes the timestamps").
    Repaired,
    /// Every bucket that held one was left out.
    Excluded,
}

/// Per-bank figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RdaBankFigures {
    /// Buckets free of differences after decoding (and repair).
    pub usable_buckets: usize,
    /// Packets in them.
    pub samples: u64,
}

/// Why a pair of synopses cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RdaPairError {
    /// The two cores are configured differently.
    ConfigMismatch,
    /// The synopses belong to different intervals.
    IntervalMismatch {
        /// Sender's interval.
        sender: u32,
        /// Receiver's interval.
        receiver: u32,
    },
    /// Bucket counts do not match the config.
    Malformed(String),
    /// A bucket count wrapped at one end.
    Overflow,
}

impl std::fmt::Display for RdaPairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ConfigMismatch => write!(f, "sender and receiver synopses come from differently configured cores"),
            Self::IntervalMismatch { sender, receiver } => {
                write!(f, "sender interval {sender} and receiver interval {receiver} differ")
            }
            Self::Malformed(m) => write!(f, "malformed synopsis: {m}"),
            Self::Overflow => write!(f, "a bucket packet count overflowed: the interval is unusable"),
        }
    }
}

impl std::error::Error for RdaPairError {}

/// Estimates from one sender/receiver pair of synopses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RdaEstimate {
    /// The interval.
    pub interval: u32,
    /// Packets measured at the sender.
    pub sent: u64,
    /// Packets measured at the receiver.
    pub received: u64,
    /// The peeling decode.
    pub decode: Decoded,
    /// How decoded packets left the sums (`Repaired` only if every timestamp was known).
    pub repair: RepairMode,
    /// Decoded packets whose timestamp was missing (their buckets were excluded).
    pub missing_timestamps: usize,
    /// Usable buckets over all banks.
    pub usable_buckets: usize,
    /// Σ count over usable buckets (a packet counts once per bank in which its bucket is usable).
    pub samples: u64,
    /// Mean delay over the usable buckets of all banks, ticks; NaN without any.
    pub mean: f64,
    /// Σ (collapsed difference)² / Σ collapsed count (Algorithm 3), ticks².
    pub second_moment: f64,
    /// Packets in collapsed pairs.
    pub collapsed_samples: u64,
    /// Standard deviation sqrt(second moment − mean²), ticks; NaN without a collapsed pair.
    pub std: f64,
    /// Per bank.
    pub banks: Vec<RdaBankFigures>,
}

/// `b − a` modulo 2^bits, read as signed.
#[inline]
pub fn mod_diff(b: u64, a: u64, bits: u32) -> i64 {
    if bits >= 64 {
        return b.wrapping_sub(a) as i64;
    }
    let m = 1u64 << bits;
    let d = b.wrapping_sub(a) & (m - 1);
    if d >= m / 2 { d as i64 - m as i64 } else { d as i64 }
}

/// Checks that two synopses describe the same interval of the same segment.
pub fn check_pair(a: &RdaSynopsis, b: &RdaSynopsis) -> Result<(), RdaPairError> {
    if !a.config.same_measurement(&b.config) {
        return Err(RdaPairError::ConfigMismatch);
    }
    if a.interval != b.interval {
        return Err(RdaPairError::IntervalMismatch { sender: a.interval, receiver: b.interval });
    }
    let n = a.config.banks * a.config.buckets;
    for (who, s) in [("sender", a), ("receiver", b)] {
        if s.buckets.len() != n {
            return Err(RdaPairError::Malformed(format!("{who} has {} buckets, config says {n}", s.buckets.len())));
        }
    }
    for (who, s) in [("sender", a), ("receiver", b)] {
        check_ranges(who, s).map_err(RdaPairError::Malformed)?;
    }
    if a.overflow || b.overflow {
        return Err(RdaPairError::Overflow);
    }
    Ok(())
}

/// Checks that every value of a synopsis fits the register it was read from:
/// bucket counts in 32 bits, timestamp sums in the config's width, interval
/// counters in 48 bits, no more packets sampled than seen, and no bank
/// counting more packets than were sampled.
fn check_ranges(who: &str, s: &RdaSynopsis) -> Result<(), String> {
    let fits = |v: u64, w: u32| w >= 64 || v >> w == 0;
    if !fits(s.packets, RDA_EPOCH_COUNT_BITS) || !fits(s.sampled, RDA_EPOCH_COUNT_BITS) {
        return Err(format!(
            "{who}'s packet counters {} / {} exceed {RDA_EPOCH_COUNT_BITS} bits",
            s.packets, s.sampled
        ));
    }
    if s.sampled > s.packets {
        return Err(format!("{who} sampled {} of {} packets", s.sampled, s.packets));
    }
    let tsum_bits = s.config.tsum_bits as u32;
    let wide = |r: &RdaRecord| !fits(r.count, RDA_COUNT_BITS) || !fits(r.tsum, tsum_bits);
    if let Some((i, r)) = s.buckets.iter().enumerate().find(|(_, r)| wide(r)) {
        return Err(format!(
            "{who}'s bucket {i} holds count {} and timestamp sum {}, wider than {RDA_COUNT_BITS} / {tsum_bits} bits",
            r.count, r.tsum
        ));
    }
    for l in 0..s.config.banks {
        let counted: u64 = s.bank(l).iter().map(|r| r.count).sum();
        if counted > s.sampled {
            return Err(format!("{who}'s bank {l} counts {counted} packets, more than the {} it sampled", s.sampled));
        }
    }
    Ok(())
}

/// Decodes, repairs and estimates one interval from sender `a` and receiver `b`.
pub fn reconcile(
    a: &RdaSynopsis,
    b: &RdaSynopsis,
    hashes: &RdaHashes,
    ts: Option<&dyn Timestamps>,
) -> Result<RdaEstimate, RdaPairError> {
    check_pair(a, b)?;
    let m = a.config.buckets;
    let banks: Vec<(usize, usize)> = (0..a.config.banks).map(|l| (l * m, (l + 1) * m)).collect();
    let mut e = reconcile_cells(&a.buckets, &b.buckets, &banks, hashes, a.config.tsum_bits as u32, ts);
    e.interval = a.interval;
    e.sent = a.packets;
    e.received = b.packets;
    Ok(e)
}

/// [`reconcile`] on raw bucket arrays: `banks` are the [start, end) cell ranges
/// of each bank (Algorithm 2 collapses within a bank), `tsum_bits` the sum width.
pub fn reconcile_cells(
    sender: &[RdaRecord],
    receiver: &[RdaRecord],
    banks: &[(usize, usize)],
    map: &dyn BucketMap,
    tsum_bits: u32,
    ts: Option<&dyn Timestamps>,
) -> RdaEstimate {
    let mut cells = subtract(sender, receiver);
    let decode = peel(map, &mut cells);
    let mut usable: Vec<bool> = cells.iter().map(DiffCell::is_empty).collect();
    let (mut s, mut r) = (sender.to_vec(), receiver.to_vec());
    let tmask = if tsum_bits >= 64 { u64::MAX } else { (1u64 << tsum_bits) - 1 };
    let mut missing = 0;
    let mut take_out = |ids: &[u64], side: &mut Vec<RdaRecord>, lookup: Option<&dyn Fn(u64) -> Option<u64>>| {
        for &id in ids {
            let t = lookup.and_then(|f| f(id));
            if t.is_none() {
                missing += usize::from(lookup.is_some());
            }
            for l in 0..map.banks() {
                let Some(c) = map.cell(l, id) else { continue };
                match t {
                    Some(t) => {
                        let x = &mut side[c];
                        x.id ^= id;
                        x.count = x.count.wrapping_sub(1);
                        x.tsum = x.tsum.wrapping_sub(t) & tmask;
                    }
                    None => usable[c] = false,
                }
            }
        }
    };
    let sent_f = ts.map(|t| move |id| t.sent(id));
    let recv_f = ts.map(|t| move |id| t.received(id));
    take_out(&decode.lost, &mut s, sent_f.as_ref().map(|f| f as &dyn Fn(u64) -> Option<u64>));
    take_out(&decode.reordered, &mut r, recv_f.as_ref().map(|f| f as &dyn Fn(u64) -> Option<u64>));
    let repair = if ts.is_some() && missing == 0 { RepairMode::Repaired } else { RepairMode::Excluded };
    // A usable bucket now holds the same packets at both ends.
    for (c, u) in usable.iter_mut().enumerate() {
        *u = *u && s[c].count == r[c].count && s[c].id == r[c].id;
    }
    let (mut sum, mut samples, mut nusable) = (0i128, 0u64, 0usize);
    let (mut sq, mut csamples) = (0f64, 0u64);
    let mut figures = Vec::with_capacity(banks.len());
    for &(lo, hi) in banks {
        let mut f = RdaBankFigures { usable_buckets: 0, samples: 0 };
        let mut psi: Vec<usize> = Vec::new();
        for c in lo..hi {
            if !usable[c] {
                continue;
            }
            f.usable_buckets += 1;
            f.samples += s[c].count;
            sum += mod_diff(r[c].tsum, s[c].tsum, tsum_bits) as i128;
            if s[c].count > 0 {
                psi.push(c);
            }
        }
        // Algorithm 2: collapse usable non-empty buckets two by two, wherever they sit.
        for pq in psi.chunks_exact(2) {
            let (p, q) = (pq[0], pq[1]);
            let d = mod_diff(r[p].tsum, s[p].tsum, tsum_bits) as f64 - mod_diff(r[q].tsum, s[q].tsum, tsum_bits) as f64;
            sq += d * d;
            csamples += s[p].count + s[q].count;
        }
        nusable += f.usable_buckets;
        samples += f.samples;
        figures.push(f);
    }
    let mean = if samples > 0 { sum as f64 / samples as f64 } else { f64::NAN };
    // Algorithm 3.
    let second_moment = if csamples > 0 { sq / csamples as f64 } else { f64::NAN };
    let std =
        if second_moment.is_nan() || mean.is_nan() { f64::NAN } else { (second_moment - mean * mean).max(0.0).sqrt() };
    RdaEstimate {
        interval: 0,
        sent: 0,
        received: 0,
        decode,
        repair,
        missing_timestamps: missing,
        usable_buckets: nusable,
        samples,
        mean,
        second_moment,
        collapsed_samples: csamples,
        std,
        banks: figures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A bucket map given as a table.
    struct Table {
        cells: usize,
        map: HashMap<u64, Vec<usize>>,
    }

    impl BucketMap for Table {
        fn banks(&self) -> usize {
            2
        }
        fn cells(&self) -> usize {
            self.cells
        }
        fn cell(&self, l: usize, id: u64) -> Option<usize> {
            self.map.get(&id).map(|v| v[l])
        }
    }

    fn insert(cells: &mut [RdaRecord], map: &dyn BucketMap, id: u64, t: u64) {
        for l in 0..map.banks() {
            let c = &mut cells[map.cell(l, id).unwrap()];
            c.id ^= id;
            c.tsum += t;
            c.count += 1;
        }
    }

    /// Values no core can have read out are refused by name.
    #[test]
    fn impossible_synopses_are_refused() {
        let cfg = crate::rda::config::RdaConfig::default();
        let a = RdaSynopsis::empty(&cfg, 3);
        check_pair(&a, &a).unwrap();
        let malformed = |s: &RdaSynopsis| match check_pair(&a, s) {
            Err(RdaPairError::Malformed(m)) => m,
            other => panic!("{other:?}"),
        };
        let mut b = a.clone();
        b.buckets[7].count = 1 << 32;
        assert!(malformed(&b).contains("bucket 7 holds count 4294967296"), "{}", malformed(&b));
        let mut b = a.clone();
        b.buckets[9].tsum = 1 << cfg.tsum_bits;
        assert!(malformed(&b).contains("bucket 9"));
        let mut b = a.clone();
        b.packets = 1 << 48;
        assert!(malformed(&b).contains("exceed 48 bits"));
        let mut b = a.clone();
        (b.packets, b.sampled) = (4, 5);
        assert!(malformed(&b).contains("sampled 5 of 4"));
        let mut b = a.clone();
        (b.packets, b.sampled, b.buckets[0].count) = (4, 2, 3);
        assert!(malformed(&b).contains("bank 0 counts 3 packets, more than the 2"));
    }

    /// Fig. 3 and 4: five buckets, two hashes; P3 and P5 lost, P9 reordered.
    /// After decoding and repair the buckets are those of Fig. 4 and the mean
    /// is 820 / 8 = 102.5. (Fig. 3's buckets split into two banks: {1, 3, 5}
    /// and {2, 4}, every packet having one bucket in each.)
    #[test]
    fn paper_figures_3_and_4() {
        let p = |n: u64| 0x5000_0000_0000_0000 | n;
        let map = Table {
            cells: 5,
            map: [(1, [0, 1]), (6, [4, 1]), (4, [2, 3]), (2, [4, 3]), (3, [0, 3]), (5, [2, 1]), (9, [4, 1])]
                .into_iter()
                .map(|(n, c)| (p(n), c.to_vec()))
                .collect(),
        };
        let sent = [(1, 70), (2, 150), (3, 200), (4, 250), (5, 300), (6, 330)];
        let recv = [(1, 110), (2, 260), (4, 390), (6, 450), (9, 500)];
        let (mut a, mut b) = (vec![RdaRecord::default(); 5], vec![RdaRecord::default(); 5]);
        sent.iter().for_each(|&(n, t)| insert(&mut a, &map, p(n), t));
        recv.iter().for_each(|&(n, t)| insert(&mut b, &map, p(n), t));
        let ts = CaptureTimestamps {
            sent: sent.iter().map(|&(n, t)| (p(n), t)).collect(),
            received: recv.iter().map(|&(n, t)| (p(n), t)).collect(),
        };
        let banks = [(0, 5)];
        let e = reconcile_cells(&a, &b, &banks, &map, 48, Some(&ts));
        let mut lost = e.decode.lost.clone();
        lost.sort();
        assert_eq!(lost, vec![p(3), p(5)]);
        assert_eq!(e.decode.reordered, vec![p(9)]);
        assert!(e.decode.complete);
        assert_eq!(e.repair, RepairMode::Repaired);
        assert_eq!((e.usable_buckets, e.samples), (5, 8));
        assert_eq!(e.mean, 102.5);
        // Without timestamps every bucket held a decoded packet: nothing is usable.
        let e = reconcile_cells(&a, &b, &banks, &map, 48, None);
        assert_eq!((e.repair, e.usable_buckets), (RepairMode::Excluded, 0));
        assert!(e.mean.is_nan() && e.std.is_nan());
        // A missing timestamp falls back to exclusion for that packet's buckets only.
        let mut partial = ts.clone();
        partial.received.remove(&p(9));
        let e = reconcile_cells(&a, &b, &banks, &map, 48, Some(&partial));
        assert_eq!((e.repair, e.missing_timestamps, e.usable_buckets), (RepairMode::Excluded, 1, 3));
        // Buckets 1, 3, 4 (0-based 0, 2, 3) remain: P1, P4, P2+P4 -> (40 + 140 + 250) / 4.
        assert_eq!(e.mean, 430.0 / 4.0);
    }

    #[test]
    fn modular_differences() {
        assert_eq!(mod_diff(5, (1 << 48) - 3, 48), 8);
        assert_eq!(mod_diff((1 << 48) - 3, 5, 48), -8);
        assert_eq!(mod_diff(5, u64::MAX, 64), 6);
        assert_eq!(mod_diff(3, 5, 32), -2);
    }
}
