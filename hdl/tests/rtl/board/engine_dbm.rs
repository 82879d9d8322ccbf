use netmeas_hdl::board::engine_dbm::*;
use netmeas_sim::board::engine::engine_dbm_default;

/// Both builds lint clean: with the default engine DBM, and tied off.
#[test]
fn engine_dbm_is_synthesizable() {
    let cfg = engine_dbm_default();
    netmeas_hdl::export::lint_block(EngineDbm::new(Some(&cfg), 5), "engine_dbm").unwrap();
    netmeas_hdl::export::lint_block(EngineDbm::new(None, 5), "engine_dbm_off").unwrap();
}
