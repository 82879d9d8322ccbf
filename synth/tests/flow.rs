//! Synthesizability: the exported blocks go through Yosys for both targets and
//! the counter bank's two copies land in block RAM (not LUTs or FFs), on ECP5
//! with the blocks' output registers on.

use netmeas_hdl::export::{BlockConfig, export};
use netmeas_sim::counter_bank::CounterBankConfig;
use netmeas_sim::h3::H3Config;
use netmeas_synth::{Target, inferred_brams};

fn dir(name: &str) -> std::path::PathBuf {
    netmeas_hdl::tools::repo_root().join("build").join("test-synth").join(name)
}

#[test]
fn counter_bank_infers_block_ram_on_both_targets() {
    let e = export(&BlockConfig::new(CounterBankConfig::default())).unwrap();
    // 1024 x 72 per copy = 4 DP16KD (1024 x 18 each); two copies.
    assert_eq!(inferred_brams(&e, Target::Ecp5_85k, &dir("cb-ecp5")).unwrap(), 8);
    // iCE40: 512 x 72 per copy = 9 EBRs (512 x 8 each); two copies.
    let e = export(&BlockConfig::new(CounterBankConfig { rows: 512, ..Default::default() })).unwrap();
    assert_eq!(inferred_brams(&e, Target::Ice40Hx8k, &dir("cb-ice40")).unwrap(), 18);
}

#[test]
fn ecp5_block_rams_hold_the_register_behind_them_as_their_output_register() {
    // The counter bank (two copies of 1024 x 72: two 512-row slices of two 512 x 36 blocks
    // each): every DP16KD is BlockRam's ECP5 primitive with both output registers on.
    let e = export(&BlockConfig::new(CounterBankConfig::default())).unwrap();
    let d = dir("cb-ecp5-outreg");
    let cells = netmeas_synth::synth_cells(&e, Target::Ecp5_85k, &d).unwrap();
    assert_eq!(cells.get("DP16KD").copied(), Some(8));
    let text = std::fs::read_to_string(d.join("netlist.json")).unwrap();
    let netlist: serde_json::Value = serde_json::from_str(&text).unwrap();
    let top = netlist["modules"][&e.top]["cells"].as_object().unwrap();
    let blocks: Vec<&serde_json::Value> = top.values().filter(|c| c["type"] == "DP16KD").collect();
    assert_eq!(blocks.len(), 8);
    for b in blocks {
        for p in ["REGMODE_A", "REGMODE_B"] {
            assert_eq!(b["parameters"][p].as_str().map(str::trim), Some("OUTREG"), "{p}");
        }
    }
}

#[test]
fn h3_synthesizes_without_memory() {
    let e = export(&BlockConfig::new(H3Config::default())).unwrap();
    assert_eq!(inferred_brams(&e, Target::Ecp5_85k, &dir("h3-ecp5")).unwrap(), 0);
}

#[test]
fn ice40_flip_flops_are_counted_from_yosys_cells() {
    // The 512-row iCE40 bank in the register-to-register harness: the FF count
    // must come from SB_DFF* cells, not repeat the logic-cell count.
    let e = export(&BlockConfig::new(CounterBankConfig { rows: 512, ..Default::default() })).unwrap();
    let f = netmeas_synth::build(&dir("cb-ice40-ffs"), &e.top, &e.verilog, &e.ports, Target::Ice40Hx8k).unwrap();
    assert!(f.ffs > 300 && f.ffs < f.luts, "ffs {} luts {}", f.ffs, f.luts);
    assert_eq!(f.brams, 18);
    // Every register's input is an endpoint of the detailed report, and the latest
    // arrival is the critical path's (its delay less the setup time).
    assert!(f.arrivals_ns.len() as u64 > f.ffs, "{} endpoints, {} FFs", f.arrivals_ns.len(), f.ffs);
    let period = 1000.0 / f.fmax_mhz;
    assert!(f.arrivals_ns[0] <= period && f.arrivals_ns[0] > 0.5 * period, "{} ns of {period}", f.arrivals_ns[0]);
}

#[test]
fn lda_timestamp_delay_line_trades_flip_flops_for_block_ram_on_ice40() {
    use netmeas_sim::lda::LdaConfig;
    // The HX8K engine's core with its timestamps in registers and in the delay line: the
    // line is one 256 × 40 RAM (three 256 × 16 EBRs) and takes out the six 40-bit pipeline
    // registers the timestamp rode (p2, p3, the bank's four operand stages) for two 8-bit pointers.
    let regs = LdaConfig { key_bits: 32, banks: 1, rows: 128, bank_prob_log2: vec![3], ..Default::default() };
    let ram = LdaConfig { ts_in_ram: true, ..regs.clone() };
    let cells = |c: &LdaConfig, d: &str| {
        let e = export(&BlockConfig::new(c.clone())).unwrap();
        let cells = netmeas_synth::synth_cells(&e, Target::Ice40Hx8k, &dir(d)).unwrap();
        let ffs: u64 = cells.iter().filter(|(k, _)| k.starts_with("SB_DFF")).map(|(_, n)| n).sum();
        (ffs, cells.get("SB_RAM40_4K").copied().unwrap_or(0))
    };
    let (ffs_regs, brams_regs) = cells(&regs, "lda-ts-regs-ice40");
    let (ffs_ram, brams_ram) = cells(&ram, "lda-ts-ram-ice40");
    assert_eq!(brams_ram, brams_regs + 3, "EBRs: {brams_regs} in registers, {brams_ram} in RAM");
    assert_eq!(ffs_regs - ffs_ram, 6 * 40 - 2 * 8, "flip-flops: {ffs_regs} in registers, {ffs_ram} in RAM");
}

#[test]
fn rda_bank_copies_land_in_block_ram_on_ice40() {
    use netmeas_sim::rda::RdaConfig;
    // The iCE40-HX8K default: one bank of 512 × 128 bits = 16 EBRs (512 × 8 each) per copy, two copies.
    let cfg = RdaConfig { banks: 1, buckets: 512, tsum_bits: 32, read_stages: 0, ..Default::default() };
    let e = export(&BlockConfig::new(cfg)).unwrap();
    assert_eq!(inferred_brams(&e, Target::Ice40Hx8k, &dir("rda-ice40")).unwrap(), 32);
}

#[test]
fn expb_reference_is_the_statistics_loop_of_one_row_per_scale() {
    use netmeas_sim::dbm::{ExpbConfig, expb_cycle::EXPB_RECORD_BITS};
    let netmeas_hdl::registry::Reference::Rmw(g) = BlockConfig::new(ExpbConfig::default()).reference() else {
        panic!("EXPB has a reference loop")
    };
    let (v, ports) = netmeas_synth::reference_design(&g);
    let width = |n: &str| ports.iter().find(|p| p.name == n).unwrap().bits;
    assert_eq!((width("row"), width("op"), width("q")), (4, EXPB_RECORD_BITS as usize, EXPB_RECORD_BITS as usize));
    // {count, Σ, Σ²} add; the maximum group is replaced when larger or the row is empty.
    assert!(v.contains("d2[20:0] + op2[20:0]") && v.contains("(d2[20:0] == 0)"), "{v}");
}
