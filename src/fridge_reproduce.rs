//! `netmeas reproduce fridge`: the evaluation of Zheng et al. §5 on the §5
//! synthetic traces (delays log-uniform up to T = 2^12 ms and 2^6 ms) with
//! the golden fridge core — Fig. 3 (error versus the entry probability p for
//! M = 2^12) and Fig. 5 (one and two fridges versus the 1- and 4-stage simple
//! algorithm across memory sizes, every method at its best parameter from a
//! grid search, as in §5.3). As in §5, every point repeats with `--runs` hash
//! seeds on the same trace and the runs' CDFs are combined (each run's
//! weights normalized to one) before the error is taken.

use clap::Args;
use netmeas_sim::fridge::{
    Cdf, FridgeConfig, FridgeTrace, Scored, SyntheticSpec, combine, correct, run_golden, run_simple,
};
use serde::Serialize;
use serde_json::json;
use std::time::Instant;

/// Flags of `netmeas reproduce fridge`.
#[derive(Args, Clone, Debug)]
pub struct ReproduceFridge {
    /// Requests per trace (§5: 1.25 M → 0.5 M samples).
    #[arg(long, default_value_t = 1_250_000)]
    pub requests: u64,
    /// Hash seeds per point (§5: ten; their CDFs are combined).
    #[arg(long, default_value_t = 4)]
    pub runs: u64,
    /// Largest delays T of the two traces, ms (§5.2 Fig. 3: 2^12 and 2^6).
    #[arg(long, value_delimiter = ',', default_value = "4096,64")]
    pub max_delays_ms: Vec<f64>,
    /// Fig. 3: entries M of the single fridge.
    #[arg(long, default_value_t = 4096)]
    pub fig3_entries: usize,
    /// Fig. 5: total entries of every method, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "512,1024,2048,4096,8192")]
    pub memories: Vec<usize>,
    /// Seed of the traces.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object instead of the Markdown tables.
    #[arg(long)]
    pub json: bool,
    /// Also draw the figure as SVG: error of the 99th percentile versus memory, fridges against the simple algorithm (Fig. 5).
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
}

/// Exponents v of the entry probabilities p = 2^v searched.
const PROB_GRID: [f64; 17] =
    [0.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0, -14.0, -15.0, -16.0];

/// The §5 error metrics of one combined CDF.
#[derive(Clone, Copy, Debug, Serialize)]
struct Errors {
    p50: f64,
    p95: f64,
    p99: f64,
    gap: f64,
}

fn errors(est: Option<Cdf>, truth: &Cdf) -> Errors {
    match Scored::new(est, 0, truth) {
        Some(s) => Errors { p50: s.errors.p50, p95: s.errors.p95, p99: s.errors.p99, gap: s.max_cdf_gap },
        None => Errors { p50: f64::INFINITY, p95: f64::INFINITY, p99: f64::INFINITY, gap: f64::INFINITY },
    }
}

/// Weighted (delay, weight) pairs of one run, normalized to a total of one.
fn normalized(w: Vec<(u64, f64)>) -> Vec<(u64, f64)> {
    let total: f64 = w.iter().map(|p| p.1).sum();
    if total > 0.0 { w.into_iter().map(|(d, x)| (d, x / total)).collect() } else { Vec::new() }
}

/// The fridges of `entries` and `probs` over `runs` hash seeds: combined CDF's errors.
fn fridges(trace: &FridgeTrace, truth: &Cdf, entries: &[usize], probs: &[f64], runs: u64) -> Errors {
    let mut pooled = Vec::new();
    for s in 0..runs {
        let cfg = FridgeConfig {
            entries: entries.to_vec(),
            entry_prob_log2: probs.to_vec(),
            seed: 0x4652_0000 + s,
            ..Default::default()
        };
        let run = run_golden(&cfg, &trace.packets);
        pooled.extend(normalized(combine(&correct(&cfg, &run.samples), cfg.fridges())));
    }
    errors(Cdf::from_weighted(pooled), truth)
}

