//! DBM points (Uyeda et al., NSDI 2011, §3.1 Algorithm 1 and §3.1.3 merge
//! rules; §3.3 culprits): each period of a point is one epoch of the
//! station. The period's partition — at most m buckets, each a time span
//! with its bytes and its culprit flow — is stored as the point's estimate,
//! so that the bandwidth at *any* time scale Δ can be asked after the fact
//! (Theorem 1: a bucket's mass spread evenly over its span), the burst query
//! included (§1, §4: "find all bursts … on all links in set S").
//!
//! Roll-up (§4, "Long-term archival": "the data can be compacted for larger
//! time scales by reducing granularity for older data"): the periods starting
//! in an hour are laid end to end and merged down to m buckets by the
//! point's own rule (Algorithm 1: the adjacent pair with the smallest merge
//! key first), so an old hour costs what one period costs.

use crate::config::HOUR_NS;
use crate::db::{Db, Val};
use crate::point_core::{
    BandwidthRow, BurstQuery, CheckedEpoch, PointCore, PointEpoch, Rolled, StoredPoint, Synopsis, checked, insert_row,
    parsed, roll_hours, synopsis_as, typed_config,
};
use netmeas_sim::dbm::config::{DbmConfig, MASS_MAX, MergeRule};
use netmeas_sim::dbm::culprit::merge_flows;
use netmeas_sim::dbm::{Bucket, DbmSynopsis, merge_key};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::any::Any;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::path::Path;

/// The station's DBM core.
pub struct DbmPoint;

fn config_of(v: &Value) -> Result<DbmConfig, String> {
    DbmConfig::deserialize(v).map_err(|e| e.to_string())
}

/// One bucket as the station keeps it: its span `[start, end)` in ns from the
/// start of its row (an epoch, or a rolled-up hour), and the bucket's fields
/// the merge rules and the culprit need. Stored as a JSON array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpanBucket(
    /// Start of the span, ns from the row's start.
    pub u64,
    /// End of the span (exclusive), ns from the row's start.
    pub u64,
    /// Bytes.
    pub u64,
    /// Packets or base intervals merged into it.
    pub u32,
    /// Σ s_i² of its base-interval sums.
    pub u128,
    /// Largest base-interval sum (or packet).
    pub u64,
    /// Smallest base-interval sum (or packet).
    pub u64,
    /// Culprit flow (§3.3).
    pub u32,
    /// Bytes counted for the culprit.
    pub u32,
);

impl SpanBucket {
    /// Bucket `b` of a period starting at tick `base`, ticks of `tick_ns`, shifted by `shift_ns`.
    fn of(b: &Bucket, base: u64, tick_ns: f64, shift_ns: u64) -> Self {
        let ns = |t: u64| shift_ns + ((t - base) as f64 * tick_ns).round() as u64;
        SpanBucket(ns(b.first), ns(b.last + 1), b.mass, b.n, b.sumsq, b.max, b.min, b.flow, b.flow_count)
    }

    /// The bucket in ns as the sim's [`Bucket`] (inclusive last ns), for the merge keys.
    fn bucket(&self) -> Bucket {
        Bucket {
            first: self.0,
            last: self.1 - 1,
            mass: self.2,
            n: self.3,
            sumsq: self.4,
            max: self.5,
            min: self.6,
            flow: self.7,
            flow_count: self.8,
        }
    }

    /// The bytes of this bucket in `[a, c)` ns: its mass spread evenly over its span (Theorem 1).
    fn share(&self, a: u64, c: u64) -> f64 {
        let (lo, hi) = (self.0.max(a), self.1.min(c));
        if hi <= lo { 0.0 } else { self.2 as f64 * (hi - lo) as f64 / (self.1 - self.0) as f64 }
    }
}

/// The statistics of S_Δ over one row of `span_ns` from a partition in
/// time order (Theorem 1, as `netmeas_sim::dbm::query::dbm_series` with
/// `series_stats`, without materialising the intervals: an interval wholly
/// inside one bucket holds mass × Δ / span; only the intervals holding a
/// bucket's edge are summed bucket by bucket, so an hour-long row at a
/// microsecond scale costs O(m)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesMax {
    /// Intervals ⌈span / Δ⌉ (the last one may be shorter).
    pub intervals: u64,
    /// Mean interval sum, bytes.
    pub mean: f64,
    /// Population standard deviation of the interval sums, bytes.
    pub std: f64,
    /// Largest interval sum, bytes.
    pub max: f64,
    /// Its start, ns from the row's start (the first of equal maxima).
    pub max_at: u64,
    /// The flow of the bucket with the largest share of it, when it holds any bytes.
    pub culprit: Option<u32>,
}

