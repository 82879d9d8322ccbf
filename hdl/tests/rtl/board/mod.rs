//! The board engine's blocks: synthesizable, and in rust-hdl's own simulator equal to their per-clock models.

mod bandwidth_feed;
mod crc16;
mod engine;
mod engine_dbm;
mod engine_expb;
mod engine_fridge;
mod engine_point;
mod link_top;
mod readout_window;
mod reg_bridge;
mod traffic_source;
mod uart_rx;
mod uart_tx;
