use netmeas_hdl::common::block_ram::BlockRam;
use netmeas_hdl::common::kept_reg::KeptReg;
use netmeas_hdl::common::unused::Unused;
use netmeas_hdl::svbf::answer::*;
use rust_hdl::prelude::*;

/// The unit alone passes `verilator --lint-only -Wall`.
#[test]
fn answer_unit_is_synthesizable() {
    netmeas_hdl::export::lint_block(SvbfAnswer::default(), "svbf_answer").unwrap();
}
