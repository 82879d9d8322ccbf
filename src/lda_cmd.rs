//! `netmeas run lda` and `netmeas estimate lda`: one measurement interval of a
//! sender/receiver pair of LDA cores (Kompella et al. §III-D/E, §IV set-up) on
//! the golden model, on two Verilated cores, or on both with a bit-exactness
//! check; and the host estimators on saved synopses.

use clap::Args;
use netmeas_sim::error::load_config;
use netmeas_sim::lda::{LdaConfig, LdaOutcome, LdaPair, LdaSynopsis, estimate, golden_pair, outcome};
use netmeas_sim::traffic::{DelayDist, LossModel, Source, Trace, TrafficSpec, read_pcap};
use netmeas_testbench::RtlRunCycles;
use netmeas_testbench::lda_stream::{check_rtl_config, rtl_pair};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Flags of `netmeas run lda`.
#[derive(Args, Clone, Debug)]
pub struct RunLda {
    /// Base config file (TOML or JSON); the flags below override its fields.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Key width in bits (32, 64, 104, 120, 128).
    #[arg(long)]
    pub key_bits: Option<usize>,
    /// Banks n (1-4).
    #[arg(long)]
    pub banks: Option<usize>,
    /// Rows per bank m (64-2048, power of two).
    #[arg(long)]
    pub rows: Option<usize>,
    /// Per-bank thresholds k_j (p_j = 2^-k_j), comma-separated, e.g. 3,7.
    #[arg(long, value_delimiter = ',')]
    pub bank_prob_log2: Option<Vec<u32>>,
    /// Seed of the cores' hash matrices (same at both ends).
    #[arg(long)]
    pub hash_seed: Option<u64>,
    /// The traffic.
    #[command(flatten)]
    pub traffic: TrafficArgs,
    /// golden | rtl | both.
    #[arg(long, default_value = "golden")]
    pub engine: String,
    /// Write sender.json and receiver.json synopses into this folder.
    #[arg(long)]
    pub save_synopses: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
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
    /// Take keys and send times from this pcap instead (IPv4 5-tuple + IP ID).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Delay distribution, µs: weibull:SCALE:SHAPE, pareto:SCALE:SHAPE or const:DELAY.
    #[arg(long, default_value = "weibull:0.133:0.6")]
    pub delay: String,
    /// Random loss rate in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    pub loss: f64,
    /// uniform | bursty (exponential episodes of about 100 packets, §IV-C).
    #[arg(long, default_value = "uniform")]
    pub loss_model: String,
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
            loss_model: self.loss_model.parse::<LossModel>()?,
            seed: self.seed,
        })
    }

    /// The source as the reports name it: the capture's path or `synthetic`.
    pub fn source_name(&self) -> String {
        self.pcap.as_ref().map_or_else(|| "synthetic".into(), |p| p.display().to_string())
    }
}

/// Which models run the interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The golden transaction model.
    Golden,
    /// Two Verilated cores.
    Rtl,
    /// Both, with the synopses compared bit for bit.
    Both,
}

impl Engine {
    /// `golden`, `rtl` or `both`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "golden" => Ok(Engine::Golden),
            "rtl" => Ok(Engine::Rtl),
            "both" => Ok(Engine::Both),
            _ => Err(format!("--engine `{s}`: expected golden, rtl or both")),
        }
    }
}

impl RunLda {
    /// The cores' config: file or default, then the flags.
    pub fn lda_config(&self) -> Result<LdaConfig, String> {
        let mut c = match &self.config {
            Some(p) => load_config::<LdaConfig>(p).map_err(|e| e.to_string())?,
            None => LdaConfig::default(),
        };
        if let Some(v) = self.key_bits {
            c.key_bits = v;
        }
        if let Some(v) = self.banks {
            c.banks = v;
            if self.bank_prob_log2.is_none() && c.bank_prob_log2.len() != v {
                return Err(format!("--banks {v} needs --bank-prob-log2 with {v} thresholds"));
            }
        }
        if let Some(v) = self.rows {
            c.rows = v;
        }
        if let Some(v) = &self.bank_prob_log2 {
            c.bank_prob_log2 = v.clone();
        }
        if let Some(v) = self.hash_seed {
            c.seed = v;
        }
        c.validate().map_err(|e| e.to_string())?;
        Ok(c)
    }

