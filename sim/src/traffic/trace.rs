//! FIFO sender → receiver packet streams with ground truth (Kompella et al.
//! §IV): per-packet delays from a [`DelayDist`], losses from a
//! [`LossProcess`], keys and send times synthetic or from a capture.
//! Timestamps are nanoseconds (the §V hardware's 40-bit ns timestamps).

use super::delay::DelayDist;
use super::key::pack_key;
use super::loss::{LossModel, LossProcess};
use super::pcap::PcapTrace;
use crate::prng::SplitMix64;
use serde::Serialize;

/// One packet of a segment: sent at `sent`, received at `received` unless lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracePacket {
    /// Key (5-tuple + IP ID, [`pack_key`]).
    pub key: u128,
    /// Send time at the sender's measurement point, ns.
    pub sent: u64,
    /// Arrival time at the receiver's measurement point, ns; `None` if lost.
    pub received: Option<u64>,
}

/// Where send times and keys come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// Poisson arrivals over random flows; each flow numbers its packets with
    /// consecutive IP IDs.
    Synthetic {
        /// Packets to send.
        packets: u64,
        /// Mean offered rate, packets/s (§IV: 5 M packets in 1 s).
        rate_pps: f64,
        /// Number of distinct 5-tuples.
        flows: u32,
    },
    /// The IPv4 packets of a capture, at their capture times (at most `limit`).
    Pcap {
        /// The capture.
        trace: PcapTrace,
        /// Use only the first this many packets.
        limit: Option<u64>,
    },
}

/// A complete traffic description: the same spec always gives the same trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficSpec {
    /// Keys and send times.
    pub source: Source,
    /// Per-packet delay.
    pub delay: DelayDist,
    /// Loss rate in [0, 1).
    pub loss_rate: f64,
    /// Where losses fall.
    pub loss_model: LossModel,
    /// Seed of every random choice (keys, gaps, delays and losses draw from
    /// separate streams, so changing the loss rate keeps keys and delays).
    pub seed: u64,
}

/// The true delay statistics of the received packets and the true loss.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Truth {
    /// Packets sent.
    pub sent: u64,
    /// Packets received.
    pub received: u64,
    /// (sent − received) / sent.
    pub loss: f64,
    /// Mean delay of the received packets, ns.
    pub mean: f64,
    /// Standard deviation of their delays (population), ns.
    pub std: f64,
}

/// A FIFO segment's packets in send order, with ground truth.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// Every packet sent.
    pub packets: Vec<TracePacket>,
}

/// A delay in whole nanoseconds.
#[inline]
fn ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

/// Most packets (and most flows) one synthetic trace may hold; more flows
/// than packets is fine, each packet then picks one of them.
pub const MAX_PACKETS: u64 = 100_000_000;

/// Times (send and arrival, ns from the trace's start) stay below this: the
/// cores' packet timestamps are 48 bits wide (about 78 hours of nanoseconds).
pub const MAX_TIME_NS: u64 = 1 << 48;

/// Exponential gap of mean `mean` ns, whole nanoseconds (saturating far past [`MAX_TIME_NS`]).
#[inline]
fn exp_gap(rng: &mut SplitMix64, mean: f64) -> u64 {
    (-rng.unit_open().ln() * mean).round() as u64
}

/// One delay of `spec` in whole ns, refused when it is not a finite time below [`MAX_TIME_NS`].
fn delay_ns(spec: &TrafficSpec, rng: &mut SplitMix64) -> Result<u64, String> {
    let us = spec.delay.sample(rng);
    if !(us.is_finite() && us >= 0.0 && us * 1000.0 < MAX_TIME_NS as f64) {
        return Err(format!(
            "delay {}: a delay of {us} us does not fit the cores' 48-bit timestamps (below 2^48 ns, about 78 h)",
            spec.delay
        ));
    }
    Ok(ns(us))
}

/// `t`, refused once it is no longer a 48-bit timestamp; `what` names the
/// cause, and is formatted only then (this runs for every packet).
fn in_time(t: u64, what: impl FnOnce() -> String) -> Result<u64, String> {
    if t < MAX_TIME_NS {
        Ok(t)
    } else {
        Err(format!("{}: the trace runs past 2^48 ns (about 78 h), beyond the cores' 48-bit timestamps", what()))
    }
}

