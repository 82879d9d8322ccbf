//! The measurement engine: a sender and a receiver LDA core (Kompella et al.,
//! ToN 2012, §III-B..C, §V), a fridge core (Zheng et al. §3, §4.2, §6: the
//! sender's packets are its requests, the receiver's its responses) and an
//! EXPB core and a DBM core (Uyeda et al. §3.2, §3.1, §3.3: the sender's
//! bandwidth at every time scale) fed by an on-chip traffic source, one timestamp counter, and a register bus reached
//! through the host link ([`link`](super::link)). This module holds its config, its register map
//! (the one source of `csr.json` and the table in `docs/board.md`) and the
//! ports of its exported top.

use super::link::LinkConfig;
use crate::dbm::traffic::BwPacket;
use crate::dbm::{DbmConfig, ExpbConfig, MergeRule};
use crate::error::{ConfigError, check_one_of};
use crate::fridge::FridgeConfig;
use crate::lda::LdaConfig;
use serde::{Deserialize, Serialize};

/// Key widths the engine is built for (the source's keys are 120 bits: the
/// 56-bit packet number above 64 PRNG bits; a 64- or 32-bit core sees PRNG bits).
pub const ENGINE_KEY_BITS: &[usize] = &[32, 64, 120];
/// Entries of the source's delay table (an 8-bit PRNG draw picks one).
pub const DELAY_TABLE_ENTRIES: usize = 256;
/// Width of a delay-table entry in timestamp ticks (clocks).
pub const DELAY_BITS: u32 = 24;
/// Width of the timestamp counter: the LDA's timestamp width (§V).
pub const TIME_BITS: u32 = crate::lda::LDA_TS_BITS;
/// The value of `ID`: "NME1".
pub const ENGINE_ID: u32 = 0x4E4D_4531;
/// Row-address bits of a read-out window (rows of one core: at most 2^14).
pub const WINDOW_ROW_BITS: u32 = 14;
/// Entry-address bits of the engine's fridge core: its fridges hold 2^11 < Σ M_k ≤ 2^12 entries.
pub const ENGINE_FRIDGE_ADDR_BITS: usize = 12;
/// The fridge sees each 40-bit timestamp shifted up by this many bits (its top 40 of 48), so its
/// 48-bit delay differences wrap with the engine's 40-bit clock; its delays are in 2^-8 ticks.
pub const FRIDGE_TS_SHIFT: u32 = 48 - TIME_BITS;

/// The engine's default fridge: the core's defaults (two fridges of 2048 entries, p = 2^-9 and
/// 2^-4), with `BIN_SHIFT` = [`FRIDGE_TS_SHIFT`], so histogram bin i holds delays of
/// [2^(i−1), 2^i) ticks (clocks).
pub fn engine_fridge_default() -> FridgeConfig {
    FridgeConfig { bin_shift: FRIDGE_TS_SHIFT, ..FridgeConfig::default() }
}

/// The fridge's 32-bit ID of a packet key (§6.1's digest): the XOR of the key's 32-bit words,
/// the same at both points.
pub fn fridge_id(key: u128) -> u32 {
    (key ^ key >> 32 ^ key >> 64 ^ key >> 96) as u32
}

/// The engine's default EXPB core: 11 scales (the paper's count, §4.1) from 32 ticks to 32 768,
/// over periods of 65 536 ticks, one epoch of the source's defaults (65 536 packets, `GAP` 1).
pub fn engine_expb_default() -> ExpbConfig {
    ExpbConfig { scales: 11, base_ticks: 32, period_ticks: 65_536 }
}

/// The engine's default DBM core: the paper's 1000 buckets (1024, the radix-32 structure's size,
/// §4.1, §5), merge by mass per packet (Algorithm 1), over the EXPB core's periods of 65 536 ticks.
pub fn engine_dbm_default() -> DbmConfig {
    DbmConfig { buckets: 1024, rule: MergeRule::Mm, base_ticks: 0, period_ticks: 65_536, ..DbmConfig::default() }
}

/// Width of the bandwidth points' time (the EXPB and DBM cores' timestamp width).
pub const BANDWIDTH_TIME_BITS: u32 = crate::dbm::TS_BITS;

/// The bandwidth packet the EXPB and DBM points make of the sender's packet with key `key` when the
/// source's `GAP` is `gap`: time = the packet's number since reset (key bits 119:64) × `GAP`
/// ticks, the source's timeline without its pauses (mod 2^48); length = 64 + key bits 41:32
/// bytes (64..=1087); flow = the leading zeros of key bits 63:48 (flow f with probability
/// 2^-(f+1), 16 for all zeros), so a few flows carry most bytes and the culprits (§3.3) mean
/// something.
pub fn bandwidth_packet(key: u128, gap: u16) -> BwPacket {
    let seq = (key >> 64) as u64;
    BwPacket {
        ts: seq.wrapping_mul(gap.max(1) as u64) & ((1 << BANDWIDTH_TIME_BITS) - 1),
        len: 64 + ((key >> 32) as u32 & 0x3FF),
        flow: ((key >> 48) as u16).leading_zeros(),
    }
}

/// Parameters of a measurement engine: both LDA cores (sender and receiver
/// share one config, as both ends of a segment must), the fridge core, the EXPB and DBM cores
/// and the host link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineConfig {
    /// The two LDA cores (`key_bits` one of [`ENGINE_KEY_BITS`]).
    pub lda: LdaConfig,
    /// The fridge core on the source's packets, or `null` for none (its entries must total
    /// 2^11 < Σ M_k ≤ 2^[`ENGINE_FRIDGE_ADDR_BITS`], its `bin_shift` at least [`FRIDGE_TS_SHIFT`]).
    pub fridge: Option<FridgeConfig>,
    /// The EXPB core (bandwidth at 2^j · `base_ticks` for j < `scales`, Uyeda et al. §3.2) on the
    /// sender's packets ([`bandwidth_packet`]), or `null` for none (`base_ticks` below 2^32).
    pub expb: Option<ExpbConfig>,
    /// The DBM core (merge by mass per packet, Uyeda et al. §3.1, Algorithm 1) on the same
    /// packets, or `null` for none (`base_ticks` 0).
    pub dbm: Option<DbmConfig>,
    /// The host link (its `uart.clock_hz` is the engine's clock).
    pub link: LinkConfig,
    /// Top module name of the export; derived from the config when absent.
    pub name: Option<String>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            lda: LdaConfig::default(),
            fridge: Some(engine_fridge_default()),
            expb: Some(engine_expb_default()),
            dbm: Some(engine_dbm_default()),
            link: LinkConfig::default(),
            name: None,
        }
    }
}

