//! Arguments and helpers several commands share: which models run a
//! measurement (`--engine`, and running them with the bit-exactness check),
//! the traffic of a latency run (LDA, RDA) and of a bandwidth run (DBM, EXPB),
//! durations. Choices are clap `ValueEnum`s, so a wrong one is refused with
//! the list of the right ones before anything runs.

use clap::{Args, ValueEnum};
use netmeas_sim::dbm::{BurstySpec, BwPacket, pcap_bandwidth};
use netmeas_sim::frame::ParseCounts;
use netmeas_sim::traffic::{CaptureReader, DelayDist, LossModel, Source, TrafficSpec, read_pcap};
use netmeas_testbench::RtlRunCycles;
use serde::Serialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Instant;

/// Which models run a measurement (`--engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The golden transaction model.
    Golden,
    /// The Verilated cores.
    Rtl,
    /// Both, with the synopses compared bit for bit.
    Both,
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.to_possible_value().expect("every engine has a name").get_name())
    }
}

/// How packets are lost on the path (`--loss-model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LossModelArg {
    /// Each packet independently.
    Uniform,
    /// Exponential episodes of about 100 packets (Kompella et al. §IV-C).
    Bursty,
}

impl LossModelArg {
    /// The traffic model's loss process.
    pub fn model(self) -> LossModel {
        match self {
            LossModelArg::Uniform => LossModel::Uniform,
            LossModelArg::Bursty => LossModel::Bursty { mean_episode: 100.0 },
        }
    }
}

impl std::fmt::Display for LossModelArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.to_possible_value().expect("every loss model has a name").get_name())
    }
}

/// Runs a core on `engine`: `golden` and `rtl` produce its synopses (the RTL
/// also the cycles it took, as JSON fields for the timing, e.g.
/// [`cycles_json`]), `differ` names the first difference between a golden and
/// an RTL synopsis. Returns the synopsis used for the estimates (the RTL's
/// when it ran), whether golden and RTL agreed, and timing figures for
/// `packets` trace packets.
pub fn run_engines<P>(
    engine: Engine,
    packets: f64,
    golden: impl FnOnce() -> P,
    rtl: impl FnOnce() -> Result<(P, Value), String>,
    differ: impl Fn(&P, &P) -> Option<String>,
) -> Result<(P, Option<bool>, Value), String> {
    let mut timing = serde_json::Map::new();
    let golden = if engine != Engine::Rtl {
        let t = Instant::now();
        let p = golden();
        let s = t.elapsed().as_secs_f64();
        timing.insert("golden".into(), json!({ "seconds": s, "packets_per_s": packets / s }));
        Some(p)
    } else {
        None
    };
    let rtl = if engine != Engine::Golden {
        let t = Instant::now();
        let (p, cycles) = rtl()?;
        let s = t.elapsed().as_secs_f64();
        let mut fields = json!({ "seconds": s, "packets_per_s": packets / s });
        if let (Some(f), Value::Object(c)) = (fields.as_object_mut(), cycles) {
            f.extend(c);
        }
        timing.insert("rtl".into(), fields);
        Some(p)
    } else {
        None
    };
    let matched = match (&golden, &rtl) {
        (Some(g), Some(r)) => {
            if let Some(d) = differ(g, r) {
                return Err(format!("golden and RTL synopses differ: {d}"));
            }
            Some(true)
        }
        _ => None,
    };
    let pair = rtl.or(golden).expect("an engine ran");
    Ok((pair, matched, Value::Object(timing)))
}

/// The cycles a sender/receiver pair of RTL cores took, as timing fields.
pub fn cycles_json(c: &RtlRunCycles) -> Value {
    json!({ "sender_cycles": c.sender, "receiver_cycles": c.receiver })
}

/// Flags of a run's traffic: a synthetic source or a capture, delays and random loss.
#[derive(Args, Clone, Debug)]
pub struct TrafficArgs {
    /// Packets sent (synthetic source; default 5 M for lda, 1 M for rda), or the most packets taken from --pcap.
    #[arg(long)]
    pub packets: Option<u64>,
    /// Offered rate of the synthetic source, packets/s (§IV: 5 M in 1 s).
    #[arg(long, default_value_t = 5e6)]
    pub rate: f64,
    /// Distinct 5-tuples of the synthetic source.
    #[arg(long, default_value_t = 10_000)]
    pub flows: u32,
    /// Take keys and send times from this capture instead (pcap or pcapng; the key of docs/integration.md).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Delay distribution, µs: weibull:SCALE:SHAPE, pareto:SCALE:SHAPE or const:DELAY.
    #[arg(long, default_value = "weibull:0.133:0.6")]
    pub delay: String,
    /// Random loss rate in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    pub loss: f64,
    /// How packets are lost.
    #[arg(long, value_enum, default_value_t = LossModelArg::Uniform)]
    pub loss_model: LossModelArg,
    /// Seed of the traffic (every random draw of the trace).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl TrafficArgs {
    /// The traffic spec; a synthetic source sends `default_packets` unless `--packets` says otherwise.
    pub fn spec(&self, default_packets: u64) -> Result<TrafficSpec, String> {
        let source = match &self.pcap {
            Some(p) => Source::Pcap { trace: read_pcap(p)?, limit: self.packets },
            None => Source::Synthetic {
                packets: self.packets.unwrap_or(default_packets),
                rate_pps: self.rate,
                flows: self.flows,
            },
        };
        Ok(TrafficSpec {
            source,
            delay: self.delay.parse::<DelayDist>()?,
            loss_rate: self.loss,
            loss_model: self.loss_model.model(),
            seed: self.seed,
        })
    }

