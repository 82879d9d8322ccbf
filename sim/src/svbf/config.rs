//! Parameters of the MAPLE packet latency store (Lee, Duffield, Kompella,
//! SIGMETRICS 2012, §3.3.3 SVBF, §3.4 dimensioning) as built here: the
//! SVBF's m bits split into h partitions of 2^p bits, one per hash function,
//! so that every hash function owns one block-RAM bank and an insert sets
//! one bit in each bank in the same clock.

use crate::csr::{Access, RegisterDesc};
use crate::error::ConfigError;
use crate::h3::{H3, H3Matrix};
use serde::{Deserialize, Serialize};

/// Most delay centers (the query window is one 64-bit word: k ≤ 64).
pub const SVBF_MAX_CENTERS: usize = 64;
/// Hash functions h the store is built for (one partition each).
pub const SVBF_HASHES: std::ops::RangeInclusive<usize> = 1..=16;
/// log2 of the bits of one partition.
pub const SVBF_PARTITION_LOG2: std::ops::RangeInclusive<u32> = 8..=22;
/// Packet key width (§4: a digest of the invariant header fields and a few payload bytes).
pub const SVBF_KEY_BITS: u32 = 64;
/// Latency width at the packet port, ticks.
pub const SVBF_LATENCY_BITS: u32 = 32;
/// Width of a per-center packet count (a wrap sets the sticky overflow flag).
pub const SVBF_COUNT_BITS: u32 = 32;
/// Width of a per-center latency sum (modular; exact while count × max latency < 2^48).
pub const SVBF_SUM_BITS: u32 = 48;

/// (hashes, partition_log2) pairs the RTL is built for: the default
/// (9 × 2^17 = 1.18 Mbit; double-buffered, 2.4 Mbit of the ECP5-85F's
/// 3.7), 9 × 2^16, and small stores for co-simulation.
pub const SVBF_RTL_BUILDS: &[(usize, u32)] = &[(9, 17), (9, 16), (9, 12), (4, 10), (2, 8)];

/// Parameters of one packet latency store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SvbfConfig {
    /// Hash functions h (see [`SVBF_HASHES`]; §5.3 uses 9).
    pub hashes: usize,
    /// log2 of the bits of each hash function's partition (see [`SVBF_PARTITION_LOG2`]);
    /// the SVBF holds m = h · 2^p bits.
    pub partition_log2: u32,
    /// Delay centers k in use (2..=64; the query window is k bits).
    pub centers: usize,
    /// Seed of the hash matrices.
    pub seed: u64,
}

impl Default for SvbfConfig {
    fn default() -> Self {
        // 9 × 2^17 = 1 179 648 bits: the paper's h = 9 and k = 50 at ≥ 1 Mbit.
        Self { hashes: 9, partition_log2: 17, centers: 50, seed: 0x5356_4246_6e6d_0001 }
    }
}

impl SvbfConfig {
    /// Bits of one partition, 2^p.
    pub fn partition_bits(&self) -> usize {
        1 << self.partition_log2
    }

    /// Bits of the whole SVBF, m = h · 2^p.
    pub fn total_bits(&self) -> usize {
        self.hashes << self.partition_log2
    }

