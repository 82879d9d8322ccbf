//! Simple dual-port block RAM with a registered read, one clock.
//!
//! Written as custom Verilog so that synthesis maps it to block RAM without
//! emulation logic:
//! - no `initial` on the memory or the read register (an `initial` on the read
//!   register blocks ECP5 inference, yosys#2486; ASICs have none anyway: the
//!   users of this RAM clear it with a hardware sequence);
//! - `(* no_rw_check *)`: the value read when the same address is written in
//!   the same cycle is left undefined. Every user of this RAM either never
//!   reads such a collision or overrides it by forwarding, so Yosys need not
//!   build read-old-data emulation (≈ 150 FFs per 1024×72 bank on ECP5).
//!
//! In simulation a collision returns the old data (as Verilator does).

use rust_hdl::prelude::*;

/// `2^A` words of `W` bits: write port (address, data, enable) and a read port
/// whose data appears one clock after its address.
#[derive(LogicBlock)]
pub struct BlockRam<const W: usize, const A: usize> {
    /// The one clock of both ports.
    pub clock: Signal<In, Clock>,
    /// Read address, sampled at the rising edge.
    pub read_address: Signal<In, Bits<A>>,
    /// Word at the read address of the previous edge.
    pub read_data: Signal<Out, Bits<W>>,
    /// Write address.
    pub write_address: Signal<In, Bits<A>>,
    /// Word to write.
    pub write_data: Signal<In, Bits<W>>,
    /// Write at this edge.
    pub write_enable: Signal<In, Bit>,
    _mem: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> Default for BlockRam<W, A> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _mem: vec![Bits::default(); 1 << A],
        }
    }
}

impl<const W: usize, const A: usize> Logic for BlockRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.read_data.next = self._mem[self.read_address.val().index()];
            if self.write_enable.val() {
                self._mem[self.write_address.val().index()] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check *)
reg [{msb}:0] mem [0:{last}];

always @(posedge clock) begin
   read_data <= mem[read_address];
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            msb = W - 1,
            last = (1usize << A) - 1
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "ram_read".into(),
                clock: "clock".into(),
                inputs: vec!["read_address".into()],
                outputs: vec!["read_data".into()],
            },
            TimingInfo {
                name: "ram_write".into(),
                clock: "clock".into(),
                inputs: vec!["write_address".into(), "write_data".into(), "write_enable".into()],
                outputs: vec![],
            },
        ]
    }
}
