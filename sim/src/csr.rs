//! Register descriptors: the one source of a core's register map, from which
//! `csr.json`, the datasheet tables and the host's register writes are made.

use serde::Serialize;

/// How the host may use a register: what a bus slave in front of the
/// core's CSR port does with a read or a write of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Configuration: the host writes it, the core holds it, a read gives
    /// back the value written (the bus slave keeps a copy).
    Rw,
    /// A command: any write acts (`csr_we` with the data), nothing is held;
    /// a read gives 0.
    Wo,
    /// Status the core shows on its read port (`csr_re`, `csr_rdata` one
    /// clock later); a write is refused.
    Ro,
}

/// One register of a core's CSR port (word addresses).
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
    /// Read, write or both.
    pub access: Access,
    /// What it does.
    pub doc: String,
}