/// S_Δ's statistics of partition `buckets` (disjoint, in time order) over `[0, span_ns)` at Δ = `delta_ns`.
pub fn series_max(buckets: &[SpanBucket], span_ns: u64, delta_ns: u64) -> SeriesMax {
    let n = span_ns.div_ceil(delta_ns).max(1);
    let end_of = |i: u64| ((i + 1) * delta_ns).min(span_ns);
    // Intervals holding an edge of a bucket: index → (bytes, (share, flow) of the largest share).
    let mut edges: BTreeMap<u64, (f64, (f64, u32))> = BTreeMap::new();
    // The best interval inside one bucket: (bytes, start, flow).
    let mut inner: Option<(f64, u64, u32)> = None;
    let (mut total, mut sumsq) = (0.0, 0.0);
    for b in buckets {
        let (i0, i1) = (b.0 / delta_ns, (b.1 - 1) / delta_ns);
        for i in [i0, i1].into_iter().take(if i0 == i1 { 1 } else { 2 }) {
            let s = b.share(i * delta_ns, end_of(i));
            let e = edges.entry(i).or_insert((0.0, (f64::MIN, 0)));
            e.0 += s;
            if s > e.1.0 {
                e.1 = (s, b.7);
            }
        }
        if i1 > i0 + 1 {
            let k = i1 - i0 - 1;
            let v = b.2 as f64 * delta_ns as f64 / (b.1 - b.0) as f64;
            sumsq += k as f64 * v * v;
            total += k as f64 * v;
            if inner.is_none_or(|(m, at, _)| v > m || (v == m && (i0 + 1) * delta_ns < at)) {
                inner = Some((v, (i0 + 1) * delta_ns, b.7));
            }
        }
    }
    let mut best: (f64, u64, Option<u32>) = (0.0, 0, None);
    for (&i, &(s, (_, flow))) in &edges {
        total += s;
        sumsq += s * s;
        if s > best.0 {
            best = (s, i * delta_ns, Some(flow));
        }
    }
    if let Some((v, at, flow)) = inner
        && (v > best.0 || (v == best.0 && best.2.is_some() && at < best.1))
    {
        best = (v, at, Some(flow));
    }
    let mean = total / n as f64;
    SeriesMax {
        intervals: n,
        mean,
        std: (sumsq / n as f64 - mean * mean).max(0.0).sqrt(),
        max: best.0,
        max_at: best.1,
        culprit: best.2,
    }
}

/// Merges a time-ordered partition down to `m` buckets by `rule`: the
/// adjacent pair with the smallest merge key first, the earliest of equal
/// keys (Algorithm 1, §3.1.3); a merge of two flows keeps one with
/// probability proportional to its count, drawn from `prng` (§3.3).
pub fn merge_down(buckets: Vec<SpanBucket>, m: usize, rule: MergeRule, prng: &mut u32) -> Vec<SpanBucket> {
    let len = buckets.len();
    if len <= m {
        return buckets;
    }
    let mut b: Vec<Option<SpanBucket>> = buckets.into_iter().map(Some).collect();
    let mut next: Vec<usize> = (1..=len).collect();
    let mut prev: Vec<usize> = (0..len).map(|i| i.wrapping_sub(1)).collect();
    let mut version = vec![0u32; len];
    let key = |b: &[Option<SpanBucket>], i: usize, j: usize| {
        merge_key(rule, &b[i].expect("live").bucket(), &b[j].expect("live").bucket()).0
    };
    let mut heap: BinaryHeap<Reverse<(u64, usize, u32)>> =
        (0..len - 1).map(|i| Reverse((key(&b, i, i + 1), i, 0))).collect();
    let mut live = len;
    while live > m {
        let Some(Reverse((_, i, v))) = heap.pop() else { break };
        if b[i].is_none() || version[i] != v || next[i] >= len {
            continue;
        }
        let j = next[i];
        let (x, y) = (b[i].expect("live"), b[j].take().expect("live"));
        let (flow, count) = merge_flows(prng, (x.7, x.8), (y.7, y.8));
        b[i] = Some(SpanBucket(
            x.0,
            y.1,
            (x.2 + y.2).min(MASS_MAX),
            x.3.saturating_add(y.3),
            x.4 + y.4,
            x.5.max(y.5),
            x.6.min(y.6),
            flow,
            count,
        ));
        next[i] = next[j];
        if next[j] < len {
            prev[next[j]] = i;
        }
        live -= 1;
        version[i] += 1;
        if next[i] < len {
            heap.push(Reverse((key(&b, i, next[i]), i, version[i])));
        }
        let p = prev[i];
        if p < len {
            version[p] += 1;
            heap.push(Reverse((key(&b, p, i), p, version[p])));
        }
    }
    b.into_iter().flatten().collect()
}

