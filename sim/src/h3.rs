//! H3 universal hashing (Carter & Wegman), the hash the LDA paper's hardware
//! strawman uses for row selection and sampling (Kompella et al., §V).
//!
//! `h(x) = XOR over every set key bit i of Q[i]`, with `Q` a `key_bits × out_bits`
//! random bit matrix. The matrix is drawn from [`SplitMix64`] seeded with the
//! config's seed; the RTL generator (`netmeas-hdl`) calls [`H3Matrix::generate`]
//! too, so both sides hash with the same matrix by construction.

use crate::error::{ConfigError, check_one_of};
use crate::prng::SplitMix64;
use serde::{Deserialize, Serialize};

/// Key widths the exported H3 block is built for (the RTL has const-generic widths).
pub const H3_KEY_BITS: &[usize] = &[8, 16, 24, 32, 48, 64, 96, 104, 112, 120, 128];
/// Output widths the exported H3 block is built for.
pub const H3_OUT_BITS: &[usize] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 32, 40, 48, 64];

/// Parameters of one H3 hash unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct H3Config {
    /// Width of the key in bits (8..=128, see [`H3_KEY_BITS`]).
    pub key_bits: usize,
    /// Width of the hash in bits (1..=64, see [`H3_OUT_BITS`]).
    pub out_bits: usize,
    /// Seed of the Q matrix.
    pub seed: u64,
    /// Register the hash output (one cycle of latency) instead of a purely
    /// combinational path from key to hash.
    pub registered: bool,
    /// Top module name of the export; derived from the config when absent.
    pub name: Option<String>,
}

impl Default for H3Config {
    fn default() -> Self {
        Self { key_bits: 128, out_bits: 32, seed: 0x4833_5f6e_6d5f_0001, registered: true, name: None }
    }
}

impl H3Config {
    /// Checks every field; the error names the first impossible one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.key_bits == 0 || self.key_bits > 128 {
            return Err(ConfigError::new("key_bits", format!("{} is outside 1..=128", self.key_bits)));
        }
        if self.out_bits == 0 || self.out_bits > 64 {
            return Err(ConfigError::new("out_bits", format!("{} is outside 1..=64", self.out_bits)));
        }
        check_one_of("key_bits", self.key_bits, H3_KEY_BITS)?;
        check_one_of("out_bits", self.out_bits, H3_OUT_BITS)?;
        if let Some(n) = &self.name {
            crate::check_module_name("name", n)?;
        }
        Ok(())
    }

    /// The Verilog top module name of this config.
    pub fn top_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            format!(
                "netmeas_h3_k{}_o{}_{}{:08x}",
                self.key_bits,
                self.out_bits,
                if self.registered { "r_" } else { "c_" },
                (self.seed ^ (self.seed >> 32)) as u32
            )
        })
    }
}

/// The H3 Q matrix: one `out_bits`-wide row per key bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct H3Matrix {
    /// `rows[i]` is XORed into the hash when key bit `i` is set.
    pub rows: Vec<u64>,
    /// Output width in bits.
    pub out_bits: usize,
}

impl H3Matrix {
    /// Draws the matrix for `key_bits × out_bits` from `seed`. This is the single
    /// code path used by the RTL generator and the golden model.
    pub fn generate(seed: u64, key_bits: usize, out_bits: usize) -> Self {
        assert!((1..=128).contains(&key_bits) && (1..=64).contains(&out_bits));
        let mask = out_mask(out_bits);
        let mut rng = SplitMix64::new(seed);
        let rows = (0..key_bits).map(|_| rng.next_u64() & mask).collect();
        Self { rows, out_bits }
    }

    /// Column `j` of the matrix as a key-wide mask: hash bit `j` is the parity
    /// of `key & column(j)` (the form the RTL uses: one XOR tree per output bit).
    pub fn column(&self, j: usize) -> u128 {
        self.rows.iter().enumerate().filter(|(_, r)| (*r >> j) & 1 == 1).fold(0u128, |acc, (i, _)| acc | (1u128 << i))
    }
}

/// Bit mask of the low `bits` bits (1..=64).
pub fn out_mask(bits: usize) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

