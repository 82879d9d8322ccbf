//! Ingest: epochs in batches, one transaction per batch and a savepoint per
//! epoch. The synopsis is checked against the point's core config, stored
//! raw, and every segment whose other end already holds the same epoch is
//! estimated and stored with it (LDA §II: the monitoring station pairs the
//! two ends of a segment). A station killed mid-batch leaves no half epoch;
//! an epoch ingested twice is stored once; a refused epoch is logged with
//! the point and epoch and never stored; an epoch older than the point's
//! roll-up horizon ([`crate::rollup`]) is refused.

use crate::config::{Point, StationConfig, format_time, now_ns};
use crate::db::{Access, Db, Val};
use crate::point_core::{PairedEpoch, PointEpoch};
use serde_json::Value;
use std::collections::HashMap;

/// Epochs stored per transaction by a station fed many at once (`station
/// ingest`, the fleet simulator): one commit, one sync to disk, per batch;
/// a refused epoch costs only itself.
pub const INGEST_BATCH: usize = 256;

/// The station: its config and database.
pub struct Station {
    pub(crate) cfg: StationConfig,
    pub(crate) db: Db,
    /// The points' row ids, by name.
    pub(crate) point_ids: HashMap<String, i64>,
    /// The segments' row ids, in the config's order.
    segment_ids: Vec<i64>,
}

/// One epoch as a point reported it.
#[derive(Clone, Copy, Debug)]
pub struct Epoch<'a> {
    /// The point's name in the station file.
    pub point: &'a str,
    /// Where it came from (a file, a board), for the rejection log.
    pub source: &'a str,
    /// The synopsis, JSON text.
    pub body: &'a str,
}

/// What ingesting an epoch did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ingested {
    /// Stored; the segments estimated with it (their other end was stored).
    Stored {
        /// The epoch number.
        seq: u64,
        /// The epoch's start, ns since 1970-01-01 UTC.
        t_ns: i64,
        /// The segments whose epoch this completed.
        paired: Vec<String>,
    },
    /// The same synopsis was already stored: nothing changed.
    AlreadyStored {
        /// The epoch number.
        seq: u64,
    },
}

impl Station {
    /// Opens (creating and migrating if needed) the database at `target` and
    /// registers the config's points and segments. A point or segment stored
    /// earlier with other settings is refused: its epochs would no longer
    /// mean what they meant (name it anew instead).
    pub fn open(cfg: StationConfig, target: &str) -> Result<Self, String> {
        let mut db = Db::open(target, Access::Write)?;
        let (point_ids, segment_ids) = db.transaction(|db| register(db, &cfg))?;
        Ok(Station { cfg, db, point_ids, segment_ids })
    }

    /// The station's config.
    pub fn config(&self) -> &StationConfig {
        &self.cfg
    }

    /// The database (for queries on an open station).
    pub fn db(&mut self) -> &mut Db {
        &mut self.db
    }

    /// Ingests one epoch `body` (a synopsis as JSON text) reported by
    /// `point`; `source` names where it came from (a file, a board) for the
    /// rejection log. A refused epoch is logged and returned as an error
    /// naming the point and epoch.
    pub fn ingest(&mut self, point: &str, source: &str, body: &str) -> Result<Ingested, String> {
        let mut done = self.ingest_batch(&[Epoch { point, source, body }])?;
        done.pop().expect("one epoch in, one outcome out")
    }

    /// Ingests several epochs in one transaction, each under a savepoint of
    /// its own: a refused epoch is undone and logged alone, the others are
    /// stored. One commit for the batch is what makes a busy station keep
    /// up (every commit is a sync to disk); a station killed mid-batch keeps
    /// none of the batch, and re-ingesting it completes the store. The outer
    /// error is a database fault that lost the whole batch (nothing of it
    /// stored); otherwise one outcome per epoch, in order.
    pub fn ingest_batch(&mut self, epochs: &[Epoch<'_>]) -> Result<Vec<Result<Ingested, String>>, String> {
        let Station { cfg, db, point_ids, segment_ids } = self;
        let (cfg, point_ids, segment_ids) = (&*cfg, &*point_ids, &*segment_ids);
        db.transaction(|db| {
            let mut outcomes = Vec::with_capacity(epochs.len());
            for e in epochs {
                let mut seq_seen = None;
                let outcome = prepare(cfg, e.point, e.body, &mut seq_seen)
                    .and_then(|ready| db.savepoint(|db| store(db, cfg, point_ids, segment_ids, &ready)));
                outcomes.push(match outcome {
                    Ok(done) => Ok(done),
                    Err(reason) => Err(log_rejection(db, e, seq_seen, &reason)?),
                });
            }
            Ok(outcomes)
        })
    }
}

/// An epoch checked against its point, ready to store.
struct Ready<'c> {
    point: &'c Point,
    seq: u64,
    t_ns: i64,
    canonical: Value,
    text: String,
}

