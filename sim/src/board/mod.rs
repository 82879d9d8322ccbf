//! The measurement engine's board side: the host link's serial line, the
//! engine's register map and on-chip traffic source, and the host reader.

pub mod engine;
pub mod host;
pub mod link;
pub mod reader;
pub mod source;
pub mod uart;
