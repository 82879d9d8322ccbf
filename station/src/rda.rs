//! RDA points (Fu, Barlet-Ros, Li, ToN 2018): each end of a measurement
//! segment reports an [`RdaSynopsis`] per measurement interval; the station
//! pairs the sender's and the receiver's of the same interval, decodes the
//! set difference (§V Algorithm 1, peeling) and estimates the delay from the
//! buckets the difference left usable (§V, Algorithm 3 for the standard
//! deviation). It stores the mean, standard deviation and loss as a latency
//! row of the segment, like an LDA segment's, and the lost and reordered
//! packet IDs (§III) as a packet-difference row.
//!
//! The station has no per-packet timestamps, so the buckets that held a
//! decoded packet are left out of the estimate (the host's
//! `netmeas estimate rda` does the same with saved synopses).

use crate::db::{Db, Val};
use crate::point_core::{
    CheckedEpoch, LATENCY_COLUMNS, PairedEpoch, PointCore, Synopsis, insert_row, synopsis_as, typed_config,
};
use netmeas_sim::rda::decode::check_pair;
use netmeas_sim::rda::{RdaConfig, RdaHashes, RdaPairError, RdaSynopsis, reconcile};
use serde::Deserialize;
use serde_json::Value;
use std::any::Any;
use std::path::Path;

/// The station's RDA core.
pub struct RdaPoint;

fn config_of(v: &Value) -> Result<RdaConfig, String> {
    RdaConfig::deserialize(v).map_err(|e| e.to_string())
}

/// A float the estimators give, or NULL when it is not a number (no usable bucket).
fn real(v: f64) -> Val {
    if v.is_finite() { Val::Real(v) } else { Val::Null }
}

impl PointCore for RdaPoint {
    fn name(&self) -> &'static str {
        "rda"
    }

    fn config(&self, given: Option<&toml::Value>, base: &Path) -> Result<Value, String> {
        typed_config::<RdaConfig, _>(given, base, RdaConfig::validate)
    }

    /// The measurement interval δ (`interval_ticks`).
    fn epoch_ticks(&self, config: &Value) -> Option<u64> {
        config_of(config).ok().map(|c| c.interval_ticks)
    }

    fn epoch(&self, config: &Value, body: &Value) -> Result<CheckedEpoch, String> {
        let point = config_of(config)?;
        let s = RdaSynopsis::deserialize(body).map_err(|e| format!("not an RDA synopsis: {e}"))?;
        if !s.config.same_measurement(&point) || s.config.interval_ticks != point.interval_ticks {
            return Err("its RDA config differs from the point's (banks, buckets, sum width, seed or interval)".into());
        }
        // A synopsis paired with itself passes every check of a pair but the
        // sticky overflow flag, which is stored: the pairing reports it.
        match check_pair(&s, &s) {
            Ok(()) | Err(RdaPairError::Overflow) => {}
            Err(e) => return Err(e.to_string()),
        }
        let text = serde_json::to_string(&s).map_err(|e| e.to_string())?;
        Ok(CheckedEpoch { seq: u64::from(s.interval), synopsis: Box::new(s), text })
    }

    fn parse(&self, stored: &str) -> Result<Synopsis, String> {
        let s: RdaSynopsis = serde_json::from_str(stored).map_err(|e| format!("not an RDA synopsis: {e}"))?;
        Ok(Box::new(s))
    }

    fn pairs(&self) -> bool {
        true
    }

    fn store_pair(
        &self,
        db: &mut Db,
        p: &PairedEpoch,
        sender: &(dyn Any + Send),
        receiver: &(dyn Any + Send),
    ) -> Result<(), String> {
        let (a, b) = (synopsis_as::<RdaSynopsis>(sender)?, synopsis_as::<RdaSynopsis>(receiver)?);
        let int = |v: u64| Val::Int(v as i64);
        let key = [Val::Int(p.segment), Val::Int(p.seq), Val::Int(p.t_ns)];
        let latency = match reconcile(a, b, &RdaHashes::new(&a.config), None) {
            Ok(e) => {
                let d = &e.decode;
                let ids = |v: &[u64]| serde_json::to_string(v).map_err(|e| e.to_string());
                let mut row = key.to_vec();
                row.extend([
                    Val::Int(i64::from(d.complete)),
                    Val::Int(d.residual_buckets as i64),
                    Val::Text(ids(&d.lost)?),
                    Val::Text(ids(&d.reordered)?),
                ]);
                insert_row(
                    db,
                    "packet_diff",
                    p.t_ns,
                    &["segment", "seq", "t_ns", "complete", "residual_buckets", "lost", "reordered"],
                    &row,
                )?;
                // Lost when the decode is the whole difference (§III: only the sender saw them).
                let loss =
                    if d.complete && e.sent > 0 { Val::Real(d.lost.len() as f64 / e.sent as f64) } else { Val::Null };
                vec![
                    int(e.sent),
                    int(e.received),
                    loss,
                    int(e.samples),
                    real(e.mean * p.tick_ns),
                    real(e.std * p.tick_ns),
                    Val::Null,
                    Val::Null,
                ]
            }
            Err(why) => vec![
                int(a.packets),
                int(b.packets),
                Val::Null,
                Val::Int(0),
                Val::Null,
                Val::Null,
                Val::Null,
                why.to_string().into(),
            ],
        };
        let mut row = key.to_vec();
        row.extend(latency);
        insert_row(db, "latency", p.t_ns, &LATENCY_COLUMNS, &row)
    }
}
