//! `netmeas station` and `netmeas query` as an operator uses them: a station
//! file, synopsis files ingested point by point, the answers in text, JSON
//! and CSV; bad input refused and logged; a station killed mid-ingest.

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
fn expb_periods_from_a_run_answer_the_burst_query() {
    let d = fresh_dir("station", "bursts");
    let periods = d.join("periods");
    let o = netmeas(&["run", "expb", "--duration", "6s", "--save-periods", periods.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut files: Vec<String> =
        std::fs::read_dir(&periods).unwrap().map(|e| e.unwrap().path().to_str().unwrap().to_string()).collect();
    files.sort_by_key(|f| f.rsplit('-').next().unwrap().trim_end_matches(".json").parse::<u32>().unwrap());
    assert!(files.len() >= 3, "{files:?}");
    let st = d.join("station.toml");
    std::fs::write(
        &st,
        format!(
            "database = \"station.sqlite\"\n[[point]]\nname = \"edge.bw\"\nrouter = \"edge\"\nlink = \"uplink\"\n\
             direction = \"egress\"\ncore = \"expb\"\nepoch = \"2s\"\nstart = \"{START}\"\n"
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
    assert!(text.starts_with("start,link,point,scale_ns,rate_bps,culprit\n"), "{text}");
    assert_refused(&["query", "bursts", "--station", st, "--scale", "soon", "--rate", "1e9"], "--scale soon");
    assert_refused(&["query", "bursts", "--station", st, "--scale", "10us", "--rate", "1e9"], "finest time scale");
}
