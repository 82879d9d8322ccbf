//! FuseSoC core files (`netmeas_hdl::fusesoc`).

use netmeas_hdl::fusesoc::{CoreFile, TestbenchFiles};

#[test]
fn a_core_file_has_its_targets_and_testbench() {
    let mut c = CoreFile {
        name: "netmeas:blocks:t:0.1.0".into(),
        description: "d".into(),
        files: vec!["a.v".into(), "t.v".into()],
        top: "t".into(),
        ecp5_doc: "e".into(),
        ice40: false,
        testbench: None,
    };
    let y: serde_yaml_ng::Value = serde_yaml_ng::from_str(c.yaml().trim_start_matches("CAPI=2:\n")).unwrap();
    assert_eq!(y["filesets"]["rtl"]["files"][1], "t.v");
    assert_eq!(y["targets"]["lint"]["tools"]["verilator"]["verilator_options"][0], "-Wall");
    assert!(y["targets"].get("synth_ice40").is_none() && y["targets"].get("sim").is_none());
    c.ice40 = true;
    c.testbench = Some(TestbenchFiles { top: "t_tb".into(), verilog: "t_tb.v".into(), data: "t_tb.hex".into() });
    let y: serde_yaml_ng::Value = serde_yaml_ng::from_str(c.yaml().trim_start_matches("CAPI=2:\n")).unwrap();
    assert_eq!(y["targets"]["synth_ice40"]["tools"]["yosys"]["arch"], "ice40");
    assert_eq!(y["targets"]["sim"]["toplevel"], "t_tb");
    assert_eq!(y["filesets"]["tb"]["files"][1]["t_tb.hex"]["copyto"], "t_tb.hex");
}