impl Trace {
    /// Builds the trace of `spec`.
    ///
    /// Synthetic sources follow §IV's rule that keeps the segment FIFO with one
    /// packet in flight: packet x+1 leaves after packet x has arrived,
    /// a_{x+1} = max(a_x + gap, b_x + 1), with Poisson gaps at the offered
    /// rate. Capture sources keep their send times (clamped to be
    /// non-decreasing) and queue FIFO: b_x = max(a_x + d_x, b_{x−1}).
    pub fn build(spec: &TrafficSpec) -> Result<Trace, String> {
        let mut loss = LossProcess::new(spec.loss_rate, spec.loss_model)?;
        let mut keys = SplitMix64::new(spec.seed ^ 0x6b65_7973);
        let mut delays = SplitMix64::new(spec.seed ^ 0x6465_6c61_7973);
        let mut losses = SplitMix64::new(spec.seed ^ 0x6c6f_7373);
        let mut packets = Vec::new();
        match &spec.source {
            Source::Synthetic { packets: n, rate_pps, flows } => {
                if *n == 0 || *flows == 0 {
                    return Err("a synthetic trace needs at least one packet and one flow".into());
                }
                if *n > MAX_PACKETS {
                    return Err(format!("{n} packets: at most {MAX_PACKETS} per trace"));
                }
                if *flows as u64 > MAX_PACKETS {
                    return Err(format!("{flows} flows: at most {MAX_PACKETS} per trace"));
                }
                if !(rate_pps.is_finite() && *rate_pps > 0.0) {
                    return Err(format!("rate {rate_pps} packets/s is not a positive number"));
                }
                let tuples: Vec<(u32, u32, u16, u16, u8, u16)> = (0..*flows)
                    .map(|_| {
                        let w = keys.next_u128();
                        let proto = if w & 1 == 0 { 6 } else { 17 };
                        (w as u32 >> 1, (w >> 32) as u32, (w >> 64) as u16, (w >> 80) as u16, proto, (w >> 96) as u16)
                    })
                    .collect();
                let mut ipid: Vec<u16> = tuples.iter().map(|t| t.5).collect();
                let mean_gap = 1e9 / rate_pps;
                packets.reserve(*n as usize);
                let (mut a, mut b_prev) = (1_000u64, 0u64);
                for x in 0..*n {
                    if x > 0 {
                        let gap = exp_gap(&mut keys, mean_gap).min(MAX_TIME_NS);
                        a = in_time((a + gap).max(b_prev + 1), || format!("rate {rate_pps} packets/s"))?;
                    }
                    let f = keys.below(*flows as u64) as usize;
                    let (s, d, sp, dp, pr, _) = tuples[f];
                    let key = pack_key(s, d, sp, dp, pr, ipid[f]);
                    ipid[f] = ipid[f].wrapping_add(1);
                    let b = in_time(a + delay_ns(spec, &mut delays)?, || format!("delay {}", spec.delay))?;
                    b_prev = b;
                    let lost = loss.lost(&mut losses);
                    packets.push(TracePacket { key, sent: a, received: (!lost).then_some(b) });
                }
            }
            Source::Pcap { trace, limit } => {
                let n = limit.map_or(trace.packets.len(), |l| trace.packets.len().min(l as usize));
                let t0 = trace.packets.first().map_or(0, |p| p.ts_ns);
                let (mut a, mut b_prev) = (0u64, 0u64);
                for p in &trace.packets[..n] {
                    a = in_time(a.max(p.ts_ns.saturating_sub(t0) + 1_000), || "the capture".into())?;
                    let b =
                        in_time((a + delay_ns(spec, &mut delays)?).max(b_prev), || format!("delay {}", spec.delay))?;
                    b_prev = b;
                    let lost = loss.lost(&mut losses);
                    packets.push(TracePacket { key: p.key, sent: a, received: (!lost).then_some(b) });
                }
                if packets.is_empty() {
                    return Err("the capture selection holds no packets".into());
                }
            }
        }
        Ok(Trace { packets })
    }

    /// Ground truth, exact over integer nanoseconds.
    pub fn truth(&self) -> Truth {
        let (mut n, mut s, mut s2) = (0u128, 0u128, 0u128);
        for p in &self.packets {
            if let Some(b) = p.received {
                let d = (b - p.sent) as u128;
                n += 1;
                s += d;
                s2 += d * d;
            }
        }
        let sent = self.packets.len() as u64;
        let (mean, std) = if n > 0 {
            let var = (n * s2 - s * s) as f64 / (n * n) as f64;
            (s as f64 / n as f64, var.sqrt())
        } else {
            (f64::NAN, f64::NAN)
        };
        Truth { sent, received: n as u64, loss: (sent - n as u64) as f64 / sent.max(1) as f64, mean, std }
    }

