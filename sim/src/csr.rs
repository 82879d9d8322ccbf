//! Register descriptors: the one source of a core's register map, from which
//! `csr.json`, the datasheet tables and the host's register writes are made.

use serde::Serialize;

/// One register of a core's CSR write port (word addresses).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegisterDesc {
    /// Register name.
    pub name: String,
    /// Word address on `csr_addr`.
    pub addr: u32,
    /// Bits used, from bit 0.
    pub bits: u32,
    /// Value after reset.
    pub reset: u64,
    /// What it does.
    pub doc: String,
}
