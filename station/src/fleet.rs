//! Simulated measurement points for the station, on the golden models
//! (bit-exact with the RTL): a segment measured by a sender and a receiver
//! LDA core, with the delay and loss of each epoch chosen by the caller; a
//! link whose bandwidth an EXPB core measures, with load and bursts chosen
//! by the caller. What the station stores and answers can then be checked
//! against the truth that was injected.

use netmeas_sim::dbm::{BwPacket, ExpbConfig, ExpbGolden, ExpbSynopsis};
use netmeas_sim::lda::{LdaConfig, LdaGolden, LdaPacket, LdaSynopsis};
use netmeas_sim::prng::SplitMix64;

/// Spacing of a simulated link's packets, ns (20 Mpps).
pub const PACKET_GAP_NS: u64 = 50;

/// One segment with an LDA core at each end (Kompella et al. §III-C).
pub struct LdaLink {
    sender: LdaGolden,
    receiver: LdaGolden,
    rng: SplitMix64,
    epoch_ns: u64,
    epoch: u64,
}

/// What one simulated epoch was, to check the station's answers against.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochTruth {
    /// Packets sent.
    pub sent: u64,
    /// Packets delivered.
    pub received: u64,
    /// Their mean delay, ns.
    pub mean_ns: f64,
}

impl LdaLink {
    /// A link whose cores run `cfg` (valid), epochs of `epoch_ns`, traffic drawn from `seed`.
    pub fn new(cfg: &LdaConfig, epoch_ns: u64, seed: u64) -> Self {
        LdaLink {
            sender: LdaGolden::new(cfg),
            receiver: LdaGolden::new(cfg),
            rng: SplitMix64::new(seed),
            epoch_ns,
            epoch: 0,
        }
    }

    /// The next epoch: `packets` packets `PACKET_GAP_NS` apart from the
    /// epoch's start (timestamps in 1 ns ticks), each delayed by `mean_ns`
    /// half fixed, half exponential, and lost with probability `loss`. The
    /// two ends' synopses and the truth.
    pub fn epoch(&mut self, packets: u32, mean_ns: f64, loss: f64) -> (LdaSynopsis, LdaSynopsis, EpochTruth) {
        let start = self.epoch * self.epoch_ns;
        let (mut received, mut delay_sum) = (0u64, 0u64);
        for i in 0..packets {
            // Keys of 120 bits (the default LDA key), never repeated within an epoch.
            let key = self.rng.next_u128() >> 8;
            let ts = start + u64::from(i) * PACKET_GAP_NS;
            self.sender.packet(&LdaPacket { key, ts, class: 0 });
            let delay = (mean_ns * 0.5 - mean_ns * 0.5 * self.rng.unit_open().ln()) as u64;
            if self.rng.unit_open() > loss {
                self.receiver.packet(&LdaPacket { key, ts: ts + delay, class: 0 });
                received += 1;
                delay_sum += delay;
            }
        }
        self.epoch += 1;
        let mean_ns = if received > 0 { delay_sum as f64 / received as f64 } else { f64::NAN };
        let truth = EpochTruth { sent: u64::from(packets), received, mean_ns };
        (self.sender.end_epoch(), self.receiver.end_epoch(), truth)
    }
}

/// A synopsis as a point reports it: JSON, marked with its `end` (`sender`
/// or `receiver`), as `netmeas run lda --save-synopses` writes it.
pub fn synopsis_json(s: &LdaSynopsis, end: &str) -> String {
    let mut v = serde_json::to_value(s).expect("a synopsis is JSON");
    v.as_object_mut().expect("a synopsis is an object").insert("end".into(), end.into());
    v.to_string()
}

/// A burst injected into a simulated link: back-to-back packets of one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InjectedBurst {
    /// Its start, ns after the epoch's start.
    pub offset_ns: u64,
    /// Its length, ns.
    pub duration_ns: u64,
    /// Its rate, bits/s (on top of the link's load).
    pub rate_bps: f64,
    /// Its flow: the culprit the core should name.
    pub flow: u32,
}

/// Packet size of the simulated bandwidth links, bytes.
pub const BW_PACKET_BYTES: u32 = 1500;

/// A link whose bandwidth an EXPB core measures (Uyeda et al. §3.2), each
/// period one epoch: Poisson packets of `BW_PACKET_BYTES` at the load the
/// caller sets for the epoch, from 64 background flows (IDs 1..=64), plus
/// the bursts injected.
pub struct ExpbLink {
    core: ExpbGolden,
    cfg: ExpbConfig,
    rng: SplitMix64,
    epoch: u64,
}

impl ExpbLink {
    /// A link whose core runs `cfg` (valid), traffic drawn from `seed`; ticks are ns.
    pub fn new(cfg: &ExpbConfig, seed: u64) -> Result<Self, String> {
        let core = ExpbGolden::new(cfg).map_err(|e| e.to_string())?;
        Ok(ExpbLink { core, cfg: cfg.clone(), rng: SplitMix64::new(seed), epoch: 0 })
    }

    /// The next period at `load_bps` with `bursts`: what the point reports.
    pub fn epoch(&mut self, load_bps: f64, bursts: &[InjectedBurst]) -> ExpbSynopsis {
        self.epoch_with_packets(load_bps, bursts).0
    }

    /// [`Self::epoch`], with the period's packets in time order (to feed
    /// another model the same traffic).
    pub fn epoch_with_packets(&mut self, load_bps: f64, bursts: &[InjectedBurst]) -> (ExpbSynopsis, Vec<BwPacket>) {
        let t = self.cfg.period_ticks;
        let start = self.epoch * t;
        let bits = f64::from(BW_PACKET_BYTES) * 8.0;
        let mut packets = Vec::new();
        if load_bps > 0.0 {
            let mean_gap = bits * 1e9 / load_bps;
            let mut at = -mean_gap * self.rng.unit_open().ln();
            while (at as u64) < t {
                packets.push(BwPacket {
                    ts: start + at as u64,
                    len: BW_PACKET_BYTES,
                    flow: 1 + self.rng.below(64) as u32,
                });
                at += -mean_gap * self.rng.unit_open().ln();
            }
        }
        for b in bursts {
            let gap = bits * 1e9 / b.rate_bps;
            let mut at = b.offset_ns as f64;
            while at < (b.offset_ns + b.duration_ns) as f64 && (at as u64) < t {
                packets.push(BwPacket { ts: start + at as u64, len: BW_PACKET_BYTES, flow: b.flow });
                at += gap;
            }
        }
        packets.sort_by_key(|p| p.ts);
        let mut closed = Vec::new();
        for p in &packets {
            self.core.push(p, &mut closed).expect("packets in time order");
        }
        debug_assert!(closed.is_empty(), "every packet is inside the period");
        self.epoch += 1;
        (ExpbSynopsis { config: self.cfg.clone(), period: self.core.finish() }, packets)
    }
}
