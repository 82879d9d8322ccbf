//! `netmeas run rda`, `estimate rda` and `reproduce rda` as a user runs them:
//! JSON fields, golden/RTL agreement, the LDA comparison, saved synopses, and
//! bad input (clear error, non-zero exit, nothing on stdout, nothing written).

mod common;

use common::{assert_refused, json, netmeas};

#[test]
fn both_engines_agree_decode_and_compare_with_lda() {
    let v = json(&netmeas(&[
        "run",
        "rda",
        "--packets",
        "200000",
        "--loss",
        "0.002",
        "--reorder",
        "0.002",
        "--seed",
        "4",
        "--engine",
        "both",
        "--compare",
        "lda",
        "--json",
    ]));
    assert_eq!(v["synopsis_match"], true);
    let d = v["truth"]["set_difference"].as_u64().unwrap();
    assert!(d > 600 && d < 1000, "{d}");
    assert_eq!(v["decode"]["lost"].as_u64().unwrap() + v["decode"]["reordered"].as_u64().unwrap(), d);
    assert_eq!(v["decode"]["success"], 1.0);
    assert_eq!(v["decode"]["complete"], true);
    assert_eq!(v["decode"]["exact"], true);
    // A complete decode with repair gives the exact mean.
    assert!(v["rel_error"]["mean"].as_f64().unwrap() < 1e-12, "{}", v["rel_error"]);
    assert!(v["rel_error"]["std"].as_f64().unwrap() < 0.2, "{}", v["rel_error"]);
    assert_eq!(v["estimates"]["repair"], "repaired");
    // The LDA of about the same memory on the same streams is far worse under edge reordering.
    let lda = &v["compare"]["lda"];
    assert!(lda["memory_bits"].as_u64().unwrap() <= v["memory_bits"].as_u64().unwrap());
    assert!(lda["rel_error"]["mean"].as_f64().unwrap() > 1e3 * v["rel_error"]["mean"].as_f64().unwrap().max(1e-12));
    assert!(v["timing"]["rtl"]["sender_cycles"].as_u64().unwrap() >= 200_000);
}

#[test]
fn saved_synopses_decode_the_same_without_timestamps() {
    let dir = std::env::temp_dir().join(format!("netmeas-rda-{}", std::process::id()));
    let v = json(&netmeas(&[
        "run",
        "rda",
        "--packets",
        "100000",
        "--loss",
        "0.003",
        "--no-repair",
        "--save-synopses",
        dir.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["estimates"]["repair"], "excluded");
    let (s, r) = (dir.join("sender.json"), dir.join("receiver.json"));
    let e = json(&netmeas(&["estimate", "rda", s.to_str().unwrap(), r.to_str().unwrap(), "--json"]));
    assert_eq!(e["estimates"]["mean"], v["estimates"]["mean"]);
    assert_eq!(e["estimates"]["usable_buckets"], v["estimates"]["usable_buckets"]);
    let ids: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("decoded.json")).unwrap()).unwrap();
    assert_eq!(ids["lost"].as_array().unwrap().len() as u64, v["decode"]["lost"].as_u64().unwrap());
    // A receiver of another geometry is refused.
    let other = dir.join("other.json");
    let mut x: serde_json::Value = serde_json::from_slice(&std::fs::read(&r).unwrap()).unwrap();
    x["config"]["buckets"] = 2499.into();
    std::fs::write(&other, x.to_string()).unwrap();
    assert_refused(&["estimate", "rda", s.to_str().unwrap(), other.to_str().unwrap()], "other.json");
    // A bucket with a field no core has, and a count no 32-bit register holds.
    let mut x: serde_json::Value = serde_json::from_slice(&std::fs::read(&r).unwrap()).unwrap();
    x["buckets"][5]["colour"] = "red".into();
    std::fs::write(&other, x.to_string()).unwrap();
    assert_refused(&["estimate", "rda", s.to_str().unwrap(), other.to_str().unwrap()], "unknown field `colour`");
    let mut x: serde_json::Value = serde_json::from_slice(&std::fs::read(&r).unwrap()).unwrap();
    x["buckets"][5]["count"] = (1u64 << 32).into();
    std::fs::write(&other, x.to_string()).unwrap();
    assert_refused(&["estimate", "rda", s.to_str().unwrap(), other.to_str().unwrap()], "wider than 32");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_fails_cleanly() {
    let dir = std::env::temp_dir().join(format!("netmeas-rda-bad-{}", std::process::id()));
    let out = dir.join("syn");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--engine", "fast"], "--engine"),
        (vec!["--reorder", "1"], "reorder rate"),
        (vec!["--reorder-window-ns", "0"], "window"),
        (vec!["--buckets", "1"], "buckets"),
        (vec!["--banks", "5"], "banks"),
        (vec!["--tsum-bits", "36"], "tsum_bits"),
        (vec!["--compare", "fridge"], "--compare"),
        (vec!["--engine", "rtl", "--hash-seed", "3"], "no Verilated RDA"),
        (vec!["--rate", "100"], "span more than one interval"),
        (vec!["--loss", "1"], "loss rate"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["run", "rda", "--packets", "1000", "--save-synopses", out.to_str().unwrap()];
        args.extend(extra.iter());
        assert_refused(&args, needle);
        assert!(!out.exists(), "{extra:?} wrote synopses");
    }
}

#[test]
fn reproduce_sweeps_the_set_difference_with_an_rtl_run() {
    let v = json(&netmeas(&[
        "reproduce",
        "rda",
        "--packets",
        "100000",
        "--runs",
        "2",
        "--diffs",
        "0,400,3000",
        "--engine",
        "both",
        "--json",
    ]));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for r in rows {
        assert_eq!(r["rtl_match"], true);
    }
    // Small differences decode completely and exactly; beyond m = 2500 the decode fails.
    assert_eq!(rows[1]["complete_runs"], 2);
    assert_eq!(rows[1]["rda_mean"], 0.0);
    assert!(rows[1]["lda_mean"].as_f64().unwrap() > 1e-3);
    assert_eq!(rows[2]["complete_runs"], 0);
    assert!(rows[2]["decode_success"].as_f64().unwrap() < 0.95);
    assert_refused(&["reproduce", "rda", "--packets", "1000", "--diffs", "2000"], "error");
}
