//! Parameters of the DBM and EXPB cores (Uyeda, Foschini, Baker, Suri,
//! Varghese, *Efficiently Measuring Bandwidth at All Time Scales*: §3.1 DBM
//! and its merge rules, §3.2 EXPB, §3.3 culprits, §5 the radix-32 heap).

use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// Radix of the two-level min structure (§5: "a 2-level radix-32 heap that uses 32-way comparators").
pub const DBM_RADIX: usize = 32;
/// Most buckets the two-level radix-32 structure holds (32 groups of 32 keys).
pub const DBM_MAX_BUCKETS: usize = DBM_RADIX * DBM_RADIX;
/// Fewest buckets (two, so there is a pair to merge).
pub const DBM_MIN_BUCKETS: usize = 2;
/// Width of a merge key; larger keys saturate at [`KEY_MAX`].
pub const KEY_BITS: u32 = 48;
/// The largest merge key (a saturated key).
pub const KEY_MAX: u64 = (1 << KEY_BITS) - 1;
/// The key of a slot that has no right neighbour (the tail): above every real key.
pub const KEY_NONE: u64 = 1 << KEY_BITS;
/// Width of a bucket's mass (bytes); larger masses saturate (and are flagged).
pub const MASS_BITS: u32 = 56;
/// The largest mass.
pub const MASS_MAX: u64 = (1 << MASS_BITS) - 1;
/// Width of a base interval's byte sum s_i; larger sums saturate (and are flagged).
pub const INTERVAL_SUM_BITS: u32 = 32;
/// The largest base-interval sum.
pub const INTERVAL_SUM_MAX: u64 = (1 << INTERVAL_SUM_BITS) - 1;
/// Most base intervals in one period (the paper's 2 s / 78.125 µs is 25 600).
pub const MAX_INTERVALS: u64 = 1 << 20;
/// Clocks the base-interval DBM core's list back end needs at most to insert
/// one interval's bucket (merge by variance, the costliest rule: s², three
/// keys of up to 147 clocks each, the culprit draw, three group scans). A base
/// interval at least this many clocks long never holds a packet back.
pub const DBM_BASE_INSERT_CLOCKS: u64 = 640;
/// Width of a packet timestamp (ticks).
pub const TS_BITS: u32 = 48;
/// Width of a flow's byte count in a bucket's culprit (§3.3); it saturates.
pub const FLOW_COUNT_BITS: u32 = 32;
/// Time scales EXPB supports (§3.2: Δ_i = 2^(i-1) Δ_1; the paper uses 11 and 14).
pub const EXPB_SCALES: std::ops::RangeInclusive<usize> = 1..=16;

/// What the DBM merges adjacent buckets by (§3.1, §3.1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MergeRule {
    /// DBM-mm: the smallest combined mass (Algorithm 1).
    Mm,
    /// DBM-mr: the smallest range (max − min of the base-interval sums) of the merged bucket.
    Mr,
    /// DBM-mv: the smallest variance of the base-interval sums of the merged bucket.
    Mv,
}

impl MergeRule {
    /// Parses `mm`, `mr` or `mv`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "mm" => Ok(Self::Mm),
            "mr" => Ok(Self::Mr),
            "mv" => Ok(Self::Mv),
            _ => Err(format!("unknown merge rule {s:?} (mm, mr or mv)")),
        }
    }

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Mm => "mm",
            Self::Mr => "mr",
            Self::Mv => "mv",
        }
    }
}

/// Parameters of a DBM core.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DbmConfig {
    /// Buckets m (2..=1024).
    pub buckets: usize,
    /// Merge rule.
    pub rule: MergeRule,
    /// Base interval Δ in ticks; 0 = per-packet mode (every packet a bucket,
    /// Algorithm 1, DBM-mm only). Otherwise every Δ-interval sum of S_Δ,
    /// empty intervals included, becomes a bucket (§3.1.3).
    pub base_ticks: u64,
    /// Aggregation period T in ticks (a multiple of `base_ticks` in base-interval mode).
    pub period_ticks: u64,
    /// Seed of the culprit PRNG (§3.3: a merge of two flows keeps one with
    /// probability proportional to its count).
    pub seed: u32,
}

