//! Parameters, register map and hashes of the fridge core (Zheng, Chen,
//! Braverman, Rexford, *Unbiased Delay Measurement in the Data Plane*: §3.2
//! the (M, p)-fridge, §4.2 N fridges with their own M_k and p_k, §6.1 the
//! IDS/TS/CTR arrays, 32-bit IDs and the PRNG threshold for p).

use super::factor::CorrectionRegs;
use crate::csr::{Access, RegisterDesc};
use crate::error::ConfigError;
use crate::h3::{H3, H3Config};
use serde::{Deserialize, Serialize};

/// Fridge counts the RTL is built for (§4.2; the paper evaluates one and two).
pub const FRIDGE_COUNT: std::ops::RangeInclusive<usize> = 1..=4;
/// log2 of the entries M_k of one fridge (§3.3: M ≥ 2; powers of two so the
/// index is a slice of the hash).
pub const FRIDGE_ENTRIES_LOG2: std::ops::RangeInclusive<u32> = 1..=16;
/// Entry probabilities p_k = 2^v the config accepts, as v (§5.2 sweeps 2^-14 … 2^0).
pub const FRIDGE_PROB_LOG2: std::ops::RangeInclusive<f64> = -24.0..=0.0;
/// Request/response ID width (§6.1: "a 32-bit request ID").
pub const FRIDGE_ID_BITS: u32 = 32;
/// Timestamp width at the packet port (ticks, compared modulo 2^48).
pub const FRIDGE_TS_BITS: u32 = 48;
/// Mask of a timestamp or delay at the packet port.
pub const FRIDGE_TS_MASK: u64 = (1 << FRIDGE_TS_BITS) - 1;
/// Insertion-counter width (§6.1 CTR array); x is taken modulo 2^32.
pub const FRIDGE_CTR_BITS: u32 = 32;
/// Bins of the in-fabric delay histogram of every fridge (§6.2: "32 bins using log(t) as the bin index").
pub const FRIDGE_BINS: usize = 32;
/// Bits of one entry record: spare, valid, ID, timestamp, insertion stamp.
pub const FRIDGE_ENTRY_BITS: usize = 2 + FRIDGE_ID_BITS as usize + FRIDGE_TS_BITS as usize + FRIDGE_CTR_BITS as usize;
/// Histogram bin fields: samples, Σ correction factor (Q.8), Σ factor² (integer).
pub const HIST_COUNT_BITS: u32 = 32;
/// Width of a bin's Σ factor (fixed point, 8 fractional bits).
pub const HIST_WSUM_BITS: u32 = 64;
/// Width of a bin's Σ factor² (integer part).
pub const HIST_W2SUM_BITS: u32 = 64;
/// Bits of one histogram bin record.
pub const HIST_RECORD_BITS: usize = (HIST_COUNT_BITS + HIST_WSUM_BITS + HIST_W2SUM_BITS) as usize;
/// Width of the routing field of the index hash (fridge = ⌊r · N / 2^16⌋).
pub const FRIDGE_ROUTE_BITS: u32 = 16;

/// Parameters of a fridge core.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FridgeConfig {
    /// Entries M_k of every fridge (one per fridge, powers of two, see [`FRIDGE_ENTRIES_LOG2`]).
    pub entries: Vec<usize>,
    /// log2 of the entry probability p_k of every fridge (reset value of `THRESH_k`).
    pub entry_prob_log2: Vec<f64>,
    /// Reset value of `BIN_SHIFT`: histogram bin 0 holds delays below 2^BIN_SHIFT ticks,
    /// bin i (1..30) delays in [2^(BIN_SHIFT+i-1), 2^(BIN_SHIFT+i)), bin 31 the rest.
    pub bin_shift: u32,
    /// Seed of the index hash and of every fridge's PRNG.
    pub seed: u64,
    /// Top module name of the export; derived from the config when absent.
    pub name: Option<String>,
}

impl Default for FridgeConfig {
    fn default() -> Self {
        Self {
            entries: vec![2048, 2048],
            entry_prob_log2: vec![-9.0, -4.0],
            bin_shift: 10,
            seed: 0x4652_4447_6e6d_0001,
            name: None,
        }
    }
}

