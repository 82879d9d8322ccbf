//! The frame parser's reference: one Ethernet frame to one [`FrameRecord`]
//! or the [`Unparsed`] reason (see the module documentation for the fields).

use super::{
    FLOW_HASH_SEED, FrameRecord, MATCH_HASH_SEED, MAX_IPV6_EXTENSIONS, MAX_TRANSPORT_START, MAX_VLAN_TAGS, Role,
    Unparsed,
};
use crate::h3::{H3, H3Matrix};
use crate::traffic::key::pack_key;
use std::sync::OnceLock;

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;
const ETHERTYPE_VLAN: u16 = 0x8100;
const ETHERTYPE_QINQ: u16 = 0x88a8;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const DNS_PORT: u16 = 53;
const DNS_HEADER: usize = 12;
const TCP_FIN: u8 = 0x01;
const TCP_SYN: u8 = 0x02;
const TCP_RST: u8 = 0x04;
const TCP_ACK: u8 = 0x10;

fn flow_hash() -> &'static H3 {
    static H: OnceLock<H3> = OnceLock::new();
    H.get_or_init(|| H3::from_matrix(&H3Matrix::generate(FLOW_HASH_SEED, 104, 32)))
}

fn match_hash() -> &'static H3 {
    static H: OnceLock<H3> = OnceLock::new();
    H.get_or_init(|| H3::from_matrix(&H3Matrix::generate(MATCH_HASH_SEED, 128, 32)))
}

fn be16(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}

fn be32(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// An IPv6 address folded to 32 bits: the XOR of its four words.
fn fold_address(a: &[u8]) -> u32 {
    be32(a, 0) ^ be32(a, 4) ^ be32(a, 8) ^ be32(a, 12)
}

/// The network layer's part of the record.
struct Ip<'a> {
    src: u32,
    dst: u32,
    proto: u8,
    id: u16,
    class: u8,
    /// The captured bytes after the IP headers, up to the IP length.
    payload: &'a [u8],
    /// The bytes after the IP headers by the IP length (at least `payload.len()`).
    payload_len: usize,
    /// First fragment or unfragmented: the transport header is here.
    first: bool,
    /// Unfragmented: a role is possible.
    whole: bool,
}

/// The IPv4 header at the start of `b` (the captured bytes); `wire` bytes
/// of the frame follow its start.
fn ipv4(b: &[u8], wire: usize) -> Result<Ip<'_>, Unparsed> {
    if b.len() < 20 {
        return Err(Unparsed::Truncated);
    }
    let ihl = (b[0] & 15) as usize * 4;
    if b[0] >> 4 != 4 || ihl < 20 {
        return Err(Unparsed::BadIpHeader);
    }
    let total = be16(b, 2) as usize;
    if total < ihl || total > wire {
        return Err(Unparsed::LengthMismatch);
    }
    if b.len() < ihl {
        return Err(Unparsed::Truncated);
    }
    let b = &b[..total.min(b.len())];
    let frag = be16(b, 6);
    let (offset, more) = (frag & 0x1fff, frag & 0x2000 != 0);
    Ok(Ip {
        src: be32(b, 12),
        dst: be32(b, 16),
        proto: b[9],
        id: be16(b, 4),
        class: b[1],
        payload: &b[ihl..],
        payload_len: total - ihl,
        first: offset == 0,
        whole: offset == 0 && !more,
    })
}

