//! The host reader of the measurement engine: configures the engine over
//! the link, reads each frozen epoch (both LDA cores' synopses, the fridge
//! core's histograms and the source's truth counters), runs the LDA
//! estimators (Kompella et al. §III-D/E) and the fridge's histogram CDF
//! (Zheng et al. §3.3, §4.2, §6.2), and checks everything the hardware
//! reported against the golden models: the source regenerated packet by
//! packet ([`SourceModel`]), both LDA synopses recomputed by [`LdaGolden`]
//! and the fridge's histograms by [`FridgeGolden`], the EXPB core's
//! periods (Uyeda et al. §3.2, §3.3) by [`ExpbGolden`] and the DBM core's
//! partitions (§3.1) by [`DbmGolden`]. A disagreement is an error, never a
//! silently wrong estimate; link errors are retried by [`LinkHost`].
//! With the engine on its external packet-metadata streams
//! ([`EngineReader::start_external`]) it reads and estimates each epoch the
//! streams end; whoever fed the streams can check the epoch with
//! [`EngineReader::check`].

use super::engine::{
    CTRL_EXTERNAL, CTRL_RUN, ENGINE_ID, EngineConfig, FRIDGE_TS_SHIFT, STATUS_FRIDGE_FROZEN, STATUS_FROZEN,
    STATUS_READY, WindowWord, bandwidth_packet, engine_expb_default, reg,
};
use super::host::{ByteLink, LinkHost};
use super::source::{EpochTraffic, SourceModel, SourceSettings};
use crate::dbm::query::{dbm_series, series_stats, true_series};
use crate::dbm::traffic::BwPacket;
use crate::dbm::{
    Bucket, DbmFlags, DbmGolden, DbmPeriod, DbmSynopsis, ExpbGolden, ExpbPeriod, ExpbSynopsis, ScaleStats,
};
use crate::fridge::{
    Cdf, FRIDGE_REG_HIST_COUNT, FRIDGE_REG_HIST_WSUM_LO, FridgeGolden, FridgeSynopsis, HistBin, Percentiles, Scored,
    score_histograms,
};
use crate::lda::{LdaEstimate, LdaGolden, LdaPacket, LdaSynopsis, RelError, estimate};
use crate::traffic::Truth;
use serde::Serialize;

/// Status polls before the reader gives up waiting for the engine.
pub const MAX_POLLS: u32 = 100_000;

/// One epoch as read from the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpochRead {
    /// Timestamp of the epoch's first packet.
    pub start: u64,
    /// Truth counters: packets sent, received, lost; sum of received delays.
    pub sent: u64,
    /// Packets the receiver saw.
    pub received: u64,
    /// Packets lost.
    pub lost: u64,
    /// Sum of the receiver's delays, ticks.
    pub delay_sum: u64,
    /// The sender core's synopsis.
    pub sender: LdaSynopsis,
    /// The receiver core's synopsis.
    pub receiver: LdaSynopsis,
    /// The fridge core's frozen histograms (32 rows per fridge), when the engine has one and
    /// measures its source.
    pub fridge: Option<Vec<HistBin>>,
}

/// The fridge core's epoch: its histogram CDF scored against the truth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FridgeReport {
    /// Percentiles and CDF gap of the histogram estimate (delays in ticks); `None` when the
    /// epoch gave no sample.
    pub estimate: Option<Scored>,
    /// The true percentiles of the delays of the packets the receiver saw, ticks.
    pub truth: Percentiles,
    /// The histograms equal the golden model's on the regenerated packets.
    pub histograms_match: bool,
}

/// One time scale of an EXPB period (Uyeda et al. §3.2): the statistics of the bytes per
/// interval of 2^j Δ_1 ticks over the period, exact, and the culprit of its maximum (§3.3).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpbScaleReport {
    /// The interval, ticks.
    pub ticks: u64,
    /// Intervals in the period.
    pub intervals: u64,
    /// Mean bytes per interval.
    pub mean_bytes: f64,
    /// Standard deviation of the bytes per interval (population).
    pub std_bytes: f64,
    /// The largest interval's bytes.
    pub max_bytes: u64,
    /// Index of the first interval with them.
    pub max_index: u64,
    /// That interval's majority flow (the culprit).
    pub culprit: u32,
    /// Mean rate, Mbit/s at the engine's clock.
    pub mean_mbps: f64,
    /// Standard deviation of the rate, Mbit/s.
    pub std_mbps: f64,
    /// The largest interval's rate, Mbit/s.
    pub peak_mbps: f64,
}

