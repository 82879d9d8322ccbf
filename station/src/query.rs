//! Questions to the station across links and time: one segment's latency
//! series (LDA §III-D/E or RDA §V per epoch), its lost and reordered
//! packets (RDA §III), a path's latency as the sum of its
//! segments' (MPlane, LDA §II), the bursts on a set of links and those that
//! coincide across links (bandwidth paper §1, §4), the epochs whose other
//! end never arrived, and the epochs refused at ingest. Times are epoch starts in ns since
//! 1970-01-01 UTC; a window is `[from, to)`.

use crate::db::{Db, Val};
use crate::point_core::{BandwidthRow, Burst, BurstQuery, DelayQuery, DelayRow, point_core};
use serde::Serialize;
use std::collections::BTreeMap;

/// One epoch of a segment's latency.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LatencyRow {
    /// Epoch number.
    pub seq: i64,
    /// Epoch start, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// Packets counted by the sender.
    pub sent: i64,
    /// Packets counted by the receiver.
    pub received: i64,
    /// Loss rate: LDA (sent − received) / sent; RDA the decoded lost packets
    /// over those sent. None when unusable or unknown (a partial RDA decode).
    pub loss: Option<f64>,
    /// Samples of the estimate: LDA's effective sample size S (§III-D), RDA's packets in usable buckets.
    pub samples: i64,
    /// Mean delay, ns (§III-D); None when unusable or without samples.
    pub mean_ns: Option<f64>,
    /// Standard deviation of the delay, ns (§III-E).
    pub std_ns: Option<f64>,
    /// Half-width of the mean's 98 % Hoeffding interval, ns (LDA eq. (1)); None for RDA.
    pub bound98_ns: Option<f64>,
    /// Why the pair gave no estimate (a wrapped counter, a config mismatch, …).
    pub unusable: Option<String>,
}

fn opt(v: &Val, what: &str) -> Result<Option<f64>, String> {
    Ok(match v {
        Val::Null => None,
        other => Some(other.real(what)?),
    })
}

/// The id of segment `name`, or an error.
fn segment_id(db: &mut Db, name: &str) -> Result<i64, String> {
    let rows = db.query("SELECT id FROM segment WHERE name = $1", &[name.into()])?;
    rows.first().map(|r| r[0].int("segment id")).unwrap_or_else(|| Err(format!("no segment `{name}` in the station")))
}

/// The latency of segment `name` per epoch starting in `[from_ns, to_ns)`, in time order.
pub fn latency(db: &mut Db, name: &str, from_ns: i64, to_ns: i64) -> Result<Vec<LatencyRow>, String> {
    let id = segment_id(db, name)?;
    let rows = db.query(
        "SELECT seq, t_ns, sent, received, loss, samples, mean_ns, std_ns, bound98_ns, unusable FROM latency \
         WHERE segment = $1 AND t_ns >= $2 AND t_ns < $3 ORDER BY t_ns",
        &[Val::Int(id), Val::Int(from_ns), Val::Int(to_ns)],
    )?;
    rows.iter()
        .map(|r| {
            Ok(LatencyRow {
                seq: r[0].int("seq")?,
                t_ns: r[1].int("t_ns")?,
                sent: r[2].int("sent")?,
                received: r[3].int("received")?,
                loss: opt(&r[4], "loss")?,
                samples: r[5].int("samples")?,
                mean_ns: opt(&r[6], "mean_ns")?,
                std_ns: opt(&r[7], "std_ns")?,
                bound98_ns: opt(&r[8], "bound98_ns")?,
                unusable: r[9].text("unusable")?,
            })
        })
        .collect()
}

/// One epoch of a path's latency.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathRow {
    /// Epoch start, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// The path's mean delay: the sum of its segments' means, ns.
    pub mean_ns: f64,
    /// The standard deviation of the path's delay, ns: the square root of the
    /// sum of the segments' variances (the variance of a sum of independent
    /// delays).
    pub std_ns: f64,
    /// Each segment's mean, ns, in the path's order (to see where the delay is).
    pub segment_means_ns: Vec<f64>,
}

/// A path's latency per epoch, and the epochs it could not be summed for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathLatency {
    /// The segments, in order.
    pub segments: Vec<String>,
    /// Epochs where every segment has an estimate.
    pub epochs: Vec<PathRow>,
    /// Epochs where some segment has none: (epoch start, the segments missing or unusable).
    pub incomplete: Vec<(i64, Vec<String>)>,
}

