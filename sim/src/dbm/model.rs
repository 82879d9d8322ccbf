//! Golden model of the DBM core (Uyeda et al. §3.1 Algorithm 1, §3.1.3
//! merge-by-range and merge-by-variance, §3.3 culprits, §5 the radix-32 heap).
//!
//! The model keeps the buckets exactly as the RTL does, so the two agree bit
//! for bit, bucket stream and all:
//! - m slots hold the buckets, linked in time order (`next`/`prev`); slot s's
//!   merge key is the key of the pair (s, next(s)), the tail's is
//!   [`KEY_NONE`]; the keys live in a two-level radix-32 min structure.
//! - A new bucket b (a packet, or a base interval's sum) while m buckets are
//!   live: the tail's key becomes K(tail, b), and the pair with the smallest
//!   key is merged, the lowest slot among equal keys. If that is the tail, b
//!   joins the tail; otherwise (w, v = next(w)) becomes one bucket in slot w
//!   and b takes the freed slot v as the new tail. This is Algorithm 1
//!   (allocate b_{m+1}, merge the adjacent pair with the smallest key): the
//!   pair (b_m, b_{m+1}) is the tail's.
//! - Keys are [`KEY_BITS`] wide and saturate; masses saturate at [`MASS_MAX`].
//!   Either sets a sticky flag in the period's synopsis.

use super::config::*;
use super::culprit::{majority, merge_flows};
use super::radix_min::RadixMin;
use super::stream::{PeriodCore, TimeOrder, run_periods};
use super::traffic::BwPacket;
use serde::{Deserialize, Serialize};

/// One bucket of the partition: a time span and what the merge rules and the
/// queries need (§3.1.1: count, sum, max; §3.1.3: max/min and sums of
/// squares of the base-interval sums; §3.3: flow ID and its byte count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bucket {
    /// First tick the bucket spans (its first packet, or its first base interval's start).
    pub first: u64,
    /// Last tick it spans (its last packet, or its last base interval's last tick).
    pub last: u64,
    /// Bytes (saturating at [`MASS_MAX`]).
    pub mass: u64,
    /// Packets (per-packet mode) or base intervals (base-interval mode) merged into it.
    pub n: u32,
    /// Σ s_i² of its base-interval sums (0 in per-packet mode).
    pub sumsq: u128,
    /// Largest base-interval sum in it (per-packet mode: largest packet).
    pub max: u64,
    /// Smallest base-interval sum in it (per-packet mode: smallest packet).
    pub min: u64,
    /// Culprit flow (§3.3).
    pub flow: u32,
    /// Bytes counted for the culprit flow (saturating at 2^32 − 1).
    pub flow_count: u32,
}

impl Bucket {
    /// A bucket of one packet.
    pub fn packet(p: &BwPacket) -> Self {
        let len = p.len as u64;
        Self { first: p.ts, last: p.ts, mass: len, n: 1, sumsq: 0, max: len, min: len, flow: p.flow, flow_count: p.len }
    }

    /// A bucket of one base interval [first, last] whose byte sum is `s` and
    /// whose majority flow is `flow` with `flow_count` bytes.
    pub fn interval(first: u64, last: u64, s: u64, flow: u32, flow_count: u32) -> Self {
        Self { first, last, mass: s, n: 1, sumsq: (s as u128) * (s as u128), max: s, min: s, flow, flow_count }
    }
}

/// The merge key of the pair (a, b) under `rule`, and whether it saturated.
pub fn merge_key(rule: MergeRule, a: &Bucket, b: &Bucket) -> (u64, bool) {
    let k: u128 = match rule {
        MergeRule::Mm => a.mass as u128 + b.mass as u128,
        MergeRule::Mr => (a.max.max(b.max) - a.min.min(b.min)) as u128,
        MergeRule::Mv => {
            // Variance of the merged bucket's base-interval sums: (n·Σs² − (Σs)²) / n².
            let n = (a.n + b.n) as u128;
            let s = a.mass as u128 + b.mass as u128;
            let q = a.sumsq + b.sumsq;
            (n * q - s * s) / (n * n)
        }
    };
    if k > KEY_MAX as u128 { (KEY_MAX, true) } else { (k as u64, false) }
}