/// One period of the EXPB core, read from the engine and equal to the golden model's.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpbReport {
    /// Period index since reset.
    pub period: u64,
    /// Packets in it.
    pub packets: u64,
    /// A base-interval sum saturated (its statistics are then lower bounds).
    pub saturated: bool,
    /// Scales, finest first.
    pub scales: Vec<ExpbScaleReport>,
}

impl ExpbReport {
    fn new(p: &ExpbPeriod, base_ticks: u64, clock_hz: u64) -> Self {
        let scales = p
            .scales
            .iter()
            .enumerate()
            .map(|(j, s)| {
                let ticks = base_ticks << j;
                let mbps = |bytes: f64| bytes * 8.0 * clock_hz as f64 / ticks as f64 / 1e6;
                ExpbScaleReport {
                    ticks,
                    intervals: s.count,
                    mean_bytes: s.mean(),
                    std_bytes: s.std(),
                    max_bytes: s.max,
                    max_index: s.max_index,
                    culprit: s.max_flow,
                    mean_mbps: mbps(s.mean()),
                    std_mbps: mbps(s.std()),
                    peak_mbps: mbps(s.max as f64),
                }
            })
            .collect();
        Self { period: p.index, packets: p.packets, saturated: p.interval_saturated, scales }
    }
}

/// One time scale of a DBM period (Uyeda et al. §3.1, Theorem 1): the bandwidth series at Δ
/// estimated from the partition's buckets (each bucket's bytes spread evenly over its span)
/// next to the exact series of the period's packets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DbmScaleReport {
    /// Δ, ticks.
    pub ticks: u64,
    /// The largest interval's rate from the buckets, Mbit/s at the engine's clock.
    pub peak_mbps: f64,
    /// The exact largest interval's rate, Mbit/s.
    pub true_peak_mbps: f64,
    /// The rate's standard deviation from the buckets, Mbit/s.
    pub std_mbps: f64,
    /// The exact standard deviation, Mbit/s.
    pub true_std_mbps: f64,
    /// The largest error of an interval's bytes at this scale.
    pub max_error_bytes: f64,
}

/// One period of the DBM core, read from the engine and equal to the golden model's.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DbmReport {
    /// Period index since reset.
    pub period: u64,
    /// Packets in it.
    pub packets: u64,
    /// Buckets of its partition.
    pub buckets: usize,
    /// Merges made.
    pub merges: u64,
    /// Of them, joins of the tail (the core's one-clock path).
    pub tail_joins: u64,
    /// A merge key or a bucket's bytes saturated.
    pub saturated: bool,
    /// Theorem 1's bound on any interval's error: 4 · the period's bytes / m, bytes.
    pub bound_bytes: f64,
    /// The largest error of an interval sum over the scales below, bytes.
    pub max_error_bytes: f64,
    /// The series at the EXPB core's scales (the engine default's when it has none).
    pub scales: Vec<DbmScaleReport>,
}

impl DbmReport {
    fn new(p: &DbmPeriod, packets: &[BwPacket], period_ticks: u64, m: usize, clock_hz: u64, scales: &[u64]) -> Self {
        let t0 = p.index * period_ticks;
        let mut max_error_bytes = 0.0f64;
        let scales = scales
            .iter()
            .map(|&ticks| {
                let est = dbm_series(&p.buckets, t0, period_ticks, ticks);
                let truth = true_series(packets, t0, period_ticks, ticks);
                let err = est.iter().zip(&truth).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                max_error_bytes = max_error_bytes.max(err);
                let (e, t) = (series_stats(&est), series_stats(&truth));
                let mbps = |bytes: f64| bytes * 8.0 * clock_hz as f64 / ticks as f64 / 1e6;
                DbmScaleReport {
                    ticks,
                    peak_mbps: mbps(e.max),
                    true_peak_mbps: mbps(t.max),
                    std_mbps: mbps(e.std),
                    true_std_mbps: mbps(t.std),
                    max_error_bytes: err,
                }
            })
            .collect();
        let bytes: u64 = p.buckets.iter().map(|b| b.mass).sum();
        Self {
            period: p.index,
            packets: p.packets,
            buckets: p.buckets.len(),
            merges: p.merges,
            tail_joins: p.tail_joins,
            saturated: p.flags.key_saturated || p.flags.mass_saturated,
            bound_bytes: 4.0 * bytes as f64 / m as f64,
            max_error_bytes,
            scales,
        }
    }
}

