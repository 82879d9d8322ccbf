//! The station file (TOML): where the database is, the measurement points
//! (each named, with its router, link, direction, core, core config and
//! epoch clock) and the segments whose two ends pair (LDA §III: a sender and
//! a receiver point; MPlane §II: a path is a chain of segments).
//!
//! ```toml
//! database = "station.sqlite"          # or "postgresql://…"; a path is relative to this file
//!
//! [[point]]
//! name = "r1.eth0.egress"
//! router = "r1"
//! link = "r1-r2"
//! direction = "egress"                 # or "ingress"
//! core = "lda"
//! config = "lda.toml"                  # a file, an inline table, or absent for the default
//! epoch = "1s"                         # epoch length
//! start = "2026-12-01T00:00:00Z"       # start of epoch 0
//! tick_ns = 1.0                        # one timestamp tick (default 1 ns)
//!
//! [[segment]]
//! name = "r1-r2"
//! sender = "r1.eth0.egress"
//! receiver = "r2.eth1.ingress"
//!
//! [retention]                          # optional: `netmeas station rollup`
//! rollup = "1d"                        # EXPB periods older than this are collapsed per hour
//! raw = "7d"                           # raw synopses older than this are dropped (≥ rollup)
//! ```

use crate::point_core::{PointCore, point_core};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Where on a router a point taps its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Packets arriving at the router.
    Ingress,
    /// Packets leaving the router.
    Egress,
}

