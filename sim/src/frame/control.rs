//! In-band epoch control (LDA §III, §V): the control frame a sending
//! measurement point puts on the link at each epoch end, between two data
//! frames, and the receiving point flips its epoch at. "The sender
//! transmits a sequence-numbered control message at the end of each
//! measurement interval" (§III); the receiver cuts its packet stream at
//! exactly the same place, so the two synopses hold the same packets but
//! for those the link lost. A lost or corrupt control frame makes the pair
//! of epochs around it unusable: the receiver sees a gap in the sequence.
//!
//! The frame, byte by byte (60 bytes without the FCS, the Ethernet
//! minimum; multi-byte fields big-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0..6 | destination MAC (configurable; broadcast by default) |
//! | 6..12 | source MAC (configurable) |
//! | 12..14 | EtherType (configurable; [`CONTROL_ETHERTYPE`], the IEEE local experimental 0x88B5) |
//! | 14 | version ([`CONTROL_VERSION`]) |
//! | 15 | kind ([`ControlKind`]: 1 epoch boundary) |
//! | 16..18 | segment ID |
//! | 18..22 | sequence number: the epoch that ends here |
//! | 22..30 | data frames the sender put in that epoch |
//! | 30..38 | the sender's time at the boundary, ns |
//! | 38..42 | CRC-32 (IEEE 802.3) of bytes 14..38, least significant byte first |
//! | 42..60 | zero |
//!
//! A receiver takes a frame as control when its EtherType (after up to
//! [`super::MAX_VLAN_TAGS`] VLAN tags) is the control EtherType; it is
//! [`ControlError`] when its MAC flagged it bad, it is short, its version
//! or kind is unknown or its CRC differs.

use super::MAX_VLAN_TAGS;

/// The control frames' EtherType by default: IEEE 802 local experimental
/// EtherType 1 (0x88B5), for use within a network.
pub const CONTROL_ETHERTYPE: u16 = 0x88b5;
/// The format's version (byte 14).
pub const CONTROL_VERSION: u8 = 1;
/// The control frame's length without the FCS: the Ethernet minimum.
pub const CONTROL_FRAME_BYTES: usize = 60;
/// The bytes the CRC covers (14..38 of an untagged frame): version to time.
pub const CONTROL_HEADER_BYTES: usize = 24;
/// The header's first byte in an untagged frame.
pub const CONTROL_HEADER_AT: usize = 14;
/// Bytes from the header to the end of the CRC.
pub const CONTROL_CHECKED_BYTES: usize = CONTROL_HEADER_BYTES + 4;

/// What a control frame says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ControlKind {
    /// The end of epoch `seq` and the start of the next.
    Boundary = 1,
}

/// A control frame's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ControlFrame {
    /// What it says.
    pub kind: ControlKind,
    /// The segment (the pair of points) it belongs to.
    pub segment: u16,
    /// The epoch that ends at it.
    pub seq: u32,
    /// Data frames the sender put in that epoch.
    pub packets: u64,
    /// The sender's time at the boundary, ns.
    pub time_ns: u64,
}

/// The frame's addresses and EtherType.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlAddress {
    /// Destination MAC.
    pub dst: [u8; 6],
    /// Source MAC.
    pub src: [u8; 6],
    /// EtherType.
    pub ethertype: u16,
}

impl Default for ControlAddress {
    /// Broadcast from a locally administered address, [`CONTROL_ETHERTYPE`].
    fn default() -> Self {
        ControlAddress { dst: [0xff; 6], src: [0x02, 0, 0, 0, 0, 0x01], ethertype: CONTROL_ETHERTYPE }
    }
}

/// Why a control frame is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ControlError {
    /// The MAC flagged the frame bad (its FCS failed).
    BadFrame,
    /// Shorter than its header and CRC.
    Short,
    /// A version other than [`CONTROL_VERSION`].
    Version,
    /// A kind this version does not know.
    Kind,
    /// The CRC differs.
    Crc,
}

