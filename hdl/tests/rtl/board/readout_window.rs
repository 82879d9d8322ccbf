use netmeas_hdl::board::readout_window::*;

#[test]
fn readout_window_is_synthesizable() {
    netmeas_hdl::export::lint_block(ReadoutWindow::<10>::new(1), "readout_window").unwrap();
}
