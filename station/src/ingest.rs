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
use crate::point_core::{CheckedEpoch, PairedEpoch, PointEpoch, Synopsis};
use netmeas_sim::board::host::LinkStats;
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
    /// The segments' row ids, in the config's order.
    segment_ids: Vec<i64>,
    /// Per point (in the config's order), its row id.
    pub(crate) ids: Vec<i64>,
    /// Per point (in the config's order), the segments it is an end of.
    ends: Vec<Vec<SegmentEnd>>,
    /// Per point, its latest stored synopsis (epoch number, parsed) while
    /// a segment of it waits for the other end: pairing reads it from here
    /// instead of parsing the stored JSON again. Only what the open
    /// transaction stored or the database holds; emptied when a
    /// transaction fails.
    waiting: HashMap<usize, (u64, Synopsis)>,
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
    /// What reading it over a board's serial line cost (the host's
    /// register requests since the epoch before), when it came from one:
    /// kept with the epoch, summed in the point's health (docs/station.md).
    pub link: Option<LinkStats>,
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
        let ids = cfg.points.iter().map(|p| point_ids[&p.name]).collect();
        let mut ends = vec![Vec::new(); cfg.points.len()];
        let at = |name: &str| cfg.point_index(name).expect("a checked station file's segments end at its points");
        for (k, s) in cfg.segments.iter().enumerate() {
            let (sender, receiver) = (at(&s.sender), at(&s.receiver));
            ends[sender].push(SegmentEnd { segment: k, sender: true, other: receiver });
            ends[receiver].push(SegmentEnd { segment: k, sender: false, other: sender });
        }
        Ok(Station { cfg, db, segment_ids, ids, ends, waiting: HashMap::new() })
    }

    /// The station's config.
    pub fn config(&self) -> &StationConfig {
        &self.cfg
    }

    /// The database (for queries on an open station).
    pub fn db(&mut self) -> &mut Db {
        &mut self.db
    }

    /// The raw synopses the station holds of point `name` (one of its file's).
    pub fn stored_epochs(&mut self, name: &str) -> Result<i64, String> {
        let at = self.cfg.point_index(name).ok_or_else(|| format!("no point `{name}` in the station file"))?;
        let rows = self.db.query("SELECT COUNT(*) FROM synopsis WHERE point = $1", &[Val::Int(self.ids[at])])?;
        rows[0][0].int("count")
    }

    /// Ingests one epoch `body` (a synopsis as JSON text) reported by
    /// `point`; `source` names where it came from (a file, a board) for the
    /// rejection log. A refused epoch is logged and returned as an error
    /// naming the point and epoch.
    pub fn ingest(&mut self, point: &str, source: &str, body: &str) -> Result<Ingested, String> {
        let mut done = self.ingest_batch(&[Epoch { point, source, body, link: None }])?;
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
        let Station { cfg, db, segment_ids, ids, ends, waiting } = self;
        let known = Known { cfg, segment_ids, ids, ends };
        // Checked before the transaction (no database needed), so that the
        // days' partitions are made before it, outside it.
        let prepared: Vec<(Option<u64>, Result<Ready<'_>, String>)> = epochs
            .iter()
            .map(|e| {
                let mut seq_seen = None;
                let ready = prepare(&known, e.point, e.body, &mut seq_seen);
                (seq_seen, ready)
            })
            .collect();
        let ready = || prepared.iter().filter_map(|(_, r)| r.as_ref().ok());
        if !db.missing_partitions(ready().map(|r| r.t_ns)).is_empty() {
            // Not for an epoch behind its point's roll-up horizon: it is refused, and its day may be gone.
            let rows = db.query("SELECT point, until_ns FROM horizon", &[])?;
            let horizons: HashMap<i64, i64> =
                rows.iter().map(|r| Ok((r[0].int("point")?, r[1].int("until_ns")?))).collect::<Result<_, String>>()?;
            let behind = |r: &Ready<'_>| horizons.get(&known.ids[r.at]).is_some_and(|&h| r.t_ns < h);
            db.ensure_partitions(ready().filter(|r| !behind(r)).map(|r| r.t_ns));
        }
        let done = db.transaction(|db| {
            let mut outcomes = Vec::with_capacity(epochs.len());
            for (e, (seq_seen, ready)) in epochs.iter().zip(prepared) {
                let outcome = ready.and_then(|ready| db.savepoint(|db| store(db, &known, waiting, ready, e.link)));
                outcomes.push(match outcome {
                    Ok(done) => Ok(done),
                    Err(reason) => Err(log_rejection(db, e, seq_seen, &reason)?),
                });
            }
            Ok(outcomes)
        });
        if done.is_err() {
            // What the failed transaction stored is gone: so is what waits on it.
            waiting.clear();
        }
        done
    }
}

