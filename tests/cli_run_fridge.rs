//! `netmeas run fridge` as a user runs it: JSON fields against the ground
//! truth, the simple baseline, the CDF plot, a capture the test writes itself,
//! and bad input (clear error, non-zero exit, nothing on stdout, no plot).

mod common;

use common::{assert_refused, json, netmeas};
use netmeas_sim::fridge::{Exchange, write_exchange_pcap};

#[test]
fn synthetic_run_reports_estimates_truth_and_baselines() {
    let dir = std::env::temp_dir().join(format!("netmeas-fridge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plot = dir.join("cdf.svg");
    let v = json(&netmeas(&[
        "run",
        "fridge",
        "--requests",
        "300000",
        "--max-delay",
        "64ms",
        "--fridges",
        "2",
        "--entries",
        "1024",
        "--baseline",
        "simple",
        "--plot",
        plot.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["core"], "fridge");
    assert!(v["synopsis_match"].is_null());
    let pairs = v["traffic"]["pairs"].as_u64().unwrap();
    assert!((115_000..125_000).contains(&pairs), "{pairs}");
    // auto p: fridge k's lifetime M/p aims at 64 ms / 8^k at 0.5 M requests/s per fridge.
    let p: Vec<f64> = v["config"]["entry_prob_log2"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!((p[0] - (1024.0f64 / 32_000.0).log2()).abs() < 0.05, "{p:?}");
    assert!((p[1] - p[0] - 3.0).abs() < 0.02, "{p:?}");
    // Estimates near the truth in §5's log2 metric; the baseline ran on the same stream.
    for q in ["p50", "p95", "p99"] {
        let (e, t) = (v["estimates"][q].as_f64().unwrap(), v["truth"][q].as_f64().unwrap());
        assert!((e / t).log2().abs() < 0.5, "{q}: {e} vs {t}");
        assert!((v["errors"][q].as_f64().unwrap() - (e / t).log2().abs()).abs() < 1e-9);
    }
    assert!(v["max_cdf_gap"].as_f64().unwrap() < 0.6, "{}", v["max_cdf_gap"]);
    assert_eq!(v["histogram"]["samples"], v["samples"]);
    for b in ["simple_1stage", "simple_4stage"] {
        assert!(v["baseline"]["runs"][b]["samples"].as_u64().unwrap() > 0, "{b}");
    }
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    // Five curves, each in the legend beside the plot: the truth, the fridges' samples and the two
    // simple baselines one solid line each (and their legend mark), the fridges' histogram dashed
    // in a colour of its own (many dashes, and two in its legend mark).
    for colour in ["#888888", "#1F5FBF", "#D03020", "#E08A00"] {
        assert_eq!(svg.matches(&format!("stroke=\"{colour}\" stroke-width=\"2\"")).count(), 2, "{colour}: {svg}");
    }
    assert!(svg.matches("stroke=\"#2A9D4A\" stroke-width=\"2\"").count() > 4, "{svg}");
    for label in ["ground truth", "fridges (samples)", "fridges (histogram)", "simple, 1 stage", "simple, 4 stages"] {
        assert!(svg.contains(label), "{label}: {svg}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn capture_pairs_are_measured() {
    let dir = std::env::temp_dir().join(format!("netmeas-fridge-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 3000 handshakes and DNS exchanges, 1 ms apart, two thirds answered after 1..3 ms.
    let items: Vec<Exchange> = (0..3000u32)
        .map(|i| Exchange {
            t_ns: i as u64 * 1_000_000,
            client: 0x0a00_0000 + i,
            server: 0x0808_0808,
            client_port: 1024 + (i % 5000) as u16,
            tag: i.wrapping_mul(2_654_435_761),
            dns: i % 2 == 0,
            answer_after_ns: (i % 3 != 0).then_some(1_000_000 + (i as u64 % 7) * 300_000),
        })
        .collect();
    let pcap = dir.join("x.pcap");
    std::fs::write(&pcap, write_exchange_pcap(&items)).unwrap();
    // The default fridges are Verilated: the capture also runs through the RTL, compared bit for bit.
    let v = json(&netmeas(&[
        "run",
        "fridge",
        "--pcap",
        pcap.to_str().unwrap(),
        "--max-delay",
        "3ms",
        "--engine",
        "both",
        "--json",
    ]));
    assert_eq!(v["synopsis_match"], true);
    assert!(v["timing"]["rtl"]["cycles"].as_u64().unwrap() >= 5000, "{}", v["timing"]);
    assert!(v["timing"]["golden"]["packets_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["traffic"]["requests"], 3000);
    assert_eq!(v["traffic"]["pairs"], 2000);
    assert_eq!(v["traffic"]["unmatched_responses"], 0);
    // Few requests per lifetime: almost every pair is sampled, with factor ≈ 1/p.
    assert!(v["samples"].as_u64().unwrap() > 1500, "{}", v["samples"]);
    assert!(v["errors"]["p50"].as_f64().unwrap() < 0.1, "{}", v["errors"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_is_refused_without_output() {
    let dir = std::env::temp_dir().join(format!("netmeas-fridge-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.pcap");
    std::fs::write(&junk, b"definitely not a capture").unwrap();
    let plot = dir.join("never.svg");
    for (args, want) in [
        (vec!["--entries", "3000"], "power of two"),
        (vec!["--fridges", "5"], "1 to 4"),
        (vec!["--entries", "1024,1024,1024", "--fridges", "2"], "lists 3 fridges"),
        (vec!["--entry-prob-log2", "-3,-30"], "entry_prob_log2"),
        (vec!["--entry-prob-log2", "-3"], "1 values for 2 fridges"),
        (vec!["--entry-prob-log2", "half"], "not a number"),
        (vec!["--max-delay=-4ms"], "not a positive duration"),
        (vec!["--min-delay", "10ms", "--max-delay", "1ms"], "min < max"),
        (vec!["--answered", "1.5"], "answered fraction"),
        (vec!["--requests", "0"], "requests 0"),
        (vec!["--pcap", junk.to_str().unwrap()], "not a pcap file"),
        (vec!["--pcap", "/nonexistent.pcap"], "cannot read"),
        (vec!["--engine", "verilog"], "invalid value"),
        (vec!["--engine", "rtl", "--entries", "1024"], "no Verilated fridge"),
        (vec!["--bin-shift", "48"], "bin_shift"),
    ] {
        let mut a = vec!["run", "fridge", "--plot", plot.to_str().unwrap(), "--json"];
        if !args.contains(&"--requests") {
            a.extend(["--requests", "20000"]);
        }
        a.extend(args.iter());
        assert_refused(&a, want);
        assert!(!plot.exists(), "{args:?} wrote the plot");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn reproduce_picks_each_methods_best_parameter() {
    let v =
        json(&netmeas(&["reproduce", "fridge", "--requests", "50000", "--runs", "2", "--memories", "4096", "--json"]));
    let fig3 = v["fig3"]["rows"].as_array().unwrap();
    assert_eq!(fig3.len(), 17);
    for (t, trace) in v["fig5"].as_array().unwrap().iter().enumerate() {
        let row = &trace["rows"][0];
        assert_eq!(row["memory"], 4096);
        // Fig. 5's single fridge of 4096 entries is Fig. 3's best p on the same trace and seeds.
        // A p so small that no run kept a sample has no error (null).
        let best3 = fig3.iter().filter_map(|r| r["errors"][t]["gap"].as_f64()).fold(f64::INFINITY, f64::min);
        assert_eq!(row["one_fridge"]["errors"]["gap"].as_f64().unwrap(), best3);
        for m in ["simple_1stage", "simple_4stage", "one_fridge", "two_fridges"] {
            let g = row[m]["errors"]["gap"].as_f64().unwrap();
            assert!(g.is_finite() && g >= 0.0, "{m}: {g}");
        }
    }
    for (args, want) in [(vec!["--runs", "0"], "at least 1"), (vec!["--memories", "3000"], "power of two")] {
        let mut a = vec!["reproduce", "fridge", "--requests", "1000"];
        a.extend(args.iter());
        assert_refused(&a, want);
    }
}