impl FridgeConfig {
    /// N, the number of fridges.
    pub fn fridges(&self) -> usize {
        self.entries.len()
    }

    /// Entries of all fridges together (one memory holds them, fridge k from row [`Self::base`]).
    pub fn total_entries(&self) -> usize {
        self.entries.iter().sum()
    }

    /// First row of fridge `k` in the shared entry memory.
    pub fn base(&self, k: usize) -> usize {
        self.entries[..k].iter().sum()
    }

    /// Row-address bits of the shared entry memory.
    pub fn addr_bits(&self) -> usize {
        (usize::BITS - (self.total_entries() - 1).leading_zeros()).max(1) as usize
    }

    /// `THRESH_k` after reset: p_k = THRESH_k / (2^32 − 1).
    pub fn threshold(&self, k: usize) -> u32 {
        threshold_for(self.entry_prob_log2[k])
    }

    /// The entry probability the hardware implements for fridge `k`.
    pub fn hw_prob(&self, k: usize) -> f64 {
        prob_of_threshold(self.threshold(k))
    }

    /// The correction registers of fridge `k` after reset.
    pub fn correction(&self, k: usize) -> CorrectionRegs {
        CorrectionRegs::new(self.hw_prob(k), self.entries[k])
    }

    /// Seed of fridge `k`'s PRNG (never 0: xorshift32 has no zero state).
    pub fn prng_seed(&self, k: usize) -> u32 {
        let mut r = crate::prng::SplitMix64::new(self.seed ^ 0x7072_6e67_0000_0000 ^ k as u64);
        loop {
            let s = r.next_u64() as u32;
            if s != 0 {
                return s;
            }
        }
    }

    /// The index hash: H3 of the 32-bit ID → 32 bits (low bits: index, high 16: route).
    pub fn index_hash_config(&self) -> H3Config {
        H3Config { key_bits: 32, out_bits: 32, seed: self.seed ^ 0x6964_7800, registered: false, name: None }
    }

    /// Checks every field; the error names the first impossible one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !FRIDGE_COUNT.contains(&self.entries.len()) {
            return Err(ConfigError::new(
                "entries",
                format!("{} fridges; the core has {FRIDGE_COUNT:?}", self.entries.len()),
            ));
        }
        for &m in &self.entries {
            let ok = m.is_power_of_two() && FRIDGE_ENTRIES_LOG2.contains(&m.trailing_zeros());
            if !ok {
                return Err(ConfigError::new(
                    "entries",
                    format!("{m} is not a power of two in 2^1..=2^16 (the index is a slice of the hash)"),
                ));
            }
        }
        if self.total_entries() > 1 << 17 {
            return Err(ConfigError::new("entries", "the fridges together hold more than 2^17 entries"));
        }
        if self.entry_prob_log2.len() != self.entries.len() {
            return Err(ConfigError::new(
                "entry_prob_log2",
                format!("{} values for {} fridges", self.entry_prob_log2.len(), self.entries.len()),
            ));
        }
        for &v in &self.entry_prob_log2 {
            if !FRIDGE_PROB_LOG2.contains(&v) {
                return Err(ConfigError::new("entry_prob_log2", format!("{v} is outside {FRIDGE_PROB_LOG2:?}")));
            }
        }
        if self.bin_shift > FRIDGE_TS_BITS - 1 {
            return Err(ConfigError::new("bin_shift", format!("{} is above {}", self.bin_shift, FRIDGE_TS_BITS - 1)));
        }
        if let Some(n) = &self.name {
            crate::check_module_name("name", n)?;
        }
        Ok(())
    }

    /// The Verilog top module name of this config.
    pub fn top_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            let m: Vec<String> = self.entries.iter().map(|m| m.trailing_zeros().to_string()).collect();
            format!(
                "netmeas_fridge_n{}_m{}_{:08x}",
                self.fridges(),
                m.join("_"),
                (self.seed ^ (self.seed >> 32)) as u32
            )
        })
    }
}

/// `THRESH` for p = 2^v: round(p · (2^32 − 1)), at least 1.
pub fn threshold_for(prob_log2: f64) -> u32 {
    ((prob_log2.exp2() * u32::MAX as f64).round() as u64).clamp(1, u32::MAX as u64) as u32
}

