//! One byte of CRC-16/CCITT-FALSE (polynomial 0x1021, most significant bit
//! first) in one clock: the host link's frame check
//! ([`crc16_update`](netmeas_sim::board::link::crc16_update)). Combinational;
//! each output bit is the XOR of the input bits its column of the CRC's
//! linear map selects, written as custom Verilog from that map.

use netmeas_sim::board::link::crc16_update;
use rust_hdl::prelude::*;

/// CRC register and byte in, the CRC after the byte out.
#[derive(LogicBlock, Default)]
pub struct Crc16Byte {
    /// The CRC before the byte.
    pub crc_in: Signal<In, Bits<16>>,
    /// The byte.
    pub data_in: Signal<In, Bits<8>>,
    /// The CRC after it.
    pub crc_out: Signal<Out, Bits<16>>,
}

/// For output bit `j`: the CRC-input bits and the byte bits whose XOR it is
/// (the map is linear over GF(2), so the images of unit vectors give it).
fn masks(j: usize) -> (u16, u8) {
    let crc = (0..16).filter(|&i| crc16_update(1 << i, 0) >> j & 1 == 1).fold(0u16, |m, i| m | 1 << i);
    let byte = (0..8).filter(|&i| crc16_update(0, 1 << i) >> j & 1 == 1).fold(0u8, |m, i| m | 1 << i);
    (crc, byte)
}

impl Logic for Crc16Byte {
    fn update(&mut self) {
        let c = crc16_update(self.crc_in.val().to_u64() as u16, self.data_in.val().to_u64() as u8);
        self.crc_out.next = (c as u64).into();
    }

    fn connect(&mut self) {
        self.crc_out.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::from("// CRC-16/CCITT-FALSE, one byte: crc_out[j] = ^(crc_in & C_j) ^ ^(data_in & B_j).\n");
        for j in 0..16 {
            let (c, b) = masks(j);
            v.push_str(&format!("assign crc_out[{j}] = ^(crc_in & 16'h{c:04x}) ^ ^(data_in & 8'h{b:02x});\n"));
        }
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        crate::export::lint_block(Crc16Byte::default(), "crc16_byte").unwrap();
    }
}