impl Default for DbmConfig {
    fn default() -> Self {
        // §4.1: 1000 buckets (1024 here: the radix-32 structure's size), Δ = 78.125 µs in ns, T = 2 s.
        Self { buckets: 1024, rule: MergeRule::Mm, base_ticks: 0, period_ticks: 2_000_000_000, seed: 0x4442_4d31 }
    }
}

impl DbmConfig {
    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(DBM_MIN_BUCKETS..=DBM_MAX_BUCKETS).contains(&self.buckets) {
            return Err(ConfigError::new(
                "dbm.buckets",
                format!("{} is out of range {DBM_MIN_BUCKETS}..={DBM_MAX_BUCKETS}", self.buckets),
            ));
        }
        if self.base_ticks == 0 && self.rule != MergeRule::Mm {
            return Err(ConfigError::new(
                "dbm.base_ticks",
                format!("merge-by-{} works on base-interval sums (§3.1.3): set a base interval", self.rule.name()),
            ));
        }
        if self.period_ticks == 0 || self.period_ticks >= 1 << TS_BITS {
            return Err(ConfigError::new(
                "dbm.period_ticks",
                format!("{} is not in 1..2^{TS_BITS}", self.period_ticks),
            ));
        }
        if self.base_ticks != 0 && !self.period_ticks.is_multiple_of(self.base_ticks) {
            return Err(ConfigError::new(
                "dbm.period_ticks",
                format!("{} is not a multiple of the base interval {}", self.period_ticks, self.base_ticks),
            ));
        }
        if self.intervals() > MAX_INTERVALS {
            return Err(ConfigError::new(
                "dbm.base_ticks",
                format!("{} base intervals per period exceed {MAX_INTERVALS}", self.intervals()),
            ));
        }
        if self.seed == 0 {
            return Err(ConfigError::new("dbm.seed", "0 is the one seed xorshift32 cannot leave"));
        }
        Ok(())
    }

    /// Base intervals per period (0 in per-packet mode).
    pub fn intervals(&self) -> u64 {
        self.period_ticks.checked_div(self.base_ticks).unwrap_or(0)
    }

    /// The exported core's Verilog top module name: buckets, period and PRNG seed.
    pub fn top_name(&self) -> String {
        if self.base_ticks == 0 {
            return format!("netmeas_dbm_m{}_p{}_s{:08x}", self.buckets, self.period_ticks, self.seed);
        }
        format!(
            "netmeas_dbm_m{}_{}_b{}_p{}_s{:08x}",
            self.buckets,
            self.rule.name(),
            self.base_ticks,
            self.period_ticks,
            self.seed
        )
    }
}

/// Parameters of an EXPB core.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExpbConfig {
    /// Time scales m: Δ_i = 2^(i-1) Δ_1 for i = 1..=m.
    pub scales: usize,
    /// Δ_1 in ticks.
    pub base_ticks: u64,
    /// Aggregation period T in ticks: a multiple of Δ_m, so every scale's intervals are whole (§4.1).
    pub period_ticks: u64,
}

impl Default for ExpbConfig {
    fn default() -> Self {
        // §4.1: 11 scales from 78.125 µs (5^7 ns) to 80 ms over a 2 s period.
        Self { scales: 11, base_ticks: 78_125, period_ticks: 2_000_000_000 }
    }
}

