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
pub fn masks(j: usize) -> (u16, u8) {
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
        // `crc_out` is declared `output reg`: driven from a combinational block, not by
        // `assign` (which Verilog-2005 simulators such as Icarus refuse on a reg).
        let mut v = String::from(
            "// CRC-16/CCITT-FALSE, one byte: crc_out[j] = ^(crc_in & C_j) ^ ^(data_in & B_j).\nalways @(*) begin\n",
        );
        for j in 0..16 {
            let (c, b) = masks(j);
            v.push_str(&format!("   crc_out[{j}] = ^(crc_in & 16'h{c:04x}) ^ ^(data_in & 8'h{b:02x});\n"));
        }
        v.push_str("end\n");
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}
