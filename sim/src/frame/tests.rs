//! The frame parser against an independent parser (etherparse) on frames of
//! every header variant, the fridge roles and matches, and every reason a
//! frame gives no record.

use super::*;
use crate::prng::SplitMix64;
use crate::traffic::key::pack_key;
use etherparse::{
    IpDscp, IpEcn, IpHeaders, IpNumber, Ipv4Header, Ipv4Options, Ipv6FlowLabel, Ipv6Header, NetSlice, PacketBuilder,
    SlicedPacket, TransportSlice, VlanId,
};

const MAC_A: [u8; 6] = [2, 0, 0, 0, 0, 1];
const MAC_B: [u8; 6] = [2, 0, 0, 0, 0, 2];

/// The transport of a built frame.
#[derive(Clone, Copy)]
enum L4 {
    /// Ports, seq, ack (None: no ACK flag), SYN, FIN, RST.
    Tcp(u16, u16, u32, Option<u32>, bool, bool, bool),
    /// Ports.
    Udp(u16, u16),
}

/// The network header of a built frame.
#[derive(Clone)]
enum L3 {
    V4 { src: [u8; 4], dst: [u8; 4], id: u16, tos: u8, options: Vec<u8> },
    V6 { src: [u8; 16], dst: [u8; 16], label: u32, class: u8 },
}

fn ip_headers(l3: &L3, proto: IpNumber) -> IpHeaders {
    match l3 {
        L3::V4 { src, dst, id, tos, options } => {
            let mut h = Ipv4Header::new(0, 64, proto, *src, *dst).unwrap();
            h.identification = *id;
            h.dscp = IpDscp::try_new(tos >> 2).unwrap();
            h.ecn = IpEcn::try_new(tos & 3).unwrap();
            h.options = Ipv4Options::try_from(&options[..]).unwrap();
            IpHeaders::Ipv4(h, Default::default())
        }
        L3::V6 { src, dst, label, class } => IpHeaders::Ipv6(
            Ipv6Header {
                traffic_class: *class,
                flow_label: Ipv6FlowLabel::try_new(*label).unwrap(),
                payload_length: 0,
                next_header: proto,
                hop_limit: 64,
                source: *src,
                destination: *dst,
            },
            Default::default(),
        ),
    }
}

/// An Ethernet frame with `vlans` tags (0..=2), `l3`, `l4` and `payload`.
fn build(vlans: usize, l3: &L3, l4: L4, payload: &[u8]) -> Vec<u8> {
    let proto = match l4 {
        L4::Tcp(..) => IpNumber::TCP,
        L4::Udp(..) => IpNumber::UDP,
    };
    let eth = PacketBuilder::ethernet2(MAC_A, MAC_B);
    let ip = match vlans {
        0 => eth.ip(ip_headers(l3, proto)),
        1 => eth.single_vlan(VlanId::try_new(10).unwrap()).ip(ip_headers(l3, proto)),
        _ => eth.double_vlan(VlanId::try_new(20).unwrap(), VlanId::try_new(30).unwrap()).ip(ip_headers(l3, proto)),
    };
    let mut out = Vec::new();
    match l4 {
        L4::Tcp(sp, dp, seq, ack, syn, fin, rst) => {
            let mut t = ip.tcp(sp, dp, seq, 1000);
            if let Some(a) = ack {
                t = t.ack(a);
            }
            if syn {
                t = t.syn();
            }
            if fin {
                t = t.fin();
            }
            if rst {
                t = t.rst();
            }
            t.write(&mut out, payload).unwrap();
        }
        L4::Udp(sp, dp) => ip.udp(sp, dp).write(&mut out, payload).unwrap(),
    }
    out
}

