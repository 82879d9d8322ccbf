//! Request/response streams for the fridge core: the synthetic trace of §5
//! (Poisson requests, a fraction answered after a log-uniform delay) and
//! pairs extracted from captures by the frame parser's reference (§2.1: TCP
//! SYN → SYN-ACK, data → its ACK, DNS query → response; [`crate::frame`]),
//! with the ground-truth delays of Definition 2.1.

use super::model::FridgePacket;
use crate::frame::{ParseCounts, Role};
use crate::prng::SplitMix64;
use crate::traffic::CaptureReader;
use std::collections::HashMap;

/// A stream with its ground truth.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FridgeTrace {
    /// Packets in time order (timestamps in ns from the first packet).
    pub packets: Vec<FridgePacket>,
    /// Delay of every request/response pair of the stream (Definition 2.1), ns.
    pub truth: Vec<u64>,
    /// Responses without a request earlier in the stream (not pairs; counted).
    pub unmatched_responses: u64,
    /// Requests whose ID was requested again before any response (the later one pairs).
    pub repeated_requests: u64,
    /// Capture frames that were neither a request nor a response (captures only).
    pub skipped: u64,
    /// The frame parser's counts (captures only).
    pub capture: Option<ParseCounts>,
}

impl FridgeTrace {
    /// Requests in the stream.
    pub fn requests(&self) -> usize {
        self.packets.iter().filter(|p| !p.response).count()
    }

    /// Pairs the stream up by ID (Definition 2.1: a response pairs with the
    /// latest earlier request of its ID, which the fridge would have stored too).
    pub fn from_packets(packets: Vec<FridgePacket>) -> Self {
        let mut open: HashMap<u32, u64> = HashMap::new();
        let mut t = FridgeTrace { packets, ..Default::default() };
        for p in &t.packets {
            if p.response {
                match open.remove(&p.id) {
                    Some(ts) => t.truth.push(p.ts - ts),
                    None => t.unmatched_responses += 1,
                }
            } else if open.insert(p.id, p.ts).is_some() {
                t.repeated_requests += 1;
            }
        }
        t
    }
}

/// The §5 synthetic trace.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticSpec {
    /// Requests (§5: 1.25 M for 0.5 M samples at 40 %).
    pub requests: u64,
    /// Mean request rate, per second (§5: 1 M/s); gaps are exponential (Poisson).
    pub rate_per_s: f64,
    /// Fraction of requests answered (§5: 40 %).
    pub answered: f64,
    /// Smallest delay, ns (the log-uniform law needs a lower end).
    pub min_delay_ns: f64,
    /// Largest delay T, ns (§5: 2^6 or 2^12 ms).
    pub max_delay_ns: f64,
    /// Seed of the trace.
    pub seed: u64,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        Self { requests: 1_250_000, rate_per_s: 1e6, answered: 0.4, min_delay_ns: 1e3, max_delay_ns: 4096e6, seed: 1 }
    }
}

/// A bijection of 32-bit words (so the IDs of up to 2^32 requests are distinct).
fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

impl SyntheticSpec {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        if self.requests == 0 || self.requests > crate::traffic::trace::MAX_PACKETS {
            return Err(format!(
                "requests {} is outside 1..={} (one trace is held in memory)",
                self.requests,
                crate::traffic::trace::MAX_PACKETS
            ));
        }
        if !(self.rate_per_s > 0.0 && self.rate_per_s.is_finite()) {
            return Err(format!("request rate {} is not positive", self.rate_per_s));
        }
        if !(0.0..=1.0).contains(&self.answered) {
            return Err(format!("answered fraction {} is outside [0, 1]", self.answered));
        }
        if !(self.min_delay_ns >= 1.0 && self.max_delay_ns > self.min_delay_ns && self.max_delay_ns < 2f64.powi(47)) {
            return Err(format!(
                "delays must satisfy 1 ns ≤ min < max < 2^47 ns (min {} ns, max {} ns)",
                self.min_delay_ns, self.max_delay_ns
            ));
        }
        Ok(())
    }

    /// The trace: requests at Poisson times, `answered` of them answered after a
    /// delay log-uniform in [min, max), merged in time order.
    pub fn build(&self) -> Result<FridgeTrace, String> {
        self.validate()?;
        let mut rng = SplitMix64::new(self.seed);
        let id_base = rng.next_u64() as u32;
        let (lo, hi) = (self.min_delay_ns.ln(), self.max_delay_ns.ln());
        let mut t = 0.0f64;
        let mut packets = Vec::with_capacity((self.requests as f64 * (1.0 + self.answered)) as usize + 1);
        let ans = (self.answered * (1u64 << 53) as f64) as u64;
        for i in 0..self.requests {
            t += -rng.unit_open().ln() * 1e9 / self.rate_per_s;
            let ts = t as u64;
            let id = mix32((i as u32).wrapping_add(id_base));
            packets.push(FridgePacket { id, response: false, ts });
            if rng.next_u64() >> 11 < ans {
                let d = (lo + (hi - lo) * (rng.unit_open() - f64::EPSILON).max(0.0)).exp();
                packets.push(FridgePacket { id, response: true, ts: ts + (d as u64).max(1) });
            }
        }
        // Requests first among equal times (a response is at least 1 ns after its request).
        packets.sort_by_key(|p| (p.ts, p.response));
        let trace = FridgeTrace::from_packets(packets);
        debug_assert_eq!(trace.unmatched_responses, 0);
        Ok(trace)
    }
}

