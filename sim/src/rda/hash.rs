//! The RDA's bucket hash h_l (Fu et al. §V-A: each bank hashes the packet ID
//! with an independent function; Algorithm 1 line 5 calls a bucket pure when
//! h_l(ID) equals its index and |Δ| = 1).
//!
//! The purity test needs a hash that is *not* linear over GF(2). With a bare
//! H3 (linear) index, three packets in one bucket satisfy
//! h(a ⊕ b ⊕ c) = h(a) ⊕ h(b) ⊕ h(c) = i, so every bucket holding an odd
//! number of differences with |Δ| = 1 would pass as pure and decode a wrong
//! ID. The hardware therefore builds h_l as one round of a substitution-
//! permutation network around H3, all of it cheap in LUTs:
//!
//! 1. y = L1(id): H3, 64 → 32 bits (XOR trees);
//! 2. z = S(y): the 4-bit PRESENT S-box on each nibble (one LUT4 per bit),
//!    the non-linear step;
//! 3. w = L2(z): H3, 32 → 32 bits with an invertible matrix (XOR trees);
//! 4. index = ⌊w · m / 2^32⌋ (multiply-shift, so m need not be a power of two).
//!
//! The RTL registers y, w and the two partial products of step 4.

use crate::h3::{H3, H3Config, H3Matrix};

/// The PRESENT cipher's 4-bit S-box (Bogdanov et al., CHES 2007): differential
/// uniformity 4, no linear component.
pub const SBOX: [u8; 16] = [0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2];

/// S applied to every nibble of a 32-bit word.
#[inline]
pub fn sbox32(y: u32) -> u32 {
    (0..8).fold(0, |z, n| z | (SBOX[((y >> (4 * n)) & 15) as usize] as u32) << (4 * n))
}

/// ⌊w · m / 2^32⌋: the bucket of a 32-bit hash among `m` (the RTL computes it
/// from two 16 × 16 products, `(w_hi·m + (w_lo·m >> 16)) >> 16`, the same value).
#[inline]
pub fn fastrange(w: u32, m: u32) -> u32 {
    ((w as u64 * m as u64) >> 32) as u32
}

/// Whether a 32 × 32 matrix (rows as u32) is invertible over GF(2).
fn invertible(rows: &[u64]) -> bool {
    let mut r: Vec<u32> = rows.iter().map(|&x| x as u32).collect();
    for bit in 0..32 {
        let Some(p) = (bit..32).find(|&i| (r[i] >> bit) & 1 == 1) else { return false };
        r.swap(bit, p);
        let pivot = r[bit];
        for (i, x) in r.iter_mut().enumerate() {
            if i != bit && (*x >> bit) & 1 == 1 {
                *x ^= pivot;
            }
        }
    }
    true
}

/// The H3 config of the first linear layer of a bank hash.
pub fn l1_config(seed: u64) -> H3Config {
    H3Config { key_bits: 64, out_bits: 32, seed, registered: true, name: None }
}

/// The sampling hash of an RDA: H3 of the ID to 24 bits (linear is fine here:
/// it only has to select the same packets at both ends).
pub fn sample_hash_config(seed: u64) -> H3Config {
    H3Config { key_bits: 64, out_bits: 24, seed: seed ^ 0x7361_6d70_6c65_5f31, registered: true, name: None }
}

/// One bank's bucket hash: the matrices the RTL is generated from and fast
/// golden tables (the S-box is folded into L2's byte tables).
#[derive(Clone, Debug)]
pub struct BucketHash {
    /// First linear layer, 64 → 32.
    pub l1: H3Matrix,
    /// Second linear layer, 32 → 32 (invertible).
    pub l2: H3Matrix,
    /// Buckets m.
    pub buckets: u32,
    l1_fast: H3,
    /// `s_l2[b][v]` = L2(S(v) placed at byte `b`).
    s_l2: Box<[[u32; 256]; 4]>,
}

impl BucketHash {
    /// The hash of one bank from its seed; `buckets` = m.
    pub fn new(seed: u64, buckets: usize) -> Self {
        let l1 = H3Matrix::generate(seed, 64, 32);
        let mut s2 = seed ^ 0x6c32_5f73_6565_6400;
        let l2 = loop {
            let m = H3Matrix::generate(s2, 32, 32);
            if invertible(&m.rows) {
                break m;
            }
            s2 = s2.wrapping_add(1);
        };
        let l2_fast = H3::from_matrix(&l2);
        let mut s_l2 = Box::new([[0u32; 256]; 4]);
        for (b, t) in s_l2.iter_mut().enumerate() {
            for (v, slot) in t.iter_mut().enumerate() {
                *slot = l2_fast.hash((sbox32(v as u32) as u128 & 0xff) << (8 * b)) as u32;
            }
        }
        Self { l1_fast: H3::from_matrix(&l1), l1, l2, buckets: buckets as u32, s_l2 }
    }