/// The record etherparse's reading of `frame` implies.
fn expected(frame: &[u8]) -> (u128, u8) {
    let p = SlicedPacket::from_ethernet(frame).unwrap();
    let (sport, dport, proto) = match &p.transport {
        Some(TransportSlice::Tcp(t)) => (t.source_port(), t.destination_port(), 6),
        Some(TransportSlice::Udp(u)) => (u.source_port(), u.destination_port(), 17),
        _ => panic!("no transport"),
    };
    match &p.net {
        Some(NetSlice::Ipv4(s)) => {
            let h = s.header();
            let class = h.dcp().value() << 2 | h.ecn().value();
            let key = pack_key(
                u32::from_be_bytes(h.source()),
                u32::from_be_bytes(h.destination()),
                sport,
                dport,
                proto,
                h.identification(),
            );
            (key, class)
        }
        Some(NetSlice::Ipv6(s)) => {
            let h = s.header();
            let fold = |a: [u8; 16]| a.chunks(4).fold(0u32, |x, w| x ^ u32::from_be_bytes(w.try_into().unwrap()));
            let label = h.flow_label().value();
            let id = (label & 0xffff) as u16 ^ (label >> 16) as u16;
            (pack_key(fold(h.source()), fold(h.destination()), sport, dport, proto, id), h.traffic_class())
        }
        _ => panic!("no IP"),
    }
}

fn random_l3(rng: &mut SplitMix64, v6: bool) -> L3 {
    if v6 {
        let mut a = [0u8; 32];
        a.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
        L3::V6 {
            src: a[..16].try_into().unwrap(),
            dst: a[16..].try_into().unwrap(),
            label: rng.below(1 << 20) as u32,
            class: rng.next_u64() as u8,
        }
    } else {
        let words = rng.below(11) as usize;
        // NOP options (type 1), a whole number of words.
        L3::V4 {
            src: (rng.next_u64() as u32).to_be_bytes(),
            dst: (rng.next_u64() as u32).to_be_bytes(),
            id: rng.next_u64() as u16,
            tos: rng.next_u64() as u8,
            options: vec![1; words * 4],
        }
    }
}

#[test]
fn every_header_variant_gives_the_key_class_and_length_an_independent_parser_reads() {
    let mut rng = SplitMix64::new(7);
    let mut seen = std::collections::HashSet::new();
    for i in 0..3000 {
        let (vlans, v6, tcp) = (i % 3, i / 3 % 2 == 1, i / 6 % 2 == 1);
        let l3 = random_l3(&mut rng, v6);
        let (sp, dp) = (rng.next_u64() as u16, rng.next_u64() as u16);
        let l4 = if tcp {
            L4::Tcp(sp, dp, rng.next_u64() as u32, rng.chance(1, 2).then(|| rng.next_u64() as u32), false, false, false)
        } else {
            L4::Udp(sp, dp)
        };
        let payload: Vec<u8> = (0..rng.below(200)).map(|_| rng.next_u64() as u8).collect();
        let mut frame = build(vlans, &l3, l4, &payload);
        // Ethernet pads a short frame to 60 bytes: the padding is not the IP packet's.
        let padded = frame.len() < 60;
        frame.resize(frame.len().max(60), 0);
        let ts = rng.next_u64();
        let r = parse_frame(ts, &frame, false).unwrap_or_else(|e| panic!("frame {i}: {e:?}"));
        let (key, class) = expected(&frame);
        assert_eq!((r.key, r.class, r.ts_ns, r.len), (key, class, ts, frame.len() as u32), "frame {i}");
        assert!(r.key >> 120 == 0);
        seen.insert((vlans, v6, tcp, padded, r.role));
    }
    // Every combination of tags, IP version and transport was met.
    assert_eq!(seen.iter().map(|s| (s.0, s.1, s.2)).collect::<std::collections::HashSet<_>>().len(), 12);
}

