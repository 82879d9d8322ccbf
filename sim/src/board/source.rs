//! The engine's on-chip traffic source, packet by packet: the golden model
//! the host uses to regenerate every packet the hardware measured (and so
//! the exact ground truth and the exact synopses both cores must hold).
//!
//! Per packet, two xorshift64 generators (13, 7, 17) give the draws: A the
//! key's low 64 bits, B the delay-table index (bits 7:0), the loss draw
//! (23:8) and the reorder draw (39:24); then both step. The key's bits
//! 119:64 are the packet's number since reset. Timestamps advance `gap`
//! ticks a packet from the epoch's start (the timestamp counter when its
//! first packet left), so they do not depend on when the hardware stalled.
//!
//! The receiver's lane (Kompella et al. §IV's loss; reordering at interval
//! edges, Fu et al. §III-A): a lost packet never arrives; a delivered packet
//! whose reorder draw hits is held back while later packets overtake it,
//! until the next held packet takes its place or a lost packet leaves its
//! slot free. A held packet can cross into the next epoch.

use crate::traffic::{DelayDist, Truth};

/// The timestamp and delay widths of the engine.
use super::engine::{DELAY_BITS, DELAY_TABLE_ENTRIES, FRIDGE_TS_SHIFT, TIME_BITS, fridge_id};
use crate::fridge::FridgePacket;

const TIME_MASK: u64 = (1 << TIME_BITS) - 1;
const SEQ_MASK: u64 = (1 << 56) - 1;
/// Mixed into the seed for generator B.
const SEED_B: u64 = 0x9E37_79B9_7F4A_7C15;

/// What the host writes into the source's registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceSettings {
    /// PRNG seed (`SEED_HI`, `SEED_LO`).
    pub seed: u64,
    /// Packets per epoch (1..2^32).
    pub epoch_packets: u32,
    /// Clocks and ticks from one packet to the next (≥ 1).
    pub gap: u16,
    /// Loss threshold: a packet is lost when its 16-bit draw is below it.
    pub loss: u16,
    /// Reorder threshold.
    pub reorder: u16,
    /// Delay table in ticks ([`DELAY_TABLE_ENTRIES`] entries below 2^[`DELAY_BITS`]).
    pub delays: Vec<u32>,
}

impl SourceSettings {
    /// Checks the values the registers can hold.
    pub fn validate(&self) -> Result<(), String> {
        if self.epoch_packets == 0 {
            return Err("epoch_packets must be at least 1".into());
        }
        if self.gap == 0 {
            return Err("gap must be at least 1 clock".into());
        }
        if self.delays.len() != DELAY_TABLE_ENTRIES {
            return Err(format!("the delay table has {} entries, not {DELAY_TABLE_ENTRIES}", self.delays.len()));
        }
        if let Some(d) = self.delays.iter().find(|&&d| d >> DELAY_BITS != 0) {
            return Err(format!("delay {d} ticks does not fit {DELAY_BITS} bits"));
        }
        Ok(())
    }

    /// The threshold for a probability `p` in [0, 1] (p · 2^16, at most 65535).
    pub fn threshold(p: f64) -> u16 {
        (p * 65536.0).round().clamp(0.0, 65535.0) as u16
    }
}

/// The delay table of `dist` at `clock_hz`: entry j is the (j + ½)/256
/// quantile in ticks, rounded, so the table's 256 equally likely entries
/// follow the distribution.
pub fn delay_table(dist: &DelayDist, clock_hz: u64) -> Result<Vec<u32>, String> {
    let tick_us = 1e6 / clock_hz as f64;
    (0..DELAY_TABLE_ENTRIES)
        .map(|j| {
            let p = (j as f64 + 0.5) / DELAY_TABLE_ENTRIES as f64;
            let t = (dist.quantile(p) / tick_us).round();
            if t.is_finite() && t >= 0.0 && t < (1u64 << DELAY_BITS) as f64 {
                Ok(t as u32)
            } else {
                Err(format!(
                    "delay {dist}: its {p:.4} quantile is {t} ticks at {clock_hz} Hz, outside 0..2^{DELAY_BITS}"
                ))
            }
        })
        .collect()
}

/// One xorshift64 step (13, 7, 17).
#[inline]
pub fn xorshift64(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// The states both generators load from `seed` (never zero: bit 0 is set).
pub fn source_prng_states(seed: u64) -> (u64, u64) {
    (seed | 1, (seed ^ SEED_B) | 1)
}

/// A packet on the receiver's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    key: u128,
    ts: u64,
    delay: u32,
}

/// The packets of one epoch at both measurement points, with the truth.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochTraffic {
    /// (key, timestamp) at the sender, in order.
    pub sender: Vec<(u128, u64)>,
    /// (key, timestamp) at the receiver, in order.
    pub receiver: Vec<(u128, u64)>,
    /// Delays of the receiver's packets, ticks.
    pub delays: Vec<u32>,
    /// For each receiver packet, the index of the sender packet it left the source beside
    /// (the engine's fridge takes that sender packet first, then this one).
    pub rx_step: Vec<u32>,
    /// Packets of this epoch lost on the way.
    pub lost: u64,
}

