//! Parameters, register map and hashes of the RDA core (Fu, Barlet-Ros, Li,
//! ToN 2018: §V-A bucket {ID xor, TS sum, count} in k banks, one independent
//! hash per bank; §III-A measurement intervals delimited by the synchronized
//! clock, t_{i+1} = t_i + δ).

use super::hash::{BucketHash, sample_hash_config};
use crate::csr::{Access, RegisterDesc};
use crate::error::{ConfigError, check_one_of};
use crate::h3::H3;
use crate::lda::lz_mask;
use serde::{Deserialize, Serialize};

/// Bank counts the RTL is built for (§VIII-B: "we set the default number k of hash functions to two").
pub const RDA_BANKS: std::ops::RangeInclusive<usize> = 1..=4;
/// Buckets per bank m: any count in this range (the bucket index is a
/// multiply-shift of a 32-bit hash by a 16-bit m, so m need not be a power of two).
pub const RDA_BUCKETS: std::ops::RangeInclusive<usize> = 2..=65535;
/// Width of a bucket index at the core's ports.
pub const RDA_ROW_BITS: u32 = 16;
/// Timestamp-sum widths the RTL is built for (modular sums).
pub const RDA_TSUM_BITS: &[usize] = &[32, 40, 48, 64];
/// Packet identifier width (§VIII-A: "a distinct 64-bit identifier for each unique packet").
pub const RDA_ID_BITS: u32 = 64;
/// Timestamp width at the packet port: ticks of the synchronized clock, compared modulo 2^48.
pub const RDA_TS_BITS: u32 = 48;
/// Per-bucket packet count width (Δ field; a wrap sets the sticky overflow flag).
pub const RDA_COUNT_BITS: u32 = 32;
/// Width of the per-interval packet counters and of the out-of-interval counter.
pub const RDA_EPOCH_COUNT_BITS: u32 = 48;
/// Default extra pipeline registers behind each bucket RAM (the RTL's
/// `RmwBank::with_read_stages`): the 2 × 2500 × 144-bit banks span 80 ECP5
/// block RAMs, and the register right behind a block is otherwise placed near
/// the logic it feeds, far from the block.
pub const RDA_READ_STAGES: usize = 2;
/// Most extra read stages.
pub const RDA_MAX_READ_STAGES: usize = crate::counter_bank::MAX_READ_STAGES;
/// Width of the coordinated-sampling hash (leading zeros select packets).
pub const RDA_SAMPLE_BITS: u32 = 24;

/// Parameters of an RDA core (both ends of a segment must use the same).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RdaConfig {
    /// Banks k, one hash function each (see [`RDA_BANKS`]).
    pub banks: usize,
    /// Buckets per bank m (see [`RDA_BUCKETS`]; §VI: m = 2d decodes d differences w.h.p.).
    pub buckets: usize,
    /// Timestamp-sum width (see [`RDA_TSUM_BITS`]); sums wrap modulo 2^tsum_bits.
    pub tsum_bits: usize,
    /// Reset value of `SAMPLE_LZ`: a packet is measured iff its sampling hash
    /// has at least this many leading zeros (0 measures every packet).
    pub sample_prob_log2: u32,
    /// Reset value of `T0`: start of interval 0, ticks (mod 2^48).
    pub t0: u64,
    /// Reset value of `DELTA`: interval length δ in ticks (1..2^32).
    pub interval_ticks: u64,
    /// Reset value of `GUARD`: an idle core closes an interval once `now` ≥ end + guard.
    pub guard_ticks: u64,
    /// Seed of every hash matrix (same at both ends).
    pub seed: u64,
    /// Extra pipeline registers behind each bucket RAM, 0..=2 (see
    /// [`RDA_READ_STAGES`]): each costs a register per RAM output bit and a
    /// clock of latency, not throughput; the synopsis does not depend on it.
    pub read_stages: usize,
    /// Top module name of the export; derived from the config when absent.
    pub name: Option<String>,
}

impl Default for RdaConfig {
    fn default() -> Self {
        Self {
            banks: 2,
            buckets: 2500,
            tsum_bits: 48,
            sample_prob_log2: 0,
            t0: 0,
            interval_ticks: 1_000_000_000,
            guard_ticks: 1_000_000,
            seed: 0x5244_415f_6e6d_0001,
            read_stages: RDA_READ_STAGES,
            name: None,
        }
    }
}

impl RdaConfig {
    /// Row-address bits of one bank: ⌈log2 m⌉.
    pub fn addr_bits(&self) -> usize {
        (usize::BITS - (self.buckets - 1).leading_zeros()) as usize
    }

    /// Bits of one bucket record: count, timestamp sum and ID.
    pub fn record_bits(&self) -> usize {
        RDA_COUNT_BITS as usize + self.tsum_bits + RDA_ID_BITS as usize
    }

