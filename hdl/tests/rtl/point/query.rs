//! `netmeas_point_query`, a point's query port: lint-clean; its
//! self-checking testbench (a model core answering 22 clocks after each
//! query, answers taken with random `TREADY` and long stalls) passes in
//! Icarus Verilog and in Verilator alike, with queries held back while the
//! answers owed fill the FIFO; and it fails on a port that takes queries
//! regardless (answers would be lost).

use netmeas_hdl::point::sim::{self, Simulator};
use netmeas_hdl::point::top::{QUERY_TESTBENCH, QUERY_VERILOG};
use netmeas_hdl::tools;
use std::path::PathBuf;
use std::process::Command;

const MODULE: &str = "netmeas_point_query";

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("point_query").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The testbench of `verilog` in `sim` with `args`: (queries, clocks, clocks held back), or its FAIL line.
fn run(sim: Simulator, name: &str, verilog: &str, args: &[&str]) -> Result<(u64, u64, u64), String> {
    let dir = scratch(name);
    let files = [(format!("{MODULE}.v"), verilog), ("netmeas_point_query_tb.v".to_string(), QUERY_TESTBENCH)];
    let cmd = sim::build(sim, &dir, "netmeas_point_query_tb", &files, &[])?;
    let out = sim::checked(Command::new(&cmd[0]).args(&cmd[1..]).args(args).current_dir(&dir), "the testbench")?;
    let f = sim::pass_fields(&out)?;
    Ok((f("queries")?, f("clocks")?, f("held")?))
}

#[test]
fn the_query_port_lints_clean() {
    let dir = scratch("lint");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{MODULE}.v"));
    std::fs::write(&file, QUERY_VERILOG).unwrap();
    tools::lint(&file, MODULE).unwrap();
}

#[test]
fn every_answer_comes_in_order_under_back_pressure_in_icarus_and_verilator_alike() {
    let args = ["+QUERIES=20000", "+SEED=7"];
    let icarus = run(Simulator::Icarus, "icarus", QUERY_VERILOG, &args).unwrap();
    let verilator = run(Simulator::Verilator, "verilator", QUERY_VERILOG, &args).unwrap();
    assert_eq!(icarus, verilator, "the two simulators disagree");
    let (queries, clocks, held) = icarus;
    assert_eq!(queries, 20000);
    // The stalls filled the FIFO: queries were held back by the answers owed.
    assert!(held > 1000, "{held} clocks held back in {clocks}");
    // Answers taken at once (no stall): one query a clock while the core takes them.
    let (q, c, h) = run(
        Simulator::Icarus,
        "full_rate",
        QUERY_VERILOG,
        &["+QUERIES=5000", "+READY_PCT=100", "+VALID_PCT=100", "+TAKE_PCT=100", "+STALL=0", "+SEED=3"],
    )
    .unwrap();
    assert_eq!((q, h), (5000, 0), "{c} clocks");
    // (the clocks count the 22 of the last answer and the testbench's 4 × 22 after it)
    assert!(c < 5000 + 5 * 22 + 50, "{c} clocks for 5000 queries");
}

#[test]
fn the_testbench_catches_a_port_that_loses_answers() {
    let broken = QUERY_VERILOG.replace("wire room = owed != DEPTH_P;", "wire room = 1'b1;");
    assert_ne!(broken, QUERY_VERILOG, "the line moved");
    let e = run(Simulator::Icarus, "broken", &broken, &["+QUERIES=5000", "+SEED=7"]).expect_err("answers lost");
    assert!(e.starts_with("FAIL"), "{e}");
}
