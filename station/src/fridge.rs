//! Fridge points (Zheng, Chen, Braverman, Rexford, "Unbiased Delay
//! Measurement in the Data Plane"): each epoch of a point is one flip of
//! the core's histograms (§6.2: per fridge, 32 log2 delay bins of
//! {samples, Σ correction factor, Σ factor²}). The station keeps each
//! epoch's histograms, so that any percentile of the service's delay can be
//! asked per epoch (the CDF of §3.3 from the histograms, fridges combined
//! by inverse-variance weighting, §4.2).
//!
//! Roll-up: the histograms of the epochs starting in an hour add up bin by
//! bin into one — what the core would freeze with an epoch of an hour, as
//! its entries survive a flip.

use crate::config::HOUR_NS;
use crate::db::{Db, Val};
use crate::point_core::{
    CheckedEpoch, DelayQuery, DelayRow, PointCore, PointEpoch, Rolled, StoredPoint, Synopsis, checked, insert_row,
    parsed, roll_hours, synopsis_as, typed_config,
};
use netmeas_sim::fridge::{FRIDGE_BINS, FridgeConfig, FridgeSynopsis, HistBin, histogram_cdf};
use serde::Deserialize;
use serde_json::Value;
use std::any::Any;
use std::path::Path;

/// The station's fridge core.
pub struct FridgePoint;

fn config_of(v: &Value) -> Result<FridgeConfig, String> {
    FridgeConfig::deserialize(v).map_err(|e| e.to_string())
}

/// The config without its export name: what two points must share.
fn measured(c: &FridgeConfig) -> FridgeConfig {
    FridgeConfig { name: None, ..c.clone() }
}

/// One bin as the station keeps it: samples, Σ factor (8 fractional bits),
/// Σ factor², each summed without wrapping (saturating) across the epochs of
/// a rolled-up hour. Stored as a JSON array.
type StoredBin = (u64, u64, u64);

/// Stores a histogram row: `periods` epochs from `t_ns`.
fn insert_hist(
    db: &mut Db,
    point: i64,
    t_ns: i64,
    seq: i64,
    periods: i64,
    overflow: bool,
    bins: &[StoredBin],
) -> Result<(), String> {
    let samples = bins.iter().fold(0u64, |a, b| a.saturating_add(b.0));
    let text = serde_json::to_string(bins).map_err(|e| e.to_string())?;
    insert_row(
        db,
        "delay_hist",
        t_ns,
        &["point", "t_ns", "seq", "periods", "samples", "overflow", "bins"],
        &[
            Val::Int(point),
            Val::Int(t_ns),
            Val::Int(seq),
            Val::Int(periods),
            Val::Int(samples.min(i64::MAX as u64) as i64),
            Val::Int(i64::from(overflow)),
            Val::Text(text),
        ],
    )
}

fn stored_bins(v: &Val) -> Result<Vec<StoredBin>, String> {
    serde_json::from_str(&v.text("bins")?.unwrap_or_default())
        .map_err(|e| format!("a stored fridge histogram is not a list of bins: {e}"))
}

