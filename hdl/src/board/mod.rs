//! The measurement engine's board side: the host link's serial line and
//! register bridge, the on-chip traffic source, the engine's measurement
//! points (LDA pair, fridge, EXPB, DBM) and the engine top.

pub mod bandwidth_feed;
pub mod crc16;
pub mod engine;
pub mod engine_dbm;
pub mod engine_expb;
pub mod engine_fridge;
pub mod engine_point;
pub mod engine_spec;
pub mod link_spec;
pub mod link_top;
pub mod link_vectors;
pub mod readout_window;
pub mod reg_bridge;
pub mod traffic_source;
pub mod uart_rx;
pub mod uart_tx;
