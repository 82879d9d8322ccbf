//! `netmeas_async_fifo`: lint-clean, and its self-checking testbench passes
//! in Icarus Verilog and in Verilator with the two clocks at unrelated
//! ratios (a 10G MAC's 156.25 MHz and a 25G MAC's 322.27 MHz against 200
//! and 250 MHz cores, both ways), random traffic on both sides, the real
//! record's width and the smallest memory, and resets of either side alone
//! or both, of one clock to a few hundred, at any phase of the other clock.
//! Where the traffic is the same in both simulators (a record every clock,
//! the reader always ready, no resets), they drop the same records.

use netmeas_hdl::point::async_fifo::{FifoBuild, FifoOutcome, FifoRun, MODULE, ResetSide, Simulator, VERILOG};
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
                ..drops.clone()
            },
            true,
        ),
        // Resets of one side alone, of the other, of both, and any of them
        // with one-clock pulses, a FIFO kept full, each side the faster.
        ("resets_write_side", RECORD_BITS, 4, resets(ResetSide::Write, 300, 156.25, 200.0, 100, 100, 11), false),
        ("resets_read_side", RECORD_BITS, 4, resets(ResetSide::Read, 300, 156.25, 200.0, 100, 100, 12), false),
        ("resets_both", RECORD_BITS, 4, resets(ResetSide::Both, 300, MAC_25G_MHZ, 250.0, 100, 100, 13), true),
        ("resets_one_clock", 32, 2, resets(ResetSide::Any, 1, 200.0, 156.25, 100, 100, 14), true),
        ("resets_any_full", 32, 4, resets(ResetSide::Any, 60, 250.0, MAC_25G_MHZ, 90, 30, 15), true),
    ]
}

/// 30 resets of `side`, each 1 to `max` clocks, over 20 000 records offered
/// with chance `write_pct` % a clock and taken with `read_pct` %.
fn resets(side: ResetSide, max: u32, s_mhz: f64, m_mhz: f64, write_pct: u32, read_pct: u32, seed: u32) -> FifoRun {
    FifoRun {
        s_mhz,
        m_mhz,
        write_pct,
        read_pct,
        records: 20_000,
        seed,
        no_drops: false,
        resets: 30,
        reset_side: side,
        reset_max: max,
        ..FifoRun::default()
    }
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
        assert_eq!(o.received + o.dropped + o.refused + o.vanished, o.records, "{name}: {o:?}");
        // Without resets, nothing is refused or abandoned; with them, some records are.
        assert_eq!(o.refused + o.vanished > 0, run.resets > 0, "{name}: {o:?}");
        if run.resets == 0 {
            assert_eq!(o.dropped > 0, drops, "{name}: {o:?}");
        }
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
    // (with the reset bridge it instantiates)
    use netmeas_hdl::point::reset_bridge;
    let bridge = dir.join(reset_bridge::FILE);
    std::fs::write(&bridge, reset_bridge::VERILOG).unwrap();
    tools::lint_files(&[&file, &bridge], MODULE).unwrap();
}

