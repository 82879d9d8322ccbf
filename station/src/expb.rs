//! EXPB points (Uyeda et al., NSDI 2011, §3.2 Algorithm 2; §3.3 culprits):
//! each period of a point is one epoch of the station. Per time scale Δ_j
//! the station stores the period's mean, standard deviation and maximum of
//! the bandwidth, the start of the interval that set the maximum and its
//! majority flow, so that "all bursts above a rate at a time scale between
//! two times on a set of links" (§1, §4 long-term archival) is one indexed
//! query. EXPB keeps only the maximum of each scale, so it reports at most
//! one burst per period and scale: the largest.

use crate::db::{Db, Val};
use crate::point_core::{Burst, BurstQuery, PointCore, PointEpoch, insert_row, typed_config};
use netmeas_sim::dbm::{ExpbConfig, ExpbSynopsis};
use serde_json::Value;
use std::path::Path;

/// The station's EXPB core.
pub struct ExpbPoint;

fn config_of(v: &Value) -> Result<ExpbConfig, String> {
    serde_json::from_value(v.clone()).map_err(|e| e.to_string())
}

/// Δ_j of `cfg` in ns for ticks of `tick_ns`.
fn scale_ns(cfg: &ExpbConfig, j: usize, tick_ns: f64) -> i64 {
    (cfg.scale_ticks(j) as f64 * tick_ns).round() as i64
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

    fn epoch(&self, config: &Value, body: &Value) -> Result<(u64, Value), String> {
        let point = config_of(config)?;
        let s: ExpbSynopsis = serde_json::from_value(body.clone()).map_err(|e| format!("not an EXPB synopsis: {e}"))?;
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
        let canonical = serde_json::to_value(&s).map_err(|e| e.to_string())?;
        Ok((p.index, canonical))
    }

    fn store_epoch(&self, db: &mut Db, e: &PointEpoch, body: &Value) -> Result<(), String> {
        let s: ExpbSynopsis = serde_json::from_value(body.clone()).map_err(|e| e.to_string())?;
        for (j, st) in s.period.scales.iter().enumerate() {
            let dj = scale_ns(&s.config, j, e.tick_ns);
            // bytes per interval of Δ_j ns → bits/s
            let bps = |bytes: f64| bytes * 8e9 / dj as f64;
            insert_row(
                db,
                "bandwidth",
                e.t_ns,
                &[
                    "point",
                    "scale_ns",
                    "t_ns",
                    "seq",
                    "intervals",
                    "mean_bps",
                    "std_bps",
                    "max_bps",
                    "max_t_ns",
                    "culprit",
                ],
                &[
                    Val::Int(e.point),
                    Val::Int(dj),
                    Val::Int(e.t_ns),
                    Val::Int(e.seq),
                    Val::Int(st.count as i64),
                    Val::Real(bps(st.mean())),
                    Val::Real(bps(st.std())),
                    Val::Real(bps(st.max as f64)),
                    Val::Int(e.t_ns + st.max_index as i64 * dj),
                    Val::Int(i64::from(st.max_flow)),
                ],
            )?;
        }
        Ok(())
    }

    /// §3.2.2: the bandwidth at Δ is read at the smallest Δ_j ≥ Δ; a scale
    /// finer than Δ_1 or coarser than Δ_m is not answered (an error).
    fn bursts(&self, db: &mut Db, q: &BurstQuery) -> Result<Option<Vec<Burst>>, String> {
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
            "SELECT t_ns, max_t_ns, max_bps, culprit FROM bandwidth \
             WHERE point = $1 AND scale_ns = $2 AND t_ns >= $3 AND t_ns < $4 AND max_bps > $5 ORDER BY t_ns",
            &[Val::Int(q.point), Val::Int(dj), Val::Int(q.from_ns), Val::Int(q.to_ns), Val::Real(q.rate_bps)],
        )?;
        rows.iter()
            .map(|r| {
                Ok(Burst {
                    epoch_ns: r[0].int("t_ns")?,
                    t_ns: r[1].int("max_t_ns")?,
                    scale_ns: dj,
                    rate_bps: r[2].real("max_bps")?,
                    culprit: Some(r[3].int("culprit")? as u32),
                })
            })
            .collect::<Result<Vec<_>, String>>()
            .map(Some)
    }

    fn pairs(&self) -> bool {
        false
    }

    fn store_pair(
        &self,
        _db: &mut Db,
        _pair: &crate::point_core::PairedEpoch,
        _sender: &Value,
        _receiver: &Value,
    ) -> Result<(), String> {
        Err("EXPB points do not pair".into())
    }
}
