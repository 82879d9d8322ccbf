//! Packet keys and timestamps from a classic libpcap capture: the 5-tuple and
//! IP ID of every IPv4 packet (the LDA's invariant key, §III-C / §V), with its
//! capture time in nanoseconds.

use super::key::pack_key;
use std::path::Path;

/// One IPv4 packet of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcapPacket {
    /// Capture time, ns since the Unix epoch.
    pub ts_ns: u64,
    /// 5-tuple + IP ID packed as in [`pack_key`].
    pub key: u128,
}

/// What a capture held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PcapTrace {
    /// IPv4 packets, in file order.
    pub packets: Vec<PcapPacket>,
    /// Records that were not IPv4 (ARP, IPv6, …) or too short for an IPv4 header: skipped.
    pub skipped: u64,
}

const MAX_RECORD: usize = 1 << 18;

fn u16be(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}

fn u32be(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// The IPv4 header's offset in a frame of link type `link`, if it carries IPv4.
fn ipv4_offset(link: u32, f: &[u8]) -> Option<usize> {
    let (mut ethertype_at, mut ip_at) = match link {
        1 => (12, 14),                                           // Ethernet
        101 | 228 => return (f.first()? >> 4 == 4).then_some(0), // raw IP / raw IPv4
        113 => (14, 16),                                         // Linux cooked (SLL)
        276 => (0, 20),                                          // Linux cooked v2 (SLL2)
        _ => return None,
    };
    loop {
        let t = u16be(f.get(..ethertype_at + 2)?, ethertype_at);
        match t {
            0x8100 | 0x88a8 if link == 1 => {
                ethertype_at += 4;
                ip_at += 4;
            }
            0x0800 => return Some(ip_at),
            _ => return None,
        }
    }
}

/// The key of the IPv4 packet at `f[o..]`, if its header is complete.
fn ipv4_key(f: &[u8], o: usize) -> Option<u128> {
    let ip = f.get(o..)?;
    if ip.len() < 20 || ip[0] >> 4 != 4 || (ip[0] & 15) < 5 {
        return None;
    }
    let ihl = (ip[0] & 15) as usize * 4;
    let proto = ip[9];
    let first_fragment = u16be(ip, 6) & 0x1fff == 0;
    let (sport, dport) = match (proto, ip.get(ihl..ihl + 4)) {
        (6 | 17 | 132, Some(p)) if first_fragment => (u16be(p, 0), u16be(p, 2)),
        _ => (0, 0),
    };
    Some(pack_key(u32be(ip, 12), u32be(ip, 16), sport, dport, proto, u16be(ip, 4)))
}

/// Reads a classic pcap file (either byte order, microsecond or nanosecond
/// timestamps; link types Ethernet with 802.1Q/802.1ad tags, raw IP, Linux
/// cooked v1/v2). Truncated or malformed files are errors; pcapng is refused
/// with a hint.
pub fn read_pcap(path: &Path) -> Result<PcapTrace, String> {
    let data = crate::files::read_input(path)?;
    parse_pcap(&data).map_err(|e| format!("{}: {e}", path.display()))
}

/// One record of a capture: its time and the captured bytes of the frame.
#[derive(Clone, Copy, Debug)]
pub struct PcapFrame<'a> {
    /// Capture time, ns since the Unix epoch.
    pub ts_ns: u64,
    /// Captured bytes (link layer first).
    pub body: &'a [u8],
    /// Length of the frame on the wire (at least the captured bytes).
    pub orig_len: u32,
}

