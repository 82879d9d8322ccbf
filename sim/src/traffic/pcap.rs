//! Packet keys and timestamps from a capture (pcap or pcapng, read as a
//! stream by [`CaptureReader`]): the key of every IP packet as the frame
//! parser's reference gives it (the LDA's invariant key, §III-C / §V; IPv4
//! and IPv6, up to two VLAN tags), with its capture time in nanoseconds,
//! and the frames that gave none counted by reason.

use super::capture::{CaptureFormat, CaptureReader, write_capture};
use crate::frame::ParseCounts;
use std::path::Path;

/// One IP packet of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcapPacket {
    /// Capture time, ns since the Unix epoch.
    pub ts_ns: u64,
    /// 5-tuple + IP ID packed as in [`super::key::pack_key`].
    pub key: u128,
}

/// What a capture held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PcapTrace {
    /// The IP packets' keys, in file order.
    pub packets: Vec<PcapPacket>,
    /// Frames read, records given, frames skipped by reason.
    pub counts: ParseCounts,
}

/// Reads the keys of a capture file (pcap or pcapng; link types Ethernet with
/// up to two VLAN tags, raw IP, Linux cooked v1/v2). A truncated or malformed
/// file, or one without an IP packet, is an error.
pub fn read_pcap(path: &Path) -> Result<PcapTrace, String> {
    let r = CaptureReader::open(path)?;
    keys(r).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`read_pcap`] on bytes.
pub fn parse_pcap(data: &[u8]) -> Result<PcapTrace, String> {
    keys(CaptureReader::from_bytes(data)?)
}

fn keys(mut r: CaptureReader) -> Result<PcapTrace, String> {
    let mut out = PcapTrace::default();
    while let Some(rec) = r.next_record(&mut out.counts) {
        if let Ok(f) = rec? {
            out.packets.push(PcapPacket { ts_ns: f.ts_ns, key: f.key });
        }
    }
    if out.packets.is_empty() {
        return Err(format!("no IP packet in the capture ({})", out.counts.summary()));
    }
    Ok(out)
}

/// The Ethernet frame of a UDP (or TCP, by the key's protocol byte) packet
/// carrying `key`'s 5-tuple and IP ID: the inverse of the key extraction.
fn key_frame(k: u128) -> Vec<u8> {
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
    // A TCP key's frame holds a whole TCP header.
    if (k >> 16) as u8 == 6 {
        f.resize(54, 0);
        f[16..18].copy_from_slice(&40u16.to_be_bytes());
        f[46] = 0x50;
    } else {
        f[38..40].copy_from_slice(&8u16.to_be_bytes());
    }
    f
}

/// Writes `packets` as a capture in `format` of IPv4 frames carrying each
/// key's 5-tuple and IP ID (the inverse of [`parse_pcap`] for UDP and TCP
/// keys; used by the tests and to export synthetic traces).
pub fn write_pcap_as(packets: &[PcapPacket], format: CaptureFormat) -> Vec<u8> {
    let frames: Vec<(u64, Vec<u8>)> = packets.iter().map(|p| (p.ts_ns, key_frame(p.key))).collect();
    write_capture(&frames, format)
}

