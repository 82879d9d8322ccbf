//! `netmeas reproduce rda`: the set-difference sweep of Fu, Barlet-Ros, Li
//! (ToN 2018) §VII-B.2 (Fig. 7) — relative error of the mean and of the
//! standard deviation versus the set difference d, loss rate = reordering
//! rate, k = 2 banks of 2500 buckets — with the LDA of about the same memory
//! on the same streams, and the host's decode time versus d (Fig. 6). With
//! `--engine both` the first run of every point also goes through two
//! Verilated cores and its synopses must be bit-identical to the golden ones.

use crate::args::Engine;
use crate::rda_cmd::{lda_on_same_streams, lda_same_memory, rda_memory_bits, run_pair};
use clap::Args;
use netmeas_sim::lda::{LDA_COUNT_BITS, LDA_TS_BITS};
use netmeas_sim::rda::{IntervalTrace, RdaConfig, RdaHashes, RdaTrafficSpec, golden_pair, outcome};
use netmeas_sim::traffic::{DelayDist, LossModel, Source, TrafficSpec};
use netmeas_testbench::rda_stream::check_rtl_config;
use serde::Serialize;
use serde_json::json;
use std::time::Instant;

/// Flags of `netmeas reproduce rda`.
#[derive(Args, Clone, Debug)]
pub struct ReproduceRda {
    /// Packets per trace.
    #[arg(long, default_value_t = 1_000_000)]
    pub packets: u64,
    /// Traces (traffic seeds) per set difference.
    #[arg(long, default_value_t = 5)]
    pub runs: u64,
    /// Target set differences d, comma-separated: loss rate = reordering rate = d / 2N.
    #[arg(long, value_delimiter = ',', default_value = "0,250,500,1000,1500,2000,2500,3000,4000,5000,6000,8000,10000")]
    pub diffs: Vec<u64>,
    /// Banks k.
    #[arg(long, default_value_t = 2)]
    pub banks: usize,
    /// Buckets per bank m.
    #[arg(long, default_value_t = 2500)]
    pub buckets: usize,
    /// Delay distribution, µs.
    #[arg(long, default_value = "weibull:0.133:0.6")]
    pub delay: String,
    /// Seed of the traces.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// golden | both (the first run of every point also on two Verilated cores).
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Print one JSON object instead of the Markdown table.
    #[arg(long)]
    pub json: bool,
    /// Also draw the figure as SVG: relative error of the mean and std-dev versus set difference, RDA and LDA (Fig. 7).
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
}

/// One set difference, averaged over the runs.
#[derive(Clone, Debug, Default, Serialize)]
struct Row {
    /// Target d.
    target: u64,
    /// Mean true set difference.
    true_diff: f64,
    /// RDA with repair: mean and largest relative error of the mean delay.
    rda_mean: f64,
    rda_mean_max: f64,
    /// RDA with repair: mean relative error of the standard deviation.
    rda_std: f64,
    /// RDA without timestamps (buckets of decoded packets excluded): mean relative error of the mean.
    rda_excluded_mean: f64,
    /// Mean decoded / true set difference.
    decode_success: f64,
    /// Runs whose decode emptied every bucket.
    complete_runs: u64,
    /// Runs whose listed IDs were exactly the true lost and reordered sets.
    exact_runs: u64,
    /// Listed IDs outside the true set difference, over all runs.
    wrong_ids: u64,
    /// Mean host time to subtract, decode, repair and estimate, ms.
    decode_ms: f64,
    /// LDA of about the same memory: mean relative error of the mean and of the std-dev.
    lda_mean: f64,
    lda_std: f64,
    /// LDA runs without any usable row.
    lda_empty_runs: u64,
    /// Whether the first run's synopses were bit-identical on the RTL (`--engine both`).
    rtl_match: Option<bool>,
}

