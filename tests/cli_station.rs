//! `netmeas station` and `netmeas query` as an operator uses them: a station
//! file, synopsis files ingested point by point, the answers in text, JSON
//! and CSV; bursts coinciding across links; a roll-up; bad input refused and
//! logged; a station killed mid-ingest.

mod common;
use common::{assert_refused, fresh_dir, json, netmeas};
use netmeas_sim::lda::{LdaConfig, estimate};
use netmeas_station::fleet::{LdaLink, synopsis_json};
use std::path::Path;

/// 2026-12-01T00:00:00Z.
const START: &str = "2026-12-01T00:00:00Z";

/// A station of two segments r0 → r1 → r2 on LDA cores of 128 rows, its database beside it.
fn station(dir: &Path) -> String {
    let mut s = String::from("database = \"station.sqlite\"\n");
    for k in 0..2 {
        for (dir, r) in [("egress", k), ("ingress", k + 1)] {
            s += &format!(
                "[[point]]\nname = \"r{r}.{dir}\"\nrouter = \"r{r}\"\nlink = \"l{k}\"\ndirection = \"{dir}\"\n\
                 core = \"lda\"\nconfig = {{ rows = 128 }}\nepoch = \"1s\"\nstart = \"{START}\"\n"
            );
        }
        s += &format!("[[segment]]\nname = \"l{k}\"\nsender = \"r{k}.egress\"\nreceiver = \"r{}.ingress\"\n", k + 1);
    }
    let p = dir.join("station.toml");
    std::fs::write(&p, s).unwrap();
    p.to_str().unwrap().to_string()
}

/// `epochs` epochs of segment `k` written as `s{k}_{e}.json` / `r{k}_{e}.json`; the pairs.
fn write_epochs(
    dir: &Path,
    k: usize,
    epochs: u32,
    mean_ns: impl Fn(u32) -> f64,
) -> Vec<(netmeas_sim::lda::LdaSynopsis, netmeas_sim::lda::LdaSynopsis)> {
    let cfg = LdaConfig { rows: 128, ..LdaConfig::default() };
    let mut link = LdaLink::new(&cfg, 1_000_000_000, 40 + k as u64);
    (0..epochs)
        .map(|e| {
            let (s, r, _) = link.epoch(4_000, mean_ns(e), 0.01);
            std::fs::write(dir.join(format!("s{k}_{e}.json")), synopsis_json(&s, "sender")).unwrap();
            std::fs::write(dir.join(format!("r{k}_{e}.json")), synopsis_json(&r, "receiver")).unwrap();
            (s, r)
        })
        .collect()
}

fn files(dir: &Path, prefix: &str, epochs: std::ops::Range<u32>) -> Vec<String> {
    epochs.map(|e| dir.join(format!("{prefix}_{e}.json")).to_str().unwrap().to_string()).collect()
}

/// The periods `netmeas run <core> --duration 6s --save-periods` wrote into `d/periods` (three or more), in order.
fn saved_periods(d: &Path, core: &str) -> Vec<String> {
    let periods = d.join("periods");
    let o = netmeas(&["run", core, "--duration", "6s", "--save-periods", periods.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = numbered_files(&periods);
    assert!(files.len() >= 3, "{files:?}");
    files
}

/// The `<stem>-<n>.json` files a run wrote into `dir` (one per period or epoch), by n.
fn numbered_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path().to_str().unwrap().to_string()).collect();
    files.sort_by_key(|f| f.rsplit('-').next().unwrap().trim_end_matches(".json").parse::<u32>().unwrap());
    files
}

fn ingest(st: &str, point: &str, files: &[String]) -> std::process::Output {
    let mut args = vec!["station", "ingest", "--station", st, "--point", point];
    args.extend(files.iter().map(String::as_str));
    netmeas(&args)
}