/// What the reader reports for one epoch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpochReport {
    /// Epoch sequence number.
    pub seq: u32,
    /// Timestamp of its first packet (ticks).
    pub start: u64,
    /// The LDA estimates, delays in ticks.
    pub estimates: LdaEstimate,
    /// Ground truth of the on-chip source, delays in ticks.
    pub truth: Truth,
    /// Relative errors of the estimates.
    pub rel_error: RelError,
    /// Both synopses equal the golden model's on the regenerated packets.
    pub synopses_match: bool,
    /// The fridge core's estimate of the delay distribution, when the engine has one.
    pub fridge: Option<FridgeReport>,
    /// The EXPB core's periods that ended with this epoch's packets (with the source's
    /// defaults, one period per epoch), read after the epoch; empty without an EXPB core.
    pub expb: Vec<ExpbReport>,
    /// The DBM core's periods that ended with this epoch's packets, read after the epoch;
    /// empty without a DBM core.
    pub dbm: Vec<DbmReport>,
    /// What every core reported, as a measurement station takes it (not in the report's JSON).
    #[serde(skip)]
    pub synopses: EpochSynopses,
}

/// One epoch of the engine as its points report it to a measurement
/// station: each core's synopsis, every one equal to its golden model's.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochSynopses {
    /// The sender LDA core's synopsis.
    pub sender: LdaSynopsis,
    /// The receiver LDA core's synopsis.
    pub receiver: LdaSynopsis,
    /// The fridge core's frozen histograms (its delays in 2^-FRIDGE_TS_SHIFT ticks), when it has one.
    pub fridge: Option<FridgeSynopsis>,
    /// The EXPB core's periods read with the epoch.
    pub expb: Vec<ExpbSynopsis>,
    /// The DBM core's periods read with the epoch.
    pub dbm: Vec<DbmSynopsis>,
}

/// The engine at the far end of a link.
pub struct EngineReader<L> {
    host: LinkHost<L>,
    cfg: EngineConfig,
    /// The on-chip source's model; `None` when the cores take the external streams.
    source: Option<SourceModel>,
    golden: [LdaGolden; 2],
    /// The fridge core's golden model: it runs across epochs, as the core's entries do.
    fridge: Option<FridgeGolden>,
    /// The EXPB core's golden model: it runs across epochs, on the point's own time.
    expb: Option<ExpbGolden>,
    /// The DBM core's golden model: it runs across epochs, on the points' own time.
    dbm: Option<DbmGolden>,
    /// The bandwidth packets of the DBM core's live period and after (the truth of its report).
    dbm_packets: Vec<BwPacket>,
    /// The source's `GAP`: the bandwidth points' time advances by it per sender packet.
    gap: u16,
    polls: u32,
}

impl<L: ByteLink> EngineReader<L> {
    /// Checks that the engine on `host` is built for `cfg`, resets its
    /// measurement side, loads `settings` and starts the source.
    pub fn start(host: LinkHost<L>, cfg: &EngineConfig, settings: &SourceSettings) -> Result<Self, String> {
        let source = SourceModel::new(settings)?;
        let mut reader = Self::connect(host, cfg, 0, Some(source))?;
        reader.gap = settings.gap;
        let h = &mut reader.host;
        h.write(reg::EPOCH_PACKETS, settings.epoch_packets)?;
        h.write(reg::GAP, settings.gap as u32)?;
        h.write(reg::LOSS, settings.loss as u32)?;
        h.write(reg::REORDER, settings.reorder as u32)?;
        for (j, &d) in settings.delays.iter().enumerate() {
            h.write(reg::DELAY, (j as u32) << 24 | d)?;
        }
        h.write(reg::SEED_LO, settings.seed as u32)?;
        h.write(reg::SEED_HI, (settings.seed >> 32) as u32)?;
        h.write(reg::CTRL, CTRL_RUN)?;
        Ok(reader)
    }

    /// Checks that the engine on `host` is built for `cfg`, switches its
    /// cores to the external packet-metadata streams (`CTRL.external`, the
    /// source stopped) and resets its measurement side. Epochs end where
    /// the streams flip; [`next_external_epoch`](Self::next_external_epoch) reads them.
    pub fn start_external(host: LinkHost<L>, cfg: &EngineConfig) -> Result<Self, String> {
        Self::connect(host, cfg, CTRL_EXTERNAL, None)
    }