/// Sticky flags of a period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbmFlags {
    /// A merge key saturated at [`KEY_MAX`] (the merge order may differ from exact keys).
    pub key_saturated: bool,
    /// A bucket's mass saturated at [`MASS_MAX`].
    pub mass_saturated: bool,
    /// A base-interval sum saturated at 2^32 − 1.
    pub interval_saturated: bool,
}

/// The synopsis of one aggregation period: the partition in time order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbmPeriod {
    /// Index of the period (period p spans [p·T, (p+1)·T)).
    pub index: u64,
    /// The buckets, oldest first.
    pub buckets: Vec<Bucket>,
    /// Packets of the period.
    pub packets: u64,
    /// Merges made.
    pub merges: u64,
    /// Of them, merges in which the new bucket joined the tail (the pair
    /// (tail, new) had the smallest key): the RTL's one-clock path.
    pub tail_joins: u64,
    /// Sticky flags.
    pub flags: DbmFlags,
}

/// What a DBM point reports for one period (a saved synopsis, one epoch of
/// the station): the core's config and the period's partition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbmSynopsis {
    /// The core's config.
    pub config: DbmConfig,
    /// The period.
    pub period: DbmPeriod,
}

/// DBM golden model: packets in, one [`DbmPeriod`] per aggregation period out.
#[derive(Clone, Debug)]
pub struct DbmGolden {
    cfg: DbmConfig,
    buckets: Vec<Bucket>,
    next: Vec<u16>,
    prev: Vec<u16>,
    keys: RadixMin,
    live: usize,
    head: usize,
    tail: usize,
    prng: u32,
    period: u64,
    packets: u64,
    merges: u64,
    tail_joins: u64,
    flags: DbmFlags,
    /// Base-interval mode: the interval being summed, its sum and majority flow.
    interval: u64,
    acc: u64,
    maj_flow: u32,
    maj_count: u32,
    order: TimeOrder,
}

impl DbmGolden {
    /// An empty DBM for `cfg` (validated).
    pub fn new(cfg: &DbmConfig) -> Result<Self, crate::ConfigError> {
        cfg.validate()?;
        let m = cfg.buckets;
        Ok(Self {
            cfg: cfg.clone(),
            buckets: vec![Bucket::default(); m],
            next: vec![0; m],
            prev: vec![0; m],
            keys: RadixMin::new(m),
            live: 0,
            head: 0,
            tail: 0,
            prng: cfg.seed,
            period: 0,
            packets: 0,
            merges: 0,
            tail_joins: 0,
            flags: DbmFlags::default(),
            interval: 0,
            acc: 0,
            maj_flow: 0,
            maj_count: 0,
            order: TimeOrder::default(),
        })
    }

    /// The config.
    pub fn config(&self) -> &DbmConfig {
        &self.cfg
    }

    /// Adds a packet. Periods (and, in base-interval mode, intervals) that
    /// end at or before its timestamp are closed first and appended to `out`.
    /// A timestamp below the previous one is an error.
    pub fn push(&mut self, p: &BwPacket, out: &mut Vec<DbmPeriod>) -> Result<(), String> {
        self.order.check(p.ts)?;
        self.advance(p.ts, out);
        self.packets += 1;
        if self.cfg.base_ticks == 0 {
            let b = Bucket::packet(p);
            self.insert(b);
        } else {
            let sum = self.acc + p.len as u64;
            if sum > INTERVAL_SUM_MAX {
                self.flags.interval_saturated = true;
            }
            self.acc = sum.min(INTERVAL_SUM_MAX);
            (self.maj_flow, self.maj_count) = majority((self.maj_flow, self.maj_count), p.flow, p.len);
        }
        Ok(())
    }

    /// Closes every period (and base interval) that ends at or before tick `now`.
    pub fn advance(&mut self, now: u64, out: &mut Vec<DbmPeriod>) {
        let t = self.cfg.period_ticks;
        while now >= (self.period + 1) * t {
            if self.cfg.base_ticks != 0 {
                while self.interval < self.cfg.intervals() {
                    self.close_interval();
                }
            }
            out.push(self.take_period());
        }
        if let Some(current) = (now - self.period * t).checked_div(self.cfg.base_ticks) {
            while self.interval < current {
                self.close_interval();
            }
        }
    }