impl ControlError {
    /// Every reason, in the order of the point's counters.
    pub const ALL: [ControlError; 5] =
        [ControlError::BadFrame, ControlError::Short, ControlError::Version, ControlError::Kind, ControlError::Crc];

    /// Its name, as in the point's registers (lower case).
    pub fn name(self) -> &'static str {
        match self {
            ControlError::BadFrame => "bad frame",
            ControlError::Short => "short",
            ControlError::Version => "version",
            ControlError::Kind => "kind",
            ControlError::Crc => "crc",
        }
    }
}

/// The CRC-32 of the header's bytes (IEEE 802.3, as `crc32fast` computes it).
pub fn header_crc(header: &[u8; CONTROL_HEADER_BYTES]) -> u32 {
    crc32fast::hash(header)
}

impl ControlFrame {
    /// The header's 24 bytes (version to time).
    pub fn header(&self) -> [u8; CONTROL_HEADER_BYTES] {
        let mut h = [0u8; CONTROL_HEADER_BYTES];
        h[0] = CONTROL_VERSION;
        h[1] = self.kind as u8;
        h[2..4].copy_from_slice(&self.segment.to_be_bytes());
        h[4..8].copy_from_slice(&self.seq.to_be_bytes());
        h[8..16].copy_from_slice(&self.packets.to_be_bytes());
        h[16..24].copy_from_slice(&self.time_ns.to_be_bytes());
        h
    }

    /// The frame's bytes (no FCS).
    pub fn encode(&self, addr: &ControlAddress) -> Vec<u8> {
        let mut f = vec![0u8; CONTROL_FRAME_BYTES];
        f[0..6].copy_from_slice(&addr.dst);
        f[6..12].copy_from_slice(&addr.src);
        f[12..14].copy_from_slice(&addr.ethertype.to_be_bytes());
        let h = self.header();
        f[CONTROL_HEADER_AT..CONTROL_HEADER_AT + CONTROL_HEADER_BYTES].copy_from_slice(&h);
        let at = CONTROL_HEADER_AT + CONTROL_HEADER_BYTES;
        f[at..at + 4].copy_from_slice(&header_crc(&h).to_le_bytes());
        f
    }
}

/// Where the header of a frame whose EtherType is `ethertype` starts: after
/// the MAC addresses, up to [`MAX_VLAN_TAGS`] VLAN tags and the EtherType;
/// `None` if the frame is not a control frame (or too short to tell).
pub fn control_header_at(bytes: &[u8], ethertype: u16) -> Option<usize> {
    let mut at = 12;
    for _ in 0..=MAX_VLAN_TAGS {
        let t = u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]);
        if t == ethertype {
            return Some(at + 2);
        }
        if t != 0x8100 && t != 0x88a8 {
            return None;
        }
        at += 4;
    }
    None
}

/// A frame as a receiving point sees it: `None` if it is not a control
/// frame (its EtherType, after up to two VLAN tags, is not `ethertype`),
/// else its content or why it is refused. `bad` is the MAC's flag.
pub fn classify(bytes: &[u8], bad: bool, ethertype: u16) -> Option<Result<ControlFrame, ControlError>> {
    let at = control_header_at(bytes, ethertype)?;
    Some(decode(bytes, at, bad))
}

fn decode(bytes: &[u8], at: usize, bad: bool) -> Result<ControlFrame, ControlError> {
    if bad {
        return Err(ControlError::BadFrame);
    }
    let b = bytes.get(at..at + CONTROL_CHECKED_BYTES).ok_or(ControlError::Short)?;
    let header: [u8; CONTROL_HEADER_BYTES] = b[..CONTROL_HEADER_BYTES].try_into().expect("24 bytes");
    let crc = u32::from_le_bytes(b[CONTROL_HEADER_BYTES..].try_into().expect("4 bytes"));
    if header[0] != CONTROL_VERSION {
        return Err(ControlError::Version);
    }
    let kind = match header[1] {
        1 => ControlKind::Boundary,
        _ => return Err(ControlError::Kind),
    };
    if header_crc(&header) != crc {
        return Err(ControlError::Crc);
    }
    let u64_at = |o: usize| u64::from_be_bytes(header[o..o + 8].try_into().expect("8 bytes"));
    Ok(ControlFrame {
        kind,
        segment: u16::from_be_bytes([header[2], header[3]]),
        seq: u32::from_be_bytes(header[4..8].try_into().expect("4 bytes")),
        packets: u64_at(8),
        time_ns: u64_at(16),
    })
}