/// The latency of the path made of `segments` (in order) per epoch starting in `[from_ns, to_ns)`.
pub fn path_latency(db: &mut Db, segments: &[String], from_ns: i64, to_ns: i64) -> Result<PathLatency, String> {
    if segments.is_empty() {
        return Err("a path needs at least one segment".into());
    }
    // epoch start → per segment (mean, std) when usable
    let mut by_time: BTreeMap<i64, Vec<Option<(f64, f64)>>> = BTreeMap::new();
    for (k, s) in segments.iter().enumerate() {
        for r in latency(db, s, from_ns, to_ns)? {
            let slot = by_time.entry(r.t_ns).or_insert_with(|| vec![None; segments.len()]);
            if let (Some(m), Some(sd)) = (r.mean_ns, r.std_ns) {
                slot[k] = Some((m, sd));
            }
        }
    }
    let mut out = PathLatency { segments: segments.to_vec(), epochs: Vec::new(), incomplete: Vec::new() };
    for (t_ns, seg) in by_time {
        let missing: Vec<String> =
            seg.iter().zip(segments).filter(|(v, _)| v.is_none()).map(|(_, s)| s.clone()).collect();
        if !missing.is_empty() {
            out.incomplete.push((t_ns, missing));
            continue;
        }
        let seg: Vec<(f64, f64)> = seg.into_iter().flatten().collect();
        out.epochs.push(PathRow {
            t_ns,
            mean_ns: seg.iter().map(|s| s.0).sum(),
            std_ns: seg.iter().map(|s| s.1 * s.1).sum::<f64>().sqrt(),
            segment_means_ns: seg.iter().map(|s| s.0).collect(),
        });
    }
    Ok(out)
}

/// One paired epoch of an RDA segment: the packets only one end saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PacketDiffRow {
    /// Epoch number (the measurement interval).
    pub seq: i64,
    /// Epoch start, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// The decode emptied every bucket: the lists are the whole set difference (RDA §V).
    pub complete: bool,
    /// Buckets still holding differences (0 when complete).
    pub residual_buckets: i64,
    /// IDs only the sender saw: lost, or received in the next interval (RDA §III).
    pub lost: Vec<u64>,
    /// IDs only the receiver saw: sent in an earlier interval.
    pub reordered: Vec<u64>,
}

/// The lost and reordered packets of segment `name` per epoch starting in
/// `[from_ns, to_ns)`, in time order (RDA §III, §V Algorithm 1).
pub fn packets(db: &mut Db, name: &str, from_ns: i64, to_ns: i64) -> Result<Vec<PacketDiffRow>, String> {
    let id = segment_id(db, name)?;
    let rows = db.query(
        "SELECT seq, t_ns, complete, residual_buckets, lost, reordered FROM packet_diff \
         WHERE segment = $1 AND t_ns >= $2 AND t_ns < $3 ORDER BY t_ns",
        &[Val::Int(id), Val::Int(from_ns), Val::Int(to_ns)],
    )?;
    let ids = |v: &Val, what: &str| -> Result<Vec<u64>, String> {
        serde_json::from_str(&v.text(what)?.unwrap_or_default())
            .map_err(|e| format!("database: the {what} packets are not a list of IDs: {e}"))
    };
    rows.iter()
        .map(|r| {
            Ok(PacketDiffRow {
                seq: r[0].int("seq")?,
                t_ns: r[1].int("t_ns")?,
                complete: r[2].int("complete")? != 0,
                residual_buckets: r[3].int("residual_buckets")?,
                lost: ids(&r[4], "lost")?,
                reordered: ids(&r[5], "reordered")?,
            })
        })
        .collect()
}

/// An epoch stored at one end of a segment only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unpaired {
    /// The segment.
    pub segment: String,
    /// Epoch number.
    pub seq: i64,
    /// Epoch start, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// The end that reported it: `sender` or `receiver`.
    pub have: String,
}

/// Every epoch stored at one end of a segment and not (yet) at the other, in segment and time order.
pub fn unpaired(db: &mut Db) -> Result<Vec<Unpaired>, String> {
    let rows = db.query(
        "SELECT g.name, s.seq, s.t_ns, CASE WHEN s.point = g.sender THEN 'sender' ELSE 'receiver' END \
         FROM segment g JOIN synopsis s ON s.point = g.sender OR s.point = g.receiver \
         WHERE NOT EXISTS (SELECT 1 FROM synopsis o WHERE o.seq = s.seq \
               AND o.point = CASE WHEN s.point = g.sender THEN g.receiver ELSE g.sender END) \
         ORDER BY g.name, s.t_ns",
        &[],
    )?;
    rows.iter()
        .map(|r| {
            Ok(Unpaired {
                segment: r[0].text("segment")?.unwrap_or_default(),
                seq: r[1].int("seq")?,
                t_ns: r[2].int("t_ns")?,
                have: r[3].text("end")?.unwrap_or_default(),
            })
        })
        .collect()
}