/// Requests and responses of a capture (pcap or pcapng, read as a stream),
/// as the frame parser's reference marks them, with its match ID as the
/// fridge ID; timestamps relative to the first frame. Malformed or truncated
/// captures are errors; a capture with no request is an error too.
pub fn pcap_pairs(mut r: CaptureReader) -> Result<FridgeTrace, String> {
    let mut counts = ParseCounts::default();
    let mut packets = Vec::new();
    let mut skipped = 0;
    let (mut t0, mut last) = (None, 0u64);
    while let Some(rec) = r.next_record(&mut counts) {
        let f = match rec? {
            Ok(f) if f.role != Role::None => f,
            _ => {
                skipped += 1;
                continue;
            }
        };
        let t0 = *t0.get_or_insert(f.ts_ns);
        let ts = f.ts_ns.checked_sub(t0).filter(|&t| t >= last).ok_or_else(|| {
            format!(
                "capture times go backwards ({} ns before the last request or response): sort the capture first",
                f.ts_ns
            )
        })?;
        last = ts;
        packets.push(FridgePacket { id: f.match_id, response: f.role == Role::Response, ts });
    }
    if !packets.iter().any(|p| !p.response) {
        return Err(format!(
            "no TCP SYN, TCP data or DNS query in the capture ({skipped} frames were neither a request nor a response; {})",
            counts.summary()
        ));
    }
    let mut t = FridgeTrace::from_packets(packets);
    t.skipped = skipped;
    t.capture = Some(counts);
    Ok(t)
}

/// One request/response exchange for [`write_exchange_pcap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// Request time, ns.
    pub t_ns: u64,
    /// Client IPv4 address.
    pub client: u32,
    /// Server IPv4 address.
    pub server: u32,
    /// Client port.
    pub client_port: u16,
    /// TCP initial sequence number, or DNS ID.
    pub tag: u32,
    /// A DNS query (else a TCP handshake).
    pub dns: bool,
    /// The response follows after this many ns (None: unanswered).
    pub answer_after_ns: Option<u64>,
}