fn spec(a: &ReproduceRda, delay: DelayDist, d: u64, run: u64) -> RdaTrafficSpec {
    let rate = d as f64 / (2 * a.packets) as f64;
    RdaTrafficSpec {
        base: TrafficSpec {
            source: Source::Synthetic { packets: a.packets, rate_pps: 5e6, flows: 10_000 },
            delay,
            loss_rate: rate,
            loss_model: LossModel::Uniform,
            seed: a.seed.wrapping_add(run.wrapping_mul(0x9e37_79b9)) ^ d,
        },
        reorder_rate: rate,
        window_ns: 10_000,
    }
}

fn row(a: &ReproduceRda, base: &RdaConfig, delay: DelayDist, d: u64, engine: Engine) -> Result<Row, String> {
    let mut r = Row { target: d, ..Default::default() };
    let (mut rda_std_n, mut lda_n) = (0u64, 0u64);
    for run in 0..a.runs {
        let iv = IntervalTrace::build(&spec(a, delay, d, run))?;
        let cfg = iv.core_config(base);
        let pair = if run == 0 && engine == Engine::Both {
            let (p, m, _) = run_pair(&cfg, &iv, Engine::Both)?;
            r.rtl_match = m;
            p
        } else {
            golden_pair(&cfg, &iv)
        };
        let ts = iv.timestamps();
        let truth = iv.truth(&cfg);
        let hashes = RdaHashes::new(&cfg);
        let t = Instant::now();
        let o = outcome(&pair, &hashes, truth.clone(), Some(&ts)).map_err(|e| e.to_string())?;
        r.decode_ms += 1e3 * t.elapsed().as_secs_f64();
        let x = outcome(&pair, &hashes, truth, None).map_err(|e| e.to_string())?;
        r.true_diff += o.truth.set_difference as f64;
        r.rda_mean += o.rel_error.mean;
        r.rda_mean_max = r.rda_mean_max.max(o.rel_error.mean);
        if o.rel_error.std.is_finite() {
            r.rda_std += o.rel_error.std;
            rda_std_n += 1;
        }
        r.rda_excluded_mean += x.rel_error.mean;
        r.decode_success += o.decode.success;
        r.complete_runs += o.decode.complete as u64;
        r.exact_runs += o.decode.exact as u64;
        r.wrong_ids += o.decode.wrong_ids as u64;
        let (_, e, err) = lda_on_same_streams(&cfg, &iv, &o.truth)?;
        if e.mean.is_finite() && e.std.is_finite() {
            r.lda_mean += err.mean;
            r.lda_std += err.std;
            lda_n += 1;
        } else {
            r.lda_empty_runs += 1;
        }
    }
    let n = a.runs as f64;
    r.true_diff /= n;
    r.rda_mean /= n;
    r.rda_std /= rda_std_n.max(1) as f64;
    r.rda_excluded_mean /= n;
    r.decode_success /= n;
    r.decode_ms /= n;
    r.lda_mean /= lda_n.max(1) as f64;
    r.lda_std /= lda_n.max(1) as f64;
    if lda_n == 0 {
        r.lda_mean = f64::NAN;
        r.lda_std = f64::NAN;
    }
    Ok(r)
}