    /// Closes the period in progress (all its remaining base intervals) and returns it.
    pub fn finish(&mut self) -> DbmPeriod {
        if self.cfg.base_ticks != 0 {
            while self.interval < self.cfg.intervals() {
                self.close_interval();
            }
        }
        self.take_period()
    }

    fn close_interval(&mut self) {
        let d = self.cfg.base_ticks;
        let first = self.period * self.cfg.period_ticks + self.interval * d;
        let b = Bucket::interval(first, first + d - 1, self.acc, self.maj_flow, self.maj_count);
        self.insert(b);
        self.interval += 1;
        self.acc = 0;
        self.maj_flow = 0;
        self.maj_count = 0;
    }

    fn key(&mut self, a: usize, b: &Bucket) -> u64 {
        let (k, sat) = merge_key(self.cfg.rule, &self.buckets[a], b);
        self.flags.key_saturated |= sat;
        k
    }

    /// The bucket of a and b merged. The culprit of two buckets follows §3.3
    /// (proportional random pick, [`merge_flows`]); a new bucket joining the
    /// tail (`join`) updates the tail's culprit by the weighted one-counter
    /// majority instead ([`majority`]): the RTL joins a packet in one clock,
    /// which leaves no time for the draw's 32 × 33-bit product.
    fn merged(&mut self, a: &Bucket, b: &Bucket, join: bool) -> Bucket {
        let mass = a.mass + b.mass;
        if mass > MASS_MAX {
            self.flags.mass_saturated = true;
        }
        let (flow, flow_count) = if join {
            majority((a.flow, a.flow_count), b.flow, b.flow_count)
        } else {
            merge_flows(&mut self.prng, (a.flow, a.flow_count), (b.flow, b.flow_count))
        };
        self.merges += 1;
        Bucket {
            first: a.first,
            last: b.last,
            mass: mass.min(MASS_MAX),
            n: a.n.saturating_add(b.n),
            sumsq: a.sumsq + b.sumsq,
            max: a.max.max(b.max),
            min: a.min.min(b.min),
            flow,
            flow_count,
        }
    }

    /// Adds bucket `b` after the tail, merging the pair with the smallest key when all m slots are live.
    fn insert(&mut self, b: Bucket) {
        let m = self.cfg.buckets;
        if self.live < m {
            let s = self.live;
            self.buckets[s] = b;
            if self.live > 0 {
                let t = self.tail;
                let k = self.key(t, &b);
                self.keys.set(t, k);
                self.next[t] = s as u16;
                self.prev[s] = t as u16;
            } else {
                self.head = s;
            }
            self.tail = s;
            self.live += 1;
            return;
        }
        let t = self.tail;
        let kn = self.key(t, &b);
        self.keys.set(t, kn);
        let (_, w) = self.keys.min();
        if w == t {
            self.tail_joins += 1;
            let tb = self.buckets[t];
            self.buckets[t] = self.merged(&tb, &b, true);
            self.keys.set(t, KEY_NONE);
            if t != self.head {
                let p = self.prev[t] as usize;
                let nb = self.buckets[t];
                let k = self.key(p, &nb);
                self.keys.set(p, k);
            }
            return;
        }
        let v = self.next[w] as usize;
        let (wb, vb) = (self.buckets[w], self.buckets[v]);
        let merged = self.merged(&wb, &vb, false);
        self.buckets[w] = merged;
        if w != self.head {
            let p = self.prev[w] as usize;
            let k = self.key(p, &merged);
            self.keys.set(p, k);
        }
        if v == t {
            // w becomes the tail's predecessor of b, in the freed slot v.
            let k = self.key(w, &b);
            self.keys.set(w, k);
        } else {
            let u = self.next[v] as usize;
            self.next[w] = u as u16;
            self.prev[u] = w as u16;
            let ub = self.buckets[u];
            let k = self.key(w, &ub);
            self.keys.set(w, k);
            self.next[t] = v as u16;
            self.prev[v] = t as u16;
        }
        self.buckets[v] = b;
        self.keys.set(v, KEY_NONE);
        self.tail = v;
    }

