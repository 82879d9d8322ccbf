//! `netmeas board read` and `netmeas export engine` as a user runs them: the
//! reader against the Verilated engine on a simulated serial line (JSON with
//! estimates, truth and the link's figures), the exported register map, and
//! bad input (clear error, non-zero exit, nothing on stdout).

mod common;

use common::{assert_refused, fresh_dir, json, netmeas};

/// Runs `board read` with `args` and checks each of its two epochs of 5000
/// packets: sequence, synopses equal to the golden models', the mean within
/// its 98 % bound of the truth; where the engine has a fridge core, its
/// histograms equal the golden fridge's. Returns the JSON report.
fn read_two_epochs(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["board", "read", "--port", "sim", "--epochs", "2", "--packets", "5000", "--json"];
    a.extend(args);
    let o = netmeas(&a);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    let epochs = v["epochs"].as_array().unwrap();
    assert_eq!(epochs.len(), 2);
    for (k, e) in epochs.iter().enumerate() {
        assert_eq!(e["seq"], k as u64);
        assert_eq!(e["synopses_match"], true);
        assert_eq!(e["truth"]["sent"], 5000);
        let (est, truth) = (e["estimates"]["mean"].as_f64().unwrap(), e["truth"]["mean"].as_f64().unwrap());
        assert!((est - truth).abs() <= e["estimates"]["mean_bound_98"].as_f64().unwrap(), "{e}");
        if !e["fridge"].is_null() {
            assert_eq!(e["fridge"]["histograms_match"], true, "{e}");
        }
    }
    v
}

