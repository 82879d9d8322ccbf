//! What the station does per core: read a point's core config, check an
//! epoch's synopsis against it, and (for the cores measured between two
//! points) estimate a paired epoch. One implementation per core, found by
//! name in [`POINT_CORES`]; the ingest and the queries never match on a
//! core's name.

use crate::db::{Db, Val};
use serde_json::Value;
use std::any::Any;
use std::path::Path;

/// One epoch's synopsis in its core's own type (an `LdaSynopsis`, an
/// `ExpbSynopsis`, …), parsed once per ingest and handed back to the core
/// that made it.
pub type Synopsis = Box<dyn Any + Send>;

/// An epoch's synopsis checked against its point's config.
pub struct CheckedEpoch {
    /// The epoch number.
    pub seq: u64,
    /// The synopsis, parsed.
    pub synopsis: Synopsis,
    /// The canonical JSON the station stores.
    pub text: String,
    /// The synopsis carries a sticky overflow or saturation flag of its
    /// core: some of its figures may have wrapped or saturated.
    pub overflow: bool,
}

/// Synopsis `s` of epoch `seq`, checked, with the canonical JSON the
/// station stores and whether it carries an overflow flag.
pub fn checked<T: serde::Serialize + Send + 'static>(seq: u64, overflow: bool, s: T) -> Result<CheckedEpoch, String> {
    let text = serde_json::to_string(&s).map_err(|e| e.to_string())?;
    Ok(CheckedEpoch { seq, synopsis: Box::new(s), text, overflow })
}

/// A stored synopsis parsed as its core's type `T` (`what` names it: "an LDA synopsis", …).
pub fn parsed<T: serde::de::DeserializeOwned + Send + 'static>(stored: &str, what: &str) -> Result<Synopsis, String> {
    let s: T = serde_json::from_str(stored).map_err(|e| format!("not {what}: {e}"))?;
    Ok(Box::new(s))
}

/// The synopsis `s` as the core's type `T`, or an error (a core handed another core's synopsis).
pub fn synopsis_as<T: 'static>(s: &(dyn Any + Send)) -> Result<&T, String> {
    s.downcast_ref::<T>().ok_or_else(|| format!("not a {} synopsis", std::any::type_name::<T>()))
}

/// The station's side of one core.
pub trait PointCore: Sync {
    /// The core's registry name (`lda`, …).
    fn name(&self) -> &'static str;

    /// The point's core config: `None` for the core's default, a TOML table
    /// inline, or a string naming a TOML/JSON file (relative to `base`).
    /// Validated; returned as the canonical JSON the station stores.
    fn config(&self, given: Option<&toml::Value>, base: &Path) -> Result<Value, String>;

    /// Checks one epoch's synopsis (`body`, the JSON a point reports) against
    /// the point's `config`: its epoch number, the synopsis parsed and the
    /// canonical JSON to store.
    fn epoch(&self, config: &Value, body: &Value) -> Result<CheckedEpoch, String>;

    /// Parses a synopsis the station stored (canonical JSON of
    /// [`Self::epoch`]), to pair it with its other end.
    fn parse(&self, stored: &str) -> Result<Synopsis, String>;

    /// The core's own epoch in ticks, when its config sets it (an EXPB
    /// period); the point's `epoch` must then be that long.
    fn epoch_ticks(&self, _config: &Value) -> Option<u64> {
        None
    }

    /// Stores what one point's epoch gives on its own (EXPB: the bandwidth
    /// per time scale), in the open transaction. Nothing by default.
    fn store_epoch(&self, _db: &mut Db, _epoch: &PointEpoch, _synopsis: &(dyn Any + Send)) -> Result<(), String> {
        Ok(())
    }

    /// Whether the core measures bandwidth ([`Self::bandwidth`] answers).
    fn measures_bandwidth(&self) -> bool {
        false
    }

    /// The bandwidth of one point at time scale `scale_ns` (or the next
    /// coarser scale the core measures) per epoch (or rolled-up hour)
    /// starting in `[from_ns, to_ns)` whose maximum exceeded `rate_bps`, in
    /// time order: the bursts, or with a negative rate the whole series.
    /// None when the core does not measure bandwidth.
    fn bandwidth(&self, _db: &mut Db, _q: &BurstQuery) -> Result<Option<Vec<BandwidthRow>>, String> {
        Ok(None)
    }

