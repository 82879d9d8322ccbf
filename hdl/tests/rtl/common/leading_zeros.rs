use netmeas_hdl::common::leading_zeros::*;

#[test]
fn leading_zeros_is_synthesizable() {
    netmeas_hdl::export::lint_block(LeadingZeros16::default(), "leading_zeros16").unwrap();
}
