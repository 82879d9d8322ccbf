//! LDA parameters and register map, shared by the RTL generator and the golden
//! models (Kompella et al. §III-B, §V).

use crate::error::{ConfigError, check_one_of};
use crate::h3::{H3, H3Config};
use serde::{Deserialize, Serialize};

/// Key widths the exported LDA is built for (104 = 5-tuple, 120 = 5-tuple + IP ID).
pub const LDA_KEY_BITS: &[usize] = &[32, 64, 104, 120, 128];
/// Rows per bank the exported LDA is built for (powers of two: adjacent rows
/// 2i, 2i+1 collapse for the standard-deviation estimator, §III-E).
pub const LDA_ROWS: &[usize] = &[64, 128, 256, 512, 1024, 2048];
/// Bank counts the exported LDA is built for.
pub const LDA_BANKS: &[usize] = &[1, 2, 3, 4];
/// Width of the sampling hash whose leading zeros choose the bank (§III-B.4):
/// bank probabilities down to 2^-24.
pub const LDA_SAMPLE_BITS: u32 = 24;
/// Width of the class field seen by the classifier (§V: "a simple mask-and-compare").
pub const LDA_CLASS_BITS: u32 = 8;
/// Packet-count width of a row (§V: 32 bits).
pub const LDA_COUNT_BITS: u32 = 32;
/// Timestamp and timestamp-sum width (§V: 40 bits, nanosecond precision).
pub const LDA_TS_BITS: u32 = 40;
/// Width of the per-epoch packet counters (never wrap in practice: 16 days at 200 Mpps).
pub const LDA_EPOCH_COUNT_BITS: u32 = 48;

/// Parameters of an LDA core (both ends of a segment must use the same).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LdaConfig {
    /// Packet key width (see [`LDA_KEY_BITS`]).
    pub key_bits: usize,
    /// Number of banks n (see [`LDA_BANKS`]).
    pub banks: usize,
    /// Rows per bank m (see [`LDA_ROWS`]).
    pub rows: usize,
    /// Reset value of each bank's threshold k_j: a packet whose sampling hash
    /// has at least k_j leading zeros may go to bank j; the highest such bank
    /// wins (§III-B.4: p1 = 2^-3, p2 = 2^-7 by default). Registers at run time.
    pub bank_prob_log2: Vec<u32>,
    /// Seed of the row and sampling hash matrices (same at both ends).
    pub seed: u64,
    /// Carry each packet's timestamp from p1 to its counter update through a
    /// 256 × 40-bit block-RAM delay line instead of six 40-bit pipeline
    /// registers. The cycle behaviour is the same; it spends a block RAM (three
    /// iCE40 EBRs) to save 224 flip-flops, for parts whose logic cells are
    /// scarce (the HX8K board engine). Off on ECP5, where the registers are
    /// cheap and a RAM's clock-to-out would sit in front of the timestamp add.
    pub ts_in_ram: bool,
    /// Top module name of the export; derived from the config when absent.
    pub name: Option<String>,
}

impl Default for LdaConfig {
    fn default() -> Self {
        Self {
            key_bits: 120,
            banks: 2,
            rows: 512,
            bank_prob_log2: vec![3, 7],
            seed: 0x4c44_415f_6e6d_0001,
            ts_in_ram: false,
            name: None,
        }
    }
}

impl LdaConfig {
    /// Row-index bits per bank.
    pub fn row_bits(&self) -> usize {
        self.rows.trailing_zeros() as usize
    }

    /// Bank-index bits.
    pub fn bank_bits(&self) -> usize {
        (usize::BITS - (self.banks - 1).leading_zeros()) as usize
    }

    /// Address bits of the counter memory ({bank, row}).
    pub fn addr_bits(&self) -> usize {
        self.bank_bits() + self.row_bits()
    }

    /// Rows of the counter memory (all banks).
    pub fn total_rows(&self) -> usize {
        self.banks * self.rows
    }

    /// The row hash h(x) (§III-C): H3 of the key to `row_bits` bits.
    pub fn row_hash(&self) -> H3Config {
        H3Config { key_bits: self.key_bits, out_bits: self.row_bits(), seed: self.seed, registered: true, name: None }
    }

    /// The sampling hash g(x) (§III-C): an independent H3 of the key to [`LDA_SAMPLE_BITS`] bits.
    pub fn sample_hash(&self) -> H3Config {
        H3Config {
            key_bits: self.key_bits,
            out_bits: LDA_SAMPLE_BITS as usize,
            seed: self.seed ^ 0x5a4d_504c_455f_6731,
            registered: true,
            name: None,
        }
    }