    /// The source of `spec` (built by [`Self::spec`]) as the reports name it.
    pub fn source(&self, spec: &TrafficSpec) -> TrafficSource {
        match (&self.pcap, &spec.source) {
            (Some(p), Source::Pcap { trace, .. }) => TrafficSource::capture(p, trace.counts.clone()),
            _ => TrafficSource::synthetic(),
        }
    }
}

/// Where a run's packets came from: `synthetic`, or a capture's path with
/// the frame parser's counts (frames, records, skipped by reason).
#[derive(Clone, Debug)]
pub struct TrafficSource {
    /// The capture's path, or `synthetic`.
    pub name: String,
    /// The frame parser's counts of a capture.
    pub capture: Option<ParseCounts>,
}

impl TrafficSource {
    /// A synthetic trace.
    pub fn synthetic() -> Self {
        Self { name: "synthetic".into(), capture: None }
    }

    /// The capture at `path`, read with `counts`.
    pub fn capture(path: &std::path::Path, counts: ParseCounts) -> Self {
        Self { name: path.display().to_string(), capture: Some(counts) }
    }

    /// As the text reports print it: the name, and a capture's counts.
    pub fn text(&self) -> String {
        match &self.capture {
            Some(c) => format!("{}: {}", self.name, c.summary()),
            None => self.name.clone(),
        }
    }

    /// The JSON reports' `source` and `capture` fields.
    pub fn json_fields(&self) -> (serde_json::Value, serde_json::Value) {
        (self.name.clone().into(), self.capture.as_ref().map_or(serde_json::Value::Null, |c| c.to_json()))
    }
}

/// The packet stream of a bandwidth run.
#[derive(Args, Clone, Debug)]
pub struct BwTraffic {
    /// Take the packets (time, wire length, flow ID) from this capture (pcap or pcapng).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Length of the synthetic trace.
    #[arg(long, default_value = "2s")]
    pub duration: String,
    /// On/off sources of the synthetic trace.
    #[arg(long, default_value_t = 20)]
    pub sources: u32,
    /// Rate of a source while on, Mb/s.
    #[arg(long, default_value_t = 100.0)]
    pub peak_mbps: f64,
    /// Mean on period of a source (exponential).
    #[arg(long, default_value = "5ms")]
    pub mean_on: String,
    /// Mean off period of a source (exponential).
    #[arg(long, default_value = "45ms")]
    pub mean_off: String,
    /// Microbursts injected (§4.1.2: three).
    #[arg(long, default_value_t = 3)]
    pub bursts: u32,
    /// Length of each microburst (§4.1.2: 4 ms).
    #[arg(long, default_value = "4ms")]
    pub burst_len: String,
    /// Megabytes of each microburst (drawn in [B, 1.1 B]; §4.1.2: 4.0-4.4 MB).
    #[arg(long, default_value_t = 4.0)]
    pub burst_mb: f64,
    /// Seed of the synthetic trace.
    #[arg(long, default_value_t = 1)]
    pub trace_seed: u64,
}

impl BwTraffic {
    /// The packets and their source.
    pub fn packets(&self) -> Result<(Vec<BwPacket>, TrafficSource), String> {
        if let Some(p) = &self.pcap {
            let (packets, counts) =
                pcap_bandwidth(CaptureReader::open(p)?).map_err(|e| format!("{}: {e}", p.display()))?;
            return Ok((packets, TrafficSource::capture(p, counts)));
        }
        if !(self.burst_mb.is_finite() && self.burst_mb >= 0.0) {
            return Err(format!("--burst-mb {}: not a size", self.burst_mb));
        }
        let spec = BurstySpec {
            duration_ns: parse_duration_ns(&self.duration)? as u64,
            sources: self.sources,
            peak_bps: self.peak_mbps * 1e6,
            mean_on_ns: parse_duration_ns(&self.mean_on)?,
            mean_off_ns: parse_duration_ns(&self.mean_off)?,
            bursts: self.bursts,
            burst_ns: parse_duration_ns(&self.burst_len)? as u64,
            burst_bytes: (self.burst_mb * 1e6) as u64,
            seed: self.trace_seed,
        };
        let packets = spec.generate()?;
        if packets.is_empty() {
            return Err("the synthetic trace holds no packet (no source was ever on)".into());
        }
        Ok((packets, TrafficSource::synthetic()))
    }
}

/// A duration such as `64ms`, `4.096s`, `500us`, `1000ns` or `1000` (ns), in ns.
pub fn parse_duration_ns(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (num, scale) = [("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
        .iter()
        .find_map(|&(u, f)| t.strip_suffix(u).map(|n| (n, f)))
        .unwrap_or((t, 1.0));
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v * scale),
        _ => Err(format!("`{s}` is not a positive duration (e.g. 64ms, 4.096s, 500us, 1000ns)")),
    }
}
