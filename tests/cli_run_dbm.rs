//! `netmeas run dbm` and `netmeas run expb` as a user runs them: estimates
//! against the exact statistics of the stream, the bucket plot, a capture the
//! test writes itself, and bad input (clear error, non-zero exit, nothing on
//! stdout, no plot).

mod common;

use common::{assert_refused, json, netmeas};
use netmeas_sim::traffic::{PcapPacket, pack_key, write_pcap};

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn dbm_answers_queries_near_the_truth_and_plots_the_partition() {
    let dir = std::env::temp_dir().join(format!("netmeas-dbm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plot = dir.join("buckets.svg");
    // The mean is exact (§3: "compute the mean with perfect accuracy").
    let v = json(&netmeas(&["run", "dbm", "--query", "mean", "--json"]));
    assert_eq!(v["core"], "dbm");
    assert!(v["synopsis_match"].is_null());
    assert_eq!(v["periods"].as_array().unwrap().len(), 1);
    assert_eq!(v["periods"][0]["buckets"], 1024);
    let (e, t) = (f(&v["result"]["estimates"][0]), f(&v["result"]["truth"][0]));
    assert!((e - t).abs() < 1e-6 * t, "{e} vs {t}");
    // DBM-mr on 78.125 µs intervals finds the 4 ms microbursts: the max at 4 ms is close.
    let v = json(&netmeas(&[
        "run",
        "dbm",
        "--mode",
        "mr",
        "--query",
        "max",
        "--timescale-us",
        "4000",
        "--plot",
        plot.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["config"]["base_ticks"], 78_125);
    let err = f(&v["result"]["max_relative_error"]);
    assert!(err < 0.25, "max at 4 ms: relative error {err}");
    // The densest bucket's culprit is an injected burst (flow ids from 2^31).
    assert!(v["periods"][0]["culprit"]["flow"].as_u64().unwrap() >= 1 << 31, "{}", v["periods"][0]["culprit"]);
    let svg = std::fs::read_to_string(&plot).unwrap();
    // One filled rectangle per bucket, and the legend's mark.
    assert!(
        svg.starts_with("<svg") && svg.matches("opacity=\"0.35\" fill=\"#1F5FBF\"").count() == 1024 + 1,
        "bucket rectangles"
    );
    assert!(svg.contains("1024 DBM buckets") && svg.contains("true bandwidth"), "legend");
    // coarsest:L answers a scale, in ns, for both estimate and truth.
    let v = json(&netmeas(&["run", "dbm", "--query", "coarsest:4e9", "--timescale-us", "500", "--json"]));
    let (e, t) = (f(&v["result"]["estimates"][0]), f(&v["result"]["truth"][0]));
    assert!(t >= 500_000.0 && e >= 500_000.0, "{e} {t}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn expb_answers_within_lemma_2_and_names_culprits() {
    let v = json(&netmeas(&["run", "expb", "--query", "max", "--timescale-us", "400", "--json"]));
    assert_eq!(v["core"], "expb");
    let scales = v["periods"][0]["scales"].as_array().unwrap();
    assert_eq!(scales.len(), 11);
    assert_eq!(scales[10]["delta_ns"], 80_000_000);
    assert_eq!(scales[10]["count"], 25);
    let (e, t) = (f(&v["result"]["estimates"][0]), f(&v["result"]["truth"][0]));
    // The estimate is scale Δ_j's bandwidth brought back to 400 µs: Lemma 2's [1/2, 3] becomes [1/4, 3].
    assert!(e >= t / 4.0 && e <= 3.0 * t, "Lemma 2: {e} vs {t}");
    // The 625 µs scale it is answered from holds the lemma's quantity itself.
    let m625 = f(&scales[3]["max"]);
    assert!((e - m625 * 400.0 / 625.0).abs() < 1e-6 * e, "{e} vs {m625}");
    // At a scale it keeps, EXPB is exact.
    let v = json(&netmeas(&["run", "expb", "--query", "std", "--timescale-us", "625", "--json"]));
    let (e, t) = (f(&v["result"]["estimates"][0]), f(&v["result"]["truth"][0]));
    assert!((e - t).abs() < 1e-6 * t, "{e} vs {t}");
    // The 4 ms scale's peak interval is a microburst's.
    let v = json(&netmeas(&["run", "expb", "--json"]));
    let s = &v["periods"][0]["scales"][6];
    assert_eq!(s["delta_ns"], 5_000_000);
    assert!(s["culprit"].as_u64().unwrap() >= 1 << 31, "{s}");
}

#[test]
fn dbm_rtl_equals_golden_on_the_paper_config() {
    // The Verilated per-packet DBM-mm core (1024 buckets, 2 s) on the default bursty trace.
    let v = json(&netmeas(&["run", "dbm", "--engine", "both", "--query", "max", "--timescale-us", "1000", "--json"]));
    assert_eq!(v["engine"], "both");
    assert_eq!(v["synopsis_match"], true);
    let packets = v["traffic"]["packets"].as_u64().unwrap();
    let p = &v["periods"][0];
    let real = p["merges"].as_u64().unwrap() - p["tail_joins"].as_u64().unwrap();
    assert!(packets > 50_000 && real > 1_000, "{packets} packets, {real} real merges");
    // One packet per clock, 17 more clocks per real merge, plus the close and the read-out.
    let rtl = &v["timing"]["rtl"];
    assert_eq!(rtl["stalls"].as_u64().unwrap(), real * 17);
    let cycles = rtl["cycles"].as_u64().unwrap();
    assert!(cycles >= packets + real * 17 && cycles < packets + real * 17 + 2 * 1024 + 100, "{cycles} cycles");
    let r = json(&netmeas(&["run", "dbm", "--engine", "rtl", "--query", "max", "--timescale-us", "1000", "--json"]));
    assert_eq!(r["result"], v["result"]);
    assert_eq!(r["periods"], v["periods"]);
    assert!(r["timing"]["golden"].is_null());
}

#[test]
fn expb_rtl_equals_golden_on_the_paper_config() {
    // The Verilated core of the paper's config (11 scales from 78.125 µs, 2 s) on the default bursty trace.
    let v = json(&netmeas(&["run", "expb", "--engine", "both", "--query", "max", "--timescale-us", "5000", "--json"]));
    assert_eq!(v["engine"], "both");
    assert_eq!(v["synopsis_match"], true);
    let rtl = &v["timing"]["rtl"];
    let packets = v["traffic"]["packets"].as_u64().unwrap();
    assert!(packets > 50_000, "{packets}");
    // One packet per clock, plus the read-out and the cycles of the closes a packet waits for.
    let cycles = rtl["cycles"].as_u64().unwrap();
    assert!(cycles >= packets && cycles < packets + 25_600 * 14 + 1_000, "{cycles} cycles for {packets} packets");
    let s = &v["periods"][0]["scales"][6];
    assert!(s["culprit"].as_u64().unwrap() >= 1 << 31, "{s}");
    // The RTL alone answers the same.
    let r = json(&netmeas(&["run", "expb", "--engine", "rtl", "--query", "max", "--timescale-us", "5000", "--json"]));
    assert_eq!(r["result"], v["result"]);
    assert_eq!(r["periods"], v["periods"]);
    assert!(r["timing"]["golden"].is_null());
}

#[test]
fn capture_is_measured_by_both_cores() {
    let dir = std::env::temp_dir().join(format!("netmeas-dbm-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 4000 packets 10 µs apart, with wire lengths 100..1099 patched into the record headers.
    let packets: Vec<PcapPacket> = (0..4000u64)
        .map(|i| PcapPacket {
            ts_ns: 1_700_000_000_000_000_000 + i * 10_000,
            key: pack_key(0x0a00_0001 + (i % 7) as u32, 0xc0a8_0101, 1000, 53, 17, i as u16),
        })
        .collect();
    let mut data = write_pcap(&packets);
    let mut total = 0u64;
    for i in 0..4000usize {
        let len = 100 + (i as u32 * 37) % 1000;
        total += len as u64;
        let o = 24 + i * (16 + 42) + 12;
        data[o..o + 4].copy_from_slice(&len.to_le_bytes());
    }
    let pcap = dir.join("trace.pcap");
    std::fs::write(&pcap, data).unwrap();
    let p = pcap.to_str().unwrap();
    let v = json(&netmeas(&["run", "dbm", "--pcap", p, "--period", "40ms", "--buckets", "64", "--json"]));
    assert_eq!(v["traffic"]["packets"], 4000);
    assert_eq!(v["traffic"]["bytes"], total);
    assert_eq!(v["periods"][0]["packets"], 4000);
    assert_eq!(v["periods"][0]["merges"], 4000 - 64);
    let v = json(&netmeas(&[
        "run",
        "expb",
        "--pcap",
        p,
        "--period",
        "40.96ms",
        "--base-us",
        "10",
        "--scales",
        "12",
        "--query",
        "mean",
        "--timescale-us",
        "80",
        "--json",
    ]));
    let (e, t) = (f(&v["result"]["estimates"][0]), f(&v["result"]["truth"][0]));
    assert!((e - t).abs() < 1e-6 * t, "{e} vs {t}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_is_refused_without_output() {
    let dir = std::env::temp_dir().join(format!("netmeas-dbm-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.pcap");
    std::fs::write(&junk, b"definitely not a capture").unwrap();
    let plot = dir.join("never.svg");
    for (args, want) in [
        (vec!["--buckets", "2000"], "dbm.buckets"),
        (vec!["--buckets", "1"], "dbm.buckets"),
        (vec!["--mode", "mx"], "unknown merge rule"),
        (vec!["--mode", "mv", "--base-us", "0"], "set a base interval"),
        (vec!["--base-us", "0.0001"], "whole number of ns"),
        (vec!["--base-us", "300"], "not a multiple of the base interval"),
        (vec!["--period=-2s"], "not a positive duration"),
        (vec!["--query", "median"], "expected max, std"),
        (vec!["--query", "coarsest:fast"], "expected max, std"),
        (vec!["--timescale-us", "0"], "whole number of ns"),
        (vec!["--pcap", junk.to_str().unwrap()], "not a pcap file"),
        (vec!["--pcap", "/nonexistent.pcap"], "cannot read"),
        (vec!["--engine", "rtl", "--buckets", "1000"], "no Verilated DBM core"),
        (vec!["--engine", "both", "--mode", "mr", "--buckets", "512"], "no Verilated DBM core"),
        (vec!["--engine", "fpga"], "invalid value"),
        (vec!["--peak-mbps", "0"], "peak rate"),
        (vec!["--culprit-seed", "0"], "dbm.seed"),
    ] {
        let mut a = vec!["run", "dbm", "--duration", "100ms", "--plot", plot.to_str().unwrap(), "--json"];
        a.extend(args.iter());
        assert_refused(&a, want);
        assert!(!plot.exists(), "{args:?} wrote the plot");
    }
    for (args, want) in [
        (vec!["--scales", "12"], "expb.period_ticks"),
        (vec!["--scales", "0"], "expb.scales"),
        (vec!["--base-us", "0"], "expb.base_ticks"),
        (vec!["--query", "p95"], "no quantiles"),
        (vec!["--timescale-us", "100000"], "Lemma 2"),
        (vec!["--timescale-us", "10"], "Lemma 2"),
        (vec!["--engine", "rtl", "--scales", "10"], "no Verilated EXPB core"),
        (vec!["--engine", "fpga"], "invalid value"),
    ] {
        let mut a = vec!["run", "expb", "--duration", "100ms", "--json"];
        a.extend(args.iter());
        assert_refused(&a, want);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn base_interval_dbm_rtl_equals_golden_on_the_paper_config() {
    // The Verilated base-interval cores (1024 buckets, 78.125 us sums, 2 s) on the default bursty trace.
    for mode in ["mv", "mr"] {
        let v = json(&netmeas(&["run", "dbm", "--mode", mode, "--engine", "both", "--query", "p95", "--json"]));
        assert_eq!(v["synopsis_match"], true, "{mode}");
        let p = &v["periods"][0];
        assert_eq!(p["buckets"].as_u64(), Some(1024), "{mode}: {p}");
        assert!(v["timing"]["rtl"]["cycles"].as_u64().unwrap() > 25_600, "{mode}");
    }
}
