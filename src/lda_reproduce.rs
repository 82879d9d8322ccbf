//! `netmeas reproduce lda`: the loss sweep of Kompella et al. §IV-A/B
//! (Fig. 4(a)/(c) and Fig. 5) — relative error of the mean and of the
//! standard deviation versus loss rate, each point the average over LDAs
//! with different hash seeds on the same trace, for (a) one bank of 1024 rows
//! tuned to the actual loss by p = α m / (L + 1), α = 0.5 (§III-D), (b) the
//! paper's two banks of 512 rows tuned toward 0.5 % and 10 % loss, and (c)
//! the core's default thresholds. With `--engine both` the run with the
//! cores' built-in hash seed also goes through two Verilated cores per
//! configuration and its synopses must be bit-identical to the golden ones.

use crate::args::{Engine, LossModelArg};
use crate::lda_cmd::run_pair;
use clap::Args;
use netmeas_sim::lda::{LdaConfig, LdaOutcome, check_delay_range, golden_pair, outcome, tuned_prob_log2};
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::traffic::{DelayDist, Source, Trace, TrafficSpec, Truth};
use netmeas_testbench::lda_stream::check_rtl_config;
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::Instant;

/// Flags of `netmeas reproduce lda`.
#[derive(Args, Clone, Debug)]
pub struct ReproduceLda {
    /// Packets per trace (§IV: 5 M packets in 1 s).
    #[arg(long, default_value_t = 5_000_000)]
    pub packets: u64,
    /// LDAs (hash seeds) per loss rate, all on the same trace (Fig. 4: 10).
    #[arg(long, default_value_t = 10)]
    pub runs: u64,
    /// Loss rates, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0.0001,0.001,0.005,0.01,0.02,0.05,0.1,0.2")]
    pub losses: Vec<f64>,
    /// Delay distribution, µs (Fig. 4's least accurate case by default).
    #[arg(long, default_value = "weibull:0.133:0.6")]
    pub delay: String,
    /// How packets are lost.
    #[arg(long, value_enum, default_value_t = LossModelArg::Uniform)]
    pub loss_model: LossModelArg,
    /// Distinct 5-tuples; each numbers its packets with consecutive IP IDs.
    #[arg(long, default_value_t = 10_000)]
    pub flows: u32,
    /// Seed of the traces.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// golden | both (the built-in-seed run of every point also on two Verilated cores).
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Print one JSON object instead of the Markdown table.
    #[arg(long)]
    pub json: bool,
    /// Also draw the figure (relative error of the mean and the std-dev versus loss) as SVG.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
}

/// One configuration at one loss rate, averaged over the runs.
#[derive(Clone, Debug, Serialize)]
struct Point {
    /// Thresholds k_j used (p_j = 2^-k_j).
    bank_prob_log2: Vec<u32>,
    /// Mean over runs with a usable row of the relative error of the mean delay.
    mean_rel_error: f64,
    /// Largest relative error of the mean delay over the runs.
    max_mean_rel_error: f64,
    /// Mean over runs with a usable collapsed row of the relative error of the standard deviation.
    std_rel_error: f64,
    /// Mean effective sample size.
    samples: f64,
    /// Runs without any usable row (no estimate at all).
    empty_runs: u64,
    /// Runs whose true mean lay outside the 98 % Hoeffding interval.
    outside_bound_98: u64,
    /// Whether the built-in-seed run's synopses were bit-identical on the RTL (`--engine both`).
    rtl_match: Option<bool>,
}

/// One loss rate: the truth of its trace and the three configurations' points.
#[derive(Clone, Debug, Serialize)]
struct Row {
    loss_rate: f64,
    true_loss: f64,
    true_mean_ns: f64,
    true_std_ns: f64,
    /// Keyed by [`CONFIG_NAMES`].
    points: BTreeMap<&'static str, Point>,
}

/// Names of the sweep's configurations, in table order (a), (b), (c).
const CONFIG_NAMES: [&str; 3] = ["one_bank_tuned", "two_banks_0.005_0.1", "default"];