impl Direction {
    /// As stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Ingress => "ingress",
            Direction::Egress => "egress",
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StationFile {
    database: Option<String>,
    #[serde(default)]
    point: Vec<PointFile>,
    #[serde(default)]
    segment: Vec<SegmentFile>,
    retention: Option<RetentionFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RetentionFile {
    rollup: String,
    raw: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PointFile {
    name: String,
    router: String,
    link: String,
    direction: Direction,
    core: String,
    config: Option<toml::Value>,
    epoch: String,
    start: String,
    tick_ns: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SegmentFile {
    name: String,
    sender: String,
    receiver: String,
}

/// One measurement point.
#[derive(Clone)]
pub struct Point {
    /// Its unique name.
    pub name: String,
    /// The router it is on.
    pub router: String,
    /// The link it taps.
    pub link: String,
    /// Which way the packets it sees travel.
    pub direction: Direction,
    /// Its core.
    pub core: &'static dyn PointCore,
    /// Its core's config, canonical JSON.
    pub config: Value,
    /// Epoch length, ns.
    pub epoch_ns: i64,
    /// Start of epoch 0, ns since 1970-01-01 UTC.
    pub start_ns: i64,
    /// One timestamp tick, ns.
    pub tick_ns: f64,
}

impl Point {
    /// The start of epoch `seq`, ns since 1970-01-01 UTC.
    pub fn epoch_start(&self, seq: u64) -> Result<i64, String> {
        i64::try_from(seq)
            .ok()
            .and_then(|s| s.checked_mul(self.epoch_ns))
            .and_then(|d| d.checked_add(self.start_ns))
            .ok_or_else(|| format!("epoch {seq} of point {} starts past the year 2262", self.name))
    }
}

/// A segment: the epochs of `sender` and `receiver` pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Its unique name.
    pub name: String,
    /// The sender point's name.
    pub sender: String,
    /// The receiver point's name.
    pub receiver: String,
}

/// How long the station keeps each kind of data (bandwidth paper §4,
/// "Long-term archival": older data is kept at coarser granularity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// Epochs older than this are rolled up (EXPB: collapsed per hour), ns.
    pub rollup_ns: i64,
    /// Raw synopses older than this are dropped, ns; at least `rollup_ns`.
    pub raw_ns: i64,
}

/// A station: its database, points and segments.
#[derive(Clone)]
pub struct StationConfig {
    /// The database (an SQLite path, resolved against the file's folder, or a PostgreSQL URL), if the file names one.
    pub database: Option<String>,
    /// The points, in the file's order.
    pub points: Vec<Point>,
    /// The segments, in the file's order.
    pub segments: Vec<Segment>,
    /// The retention policy, if the file sets one.
    pub retention: Option<Retention>,
    /// The points' places in `points`, by name.
    index: HashMap<String, usize>,
}

impl StationConfig {
    /// Reads and checks a station file; each error is one line naming the point or segment.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = netmeas_sim::files::read_input_text(path)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::parse(&text, &base).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses a station file's `text`; files it names are relative to `base`.
    pub fn parse(text: &str, base: &Path) -> Result<Self, String> {
        let file: StationFile =
            toml::from_str(text).map_err(|e| format!("bad station file: {}", e.message().trim()))?;
        let mut points = Vec::with_capacity(file.point.len());
        let mut index = HashMap::new();
        for p in file.point {
            let at = |e: String| format!("point `{}`: {e}", p.name);
            if p.name.is_empty() {
                return Err("a point has an empty name".into());
            }
            if index.insert(p.name.clone(), points.len()).is_some() {
                return Err(at("named twice".into()));
            }
            let core = point_core(&p.core).map_err(at)?;
            let config = core.config(p.config.as_ref(), base).map_err(at)?;
            let epoch = humantime::parse_duration(&p.epoch).map_err(|e| at(format!("`epoch`: {e}")))?;
            let epoch_ns = i64::try_from(epoch.as_nanos()).ok().filter(|&n| n > 0);
            let epoch_ns = epoch_ns.ok_or_else(|| at(format!("`epoch`: {} is not a usable epoch length", p.epoch)))?;
            let start_ns = parse_time(&p.start).map_err(|e| at(format!("`start`: {e}")))?;
            let tick_ns = p.tick_ns.unwrap_or(1.0);
            if !(tick_ns.is_finite() && tick_ns > 0.0) {
                return Err(at(format!("`tick_ns`: {tick_ns} is not a positive duration")));
            }
            if let Some(ticks) = core.epoch_ticks(&config)
                && (ticks as f64 * tick_ns).round() as i64 != epoch_ns
            {
                return Err(at(format!(
                    "`epoch` is {}, but the core's period is {ticks} ticks of {tick_ns} ns",
                    p.epoch
                )));
            }
            points.push(Point {
                name: p.name.clone(),
                router: p.router,
                link: p.link,
                direction: p.direction,
                core,
                config,
                epoch_ns,
                start_ns,
                tick_ns,
            });
        }
        let mut segments: Vec<Segment> = Vec::with_capacity(file.segment.len());
        let mut segment_names = std::collections::HashSet::new();
        for s in file.segment {
            let at = |e: String| format!("segment `{}`: {e}", s.name);
            if !segment_names.insert(s.name.clone()) {
                return Err(at("named twice".into()));
            }
            let end = |name: &str| index.get(name).map(|&i| &points[i]).ok_or_else(|| at(format!("no point `{name}`")));
            let (a, b) = (end(&s.sender)?, end(&s.receiver)?);
            if a.name == b.name {
                return Err(at("its sender and receiver are the same point".into()));
            }
            if a.core.name() != b.core.name() || !a.core.pairs() {
                let pairing: Vec<&str> =
                    crate::point_core::POINT_CORES.iter().filter(|c| c.pairs()).map(|c| c.name()).collect();
                return Err(at(format!(
                    "a segment pairs two points of one core measured between two ends ({}); these are {} and {}",
                    pairing.join(", "),
                    a.core.name(),
                    b.core.name()
                )));
            }
            if a.epoch_ns != b.epoch_ns || a.start_ns != b.start_ns || a.tick_ns != b.tick_ns {
                return Err(at("its two points must share the epoch length, start and tick".into()));
            }
            segments.push(Segment { name: s.name.clone(), sender: s.sender.clone(), receiver: s.receiver.clone() });
        }
        let retention = file.retention.map(|r| parse_retention(&r)).transpose()?;
        let database = file
            .database
            .map(|d| if crate::db::is_postgres(&d) { d } else { base.join(d).to_string_lossy().into_owned() });
        Ok(StationConfig { database, points, segments, retention, index })
    }

    /// The point named `name`.
    pub fn point(&self, name: &str) -> Option<&Point> {
        self.point_index(name).map(|i| &self.points[i])
    }

    /// The place of the point named `name` in [`Self::points`].
    pub fn point_index(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The retention policy, or an error saying the file sets none.
    pub fn retention_policy(&self) -> Result<Retention, String> {
        self.retention.ok_or_else(|| "the station file sets no [retention] policy (rollup = …, raw = …)".into())
    }

    /// The database to use: `given` (a `--db` flag) or the file's, or an error.
    pub fn database_or(&self, given: Option<&str>) -> Result<String, String> {
        given
            .map(str::to_string)
            .or_else(|| self.database.clone())
            .ok_or_else(|| "no database: give --db PATH|URL or `database = …` in the station file".into())
    }
}

fn parse_retention(r: &RetentionFile) -> Result<Retention, String> {
    let ns = |key: &str, text: &str| {
        let n = parse_duration_ns(text).map_err(|e| format!("[retention] `{key}`: {text}: {e}"))?;
        (n >= HOUR_NS)
            .then_some(n)
            .ok_or_else(|| format!("[retention] `{key}`: {text} is not a duration of an hour or more"))
    };
    let (rollup_ns, raw_ns) = (ns("rollup", &r.rollup)?, ns("raw", &r.raw)?);
    if raw_ns < rollup_ns {
        return Err(format!(
            "[retention] `raw` ({}) is shorter than `rollup` ({}): an epoch is rolled up from its raw synopsis",
            r.raw, r.rollup
        ));
    }
    Ok(Retention { rollup_ns, raw_ns })
}

/// One hour, ns: the granularity of rolled-up data.
pub const HOUR_NS: i64 = 3_600_000_000_000;

/// A duration as the station file, the flags and the dashboard write it
/// (`100us`, `1ms`, `7d`), in ns: positive and below 292 years. The error
/// says why, without the text (the caller names what it was).
pub fn parse_duration_ns(text: &str) -> Result<i64, String> {
    let d = humantime::parse_duration(text).map_err(|e| format!("not a duration like 1ms or 100us ({e})"))?;
    i64::try_from(d.as_nanos()).ok().filter(|&n| n > 0).ok_or_else(|| "not a positive duration below 292 years".into())
}

/// A window `[from, to)` of epoch starts from optional RFC 3339 times (the
/// whole archive by default); `names` are how the caller calls the two
/// ends, for the error.
pub fn parse_window(from: Option<&str>, to: Option<&str>, names: [&str; 2]) -> Result<(i64, i64), String> {
    let from_ns = from.map(parse_time).transpose()?.unwrap_or(0);
    let to_ns = to.map(parse_time).transpose()?.unwrap_or(i64::MAX);
    if to_ns <= from_ns {
        let [f, t] = names;
        return Err(format!("{t} must be after {f} ({} ≥ {})", format_time(from_ns), format_time(to_ns)));
    }
    Ok((from_ns, to_ns))
}

/// The clock now, ns since 1970-01-01 UTC.
pub fn now_ns() -> Result<i64, String> {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(d.as_nanos()).map_err(|_| "the clock is past the year 2262".to_string())
}

/// A time as the station files and queries write it (RFC 3339, e.g.
/// `2026-12-01T10:00:00Z`), in ns since 1970-01-01 UTC.
pub fn parse_time(s: &str) -> Result<i64, String> {
    let t =
        humantime::parse_rfc3339_weak(s).map_err(|e| format!("{s:?} is not a time like 2026-12-01T10:00:00Z ({e})"))?;
    let d = t.duration_since(std::time::UNIX_EPOCH).map_err(|_| format!("{s} is before 1970"))?;
    i64::try_from(d.as_nanos()).map_err(|_| format!("{s} is past the year 2262"))
}

/// ns since 1970-01-01 UTC as RFC 3339 (to the ns when not whole seconds).
pub fn format_time(t_ns: i64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(t_ns.max(0) as u64);
    if t_ns % 1_000_000_000 == 0 {
        humantime::format_rfc3339_seconds(t).to_string()
    } else {
        humantime::format_rfc3339_nanos(t).to_string()
    }
}