/// One end of a segment, as its point sees it.
#[derive(Clone, Copy)]
struct SegmentEnd {
    /// The segment's place in the station file.
    segment: usize,
    /// Whether the point is the segment's sender.
    sender: bool,
    /// The other end's place in the station file.
    other: usize,
}

/// What ingest looks up per epoch.
struct Known<'s> {
    cfg: &'s StationConfig,
    segment_ids: &'s [i64],
    ids: &'s [i64],
    ends: &'s [Vec<SegmentEnd>],
}

/// An epoch checked against its point, ready to store.
struct Ready<'c> {
    /// The point's place in the station file.
    at: usize,
    point: &'c Point,
    t_ns: i64,
    checked: CheckedEpoch,
}

/// Checks an epoch against its point's config (no database needed).
fn prepare<'c>(known: &Known<'c>, name: &str, body: &str, seq_seen: &mut Option<u64>) -> Result<Ready<'c>, String> {
    let mut v: Value = serde_json::from_str(body).map_err(|e| format!("not a synopsis (bad JSON: {e})"))?;
    let obj = v.as_object_mut().ok_or("not a synopsis (not a JSON object)")?;
    // Logged with a refusal whenever the synopsis has one.
    *seq_seen = obj.get("seq").and_then(Value::as_u64);
    let at = known.cfg.point_index(name).ok_or("no such point in the station file")?;
    let point = &known.cfg.points[at];
    if let Some(end) = obj.remove("end") {
        check_end(&known.ends[at], &end)?;
    }
    let checked = point.core.epoch(&point.config, &v)?;
    *seq_seen = Some(checked.seq);
    let t_ns = point.epoch_start(checked.seq)?;
    Ok(Ready { at, point, t_ns, checked })
}

/// Stores a checked epoch and estimates the segments it completes, in the
/// open transaction.
fn store(
    db: &mut Db,
    known: &Known<'_>,
    waiting: &mut HashMap<usize, (u64, Synopsis)>,
    e: Ready<'_>,
    link: Option<LinkStats>,
) -> Result<Ingested, String> {
    let (seq, t_ns) = (e.checked.seq, e.t_ns);
    let id = known.ids[e.at];
    let ends = &known.ends[e.at];
    let text = e.checked.text.as_str();
    // What the database holds, in one round trip: this epoch's synopsis,
    // the point's roll-up horizon and latest epoch, and whether the other
    // end of each of its segments holds this epoch.
    let mut sql = "SELECT (SELECT body FROM synopsis WHERE point = $1 AND seq = $2), \
                          (SELECT until_ns FROM horizon WHERE point = $1), \
                          (SELECT MAX(seq) FROM synopsis WHERE point = $1)"
        .to_string();
    let mut params = vec![Val::Int(id), seq_val(seq)];
    for end in ends {
        params.push(Val::Int(known.ids[end.other]));
        sql += &format!(", (SELECT 1 FROM synopsis WHERE point = ${} AND seq = $2)", params.len());
    }
    let held = db.query(&sql, &params)?;
    let Some([stored, horizon, last, others @ ..]) = held.first().map(Vec::as_slice) else {
        return Err("database: the point's epochs could not be read".into());
    };
    if let Some(body) = stored.text("body")? {
        return if body == text {
            Ok(Ingested::AlreadyStored { seq })
        } else {
            Err("already stored with a different synopsis".into())
        };
    }
    if let Val::Int(until) = *horizon
        && t_ns < until
    {
        return Err(format!(
            "it starts at {}, before the point's roll-up horizon {}: that time is archived at a coarser grain",
            format_time(t_ns),
            format_time(until)
        ));
    }
    if let Val::Int(last) = *last
        && (seq as i64) < last
    {
        return Err(format!("out of order: epoch {last} is already stored"));
    }
    let count = |f: fn(&LinkStats) -> u64| link.map_or(Val::Null, |l| Val::Int(f(&l) as i64));
    crate::point_core::insert_row(
        db,
        "synopsis",
        t_ns,
        &[
            "point",
            "seq",
            "t_ns",
            "body",
            "overflow",
            "link_requests",
            "link_retries",
            "link_crc_errors",
            "link_lost_responses",
        ],
        &[
            Val::Int(id),
            seq_val(seq),
            Val::Int(t_ns),
            text.into(),
            Val::Int(i64::from(e.checked.overflow)),
            count(|l| l.requests),
            count(|l| l.retries),
            count(|l| l.crc_errors),
            count(|l| l.lost_responses),
        ],
    )?;
    let core = e.point.core;
    let mine = e.checked.synopsis;
    let epoch = PointEpoch { point: id, seq: seq as i64, t_ns, tick_ns: e.point.tick_ns };
    core.store_epoch(db, &epoch, mine.as_ref())?;
    let mut paired = Vec::new();
    let mut unpaired = false;
    for (end, other_holds) in ends.iter().zip(others) {
        if *other_holds == Val::Null {
            unpaired = true;
            continue;
        }
        // The other end's synopsis: as it waits in memory, else parsed from the database.
        let theirs = match waiting.get(&end.other) {
            Some((their_seq, _)) if *their_seq == seq => waiting.remove(&end.other).expect("just found").1,
            _ => {
                let other = &known.cfg.points[end.other].name;
                let rows = db.query(
                    "SELECT body FROM synopsis WHERE point = $1 AND seq = $2",
                    &[Val::Int(known.ids[end.other]), seq_val(seq)],
                )?;
                let row = rows.first().ok_or_else(|| format!("the synopsis of {other} went while it was read"))?;
                parse_stored(core, other, row)?
            }
        };
        let (snd, rcv) = if end.sender { (&mine, &theirs) } else { (&theirs, &mine) };
        let pair =
            PairedEpoch { segment: known.segment_ids[end.segment], seq: seq as i64, t_ns, tick_ns: e.point.tick_ns };
        core.store_pair(db, &pair, snd.as_ref(), rcv.as_ref())?;
        paired.push(known.cfg.segments[end.segment].name.clone());
    }
    if unpaired {
        waiting.insert(e.at, (seq, mine));
    }
    Ok(Ingested::Stored { seq, t_ns, paired })
}

