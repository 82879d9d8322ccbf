//! The frame parser's shipped-testbench vectors (`docs/cores/frame-parser.md`):
//! [`netmeas_sim::frame::corpus::stimulus`] (link-shaped traffic with every
//! header variant and every reason a frame gives no record, random `tkeep`
//! tails, idle clocks, byte-rule breaks, `m_ready` low now and then, two
//! resets) answered by the golden per-clock model [`FrameParserCycle`].

use crate::shipped_testbench::{Tally, VectorCycle, Vectors};
use netmeas_sim::frame::corpus::stimulus;
use netmeas_sim::frame::{FrameParserConfig, FrameParserCycle, FrameParserOutputs, Role, Unparsed};

/// Clocks of the vectors by default.
pub const CYCLES: usize = 20_000;

/// The vectors of `cfg`, `cycles` clocks long (by default [`CYCLES`]).
pub fn frame_parser_vectors(cfg: &FrameParserConfig, seed: u64, cycles: Option<usize>) -> Vectors {
    let n = cycles.unwrap_or(CYCLES);
    let mut golden = FrameParserCycle::new(cfg);
    let mut tally = Tally::default();
    let mut out = Vec::with_capacity(n);
    for i in stimulus(cfg.data_bytes(), seed, n) {
        let o = golden.step(&i);
        tally.count("resets", i.reset);
        tally.count("records", o.valid);
        tally.count("records dropped", o.stat_dropped);
        let r = o.record;
        tally.count("requests", r.is_some_and(|r| r.role == Role::Request));
        tally.count("responses", r.is_some_and(|r| r.role == Role::Response));
        for why in Unparsed::ALL {
            tally.count(why.name(), o.stat_reason == 1 + why as u8);
        }
        let mut c = VectorCycle::default();
        let user = (i.tuser_ts as u128) << 1 | i.bad as u128;
        c.input("reset", i.reset)
            .input_bytes("s_axis_tdata", &i.tdata[..cfg.data_bytes()])
            .input("s_axis_tkeep", i.tkeep)
            .input("s_axis_tvalid", i.tvalid)
            .input("s_axis_tlast", i.tlast)
            .input("s_axis_tuser", user)
            .input("time_ns", i.time_ns)
            .input("m_ready", i.m_ready);
        let rec = r.unwrap_or(netmeas_sim::frame::FrameRecord {
            ts_ns: 0,
            len: 0,
            key: 0,
            flow: 0,
            class: 0,
            role: Role::None,
            match_id: 0,
        });
        c.output("s_axis_tready", true)
            .output("m_valid", o.valid)
            .output_when("m_ts", o.valid, rec.ts_ns)
            .output_when("m_len", o.valid, rec.len)
            .output_when("m_key", o.valid, rec.key)
            .output_when("m_flow", o.valid, rec.flow)
            .output_when("m_class", o.valid, rec.class)
            .output_when("m_role", o.valid, FrameParserOutputs::role_code(&rec))
            .output_when("m_match", o.valid, rec.match_id)
            .output("stat_valid", o.stat_valid)
            .output("stat_reason", o.stat_reason)
            .output("stat_dropped", o.stat_dropped);
        out.push(c);
    }
    tally.into_vectors(out)
}