impl EngineConfig {
    /// The engine of the iCE40-HX8K board, reduced to fit its 7680 logic
    /// cells: two cores of one bank of 128 rows (sampling 2^-3, a register)
    /// with 32-bit keys, the timestamps waiting for their updates in block RAM
    /// (`ts_in_ram`), on the 12 MHz oscillator, 3 Mbaud, and no fridge, EXPB or
    /// DBM core.
    pub fn hx8k() -> Self {
        Self {
            lda: LdaConfig {
                key_bits: 32,
                banks: 1,
                rows: 128,
                bank_prob_log2: vec![3],
                ts_in_ram: true,
                ..LdaConfig::default()
            },
            fridge: None,
            expb: None,
            dbm: None,
            link: LinkConfig {
                uart: crate::board::uart::UartConfig { clock_hz: 12_000_000, baud: 3_000_000 },
                // 20 ms, as the default at 50 MHz.
                bridge: crate::board::link::BridgeConfig { timeout_clocks: 240_000 },
            },
            name: None,
        }
    }

    /// Checks every field; the error names the first impossible one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.lda.validate().map_err(|e| e.within("lda"))?;
        check_one_of("lda.key_bits", self.lda.key_bits, ENGINE_KEY_BITS)?;
        if let Some(f) = &self.fridge {
            f.validate().map_err(|e| e.within("fridge"))?;
            if f.addr_bits() != ENGINE_FRIDGE_ADDR_BITS {
                return Err(ConfigError::new(
                    "fridge.entries",
                    format!(
                        "the engine's fridges hold more than 2^{} and at most 2^{} entries in total, not {}",
                        ENGINE_FRIDGE_ADDR_BITS - 1,
                        ENGINE_FRIDGE_ADDR_BITS,
                        f.total_entries()
                    ),
                ));
            }
            if f.bin_shift < FRIDGE_TS_SHIFT {
                return Err(ConfigError::new(
                    "fridge.bin_shift",
                    format!(
                        "{} is below {FRIDGE_TS_SHIFT}: the fridge's delays are in 2^-{FRIDGE_TS_SHIFT} ticks",
                        f.bin_shift
                    ),
                ));
            }
        }
        if let Some(x) = &self.expb {
            x.validate().map_err(|e| e.within("expb"))?;
            if x.base_ticks >> 32 != 0 {
                return Err(ConfigError::new(
                    "expb.base_ticks",
                    format!("{} does not fit the 32-bit EXPB_BASE_TICKS register", x.base_ticks),
                ));
            }
        }
        if let Some(d) = &self.dbm {
            d.validate().map_err(|e| e.within("dbm"))?;
            if d.base_ticks != 0 {
                return Err(ConfigError::new(
                    "dbm.base_ticks",
                    format!("{}: the engine's DBM core works per packet (base_ticks 0)", d.base_ticks),
                ));
            }
        }
        self.link.validate().map_err(|e| e.within("link"))?;
        if let Some(n) = &self.name {
            crate::check_module_name("name", n)?;
        }
        Ok(())
    }

    /// The Verilog top module name of this config.
    pub fn top_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            format!(
                "netmeas_engine_k{}_b{}_r{}_d{}{}{}{}",
                self.lda.key_bits,
                self.lda.banks,
                self.lda.rows,
                self.link.uart.divisor(),
                if self.fridge.is_some() { "_fr" } else { "" },
                if self.expb.is_some() { "_bw" } else { "" },
                if self.dbm.is_some() { "_dbm" } else { "" }
            )
        })
    }

    /// The word `CONFIG` reads: key bits, banks, row bits, the fridge core's
    /// fridges (0: none), the EXPB core's scales (0: none), whether there is a DBM
    /// core, so that a reader can tell a bitstream built for another geometry.
    pub fn config_word(&self) -> u32 {
        self.lda.key_bits as u32
            | (self.lda.banks as u32) << 8
            | (self.lda.row_bits() as u32) << 12
            | (self.fridge.as_ref().map_or(0, |f| f.fridges()) as u32) << 16
            | (self.expb.as_ref().map_or(0, |x| x.scales & 0xF) as u32) << 20
            | (self.dbm.is_some() as u32) << 24
    }

    /// Histogram rows of the fridge core (32 per fridge; 0 without one).
    pub fn fridge_rows(&self) -> u32 {
        self.fridge.as_ref().map_or(0, |f| (f.fridges() * crate::fridge::FRIDGE_BINS) as u32)
    }
}

/// How the host may use a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Read only (writes are acknowledged and ignored).
    Ro,
    /// Read and write.
    Rw,
    /// Write only (reads return 0).
    Wo,
    /// Read with a side effect (the read-out windows).
    Rc,
}

/// One register (or window) of the engine's bus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EngineRegister {
    /// Name.
    pub name: String,
    /// Word address (the first, for a window).
    pub addr: u16,
    /// Words (1, or the rows of a window).
    pub words: u32,
    /// Access.
    pub access: Access,
    /// Bits used, from bit 0.
    pub bits: u32,
    /// Value after reset.
    pub reset: u64,
    /// What it does.
    pub doc: String,
}

