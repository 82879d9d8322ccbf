use netmeas_hdl::svbf::answer::*;

/// The unit alone passes `verilator --lint-only -Wall`.
#[test]
fn answer_unit_is_synthesizable() {
    netmeas_hdl::export::lint_block(SvbfAnswer::default(), "svbf_answer").unwrap();
}