    /// Checks `ID` and `CONFIG`, stops the source, sets `CTRL` to `ctrl`
    /// (without the run bit), resets the measurement side and waits until
    /// the cores' memories are clear.
    fn connect(
        mut host: LinkHost<L>,
        cfg: &EngineConfig,
        ctrl: u32,
        source: Option<SourceModel>,
    ) -> Result<Self, String> {
        cfg.validate().map_err(|e| e.to_string())?;
        let id = host.read(reg::ID)?;
        if id != ENGINE_ID {
            return Err(format!("no netmeas engine answers: ID reads 0x{id:08X}, not 0x{ENGINE_ID:08X}"));
        }
        let word = host.read(reg::CONFIG)?;
        if word != cfg.config_word() {
            return Err(format!(
                "the engine is built for key bits {}, {} banks, 2^{} rows, {} fridges, {} EXPB scales (mod 16), \
                 DBM core {}; the config says {}, {}, 2^{}, {}, {}, {}",
                word & 0xFF,
                (word >> 8) & 0xF,
                (word >> 12) & 0xF,
                (word >> 16) & 0xF,
                (word >> 20) & 0xF,
                (word >> 24) & 1,
                cfg.lda.key_bits,
                cfg.lda.banks,
                cfg.lda.row_bits(),
                cfg.fridge.as_ref().map_or(0, |f| f.fridges()),
                cfg.expb.as_ref().map_or(0, |x| x.scales & 0xF),
                cfg.dbm.is_some() as u32
            ));
        }
        if let Some(x) = &cfg.expb {
            let base = host.read(reg::EXPB + reg::EXPB_BASE_TICKS)? as u64;
            let lo = host.read(reg::EXPB + reg::EXPB_PERIOD_TICKS_LO)? as u64;
            let period = (host.read(reg::EXPB + reg::EXPB_PERIOD_TICKS_HI)? as u64) << 32 | lo;
            if (base, period) != (x.base_ticks, x.period_ticks) {
                return Err(format!(
                    "the engine's EXPB core is built for a base of {base} ticks and periods of {period}; \
                     the config says {} and {}",
                    x.base_ticks, x.period_ticks
                ));
            }
        }
        if let Some(d) = &cfg.dbm {
            let m = host.read(reg::DBM + reg::DBM_BUCKETS)? as usize;
            let lo = host.read(reg::DBM + reg::DBM_PERIOD_TICKS_LO)? as u64;
            let period = (host.read(reg::DBM + reg::DBM_PERIOD_TICKS_LO + 1)? as u64) << 32 | lo;
            if (m, period) != (d.buckets, d.period_ticks) {
                return Err(format!(
                    "the engine's DBM core is built for {m} buckets and periods of {period} ticks; \
                     the config says {} and {}",
                    d.buckets, d.period_ticks
                ));
            }
        }
        host.write(reg::CTRL, 0)?;
        host.write(reg::CTRL, ctrl)?;
        host.write(reg::RESET, 1)?;
        let mut reader = Self {
            host,
            cfg: cfg.clone(),
            source,
            golden: [0, 1].map(|_| LdaGolden::new(&cfg.lda)),
            fridge: cfg.fridge.as_ref().map(FridgeGolden::new),
            expb: match &cfg.expb {
                Some(x) => Some(ExpbGolden::new(x).map_err(|e| e.within("expb").to_string())?),
                None => None,
            },
            dbm: match &cfg.dbm {
                Some(d) => Some(DbmGolden::new(d).map_err(|e| e.within("dbm").to_string())?),
                None => None,
            },
            dbm_packets: Vec::new(),
            gap: 1,
            polls: 0,
        };
        reader.wait_for(STATUS_READY)?;
        Ok(reader)
    }

    /// The link host (statistics, the link).
    pub fn host_mut(&mut self) -> &mut LinkHost<L> {
        &mut self.host
    }

    /// Status polls made so far.
    pub fn polls(&self) -> u32 {
        self.polls
    }

    fn wait_for(&mut self, bit: u32) -> Result<u32, String> {
        self.poll(reg::STATUS, "STATUS", bit)
    }

    /// Reads register `addr` (named `name`) until it shows any of `bits`, at most
    /// [`MAX_POLLS`] times, and returns the value that did.
    fn poll(&mut self, addr: u16, name: &str, bits: u32) -> Result<u32, String> {
        for _ in 0..MAX_POLLS {
            self.polls += 1;
            let v = self.host.read(addr)?;
            if v & bits != 0 {
                return Ok(v);
            }
        }
        Err(format!("the engine did not raise {name} bit 0x{bits:X} in {MAX_POLLS} polls"))
    }