impl ExpbConfig {
    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !EXPB_SCALES.contains(&self.scales) {
            return Err(ConfigError::new(
                "expb.scales",
                format!("{} is out of range {}..={}", self.scales, EXPB_SCALES.start(), EXPB_SCALES.end()),
            ));
        }
        if self.base_ticks == 0 {
            return Err(ConfigError::new("expb.base_ticks", "the finest time scale must be at least one tick"));
        }
        // checked_shl refuses only shifts past the word, not bits shifted out: multiply.
        let coarsest = self.base_ticks.checked_mul(1 << (self.scales - 1)).filter(|c| *c < 1 << TS_BITS);
        let Some(coarsest) = coarsest else {
            return Err(ConfigError::new("expb.base_ticks", "the coarsest scale does not fit the timestamp"));
        };
        if self.period_ticks == 0 || self.period_ticks >= 1 << TS_BITS || !self.period_ticks.is_multiple_of(coarsest) {
            return Err(ConfigError::new(
                "expb.period_ticks",
                format!(
                    "{} is not a multiple of the coarsest scale 2^{} × {} = {coarsest} below 2^{TS_BITS}",
                    self.period_ticks,
                    self.scales - 1,
                    self.base_ticks
                ),
            ));
        }
        if self.intervals() > MAX_INTERVALS {
            return Err(ConfigError::new(
                "expb.base_ticks",
                format!("{} base intervals per period exceed {MAX_INTERVALS}", self.intervals()),
            ));
        }
        Ok(())
    }

    /// Δ_j in ticks for j = 0..scales (0-based: Δ_1 is index 0).
    pub fn scale_ticks(&self, j: usize) -> u64 {
        self.base_ticks << j
    }

    /// Base intervals per period.
    pub fn intervals(&self) -> u64 {
        self.period_ticks / self.base_ticks
    }

    /// The exported core's Verilog top module name: scales, Δ_1 and intervals per period.
    pub fn top_name(&self) -> String {
        format!("netmeas_expb_s{}_b{}_i{}", self.scales, self.base_ticks, self.intervals())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_name_their_field() {
        DbmConfig::default().validate().unwrap();
        ExpbConfig::default().validate().unwrap();
        let bad = |c: DbmConfig| c.validate().unwrap_err().field;
        assert_eq!(bad(DbmConfig { buckets: 1025, ..Default::default() }), "dbm.buckets");
        assert_eq!(bad(DbmConfig { buckets: 1, ..Default::default() }), "dbm.buckets");
        assert_eq!(bad(DbmConfig { rule: MergeRule::Mr, ..Default::default() }), "dbm.base_ticks");
        assert_eq!(bad(DbmConfig { base_ticks: 3, period_ticks: 10, ..Default::default() }), "dbm.period_ticks");
        assert_eq!(bad(DbmConfig { seed: 0, ..Default::default() }), "dbm.seed");
        let bad = |c: ExpbConfig| c.validate().unwrap_err().field;
        assert_eq!(bad(ExpbConfig { scales: 0, ..Default::default() }), "expb.scales");
        assert_eq!(bad(ExpbConfig { scales: 12, ..Default::default() }), "expb.period_ticks");
        assert_eq!(bad(ExpbConfig { base_ticks: 0, ..Default::default() }), "expb.base_ticks");
        // 2^49 + 1 shifted by 15 leaves 2^15 in a u64: still refused, not wrapped.
        assert_eq!(bad(ExpbConfig { scales: 16, base_ticks: (1 << 49) + 1, ..Default::default() }), "expb.base_ticks");
        assert_eq!(bad(ExpbConfig { scales: 16, base_ticks: 1 << 33, ..Default::default() }), "expb.base_ticks");
        // 2 s in ns has 2^10 · 5^9 · 2 = 2^11 · 5^9: Δ_1 = 5^7 ns allows 11 scales (§4.1), not 12.
        assert!(ExpbConfig { scales: 11, ..Default::default() }.validate().is_ok());
        assert_eq!(MergeRule::parse("mv"), Ok(MergeRule::Mv));
        assert!(MergeRule::parse("max").is_err());
    }
}