/// The simple algorithm (D stages, expiry T) over `runs` hash seeds.
fn simple(trace: &FridgeTrace, truth: &Cdf, entries: usize, stages: usize, expiry: u64, runs: u64) -> Errors {
    let mut pooled = Vec::new();
    for s in 0..runs {
        let d = run_simple(&trace.packets, entries, stages, expiry, 0x5349_0000 + s);
        pooled.extend(normalized(d.into_iter().map(|x| (x, 1.0)).collect()));
    }
    errors(Cdf::from_weighted(pooled), truth)
}

#[derive(Clone, Debug, Serialize)]
struct Best {
    errors: Errors,
    /// The parameter chosen: log2 p (per fridge) or the expiry in ns.
    param: String,
}

fn best(cands: impl Iterator<Item = (Errors, String)>) -> Best {
    let (errors, param) = cands.min_by(|a, b| a.0.gap.total_cmp(&b.0.gap)).expect("a candidate");
    Best { errors, param }
}

#[derive(Clone, Debug, Serialize)]
struct Fig5Row {
    memory: usize,
    simple_1stage: Best,
    simple_4stage: Best,
    one_fridge: Best,
    two_fridges: Best,
}

/// A table cell: the error, or a dash when no run kept a sample.
fn cell(x: f64) -> String {
    if x.is_finite() { format!("{x:.3}") } else { "—".into() }
}

/// `netmeas reproduce fridge`.
pub fn run(a: &ReproduceFridge) -> Result<(), String> {
    if a.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let probe = FridgeConfig { entries: vec![a.fig3_entries], entry_prob_log2: vec![0.0], ..Default::default() };
    probe.validate().map_err(|e| format!("--fig3-entries: {e}"))?;
    for &m in &a.memories {
        let c = FridgeConfig { entries: vec![m / 2, m / 2], entry_prob_log2: vec![0.0, 0.0], ..Default::default() };
        c.validate().map_err(|e| format!("--memories {m}: two fridges of {} entries: {e}", m / 2))?;
    }
    a.plot.as_deref().map(crate::plot::check_path).transpose()?;
    let t0 = Instant::now();
    let steps = a.max_delays_ms.len() * (1 + PROB_GRID.len() + a.memories.len());
    let progress = crate::progress::Progress::bar(steps as u64, "reproduce fridge", a.json);
    let mut traces = Vec::new();
    for &t in &a.max_delays_ms {
        progress.message(format!("trace T = {t} ms"));
        let spec = SyntheticSpec { requests: a.requests, max_delay_ns: t * 1e6, seed: a.seed, ..Default::default() };
        let tr = spec.build().map_err(|e| format!("--max-delays-ms {t}: {e}"))?;
        let truth = Cdf::from_delays(&tr.truth).ok_or_else(|| format!("T = {t} ms: no pairs"))?;
        traces.push((t, tr, truth));
        progress.inc();
    }
    // Fig. 3: one fridge of M entries, error versus p.
    let mut fig3 = Vec::new();
    for &v in &PROB_GRID {
        progress.message(format!("Fig. 3, p = 2^{v}"));
        let row: Vec<Errors> = traces
            .iter()
            .map(|(_, tr, truth)| {
                let e = fridges(tr, truth, &[a.fig3_entries], &[v], a.runs);
                progress.inc();
                e
            })
            .collect();
        fig3.push((v, row));
    }
    // Fig. 5: every method at its best parameter, per memory size and trace.
    let mut fig5 = Vec::new();
    for (t, tr, truth) in &traces {
        let mut rows = Vec::new();
        for &m in &a.memories {
            progress.message(format!("Fig. 5, T = {t} ms, M = {m}"));
            let expiries: Vec<u64> = (0..=12).map(|k| (t * 1e6 / 2f64.powi(k)) as u64).chain([0]).collect();
            let simple_best = |stages| {
                best(expiries.iter().map(|&e| (simple(tr, truth, m, stages, e, a.runs), format!("T = {e} ns"))))
            };
            let one = best(PROB_GRID.iter().map(|&v| (fridges(tr, truth, &[m], &[v], a.runs), format!("p = 2^{v}"))));
            let two = best(
                PROB_GRID
                    .iter()
                    .flat_map(|&v1| PROB_GRID.iter().filter(move |&&v2| v2 > v1).map(move |&v2| (v1, v2)))
                    .map(|(v1, v2)| {
                        (fridges(tr, truth, &[m / 2, m / 2], &[v1, v2], a.runs), format!("p = 2^{v1}, 2^{v2}"))
                    }),
            );
            rows.push(Fig5Row {
                memory: m,
                simple_1stage: simple_best(1),
                simple_4stage: simple_best(4),
                one_fridge: one,
                two_fridges: two,
            });
            progress.inc();
        }
        fig5.push((*t, rows));
    }
    drop(progress);
    if let Some(p) = &a.plot {
        crate::plot::write(p, &figure(&fig5)?)?;
    }
    let secs = t0.elapsed().as_secs_f64();
    if a.json {
        crate::output::print_json(json!({
            "requests": a.requests, "runs": a.runs, "seconds": secs,
            "fig3": { "entries": a.fig3_entries, "max_delays_ms": a.max_delays_ms,
                      "rows": fig3.iter().map(|(v, r)| json!({ "prob_log2": v, "errors": r })).collect::<Vec<_>>() },
            "fig5": fig5.iter().map(|(t, r)| json!({ "max_delay_ms": t, "rows": r })).collect::<Vec<_>>(),
        }))?;
        return Ok(());
    }
    println!(
        "Fig. 3 shape: one fridge of M = {} entries, max horizontal CDF gap in [5 %, 95 %] (log2) versus p; {} requests, {} hash seeds combined",
        a.fig3_entries, a.requests, a.runs
    );
    println!();
    let heads: Vec<String> = a.max_delays_ms.iter().map(|t| format!("T = {t} ms: gap | p99 err")).collect();
    println!("| log2 p | {} |", heads.join(" | "));
    println!("|---:|{}", "---:|---:|".repeat(heads.len()));
    for (v, r) in &fig3 {
        let cells: Vec<String> = r.iter().map(|e| format!("{} | {}", cell(e.gap), cell(e.p99))).collect();
        println!("| {v} | {} |", cells.join(" | "));
    }
    for (t, rows) in &fig5 {
        println!();
        println!("Fig. 5 shape, T = {t} ms: max CDF gap (log2) of each method at its best parameter, total entries M");
        println!();
        println!("| M | simple 1-stage | simple 4-stage | 1 fridge | 2 fridges | 2 fridges' p |");
        println!("|---:|---:|---:|---:|---:|---|");
        for r in rows {
            println!(
                "| {} | {} | {} | {} | {} | {} |",
                r.memory,
                cell(r.simple_1stage.errors.gap),
                cell(r.simple_4stage.errors.gap),
                cell(r.one_fridge.errors.gap),
                cell(r.two_fridges.errors.gap),
                r.two_fridges.param
            );
        }
    }
    println!();
    println!("({secs:.0} s)");
    Ok(())
}

