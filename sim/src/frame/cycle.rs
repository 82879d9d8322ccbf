//! The frame parser's golden per-clock model: what the RTL parser
//! (`hdl/src/frame/`) shows on its ports each clock for the AXI4-Stream
//! beats it is given. Each frame's outcome is [`parse_frame`]'s, shown
//! [`FRAME_PARSER_LATENCY`] clocks after its last beat.

use super::config::{FrameParserConfig, TimestampSource};
use super::{FrameRecord, Role, Unparsed, parse_frame};
use std::collections::VecDeque;

/// Clocks from a frame's last beat to its record (or its status) on the ports.
pub const FRAME_PARSER_LATENCY: u64 = 13;
/// Longest frame the parser measures, in bytes: a longer one is a bad frame
/// (its 16-bit length would wrap).
pub const MAX_FRAME_BYTES: usize = 65_535;

/// Most bytes a beat carries (512-bit data).
pub const MAX_LANES: usize = 64;

/// The `tkeep` of `n` bytes (lanes 0..n-1), n up to [`MAX_LANES`].
pub fn lanes_mask(n: usize) -> u64 {
    if n == MAX_LANES { u64::MAX } else { (1u64 << n) - 1 }
}

/// One clock's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameParserInputs {
    /// Synchronous reset: abandons the frame in progress and every outcome
    /// not yet shown.
    pub reset: bool,
    /// `s_axis_tvalid`.
    pub tvalid: bool,
    /// `s_axis_tdata`, lane 0 first (the lanes past the width are not read).
    pub tdata: [u8; MAX_LANES],
    /// `s_axis_tkeep`, bit i for lane i.
    pub tkeep: u64,
    /// `s_axis_tlast`.
    pub tlast: bool,
    /// `s_axis_tuser[0]`: the MAC's bad-frame flag, read on the last beat.
    pub bad: bool,
    /// `s_axis_tuser[64:1]`: the MAC's timestamp, read on the first beat.
    pub tuser_ts: u64,
    /// `time_ns`: the free-running time, read on the first beat.
    pub time_ns: u64,
    /// `m_ready`: the consumer takes the record shown this clock.
    pub m_ready: bool,
}

impl Default for FrameParserInputs {
    fn default() -> Self {
        Self {
            reset: false,
            tvalid: false,
            tdata: [0; MAX_LANES],
            tkeep: 0,
            tlast: false,
            bad: false,
            tuser_ts: 0,
            time_ns: 0,
            m_ready: false,
        }
    }
}

/// One clock's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameParserOutputs {
    /// `m_valid`: a record is shown.
    pub valid: bool,
    /// The record (meaningful with `valid`).
    pub record: Option<FrameRecord>,
    /// `stat_valid`: a frame's outcome is shown (with or without a record).
    pub stat_valid: bool,
    /// `stat_reason`: 0 with a record, 1 + the [`Unparsed`] index without.
    pub stat_reason: u8,
    /// `stat_dropped`: a record is shown and `m_ready` is low: it is lost.
    pub stat_dropped: bool,
}

impl FrameParserOutputs {
    /// `m_role` as the port carries it: 0 none, 1 request, 2 response.
    pub fn role_code(r: &FrameRecord) -> u8 {
        match r.role {
            Role::None => 0,
            Role::Request => 1,
            Role::Response => 2,
        }
    }
}

/// The per-clock model of one frame parser.
#[derive(Clone, Debug)]
pub struct FrameParserCycle {
    lanes: usize,
    timestamp: TimestampSource,
    clock: u64,
    in_frame: bool,
    bytes: Vec<u8>,
    len: usize,
    broken: bool,
    ts: u64,
    due: VecDeque<(u64, Result<FrameRecord, Unparsed>)>,
}

impl FrameParserCycle {
    /// The model of `cfg` at power-up: no frame in progress, nothing due.
    pub fn new(cfg: &FrameParserConfig) -> Self {
        Self {
            lanes: cfg.data_bytes(),
            timestamp: cfg.timestamp,
            clock: 0,
            in_frame: false,
            bytes: Vec::new(),
            len: 0,
            broken: false,
            ts: 0,
            due: VecDeque::new(),
        }
    }

    /// Whether `keep` is legal on a beat: every lane of a beat before the
    /// last, lanes 0..n (n ≥ 1) on the last.
    pub fn keep_ok(keep: u64, lanes: usize, last: bool) -> bool {
        let all = lanes_mask(lanes);
        if last { keep != 0 && keep & !all == 0 && keep & keep.wrapping_add(1) == 0 } else { keep == all }
    }

    /// One clock: the outputs seen during it, then the clock edge.
    pub fn step(&mut self, i: &FrameParserInputs) -> FrameParserOutputs {
        let o = self.shown(i.m_ready);
        self.edge(i);
        o
    }

    /// The outputs seen during the current clock (before its edge), with
    /// `m_ready` as given.
    pub fn shown(&self, m_ready: bool) -> FrameParserOutputs {
        let mut o = FrameParserOutputs::default();
        if let Some(&(at, r)) = self.due.front()
            && at == self.clock
        {
            o.stat_valid = true;
            match r {
                Ok(rec) => {
                    (o.valid, o.record) = (true, Some(rec));
                    o.stat_dropped = !m_ready;
                }
                Err(why) => o.stat_reason = 1 + why as u8,
            }
        }
        o
    }

    /// The clock edge at the end of the current clock, whose inputs are `i`.
    pub fn edge(&mut self, i: &FrameParserInputs) {
        if self.due.front().is_some_and(|&(at, _)| at == self.clock) {
            self.due.pop_front();
        }
        if i.reset {
            self.in_frame = false;
            self.due.clear();
        } else if i.tvalid {
            if !self.in_frame {
                self.bytes.clear();
                (self.len, self.broken) = (0, false);
                self.ts = match self.timestamp {
                    TimestampSource::Tuser => i.tuser_ts,
                    TimestampSource::TimeInput => i.time_ns,
                };
            }
            let ok = Self::keep_ok(i.tkeep, self.lanes, i.tlast);
            self.broken |= !ok;
            let n = if ok { i.tkeep.count_ones() as usize } else { 0 };
            let room = (MAX_FRAME_BYTES + 1).saturating_sub(self.bytes.len());
            self.bytes.extend_from_slice(&i.tdata[..n.min(room)]);
            self.len += n;
            if i.tlast {
                let r = if self.broken || i.bad || self.len > MAX_FRAME_BYTES {
                    Err(Unparsed::BadFrame)
                } else {
                    parse_frame(self.ts, &self.bytes, false)
                };
                self.due.push_back((self.clock + FRAME_PARSER_LATENCY, r));
            }
            self.in_frame = !i.tlast;
        }
        self.clock += 1;
    }
}