/// An epoch refused at ingest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// When it was refused, ns since 1970-01-01 UTC.
    pub at_ns: i64,
    /// The point it was reported for.
    pub point: String,
    /// Its epoch number, when it had one.
    pub seq: Option<i64>,
    /// Where it came from.
    pub source: String,
    /// Why it was refused.
    pub reason: String,
}

/// The epochs refused at ingest, oldest first.
pub fn rejections(db: &mut Db) -> Result<Vec<Rejection>, String> {
    let rows = db.query("SELECT at_ns, point, seq, source, reason FROM rejection ORDER BY id", &[])?;
    rows.iter()
        .map(|r| {
            Ok(Rejection {
                at_ns: r[0].int("at_ns")?,
                point: r[1].text("point")?.unwrap_or_default(),
                seq: match &r[2] {
                    Val::Null => None,
                    v => Some(v.int("seq")?),
                },
                source: r[3].text("source")?.unwrap_or_default(),
                reason: r[4].text("reason")?.unwrap_or_default(),
            })
        })
        .collect()
}

/// A burst on a link, as [`bursts`] finds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkBurst {
    /// The link.
    pub link: String,
    /// The point that measured it.
    pub point: String,
    /// The burst.
    #[serde(flatten)]
    pub burst: Burst,
}

/// Bursts above `rate_bps` at time scale `scale_ns` in epochs starting in
/// `[from_ns, to_ns)` on `links` (every link when empty), in time order:
/// the bandwidth paper's archive query (§1: "find all bursts that occurred
/// between 10 and 11 AM on all links in set S"), answered by every point that
/// measures bandwidth, each at its own scale nearest above `scale_ns`.
pub fn bursts(
    db: &mut Db,
    links: &[String],
    scale_ns: i64,
    rate_bps: f64,
    from_ns: i64,
    to_ns: i64,
) -> Result<Vec<LinkBurst>, String> {
    if scale_ns <= 0 || !(rate_bps.is_finite() && rate_bps >= 0.0) {
        return Err(format!(
            "a burst query needs a positive time scale and rate (got {scale_ns} ns, {rate_bps} bit/s)"
        ));
    }
    let points = db.query(&format!("SELECT {POINT_COLUMNS} FROM point ORDER BY name"), &[])?;
    let points: Vec<PointRow> = points.iter().map(|r| point_row(r)).collect::<Result<_, _>>()?;
    for l in links {
        if !points.iter().any(|p| p.link == *l) {
            return Err(format!("no point on link `{l}` in the station"));
        }
    }
    let mut out = Vec::new();
    let mut answered = false;
    for p in &points {
        if !links.is_empty() && !links.contains(&p.link) {
            continue;
        }
        let Some(found) = point_bandwidth(db, p, scale_ns, rate_bps, from_ns, to_ns)? else { continue };
        answered = true;
        out.extend(found.into_iter().map(|r| LinkBurst {
            link: p.link.clone(),
            point: p.name.clone(),
            burst: Burst {
                epoch_ns: r.t_ns,
                periods: r.periods,
                t_ns: r.max_t_ns,
                scale_ns: r.scale_ns,
                rate_bps: r.max_bps,
                culprit: r.culprit,
            },
        }));
    }
    if !answered {
        return Err("no point on these links measures bandwidth (an EXPB or DBM point)".into());
    }
    out.sort_by(|a, b| (a.burst.t_ns, &a.link, &a.point).cmp(&(b.burst.t_ns, &b.link, &b.point)));
    Ok(out)
}

/// The bandwidth of `point` at time scale `scale_ns` (the smallest scale ≥
/// it that the point measures, bandwidth paper §3.2.2) per epoch (or
/// rolled-up hour) starting in `[from_ns, to_ns)`, in time order.
pub fn bandwidth(
    db: &mut Db,
    point: &str,
    scale_ns: i64,
    from_ns: i64,
    to_ns: i64,
) -> Result<Vec<BandwidthRow>, String> {
    if scale_ns <= 0 {
        return Err(format!("a bandwidth query needs a positive time scale (got {scale_ns} ns)"));
    }
    let p = named_point(db, point)?;
    point_bandwidth(db, &p, scale_ns, -1.0, from_ns, to_ns)?
        .ok_or_else(|| format!("point `{point}` does not measure bandwidth (EXPB and DBM points do)"))
}