/// The entry probability of a threshold: a request enters iff its PRNG draw r
/// (uniform over 1..2^32 − 1 across a period) satisfies r ≤ THRESH.
pub fn prob_of_threshold(thresh: u32) -> f64 {
    thresh as f64 / u32::MAX as f64
}

/// Which fridge and which entry of it an ID maps to (§4.2: "requests and
/// responses are directed to one of the fridges via a hash function").
#[derive(Clone, Debug)]
pub struct FridgeIndex {
    h3: H3,
    entries: Vec<usize>,
    bases: Vec<usize>,
}

impl FridgeIndex {
    /// The index of `cfg`, from the same H3 matrix as the RTL.
    pub fn new(cfg: &FridgeConfig) -> Self {
        Self {
            h3: H3::new(&cfg.index_hash_config()),
            entries: cfg.entries.clone(),
            bases: (0..cfg.fridges()).map(|k| cfg.base(k)).collect(),
        }
    }

    /// (fridge k, row in the shared memory) of `id`: k = ⌊r·N/2^16⌋ with r the
    /// hash's top 16 bits; the row is base_k + the hash's low log2 M_k bits.
    #[inline]
    pub fn locate(&self, id: u32) -> (usize, usize) {
        let h = self.h3.hash32(id) as u32;
        let k = ((h >> 16) as usize * self.entries.len()) >> FRIDGE_ROUTE_BITS;
        (k, self.bases[k] + (h as usize & (self.entries[k] - 1)))
    }
}

/// Word address of `BIN_SHIFT`.
pub const FRIDGE_REG_BIN_SHIFT: u32 = 0;
/// Word address of `FLIP` (a write flips the histogram epoch).
pub const FRIDGE_REG_FLIP: u32 = 1;
/// Word address of fridge k's `THRESH`: base + 4k.
pub const FRIDGE_REG_THRESH: u32 = 4;
/// Word address of fridge k's `CORR_PINV`: base + 4k.
pub const FRIDGE_REG_CORR_PINV: u32 = 5;
/// Word address of fridge k's `CORR_CM`: base + 4k.
pub const FRIDGE_REG_CORR_CM: u32 = 6;
/// Word address of fridge k's `CORR_SH`: base + 4k.
pub const FRIDGE_REG_CORR_SH: u32 = 7;
/// Word address of `HIST_POP` (a write consumes the histogram row presented in `HIST_ROW`..`HIST_W2SUM_HI`).
pub const FRIDGE_REG_HIST_POP: u32 = 2;
/// Word address of `HIST_ROW` (read-only): bit 31 a row is presented, bit 30 it is the last, bits 6:0 its row 32k + bin.
pub const FRIDGE_REG_HIST_ROW: u32 = 20;
/// Word address of `HIST_COUNT` (read-only): the presented row's sample count.
pub const FRIDGE_REG_HIST_COUNT: u32 = 21;
/// Word address of `HIST_WSUM_LO` (read-only); `HIST_WSUM_HI`, `HIST_W2SUM_LO`, `HIST_W2SUM_HI` follow.
pub const FRIDGE_REG_HIST_WSUM_LO: u32 = 22;
/// Word address of `SMP_DROPPED` (read-only).
pub const FRIDGE_REG_SMP_DROPPED: u32 = 26;
/// Word address of `SATURATED` (read-only).
pub const FRIDGE_REG_SATURATED: u32 = 27;
/// Word address of `STATUS` (read-only): bit 0 `ovf_sticky`, bit 1 `epoch`, bit 2 `flip_pending`.
pub const FRIDGE_REG_STATUS: u32 = 28;
/// Width of `csr_addr`.
pub const FRIDGE_CSR_ADDR_BITS: u32 = 5;