    /// Checks every field; the error names the first impossible one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_one_of("key_bits", self.key_bits, LDA_KEY_BITS)?;
        check_one_of("banks", self.banks, LDA_BANKS)?;
        check_one_of("rows", self.rows, LDA_ROWS)?;
        if self.bank_prob_log2.len() != self.banks {
            return Err(ConfigError::new(
                "bank_prob_log2",
                format!("{} thresholds for {} banks (one per bank)", self.bank_prob_log2.len(), self.banks),
            ));
        }
        if let Some(k) = self.bank_prob_log2.iter().find(|&&k| k > LDA_SAMPLE_BITS) {
            return Err(ConfigError::new(
                "bank_prob_log2",
                format!("threshold {k} is above the {LDA_SAMPLE_BITS}-bit sampling hash"),
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
            format!(
                "netmeas_lda_k{}_b{}_r{}{}_{:08x}",
                self.key_bits,
                self.banks,
                self.rows,
                if self.ts_in_ram { "_tr" } else { "" },
                (self.seed ^ (self.seed >> 32)) as u32
            )
        })
    }

    /// Whether two ends measure the same thing: every field but the name and
    /// where the timestamp waits for its update (the same arithmetic either way).
    pub fn same_measurement(&self, other: &LdaConfig) -> bool {
        let core = |c: &LdaConfig| LdaConfig { name: None, ts_in_ram: false, ..c.clone() };
        core(self) == core(other)
    }
}

pub use crate::csr::{Access, RegisterDesc};

/// Word address of `CLASS_MASK`.
pub const LDA_REG_CLASS_MASK: u32 = 0;
/// Word address of `CLASS_MATCH`.
pub const LDA_REG_CLASS_MATCH: u32 = 1;
/// Word address of `BANK_LZ[0]`; bank j at `LDA_REG_BANK_LZ + j`.
pub const LDA_REG_BANK_LZ: u32 = 2;
/// Width of `csr_addr`.
pub const LDA_CSR_ADDR_BITS: u32 = 3;

/// The register map of an LDA core: the one source of `csr.json` and the datasheet table.
pub fn lda_registers(cfg: &LdaConfig) -> Vec<RegisterDesc> {
    let mut regs = vec![
        RegisterDesc {
            name: "CLASS_MASK".into(),
            addr: LDA_REG_CLASS_MASK,
            bits: LDA_CLASS_BITS,
            reset: 0,
            access: Access::Rw,
            doc: "Classifier mask (§V): a packet is measured iff (s_class & CLASS_MASK) == CLASS_MATCH. 0 measures every packet.".into(),
        },
        RegisterDesc {
            name: "CLASS_MATCH".into(),
            addr: LDA_REG_CLASS_MATCH,
            bits: LDA_CLASS_BITS,
            reset: 0,
            access: Access::Rw,
            doc: "Classifier value compared with the masked class field.".into(),
        },
    ];
    for (j, k) in cfg.bank_prob_log2.iter().enumerate() {
        regs.push(RegisterDesc {
            name: format!("BANK_LZ{j}"),
            addr: LDA_REG_BANK_LZ + j as u32,
            bits: 6,
            reset: *k as u64,
            access: Access::Rw,
            doc: format!(
                "Threshold k of bank {j} (§III-B.4): a measured packet whose {LDA_SAMPLE_BITS}-bit sampling hash has at least k leading zeros may update bank {j}; the highest such bank wins. Values above {LDA_SAMPLE_BITS} act as {LDA_SAMPLE_BITS}."
            ),
        });
    }
    regs
}

/// The run-time registers of an LDA core, as the golden models hold them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LdaRegs {
    /// `CLASS_MASK`.
    pub class_mask: u8,
    /// `CLASS_MATCH`.
    pub class_match: u8,
    /// Per bank: the sampling-hash bits that must be zero (top k of 24).
    pub bank_mask: Vec<u32>,
}

/// The sampling-hash mask of threshold `k`: its top `min(k, 24)` bits.
pub fn lz_mask(k: u32) -> u32 {
    let all = (1u32 << LDA_SAMPLE_BITS) - 1;
    if k >= LDA_SAMPLE_BITS { all } else { all ^ (all >> k) }
}

