use netmeas_hdl::board::engine_fridge::*;
use netmeas_hdl::board::readout_window::ReadoutWindow;
use netmeas_hdl::common::unused::Unused;
use netmeas_hdl::fridge::FridgeCore;
use netmeas_sim::board::engine::{ENGINE_FRIDGE_ADDR_BITS, FRIDGE_TS_SHIFT, engine_fridge_default};
use netmeas_sim::fridge::{FRIDGE_REG_FLIP, FRIDGE_REG_HIST_POP, FridgeConfig};
use rust_hdl::prelude::*;

/// Both builds lint clean: with the default engine fridge, and tied off.
#[test]
fn engine_fridge_is_synthesizable() {
    // The fridge core's struct holds its whole hierarchy inline: built on a large stack.
    let cfg = engine_fridge_default();
    netmeas_hdl::export::lint_block_built(move || EngineFridge::new(Some(&cfg), 3, 3), "engine_fridge").unwrap();
    netmeas_hdl::export::lint_block_built(|| EngineFridge::new(None, 3, 3), "engine_fridge_off").unwrap();
}