/// A stored synopsis of point `name` as its core parses it.
fn parse_stored(core: &dyn crate::point_core::PointCore, name: &str, row: &[Val]) -> Result<Synopsis, String> {
    let text = row[0].text("body")?.unwrap_or_default();
    core.parse(&text).map_err(|e| format!("the stored synopsis of {name} is not usable: {e}"))
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

/// Refuses a synopsis marked as the other end of every segment the point
/// is in (`ends`: the point's segments, and whether it is their sender).
fn check_end(ends: &[SegmentEnd], end: &Value) -> Result<(), String> {
    let end = end.as_str().ok_or("its `end` mark is not a string")?;
    let sender = ends.iter().any(|e| e.sender);
    let receiver = ends.iter().any(|e| !e.sender);
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

/// Stores the config's points and segments, or checks them against those
/// stored. Each is inserted unless its name is stored, then read back and
/// compared: two station processes registering the same point at once (two
/// readers starting on one station) store it once, and neither fails.
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
        let mut values = vec![Val::from(p.name.as_str())];
        values.extend(want.iter().cloned());
        db.execute(
            "INSERT INTO point (name, router, link, direction, core, config, epoch_ns, start_ns, tick_ns) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (name) DO NOTHING",
            &values,
        )?;
        let rows = db.query(
            "SELECT id, router, link, direction, core, config, epoch_ns, start_ns, tick_ns FROM point WHERE name = $1",
            &[p.name.as_str().into()],
        )?;
        let row = rows.first().ok_or_else(|| format!("point `{}` could not be stored", p.name))?;
        const FIELDS: [&str; 8] = ["router", "link", "direction", "core", "config", "epoch", "start", "tick_ns"];
        if let Some(k) = (0..8).find(|&k| row[k + 1] != want[k]) {
            return Err(format!(
                "point `{}` is stored with another {}: a point's settings cannot change once it has \
                 epochs (give the point a new name)",
                p.name, FIELDS[k]
            ));
        }
        ids.insert(p.name.clone(), row[0].int("point id")?);
    }
    let mut segment_ids = Vec::with_capacity(cfg.segments.len());
    for s in &cfg.segments {
        let (a, b) = (ids[&s.sender], ids[&s.receiver]);
        db.execute(
            "INSERT INTO segment (name, sender, receiver) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
            &[s.name.as_str().into(), Val::Int(a), Val::Int(b)],
        )?;
        let rows = db.query("SELECT id, sender, receiver FROM segment WHERE name = $1", &[s.name.as_str().into()])?;
        let row = rows.first().ok_or_else(|| format!("segment `{}` could not be stored", s.name))?;
        if row[1] != Val::Int(a) || row[2] != Val::Int(b) {
            return Err(format!(
                "segment `{}` is stored with other end points: a segment cannot change (give it a new name)",
                s.name
            ));
        }
        segment_ids.push(row[0].int("segment id")?);
    }
    Ok((ids, segment_ids))
}