    /// Seed of hash function j's matrix.
    pub fn hash_seed(&self, j: usize) -> u64 {
        self.seed ^ (0x7376_6266_0000_0000u64.wrapping_add(j as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// Hash function h_j: H3 of the 64-bit key to p bits (a position in partition j).
    pub fn hash(&self, j: usize) -> H3 {
        H3::from_matrix(&H3Matrix::generate(self.hash_seed(j), SVBF_KEY_BITS as usize, self.partition_log2 as usize))
    }

    /// Top module name of the RTL export.
    pub fn top_name(&self) -> String {
        format!("netmeas_svbf_h{}_p{}_{:08x}", self.hashes, self.partition_log2, (self.seed ^ (self.seed >> 32)) as u32)
    }

    /// Checks that an RTL build exists for (h, p) (rust-hdl widths are type
    /// parameters: one instance per pair, listed in [`SVBF_RTL_BUILDS`]).
    pub fn validate_rtl(&self) -> Result<(), ConfigError> {
        self.validate()?;
        if SVBF_RTL_BUILDS.contains(&(self.hashes, self.partition_log2)) {
            return Ok(());
        }
        let list: Vec<String> = SVBF_RTL_BUILDS.iter().map(|(h, p)| format!("h = {h}, p = {p}")).collect();
        Err(ConfigError::new(
            "partition_log2",
            format!("no RTL build for h = {}, p = {} (built: {})", self.hashes, self.partition_log2, list.join("; ")),
        ))
    }

    /// Checks every field; the error names the first impossible one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !SVBF_HASHES.contains(&self.hashes) {
            return Err(ConfigError::new("hashes", format!("{} is outside {SVBF_HASHES:?}", self.hashes)));
        }
        if !SVBF_PARTITION_LOG2.contains(&self.partition_log2) {
            return Err(ConfigError::new(
                "partition_log2",
                format!("{} is outside {SVBF_PARTITION_LOG2:?}", self.partition_log2),
            ));
        }
        if !(2..=SVBF_MAX_CENTERS).contains(&self.centers) {
            return Err(ConfigError::new(
                "centers",
                format!("{} is outside 2..={SVBF_MAX_CENTERS} (the query window is one 64-bit word)", self.centers),
            ));
        }
        Ok(())
    }
}

/// The CSR map of the RTL store (word addresses on `csr_addr`, 6 bits).
pub fn svbf_registers() -> Vec<RegisterDesc> {
    let mut regs: Vec<RegisterDesc> = (0..63u32)
        .map(|j| RegisterDesc {
            name: format!("BOUND{}", j + 1),
            addr: j,
            bits: 32,
            reset: 0,
            access: Access::Rw,
            doc: format!(
                "Classifier boundary b_{} (shadow): a latency ≥ b_{} belongs to center {} or above. Active from the next flip.",
                j + 1,
                j + 1,
                j + 1
            ),
        })
        .collect();
    regs.push(RegisterDesc {
        name: "NBOUNDS".into(),
        addr: 63,
        bits: 6,
        reset: 0,
        access: Access::Rw,
        doc: "Boundaries in use, k − 1 (shadow; k centers): the center of a latency is the number of the first NBOUNDS boundaries at or below it, and queries answer among centers 0..=NBOUNDS. Active from the next flip.".into(),
    });
    regs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_holds_a_megabit() {
        let c = SvbfConfig::default();
        c.validate().unwrap();
        assert!(c.total_bits() >= 1 << 20);
    }

    #[test]
    fn impossible_fields_are_named() {
        let bad = [
            (SvbfConfig { hashes: 0, ..Default::default() }, "hashes"),
            (SvbfConfig { hashes: 17, ..Default::default() }, "hashes"),
            (SvbfConfig { partition_log2: 7, ..Default::default() }, "partition_log2"),
            (SvbfConfig { partition_log2: 23, ..Default::default() }, "partition_log2"),
            (SvbfConfig { centers: 1, ..Default::default() }, "centers"),
            (SvbfConfig { centers: 65, ..Default::default() }, "centers"),
        ];
        for (c, field) in bad {
            assert_eq!(c.validate().unwrap_err().field, field, "{c:?}");
        }
    }

    #[test]
    fn hash_functions_differ_and_stay_in_the_partition() {
        let c = SvbfConfig { partition_log2: 10, ..Default::default() };
        let (a, b) = (c.hash(0), c.hash(1));
        let differ = (0..64u128).filter(|&k| a.hash(k * 77 + 1) != b.hash(k * 77 + 1)).count();
        assert!(differ > 60);
        assert!((0..1000u128).all(|k| a.hash(k) < 1024));
    }
}
