use crate::formal::{self, Status};
use netmeas_hdl::export::{BlockConfig, export};
use netmeas_sim::counter_bank::CounterBankConfig;

/// The proofs of `hdl/src/common/counter_bank.sby` on a 2-row bank: every row
/// read out equals the shadow of its epoch's updates, the read-out keeps the
/// stream rule, `s_upd_ready` drops only for a reset, and a non-empty
/// read-out is reached. Disabling one forwarding path (distance 1 at the s3
/// mux, or distance 2 at the s2 select) or moving the flip one stage (a drain
/// one clock short) must break the first.
#[test]
fn counter_bank_proofs_hold_and_fail_without_a_forwarding_path() {
    let cfg = CounterBankConfig { rows: 2, count_bits: 16, tsum_bits: 32, ..Default::default() };
    let e = export(&BlockConfig::new(cfg)).unwrap();
    let prove = |name: &str, verilog: &str, task: &str| {
        let dir = formal::proof_dir(name);
        formal::write_dut(&dir, verilog, &e.top);
        formal::copy_source(&dir, "common/counter_bank.sby");
        formal::copy_source(&dir, "common/counter_bank_formal.sv");
        formal::run(&dir, "counter_bank.sby", task).0
    };
    assert_eq!(prove("counter_bank", &e.verilog, "bmc"), Status::Pass);
    assert_eq!(prove("counter_bank_cover", &e.verilog, "cover"), Status::Pass);
    for (what, from, to) in [
        ("distance 1", "alu_fwd = s3_fwd1$q;", "alu_fwd = 1'b0;"),
        ("distance 2", "s2_hit2$d = hit2;", "s2_hit2$d = 1'b0;"),
        // The flip moved one stage: the frozen copy is read out one clock
        // before the old epoch's last write lands.
        ("drain one stage short", "localparam  drain_last = 3'b101;", "localparam  drain_last = 3'b100;"),
    ] {
        assert!(e.verilog.contains(from), "{what}: `{from}` is not in the export");
        let mutant = e.verilog.replacen(from, to, 1);
        assert_eq!(prove(&format!("counter_bank_{}", what.replace(' ', "_")), &mutant, "bmc"), Status::Fail, "{what}");
    }
}
