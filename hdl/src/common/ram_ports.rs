//! What the two custom-Verilog RAMs, [`BlockRam`](super::block_ram::BlockRam)
//! and [`SyncRam`](super::sync_ram::SyncRam), share: the timing declaration
//! of their two ports and the Verilog that waives the address bits a
//! shallow memory does not use.

use rust_hdl::prelude::*;

/// The timing of a RAM's read port (`read_address` → `read_data`) and write
/// port (`write_address`, `write_data`, `write_enable`), both on `clock`.
pub fn ram_port_timing() -> Vec<TimingInfo> {
    vec![
        TimingInfo {
            name: "ram_read".into(),
            clock: "clock".into(),
            inputs: vec!["read_address".into()],
            outputs: vec!["read_data".into()],
        },
        TimingInfo {
            name: "ram_write".into(),
            clock: "clock".into(),
            inputs: vec!["write_address".into(), "write_data".into(), "write_enable".into()],
            outputs: vec![],
        },
    ]
}

/// Verilog that reads the address bits `[a-1:hi]` of both ports into an
/// unused wire (they are zero in a `depth`-word memory), with the lint
/// waiver and a comment that says so; `note` ends the comment's sentence.
pub fn unused_high_address(depth: usize, a: usize, hi: usize, note: &str) -> String {
    format!(
        "// Addresses are below {depth}: bits [{m}:{hi}] are zero{note}.\n\
         /* verilator lint_off UNUSEDSIGNAL */\n\
         wire unused_high_address = |{{read_address[{m}:{hi}], write_address[{m}:{hi}]}};\n\
         /* verilator lint_on UNUSEDSIGNAL */\n",
        m = a - 1
    )
}
