//! Roll-up and retention (bandwidth paper §4, "Long-term archival": "the
//! data can be compacted for larger time scales by reducing granularity for
//! older data"). On the station file's `[retention]` policy, per point and
//! in one transaction each: epochs older than `rollup` are rolled up by the
//! point's core ([`crate::point_core::PointCore::rollup`]: EXPB periods
//! collapsed per hour), the point's horizon moves to the end of the last
//! rolled hour (ingest refuses older epochs from then on), and raw synopses
//! older than `raw` are dropped. On PostgreSQL a day partition of raw
//! synopses left empty is dropped as a whole. Running it again does nothing
//! until another hour has aged.

use crate::config::{HOUR_NS, Retention};
use crate::db::{Db, Val};
use crate::ingest::Station;
use crate::point_core::{Rolled, StoredPoint};
use serde::Serialize;

/// What a roll-up did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RollupReport {
    /// Epochs starting before this were rolled up, ns since 1970-01-01 UTC.
    pub rolled_before_ns: i64,
    /// Raw synopses of epochs starting before this were dropped.
    pub raw_before_ns: i64,
    /// Per point of the station file, in its order.
    pub points: Vec<PointRollup>,
    /// PostgreSQL day partitions of raw synopses dropped.
    pub partitions_dropped: Vec<String>,
}

/// What a roll-up did to one point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PointRollup {
    /// The point.
    pub point: String,
    /// Hours rolled up and the epochs they collapsed.
    #[serde(flatten)]
    pub rolled: Rolled,
    /// Raw synopses dropped.
    pub raw_dropped: u64,
}

/// The horizon of point `id` (epochs starting before it are rolled up), if it was rolled up.
pub(crate) fn horizon(db: &mut Db, id: i64) -> Result<Option<i64>, String> {
    let rows = db.query("SELECT until_ns FROM horizon WHERE point = $1", &[Val::Int(id)])?;
    rows.first().map(|r| r[0].int("until_ns")).transpose()
}

/// The start of the hour holding `t_ns`.
fn hour_of(t_ns: i64) -> i64 {
    t_ns.div_euclid(HOUR_NS) * HOUR_NS
}

impl Station {
    /// Applies the retention policy as of `now_ns` (ns since 1970-01-01 UTC).
    pub fn rollup(&mut self, now_ns: i64) -> Result<RollupReport, String> {
        let Retention { rollup_ns, raw_ns } = self.cfg.retention_policy()?;
        // Whole hours only, and raw synopses only of rolled-up hours.
        let rolled_before_ns = hour_of(now_ns.saturating_sub(rollup_ns));
        let raw_before_ns = hour_of(now_ns.saturating_sub(raw_ns)).min(rolled_before_ns);
        let mut points = Vec::with_capacity(self.cfg.points.len());
        for (point, &id) in self.cfg.points.iter().zip(&self.ids) {
            let p = StoredPoint { id, point };
            let done = self.db.transaction(|db| {
                let horizon = horizon(db, p.id)?.unwrap_or(i64::MIN);
                let mut rolled = Rolled::default();
                if rolled_before_ns > horizon {
                    rolled = point.core.rollup(db, &p, horizon, rolled_before_ns)?;
                    db.execute(
                        "INSERT INTO horizon (point, until_ns) VALUES ($1, $2) \
                         ON CONFLICT (point) DO UPDATE SET until_ns = excluded.until_ns",
                        &[Val::Int(p.id), Val::Int(rolled_before_ns)],
                    )?;
                }
                let raw_dropped = db.execute(
                    "DELETE FROM synopsis WHERE point = $1 AND t_ns < $2",
                    &[Val::Int(p.id), Val::Int(raw_before_ns)],
                )?;
                Ok(PointRollup { point: point.name.clone(), rolled, raw_dropped })
            });
            points.push(done.map_err(|e| format!("point {}: roll-up failed, nothing of it changed: {e}", point.name))?);
        }
        let partitions_dropped = drop_empty_days(&mut self.db, "synopsis", raw_before_ns)?;
        Ok(RollupReport { rolled_before_ns, raw_before_ns, points, partitions_dropped })
    }
}

/// On PostgreSQL, drops the day partitions of `table` that end at or
/// before `before_ns` and hold no row (every point's rows of the day were
/// dropped); their names.
fn drop_empty_days(db: &mut Db, table: &'static str, before_ns: i64) -> Result<Vec<String>, String> {
    if !matches!(db, Db::Postgres { .. }) {
        return Ok(Vec::new());
    }
    let children = db.query(
        "SELECT c.relname::TEXT FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid \
         WHERE i.inhparent = $1::TEXT::regclass ORDER BY 1",
        &[table.into()],
    )?;
    let mut dropped = Vec::new();
    for row in &children {
        let name = row[0].text("partition")?.unwrap_or_default();
        let Some(day) = crate::db::partition_day(table, &name) else { continue };
        if (day + 1) * crate::db::DAY_NS > before_ns {
            continue;
        }
        db.transaction(|db| {
            let rows = db.query(&format!("SELECT 1 FROM {name} LIMIT 1"), &[])?;
            if rows.is_empty() {
                db.drop_partition(table, day)?;
                dropped.push(name.clone());
            }
            Ok(())
        })?;
    }
    Ok(dropped)
}