impl EpochTraffic {
    /// The epoch's packets as the engine's fridge core takes them (Zheng et al.
    /// §2: a request at the sender, its response at the receiver): per source
    /// step the sender's packet, then the receiver's packet of that step; IDs
    /// by [`fridge_id`], timestamps shifted up by [`FRIDGE_TS_SHIFT`].
    pub fn fridge_packets(&self) -> Vec<FridgePacket> {
        let mut v = Vec::with_capacity(self.sender.len() + self.receiver.len());
        let mut rx = self.receiver.iter().zip(&self.rx_step).peekable();
        for (i, &(key, ts)) in self.sender.iter().enumerate() {
            v.push(FridgePacket { id: fridge_id(key), response: false, ts: ts << FRIDGE_TS_SHIFT });
            if let Some((&(key, ts), _)) = rx.next_if(|(_, step)| **step as usize == i) {
                v.push(FridgePacket { id: fridge_id(key), response: true, ts: ts << FRIDGE_TS_SHIFT });
            }
        }
        v
    }

    /// Sum of the receiver's delays (the engine's `FROZEN_DELAY`).
    pub fn delay_sum(&self) -> u64 {
        self.delays.iter().map(|&d| d as u64).sum()
    }

    /// The ground truth in ticks: sent, received, loss, mean and population
    /// standard deviation of the receiver's delays.
    pub fn truth(&self) -> Truth {
        let n = self.delays.len() as f64;
        let mean = self.delays.iter().map(|&d| d as f64).sum::<f64>() / n;
        let var = self.delays.iter().map(|&d| (d as f64 - mean).powi(2)).sum::<f64>() / n;
        let sent = self.sender.len() as u64;
        let received = self.receiver.len() as u64;
        Truth { sent, received, loss: (sent as f64 - received as f64) / sent as f64, mean, std: var.sqrt() }
    }
}

/// The source after a reset and a seed load.
#[derive(Clone, Debug)]
pub struct SourceModel {
    settings: SourceSettings,
    a: u64,
    b: u64,
    seq: u64,
    held: Option<Held>,
}

impl SourceModel {
    /// The source with `settings` (validated).
    pub fn new(settings: &SourceSettings) -> Result<Self, String> {
        settings.validate()?;
        let (a, b) = source_prng_states(settings.seed);
        Ok(Self { settings: settings.clone(), a, b, seq: 0, held: None })
    }