/// `netmeas reproduce rda`.
pub fn run(a: &ReproduceRda) -> Result<(), String> {
    let engine = a.engine;
    if engine == Engine::Rtl {
        return Err("--engine: golden or both (the sweep always runs the golden model)".into());
    }
    if a.runs == 0 || a.diffs.is_empty() {
        return Err("--runs and --diffs must not be empty".into());
    }
    if let Some(&d) = a.diffs.iter().find(|&&d| d >= a.packets) {
        return Err(format!("set difference {d} needs more than --packets {}", a.packets));
    }
    let delay = a.delay.parse::<DelayDist>()?;
    let base = RdaConfig { banks: a.banks, buckets: a.buckets, ..Default::default() };
    base.validate().map_err(|e| e.to_string())?;
    if engine == Engine::Both {
        check_rtl_config(&base)?;
    }
    a.plot.as_deref().map(crate::plot::check_path).transpose()?;
    let t = Instant::now();
    let mut rows = Vec::new();
    let progress = crate::progress::Progress::bar(a.diffs.len() as u64, "reproduce rda", a.json);
    for &d in &a.diffs {
        progress.message(format!("set difference d = {d}"));
        rows.push(row(a, &base, delay, d, engine)?);
        progress.inc();
    }
    drop(progress);
    if let Some(p) = &a.plot {
        crate::plot::write(p, &figure(&rows, a)?)?;
    }
    let lda = lda_same_memory(&base, 0)?;
    let lda_bits = lda.banks * lda.rows * (LDA_COUNT_BITS + LDA_TS_BITS) as usize;
    if a.json {
        crate::output::print_json(
            json!({ "core": "rda", "figure": "Fu et al. Fig. 7 / Fig. 6", "packets": a.packets, "runs": a.runs,
                    "config": base, "memory_bits": rda_memory_bits(&base),
                    "lda": { "banks": lda.banks, "rows": lda.rows, "memory_bits": lda_bits },
                    "delay": a.delay, "engine": a.engine, "rows": rows, "seconds": t.elapsed().as_secs_f64() }),
        )?;
        return Ok(());
    }
    println!(
        "RDA {} x {} buckets ({} kbit) vs LDA {} x {} rows ({} kbit, §III-D thresholds for d/4, d, 4d, 16d); {} packets, Weibull delays {}, loss = reordering = d/2N; {} runs per point\n",
        base.banks,
        base.buckets,
        rda_memory_bits(&base) / 1000,
        lda.banks,
        lda.rows,
        lda_bits / 1000,
        a.packets,
        a.delay,
        a.runs
    );
    println!(
        "| d | true d | RDA mean rel. err. (max) | RDA std rel. err. | RDA no-repair mean | decode success | complete | exact | decode ms | LDA mean rel. err. | LDA std rel. err. | RTL |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in &rows {
        println!(
            "| {} | {:.0} | {:.1e} ({:.1e}) | {:.2e} | {:.2e} | {:.4} | {}/{} | {}/{} | {:.2} | {:.2e} | {:.2e} | {} |",
            r.target,
            r.true_diff,
            r.rda_mean,
            r.rda_mean_max,
            r.rda_std,
            r.rda_excluded_mean,
            r.decode_success,
            r.complete_runs,
            a.runs,
            r.exact_runs,
            a.runs,
            r.decode_ms,
            r.lda_mean,
            r.lda_std,
            match r.rtl_match {
                Some(true) => "bit-exact",
                Some(false) => "DIFFERS",
                None => "-",
            }
        );
    }
    eprintln!("[reproduce rda] {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}

/// The sweep as a figure: relative error (%) of the mean and the std-dev
/// versus the true set difference, RDA (repaired) and LDA of about the same
/// memory (§VII-B, Fig. 7).
fn figure(rows: &[Row], a: &ReproduceRda) -> Result<String, String> {
    use crate::plot::{Axes, Series, line_chart};
    let curve =
        |f: &dyn Fn(&Row) -> f64| -> Vec<(f64, f64)> { rows.iter().map(|r| (r.true_diff, 100.0 * f(r))).collect() };
    let mut lda_mean = Series::new(1, "LDA: mean", curve(&|r| r.lda_mean));
    let mut lda_std = Series::new(1, "LDA: std-dev", curve(&|r| r.lda_std));
    let mut rda_std = Series::new(0, "RDA: std-dev", curve(&|r| r.rda_std));
    (lda_mean.dashed, lda_std.dashed, rda_std.dashed) = (false, true, true);
    let series = vec![Series::new(0, "RDA: mean", curve(&|r| r.rda_mean)), rda_std, lda_mean, lda_std];
    let title =
        format!("RDA vs LDA: relative error vs set difference ({} packets, {} runs a point)", a.packets, a.runs);
    let axes = Axes {
        title: &title,
        x: "set difference d (lost + reordered packets)",
        y: "mean relative error (%, log scale)",
        log_x: false,
        log_y: true,
    };
    line_chart(&axes, &series, &|x| format!("{x:.0}"))
}
