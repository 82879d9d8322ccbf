//! `netmeas run rda` and `netmeas estimate rda`: one measurement interval of a
//! sender/receiver pair of RDA cores (Fu, Barlet-Ros, Li, ToN 2018, §VII-A
//! set-up: random loss, reordering at the interval edges) on the golden model,
//! on two Verilated cores, or on both with a bit-exactness check; the host's
//! peeling decode, repair and estimates (§V-B/C); optionally the LDA of about
//! the same memory on the same streams.

use crate::args::{Engine, TrafficArgs, cycles_json, run_engines};
use crate::output::write_set;
use clap::Args;
use netmeas_sim::error::load_config;
use netmeas_sim::lda::{
    LDA_COUNT_BITS, LDA_TS_BITS, LdaConfig, LdaEstimate, RelError, estimate as lda_estimate, golden_synopsis,
    tuned_prob_log2,
};
use netmeas_sim::rda::{
    IntervalTrace, RDA_COUNT_BITS, RDA_ID_BITS, RdaConfig, RdaHashes, RdaOutcome, RdaPair, RdaSynopsis, RdaTrafficSpec,
    RdaTruth, golden_pair, outcome, reconcile,
};
use netmeas_testbench::rda_stream::{check_rtl_config, rtl_pair};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Flags of `netmeas run rda`.
#[derive(Args, Clone, Debug)]
pub struct RunRda {
    /// Base config file (TOML or JSON); the flags below override its fields.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Banks k, one hash each (1-4).
    #[arg(long)]
    pub banks: Option<usize>,
    /// Buckets per bank m (2-65535; §VI: m = 2d decodes d differences w.h.p.).
    #[arg(long)]
    pub buckets: Option<usize>,
    /// Timestamp-sum width (32, 40, 48, 64).
    #[arg(long)]
    pub tsum_bits: Option<usize>,
    /// Coordinated sampling: measure packets whose sampling hash has this many leading zeros (0 = all).
    #[arg(long)]
    pub sample_prob_log2: Option<u32>,
    /// Seed of the cores' hash matrices (same at both ends).
    #[arg(long)]
    pub hash_seed: Option<u64>,
    /// GUARD: ticks after the interval's end before an idle core closes it.
    #[arg(long)]
    pub guard: Option<u64>,
    /// The traffic.
    #[command(flatten)]
    pub traffic: TrafficArgs,
    /// Fraction of the packets that straddle an interval edge (half at each), in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    pub reorder: f64,
    /// Straddling packets are sent within this many ns before the edge and arrive within as many after it.
    #[arg(long, default_value_t = 10_000)]
    pub reorder_window_ns: u64,
    /// Which models run: golden, rtl (two Verilated cores) or both (synopses compared bit for bit).
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Do not repair with the per-packet timestamps: exclude every bucket that held a decoded packet.
    #[arg(long)]
    pub no_repair: bool,
    /// Also run this core on the same streams with about the same memory (only `lda`).
    #[arg(long)]
    pub compare: Option<String>,
    /// Write sender.json, receiver.json and decoded.json (the ID lists) into this folder.
    #[arg(long)]
    pub save_synopses: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl RunRda {
    /// The cores' config: file or default, then the flags.
    pub fn rda_config(&self) -> Result<RdaConfig, String> {
        let mut c = match &self.config {
            Some(p) => load_config::<RdaConfig>(p).map_err(|e| e.to_string())?,
            None => RdaConfig::default(),
        };
        c.banks = self.banks.unwrap_or(c.banks);
        c.buckets = self.buckets.unwrap_or(c.buckets);
        c.tsum_bits = self.tsum_bits.unwrap_or(c.tsum_bits);
        c.sample_prob_log2 = self.sample_prob_log2.unwrap_or(c.sample_prob_log2);
        c.seed = self.hash_seed.unwrap_or(c.seed);
        c.guard_ticks = self.guard.unwrap_or(c.guard_ticks);
        c.validate().map_err(|e| e.to_string())?;
        Ok(c)
    }

    /// The traffic: synthetic (1 M packets by default) or from the capture, with the reordering model.
    pub fn traffic(&self) -> Result<RdaTrafficSpec, String> {
        Ok(RdaTrafficSpec {
            base: self.traffic.spec(1_000_000)?,
            reorder_rate: self.reorder,
            window_ns: self.reorder_window_ns,
        })
    }
}

/// Runs interval 0 of `iv` on `engine` (see [`run_engines`]).
pub fn run_pair(cfg: &RdaConfig, iv: &IntervalTrace, engine: Engine) -> Result<(RdaPair, Option<bool>, Value), String> {
    run_engines(
        engine,
        (iv.sender.len() + iv.receiver.len()) as f64 / 2.0,
        || golden_pair(cfg, iv),
        || rtl_pair(cfg, iv).map(|(p, c)| (p, cycles_json(&c))),
        first_difference,
    )
}

/// Where the golden pair `g` and the RTL pair `r` first differ, if they do.
fn first_difference(g: &RdaPair, r: &RdaPair) -> Option<String> {
    for (end, a, b) in [("sender", &g.sender, &r.sender), ("receiver", &g.receiver, &r.receiver)] {
        let m = a.config.buckets;
        if let Some(i) = (0..a.buckets.len()).find(|&i| a.buckets.get(i) != b.buckets.get(i)) {
            return Some(format!(
                "{end} bank {} bucket {}: golden {:?}, RTL {:?}",
                i / m,
                i % m,
                a.buckets[i],
                b.buckets.get(i)
            ));
        }
        if a != b {
            return Some(format!(
                "{end} counters: golden interval {} packets {} sampled {} overflow {}, RTL interval {} packets {} sampled {} overflow {}",
                a.interval, a.packets, a.sampled, a.overflow, b.interval, b.packets, b.sampled, b.overflow
            ));
        }
    }
    None
}

/// Bits of an RDA's bucket memory.
pub fn rda_memory_bits(cfg: &RdaConfig) -> usize {
    cfg.banks * cfg.buckets * (RDA_ID_BITS as usize + cfg.tsum_bits + RDA_COUNT_BITS as usize)
}

/// The LDA to compare with: the largest geometry the LDA core builds whose
/// counter memory does not exceed the RDA's, its banks tuned by the §III-D
/// rule (p = m / 2(L + 1)) for L = d/4, d, 4d, 16d problematic packets
/// (`d` the true set difference: an oracle tuning that favours the LDA).
pub fn lda_same_memory(rda: &RdaConfig, d: usize) -> Result<LdaConfig, String> {
    let bits = rda_memory_bits(rda);
    let row_bits = (LDA_COUNT_BITS + LDA_TS_BITS) as usize;
    let (banks, rows) = netmeas_sim::lda::LDA_BANKS
        .iter()
        .flat_map(|&b| netmeas_sim::lda::LDA_ROWS.iter().map(move |&r| (b, r)))
        .filter(|&(b, r)| b * r * row_bits <= bits)
        .max_by_key(|&(b, r)| (b * r, std::cmp::Reverse(b)))
        .ok_or_else(|| format!("no LDA fits in the RDA's {bits} bits"))?;
    let d = d as f64;
    let mut k: Vec<u32> = [0.25, 1.0, 4.0, 16.0].iter().take(banks).map(|f| tuned_prob_log2(rows, f * d)).collect();
    k.sort_unstable();
    let cfg = LdaConfig { key_bits: 64, banks, rows, bank_prob_log2: k, ..Default::default() };
    cfg.validate().map_err(|e| e.to_string())?;
    Ok(cfg)
}

/// The LDA comparison on the streams of `iv` (IDs as 64-bit keys).
/// The LDA of about the same memory ([`lda_same_memory`]) on the streams of
/// `iv` (IDs as 64-bit keys): its config, estimates and relative errors
/// against the RDA run's truth.
pub fn lda_on_same_streams(
    rda: &RdaConfig,
    iv: &IntervalTrace,
    truth: &RdaTruth,
) -> Result<(LdaConfig, LdaEstimate, RelError), String> {
    let cfg = lda_same_memory(rda, truth.set_difference)?;
    let s = golden_synopsis(&cfg, iv.sender_in_interval().map(|(id, t)| (id as u128, t)));
    let r = golden_synopsis(&cfg, iv.receiver_in_interval().map(|(id, t)| (id as u128, t)));
    let e = lda_estimate(&s, &r).map_err(|e| e.to_string())?;
    let rel = netmeas_sim::stats::rel_error;
    let err = RelError { mean: rel(e.mean, truth.mean), std: rel(e.std, truth.std) };
    Ok((cfg, e, err))
}

/// The `compare.lda` report of a run.
fn compare_lda(rda: &RdaConfig, iv: &IntervalTrace, o: &RdaOutcome) -> Result<Value, String> {
    let (cfg, e, err) = lda_on_same_streams(rda, iv, &o.truth)?;
    Ok(json!({
        "config": cfg, "memory_bits": cfg.banks * cfg.rows * (LDA_COUNT_BITS + LDA_TS_BITS) as usize,
        "estimates": e, "rel_error": err,
    }))
}

fn write_outputs(dir: &Path, pair: &RdaPair, o: &RdaOutcome) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let ids = json!({ "lost": o.estimates.decode.lost, "reordered": o.estimates.decode.reordered,
                      "complete": o.estimates.decode.complete });
    let mut set = Vec::new();
    for (name, text) in [
        ("sender.json", serde_json::to_string(&pair.sender)),
        ("receiver.json", serde_json::to_string(&pair.receiver)),
        ("decoded.json", serde_json::to_string(&ids)),
    ] {
        set.push((dir.join(name), text.map_err(|e| e.to_string())?));
    }
    write_set(&set)
}