/// Engine registers (addresses on the link's 16-bit bus).
pub mod reg {
    /// `ID`: reads [`ENGINE_ID`](super::ENGINE_ID).
    pub const ID: u16 = 0x0000;
    /// `CONFIG`: the geometry the bitstream was built for.
    pub const CONFIG: u16 = 0x0001;
    /// `CTRL`: bit 0 runs the traffic source, bit 1 feeds the cores from the external streams.
    pub const CTRL: u16 = 0x0002;
    /// `RESET`: writing bit 0 resets the measurement side.
    pub const RESET: u16 = 0x0003;
    /// `SEED_LO`.
    pub const SEED_LO: u16 = 0x0004;
    /// `SEED_HI`: writing it loads the PRNGs.
    pub const SEED_HI: u16 = 0x0005;
    /// `EPOCH_PACKETS`.
    pub const EPOCH_PACKETS: u16 = 0x0006;
    /// `GAP`.
    pub const GAP: u16 = 0x0007;
    /// `LOSS`.
    pub const LOSS: u16 = 0x0008;
    /// `REORDER`.
    pub const REORDER: u16 = 0x0009;
    /// `DELAY`: `{index[31:24], ticks[23:0]}` into the delay table.
    pub const DELAY: u16 = 0x000A;
    /// `STATUS`.
    pub const STATUS: u16 = 0x0010;
    /// `TIME_LO`.
    pub const TIME_LO: u16 = 0x0011;
    /// `TIME_HI`.
    pub const TIME_HI: u16 = 0x0012;
    /// `FROZEN_START_LO`.
    pub const FROZEN_START_LO: u16 = 0x0013;
    /// `FROZEN_START_HI`.
    pub const FROZEN_START_HI: u16 = 0x0014;
    /// `FROZEN_SENT`.
    pub const FROZEN_SENT: u16 = 0x0015;
    /// `FROZEN_RECEIVED`.
    pub const FROZEN_RECEIVED: u16 = 0x0016;
    /// `FROZEN_LOST`.
    pub const FROZEN_LOST: u16 = 0x0017;
    /// `FROZEN_DELAY_LO`.
    pub const FROZEN_DELAY_LO: u16 = 0x0018;
    /// `FROZEN_DELAY_HI`.
    pub const FROZEN_DELAY_HI: u16 = 0x0019;
    /// `LINK_RX_ERRORS`: `{overruns, frame errors}`.
    pub const LINK_RX_ERRORS: u16 = 0x001A;
    /// `LINK_REQUEST_ERRORS`: `{truncated, CRC errors}`.
    pub const LINK_REQUEST_ERRORS: u16 = 0x001B;
    /// Base of the sender core's block.
    pub const SENDER: u16 = 0x0100;
    /// Base of the receiver core's block.
    pub const RECEIVER: u16 = 0x0200;
    /// Core block: the LDA's CSRs at `+0 .. +7` (write only, 8 bits).
    pub const CORE_CSR: u16 = 0x00;
    /// Core block: `FROZEN_SEQ`.
    pub const CORE_FROZEN_SEQ: u16 = 0x08;
    /// Core block: `FROZEN_PACKETS_LO`.
    pub const CORE_PACKETS_LO: u16 = 0x09;
    /// Core block: `FROZEN_PACKETS_HI`.
    pub const CORE_PACKETS_HI: u16 = 0x0A;
    /// Core block: `FROZEN_SAMPLED_LO`.
    pub const CORE_SAMPLED_LO: u16 = 0x0B;
    /// Core block: `FROZEN_SAMPLED_HI`.
    pub const CORE_SAMPLED_HI: u16 = 0x0C;
    /// Core block: `OVERFLOW` (a write clears it).
    pub const CORE_OVERFLOW: u16 = 0x0D;
    /// Core block: `ROW_COUNT` of the row presented.
    pub const CORE_ROW_COUNT: u16 = 0x0E;
    /// Core block: `ROW_TSUM_LO` of the row presented.
    pub const CORE_ROW_TSUM_LO: u16 = 0x0F;
    /// Read-out window of the sender core (`+ row`).
    pub const SENDER_WINDOW: u16 = 0x4000;
    /// Read-out window of the receiver core (`+ row`).
    pub const RECEIVER_WINDOW: u16 = 0x8000;
    /// Base of the fridge core's block: its CSRs at `+0 .. +31` (docs/cores/fridge.md).
    pub const FRIDGE: u16 = 0x0300;
    /// Histogram read-out window of the fridge core (`+ row`, row = 32 · fridge + bin).
    pub const FRIDGE_WINDOW: u16 = 0xC000;
    /// Base of the EXPB core's block (words below).
    pub const EXPB: u16 = 0x0400;
    /// EXPB block: `EXPB_BASE_TICKS`, Δ_1 the core is built for.
    pub const EXPB_BASE_TICKS: u16 = 0x00;
    /// EXPB block: `EXPB_PERIOD_TICKS_LO`, the period the core is built for, bits 31:0.
    pub const EXPB_PERIOD_TICKS_LO: u16 = 0x01;
    /// EXPB block: `EXPB_PERIOD_TICKS_HI`, bits 47:32.
    pub const EXPB_PERIOD_TICKS_HI: u16 = 0x02;
    /// EXPB block: `EXPB_PERIOD`, index of the frozen period.
    pub const EXPB_PERIOD: u16 = 0x03;
    /// EXPB block: `EXPB_PACKETS_LO`, packets of the frozen period, bits 31:0.
    pub const EXPB_PACKETS_LO: u16 = 0x04;
    /// EXPB block: `EXPB_PACKETS_HI`, bits 63:32.
    pub const EXPB_PACKETS_HI: u16 = 0x05;
    /// EXPB block: `EXPB_ROW`, `{valid[31], last[30], saturated[29], scale[3:0]}` of the presented row.
    pub const EXPB_ROW: u16 = 0x06;
    /// EXPB block: `EXPB_COUNT`, intervals of the presented scale.
    pub const EXPB_COUNT: u16 = 0x07;
    /// EXPB block: `EXPB_SUM_LO`, Σ of its interval sums, bits 31:0 (`EXPB_SUM_HI` next: 51:32).
    pub const EXPB_SUM_LO: u16 = 0x08;
    /// EXPB block: `EXPB_SUMSQ_0`, Σ of their squares, bits 31:0 (`_1`, `_2`, `_3` next: up to bit 103).
    pub const EXPB_SUMSQ_0: u16 = 0x0A;
    /// EXPB block: `EXPB_MAX_LO`, the largest interval sum, bits 31:0 (`EXPB_MAX_HI` next: 47:32).
    pub const EXPB_MAX_LO: u16 = 0x0E;
    /// EXPB block: `EXPB_MAX_INDEX`, its interval's index.
    pub const EXPB_MAX_INDEX: u16 = 0x10;
    /// EXPB block: `EXPB_MAX_FLOW`, that interval's majority flow (§3.3).
    pub const EXPB_MAX_FLOW: u16 = 0x11;
    /// EXPB block: `EXPB_LIVE_PERIOD`, index of the live period.
    pub const EXPB_LIVE_PERIOD: u16 = 0x12;
    /// EXPB block: `EXPB_TIME_LO`, the point's time (the next sender packet's), bits 31:0.
    pub const EXPB_TIME_LO: u16 = 0x13;
    /// EXPB block: `EXPB_TIME_HI`, bits 47:32.
    pub const EXPB_TIME_HI: u16 = 0x14;
    /// EXPB block: `EXPB_TAKE`, writing `{period[27:0], scale[3:0]}` takes the presented row if it is that row.
    pub const EXPB_TAKE: u16 = 0x18;
    /// Base of the DBM core's block (words below).
    pub const DBM: u16 = 0x0500;
    /// DBM block: `DBM_BUCKETS`, the buckets m the core is built for.
    pub const DBM_BUCKETS: u16 = 0x00;
    /// DBM block: `DBM_PERIOD_TICKS_LO`, the period the core is built for, bits 31:0 (`_HI` next: 47:32).
    pub const DBM_PERIOD_TICKS_LO: u16 = 0x01;
    /// DBM block: `DBM_PERIOD`, index of the frozen period.
    pub const DBM_PERIOD: u16 = 0x03;
    /// DBM block: `DBM_PACKETS_LO`, packets of the frozen period, bits 31:0 (`_HI` next).
    pub const DBM_PACKETS_LO: u16 = 0x04;
    /// DBM block: `DBM_MERGES_LO`, merges of the frozen period, bits 31:0 (`_HI` next).
    pub const DBM_MERGES_LO: u16 = 0x06;
    /// DBM block: `DBM_TAIL_JOINS_LO`, of them joins of the tail, bits 31:0 (`_HI` next).
    pub const DBM_TAIL_JOINS_LO: u16 = 0x08;
    /// DBM block: `DBM_BEAT`, `{valid[31], end[30], key saturated[29], mass saturated[28], beat[10:0]}`
    /// of the presented read-out beat (beat b of the period: bucket b, or the end after the last).
    pub const DBM_BEAT: u16 = 0x0A;
    /// DBM block: `DBM_FIRST_LO`, the presented bucket's first tick, bits 31:0 (`_HI` next: 47:32).
    pub const DBM_FIRST_LO: u16 = 0x0B;
    /// DBM block: `DBM_LAST_LO`, its last tick, bits 31:0 (`_HI` next: 47:32).
    pub const DBM_LAST_LO: u16 = 0x0D;
    /// DBM block: `DBM_MASS_LO`, its bytes, bits 31:0 (`_HI` next: 55:32).
    pub const DBM_MASS_LO: u16 = 0x0F;
    /// DBM block: `DBM_N`, its packets.
    pub const DBM_N: u16 = 0x11;
    /// DBM block: `DBM_MAX`, its largest packet.
    pub const DBM_MAX: u16 = 0x12;
    /// DBM block: `DBM_MIN`, its smallest packet.
    pub const DBM_MIN: u16 = 0x13;
    /// DBM block: `DBM_FLOW`, its culprit flow (§3.3).
    pub const DBM_FLOW: u16 = 0x14;
    /// DBM block: `DBM_FLOW_COUNT`, the bytes counted for the culprit.
    pub const DBM_FLOW_COUNT: u16 = 0x15;
    /// DBM block: `DBM_TAKE`, writing `{period[20:0], beat[10:0]}` takes the presented beat if it is that beat.
    pub const DBM_TAKE: u16 = 0x18;
}

