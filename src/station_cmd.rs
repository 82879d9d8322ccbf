//! `netmeas station …` (ingest epochs into the station's database, migrate
//! it) and `netmeas query …` (questions across links and time, as text, JSON
//! or CSV). The station is the LDA paper's monitoring station (§II MPlane);
//! see `netmeas_station`.

use clap::{Args, Subcommand};
use netmeas_station::config::{format_time, now_ns, parse_duration_ns, parse_time, parse_window};
use netmeas_station::db::{Access, Db};
use netmeas_station::ingest::{Epoch, INGEST_BATCH};
use netmeas_station::{Ingested, Station, StationConfig, query};
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;

/// `netmeas station …`.
#[derive(Subcommand)]
pub enum StationCmd {
    /// Store epochs reported by one point (saved synopsis files, one epoch
    /// each), pair them with their segments' other ends and estimate.
    Ingest {
        #[command(flatten)]
        at: StationArgs,
        /// The point that reported them (a `[[point]]` name of the station file).
        #[arg(long)]
        point: String,
        /// Synopsis files (JSON), in epoch order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object per epoch.
        #[arg(long)]
        json: bool,
    },
    /// Apply the station file's `[retention]` policy: EXPB periods older
    /// than `rollup` collapsed per hour (bandwidth paper §4), raw synopses
    /// older than `raw` dropped, older epochs refused from then on.
    Rollup {
        #[command(flatten)]
        at: StationArgs,
        /// The time the ages count from (RFC 3339; default: now).
        #[arg(long)]
        now: Option<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Bring the database's schema up to this netmeas's version.
    Migrate {
        #[command(flatten)]
        at: StationArgs,
    },
    /// The fleet simulator: simulated links (an LDA segment and an EXPB
    /// point each, golden models) with a diurnal load and injected
    /// microbursts and latency spikes, streamed into a new database; then
    /// the burst and latency queries checked against what was injected
    /// (non-zero exit if any event is missed or misplaced, or anything else
    /// crosses a threshold).
    Fleet {
        /// A new SQLite file, or an empty PostgreSQL database's URL.
        #[arg(long)]
        db: String,
        /// Simulated links.
        #[arg(long, default_value_t = 100)]
        links: usize,
        /// Simulated time, in whole epochs of 2 s (e.g. 10m, 1h, 1d).
        #[arg(long, default_value = "10m")]
        duration: String,
        /// Start of the first epoch (RFC 3339, on an even second; default: the duration before now).
        #[arg(long)]
        start: Option<String>,
        /// Mean load of the busiest link at 16:00 UTC, bits/s (0.2 of it at 04:00; at most 1e10).
        #[arg(long, default_value_t = 1e8)]
        peak_load: f64,
        /// Microbursts to inject (2 Gbit/s for 20 ms, each on its own link and epoch).
        #[arg(long, default_value_t = 10)]
        bursts: usize,
        /// Latency spikes to inject (+50 µs mean delay, each on its own segment and epoch).
        #[arg(long, default_value_t = 10)]
        spikes: usize,
        /// Seed of the traffic and of where events are injected.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write the fleet's station file here (for `netmeas query` and the dashboard).
        #[arg(long, value_name = "FILE")]
        station_file: Option<PathBuf>,
        /// Also write what was injected here (JSON).
        #[arg(long, value_name = "FILE")]
        truth: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Ingest rate: simulated links (an LDA segment and an EXPB point each)
    /// into a new database, epochs/s and MB/s.
    Bench {
        /// A new SQLite file, or an empty PostgreSQL database's URL.
        #[arg(long)]
        db: String,
        /// Simulated links.
        #[arg(long, default_value_t = 1000)]
        links: usize,
        /// Epochs per point.
        #[arg(long, default_value_t = 5)]
        rounds: u32,
        /// Epochs per transaction (1: one commit per epoch).
        #[arg(long, default_value_t = INGEST_BATCH)]
        batch: usize,
        /// Connections ingesting at once, each a share of the links (PostgreSQL).
        #[arg(long, default_value_t = 1)]
        connections: usize,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Benchmark the burst query on an archive: `--days` days of `--links`
    /// links' EXPB points rolled up per hour, written into a new station,
    /// then asked for every burst above 5 Gbit/s at 1 ms.
    BenchQuery {
        /// A new SQLite file, or an empty PostgreSQL database's URL.
        #[arg(long)]
        db: String,
        /// Links, each with an EXPB point.
        #[arg(long, default_value_t = 1000)]
        links: usize,
        /// Days archived.
        #[arg(long, default_value_t = 7)]
        days: u32,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// `netmeas station --http [ADDR]`: the dashboard.
#[derive(Args, Clone)]
pub struct Dashboard {
    #[command(flatten)]
    at: StationArgs,
    /// Serve the dashboard and its read-only queries on ADDR (default: loopback only).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = netmeas_station::http::DEFAULT_ADDR)]
    http: Option<String>,
}

/// Serves the dashboard until the process is stopped.
pub fn dashboard(d: &Dashboard) -> Result<(), String> {
    let Some(addr) = &d.http else {
        return Err(
            "give a subcommand (ingest, rollup, migrate, fleet, bench) or --http [ADDR] to serve the dashboard".into(),
        );
    };
    let target = d.at.database()?;
    netmeas_station::http::serve(&target, addr, |bound| {
        if !bound.ip().is_loopback() {
            eprintln!("netmeas: the dashboard is served on {bound}, beyond this machine");
        }
        println!("serving the station dashboard on http://{bound}/");
        // The line is the sign a supervisor (or a test) waits for.
        let _ = std::io::Write::flush(&mut std::io::stdout());
    })
}

/// Where the station is: its file, and the database if not the file's.
#[derive(Args, Clone)]
pub struct StationArgs {
    /// The station file (TOML: database, points, segments).
    #[arg(long)]
    station: Option<PathBuf>,
    /// The database: an SQLite file, or a postgresql:// URL (default: the station file's).
    #[arg(long)]
    db: Option<String>,
}

impl StationArgs {
    fn config(&self) -> Result<StationConfig, String> {
        let path = self.station.as_ref().ok_or("give the station file with --station FILE")?;
        StationConfig::load(path)
    }

    fn database(&self) -> Result<String, String> {
        match (&self.db, &self.station) {
            (Some(db), _) => Ok(db.clone()),
            (None, Some(_)) => self.config()?.database_or(None),
            (None, None) => Err("give the database with --db PATH|URL or a station file with --station FILE".into()),
        }
    }
}

/// How a query prints its rows.
#[derive(Args, Clone)]
pub struct QueryOutput {
    /// One JSON object.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// CSV with a header line.
    #[arg(long)]
    csv: bool,
}

/// A query's time window of epoch starts, `[from, to)`.
#[derive(Args, Clone)]
pub struct Window {
    /// Epochs starting at or after this time (RFC 3339, e.g. 2026-12-01T10:00:00Z).
    #[arg(long)]
    from: Option<String>,
    /// Epochs starting before this time.
    #[arg(long)]
    to: Option<String>,
}

impl Window {
    fn ns(&self) -> Result<(i64, i64), String> {
        parse_window(self.from.as_deref(), self.to.as_deref(), ["--from", "--to"])
    }
}

/// Which bursts: above a rate at a time scale, on a set of links.
#[derive(Args, Clone)]
pub struct BurstSearch {
    /// The links, comma-separated (default: every link).
    #[arg(long, value_delimiter = ',')]
    links: Vec<String>,
    /// The time scale, e.g. 1ms or 100us (answered at the next scale a point measures).
    #[arg(long)]
    scale: String,
    /// The rate a burst exceeds, bits/s (e.g. 5e9).
    #[arg(long)]
    rate: f64,
}

impl BurstSearch {
    /// The bursts in `window`, and the scale asked for in ns.
    fn find(&self, at: &StationArgs, window: &Window) -> Result<(Vec<query::LinkBurst>, i64), String> {
        let (from, to) = window.ns()?;
        let scale_ns = duration_ns("--scale", &self.scale)?;
        Ok((query::bursts(&mut open(at)?, &self.links, scale_ns, self.rate, from, to)?, scale_ns))
    }
}

/// A question about one segment over a window of epochs.
#[derive(Args)]
pub struct SegmentQuery {
    #[command(flatten)]
    at: StationArgs,
    /// The segment.
    #[arg(long)]
    segment: String,
    #[command(flatten)]
    window: Window,
    #[command(flatten)]
    out: QueryOutput,
}

/// `netmeas query …`.
#[derive(Subcommand)]
pub enum QueryCmd {
    /// One segment's latency per epoch: mean, standard deviation, loss (LDA §III-D/E, RDA §V).
    Latency(SegmentQuery),
    /// A path's latency per epoch: the sum of its segments' means, and the
    /// standard deviation of the sum (MPlane, LDA §II).
    Path {
        #[command(flatten)]
        at: StationArgs,
        /// The path's segments in order, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        segments: Vec<String>,
        #[command(flatten)]
        window: Window,
        #[command(flatten)]
        out: QueryOutput,
    },
    /// Bursts above a rate at a time scale on a set of links (bandwidth
    /// paper §1, §4: from the EXPB points' maxima, with the culprit flow).
    Bursts {
        #[command(flatten)]
        at: StationArgs,
        #[command(flatten)]
        search: BurstSearch,
        #[command(flatten)]
        window: Window,
        #[command(flatten)]
        out: QueryOutput,
    },
    /// Bursts that coincide across links: the bursts of `query bursts`,
    /// grouped while each starts within `--within` of the previous one,
    /// kept when a group spans two or more links (bandwidth paper §4).
    Coincide {
        #[command(flatten)]
        at: StationArgs,
        #[command(flatten)]
        search: BurstSearch,
        /// How far apart two bursts of a group may start, e.g. 10ms.
        #[arg(long)]
        within: String,
        #[command(flatten)]
        window: Window,
        #[command(flatten)]
        out: QueryOutput,
    },
    /// The packets one end of a segment saw and the other did not, per
    /// epoch: lost and reordered IDs decoded from RDA synopses (RDA §III, §V).
    Packets(SegmentQuery),
    /// A service's delay percentiles per epoch (or rolled-up hour), from a
    /// fridge point's histograms (fridge paper §3.3, §6.2).
    Delays {
        #[command(flatten)]
        at: StationArgs,
        /// The fridge point.
        #[arg(long)]
        point: String,
        /// The quantiles, comma-separated, each in [0, 1].
        #[arg(long, value_delimiter = ',', default_value = "0.5,0.95,0.99")]
        quantiles: Vec<f64>,
        #[command(flatten)]
        window: Window,
        #[command(flatten)]
        out: QueryOutput,
    },
    /// Epochs stored at one end of a segment only.
    Unpaired {
        #[command(flatten)]
        at: StationArgs,
        #[command(flatten)]
        out: QueryOutput,
    },
    /// Every point's health: epochs stored, the last one, gaps, refusals,
    /// overflow flags, and for a point read over a board's serial line its
    /// retries and CRC errors (the dashboard's points table).
    Points {
        #[command(flatten)]
        at: StationArgs,
        #[command(flatten)]
        out: QueryOutput,
    },
    /// Epochs refused at ingest, with the point, epoch and reason.
    Rejected {
        #[command(flatten)]
        at: StationArgs,
        #[command(flatten)]
        out: QueryOutput,
    },
}

/// `netmeas station …`.
pub fn station(cmd: &StationCmd) -> Result<(), String> {
    match cmd {
        StationCmd::Ingest { at, point, files, json } => ingest(at, point, files, *json),
        StationCmd::BenchQuery { db, links, days, json: as_json } => {
            refuse_existing(db, "the benchmark")?;
            let progress = crate::progress::Progress::spinner("station bench-query", *as_json);
            let r = netmeas_station::bench::query_archive(db, *links, *days)?;
            drop(progress);
            if *as_json {
                return crate::output::print_json(
                    json!({ "bench": "station burst query", "database": netmeas_station::db::redact(db), "report": r }),
                );
            }
            println!(
                "{} links x {} days of rolled-up hours: {} bandwidth rows written in {:.1} s",
                r.links, r.days, r.rows, r.fill_seconds
            );
            println!(
                "bursts above 5 Gbit/s at 1 ms, every link, the whole archive: {} in {:.1} ms",
                r.all_bursts, r.all_ms
            );
            println!("the same, the last day: {} in {:.1} ms", r.day_bursts, r.day_ms);
            println!("the same, the last hour of 100 links: {:.1} ms", r.hour_ms);
            Ok(())
        }
        StationCmd::Bench { db, links, rounds, batch, connections, json: as_json } => {
            refuse_existing(db, "the benchmark")?;
            if *links == 0 || *rounds == 0 || *batch == 0 || *connections == 0 {
                return Err("--links, --rounds, --batch and --connections must be at least 1".into());
            }
            if *connections > 1 && !netmeas_station::db::is_postgres(db) {
                return Err("--connections: SQLite takes one writer at a time; several are for PostgreSQL".into());
            }
            let progress = crate::progress::Progress::spinner("station bench", *as_json);
            let r = netmeas_station::bench::run(db, *links, *rounds, *batch, *connections, |_| {})?;
            drop(progress);
            if *as_json {
                crate::output::print_json(
                    json!({ "bench": "station ingest", "database": netmeas_station::db::redact(db), "report": r }),
                )?;
            } else {
                println!(
                    "{} links x {} rounds, {} epochs per transaction, {} connection(s): {} epochs, {:.1} MB in {:.2} s",
                    r.links,
                    r.rounds,
                    r.batch,
                    r.connections,
                    r.epochs,
                    r.bytes as f64 / 1e6,
                    r.seconds
                );
                println!("ingest   {:.0} epochs/s, {:.2} MB/s", r.epochs_per_s, r.mb_per_s);
                println!("sustains {:.0} links at one epoch per second per point", r.links_sustained);
            }
            Ok(())
        }
        StationCmd::Fleet {
            db,
            links,
            duration,
            start,
            peak_load,
            bursts,
            spikes,
            seed,
            station_file,
            truth,
            json: as_json,
        } => {
            refuse_existing(db, "the fleet simulator")?;
            let span = duration_ns("--duration", duration)?;
            let epoch = netmeas_station::scenario::EPOCH_NS;
            let start_ns = match start {
                Some(t) => parse_time(t).map_err(|e| format!("--start: {e}"))?,
                None => (now_ns()? - span).div_euclid(epoch) * epoch,
            };
            let plan = netmeas_station::scenario::FleetPlan {
                links: *links,
                start_ns,
                epochs: u32::try_from(span / epoch).ok().filter(|&n| n > 0).ok_or_else(|| {
                    format!("--duration {duration}: give 2s to {} days", u32::MAX as i64 * 2 / 86_400)
                })?,
                peak_load_bps: *peak_load,
                bursts: *bursts,
                spikes: *spikes,
                seed: *seed,
            };
            plan.validate().map_err(|e| format!("fleet: {e}"))?;
            let progress = crate::progress::Progress::bar(u64::from(plan.epochs), "fleet epochs", *as_json);
            let (r, injected) = netmeas_station::scenario::run(db, &plan, |_| progress.inc())?;
            drop(progress);
            let mut files = Vec::new();
            if let Some(f) = station_file {
                // The database as seen from anywhere, not relative to the station file.
                let at = match netmeas_station::db::is_postgres(db) {
                    true => db.clone(),
                    false => std::fs::canonicalize(db).map_err(|e| format!("{db}: {e}"))?.display().to_string(),
                };
                files.push((f.clone(), plan.station_file(&at)));
            }
            if let Some(f) = truth {
                let text = serde_json::to_string_pretty(&injected).map_err(|e| e.to_string())? + "\n";
                files.push((f.clone(), text));
            }
            crate::output::write_set(&files)?;
            if *as_json {
                crate::output::print_json(json!({ "fleet": r, "database": netmeas_station::db::redact(db) }))?;
            } else {
                print_fleet(&r);
            }
            if r.passed() {
                Ok(())
            } else {
                Err("the station's answers differ from what was injected (listed above)".into())
            }
        }
        StationCmd::Rollup { at, now, json: as_json } => {
            let now_ns = match now {
                Some(t) => parse_time(t).map_err(|e| format!("--now: {e}"))?,
                None => now_ns()?,
            };
            let cfg = at.config()?;
            cfg.retention_policy()?;
            let target = cfg.database_or(at.db.as_deref())?;
            // A missing database is an error, not a new empty station.
            drop(Db::open(&target, Access::Read)?);
            let r = Station::open(cfg, &target)?.rollup(now_ns)?;
            if *as_json {
                return crate::output::print_json(json!({ "rollup": r }));
            }
            println!(
                "rolled up epochs before {}, dropped raw synopses before {}",
                format_time(r.rolled_before_ns),
                format_time(r.raw_before_ns)
            );
            for p in &r.points {
                println!(
                    "{}: {} h rolled up ({} epochs), {} raw synopses dropped",
                    p.point, p.rolled.hours, p.rolled.epochs, p.raw_dropped
                );
            }
            if !r.partitions_dropped.is_empty() {
                println!("dropped partitions: {}", r.partitions_dropped.join(", "));
            }
            Ok(())
        }
        StationCmd::Migrate { at } => {
            let target = at.database()?;
            let mut db = Db::open(&target, Access::Write)?;
            println!("{}: schema version {}", netmeas_station::db::redact(&target), db.version()?);
            Ok(())
        }
    }
}

/// Refuses an SQLite file that exists already: `what` writes a new database.
fn refuse_existing(db: &str, what: &str) -> Result<(), String> {
    if !netmeas_station::db::is_postgres(db) && std::path::Path::new(db).exists() {
        return Err(format!("{db} exists: {what} writes a new database"));
    }
    Ok(())
}

/// The fleet simulator's report as text.
fn print_fleet(r: &netmeas_station::scenario::FleetReport) {
    let p = &r.plan;
    println!(
        "{} links x {} epochs of 2 s from {}: {} epochs, {:.1} MB stored in {:.1} s ({:.1} s ingesting, {:.0} epochs/s)",
        p.links,
        p.epochs,
        format_time(p.start_ns),
        r.epochs_stored,
        r.bytes as f64 / 1e6,
        r.seconds,
        r.ingest_seconds,
        r.epochs_stored as f64 / r.ingest_seconds
    );
    for (what, c) in [("bursts", &r.bursts), ("spikes", &r.spikes)] {
        println!(
            "{what:<6}  {}/{} found where injected, {} missed, {} misplaced, {} false positives; query {:.1} ms",
            c.found,
            c.injected,
            c.missed.len(),
            c.wrong.len(),
            c.false_positives.len(),
            c.query_ms
        );
        for (kind, list) in [("missed", &c.missed), ("misplaced", &c.wrong), ("false positive", &c.false_positives)] {
            for e in list {
                println!("  {kind}: {e}");
            }
        }
    }
}

fn ingest(at: &StationArgs, point: &str, files: &[PathBuf], as_json: bool) -> Result<(), String> {
    let cfg = at.config()?;
    if cfg.point(point).is_none() {
        return Err(format!(
            "no point `{point}` in {}",
            at.station.as_ref().map_or(String::new(), |p| p.display().to_string())
        ));
    }
    let target = cfg.database_or(at.db.as_deref())?;
    let mut st = Station::open(cfg, &target)?;
    let mut refused = 0usize;
    for chunk in files.chunks(INGEST_BATCH) {
        let sources: Vec<String> = chunk.iter().map(|f| f.display().to_string()).collect();
        let texts: Vec<Result<String, String>> = chunk.iter().map(|f| netmeas_sim::files::read_input_text(f)).collect();
        let epochs: Vec<Epoch<'_>> = texts
            .iter()
            .zip(&sources)
            .filter_map(|(t, source)| t.as_ref().ok().map(|body| Epoch { point, source, body, link: None }))
            .collect();
        let mut stored = st.ingest_batch(&epochs)?.into_iter();
        for (text, source) in texts.iter().zip(&sources) {
            let outcome = match text {
                Ok(_) => stored.next().expect("one outcome per epoch"),
                Err(e) => Err(e.clone()),
            };
            match outcome {
                Ok(Ingested::Stored { seq, t_ns, paired }) => {
                    if as_json {
                        crate::output::print_json(json!({ "file": source, "point": point, "seq": seq,
                            "start": format_time(t_ns), "stored": true, "paired": paired }))?;
                    } else {
                        let with = if paired.is_empty() {
                            String::new()
                        } else {
                            format!(", estimated {}", paired.join(", "))
                        };
                        println!("{source}: point {point} epoch {seq} ({}) stored{with}", format_time(t_ns));
                    }
                }
                Ok(Ingested::AlreadyStored { seq }) => {
                    if as_json {
                        crate::output::print_json(
                            json!({ "file": source, "point": point, "seq": seq, "stored": false, "already_stored": true }),
                        )?;
                    } else {
                        println!("{source}: point {point} epoch {seq} already stored");
                    }
                }
                Err(e) => {
                    refused += 1;
                    eprintln!("netmeas: refused: {e}");
                }
            }
        }
    }
    match refused {
        0 => Ok(()),
        n => {
            Err(format!("{n} of {} epochs refused (each logged in the station: `netmeas query rejected`)", files.len()))
        }
    }
}

/// `netmeas query …`.
pub fn query(cmd: &QueryCmd) -> Result<(), String> {
    match cmd {
        QueryCmd::Latency(SegmentQuery { at, segment, window, out }) => {
            let (from, to) = window.ns()?;
            let rows = query::latency(&mut open(at)?, segment, from, to)?;
            let header =
                ["seq", "start", "sent", "received", "loss", "samples", "mean_ns", "std_ns", "bound98_ns", "unusable"];
            let cells = rows.iter().map(|r| {
                vec![
                    r.seq.to_string(),
                    format_time(r.t_ns),
                    r.sent.to_string(),
                    r.received.to_string(),
                    num(r.loss),
                    r.samples.to_string(),
                    num(r.mean_ns),
                    num(r.std_ns),
                    num(r.bound98_ns),
                    r.unusable.clone().unwrap_or_default(),
                ]
            });
            emit(out, json!({ "query": "latency", "segment": segment, "epochs": rows }), &header, cells.collect())
        }
        QueryCmd::Path { at, segments, window, out } => {
            let (from, to) = window.ns()?;
            let p = query::path_latency(&mut open(at)?, segments, from, to)?;
            let mut header = vec!["start".to_string(), "mean_ns".into(), "std_ns".into()];
            header.extend(segments.iter().map(|s| format!("{s}_mean_ns")));
            let cells = p.epochs.iter().map(|r| {
                let mut row = vec![format_time(r.t_ns), num(Some(r.mean_ns)), num(Some(r.std_ns))];
                row.extend(r.segment_means_ns.iter().map(|&m| num(Some(m))));
                row
            });
            let header: Vec<&str> = header.iter().map(String::as_str).collect();
            let r = emit(out, json!({ "query": "path", "path": p }), &header, cells.collect());
            if !out.json && !p.incomplete.is_empty() {
                eprintln!("netmeas: {} epochs left out: a segment had no estimate (see --json)", p.incomplete.len());
            }
            r
        }
        QueryCmd::Bursts { at, search, window, out } => {
            let (found, scale_ns) = search.find(at, window)?;
            let rate = search.rate;
            let cells = found.iter().map(burst_cells);
            emit(
                out,
                json!({ "query": "bursts", "scale_ns": scale_ns, "rate_bps": rate, "bursts": found }),
                &BURST_HEADER,
                cells.collect(),
            )
        }
        QueryCmd::Coincide { at, search, within, window, out } => {
            let within_ns = duration_ns("--within", within)?;
            let (found, scale_ns) = search.find(at, window)?;
            let found = query::coincident(found, within_ns)?;
            let rate = search.rate;
            let cells = found.iter().enumerate().flat_map(|(k, c)| {
                c.bursts.iter().map(move |b| std::iter::once(k.to_string()).chain(burst_cells(b)).collect())
            });
            let header: Vec<&str> = std::iter::once("group").chain(BURST_HEADER).collect();
            emit(
                out,
                json!({ "query": "coincide", "scale_ns": scale_ns, "rate_bps": rate, "within_ns": within_ns,
                        "coincidences": found }),
                &header,
                cells.collect(),
            )
        }
        QueryCmd::Packets(SegmentQuery { at, segment, window, out }) => {
            let (from, to) = window.ns()?;
            let rows = query::packets(&mut open(at)?, segment, from, to)?;
            // One text/CSV row per packet; an epoch whose decode is partial says so on each.
            let cells = rows.iter().flat_map(|r| {
                let status = if r.complete { "complete" } else { "partial" };
                let row = move |kind: &'static str, id: &u64| {
                    vec![r.seq.to_string(), format_time(r.t_ns), kind.to_string(), id.to_string(), status.to_string()]
                };
                r.lost
                    .iter()
                    .map(move |id| row("lost", id))
                    .chain(r.reordered.iter().map(move |id| row("reordered", id)))
            });
            let partial = rows.iter().filter(|r| !r.complete).count();
            let r = emit(
                out,
                json!({ "query": "packets", "segment": segment, "epochs": rows }),
                &["seq", "start", "packet", "id", "decode"],
                cells.collect(),
            );
            if !out.json && partial > 0 {
                eprintln!("netmeas: {partial} epochs decoded partially: their lists are not the whole difference");
            }
            r
        }
        QueryCmd::Delays { at, point, quantiles, window, out } => {
            let (from, to) = window.ns()?;
            let rows = query::delays(&mut open(at)?, point, quantiles, from, to)?;
            let names: Vec<String> = quantiles.iter().map(|q| format!("p{}_ns", q * 100.0)).collect();
            let mut header = vec!["start", "periods", "samples", "overflow"];
            header.extend(names.iter().map(String::as_str));
            let cells = rows.iter().map(|r| {
                let mut row =
                    vec![format_time(r.t_ns), r.periods.to_string(), r.samples.to_string(), r.overflow.to_string()];
                row.extend(r.quantiles_ns.iter().map(|&v| num(v)));
                row
            });
            emit(
                out,
                json!({ "query": "delays", "point": point, "quantiles": quantiles, "epochs": rows }),
                &header,
                cells.collect(),
            )
        }
        QueryCmd::Unpaired { at, out } => {
            let rows = query::unpaired(&mut open(at)?)?;
            let cells =
                rows.iter().map(|r| vec![r.segment.clone(), r.seq.to_string(), format_time(r.t_ns), r.have.clone()]);
            emit(
                out,
                json!({ "query": "unpaired", "epochs": rows }),
                &["segment", "seq", "start", "have"],
                cells.collect(),
            )
        }
        QueryCmd::Points { at, out } => {
            let rows = query::points(&mut open(at)?)?;
            let cells = rows.iter().map(|p| {
                let serial = |v: i64| if p.serial.epochs > 0 { v.to_string() } else { String::new() };
                vec![
                    p.name.clone(),
                    p.link.clone(),
                    p.core.clone(),
                    p.epochs.to_string(),
                    p.last.map(|(seq, _)| seq.to_string()).unwrap_or_default(),
                    p.last.map(|(_, t)| format_time(t)).unwrap_or_default(),
                    p.gaps.to_string(),
                    p.rejected.to_string(),
                    p.overflows.to_string(),
                    serial(p.serial.requests),
                    serial(p.serial.retries),
                    serial(p.serial.crc_errors),
                    serial(p.serial.lost_responses),
                ]
            });
            emit(
                out,
                json!({ "query": "points", "points": rows }),
                &[
                    "point",
                    "link",
                    "core",
                    "epochs",
                    "last",
                    "last_start",
                    "gaps",
                    "refused",
                    "overflows",
                    "line_requests",
                    "line_retries",
                    "crc_errors",
                    "lost_responses",
                ],
                cells.collect(),
            )
        }
        QueryCmd::Rejected { at, out } => {
            let rows = query::rejections(&mut open(at)?)?;
            let cells = rows.iter().map(|r| {
                vec![
                    format_time(r.at_ns),
                    r.point.clone(),
                    r.seq.map(|s| s.to_string()).unwrap_or_default(),
                    r.source.clone(),
                    r.reason.clone(),
                ]
            });
            emit(
                out,
                json!({ "query": "rejected", "epochs": rows }),
                &["at", "point", "seq", "source", "reason"],
                cells.collect(),
            )
        }
    }
}

/// The columns of a burst in text and CSV.
const BURST_HEADER: [&str; 7] = ["start", "link", "point", "scale_ns", "rate_bps", "culprit", "periods"];

/// A burst's cells under [`BURST_HEADER`].
fn burst_cells(b: &query::LinkBurst) -> Vec<String> {
    vec![
        format_time(b.burst.t_ns),
        b.link.clone(),
        b.point.clone(),
        b.burst.scale_ns.to_string(),
        format!("{:.0}", b.burst.rate_bps),
        b.burst.culprit.map(|c| c.to_string()).unwrap_or_default(),
        b.burst.periods.to_string(),
    ]
}

/// A positive duration flag (`1ms`, `100us`) in ns.
fn duration_ns(flag: &str, text: &str) -> Result<i64, String> {
    parse_duration_ns(text).map_err(|e| format!("{flag} {text}: {e}"))
}

fn open(at: &StationArgs) -> Result<Db, String> {
    Db::open(&at.database()?, Access::Read)
}

fn num(v: Option<f64>) -> String {
    v.map(|v| format!("{v}")).unwrap_or_default()
}

/// Prints a query's result as JSON (`value`), CSV or an aligned text table.
fn emit(out: &QueryOutput, value: impl Serialize, header: &[&str], rows: Vec<Vec<String>>) -> Result<(), String> {
    if out.json {
        return crate::output::print_json(value);
    }
    if out.csv {
        let mut w = csv::Writer::from_writer(Vec::new());
        let fail = |e: csv::Error| format!("cannot write CSV: {e}");
        w.write_record(header).map_err(fail)?;
        for r in &rows {
            w.write_record(r).map_err(fail)?;
        }
        let bytes = w.into_inner().map_err(|e| format!("cannot write CSV: {e}"))?;
        let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
        for line in text.lines() {
            println!("{line}");
        }
        return Ok(());
    }
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        padded.join("  ").trim_end().to_string()
    };
    println!("{}", line(header.to_vec()));
    for r in &rows {
        println!("{}", line(r.iter().map(String::as_str).collect()));
    }
    if rows.is_empty() {
        println!("(none)");
    }
    Ok(())
}