/// The records of a classic pcap file with its link type (see [`read_pcap`]
/// for what is accepted). Truncated or malformed files are errors.
pub fn pcap_frames(data: &[u8]) -> Result<(u32, Vec<PcapFrame<'_>>), String> {
    if data.len() < 24 {
        return Err(format!("not a pcap file: {} bytes, shorter than the 24-byte file header", data.len()));
    }
    let magic = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
    let (big, nanos) = match magic {
        0xa1b2_c3d4 => (false, false),
        0xa1b2_3c4d => (false, true),
        0xd4c3_b2a1 => (true, false),
        0x4d3c_b2a1 => (true, true),
        0x0a0d_0d0a => return Err("pcapng is not supported; convert with `editcap -F pcap in.pcapng out.pcap`".into()),
        m => return Err(format!("not a pcap file (magic 0x{m:08x})")),
    };
    let rd = |o: usize| -> u32 {
        let b = [data[o], data[o + 1], data[o + 2], data[o + 3]];
        if big { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) }
    };
    let link = rd(20) & 0x0fff_ffff;
    if ![1, 101, 228, 113, 276].contains(&link) {
        return Err(format!("link type {link} is not supported (Ethernet 1, raw IP 101/228, Linux cooked 113/276)"));
    }
    let mut frames = Vec::new();
    let mut first_ts = None;
    let mut o = 24;
    while o < data.len() {
        if data.len() - o < 16 {
            return Err(format!("truncated record header at byte {o}"));
        }
        let (sec, frac, caplen) = (rd(o) as u64, rd(o + 4) as u64, rd(o + 8) as usize);
        if caplen > MAX_RECORD {
            return Err(format!("record at byte {o} claims {caplen} bytes (more than {MAX_RECORD}): corrupt file"));
        }
        if (!nanos && frac >= 1_000_000) || (nanos && frac >= 1_000_000_000) {
            return Err(format!("record at byte {o} has a sub-second timestamp {frac} out of range: corrupt file"));
        }
        let body = data.get(o + 16..o + 16 + caplen).ok_or_else(|| format!("truncated record at byte {o}"))?;
        let ts_ns = sec * 1_000_000_000 + if nanos { frac } else { frac * 1000 };
        let first = *first_ts.get_or_insert(ts_ns);
        if ts_ns.abs_diff(first) >= super::trace::MAX_TIME_NS {
            return Err(format!(
                "record at byte {o} is {} ns from the first: a capture may span less than 2^48 ns (about 78 h), \
                 the cores' timestamp width",
                ts_ns.abs_diff(first)
            ));
        }
        let orig_len = rd(o + 12).max(caplen as u32);
        if orig_len as usize > MAX_RECORD {
            return Err(format!(
                "record at byte {o} claims a wire length of {orig_len} bytes (more than {MAX_RECORD}): corrupt file"
            ));
        }
        frames.push(PcapFrame { ts_ns, body, orig_len });
        o += 16 + caplen;
    }
    Ok((link, frames))
}

/// The IPv4 packet in a frame of link type `link`: its bytes from the IP header on.
pub fn ipv4_packet(link: u32, frame: &[u8]) -> Option<&[u8]> {
    let ip = frame.get(ipv4_offset(link, frame)?..)?;
    (ip.len() >= 20 && ip[0] >> 4 == 4 && (ip[0] & 15) >= 5).then_some(ip)
}

/// [`read_pcap`] on bytes.
pub fn parse_pcap(data: &[u8]) -> Result<PcapTrace, String> {
    let (link, frames) = pcap_frames(data)?;
    let mut out = PcapTrace::default();
    for f in frames {
        match ipv4_offset(link, f.body).and_then(|ip| ipv4_key(f.body, ip)) {
            Some(key) => out.packets.push(PcapPacket { ts_ns: f.ts_ns, key }),
            None => out.skipped += 1,
        }
    }
    if out.packets.is_empty() {
        return Err(format!("no IPv4 packets ({} records skipped)", out.skipped));
    }
    Ok(out)
}