/// The three configurations of the sweep at `lost` expected lost packets.
fn configs(lost: f64) -> [(&'static str, LdaConfig); 3] {
    let single =
        LdaConfig { banks: 1, rows: 1024, bank_prob_log2: vec![tuned_prob_log2(1024, lost)], ..Default::default() };
    let two = LdaConfig { bank_prob_log2: vec![7, 11], ..Default::default() };
    let [a, b, c] = CONFIG_NAMES;
    [(a, single), (b, two), (c, LdaConfig::default())]
}

/// The hash seed of run `i`: the cores' built-in seed first, then derived ones.
fn run_seed(base: u64, i: u64) -> u64 {
    if i == 0 { base } else { SplitMix64::new(base ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64() }
}

fn point(cfg: &LdaConfig, trace: &Trace, truth: Truth, runs: u64, engine: Engine) -> Result<Point, String> {
    let one = |i: u64| -> Result<(LdaOutcome, Option<bool>), String> {
        let c = LdaConfig { seed: run_seed(cfg.seed, i), ..cfg.clone() };
        let (pair, matched) = if i == 0 && engine == Engine::Both {
            let (p, m, _) = run_pair(&c, trace, Engine::Both)?;
            (p, m)
        } else {
            (golden_pair(&c, trace), None)
        };
        Ok((outcome(&pair, truth).map_err(|e| e.to_string())?, matched))
    };
    // Two workers: even and odd runs.
    let results: Vec<Result<(LdaOutcome, Option<bool>), String>> = std::thread::scope(|s| {
        let odd = s.spawn(|| (0..runs).filter(|i| i % 2 == 1).map(one).collect::<Vec<_>>());
        let mut v: Vec<_> = (0..runs).filter(|i| i % 2 == 0).map(one).collect();
        v.extend(odd.join().unwrap_or_else(|_| vec![Err("worker panicked".into())]));
        v
    });
    let mut outs = Vec::new();
    let mut rtl_match = None;
    for r in results {
        let (o, m) = r?;
        rtl_match = rtl_match.or(m);
        outs.push(o);
    }
    // Runs without a usable row have no estimate: they are counted, not averaged.
    let avg = |f: &dyn Fn(&LdaOutcome) -> f64| {
        let v: Vec<f64> = outs.iter().map(f).filter(|x| x.is_finite()).collect();
        if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }
    };
    Ok(Point {
        bank_prob_log2: cfg.bank_prob_log2.clone(),
        mean_rel_error: avg(&|o| o.rel_error.mean),
        max_mean_rel_error: outs.iter().map(|o| o.rel_error.mean).filter(|x| x.is_finite()).fold(f64::NAN, f64::max),
        std_rel_error: avg(&|o| o.rel_error.std),
        samples: outs.iter().map(|o| o.estimates.samples as f64).sum::<f64>() / outs.len() as f64,
        empty_runs: outs.iter().filter(|o| o.estimates.samples == 0).count() as u64,
        outside_bound_98: outs
            .iter()
            .filter(|o| (o.estimates.mean - o.truth.mean).abs() > o.estimates.mean_bound_98)
            .count() as u64,
        rtl_match,
    })
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "—".into()
    } else if x < 0.001 {
        format!("{:.3}", 100.0 * x)
    } else {
        format!("{:.2}", 100.0 * x)
    }
}