#[test]
fn ingest_then_ask_for_segments_and_paths() {
    let d = fresh_dir("station", "flow");
    let st = station(&d);
    let l0 = write_epochs(&d, 0, 4, |_| 2_000.0);
    let l1 = write_epochs(&d, 1, 4, |e| if e == 2 { 30_000.0 } else { 1_000.0 });
    let o = ingest(&st, "r0.egress", &files(&d, "s0", 0..4));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 4);
    assert!(text.lines().next().unwrap().ends_with("point r0.egress epoch 0 (2026-12-01T00:00:00Z) stored"), "{text}");
    let o = ingest(&st, "r1.ingress", &files(&d, "r0", 0..4));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.lines().all(|l| l.ends_with("stored, estimated l0")), "{text}");
    for (p, f) in [("r1.egress", "s1"), ("r2.ingress", "r1")] {
        assert!(ingest(&st, p, &files(&d, f, 0..4)).status.success());
    }
    // Ingesting again changes nothing.
    let o = ingest(&st, "r1.egress", &files(&d, "s1", 0..1));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim_end().rsplit(": ").next(),
        Some("point r1.egress epoch 0 already stored")
    );

    // One segment, as JSON: the host estimator's figures for the same pair.
    let v = json(&netmeas(&["query", "latency", "--station", &st, "--segment", "l1", "--json"]));
    let rows = v["epochs"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for (e, row) in rows.iter().enumerate() {
        let want = estimate(&l1[e].0, &l1[e].1).unwrap();
        assert_eq!(row["mean_ns"].as_f64(), json_f64(want.mean));
        assert_eq!(row["std_ns"].as_f64(), json_f64(want.std));
        assert_eq!(row["received"].as_i64(), Some(want.received as i64));
    }
    // A window of epoch starts, as CSV.
    let o = netmeas(&[
        "query",
        "latency",
        "--station",
        &st,
        "--segment",
        "l1",
        "--from",
        "2026-12-01T00:00:01Z",
        "--to",
        "2026-12-01T00:00:03Z",
        "--csv",
    ]);
    let csv = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "seq,start,sent,received,loss,samples,mean_ns,std_ns,bound98_ns,unusable");
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[1].starts_with("1,2026-12-01T00:00:01Z,4000,") && lines[2].starts_with("2,"), "{csv}");

    // The path r0 → r2: the sum of the segments' means; the spike sits on l1 in epoch 2.
    let v = json(&netmeas(&["query", "path", "--station", &st, "--segments", "l0,l1", "--json"]));
    let epochs = v["path"]["epochs"].as_array().unwrap();
    assert_eq!(epochs.len(), 4);
    for (e, row) in epochs.iter().enumerate() {
        let (a, b) = (estimate(&l0[e].0, &l0[e].1).unwrap(), estimate(&l1[e].0, &l1[e].1).unwrap());
        assert_eq!(row["mean_ns"].as_f64(), json_f64(a.mean + b.mean));
        assert_eq!(row["std_ns"].as_f64(), json_f64((a.std * a.std + b.std * b.std).sqrt()));
        let l1_mean = row["segment_means_ns"][1].as_f64().unwrap();
        assert_eq!(l1_mean > 20_000.0, e == 2, "epoch {e}: {row}");
    }
    let text = String::from_utf8(netmeas(&["query", "path", "--station", &st, "--segments", "l0,l1"]).stdout).unwrap();
    assert!(text.starts_with("start") && text.contains("l1_mean_ns") && text.lines().count() == 5, "{text}");
    let v = json(&netmeas(&["query", "unpaired", "--station", &st, "--json"]));
    assert_eq!(v["epochs"], serde_json::json!([]));
}

