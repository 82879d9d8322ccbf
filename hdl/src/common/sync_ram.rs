//! Simple dual-port block RAM with a one-clock registered read: the RAM's
//! own read register is the output, and a write lands at the edge that
//! samples it. For memories whose reads are chased (a linked list walked
//! one node per two clocks) and cannot wait the three clocks of
//! [`BlockRam`](super::block_ram::BlockRam); the user registers the data
//! before deep logic.
//!
//! Written as custom Verilog so that synthesis maps it to block RAM without
//! emulation logic: no `initial`, and `(* no_rw_check *)` (a read of the row
//! written at the same edge is undefined; every user avoids it or ignores the
//! word). In simulation such a read returns the old data, as Verilator does.

use super::index_bits::index_bits;
use super::ram_ports::{ram_port_timing, unused_high_address};
use rust_hdl::prelude::*;

/// `depth` (≤ 2^A) words of `W` bits: a write port whose word lands at the
/// edge that samples it, and a read port whose word (read at the edge that
/// samples its address, before that edge's write) is on `read_data` for the
/// next clock. Addresses at or above `depth` read an undefined word and must
/// not be written.
#[derive(LogicBlock)]
pub struct SyncRam<const W: usize, const A: usize> {
    /// The one clock of both ports.
    pub clock: Signal<In, Clock>,
    /// Read address, sampled at the rising edge.
    pub read_address: Signal<In, Bits<A>>,
    /// Word at the read address of the last edge.
    pub read_data: Signal<Out, Bits<W>>,
    /// Write address.
    pub write_address: Signal<In, Bits<A>>,
    /// Word to write.
    pub write_data: Signal<In, Bits<W>>,
    /// Write at this edge.
    pub write_enable: Signal<In, Bit>,
    _mem: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> Default for SyncRam<W, A> {
    fn default() -> Self {
        Self::with_depth(1 << A)
    }
}

impl<const W: usize, const A: usize> SyncRam<W, A> {
    /// A RAM of `depth` words (1..=2^A).
    pub fn with_depth(depth: usize) -> Self {
        assert!(depth >= 1 && depth <= 1 << A, "depth must be in 1..=2^A");
        Self {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _mem: vec![Bits::default(); depth],
        }
    }
}

impl<const W: usize, const A: usize> Logic for SyncRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // Beyond the depth, reads are undefined (0 here).
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
        Verilog::Custom(sync_ram_verilog(W, A, self._mem.len()))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        ram_port_timing()
    }
}

/// The body of a `depth`-word RAM of `w`-bit words behind `a` address bits.
pub fn sync_ram_verilog(w: usize, a: usize, depth: usize) -> String {
    let aw = index_bits(depth).min(a);
    let mut v = String::new();
    let (ra, wa) = if aw < a {
        v.push_str(&unused_high_address(depth, a, aw, " for writes (and reads that matter)"));
        (format!("read_address[{}:0]", aw - 1), format!("write_address[{}:0]", aw - 1))
    } else {
        ("read_address".to_string(), "write_address".to_string())
    };
    v.push_str(&format!(
        "(* no_rw_check *)\n\
         reg [{msb}:0] mem [0:{last}];\n\n\
         always @(posedge clock) begin\n\
         \x20  read_data <= mem[{ra}];\n\
         \x20  if (write_enable) begin\n\
         \x20     mem[{wa}] <= write_data;\n\
         \x20  end\n\
         end\n",
        msb = w - 1,
        last = depth - 1,
    ));
    v
}