/// The IPv6 header and its extensions at the start of `b` (the captured
/// bytes), which starts `base` bytes into the frame; `wire` bytes of the
/// frame follow its start.
fn ipv6(b: &[u8], base: usize, wire: usize) -> Result<Ip<'_>, Unparsed> {
    if b.len() < 40 {
        return Err(Unparsed::Truncated);
    }
    if b[0] >> 4 != 6 {
        return Err(Unparsed::BadIpHeader);
    }
    let end = 40 + be16(b, 4) as usize;
    if end > wire {
        return Err(Unparsed::LengthMismatch);
    }
    let b = &b[..end.min(b.len())];
    let word = be32(b, 0);
    let label = word & 0xf_ffff;
    let (mut next, mut at, mut first, mut whole) = (b[6], 40usize, true, true);
    let mut followed = 0;
    // Hop-by-hop (0), routing (43), fragment (44), destination options (60).
    while matches!(next, 0 | 43 | 44 | 60) {
        if followed == MAX_IPV6_EXTENSIONS {
            return Err(Unparsed::Ipv6ExtensionChain);
        }
        let h = b.get(at..at + 8).ok_or(Unparsed::Truncated)?;
        let len = if next == 44 {
            let frag = be16(h, 2);
            (first, whole) = (frag >> 3 == 0, frag >> 3 == 0 && frag & 1 == 0);
            8
        } else {
            (h[1] as usize + 1) * 8
        };
        if at + len > end {
            return Err(Unparsed::Truncated);
        }
        if at + len > b.len() {
            return Err(Unparsed::Truncated);
        }
        // The transport header must start where the RTL parser's window still holds it.
        if base + at + len > MAX_TRANSPORT_START {
            return Err(Unparsed::Ipv6ExtensionChain);
        }
        (next, at, followed) = (h[0], at + len, followed + 1);
    }
    Ok(Ip {
        src: fold_address(&b[8..24]),
        dst: fold_address(&b[24..40]),
        proto: next,
        id: (label as u16) ^ (label >> 16) as u16,
        class: (word >> 20) as u8,
        payload: &b[at..],
        payload_len: end - at,
        first,
        whole,
    })
}

/// The transport layer's part: ports, role, number.
fn transport(ip: &Ip) -> Result<(u16, u16, Role, u32), Unparsed> {
    if !ip.first {
        return Ok((0, 0, Role::None, 0));
    }
    let p = ip.payload;
    match ip.proto {
        PROTO_TCP => {
            let h = p.get(..20).ok_or(Unparsed::Truncated)?;
            let off = (h[12] >> 4) as usize * 4;
            if off < 20 {
                return Err(Unparsed::BadTransportHeader);
            }
            if off > ip.payload_len {
                return Err(Unparsed::Truncated);
            }
            let (sport, dport, seq, ack, flags) = (be16(h, 0), be16(h, 2), be32(h, 4), be32(h, 8), h[13]);
            let data = (ip.payload_len - off) as u32 + (flags & TCP_FIN != 0) as u32;
            let (role, number) = match (flags & TCP_SYN != 0, flags & TCP_ACK != 0) {
                _ if flags & TCP_RST != 0 || !ip.whole => (Role::None, 0),
                (true, false) => (Role::Request, seq.wrapping_add(1)),
                (true, true) => (Role::Response, ack),
                (false, _) if data > 0 => (Role::Request, seq.wrapping_add(data)),
                (false, true) => (Role::Response, ack),
                (false, false) => (Role::None, 0),
            };
            Ok((sport, dport, role, number))
        }
        PROTO_UDP => {
            let h = p.get(..8).ok_or(Unparsed::Truncated)?;
            if (be16(h, 4) as usize) < 8 {
                return Err(Unparsed::BadTransportHeader);
            }
            let (sport, dport) = (be16(h, 0), be16(h, 2));
            // A DNS header the IP packet holds but the capture does not is truncated.
            let dns = if ip.whole && ip.payload_len >= 8 + DNS_HEADER {
                Some(p.get(8..8 + DNS_HEADER).ok_or(Unparsed::Truncated)?)
            } else {
                None
            };
            let (role, number) = match dns {
                Some(d) if dport == DNS_PORT && d[2] & 0x80 == 0 => (Role::Request, be16(d, 0) as u32),
                Some(d) if sport == DNS_PORT && d[2] & 0x80 != 0 => (Role::Response, be16(d, 0) as u32),
                _ => (Role::None, 0),
            };
            Ok((sport, dport, role, number))
        }
        _ => Ok((0, 0, Role::None, 0)),
    }
}