/// Fig. 5 as a figure: the relative error of the 99th percentile at each
/// method's best parameter versus memory (entries), one set of curves per
/// maximum delay T (§5).
fn figure(fig5: &[(f64, Vec<Fig5Row>)]) -> Result<String, String> {
    use crate::plot::{Axes, Series, line_chart};
    let mut series = Vec::new();
    for (k, (t, rows)) in fig5.iter().enumerate() {
        let methods: [(&str, fn(&Fig5Row) -> &Best); 4] = [
            ("simple, 1 stage", |r| &r.simple_1stage),
            ("simple, 4 stages", |r| &r.simple_4stage),
            ("one fridge", |r| &r.one_fridge),
            ("two fridges", |r| &r.two_fridges),
        ];
        for (i, (name, pick)) in methods.iter().enumerate() {
            let pts = rows.iter().map(|r| (r.memory as f64, 100.0 * pick(r).errors.p99)).collect();
            let mut s = Series::new(i, format!("{name}, T = {t} ms"), pts);
            s.dashed = k % 2 == 1;
            series.push(s);
        }
    }
    let axes = Axes {
        title: "fridges vs the simple algorithm: p99 error vs memory",
        x: "memory (entries, log scale)",
        y: "relative error of p99 (%, log scale)",
        log_x: true,
        log_y: true,
    };
    line_chart(&axes, &series, &|x| format!("{x:.0}"))
}