    /// The traffic: synthetic (5 M packets by default, §IV) or from the capture.
    pub fn traffic(&self) -> Result<TrafficSpec, String> {
        self.traffic.spec(5_000_000)
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

/// Runs one interval on `engine` (see [`run_engines`]).
pub fn run_pair(cfg: &LdaConfig, trace: &Trace, engine: Engine) -> Result<(LdaPair, Option<bool>, Value), String> {
    run_engines(
        engine,
        trace.packets.len() as f64,
        || golden_pair(cfg, trace),
        || rtl_pair(cfg, trace).map(|(p, c)| (p, cycles_json(&c))),
        first_difference,
    )
}

/// Where the golden pair `g` and the RTL pair `r` first differ, if they do.
fn first_difference(g: &LdaPair, r: &LdaPair) -> Option<String> {
    for (end, a, b) in [("sender", &g.sender, &r.sender), ("receiver", &g.receiver, &r.receiver)] {
        if let Some(i) = (0..a.rows.len()).find(|&i| a.rows.get(i) != b.rows.get(i)) {
            return Some(format!("{end} row {i}: golden {:?}, RTL {:?}", a.rows[i], b.rows.get(i)));
        }
        if a != b {
            return Some(format!(
                "{end} counters: golden seq {} packets {} sampled {} overflow {}, RTL seq {} packets {} sampled {} overflow {}",
                a.seq, a.packets, a.sampled, a.overflow, b.seq, b.packets, b.sampled, b.overflow
            ));
        }
    }
    None
}

/// Writes `text` to `dir/name` through a temporary file, so a failed run
/// never leaves a partial file behind.
pub fn write_atomic(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn write_synopses(dir: &Path, pair: &LdaPair) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, s) in [("sender.json", &pair.sender), ("receiver.json", &pair.receiver)] {
        write_atomic(dir, name, &serde_json::to_string(s).map_err(|e| e.to_string())?)?;
    }
    Ok(())
}

fn print_outcome(o: &LdaOutcome) {
    let e = &o.estimates;
    let t = &o.truth;
    println!(
        "packets        sent {}  received {}  loss {:.4} % (true {:.4} %)",
        e.sent,
        e.received,
        100.0 * e.loss,
        100.0 * t.loss
    );
    println!("usable rows    {}  effective samples S = {}", e.usable_rows, e.samples);
    println!(
        "mean delay     {:.3} ns  (true {:.3} ns, rel. error {:.3} %, 98 % Hoeffding ±{:.3} ns)",
        e.mean,
        t.mean,
        100.0 * o.rel_error.mean,
        e.mean_bound_98
    );
    println!("std-dev        {:.3} ns  (true {:.3} ns, rel. error {:.3} %)", e.std, t.std, 100.0 * o.rel_error.std);
}

/// `netmeas run lda`.
pub fn run(a: &RunLda) -> Result<(), String> {
    let progress = crate::progress::Progress::spinner("run lda", a.json);
    let engine = Engine::parse(&a.engine)?;
    let cfg = a.lda_config()?;
    let spec = a.traffic()?;
    if engine != Engine::Golden {
        // Refuse before the trace is built when no Verilated core fits.
        check_rtl_config(&cfg)?;
    }
    let trace = Trace::build(&spec)?;
    let (pair, matched, timing) = run_pair(&cfg, &trace, engine)?;
    let o = outcome(&pair, trace.truth()).map_err(|e| e.to_string())?;
    if let Some(dir) = &a.save_synopses {
        write_synopses(dir, &pair)?;
    }
    let source = a.traffic.source_name();
    drop(progress);
    if a.json {
        crate::output::print_json(json!({
                "core": "lda", "engine": a.engine, "config": cfg, "units": "ns",
                "traffic": { "source": source, "packets": trace.packets.len(), "delay": spec.delay.to_string(),
                             "loss_rate": spec.loss_rate, "loss_model": a.traffic.loss_model, "seed": spec.seed },
                "synopsis_match": matched, "estimates": o.estimates, "truth": o.truth, "rel_error": o.rel_error,
                "timing": timing,
            }))?;
    } else {
        println!(
            "LDA {} x {} rows, thresholds {:?}, {}-bit key; {} packets ({source}), delay {}, loss {} {}; engine {}",
            cfg.banks,
            cfg.rows,
            cfg.bank_prob_log2,
            cfg.key_bits,
            trace.packets.len(),
            spec.delay,
            spec.loss_rate,
            a.traffic.loss_model,
            a.engine
        );
        print_outcome(&o);
        if matched == Some(true) {
            println!("synopses       golden and RTL bit-identical");
        }
        for (k, v) in timing.as_object().into_iter().flatten() {
            println!(
                "{k:<14} {:.3e} packets/s ({:.2} s)",
                v["packets_per_s"].as_f64().unwrap_or(0.0),
                v["seconds"].as_f64().unwrap_or(0.0)
            );
        }
    }
    Ok(())
}

fn load_synopsis(p: &Path) -> Result<LdaSynopsis, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    let s: LdaSynopsis =
        serde_json::from_str(&text).map_err(|e| format!("{}: not an LDA synopsis: {e}", p.display()))?;
    s.config.validate().map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(s)
}

/// `netmeas estimate lda SENDER RECEIVER`: the §III-D/E estimates of a saved pair.
pub fn estimate_files(sender: &Path, receiver: &Path, as_json: bool) -> Result<(), String> {
    let (a, b) = (load_synopsis(sender)?, load_synopsis(receiver)?);
    let e = estimate(&a, &b).map_err(|e| e.to_string())?;
    if as_json {
        crate::output::print_json(json!({ "core": "lda", "units": "ns", "estimates": e }))?;
    } else {
        println!("packets        sent {}  received {}  loss {:.4} %", e.sent, e.received, 100.0 * e.loss);
        println!("usable rows    {}  effective samples S = {}", e.usable_rows, e.samples);
        println!("mean delay     {:.3} ns  (98 % Hoeffding ±{:.3} ns)", e.mean, e.mean_bound_98);
        println!("std-dev        {:.3} ns", e.std);
    }
    Ok(())
}
