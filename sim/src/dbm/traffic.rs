//! Traffic for the bandwidth cores: packets {time, length, flow}, bursty
//! synthetic streams (on/off sources with injected microbursts, as in the
//! augmented trace of Uyeda et al. §4.1.2: "three bursts, each lasting 4 msec
//! and transmitting between 4.0 and 4.4 MB"), and captures.

use crate::frame::ParseCounts;
use crate::prng::SplitMix64;
use crate::traffic::CaptureReader;
use serde::{Deserialize, Serialize};

/// One packet as the bandwidth cores see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BwPacket {
    /// Timestamp in ticks (ns for the synthetic traces and captures).
    pub ts: u64,
    /// Bytes.
    pub len: u32,
    /// Flow ID (a digest of the 5-tuple for captures).
    pub flow: u32,
}

/// A bursty synthetic stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BurstySpec {
    /// Length of the trace in ns.
    pub duration_ns: u64,
    /// On/off sources (each a flow).
    pub sources: u32,
    /// Rate of a source while on, bits/s.
    pub peak_bps: f64,
    /// Mean on period, ns (exponential).
    pub mean_on_ns: f64,
    /// Mean off period, ns (exponential).
    pub mean_off_ns: f64,
    /// Injected microbursts.
    pub bursts: u32,
    /// Duration of each microburst, ns.
    pub burst_ns: u64,
    /// Bytes of each microburst (each draws uniformly in [burst_bytes, 1.1 · burst_bytes]).
    pub burst_bytes: u64,
    /// Seed.
    pub seed: u64,
}

impl Default for BurstySpec {
    fn default() -> Self {
        // A 1 Gb/s-class link for 2 s with 20 sources at 100 Mb/s peak, on ~10 % of the
        // time, and three 4 ms bursts of 4.0-4.4 MB (§4.1.2).
        Self {
            duration_ns: 2_000_000_000,
            sources: 20,
            peak_bps: 100e6,
            mean_on_ns: 5e6,
            mean_off_ns: 45e6,
            bursts: 3,
            burst_ns: 4_000_000,
            burst_bytes: 4_000_000,
            seed: 1,
        }
    }
}

/// Flow IDs of injected microbursts start here (sources use 1..=sources).
pub const BURST_FLOW_BASE: u32 = 0x8000_0000;

impl BurstySpec {
    /// Checks the fields.
    pub fn validate(&self) -> Result<(), String> {
        if self.duration_ns == 0 || self.duration_ns >= 1 << 48 {
            return Err(format!("duration {} ns is not in 1..2^48", self.duration_ns));
        }
        if !(self.peak_bps.is_finite() && self.peak_bps > 0.0) {
            return Err(format!("peak rate {} is not a positive rate", self.peak_bps));
        }
        if !(self.mean_on_ns > 0.0
            && self.mean_off_ns >= 0.0
            && self.mean_on_ns.is_finite()
            && self.mean_off_ns.is_finite())
        {
            return Err("mean on period must be positive and the off period non-negative".into());
        }
        if self.bursts > 0 && (self.burst_ns == 0 || self.burst_ns > self.duration_ns || self.burst_bytes < 64) {
            return Err(format!(
                "bursts of {} ns and {} bytes do not fit a {} ns trace",
                self.burst_ns, self.burst_bytes, self.duration_ns
            ));
        }
        Ok(())
    }

    /// The packets, in time order (ties in generation order).
    pub fn generate(&self) -> Result<Vec<BwPacket>, String> {
        self.validate()?;
        let mut rng = SplitMix64::new(self.seed);
        let mut out = Vec::new();
        let exp = |rng: &mut SplitMix64, mean: f64| -mean * rng.unit_open().ln();
        for src in 1..=self.sources {
            let mut t = exp(&mut rng, self.mean_off_ns + self.mean_on_ns);
            while t < self.duration_ns as f64 {
                let on_end = (t + exp(&mut rng, self.mean_on_ns)).min(self.duration_ns as f64);
                while t < on_end {
                    // Bimodal sizes: 40 % minimum-size, 60 % full-size frames.
                    let len = if rng.chance(4, 10) { 64 } else { 1500 };
                    out.push(BwPacket { ts: t as u64, len, flow: src });
                    t += len as f64 * 8.0 / self.peak_bps * 1e9;
                }
                t = on_end + exp(&mut rng, self.mean_off_ns);
            }
        }
        for b in 0..self.bursts {
            let start = rng.below(self.duration_ns - self.burst_ns + 1);
            let bytes = self.burst_bytes + rng.below(self.burst_bytes / 10 + 1);
            let n = bytes.div_ceil(1500);
            for i in 0..n {
                let len = if i + 1 == n { (bytes - 1500 * (n - 1)) as u32 } else { 1500 };
                out.push(BwPacket { ts: start + i * self.burst_ns / n, len, flow: BURST_FLOW_BASE + b });
            }
        }
        out.sort_by_key(|p| p.ts);
        Ok(out)
    }
}

/// Packets {time since the first packet in ns, wire length, flow ID} of
/// every IP packet of a capture, as the frame parser's reference gives them
/// ([`crate::frame`]: the flow ID is the H3 hash of the 5-tuple), and the
/// parser's counts. Truncated or malformed captures and captures whose times
/// go backwards are errors.
pub fn pcap_bandwidth(mut r: CaptureReader) -> Result<(Vec<BwPacket>, ParseCounts), String> {
    let mut out: Vec<BwPacket> = Vec::new();
    let mut counts = ParseCounts::default();
    let mut t0 = None;
    while let Some(rec) = r.next_record(&mut counts) {
        let Ok(f) = rec? else { continue };
        let t0 = *t0.get_or_insert(f.ts_ns);
        if f.ts_ns < t0 || out.last().is_some_and(|p| f.ts_ns - t0 < p.ts) {
            return Err(format!("packet time {} ns goes backwards", f.ts_ns));
        }
        out.push(BwPacket { ts: f.ts_ns - t0, len: f.len, flow: f.flow });
    }
    if out.is_empty() {
        return Err(format!("the capture holds no IP packet ({})", counts.summary()));
    }
    Ok((out, counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_stand_out_of_the_background() {
        let spec = BurstySpec::default();
        let p = spec.generate().unwrap();
        assert!(p.windows(2).all(|w| w[0].ts <= w[1].ts));
        let total: u64 = p.iter().map(|q| q.len as u64).sum();
        let burst: u64 = p.iter().filter(|q| q.flow >= BURST_FLOW_BASE).map(|q| q.len as u64).sum();
        assert!((12_000_000..=13_200_003).contains(&burst), "{burst}");
        // Background ≈ 20 sources × 100 Mb/s × 10 % × 2 s = 50 MB.
        let bg = total - burst;
        assert!((30_000_000..80_000_000).contains(&bg), "{bg}");
        assert!(BurstySpec { peak_bps: 0.0, ..spec.clone() }.generate().is_err());
        assert!(BurstySpec { burst_ns: 3_000_000_000, ..spec }.generate().is_err());
    }
}
