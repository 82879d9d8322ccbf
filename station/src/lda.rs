//! LDA points (Kompella et al., ToN 2012): each end of a measurement segment
//! reports an [`LdaSynopsis`] per epoch; the station pairs the sender's and
//! the receiver's of the same epoch and stores the §III-D mean with its
//! eq. (1) 98 % Hoeffding bound, the §III-E standard deviation and the loss,
//! in ns, one row per segment and epoch (the MPlane monitoring station, §II).

use crate::db::{Db, Val};
use crate::point_core::{
    CheckedEpoch, LATENCY_COLUMNS, PairedEpoch, PointCore, Synopsis, insert_row, synopsis_as, typed_config,
};
use netmeas_sim::lda::config::LdaConfig;
use netmeas_sim::lda::estimate::{PairError, check_pair, estimate};
use netmeas_sim::lda::model::LdaSynopsis;
use serde::Deserialize;
use serde_json::Value;
use std::any::Any;
use std::path::Path;

/// The station's LDA core.
pub struct LdaPoint;

impl PointCore for LdaPoint {
    fn name(&self) -> &'static str {
        "lda"
    }

    fn config(&self, given: Option<&toml::Value>, base: &Path) -> Result<Value, String> {
        typed_config::<LdaConfig, _>(given, base, LdaConfig::validate)
    }

    fn epoch(&self, config: &Value, body: &Value) -> Result<CheckedEpoch, String> {
        let point = LdaConfig::deserialize(config).map_err(|e| e.to_string())?;
        let s = LdaSynopsis::deserialize(body).map_err(|e| format!("not an LDA synopsis: {e}"))?;
        if !s.config.same_measurement(&point) {
            return Err("its LDA config differs from the point's (rows, banks, thresholds, key or seed)".into());
        }
        // A synopsis paired with itself passes every check of a pair but the
        // sticky overflow flag, which is stored: the pairing reports it.
        match check_pair(&s, &s) {
            Ok(()) | Err(PairError::Overflow) => {}
            Err(e) => return Err(e.to_string()),
        }
        let text = serde_json::to_string(&s).map_err(|e| e.to_string())?;
        Ok(CheckedEpoch { seq: u64::from(s.seq), synopsis: Box::new(s), text })
    }

    fn parse(&self, stored: &str) -> Result<Synopsis, String> {
        let s: LdaSynopsis = serde_json::from_str(stored).map_err(|e| format!("not an LDA synopsis: {e}"))?;
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
        let (a, b) = (synopsis_as::<LdaSynopsis>(sender)?, synopsis_as::<LdaSynopsis>(receiver)?);
        let int = |v: u64| Val::Int(v as i64);
        let values = match estimate(a, b) {
            Ok(e) => vec![
                int(e.sent),
                int(e.received),
                e.loss.into(),
                int(e.samples),
                (e.mean * p.tick_ns).into(),
                (e.std * p.tick_ns).into(),
                (e.mean_bound_98 * p.tick_ns).into(),
                Val::Null,
            ],
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
        let mut row = vec![Val::Int(p.segment), Val::Int(p.seq), Val::Int(p.t_ns)];
        row.extend(values);
        insert_row(db, "latency", p.t_ns, &LATENCY_COLUMNS, &row)
    }
}