/// Checks an epoch against its point's config (no database needed).
fn prepare<'c>(
    cfg: &'c StationConfig,
    name: &str,
    body: &str,
    seq_seen: &mut Option<u64>,
) -> Result<Ready<'c>, String> {
    let mut v: Value = serde_json::from_str(body).map_err(|e| format!("not a synopsis (bad JSON: {e})"))?;
    let obj = v.as_object_mut().ok_or("not a synopsis (not a JSON object)")?;
    // Logged with a refusal whenever the synopsis has one.
    *seq_seen = obj.get("seq").and_then(Value::as_u64);
    let point = cfg.point(name).ok_or("no such point in the station file")?;
    if let Some(end) = obj.remove("end") {
        check_end(cfg, point, &end)?;
    }
    let (seq, canonical) = point.core.epoch(&point.config, &v)?;
    *seq_seen = Some(seq);
    let t_ns = point.epoch_start(seq)?;
    let text = canonical.to_string();
    Ok(Ready { point, seq, t_ns, canonical, text })
}

/// Stores a checked epoch and estimates the segments it completes, in the
/// open transaction.
fn store(
    db: &mut Db,
    cfg: &StationConfig,
    point_ids: &HashMap<String, i64>,
    segment_ids: &[i64],
    e: &Ready<'_>,
) -> Result<Ingested, String> {
    let (name, seq, t_ns) = (e.point.name.as_str(), e.seq, e.t_ns);
    let id = point_ids[name];
    let stored = db.query("SELECT body FROM synopsis WHERE point = $1 AND seq = $2", &[Val::Int(id), seq_val(seq)])?;
    if let Some(row) = stored.first() {
        return if row[0].text("body")?.as_deref() == Some(e.text.as_str()) {
            Ok(Ingested::AlreadyStored { seq })
        } else {
            Err("already stored with a different synopsis".into())
        };
    }
    if let Some(until) = crate::rollup::horizon(db, id)? {
        if t_ns < until {
            return Err(format!(
                "it starts at {}, before the point's roll-up horizon {}: that time is archived at a coarser grain",
                format_time(t_ns),
                format_time(until)
            ));
        }
    }
    let last = db.query("SELECT MAX(seq) FROM synopsis WHERE point = $1", &[Val::Int(id)])?;
    if let Some(Val::Int(last)) = last.first().map(|r| &r[0]) {
        if (seq as i64) < *last {
            return Err(format!("out of order: epoch {last} is already stored"));
        }
    }
    crate::point_core::insert_row(
        db,
        "synopsis",
        t_ns,
        &["point", "seq", "t_ns", "body"],
        &[Val::Int(id), seq_val(seq), Val::Int(t_ns), e.text.as_str().into()],
    )?;
    let epoch = PointEpoch { point: id, seq: seq as i64, t_ns, tick_ns: e.point.tick_ns };
    e.point.core.store_epoch(db, &epoch, &e.canonical)?;
    let mut paired = Vec::new();
    for (s, &sid) in cfg.segments.iter().zip(segment_ids) {
        let is_sender = s.sender == name;
        if !is_sender && s.receiver != name {
            continue;
        }
        let other = if is_sender { &s.receiver } else { &s.sender };
        let theirs = db.query(
            "SELECT body FROM synopsis WHERE point = $1 AND seq = $2",
            &[Val::Int(point_ids[other]), seq_val(seq)],
        )?;
        let Some(row) = theirs.first() else { continue };
        let other_body: Value = serde_json::from_str(&row[0].text("body")?.unwrap_or_default())
            .map_err(|e| format!("the stored synopsis of {other} is not JSON: {e}"))?;
        let (snd, rcv) = if is_sender { (&e.canonical, &other_body) } else { (&other_body, &e.canonical) };
        let pair = PairedEpoch { segment: sid, seq: seq as i64, t_ns, tick_ns: e.point.tick_ns };
        e.point.core.store_pair(db, &pair, snd, rcv)?;
        paired.push(s.name.clone());
    }
    Ok(Ingested::Stored { seq, t_ns, paired })
}

