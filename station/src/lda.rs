//! LDA points (Kompella et al., ToN 2012): each end of a measurement segment
//! reports an [`LdaSynopsis`] per epoch; the station pairs the sender's and
//! the receiver's of the same epoch and stores the §III-D mean with its
//! eq. (1) 98 % Hoeffding bound, the §III-E standard deviation and the loss,
//! in ns, one row per segment and epoch (the MPlane monitoring station, §II).

use crate::db::Db;
use crate::point_core::{
    CheckedEpoch, LatencyEstimate, PairedEpoch, PointCore, Synopsis, checked, insert_latency, parsed, synopsis_as,
    typed_config,
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
        checked(u64::from(s.seq), s.overflow, s)
    }

    fn parse(&self, stored: &str) -> Result<Synopsis, String> {
        parsed::<LdaSynopsis>(stored, "an LDA synopsis")
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
        let row = match estimate(a, b) {
            Ok(e) => Ok(LatencyEstimate {
                sent: e.sent,
                received: e.received,
                loss: Some(e.loss),
                samples: e.samples,
                mean_ns: Some(e.mean * p.tick_ns),
                std_ns: Some(e.std * p.tick_ns),
                bound98_ns: Some(e.mean_bound_98 * p.tick_ns),
            }),
            Err(why) => Err((a.packets, b.packets, why.to_string())),
        };
        insert_latency(db, p, row)
    }
}
