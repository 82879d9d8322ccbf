//! EXPB points (Uyeda et al., NSDI 2011, §3.2 Algorithm 2; §3.3 culprits):
//! each period of a point is one epoch of the station. Per time scale Δ_j
//! the station stores the period's mean, standard deviation and maximum of
//! the bandwidth, the start of the interval that set the maximum and its
//! majority flow, so that "all bursts above a rate at a time scale between
//! two times on a set of links" (§1, §4 long-term archival) is one indexed
//! query. EXPB keeps only the maximum of each scale, so it reports at most
//! one burst per period and scale: the largest.
//!
//! Roll-up (§4, "Long-term archival": "one hour of EXPB data could be
//! collapsed into one set of buckets containing max and standard deviation
//! information at the original resolutions but aggregated across the
//! hour"): the periods starting in an hour are merged from their raw
//! synopses into one row per scale — counts, sums and sums of squares add,
//! the first largest maximum keeps its interval and culprit — exactly what
//! the core would report with a period of an hour.

use crate::config::HOUR_NS;
use crate::db::{Db, Val};
use crate::point_core::{
    BandwidthRow, BurstQuery, CheckedEpoch, PointCore, PointEpoch, Rolled, StoredPoint, Synopsis, checked, insert_rows,
    parsed, roll_hours, synopsis_as, typed_config,
};
use netmeas_sim::dbm::{ExpbConfig, ExpbSynopsis, ScaleStats};
use serde::Deserialize;
use serde_json::Value;
use std::any::Any;
use std::path::Path;

/// The station's EXPB core.
pub struct ExpbPoint;

fn config_of(v: &Value) -> Result<ExpbConfig, String> {
    ExpbConfig::deserialize(v).map_err(|e| e.to_string())
}

/// Δ_j of `cfg` in ns for ticks of `tick_ns`.
fn scale_ns(cfg: &ExpbConfig, j: usize, tick_ns: f64) -> i64 {
    (cfg.scale_ticks(j) as f64 * tick_ns).round() as i64
}

/// One scale's statistics over one or more periods, with the interval of
/// the maximum as an absolute time.
#[derive(Clone, Copy, Debug, Default)]
struct ScaleRow {
    count: u64,
    sum: u64,
    sumsq: u128,
    max: u64,
    max_t_ns: i64,
    culprit: u32,
}

impl ScaleRow {
    /// One period's statistics of scale Δ_j = `dj` ns, the period starting at `t_ns`.
    fn of(st: &ScaleStats, t_ns: i64, dj: i64) -> Self {
        ScaleRow {
            count: st.count,
            sum: st.sum,
            sumsq: st.sumsq,
            max: st.max,
            max_t_ns: t_ns + st.max_index as i64 * dj,
            culprit: st.max_flow,
        }
    }

    /// Appends a later period: the first of equal maxima stays (Algorithm 2
    /// replaces the maximum only when an interval exceeds it).
    fn then(self, later: ScaleRow) -> Result<Self, String> {
        let overflow = || "the hour's byte sums overflow 64 bits".to_string();
        let mut m = if self.count == 0 || later.max > self.max { later } else { self };
        m.count = self.count + later.count;
        m.sum = self.sum.checked_add(later.sum).ok_or_else(overflow)?;
        m.sumsq = self.sumsq.checked_add(later.sumsq).ok_or_else(overflow)?;
        Ok(m)
    }

    fn mean(&self) -> f64 {
        self.stats().mean()
    }

    fn std(&self) -> f64 {
        self.stats().std()
    }

    fn stats(&self) -> ScaleStats {
        ScaleStats { count: self.count, sum: self.sum, sumsq: self.sumsq, ..ScaleStats::default() }
    }
}