    /// The quantiles of the delay a point measures on its own (a fridge's
    /// histograms) per epoch (or rolled-up hour) starting in `[from_ns,
    /// to_ns)`, in time order. None when the core measures no delay
    /// distribution.
    fn delays(&self, _db: &mut Db, _q: &DelayQuery) -> Result<Option<Vec<DelayRow>>, String> {
        Ok(None)
    }

    /// Rolls up the point's epochs starting in `[from_ns, until_ns)` (whole
    /// hours) where the core keeps older data at a coarser grain (EXPB: each
    /// hour's periods collapsed into one row per scale, bandwidth paper §4),
    /// from the raw synopses, in the open transaction. Nothing by default.
    fn rollup(&self, _db: &mut Db, _point: &StoredPoint<'_>, _from_ns: i64, _until_ns: i64) -> Result<Rolled, String> {
        Ok(Rolled::default())
    }

    /// Whether the core measures between a sender and a receiver point, so
    /// that epochs pair across a segment ([`Self::store_pair`]). No by default.
    fn pairs(&self) -> bool {
        false
    }

    /// Estimates a paired epoch (`seq`, starting at `t_ns`) of `segment` from
    /// its sender's and receiver's stored synopses, with timestamps of
    /// `tick_ns` each, and stores the estimates (or why there are none) in
    /// the open transaction. An error for a core that does not pair.
    fn store_pair(
        &self,
        _db: &mut Db,
        _pair: &PairedEpoch,
        _sender: &(dyn Any + Send),
        _receiver: &(dyn Any + Send),
    ) -> Result<(), String> {
        Err(format!("{} points do not pair", self.name()))
    }
}

/// A segment's epoch whose two ends are both stored.
#[derive(Clone, Debug)]
pub struct PairedEpoch {
    /// The segment's row id.
    pub segment: i64,
    /// The epoch number.
    pub seq: i64,
    /// The epoch's start, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// One timestamp tick of the points, ns.
    pub tick_ns: f64,
}

/// One stored epoch of one point.
#[derive(Clone, Debug)]
pub struct PointEpoch {
    /// The point's row id.
    pub point: i64,
    /// The epoch number.
    pub seq: i64,
    /// The epoch's start, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// One timestamp tick of the point, ns.
    pub tick_ns: f64,
}

/// A point of the station file with its row id.
#[derive(Clone, Copy)]
pub struct StoredPoint<'a> {
    /// The point's row id.
    pub id: i64,
    /// The point.
    pub point: &'a crate::config::Point,
}

/// What a roll-up did to one point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Rolled {
    /// Hours now kept as one row each.
    pub hours: u64,
    /// Epochs collapsed into them.
    pub epochs: u64,
}

/// A burst question to one point.
#[derive(Clone, Debug)]
pub struct BurstQuery {
    /// The point's row id.
    pub point: i64,
    /// The point's core config, canonical JSON.
    pub config: Value,
    /// One timestamp tick of the point, ns.
    pub tick_ns: f64,
    /// The time scale asked for, ns.
    pub scale_ns: i64,
    /// The rate a burst exceeds, bits/s.
    pub rate_bps: f64,
    /// Epochs starting at or after this, ns since 1970-01-01 UTC.
    pub from_ns: i64,
    /// Epochs starting before this.
    pub to_ns: i64,
}

/// A delay-distribution question to one point.
#[derive(Clone, Debug)]
pub struct DelayQuery {
    /// The point's row id.
    pub point: i64,
    /// The point's core config, canonical JSON.
    pub config: Value,
    /// One timestamp tick of the point, ns.
    pub tick_ns: f64,
    /// The quantiles asked for, each in [0, 1].
    pub quantiles: Vec<f64>,
    /// Epochs starting at or after this, ns since 1970-01-01 UTC.
    pub from_ns: i64,
    /// Epochs starting before this.
    pub to_ns: i64,
}