/// `CTRL` bit: the traffic source runs.
pub const CTRL_RUN: u32 = 1 << 0;
/// `CTRL` bit: the cores take the external streams (`x_tx_*`, `x_rx_*`); the source stops.
pub const CTRL_EXTERNAL: u32 = 1 << 1;
/// `STATUS` bit: the source runs.
pub const STATUS_RUN: u32 = 1 << 0;
/// `STATUS` bit: both cores present a frozen epoch for read-out.
pub const STATUS_FROZEN: u32 = 1 << 1;
/// `STATUS` bit: the source holds an epoch's last packet until the previous read-out ends.
pub const STATUS_WAITING: u32 = 1 << 2;
/// `STATUS` bit: a sender row count wrapped (sticky).
pub const STATUS_SENDER_OVF: u32 = 1 << 3;
/// `STATUS` bit: a receiver row count wrapped (sticky).
pub const STATUS_RECEIVER_OVF: u32 = 1 << 4;
/// `STATUS` bit: both cores accept packets (their memories are clear after reset).
pub const STATUS_READY: u32 = 1 << 5;
/// `STATUS` bit: the sender's live copy (toggles with every epoch).
pub const STATUS_SENDER_EPOCH: u32 = 1 << 6;
/// `STATUS` bit: the receiver's live copy.
pub const STATUS_RECEIVER_EPOCH: u32 = 1 << 7;
/// `STATUS` bit: the fridge core presents a frozen histogram row.
pub const STATUS_FRIDGE_FROZEN: u32 = 1 << 8;
/// `STATUS` bit: the fridge core's flip waits for its previous read-out.
pub const STATUS_FRIDGE_PENDING: u32 = 1 << 9;
/// `STATUS` bit: a fridge histogram field wrapped (sticky).
pub const STATUS_FRIDGE_OVF: u32 = 1 << 10;
/// `STATUS` bit: the EXPB core presents a row of a frozen period.
pub const STATUS_EXPB_FROZEN: u32 = 1 << 11;
/// `STATUS` bit: the DBM core presents a beat of a frozen period.
pub const STATUS_DBM_FROZEN: u32 = 1 << 12;
/// `STATUS` bits 31:16: epochs ended since reset, modulo 2^16.
pub const STATUS_EPOCHS_SHIFT: u32 = 16;

/// A read-out window word: bit 31 the row was there, bit 30 last row,
/// bits 29:16 its address, bits 7:0 its timestamp sum's bits 39:32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowWord {
    /// A row was presented (or is the one just taken).
    pub valid: bool,
    /// The last row of the epoch.
    pub last: bool,
    /// Its address.
    pub row: u32,
    /// Timestamp sum bits 39:32.
    pub tsum_hi: u8,
}

impl WindowWord {
    /// Packs the word.
    pub fn pack(&self) -> u32 {
        (self.valid as u32) << 31 | (self.last as u32) << 30 | (self.row & 0x3FFF) << 16 | self.tsum_hi as u32
    }

    /// Unpacks a word.
    pub fn unpack(w: u32) -> Self {
        Self { valid: w >> 31 != 0, last: (w >> 30) & 1 != 0, row: (w >> 16) & 0x3FFF, tsum_hi: w as u8 }
    }
}

fn r(name: &str, addr: u16, access: Access, bits: u32, reset: u64, doc: &str) -> EngineRegister {
    EngineRegister { name: name.into(), addr, words: 1, access, bits, reset, doc: doc.into() }
}

