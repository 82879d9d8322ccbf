//! The measurement point's frame parser, reference model: what one Ethernet
//! frame, as a MAC delivers it, gives the cores. One [`FrameRecord`] per
//! frame it understands (Ethernet II with up to two VLAN tags, IPv4 with
//! options, IPv6 with up to two extension headers that end within the first
//! [`MAX_TRANSPORT_START`] bytes, TCP and UDP), or the
//! [`Unparsed`] reason it gives none; [`ParseCounts`] counts both, the way
//! a tap reports what it skipped.
//!
//! The record carries what the papers assume the data plane has:
//! - the packet key: the invariant header fields (LDA §III-C and §V, MAPLE
//!   §4: "IP addresses, IP id, port numbers"), packed as [`pack_key`];
//! - the frame length and a flow ID for the bandwidth cores' culprits
//!   (Uyeda et al. §3.3);
//! - the class byte for the LDA classifier's mask-and-compare (§V);
//! - for the fridges (Zheng et al. §2, §6.1), whether the packet is a request
//!   or a response and the ID that matches the two.
//!
//! [`pack_key`]: crate::traffic::key::pack_key

pub mod config;
pub mod control;
pub mod corpus;
pub mod cycle;
mod parse;

pub use config::{FrameParserConfig, TimestampSource};
pub use cycle::{FRAME_PARSER_LATENCY, FrameParserCycle, FrameParserInputs, FrameParserOutputs};
pub use parse::{LINK_ETHERNET, LINK_TYPES, parse_captured, parse_frame};

use serde::Serialize;

/// Seed of the H3 matrix of [`FrameRecord::flow`] (104 key bits to 32).
pub const FLOW_HASH_SEED: u64 = 0x666c_6f77_5f69_6431;
/// Seed of the H3 matrix of [`FrameRecord::match_id`] (128 bits to 32).
pub const MATCH_HASH_SEED: u64 = 0x6d61_7463_685f_6964;
/// Seed of the H3 matrix of [`key_digest`] (the 120-bit key to 64 bits).
pub const KEY_DIGEST_SEED: u64 = 0x6b65_795f_6469_6773;

/// The H3 matrix of [`key_digest`]: 120 key bits to `bits` (1..=64); the
/// matrix of fewer bits is the low bits of the 64-bit one.
pub fn key_digest_matrix(bits: u32) -> crate::h3::H3Matrix {
    crate::h3::H3Matrix::generate(KEY_DIGEST_SEED, 120, bits as usize)
}

/// A packet's `bits`-bit identifier in a measurement point: H3
/// ([`KEY_DIGEST_SEED`]) of its 120-bit key (RDA §VIII-A: "a distinct 64-bit
/// identifier for each unique packet", from the fields both ends see alike).
/// The point computes it in one level of XOR trees from the record's key;
/// this is its reference.
pub fn key_digest(key: u128, bits: u32) -> u64 {
    static H: std::sync::OnceLock<crate::h3::H3> = std::sync::OnceLock::new();
    let h = H.get_or_init(|| crate::h3::H3::from_matrix(&key_digest_matrix(64)));
    h.hash(key) & crate::h3::out_mask(bits as usize)
}

/// IPv6 extension headers the parser follows before it gives up
/// ([`Unparsed::Ipv6ExtensionChain`]).
pub const MAX_IPV6_EXTENSIONS: usize = 2;
/// Bytes at the start of a frame the RTL parser holds and parses: every
/// header field it reads lies in them.
pub const PARSE_WINDOW: usize = 128;
/// The latest frame offset at which a transport header may start (its 20
/// bytes must lie in [`PARSE_WINDOW`]): IPv6 extension headers that push it
/// further are a chain longer than the parser follows
/// ([`Unparsed::Ipv6ExtensionChain`]). IPv4 headers, at most 60 bytes after
/// two VLAN tags, end by byte 82.
pub const MAX_TRANSPORT_START: usize = PARSE_WINDOW - 20;
/// VLAN tags (802.1Q or 802.1ad) the parser steps over.
pub const MAX_VLAN_TAGS: usize = 2;

/// A packet's part in a request/response exchange (Zheng et al. §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Neither: no fridge sees it.
    #[default]
    None,
    /// A request: a TCP SYN (awaiting seq + 1), a TCP segment with data or FIN
    /// (awaiting seq + length), a DNS query.
    Request,
    /// A response: a TCP SYN-ACK or pure ACK (its ack number), a DNS response.
    Response,
}