/// Writes `packets` as a little-endian, nanosecond, Ethernet pcap of UDP
/// frames carrying each key's 5-tuple and IP ID (the inverse of [`parse_pcap`]
/// for UDP/TCP keys; used by the tests and to export synthetic traces).
pub fn write_pcap(packets: &[PcapPacket]) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + packets.len() * 58);
    for w in [0xa1b2_3c4du32, 0x0004_0002, 0, 0, 65535, 1] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for p in packets {
        let k = p.key;
        let mut f = vec![0u8; 42];
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        f[14] = 0x45;
        f[16..18].copy_from_slice(&28u16.to_be_bytes());
        f[18..20].copy_from_slice(&(k as u16).to_be_bytes());
        f[22] = 64;
        f[23] = (k >> 16) as u8;
        f[26..30].copy_from_slice(&((k >> 88) as u32).to_be_bytes());
        f[30..34].copy_from_slice(&((k >> 56) as u32).to_be_bytes());
        f[34..36].copy_from_slice(&((k >> 40) as u16).to_be_bytes());
        f[36..38].copy_from_slice(&((k >> 24) as u16).to_be_bytes());
        for w in [(p.ts_ns / 1_000_000_000) as u32, (p.ts_ns % 1_000_000_000) as u32, 42, 42] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<PcapPacket> {
        (0..50u64)
            .map(|i| PcapPacket {
                ts_ns: 1_700_000_000_000_000_000 + i * 137,
                key: pack_key(0x0a00_0001 + i as u32, 0xc0a8_0101, 1000 + i as u16, 53, 17, 7 * i as u16),
            })
            .collect()
    }

    #[test]
    fn round_trips_keys_and_timestamps() {
        let p = sample();
        let t = parse_pcap(&write_pcap(&p)).unwrap();
        assert_eq!(t.packets, p);
        assert_eq!(t.skipped, 0);
    }

    #[test]
    fn reads_big_endian_microsecond_vlan_files_and_skips_non_ip() {
        let mut d = Vec::new();
        for w in [0xa1b2_c3d4u32, 0x0002_0004, 0, 0, 65535, 1] {
            d.extend_from_slice(&w.to_be_bytes());
        }
        // An ARP frame, then a VLAN-tagged TCP packet.
        let arp = {
            let mut f = vec![0u8; 42];
            f[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
            f
        };
        let mut tcp = vec![0u8; 58];
        tcp[12..14].copy_from_slice(&0x8100u16.to_be_bytes());
        tcp[16..18].copy_from_slice(&0x0800u16.to_be_bytes());
        tcp[18] = 0x45;
        tcp[22..24].copy_from_slice(&0x1234u16.to_be_bytes());
        tcp[27] = 6;
        tcp[30..34].copy_from_slice(&[1, 2, 3, 4]);
        tcp[34..38].copy_from_slice(&[5, 6, 7, 8]);
        tcp[38..40].copy_from_slice(&80u16.to_be_bytes());
        tcp[40..42].copy_from_slice(&443u16.to_be_bytes());
        for (ts, f) in [(5u32, &arp), (6, &tcp)] {
            for w in [ts, 250_000, f.len() as u32, f.len() as u32] {
                d.extend_from_slice(&w.to_be_bytes());
            }
            d.extend_from_slice(f);
        }
        let t = parse_pcap(&d).unwrap();
        assert_eq!(t.skipped, 1);
        assert_eq!(
            t.packets,
            vec![PcapPacket { ts_ns: 6_250_000_000, key: pack_key(0x0102_0304, 0x0506_0708, 80, 443, 6, 0x1234) }]
        );
    }

    #[test]
    fn malformed_files_are_errors() {
        let good = write_pcap(&sample());
        let cut = &good[..good.len() - 5];
        assert!(parse_pcap(cut).unwrap_err().contains("truncated record"));
        assert!(parse_pcap(&good[..20]).unwrap_err().contains("24-byte"));
        assert!(parse_pcap(&[0x0a, 0x0d, 0x0d, 0x0a].repeat(8)).unwrap_err().contains("pcapng"));
        assert!(parse_pcap(&[0u8; 64]).unwrap_err().contains("magic"));
        let mut huge = good.clone();
        huge[24 + 8..24 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse_pcap(&huge).unwrap_err().contains("corrupt"));
        // A wire length of 4 GiB, and a record 2^48 ns after the first.
        let mut wire = good.clone();
        wire[24 + 12..24 + 16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse_pcap(&wire).unwrap_err().contains("wire length of 4294967295 bytes"));
        let mut late = sample();
        late[7].ts_ns = late[0].ts_ns + (1 << 48);
        assert!(parse_pcap(&write_pcap(&late)).unwrap_err().contains("span less than 2^48 ns"));
        late[7].ts_ns -= 1;
        parse_pcap(&write_pcap(&late)).unwrap();
        let mut link = good.clone();
        link[20] = 105;
        assert!(parse_pcap(&link).unwrap_err().contains("link type"));
        assert!(parse_pcap(&good[..24]).unwrap_err().contains("no IPv4"));
    }
}
