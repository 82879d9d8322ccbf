//! How a core sits in a measurement point: which field of the frame
//! parser's record each of its packet inputs takes, which records become
//! packets, and how its epochs are flipped. This is the one piece each
//! core gives ([`crate::registry::CoreSpec::point_binding`]); the rest of
//! the core's ports are wired by name (`docs/cores/point.md`).
//!
//! The record is what the frame parser gives for a frame
//! (`docs/cores/frame-parser.md`): the packet key of LDA §III-C/§V and
//! MAPLE §4, the flow ID of the bandwidth paper's culprits (§3.3), the
//! class byte of the LDA classifier (§V), the fridges' role and match ID
//! (Zheng et al. §2, §6.1).

/// A field of the frame parser's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordField {
    /// Ingress time, ns (64 bits).
    Ts,
    /// Frame length, bytes (16 bits).
    Len,
    /// Packet key {src, dst, sport, dport, proto, IP ID} (120 bits).
    Key,
    /// Flow ID: H3 of the 5-tuple (32 bits).
    Flow,
    /// IPv4 type of service, IPv6 traffic class (8 bits).
    Class,
    /// Fridge role: 0 neither, 1 request, 2 response (2 bits).
    Role,
    /// Fridge match ID (32 bits).
    Match,
}

impl RecordField {
    /// Every field, from the record's most significant end.
    pub const ALL: [RecordField; 7] = [
        RecordField::Ts,
        RecordField::Len,
        RecordField::Key,
        RecordField::Flow,
        RecordField::Class,
        RecordField::Role,
        RecordField::Match,
    ];

    /// Its width in bits.
    pub fn bits(self) -> u32 {
        match self {
            RecordField::Ts => 64,
            RecordField::Len => 16,
            RecordField::Key => 120,
            RecordField::Flow | RecordField::Match => 32,
            RecordField::Class => 8,
            RecordField::Role => 2,
        }
    }

    /// The frame parser's output port that gives it.
    pub fn parser_port(self) -> &'static str {
        match self {
            RecordField::Ts => "m_ts",
            RecordField::Len => "m_len",
            RecordField::Key => "m_key",
            RecordField::Flow => "m_flow",
            RecordField::Class => "m_class",
            RecordField::Role => "m_role",
            RecordField::Match => "m_match",
        }
    }

    /// Its lowest bit in the packed record that crosses the FIFO
    /// ({ts, len, key, flow, class, role, match}, match at bit 0).
    pub fn lsb(self) -> u32 {
        let i = RecordField::ALL.iter().position(|&f| f == self).expect("a field");
        RecordField::ALL[i + 1..].iter().map(|f| f.bits()).sum()
    }
}

/// The packed record's width: 274 bits.
pub const RECORD_BITS: u32 = 274;

/// What a core's packet input takes from the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordSource {
    /// The field's low bits (zero-extended if the port is wider).
    Field(RecordField),
    /// 1 when the fridge role is this value (1 request, 2 response).
    RoleIs(u8),
    /// The packet's identifier: H3 of the 120-bit key to the port's width
    /// (at most 64 bits), as [`netmeas_sim::frame::key_digest`] computes it
    /// (RDA §VIII-A: one ID per packet, equal at both ends).
    KeyDigest,
    /// The ingress time less the first packet's (the point's `TIME_ORIGIN`
    /// status word; 0 before the first packet), in ns, low bits: a core whose periods are counted from
    /// time 0 (EXPB, DBM: period p is [pT, (p+1)T)) starts its first period
    /// at the first packet, whatever the MAC's clock reads.
    TimeSinceFirst,
    /// The frame's one-way delay, given by the integrator's pipeline in
    /// `s_axis_tuser` above the ingress time ([`DELAY_BITS`] bits, read on
    /// the first beat) and carried with the frame's record. MAPLE §2.3: the
    /// latency store builds on any scheme that gives each packet's delay
    /// (a switch subtracting the ingress timestamp it carried with the
    /// packet, or a timestamp the packet's header brought).
    Delay,
}

/// Width of the delay side-band ([`RecordSource::Delay`]).
pub const DELAY_BITS: u32 = 32;

/// A core's place in a measurement point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointBinding {
    /// Each packet input (besides `s_valid`) and what it takes.
    pub packet: Vec<(String, RecordSource)>,
    /// Only records with a fridge role (a request or a response) become
    /// packets; the others are taken from the FIFO and left.
    pub role_only: bool,
    /// The epoch flip: the request input and, if the core has one, the
    /// output that says a request is taken this clock (a request is held
    /// until then; without one it is a one-clock pulse).
    pub flip: Option<(String, Option<String>)>,
    /// The read-out's last-beat output (`m_ro_last`, DBM's `m_ro_end`).
    pub readout_last: String,
    /// An output that changes when a new live epoch (interval, period)
    /// begins (LDA's `epoch`, RDA's `live_epoch`, DBM's `period_index`):
    /// the point marks the epochs a reset of the MAC's side cost records
    /// (`POINT_STATUS`), and the frozen copy of such an epoch.
    pub epoch_marker: String,
    /// The core's time input, if it has one: the point drives it from time
    /// markers that follow the records through the FIFO, so intervals end
    /// while the link is idle.
    pub now: Option<TimeInput>,
    /// The core's query port, if it answers queries (MAPLE §4): the point
    /// gives it a query stream in and an answer stream out.
    pub query: Option<QueryBinding>,
}

