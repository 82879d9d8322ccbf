//! H3 hash unit (Kompella et al. §V: "H3 hash", after Carter & Wegman): one key
//! per clock, `hash[j] = ^(key & Q_column_j)`: one balanced XOR tree per output
//! bit, optionally followed by an output register and optionally preceded by a
//! key register of the unit's own. The Q matrix comes from
//! [`netmeas_sim::h3::H3Matrix::generate`], the golden model's code path.
//!
//! The Verilog is generated directly (a constant XOR network reads best as one
//! `assign` per output bit); simulation inside rust-hdl uses the same matrix.

use netmeas_sim::h3::{H3, H3Config};
use rust_hdl::prelude::*;

/// H3 hash of a `K`-bit key to an `O`-bit value, with an optional output register
/// and an optional key register ([`H3Unit::with_key_register`]).
#[derive(LogicBlock)]
pub struct H3Unit<const K: usize, const O: usize> {
    // --- clock ---
    /// Clock (drives the output register when there is one).
    pub clock: Signal<In, Clock>,
    // --- key stream (in) ---
    /// A key is presented.
    pub s_valid: Signal<In, Bit>,
    /// The key.
    pub s_key: Signal<In, Bits<K>>,
    // --- hash stream (out): same cycle, or one cycle later when registered ---
    /// `m_hash` belongs to a presented key.
    pub m_valid: Signal<Out, Bit>,
    /// The hash.
    pub m_hash: Signal<Out, Bits<O>>,
    // --- the key the XOR trees read: `s_key` itself, or the unit's key register ---
    key_q: Signal<Local, Bits<K>>,
    valid_q: Signal<Local, Bit>,
    _cfg: H3Config,
    _golden: H3,
    _key_register: bool,
}

impl<const K: usize, const O: usize> H3Unit<K, O> {
    /// The unit for `cfg` (whose widths must be `K` and `O`).
    pub fn new(cfg: &H3Config) -> Self {
        assert_eq!((cfg.key_bits, cfg.out_bits), (K, O), "H3 widths differ from the config");
        Self {
            clock: Default::default(),
            s_valid: Default::default(),
            s_key: Default::default(),
            m_valid: Default::default(),
            m_hash: Default::default(),
            key_q: Default::default(),
            valid_q: Default::default(),
            _cfg: cfg.clone(),
            _golden: H3::new(cfg),
            _key_register: false,
        }
    }

    /// The same unit with a key register of its own in front of the XOR trees:
    /// one more clock of latency, and the register carries `(* keep *)` so that
    /// synthesis neither merges it with other units' key registers nor shares
    /// XOR terms across units. Several units hashing one key (the SVBF's h
    /// functions, MAPLE §3.3) can then sit beside their consumers, each with
    /// its own copy of the key, instead of all reading one register across the die.
    pub fn with_key_register(mut self) -> Self {
        self._key_register = true;
        self
    }
}

/// Bits<N> → u128 (N ≤ 128), for the simulation model.
fn to_u128<const N: usize>(b: Bits<N>) -> u128 {
    let mut v = 0u128;
    for i in 0..N {
        if b.get_bit(i) {
            v |= 1 << i;
        }
    }
    v
}

impl<const K: usize, const O: usize> Logic for H3Unit<K, O> {
    fn update(&mut self) {
        if self._key_register {
            if self.clock.pos_edge() {
                self.key_q.next = self.s_key.val();
                self.valid_q.next = self.s_valid.val();
            }
        } else {
            self.key_q.next = self.s_key.val();
            self.valid_q.next = self.s_valid.val();
        }
        let hash: Bits<O> = (self._golden.hash(to_u128(self.key_q.val()))).into();
        if self._cfg.registered {
            if self.clock.pos_edge() {
                self.m_hash.next = hash;
                self.m_valid.next = self.valid_q.val();
            }
        } else {
            self.m_hash.next = hash;
            self.m_valid.next = self.valid_q.val();
        }
    }

    fn connect(&mut self) {
        self.key_q.connect();
        self.valid_q.connect();
        self.m_hash.connect();
        self.m_valid.connect();
    }

    fn hdl(&self) -> Verilog {
        let m = netmeas_sim::h3::H3Matrix::generate(self._cfg.seed, K, O);
        let hex = (K + 3) / 4;
        let mut v = String::new();
        v.push_str(&format!("// Q matrix columns: hash[j] = ^(s_key & Q_j); seed 0x{:016x}\n", self._cfg.seed));
        for j in 0..O {
            v.push_str(&format!("localparam [{}:0] Q_{j} = {K}'h{:0hex$x};\n", K - 1, m.column(j)));
        }
        if self._key_register {
            v.push_str(&format!(
                "\n// Key register: one cycle of latency. `keep` stops synthesis from merging it\n\
                 // with another unit's copy of the same key (and so from sharing XOR terms).\n\
                 (* keep *)\nalways @(posedge clock) begin\n   key_q <= s_key;\nend\n\
                 always @(posedge clock) begin\n   valid_q <= s_valid;\nend\n\
                 initial begin\n   key_q = {K}'d0;\n   valid_q = 1'b0;\nend\n",
            ));
        } else {
            v.push_str("\n// No key register.\nalways @(*) begin\n   key_q = s_key;\n   valid_q = s_valid;\nend\n");
        }
        v.push_str(&format!("wire [{}:0] hash;\n", O - 1));
        for j in 0..O {
            v.push_str(&format!("assign hash[{j}] = ^(key_q & Q_{j});\n"));
        }
        if self._cfg.registered {
            v.push_str(&format!(
                "\n// Output register: one cycle of latency, cleared at power-up as every register is.\n\
                 always @(posedge clock) begin\n   m_hash <= hash;\n   m_valid <= valid_q;\nend\n\
                 initial begin\n   m_hash = {O}'d0;\n   m_valid = 1'b0;\nend\n",
            ));
        } else {
            v.push_str(
                "\n// Combinational output; the clock is unused in this configuration.\n\
                 /* verilator lint_off UNUSEDSIGNAL */\nwire unused_clock = clock;\n/* verilator lint_on UNUSEDSIGNAL */\n\
                 always @(*) begin\n   m_hash = hash;\n   m_valid = valid_q;\nend\n",
            );
        }
        Verilog::Custom(v)
    }
}
