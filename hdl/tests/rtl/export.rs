//! Every supported width combination exports; the exported files are lint-clean
//! under `verilator --lint-only -Wall`; impossible configs are refused by field.

use netmeas_hdl::export::{BlockConfig, Dir, export, has_zero_extension_idiom};
use netmeas_hdl::tools;
use netmeas_sim::counter_bank::{CB_COUNT_BITS, CB_TSUM_BITS, CounterBankConfig};
use netmeas_sim::h3::{H3_KEY_BITS, H3_OUT_BITS, H3Config};

fn lint_dir(name: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn export_and_lint(cfg: BlockConfig) {
    let e = export(&cfg).unwrap();
    assert!(e.verilog.contains(&format!("module {}(", e.top)));
    assert!(!e.verilog.contains("module top"), "top module renamed");
    let files = e.write(&lint_dir(&e.top), netmeas_hdl::export::DEFAULT_CLOCK_MHZ, None).unwrap();
    tools::lint(&files[0], &e.top).unwrap();
}

#[test]
fn every_h3_width_exports_and_a_spread_lints_clean() {
    for &k in H3_KEY_BITS {
        for &o in H3_OUT_BITS {
            let cfg = BlockConfig::new(H3Config {
                key_bits: k,
                out_bits: o,
                seed: (k * 100 + o) as u64,
                ..Default::default()
            });
            let e = export(&cfg).unwrap();
            let key = e.ports.iter().find(|p| p.name == "s_key").unwrap();
            let hash = e.ports.iter().find(|p| p.name == "m_hash").unwrap();
            assert_eq!((key.bits, key.dir, hash.bits, hash.dir), (k, Dir::In, o, Dir::Out));
        }
    }
    for &k in H3_KEY_BITS {
        for (o, registered) in [(1, true), (16, false), (64, true)] {
            export_and_lint(BlockConfig::new(H3Config { key_bits: k, out_bits: o, registered, ..Default::default() }));
        }
    }
    for &o in H3_OUT_BITS {
        export_and_lint(BlockConfig::new(H3Config { key_bits: 128, out_bits: o, ..Default::default() }));
    }
}

#[test]
fn every_counter_bank_width_exports_and_a_spread_lints_clean() {
    for &cw in CB_COUNT_BITS {
        for &tw in CB_TSUM_BITS {
            for a in 1..=16usize {
                let cfg = CounterBankConfig {
                    rows: (1 << a) - (a > 2) as usize,
                    count_bits: cw,
                    tsum_bits: tw,
                    ..Default::default()
                };
                let e = export(&BlockConfig::new(cfg.clone())).unwrap();
                let row = e.ports.iter().find(|p| p.name == "s_upd_row").unwrap();
                let tsum = e.ports.iter().find(|p| p.name == "m_ro_tsum").unwrap();
                assert_eq!((row.bits, tsum.bits), (a, tw));
                if [1, 10, 16].contains(&a) {
                    export_and_lint(BlockConfig::new(cfg));
                }
            }
        }
    }
}

#[test]
fn default_counter_bank_has_the_papers_word_and_documented_ports() {
    let e = export(&BlockConfig::new(CounterBankConfig::default())).unwrap();
    assert_eq!(e.top, "netmeas_counter_bank_r1024_a10_c32_t40");
    let names: Vec<_> = e.ports.iter().map(|p| (p.name.as_str(), p.bits)).collect();
    for want in [
        ("clock", 1),
        ("reset", 1),
        ("s_upd_row", 10),
        ("s_upd_count", 32),
        ("s_upd_tsum", 40),
        ("m_ro_count", 32),
        ("m_ro_tsum", 40),
        ("flip", 1),
        ("flip_ready", 1),
        ("ovf_sticky", 1),
    ] {
        assert!(names.contains(&want), "missing {want:?} in {names:?}");
    }
    // Header carries the full config; memories carry no initial blocks.
    assert!(e.verilog.contains("\"rows\": 1024") && e.verilog.contains("\"tsum_bits\": 40"));
    assert!(e.verilog.contains("(* no_rw_check *)"));
    let json: serde_json::Value = serde_json::from_str(&e.interface_json()).unwrap();
    assert_eq!(json["config"]["count_bits"], 32);
    assert!(e.fusesoc_core(None).contains(&format!("toplevel: {}", e.top)));
}

#[test]
fn configs_with_the_same_widths_get_distinct_top_names() {
    let a = export(&BlockConfig::new(H3Config { seed: 1, ..Default::default() })).unwrap();
    let b = export(&BlockConfig::new(H3Config { seed: 2, ..Default::default() })).unwrap();
    assert_ne!(a.top, b.top);
    let c = export(&BlockConfig::new(H3Config { name: Some("my_hash".into()), ..Default::default() })).unwrap();
    assert_eq!(c.top, "my_hash");
    assert!(c.verilog.contains("module my_hash("));
}

#[test]
fn impossible_configs_are_refused_by_field() {
    let e = export(&BlockConfig::new(CounterBankConfig { rows: 2000, addr_bits: Some(10), ..Default::default() }))
        .unwrap_err();
    assert_eq!(e.field, "rows");
    let e = export(&BlockConfig::new(H3Config { out_bits: 0, ..Default::default() })).unwrap_err();
    assert_eq!(e.field, "out_bits");
    let e = export(&BlockConfig::new(H3Config { key_bits: 129, ..Default::default() })).unwrap_err();
    assert_eq!(e.field, "key_bits");
}

/// The LDA datasheet's register table is the generated register map, and the
/// export writes it as `csr.json`.
#[test]
fn lda_register_map_matches_the_datasheet() {
    use netmeas_sim::lda::{LdaConfig, lda_registers};
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cores/lda.md")).unwrap();
    let cfg = LdaConfig::default();
    for r in lda_registers(&cfg) {
        let row = format!("| `{}` | {} | {} | {} | {} |", r.name, r.addr, r.bits, r.reset, r.doc);
        assert!(doc.contains(&row), "docs/cores/lda.md lacks {row}");
    }
    let e = netmeas_hdl::export::export(&netmeas_hdl::export::BlockConfig::new(cfg)).unwrap();
    let dir = std::env::temp_dir().join(format!("nm_lda_csr_{}", std::process::id()));
    let files = e.write(&dir, netmeas_hdl::export::DEFAULT_CLOCK_MHZ, None).unwrap();
    let csr = files.iter().find(|f| f.to_string_lossy().ends_with(".csr.json")).expect("csr.json written");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(csr).unwrap()).unwrap();
    assert_eq!(v["registers"].as_array().unwrap().len(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every LDA key width and every geometry exports; the corners lint clean.
#[test]
fn every_lda_geometry_exports_and_corners_lint_clean() {
    use netmeas_sim::lda::{LDA_BANKS, LDA_KEY_BITS, LDA_ROWS, LdaConfig};
    for &key_bits in LDA_KEY_BITS {
        let c = LdaConfig { key_bits, ..Default::default() };
        netmeas_hdl::export::export(&BlockConfig::new(c)).unwrap();
    }
    for &banks in LDA_BANKS {
        for &rows in LDA_ROWS {
            let c = LdaConfig {
                banks,
                rows,
                bank_prob_log2: (0..banks as u32).map(|j| 2 * j + 1).collect(),
                ..Default::default()
            };
            netmeas_hdl::export::export(&BlockConfig::new(c)).unwrap();
        }
    }
    for (key_bits, banks, rows, ts_in_ram) in
        [(120, 2, 512, false), (32, 1, 64, false), (128, 4, 2048, false), (104, 3, 256, false), (32, 1, 128, true)]
    {
        let bank_prob_log2 = (0..banks as u32).map(|j| 3 + 4 * j).collect();
        let c = LdaConfig { key_bits, banks, rows, bank_prob_log2, ts_in_ram, ..Default::default() };
        export_and_lint(BlockConfig::new(c));
    }
}

#[test]
fn every_rda_geometry_exports_and_a_spread_lints_clean() {
    use netmeas_sim::rda::{RDA_TSUM_BITS, RdaConfig};
    for banks in 1..=4usize {
        for &tw in RDA_TSUM_BITS {
            let cfg = RdaConfig { banks, tsum_bits: tw, buckets: 100 + banks, ..Default::default() };
            let e = export(&BlockConfig::new(cfg.clone())).unwrap();
            let width = |n: &str| e.ports.iter().find(|p| p.name == n).unwrap().bits;
            assert_eq!((width("m_ro_tsum"), width("m_ro_id"), width("m_ro_row"), width("s_ts")), (tw, 64, 16, 48));
            assert_eq!(e.verilog.matches("localparam [15:0] M = 16'd").count(), banks);
            if (banks == 2 && tw == 48) || (banks == 1 && tw == 32) || (banks == 4 && tw == 64) {
                export_and_lint(BlockConfig::new(cfg));
            }
        }
    }
    export_and_lint(BlockConfig::new(RdaConfig::default()));
}

#[test]
fn every_fridge_address_width_exports_and_a_spread_lints_clean() {
    use netmeas_sim::fridge::FridgeConfig;
    // Σ M_k from 2^1 to 2^17 entries: every entry-address width.
    for a in 1..=17u32 {
        let entries = if a == 17 { vec![1 << 16, 1 << 16] } else { vec![1usize << a] };
        let n = entries.len();
        let cfg = FridgeConfig { entries, entry_prob_log2: vec![-2.0; n], ..Default::default() };
        let e = export(&BlockConfig::new(cfg.clone())).unwrap();
        let width = |n: &str| e.ports.iter().find(|p| p.name == n).unwrap().bits;
        assert_eq!(
            (width("s_id"), width("s_ts"), width("m_smp_delay"), width("m_ro_wsum"), width("csr_rdata")),
            (32, 48, 48, 64, 32)
        );
        assert_eq!(e.ports.iter().filter(|p| p.dir == Dir::Out).count(), 17);
    }
    export_and_lint(BlockConfig::new(FridgeConfig::default()));
    for (entries, p) in [
        (vec![2, 4, 8, 16], vec![0.0, -1.0, -2.0, -3.0]),
        (vec![4096, 1024, 2048], vec![-9.0, -6.0, -3.0]),
        (vec![1 << 15], vec![-10.0]),
    ] {
        export_and_lint(BlockConfig::new(FridgeConfig { entries, entry_prob_log2: p, ..Default::default() }));
    }
}

#[test]
fn expb_exports_at_every_scale_count_and_corners_lint_clean() {
    use netmeas_sim::dbm::ExpbConfig;
    for scales in 1..=16usize {
        let cfg = ExpbConfig { scales, base_ticks: 3, period_ticks: 3 << (scales - 1) };
        let e = export(&BlockConfig::new(cfg)).unwrap();
        let width = |n: &str| e.ports.iter().find(|p| p.name == n).unwrap().bits;
        assert_eq!(
            (width("s_ts"), width("s_len"), width("now"), width("m_ro_sumsq"), width("m_ro_max"), width("m_ro_scale")),
            (48, 32, 48, 104, 48, 4)
        );
        assert_eq!(e.ports.iter().filter(|p| p.dir == Dir::Out).count(), 14);
    }
    // The paper's 11 scales over 2 s, one scale, and all 16 with 2^20 intervals.
    export_and_lint(BlockConfig::new(ExpbConfig::default()));
    export_and_lint(BlockConfig::new(ExpbConfig { scales: 1, base_ticks: 1, period_ticks: 1 }));
    export_and_lint(BlockConfig::new(ExpbConfig { scales: 16, base_ticks: 7, period_ticks: 7 << 20 }));
}

#[test]
fn dbm_exports_at_the_size_corners_lint_clean() {
    use netmeas_sim::dbm::{DbmConfig, MergeRule};
    for buckets in [2, 31, 32, 33, 1000, 1024] {
        let e = export(&BlockConfig::new(DbmConfig { buckets, ..Default::default() })).unwrap();
        let width = |n: &str| e.ports.iter().find(|p| p.name == n).unwrap().bits;
        assert_eq!(
            (
                width("s_ts"),
                width("s_len"),
                width("now"),
                width("m_ro_mass"),
                width("m_ro_first"),
                width("period_merges")
            ),
            (48, 32, 48, 56, 48, 64)
        );
        assert_eq!(e.ports.iter().filter(|p| p.dir == Dir::Out).count(), 19);
        assert!(e.top.starts_with(&format!("netmeas_dbm_m{buckets}_")));
    }
    // The paper's 1000 buckets (1024 here: the radix-32 structure's size), the smallest, and a partial group.
    export_and_lint(BlockConfig::new(DbmConfig::default()));
    export_and_lint(BlockConfig::new(DbmConfig { buckets: 2, period_ticks: 1, ..Default::default() }));
    export_and_lint(BlockConfig::new(DbmConfig {
        buckets: 100,
        period_ticks: (1 << 48) - 1,
        seed: 7,
        ..Default::default()
    }));
    // Base-interval cores: the paper's 1024 buckets by variance and by range at 78.125 µs, the smallest, a
    // partial group; their ports are the per-packet core's, so one reader serves both.
    let per_packet = export(&BlockConfig::new(DbmConfig::default())).unwrap();
    for (buckets, rule, base, period) in [
        (1024, MergeRule::Mv, 78_125, 2_000_000_000),
        (1024, MergeRule::Mr, 78_125, 2_000_000_000),
        (2, MergeRule::Mm, 1, 1),
        (33, MergeRule::Mv, 7, 7 << 20),
    ] {
        let cfg = DbmConfig { buckets, rule, base_ticks: base, period_ticks: period, ..Default::default() };
        let e = export(&BlockConfig::new(cfg.clone())).unwrap();
        assert_eq!(e.ports, per_packet.ports, "{cfg:?}");
        assert!(e.top.starts_with("netmeas_dbm_m"), "{}", e.top);
        export_and_lint(BlockConfig::new(cfg));
    }
    let bad = export(&BlockConfig::new(DbmConfig { base_ticks: 10, period_ticks: 105, ..Default::default() }));
    assert_eq!(bad.unwrap_err().field, "dbm.period_ticks");
}

#[test]
fn every_svbf_build_exports_lints_clean_and_others_are_refused() {
    use netmeas_sim::svbf::{SVBF_RTL_BUILDS, SvbfConfig};
    for &(hashes, partition_log2) in SVBF_RTL_BUILDS {
        let cfg = SvbfConfig { hashes, partition_log2, ..Default::default() };
        let e = export(&BlockConfig::new(cfg.clone())).unwrap();
        let width = |n: &str| e.ports.iter().find(|p| p.name == n).unwrap().bits;
        assert_eq!(
            (width("s_key"), width("s_latency"), width("q_key"), width("r_candidates"), width("m_ro_sum")),
            (64, 32, 64, 64, 48)
        );
        assert_eq!(e.config.registers().len(), 64, "63 boundaries and NBOUNDS");
        if partition_log2 <= 12 || (hashes, partition_log2) == (9, 17) {
            export_and_lint(BlockConfig::new(cfg));
        }
    }
    let err = export(&BlockConfig::new(SvbfConfig { hashes: 5, ..Default::default() })).unwrap_err();
    assert_eq!(err.field, "partition_log2");
    assert!(err.message.contains("h = 9, p = 17"), "{}", err.message);
}

#[test]
fn the_host_link_exports_at_both_baud_rates_lints_clean_and_bad_rates_are_refused() {
    use netmeas_sim::board::link::{BridgeConfig, LinkConfig};
    use netmeas_sim::board::uart::UartConfig;
    for (clock_hz, baud) in [(50_000_000, 3_000_000), (50_000_000, 115_200), (12_000_000, 115_200)] {
        let cfg = LinkConfig { uart: UartConfig { clock_hz, baud }, bridge: BridgeConfig::default() };
        let e = export(&BlockConfig::new(cfg.clone())).unwrap();
        let width = |n: &str| e.ports.iter().find(|p| p.name == n).unwrap().bits;
        assert_eq!(
            (width("rx"), width("tx"), width("bus_addr"), width("bus_wdata"), width("bus_rdata")),
            (1, 1, 16, 32, 32)
        );
        assert!(e.top.starts_with(&format!("netmeas_link_d{}_", cfg.uart.divisor())));
        export_and_lint(BlockConfig::new(cfg));
    }
    let bad = |uart: UartConfig, timeout_clocks: u64| {
        export(&BlockConfig::new(LinkConfig { uart, bridge: BridgeConfig { timeout_clocks } })).unwrap_err().field
    };
    assert_eq!(bad(UartConfig { clock_hz: 25_000_000, baud: 3_000_000 }, 100), "uart.baud");
    assert_eq!(bad(UartConfig::default(), 0), "bridge.timeout_clocks");
}

#[test]
fn zero_extension_idiom_is_recognised_exactly() {
    assert!(has_zero_extension_idiom("a = ((c) & 72'hffffffffffffffffff) | b;"));
    assert!(has_zero_extension_idiom("a = ((c) & 6'h3f);"));
    assert!(!has_zero_extension_idiom("a = ((c) & 72'hfffffffffffffffffe);"));
    assert!(!has_zero_extension_idiom("a = c & 8'hff | d;"));
    assert!(!has_zero_extension_idiom("a = b & c;"));
}