    fn read64(&mut self, lo: u16, hi: u16) -> Result<u64, String> {
        let l = self.host.read(lo)? as u64;
        Ok((self.host.read(hi)? as u64) << 32 | l)
    }

    fn read_core(&mut self, base: u16, window: u16) -> Result<LdaSynopsis, String> {
        let seq = self.host.read(base + reg::CORE_FROZEN_SEQ)?;
        let packets = self.read64(base + reg::CORE_PACKETS_LO, base + reg::CORE_PACKETS_HI)?;
        let sampled = self.read64(base + reg::CORE_SAMPLED_LO, base + reg::CORE_SAMPLED_HI)?;
        let overflow = self.host.read(base + reg::CORE_OVERFLOW)? & 1 != 0;
        let n = self.cfg.lda.total_rows() as u32;
        let mut rows = Vec::with_capacity(n as usize);
        for row in 0..n {
            let count = self.host.read(base + reg::CORE_ROW_COUNT)? as u64;
            let lo = self.host.read(base + reg::CORE_ROW_TSUM_LO)? as u64;
            let w = WindowWord::unpack(self.host.read(window + row as u16)?);
            if !w.valid || w.row != row || w.last != (row + 1 == n) {
                return Err(format!("read-out of core 0x{base:04X}: row {row} expected, the window shows {w:?}"));
            }
            rows.push((count, (w.tsum_hi as u64) << 32 | lo));
        }
        Ok(LdaSynopsis { config: self.cfg.lda.clone(), seq, packets, sampled, overflow, rows })
    }

    /// Reads the fridge core's frozen histograms row by row: a row's words,
    /// then the window at `+ row`, which must show that row and takes it.
    fn read_fridge(&mut self) -> Result<Vec<HistBin>, String> {
        self.wait_for(STATUS_FRIDGE_FROZEN)?;
        let n = self.cfg.fridge_rows();
        let word = |a: u32| reg::FRIDGE + a as u16;
        let mut rows = Vec::with_capacity(n as usize);
        for row in 0..n {
            let count = self.host.read(word(FRIDGE_REG_HIST_COUNT))?;
            let wsum = self.read64(word(FRIDGE_REG_HIST_WSUM_LO), word(FRIDGE_REG_HIST_WSUM_LO + 1))?;
            let w2sum = self.read64(word(FRIDGE_REG_HIST_WSUM_LO + 2), word(FRIDGE_REG_HIST_WSUM_LO + 3))?;
            let w = WindowWord::unpack(self.host.read(reg::FRIDGE_WINDOW + row as u16)?);
            if !w.valid || w.row != row || w.last != (row + 1 == n) {
                return Err(format!("read-out of the fridge: histogram row {row} expected, the window shows {w:?}"));
            }
            rows.push(HistBin { count, wsum, w2sum });
        }
        Ok(rows)
    }

    /// Reads the EXPB core's next frozen period row by row: each row's words once its `ROW`
    /// word shows it, then `EXPB_TAKE` with its period and scale (a repeated write takes nothing).
    fn read_expb_period(&mut self, scales: usize) -> Result<ExpbPeriod, String> {
        let word = |a: u16| reg::EXPB + a;
        let mut period = ExpbPeriod::default();
        for j in 0..scales {
            let row = self.poll(word(reg::EXPB_ROW), "EXPB_ROW", 1 << 31)?;
            let (scale, last, saturated) = (row & 0xF, row >> 30 & 1 != 0, row >> 29 & 1 != 0);
            if scale as usize != j || last != (j + 1 == scales) {
                return Err(format!("read-out of the EXPB core: scale {j} expected, ROW reads 0x{row:08X}"));
            }
            let index = self.host.read(word(reg::EXPB_PERIOD))?;
            if j == 0 {
                period.index = index as u64;
                period.packets = self.read64(word(reg::EXPB_PACKETS_LO), word(reg::EXPB_PACKETS_HI))?;
                period.interval_saturated = saturated;
            } else if index as u64 != period.index {
                return Err(format!(
                    "read-out of the EXPB core: period {} expected at scale {j}, not {index}",
                    period.index
                ));
            }
            let count = self.host.read(word(reg::EXPB_COUNT))? as u64;
            let sum = self.read64(word(reg::EXPB_SUM_LO), word(reg::EXPB_SUM_LO + 1))?;
            let sq_lo = self.read64(word(reg::EXPB_SUMSQ_0), word(reg::EXPB_SUMSQ_0 + 1))? as u128;
            let sq_hi = self.read64(word(reg::EXPB_SUMSQ_0 + 2), word(reg::EXPB_SUMSQ_0 + 3))? as u128;
            let max = self.read64(word(reg::EXPB_MAX_LO), word(reg::EXPB_MAX_LO + 1))?;
            let max_index = self.host.read(word(reg::EXPB_MAX_INDEX))? as u64;
            let max_flow = self.host.read(word(reg::EXPB_MAX_FLOW))?;
            period.scales.push(ScaleStats { count, sum, sumsq: sq_hi << 64 | sq_lo, max, max_index, max_flow });
            self.host.write(word(reg::EXPB_TAKE), index << 4 | j as u32)?;
        }
        Ok(period)
    }