/// The estimates without the ID lists (they go to `decoded.json`).
fn estimates_json(o: &RdaOutcome) -> Value {
    let mut v = serde_json::to_value(&o.estimates).unwrap_or(Value::Null);
    if let Some(m) = v.as_object_mut() {
        m.remove("decode");
    }
    v
}

fn print_outcome(cfg: &RdaConfig, o: &RdaOutcome) {
    let (e, t, d) = (&o.estimates, &o.truth, &o.decode);
    println!("packets        sent {}  received {}  (interval 0)", t.sent, t.received);
    println!(
        "decode         {} of {} differences ({:.2} %): {} lost, {} reordered, {}{}",
        d.lost + d.reordered - d.wrong_ids,
        t.set_difference,
        100.0 * d.success,
        d.lost,
        d.reordered,
        if d.complete { "complete" } else { "INCOMPLETE" },
        if d.exact { ", exactly the true set difference" } else { "" }
    );
    println!(
        "repair         {:?}; usable buckets {} of {}, samples {}",
        e.repair,
        e.usable_buckets,
        cfg.banks * cfg.buckets,
        e.samples
    );
    println!("mean delay     {:.6} ns  (true {:.6} ns, rel. error {:.3e})", e.mean, t.mean, o.rel_error.mean);
    println!("std-dev        {:.3} ns  (true {:.3} ns, rel. error {:.3e})", e.std, t.std, o.rel_error.std);
}