/// The columns of `point` that [`point_row`] reads, in its order.
const POINT_COLUMNS: &str = "id, name, link, core, config, tick_ns";

/// A stored point as the queries hand it to its core.
struct PointRow {
    id: i64,
    name: String,
    link: String,
    core: &'static dyn crate::point_core::PointCore,
    config: serde_json::Value,
    tick_ns: f64,
}

/// A `point` row selected as [`POINT_COLUMNS`].
fn point_row(r: &[Val]) -> Result<PointRow, String> {
    let name = r[1].text("name")?.unwrap_or_default();
    let config = serde_json::from_str(&r[4].text("config")?.unwrap_or_default())
        .map_err(|e| format!("point {name}: its stored config is not JSON: {e}"))?;
    Ok(PointRow {
        id: r[0].int("point id")?,
        link: r[2].text("link")?.unwrap_or_default(),
        core: point_core(&r[3].text("core")?.unwrap_or_default())?,
        config,
        tick_ns: r[5].real("tick_ns")?,
        name,
    })
}

/// The stored point named `name`, or an error.
fn named_point(db: &mut Db, name: &str) -> Result<PointRow, String> {
    let rows = db.query(&format!("SELECT {POINT_COLUMNS} FROM point WHERE name = $1"), &[name.into()])?;
    rows.first().map(|r| point_row(r)).unwrap_or_else(|| Err(format!("no point `{name}` in the station")))
}

/// Asks one point's core for its bandwidth.
fn point_bandwidth(
    db: &mut Db,
    p: &PointRow,
    scale_ns: i64,
    rate_bps: f64,
    from_ns: i64,
    to_ns: i64,
) -> Result<Option<Vec<BandwidthRow>>, String> {
    let q =
        BurstQuery { point: p.id, config: p.config.clone(), tick_ns: p.tick_ns, scale_ns, rate_bps, from_ns, to_ns };
    p.core.bandwidth(db, &q).map_err(|e| format!("point {}: {e}", p.name))
}

/// The delay at `quantiles` (each in [0, 1]) of `point` per epoch (or
/// rolled-up hour) starting in `[from_ns, to_ns)`, in time order: a
/// service's delay percentiles over time, from a fridge point's histograms
/// (fridge paper §3.3, §6.2).
pub fn delays(db: &mut Db, point: &str, quantiles: &[f64], from_ns: i64, to_ns: i64) -> Result<Vec<DelayRow>, String> {
    if quantiles.is_empty() || quantiles.iter().any(|q| !(0.0..=1.0).contains(q)) {
        return Err(format!("quantiles are between 0 and 1 (got {quantiles:?})"));
    }
    let p = named_point(db, point)?;
    let q =
        DelayQuery { point: p.id, config: p.config, tick_ns: p.tick_ns, quantiles: quantiles.to_vec(), from_ns, to_ns };
    p.core
        .delays(db, &q)
        .map_err(|e| format!("point {point}: {e}"))?
        .ok_or_else(|| format!("point `{point}` does not measure a delay distribution (a fridge point does)"))
}

/// Bursts on two or more links close in time, as [`coincident`] finds them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Coincidence {
    /// The first burst's time, ns since 1970-01-01 UTC.
    pub first_ns: i64,
    /// The last burst's time.
    pub last_ns: i64,
    /// The links, sorted, each once.
    pub links: Vec<String>,
    /// The bursts, in time order.
    pub bursts: Vec<LinkBurst>,
}

/// Of `found` (bursts in time order, as [`bursts`] gives them), those that
/// coincide across links: bursts are grouped while each starts at most
/// `within_ns` after the previous one, and a group is kept when it spans two
/// or more links — "look for patterns across links" (bandwidth paper §4),
/// e.g. a fan-in whose flows burst together on several ingress links.
pub fn coincident(found: Vec<LinkBurst>, within_ns: i64) -> Result<Vec<Coincidence>, String> {
    if within_ns < 0 {
        return Err(format!("a coincidence window is not negative (got {within_ns} ns)"));
    }
    let mut groups: Vec<Vec<LinkBurst>> = Vec::new();
    for b in found {
        match groups.last_mut() {
            Some(g) if b.burst.t_ns - g[g.len() - 1].burst.t_ns <= within_ns => g.push(b),
            _ => groups.push(vec![b]),
        }
    }
    Ok(groups
        .into_iter()
        .filter_map(|g| {
            let mut links: Vec<String> = g.iter().map(|b| b.link.clone()).collect();
            links.sort();
            links.dedup();
            (links.len() >= 2).then(|| Coincidence {
                first_ns: g[0].burst.t_ns,
                last_ns: g[g.len() - 1].burst.t_ns,
                links,
                bursts: g,
            })
        })
        .collect())
}