    fn take_period(&mut self) -> DbmPeriod {
        let mut buckets = Vec::with_capacity(self.live);
        let mut s = self.head;
        for i in 0..self.live {
            buckets.push(self.buckets[s]);
            if i + 1 < self.live {
                s = self.next[s] as usize;
            }
        }
        let out = DbmPeriod {
            index: self.period,
            buckets,
            packets: self.packets,
            merges: self.merges,
            tail_joins: self.tail_joins,
            flags: self.flags,
        };
        self.period += 1;
        self.live = 0;
        self.keys = RadixMin::new(self.cfg.buckets);
        self.packets = 0;
        self.merges = 0;
        self.tail_joins = 0;
        self.flags = DbmFlags::default();
        self.interval = 0;
        self.acc = 0;
        self.maj_flow = 0;
        self.maj_count = 0;
        out
    }
}

impl PeriodCore for DbmGolden {
    type Period = DbmPeriod;
    fn push(&mut self, p: &BwPacket, out: &mut Vec<DbmPeriod>) -> Result<(), String> {
        DbmGolden::push(self, p, out)
    }
    fn finish(&mut self) -> DbmPeriod {
        DbmGolden::finish(self)
    }
}

/// Runs a whole packet stream through a new core for `cfg` and returns every
/// period up to the one holding the last packet.
pub fn run_dbm(cfg: &DbmConfig, packets: &[BwPacket]) -> Result<Vec<DbmPeriod>, String> {
    run_periods(DbmGolden::new(cfg).map_err(|e| e.to_string())?, packets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(ts: u64, len: u32) -> BwPacket {
        BwPacket { ts, len, flow: 1 }
    }

    /// Algorithm 1 written the obvious way: a vector of buckets, merge the
    /// adjacent pair with the smallest combined mass. Also returns whether the
    /// smallest pair sum was unique at every merge (then no tie rule decides).
    fn reference(m: usize, lens: &[u32]) -> (Vec<u64>, bool) {
        let mut v: Vec<u64> = Vec::new();
        let mut unique = true;
        for &l in lens {
            v.push(l as u64);
            if v.len() == m + 1 {
                let mut sums: Vec<(u64, usize)> = (0..m).map(|i| (v[i] + v[i + 1], i)).collect();
                sums.sort_unstable();
                unique &= m < 2 || sums[0].0 != sums[1].0;
                let w = sums[0].1;
                v[w] += v[w + 1];
                v.remove(w + 1);
            }
        }
        (v, unique)
    }

    #[test]
    fn matches_algorithm_1() {
        // Lengths from a wide range make equal smallest pair sums (ties) improbable;
        // the reference checks that none occurred, so the comparison is exact.
        let mut rng = crate::prng::SplitMix64::new(3);
        for m in [2usize, 3, 7, 32, 33, 100, 1024] {
            let lens: Vec<u32> = (0..3000).map(|_| 1 + rng.below(1 << 30) as u32).collect();
            let packets: Vec<_> = lens.iter().enumerate().map(|(i, &l)| pkt(i as u64, l)).collect();
            let got: Vec<u64> = run_dbm(&DbmConfig { buckets: m, ..Default::default() }, &packets).unwrap()[0]
                .buckets
                .iter()
                .map(|b| b.mass)
                .collect();
            let (want, unique) = reference(m, &lens);
            assert!(unique, "m = {m}: a tie occurred; pick another seed");
            assert_eq!(got, want, "m = {m}");
        }
    }

    #[test]
    fn spans_tile_the_packets_in_time_order() {
        let mut rng = crate::prng::SplitMix64::new(11);
        let mut ts = 0;
        let packets: Vec<_> = (0..5000)
            .map(|_| {
                ts += rng.below(1000);
                BwPacket { ts, len: 64 + rng.below(1400) as u32, flow: rng.below(4) as u32 }
            })
            .collect();
        let cfg = DbmConfig { buckets: 64, period_ticks: 1 << 40, ..Default::default() };
        let p = &run_dbm(&cfg, &packets).unwrap()[0];
        assert_eq!(p.buckets.len(), 64);
        assert_eq!(p.buckets.iter().map(|b| b.n as u64).sum::<u64>(), 5000);
        for w in p.buckets.windows(2) {
            assert!(w[0].last <= w[1].first && w[0].first <= w[0].last);
        }
        assert_eq!(p.merges, 5000 - 64);
    }

    #[test]
    fn base_interval_mode_covers_every_interval_and_rules_differ() {
        let mut rng = crate::prng::SplitMix64::new(17);
        let mut ts = 0;
        let mut packets = Vec::new();
        while ts < 1_000_000 {
            // Quiet background with a burst in [400k, 420k).
            ts += if (400_000..420_000).contains(&ts) { 10 } else { 1 + rng.below(2000) };
            packets.push(BwPacket { ts, len: 1000, flow: (ts / 100_000) as u32 });
        }
        packets.retain(|p| p.ts < 1_000_000);
        let mut parts = Vec::new();
        for rule in [MergeRule::Mm, MergeRule::Mr, MergeRule::Mv] {
            let cfg = DbmConfig { buckets: 9, rule, base_ticks: 1000, period_ticks: 1_000_000, seed: 7 };
            let periods = run_dbm(&cfg, &packets).unwrap();
            assert_eq!(periods.len(), 1, "{rule:?}");
            let p = &periods[0];
            assert_eq!(p.buckets.len(), 9);
            assert_eq!(p.buckets.iter().map(|b| b.n as u64).sum::<u64>(), 1000);
            assert_eq!(p.buckets[0].first, 0);
            assert_eq!(p.buckets[8].last, 999_999);
            assert_eq!(p.buckets.iter().map(|b| b.mass).sum::<u64>(), 1000 * packets.len() as u64);
            for w in p.buckets.windows(2) {
                assert_eq!(w[0].last + 1, w[1].first);
            }
            parts.push(p.buckets.iter().map(|b| (b.first, b.last)).collect::<Vec<_>>());
        }
        // Merge-by-range isolates the burst: some bucket lies inside it.
        assert_ne!(parts[0], parts[1]);
        assert!(parts[1].iter().any(|&(f, l)| f >= 399_000 && l < 421_000), "{:?}", parts[1]);
    }

    #[test]
    fn periods_close_on_time_and_backwards_time_is_an_error() {
        let cfg = DbmConfig { buckets: 4, period_ticks: 100, ..Default::default() };
        let packets = [pkt(5, 10), pkt(50, 10), pkt(250, 10)];
        let periods = run_dbm(&cfg, &packets).unwrap();
        assert_eq!(periods.iter().map(|p| p.buckets.len()).collect::<Vec<_>>(), vec![2, 0, 1]);
        assert_eq!(periods.iter().map(|p| p.index).collect::<Vec<_>>(), vec![0, 1, 2]);
        let err = run_dbm(&cfg, &[pkt(5, 1), pkt(4, 1)]).unwrap_err();
        assert!(err.contains("backwards"), "{err}");
    }

    #[test]
    fn culprit_is_the_dominant_flow_of_a_burst() {
        let mut packets = Vec::new();
        let mut rng = crate::prng::SplitMix64::new(23);
        for i in 0..20_000u64 {
            let burst = (10_000..11_000).contains(&i);
            let flow = if burst && rng.chance(9, 10) { 99 } else { rng.below(1000) as u32 };
            packets.push(BwPacket { ts: i * 100, len: if burst { 1500 } else { 100 }, flow });
        }
        let cfg = DbmConfig { buckets: 16, period_ticks: 1 << 40, ..Default::default() };
        let p = &run_dbm(&cfg, &packets).unwrap()[0];
        let heaviest = p.buckets.iter().max_by_key(|b| b.mass * 1_000_000 / (b.last - b.first + 1)).unwrap();
        assert_eq!(heaviest.flow, 99);
    }
}
