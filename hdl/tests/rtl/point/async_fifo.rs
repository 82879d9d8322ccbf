//! `netmeas_async_fifo`: lint-clean, and its self-checking testbench passes
//! in Icarus Verilog and in Verilator with the two clocks at unrelated
//! ratios (a 10G MAC's 156.25 MHz and a 25G MAC's 322.27 MHz against 200
//! and 250 MHz cores, both ways), random traffic on both sides, the real
//! record's width and the smallest memory. Where the traffic is the same
//! in both simulators (a record every clock, the reader always ready),
//! they drop the same records.

use netmeas_hdl::point::async_fifo::{FifoBuild, FifoOutcome, FifoRun, MODULE, Simulator, VERILOG};
use netmeas_hdl::tools;
use std::path::PathBuf;

/// The record the frame parser gives a core: {ts 64, len 16, key 120, flow 32, class 8, role 2, match 32}.
const RECORD_BITS: u32 = 274;
/// A 25G MAC's clock (25.78125 Gbit/s over 80 bits), MHz.
const MAC_25G_MHZ: f64 = 322.265625;

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("async_fifo").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The runs: (name, record bits, memory address bits, run, whether records must be dropped).
fn runs() -> Vec<(&'static str, u32, u32, FifoRun, bool)> {
    let every_clock = FifoRun::default();
    let drops = FifoRun { no_drops: false, ..every_clock.clone() };
    vec![
        // The core's clock is faster: a record every MAC clock, none dropped.
        ("mac156_core200", RECORD_BITS, 4, every_clock.clone(), false),
        ("mac250_core322", RECORD_BITS, 4, FifoRun { s_mhz: 250.0, m_mhz: MAC_25G_MHZ, ..every_clock.clone() }, false),
        // The MAC's clock is faster and every clock has a record: the excess is dropped and counted.
        ("mac322_core250", RECORD_BITS, 4, FifoRun { s_mhz: MAC_25G_MHZ, m_mhz: 250.0, ..drops.clone() }, true),
        ("mac200_core156", RECORD_BITS, 4, FifoRun { s_mhz: 200.0, m_mhz: 156.25, ..drops.clone() }, true),
        // Random records and a slower, random reader: the FIFO fills, drains and fills again.
        ("random", RECORD_BITS, 4, FifoRun { write_pct: 35, read_pct: 25, seed: 7, ..drops.clone() }, true),
        // The smallest memory, random on both sides, at the 25G MAC's clock.
        (
            "random_smallest_memory",
            32,
            2,
            FifoRun {
                s_mhz: MAC_25G_MHZ,
                m_mhz: 250.0,
                m_phase_ps: 777,
                write_pct: 60,
                read_pct: 70,
                seed: 3,
                ..drops
            },
            true,
        ),
    ]
}

/// Every run in `sim`, one build per FIFO size; the outcomes by run name.
fn run_all(sim: Simulator) -> Vec<(&'static str, FifoRun, FifoOutcome)> {
    let mut builds: Vec<((u32, u32), FifoBuild)> = Vec::new();
    let mut out = Vec::new();
    for (name, width, addr_bits, run, drops) in runs() {
        if !builds.iter().any(|(size, _)| *size == (width, addr_bits)) {
            let dir = scratch(&format!("{sim:?}_{width}_{addr_bits}"));
            let build = FifoBuild::new(sim, &dir, width, addr_bits).unwrap_or_else(|e| panic!("{sim:?}: {e}"));
            builds.push(((width, addr_bits), build));
        }
        let build = &builds.iter().find(|(size, _)| *size == (width, addr_bits)).unwrap().1;
        let o = build.run(&run).unwrap_or_else(|e| panic!("{sim:?} {name}: {e}"));
        assert_eq!(o.records, u64::from(run.records), "{name}: {o:?}");
        assert_eq!(o.received + o.dropped, o.records, "{name}: {o:?}");
        assert_eq!(o.dropped > 0, drops, "{name}: {o:?}");
        out.push((name, run, o));
    }
    out
}

#[test]
fn the_fifo_lints_clean() {
    let dir = scratch("lint");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{MODULE}.v"));
    std::fs::write(&file, VERILOG).unwrap();
    tools::lint(&file, MODULE).unwrap();
}

#[test]
fn the_fifo_crosses_unrelated_clocks_in_icarus_and_verilator_alike() {
    let icarus = run_all(Simulator::Icarus);
    let verilator = run_all(Simulator::Verilator);
    for ((name, run, i), (_, _, v)) in icarus.iter().zip(&verilator) {
        // Random traffic differs between the simulators' generators; fixed traffic does not.
        if run.write_pct == 100 && run.read_pct == 100 {
            assert_eq!(i, v, "{name}: the two simulators disagree");
        }
    }
}

#[test]
fn the_testbench_catches_a_fifo_that_overwrites_when_full() {
    // The same testbench on a FIFO whose full flag never rises must fail.
    let broken = VERILOG.replace(
        "assign s_status_full = wr_gray_taken == {~rd_gray_sync2[P-1:P-2], rd_gray_sync2[P-3:0]};",
        "assign s_status_full = 1'b0;",
    );
    assert_ne!(broken, VERILOG, "the full flag's line moved");
    let build = FifoBuild::with_verilog(Simulator::Icarus, &scratch("broken"), 32, 4, &broken).unwrap();
    let run = FifoRun { s_mhz: MAC_25G_MHZ, m_mhz: 250.0, no_drops: false, records: 5_000, ..FifoRun::default() };
    let e = build.run(&run).unwrap_err();
    assert!(e.starts_with("FAIL"), "{e}");
}

#[test]
fn the_fifo_crosses_clock_domains_only_through_its_synchronizers() {
    use netmeas_hdl::point::cdc::{Domain, check_crossings, netlist};
    let domains = [Domain { clock: "s_clk", prefix: "s_" }, Domain { clock: "m_clk", prefix: "m_" }];
    let check = |name: &str, verilog: &str| {
        let n = netlist(verilog, MODULE, &[("WIDTH", u64::from(RECORD_BITS)), ("ADDR_BITS", 4)], &scratch(name))
            .unwrap_or_else(|e| panic!("{e}"));
        check_crossings(&n, MODULE, &domains)
    };
    let report = check("cdc", VERILOG).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    // The two Gray pointers of ADDR_BITS + 1 bits, bit by bit into their first stages.
    assert_eq!(report.synchronized_bits, 2 * 5, "{report:?}");
    // Each way of crossing wrongly is caught.
    for (what, from, to) in [
        ("logic in front of a synchronizer", "rd_gray_sync1 <= rd_gray;", "rd_gray_sync1 <= rd_bin ^ (rd_bin >> 1);"),
        (
            "a pointer used unsynchronized",
            "wire          empty = rd_gray == wr_gray_sync2;",
            "wire          empty = rd_gray == wr_gray;",
        ),
        (
            "a first stage used as if settled",
            "assign s_status_full = wr_gray_taken == {~rd_gray_sync2[P-1:P-2], rd_gray_sync2[P-3:0]};",
            "assign s_status_full = wr_gray_taken == {~rd_gray_sync1[P-1:P-2], rd_gray_sync1[P-3:0]};",
        ),
        (
            "the memory written from the other domain",
            "mem[wr_addr_q] <= wr_data_q;",
            "mem[wr_addr_q] <= {WIDTH{m_axis_tready}};",
        ),
    ] {
        let broken = VERILOG.replace(from, to);
        assert_ne!(broken, VERILOG, "{what}: the line moved");
        let found = check("cdc_broken", &broken).expect_err(what);
        assert!(!found.is_empty(), "{what}");
    }
}