/// `netmeas run rda`.
pub fn run(a: &RunRda) -> Result<(), String> {
    let progress = crate::progress::Progress::spinner("run rda", a.json);
    let engine = a.engine;
    let base = a.rda_config()?;
    if let Some(c) = &a.compare
        && c != "lda"
    {
        return Err(format!("--compare `{c}`: only lda"));
    }
    if engine != Engine::Golden {
        // Refuse before the trace is built when no Verilated core fits.
        check_rtl_config(&base)?;
    }
    let spec = a.traffic()?;
    let iv = IntervalTrace::build(&spec)?;
    let cfg = iv.core_config(&base);
    let (pair, matched, mut timing) = run_pair(&cfg, &iv, engine)?;
    let ts = iv.timestamps();
    let truth = iv.truth(&cfg);
    let hashes = RdaHashes::new(&cfg);
    let t = Instant::now();
    let o = outcome(&pair, &hashes, truth, if a.no_repair { None } else { Some(&ts) }).map_err(|e| e.to_string())?;
    let host_s = t.elapsed().as_secs_f64();
    timing["host_decode_estimate"] = json!({ "seconds": host_s });
    let lda = match a.compare.as_deref() {
        Some(_) => Some(compare_lda(&cfg, &iv, &o)?),
        None => None,
    };
    if let Some(dir) = &a.save_synopses {
        write_outputs(dir, &pair, &o)?;
    }
    let source = a.traffic.source(&spec.base);
    drop(progress);
    if a.json {
        let d = &o.decode;
        let (source_name, capture) = source.json_fields();
        crate::output::print_json(json!({
            "core": "rda", "engine": a.engine, "config": cfg, "units": "ns",
            "memory_bits": rda_memory_bits(&cfg),
            "traffic": { "source": source_name, "capture": capture, "packets": iv.sender.len(), "delay": spec.base.delay.to_string(),
                         "loss_rate": spec.base.loss_rate, "loss_model": a.traffic.loss_model,
                         "reorder_rate": spec.reorder_rate, "reorder_window_ns": spec.window_ns, "seed": spec.base.seed },
            "synopsis_match": matched,
            "decode": { "success": d.success, "lost": d.lost, "reordered": d.reordered, "complete": d.complete,
                        "exact": d.exact, "wrong_ids": d.wrong_ids,
                        "residual_buckets": o.estimates.decode.residual_buckets },
            "estimates": estimates_json(&o), "truth": o.truth, "rel_error": o.rel_error,
            "compare": lda.as_ref().map(|l| json!({ "lda": l })),
            "timing": timing,
        }))?;
    } else {
        println!(
            "RDA {} x {} buckets, {}-bit sums ({} kbit); {} packets ({src}), delay {}, loss {} {}, reorder {}; interval {} ns; engine {}",
            cfg.banks,
            cfg.buckets,
            cfg.tsum_bits,
            rda_memory_bits(&cfg) / 1000,
            iv.sender.len(),
            spec.base.delay,
            spec.base.loss_rate,
            a.traffic.loss_model,
            spec.reorder_rate,
            iv.delta,
            a.engine,
            src = source.text()
        );
        print_outcome(&cfg, &o);
        if matched == Some(true) {
            println!("synopses       golden and RTL bit-identical");
        }
        if let Some(l) = &lda {
            println!(
                "LDA            {} x {} rows ({} kbit), thresholds {}: mean rel. error {:.3e}, std-dev rel. error {:.3e}, {} usable rows",
                l["config"]["banks"],
                l["config"]["rows"],
                l["memory_bits"].as_u64().unwrap_or(0) / 1000,
                l["config"]["bank_prob_log2"],
                l["rel_error"]["mean"].as_f64().unwrap_or(f64::NAN),
                l["rel_error"]["std"].as_f64().unwrap_or(f64::NAN),
                l["estimates"]["usable_rows"]
            );
        }
        for (k, v) in timing.as_object().into_iter().flatten() {
            match v.get("packets_per_s") {
                Some(p) => println!(
                    "{k:<14} {:.3e} packets/s ({:.3} s)",
                    p.as_f64().unwrap_or(0.0),
                    v["seconds"].as_f64().unwrap_or(0.0)
                ),
                None => println!("{k:<14} {:.3} ms", 1e3 * v["seconds"].as_f64().unwrap_or(0.0)),
            }
        }
    }
    Ok(())
}

