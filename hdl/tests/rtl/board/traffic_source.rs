use netmeas_hdl::board::traffic_source::*;
use netmeas_hdl::common::sync_ram::SyncRam;
use netmeas_sim::board::source::source_prng_states;
use rust_hdl::prelude::*;

#[test]
fn traffic_source_is_synthesizable() {
    netmeas_hdl::export::lint_block(TrafficSource::default(), "traffic_source").unwrap();
}
