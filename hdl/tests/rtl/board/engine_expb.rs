use netmeas_hdl::board::engine_expb::*;
use netmeas_sim::board::engine::engine_expb_default;

/// Both builds lint clean: with the default engine EXPB, and tied off.
#[test]
fn engine_expb_is_synthesizable() {
    let cfg = engine_expb_default();
    netmeas_hdl::export::lint_block(EngineExpb::new(Some(&cfg), 4), "engine_expb").unwrap();
    netmeas_hdl::export::lint_block(EngineExpb::new(None, 4), "engine_expb_off").unwrap();
}