#[test]
fn the_fifo_crosses_unrelated_clocks_in_icarus_and_verilator_alike() {
    let icarus = run_all(Simulator::Icarus);
    let verilator = run_all(Simulator::Verilator);
    for ((name, run, i), (_, _, v)) in icarus.iter().zip(&verilator) {
        // Random traffic and reset times differ between the simulators'
        // generators; fixed traffic does not.
        if run.write_pct == 100 && run.read_pct == 100 && run.resets == 0 {
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
fn the_testbench_catches_a_reset_of_one_side_alone() {
    // A FIFO whose read side ignores a reset of the write side reads the
    // cleared pointer as records (phantoms); one whose write side clears its
    // pointer before the read side is in reset does the same. Each fails.
    for (what, from, to) in [
        (
            "the read side ignoring the write side's reset",
            "wire m_reset = m_rst || m_bridge_rst;",
            "wire m_reset = m_rst;",
        ),
        (
            "the write side clearing before the read side is in reset",
            "        if (s_clear) begin\n            wr_bin",
            "        if (1'b1) begin\n            wr_bin",
        ),
    ] {
        let broken = VERILOG.replace(from, to);
        assert_ne!(broken, VERILOG, "{what}: the line moved");
        let build = FifoBuild::with_verilog(Simulator::Icarus, &scratch("broken_reset"), 32, 4, &broken).unwrap();
        let run = resets(ResetSide::Write, 20, 156.25, 200.0, 20, 100, 5);
        let e = build.run(&run).expect_err(what);
        assert!(e.starts_with("FAIL"), "{what}: {e}");
    }
}

#[test]
fn the_fifo_crosses_clock_domains_only_through_its_synchronizers() {
    use netmeas_hdl::point::cdc::{Domain, check_crossings, netlist_of};
    use netmeas_hdl::point::reset_bridge;
    let domains = [Domain { clock: "s_clk", prefix: "s_" }, Domain { clock: "m_clk", prefix: "m_" }];
    let check = |name: &str, verilog: &str| {
        let files = [("fifo.v", verilog, false), (reset_bridge::FILE, reset_bridge::VERILOG, false)];
        let n = netlist_of(&files, MODULE, &[("WIDTH", u64::from(RECORD_BITS)), ("ADDR_BITS", 4)], &scratch(name))
            .unwrap_or_else(|e| panic!("{e}"));
        check_crossings(&n, MODULE, &domains)
    };
    let report = check("cdc", VERILOG).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    // The two Gray pointers of ADDR_BITS + 1 bits, bit by bit into their
    // first stages, and the reset bridge's two requests and two acknowledges.
    assert_eq!(report.synchronized_bits, 2 * 5 + 4, "{report:?}");
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

/// The SymbiYosys check of the FIFO with its resets
/// (`netmeas_async_fifo.sby`, `netmeas_async_fifo_formal.sv`): two free
/// clocks, resets of either side at any step. It passes, is not vacuous,
/// and fails for each of three broken crossings.
#[test]
fn the_fifo_keeps_its_pointers_together_through_a_reset_of_either_side_formally() {
    use crate::formal::{Status, apply_binds, copy_source, proof_dir, run};
    use netmeas_hdl::point::reset_bridge;
    let check = |name: &str, fifo: &str, bridge: &str, task: &str| {
        let dir = proof_dir(name);
        let dut = fifo.replace("module netmeas_async_fifo #(", "module dut #(");
        assert_ne!(dut, fifo, "the FIFO's module line moved");
        std::fs::write(dir.join("dut.v"), dut).unwrap();
        std::fs::write(dir.join(reset_bridge::FILE), bridge).unwrap();
        copy_source(&dir, "point/netmeas_async_fifo.sby");
        copy_source(&dir, "point/netmeas_async_fifo_formal.sv");
        apply_binds(&dir, "netmeas_async_fifo_formal.sv");
        run(&dir, "netmeas_async_fifo.sby", task).0
    };
    assert_eq!(check("fifo_resets_bmc", VERILOG, reset_bridge::VERILOG, "bmc"), Status::Pass);
    assert_eq!(check("fifo_resets_cover", VERILOG, reset_bridge::VERILOG, "cover"), Status::Pass);
    let fifo_mutant = |from: &str, to: &str| {
        let m = VERILOG.replace(from, to);
        assert_ne!(m, VERILOG, "`{from}` moved");
        m
    };
    let clears_first =
        fifo_mutant("        if (s_clear) begin\n            wr_bin", "        if (1'b1) begin\n            wr_bin");
    let read_side_deaf = fifo_mutant("wire m_reset = m_rst || m_bridge_rst;", "wire m_reset = m_rst;");
    let mut bridge_forgets = reset_bridge::VERILOG.to_string();
    for (side, other) in [("s", "m"), ("m", "s")] {
        let from = format!("    {side}_ack_sync1 <= {other}_ack;\n");
        let to = format!("    {side}_ack_sync1 <= {side}_rst ? 1'b0 : {other}_ack;\n");
        assert!(bridge_forgets.contains(&from), "`{from}` moved");
        bridge_forgets = bridge_forgets.replace(&from, &to);
        let from = format!("    {side}_ack_sync2 <= {side}_ack_sync1;\n");
        let to = format!("    {side}_ack_sync2 <= {side}_rst ? 1'b0 : {side}_ack_sync1;\n");
        assert!(bridge_forgets.contains(&from), "`{from}` moved");
        bridge_forgets = bridge_forgets.replace(&from, &to);
    }
    for (what, fifo, bridge) in [
        ("the write side clearing before the read side is in reset", clears_first.as_str(), reset_bridge::VERILOG),
        ("the read side ignoring the write side's reset", read_side_deaf.as_str(), reset_bridge::VERILOG),
        ("a local reset clearing the acknowledge's synchronizer", VERILOG, bridge_forgets.as_str()),
    ] {
        assert_eq!(check("fifo_resets_mutant", fifo, bridge, "bmc"), Status::Fail, "{what}");
    }
}