/// A point's health as the station sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PointHealth {
    /// The point.
    pub name: String,
    /// Its router, link and direction.
    pub router: String,
    /// The link it taps.
    pub link: String,
    /// `ingress` or `egress`.
    pub direction: String,
    /// Its core.
    pub core: String,
    /// Whether its core measures bandwidth (EXPB, DBM).
    pub bandwidth: bool,
    /// Epoch length, ns.
    pub epoch_ns: i64,
    /// Raw synopses stored.
    pub epochs: i64,
    /// The newest stored epoch: its number and start.
    pub last: Option<(i64, i64)>,
    /// Epochs missing between the oldest and the newest stored one.
    pub gaps: i64,
    /// Epochs of this point refused at ingest.
    pub rejected: i64,
    /// Stored epochs whose synopsis carries its core's sticky overflow or saturation flag.
    pub overflows: i64,
    /// What reading the stored epochs over a board's serial line cost
    /// (summed over the epochs taken from one; all zero for a point fed
    /// from files or a simulator).
    pub serial: SerialHealth,
    /// Epochs starting before this are rolled up (none refused after it), if rolled up.
    pub horizon_ns: Option<i64>,
}

/// A point's serial line to its board, summed over its stored epochs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SerialHealth {
    /// Stored epochs read over a serial line.
    pub epochs: i64,
    /// Register requests completed.
    pub requests: i64,
    /// Attempts repeated after a bad or missing response.
    pub retries: i64,
    /// Attempts that failed on a CRC (bit errors on the line).
    pub crc_errors: i64,
    /// Attempts whose response was missing or cut.
    pub lost_responses: i64,
}

/// Every point of the station with its epochs, gaps and refusals, by name.
pub fn points(db: &mut Db) -> Result<Vec<PointHealth>, String> {
    let rows = db.query(
        "SELECT p.id, p.name, p.router, p.link, p.direction, p.core, p.epoch_ns, \
                (SELECT COUNT(*) FROM rejection r WHERE r.point = p.name), \
                (SELECT h.until_ns FROM horizon h WHERE h.point = p.id) \
         FROM point p ORDER BY p.name",
        &[],
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let id = r[0].int("id")?;
        let stored = db.query(
            "SELECT COUNT(*), MIN(seq), MAX(seq), MAX(t_ns), COUNT(*) FILTER (WHERE overflow <> 0), \
                    COUNT(link_requests), CAST(COALESCE(SUM(link_requests), 0) AS BIGINT), \
                    CAST(COALESCE(SUM(link_retries), 0) AS BIGINT), \
                    CAST(COALESCE(SUM(link_crc_errors), 0) AS BIGINT), \
                    CAST(COALESCE(SUM(link_lost_responses), 0) AS BIGINT) \
             FROM synopsis WHERE point = $1",
            &[Val::Int(id)],
        )?;
        let s = &stored[0];
        let epochs = s[0].int("count")?;
        let (last, gaps) = match (&s[1], &s[2], &s[3]) {
            (Val::Int(lo), Val::Int(hi), Val::Int(t)) => (Some((*hi, *t)), hi - lo + 1 - epochs),
            _ => (None, 0),
        };
        let core = r[5].text("core")?.unwrap_or_default();
        out.push(PointHealth {
            bandwidth: point_core(&core)?.measures_bandwidth(),
            name: r[1].text("name")?.unwrap_or_default(),
            router: r[2].text("router")?.unwrap_or_default(),
            link: r[3].text("link")?.unwrap_or_default(),
            direction: r[4].text("direction")?.unwrap_or_default(),
            core,
            epoch_ns: r[6].int("epoch_ns")?,
            epochs,
            last,
            gaps,
            rejected: r[7].int("rejected")?,
            overflows: s[4].int("overflows")?,
            serial: SerialHealth {
                epochs: s[5].int("serial epochs")?,
                requests: s[6].int("requests")?,
                retries: s[7].int("retries")?,
                crc_errors: s[8].int("crc errors")?,
                lost_responses: s[9].int("lost responses")?,
            },
            horizon_ns: match &r[8] {
                Val::Null => None,
                v => Some(v.int("until_ns")?),
            },
        });
    }
    Ok(out)
}