fn load_synopsis(p: &Path) -> Result<RdaSynopsis, String> {
    let text = netmeas_sim::files::read_input_text(p)?;
    let s: RdaSynopsis =
        serde_json::from_str(&text).map_err(|e| format!("{}: not an RDA synopsis: {e}", p.display()))?;
    s.config.validate().map_err(|e| format!("{}: {e}", p.display()))?;
    if s.buckets.len() != s.config.banks * s.config.buckets {
        return Err(format!(
            "{}: {} buckets, the config has {} x {}",
            p.display(),
            s.buckets.len(),
            s.config.banks,
            s.config.buckets
        ));
    }
    Ok(s)
}

/// `netmeas estimate rda SENDER RECEIVER`: decode and estimates of a saved
/// pair (without per-packet timestamps: buckets of decoded packets are excluded).
pub fn estimate_files(sender: &Path, receiver: &Path, as_json: bool) -> Result<(), String> {
    let (a, b) = (load_synopsis(sender)?, load_synopsis(receiver)?);
    let e = reconcile(&a, &b, &RdaHashes::new(&a.config), None).map_err(|e| e.to_string())?;
    if as_json {
        crate::output::print_json(json!({ "core": "rda", "units": "ticks", "estimates": e }))?;
    } else {
        let d = &e.decode;
        println!("interval       {}  packets sent {}  received {}", e.interval, e.sent, e.received);
        println!(
            "decode         {} lost, {} reordered, {}",
            d.lost.len(),
            d.reordered.len(),
            if d.complete { "complete" } else { "INCOMPLETE (lists partial)" }
        );
        println!("usable buckets {}  samples {}", e.usable_buckets, e.samples);
        println!("mean delay     {:.6} ticks", e.mean);
        println!("std-dev        {:.3} ticks", e.std);
    }
    Ok(())
}