/// One point's delay distribution over one epoch (or rolled-up hour).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DelayRow {
    /// Start of the epoch (of the hour, when rolled up), ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// Epochs the row stands for: 1, or an hour's when rolled up.
    pub periods: i64,
    /// Delay samples behind it.
    pub samples: i64,
    /// A histogram field wrapped: the distribution is unreliable.
    pub overflow: bool,
    /// The delay at each quantile asked for, ns; None without a sample.
    pub quantiles_ns: Vec<Option<f64>>,
}

/// One point's bandwidth at one time scale over one epoch (or rolled-up hour).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BandwidthRow {
    /// Start of the epoch (of the hour, when rolled up), ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// Epochs the row stands for: 1, or an hour's when rolled up.
    pub periods: i64,
    /// The time scale, ns.
    pub scale_ns: i64,
    /// Mean rate over the intervals of that scale, bits/s.
    pub mean_bps: f64,
    /// Standard deviation of the intervals' rates, bits/s.
    pub std_bps: f64,
    /// The largest interval's rate, bits/s.
    pub max_bps: f64,
    /// Start of that interval, ns since 1970-01-01 UTC.
    pub max_t_ns: i64,
    /// The flow that sent the most of it (§3.3 of the bandwidth paper), when known.
    pub culprit: Option<u32>,
}

/// A burst: an interval whose rate exceeded the asked rate.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Burst {
    /// Start of the epoch it is in (of the hour, when rolled up), ns since 1970-01-01 UTC.
    pub epoch_ns: i64,
    /// Epochs the row stands for: 1, or an hour's when rolled up.
    pub periods: i64,
    /// Start of the interval, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// Its length: the scale the core answered at, ns.
    pub scale_ns: i64,
    /// Its rate, bits/s.
    pub rate_bps: f64,
    /// The flow that sent the most of it (§3.3 of the bandwidth paper), when known.
    pub culprit: Option<u32>,
}

/// Every core the station archives.
pub static POINT_CORES: &[&dyn PointCore] = &[
    &crate::lda::LdaPoint,
    &crate::rda::RdaPoint,
    &crate::fridge::FridgePoint,
    &crate::expb::ExpbPoint,
    &crate::dbm::DbmPoint,
];

/// The columns of a segment's latency row, as the cores measured between
/// two ends store it (one row per segment and epoch).
const LATENCY_COLUMNS: [&str; 11] =
    ["segment", "seq", "t_ns", "sent", "received", "loss", "samples", "mean_ns", "std_ns", "bound98_ns", "unusable"];

/// A paired epoch's latency estimate, delays in ns: one row of a segment's series.
#[derive(Clone, Copy, Debug, Default)]
pub struct LatencyEstimate {
    /// Packets the sender counted.
    pub sent: u64,
    /// Packets the receiver counted.
    pub received: u64,
    /// Loss rate, when known.
    pub loss: Option<f64>,
    /// Samples behind the estimate.
    pub samples: u64,
    /// Mean delay.
    pub mean_ns: Option<f64>,
    /// Standard deviation of the delay.
    pub std_ns: Option<f64>,
    /// Half-width of the mean's 98 % interval, when the core gives one.
    pub bound98_ns: Option<f64>,
}

/// Stores the latency row of paired epoch `p`: its estimate, or why the
/// pair gave none (with the two ends' packet counts), in the open transaction.
pub fn insert_latency(
    db: &mut Db,
    p: &PairedEpoch,
    row: Result<LatencyEstimate, (u64, u64, String)>,
) -> Result<(), String> {
    let real = |v: Option<f64>| v.map_or(Val::Null, Val::Real);
    let e = match &row {
        Ok(e) => *e,
        Err((sent, received, _)) => LatencyEstimate { sent: *sent, received: *received, ..LatencyEstimate::default() },
    };
    let values = [
        Val::Int(p.segment),
        Val::Int(p.seq),
        Val::Int(p.t_ns),
        Val::Int(e.sent as i64),
        Val::Int(e.received as i64),
        real(e.loss),
        Val::Int(e.samples as i64),
        real(e.mean_ns),
        real(e.std_ns),
        real(e.bound98_ns),
        row.err().map_or(Val::Null, |(_, _, why)| Val::Text(why)),
    ];
    insert_row(db, "latency", p.t_ns, &LATENCY_COLUMNS, &values)
}

