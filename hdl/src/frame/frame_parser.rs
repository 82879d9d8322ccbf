//! The measurement point's frame parser: raw Ethernet frames, as a MAC
//! delivers them on AXI4-Stream, to one record per frame with what the
//! cores need (the packet key of LDA §III-C/§V and MAPLE §4, the frame
//! length, the flow ID for DBM/EXPB culprits, the class byte, the fridge's
//! role and match ID of Zheng et al. §2), or the reason it gives none.
//! The reference is [`netmeas_sim::frame::parse_frame`]; the per-clock
//! model [`FrameParserCycle`] shows its outcomes on the ports.
//!
//! It takes one beat every clock and never back-pressures the MAC
//! (`s_axis_tready` is always high): a tap must not slow the link. A record
//! the consumer does not take (`m_ready` low while `m_valid`) is lost and
//! flagged on `stat_dropped`; every frame's outcome is on `stat_valid` /
//! `stat_reason` for the counters.
//!
//! The Verilog is the hand-written body `frame_parser_body.v` behind the
//! configuration's localparams ([`super::verilog::body`]); inside rust-hdl
//! the block simulates as its per-clock model.

use super::verilog;
use netmeas_sim::frame::cycle::MAX_LANES;
use netmeas_sim::frame::{FrameParserConfig, FrameParserCycle, FrameParserInputs, FrameParserOutputs};
use rust_hdl::prelude::*;

/// The frame parser for `s_axis_tdata` of `DB` bits and `s_axis_tkeep` of `KB` bits.
#[derive(LogicBlock)]
pub struct FrameParser<const DB: usize, const KB: usize> {
    // --- clock and synchronous reset ---
    /// Clock (the MAC's).
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the frame in progress and every outcome not yet shown are abandoned.
    pub reset: Signal<In, Bit>,
    // --- frames in (AXI4-Stream from the MAC) ---
    /// Frame bytes, lane 0 (bits 7..0) first.
    pub s_axis_tdata: Signal<In, Bits<DB>>,
    /// Lanes holding bytes: all on every beat but the last, lanes 0..n-1 on the last.
    pub s_axis_tkeep: Signal<In, Bits<KB>>,
    /// A beat is presented.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Always high: the parser takes a beat every clock.
    pub s_axis_tready: Signal<Out, Bit>,
    /// The frame's last beat.
    pub s_axis_tlast: Signal<In, Bit>,
    /// Bit 0: the MAC's bad-frame flag (read on the last beat); bits 64..1: the
    /// MAC's ingress timestamp in ns (read on the first beat).
    pub s_axis_tuser: Signal<In, Bits<65>>,
    /// Free-running time in ns, read on the first beat when the config takes it.
    pub time_ns: Signal<In, Bits<64>>,
    // --- records out: one clock each, never held ---
    /// A record is shown this clock.
    pub m_valid: Signal<Out, Bit>,
    /// The consumer takes it; low while `m_valid` loses it (`stat_dropped`).
    pub m_ready: Signal<In, Bit>,
    /// Ingress time of the frame, ns.
    pub m_ts: Signal<Out, Bits<64>>,
    /// Frame length in bytes (no FCS).
    pub m_len: Signal<Out, Bits<16>>,
    /// 120-bit packet key {src, dst, sport, dport, proto, IP ID}.
    pub m_key: Signal<Out, Bits<120>>,
    /// Flow ID: H3 of the 5-tuple.
    pub m_flow: Signal<Out, Bits<32>>,
    /// IPv4 type of service or IPv6 traffic class.
    pub m_class: Signal<Out, Bits<8>>,
    /// 0 neither, 1 request, 2 response.
    pub m_role: Signal<Out, Bits<2>>,
    /// Match ID shared by a request and its response (0 without a role).
    pub m_match: Signal<Out, Bits<32>>,
    // --- outcome of every frame, for the counters ---
    /// A frame's outcome is shown this clock.
    pub stat_valid: Signal<Out, Bit>,
    /// 0: a record; 1 + reason (as `Unparsed`) otherwise.
    pub stat_reason: Signal<Out, Bits<4>>,
    /// The record shown is lost: `m_ready` is low.
    pub stat_dropped: Signal<Out, Bit>,
    _cfg: FrameParserConfig,
    _model: FrameParserCycle,
}

impl<const DB: usize, const KB: usize> FrameParser<DB, KB> {
    /// The parser of `cfg` (whose width must be `DB`).
    pub fn new(cfg: &FrameParserConfig) -> Self {
        assert_eq!((cfg.data_bits, cfg.data_bytes()), (DB, KB), "frame parser widths differ from the config");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tlast: Default::default(),
            s_axis_tuser: Default::default(),
            time_ns: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_ts: Default::default(),
            m_len: Default::default(),
            m_key: Default::default(),
            m_flow: Default::default(),
            m_class: Default::default(),
            m_role: Default::default(),
            m_match: Default::default(),
            stat_valid: Default::default(),
            stat_reason: Default::default(),
            stat_dropped: Default::default(),
            _cfg: cfg.clone(),
            _model: FrameParserCycle::new(cfg),
        }
    }
}

/// Bits<N> → u128 (its low 128 bits).
fn low_u128<const N: usize>(b: Bits<N>) -> u128 {
    (0..N.min(128)).filter(|&i| b.get_bit(i)).fold(0u128, |v, i| v | 1 << i)
}

impl<const DB: usize, const KB: usize> Logic for FrameParser<DB, KB> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let data = self.s_axis_tdata.val();
            let user = self.s_axis_tuser.val();
            let mut tdata = [0u8; MAX_LANES];
            for (k, b) in tdata.iter_mut().take(KB).enumerate() {
                *b = data.get_bits::<8>(8 * k).index() as u8;
            }
            let i = FrameParserInputs {
                reset: self.reset.val(),
                tvalid: self.s_axis_tvalid.val(),
                tdata,
                tkeep: low_u128(self.s_axis_tkeep.val()) as u64,
                tlast: self.s_axis_tlast.val(),
                bad: user.get_bit(0),
                tuser_ts: (low_u128(user) >> 1) as u64,
                time_ns: low_u128(self.time_ns.val()) as u64,
                m_ready: self.m_ready.val(),
            };
            self._model.edge(&i);
        }
        let o: FrameParserOutputs = self._model.shown(self.m_ready.val());
        self.s_axis_tready.next = true;
        self.m_valid.next = o.valid;
        self.stat_valid.next = o.stat_valid;
        self.stat_reason.next = (o.stat_reason as u64).into();
        self.stat_dropped.next = o.stat_dropped;
        if let Some(r) = o.record {
            self.m_ts.next = r.ts_ns.into();
            self.m_len.next = (r.len as u64).into();
            self.m_key.next = r.key.to_bits();
            self.m_flow.next = (r.flow as u64).into();
            self.m_class.next = (r.class as u64).into();
            self.m_role.next = (FrameParserOutputs::role_code(&r) as u64).into();
            self.m_match.next = (r.match_id as u64).into();
        }
    }

    fn connect(&mut self) {
        self.s_axis_tready.connect();
        self.m_valid.connect();
        self.m_ts.connect();
        self.m_len.connect();
        self.m_key.connect();
        self.m_flow.connect();
        self.m_class.connect();
        self.m_role.connect();
        self.m_match.connect();
        self.stat_valid.connect();
        self.stat_reason.connect();
        self.stat_dropped.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog::body(&self._cfg))
    }
}
