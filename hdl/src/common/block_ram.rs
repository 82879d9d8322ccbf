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

/// `depth` (≤ 2^A, 2^A by default) words of `W` bits: write port (address,
/// data, enable) and a read port whose data appears one clock after its
/// address. Addresses at or above `depth` must not be used.
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

impl<const W: usize, const A: usize> BlockRam<W, A> {
    /// A RAM of `depth` words (1..=2^A): a bank of 2500 rows needs no 4096-word memory.
    pub fn with_depth(depth: usize) -> Self {
        assert!(depth >= 1 && depth <= 1 << A, "depth must be in 1..=2^A");
        Self { _mem: vec![Bits::default(); depth], ..Default::default() }
    }
}

impl<const W: usize, const A: usize> Logic for BlockRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // Beyond the depth, reads are undefined (0 here) and writes are dropped.
            self.read_data.next = self._mem.get(self.read_address.val().index()).copied().unwrap_or_default();
            if self.write_enable.val() {
                if let Some(w) = self._mem.get_mut(self.write_address.val().index()) {
                    *w = self.write_data.val();
                }
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        // A memory of `depth` words is indexed by the low ceil(log2(depth)) address bits;
        // the rest are zero by the contract above and are left unused.
        let depth = self._mem.len();
        let aw = (usize::BITS - (depth - 1).leading_zeros()).max(1) as usize;
        let (index_r, index_w, unused) = if aw < A {
            (
                format!("read_address[{}:0]", aw - 1),
                format!("write_address[{}:0]", aw - 1),
                format!(
                    "// Addresses are below {depth}: bits [{msb}:{aw}] are zero.\n\
                     /* verilator lint_off UNUSEDSIGNAL */\n\
                     wire unused_high_address = |{{read_address[{msb}:{aw}], write_address[{msb}:{aw}]}};\n\
                     /* verilator lint_on UNUSEDSIGNAL */\n",
                    msb = A - 1
                ),
            )
        } else {
            ("read_address".to_string(), "write_address".to_string(), String::new())
        };
        Verilog::Custom(format!(
            "\
{unused}(* no_rw_check *)
reg [{msb}:0] mem [0:{last}];

always @(posedge clock) begin
   read_data <= mem[{index_r}];
   if (write_enable) begin
      mem[{index_w}] <= write_data;
   end
end
",
            msb = W - 1,
            last = depth - 1
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