/// Golden H3: table-driven (one 256-entry table per key byte), bit-identical to the RTL.
/// Always sixteen tables (all-zero above the key width) so the lookup loop has
/// a fixed trip count and unrolls without bounds checks.
#[derive(Clone, Debug)]
pub struct H3 {
    tables: Box<[[u64; 256]; 16]>,
    key_mask: u128,
}

impl H3 {
    /// Builds the golden hash for a validated config.
    pub fn new(cfg: &H3Config) -> Self {
        Self::from_matrix(&H3Matrix::generate(cfg.seed, cfg.key_bits, cfg.out_bits))
    }

    /// Builds the golden hash from an explicit matrix.
    pub fn from_matrix(m: &H3Matrix) -> Self {
        let key_bits = m.rows.len();
        let mut tables = Box::new([[0u64; 256]; 16]);
        for (b, t) in tables.iter_mut().enumerate() {
            for (v, slot) in t.iter_mut().enumerate() {
                for bit in 0..8 {
                    let i = b * 8 + bit;
                    if i < key_bits && (v >> bit) & 1 == 1 {
                        *slot ^= m.rows[i];
                    }
                }
            }
        }
        let key_mask = if key_bits == 128 { u128::MAX } else { (1u128 << key_bits) - 1 };
        Self { tables, key_mask }
    }

    /// Two hashes of the same key width in one: `lo` in the low bits and `hi`
    /// shifted up by `shift` (which must exceed `lo`'s output width), so one
    /// pass over the key bytes computes both.
    pub fn paired(lo: &H3, hi: &H3, shift: u32) -> Self {
        assert_eq!(lo.key_mask, hi.key_mask, "paired H3 hashes need the same key width");
        let mut tables = lo.tables.clone();
        for (t, h) in tables.iter_mut().zip(hi.tables.iter()) {
            for (a, b) in t.iter_mut().zip(h) {
                *a ^= b << shift;
            }
        }
        Self { tables, key_mask: lo.key_mask }
    }

    /// The hash of `key` (bits above the key width are ignored, as in the RTL port).
    #[inline]
    pub fn hash(&self, key: u128) -> u64 {
        let key = key & self.key_mask;
        let bytes = key.to_le_bytes();
        let mut h = 0;
        for (t, b) in self.tables.iter().zip(bytes.iter()) {
            h ^= t[*b as usize];
        }
        h
    }

    /// The hash of a key of at most 32 bits (four table lookups; equal to
    /// [`H3::hash`] of the same key, whose higher byte tables see zeros).
    #[inline]
    pub fn hash32(&self, key: u32) -> u64 {
        let b = (key & self.key_mask as u32).to_le_bytes();
        self.tables[0][b[0] as usize]
            ^ self.tables[1][b[1] as usize]
            ^ self.tables[2][b[2] as usize]
            ^ self.tables[3][b[3] as usize]
    }
}

/// Inputs of the H3 block in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct H3Inputs {
    /// A key is presented this cycle.
    pub valid: bool,
    /// The key.
    pub key: u128,
}

/// Outputs of the H3 block in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct H3Outputs {
    /// `hash` belongs to a presented key.
    pub valid: bool,
    /// The hash (meaningful when `valid`).
    pub hash: u64,
}

/// Cycle model of the H3 block: combinational, or with one output register.
#[derive(Clone, Debug)]
pub struct H3Cycle {
    h3: H3,
    registered: bool,
    out: H3Outputs,
}

impl H3Cycle {
    /// A cycle model for `cfg`, with the output register cleared (its power-up value).
    pub fn new(cfg: &H3Config) -> Self {
        Self { h3: H3::new(cfg), registered: cfg.registered, out: H3Outputs::default() }
    }