/// A core's query port (MAPLE §4: a query names a packet by its hash, the
/// answer is its latency estimate): a query input with a `valid`/`ready`
/// handshake and an answer output of one clock, never held. The point
/// exposes them as `s_axis_query_*` and `m_axis_answer_*`, with an answer
/// FIFO that takes a query only when its answer will find room, so an
/// answer is never lost (`netmeas_point_query`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryBinding {
    /// The query input's `valid`.
    pub valid: String,
    /// The core's `ready` for it.
    pub ready: String,
    /// The query's data inputs: `s_axis_query_tdata` from bit 0, in this order.
    pub inputs: Vec<String>,
    /// The answer's one-clock `valid` output.
    pub answer_valid: String,
    /// The answer's data outputs: `m_axis_answer_tdata` from bit 0, in this order.
    pub answers: Vec<String>,
}

impl QueryBinding {
    /// Whether `port` is one of its ports.
    pub fn names(&self, port: &str) -> bool {
        self.valid == port
            || self.ready == port
            || self.answer_valid == port
            || self.inputs.iter().any(|p| p == port)
            || self.answers.iter().any(|p| p == port)
    }
}

/// A core's time input (`now_valid`, `now`): the current time, which
/// closes the intervals and periods it has passed without a packet (RDA
/// §III-A; Uyeda et al. §3: periods of fixed length). The point gives it
/// the time of the last marker (`docs/cores/point.md`, *Time markers*): a
/// marker never runs ahead of a packet still to come, so a core sees the
/// same intervals as from the packets alone, only sooner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeInput {
    /// The input that says `now` is valid.
    pub valid: String,
    /// The time input.
    pub time: String,
    /// What the marker's time becomes: the same as the packets' timestamp
    /// ([`RecordSource::Field`] of [`RecordField::Ts`] or
    /// [`RecordSource::TimeSinceFirst`]).
    pub source: RecordSource,
}

impl TimeInput {
    /// The usual `now_valid`/`now` pair, in the time base of `source`.
    pub fn now(source: RecordSource) -> Self {
        TimeInput { valid: "now_valid".into(), time: "now".into(), source }
    }
}

impl PointBinding {
    /// Whether a packet input takes [`RecordSource::TimeSinceFirst`]: the
    /// point then keeps the first packet's time (`TIME_ORIGIN`).
    pub fn keeps_time_origin(&self) -> bool {
        self.packet.iter().any(|(_, s)| *s == RecordSource::TimeSinceFirst)
    }

    /// Whether a packet input takes [`RecordSource::Delay`]: the point then
    /// reads it from `s_axis_tuser` and carries it beside the record.
    pub fn takes_delay(&self) -> bool {
        self.packet.iter().any(|(_, s)| *s == RecordSource::Delay)
    }

    /// Bits the record FIFO carries beside the record: the delay, if taken.
    pub fn extra_bits(&self) -> u32 {
        if self.takes_delay() { DELAY_BITS } else { 0 }
    }

    /// The Verilog expression of `src` for a port of `bits` bits, from the
    /// record unpacked into `rec` (the FIFO's output).
    pub fn expression(src: RecordSource, bits: u32, rec: &str) -> String {
        match src {
            RecordSource::Field(f) => {
                let take = bits.min(f.bits());
                let slice = format!("{rec}[{}:{}]", f.lsb() + take - 1, f.lsb());
                if take < bits { format!("{{{}'d0, {slice}}}", bits - take) } else { slice }
            }
            RecordSource::RoleIs(v) => {
                let r = RecordField::Role;
                let e = format!("({rec}[{}:{}] == 2'd{v})", r.lsb() + 1, r.lsb());
                if bits > 1 { format!("{{{}'d0, {e}}}", bits - 1) } else { e }
            }
            RecordSource::Delay => {
                let take = bits.min(DELAY_BITS);
                let slice = format!("{rec}[{}:{RECORD_BITS}]", RECORD_BITS + take - 1);
                if take < bits { format!("{{{}'d0, {slice}}}", bits - take) } else { slice }
            }
            RecordSource::TimeSinceFirst => {
                let take = bits.min(64);
                let slice = format!("ts_since_first[{}:0]", take - 1);
                if take < bits { format!("{{{}'d0, {slice}}}", bits - take) } else { slice }
            }
            RecordSource::KeyDigest => {
                // One XOR tree per bit, most significant first: bit j is the
                // parity of the key under column j of the H3 matrix.
                let k = RecordField::Key;
                let key = format!("{rec}[{}:{}]", k.lsb() + k.bits() - 1, k.lsb());
                let m = netmeas_sim::frame::key_digest_matrix(bits.min(64));
                let trees: Vec<String> =
                    (0..bits.min(64)).rev().map(|j| format!("^({key} & 120'h{:030x})", m.column(j as usize))).collect();
                let pad = if bits > 64 { format!("{}'d0, ", bits - 64) } else { String::new() };
                format!("{{{pad}{}}}", trees.join(",\n        "))
            }
        }
    }
}

/// The binding of a bandwidth core (Uyeda et al. §3.1 DBM, §3.2 EXPB): the
/// frame's length in bytes, its flow ID for the culprits (§3.3), the time
/// since the first packet as its timestamp and as its `now`; no flip
/// (periods close on time), `last` ending a period's read-out, `marker`
/// changing with each new period.
pub fn bandwidth_binding(last: &str, marker: &str) -> PointBinding {
    PointBinding {
        packet: vec![
            ("s_ts".into(), RecordSource::TimeSinceFirst),
            ("s_len".into(), RecordSource::Field(RecordField::Len)),
            ("s_flow".into(), RecordSource::Field(RecordField::Flow)),
        ],
        role_only: false,
        flip: None,
        readout_last: last.into(),
        epoch_marker: marker.into(),
        now: Some(TimeInput::now(RecordSource::TimeSinceFirst)),
        query: None,
    }
}