/// What the parser hands the cores for one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FrameRecord {
    /// Ingress time in ns (the MAC's timestamp, or the capture's).
    pub ts_ns: u64,
    /// Bytes of the frame as delivered (no FCS).
    pub len: u32,
    /// 120-bit packet key: source, destination (IPv6: each folded to 32 bits
    /// by XOR of its four words), source port, destination port, protocol
    /// (IPv6: the last next-header), IP ID (IPv6: the 20-bit flow label folded
    /// to 16 bits, low 16 XOR high 4); ports 0 for a non-first fragment or a
    /// protocol without ports.
    pub key: u128,
    /// Flow ID: H3 ([`FLOW_HASH_SEED`]) of the key's 5-tuple (bits 119..16).
    pub flow: u32,
    /// The class byte: IPv4 type of service, IPv6 traffic class.
    pub class: u8,
    /// Request, response or neither (only for unfragmented packets).
    pub role: Role,
    /// H3 ([`MATCH_HASH_SEED`]) of {requester address, responder address,
    /// requester port, responder port, number}, each address as in the key:
    /// a request and its response get the same ID. 0 without a role.
    pub match_id: u32,
}

/// Why a frame gives no record. Every frame without a record is counted
/// under exactly one reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unparsed {
    /// The MAC flagged the frame bad (`tuser`: FCS error, overrun, runt).
    BadFrame,
    /// The frame ends inside the Ethernet, VLAN or IP header, or the IP
    /// packet ends inside an extension or the TCP/UDP header.
    Truncated,
    /// Neither IPv4 nor IPv6 (ARP, LLDP, MPLS, …).
    NotIp,
    /// More than [`MAX_VLAN_TAGS`] VLAN tags.
    TooManyVlanTags,
    /// An IPv4 header with a version other than 4 or a header length below
    /// 5 words; an IPv6 header with a version other than 6.
    BadIpHeader,
    /// The IP length field disagrees with the frame: more bytes than follow,
    /// or (IPv4) fewer than its own header.
    LengthMismatch,
    /// More than [`MAX_IPV6_EXTENSIONS`] IPv6 extension headers, or
    /// extension headers that end beyond [`MAX_TRANSPORT_START`].
    Ipv6ExtensionChain,
    /// A TCP data offset below 5 words, or a UDP length below 8 bytes.
    BadTransportHeader,
}

impl Unparsed {
    /// Every reason, in counter order.
    pub const ALL: [Unparsed; 8] = [
        Unparsed::BadFrame,
        Unparsed::Truncated,
        Unparsed::NotIp,
        Unparsed::TooManyVlanTags,
        Unparsed::BadIpHeader,
        Unparsed::LengthMismatch,
        Unparsed::Ipv6ExtensionChain,
        Unparsed::BadTransportHeader,
    ];

    /// The reason's name as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Unparsed::BadFrame => "bad frame",
            Unparsed::Truncated => "truncated",
            Unparsed::NotIp => "not IP",
            Unparsed::TooManyVlanTags => "too many VLAN tags",
            Unparsed::BadIpHeader => "bad IP header",
            Unparsed::LengthMismatch => "length mismatch",
            Unparsed::Ipv6ExtensionChain => "IPv6 extension chain",
            Unparsed::BadTransportHeader => "bad TCP/UDP header",
        }
    }
}

/// The parser's counters: frames seen, records given, frames without a
/// record by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseCounts {
    /// Frames seen.
    pub frames: u64,
    /// Records given.
    pub records: u64,
    /// Frames without a record, indexed as [`Unparsed::ALL`].
    pub unparsed: [u64; 8],
}

impl ParseCounts {
    /// Counts one frame's outcome and passes it on.
    pub fn count(&mut self, r: Result<FrameRecord, Unparsed>) -> Result<FrameRecord, Unparsed> {
        self.frames += 1;
        match r {
            Ok(_) => self.records += 1,
            Err(why) => self.unparsed[why as usize] += 1,
        }
        r
    }

    /// Frames without a record under `why`.
    pub fn of(&self, why: Unparsed) -> u64 {
        self.unparsed[why as usize]
    }

    /// Frames without a record.
    pub fn skipped(&self) -> u64 {
        self.frames - self.records
    }

    /// One line: `N frames, M records, K skipped (reason n, …)`, the reasons
    /// that occurred only.
    pub fn summary(&self) -> String {
        let reasons: Vec<String> = Unparsed::ALL
            .iter()
            .filter(|&&w| self.of(w) > 0)
            .map(|&w| format!("{} {}", w.name(), self.of(w)))
            .collect();
        let why = if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join(", ")) };
        format!("{} frames, {} records, {} skipped{why}", self.frames, self.records, self.skipped())
    }

    /// As JSON: `{"frames", "records", "skipped": {reason: count, …}}` with every reason.
    pub fn to_json(&self) -> serde_json::Value {
        let skipped: serde_json::Map<String, serde_json::Value> = Unparsed::ALL
            .iter()
            .map(|&w| (serde_json::to_value(w).unwrap().as_str().unwrap().to_string(), self.of(w).into()))
            .collect();
        serde_json::json!({ "frames": self.frames, "records": self.records, "skipped": skipped })
    }
}

#[cfg(test)]
mod tests;