    /// One clock: the outputs seen during this cycle for inputs `i`.
    pub fn step(&mut self, i: &H3Inputs) -> H3Outputs {
        let now = H3Outputs { valid: i.valid, hash: self.h3.hash(i.key) };
        if self.registered { std::mem::replace(&mut self.out, now) } else { now }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(m: &H3Matrix, key: u128) -> u64 {
        m.rows.iter().enumerate().filter(|(i, _)| (key >> i) & 1 == 1).fold(0, |a, (_, r)| a ^ r)
    }

    #[test]
    fn hash32_equals_hash_on_short_keys() {
        let mut r = SplitMix64::new(3);
        for key_bits in [16, 32, 64] {
            let h = H3::new(&H3Config { key_bits, out_bits: 32, seed: 11, ..Default::default() });
            for _ in 0..1000 {
                let k = r.next_u64() as u32;
                assert_eq!(h.hash32(k), h.hash(k as u128));
            }
        }
    }

    #[test]
    fn paired_hash_is_both_hashes() {
        let lo = H3::new(&H3Config { key_bits: 120, out_bits: 11, seed: 1, registered: true, name: None });
        let hi = H3::new(&H3Config { key_bits: 120, out_bits: 24, seed: 2, registered: true, name: None });
        let both = H3::paired(&lo, &hi, 32);
        let mut rng = crate::prng::SplitMix64::new(3);
        for _ in 0..1000 {
            let k = rng.next_u128();
            assert_eq!(both.hash(k), lo.hash(k) | hi.hash(k) << 32);
        }
    }

    #[test]
    fn table_hash_equals_definition() {
        for (k, o, seed) in [(128, 64, 1u64), (104, 10, 2), (8, 1, 3), (48, 20, 4)] {
            let m = H3Matrix::generate(seed, k, o);
            let h = H3::from_matrix(&m);
            let mut r = SplitMix64::new(seed);
            for _ in 0..2000 {
                let key = r.next_u128();
                let masked = if k == 128 { key } else { key & ((1u128 << k) - 1) };
                assert_eq!(h.hash(key), naive(&m, masked));
                assert!(h.hash(key) <= out_mask(o));
            }
        }
    }

    #[test]
    fn hash_is_linear_over_xor() {
        // H3 is GF(2)-linear: h(a ^ b) = h(a) ^ h(b). A broken table build fails this.
        let h = H3::new(&H3Config::default());
        let mut r = SplitMix64::new(9);
        for _ in 0..1000 {
            let (a, b) = (r.next_u128(), r.next_u128());
            assert_eq!(h.hash(a ^ b), h.hash(a) ^ h.hash(b));
        }
        assert_eq!(h.hash(0), 0);
    }

    #[test]
    fn columns_reproduce_rows() {
        let m = H3Matrix::generate(5, 104, 12);
        for (i, row) in m.rows.iter().enumerate() {
            for j in 0..12 {
                assert_eq!((row >> j) & 1 == 1, (m.column(j) >> i) & 1 == 1);
            }
        }
    }

    #[test]
    fn output_bits_are_balanced() {
        // Each output bit of a random H3 should be set for about half of random keys.
        let h = H3::new(&H3Config { out_bits: 16, ..Default::default() });
        let mut r = SplitMix64::new(11);
        let mut ones = [0u32; 16];
        let n = 20_000;
        for _ in 0..n {
            let v = h.hash(r.next_u128());
            for (j, c) in ones.iter_mut().enumerate() {
                *c += ((v >> j) & 1) as u32;
            }
        }
        for c in ones {
            assert!((c as f64 / n as f64 - 0.5).abs() < 0.03, "bias {c}/{n}");
        }
    }

    #[test]
    fn registered_model_delays_by_one() {
        let cfg = H3Config { registered: true, ..Default::default() };
        let mut m = H3Cycle::new(&cfg);
        let h = H3::new(&cfg);
        assert_eq!(m.step(&H3Inputs { valid: true, key: 42 }), H3Outputs::default());
        let o = m.step(&H3Inputs { valid: false, key: 7 });
        assert_eq!(o, H3Outputs { valid: true, hash: h.hash(42) });
    }

    #[test]
    fn bad_configs_name_the_field() {
        let e = H3Config { key_bits: 0, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "key_bits");
        let e = H3Config { out_bits: 65, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "out_bits");
        let e = H3Config { out_bits: 33, ..Default::default() }.validate().unwrap_err();
        assert!(e.message.contains("supported"));
        let e = H3Config { name: Some("9bad".into()), ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "name");
    }
}
