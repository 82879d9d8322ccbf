//! `netmeas run lda` and `netmeas estimate lda`: one measurement interval of a
//! sender/receiver pair of LDA cores (Kompella et al. §III-D/E, §IV set-up) on
//! the golden model, on two Verilated cores, or on both with a bit-exactness
//! check; and the host estimators on saved synopses.

use crate::args::{Engine, TrafficArgs, cycles_json, run_engines};
use crate::output::write_set;
use clap::Args;
use netmeas_sim::error::load_config;
use netmeas_sim::lda::{
    LdaConfig, LdaOutcome, LdaPair, LdaSynopsis, check_delay_range, estimate, golden_pair, outcome,
};
use netmeas_sim::traffic::{Trace, TrafficSpec};
use netmeas_testbench::lda_stream::{check_rtl_config, rtl_pair};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

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
    /// Which models run: golden, rtl (two Verilated cores) or both (synopses compared bit for bit).
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Write sender.json and receiver.json synopses into this folder.
    #[arg(long)]
    pub save_synopses: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
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

/// Writes `sender.json` and `receiver.json` as one set, each marked with its
/// end (`"end": "sender"`), so that a swapped pair is refused by name.
fn write_synopses(dir: &Path, pair: &LdaPair) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut set = Vec::new();
    for (end, s) in [("sender", &pair.sender), ("receiver", &pair.receiver)] {
        let mut v = serde_json::to_value(s).map_err(|e| e.to_string())?;
        v.as_object_mut().expect("a synopsis is an object").insert("end".into(), end.into());
        set.push((dir.join(format!("{end}.json")), v.to_string()));
    }
    write_set(&set)
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
    let engine = a.engine;
    let cfg = a.lda_config()?;
    let spec = a.traffic()?;
    if engine != Engine::Golden {
        // Refuse before the trace is built when no Verilated core fits.
        check_rtl_config(&cfg)?;
    }
    let trace = Trace::build(&spec)?;
    check_delay_range(&trace)?;
    let (pair, matched, timing) = run_pair(&cfg, &trace, engine)?;
    let o = outcome(&pair, trace.truth()).map_err(|e| e.to_string())?;
    if let Some(dir) = &a.save_synopses {
        write_synopses(dir, &pair)?;
    }
    let source = a.traffic.source(&spec);
    drop(progress);
    if a.json {
        let (source_name, capture) = source.json_fields();
        crate::output::print_json(json!({
            "core": "lda", "engine": a.engine, "config": cfg, "units": "ns",
            "traffic": { "source": source_name, "capture": capture, "packets": trace.packets.len(), "delay": spec.delay.to_string(),
                         "loss_rate": spec.loss_rate, "loss_model": a.traffic.loss_model, "seed": spec.seed },
            "synopsis_match": matched, "estimates": o.estimates, "truth": o.truth, "rel_error": o.rel_error,
            "timing": timing,
        }))?;
    } else {
        println!(
            "LDA {} x {} rows, thresholds {:?}, {}-bit key; {} packets ({src}), delay {}, loss {} {}; engine {}",
            cfg.banks,
            cfg.rows,
            cfg.bank_prob_log2,
            cfg.key_bits,
            trace.packets.len(),
            spec.delay,
            spec.loss_rate,
            a.traffic.loss_model,
            a.engine,
            src = source.text()
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

/// Reads a synopsis saved as the `end` ("sender" or "receiver") of the pair;
/// one marked as the other end is refused (a file without the mark, as the
/// board reader's, is taken as given).
fn load_synopsis(p: &Path, end: &str) -> Result<LdaSynopsis, String> {
    let text = netmeas_sim::files::read_input_text(p)?;
    let not = |e: &dyn std::fmt::Display| format!("{}: not an LDA synopsis: {e}", p.display());
    let mut v: Value = serde_json::from_str(&text).map_err(|e| not(&e))?;
    match v.as_object_mut().and_then(|o| o.remove("end")) {
        None => {}
        Some(Value::String(e)) if e == end => {}
        Some(e) => return Err(format!("{}: the {e} end's synopsis, given as the {end}'s (swapped?)", p.display())),
    }
    let s: LdaSynopsis = serde_json::from_value(v).map_err(|e| not(&e))?;
    s.config.validate().map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(s)
}

/// `netmeas estimate lda SENDER RECEIVER`: the §III-D/E estimates of a saved pair.
pub fn estimate_files(sender: &Path, receiver: &Path, as_json: bool) -> Result<(), String> {
    let (a, b) = (load_synopsis(sender, "sender")?, load_synopsis(receiver, "receiver")?);
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
