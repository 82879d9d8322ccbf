//! `netmeas run fridge`: the fridge core (Zheng, Chen, Braverman, Rexford) on a
//! request/response stream — the §5 synthetic trace or the TCP handshakes and
//! DNS exchanges of a capture — with the exact host correction (§3.2), the
//! multi-fridge combination (§4.2), the in-fabric histograms (§6.2), the §2.1
//! simple algorithm as a baseline on the same stream and memory, and the §5
//! error metrics against the ground truth.

use crate::args::{Engine, TrafficSource, parse_duration_ns, run_engines};
use crate::plot::fmt_ns;
use clap::Args;
use netmeas_sim::error::load_config;
use netmeas_sim::fridge::{
    Cdf, FridgeConfig, FridgeRun, FridgeTrace, Percentiles, Scored, SyntheticSpec, pcap_pairs, run_golden, run_simple,
    score_histograms, score_samples, tune_prob_log2,
};
use netmeas_sim::traffic::CaptureReader;
use netmeas_testbench::fridge::{check_rtl_config, rtl_fridge_run};
use serde_json::{Value, json};
use std::path::PathBuf;

/// Flags of `netmeas run fridge`.
#[derive(Args, Clone, Debug)]
pub struct RunFridge {
    /// Base config file (TOML or JSON); the flags below override its fields.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Number of fridges N (1-4); each gets --entries entries.
    #[arg(long)]
    pub fridges: Option<usize>,
    /// Entries M_k of every fridge (a power of two), or one value per fridge separated by commas.
    #[arg(long)]
    pub entries: Option<String>,
    /// log2 p_k per fridge, separated by commas, or `auto` (§5.2: fridge k's lifetime M/p aims at
    /// --max-delay / 8^k at the trace's request rate). Default: the config file's, else `auto`.
    #[arg(long, allow_hyphen_values = true)]
    pub entry_prob_log2: Option<String>,
    /// BIN_SHIFT: histogram bin 0 holds delays below 2^BIN_SHIFT ns.
    #[arg(long)]
    pub bin_shift: Option<u32>,
    /// Seed of the index hash and the PRNGs.
    #[arg(long)]
    pub hash_seed: Option<u64>,
    /// Requests of the synthetic trace (§5: 1.25 M → 0.5 M samples).
    #[arg(long, default_value_t = 1_250_000)]
    pub requests: u64,
    /// Largest delay T of the synthetic trace (log-uniform in [--min-delay, T)) and of interest for `auto` p.
    #[arg(long, default_value = "4096ms")]
    pub max_delay: String,
    /// Smallest delay of the synthetic trace.
    #[arg(long, default_value = "1us")]
    pub min_delay: String,
    /// Request rate of the synthetic trace, per second (Poisson).
    #[arg(long, default_value_t = 1e6)]
    pub rate: f64,
    /// Fraction of requests answered (§5: 0.4).
    #[arg(long, default_value_t = 0.4)]
    pub answered: f64,
    /// Seed of the synthetic trace.
    #[arg(long, default_value_t = 1)]
    pub trace_seed: u64,
    /// Take the requests and responses from this capture (TCP SYN → SYN-ACK, DNS query → response).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Engine: golden (the bit-exact model of the core), rtl (the Verilated core at one packet
    /// per clock, registers written at run time) or both (samples and histograms compared bit for bit).
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Also run `simple`: the §2.1 algorithm with 1 and 4 stages on the same stream and entries.
    #[arg(long, value_parser = ["simple"])]
    pub baseline: Option<String>,
    /// Expiry threshold of the simple algorithm, ns (0: always overwrite, §2.1). Default: the true
    /// 99th-percentile delay, the setting [6] recommends (an oracle choice in its favour).
    #[arg(long)]
    pub baseline_expiry_ns: Option<u64>,
    /// Write the true and estimated CDFs as an SVG.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Write the histograms of each epoch of --epoch (what a fridge point
    /// reports, and `netmeas station ingest` takes) into this folder as
    /// epoch-<n>.json, from the golden model (bit-exact with the core).
    #[arg(long, requires = "epoch")]
    pub save_epochs: Option<PathBuf>,
    /// Epoch length for --save-epochs: the histograms flip at every multiple of it (e.g. 100ms).
    #[arg(long, requires = "save_epochs")]
    pub epoch: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl RunFridge {
    /// Whether p is tuned to the trace (`--entry-prob-log2 auto`, or neither the flag nor a config file).
    fn tunes_probs(&self) -> bool {
        match &self.entry_prob_log2 {
            Some(s) => s == "auto",
            None => self.config.is_none(),
        }
    }

    /// The core's config before `auto` p: file or default, then the flags.
    fn base_config(&self) -> Result<FridgeConfig, String> {
        let mut c = match &self.config {
            Some(p) => load_config::<FridgeConfig>(p).map_err(|e| e.to_string())?,
            None => FridgeConfig::default(),
        };
        if let Some(list) = &self.entries {
            let v: Vec<usize> = list
                .split(',')
                .map(|x| x.trim().parse::<usize>().map_err(|_| format!("--entries: `{x}` is not a count")))
                .collect::<Result<_, _>>()?;
            c.entries = v;
        }
        if let Some(n) = self.fridges {
            if !(1..=4).contains(&n) {
                return Err(format!("--fridges {n}: the core has 1 to 4 fridges"));
            }
            match c.entries.len() {
                l if l == n => {}
                1 => c.entries = vec![c.entries[0]; n],
                l if self.entries.is_some() => {
                    return Err(format!("--entries lists {l} fridges but --fridges is {n}"));
                }
                _ => c.entries = vec![c.entries[0]; n],
            }
        }
        if let Some(list) = self.entry_prob_log2.as_deref().filter(|_| !self.tunes_probs()) {
            c.entry_prob_log2 = list
                .split(',')
                .map(|x| x.trim().parse::<f64>().map_err(|_| format!("--entry-prob-log2: `{x}` is not a number")))
                .collect::<Result<_, _>>()?;
        } else if self.tunes_probs() {
            c.entry_prob_log2 = vec![0.0; c.entries.len()];
        }
        c.bin_shift = self.bin_shift.unwrap_or(c.bin_shift);
        c.seed = self.hash_seed.unwrap_or(c.seed);
        c.validate().map_err(|e| e.to_string())?;
        Ok(c)
    }

    /// The stream: the capture or the synthetic trace.
    fn trace(&self) -> Result<(FridgeTrace, TrafficSource), String> {
        match &self.pcap {
            Some(p) => {
                let t = pcap_pairs(CaptureReader::open(p)?).map_err(|e| format!("{}: {e}", p.display()))?;
                let source = TrafficSource::capture(p, t.capture.clone().unwrap_or_default());
                Ok((t, source))
            }
            None => {
                let spec = SyntheticSpec {
                    requests: self.requests,
                    rate_per_s: self.rate,
                    answered: self.answered,
                    min_delay_ns: parse_duration_ns(&self.min_delay)?,
                    max_delay_ns: parse_duration_ns(&self.max_delay)?,
                    seed: self.trace_seed,
                };
                Ok((spec.build()?, TrafficSource::synthetic()))
            }
        }
    }
}

/// §5.2's tuning for every fridge: fridge k's lifetime aims at `max_delay_ns` / 8^k.
pub fn auto_probs(cfg: &FridgeConfig, trace: &FridgeTrace, max_delay_ns: f64) -> Vec<f64> {
    // Request rate over the span of the requests (responses trail them by up to a delay).
    let mut req = trace.packets.iter().filter(|p| !p.response).map(|p| p.ts);
    let first = req.next().unwrap_or(0);
    let last = req.next_back().unwrap_or(first);
    let per_fridge_rate = trace.requests() as f64 / (last - first).max(1) as f64 / cfg.fridges() as f64;
    (0..cfg.fridges())
        .map(|k| {
            let v = tune_prob_log2(cfg.entries[k], per_fridge_rate, max_delay_ns / 8f64.powi(k as i32));
            (v * 100.0).round().clamp(-2400.0, 0.0) / 100.0
        })
        .collect()
}

fn scored_json(s: &Option<Scored>) -> Value {
    match s {
        Some(s) => {
            json!({ "samples": s.samples, "estimates": s.estimates, "errors": s.errors, "max_cdf_gap": s.max_cdf_gap })
        }
        None => json!({ "samples": 0, "estimates": null, "errors": null, "max_cdf_gap": null }),
    }
}

fn print_scored(name: &str, s: &Option<Scored>) {
    match s {
        Some(s) => println!(
            "{name:<18} p50 {:>11} ({:.3})  p95 {:>11} ({:.3})  p99 {:>11} ({:.3})  max gap {:.3}  [{} samples]",
            fmt_ns(s.estimates.p50),
            s.errors.p50,
            fmt_ns(s.estimates.p95),
            s.errors.p95,
            fmt_ns(s.estimates.p99),
            s.errors.p99,
            s.max_cdf_gap,
            s.samples
        ),
        None => println!("{name:<18} no samples"),
    }
}

/// The figure of CDFs on a log delay axis: (label, colour, dashed, cdf).
pub fn cdf_svg(title: &str, curves: &[(&str, plotters::style::RGBColor, bool, &Cdf)]) -> Result<String, String> {
    let series: Vec<crate::plot::Series> = curves
        .iter()
        .map(|&(label, colour, dashed, cdf)| crate::plot::Series {
            label: label.to_string(),
            colour,
            dashed,
            points: (0..=1000).map(|i| i as f64 / 1000.0).map(|y| (cdf.quantile(y), y)).collect(),
        })
        .collect();
    crate::plot::cdf_chart(title, &series)
}

/// Runs `trace` on `engine` (see [`run_engines`]): the golden model, the
/// Verilated core, or both with their samples, histograms and counters compared.
pub fn run_fridge(
    cfg: &FridgeConfig,
    trace: &FridgeTrace,
    engine: Engine,
) -> Result<(FridgeRun, Option<bool>, Value), String> {
    run_engines(
        engine,
        trace.packets.len() as f64,
        || run_golden(cfg, &trace.packets),
        || rtl_fridge_run(cfg, &trace.packets).map(|(r, cycles)| (r, json!({ "cycles": cycles }))),
        first_difference,
    )
}

/// Where the golden run `g` and the RTL run `r` first differ, if they do.
fn first_difference(g: &FridgeRun, r: &FridgeRun) -> Option<String> {
    if let Some(i) = (0..g.samples.len().max(r.samples.len())).find(|&i| g.samples.get(i) != r.samples.get(i)) {
        return Some(format!("sample {i}: golden {:?}, RTL {:?}", g.samples.get(i), r.samples.get(i)));
    }
    if let Some(b) = (0..g.histograms.len()).find(|&b| g.histograms[b] != r.histograms[b]) {
        return Some(format!(
            "fridge {} bin {}: golden {:?}, RTL {:?}",
            b / 32,
            b % 32,
            g.histograms[b],
            r.histograms[b]
        ));
    }
    (g != r).then(|| {
        format!(
            "counters: saturated {} vs {}, overflow {} vs {}, insertions {:?} vs {:?}",
            g.saturated, r.saturated, g.hist_overflow, r.hist_overflow, g.insertions, r.insertions
        )
    })
}

/// `netmeas run fridge`.
pub fn run(a: &RunFridge) -> Result<(), String> {
    let epoch_ns = match (&a.epoch, &a.save_epochs) {
        (Some(t), Some(_)) if a.engine != Engine::Golden => {
            return Err(format!("--save-epochs flips the golden model's histograms every {t}: drop --engine"));
        }
        (Some(t), Some(_)) => match parse_duration_ns(t)? {
            ns if ns >= 1.0 => Some(ns as u64),
            _ => return Err(format!("--epoch {t}: an epoch lasts at least 1 ns")),
        },
        _ => None,
    };
    let progress = crate::progress::Progress::spinner("run fridge", a.json);
    let mut cfg = a.base_config()?;
    let max_delay = parse_duration_ns(&a.max_delay)?;
    a.plot.as_deref().map(crate::plot::check_path).transpose()?;
    let (trace, source) = a.trace()?;
    if trace.truth.is_empty() {
        return Err(format!("{}: no request/response pair in the stream, nothing to measure", source.name));
    }
    if a.tunes_probs() {
        cfg.entry_prob_log2 = auto_probs(&cfg, &trace, max_delay);
        cfg.validate().map_err(|e| e.to_string())?;
    }
    let engine = a.engine;
    if engine != Engine::Golden {
        check_rtl_config(&cfg)?;
    }
    let truth = Cdf::from_delays(&trace.truth).expect("pairs exist");
    let (run, synopsis_match, timing) = run_fridge(&cfg, &trace, engine)?;
    if let (Some(dir), Some(ns)) = (&a.save_epochs, epoch_ns) {
        let epochs = netmeas_sim::fridge::golden_epochs(&cfg, &trace.packets, ns);
        crate::output::write_numbered(dir, "epoch", epochs.into_iter().map(|s| (s.epoch, s)))?;
    }
    let fridge = score_samples(&cfg, &run.samples, &truth);
    let hist = score_histograms(&cfg, &run.histograms, cfg.bin_shift, &truth);
    let truth_p = Percentiles::of(&truth);
    let expiry = a.baseline_expiry_ns.unwrap_or(truth_p.p99.round() as u64);
    let baselines: Vec<(String, Option<Scored>)> = match a.baseline {
        Some(_) => [1usize, 4]
            .iter()
            .map(|&d| {
                let s = run_simple(&trace.packets, cfg.total_entries(), d, expiry, cfg.seed);
                (format!("simple_{d}stage"), Scored::new(Cdf::from_delays(&s), s.len(), &truth))
            })
            .collect(),
        None => Vec::new(),
    };
    if let Some(p) = &a.plot {
        use crate::plot::PALETTE;
        let grey = plotters::style::RGBColor(0x88, 0x88, 0x88);
        let mut curves: Vec<(&str, plotters::style::RGBColor, bool, &Cdf)> =
            vec![("ground truth", grey, false, &truth)];
        if let Some(s) = &fridge {
            curves.push(("fridges (samples)", PALETTE[0], false, &s.cdf));
        }
        if let Some(s) = &hist {
            curves.push(("fridges (histogram)", PALETTE[3], true, &s.cdf));
        }
        for ((name, s), colour) in baselines.iter().zip([PALETTE[1], PALETTE[2]]) {
            if let Some(s) = s {
                let label = match name.as_str() {
                    "simple_1stage" => "simple, 1 stage",
                    "simple_4stage" => "simple, 4 stages",
                    other => other,
                };
                curves.push((label, colour, false, &s.cdf));
            }
        }
        let title = format!("request/response delay CDF: {} requests", trace.requests());
        crate::plot::write(p, &cdf_svg(&title, &curves)?)?;
    }
    let responses = trace.packets.len() - trace.requests();
    drop(progress);
    if a.json {
        let base: serde_json::Map<String, Value> = baselines.iter().map(|(n, s)| (n.clone(), scored_json(s))).collect();
        let f = scored_json(&fridge);
        let (source_name, capture) = source.json_fields();
        crate::output::print_json(json!({
            "core": "fridge", "engine": a.engine, "config": cfg, "units": "ns",
            "entry_prob": (0..cfg.fridges()).map(|k| cfg.hw_prob(k)).collect::<Vec<_>>(),
            "traffic": { "source": source_name, "capture": capture, "requests": trace.requests(), "responses": responses,
                         "pairs": trace.truth.len(), "unmatched_responses": trace.unmatched_responses,
                         "repeated_requests": trace.repeated_requests, "skipped_records": trace.skipped },
            "synopsis_match": synopsis_match,
            "samples": run.samples.len(),
            "estimates": f["estimates"], "errors": f["errors"], "max_cdf_gap": f["max_cdf_gap"],
            "truth": truth_p,
            "histogram": scored_json(&hist),
            "baseline": if baselines.is_empty() { Value::Null } else { json!({ "expiry_ns": expiry, "runs": base }) },
            "counters": { "insertions": run.insertions, "factor_saturated": run.saturated, "hist_overflow": run.hist_overflow },
            "timing": timing,
        }))?;
    } else {
        println!(
            "fridges {:?} entries, p = 2^{:?}; {} requests, {} responses, {} pairs ({src}); engine {}",
            cfg.entries,
            cfg.entry_prob_log2,
            trace.requests(),
            responses,
            trace.truth.len(),
            a.engine,
            src = source.text()
        );
        if trace.unmatched_responses + trace.repeated_requests > 0 {
            println!(
                "stream           {} responses without a request, {} repeated requests",
                trace.unmatched_responses, trace.repeated_requests
            );
        }
        println!(
            "{:<18} p50 {:>11}          p95 {:>11}          p99 {:>11}          (log2 errors in brackets)",
            "truth",
            fmt_ns(truth_p.p50),
            fmt_ns(truth_p.p95),
            fmt_ns(truth_p.p99)
        );
        print_scored("fridges", &fridge);
        print_scored("fridge histogram", &hist);
        for (n, s) in &baselines {
            print_scored(n, s);
        }
        if run.saturated > 0 || run.hist_overflow {
            println!(
                "counters         {} samples saturated the in-fabric factor, histogram overflow {}",
                run.saturated, run.hist_overflow
            );
        }
        if synopsis_match == Some(true) {
            println!("synopsis         golden and RTL samples and histograms identical");
        }
        for (name, t) in timing.as_object().expect("a map") {
            println!(
                "{name:<16} {:.3e} packets/s ({:.2} s)",
                t["packets_per_s"].as_f64().unwrap_or(0.0),
                t["seconds"].as_f64().unwrap_or(0.0)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration_ns("64ms").unwrap(), 64e6);
        assert_eq!(parse_duration_ns("4.096s").unwrap(), 4.096e9);
        assert_eq!(parse_duration_ns("500us").unwrap(), 5e5);
        assert_eq!(parse_duration_ns("1000").unwrap(), 1000.0);
        for bad in ["", "ms", "-3ms", "1e400s", "fast"] {
            assert!(parse_duration_ns(bad).is_err(), "{bad}");
        }
    }
}