    /// y = L1(id).
    #[inline]
    pub fn layer1(&self, id: u64) -> u32 {
        self.l1_fast.hash(id as u128) as u32
    }

    /// w = L2(S(y)).
    #[inline]
    pub fn layer2(&self, y: u32) -> u32 {
        let b = y.to_le_bytes();
        self.s_l2[0][b[0] as usize]
            ^ self.s_l2[1][b[1] as usize]
            ^ self.s_l2[2][b[2] as usize]
            ^ self.s_l2[3][b[3] as usize]
    }

    /// The bucket h_l(id) in 0..m.
    #[inline]
    pub fn bucket(&self, id: u64) -> u32 {
        fastrange(self.layer2(self.layer1(id)), self.buckets)
    }
}

/// Most banks a [`MultiBucketHash`] holds (the RTL's limit, `RDA_BANKS`).
pub const MULTI_HASH_BANKS: usize = 4;

/// Every bank's h_l at once, for the golden model's per-packet path: the
/// first layers of two banks share one table of u64 entries (eight lookups
/// for both), the S-box is folded into each bank's L2 tables. All tables sit
/// in one fixed-size allocation (no per-bank pointers to follow), so the whole
/// hash inlines into the packet loop. Same values as [`BucketHash::bucket`].
#[derive(Clone, Debug)]
pub struct MultiBucketHash {
    t: Box<MultiTables>,
    /// Banks k.
    banks: usize,
}

#[derive(Clone, Debug)]
struct MultiTables {
    /// `l1[p][b][v]`: L1 of banks 2p (low half) and 2p + 1 (high half) of byte value `v` at byte `b`.
    l1: [[[u64; 256]; 8]; MULTI_HASH_BANKS / 2],
    /// `l2[l][b][v]`: L2(S(v) at byte `b`) of bank `l`.
    l2: [[[u32; 256]; 4]; MULTI_HASH_BANKS],
    /// m of each bank.
    m: [u32; MULTI_HASH_BANKS],
}

impl MultiBucketHash {
    /// The combined hasher of `banks` (1 to [`MULTI_HASH_BANKS`] of them).
    pub fn new(banks: &[BucketHash]) -> Self {
        assert!((1..=MULTI_HASH_BANKS).contains(&banks.len()), "1 to {MULTI_HASH_BANKS} banks");
        let mut t = Box::new(MultiTables {
            l1: [[[0; 256]; 8]; MULTI_HASH_BANKS / 2],
            l2: [[[0; 256]; 4]; MULTI_HASH_BANKS],
            m: [0; MULTI_HASH_BANKS],
        });
        for (p, pair) in banks.chunks(2).enumerate() {
            for (b, row) in t.l1[p].iter_mut().enumerate() {
                for (v, slot) in row.iter_mut().enumerate() {
                    let key = (v as u64) << (8 * b);
                    let hi = pair.get(1).map_or(0, |h| h.layer1(key) as u64);
                    *slot = pair[0].layer1(key) as u64 | hi << 32;
                }
            }
        }
        for (l, h) in banks.iter().enumerate() {
            t.l2[l] = *h.s_l2;
            t.m[l] = h.buckets;
        }
        Self { t, banks: banks.len() }
    }

    /// L1 of banks 2p and 2p + 1 (low and high half).
    #[inline(always)]
    fn first(&self, p: usize, id: u64) -> u64 {
        let t = &self.t.l1[p];
        let byte = |b: usize| ((id >> (8 * b)) & 0xff) as usize;
        t[0][byte(0)]
            ^ t[1][byte(1)]
            ^ t[2][byte(2)]
            ^ t[3][byte(3)]
            ^ t[4][byte(4)]
            ^ t[5][byte(5)]
            ^ t[6][byte(6)]
            ^ t[7][byte(7)]
    }

    /// Bank `l`'s index from its L1 output `y`.
    #[inline(always)]
    fn second(&self, l: usize, y: u32) -> u32 {
        let t = &self.t.l2[l];
        let w = t[0][(y & 0xff) as usize]
            ^ t[1][((y >> 8) & 0xff) as usize]
            ^ t[2][((y >> 16) & 0xff) as usize]
            ^ t[3][(y >> 24) as usize];
        fastrange(w, self.t.m[l])
    }

    /// h_l(id) of banks l = 0 and 1 (bank 1's is 0 when k = 1).
    #[inline(always)]
    pub fn first_two(&self, id: u64) -> [u32; 2] {
        let y = self.first(0, id);
        [self.second(0, y as u32), self.second(1, (y >> 32) as u32)]
    }