/// The register map of a fridge core: the one source of `csr.json` and the datasheet table.
pub fn fridge_registers(cfg: &FridgeConfig) -> Vec<RegisterDesc> {
    let mut regs = fridge_config_registers(cfg);
    regs.push(RegisterDesc {
        name: "HIST_POP".into(),
        addr: FRIDGE_REG_HIST_POP,
        bits: 1,
        reset: 0,
        access: Access::Wo,
        doc: "Write-only: writing any value consumes the frozen histogram row presented in HIST_ROW..HIST_W2SUM_HI (the register read-out of §6.2's histograms; the m_ro stream is the other).".into(),
    });
    let ro = |name: &str, addr: u32, bits: u32, doc: &str| RegisterDesc {
        name: name.into(),
        addr,
        bits,
        reset: 0,
        access: Access::Ro,
        doc: format!("Read-only: {doc}"),
    };
    regs.extend([
        ro("HIST_ROW", FRIDGE_REG_HIST_ROW, 32, "bit 31: a frozen histogram row is presented; bit 30: it is the last; bits 6:0: its row 32·fridge + bin (HIST_ROW..HIST_W2SUM_HI read 0 when no row is presented)."),
        ro("HIST_COUNT", FRIDGE_REG_HIST_COUNT, 32, "samples in the presented row."),
        ro("HIST_WSUM_LO", FRIDGE_REG_HIST_WSUM_LO, 32, "Σ correction factor of the presented row (Q.8), bits 31:0."),
        ro("HIST_WSUM_HI", FRIDGE_REG_HIST_WSUM_LO + 1, 32, "bits 63:32 of the same."),
        ro("HIST_W2SUM_LO", FRIDGE_REG_HIST_WSUM_LO + 2, 32, "Σ factor² of the presented row, bits 31:0."),
        ro("HIST_W2SUM_HI", FRIDGE_REG_HIST_WSUM_LO + 3, 32, "bits 63:32 of the same."),
        ro("SMP_DROPPED", FRIDGE_REG_SMP_DROPPED, 32, "samples dropped because the sample output was full (saturating)."),
        ro("SATURATED", FRIDGE_REG_SATURATED, 32, "samples whose correction factor saturated at 2^32 (saturating)."),
        ro("STATUS", FRIDGE_REG_STATUS, 3, "bit 0: a histogram field wrapped (ovf_sticky); bit 1: the live histogram copy (epoch); bit 2: a FLIP write waits (flip_pending)."),
    ]);
    regs
}