/// The default engine on its whole default config, read as a user reads it:
/// LDA, fridge, EXPB and DBM figures of two epochs in one run (a run costs
/// about 15 M simulated clocks an epoch, most of it the serial read-out), and
/// the same engine's text report.
#[test]
fn the_reader_measures_the_simulated_engine() {
    // GAP 16: the bandwidth points' time advances 16 ticks a packet, so each epoch of 5000 packets
    // (80 000 ticks) ends a period of 65 536 ticks (4096 packets), read with the epoch and equal
    // to the golden EXPB's and DBM's (or the reader fails).
    let d = fresh_dir("board", "station");
    let saved = d.join("epochs");
    let v = read_two_epochs(&["--gap", "16", "--save-epochs", saved.to_str().unwrap()]);
    // 2 × 1024 LDA rows × 3 reads and 64 fridge rows × 6 reads of 138.5 bit times (about 0.91 M),
    // and the bandwidth periods read with the epoch: 1024 DBM buckets × 14 transactions (the BEAT
    // poll, the period, 11 words and the take) and 11 EXPB scales × 14 (about 2.01 M): about
    // 2.92 M bit times an epoch, a few more for the status polls.
    let bits = v["bit_times_per_epoch"].as_f64().unwrap();
    assert!((2_900_000.0..3_050_000.0).contains(&bits), "{bits}");
    for (k, e) in v["epochs"].as_array().unwrap().iter().enumerate() {
        let f = &e["fridge"];
        // 2500 requests a fridge at p = 2^-4 and 2^-9: about 160 samples, enough for the median
        // to lie within an octave (one bin) of the true one; the tails at this sample count are
        // noisy (the engine co-simulation checks the whole CDF on about 1 300 samples an epoch).
        let samples = f["estimate"]["samples"].as_u64().unwrap();
        assert!((100..250).contains(&samples), "{f}");
        assert!(f["estimate"]["errors"]["p50"].as_f64().unwrap() < 1.0, "{f}");
        assert!(f["estimate"]["max_cdf_gap"].as_f64().unwrap().is_finite(), "{f}");
        assert!(f["truth"]["p50"].as_f64().unwrap() > 0.0, "{f}");

        let periods = e["expb"].as_array().unwrap();
        assert_eq!(periods.len(), 1, "{e}");
        let p = &periods[0];
        assert_eq!((p["period"].as_u64(), p["packets"].as_u64()), (Some(k as u64), Some(4096)), "{p}");
        let scales = p["scales"].as_array().unwrap();
        assert_eq!(scales.len(), 11);
        for (j, x) in scales.iter().enumerate() {
            assert_eq!(x["ticks"].as_u64(), Some(32 << j), "{x}");
            assert_eq!(x["intervals"].as_u64(), Some(2048 >> j), "{x}");
            // 575.5 bytes a packet on average, a packet every 16 ticks of 20 ns: 14.4 Gbit/s.
            let mbps = x["mean_mbps"].as_f64().unwrap();
            assert!((mbps - 14_387.5).abs() < 14_387.5 * 0.03, "{x}");
            assert!(x["peak_mbps"].as_f64().unwrap() >= mbps, "{x}");
        }
        let periods = e["dbm"].as_array().unwrap();
        assert_eq!(periods.len(), 1, "{e}");
        let p = &periods[0];
        let got = (p["period"].as_u64(), p["packets"].as_u64(), p["buckets"].as_u64(), p["merges"].as_u64());
        assert_eq!(got, (Some(k as u64), Some(4096), Some(1024), Some(4096 - 1024)), "{p}");
        // Lemma 1: no interval at any scale is further than 4B/m from the truth.
        let (err, bound) = (p["max_error_bytes"].as_f64().unwrap(), p["bound_bytes"].as_f64().unwrap());
        assert!(err > 0.0 && err <= bound, "{p}");
        let scales = p["scales"].as_array().unwrap();
        assert_eq!(scales.len(), 11);
        let worst = scales.iter().map(|x| x["max_error_bytes"].as_f64().unwrap()).fold(0.0, f64::max);
        assert_eq!(worst, err, "{p}");
    }
    let o = netmeas(&["board", "read", "--port", "sim", "--epochs", "1", "--packets", "5000", "--gap", "16"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("EXPB (") && text.contains("peak Mb/s"), "{text}");
    assert!(text.contains("DBM (") && text.contains("bound B"), "{text}");
    the_saved_epochs_answer_in_a_station(&v, &d, &saved);
}

/// A station file's `[[point]]` on the simulated board's link, its core's
/// config in `<core>.json` next to the station file.
fn point_toml(name: &str, core: &str, dir: &str, epoch: &str, tick: f64) -> String {
    format!(
        "[[point]]\nname = \"{name}\"\nrouter = \"board\"\nlink = \"sim\"\ndirection = \"{dir}\"\ncore = \"{core}\"\n\
         config = \"{core}.json\"\nepoch = \"{epoch}\"\nstart = \"2026-12-01T00:00:00Z\"\ntick_ns = {tick}\n"
    )
}

/// The epochs `board read --save-epochs` wrote, ingested into a station
/// whose points are the engine's cores: the station's latency, delay
/// percentiles and bandwidth equal what the reader estimated from the same
/// synopses (the engine's clock of 20 ns a tick; the fridge's delays in
/// 2^-8 ticks).
fn the_saved_epochs_answer_in_a_station(v: &serde_json::Value, d: &std::path::Path, saved: &std::path::Path) {
    let engine = &v["engine"];
    let tick_ns = 1e9 / engine["link"]["uart"]["clock_hz"].as_f64().unwrap();
    assert_eq!(tick_ns, 20.0);
    for core in ["lda", "fridge", "expb", "dbm"] {
        std::fs::write(d.join(format!("{core}.json")), engine[core].to_string()).unwrap();
    }
    let period_ns = engine["expb"]["period_ticks"].as_f64().unwrap() * tick_ns;
    let point = |name: &str, core: &str, dir: &str, epoch: String, tick: f64| point_toml(name, core, dir, &epoch, tick);
    let epoch = "1600us".to_string(); // 5000 packets, one every 16 ticks of 20 ns
    let file = [
        "database = \"station.sqlite\"\n".to_string(),
        point("tx", "lda", "egress", epoch.clone(), tick_ns),
        point("rx", "lda", "ingress", epoch.clone(), tick_ns),
        point("delays", "fridge", "ingress", epoch, tick_ns / 256.0),
        point("bw", "expb", "egress", format!("{period_ns}ns"), tick_ns),
        point("buckets", "dbm", "egress", format!("{period_ns}ns"), tick_ns),
        "[[segment]]\nname = \"sim\"\nsender = \"tx\"\nreceiver = \"rx\"\n".to_string(),
    ]
    .concat();
    std::fs::write(d.join("station.toml"), file).unwrap();
    let st = d.join("station.toml");
    let st = st.to_str().unwrap();
    let files = |name: &str| -> Vec<String> {
        (0..2).map(|k| saved.join(format!("epoch-{k}")).join(name).to_str().unwrap().to_string()).collect()
    };
    for (point, name) in [("tx", "sender.json"), ("rx", "receiver.json"), ("delays", "fridge.json")] {
        let mut a = vec!["station", "ingest", "--station", st, "--point", point];
        let f = files(name);
        a.extend(f.iter().map(String::as_str));
        let o = netmeas(&a);
        assert!(o.status.success(), "{point}: {}", String::from_utf8_lossy(&o.stderr));
    }
    for (point, prefix) in [("bw", "expb"), ("buckets", "dbm")] {
        let f: Vec<String> =
            (0..2).map(|k| saved.join(format!("epoch-{k}/{prefix}-{k}.json")).to_str().unwrap().to_string()).collect();
        let mut a = vec!["station", "ingest", "--station", st, "--point", point];
        a.extend(f.iter().map(String::as_str));
        let o = netmeas(&a);
        assert!(o.status.success(), "{point}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs();
    let epochs = v["epochs"].as_array().unwrap();
    let q = |args: &[&str]| json(&netmeas(&[&["query"], args, &["--station", st, "--json"]].concat()));
    let latency = q(&["latency", "--segment", "sim"]);
    let delays = q(&["delays", "--point", "delays", "--quantiles", "0.5,0.95,0.99"]);
    let scale = format!("{}ns", 32.0 * tick_ns);
    let expb = q(&["bursts", "--links", "sim", "--scale", &scale, "--rate", "0"]);
    for (k, e) in epochs.iter().enumerate() {
        let l = &latency["epochs"][k];
        assert_eq!(l["seq"], k as u64);
        assert!(close(l["mean_ns"].as_f64().unwrap(), e["estimates"]["mean"].as_f64().unwrap() * tick_ns), "{l} {e}");
        assert!(close(l["std_ns"].as_f64().unwrap(), e["estimates"]["std"].as_f64().unwrap() * tick_ns), "{l}");
        let got = &delays["epochs"][k]["quantiles_ns"];
        let want = &e["fridge"]["estimate"]["estimates"];
        for (j, p) in ["p50", "p95", "p99"].iter().enumerate() {
            assert!(close(got[j].as_f64().unwrap(), want[*p].as_f64().unwrap() * tick_ns), "{p}: {got} {want}");
        }
        // One burst per period and point at the finest EXPB scale: the period's largest interval.
        let peaks: Vec<(String, f64)> = expb["bursts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["epoch_ns"].as_i64() == Some(1_796_083_200_000_000_000 + (k as f64 * period_ns) as i64))
            .map(|b| (b["point"].as_str().unwrap().to_string(), b["rate_bps"].as_f64().unwrap()))
            .collect();
        assert_eq!(peaks.len(), 2, "{peaks:?}");
        for (p, rate) in peaks {
            let mbps = if p == "bw" {
                e["expb"][0]["scales"][0]["peak_mbps"].as_f64().unwrap()
            } else {
                e["dbm"][0]["scales"][0]["peak_mbps"].as_f64().unwrap()
            };
            assert!(close(rate, mbps * 1e6), "{p}: {rate} vs {mbps} Mbit/s");
        }
    }
}

/// The reduced iCE40 engine (one bank of 128 rows per core, timestamps in
/// block RAM, 12 MHz), measuring its external packet-metadata streams fed by
/// the source's model as a NIC would (the default engine's external streams
/// are co-simulated through the same reader in the testbench).
#[test]
fn the_reader_measures_the_simulated_hx8k_engines_external_streams() {
    let v = read_two_epochs(&["--board", "ice40-hx8k", "--source", "external", "--loss", "0.05", "--reorder", "0.01"]);
    assert_eq!(v["board"], "ice40-hx8k");
    assert_eq!(v["source"]["kind"], "external");
    // 2 × 128 rows × 3 reads of 138.5 bit times and a few more: about 0.11 M bit times an epoch.
    let bits = v["bit_times_per_epoch"].as_f64().unwrap();
    assert!((105_000.0..120_000.0).contains(&bits), "{bits}");
    assert!(v["epochs"][0]["fridge"].is_null(), "the HX8K engine has no fridge core");
    assert_eq!(v["epochs"][0]["expb"], serde_json::json!([]), "nor an EXPB core");
    assert_eq!(v["epochs"][0]["dbm"], serde_json::json!([]), "nor a DBM core");
    for e in v["epochs"].as_array().unwrap() {
        assert_eq!(e["estimates"]["received"], e["truth"]["received"]);
        let received = e["truth"]["received"].as_u64().unwrap();
        assert!((4_600..4_900).contains(&received), "5 % loss: {received}");
    }
    the_reader_stores_into_a_station_over_a_noisy_line(&v["engine"]);
}

/// The same engine read over a line that flips bits, each epoch stored in
/// a station as it is read (`--station`): the station's latency equals the
/// reader's estimates, and its points' health holds the line's requests,
/// retries and CRC errors the reader counted, split between the two
/// points' epochs as they were read. A second session into the same
/// points is refused before anything is read.
fn the_reader_stores_into_a_station_over_a_noisy_line(engine: &serde_json::Value) {
    let d = fresh_dir("board", "serial-station");
    std::fs::write(d.join("lda.json"), engine["lda"].to_string()).unwrap();
    let tick_ns = 1e9 / engine["link"]["uart"]["clock_hz"].as_f64().unwrap();
    let file = [
        "database = \"station.sqlite\"\n".to_string(),
        point_toml("tx", "lda", "egress", "1ms", tick_ns),
        point_toml("rx", "lda", "ingress", "1ms", tick_ns),
        "[[segment]]\nname = \"sim\"\nsender = \"tx\"\nreceiver = \"rx\"\n".to_string(),
    ]
    .concat();
    std::fs::write(d.join("station.toml"), file).unwrap();
    let st = d.join("station.toml");
    let st = st.to_str().unwrap();
    let args = ["--board", "ice40-hx8k", "--source", "external", "--bit-errors", "5e-5", "--seed", "3"];
    let v = read_two_epochs(&[&args[..], &["--station", st, "--points", "sender=tx,receiver=rx"]].concat());
    let link = &v["link"];
    let (retries, crc) = (link["retries"].as_i64().unwrap(), link["crc_errors"].as_i64().unwrap());
    // About 110 000 bit times an epoch at 5e-5: some 5 frames hit an epoch.
    assert!(retries >= 4 && crc > 0, "{link}");
    assert_eq!(retries, crc + link["lost_responses"].as_i64().unwrap(), "every failed attempt retried: {link}");

    let q = |args: &[&str]| json(&netmeas(&[&["query"], args, &["--station", st, "--json"]].concat()));
    let latency = q(&["latency", "--segment", "sim"]);
    for (k, e) in v["epochs"].as_array().unwrap().iter().enumerate() {
        let l = &latency["epochs"][k];
        assert_eq!(l["seq"], k as u64, "{latency}");
        let mean = e["estimates"]["mean"].as_f64().unwrap() * tick_ns;
        assert!((l["mean_ns"].as_f64().unwrap() - mean).abs() <= 1e-9 * mean, "{l} {e}");
    }
    let points = q(&["points"]);
    let health: Vec<&serde_json::Value> = points["points"].as_array().unwrap().iter().collect();
    assert_eq!(health.len(), 2, "{points}");
    for h in &health {
        // Both points' synopses of an epoch carry that epoch's counts.
        let s = &h["serial"];
        assert_eq!((h["epochs"].as_i64(), s["epochs"].as_i64()), (Some(2), Some(2)), "{h}");
        assert_eq!(s["requests"], link["requests"], "{h} {link}");
        assert_eq!(s["retries"], link["retries"], "{h} {link}");
        assert_eq!(s["crc_errors"], link["crc_errors"], "{h} {link}");
        assert_eq!(s["lost_responses"], link["lost_responses"], "{h} {link}");
    }
    let text = netmeas(&["query", "points", "--station", st]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.starts_with("point") && text.contains("crc_errors"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("tx ") && l.contains(&link["retries"].to_string())), "{text}");

    // A second session would number its epochs from 0 again.
    let mut again = vec!["board", "read", "--port", "sim", "--epochs", "1", "--packets", "5000"];
    again.extend(args);
    again.extend(["--station", st, "--points", "sender=tx"]);
    assert_refused(&again, "already holds 2 epochs");
}

#[test]
fn the_engine_exports_its_register_map() {
    let dir = std::env::temp_dir().join(format!("netmeas-engine-export-{}", std::process::id()));
    let o = netmeas(&["export", "engine", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = String::from_utf8_lossy(&o.stdout).to_string();
    for ext in [".v", ".interface.json", ".core", ".csr.json", ".registers.md"] {
        assert!(files.lines().any(|l| l.ends_with(ext)), "no {ext} in {files}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_refused_without_output() {
    for (args, want) in [
        (vec!["--loss", "1.5"], "not a probability"),
        (vec!["--reorder=-0.1"], "not a probability"),
        (vec!["--packets", "0"], "epoch_packets"),
        (vec!["--gap", "0"], "gap"),
        (vec!["--epochs", "0"], "--epochs"),
        (vec!["--delay", "weibull:2"], "delay"),
        (vec!["--delay", "const:1000000"], "outside"),
        (vec!["--board", "arty"], "unknown board"),
        (vec!["--bit-errors", "0.7"], "--bit-errors"),
        (vec!["--source", "nic"], "invalid value 'nic' for '--source"),
    ] {
        let mut a = vec!["board", "read", "--port", "sim", "--json"];
        a.extend(args.iter());
        assert_refused(&a, want);
    }
    // A station to store into, refused before anything is read.
    let d = fresh_dir("board", "bad-station");
    let file = "database = \"station.sqlite\"\n[[point]]\nname = \"tx\"\nrouter = \"r\"\nlink = \"l\"\n\
                direction = \"egress\"\ncore = \"lda\"\nepoch = \"1ms\"\nstart = \"2026-12-01T00:00:00Z\"\n";
    std::fs::write(d.join("station.toml"), file).unwrap();
    let st = d.join("station.toml");
    let st = st.to_str().unwrap();
    for (args, want) in [
        (vec!["--points", "sender=tx"], "--station"),
        (vec!["--station", st], "--points"),
        (vec!["--station", st, "--points", "sender"], "not CORE=POINT"),
        (vec!["--station", st, "--points", "nic=tx"], "`nic` is not an engine core"),
        (vec!["--station", st, "--points", "sender=nope"], "no point `nope`"),
        (vec!["--station", st, "--points", "sender=tx,sender=tx"], "named twice"),
        (vec!["--station", st, "--points", "fridge=tx", "--board", "ice40-hx8k"], "has no fridge core"),
        (vec!["--station", "/nonexistent/station.toml", "--points", "sender=tx"], "/nonexistent/station.toml"),
    ] {
        let mut a = vec!["board", "read", "--port", "sim", "--json"];
        a.extend(args.iter());
        assert_refused(&a, want);
    }
    assert_refused(&["board", "read", "--port", "/nonexistent/tty", "--json"], "cannot open /nonexistent/tty");
    assert_refused(&["board", "read", "--port", "/dev/null", "--json"], "not a serial port");
    assert_refused(&["board", "build", "de10-nano"], "unknown board");
}
