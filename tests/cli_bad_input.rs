//! Bad input, family by family, as a user would type it: each is refused with
//! a one-line error naming what is wrong, a non-zero exit, nothing on stdout
//! and no file left behind. (Closed pipes and full disks: `cli_output.rs`;
//! each command's own flags: its `cli_run_*.rs`.)

mod common;
use common::{assert_refused, netmeas};
use netmeas_sim::fridge::{Exchange, write_exchange_pcap};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netmeas-bad-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn file(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A config file's value is used, and checked, unless a flag is given: no CLI
/// default overrides it silently.
#[test]
fn config_values_are_checked_and_not_overridden_by_defaults() {
    let d = scratch("config");
    for (core, text, needle) in [
        ("dbm", "period_ticks = 0", "dbm.period_ticks"),
        ("dbm", "period_ticks = 281474976710656", "dbm.period_ticks"),
        ("expb", "period_ticks = 1000", "expb.period_ticks"),
        ("expb", "scales = 16\nbase_ticks = 562949953421313", "expb.base_ticks"),
        ("fridge", "entry_prob_log2 = [1.0, 2.0]", "entry_prob_log2"),
        ("fridge", "entry_prob_log2 = [nan, -4.0]", "entry_prob_log2"),
        ("fridge", "entry_prob_log2 = []", "entry_prob_log2"),
        ("fridge", "entry_prob_log2 = [-inf, -4.0]", "entry_prob_log2"),
    ] {
        let cfg = file(&d, &format!("{core}.toml"), text);
        let run: Vec<&str> = match core {
            "fridge" => vec!["run", core, "--requests", "2000", "--config", &cfg],
            _ => vec!["run", core, "--config", &cfg],
        };
        assert_refused(&run, needle);
        let out = d.join("export");
        assert_refused(&["export", core, "--config", &cfg, "--out", out.to_str().unwrap()], needle);
        assert!(!out.exists(), "{core} {text}: export wrote files");
    }
    // A good config's period is the one used (not the flag's default 2 s).
    let cfg = file(&d, "dbm.toml", "period_ticks = 500000000");
    let v = common::json(&netmeas(&["run", "dbm", "--config", &cfg, "--json"]));
    assert_eq!(v["config"]["period_ticks"], 500_000_000, "{v}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A FIFO (or a device) given as a config or a capture is refused at once,
/// not waited on.
#[test]
fn fifos_are_refused_not_waited_on() {
    let d = scratch("fifo");
    let fifo = d.join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let f = fifo.to_str().unwrap();
    assert_refused(&["run", "lda", "--config", f], "not a regular file");
    assert_refused(&["run", "lda", "--pcap", f], "not a regular file");
    assert_refused(&["run", "dbm", "--pcap", f], "not a regular file");
    assert_refused(&["run", "fridge", "--pcap", f], "not a regular file");
    assert_refused(&["estimate", "lda", f, f], "not a regular file");
    assert_refused(&["run", "lda", "--config", "/dev/zero"], "not a regular file");
    let _ = std::fs::remove_dir_all(&d);
}

/// Output sets are written whole or not at all, through a symlink to its
/// target, and a replaced file is named.
#[test]
fn outputs_are_whole_sets_and_links_are_kept() {
    let d = scratch("outputs");
    // The synopsis folder cannot hold `receiver.json` (a folder is in the way):
    // `sender.json` is not written either, and no temporary is left.
    let syn = d.join("syn");
    std::fs::create_dir_all(syn.join("receiver.json")).unwrap();
    let s = syn.to_str().unwrap();
    assert_refused(&["run", "lda", "--packets", "2000", "--save-synopses", s], "receiver.json");
    assert_eq!(listing(&syn), ["receiver.json"]);
    // A symlinked plot: the file it points at is replaced, the link stays.
    let real = d.join("real.svg");
    std::fs::write(&real, "old").unwrap();
    let link = d.join("plot.svg");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = netmeas(&["run", "fridge", "--requests", "5000", "--plot", link.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().contains("<svg"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.lines().any(|l| l.starts_with("netmeas: replaced ") && l.ends_with("real.svg")), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Delays and rates whose times the cores' timestamps cannot carry are refused
/// up front, not wrapped into a wrong answer.
#[test]
fn times_beyond_the_timestamps_are_refused() {
    let lda = |extra: &[&str], needle: &str| {
        let mut args = vec!["run", "lda", "--packets", "1000"];
        args.extend_from_slice(extra);
        assert_refused(&args, needle);
    };
    lda(&["--delay", "const:1e13"], "does not fit the cores' 48-bit timestamps");
    lda(&["--delay", "weibull:0.133:0.01"], "48-bit timestamps");
    lda(&["--rate", "1e-12"], "runs past 2^48 ns");
    // Each delay fits, but 1000 delays of 1 s do not fit a 40-bit row sum.
    lda(&["--delay", "const:1e6"], "past the 2^39 ns");
    assert_refused(&["run", "rda", "--packets", "1000", "--delay", "const:1e13"], "48-bit timestamps");
    // A fridge response 2^48 ns after its request (it would wrap in the
    // core's 48-bit timestamps to a short delay): the capture is refused.
    let d = scratch("fridge-wrap");
    let exchange = |t_ns, tag, answer_after_ns| Exchange {
        t_ns,
        client: 0x0a00_0001,
        server: 0x0a00_0002,
        client_port: 40_000 + tag as u16,
        tag,
        dns: false,
        answer_after_ns,
    };
    let pcap = d.join("late.pcap");
    std::fs::write(&pcap, write_exchange_pcap(&[exchange(0, 1, Some(1 << 48)), exchange(1000, 2, Some(1_930_000))]))
        .unwrap();
    assert_refused(&["run", "fridge", "--pcap", pcap.to_str().unwrap()], "span less than 2^48 ns");
    let _ = std::fs::remove_dir_all(&d);
    // 100 delays of 1 s do fit: measured exactly.
    let v = common::json(&netmeas(&["run", "lda", "--packets", "100", "--delay", "const:1e6", "--json"]));
    assert_eq!(v["estimates"]["mean"], 1e9, "{v}");
}

/// Sizes that cannot be held in memory are refused with the limit named,
/// before anything is allocated.
#[test]
fn sizes_beyond_memory_name_their_limit() {
    assert_refused(&["run", "fridge", "--requests", "2000000000"], "outside 1..=100000000");
    assert_refused(&["run", "svbf", "--packets", "1000000000000"], "at most 100000000 in one run");
    assert_refused(&["run", "svbf", "--flows", "100000000000"], "flows at most 100000000");
    assert_refused(&["run", "dbm", "--period", "1ns"], "more than the 1048576 one run holds");
    assert_refused(&["run", "expb", "--period", "1ns"], "expb.period_ticks");
    // A query time scale longer than the period has no interval in it.
    assert_refused(&["run", "dbm", "--period", "100us"], "longer than the period of 100 us");
}

/// Answers stay finite: a target the core cannot meet is refused with the reason.
#[test]
fn impossible_dimensionings_are_refused() {
    assert_refused(&["svbf", "dimension", "--target-failure", "1e-300"], "at most 16");
    let v = common::json(&netmeas(&["svbf", "dimension", "--target-failure", "1e-3", "--json"]));
    assert_eq!(v["hashes"], 16, "{v}");
    assert!(v["expected_failure"].as_f64().unwrap() <= 1e-3, "{v}");
}

/// A reordering window that does not fit in the interval is refused (it used
/// to run for minutes, or answer NaN).
#[test]
fn reordering_windows_past_the_interval_are_refused() {
    let rda =
        |w: &str, needle: &str| assert_refused(&["run", "rda", "--packets", "20000", "--reorder-window-ns", w], needle);
    rda("18446744073709551615", "outside 1..=4294967295 ns");
    rda("1000000000000000", "outside 1..=4294967295 ns");
    // 20 000 packets at 5 Mpps span about 4 ms.
    rda("100000000", "longer than the interval");
}