/// `netmeas reproduce lda`.
pub fn run(a: &ReproduceLda) -> Result<(), String> {
    let engine = match a.engine {
        Engine::Rtl => return Err("--engine `rtl`: expected golden or both (both also runs the RTL)".into()),
        e => e,
    };
    if a.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    if a.losses.is_empty() || a.losses.iter().any(|l| !(0.0..1.0).contains(l)) {
        return Err("--losses: every rate must lie in [0, 1)".into());
    }
    a.plot.as_deref().map(crate::plot::check_path).transpose()?;
    let delay = a.delay.parse::<DelayDist>()?;
    let loss_model = a.loss_model.model();
    if engine == Engine::Both {
        for (_, c) in configs(a.packets as f64 * a.losses[0]) {
            check_rtl_config(&c)?;
        }
    }
    let start = Instant::now();
    let mut rows = Vec::new();
    let progress = crate::progress::Progress::bar(a.losses.len() as u64, "reproduce lda", a.json);
    for &loss in &a.losses {
        progress.message(format!("loss {loss}"));
        let spec = TrafficSpec {
            source: Source::Synthetic { packets: a.packets, rate_pps: 5e6, flows: a.flows },
            delay,
            loss_rate: loss,
            loss_model,
            seed: a.seed,
        };
        let trace = Trace::build(&spec)?;
        check_delay_range(&trace)?;
        let truth = trace.truth();
        let mut points = BTreeMap::new();
        for (name, cfg) in configs(a.packets as f64 * loss) {
            points.insert(name, point(&cfg, &trace, truth, a.runs, engine)?);
        }
        rows.push(Row {
            loss_rate: loss,
            true_loss: truth.loss,
            true_mean_ns: truth.mean,
            true_std_ns: truth.std,
            points,
        });
        progress.inc();
    }
    drop(progress);
    let seconds = start.elapsed().as_secs_f64();
    if let Some(p) = &a.plot {
        crate::plot::write(p, &figure(&rows, a)?)?;
    }
    if a.json {
        crate::output::print_json(
            json!({ "core": "lda", "packets": a.packets, "runs": a.runs, "delay": delay.to_string(),
                    "loss_model": a.loss_model, "flows": a.flows, "seed": a.seed, "engine": a.engine, "rows": rows, "seconds": seconds }),
        )?;
        return Ok(());
    }
    let both = engine == Engine::Both;
    println!(
        "LDA loss sweep: {} packets of {} flows per trace, delay {delay}, {} loss, trace seed {}, {} hash seeds per point{}",
        a.packets,
        a.flows,
        a.loss_model,
        a.seed,
        a.runs,
        if both { "; seed-0 runs also on the RTL" } else { "" }
    );
    println!();
    println!(
        "| loss | true mean (ns) | true std (ns) | (a) 1×1024 k | mean err % | std err % | samples | (b) 2×512 k=7,11 mean err % | std err % | samples | (c) 2×512 k=3,7 mean err % | std err % | samples |{}",
        if both { " RTL |" } else { "" }
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|{}", if both { "---|" } else { "" });
    for r in &rows {
        let cells: Vec<String> = CONFIG_NAMES
            .iter()
            .map(|n| {
                let q = &r.points[n];
                let note = if q.empty_runs > 0 {
                    format!(" ({} of {} runs empty)", q.empty_runs, a.runs)
                } else {
                    String::new()
                };
                format!("{}{note} | {} | {:.0}", pct(q.mean_rel_error), pct(q.std_rel_error), q.samples)
            })
            .collect();
        println!(
            "| {} % | {:.1} | {:.1} | {} | {} |{}",
            100.0 * r.loss_rate,
            r.true_mean_ns,
            r.true_std_ns,
            r.points[CONFIG_NAMES[0]].bank_prob_log2[0],
            cells.join(" | "),
            // A mismatch aborts the sweep (run_pair names the row), so every point shown matched.
            if both { " bit-identical |" } else { "" }
        );
    }
    let outside: Vec<String> = CONFIG_NAMES
        .iter()
        .zip(["(a)", "(b)", "(c)"])
        .map(|(n, label)| {
            let k: u64 = rows.iter().map(|r| r.points[n].outside_bound_98).sum();
            format!("{label} {k} of {}", rows.len() as u64 * a.runs)
        })
        .collect();
    println!();
    println!(
        "runs whose true mean lies outside the 98 % Hoeffding interval of eq. (1): {}; {seconds:.1} s",
        outside.join(", ")
    );
    Ok(())
}

/// The loss sweep as a figure: relative error (%) of the mean and of the
/// standard deviation versus the loss rate, one curve per configuration (§IV-A, Fig. 5/6).
fn figure(rows: &[Row], a: &ReproduceLda) -> Result<String, String> {
    use crate::plot::{Axes, Series, line_chart};
    let mut series = Vec::new();
    let legends = ["1 bank of 1024 rows, tuned", "2 banks of 512, for 0.5 % and 10 %", "default (2 banks of 512)"];
    for (i, (name, legend)) in CONFIG_NAMES.iter().zip(legends).enumerate() {
        let mean: Vec<(f64, f64)> =
            rows.iter().filter_map(|r| r.points.get(name).map(|p| (r.loss_rate, 100.0 * p.mean_rel_error))).collect();
        let std: Vec<(f64, f64)> =
            rows.iter().filter_map(|r| r.points.get(name).map(|p| (r.loss_rate, 100.0 * p.std_rel_error))).collect();
        series.push(Series::new(i, format!("{legend}: mean"), mean));
        let mut s = Series::new(i, format!("{legend}: std-dev"), std);
        s.dashed = true;
        series.push(s);
    }
    let title = format!("LDA: relative error vs loss ({} packets, {} runs a point)", a.packets, a.runs);
    let axes = Axes {
        title: &title,
        x: "loss rate (log scale)",
        y: "mean relative error (%, log scale)",
        log_x: true,
        log_y: true,
    };
    line_chart(&axes, &series, &|x| format!("{x}"))
}