    /// The next epoch, whose first packet left at timestamp `start`.
    pub fn epoch(&mut self, start: u64) -> EpochTraffic {
        let s = &self.settings;
        let n = s.epoch_packets as usize;
        let mut t = EpochTraffic {
            sender: Vec::with_capacity(n),
            receiver: Vec::with_capacity(n),
            delays: Vec::new(),
            rx_step: Vec::new(),
            lost: 0,
        };
        for i in 0..n as u64 {
            let key = (self.seq as u128) << 64 | self.a as u128;
            let ts = (start + i * s.gap as u64) & TIME_MASK;
            let delay = s.delays[(self.b & 0xFF) as usize];
            let lost = ((self.b >> 8) & 0xFFFF) < s.loss as u64;
            let hold = !lost && ((self.b >> 24) & 0xFFFF) < s.reorder as u64;
            self.a = xorshift64(self.a);
            self.b = xorshift64(self.b);
            self.seq = (self.seq + 1) & SEQ_MASK;
            t.sender.push((key, ts));
            let p = Held { key, ts: (ts + delay as u64) & TIME_MASK, delay };
            let out = if lost {
                t.lost += 1;
                self.held.take()
            } else if hold {
                self.held.replace(p)
            } else {
                Some(p)
            };
            if let Some(o) = out {
                t.receiver.push((o.key, o.ts));
                t.delays.push(o.delay);
                t.rx_step.push(i as u32);
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(loss: f64, reorder: f64) -> SourceSettings {
        SourceSettings {
            seed: 0x1234_5678_9abc_def0,
            epoch_packets: 20_000,
            gap: 3,
            loss: SourceSettings::threshold(loss),
            reorder: SourceSettings::threshold(reorder),
            delays: (0..256).map(|j| 100 + 7 * j).collect(),
        }
    }

    #[test]
    fn xorshift_matches_its_reference_values() {
        // Marsaglia's xorshift64 (13, 7, 17) from 1: the first three outputs.
        let mut x = 1u64;
        let mut v = Vec::new();
        for _ in 0..3 {
            x = xorshift64(x);
            v.push(x);
        }
        assert_eq!(v, [0x0000_0000_4082_2041, 0x1000_4106_0c01_1441, 0x9b1e_842f_6e86_2629]);
    }

    #[test]
    fn loss_and_reordering_follow_their_thresholds_and_no_packet_is_invented() {
        let mut src = SourceModel::new(&settings(0.05, 0.02)).unwrap();
        let (mut sent, mut received, mut lost, mut out_of_order) = (0, 0, 0, 0);
        let mut all_sent = std::collections::HashMap::new();
        for e in 0..5u64 {
            let t = src.epoch(e * 1_000_000);
            for (i, &(k, ts)) in t.sender.iter().enumerate() {
                assert_eq!(ts, e * 1_000_000 + 3 * i as u64);
                all_sent.insert(k, ts);
            }
            for (&(k, ts), &d) in t.receiver.iter().zip(&t.delays) {
                assert_eq!(all_sent[&k] + d as u64, ts, "a receiver timestamp is its send time plus its delay");
            }
            out_of_order += t.receiver.windows(2).filter(|w| w[1].0 >> 64 < w[0].0 >> 64).count() as u64;
            sent += t.sender.len() as u64;
            received += t.receiver.len() as u64;
            lost += t.lost;
        }
        let keys: std::collections::HashSet<u128> = all_sent.keys().copied().collect();
        assert_eq!(keys.len() as u64, sent, "keys are unique");
        // Held packets still on the lane at the end are neither lost nor received.
        assert!(sent - received - lost <= 1);
        let p = lost as f64 / sent as f64;
        assert!((p - 0.05).abs() < 0.005, "loss {p}");
        let q = out_of_order as f64 / sent as f64;
        assert!((0.01..0.03).contains(&q), "reordered {q}");
    }

    #[test]
    fn a_held_packet_crosses_into_the_next_epoch() {
        let mut src = SourceModel::new(&settings(0.0, 0.3)).unwrap();
        let mut crossed = 0;
        for e in 0..20u64 {
            let t = src.epoch(e << 20);
            crossed += t.receiver.iter().filter(|&&(k, _)| ((k >> 64) as u64) < e * 20_000).count();
            assert_eq!(t.lost, 0);
        }
        assert!(crossed > 0, "no packet crossed an epoch edge");
    }

    #[test]
    fn the_delay_table_follows_the_distribution() {
        let d = DelayDist::Weibull { scale_us: 2.0, shape: 0.8 };
        let t = delay_table(&d, 50_000_000).unwrap();
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
        let mean_us = t.iter().map(|&x| x as f64).sum::<f64>() / 256.0 / 50.0;
        assert!((mean_us - d.mean()).abs() / d.mean() < 0.05, "{mean_us} vs {}", d.mean());
        let e = delay_table(&DelayDist::Constant { delay_us: 1e6 }, 50_000_000).unwrap_err();
        assert!(e.contains("outside"), "{e}");
        let mut s = settings(0.0, 0.0);
        s.gap = 0;
        assert!(SourceModel::new(&s).is_err());
    }

    #[test]
    fn the_fridge_takes_each_sender_packet_then_the_receiver_packet_of_its_step() {
        let mut src = SourceModel::new(&settings(0.05, 0.02)).unwrap();
        let mut adjacent = 0;
        for start in [0u64, (1 << 40) - 30_000] {
            let t = src.epoch(start);
            let f = t.fridge_packets();
            assert_eq!(f.len(), t.sender.len() + t.receiver.len());
            let requests: Vec<&FridgePacket> = f.iter().filter(|p| !p.response).collect();
            let responses: Vec<&FridgePacket> = f.iter().filter(|p| p.response).collect();
            for (p, &(key, ts)) in requests.iter().zip(&t.sender) {
                assert_eq!((p.id, p.ts), (fridge_id(key), ts << FRIDGE_TS_SHIFT));
            }
            for (p, &(key, ts)) in responses.iter().zip(&t.receiver) {
                assert_eq!((p.id, p.ts), (fridge_id(key), ts << FRIDGE_TS_SHIFT));
            }
            // A response directly follows the request of its step; one that was not held is its own
            // request's, and its 48-bit difference is its delay in 2^-8 ticks across the 40-bit wrap.
            let mut rx = 0;
            for (i, w) in f.windows(2).enumerate() {
                if w[1].response {
                    assert!(!w[0].response, "two responses in a row at {i}");
                    let step = t.rx_step[rx] as usize;
                    assert_eq!(w[0].id, fridge_id(t.sender[step].0), "response {rx} does not follow its step");
                    if w[0].id == w[1].id {
                        adjacent += 1;
                        let d = (w[1].ts.wrapping_sub(w[0].ts) & ((1 << 48) - 1)) >> FRIDGE_TS_SHIFT;
                        assert_eq!(d, t.delays[rx] as u64);
                    }
                    rx += 1;
                }
            }
            assert_eq!(rx, t.receiver.len());
        }
        assert!(adjacent > 30_000, "{adjacent}");
    }

    #[test]
    fn fridge_ids_fold_every_key_bit() {
        let k: u128 = 0x00AB_CDEF_0123_4567_89AB_CDEF_0011_2233;
        assert_eq!(fridge_id(k), 0x0011_2233 ^ 0x89AB_CDEF ^ 0x0123_4567 ^ 0x00AB_CDEF);
        for b in 0..120 {
            assert_ne!(fridge_id(k ^ 1 << b), fridge_id(k), "bit {b}");
        }
    }
}
