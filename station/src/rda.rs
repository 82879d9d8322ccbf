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
    CheckedEpoch, LatencyEstimate, PairedEpoch, PointCore, Synopsis, checked, insert_latency, insert_row, parsed,
    synopsis_as, typed_config,
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

/// A float the estimators give, or none when it is not a number (no usable bucket).
fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
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
        checked(u64::from(s.interval), s.overflow, s)
    }

    fn parse(&self, stored: &str) -> Result<Synopsis, String> {
        parsed::<RdaSynopsis>(stored, "an RDA synopsis")
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
        let key = [Val::Int(p.segment), Val::Int(p.seq), Val::Int(p.t_ns)];
        let row = match reconcile(a, b, &RdaHashes::new(&a.config), None) {
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
                let loss = (d.complete && e.sent > 0).then(|| d.lost.len() as f64 / e.sent as f64);
                Ok(LatencyEstimate {
                    sent: e.sent,
                    received: e.received,
                    loss,
                    samples: e.samples,
                    mean_ns: finite(e.mean * p.tick_ns),
                    std_ns: finite(e.std * p.tick_ns),
                    bound98_ns: None,
                })
            }
            Err(why) => Err((a.packets, b.packets, why.to_string())),
        };
        insert_latency(db, p, row)
    }
}
