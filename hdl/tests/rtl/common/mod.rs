//! The shared building blocks: synthesizable, and the properties of their Verilog.

mod block_ram;
mod clear_sequence;
mod counter_bank;
mod h3;
mod kept_reg;
mod leading_zeros;
mod skid_buffer;
mod sync_ram;