/// The engine's register map: the one source of `csr.json` and the table in `docs/board.md`.
pub fn engine_registers(cfg: &EngineConfig) -> Vec<EngineRegister> {
    use Access::*;
    let mut v = vec![
        r("ID", reg::ID, Ro, 32, ENGINE_ID as u64, "0x4E4D4531 (\"NME1\"): a netmeas engine answers"),
        r(
            "CONFIG",
            reg::CONFIG,
            Ro,
            25,
            cfg.config_word() as u64,
            "key bits [7:0], banks [11:8], row bits per bank [15:12] of both LDA cores; fridges of the \
             fridge core [19:16] (0: none); scales of the EXPB core mod 16 [23:20] (0: none); a DBM core [24]",
        ),
        r(
            "CTRL",
            reg::CTRL,
            Rw,
            2,
            0,
            "bit 0: the traffic source runs; bit 1 (external): the cores take the external streams \
             (x_tx_*, x_rx_*) instead and the source stops (change it with bit 0 clear, then RESET)",
        ),
        r(
            "RESET",
            reg::RESET,
            Wo,
            1,
            0,
            "writing bit 0 resets the measurement side (cores, source, counters; not the link or the \
             configuration registers); the cores then clear their memories (STATUS.READY low meanwhile)",
        ),
        r("SEED_LO", reg::SEED_LO, Rw, 32, 0, "PRNG seed bits 31:0"),
        r(
            "SEED_HI",
            reg::SEED_HI,
            Rw,
            32,
            0,
            "PRNG seed bits 63:32; writing it loads both PRNGs from {SEED_HI, SEED_LO} (source_prng_states)",
        ),
        r(
            "EPOCH_PACKETS",
            reg::EPOCH_PACKETS,
            Rw,
            32,
            65_536,
            "packets per epoch; both cores flip with the epoch's last packet (0 means 2^32)",
        ),
        r(
            "GAP",
            reg::GAP,
            Rw,
            16,
            1,
            "clocks from one packet to the next, and ticks added to its timestamp (0 acts as 1)",
        ),
        r(
            "LOSS",
            reg::LOSS,
            Rw,
            16,
            0,
            "a packet is lost on the way to the receiver when its 16-bit draw is below LOSS",
        ),
        r(
            "REORDER",
            reg::REORDER,
            Rw,
            16,
            0,
            "a delivered packet is held back when its 16-bit draw is below REORDER (overtaken until the \
             next held or lost packet; it can cross into the next epoch)",
        ),
        r(
            "DELAY",
            reg::DELAY,
            Wo,
            32,
            0,
            "writes delay-table entry [31:24] with [23:0] ticks; each packet's delay is the entry its 8-bit \
             draw picks (write while the source is stopped)",
        ),
        r(
            "STATUS",
            reg::STATUS,
            Ro,
            32,
            0,
            "bit 0 running, 1 frozen epoch presented by both LDA cores, 2 source waiting for the read-out, \
             3 sender overflow, 4 receiver overflow, 5 cores ready, 6 and 7 the sender's and the receiver's \
             live copy, 8 the fridge presents a frozen histogram row, 9 the fridge's flip waits for its \
             read-out, 10 fridge histogram overflow, 11 the EXPB core presents a row of a frozen period, \
             12 the DBM core presents a beat of a frozen period; [31:16] epochs ended mod 2^16",
        ),
        r("TIME_LO", reg::TIME_LO, Ro, 32, 0, "timestamp counter bits 31:0 (one tick per clock)"),
        r("TIME_HI", reg::TIME_HI, Ro, 8, 0, "timestamp counter bits 39:32"),
        r("FROZEN_START_LO", reg::FROZEN_START_LO, Ro, 32, 0, "frozen epoch: its first packet's timestamp, bits 31:0"),
        r("FROZEN_START_HI", reg::FROZEN_START_HI, Ro, 8, 0, "frozen epoch: its first packet's timestamp, bits 39:32"),
        r("FROZEN_SENT", reg::FROZEN_SENT, Ro, 32, 0, "frozen epoch: packets the sender saw"),
        r("FROZEN_RECEIVED", reg::FROZEN_RECEIVED, Ro, 32, 0, "frozen epoch: packets the receiver saw"),
        r("FROZEN_LOST", reg::FROZEN_LOST, Ro, 32, 0, "frozen epoch: packets of the epoch lost on the way"),
        r(
            "FROZEN_DELAY_LO",
            reg::FROZEN_DELAY_LO,
            Ro,
            32,
            0,
            "frozen epoch: sum of the delays of the packets the receiver saw, bits 31:0 (ground truth)",
        ),
        r("FROZEN_DELAY_HI", reg::FROZEN_DELAY_HI, Ro, 32, 0, "the same, bits 63:32"),
        r(
            "LINK_RX_ERRORS",
            reg::LINK_RX_ERRORS,
            Ro,
            32,
            0,
            "host link: bytes dropped for a bad stop bit [15:0], bytes dropped while busy [31:16] (saturating)",
        ),
        r(
            "LINK_REQUEST_ERRORS",
            reg::LINK_REQUEST_ERRORS,
            Ro,
            32,
            0,
            "host link: requests refused for a bad CRC [15:0], requests dropped by the timeout [31:16] (saturating)",
        ),
    ];
    let rows = cfg.lda.total_rows() as u32;
    for (name, base, window) in
        [("SENDER", reg::SENDER, reg::SENDER_WINDOW), ("RECEIVER", reg::RECEIVER, reg::RECEIVER_WINDOW)]
    {
        for a in 0..8u16 {
            v.push(r(
                &format!("{name}_CSR{a}"),
                base + reg::CORE_CSR + a,
                Wo,
                8,
                0,
                "the LDA core's CSR at this word address (docs/cores/lda.md)",
            ));
        }
        let core = [
            ("FROZEN_SEQ", reg::CORE_FROZEN_SEQ, 32, "frozen epoch's sequence number"),
            (
                "FROZEN_PACKETS_LO",
                reg::CORE_PACKETS_LO,
                32,
                "frozen epoch: packets that passed the classifier, bits 31:0",
            ),
            ("FROZEN_PACKETS_HI", reg::CORE_PACKETS_HI, 16, "the same, bits 47:32"),
            ("FROZEN_SAMPLED_LO", reg::CORE_SAMPLED_LO, 32, "frozen epoch: packets that updated a bank, bits 31:0"),
            ("FROZEN_SAMPLED_HI", reg::CORE_SAMPLED_HI, 16, "the same, bits 47:32"),
            ("ROW_COUNT", reg::CORE_ROW_COUNT, 32, "packet count of the row the read-out presents"),
            ("ROW_TSUM_LO", reg::CORE_ROW_TSUM_LO, 32, "timestamp sum bits 31:0 of the row the read-out presents"),
        ];
        for (n, off, bits, doc) in core {
            v.push(r(&format!("{name}_{n}"), base + off, Ro, bits, 0, doc));
        }
        v.push(r(
            &format!("{name}_OVERFLOW"),
            base + reg::CORE_OVERFLOW,
            Rw,
            1,
            0,
            "bit 0: a row count wrapped (sticky); any write clears it",
        ));
        v.push(EngineRegister {
            name: format!("{name}_WINDOW"),
            addr: window,
            words: rows,
            access: Rc,
            bits: 32,
            reset: 0,
            doc: "read at + row: {valid, last, row[13:0] at 29:16, tsum[39:32] at 7:0}; takes the presented \
                  row when it is that row, answers the row taken last again when it was (a retried read), \
                  else shows the presented row without taking it"
                .into(),
        });
    }
    if let Some(f) = &cfg.fridge {
        // FLIP and HIST_POP are the engine's: it flips the fridge with the source's epochs and takes
        // rows through the window, so writes to those two words are ignored (they read 0).
        for fr in crate::fridge::fridge_registers(f) {
            if fr.addr == crate::fridge::FRIDGE_REG_FLIP || fr.addr == crate::fridge::FRIDGE_REG_HIST_POP {
                continue;
            }
            let read_only = fr.addr >= crate::fridge::FRIDGE_REG_HIST_ROW;
            let mut doc = fr.doc.trim_start_matches("Read-only: ").to_string();
            if fr.addr == crate::fridge::FRIDGE_REG_BIN_SHIFT {
                doc.push_str(&format!(
                    " Here a tick of the core is 2^-{FRIDGE_TS_SHIFT} clocks (timestamps shifted up by \
                     {FRIDGE_TS_SHIFT} bits): {FRIDGE_TS_SHIFT} makes bin i hold [2^(i-1), 2^i) clocks."
                ));
            }
            v.push(EngineRegister {
                name: format!("FRIDGE_{}", fr.name),
                addr: reg::FRIDGE + fr.addr as u16,
                words: 1,
                access: if read_only { Ro } else { Wo },
                bits: fr.bits,
                reset: fr.reset,
                doc: format!("fridge core (docs/cores/fridge.md): {doc}"),
            });
        }
        v.push(EngineRegister {
            name: "FRIDGE_WINDOW".into(),
            addr: reg::FRIDGE_WINDOW,
            words: cfg.fridge_rows(),
            access: Rc,
            bits: 32,
            reset: 0,
            doc: "read at + row (32 · fridge + bin): {valid, last, row[13:0] at 29:16}; takes the presented \
                  histogram row when it is that row (read its FRIDGE_HIST_* words first), answers the row \
                  taken last again when it was, else shows the presented row without taking it"
                .into(),
        });
    }
    if let Some(x) = &cfg.expb {
        let e = |off: u16| reg::EXPB + off;
        let words: [(&str, u16, Access, u32, u64, &str); 21] = [
            (
                "BASE_TICKS",
                reg::EXPB_BASE_TICKS,
                Ro,
                32,
                x.base_ticks,
                "Δ_1 in ticks (clocks) the EXPB core is built for",
            ),
            (
                "PERIOD_TICKS_LO",
                reg::EXPB_PERIOD_TICKS_LO,
                Ro,
                32,
                x.period_ticks & 0xFFFF_FFFF,
                "its period in ticks, bits 31:0",
            ),
            ("PERIOD_TICKS_HI", reg::EXPB_PERIOD_TICKS_HI, Ro, 16, x.period_ticks >> 32, "the same, bits 47:32"),
            ("PERIOD", reg::EXPB_PERIOD, Ro, 32, 0, "frozen period: its index since reset"),
            ("PACKETS_LO", reg::EXPB_PACKETS_LO, Ro, 32, 0, "frozen period: its packets, bits 31:0"),
            ("PACKETS_HI", reg::EXPB_PACKETS_HI, Ro, 32, 0, "the same, bits 63:32"),
            (
                "ROW",
                reg::EXPB_ROW,
                Ro,
                32,
                0,
                "the presented row: valid [31], last scale [30], a base-interval sum of the period saturated [29], \
                 scale j [3:0] (intervals of 2^j · BASE_TICKS)",
            ),
            ("COUNT", reg::EXPB_COUNT, Ro, 21, 0, "presented row: intervals of its scale in the period"),
            ("SUM_LO", reg::EXPB_SUM_LO, Ro, 32, 0, "presented row: Σ of the intervals' byte sums, bits 31:0"),
            ("SUM_HI", reg::EXPB_SUM_LO + 1, Ro, 20, 0, "the same, bits 51:32"),
            ("SUMSQ_0", reg::EXPB_SUMSQ_0, Ro, 32, 0, "presented row: Σ of their squares, bits 31:0"),
            ("SUMSQ_1", reg::EXPB_SUMSQ_0 + 1, Ro, 32, 0, "the same, bits 63:32"),
            ("SUMSQ_2", reg::EXPB_SUMSQ_0 + 2, Ro, 32, 0, "the same, bits 95:64"),
            ("SUMSQ_3", reg::EXPB_SUMSQ_0 + 3, Ro, 8, 0, "the same, bits 103:96"),
            ("MAX_LO", reg::EXPB_MAX_LO, Ro, 32, 0, "presented row: the largest interval sum, bits 31:0"),
            ("MAX_HI", reg::EXPB_MAX_LO + 1, Ro, 16, 0, "the same, bits 47:32"),
            ("MAX_INDEX", reg::EXPB_MAX_INDEX, Ro, 20, 0, "presented row: index of the first interval with it"),
            ("MAX_FLOW", reg::EXPB_MAX_FLOW, Ro, 32, 0, "presented row: that interval's majority flow (the culprit)"),
            ("LIVE_PERIOD", reg::EXPB_LIVE_PERIOD, Ro, 32, 0, "index of the live period"),
            (
                "TIME_LO",
                reg::EXPB_TIME_LO,
                Ro,
                32,
                0,
                "the EXPB point's time, the next sender packet's (packets × GAP), bits 31:0",
            ),
            ("TIME_HI", reg::EXPB_TIME_HI, Ro, 16, 0, "the same, bits 47:32"),
        ];
        for (name, off, access, bits, reset, doc) in words {
            v.push(r(&format!("EXPB_{name}"), e(off), access, bits, reset, doc));
        }
        v.push(r(
            "EXPB_TAKE",
            e(reg::EXPB_TAKE),
            Wo,
            32,
            0,
            "writing {period[27:0], scale[3:0]} takes the presented row if it is that row (a repeated write \
             takes nothing); the core holds the next period's end until its frozen period is taken",
        ));
    }
    if let Some(d) = &cfg.dbm {
        let words: [(&str, u16, u32, u64, &str); 22] = [
            ("BUCKETS", reg::DBM_BUCKETS, 11, d.buckets as u64, "buckets m the DBM core is built for"),
            (
                "PERIOD_TICKS_LO",
                reg::DBM_PERIOD_TICKS_LO,
                32,
                d.period_ticks & 0xFFFF_FFFF,
                "its period in ticks, bits 31:0",
            ),
            ("PERIOD_TICKS_HI", reg::DBM_PERIOD_TICKS_LO + 1, 16, d.period_ticks >> 32, "the same, bits 47:32"),
            ("PERIOD", reg::DBM_PERIOD, 32, 0, "frozen period: its index since reset"),
            ("PACKETS_LO", reg::DBM_PACKETS_LO, 32, 0, "frozen period: its packets, bits 31:0"),
            ("PACKETS_HI", reg::DBM_PACKETS_LO + 1, 32, 0, "the same, bits 63:32"),
            ("MERGES_LO", reg::DBM_MERGES_LO, 32, 0, "frozen period: its merges, bits 31:0"),
            ("MERGES_HI", reg::DBM_MERGES_LO + 1, 32, 0, "the same, bits 63:32"),
            ("TAIL_JOINS_LO", reg::DBM_TAIL_JOINS_LO, 32, 0, "frozen period: merges that joined the tail, bits 31:0"),
            ("TAIL_JOINS_HI", reg::DBM_TAIL_JOINS_LO + 1, 32, 0, "the same, bits 63:32"),
            (
                "BEAT",
                reg::DBM_BEAT,
                32,
                0,
                "the presented beat: valid [31], the period's end (no bucket) [30], a merge key of the period \
                 saturated [29], a bucket's bytes saturated [28], beat b [10:0] (bucket b, oldest first, or the end)",
            ),
            ("FIRST_LO", reg::DBM_FIRST_LO, 32, 0, "presented bucket: its first tick, bits 31:0"),
            ("FIRST_HI", reg::DBM_FIRST_LO + 1, 16, 0, "the same, bits 47:32"),
            ("LAST_LO", reg::DBM_LAST_LO, 32, 0, "presented bucket: its last tick, bits 31:0"),
            ("LAST_HI", reg::DBM_LAST_LO + 1, 16, 0, "the same, bits 47:32"),
            ("MASS_LO", reg::DBM_MASS_LO, 32, 0, "presented bucket: its bytes, bits 31:0"),
            ("MASS_HI", reg::DBM_MASS_LO + 1, 24, 0, "the same, bits 55:32"),
            ("N", reg::DBM_N, 32, 0, "presented bucket: its packets"),
            ("MAX", reg::DBM_MAX, 32, 0, "presented bucket: its largest packet"),
            ("MIN", reg::DBM_MIN, 32, 0, "presented bucket: its smallest packet"),
            ("FLOW", reg::DBM_FLOW, 32, 0, "presented bucket: its culprit flow"),
            ("FLOW_COUNT", reg::DBM_FLOW_COUNT, 32, 0, "presented bucket: the bytes counted for the culprit"),
        ];
        for (name, off, bits, reset, doc) in words {
            v.push(r(&format!("DBM_{name}"), reg::DBM + off, Access::Ro, bits, reset, doc));
        }
        v.push(r(
            "DBM_TAKE",
            reg::DBM + reg::DBM_TAKE,
            Access::Wo,
            32,
            0,
            "writing {period[20:0], beat[10:0]} takes the presented beat if it is that beat (a repeated write \
             takes nothing); the core holds the next period's end until its frozen period is taken",
        ));
    }
    v.sort_by_key(|r| r.addr);
    v
}

