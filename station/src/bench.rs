//! The ingest benchmark: `links` simulated links, each an LDA segment
//! (a sender and a receiver point) and an EXPB point at the sender, every
//! one reporting one epoch per simulated second, ingested into a station.
//! The synopses of a round are made before the round is timed, so the
//! figures are the station's (checks, storage, pairing, estimates), not the
//! simulation's. On PostgreSQL the links can be shared among several
//! connections, each ingesting its links' epochs in transactions of its
//! own, so that the round trips to the server overlap; a link (its segment's
//! two ends and its EXPB point) stays on one connection, which pairs it.

use crate::config::StationConfig;
use crate::fleet::{ExpbLink, LdaLink, synopsis_json};
use crate::ingest::{Epoch, Ingested, Station};
use netmeas_sim::dbm::{ExpbConfig, ExpbSynopsis};
use netmeas_sim::lda::{LdaConfig, LdaSynopsis};
use serde::Serialize;
use std::time::Instant;

/// What the benchmark measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Links simulated.
    pub links: usize,
    /// Epochs (simulated seconds) per link.
    pub rounds: u32,
    /// Epochs per transaction.
    pub batch: usize,
    /// Connections ingesting at once.
    pub connections: usize,
    /// Epochs ingested (3 per link and second: LDA sender, LDA receiver, EXPB).
    pub epochs: u64,
    /// Synopsis bytes ingested (JSON as the points report it).
    pub bytes: u64,
    /// Seconds spent ingesting.
    pub seconds: f64,
    /// Epochs per second.
    pub epochs_per_s: f64,
    /// Synopsis MB (10^6 bytes) per second.
    pub mb_per_s: f64,
    /// Links this rate keeps up with if each of a link's three points
    /// reported one epoch per second.
    pub links_sustained: f64,
}

/// The station file of `links` simulated links on `database`: points
/// `lK.tx`, `lK.rx` (LDA) and `lK.bw` (EXPB), segment `lK`, epochs of 2 s
/// from `start` (RFC 3339).
pub fn bench_station(database: &str, links: usize, start: &str) -> String {
    let mut s = format!("database = {database:?}\n");
    for k in 0..links {
        for (name, dir, core) in [("tx", "egress", "lda"), ("rx", "ingress", "lda"), ("bw", "egress", "expb")] {
            s += &format!(
                "[[point]]\nname = \"l{k}.{name}\"\nrouter = \"r{k}\"\nlink = \"l{k}\"\ndirection = \"{dir}\"\n\
                 core = \"{core}\"\nepoch = \"2s\"\nstart = \"{start}\"\n"
            );
        }
        s += &format!("[[segment]]\nname = \"l{k}\"\nsender = \"l{k}.tx\"\nreceiver = \"l{k}.rx\"\n");
    }
    s
}

/// What simulated link `k` reports for one epoch, as (point, synopsis
/// JSON): its LDA sender's and receiver's synopses and its EXPB period.
pub(crate) fn link_reports(
    k: usize,
    sender: &LdaSynopsis,
    receiver: &LdaSynopsis,
    period: &ExpbSynopsis,
) -> [(String, String); 3] {
    [
        (format!("l{k}.tx"), synopsis_json(sender, "sender")),
        (format!("l{k}.rx"), synopsis_json(receiver, "receiver")),
        (format!("l{k}.bw"), serde_json::to_string(period).expect("a period is JSON")),
    ]
}

/// Ingests `reported` (point, synopsis JSON) from `source`, `batch` epochs
/// per transaction, each of which must be new; the synopsis bytes stored.
pub(crate) fn store_new(
    st: &mut Station,
    reported: &[(String, String)],
    source: &str,
    batch: usize,
) -> Result<u64, String> {
    let epochs: Vec<Epoch<'_>> =
        reported.iter().map(|(point, body)| Epoch { point, source, body, link: None }).collect();
    let mut bytes = 0;
    for chunk in epochs.chunks(batch) {
        for (e, outcome) in chunk.iter().zip(st.ingest_batch(chunk)?) {
            match outcome? {
                Ingested::Stored { .. } => bytes += e.body.len() as u64,
                Ingested::AlreadyStored { seq } => {
                    return Err(format!("epoch {seq} of {} was stored already", e.point));
                }
            }
        }
    }
    Ok(bytes)
}

