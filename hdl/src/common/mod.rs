//! Building blocks shared by every core.

pub mod bandwidth_vectors;
pub mod block_ram;
pub mod clear_sequence;
pub mod counter_bank;
pub mod counter_bank_spec;
pub mod counter_bank_vectors;
pub mod h3;
pub mod h3_spec;
pub mod h3_vectors;
pub mod index_bits;
pub mod kept_reg;
pub mod leading_zeros;
pub mod ram_ports;
pub mod rmw_bank;
pub mod skid_buffer;
pub mod sync_ram;
pub mod unused;
