//! The host reader of the measurement engine: configures the engine over
//! the link, reads each frozen epoch (both LDA cores' synopses, the fridge
//! core's histograms and the source's truth counters), runs the LDA
//! estimators (Kompella et al. §III-D/E) and the fridge's histogram CDF
//! (Zheng et al. §3.3, §4.2, §6.2), and checks everything the hardware
//! reported against the golden models: the source regenerated packet by
//! packet ([`SourceModel`]), both LDA synopses recomputed by [`LdaGolden`]
//! and the fridge's histograms by [`FridgeGolden`]. A disagreement is an error, never a
//! silently wrong estimate; link errors are retried by [`LinkHost`].
//! With the engine on its external packet-metadata streams
//! ([`EngineReader::start_external`]) it reads and estimates each epoch the
//! streams end; whoever fed the streams can check the epoch with
//! [`EngineReader::check`].

use super::engine::{
    CTRL_EXTERNAL, CTRL_RUN, ENGINE_ID, EngineConfig, FRIDGE_TS_SHIFT, STATUS_FRIDGE_FROZEN, STATUS_FROZEN,
    STATUS_READY, WindowWord, reg,
};
use super::host::{ByteLink, LinkHost};
use super::source::{EpochTraffic, SourceModel, SourceSettings};
use crate::fridge::{
    Cdf, FRIDGE_REG_HIST_COUNT, FRIDGE_REG_HIST_WSUM_LO, FridgeGolden, HistBin, Percentiles, Scored, score_histograms,
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
    polls: u32,
}

impl<L: ByteLink> EngineReader<L> {
    /// Checks that the engine on `host` is built for `cfg`, resets its
    /// measurement side, loads `settings` and starts the source.
    pub fn start(host: LinkHost<L>, cfg: &EngineConfig, settings: &SourceSettings) -> Result<Self, String> {
        let source = SourceModel::new(settings)?;
        let mut reader = Self::connect(host, cfg, 0, Some(source))?;
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
                "the engine is built for key bits {}, {} banks, 2^{} rows, {} fridges; the config says {}, {}, 2^{}, {}",
                word & 0xFF,
                (word >> 8) & 0xF,
                (word >> 12) & 0xF,
                (word >> 16) & 0xF,
                cfg.lda.key_bits,
                cfg.lda.banks,
                cfg.lda.row_bits(),
                cfg.fridge.as_ref().map_or(0, |f| f.fridges())
            ));
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
        for _ in 0..MAX_POLLS {
            self.polls += 1;
            let s = self.host.read(reg::STATUS)?;
            if s & bit != 0 {
                return Ok(s);
            }
        }
        Err(format!("the engine did not raise STATUS bit 0x{bit:X} in {MAX_POLLS} polls"))
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
        let fridge = match (&e.fridge, &mut self.fridge) {
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
                Some(FridgeReport {
                    estimate: score_histograms(cfg, hist, cfg.bin_shift - FRIDGE_TS_SHIFT, &truth),
                    truth: Percentiles::of(&truth),
                    histograms_match: true,
                })
            }
            _ => None,
        };
        let est = estimate(&e.sender, &e.receiver).map_err(|err| format!("epoch {}: {err}", e.sender.seq))?;
        let truth = t.truth();
        let rel = |a: f64, b: f64| (a - b).abs() / b.abs();
        Ok(EpochReport {
            seq: e.sender.seq,
            start: e.start,
            rel_error: RelError { mean: rel(est.mean, truth.mean), std: rel(est.std, truth.std) },
            estimates: est,
            truth,
            synopses_match,
            fridge,
        })
    }
}