#[test]
fn the_flow_id_is_the_h3_hash_of_the_five_tuple_and_ignores_the_ip_id() {
    let l3 = |id| L3::V4 { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], id, tos: 0, options: vec![] };
    let a = parse_frame(0, &build(0, &l3(1), L4::Udp(1000, 2000), &[0; 20]), false).unwrap();
    let b = parse_frame(0, &build(0, &l3(2), L4::Udp(1000, 2000), &[0; 20]), false).unwrap();
    let c = parse_frame(0, &build(0, &l3(1), L4::Udp(1001, 2000), &[0; 20]), false).unwrap();
    assert_ne!(a.key, b.key);
    assert_eq!(a.flow, b.flow);
    assert_ne!(a.flow, c.flow);
    let h = crate::h3::H3::from_matrix(&crate::h3::H3Matrix::generate(FLOW_HASH_SEED, 104, 32));
    assert_eq!(a.flow as u64, h.hash(a.key >> 16));
}

/// A TCP frame from client (10.0.0.1:40000) to server (10.0.0.2:80) or back.
fn tcp(to_server: bool, seq: u32, ack: Option<u32>, syn: bool, fin: bool, data: usize) -> FrameRecord {
    let (c, s) = ([10, 0, 0, 1], [10, 0, 0, 2]);
    let (src, dst, sp, dp) = if to_server { (c, s, 40000, 80) } else { (s, c, 80, 40000) };
    let l3 = L3::V4 { src, dst, id: 7, tos: 0, options: vec![] };
    parse_frame(0, &build(1, &l3, L4::Tcp(sp, dp, seq, ack, syn, fin, false), &vec![0xab; data]), false).unwrap()
}

#[test]
fn tcp_requests_match_the_acks_that_answer_them() {
    // Handshake: SYN (seq 1000) awaits ack 1001; the SYN-ACK carries it.
    let syn = tcp(true, 1000, None, true, false, 0);
    let syn_ack = tcp(false, 5000, Some(1001), true, false, 0);
    assert_eq!((syn.role, syn_ack.role), (Role::Request, Role::Response));
    assert_eq!(syn.match_id, syn_ack.match_id);
    // 100 bytes of data from seq 1001 await ack 1101; a pure ACK answers.
    let data = tcp(true, 1001, Some(5001), false, false, 100);
    let ack = tcp(false, 5001, Some(1101), false, false, 0);
    assert_eq!((data.role, ack.role), (Role::Request, Role::Response));
    assert_eq!(data.match_id, ack.match_id);
    assert_ne!(data.match_id, syn.match_id);
    // An ACK of a different number, or from the wrong side, does not match.
    assert_ne!(tcp(false, 5001, Some(1100), false, false, 0).match_id, data.match_id);
    assert_ne!(tcp(true, 5001, Some(1101), false, false, 0).match_id, data.match_id);
    // FIN takes one number: FIN at 1101 awaits 1102.
    let fin = tcp(true, 1101, Some(5001), false, true, 0);
    assert_eq!(fin.role, Role::Request);
    assert_eq!(fin.match_id, tcp(false, 5001, Some(1102), false, false, 0).match_id);
    // RST and a bare segment without ACK are neither.
    let l3 = L3::V4 { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], id: 7, tos: 0, options: vec![] };
    let rst = parse_frame(0, &build(0, &l3, L4::Tcp(1, 2, 3, Some(4), false, false, true), &[]), false).unwrap();
    assert_eq!((rst.role, rst.match_id), (Role::None, 0));
    assert_eq!(tcp(true, 1, None, false, false, 0).role, Role::None);
}

/// A DNS message's frame (12-byte header: ID, flags with QR in bit 7 of byte 2).
fn dns_frame(query: bool, id: u16, v6: bool) -> Vec<u8> {
    let mut msg = vec![0u8; 30];
    msg[..2].copy_from_slice(&id.to_be_bytes());
    msg[2] = if query { 0x01 } else { 0x81 };
    let (c, s): ([u8; 16], [u8; 16]) = ([0x20; 16], [0x30; 16]);
    let (src, dst) = if query { (c, s) } else { (s, c) };
    let l3 = if v6 {
        L3::V6 { src, dst, label: 0x12345, class: 0 }
    } else {
        L3::V4 { src: src[..4].try_into().unwrap(), dst: dst[..4].try_into().unwrap(), id: 1, tos: 0, options: vec![] }
    };
    let l4 = if query { L4::Udp(5353, 53) } else { L4::Udp(53, 5353) };
    build(2, &l3, l4, &msg)
}