impl PointCore for FridgePoint {
    fn name(&self) -> &'static str {
        "fridge"
    }

    fn config(&self, given: Option<&toml::Value>, base: &Path) -> Result<Value, String> {
        typed_config::<FridgeConfig, _>(given, base, FridgeConfig::validate)
    }

    fn epoch(&self, config: &Value, body: &Value) -> Result<CheckedEpoch, String> {
        let point = config_of(config)?;
        let s = FridgeSynopsis::deserialize(body).map_err(|e| format!("not a fridge synopsis: {e}"))?;
        if measured(&s.config) != measured(&point) {
            return Err("its fridge config differs from the point's (entries, probabilities, bin shift or seed)".into());
        }
        let want = point.fridges() * FRIDGE_BINS;
        if s.histograms.len() != want {
            return Err(format!(
                "it has {} histogram bins, the config's {} fridges have {want}",
                s.histograms.len(),
                point.fridges()
            ));
        }
        if let Some(b) = s.histograms.iter().position(|h| h.count == 0 && (h.wsum != 0 || h.w2sum != 0)) {
            return Err(format!("bin {b} has weight without a sample"));
        }
        checked(s.epoch, s.overflow, s)
    }

    fn parse(&self, stored: &str) -> Result<Synopsis, String> {
        parsed::<FridgeSynopsis>(stored, "a fridge synopsis")
    }

    fn store_epoch(&self, db: &mut Db, e: &PointEpoch, synopsis: &(dyn Any + Send)) -> Result<(), String> {
        let s = synopsis_as::<FridgeSynopsis>(synopsis)?;
        let bins: Vec<StoredBin> = s.histograms.iter().map(|h| (u64::from(h.count), h.wsum, h.w2sum)).collect();
        insert_hist(db, e.point, e.t_ns, e.seq, 1, s.overflow, &bins)
    }

    fn rollup(&self, db: &mut Db, p: &StoredPoint<'_>, from_ns: i64, until_ns: i64) -> Result<Rolled, String> {
        roll_hours(db, "delay_hist", true, p.id, from_ns, until_ns, |db, hour| {
            let end = hour + HOUR_NS;
            let rows = db.query(
                "SELECT seq, periods, overflow, bins FROM delay_hist \
                 WHERE point = $1 AND t_ns >= $2 AND t_ns < $3 ORDER BY t_ns",
                &[Val::Int(p.id), Val::Int(hour), Val::Int(end)],
            )?;
            let (mut sum, mut overflow, mut periods, mut first_seq) = (Vec::<StoredBin>::new(), false, 0, None);
            for r in &rows {
                let bins = stored_bins(&r[3])?;
                if sum.is_empty() {
                    sum = vec![(0, 0, 0); bins.len()];
                }
                if bins.len() != sum.len() {
                    return Err(format!(
                        "epoch {} has {} bins, the hour's others {}",
                        r[0].int("seq")?,
                        bins.len(),
                        sum.len()
                    ));
                }
                for (s, b) in sum.iter_mut().zip(&bins) {
                    let added = (s.0.checked_add(b.0), s.1.checked_add(b.1), s.2.checked_add(b.2));
                    overflow |= added.0.is_none() || added.1.is_none() || added.2.is_none();
                    *s = (s.0.saturating_add(b.0), s.1.saturating_add(b.1), s.2.saturating_add(b.2));
                }
                overflow |= r[2].int("overflow")? != 0;
                periods += r[1].int("periods")?;
                first_seq.get_or_insert(r[0].int("seq")?);
            }
            db.execute(
                "DELETE FROM delay_hist WHERE point = $1 AND t_ns >= $2 AND t_ns < $3",
                &[Val::Int(p.id), Val::Int(hour), Val::Int(end)],
            )?;
            insert_hist(db, p.id, hour, first_seq.unwrap_or_default(), periods, overflow, &sum)?;
            Ok(periods as u64)
        })
    }

    /// The quantiles of the delay per epoch (or rolled-up hour): the §3.3
    /// CDF of the histograms, each bin's mass spread linearly inside it.
    fn delays(&self, db: &mut Db, q: &DelayQuery) -> Result<Option<Vec<DelayRow>>, String> {
        let cfg = config_of(&q.config)?;
        let rows = db.query(
            "SELECT t_ns, periods, samples, overflow, bins FROM delay_hist \
             WHERE point = $1 AND t_ns >= $2 AND t_ns < $3 ORDER BY t_ns",
            &[Val::Int(q.point), Val::Int(q.from_ns), Val::Int(q.to_ns)],
        )?;
        rows.iter()
            .map(|r| {
                // The CDF reads the two weight sums only.
                let hist: Vec<HistBin> = stored_bins(&r[4])?
                    .iter()
                    .map(|b| HistBin { count: b.0.min(u64::from(u32::MAX)) as u32, wsum: b.1, w2sum: b.2 })
                    .collect();
                let cdf = histogram_cdf(&hist, cfg.fridges(), cfg.bin_shift);
                Ok(DelayRow {
                    t_ns: r[0].int("t_ns")?,
                    periods: r[1].int("periods")?,
                    samples: r[2].int("samples")?,
                    overflow: r[3].int("overflow")? != 0,
                    quantiles_ns: q
                        .quantiles
                        .iter()
                        .map(|&y| cdf.as_ref().map(|c| c.quantile(y) * q.tick_ns))
                        .collect(),
                })
            })
            .collect::<Result<Vec<_>, String>>()
            .map(Some)
    }
}