/// The register map as a Markdown table (for `docs/board.md`).
pub fn engine_registers_markdown(cfg: &EngineConfig) -> String {
    let mut s = String::from("| address | name | access | bits | reset | description |\n|---|---|---|---|---|---|\n");
    for r in engine_registers(cfg) {
        let addr = if r.words > 1 {
            format!("0x{:04X}–0x{:04X}", r.addr, r.addr as u32 + r.words - 1)
        } else {
            format!("0x{:04X}", r.addr)
        };
        let access = serde_json::to_value(r.access).expect("serializes");
        s.push_str(&format!(
            "| {addr} | `{}` | {} | {} | 0x{:X} | {} |\n",
            r.name,
            access.as_str().unwrap_or(""),
            r.bits,
            r.reset,
            r.doc
        ));
    }
    s
}

/// One clock of an external packet-metadata stream (`x_tx_*` or `x_rx_*`):
/// taken, packet and flip together, in a clock whose `ready` is high.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExternalBeat {
    /// A packet is offered.
    pub valid: bool,
    /// Its key (the core's `key_bits` low bits).
    pub key: u128,
    /// Its timestamp (ticks, mod 2^40).
    pub ts: u64,
    /// Its class (the LDA classifier's field).
    pub class: u8,
    /// End this point's epoch after this clock's packet (with or without one).
    pub flip: bool,
}