/// Writes a capture of TCP handshakes and DNS exchanges (Ethernet, ns
/// timestamps): the tests' own input for [`pcap_pairs`].
pub fn write_exchange_pcap(items: &[Exchange]) -> Vec<u8> {
    let mut recs: Vec<(u64, Vec<u8>)> = Vec::new();
    for x in items {
        let (t, c, s, cp, n, dns, ans) = (x.t_ns, x.client, x.server, x.client_port, x.tag, x.dns, x.answer_after_ns);
        let frame = |src: u32, dst: u32, sp: u16, dp: u16, resp: bool| -> Vec<u8> {
            let l4: Vec<u8> = if dns {
                let mut u = vec![0u8; 20];
                u[0..2].copy_from_slice(&sp.to_be_bytes());
                u[2..4].copy_from_slice(&dp.to_be_bytes());
                u[4..6].copy_from_slice(&20u16.to_be_bytes());
                u[8..10].copy_from_slice(&(n as u16).to_be_bytes());
                u[10] = if resp { 0x81 } else { 0x01 };
                u
            } else {
                let mut h = vec![0u8; 20];
                h[0..2].copy_from_slice(&sp.to_be_bytes());
                h[2..4].copy_from_slice(&dp.to_be_bytes());
                let (seq, ack) = if resp { (0x1111_0000u32, n.wrapping_add(1)) } else { (n, 0) };
                h[4..8].copy_from_slice(&seq.to_be_bytes());
                h[8..12].copy_from_slice(&ack.to_be_bytes());
                h[12] = 0x50;
                h[13] = if resp { 0x12 } else { 0x02 };
                h
            };
            let mut f = vec![0u8; 34];
            f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
            f[14] = 0x45;
            f[16..18].copy_from_slice(&((20 + l4.len()) as u16).to_be_bytes());
            f[22] = 64;
            f[23] = if dns { 17 } else { 6 };
            f[26..30].copy_from_slice(&src.to_be_bytes());
            f[30..34].copy_from_slice(&dst.to_be_bytes());
            f.extend_from_slice(&l4);
            f
        };
        let sp = if dns { 53 } else { 443 };
        recs.push((t, frame(c, s, cp, sp, false)));
        if let Some(d) = ans {
            recs.push((t + d, frame(s, c, sp, cp, true)));
        }
    }
    recs.sort_by_key(|r| r.0);
    crate::traffic::write_capture(&recs, crate::traffic::CaptureFormat::Pcap)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(d: &[u8]) -> Result<FridgeTrace, String> {
        CaptureReader::from_bytes(d).and_then(pcap_pairs)
    }

    #[test]
    fn synthetic_trace_has_the_paper_shape() {
        let s = SyntheticSpec { requests: 200_000, max_delay_ns: 64e6, ..Default::default() };
        let t = s.build().unwrap();
        assert_eq!(t.requests(), 200_000);
        let frac = t.truth.len() as f64 / 200_000.0;
        assert!((frac - 0.4).abs() < 0.01, "{frac}");
        assert!(t.packets.windows(2).all(|w| w[0].ts <= w[1].ts));
        assert!(t.truth.iter().all(|&d| (1000..64_000_000).contains(&d)));
        // Log-uniform: the median is the geometric mean of the ends (≈ 253 µs).
        let mut d = t.truth.clone();
        d.sort_unstable();
        let med = d[d.len() / 2] as f64;
        assert!((med / (1e3f64 * 64e6).sqrt()).log2().abs() < 0.05, "{med}");
        // Poisson at 1 M/s: 200 k requests span ≈ 0.2 s.
        let span = t.packets.iter().rfind(|p| !p.response).unwrap().ts as f64;
        assert!((span / 0.2e9 - 1.0).abs() < 0.02, "{span}");
        assert_eq!((t.unmatched_responses, t.repeated_requests), (0, 0));
        assert!(SyntheticSpec { answered: 1.5, ..s.clone() }.build().is_err());
        assert!(SyntheticSpec { min_delay_ns: 0.5, ..s }.build().is_err());
    }

    #[test]
    fn pcap_handshakes_and_dns_pair_up() {
        let ex = |t_ns, client, server, client_port, tag, dns, answer_after_ns| Exchange {
            t_ns,
            client,
            server,
            client_port,
            tag,
            dns,
            answer_after_ns,
        };
        let items = [
            ex(1_000, 0x0a00_0001, 0x0808_0808, 40000, 0xdead_beef, false, Some(30_000)),
            ex(2_000, 0x0a00_0002, 0x0808_0404, 5353, 0x1234, true, Some(7_000)),
            ex(3_000, 0x0a00_0003, 0x0808_0808, 40001, 77, false, None),
            ex(4_000, 0x0a00_0001, 0x0808_0808, 40002, u32::MAX, false, Some(1_000_000)),
        ];
        let t = pairs(&write_exchange_pcap(&items)).unwrap();
        assert_eq!(t.requests(), 4);
        let mut d = t.truth.clone();
        d.sort_unstable();
        assert_eq!(d, vec![7_000, 30_000, 1_000_000]);
        assert_eq!((t.unmatched_responses, t.skipped), (0, 0));
        assert_eq!(t.capture.as_ref().map(|c| (c.frames, c.records)), Some((7, 7)));
        // A SYN-ACK's ID is its SYN's.
        let syn = t.packets.iter().find(|p| p.ts == 0).unwrap();
        let synack = t.packets.iter().find(|p| p.ts == 30_000).unwrap();
        assert_eq!((syn.id, syn.response, synack.response), (synack.id, false, true));
    }

    #[test]
    fn bad_captures_are_errors() {
        let good = write_exchange_pcap(&[Exchange {
            t_ns: 0,
            client: 1,
            server: 2,
            client_port: 3,
            tag: 4,
            dns: false,
            answer_after_ns: Some(5),
        }]);
        assert!(pairs(&good[..good.len() - 3]).unwrap_err().contains("truncated"));
        assert!(pairs(&good[..10]).is_err());
        // Only a response: no request.
        let mut only_resp = good[..24].to_vec();
        let second = 24 + 16 + 54;
        only_resp.extend_from_slice(&good[second..]);
        assert!(pairs(&only_resp).unwrap_err().contains("no TCP SYN"));
    }
}