/// Stores a partition row: `span_ns` from `t_ns`, standing for `periods` periods.
fn insert_partition(
    db: &mut Db,
    point: i64,
    t_ns: i64,
    seq: i64,
    periods: i64,
    span_ns: u64,
    packets: u64,
    buckets: &[SpanBucket],
) -> Result<(), String> {
    // A bucket's density bounds every interval it touches: the peak bounds S_Δ/Δ at every Δ.
    let peak = buckets.iter().map(|b| b.2 as f64 * 8e9 / (b.1 - b.0) as f64).fold(0.0, f64::max);
    let bytes: u64 = buckets.iter().map(|b| b.2).sum();
    let text = serde_json::to_string(buckets).map_err(|e| e.to_string())?;
    insert_row(
        db,
        "dbm_partition",
        t_ns,
        &["point", "t_ns", "seq", "periods", "span_ns", "packets", "bytes", "peak_bps", "buckets"],
        &[
            Val::Int(point),
            Val::Int(t_ns),
            Val::Int(seq),
            Val::Int(periods),
            Val::Int(span_ns as i64),
            Val::Int(packets as i64),
            Val::Int(bytes as i64),
            Val::Real(peak),
            Val::Text(text),
        ],
    )
}

fn stored_buckets(v: &Val) -> Result<Vec<SpanBucket>, String> {
    let text = v.text("buckets")?.unwrap_or_default();
    serde_json::from_str(&text).map_err(|e| format!("a stored DBM partition is not a bucket list: {e}"))
}

