//! The point's register block and its bus slaves (`netmeas_axil_slave`,
//! `netmeas_wb_slave`): lint-clean for real cores' maps, and their
//! self-checking testbenches pass in Icarus Verilog and Verilator with
//! random valid/ready (STB) timing on every channel, every access checked
//! against a model of the map, on the fridges' map (configuration, commands
//! and read-only core words, 32-bit data) and LDA's (8-bit data). A slave
//! or a register block broken in any of several ways fails them.

use netmeas_hdl::export::{Exported, export};
use netmeas_hdl::point::bus::{Bus, BusBuild, BusOutcome, BusRun};
use netmeas_hdl::point::regs::{PointConfig, PointField, PointRegs, WordKind};
use netmeas_hdl::point::sim::Simulator;
use netmeas_hdl::registry;
use netmeas_hdl::tools;
use netmeas_sim::csr::Access;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bus").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn field(name: &str) -> PointField {
    PointField { name: name.into(), doc: format!("{name} (test)") }
}

/// The point's registers around the default config of `core`: four status
/// words, three flags, two commands and two configuration words, as a
/// point shows them.
fn point_regs(core: &str) -> PointRegs {
    let cfg = registry::core(core).unwrap().default_config(None).unwrap();
    let exported: Exported = export(&cfg).unwrap();
    let status = ["FRAMES", "PARSED", "UNPARSED", "DROPPED"].map(field).to_vec();
    let flags = ["FIFO_OVERFLOW", "DROPPED", "COUNTER_WRAP"].map(field).to_vec();
    let commands = ["EPOCH_FLIP", "OVF_CLEAR"].map(field).to_vec();
    let config = [("CTRL_ROLE", 2, 0), ("CTRL_EVERY_NS_LO", 32, 1_000_000)]
        .map(|(name, bits, reset)| PointConfig { name: name.into(), doc: format!("{name} (test)"), bits, reset })
        .to_vec();
    PointRegs { config, ..PointRegs::for_core(&exported, status, flags, commands).unwrap() }
}

/// The runs: steady, everything at once, slow masters, slow response takers.
fn runs() -> Vec<BusRun> {
    vec![
        BusRun { seed: 1, rounds: 1500, valid_pct: 60, ready_pct: 60 },
        BusRun { seed: 2, rounds: 1500, valid_pct: 100, ready_pct: 100 },
        BusRun { seed: 3, rounds: 600, valid_pct: 15, ready_pct: 100 },
        BusRun { seed: 4, rounds: 600, valid_pct: 100, ready_pct: 7 },
    ]
}

fn run_all(sim: Simulator, bus: Bus, core: &str) -> Vec<BusOutcome> {
    let regs = point_regs(core);
    let build = BusBuild::new(sim, bus, &scratch(&format!("{sim:?}_{bus:?}_{core}")), &regs)
        .unwrap_or_else(|e| panic!("{sim:?} {bus:?} {core}: {e}"));
    runs()
        .iter()
        .map(|run| {
            let o = build.run(run).unwrap_or_else(|e| panic!("{sim:?} {bus:?} {core} {run:?}: {e}"));
            // Both kinds of access were made, and some were refused.
            assert!(o.writes > u64::from(run.rounds) / 4 && o.reads > u64::from(run.rounds) / 4, "{o:?}");
            assert!(o.errors > 0 && o.errors < (o.writes + o.reads) * 3 / 4, "{o:?}");
            o
        })
        .collect()
}

#[test]
fn the_register_map_places_core_words_point_words_and_flags() {
    let regs = point_regs("fridge");
    let words = regs.words();
    let fridge = netmeas_sim::fridge::FridgeConfig::default();
    assert_eq!(regs.core.len() + 4 + 1 + 2 + 2, words.len());
    for r in &regs.core {
        let w = words.iter().find(|w| w.name == r.name).unwrap();
        assert_eq!((w.addr, w.kind), (4 * r.addr, WordKind::Core(r.access)));
    }
    assert!(words.iter().any(|w| w.kind == WordKind::Core(Access::Ro)));
    assert!(words.iter().any(|w| w.kind == WordKind::Core(Access::Wo)));
    let base = regs.point_base();
    assert!(words.iter().filter(|w| matches!(w.kind, WordKind::Core(_))).all(|w| w.addr < base));
    assert_eq!(words.iter().find(|w| w.name == "DROPPED" && w.kind == WordKind::Status(3)).unwrap().addr, base + 12);
    let flags = words.iter().find(|w| w.kind == WordKind::Flags).unwrap();
    assert_eq!(flags.addr, base + 16);
    let cmd = words.iter().find(|w| w.kind == WordKind::Command(1)).unwrap();
    assert_eq!(cmd.addr, base + 24);
    // The configuration words after the commands, with their reset values.
    let last = words.last().unwrap();
    assert_eq!((last.kind, last.addr, last.reset), (WordKind::Config(1), base + 32, 1_000_000));
    assert!(fridge.fridges() >= 1);
}