impl LdaRegs {
    /// Values after reset.
    pub fn reset(cfg: &LdaConfig) -> Self {
        Self { class_mask: 0, class_match: 0, bank_mask: cfg.bank_prob_log2.iter().map(|&k| lz_mask(k)).collect() }
    }

    /// A write on the CSR port (unknown addresses are ignored, as in the RTL).
    pub fn write(&mut self, addr: u32, data: u32) {
        match addr {
            LDA_REG_CLASS_MASK => self.class_mask = data as u8,
            LDA_REG_CLASS_MATCH => self.class_match = data as u8,
            a if a >= LDA_REG_BANK_LZ && ((a - LDA_REG_BANK_LZ) as usize) < self.bank_mask.len() => {
                self.bank_mask[(a - LDA_REG_BANK_LZ) as usize] = lz_mask(data & 63);
            }
            _ => {}
        }
    }

    /// The classifier of §V.
    #[inline]
    pub fn measured(&self, class: u8) -> bool {
        class & self.class_mask == self.class_match
    }

    /// The bank chosen by the sampling hash (§III-B.4), if any.
    #[inline]
    pub fn bank(&self, sample: u32) -> Option<usize> {
        self.bank_mask.iter().rposition(|&m| sample & m == 0)
    }
}

/// The two hashes of an LDA (golden, table-driven): row hash in the low 32
/// bits and sampling hash in the high 32 bits of one paired H3, so a packet
/// costs one pass over its key bytes.
#[derive(Clone, Debug)]
pub struct LdaHashes {
    both: H3,
}

impl LdaHashes {
    /// The hashes of `cfg`, built from the same matrices as the RTL.
    pub fn new(cfg: &LdaConfig) -> Self {
        let both = H3::paired(&H3::new(&cfg.row_hash()), &H3::new(&cfg.sample_hash()), 32);
        Self { both }
    }

    /// Row index h(x) within a bank and sampling hash g(x) (§III-C). The row
    /// hash is `row_bits` wide, so the low half holds nothing else.
    #[inline]
    pub fn row_and_sample(&self, key: u128) -> (u32, u32) {
        let h = self.both.hash(key);
        (h as u32, (h >> 32) as u32)
    }

    /// Row index h(x) within a bank.
    #[inline]
    pub fn row(&self, key: u128) -> u32 {
        self.row_and_sample(key).0
    }

    /// Sampling hash g(x).
    #[inline]
    pub fn sample(&self, key: u128) -> u32 {
        self.row_and_sample(key).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_select_by_leading_zeros() {
        assert_eq!(lz_mask(0), 0);
        assert_eq!(lz_mask(3), 0xE0_0000);
        assert_eq!(lz_mask(24), 0xFF_FFFF);
        assert_eq!(lz_mask(40), 0xFF_FFFF);
        let r = LdaRegs::reset(&LdaConfig::default());
        // §III-B.4: seven leading zeros -> bank 2 (index 1); three -> bank 1; fewer -> none.
        assert_eq!(r.bank(0x01_0000), Some(1));
        assert_eq!(r.bank(0x10_0000), Some(0));
        assert_eq!(r.bank(0x20_0000), None);
    }

    #[test]
    fn bad_configs_name_the_field() {
        let e = LdaConfig { rows: 500, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "rows");
        let e = LdaConfig { banks: 3, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "bank_prob_log2");
        let e = LdaConfig { bank_prob_log2: vec![3, 30], ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "bank_prob_log2");
        let e = LdaConfig { key_bits: 100, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "key_bits");
        LdaConfig::default().validate().unwrap();
        assert_eq!(LdaConfig::default().addr_bits(), 10);
        assert_eq!(LdaConfig { banks: 3, bank_prob_log2: vec![1, 2, 3], ..Default::default() }.addr_bits(), 11);
    }

    #[test]
    fn the_timestamp_path_names_the_module_but_not_the_measurement() {
        let regs = LdaConfig::default();
        let ram = LdaConfig { ts_in_ram: true, ..Default::default() };
        assert!(regs.same_measurement(&ram) && ram.same_measurement(&regs));
        assert_ne!(regs.top_name(), ram.top_name());
        assert!(ram.top_name().starts_with("netmeas_lda_k120_b2_r512_tr_"), "{}", ram.top_name());
        assert!(!regs.same_measurement(&LdaConfig { seed: 1, ts_in_ram: true, ..Default::default() }));
    }
}