impl PointCore for DbmPoint {
    fn name(&self) -> &'static str {
        "dbm"
    }

    fn config(&self, given: Option<&toml::Value>, base: &Path) -> Result<Value, String> {
        typed_config::<DbmConfig, _>(given, base, DbmConfig::validate)
    }

    fn epoch_ticks(&self, config: &Value) -> Option<u64> {
        config_of(config).ok().map(|c| c.period_ticks)
    }

    fn epoch(&self, config: &Value, body: &Value) -> Result<CheckedEpoch, String> {
        let point = config_of(config)?;
        let s = DbmSynopsis::deserialize(body).map_err(|e| format!("not a DBM synopsis: {e}"))?;
        if s.config != point {
            return Err("its DBM config differs from the point's (buckets, rule, base interval, period or seed)".into());
        }
        let p = &s.period;
        if p.buckets.len() > point.buckets {
            return Err(format!("it has {} buckets, the config keeps {}", p.buckets.len(), point.buckets));
        }
        let start = p.index.checked_mul(point.period_ticks).ok_or("its period index overflows the time")?;
        let end = start + point.period_ticks;
        let mut after = start;
        for (i, b) in p.buckets.iter().enumerate() {
            if b.first < after || b.last < b.first || b.last >= end || b.n == 0 || b.mass > MASS_MAX || b.min > b.max {
                return Err(format!(
                    "bucket {i} is impossible: ticks [{}, {}] in a period of [{start}, {end}) after tick {after}, \
                     {} bytes, {} merged",
                    b.first, b.last, b.mass, b.n
                ));
            }
            after = b.last + 1;
        }
        // Per packet, every packet is in one bucket; per base interval, every interval is.
        let merged: u64 = p.buckets.iter().map(|b| u64::from(b.n)).sum();
        let expect = if point.base_ticks == 0 { p.packets } else { point.intervals() };
        if merged != expect && !p.buckets.iter().any(|b| b.n == u32::MAX) {
            return Err(format!(
                "its buckets hold {merged} {}, the period has {expect}",
                if point.base_ticks == 0 { "packets" } else { "base intervals" }
            ));
        }
        let (seq, f) = (p.index, p.flags);
        checked(seq, f.key_saturated || f.mass_saturated || f.interval_saturated, s)
    }

    fn parse(&self, stored: &str) -> Result<Synopsis, String> {
        parsed::<DbmSynopsis>(stored, "a DBM synopsis")
    }

    fn store_epoch(&self, db: &mut Db, e: &PointEpoch, synopsis: &(dyn Any + Send)) -> Result<(), String> {
        let s = synopsis_as::<DbmSynopsis>(synopsis)?;
        let base = s.period.index * s.config.period_ticks;
        let buckets: Vec<SpanBucket> = s.period.buckets.iter().map(|b| SpanBucket::of(b, base, e.tick_ns, 0)).collect();
        let span = (s.config.period_ticks as f64 * e.tick_ns).round() as u64;
        insert_partition(db, e.point, e.t_ns, e.seq, 1, span, s.period.packets, &buckets)
    }

    fn rollup(&self, db: &mut Db, p: &StoredPoint<'_>, from_ns: i64, until_ns: i64) -> Result<Rolled, String> {
        let cfg = config_of(&p.point.config)?;
        roll_hours(db, "dbm_partition", true, p.id, from_ns, until_ns, |db, hour| {
            let end = hour + HOUR_NS;
            let rows = db.query(
                "SELECT seq, t_ns, span_ns, packets, buckets FROM dbm_partition \
                 WHERE point = $1 AND t_ns >= $2 AND t_ns < $3 ORDER BY t_ns",
                &[Val::Int(p.id), Val::Int(hour), Val::Int(end)],
            )?;
            let mut all = Vec::new();
            let (mut packets, mut first_seq) = (0u64, None);
            for r in &rows {
                let (seq, t_ns, span) = (r[0].int("seq")?, r[1].int("t_ns")?, r[2].int("span_ns")?);
                if t_ns + span > end {
                    return Err(format!("epoch {seq} runs past the end of its hour: only whole periods roll up"));
                }
                let shift = (t_ns - hour) as u64;
                all.extend(stored_buckets(&r[4])?.into_iter().map(|b| SpanBucket {
                    0: b.0 + shift,
                    1: b.1 + shift,
                    ..b
                }));
                packets += r[3].int("packets")? as u64;
                first_seq.get_or_insert(seq);
            }
            // One PRNG stream per hour, from the core's seed and the hour: a roll-up gives the same culprits each time.
            let mut prng = cfg.seed ^ (hour / HOUR_NS) as u32;
            if prng == 0 {
                prng = cfg.seed;
            }
            let merged = merge_down(all, cfg.buckets, cfg.rule, &mut prng);
            db.execute(
                "DELETE FROM dbm_partition WHERE point = $1 AND t_ns >= $2 AND t_ns < $3",
                &[Val::Int(p.id), Val::Int(hour), Val::Int(end)],
            )?;
            let periods = rows.len() as i64;
            insert_partition(db, p.id, hour, first_seq.unwrap_or_default(), periods, HOUR_NS as u64, packets, &merged)?;
            Ok(rows.len() as u64)
        })
    }

    /// Any scale Δ of 1 ns up to the row's span: DBM answers a posteriori (§3.1, Theorem 1).
    fn bandwidth(&self, db: &mut Db, q: &BurstQuery) -> Result<Option<Vec<BandwidthRow>>, String> {
        let delta = q.scale_ns as u64;
        // The peak density bounds every interval's rate: rows below the asked rate are not read.
        let rows = db.query(
            "SELECT t_ns, periods, span_ns, buckets FROM dbm_partition \
             WHERE point = $1 AND t_ns >= $2 AND t_ns < $3 AND peak_bps > $4 ORDER BY t_ns",
            &[Val::Int(q.point), Val::Int(q.from_ns), Val::Int(q.to_ns), Val::Real(q.rate_bps)],
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let (t_ns, periods, span) = (r[0].int("t_ns")?, r[1].int("periods")?, r[2].int("span_ns")? as u64);
            if delta > span {
                return Err(format!("the DBM's rows span {span} ns; {delta} ns is coarser"));
            }
            let s = series_max(&stored_buckets(&r[3])?, span, delta);
            let bps = |bytes: f64| bytes * 8e9 / delta as f64;
            if bps(s.max) <= q.rate_bps {
                continue;
            }
            out.push(BandwidthRow {
                t_ns,
                periods,
                scale_ns: q.scale_ns,
                mean_bps: bps(s.mean),
                std_bps: bps(s.std),
                max_bps: bps(s.max),
                max_t_ns: t_ns + s.max_at as i64,
                culprit: s.culprit,
            });
        }
        Ok(Some(out))
    }

    fn measures_bandwidth(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netmeas_sim::dbm::{dbm_series, series_stats};
    use netmeas_sim::prng::SplitMix64;

    /// A random partition of `[0, span)`: disjoint spans in time order, with gaps, some one tick long.
    fn partition(rng: &mut SplitMix64, span: u64, n: usize) -> Vec<SpanBucket> {
        let mut cuts: Vec<u64> = (0..2 * n).map(|_| rng.below(span)).collect();
        cuts.sort_unstable();
        cuts.dedup();
        cuts.chunks_exact(2)
            .map(|c| {
                let end = if rng.chance(1, 4) { c[0] + 1 } else { c[1] };
                let mass = 1 + rng.below(100_000);
                SpanBucket(c[0], end, mass, 1, 0, mass, mass, rng.below(50) as u32, mass as u32)
            })
            .collect()
    }

    #[test]
    fn series_statistics_equal_the_materialised_series() {
        let mut rng = SplitMix64::new(3);
        for round in 0..300 {
            let span = 1 + rng.below(2_000_000);
            let n = 1 + rng.below(40) as usize;
            let buckets = partition(&mut rng, span, n);
            let delta = 1 + rng.below(span.min(300_000));
            let got = series_max(&buckets, span, delta);
            let sim: Vec<Bucket> = buckets.iter().map(SpanBucket::bucket).collect();
            let series = dbm_series(&sim, 0, span, delta);
            let want = series_stats(&series);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
            let what = format!("round {round}: span {span}, delta {delta}, {} buckets", buckets.len());
            assert_eq!(got.intervals as usize, series.len(), "{what}");
            assert!(close(got.max, want.max), "{what}: max {} vs {}", got.max, want.max);
            assert!(close(got.mean, want.mean) && close(got.std, want.std), "{what}: {got:?} vs {want:?}");
            let k = (got.max_at / delta) as usize;
            assert!(got.max_at % delta == 0 && close(series[k], want.max), "{what}: max at {}", got.max_at);
            let first = series.iter().position(|&v| close(v, want.max)).unwrap();
            assert_eq!(k, first, "{what}: the first of equal maxima");
            if want.max > 0.0 {
                // The culprit is the flow of the bucket with the largest share of that interval.
                let (a, c) = (k as u64 * delta, ((k as u64 + 1) * delta).min(span));
                let top = buckets.iter().map(|b| b.share(a, c)).fold(0.0, f64::max);
                assert!(buckets.iter().any(|b| b.share(a, c) == top && Some(b.7) == got.culprit), "{what}");
            } else {
                assert_eq!(got.culprit, None);
            }
        }
    }

    /// Algorithm 1 the obvious way: merge the adjacent pair with the smallest combined mass, the earliest first.
    fn merged_by_mass(mut b: Vec<SpanBucket>, m: usize) -> Vec<(u64, u64, u64)> {
        while b.len() > m {
            let i = (0..b.len() - 1).min_by_key(|&i| (b[i].2 + b[i + 1].2, i)).unwrap();
            let y = b.remove(i + 1);
            b[i] = SpanBucket { 1: y.1, 2: b[i].2 + y.2, ..b[i] };
        }
        b.iter().map(|x| (x.0, x.1, x.2)).collect()
    }

    #[test]
    fn merging_down_is_algorithm_1() {
        let mut rng = SplitMix64::new(8);
        for _ in 0..200 {
            let n = 1 + rng.below(60) as usize;
            let buckets = partition(&mut rng, 1_000_000, n);
            let m = 2 + rng.below(20) as usize;
            let mut prng = 1;
            let got = merge_down(buckets.clone(), m, MergeRule::Mm, &mut prng);
            let spans: Vec<(u64, u64, u64)> = got.iter().map(|x| (x.0, x.1, x.2)).collect();
            assert_eq!(spans, merged_by_mass(buckets.clone(), m));
            let flows: u64 = got.iter().map(|b| u64::from(b.8)).sum();
            assert!(got.iter().all(|b| buckets.iter().any(|o| o.7 == b.7)) && flows > 0);
        }
    }
}