/// A core's roll-up, hour by hour: calls `each` with the start of every
/// whole hour, in `[from_ns, until_ns)`, that holds a row of `point` in
/// `table` — any row, or with `unrolled` a row standing for one epoch
/// (`periods = 1`) — in time order; `each` collapses that hour in the open
/// transaction and says how many epochs it collapsed.
pub fn roll_hours(
    db: &mut Db,
    table: &'static str,
    unrolled: bool,
    point: i64,
    from_ns: i64,
    until_ns: i64,
    mut each: impl FnMut(&mut Db, i64) -> Result<u64, String>,
) -> Result<Rolled, String> {
    use crate::config::HOUR_NS;
    let only = if unrolled { " AND periods = 1" } else { "" };
    let sql = format!("SELECT MIN(t_ns) FROM {table} WHERE point = $1 AND t_ns >= $2 AND t_ns < $3{only}");
    let mut done = Rolled::default();
    let mut at = from_ns;
    while let Some(Val::Int(first)) =
        db.query(&sql, &[Val::Int(point), Val::Int(at), Val::Int(until_ns)])?.first().map(|r| r[0].clone())
    {
        let hour = first.div_euclid(HOUR_NS) * HOUR_NS;
        done.epochs += each(db, hour)?;
        done.hours += 1;
        at = hour + HOUR_NS;
    }
    Ok(done)
}

/// The core named `name`, or an error listing the known ones.
pub fn point_core(name: &str) -> Result<&'static dyn PointCore, String> {
    POINT_CORES.iter().copied().find(|c| c.name() == name).ok_or_else(|| {
        let known: Vec<&str> = POINT_CORES.iter().map(|c| c.name()).collect();
        format!("the station does not archive `{name}` points (it archives: {})", known.join(", "))
    })
}

/// A core config of type `T` as [`PointCore::config`] reads it, checked by `validate`.
pub fn typed_config<T, E>(
    given: Option<&toml::Value>,
    base: &Path,
    validate: impl Fn(&T) -> Result<(), E>,
) -> Result<Value, String>
where
    T: serde::de::DeserializeOwned + serde::Serialize + Default,
    E: std::fmt::Display,
{
    let cfg: T = match given {
        None => T::default(),
        Some(toml::Value::String(file)) => {
            netmeas_sim::error::load_config(&base.join(file)).map_err(|e| e.to_string())?
        }
        Some(table @ toml::Value::Table(_)) => {
            table.clone().try_into().map_err(|e: toml::de::Error| format!("invalid config: {}", e.message()))?
        }
        Some(other) => return Err(format!("a config is a table or a file name, not {}", other.type_str())),
    };
    validate(&cfg).map_err(|e| e.to_string())?;
    serde_json::to_value(&cfg).map_err(|e| e.to_string())
}

/// Inserts `values` as one row of `table` (columns `cols`), in the day partition of `t_ns`.
pub fn insert_row(db: &mut Db, table: &'static str, t_ns: i64, cols: &[&str], values: &[Val]) -> Result<(), String> {
    insert_rows(db, table, t_ns, cols, &[values])
}

/// Inserts `rows` (each the values of `cols`) into `table` in one
/// statement, all in the day partition of `t_ns`.
pub fn insert_rows<R: AsRef<[Val]>>(
    db: &mut Db,
    table: &'static str,
    t_ns: i64,
    cols: &[&str],
    rows: &[R],
) -> Result<(), String> {
    if rows.is_empty() {
        return Ok(());
    }
    db.partition_for(table, t_ns)?;
    let mut marks = Vec::with_capacity(rows.len());
    let mut values = Vec::with_capacity(rows.len() * cols.len());
    for row in rows {
        let row = row.as_ref();
        if row.len() != cols.len() {
            return Err(format!("a row of {} values for {} columns of {table}", row.len(), cols.len()));
        }
        let first = values.len();
        marks.push(format!(
            "({})",
            (first + 1..=first + row.len()).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
        ));
        values.extend_from_slice(row);
    }
    db.execute(&format!("INSERT INTO {table} ({}) VALUES {}", cols.join(", "), marks.join(", ")), &values)?;
    Ok(())
}
