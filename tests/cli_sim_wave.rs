//! `netmeas sim --wave`: the Verilated block runs its shipped testbench
//! against the golden per-clock model and writes a waveform that a viewer's
//! loader (Surfer's `wellen`) opens, with every port of the block and one
//! rising clock edge per clock; bad flags are refused before anything runs.

mod common;

use common::{assert_refused, netmeas};
use netmeas_hdl::export::export;
use netmeas_hdl::registry;
use std::path::{Path, PathBuf};

fn fresh_dir(name: &str) -> PathBuf {
    common::fresh_dir("sim_wave", name)
}

/// Opens `wave` and checks that it holds `block`'s ports under the
/// testbench's `dut` and `cycles` rising edges of `clock`.
fn check_wave(wave: &Path, block: &str, cycles: usize) {
    let mut w = wellen::simple::read(wave).unwrap_or_else(|e| panic!("{}: {e}", wave.display()));
    let h = w.hierarchy();
    let names: Vec<(String, wellen::SignalRef)> =
        h.all_vars().map(|v| (h[v].full_name(h), h[v].signal_ref())).collect();
    let e = export(&registry::core(block).unwrap().default_config(None).unwrap()).unwrap();
    for p in &e.ports {
        let want = format!("{}_tb.dut.{}", e.top, p.name);
        assert!(names.iter().any(|(n, _)| n.ends_with(&want)), "{block}: {want} not in {}", wave.display());
    }
    let clock = names.iter().find(|(n, _)| n.ends_with(&format!("{}_tb.clock", e.top))).unwrap().1;
    w.load_signals(&[clock]);
    let s = w.get_signal(clock).unwrap();
    let mut last = String::new();
    let mut rising = 0;
    for (_, v) in s.iter_changes() {
        let b = v.to_bit_string().unwrap();
        rising += (last == "0" && b == "1") as usize;
        last = b;
    }
    assert_eq!(rising, cycles, "{block}: rising clock edges in {}", wave.display());
}

#[test]
fn sim_writes_a_waveform_with_the_ports_and_one_edge_per_clock() {
    let dir = fresh_dir("ok");
    for (block, ext, cycles) in [("lda", "vcd", 3000usize), ("counter-bank", "fst", 2500)] {
        let wave = dir.join(format!("{block}.{ext}"));
        let n = cycles.to_string();
        let o = netmeas(&["sim", block, "--cycles", &n, "--seed", "7", "--wave", wave.to_str().unwrap()]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{block}: {}{out}", String::from_utf8_lossy(&o.stderr));
        assert!(out.starts_with("PASS: ") && out.contains(&format!("{cycles} cycles")), "{block}: {out}");
        assert!(out.contains("covered: resets 2"), "{block}: {out}");
        check_wave(&wave, block, cycles);
    }
}

#[test]
fn sim_refuses_bad_flags_and_blocks_without_a_testbench() {
    let dir = fresh_dir("bad");
    let wave = |name: &str| dir.join(name).to_str().unwrap().to_string();
    assert_refused(&["sim", "engine"], "the blocks that ship a testbench: h3, counter-bank, frame-parser, lda");
    assert_refused(&["sim", "lda", "--wave", &wave("x.txt")], "must end in .vcd or .fst");
    assert_refused(&["sim", "lda", "--wave", &wave("missing/x.vcd")], "does not exist");
    assert_refused(&["sim", "lda", "--cycles", "1"], "at least 2");
    assert_refused(&["sim", "nope"], "unknown block");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "a refused run wrote a file");
}
