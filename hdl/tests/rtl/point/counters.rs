//! `netmeas_point_counters`: lint-clean; its self-checking testbench passes
//! in Icarus Verilog and in Verilator, alike, with the two clocks at
//! unrelated ratios both ways, at the point's size and at a width small
//! enough to saturate; it fails on blocks broken in three ways; and only
//! the Gray codes cross, each bit through its two-flop synchronizer.

use netmeas_hdl::point::counters::{CountersBuild, CountersOutcome, CountersRun, MODULE, VERILOG};
use netmeas_hdl::point::sim::Simulator;
use netmeas_hdl::tools;
use std::path::PathBuf;

/// The point's counters: frames, records, eight reasons, records dropped, FIFO overflows.
const POINT_N: u32 = 12;
/// A 25G MAC's clock (25.78125 Gbit/s over 80 bits), MHz.
const MAC_25G_MHZ: f64 = 322.265625;

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("point_counters").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The runs: (name, counters, bits, run).
fn runs() -> Vec<(&'static str, u32, u32, CountersRun)> {
    let base = CountersRun::default();
    vec![
        ("mac156_core200", POINT_N, 32, base.clone()),
        (
            "mac322_core250_every_clock",
            POINT_N,
            32,
            CountersRun { s_mhz: MAC_25G_MHZ, m_mhz: 250.0, event_pct: 100, seed: 5, ..base.clone() },
        ),
        (
            "mac200_core156_every_clock",
            POINT_N,
            32,
            CountersRun { s_mhz: 200.0, m_mhz: 156.25, event_pct: 100, seed: 9, ..base.clone() },
        ),
        (
            "mac250_core322_sparse",
            POINT_N,
            32,
            CountersRun { s_mhz: 250.0, m_mhz: MAC_25G_MHZ, m_phase_ps: 555, event_pct: 7, seed: 11, ..base.clone() },
        ),
        // 4-bit counters saturate at 15 within a few hundred clocks.
        ("saturating", 3, 4, CountersRun { s_mhz: MAC_25G_MHZ, m_mhz: 200.0, clocks: 400, seed: 3, ..base }),
    ]
}

fn run_all(sim: Simulator) -> Vec<CountersOutcome> {
    let mut builds: Vec<((u32, u32), CountersBuild)> = Vec::new();
    runs()
        .into_iter()
        .map(|(name, n, w, run)| {
            if !builds.iter().any(|(size, _)| *size == (n, w)) {
                let b = CountersBuild::new(sim, &scratch(&format!("{sim:?}_{n}_{w}")), n, w)
                    .unwrap_or_else(|e| panic!("{sim:?}: {e}"));
                builds.push(((n, w), b));
            }
            let build = &builds.iter().find(|(size, _)| *size == (n, w)).unwrap().1;
            let o = build.run(&run).unwrap_or_else(|e| panic!("{sim:?} {name}: {e}"));
            assert!(o.s_clocks > u64::from(run.clocks), "{name}: {o:?}");
            // The events were made (the saturating run makes far more than 3 × 15).
            assert!(o.events > u64::from(run.clocks) * u64::from(run.event_pct) / 100, "{name}: {o:?}");
            o
        })
        .collect()
}

#[test]
fn the_counters_lint_clean() {
    let dir = scratch("lint");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{MODULE}.v"));
    std::fs::write(&file, VERILOG).unwrap();
    // (with the reset bridge it instantiates)
    use netmeas_hdl::point::reset_bridge;
    let bridge = dir.join(reset_bridge::FILE);
    std::fs::write(&bridge, reset_bridge::VERILOG).unwrap();
    tools::lint_files(&[&file, &bridge], MODULE).unwrap();
}

#[test]
fn the_counters_cross_unrelated_clocks_in_icarus_and_verilator_alike() {
    let icarus = run_all(Simulator::Icarus);
    let verilator = run_all(Simulator::Verilator);
    assert_eq!(icarus, verilator, "the two simulators disagree");
}

#[test]
fn the_testbench_catches_broken_counters() {
    let run = CountersRun { clocks: 400, ..CountersRun::default() };
    for (what, from, to) in [
        ("the Gray code shown unconverted", "m_count <= seen_bin;", "m_count <= cnt_gray_sync2;"),
        ("a counter that wraps", "(s_event_q[i] && !inc[W])", "s_event_q[i]"),
        ("m_changed not following m_count", "!= seen_gray[W*c +: W];", "!= cnt_gray_sync1[W*c +: W];"),
    ] {
        let broken = VERILOG.replace(from, to);
        assert_ne!(broken, VERILOG, "{what}: the line moved");
        let build = CountersBuild::with_verilog(Simulator::Icarus, &scratch("broken"), 3, 4, &broken).unwrap();
        let e = build.run(&run).expect_err(what);
        assert!(e.starts_with("FAIL"), "{what}: {e}");
    }
}

#[test]
fn only_the_gray_codes_cross_through_their_synchronizers() {
    use netmeas_hdl::point::cdc::{Domain, check_crossings, netlist_of};
    use netmeas_hdl::point::reset_bridge;
    let domains = [Domain { clock: "s_clk", prefix: "s_" }, Domain { clock: "m_clk", prefix: "m_" }];
    let check = |name: &str, verilog: &str| {
        let files = [("counters.v", verilog, false), (reset_bridge::FILE, reset_bridge::VERILOG, false)];
        let n = netlist_of(&files, MODULE, &[("N", u64::from(POINT_N)), ("W", 32)], &scratch(name))
            .unwrap_or_else(|e| panic!("{e}"));
        check_crossings(&n, MODULE, &domains)
    };
    let report = check("cdc", VERILOG).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    // Each count's Gray bits, and the reset bridge's two requests and two acknowledges.
    assert_eq!(report.synchronized_bits, 32 * POINT_N as usize + 4, "{report:?}");
    for (what, from, to) in [
        ("the binary count crossing", "cnt_gray_sync1 <= cnt_gray;", "cnt_gray_sync1 <= cnt_bin;"),
        ("logic in front of a synchronizer", "cnt_gray_sync1 <= cnt_gray;", "cnt_gray_sync1 <= gray_of(cnt_bin);"),
        (
            "a first stage used as if settled",
            "assign seen_bin[W*i + j] = ^cnt_gray_sync2[W*i + W - 1 : W*i + j];",
            "assign seen_bin[W*i + j] = ^cnt_gray_sync1[W*i + W - 1 : W*i + j];",
        ),
    ] {
        let broken = VERILOG.replace(from, to);
        assert_ne!(broken, VERILOG, "{what}: the line moved");
        let found = check("cdc_broken", &broken).expect_err(what);
        assert!(!found.is_empty(), "{what}");
    }
}