/// Logs a refused epoch in the open transaction; the refusal as the caller reports it.
fn log_rejection(db: &mut Db, e: &Epoch<'_>, seq: Option<u64>, reason: &str) -> Result<String, String> {
    db.execute(
        "INSERT INTO rejection (at_ns, point, seq, source, reason) VALUES ($1, $2, $3, $4, $5)",
        &[
            Val::Int(now_ns()?),
            e.point.into(),
            seq.map(|s| Val::Int(s as i64)).unwrap_or(Val::Null),
            e.source.into(),
            reason.into(),
        ],
    )
    .map_err(|err| format!("point {}: the refusal of an epoch could not be logged ({reason}): {err}", e.point))?;
    Ok(match seq {
        Some(s) => format!("point {}, epoch {s} ({}): {reason}", e.point, e.source),
        None => format!("point {} ({}): {reason}", e.point, e.source),
    })
}

/// Refuses a synopsis marked as the other end of every segment the point is in.
fn check_end(cfg: &StationConfig, point: &Point, end: &Value) -> Result<(), String> {
    let end = end.as_str().ok_or("its `end` mark is not a string")?;
    let sender = cfg.segments.iter().any(|s| s.sender == point.name);
    let receiver = cfg.segments.iter().any(|s| s.receiver == point.name);
    let fits = match end {
        "sender" => sender || !receiver,
        "receiver" => receiver || !sender,
        other => return Err(format!("its `end` mark {other:?} is neither sender nor receiver")),
    };
    if fits {
        Ok(())
    } else {
        Err(format!("a {end}'s synopsis, but the point is the other end of its segments (swapped?)"))
    }
}

fn seq_val(seq: u64) -> Val {
    Val::Int(seq as i64)
}

/// Stores the config's points and segments, or checks them against those stored.
fn register(db: &mut Db, cfg: &StationConfig) -> Result<(HashMap<String, i64>, Vec<i64>), String> {
    let mut ids = HashMap::new();
    for p in &cfg.points {
        let config = p.config.to_string();
        let want = [
            Val::from(p.router.as_str()),
            p.link.as_str().into(),
            p.direction.as_str().into(),
            p.core.name().into(),
            config.as_str().into(),
            Val::Int(p.epoch_ns),
            Val::Int(p.start_ns),
            Val::Real(p.tick_ns),
        ];
        let rows = db.query(
            "SELECT id, router, link, direction, core, config, epoch_ns, start_ns, tick_ns FROM point WHERE name = $1",
            &[p.name.as_str().into()],
        )?;
        let id = match rows.first() {
            Some(row) => {
                const FIELDS: [&str; 8] =
                    ["router", "link", "direction", "core", "config", "epoch", "start", "tick_ns"];
                if let Some(k) = (0..8).find(|&k| row[k + 1] != want[k]) {
                    return Err(format!(
                        "point `{}` is stored with another {}: a point's settings cannot change once it has \
                         epochs (give the point a new name)",
                        p.name, FIELDS[k]
                    ));
                }
                row[0].int("point id")?
            }
            None => {
                let mut values = vec![Val::from(p.name.as_str())];
                values.extend(want);
                db.query(
                    "INSERT INTO point (name, router, link, direction, core, config, epoch_ns, start_ns, tick_ns) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                    &values,
                )?[0][0]
                    .int("point id")?
            }
        };
        ids.insert(p.name.clone(), id);
    }
    let mut segment_ids = Vec::with_capacity(cfg.segments.len());
    for s in &cfg.segments {
        let (a, b) = (ids[&s.sender], ids[&s.receiver]);
        let rows = db.query("SELECT id, sender, receiver FROM segment WHERE name = $1", &[s.name.as_str().into()])?;
        let id = match rows.first() {
            Some(row) => {
                if row[1] != Val::Int(a) || row[2] != Val::Int(b) {
                    return Err(format!(
                        "segment `{}` is stored with other end points: a segment cannot change (give it a new name)",
                        s.name
                    ));
                }
                row[0].int("segment id")?
            }
            None => db.query(
                "INSERT INTO segment (name, sender, receiver) VALUES ($1, $2, $3) RETURNING id",
                &[s.name.as_str().into(), Val::Int(a), Val::Int(b)],
            )?[0][0]
                .int("segment id")?,
        };
        segment_ids.push(id);
    }
    Ok((ids, segment_ids))
}