#[test]
fn the_register_blocks_and_slaves_lint_clean() {
    for core in ["fridge", "lda"] {
        let regs = point_regs(core);
        let dir = scratch(&format!("lint_{core}"));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{}.v", regs.module));
        std::fs::write(&file, regs.verilog().unwrap()).unwrap();
        tools::lint(&file, &regs.module).unwrap_or_else(|e| panic!("{core}: {e}"));
    }
    for bus in [Bus::Axil, Bus::Wishbone] {
        let dir = scratch(&format!("lint_{bus:?}"));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{}.v", bus.module()));
        std::fs::write(&file, bus.verilog()).unwrap();
        tools::lint(&file, bus.module()).unwrap_or_else(|e| panic!("{bus:?}: {e}"));
    }
}

#[test]
fn the_axil_slave_answers_every_access_as_the_map_says() {
    for core in ["fridge", "lda"] {
        let icarus = run_all(Simulator::Icarus, Bus::Axil, core);
        let verilator = run_all(Simulator::Verilator, Bus::Axil, core);
        // The same seeds give the same accesses in both simulators. The clocks
        // they take differ: the master's five channel processes are forked at
        // a clock edge, and the simulators order their first waits differently.
        let accesses = |o: &BusOutcome| (o.writes, o.reads, o.errors);
        assert_eq!(
            icarus.iter().map(accesses).collect::<Vec<_>>(),
            verilator.iter().map(accesses).collect::<Vec<_>>(),
            "{core}: the two simulators disagree"
        );
    }
}

#[test]
fn the_wishbone_slave_answers_every_access_as_the_map_says() {
    for core in ["fridge", "lda"] {
        let icarus = run_all(Simulator::Icarus, Bus::Wishbone, core);
        let verilator = run_all(Simulator::Verilator, Bus::Wishbone, core);
        assert_eq!(icarus, verilator, "{core}: the two simulators disagree");
    }
}

#[test]
fn the_testbenches_catch_broken_slaves() {
    let regs = point_regs("fridge");
    let run = BusRun { rounds: 400, ..BusRun::default() };
    for (bus, what, from, to) in [
        (Bus::Axil, "SLVERR answered as OKAY", "b_resp <= rsp_err ? RESP_SLVERR : RESP_OKAY;", "b_resp <= RESP_OKAY;"),
        (
            Bus::Axil,
            "a response dropped before it is taken",
            "if (b_valid && s_axil_bready) b_valid <= 1'b0;",
            "b_valid <= 1'b0;",
        ),
        (
            Bus::Axil,
            "a read issued over a response not yet taken",
            "wire rd_can = ar_full && !r_valid && ",
            "wire rd_can = ar_full && ",
        ),
        (Bus::Axil, "write strobes ignored", "assign acc_wstrb = w_strb;", "assign acc_wstrb = 4'hf;"),
        (Bus::Wishbone, "an answer shown after CYC fell", "&& !rsp_err && wb_cyc_i;", "&& !rsp_err;"),
        (
            Bus::Wishbone,
            "an abandoned access answered in the next cycle",
            "answering2 <= answering1 && wb_cyc_i;",
            "answering2 <= answering1;",
        ),
        (Bus::Axil, "an answer taken a clock early", "if (pend2 && rsp_valid) begin", "if (pend1 && rsp_valid) begin"),
        (
            Bus::Wishbone,
            "word addresses taken as byte addresses",
            "assign acc_addr   = {wb_adr_i, 2'b00};",
            "assign acc_addr   = {2'b00, wb_adr_i};",
        ),
    ] {
        let broken = bus.verilog().replace(from, to);
        assert_ne!(broken, bus.verilog(), "{what}: the line moved");
        let build = BusBuild::with_slave(Simulator::Icarus, bus, &scratch("broken"), &regs, &broken).unwrap();
        let e = build.run(&run).expect_err(what);
        assert!(e.starts_with("FAIL"), "{what}: {e}");
    }
}