/// Runs `rounds` epochs of `links` links into the station at `target`
/// (which must not hold these points with other settings already),
/// `batch` epochs per transaction, on `connections` connections at once
/// (PostgreSQL; SQLite takes one writer at a time).
pub fn run(
    target: &str,
    links: usize,
    rounds: u32,
    batch: usize,
    connections: usize,
    mut progress: impl FnMut(u32),
) -> Result<BenchReport, String> {
    if batch == 0 || connections == 0 {
        return Err("a batch holds at least one epoch, and at least one connection ingests".into());
    }
    if connections > 1 && !crate::db::is_postgres(target) {
        return Err("SQLite takes one writer at a time: several connections are for PostgreSQL".into());
    }
    let cfg = StationConfig::parse(&bench_station(target, links, "2026-12-01T00:00:00Z"), std::path::Path::new("."))?;
    // The first opening registers the points; the others find them.
    let mut stations = vec![Station::open(cfg.clone(), target)?];
    for _ in 1..connections {
        stations.push(Station::open(cfg.clone(), target)?);
    }
    let lda = LdaConfig::default();
    let expb = ExpbConfig::default();
    let mut lda_links: Vec<LdaLink> = (0..links).map(|k| LdaLink::new(&lda, 2_000_000_000, k as u64)).collect();
    let mut expb_links: Vec<ExpbLink> = (0..links).map(|k| ExpbLink::new(&expb, k as u64)).collect::<Result<_, _>>()?;
    let (mut epochs, mut bytes, mut seconds) = (0u64, 0u64, 0f64);
    for round in 0..rounds {
        let mut reported = Vec::with_capacity(3 * links);
        for k in 0..links {
            let (sender, receiver, _) = lda_links[k].epoch(2_000, 1_000.0, 0.001);
            reported.extend(link_reports(k, &sender, &receiver, &expb_links[k].epoch(5e6, &[])));
        }
        // Link k's three reports go to connection k mod `connections`.
        let mut shares: Vec<Vec<(String, String)>> = vec![Vec::new(); connections];
        for (i, r) in reported.iter().enumerate() {
            shares[(i / 3) % connections].push(r.clone());
        }
        let t = Instant::now();
        let stored: Vec<Result<u64, String>> = std::thread::scope(|s| {
            let workers: Vec<_> = stations
                .iter_mut()
                .zip(&shares)
                .map(|(st, share)| s.spawn(move || store_new(st, share, "bench", batch)))
                .collect();
            workers.into_iter().map(|w| w.join().unwrap_or_else(|_| Err("an ingest thread panicked".into()))).collect()
        });
        seconds += t.elapsed().as_secs_f64();
        for b in stored {
            bytes += b?;
        }
        epochs += reported.len() as u64;
        progress(round + 1);
    }
    let epochs_per_s = epochs as f64 / seconds;
    Ok(BenchReport {
        links,
        rounds,
        batch,
        connections,
        epochs,
        bytes,
        seconds,
        epochs_per_s,
        mb_per_s: bytes as f64 / seconds / 1e6,
        links_sustained: epochs_per_s / 3.0,
    })
}

/// What the archive-query benchmark measured.
#[derive(Clone, Debug, Serialize)]
pub struct QueryBenchReport {
    /// Links, each with an EXPB point.
    pub links: usize,
    /// Days archived per link, as rolled-up hours.
    pub days: u32,
    /// Bandwidth rows in the archive (links × hours × scales).
    pub rows: u64,
    /// Seconds spent writing them.
    pub fill_seconds: f64,
    /// The burst query over every link and the whole archive: milliseconds and bursts found.
    pub all_ms: f64,
    /// Bursts the query over the whole archive found.
    pub all_bursts: usize,
    /// The same query over the last day: milliseconds.
    pub day_ms: f64,
    /// Bursts in the last day.
    pub day_bursts: usize,
    /// The same query over the last hour of 100 links: milliseconds.
    pub hour_ms: f64,
}