/// Parses one Ethernet frame (`bytes`, no FCS) that arrived at `ts_ns`;
/// `bad` is the MAC's bad-frame flag. Gives the record, or why there is none.
pub fn parse_frame(ts_ns: u64, bytes: &[u8], bad: bool) -> Result<FrameRecord, Unparsed> {
    if bad {
        return Err(Unparsed::BadFrame);
    }
    parse_captured(ts_ns, LINK_ETHERNET, bytes, bytes.len())
}

/// Link type of Ethernet captures (the MAC's frames).
pub const LINK_ETHERNET: u32 = 1;
/// Link types [`parse_captured`] parses: Ethernet, raw IP (either version,
/// IPv4, IPv6), Linux cooked v1 and v2.
pub const LINK_TYPES: [u32; 6] = [LINK_ETHERNET, 101, 228, 229, 113, 276];

/// Parses a captured frame of link type `link` (libpcap's numbers:
/// Ethernet 1, raw IP 101 and 228 (IPv4) and 229 (IPv6), Linux cooked 113
/// and 276) whose first `bytes` were captured of `wire` on the wire, as
/// [`parse_frame`] parses the whole frame: the lengths are checked against
/// the wire length, and a header beyond the captured bytes is truncated.
pub fn parse_captured(ts_ns: u64, link: u32, bytes: &[u8], wire: usize) -> Result<FrameRecord, Unparsed> {
    let wire = wire.max(bytes.len());
    let (ethertype, at) = match link {
        LINK_ETHERNET => ethernet(bytes)?,
        101 => match bytes.first().ok_or(Unparsed::Truncated)? >> 4 {
            4 => (ETHERTYPE_IPV4, 0),
            6 => (ETHERTYPE_IPV6, 0),
            _ => return Err(Unparsed::BadIpHeader),
        },
        228 => (ETHERTYPE_IPV4, 0),
        229 => (ETHERTYPE_IPV6, 0),
        113 => (be16(bytes.get(..16).ok_or(Unparsed::Truncated)?, 14), 16),
        276 => (be16(bytes.get(..20).ok_or(Unparsed::Truncated)?, 0), 20),
        _ => return Err(Unparsed::NotIp),
    };
    let ip = match ethertype {
        ETHERTYPE_IPV4 => ipv4(&bytes[at..], wire - at)?,
        ETHERTYPE_IPV6 => ipv6(&bytes[at..], at, wire - at)?,
        _ => return Err(Unparsed::NotIp),
    };
    let (sport, dport, role, number) = transport(&ip)?;
    let key = pack_key(ip.src, ip.dst, sport, dport, ip.proto, ip.id);
    let match_id = match role {
        Role::None => 0,
        Role::Request => match_id(ip.src, ip.dst, sport, dport, number),
        Role::Response => match_id(ip.dst, ip.src, dport, sport, number),
    };
    Ok(FrameRecord {
        ts_ns,
        len: wire as u32,
        key,
        flow: flow_hash().hash(key >> 16) as u32,
        class: ip.class,
        role,
        match_id,
    })
}

/// The Ethernet II header and up to [`MAX_VLAN_TAGS`] tags: the ethertype
/// and where its payload starts.
fn ethernet(bytes: &[u8]) -> Result<(u16, usize), Unparsed> {
    let mut at = 12;
    let mut tags = 0;
    loop {
        let t = be16(bytes.get(..at + 2).ok_or(Unparsed::Truncated)?, at);
        at += 2;
        if t != ETHERTYPE_VLAN && t != ETHERTYPE_QINQ {
            return Ok((t, at));
        }
        if tags == MAX_VLAN_TAGS {
            return Err(Unparsed::TooManyVlanTags);
        }
        (tags, at) = (tags + 1, at + 2);
    }
}

/// The match ID of an exchange between a requester and a responder.
fn match_id(requester: u32, responder: u32, req_port: u16, resp_port: u16, number: u32) -> u32 {
    let k = (requester as u128) << 96
        | (responder as u128) << 64
        | (req_port as u128) << 48
        | (resp_port as u128) << 32
        | number as u128;
    match_hash().hash(k) as u32
}
