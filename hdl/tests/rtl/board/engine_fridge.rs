use netmeas_hdl::board::engine_fridge::*;
use netmeas_sim::board::engine::engine_fridge_default;

/// Both builds lint clean: with the default engine fridge, and tied off.
#[test]
fn engine_fridge_is_synthesizable() {
    // The fridge core's struct holds its whole hierarchy inline: built on a large stack.
    let cfg = engine_fridge_default();
    netmeas_hdl::export::lint_block_built(move || EngineFridge::new(Some(&cfg), 3, 3), "engine_fridge").unwrap();
    netmeas_hdl::export::lint_block_built(|| EngineFridge::new(None, 3, 3), "engine_fridge_off").unwrap();
}