/// The archive a retention policy leaves: `days` days of `links` links'
/// EXPB points (the default 11 scales), every hour rolled up into one row
/// per scale (bandwidth paper §4), written straight into the bandwidth
/// table as the roll-up writes it; about one hour in a hundred holds a
/// burst above 5 Gbit/s at 1.25 ms. Then the burst query ("all bursts
/// above 5 Gbit/s at 1 ms on every link") over the whole archive, over its
/// last day, and over the last hour of a set of 100 links, each timed once.
pub fn query_archive(target: &str, links: usize, days: u32) -> Result<QueryBenchReport, String> {
    use crate::db::Val;
    if links == 0 || days == 0 {
        return Err("at least one link and one day".into());
    }
    let start = "2026-11-01T00:00:00Z";
    let start_ns = crate::config::parse_time(start)?;
    let cfg = StationConfig::parse(&bench_station(target, links, start), std::path::Path::new("."))?;
    let mut st = Station::open(cfg, target)?;
    let ids: Vec<i64> = (0..links)
        .map(|k| {
            let rows = st.db().query("SELECT id FROM point WHERE name = $1", &[format!("l{k}.bw").into()])?;
            rows.first().map(|r| r[0].int("id")).unwrap_or_else(|| Err(format!("no point l{k}.bw")))
        })
        .collect::<Result<_, String>>()?;
    let expb = ExpbConfig::default();
    let scales: Vec<i64> = (0..expb.scales).map(|j| expb.scale_ticks(j) as i64).collect();
    let hours = i64::from(days) * 24;
    let mut rng = netmeas_sim::prng::SplitMix64::new(7);
    let t = Instant::now();
    for h in 0..hours {
        let t_ns = start_ns + h * crate::config::HOUR_NS;
        let mut rows = Vec::with_capacity(links * scales.len());
        for &id in &ids {
            let burst = rng.chance(1, 100);
            for (j, &dj) in scales.iter().enumerate() {
                let mean = 2e9 * (0.5 + rng.unit_open() * 0.5);
                let peak = if burst && j <= 6 { 6e9 + 3e9 * rng.unit_open() } else { mean * (1.2 + rng.unit_open()) };
                let intervals = (crate::config::HOUR_NS / dj) as i64;
                rows.push(vec![
                    Val::Int(id),
                    Val::Int(dj),
                    Val::Int(t_ns),
                    Val::Int(h * 1800),
                    Val::Int(1800),
                    Val::Int(intervals),
                    Val::Real(mean),
                    Val::Real(mean * 0.3),
                    Val::Real(peak.min(9.9e9)),
                    Val::Int(t_ns + rng.below(intervals as u64) as i64 * dj),
                    Val::Int(rng.below(64) as i64 + 1),
                ]);
            }
        }
        st.db().transaction(|db| {
            for chunk in rows.chunks(2_000) {
                crate::expb::insert_bandwidth(db, t_ns, chunk)?;
            }
            Ok(())
        })?;
    }
    let fill_seconds = t.elapsed().as_secs_f64();
    let end_ns = start_ns + hours * crate::config::HOUR_NS;
    let mut timed = |links: &[String], from: i64| -> Result<(f64, usize), String> {
        let t = Instant::now();
        let found = crate::query::bursts(st.db(), links, 1_000_000, 5e9, from, end_ns)?;
        Ok((t.elapsed().as_secs_f64() * 1e3, found.len()))
    };
    let (all_ms, all_bursts) = timed(&[], start_ns)?;
    let (day_ms, day_bursts) = timed(&[], end_ns - 24 * crate::config::HOUR_NS)?;
    let some: Vec<String> = (0..links.min(100)).map(|k| format!("l{k}")).collect();
    let (hour_ms, _) = timed(&some, end_ns - crate::config::HOUR_NS)?;
    Ok(QueryBenchReport {
        links,
        days,
        rows: (links * scales.len()) as u64 * hours as u64,
        fill_seconds,
        all_ms,
        all_bursts,
        day_ms,
        day_bursts,
        hour_ms,
    })
}