/// The record of [`dns_frame`].
fn dns(query: bool, id: u16, v6: bool) -> FrameRecord {
    parse_frame(0, &dns_frame(query, id, v6), false).unwrap()
}

#[test]
fn dns_queries_match_their_responses_over_ipv4_and_ipv6() {
    for v6 in [false, true] {
        let (q, r) = (dns(true, 0xbeef, v6), dns(false, 0xbeef, v6));
        assert_eq!((q.role, r.role), (Role::Request, Role::Response));
        assert_eq!(q.match_id, r.match_id);
        assert_ne!(dns(false, 0xbeee, v6).match_id, q.match_id);
    }
    assert_ne!(dns(true, 0xbeef, false).match_id, dns(true, 0xbeef, true).match_id);
}

fn v4_udp() -> Vec<u8> {
    build(0, &L3::V4 { src: [1, 2, 3, 4], dst: [5, 6, 7, 8], id: 9, tos: 0, options: vec![] }, L4::Udp(1, 2), &[0; 40])
}

fn v6_udp() -> Vec<u8> {
    build(0, &L3::V6 { src: [1; 16], dst: [2; 16], label: 3, class: 0 }, L4::Udp(1, 2), &[0; 40])
}

/// `frame` (IPv6 at offset `at`) with extension headers of `kinds` put in
/// front of its transport header; the fragment header gets `frag`.
fn with_extensions(frame: &[u8], at: usize, kinds: &[u8], frag: u16) -> Vec<u8> {
    let (head, rest) = frame.split_at(at + 40);
    let mut ip = head[at..].to_vec();
    let mut ext = Vec::new();
    let mut next = ip[6];
    for &k in kinds.iter().rev() {
        let mut h = vec![next, 0, 0, 0, 0, 0, 0, 0];
        if k == 44 {
            h[2..4].copy_from_slice(&frag.to_be_bytes());
        } else {
            h[1] = 1; // 16 bytes
            h.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
        }
        h.extend_from_slice(&ext);
        ext = h;
        next = k;
    }
    ip[6] = next;
    let plen = u16::from_be_bytes([ip[4], ip[5]]) + ext.len() as u16;
    ip[4..6].copy_from_slice(&plen.to_be_bytes());
    [&head[..at], &ip[..], &ext[..], rest].concat()
}

#[test]
fn ipv6_extension_headers_are_followed_up_to_two_and_fragments_lose_ports_and_roles() {
    let plain = parse_frame(0, &v6_udp(), false).unwrap();
    for kinds in [&[0u8][..], &[60], &[43], &[0, 60], &[0, 44]] {
        let r = parse_frame(0, &with_extensions(&v6_udp(), 14, kinds, 0), false).unwrap();
        assert_eq!(r.key, plain.key, "{kinds:?}");
    }
    assert_eq!(
        parse_frame(0, &with_extensions(&v6_udp(), 14, &[0, 43, 60], 0), false),
        Err(Unparsed::Ipv6ExtensionChain)
    );
    // A later fragment (offset 8 × 8 bytes) has no ports.
    let later = parse_frame(0, &with_extensions(&v6_udp(), 14, &[44], 8 << 3), false).unwrap();
    assert_eq!(later.key >> 24 & 0xffff_ffff, 0);
    assert_eq!(later.key >> 16 & 0xff, 17);
    // The first fragment of several (M set) keeps its ports but has no role.
    let whole = dns(true, 5, true);
    let q = dns_frame(true, 5, true);
    let first = parse_frame(0, &with_extensions(&q, 22, &[44], 1), false).unwrap();
    assert_eq!(whole.role, Role::Request);
    assert_eq!((first.key, first.role, first.match_id), (whole.key, Role::None, 0));
}

