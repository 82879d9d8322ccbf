//! The measurement engine's board side: the host link's serial line.

pub mod crc16;
pub mod link_top;
pub mod reg_bridge;
pub mod uart_rx;
pub mod uart_tx;