/// [`write_pcap_as`] a classic little-endian nanosecond pcap.
pub fn write_pcap(packets: &[PcapPacket]) -> Vec<u8> {
    write_pcap_as(packets, CaptureFormat::Pcap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::Unparsed;
    use crate::traffic::key::pack_key;

    fn sample() -> Vec<PcapPacket> {
        (0..50u64)
            .map(|i| PcapPacket {
                ts_ns: 1_700_000_000_000_000_000 + i * 137_000,
                key: pack_key(
                    0x0a00_0001 + i as u32,
                    0xc0a8_0101,
                    1000 + i as u16,
                    53,
                    [17, 6][i as usize % 2],
                    7 * i as u16,
                ),
            })
            .collect()
    }

    #[test]
    fn round_trips_keys_and_timestamps_through_pcap_and_pcapng() {
        let p = sample();
        for format in [CaptureFormat::Pcap, CaptureFormat::PcapNgNanos, CaptureFormat::PcapNgMicros] {
            let t = parse_pcap(&write_pcap_as(&p, format)).unwrap();
            assert_eq!(t.packets, p, "{format:?}");
            assert_eq!((t.counts.frames, t.counts.records), (50, 50));
        }
    }

    #[test]
    fn reads_big_endian_microsecond_vlan_files_and_counts_non_ip() {
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
        tcp[20..22].copy_from_slice(&40u16.to_be_bytes());
        tcp[22..24].copy_from_slice(&0x1234u16.to_be_bytes());
        tcp[27] = 6;
        tcp[30..34].copy_from_slice(&[1, 2, 3, 4]);
        tcp[34..38].copy_from_slice(&[5, 6, 7, 8]);
        tcp[38..40].copy_from_slice(&80u16.to_be_bytes());
        tcp[40..42].copy_from_slice(&443u16.to_be_bytes());
        tcp[50] = 0x50;
        for (ts, f) in [(5u32, &arp), (6, &tcp)] {
            for w in [ts, 250_000, f.len() as u32, f.len() as u32] {
                d.extend_from_slice(&w.to_be_bytes());
            }
            d.extend_from_slice(f);
        }
        let t = parse_pcap(&d).unwrap();
        assert_eq!((t.counts.frames, t.counts.of(Unparsed::NotIp)), (2, 1));
        assert_eq!(
            t.packets,
            vec![PcapPacket { ts_ns: 6_250_000_000, key: pack_key(0x0102_0304, 0x0506_0708, 80, 443, 6, 0x1234) }]
        );
    }

    #[test]
    fn a_header_only_capture_is_parsed_against_the_wire_length() {
        // Snap length 54: the IP length (1500 - 14) exceeds the captured bytes, not the wire length.
        let mut f = key_frame(pack_key(1, 2, 3, 4, 6, 5));
        f[16..18].copy_from_slice(&1486u16.to_be_bytes());
        let mut d = Vec::new();
        for w in [0xa1b2_3c4du32, 0x0004_0002, 0, 0, 54, 1] {
            d.extend_from_slice(&w.to_le_bytes());
        }
        for w in [7u32, 0, f.len() as u32, 1500] {
            d.extend_from_slice(&w.to_le_bytes());
        }
        d.extend_from_slice(&f);
        let t = parse_pcap(&d).unwrap();
        assert_eq!(t.packets, vec![PcapPacket { ts_ns: 7_000_000_000, key: pack_key(1, 2, 3, 4, 6, 5) }]);
    }

    #[test]
    fn malformed_files_are_errors() {
        let good = write_pcap(&sample());
        let cut = &good[..good.len() - 5];
        assert!(
            parse_pcap(cut).unwrap_err().contains("truncated record after 49 frames"),
            "{}",
            parse_pcap(cut).unwrap_err()
        );
        assert!(parse_pcap(&good[..20]).unwrap_err().contains("not a pcap file"));
        assert!(parse_pcap(&good[..3]).unwrap_err().contains("shorter than a file header"));
        assert!(parse_pcap(&[0x0a, 0x0d, 0x0d, 0x0a].repeat(8)).unwrap_err().contains("pcapng"));
        assert!(parse_pcap(&[0u8; 64]).unwrap_err().contains("magic"));
        let mut huge = good.clone();
        huge[24 + 8..24 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse_pcap(&huge).unwrap_err().contains("truncated"));
        // A wire length of 4 GiB, and a record 2^48 ns after the first.
        let mut wire = good.clone();
        wire[24 + 12..24 + 16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse_pcap(&wire).unwrap_err().contains("4294967295 wire bytes"));
        let mut late = sample();
        late[7].ts_ns = late[0].ts_ns + (1 << 48);
        assert!(parse_pcap(&write_pcap(&late)).unwrap_err().contains("span less than 2^48 ns"));
        late[7].ts_ns -= 1;
        parse_pcap(&write_pcap(&late)).unwrap();
        let mut link = good.clone();
        link[20] = 105;
        assert!(parse_pcap(&link).unwrap_err().contains("link type 105"));
        let none = parse_pcap(&good[..24]).unwrap_err();
        assert!(none.contains("no IP packet") && none.contains("0 frames"), "{none}");
    }
}