#[test]
fn every_bad_frame_is_counted_under_its_reason_and_gives_no_record() {
    let v4 = v4_udp();
    let v6 = v6_udp();
    let edit = |f: &[u8], at: usize, b: u8| {
        let mut g = f.to_vec();
        g[at] = b;
        g
    };
    let total = |f: &[u8], n: u16| {
        let mut g = f.to_vec();
        g[16..18].copy_from_slice(&n.to_be_bytes());
        g
    };
    let mut three_tags = v4[..12].to_vec();
    for _ in 0..3 {
        three_tags.extend_from_slice(&[0x81, 0x00, 0x00, 0x01]);
    }
    three_tags.extend_from_slice(&v4[12..]);
    let mut counts = ParseCounts::default();
    let cases: Vec<(Vec<u8>, bool, Unparsed)> = vec![
        (v4.clone(), true, Unparsed::BadFrame),
        (v4[..13].to_vec(), false, Unparsed::Truncated),
        (v4[..30].to_vec(), false, Unparsed::Truncated),
        (v6[..50].to_vec(), false, Unparsed::Truncated),
        (edit(&edit(&v4, 12, 0x08), 13, 0x06), false, Unparsed::NotIp),
        (three_tags, false, Unparsed::TooManyVlanTags),
        (edit(&v4, 14, 0x44), false, Unparsed::BadIpHeader),
        (edit(&v4, 14, 0x65), false, Unparsed::BadIpHeader),
        (edit(&v6, 14, 0x40), false, Unparsed::BadIpHeader),
        (total(&v4, 400), false, Unparsed::LengthMismatch),
        (total(&v4, 19), false, Unparsed::LengthMismatch),
        (v4[..60].to_vec(), false, Unparsed::LengthMismatch),
        (with_extensions(&v6, 14, &[0, 0, 0], 0), false, Unparsed::Ipv6ExtensionChain),
        (total(&v4, 20 + 4), false, Unparsed::Truncated),
        (edit(&v4, 14 + 20 + 5, 4), false, Unparsed::BadTransportHeader),
    ];
    for (i, (frame, bad, why)) in cases.iter().enumerate() {
        assert_eq!(counts.count(parse_frame(0, frame, *bad)), Err(*why), "case {i}");
    }
    assert!(counts.count(parse_frame(0, &v4, false)).is_ok());
    assert_eq!((counts.frames, counts.records), (cases.len() as u64 + 1, 1));
    for why in Unparsed::ALL {
        assert_eq!(counts.of(why), cases.iter().filter(|c| c.2 == why).count() as u64, "{}", why.name());
        assert!(counts.of(why) > 0, "{} never tested", why.name());
    }
}

#[test]
fn extension_headers_that_push_the_transport_header_past_the_window_are_a_chain_too_long() {
    // One hop-by-hop header of (units + 1) × 8 bytes at frame offset 54.
    let with_hop_by_hop = |units: u8| {
        let f = v6_udp();
        let mut ip = f[14..54].to_vec();
        let mut h = vec![0u8; (units as usize + 1) * 8];
        (h[0], h[1], ip[6]) = (ip[6], units, 0);
        let plen = u16::from_be_bytes([ip[4], ip[5]]) + h.len() as u16;
        ip[4..6].copy_from_slice(&plen.to_be_bytes());
        [&f[..14], &ip[..], &h[..], &f[54..]].concat()
    };
    let plain = parse_frame(0, &v6_udp(), false).unwrap();
    // Ends at 54 + 48 = 102 <= MAX_TRANSPORT_START: followed.
    assert_eq!(parse_frame(0, &with_hop_by_hop(5), false).unwrap().key, plain.key);
    // Ends at 110: beyond the window.
    assert_eq!(super::MAX_TRANSPORT_START, 108);
    assert_eq!(parse_frame(0, &with_hop_by_hop(6), false), Err(Unparsed::Ipv6ExtensionChain));
}