/// One bandwidth row: scale Δ = `dj` ns over `periods` periods from `t_ns`,
/// as [`insert_bandwidth`] stores it.
fn bandwidth_row(point: i64, t_ns: i64, seq: i64, periods: i64, dj: i64, r: &ScaleRow) -> Vec<Val> {
    // bytes per interval of Δ_j ns → bits/s
    let bps = |bytes: f64| bytes * 8e9 / dj as f64;
    vec![
        Val::Int(point),
        Val::Int(dj),
        Val::Int(t_ns),
        Val::Int(seq),
        Val::Int(periods),
        Val::Int(r.count as i64),
        Val::Real(bps(r.mean())),
        Val::Real(bps(r.std())),
        Val::Real(bps(r.max as f64)),
        Val::Int(r.max_t_ns),
        Val::Int(i64::from(r.culprit)),
    ]
}

/// Stores bandwidth rows (one per scale, as [`bandwidth_row`] makes them)
/// of an epoch or rolled-up hour starting at `t_ns`, in one statement.
pub(crate) fn insert_bandwidth(db: &mut Db, t_ns: i64, rows: &[Vec<Val>]) -> Result<(), String> {
    const COLUMNS: [&str; 11] = [
        "point",
        "scale_ns",
        "t_ns",
        "seq",
        "periods",
        "intervals",
        "mean_bps",
        "std_bps",
        "max_bps",
        "max_t_ns",
        "culprit",
    ];
    insert_rows(db, "bandwidth", t_ns, &COLUMNS, rows)
}