    /// The sender's stream: (key, timestamp) of every packet.
    pub fn sender(&self) -> impl Iterator<Item = (u128, u64)> + '_ {
        self.packets.iter().map(|p| (p.key, p.sent))
    }

    /// The receiver's stream: (key, timestamp) of every packet that arrived, in arrival order.
    pub fn receiver(&self) -> impl Iterator<Item = (u128, u64)> + '_ {
        self.packets.iter().filter_map(|p| p.received.map(|b| (p.key, b)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::pcap::PcapPacket;
    use super::*;

    fn spec(packets: u64, loss_rate: f64, seed: u64) -> TrafficSpec {
        TrafficSpec {
            source: Source::Synthetic { packets, rate_pps: 5e6, flows: 1000 },
            delay: DelayDist::PAPER_WEIBULL,
            loss_rate,
            loss_model: LossModel::Uniform,
            seed,
        }
    }

    #[test]
    fn synthetic_trace_is_fifo_with_one_packet_in_flight() {
        let t = Trace::build(&spec(200_000, 0.01, 1)).unwrap();
        for w in t.packets.windows(2) {
            let b0 = w[0].received.unwrap_or(0);
            assert!(w[1].sent > b0 && w[1].sent > w[0].sent);
        }
        let truth = t.truth();
        assert!((truth.loss - 0.01).abs() < 0.002);
        // §IV: mean delay 0.2 µs, about 5 M packets per second.
        assert!((truth.mean / 200.0 - 1.0).abs() < 0.03, "{}", truth.mean);
        let span = t.packets.last().unwrap().sent - t.packets[0].sent;
        let rate = 200_000.0 / (span as f64 * 1e-9);
        assert!(rate > 2.5e6 && rate < 5e6, "{rate}");
    }

    #[test]
    fn same_spec_same_trace_and_loss_keeps_keys_and_delays() {
        let a = Trace::build(&spec(10_000, 0.0, 7)).unwrap();
        assert_eq!(a, Trace::build(&spec(10_000, 0.0, 7)).unwrap());
        let b = Trace::build(&spec(10_000, 0.2, 7)).unwrap();
        assert!(a.packets.iter().zip(&b.packets).all(|(x, y)| x.key == y.key && x.sent == y.sent));
        assert!(b.packets.iter().any(|p| p.received.is_none()));
        assert_ne!(a, Trace::build(&spec(10_000, 0.0, 8)).unwrap());
    }

    #[test]
    fn truth_is_exact() {
        let t = Trace {
            packets: vec![
                TracePacket { key: 1, sent: 10, received: Some(13) },
                TracePacket { key: 2, sent: 20, received: None },
                TracePacket { key: 3, sent: 30, received: Some(37) },
            ],
        };
        let g = t.truth();
        assert_eq!((g.sent, g.received, g.mean, g.std), (3, 2, 5.0, 2.0));
        assert!((g.loss - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(t.receiver().collect::<Vec<_>>(), vec![(1, 13), (3, 37)]);
    }

    #[test]
    fn capture_source_keeps_times_and_queues_fifo() {
        let trace = PcapTrace {
            packets: (0..1000).map(|i| PcapPacket { ts_ns: 5_000_000 + i * 50 - (i % 3), key: i as u128 }).collect(),
            counts: Default::default(),
        };
        let s = TrafficSpec { source: Source::Pcap { trace, limit: Some(600) }, ..spec(1, 0.0, 3) };
        let t = Trace::build(&s).unwrap();
        assert_eq!(t.packets.len(), 600);
        assert_eq!(t.packets[0].sent, 1_000);
        for w in t.packets.windows(2) {
            assert!(w[1].sent >= w[0].sent && w[1].received >= w[0].received);
        }
    }

    #[test]
    fn impossible_synthetic_sources_are_refused_before_allocating() {
        let with = |packets: u64, flows: u32| TrafficSpec {
            source: Source::Synthetic { packets, rate_pps: 5e6, flows },
            ..spec(1, 0.0, 1)
        };
        for (p, f, msg) in [
            (0, 1, "at least one packet"),
            (10, (MAX_PACKETS + 1) as u32, "flows: at most"),
            (MAX_PACKETS + 1, 1, "at most"),
        ] {
            let e = Trace::build(&with(p, f)).unwrap_err();
            assert!(e.contains(msg), "{e}");
        }
        let rate = TrafficSpec { source: Source::Synthetic { packets: 5, rate_pps: 0.0, flows: 1 }, ..spec(1, 0.0, 1) };
        assert!(Trace::build(&rate).unwrap_err().contains("rate"));
    }
}
