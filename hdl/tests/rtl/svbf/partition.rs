use netmeas_hdl::svbf::partition::*;

/// The partition alone passes `verilator --lint-only -Wall`.
#[test]
fn partition_is_synthesizable() {
    netmeas_hdl::export::lint_block(SvbfPartition::<10, 4, 3>::default(), "svbf_partition_p10").unwrap();
    netmeas_hdl::export::lint_block(SvbfPartition::<8, 2, 1>::default(), "svbf_partition_p8").unwrap();
}
