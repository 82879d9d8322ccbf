use netmeas_hdl::board::traffic_source::*;

#[test]
fn traffic_source_is_synthesizable() {
    netmeas_hdl::export::lint_block(TrafficSource::default(), "traffic_source").unwrap();
}