impl PointCore for ExpbPoint {
    fn name(&self) -> &'static str {
        "expb"
    }

    fn config(&self, given: Option<&toml::Value>, base: &Path) -> Result<Value, String> {
        typed_config::<ExpbConfig, _>(given, base, ExpbConfig::validate)
    }

    fn epoch_ticks(&self, config: &Value) -> Option<u64> {
        config_of(config).ok().map(|c| c.period_ticks)
    }

    fn epoch(&self, config: &Value, body: &Value) -> Result<CheckedEpoch, String> {
        let point = config_of(config)?;
        let s = ExpbSynopsis::deserialize(body).map_err(|e| format!("not an EXPB synopsis: {e}"))?;
        if s.config != point {
            return Err("its EXPB config differs from the point's (scales, base interval or period)".into());
        }
        let p = &s.period;
        if p.scales.len() != point.scales {
            return Err(format!("it has {} scales, the config says {}", p.scales.len(), point.scales));
        }
        // Scale j has exactly intervals / 2^j intervals in a period, each
        // maximum at one of them (Algorithm 2 closes every interval).
        for (j, st) in p.scales.iter().enumerate() {
            let n = point.intervals() >> j;
            let bad = st.count != n
                || st.max_index >= n.max(1)
                || st.max > st.sum
                || u128::from(st.max) * u128::from(st.max) > st.sumsq;
            if bad {
                return Err(format!(
                    "scale {j}'s statistics are impossible (count {}, {n} intervals per period; max {} of sum {})",
                    st.count, st.max, st.sum
                ));
            }
        }
        let (seq, overflow) = (p.index, p.interval_saturated);
        checked(seq, overflow, s)
    }

    fn parse(&self, stored: &str) -> Result<Synopsis, String> {
        parsed::<ExpbSynopsis>(stored, "an EXPB synopsis")
    }

    fn store_epoch(&self, db: &mut Db, e: &PointEpoch, synopsis: &(dyn Any + Send)) -> Result<(), String> {
        let s = synopsis_as::<ExpbSynopsis>(synopsis)?;
        let rows: Vec<Vec<Val>> = (s.period.scales.iter().enumerate())
            .map(|(j, st)| {
                let dj = scale_ns(&s.config, j, e.tick_ns);
                bandwidth_row(e.point, e.t_ns, e.seq, 1, dj, &ScaleRow::of(st, e.t_ns, dj))
            })
            .collect();
        insert_bandwidth(db, e.t_ns, &rows)
    }

    fn rollup(&self, db: &mut Db, p: &StoredPoint<'_>, from_ns: i64, until_ns: i64) -> Result<Rolled, String> {
        let cfg = config_of(&p.point.config)?;
        let scales: Vec<i64> = (0..cfg.scales).map(|j| scale_ns(&cfg, j, p.point.tick_ns)).collect();
        roll_hours(db, "synopsis", false, p.id, from_ns, until_ns, |db, hour| {
            let end = hour + HOUR_NS;
            let rows = db.query(
                "SELECT seq, t_ns, body FROM synopsis WHERE point = $1 AND t_ns >= $2 AND t_ns < $3 ORDER BY seq",
                &[Val::Int(p.id), Val::Int(hour), Val::Int(end)],
            )?;
            let mut merged = vec![ScaleRow::default(); cfg.scales];
            let mut first_seq = None;
            for r in &rows {
                let (seq, t_ns) = (r[0].int("seq")?, r[1].int("t_ns")?);
                let body = r[2].text("body")?.unwrap_or_default();
                let s: ExpbSynopsis = serde_json::from_str(&body)
                    .map_err(|e| format!("the stored synopsis of epoch {seq} is not an EXPB synopsis: {e}"))?;
                for ((m, st), &dj) in merged.iter_mut().zip(&s.period.scales).zip(&scales) {
                    *m = m.then(ScaleRow::of(st, t_ns, dj))?;
                }
                first_seq.get_or_insert(seq);
            }
            db.execute(
                "DELETE FROM bandwidth WHERE point = $1 AND t_ns >= $2 AND t_ns < $3",
                &[Val::Int(p.id), Val::Int(hour), Val::Int(end)],
            )?;
            let periods = rows.len() as i64;
            let first_seq = first_seq.unwrap_or_default();
            let hour_rows: Vec<Vec<Val>> = merged
                .iter()
                .zip(&scales)
                .map(|(m, &dj)| bandwidth_row(p.id, hour, first_seq, periods, dj, m))
                .collect();
            insert_bandwidth(db, hour, &hour_rows)?;
            Ok(rows.len() as u64)
        })
    }

    /// §3.2.2: the bandwidth at Δ is read at the smallest Δ_j ≥ Δ; a scale
    /// finer than Δ_1 or coarser than Δ_m is not answered (an error).
    fn bandwidth(&self, db: &mut Db, q: &BurstQuery) -> Result<Option<Vec<BandwidthRow>>, String> {
        let cfg = config_of(&q.config)?;
        let scales: Vec<i64> = (0..cfg.scales).map(|j| scale_ns(&cfg, j, q.tick_ns)).collect();
        let Some(&dj) = scales.iter().find(|&&d| d >= q.scale_ns) else {
            return Err(format!(
                "the EXPB measures time scales {} ns to {} ns; {} ns is coarser",
                scales[0],
                scales[scales.len() - 1],
                q.scale_ns
            ));
        };
        if q.scale_ns < scales[0] {
            return Err(format!("the EXPB's finest time scale is {} ns; {} ns is finer", scales[0], q.scale_ns));
        }
        let rows = db.query(
            "SELECT t_ns, periods, mean_bps, std_bps, max_bps, max_t_ns, culprit FROM bandwidth \
             WHERE point = $1 AND scale_ns = $2 AND t_ns >= $3 AND t_ns < $4 AND max_bps > $5 ORDER BY t_ns",
            &[Val::Int(q.point), Val::Int(dj), Val::Int(q.from_ns), Val::Int(q.to_ns), Val::Real(q.rate_bps)],
        )?;
        rows.iter()
            .map(|r| {
                Ok(BandwidthRow {
                    t_ns: r[0].int("t_ns")?,
                    periods: r[1].int("periods")?,
                    scale_ns: dj,
                    mean_bps: r[2].real("mean_bps")?,
                    std_bps: r[3].real("std_bps")?,
                    max_bps: r[4].real("max_bps")?,
                    max_t_ns: r[5].int("max_t_ns")?,
                    culprit: Some(r[6].int("culprit")? as u32),
                })
            })
            .collect::<Result<Vec<_>, String>>()
            .map(Some)
    }

    fn measures_bandwidth(&self) -> bool {
        true
    }
}