/// The CRC of [`header_crc`] as an affine map of the header's bits, for
/// hardware: `crc = c ^ XOR of columns[j] over the set bits j`, bit j of
/// the header being bit `j % 8` of byte `j / 8` (the order of an
/// AXI4-Stream's byte lanes). (CRC-32 is affine in its message.)
pub fn crc_affine() -> (u32, Vec<u32>) {
    let zero = [0u8; CONTROL_HEADER_BYTES];
    let c = header_crc(&zero);
    let columns = (0..8 * CONTROL_HEADER_BYTES)
        .map(|j| {
            let mut h = zero;
            h[j / 8] = 1 << (j % 8);
            header_crc(&h) ^ c
        })
        .collect();
    (c, columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boundary() -> ControlFrame {
        ControlFrame {
            kind: ControlKind::Boundary,
            segment: 0x0102,
            seq: 7,
            packets: 123_456,
            time_ns: 1_700_000_000_000_000_123,
        }
    }

    #[test]
    fn a_frame_decodes_to_what_was_encoded_untagged_and_behind_two_vlan_tags() {
        let f = boundary();
        let bytes = f.encode(&ControlAddress::default());
        assert_eq!(bytes.len(), CONTROL_FRAME_BYTES);
        assert_eq!(classify(&bytes, false, CONTROL_ETHERTYPE), Some(Ok(f)));
        // Two tags inserted by switches on the way.
        let mut tagged = bytes[..12].to_vec();
        tagged.extend([0x88, 0xa8, 0x00, 0x05, 0x81, 0x00, 0x00, 0x07]);
        tagged.extend(&bytes[12..]);
        assert_eq!(classify(&tagged, false, CONTROL_ETHERTYPE), Some(Ok(f)));
        // Another EtherType is not control.
        assert_eq!(classify(&bytes, false, 0x88b6), None);
    }

    #[test]
    fn every_corruption_is_refused_with_its_reason() {
        let bytes = boundary().encode(&ControlAddress::default());
        assert_eq!(classify(&bytes, true, CONTROL_ETHERTYPE), Some(Err(ControlError::BadFrame)));
        assert_eq!(classify(&bytes[..40], false, CONTROL_ETHERTYPE), Some(Err(ControlError::Short)));
        let mut v = bytes.clone();
        v[14] = 2;
        assert_eq!(classify(&v, false, CONTROL_ETHERTYPE), Some(Err(ControlError::Version)));
        let mut k = bytes.clone();
        k[15] = 9;
        assert_eq!(classify(&k, false, CONTROL_ETHERTYPE), Some(Err(ControlError::Kind)));
        // Any single bit of the checked bytes flipped (past version and kind) is caught.
        for bit in 16 * 8..42 * 8 {
            let mut c = bytes.clone();
            c[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(classify(&c, false, CONTROL_ETHERTYPE), Some(Err(ControlError::Crc)), "bit {bit}");
        }
    }

    #[test]
    fn the_crc_is_the_ieee_crc_of_the_header_and_affine_in_it() {
        // The check value of CRC-32/ISO-HDLC (the IEEE 802.3 CRC).
        assert_eq!(crc32fast::hash(b"123456789"), 0xcbf4_3926);
        let (c, cols) = crc_affine();
        let h = boundary().header();
        let mut crc = c;
        for (j, col) in cols.iter().enumerate() {
            if h[j / 8] >> (j % 8) & 1 == 1 {
                crc ^= col;
            }
        }
        assert_eq!(crc, header_crc(&h));
    }
}