    /// h_l(id) of banks l = 2 and 3 (0 where k is smaller).
    #[inline(always)]
    pub fn last_two(&self, id: u64) -> [u32; 2] {
        let y = self.first(1, id);
        [self.second(2, y as u32), self.second(3, (y >> 32) as u32)]
    }

    /// h_l(id) of every bank l (slots at and above k are 0).
    #[inline(always)]
    pub fn buckets(&self, id: u64) -> [u32; MULTI_HASH_BANKS] {
        let [a, b] = self.first_two(id);
        let [c, d] = if self.banks > 2 { self.last_two(id) } else { [0, 0] };
        [a, b, c, d]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    #[test]
    fn combined_hasher_matches_each_bank() {
        for k in 1..=4 {
            let banks: Vec<BucketHash> = (0..k).map(|l| BucketHash::new(100 + l as u64, 2500 + 7 * l)).collect();
            let fast = MultiBucketHash::new(&banks);
            let mut rng = SplitMix64::new(k as u64);
            for _ in 0..20_000 {
                let id = rng.next_u64();
                let out = fast.buckets(id);
                for (l, h) in banks.iter().enumerate() {
                    assert_eq!(out[l], h.bucket(id), "k {k} bank {l}");
                }
            }
        }
    }

    #[test]
    fn tables_match_the_layered_definition() {
        let h = BucketHash::new(7, 2500);
        let l1 = H3::from_matrix(&h.l1);
        let l2 = H3::from_matrix(&h.l2);
        let mut rng = SplitMix64::new(1);
        for _ in 0..10_000 {
            let id = rng.next_u64();
            let w = l2.hash(sbox32(l1.hash(id as u128) as u32) as u128) as u32;
            assert_eq!(h.bucket(id), fastrange(w, 2500));
            assert!(h.bucket(id) < 2500);
        }
        assert!(invertible(&h.l2.rows));
    }

    #[test]
    fn two_product_fastrange_is_exact() {
        let mut rng = SplitMix64::new(2);
        for _ in 0..100_000 {
            let (w, m) = (rng.next_u64() as u32, 2 + rng.below(32767) as u32);
            let two = ((w >> 16) * m + (((w & 0xffff) * m) >> 16)) >> 16;
            assert_eq!(two, fastrange(w, m));
        }
    }

    #[test]
    fn buckets_are_uniform() {
        let h = BucketHash::new(3, 2500);
        let mut n = vec![0u32; 2500];
        for id in 0..2_500_000u64 {
            n[h.bucket(id) as usize] += 1;
        }
        // Sequential IDs are the worst case for a linear first layer; the
        // counts must still look binomial (mean 1000, sd ≈ 31.6).
        let chi2: f64 = n.iter().map(|&c| (c as f64 - 1000.0).powi(2) / 1000.0).sum();
        assert!(chi2 < 2500.0 + 5.0 * (2.0 * 2500.0f64).sqrt(), "chi2 {chi2}");
    }

    /// The reason for the S-box: with a linear hash, XORs of three IDs of one
    /// bucket land in that bucket every time; with h_l they land there about
    /// once in m, as for a random function.
    #[test]
    fn odd_mixtures_do_not_look_pure() {
        let m = 256u32;
        let h = BucketHash::new(11, m as usize);
        let linear = H3::from_matrix(&h.l1);
        let lin_bucket = |id: u64| (linear.hash(id as u128) as u32) >> 24;
        let mut rng = SplitMix64::new(5);
        let (mut by_h, mut by_lin) = (vec![Vec::new(); m as usize], vec![Vec::new(); m as usize]);
        for _ in 0..200_000 {
            let id = rng.next_u64();
            by_h[h.bucket(id) as usize].push(id);
            by_lin[lin_bucket(id) as usize].push(id);
        }
        let (mut trials, mut false_h, mut false_lin) = (0u32, 0u32, 0u32);
        for b in 0..m as usize {
            for t in by_h[b].chunks_exact(3) {
                trials += 1;
                false_h += (h.bucket(t[0] ^ t[1] ^ t[2]) as usize == b) as u32;
            }
            for t in by_lin[b].chunks_exact(3) {
                false_lin += (lin_bucket(t[0] ^ t[1] ^ t[2]) as usize == b) as u32;
            }
        }
        assert!(trials > 60_000);
        assert!(false_lin as f64 > 0.99 * trials as f64, "linear: {false_lin} of {trials}");
        // Expected trials / m ≈ 260; a random function stays below 2× that.
        assert!((false_h as f64) < 2.0 * trials as f64 / m as f64, "h_l: {false_h} of {trials}");
    }
}