/// Inputs of the engine's exported top in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineInputs {
    /// Synchronous reset of everything (link included).
    pub reset: bool,
    /// Serial line from the host.
    pub rx: bool,
    /// External stream at the sender point (`x_tx_*`).
    pub sender: ExternalBeat,
    /// External stream at the receiver point (`x_rx_*`).
    pub receiver: ExternalBeat,
}

/// Outputs of the engine's exported top in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineOutputs {
    /// Serial line to the host.
    pub tx: bool,
    /// Status lights: bit 0 running, 1 frozen epoch waiting, 2 source waiting, 3 any overflow.
    pub leds: u8,
    /// The sender point takes this clock's beat (`x_tx_ready`).
    pub sender_ready: bool,
    /// The receiver point takes this clock's beat (`x_rx_ready`).
    pub receiver_ready: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_register_map_has_no_overlap_and_fits_the_bus() {
        for cfg in [EngineConfig::default(), {
            let mut c = EngineConfig::default();
            c.lda.banks = 4;
            c.lda.rows = 2048;
            c.lda.bank_prob_log2 = vec![0, 3, 7, 11];
            c
        }] {
            cfg.validate().unwrap();
            let regs = engine_registers(&cfg);
            for w in regs.windows(2) {
                assert!(w[0].addr as u32 + w[0].words <= w[1].addr as u32, "{} overlaps {}", w[0].name, w[1].name);
            }
            let last = regs.last().unwrap();
            assert!(last.addr as u32 + last.words <= 1 << 16);
            assert!(cfg.lda.total_rows() <= 1 << WINDOW_ROW_BITS);
            let md = engine_registers_markdown(&cfg);
            assert_eq!(md.lines().count(), regs.len() + 2);
        }
    }

    #[test]
    fn the_board_page_holds_the_generated_register_map() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/board.md")).unwrap();
        let table = engine_registers_markdown(&EngineConfig::default());
        if std::env::var_os("NETMEAS_PRINT_REGISTERS").is_some() {
            println!("{table}");
        }
        assert!(doc.contains(&table), "docs/board.md does not hold the current register map");
    }

    #[test]
    fn window_words_round_trip() {
        for w in [
            WindowWord { valid: true, last: false, row: 0x3FFF, tsum_hi: 0xA5 },
            WindowWord { valid: false, last: true, row: 17, tsum_hi: 0 },
        ] {
            assert_eq!(WindowWord::unpack(w.pack()), w);
        }
    }

    #[test]
    fn bad_configs_name_their_field() {
        let mut c = EngineConfig::default();
        c.lda.key_bits = 104;
        assert!(c.validate().unwrap_err().to_string().contains("lda.key_bits"));
        let mut c = EngineConfig::default();
        c.link.uart.baud = 0;
        assert!(c.validate().unwrap_err().to_string().contains("baud"));
        let mut c = EngineConfig::default();
        c.lda.rows = 100;
        assert!(c.validate().unwrap_err().to_string().contains("rows"));
        let mut c = EngineConfig::default();
        c.fridge.as_mut().unwrap().entries = vec![1024, 1024];
        assert!(c.validate().unwrap_err().to_string().contains("fridge.entries"));
        let mut c = EngineConfig::default();
        c.fridge.as_mut().unwrap().bin_shift = FRIDGE_TS_SHIFT - 1;
        assert!(c.validate().unwrap_err().to_string().contains("fridge.bin_shift"));
        let mut c = EngineConfig::default();
        c.fridge.as_mut().unwrap().entry_prob_log2 = vec![-4.0];
        assert!(c.validate().unwrap_err().to_string().contains("fridge"));
    }

    #[test]
    fn the_expb_core_is_in_the_default_engine_and_null_removes_it() {
        let d = EngineConfig::default();
        assert_eq!(d.expb, Some(engine_expb_default()));
        let none: EngineConfig = serde_json::from_str(r#"{"expb": null}"#).unwrap();
        assert!(none.expb.is_none() && none.validate().is_ok());
        assert_eq!(d.config_word() >> 20 & 0xF, 11);
        assert_eq!(none.config_word() >> 20 & 0xF, 0, "CONFIG tells an engine without an EXPB core");
        assert!(d.top_name().ends_with("_fr_bw_dbm") && !none.top_name().contains("_bw"));
        let names: Vec<String> = engine_registers(&none).into_iter().map(|r| r.name).collect();
        assert!(!names.iter().any(|n| n.starts_with("EXPB")), "{names:?}");
        let regs = engine_registers(&d);
        let base = regs.iter().find(|r| r.name == "EXPB_BASE_TICKS").unwrap();
        assert_eq!((base.addr, base.reset), (reg::EXPB, 32));
        assert!(regs.iter().any(|r| r.name == "EXPB_TAKE" && r.addr == reg::EXPB + reg::EXPB_TAKE));
        let mut c = EngineConfig::default();
        c.expb.as_mut().unwrap().base_ticks = 1 << 32;
        c.expb.as_mut().unwrap().period_ticks = 1 << 42;
        assert!(c.validate().unwrap_err().to_string().contains("expb.base_ticks"), "{:?}", c.validate());
        let mut c = EngineConfig::default();
        c.expb.as_mut().unwrap().period_ticks = 65_537;
        assert!(c.validate().unwrap_err().to_string().contains("expb.period_ticks"));
    }

    #[test]
    fn the_dbm_core_is_in_the_default_engine_and_null_removes_it() {
        let d = EngineConfig::default();
        assert_eq!(d.dbm, Some(engine_dbm_default()));
        assert_eq!(d.dbm.as_ref().unwrap().period_ticks, d.expb.as_ref().unwrap().period_ticks);
        let none: EngineConfig = serde_json::from_str(r#"{"dbm": null}"#).unwrap();
        assert!(none.dbm.is_none() && none.validate().is_ok());
        assert_eq!(d.config_word() >> 24, 1);
        assert_eq!(none.config_word() >> 24, 0, "CONFIG tells an engine without a DBM core");
        assert!(!none.top_name().ends_with("_dbm"));
        let names: Vec<String> = engine_registers(&none).into_iter().map(|r| r.name).collect();
        assert!(!names.iter().any(|n| n.starts_with("DBM")), "{names:?}");
        let regs = engine_registers(&d);
        let m = regs.iter().find(|r| r.name == "DBM_BUCKETS").unwrap();
        assert_eq!((m.addr, m.reset), (reg::DBM, 1024));
        assert!(regs.iter().any(|r| r.name == "DBM_TAKE" && r.addr == reg::DBM + reg::DBM_TAKE));
        let mut addrs: Vec<u16> = regs.iter().map(|r| r.addr).collect();
        addrs.dedup();
        assert_eq!(addrs.len(), regs.len(), "no two registers share an address");
        let mut c = EngineConfig::default();
        c.dbm.as_mut().unwrap().base_ticks = 64;
        assert!(c.validate().unwrap_err().to_string().contains("dbm.base_ticks"), "{:?}", c.validate());
        let mut c = EngineConfig::default();
        c.dbm.as_mut().unwrap().buckets = 1025;
        assert!(c.validate().unwrap_err().to_string().contains("dbm.buckets"));
    }

    #[test]
    fn bandwidth_packets_follow_the_key() {
        // Packet 5 of the source, PRNG bits with 0x0123 above bit 48 and 0x2A5 in bits 41:32.
        let key = 5u128 << 64 | 0x0123_0000_0000_0000 | 0x2A5u128 << 32 | 0xDEAD_BEEF;
        let p = bandwidth_packet(key, 3);
        assert_eq!((p.ts, p.len, p.flow), (15, 64 + 0x2A5, 7));
        assert_eq!(bandwidth_packet(key, 0).ts, 5, "GAP 0 acts as 1");
        assert_eq!(bandwidth_packet(1u128 << 64, 1).flow, 16, "no bit set above bit 48: 16 leading zeros");
        assert_eq!(bandwidth_packet(0xFFFF_0000_0000_0000, 1).flow, 0);
    }

    #[test]
    fn the_fridge_is_in_the_default_engine_and_null_removes_it() {
        let d = EngineConfig::default();
        assert_eq!(d.fridge, Some(engine_fridge_default()));
        let none: EngineConfig = serde_json::from_str(r#"{"fridge": null}"#).unwrap();
        assert!(none.fridge.is_none() && none.validate().is_ok());
        assert_ne!(none.config_word(), d.config_word(), "CONFIG tells an engine without a fridge");
        assert_eq!(d.config_word() >> 16 & 0xF, 2);
        assert!(d.top_name().contains("_fr") && !none.top_name().contains("_fr"));
        let names: Vec<String> = engine_registers(&none).into_iter().map(|r| r.name).collect();
        assert!(!names.iter().any(|n| n.starts_with("FRIDGE")), "{names:?}");
        let regs = engine_registers(&d);
        let w = regs.iter().find(|r| r.name == "FRIDGE_WINDOW").unwrap();
        assert_eq!((w.addr, w.words), (reg::FRIDGE_WINDOW, 64));
        assert!(!regs.iter().any(|r| r.name == "FRIDGE_FLIP" || r.name == "FRIDGE_HIST_POP"));
        assert!(regs.iter().all(|r| !r.doc.contains('|')), "a description would break the Markdown table");
    }
}
