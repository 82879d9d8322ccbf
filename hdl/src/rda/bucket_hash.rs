//! Bucket hash unit of the RDA (Fu et al. §V-A: each bank hashes the packet
//! ID with an independent function; §V-B: the decoder re-hashes the XOR in a
//! bucket to test purity, so the function must not be GF(2)-linear). One ID
//! per clock, latency six, in the structure of
//! [`netmeas_sim::rda::hash`]:
//!
//! - **h1** `y` = L1(id): one XOR tree per bit (64 → 32);
//! - **h2** `w` = L2(S(y)): PRESENT S-box per nibble, XOR trees (32 → 32);
//! - **h3** `wm` = w: the products' input register, whose only load is the
//!   multipliers;
//! - **h4** `ph` = wm[31:16]·m, `pl` = wm[15:0]·m: two 16 × 16 products
//!   (one DSP each on ECP5, no registers inside);
//! - **h5** `phq`, `plq`: the products registered again, so that the
//!   registers right behind the DSPs have one load each and sit beside them
//!   (the DSP sites are few, and a register that also fed the adder was
//!   placed near the adder, rows away from its DSP);
//! - **h6** bucket = (phq + plq)[A+15:16] = ⌊w·m / 2^32⌋.
//!
//! The Verilog is generated directly (constant XOR networks and a case-table
//! S-box read best that way); simulation inside rust-hdl uses the golden hash.

use netmeas_sim::rda::hash::{BucketHash, SBOX, fastrange, sbox32};
use rust_hdl::prelude::*;

/// Latency of [`RdaBucketHash`] in clocks.
pub const BUCKET_HASH_LATENCY: usize = 6;

/// Hash of a 64-bit packet ID to a bucket index in 0..m (`A` = ⌈log2 m⌉ bits).
#[derive(LogicBlock)]
pub struct RdaBucketHash<const A: usize> {
    // --- clock ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    // --- ID stream (in) ---
    /// An ID is presented.
    pub s_valid: Signal<In, Bit>,
    /// The packet ID.
    pub s_id: Signal<In, Bits<64>>,
    // --- bucket stream (out), six clocks later ---
    /// `m_bucket` belongs to an ID presented six clocks ago.
    pub m_valid: Signal<Out, Bit>,
    /// h(id) in 0..m.
    pub m_bucket: Signal<Out, Bits<A>>,
    _hash: BucketHash,
    /// Simulation state: (valid, value) of stages h1..h5 (y, then w four times).
    _pipe: [(bool, u32); BUCKET_HASH_LATENCY - 1],
}

impl<const A: usize> RdaBucketHash<A> {
    /// The unit for one bank's hash (m must need exactly `A` address bits or fewer).
    pub fn new(hash: &BucketHash) -> Self {
        assert!(hash.buckets >= 2 && (hash.buckets as usize) <= 1 << A, "m must fit A bits");
        Self {
            clock: Default::default(),
            s_valid: Default::default(),
            s_id: Default::default(),
            m_valid: Default::default(),
            m_bucket: Default::default(),
            _hash: hash.clone(),
            _pipe: [(false, 0); BUCKET_HASH_LATENCY - 1],
        }
    }
}

fn to_u64(b: Bits<64>) -> u64 {
    (0..64).filter(|&i| b.get_bit(i)).fold(0u64, |v, i| v | 1 << i)
}

