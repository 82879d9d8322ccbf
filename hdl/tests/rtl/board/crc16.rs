use netmeas_hdl::board::crc16::*;
use netmeas_sim::board::link::crc16_update;

#[test]
fn the_xor_map_equals_the_bitwise_crc() {
    let mut x = 0x1234_5678_9abc_def0u64;
    for _ in 0..10_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (crc, byte) = (x as u16, (x >> 16) as u8);
        let by_map = (0..16).fold(0u16, |acc, j| {
            let (c, b) = masks(j);
            let bit = ((crc & c).count_ones() + (byte & b).count_ones()) & 1;
            acc | (bit as u16) << j
        });
        assert_eq!(by_map, crc16_update(crc, byte));
    }
}

#[test]
fn crc_byte_is_synthesizable() {
    netmeas_hdl::export::lint_block(Crc16Byte::default(), "crc16_byte").unwrap();
}