    /// Seed of bank `l`'s bucket hash.
    pub fn bank_seed(&self, l: usize) -> u64 {
        self.seed ^ (0x6261_6e6b_0000_0000u64.wrapping_add(l as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// Bank `l`'s bucket hash h_l (§V-A: "an independent hash function" per bank).
    pub fn bucket_hash(&self, l: usize) -> BucketHash {
        BucketHash::new(self.bank_seed(l), self.buckets)
    }

    /// Checks every field; the error names the first impossible one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !RDA_BANKS.contains(&self.banks) {
            return Err(ConfigError::new("banks", format!("{} is outside {RDA_BANKS:?}", self.banks)));
        }
        if !RDA_BUCKETS.contains(&self.buckets) {
            return Err(ConfigError::new("buckets", format!("{} is outside {RDA_BUCKETS:?}", self.buckets)));
        }
        check_one_of("tsum_bits", self.tsum_bits, RDA_TSUM_BITS)?;
        if self.sample_prob_log2 > RDA_SAMPLE_BITS {
            return Err(ConfigError::new(
                "sample_prob_log2",
                format!("{} is above the {RDA_SAMPLE_BITS}-bit sampling hash", self.sample_prob_log2),
            ));
        }
        if self.t0 >> RDA_TS_BITS != 0 {
            return Err(ConfigError::new("t0", format!("{} does not fit {RDA_TS_BITS} bits", self.t0)));
        }
        if self.interval_ticks == 0 || self.interval_ticks >> 32 != 0 {
            return Err(ConfigError::new("interval_ticks", format!("{} is outside 1..2^32", self.interval_ticks)));
        }
        if self.guard_ticks >> 32 != 0 {
            return Err(ConfigError::new("guard_ticks", format!("{} does not fit 32 bits", self.guard_ticks)));
        }
        if self.read_stages > RDA_MAX_READ_STAGES {
            return Err(ConfigError::new(
                "read_stages",
                format!("{} is outside 0..={RDA_MAX_READ_STAGES}", self.read_stages),
            ));
        }
        if let Some(n) = &self.name {
            crate::check_module_name("name", n)?;
        }
        Ok(())
    }

    /// The Verilog top module name of this config.
    pub fn top_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            let stages =
                if self.read_stages == RDA_READ_STAGES { String::new() } else { format!("_e{}", self.read_stages) };
            format!(
                "netmeas_rda_b{}_m{}_t{}_{:08x}{stages}",
                self.banks,
                self.buckets,
                self.tsum_bits,
                (self.seed ^ (self.seed >> 32)) as u32
            )
        })
    }

    /// Whether two ends measure the same thing: the fields that shape the
    /// synopsis (the interval registers may differ in their reset values).
    pub fn same_measurement(&self, other: &RdaConfig) -> bool {
        (self.banks, self.buckets, self.tsum_bits, self.seed)
            == (other.banks, other.buckets, other.tsum_bits, other.seed)
    }
}

/// Word address of `T0_LO` (bits 31..0 of T0, held until `T0_HI` is written).
pub const RDA_REG_T0_LO: u32 = 0;
/// Word address of `T0_HI`: bits 47..32 of T0; the write restarts the interval clock at T0.
pub const RDA_REG_T0_HI: u32 = 1;
/// Word address of `DELTA`.
pub const RDA_REG_DELTA: u32 = 2;
/// Word address of `GUARD`.
pub const RDA_REG_GUARD: u32 = 3;
/// Word address of `SAMPLE_LZ`.
pub const RDA_REG_SAMPLE_LZ: u32 = 4;
/// Width of `csr_addr`.
pub const RDA_CSR_ADDR_BITS: u32 = 3;

/// The register map of an RDA core: the one source of `csr.json` and the datasheet table.
pub fn rda_registers(cfg: &RdaConfig) -> Vec<RegisterDesc> {
    vec![
        RegisterDesc {
            name: "T0_LO".into(),
            addr: RDA_REG_T0_LO,
            bits: 32,
            reset: cfg.t0 & 0xffff_ffff,
            access: Access::Rw,
            doc: "Bits 31..0 of t_0, the start of interval 0 (§III-A); takes effect with the next T0_HI write.".into(),
        },
        RegisterDesc {
            name: "T0_HI".into(),
            addr: RDA_REG_T0_HI,
            bits: 16,
            reset: cfg.t0 >> 32,
            access: Access::Rw,
            doc: "Bits 47..32 of t_0. The write restarts the interval clock: interval 0 = [t_0, t_0 + δ), the live copy keeps its contents. Write it while no packet is offered, with the same value at both ends.".into(),
        },
        RegisterDesc {
            name: "DELTA".into(),
            addr: RDA_REG_DELTA,
            bits: 32,
            reset: cfg.interval_ticks,
            access: Access::Rw,
            doc: "Interval length δ in ticks (§III-A: t_{i+1} = t_i + δ); 0 is stored as 1. Applies from the next interval boundary.".into(),
        },
        RegisterDesc {
            name: "GUARD".into(),
            addr: RDA_REG_GUARD,
            bits: 32,
            reset: cfg.guard_ticks,
            access: Access::Rw,
            doc: "Without packets, the core closes the live interval once now ≥ end + GUARD (covers packets still queued upstream with earlier timestamps).".into(),
        },
        RegisterDesc {
            name: "SAMPLE_LZ".into(),
            addr: RDA_REG_SAMPLE_LZ,
            bits: 5,
            reset: cfg.sample_prob_log2 as u64,
            access: Access::Rw,
            doc: format!("Coordinated sampling (§VIII-B): a packet is measured iff its {RDA_SAMPLE_BITS}-bit sampling hash of the ID has at least SAMPLE_LZ leading zeros (probability 2^-SAMPLE_LZ, the same packets at both ends). Values above {RDA_SAMPLE_BITS} act as {RDA_SAMPLE_BITS}."),
        },
    ]
}

