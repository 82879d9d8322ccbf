//! The frame parser under co-simulation: its runner and its port adapter.

use crate::{FrameParserRtl, Mismatch, differ};
use netmeas_sim::frame::corpus::stimulus;
use netmeas_sim::frame::{FrameParserCycle, FrameParserInputs, FrameParserOutputs, FrameRecord};

/// What a co-simulation of the frame parser went through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameParserStats {
    /// Clocks compared.
    pub cycles: u64,
    /// Frames whose outcome was shown.
    pub frames: u64,
    /// Records among them.
    pub records: u64,
}

/// Runs `cycles` clocks of `M` against the golden per-clock model on the
/// link-shaped stimulus of `seed` ([`stimulus`]), comparing every output on
/// every clock (the record's fields while `m_valid`).
pub fn cosim_frame_parser<M: FrameParserRtl>(seed: u64, cycles: u64) -> Result<FrameParserStats, Mismatch> {
    let cfg = M::config();
    let mut rtl = M::create();
    let mut golden = FrameParserCycle::new(&cfg);
    // The simulation top registers the inputs: its core first sees one all-zero clock.
    golden.step(&FrameParserInputs::default());
    let mut stats = FrameParserStats::default();
    for (cycle, i) in stimulus(cfg.data_bytes(), seed, cycles as usize).iter().enumerate() {
        let cycle = cycle as u64;
        let r = rtl.cycle(i);
        let g = golden.step(i);
        differ(M::NAME, cycle, "m_valid", r.valid, g.valid)?;
        differ(M::NAME, cycle, "stat_valid", r.stat_valid, g.stat_valid)?;
        differ(M::NAME, cycle, "stat_reason", r.stat_reason, g.stat_reason)?;
        differ(M::NAME, cycle, "stat_dropped", r.stat_dropped, g.stat_dropped)?;
        if g.valid {
            differ(M::NAME, cycle, "record", r.record, g.record)?;
        }
        stats.cycles += 1;
        stats.frames += g.stat_valid as u64;
        stats.records += g.valid as u64;
    }
    Ok(stats)
}

/// The record on the output ports.
pub fn record_of(ts: u128, len: u128, key: u128, flow: u128, class: u128, role: u128, match_id: u128) -> FrameRecord {
    use netmeas_sim::frame::Role;
    FrameRecord {
        ts_ns: ts as u64,
        len: len as u32,
        key,
        flow: flow as u32,
        class: class as u8,
        role: match role {
            1 => Role::Request,
            2 => Role::Response,
            _ => Role::None,
        },
        match_id: match_id as u32,
    }
}

/// The outputs as the golden model gives them (`record` only while `m_valid`).
pub fn outputs_of(valid: bool, record: FrameRecord, stat_valid: bool, reason: u8, dropped: bool) -> FrameParserOutputs {
    FrameParserOutputs {
        valid,
        record: valid.then_some(record),
        stat_valid,
        stat_reason: reason,
        stat_dropped: dropped,
    }
}

/// [`crate::CoreRtl`] for a Verilated frame parser (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::frame::FrameParserConfig,
            netmeas_sim::frame::FrameParserInputs,
            netmeas_sim::frame::FrameParserOutputs,
            |i| $tin {
                reset: P::from_u128(i.reset as u128),
                s_axis_tdata: P::from_le_bytes(&i.tdata),
                s_axis_tkeep: P::from_u128(i.tkeep as u128),
                s_axis_tvalid: P::from_u128(i.tvalid as u128),
                s_axis_tlast: P::from_u128(i.tlast as u128),
                s_axis_tuser: P::from_u128((i.tuser_ts as u128) << 1 | i.bad as u128),
                time_ns: P::from_u128(i.time_ns as u128),
                m_ready: P::from_u128(i.m_ready as u128),
            },
            |o| $crate::frame_parser::outputs_of(
                o.m_valid.to_u128() != 0,
                $crate::frame_parser::record_of(
                    o.m_ts.to_u128(),
                    o.m_len.to_u128(),
                    o.m_key.to_u128(),
                    o.m_flow.to_u128(),
                    o.m_class.to_u128(),
                    o.m_role.to_u128(),
                    o.m_match.to_u128(),
                ),
                o.stat_valid.to_u128() != 0,
                o.stat_reason.to_u128() as u8,
                o.stat_dropped.to_u128() != 0,
            )
        );
    };
}
pub(crate) use core_rtl;
