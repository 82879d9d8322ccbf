//! The frame parser's Verilog: the localparams of one configuration in front
//! of the hand-written body (`frame_parser_body.v`).

use netmeas_sim::frame::{FLOW_HASH_SEED, FrameParserConfig, MATCH_HASH_SEED, TimestampSource};
use netmeas_sim::h3::H3Matrix;
use std::fmt::Write as _;

/// The body's text.
pub const BODY: &str = include_str!("frame_parser_body.v");

/// The H3 columns of `seed` (`key_bits` to 32) as one packed localparam, column j at bits `key_bits * j`.
fn columns(name: &str, seed: u64, key_bits: usize) -> String {
    let m = H3Matrix::generate(seed, key_bits, 32);
    let digits = key_bits.div_ceil(4);
    let cols: Vec<String> = (0..32).rev().map(|j| format!("{key_bits}'h{:0digits$x}", m.column(j))).collect();
    format!("localparam [{}:0] {name} = {{\n    {}\n}};\n", 32 * key_bits - 1, cols.join(",\n    "))
}

/// The module body of `cfg` (validated): localparams, then [`BODY`].
pub fn body(cfg: &FrameParserConfig) -> String {
    let (db, kb) = (cfg.data_bits, cfg.data_bytes());
    let slots = 1024 / db;
    let mut v = String::new();
    writeln!(v, "localparam integer DB = {db};").unwrap();
    writeln!(v, "localparam integer KB = {kb};").unwrap();
    writeln!(v, "localparam integer SLOTS = {slots};").unwrap();
    writeln!(v, "localparam [7:0] KB8 = 8'd{kb};").unwrap();
    writeln!(v, "localparam [7:0] SLOTS8 = 8'd{slots};").unwrap();
    let tuser = (cfg.timestamp == TimestampSource::Tuser) as u8;
    writeln!(v, "localparam TS_TUSER = 1'b{tuser};").unwrap();
    writeln!(v, "// H3 flow ID columns, seed 0x{FLOW_HASH_SEED:016x} (104 key bits to 32).").unwrap();
    v.push_str(&columns("FLOW_Q", FLOW_HASH_SEED, 104));
    writeln!(v, "// H3 match ID columns, seed 0x{MATCH_HASH_SEED:016x} (128 bits to 32).").unwrap();
    v.push_str(&columns("MATCH_Q", MATCH_HASH_SEED, 128));
    v.push('\n');
    v.push_str(BODY);
    v
}
