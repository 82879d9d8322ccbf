//! The two software baselines of MAPLE §3.3 at a memory budget equal to the
//! SVBF's: the partitioned Bloom filter (PBF, §3.3.1: one Bloom filter per
//! center, memory split by the centers' expected shares) and the
//! combinatorial Bloom filter (COMB, §3.3.2: one Bloom filter, a θ-of-f code
//! per center, h hash functions per code bit). Both report the candidate
//! centers of a key so that classification failure is counted as for SVBF.

use crate::h3::{H3, H3Matrix};

fn hashes(seed: u64, n: usize) -> Vec<H3> {
    (0..n)
        .map(|j| {
            H3::from_matrix(&H3Matrix::generate(seed ^ (j as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15), 64, 32))
        })
        .collect()
}

/// Position of a 32-bit hash in `bits` bits: ⌊hash · bits / 2^32⌋.
fn reduce(h: u64, bits: usize) -> usize {
    ((h * bits as u64) >> 32) as usize
}

fn set(v: &mut [u64], b: usize) {
    v[b / 64] |= 1 << (b % 64);
}

fn get(v: &[u64], b: usize) -> bool {
    v[b / 64] >> (b % 64) & 1 == 1
}

/// PBF: center i owns a Bloom filter of `m_i` bits with the same h hash functions.
#[derive(Clone, Debug)]
pub struct Pbf {
    hashes: Vec<H3>,
    bits: Vec<usize>,
    filters: Vec<Vec<u64>>,
}

impl Pbf {
    /// `m` bits split over the centers in proportion to `shares` (e.g. the
    /// per-center counts of an earlier epoch, §5.3); every filter gets at least 64 bits.
    pub fn new(m: usize, shares: &[f64], h: usize, seed: u64) -> Self {
        let total: f64 = shares.iter().sum();
        let k = shares.len();
        let bits: Vec<usize> = shares
            .iter()
            .map(|&s| {
                let b = if total > 0.0 { (m as f64 * s / total) as usize } else { m / k };
                b.max(64)
            })
            .collect();
        let filters = bits.iter().map(|&b| vec![0u64; b.div_ceil(64)]).collect();
        Self { hashes: hashes(seed, h), bits, filters }
    }

    /// Bits actually used (the 64-bit floor may add a little).
    pub fn total_bits(&self) -> usize {
        self.bits.iter().sum()
    }

    /// Inserts a key into center i's filter.
    pub fn insert(&mut self, key: u64, i: usize) {
        for hsh in &self.hashes {
            let b = reduce(hsh.hash(key as u128), self.bits[i]);
            set(&mut self.filters[i], b);
        }
    }

    /// Centers whose filter holds the key (bit i set).
    pub fn candidates(&self, key: u64) -> u64 {
        let hs: Vec<u64> = self.hashes.iter().map(|h| h.hash(key as u128)).collect();
        (0..self.bits.len()).fold(0u64, |acc, i| {
            let hit = hs.iter().all(|&x| get(&self.filters[i], reduce(x, self.bits[i])));
            acc | (hit as u64) << i
        })
    }
}

/// COMB(f, θ): center i is coded by the i-th θ-subset of f code bits; code bit b has h hash functions.
#[derive(Clone, Debug)]
pub struct Comb {
    f: usize,
    h: usize,
    hashes: Vec<H3>,
    codes: Vec<u32>,
    m: usize,
    filter: Vec<u64>,
}

impl Comb {
    /// `m` bits for `k` centers with f-bit codes of θ ones and h hashes per code bit; C(f, θ) must be ≥ k.
    pub fn new(m: usize, k: usize, f: usize, theta: usize, h: usize, seed: u64) -> Result<Self, String> {
        if f > 32 || theta == 0 || theta > f {
            return Err(format!("COMB({f}, {theta}): need 1 ≤ θ ≤ f ≤ 32"));
        }
        let codes: Vec<u32> = (0u32..(1u64 << f) as u32).filter(|c| c.count_ones() as usize == theta).take(k).collect();
        if codes.len() < k {
            return Err(format!("COMB({f}, {theta}) has {} codes for {k} centers", codes.len()));
        }
        Ok(Self { f, h, hashes: hashes(seed, f * h), codes, m, filter: vec![0; m.div_ceil(64)] })
    }

    /// Inserts a key in center i: h bits for each of the θ code bits set.
    pub fn insert(&mut self, key: u64, i: usize) {
        let code = self.codes[i];
        for b in 0..self.f {
            if code >> b & 1 == 1 {
                for t in 0..self.h {
                    let p = reduce(self.hashes[b * self.h + t].hash(key as u128), self.m);
                    set(&mut self.filter, p);
                }
            }
        }
    }

    /// The code read back: bit b set iff all h locations of code bit b are set.
    pub fn code(&self, key: u64) -> u32 {
        (0..self.f).fold(0u32, |acc, b| {
            let on =
                (0..self.h).all(|t| get(&self.filter, reduce(self.hashes[b * self.h + t].hash(key as u128), self.m)));
            acc | (on as u32) << b
        })
    }

    /// Centers whose code is contained in the code read back (bit i set).
    pub fn candidates(&self, key: u64) -> u64 {
        let c = self.code(key);
        self.codes.iter().enumerate().fold(0u64, |acc, (i, &code)| acc | ((code & c == code) as u64) << i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;
    use crate::svbf::dimension::{p_cf_comb, p_fp};

    #[test]
    fn no_false_negatives_in_either() {
        let mut rng = SplitMix64::new(9);
        let mut pbf = Pbf::new(1 << 16, &[1.0; 10], 5, 1);
        let mut comb = Comb::new(1 << 16, 10, 5, 2, 3, 1).unwrap();
        let keys: Vec<(u64, usize)> = (0..2000).map(|_| (rng.next_u64(), rng.below(10) as usize)).collect();
        for &(k, i) in &keys {
            pbf.insert(k, i);
            comb.insert(k, i);
        }
        for &(k, i) in &keys {
            assert!(pbf.candidates(k) >> i & 1 == 1);
            assert!(comb.candidates(k) >> i & 1 == 1);
        }
    }

    #[test]
    fn comb_failure_follows_eq_2() {
        // A failure: some code bit beyond the θ of the packet's own code reads as set.
        let (m, n, f, theta, h) = (1usize << 18, 10_000usize, 8, 3, 3);
        let mut comb = Comb::new(m, 50, f, theta, h, 4).unwrap();
        let mut rng = SplitMix64::new(2);
        let keys: Vec<(u64, usize)> = (0..n).map(|_| (rng.next_u64(), rng.below(50) as usize)).collect();
        for &(k, i) in &keys {
            comb.insert(k, i);
        }
        let failed = keys.iter().filter(|&&(k, _)| comb.code(k).count_ones() as usize > theta).count();
        let rate = failed as f64 / n as f64;
        let want = p_cf_comb(m as f64, n as f64, h as f64, f, theta);
        let sd = (want * (1.0 - want) / n as f64).sqrt();
        assert!((rate - want).abs() < 5.0 * sd, "measured {rate}, eq. (2) {want}");
        assert!(want > p_fp(m as f64, n as f64, h as f64));
    }

    #[test]
    fn impossible_codes_are_refused() {
        assert!(Comb::new(1024, 60, 8, 3, 3, 0).unwrap_err().contains("56 codes"));
        assert!(Comb::new(1024, 2, 8, 0, 3, 0).is_err());
    }
}
