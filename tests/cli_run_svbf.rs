//! `netmeas svbf` and `netmeas run svbf` from the command line: the §3.4
//! dimensioning, an epoch through the Verilated store beside the golden one
//! at the paper's 12.8 bits per packet, and refusals of bad input.

mod common;

use common::{assert_refused, json, netmeas};

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

#[test]
fn dimension_gives_table_1_row() {
    let d = json(&netmeas(&["svbf", "dimension", "--centers", "50", "--target-failure", "0.1", "--json"]));
    assert_eq!(d["hashes"], 9, "{d}");
    let bpp = f(&d["bits_per_packet"]);
    assert!((12.5..13.5).contains(&bpp), "m/n ≈ 12.8 bits per packet: {d}");
    assert!(f(&d["expected_failure"]) <= 0.1, "{d}");
}

/// Fig. 6 (a)/(b) shape at equal memory, 12.8 bits per packet, k = 50,
/// h = 9: SVBF fails for about a tenth of the packets as eq. (3) says, PBF
/// as often, COMB(8, 3) for about half, and COMB's tie-breaks go wrong
/// several times as often as SVBF's.
#[test]
fn failure_orders_svbf_pbf_comb_as_fig_6() {
    let d = json(&netmeas(&["svbf", "failure", "--seed", "2", "--json"]));
    let svbf = f(&d["classification_failure"]);
    assert!((svbf - f(&d["predicted_failure_eq3"])).abs() < 0.01, "{d}");
    assert!((0.08..0.12).contains(&f(&d["pbf_failure"])), "{d}");
    assert!(f(&d["comb_8_3_failure"]) > 4.0 * svbf, "{d}");
    let wrong = f(&d["false_classification"]);
    assert!(wrong > 0.0 && wrong < svbf, "{d}");
    assert!(f(&d["pbf_false_classification"]) > 0.0, "{d}");
    assert!(f(&d["comb_8_3_false_classification"]) > 4.0 * wrong, "{d}");
}

/// One measured epoch at 12.8 bits per packet (9 × 2^17 bits, 92 160
/// packets) through the RTL and the golden store: every answer and counter
/// identical, classification failure near eq. (3)'s 0.099.
#[test]
fn rtl_store_answers_like_the_golden_one_at_the_paper_load() {
    let o = netmeas(&["run", "svbf", "--packets", "92160", "--epochs", "3", "--engine", "both", "--json"]);
    let d = json(&o);
    assert_eq!(d["synopsis_match"], true, "{d}");
    assert_eq!(d["engine"], "both");
    let r = &d["report"];
    assert_eq!(r["packets"], 92160, "{r}");
    let failure = f(&r["classification_failure"]);
    assert!((0.07..0.13).contains(&failure), "classification failure {failure}");
    let wrong = f(&r["false_classification"]);
    assert!(wrong > 0.0 && wrong < failure, "the tie rule guesses right more often than not: {wrong} of {failure}");
}

#[test]
fn bad_input_is_refused_without_output() {
    let cases: &[(&[&str], &str)] = &[
        (&["svbf", "dimension", "--centers", "65"], "`centers`: 65 is outside 2..=64"),
        (&["svbf", "dimension", "--target-failure", "1.5"], "`target-failure`: 1.5 is outside (0, 1)"),
        (&["svbf", "failure", "--bits-per-packet", "0.5"], "must be at least 1"),
        (&["svbf", "failure", "--hashes", "0"], "`hashes`: 0 is outside 1..=16"),
        (&["run", "svbf", "--partition-log2", "40"], "`partition_log2`: 40 is outside 8..=22"),
        (&["run", "svbf", "--centers", "1"], "`centers`: 1 is outside 2..=64"),
        (&["run", "svbf", "--clustering", "foo"], "clustering `foo`"),
        (&["run", "svbf", "--packets", "0"], "packets and flows must be positive"),
        (&["run", "svbf", "--epochs", "2"], "need at least 3"),
        (&["run", "svbf", "--delay", "weibull:-1:0.5"], "scale `-1` is not a positive number"),
        (&["run", "svbf", "--engine", "rtl", "--hashes", "3"], "no Verilated SVBF core has this geometry"),
        (&["run", "svbf", "--engine", "fpga"], "fpga"),
    ];
    for (args, want) in cases {
        assert_refused(args, want);
    }
}
