//! The packet key both measurement points hash: the invariant fields of a
//! packet (LDA §V, MAPLE §4: 5-tuple and IP ID) packed into 104 bits.

/// Packs a 5-tuple and IP ID into the 120-bit LDA key: bits 119..88 source
/// address, 87..56 destination, 55..40 source port, 39..24 destination port,
/// 23..16 protocol, 15..0 IP ID. Narrower cores see the low bits (IP ID first).
#[inline]
pub fn pack_key(src: u32, dst: u32, sport: u16, dport: u16, proto: u8, ipid: u16) -> u128 {
    (src as u128) << 88
        | (dst as u128) << 56
        | (sport as u128) << 40
        | (dport as u128) << 24
        | (proto as u128) << 16
        | ipid as u128
}