    /// Reads the DBM core's next frozen period beat by beat: each bucket's words once `DBM_BEAT`
    /// shows it, then `DBM_TAKE` with its period and beat number (a repeated write takes
    /// nothing); after the last bucket, the end beat and the period's counts.
    fn read_dbm_period(&mut self) -> Result<DbmPeriod, String> {
        let word = |a: u16| reg::DBM + a;
        let mut period = DbmPeriod::default();
        let m = self.cfg.dbm.as_ref().map_or(0, |d| d.buckets);
        for beat in 0..=m as u32 {
            let w = self.poll(word(reg::DBM_BEAT), "DBM_BEAT", 1 << 31)?;
            let (end, key_sat, mass_sat) = (w >> 30 & 1 != 0, w >> 29 & 1 != 0, w >> 28 & 1 != 0);
            if w & 0x7FF != beat {
                return Err(format!("read-out of the DBM core: beat {beat} expected, BEAT reads 0x{w:08X}"));
            }
            let index = self.host.read(word(reg::DBM_PERIOD))?;
            if beat == 0 {
                period.index = index as u64;
            } else if index as u64 != period.index {
                return Err(format!(
                    "read-out of the DBM core: period {} expected at beat {beat}, not {index}",
                    period.index
                ));
            }
            if end {
                period.packets = self.read64(word(reg::DBM_PACKETS_LO), word(reg::DBM_PACKETS_LO + 1))?;
                period.merges = self.read64(word(reg::DBM_MERGES_LO), word(reg::DBM_MERGES_LO + 1))?;
                period.tail_joins = self.read64(word(reg::DBM_TAIL_JOINS_LO), word(reg::DBM_TAIL_JOINS_LO + 1))?;
                period.flags = DbmFlags { key_saturated: key_sat, mass_saturated: mass_sat, interval_saturated: false };
                self.host.write(word(reg::DBM_TAKE), index << 11 | beat)?;
                return Ok(period);
            }
            if beat as usize == m {
                return Err(format!("read-out of the DBM core: {m} buckets and no end beat"));
            }
            let first = self.read64(word(reg::DBM_FIRST_LO), word(reg::DBM_FIRST_LO + 1))?;
            let last = self.read64(word(reg::DBM_LAST_LO), word(reg::DBM_LAST_LO + 1))?;
            let mass = self.read64(word(reg::DBM_MASS_LO), word(reg::DBM_MASS_LO + 1))?;
            let n = self.host.read(word(reg::DBM_N))?;
            let max = self.host.read(word(reg::DBM_MAX))? as u64;
            let min = self.host.read(word(reg::DBM_MIN))? as u64;
            let flow = self.host.read(word(reg::DBM_FLOW))?;
            let flow_count = self.host.read(word(reg::DBM_FLOW_COUNT))?;
            period.buckets.push(Bucket { first, last, mass, n, sumsq: 0, max, min, flow, flow_count });
            self.host.write(word(reg::DBM_TAKE), index << 11 | beat)?;
        }
        unreachable!("the loop returns at the end beat or at beat m")
    }

    /// Waits for the next frozen epoch and reads it (the engine then clears
    /// both copies and its source may end the next epoch).
    pub fn read_epoch(&mut self) -> Result<EpochRead, String> {
        self.wait_for(STATUS_FROZEN)?;
        let start = self.read64(reg::FROZEN_START_LO, reg::FROZEN_START_HI)?;
        let sent = self.host.read(reg::FROZEN_SENT)? as u64;
        let received = self.host.read(reg::FROZEN_RECEIVED)? as u64;
        let lost = self.host.read(reg::FROZEN_LOST)? as u64;
        let delay_sum = self.read64(reg::FROZEN_DELAY_LO, reg::FROZEN_DELAY_HI)?;
        let sender = self.read_core(reg::SENDER, reg::SENDER_WINDOW)?;
        let receiver = self.read_core(reg::RECEIVER, reg::RECEIVER_WINDOW)?;
        // The fridge flips with the source's epochs; on the external streams it takes no packets.
        let fridge = match (&self.cfg.fridge, &self.source) {
            (Some(_), Some(_)) => Some(self.read_fridge()?),
            _ => None,
        };
        Ok(EpochRead { start, sent, received, lost, delay_sum, sender, receiver, fridge })
    }