/// The configuration registers (`BIN_SHIFT`, `FLIP`, and every fridge's
/// `THRESH`, `CORR_*`), each with its reset value for `cfg`.
pub fn fridge_config_registers(cfg: &FridgeConfig) -> Vec<RegisterDesc> {
    let mut regs = vec![
        RegisterDesc {
            name: "BIN_SHIFT".into(),
            addr: FRIDGE_REG_BIN_SHIFT,
            bits: 6,
            reset: cfg.bin_shift as u64,
            access: Access::Rw,
            doc: format!("Histogram scale (§6.2): bin 0 counts delays below 2^BIN_SHIFT ticks, bin i in 1..30 delays in [2^(BIN_SHIFT+i-1), 2^(BIN_SHIFT+i)), bin 31 the rest. Values above {} act as {}.", FRIDGE_TS_BITS - 1, FRIDGE_TS_BITS - 1),
        },
        RegisterDesc {
            name: "FLIP".into(),
            addr: FRIDGE_REG_FLIP,
            bits: 1,
            reset: 0,
            access: Access::Wo,
            doc: "Writing any value flips the histogram epoch: the live histograms freeze and stream out, the other copy (already clear) counts. A write while the previous read-out runs waits for it.".into(),
        },
    ];
    for k in 0..cfg.fridges() {
        let c = cfg.correction(k);
        let per_fridge = [
            (
                "THRESH",
                FRIDGE_REG_THRESH,
                32,
                cfg.threshold(k) as u64,
                format!(
                    "Entry probability of fridge {k} (§6.1): a request routed here is stored iff its xorshift32 draw r ≤ THRESH{k}, p = THRESH{k}/(2^32−1)."
                ),
            ),
            (
                "CORR_PINV",
                FRIDGE_REG_CORR_PINV,
                22,
                c.pinv as u64,
                format!(
                    "log2(1/p) of fridge {k}, 16 fractional bits (§6.2 correction p^-1 (1-p/M)^-x = 2^(CORR_PINV + x·c))."
                ),
            ),
            (
                "CORR_CM",
                FRIDGE_REG_CORR_CM,
                18,
                c.cm as u64,
                format!(
                    "Mantissa of c = -log2(1 - p/M) of fridge {k}: x·c in 16 fractional bits is (x·CORR_CM{k}) >> CORR_SH{k}."
                ),
            ),
            (
                "CORR_SH",
                FRIDGE_REG_CORR_SH,
                6,
                c.sh as u64,
                format!("Shift of fridge {k}'s x·c product (see CORR_CM{k})."),
            ),
        ];
        regs.extend(per_fridge.into_iter().map(|(name, addr, bits, reset, doc)| RegisterDesc {
            name: format!("{name}{k}"),
            addr: addr + 4 * k as u32,
            bits,
            reset,
            access: Access::Rw,
            doc,
        }));
    }
    regs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_configs_name_the_field() {
        let d = FridgeConfig::default();
        for (c, field) in [
            (FridgeConfig { entries: vec![], entry_prob_log2: vec![], ..d.clone() }, "entries"),
            (FridgeConfig { entries: vec![8; 5], entry_prob_log2: vec![-1.0; 5], ..d.clone() }, "entries"),
            (FridgeConfig { entries: vec![3000, 2048], ..d.clone() }, "entries"),
            (FridgeConfig { entries: vec![1, 2048], ..d.clone() }, "entries"),
            (FridgeConfig { entries: vec![1 << 17, 2048], ..d.clone() }, "entries"),
            (
                FridgeConfig { entries: vec![1 << 16, 1 << 16, 2], entry_prob_log2: vec![-1.0; 3], ..d.clone() },
                "entries",
            ),
            (FridgeConfig { entry_prob_log2: vec![-9.0], ..d.clone() }, "entry_prob_log2"),
            (FridgeConfig { entry_prob_log2: vec![-9.0, 0.5], ..d.clone() }, "entry_prob_log2"),
            (FridgeConfig { entry_prob_log2: vec![-25.0, -1.0], ..d.clone() }, "entry_prob_log2"),
            (FridgeConfig { entry_prob_log2: vec![f64::NAN, -1.0], ..d.clone() }, "entry_prob_log2"),
            (FridgeConfig { bin_shift: 48, ..d.clone() }, "bin_shift"),
            (FridgeConfig { name: Some("a-b".into()), ..d.clone() }, "name"),
        ] {
            assert_eq!(c.validate().unwrap_err().field, field, "{c:?}");
        }
        d.validate().unwrap();
        assert_eq!((d.total_entries(), d.addr_bits(), d.base(1)), (4096, 12, 2048));
        assert_eq!(FRIDGE_ENTRY_BITS, 114);
        assert_eq!(fridge_config_registers(&d).len(), 2 + 4 * 2);
        assert_eq!(fridge_registers(&d).len(), 2 + 4 * 2 + 10);
    }

    #[test]
    fn thresholds_round_trip_the_probability() {
        assert_eq!(threshold_for(0.0), u32::MAX);
        assert_eq!(threshold_for(-40.0), 1);
        for v in [-1.0, -4.0, -9.0, -10.4, -20.0] {
            let p = prob_of_threshold(threshold_for(v));
            assert!((p.log2() - v).abs() < 1e-6, "{v}: {p}");
        }
    }

    #[test]
    fn ids_spread_over_fridges_and_rows() {
        let cfg = FridgeConfig { entries: vec![4, 8, 16], entry_prob_log2: vec![-1.0; 3], ..Default::default() };
        let ix = FridgeIndex::new(&cfg);
        let mut per_fridge = [0usize; 3];
        let mut rows = vec![0usize; cfg.total_entries()];
        for id in 0..30_000u32 {
            let (k, row) = ix.locate(id.wrapping_mul(0x9e37_79b1));
            assert!(row >= cfg.base(k) && row < cfg.base(k) + cfg.entries[k]);
            per_fridge[k] += 1;
            rows[row] += 1;
        }
        for n in per_fridge {
            assert!((9000..11000).contains(&n), "{per_fridge:?}");
        }
        assert!(rows.iter().all(|&n| n > 0));
    }
}
