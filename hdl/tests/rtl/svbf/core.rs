use netmeas_hdl::svbf::core::*;
use netmeas_sim::svbf::SvbfConfig;

/// The core alone passes `verilator --lint-only -Wall` (the exports of
/// every build are linted in `export.rs`).
#[test]
fn core_is_synthesizable() {
    let cfg = SvbfConfig { hashes: 2, partition_log2: 8, ..Default::default() };
    netmeas_hdl::export::lint_block_built(move || SvbfCore::<2, 8, 2, 1>::new(&cfg), "svbf_core_h2_p8").unwrap();
}

/// The reset input feeds only its registered copies (one per partition and six more), each
/// kept apart in synthesis, and the result payload's clear register: no clear in the core or
/// its blocks reads the input itself.
#[test]
fn reset_feeds_only_its_kept_copies() {
    let cfg = SvbfConfig { hashes: 2, partition_log2: 8, ..Default::default() };
    let v = netmeas_hdl::export::generate(SvbfCore::<2, 8, 2, 1>::new(&cfg)).0;
    let top = &v[v.find("module top(").expect("a top module")..];
    let top = &top[..top.find("endmodule").expect("its end")];
    let reads: Vec<&str> = top
        .lines()
        .map(str::trim)
        .filter(|l| l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).any(|t| t == "reset"))
        // The declaration, and the blocks' own ports named `reset` (connected below).
        .filter(|l| !l.starts_with("input wire") && !l.starts_with("module top(") && !l.starts_with(".reset("))
        .collect();
    // The copies, and the payload's clear a clock early (a register's input, no clear).
    assert_eq!(reads.len(), 2 + 6 + 1, "{reads:#?}");
    for l in &reads {
        assert!(
            (l.starts_with("rst_") && l.ends_with("$d = reset;")) || l.starts_with("r_zero$d = "),
            "reset read by `{l}`"
        );
    }
    for (block, copy) in [
        ("parts$0", "rst_part$0"),
        ("parts$1", "rst_part$1"),
        ("centers", "rst_centers"),
        ("ro_skid", "rst_ro"),
        ("ro_port", "rst_ro"),
        ("answer", "rst_answer"),
        ("init", "rst_init"),
    ] {
        assert!(top.contains(&format!("{block}$reset = {copy}$q;")), "{block} reads {copy}");
    }
    // Each copy is a kept register.
    for copy in ["rst_part$0", "rst_part$1", "rst_centers", "rst_answer", "rst_ro", "rst_init", "rst_ins", "rst_query"]
    {
        let m = &v[v.find(&format!("module top${copy}(")).unwrap_or_else(|| panic!("module of {copy}"))..];
        assert!(m[..m.find("endmodule").unwrap()].contains("(* keep *)"), "{copy} is not kept");
    }
}