    /// Reads the next epoch of the external streams and estimates from the
    /// two synopses (the engine knows no ground truth for them).
    pub fn next_external_epoch(&mut self) -> Result<(EpochRead, LdaEstimate), String> {
        if self.source.is_some() {
            return Err("the engine measures its on-chip source: use next_epoch".into());
        }
        let e = self.read_epoch()?;
        let est = estimate(&e.sender, &e.receiver).map_err(|err| format!("epoch {}: {err}", e.sender.seq))?;
        Ok((e, est))
    }

    /// Reads the next epoch, checks it against the golden models and estimates.
    pub fn next_epoch(&mut self) -> Result<EpochReport, String> {
        const EXTERNAL: &str = "the engine measures its external streams: use next_external_epoch";
        if self.source.is_none() {
            return Err(EXTERNAL.into());
        }
        let e = self.read_epoch()?;
        let t: EpochTraffic = self.source.as_mut().ok_or(EXTERNAL)?.epoch(e.start);
        let want = (t.sender.len() as u64, t.receiver.len() as u64, t.lost, t.delay_sum());
        let got = (e.sent, e.received, e.lost, e.delay_sum);
        if got != want {
            return Err(format!(
                "epoch {}: the source's counters (sent, received, lost, delay sum) read {got:?}, the model gives {want:?}",
                e.sender.seq
            ));
        }
        self.check(e, &t)
    }

    /// Checks an epoch read from the engine against the golden models fed
    /// the epoch's packets `t` (an error when a synopsis differs), and
    /// estimates next to `t`'s truth.
    pub fn check(&mut self, e: EpochRead, t: &EpochTraffic) -> Result<EpochReport, String> {
        let golden: Vec<LdaSynopsis> = [&t.sender, &t.receiver]
            .into_iter()
            .zip(self.golden.iter_mut())
            .map(|(stream, g)| {
                for &(key, ts) in stream {
                    g.packet(&LdaPacket { key, ts, class: 0 });
                }
                g.end_epoch()
            })
            .collect();
        let synopses_match = golden[0] == e.sender && golden[1] == e.receiver;
        if !synopses_match {
            let which = if golden[0] != e.sender { "sender" } else { "receiver" };
            return Err(format!("epoch {}: the {which} core's synopsis differs from the golden model", e.sender.seq));
        }
        let (fridge, fridge_epoch) = match (&e.fridge, &mut self.fridge) {
            (Some(hist), Some(g)) => {
                for p in t.fridge_packets() {
                    g.process(&p);
                }
                let want = g.flip();
                if *hist != want {
                    let row = hist.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(hist.len().min(want.len()));
                    return Err(format!(
                        "epoch {}: the fridge core's histograms differ from the golden model (first at row {row})",
                        e.sender.seq
                    ));
                }
                let cfg = g.config();
                let delays: Vec<u64> = t.delays.iter().map(|&d| d as u64).collect();
                let truth = Cdf::from_delays(&delays)
                    .ok_or_else(|| format!("epoch {}: no packet reached the receiver", e.sender.seq))?;
                let report = FridgeReport {
                    estimate: score_histograms(cfg, hist, cfg.bin_shift - FRIDGE_TS_SHIFT, &truth),
                    truth: Percentiles::of(&truth),
                    histograms_match: true,
                };
                // The sticky flags are the golden model's: its histograms equal the core's.
                let synopsis = FridgeSynopsis {
                    config: cfg.clone(),
                    epoch: u64::from(e.sender.seq),
                    histograms: hist.clone(),
                    overflow: g.hist_overflow,
                    saturated: g.saturated,
                };
                (Some(report), Some(synopsis))
            }
            _ => (None, None),
        };
        let (expb, expb_periods) = self.check_expb(t).map_err(|err| format!("epoch {}: {err}", e.sender.seq))?;
        let (dbm, dbm_periods) = self.check_dbm(t).map_err(|err| format!("epoch {}: {err}", e.sender.seq))?;
        let est = estimate(&e.sender, &e.receiver).map_err(|err| format!("epoch {}: {err}", e.sender.seq))?;
        let truth = t.truth();
        let rel = crate::stats::rel_error;
        Ok(EpochReport {
            seq: e.sender.seq,
            start: e.start,
            rel_error: RelError { mean: rel(est.mean, truth.mean), std: rel(est.std, truth.std) },
            estimates: est,
            truth,
            synopses_match,
            fridge,
            expb,
            dbm,
            synopses: EpochSynopses {
                sender: e.sender,
                receiver: e.receiver,
                fridge: fridge_epoch,
                expb: expb_periods,
                dbm: dbm_periods,
            },
        })
    }