#[test]
fn bad_epochs_and_flags_are_refused_and_logged() {
    let d = fresh_dir("station", "bad");
    let st = station(&d);
    write_epochs(&d, 0, 3, |_| 500.0);
    let db = d.join("station.sqlite");
    // A query before anything was stored.
    assert_refused(&["query", "latency", "--station", &st, "--segment", "l0"], "no station database at");
    assert!(!db.exists(), "a query creates nothing");
    assert_refused(&["station", "ingest", "--station", &st, "--point", "r9.egress", "x.json"], "no point `r9.egress`");
    assert!(!db.exists());
    // A truncated file among good ones: the good ones are stored, the bad one refused and logged.
    let cut = d.join("cut.json");
    let full = std::fs::read_to_string(d.join("s0_1.json")).unwrap();
    std::fs::write(&cut, &full[..full.len() / 3]).unwrap();
    let mut list = files(&d, "s0", 0..1);
    list.push(cut.to_str().unwrap().to_string());
    list.extend(files(&d, "s0", 2..3));
    list.extend(files(&d, "s0", 1..2));
    let o = ingest(&st, "r0.egress", &list);
    assert!(!o.status.success());
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(err.contains("cut.json") && err.contains("bad JSON"), "{err}");
    assert!(err.contains("epoch 1") && err.contains("out of order: epoch 2 is already stored"), "{err}");
    assert!(err.trim_end().ends_with("2 of 4 epochs refused (each logged in the station: `netmeas query rejected`)"));
    let v = json(&netmeas(&["query", "rejected", "--station", &st, "--json"]));
    let rej = v["epochs"].as_array().unwrap();
    assert_eq!(rej.len(), 2);
    assert_eq!((rej[0]["point"].as_str(), rej[0]["seq"].as_i64()), (Some("r0.egress"), None));
    assert_eq!((rej[1]["point"].as_str(), rej[1]["seq"].as_i64()), (Some("r0.egress"), Some(1)));
    // The sender's epochs without their receivers: unpaired, as CSV.
    let o = netmeas(&["query", "unpaired", "--station", &st, "--csv"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "segment,seq,start,have\nl0,0,2026-12-01T00:00:00Z,sender\nl0,2,2026-12-01T00:00:02Z,sender\n"
    );
    // Flags.
    for (args, needle) in [
        (vec!["query", "latency", "--station", &st, "--segment", "l9"], "no segment `l9`"),
        (vec!["query", "latency", "--station", &st, "--segment", "l0", "--from", "noon"], "not a time like"),
        (
            vec!["query", "latency", "--station", &st, "--segment", "l0", "--from", START, "--to", START],
            "--to must be after --from",
        ),
        (vec!["query", "latency", "--segment", "l0"], "give the database with --db"),
        (vec!["station", "rollup", "--station", &st], "the station file sets no [retention] policy"),
        (vec!["query", "latency", "--station", &st, "--segment", "l0", "--json", "--csv"], "cannot be used with"),
        (
            vec!["station", "ingest", "--station", "/nonexistent/st.toml", "--point", "p", "f"],
            "cannot read /nonexistent/st.toml",
        ),
    ] {
        assert_refused(&args, needle);
    }
}

#[test]
fn a_station_killed_mid_ingest_keeps_whole_epochs_only() {
    let d = fresh_dir("station", "kill");
    let st = station(&d);
    let n = 300;
    write_epochs(&d, 0, n, |_| 700.0);
    assert!(ingest(&st, "r1.ingress", &files(&d, "r0", 0..n)).status.success());
    let senders = files(&d, "s0", 0..n);
    let mut args: Vec<String> =
        ["station", "ingest", "--station", &st, "--point", "r0.egress"].map(String::from).to_vec();
    args.extend(senders.iter().cloned());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_netmeas"))
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first epochs to be stored, then kill it without warning.
    let mut first = [0u8; 1];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let still_running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    let stored =
        count(&d.join("station.sqlite"), "synopsis WHERE point = (SELECT id FROM point WHERE name = 'r0.egress')");
    let estimated = count(&d.join("station.sqlite"), "latency");
    assert_eq!(stored, estimated, "every stored sender epoch has its estimate: no half epoch");
    if still_running {
        assert!(stored < i64::from(n), "killed before the end");
    }
    // Ingesting the same files again completes the station.
    let o = ingest(&st, "r0.egress", &senders);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().filter(|l| l.ends_with("already stored")).count() as i64, stored);
    assert_eq!(count(&d.join("station.sqlite"), "latency"), i64::from(n));
}

/// `x` as it reads back from the JSON the CLI prints: serde_json's default
/// float parser may round the last bit differently from the value printed,
/// so the expected value takes the same path (equal when the printed text is
/// the exact shortest form of `x`).
fn json_f64(x: f64) -> Option<f64> {
    serde_json::from_str::<f64>(&serde_json::to_string(&x).unwrap()).ok()
}

/// `SELECT COUNT(*) FROM {from}` on the station's SQLite file, opened read-only.
fn count(db: &Path, from: &str) -> i64 {
    let mut db = netmeas_station::Db::open(db.to_str().unwrap(), netmeas_station::Access::Read).unwrap();
    db.query(&format!("SELECT COUNT(*) FROM {from}"), &[]).unwrap()[0][0].int("count").unwrap()
}

