//! The measurement engine's board side: the host link's serial line.

pub mod uart;