    /// Feeds the epoch's sender packets to the golden EXPB, closes the periods that end by the
    /// epoch's end (the core closes the last of them on the next epoch's first packet, which the
    /// source sends as soon as the epoch has flipped), reads each from the engine and requires
    /// it to equal the golden model's.
    fn check_expb(&mut self, t: &EpochTraffic) -> Result<(Vec<ExpbReport>, Vec<ExpbSynopsis>), String> {
        // On the external streams the EXPB point takes no packets.
        let (Some(g), Some(x), Some(_)) = (self.expb.as_mut(), self.cfg.expb.clone(), self.source.as_ref()) else {
            return Ok((Vec::new(), Vec::new()));
        };
        let mut want = Vec::new();
        for &(key, _) in &t.sender {
            g.push(&bandwidth_packet(key, self.gap), &mut want)?;
        }
        if let Some(&(key, _)) = t.sender.last() {
            g.advance(bandwidth_packet(key, self.gap).ts + self.gap.max(1) as u64, &mut want);
        }
        let mut reports = Vec::with_capacity(want.len());
        let mut periods = Vec::with_capacity(want.len());
        for w in want {
            let got = self.read_expb_period(x.scales)?;
            if got != w {
                let scale = got.scales.iter().zip(&w.scales).position(|(a, b)| a != b);
                return Err(format!(
                    "the EXPB core's period {} differs from the golden model's period {} (first at scale {scale:?})",
                    got.index, w.index
                ));
            }
            reports.push(ExpbReport::new(&got, x.base_ticks, self.cfg.link.uart.clock_hz));
            periods.push(ExpbSynopsis { config: x.clone(), period: got });
        }
        Ok((reports, periods))
    }

    /// Feeds the epoch's sender packets to the golden DBM, closes the periods that end by the
    /// epoch's end (as [`check_expb`](Self::check_expb)), reads each from the engine, requires it
    /// to equal the golden model's and reports its series next to the exact ones.
    fn check_dbm(&mut self, t: &EpochTraffic) -> Result<(Vec<DbmReport>, Vec<DbmSynopsis>), String> {
        // On the external streams the DBM point takes no packets.
        let (Some(g), Some(d), Some(_)) = (self.dbm.as_mut(), self.cfg.dbm.clone(), self.source.as_ref()) else {
            return Ok((Vec::new(), Vec::new()));
        };
        let mut want = Vec::new();
        for &(key, _) in &t.sender {
            let p = bandwidth_packet(key, self.gap);
            g.push(&p, &mut want)?;
            self.dbm_packets.push(p);
        }
        if let Some(&(key, _)) = t.sender.last() {
            g.advance(bandwidth_packet(key, self.gap).ts + self.gap.max(1) as u64, &mut want);
        }
        let scales: Vec<u64> = {
            let x = self.cfg.expb.clone().unwrap_or_else(engine_expb_default);
            (0..x.scales).map(|j| x.scale_ticks(j)).collect()
        };
        let mut reports = Vec::with_capacity(want.len());
        let mut periods = Vec::with_capacity(want.len());
        for w in want {
            let got = self.read_dbm_period()?;
            if got != w {
                let bucket = got.buckets.iter().zip(&w.buckets).position(|(a, b)| a != b);
                return Err(format!(
                    "the DBM core's period {} differs from the golden model's period {} ({} and {} buckets, \
                     first difference at bucket {bucket:?})",
                    got.index,
                    w.index,
                    got.buckets.len(),
                    w.buckets.len()
                ));
            }
            let clock_hz = self.cfg.link.uart.clock_hz;
            reports.push(DbmReport::new(&got, &self.dbm_packets, d.period_ticks, d.buckets, clock_hz, &scales));
            let next = (got.index + 1) * d.period_ticks;
            self.dbm_packets.retain(|p| p.ts >= next);
            periods.push(DbmSynopsis { config: d.clone(), period: got });
        }
        Ok((reports, periods))
    }
}