#[test]
fn expb_periods_from_a_run_answer_the_burst_queries_and_roll_up() {
    let d = fresh_dir("station", "bursts");
    let files = saved_periods(&d, "expb");
    let st = d.join("station.toml");
    std::fs::write(
        &st,
        ["edge.bw", "mirror.bw"].iter().fold(
            "database = \"station.sqlite\"\n[retention]\nrollup = \"1h\"\nraw = \"1h\"\n".to_string(),
            |f, p| {
                f + &format!(
                    "[[point]]\nname = \"{p}\"\nrouter = \"edge\"\nlink = \"{}\"\n\
                     direction = \"egress\"\ncore = \"expb\"\nepoch = \"2s\"\nstart = \"{START}\"\n",
                    if *p == "edge.bw" { "uplink" } else { "mirror" }
                )
            },
        ),
    )
    .unwrap();
    let st = st.to_str().unwrap();
    assert!(ingest(st, "edge.bw", &files).status.success());
    // What each period's scale of 1.25 ms (the smallest ≥ 1 ms) says, in bits/s.
    let rates: Vec<f64> = files
        .iter()
        .map(|f| {
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            v["period"]["scales"][4]["max"].as_f64().unwrap() * 8e9 / 1.25e6
        })
        .collect();
    let rate = 2e9;
    let v = json(&netmeas(&[
        "query",
        "bursts",
        "--station",
        st,
        "--links",
        "uplink",
        "--scale",
        "1ms",
        "--rate",
        "2e9",
        "--json",
    ]));
    let found = v["bursts"].as_array().unwrap();
    let want: Vec<f64> = rates.iter().copied().filter(|&r| r > rate).collect();
    assert!(!want.is_empty(), "the run's injected bursts exceed {rate} bit/s: {rates:?}");
    let want: Vec<f64> = want.into_iter().filter_map(json_f64).collect();
    assert_eq!(found.iter().map(|b| b["rate_bps"].as_f64().unwrap()).collect::<Vec<_>>(), want);
    assert!(found.iter().all(|b| b["scale_ns"] == 1_250_000 && b["link"] == "uplink" && b["culprit"].is_u64()));
    let text = String::from_utf8(
        netmeas(&["query", "bursts", "--station", st, "--scale", "1ms", "--rate", "2e9", "--csv"]).stdout,
    )
    .unwrap();
    assert_eq!(text.lines().count(), want.len() + 1, "{text}");
    assert!(text.starts_with("start,link,point,scale_ns,rate_bps,culprit,periods\n"), "{text}");
    assert_refused(&["query", "bursts", "--station", st, "--scale", "soon", "--rate", "1e9"], "--scale soon");
    assert_refused(&["query", "bursts", "--station", st, "--scale", "10us", "--rate", "1e9"], "finest time scale");

    // The same periods on a second link: every burst coincides on both.
    assert!(ingest(st, "mirror.bw", &files).status.success());
    let co = ["query", "coincide", "--station", st, "--scale", "1ms", "--rate", "2e9", "--within", "1us"];
    let v = json(&netmeas(&[&co[..], &["--json"]].concat()));
    let groups = v["coincidences"].as_array().unwrap();
    assert_eq!(groups.len(), want.len(), "{v}");
    for (g, rate) in groups.iter().zip(&want) {
        assert_eq!(g["links"], serde_json::json!(["mirror", "uplink"]));
        assert_eq!(g["first_ns"], g["last_ns"]);
        assert!(g["bursts"].as_array().unwrap().iter().all(|b| b["rate_bps"].as_f64() == Some(*rate)));
    }
    let text = String::from_utf8(netmeas(&[&co[..], &["--csv"]].concat()).stdout).unwrap();
    assert_eq!(text.lines().count(), 2 * want.len() + 1, "{text}");
    assert!(text.starts_with("group,start,link,point,scale_ns,rate_bps,culprit,periods\n"), "{text}");
    assert_refused(&[&co[..8], &["--within", "soon"]].concat(), "--within soon");

    // Rolled up two hours later: each point's periods are one row per scale.
    let roll = ["station", "rollup", "--station", st, "--now", "2026-12-01T02:00:00Z", "--json"];
    let v = json(&netmeas(&roll));
    for p in v["rollup"]["points"].as_array().unwrap() {
        assert_eq!(
            (&p["hours"], &p["epochs"], &p["raw_dropped"]),
            (&1.into(), &files.len().into(), &files.len().into())
        );
    }
    assert_eq!(count(&d.join("station.sqlite"), "bandwidth WHERE periods > 1"), 2 * 11);
    assert_eq!(count(&d.join("station.sqlite"), "synopsis"), 0);
    let v = json(&netmeas(&["query", "bursts", "--station", st, "--scale", "1ms", "--rate", "2e9", "--json"]));
    let top = want.iter().copied().fold(0.0, f64::max);
    let rolled: Vec<(f64, i64)> = v["bursts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["rate_bps"].as_f64().unwrap(), b["periods"].as_i64().unwrap()))
        .collect();
    assert_eq!(rolled, [(top, files.len() as i64); 2], "the hour's largest burst, on each link");
    let again = String::from_utf8(netmeas(&roll[..6]).stdout).unwrap();
    assert!(again.contains("edge.bw: 0 h rolled up (0 epochs), 0 raw synopses dropped"), "{again}");
    let o = ingest(st, "edge.bw", &files[..1]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("roll-up horizon"));
    assert_refused(&["station", "rollup", "--station", st, "--now", "noon"], "--now: \"noon\" is not a time");
}

#[test]
fn dbm_periods_from_a_run_answer_the_burst_query_at_any_scale() {
    use netmeas_sim::dbm::{DbmSynopsis, dbm_series, series_stats};
    let d = fresh_dir("station", "dbm");
    let files = saved_periods(&d, "dbm");
    let st = d.join("station.toml");
    std::fs::write(
        &st,
        format!(
            "database = \"station.sqlite\"\n[[point]]\nname = \"edge.dbm\"\nrouter = \"edge\"\nlink = \"uplink\"\n\
             direction = \"egress\"\ncore = \"dbm\"\nepoch = \"2s\"\nstart = \"{START}\"\n"
        ),
    )
    .unwrap();
    let st = st.to_str().unwrap();
    let o = ingest(st, "edge.dbm", &files);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // At 50 µs, finer than any EXPB scale: each period's largest interval
    // of the host's Theorem 1 series of the same buckets, in bits/s.
    let delta = 50_000u64;
    let rates: Vec<f64> = files
        .iter()
        .map(|f| {
            let s: DbmSynopsis = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            let t0 = s.period.index * s.config.period_ticks;
            series_stats(&dbm_series(&s.period.buckets, t0, s.config.period_ticks, delta)).max * 8e9 / delta as f64
        })
        .collect();
    let rate = rates.iter().copied().fold(f64::MAX, f64::min) * 0.999;
    let v =
        json(&netmeas(&["query", "bursts", "--station", st, "--scale", "50us", "--rate", &rate.to_string(), "--json"]));
    let found: Vec<f64> = v["bursts"].as_array().unwrap().iter().map(|b| b["rate_bps"].as_f64().unwrap()).collect();
    assert_eq!(found.len(), rates.len(), "{v}");
    for (got, want) in found.iter().zip(&rates) {
        assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}");
    }
    assert!(v["bursts"].as_array().unwrap().iter().all(|b| b["scale_ns"] == 50_000 && b["culprit"].is_u64()));
    assert_refused(&["query", "bursts", "--station", st, "--scale", "3s", "--rate", "1e9"], "coarser");
    // A period of another config is refused, named, and not stored.
    let mut other: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    other["config"]["buckets"] = 512.into();
    other["period"]["index"] = 7.into();
    let bad = d.join("other.json");
    std::fs::write(&bad, other.to_string()).unwrap();
    let o = ingest(st, "edge.dbm", &[bad.to_str().unwrap().to_string()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("DBM config differs") && err.contains("edge.dbm"), "{err}");
    assert_eq!(count(&d.join("station.sqlite"), "dbm_partition"), files.len() as i64);
}

#[test]
fn rda_synopses_from_a_run_list_the_packets_lost_and_reordered() {
    let d = fresh_dir("station", "rda");
    let syn = d.join("syn");
    let o = netmeas(&["run", "rda", "--save-synopses", syn.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(syn.join(f)).unwrap()).unwrap()
    };
    let (sender, decoded) = (read("sender.json"), read("decoded.json"));
    // The points run the run's config (its interval is the trace's), one epoch per interval.
    std::fs::write(d.join("rda.json"), sender["config"].to_string()).unwrap();
    let delta = sender["config"]["interval_ticks"].as_u64().unwrap();
    let mut file = String::from("database = \"station.sqlite\"\n");
    for (name, dir) in [("a.tx", "egress"), ("a.rx", "ingress")] {
        file += &format!(
            "[[point]]\nname = \"{name}\"\nrouter = \"r\"\nlink = \"a\"\ndirection = \"{dir}\"\ncore = \"rda\"\n\
             config = \"rda.json\"\nepoch = \"{delta}ns\"\nstart = \"{START}\"\n"
        );
    }
    file += "[[segment]]\nname = \"a\"\nsender = \"a.tx\"\nreceiver = \"a.rx\"\n";
    std::fs::write(d.join("station.toml"), file).unwrap();
    let st = d.join("station.toml");
    let st = st.to_str().unwrap();
    let path = |f: &str| syn.join(f).to_str().unwrap().to_string();
    assert!(ingest(st, "a.tx", &[path("sender.json")]).status.success());
    let o = ingest(st, "a.rx", &[path("receiver.json")]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("estimated a"), "{out}");

    // The station's decode is the run's: the same IDs, lost and reordered.
    let v = json(&netmeas(&["query", "packets", "--station", st, "--segment", "a", "--json"]));
    let epoch = &v["epochs"][0];
    let sorted = |v: &serde_json::Value| {
        let mut ids: Vec<u64> = v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        ids.sort_unstable();
        ids
    };
    let (lost, reordered) = (sorted(&decoded["lost"]), sorted(&decoded["reordered"]));
    assert!(!lost.is_empty() && decoded["complete"] == true, "{decoded}");
    assert_eq!((sorted(&epoch["lost"]), sorted(&epoch["reordered"])), (lost.clone(), reordered.clone()));
    assert_eq!(epoch["complete"], true);
    let csv =
        String::from_utf8(netmeas(&["query", "packets", "--station", st, "--segment", "a", "--csv"]).stdout).unwrap();
    assert!(csv.starts_with("seq,start,packet,id,decode\n"), "{csv}");
    assert_eq!(csv.lines().count(), 1 + lost.len() + reordered.len());
    assert_eq!(csv.lines().filter(|l| l.contains(",lost,")).count(), lost.len());
    // Its latency row is `netmeas estimate rda` of the same files (1 ns ticks).
    let host = json(&netmeas(&["estimate", "rda", &path("sender.json"), &path("receiver.json"), "--json"]));
    let row = &json(&netmeas(&["query", "latency", "--station", st, "--segment", "a", "--json"]))["epochs"][0];
    assert_eq!((&row["mean_ns"], &row["std_ns"]), (&host["estimates"]["mean"], &host["estimates"]["std"]));
    assert_eq!(row["loss"].as_f64(), Some(lost.len() as f64 / host["estimates"]["sent"].as_f64().unwrap()));
    assert_refused(&["query", "packets", "--station", st, "--segment", "zz"], "no segment `zz`");
}

#[test]
fn fridge_epochs_from_a_run_answer_the_delay_percentiles() {
    use netmeas_sim::fridge::{FridgeSynopsis, histogram_cdf};
    let d = fresh_dir("station", "fridge");
    let dir = d.join("epochs");
    let run = ["run", "fridge", "--requests", "100000", "--rate", "50000", "--max-delay", "64ms"];
    let save = ["--epoch", "500ms", "--save-epochs", dir.to_str().unwrap()];
    let o = netmeas(&[&run[..], &save[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = numbered_files(&dir);
    // 100 000 requests at 50 000/s: 2 s and the last responses, 5 epochs of 500 ms.
    assert_eq!(files.len(), 5, "{files:?}");
    let epochs: Vec<FridgeSynopsis> =
        files.iter().map(|f| serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap()).collect();
    // The point runs the run's config (its probabilities tuned to the trace).
    std::fs::write(d.join("fridge.json"), serde_json::to_string(&epochs[0].config).unwrap()).unwrap();
    std::fs::write(
        d.join("station.toml"),
        format!(
            "database = \"station.sqlite\"\n[[point]]\nname = \"dns.fridge\"\nrouter = \"r1\"\nlink = \"dns\"\n\
             direction = \"ingress\"\ncore = \"fridge\"\nconfig = \"fridge.json\"\nepoch = \"500ms\"\nstart = \"{START}\"\n"
        ),
    )
    .unwrap();
    let st = d.join("station.toml");
    let st = st.to_str().unwrap();
    let o = ingest(st, "dns.fridge", &files);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&netmeas(&[
        "query",
        "delays",
        "--station",
        st,
        "--point",
        "dns.fridge",
        "--quantiles",
        "0.5,0.99",
        "--json",
    ]));
    let rows = v["epochs"].as_array().unwrap();
    assert_eq!(rows.len(), epochs.len());
    for (row, s) in rows.iter().zip(&epochs) {
        let cdf = histogram_cdf(&s.histograms, s.config.fridges(), s.config.bin_shift);
        let want: Vec<Option<f64>> = [0.5, 0.99].iter().map(|&q| cdf.as_ref().map(|c| c.quantile(q))).collect();
        let got: Vec<Option<f64>> = row["quantiles_ns"].as_array().unwrap().iter().map(|x| x.as_f64()).collect();
        assert_eq!(got, want, "{row}");
        assert_eq!(row["samples"], s.histograms.iter().map(|h| u64::from(h.count)).sum::<u64>());
    }
    assert!(rows[..4].iter().all(|r| r["quantiles_ns"][0].as_f64().is_some_and(|m| m > 1e3 && m < 64e6)));
    let csv =
        String::from_utf8(netmeas(&["query", "delays", "--station", st, "--point", "dns.fridge", "--csv"]).stdout)
            .unwrap();
    assert!(csv.starts_with("start,periods,samples,overflow,p50_ns,p95_ns,p99_ns\n"), "{csv}");
    assert_eq!(csv.lines().count(), 1 + epochs.len());
    assert_refused(&["query", "delays", "--station", st, "--point", "nope"], "no point `nope`");
    assert_refused(&[&run[..], &["--epoch", "1s"]].concat(), "--save-epochs");
    assert_refused(&[&run[..], &save[..], &["--engine", "rtl"]].concat(), "drop --engine");
}

/// One HTTP/1.0 GET (or `method`) to the dashboard: the status and the body.
fn http(addr: &str, method: &str, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "{method} {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (head.split(' ').nth(1).unwrap().parse().unwrap(), body.to_string())
}

/// Every `<tag …>` in `html` as its attributes.
fn tags(html: &str, tag: &str) -> Vec<std::collections::HashMap<String, String>> {
    let open = format!("<{tag} ");
    html.match_indices(&open)
        .map(|(at, _)| {
            let inside = &html[at + open.len()..at + html[at..].find('>').unwrap()];
            let mut attrs = std::collections::HashMap::new();
            let mut rest = inside;
            while let Some(eq) = rest.find("=\"") {
                let name = rest[..eq].trim().to_string();
                let end = rest[eq + 2..].find('"').unwrap();
                attrs.insert(name, rest[eq + 2..eq + 2 + end].to_string());
                rest = &rest[eq + 3 + end..];
            }
            attrs
        })
        .collect()
}

/// The dashboard in a real browser: headless Chromium loads the page served
/// by `netmeas station --http`, which fetches the JSON queries and plots
/// them; every plotted point of the latency and bandwidth plots and every
/// row of the burst table is checked against the station's own queries. A
/// screenshot is kept beside the test's station.
#[test]
fn the_dashboard_plots_what_the_queries_answer() {
    use netmeas_sim::dbm::ExpbConfig;
    use netmeas_station::fleet::{ExpbLink, InjectedBurst};
    use netmeas_station::{Station, StationConfig, query};
    let d = fresh_dir("station", "dashboard");
    let text = std::fs::read_to_string(station(&d)).unwrap()
        + &format!(
            "[[point]]\nname = \"r1.bw\"\nrouter = \"r1\"\nlink = \"l1\"\ndirection = \"egress\"\ncore = \"expb\"\n\
             epoch = \"2s\"\nstart = \"{START}\"\n"
        );
    std::fs::write(d.join("station.toml"), &text).unwrap();
    let st = d.join("station.toml").to_str().unwrap().to_string();
    let mut station =
        Station::open(StationConfig::load(Path::new(&st)).unwrap(), &d.join("station.sqlite").to_string_lossy())
            .unwrap();
    for (s, r) in write_epochs(&d, 0, 12, |e| if e == 7 { 4_000.0 } else { 600.0 }) {
        station.ingest("r0.egress", "test", &synopsis_json(&s, "sender")).unwrap();
        station.ingest("r1.ingress", "test", &synopsis_json(&r, "receiver")).unwrap();
    }
    let mut link = ExpbLink::new(&ExpbConfig::default(), 5).unwrap();
    for e in 0..6u64 {
        let burst =
            InjectedBurst { offset_ns: 700_000_000, duration_ns: 3_000_000, rate_bps: 9e9, flow: 900 + e as u32 };
        let here = if e % 2 == 1 { vec![burst] } else { vec![] };
        let syn = link.epoch(1e9 + 2e8 * e as f64, &here);
        station.ingest("r1.bw", "test", &serde_json::to_string(&syn).unwrap()).unwrap();
    }
    drop(station);

    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_netmeas"))
        .args(["station", "--station", &st, "--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut line).unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with('/'), "{line}");
    let addr = url.trim_start_matches("http://").trim_end_matches('/').to_string();

    // The JSON endpoints, and nothing else.
    let (status, body) = http(&addr, "GET", "/api/points");
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["segments"], serde_json::json!(["l0", "l1"]));
    let bw = v["points"].as_array().unwrap().iter().find(|p| p["name"] == "r1.bw").unwrap();
    assert_eq!((bw["epochs"].as_i64(), bw["gaps"].as_i64(), bw["last"][0].as_i64()), (Some(6), Some(0), Some(5)));
    assert_eq!(http(&addr, "POST", "/api/points").0, 405);
    assert_eq!(http(&addr, "GET", "/station.sqlite").0, 404);
    let (status, body) = http(&addr, "GET", "/api/latency?segment=nope");
    assert!(status == 400 && body.contains("no segment `nope`"), "{status} {body}");

    // The page in Chromium, once to read what it plotted and once to look at.
    let page = format!("{url}?segment=l0&point=r1.bw&scale=1ms&rate=5e9");
    let chromium = |extra: &[&str]| {
        let mut args = vec!["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000"];
        args.extend_from_slice(extra);
        args.push(&page);
        std::process::Command::new("chromium")
            .args(&args)
            .output()
            .unwrap_or_else(|e| panic!("chromium runs (tools/setup.sh installs it): {e}"))
    };
    let dom = String::from_utf8(chromium(&["--dump-dom"]).stdout).unwrap();
    assert!(dom.contains("data-ready=\"yes\""), "the page finished: {dom}");
    assert!(dom.contains("<p id=\"error\" class=\"error\"></p>"), "no error shown: {dom}");
    let circles = tags(&dom, "circle");
    let plotted = |series: &str| -> Vec<(f64, f64)> {
        circles
            .iter()
            .filter(|c| c["data-series"] == series)
            .map(|c| (c["data-t"].parse().unwrap(), c["data-v"].parse().unwrap()))
            .collect()
    };
    let mut db =
        netmeas_station::Db::open(&d.join("station.sqlite").to_string_lossy(), netmeas_station::Access::Read).unwrap();
    let lat = query::latency(&mut db, "l0", 0, i64::MAX).unwrap();
    let want: Vec<(f64, f64)> = lat.iter().filter_map(|r| r.mean_ns.map(|m| (r.t_ns as f64, m))).collect();
    assert_eq!(want.len(), 12);
    assert_eq!(plotted("mean_ns"), want);
    let rows = query::bandwidth(&mut db, "r1.bw", 1_000_000, 0, i64::MAX).unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(plotted("max_bps"), rows.iter().map(|r| (r.t_ns as f64, r.max_bps)).collect::<Vec<_>>());
    assert_eq!(plotted("mean_bps"), rows.iter().map(|r| (r.t_ns as f64, r.mean_bps)).collect::<Vec<_>>());
    let bursts = query::bursts(&mut db, &[], 1_000_000, 5e9, 0, i64::MAX).unwrap();
    assert_eq!(bursts.len(), 3, "the injected bursts: {bursts:?}");
    let table: Vec<i64> = tags(&dom, "tr").iter().filter_map(|r| r.get("data-t").map(|t| t.parse().unwrap())).collect();
    assert_eq!(table, bursts.iter().map(|b| b.burst.t_ns).collect::<Vec<_>>());

    let shot = d.join("dashboard.png");
    let o = chromium(&["--window-size=1280,1500", &format!("--screenshot={}", shot.display())]);
    let png = std::fs::read(&shot)
        .unwrap_or_else(|e| panic!("{}: {e}; {}", shot.display(), String::from_utf8_lossy(&o.stderr)));
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "a real screenshot: {} bytes", png.len());
    eprintln!("dashboard screenshot: {}", shot.display());
    server.kill().unwrap();
    server.wait().unwrap();

    // No database, no dashboard; no subcommand, no --http: one clear error each.
    assert_refused(
        &["station", "--db", d.join("none.sqlite").to_str().unwrap(), "--http", "127.0.0.1:0"],
        "no station database",
    );
    assert_refused(&["station", "--station", &st], "--http");
}

#[test]
fn the_fleet_simulator_is_checked_against_what_it_injected() {
    let d = fresh_dir("station", "fleet");
    let db = d.join("fleet.sqlite");
    let (db, st, truth) = (db.to_str().unwrap(), d.join("fleet.toml"), d.join("truth.json"));
    let (st, truth) = (st.to_str().unwrap(), truth.to_str().unwrap());
    let fleet = |db: &str, extra: &[&str]| {
        let mut args = vec!["station", "fleet", "--db", db, "--links", "6", "--duration", "40s"];
        args.extend(["--start", "2026-12-01T15:59:00Z", "--bursts", "4", "--spikes", "3", "--seed", "3"]);
        args.extend(extra);
        netmeas(&args)
    };
    let v = json(&fleet(db, &["--station-file", st, "--truth", truth, "--json"]));
    let r = &v["fleet"];
    assert_eq!(r["epochs_stored"], 6 * 20 * 3);
    assert_eq!((r["bursts"]["found"].as_u64(), r["spikes"]["found"].as_u64()), (Some(4), Some(3)), "{r}");
    for c in ["bursts", "spikes"] {
        for list in ["missed", "wrong", "false_positives"] {
            assert_eq!(r[c][list], serde_json::json!([]), "{c} {list}: {r}");
        }
    }

    // The written station file answers the operator's burst query with the injected truth.
    let injected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(truth).unwrap()).unwrap();
    let q = json(&netmeas(&[
        "query",
        "bursts",
        "--station",
        st,
        "--scale",
        "10ms",
        "--rate",
        "1e9",
        "--from",
        "2026-12-01T15:59:00Z",
        "--json",
    ]));
    let said: Vec<(String, u64)> = q["bursts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["link"].as_str().unwrap().to_string(), b["culprit"].as_u64().unwrap()))
        .collect();
    let mut want: Vec<(String, u64)> = injected["bursts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["link"].as_str().unwrap().to_string(), b["flow"].as_u64().unwrap()))
        .collect();
    let mut got = said.clone();
    (got.sort(), want.sort());
    assert_eq!(got, want);
    for s in injected["spikes"].as_array().unwrap() {
        let seg = s["segment"].as_str().unwrap();
        let l = json(&netmeas(&["query", "latency", "--station", st, "--segment", seg, "--json"]));
        let e = l["epochs"].as_array().unwrap().iter().find(|e| e["seq"] == s["seq"]).unwrap();
        assert!(e["mean_ns"].as_f64().unwrap() > 20_000.0, "{e}");
    }

    // A load near the threshold crosses it with no injected burst: the check says so and fails.
    let busy = d.join("busy.sqlite");
    let o = fleet(busy.to_str().unwrap(), &["--peak-load", "1e9"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success() && out.contains("false positive: l"), "{out}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("differ from what was injected"));

    // Bad plans are refused before anything is written.
    let fresh = d.join("new.sqlite");
    let fresh = fresh.to_str().unwrap();
    assert_refused(&["station", "fleet", "--db", db], "exists");
    assert_refused(&["station", "fleet", "--db", fresh, "--peak-load", "2e10"], "outside 0..=1e10");
    assert_refused(&["station", "fleet", "--db", fresh, "--duration", "1s"], "--duration 1s");
    assert_refused(&["station", "fleet", "--db", fresh, "--links", "2", "--duration", "4s"], "do not fit");
    assert_refused(&["station", "fleet", "--db", fresh, "--start", "2026-12-01T00:00:01Z"], "boundary");
    assert!(!Path::new(fresh).exists());
}