impl<const A: usize> Logic for RdaBucketHash<A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let [(v1, y), (v2, w), (v3, w3), (v4, w4), (v5, w5)] = self._pipe;
            self.m_valid.next = v5;
            self.m_bucket.next = (fastrange(w5, self._hash.buckets) as u64).into();
            let y_new = self._hash.layer1(to_u64(self.s_id.val()));
            self._pipe = [(self.s_valid.val(), y_new), (v1, self._hash.layer2(y)), (v2, w), (v3, w3), (v4, w4)];
        }
    }

    fn connect(&mut self) {
        self.m_valid.connect();
        self.m_bucket.connect();
    }

    fn hdl(&self) -> Verilog {
        let h = &self._hash;
        // Sanity: the table form of the golden model equals the layered form emitted here.
        debug_assert_eq!(h.layer2(0x1234_5678), {
            let l2 = netmeas_sim::h3::H3::from_matrix(&h.l2);
            l2.hash(sbox32(0x1234_5678) as u128) as u32
        });
        let mut v = String::new();
        v.push_str("// L1: 64 -> 32, y[j] = ^(s_id & L1_j); L2: 32 -> 32, w[j] = ^(z & L2_j).\n");
        for j in 0..32 {
            v.push_str(&format!("localparam [63:0] L1_{j} = 64'h{:016x};\n", h.l1.column(j)));
        }
        for j in 0..32 {
            v.push_str(&format!("localparam [31:0] L2_{j} = 32'h{:08x};\n", h.l2.column(j) as u32));
        }
        v.push_str(&format!("localparam [15:0] M = 16'd{};\n\n", h.buckets));
        v.push_str("// PRESENT S-box (the non-linear step).\nfunction [3:0] sbox(input [3:0] x);\n   case (x)\n");
        for (i, s) in SBOX.iter().enumerate() {
            v.push_str(&format!("      4'h{i:x}: sbox = 4'h{s:x};\n"));
        }
        v.push_str("      default: sbox = 4'h0;\n   endcase\nendfunction\n\n");
        v.push_str("wire [31:0] y_c;\nwire [31:0] z;\nwire [31:0] w_c;\n");
        v.push_str(
            "reg [31:0] y;\nreg [31:0] w;\nreg [31:0] wm;\nreg [31:0] ph;\nreg [31:0] pl;\nreg [31:0] phq;\n\
             reg [15:0] plq;\nreg v1;\nreg v2;\nreg v3;\nreg v4;\nreg v5;\n",
        );
        for j in 0..32 {
            v.push_str(&format!("assign y_c[{j}] = ^(s_id & L1_{j});\n"));
        }
        for n in 0..8 {
            v.push_str(&format!("assign z[{}:{}] = sbox(y[{}:{}]);\n", 4 * n + 3, 4 * n, 4 * n + 3, 4 * n));
        }
        for j in 0..32 {
            v.push_str(&format!("assign w_c[{j}] = ^(z & L2_{j});\n"));
        }
        v.push_str(&format!(
            "\n// Multiply-shift: bucket = floor(w * M / 2^32) from two 16 x 16 products.\n\
             wire [32:0] sum = {{1'b0, phq}} + {{17'b0, plq}};\n\
             /* verilator lint_off UNUSEDSIGNAL */\n\
             // Only bits [{msb}:16] of the sum are the bucket (it is below M); pl[15:0] only carries into bits below 16.\n\
             wire [32:0] sum_all = sum;\n\
             wire [15:0] pl_low = pl[15:0];\n\
             /* verilator lint_on UNUSEDSIGNAL */\n\n\
             always @(posedge clock) begin\n\
             \x20  y <= y_c;\n   v1 <= s_valid;\n\
             \x20  w <= w_c;\n   v2 <= v1;\n\
             \x20  wm <= w;\n   v3 <= v2;\n\
             \x20  ph <= {{16'b0, wm[31:16]}} * {{16'b0, M}};\n\
             \x20  pl <= {{16'b0, wm[15:0]}} * {{16'b0, M}};\n   v4 <= v3;\n\
             \x20  phq <= ph;\n   plq <= pl[31:16];\n   v5 <= v4;\n\
             \x20  m_bucket <= sum[{msb}:16];\n   m_valid <= v5;\nend\n",
            msb = A + 15
        ));
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "bucket_hash".into(),
            clock: "clock".into(),
            inputs: vec!["s_valid".into(), "s_id".into()],
            outputs: vec!["m_valid".into(), "m_bucket".into()],
        }]
    }
}