/// The run-time registers of an RDA core, as the golden models hold them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RdaRegs {
    /// `T0_LO` as written.
    pub t0_lo: u32,
    /// `DELTA` (never 0).
    pub delta: u64,
    /// `GUARD`.
    pub guard: u64,
    /// Sampling-hash bits that must be zero.
    pub sample_mask: u32,
}

/// What a CSR write does besides setting a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsrEffect {
    /// Nothing else.
    None,
    /// Restart the interval clock at this t_0.
    Restart(u64),
}

impl RdaRegs {
    /// Values after reset.
    pub fn reset(cfg: &RdaConfig) -> Self {
        Self {
            t0_lo: cfg.t0 as u32,
            delta: cfg.interval_ticks.max(1),
            guard: cfg.guard_ticks,
            sample_mask: lz_mask(cfg.sample_prob_log2),
        }
    }

    /// A write on the CSR port (unknown addresses are ignored, as in the RTL).
    pub fn write(&mut self, addr: u32, data: u32) -> CsrEffect {
        match addr {
            RDA_REG_T0_LO => self.t0_lo = data,
            RDA_REG_T0_HI => return CsrEffect::Restart(((data as u64 & 0xffff) << 32) | self.t0_lo as u64),
            RDA_REG_DELTA => self.delta = (data as u64).max(1),
            RDA_REG_GUARD => self.guard = data as u64,
            RDA_REG_SAMPLE_LZ => self.sample_mask = lz_mask(data & 31),
            _ => {}
        }
        CsrEffect::None
    }
}

/// All hashes of an RDA (golden): one bucket hash per bank and the sampling hash.
#[derive(Clone, Debug)]
pub struct RdaHashes {
    /// h_l, one per bank.
    pub buckets: Vec<BucketHash>,
    /// Sampling hash of the ID (H3, 64 → 24 bits).
    pub sample: H3,
}

impl RdaHashes {
    /// The hashes of `cfg`, from the same matrices as the RTL.
    pub fn new(cfg: &RdaConfig) -> Self {
        Self {
            buckets: (0..cfg.banks).map(|l| cfg.bucket_hash(l)).collect(),
            sample: H3::new(&sample_hash_config(cfg.seed)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_configs_name_the_field() {
        for (c, field) in [
            (RdaConfig { banks: 0, ..Default::default() }, "banks"),
            (RdaConfig { banks: 5, ..Default::default() }, "banks"),
            (RdaConfig { buckets: 1, ..Default::default() }, "buckets"),
            (RdaConfig { buckets: 65536, ..Default::default() }, "buckets"),
            (RdaConfig { tsum_bits: 44, ..Default::default() }, "tsum_bits"),
            (RdaConfig { sample_prob_log2: 25, ..Default::default() }, "sample_prob_log2"),
            (RdaConfig { t0: 1 << 48, ..Default::default() }, "t0"),
            (RdaConfig { interval_ticks: 0, ..Default::default() }, "interval_ticks"),
            (RdaConfig { guard_ticks: 1 << 32, ..Default::default() }, "guard_ticks"),
            (RdaConfig { name: Some("9x".into()), ..Default::default() }, "name"),
        ] {
            assert_eq!(c.validate().unwrap_err().field, field);
        }
        let c = RdaConfig::default();
        c.validate().unwrap();
        assert_eq!((c.addr_bits(), c.record_bits()), (12, 144));
        assert_eq!(RdaConfig { buckets: 4096, ..c.clone() }.addr_bits(), 12);
        assert_eq!(RdaConfig { buckets: 65535, ..c }.addr_bits(), 16);
    }

    #[test]
    fn registers_restart_and_clamp() {
        let mut r = RdaRegs::reset(&RdaConfig::default());
        assert_eq!(r.write(RDA_REG_T0_LO, 0x1234_5678), CsrEffect::None);
        assert_eq!(r.write(RDA_REG_T0_HI, 0xffff_0abc), CsrEffect::Restart(0x0abc_1234_5678));
        r.write(RDA_REG_DELTA, 0);
        assert_eq!(r.delta, 1);
        r.write(RDA_REG_SAMPLE_LZ, 3);
        assert_eq!(r.sample_mask, 0xE0_0000);
        r.write(RDA_REG_SAMPLE_LZ, 31);
        assert_eq!(r.sample_mask, 0xFF_FFFF);
        assert_eq!(rda_registers(&RdaConfig::default()).len(), 5);
    }
}
