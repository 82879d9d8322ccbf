//! The measurement engine's board side: the host link's serial line.

pub mod host;
pub mod link;
pub mod uart;
