//! `netmeas reproduce dbm`: the accuracy evaluation of Uyeda et al. §4.1 on
//! a bursty synthetic trace with the golden cores — Table 1 (the worst, over
//! the reference time scales, of the average relative error over periods of
//! max, std-dev and 95th percentile, at ≤ 2 ms and > 2 ms, for DBM-mm, -mv,
//! -mr with 1024 buckets and EXPB with 11 scales) and Fig. 4 (DBM-mr at
//! 400 µs versus the number of buckets).

use crate::args::BwTraffic;
use crate::args::Engine;
use crate::args::parse_duration_ns;
use crate::dbm_cmd::{run_dbm_engines, run_expb_engines};
use clap::Args;
use netmeas_sim::dbm::{
    BwPacket, DbmConfig, ExpbConfig, MergeRule, SeriesStats, dbm_series, expb_scale, expb_stats, run_dbm, series_stats,
    true_series,
};
use netmeas_sim::stats::rel_error;
use serde_json::json;
use std::time::Instant;

/// Flags of `netmeas reproduce dbm`.
#[derive(Args, Clone, Debug)]
pub struct ReproduceDbm {
    /// Length of the trace: whole periods of 2 s (§4.1: a 2 s aggregation period).
    #[arg(long, default_value = "10s")]
    pub duration: String,
    /// Microbursts per 2 s period (§4.1.2: three).
    #[arg(long, default_value_t = 3)]
    pub bursts_per_period: u32,
    /// Fig. 4: bucket counts of DBM-mr.
    #[arg(long, value_delimiter = ',', default_value = "32,64,128,256,512,1024")]
    pub buckets: Vec<usize>,
    /// Seed of the trace.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Engine of the EXPB and DBM rows: golden, rtl (the Verilated cores: EXPB,
    /// per-packet DBM-mm, base-interval DBM-mv and DBM-mr) or both (synopses
    /// compared bit for bit). Fig. 4's bucket sweep runs on the golden model.
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Print one JSON object instead of the Markdown tables.
    #[arg(long)]
    pub json: bool,
    /// Also draw the figure as SVG: DBM-mr error at 400 us versus buckets (Fig. 4).
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
}

/// The aggregation period (§4.1: 2 s) and base interval (78.125 µs = 5^7 ns).
const PERIOD: u64 = 2_000_000_000;
const BASE: u64 = 78_125;
/// Table 1's split between fine and coarse time scales.
const SPLIT: u64 = 2_000_000;

/// The reference time scales: every Δ ≥ 78.125 µs that divides the 2 s
/// period in ns, the paper's 52 (§4.1).
fn reference_scales() -> Vec<u64> {
    let mut v: Vec<u64> =
        (0..=10).flat_map(|a| (0..=9).map(move |b| (1u64 << a) * 5u64.pow(b))).filter(|&d| d >= BASE).collect();
    v.sort_unstable();
    debug_assert!(v.iter().all(|&d| PERIOD.is_multiple_of(d)));
    v
}

/// Per period, the estimated statistics at Δ of one method.
type Estimator<'a> = Box<dyn Fn(usize, u64) -> Option<SeriesStats> + 'a>;

/// Average relative error over periods of (max, std, p95) at Δ; std needs 10
/// intervals per period and p95 20, as in §4.1.
fn avg_errors(est: &Estimator, truths: &[Vec<(u64, SeriesStats)>], delta: u64) -> [Option<f64>; 3] {
    let mut sums = [0.0; 3];
    let mut n = [0usize; 3];
    for (p, truth) in truths.iter().enumerate() {
        let t = truth.iter().find(|(d, _)| *d == delta).expect("truth at every scale").1;
        let Some(e) = est(p, delta) else {
            return [None; 3];
        };
        let stats = [(e.max, t.max, 1), (e.std, t.std, 10), (e.p95, t.p95, 20)];
        for (i, &(ev, tv, need)) in stats.iter().enumerate() {
            let err = rel_error(ev, tv);
            if t.len >= need && ev.is_finite() && err.is_finite() {
                sums[i] += err;
                n[i] += 1;
            }
        }
    }
    std::array::from_fn(|i| (n[i] > 0).then(|| sums[i] / n[i] as f64))
}

/// Worst (over scales in `range`) of the average errors.
fn worst(est: &Estimator, truths: &[Vec<(u64, SeriesStats)>], scales: &[u64]) -> [Option<f64>; 3] {
    let mut w = [None; 3];
    for &d in scales {
        for (i, e) in avg_errors(est, truths, d).into_iter().enumerate() {
            if let Some(e) = e {
                w[i] = Some(w[i].map_or(e, |x: f64| x.max(e)));
            }
        }
    }
    w
}

fn pct(v: Option<f64>) -> String {
    v.map_or("N/A".into(), |e| format!("{:.1} %", 100.0 * e))
}

/// `netmeas reproduce dbm`.
pub fn run(a: &ReproduceDbm) -> Result<(), String> {
    let duration = parse_duration_ns(&a.duration)? as u64;
    if !duration.is_multiple_of(PERIOD) {
        return Err(format!("--duration {}: not a whole number of 2 s periods", a.duration));
    }
    let periods = (duration / PERIOD) as usize;
    let engine = a.engine;
    for &m in &a.buckets {
        DbmConfig { buckets: m, ..Default::default() }.validate().map_err(|e| format!("--buckets: {e}"))?;
    }
    let traffic = BwTraffic {
        pcap: None,
        duration: a.duration.clone(),
        sources: 20,
        peak_mbps: 100.0,
        mean_on: "5ms".into(),
        mean_off: "45ms".into(),
        bursts: a.bursts_per_period * periods as u32,
        burst_len: "4ms".into(),
        burst_mb: 4.0,
        trace_seed: a.seed,
    };
    a.plot.as_deref().map(crate::plot::check_path).transpose()?;
    let t0 = Instant::now();
    let (packets, _) = traffic.packets()?;
    let own = |p: usize| -> &[BwPacket] {
        let (lo, hi) = (p as u64 * PERIOD, (p as u64 + 1) * PERIOD);
        &packets[packets.partition_point(|q| q.ts < lo)..packets.partition_point(|q| q.ts < hi)]
    };
    let scales = reference_scales();
    let truths: Vec<Vec<(u64, SeriesStats)>> = (0..periods)
        .map(|p| {
            scales.iter().map(|&d| (d, series_stats(&true_series(own(p), p as u64 * PERIOD, PERIOD, d)))).collect()
        })
        .collect();
    let (fine, coarse): (Vec<u64>, Vec<u64>) = scales.iter().partition(|&&d| d <= SPLIT);

    // Table 1: the four methods.
    let dbm_cfg = |rule: MergeRule, base: u64, m: usize| DbmConfig {
        buckets: m,
        rule,
        base_ticks: base,
        period_ticks: PERIOD,
        ..Default::default()
    };
    let mut rows = Vec::new();
    let on = if engine == Engine::Golden { "" } else { " (RTL)" };
    // The three DBM rows, each on the engine asked for (the RTL rows compared with the golden model).
    let mut dbm_engines = Vec::new();
    let progress = crate::progress::Progress::bar(4 + a.buckets.len() as u64, "reproduce dbm", a.json);
    for (key, name, cfg) in [
        ("dbm_mm", format!("DBM-mm, 1024 buckets, per packet{on}"), dbm_cfg(MergeRule::Mm, 0, 1024)),
        ("dbm_mv", format!("DBM-mv, 1024 buckets, 78.125 us base{on}"), dbm_cfg(MergeRule::Mv, BASE, 1024)),
        ("dbm_mr", format!("DBM-mr, 1024 buckets, 78.125 us base{on}"), dbm_cfg(MergeRule::Mr, BASE, 1024)),
    ] {
        progress.message(name.clone());
        let (parts, matched, timing) = run_dbm_engines(&cfg, &packets, engine)?;
        progress.inc();
        dbm_engines.push((key, name.clone(), matched, timing));
        let est: Estimator = Box::new(move |p, d| {
            parts.get(p).map(|x| series_stats(&dbm_series(&x.buckets, p as u64 * PERIOD, PERIOD, d)))
        });
        rows.push((name, worst(&est, &truths, &fine), worst(&est, &truths, &coarse)));
    }
    let ecfg = ExpbConfig { scales: 11, base_ticks: BASE, period_ticks: PERIOD };
    progress.message("EXPB");
    let (eparts, expb_match, expb_timing) = run_expb_engines(&ecfg, &packets, engine)?;
    progress.inc();
    let est: Estimator = Box::new(|p, d| eparts.get(p).and_then(|x| expb_stats(x, &ecfg, d)));
    rows.push((
        format!("EXPB, 11 scales from 78.125 us{on}"),
        worst(&est, &truths, &fine),
        worst(&est, &truths, &coarse),
    ));
    // The same scales unscaled: Lemma 2's estimator (scale j's statistics taken for Δ as they are).
    let est: Estimator = Box::new(|p, d| {
        let st = eparts.get(p)?.scales[expb_scale(&ecfg, d)?];
        Some(SeriesStats { len: st.count as usize, mean: st.mean(), max: st.max as f64, std: st.std(), p95: f64::NAN })
    });
    rows.push((format!("EXPB unscaled (Lemma 2){on}"), worst(&est, &truths, &fine), worst(&est, &truths, &coarse)));

    // Fig. 4: DBM-mr at 400 µs versus buckets (mean and worst over periods).
    let q = 400_000;
    let mut fig4 = Vec::new();
    for &m in &a.buckets {
        progress.message(format!("Fig. 4, DBM-mr with {m} buckets"));
        let parts = run_dbm(&dbm_cfg(MergeRule::Mr, BASE, m), &packets)?;
        progress.inc();
        let errs: Vec<[f64; 3]> = (0..periods)
            .map(|p| {
                let e = series_stats(&dbm_series(&parts[p].buckets, p as u64 * PERIOD, PERIOD, q));
                let t = truths[p].iter().find(|(d, _)| *d == q).expect("400 us is a reference scale").1;
                [rel_error(e.max, t.max), rel_error(e.std, t.std), rel_error(e.p95, t.p95)]
            })
            .collect();
        let mean: [f64; 3] = std::array::from_fn(|i| errs.iter().map(|e| e[i]).sum::<f64>() / periods as f64);
        let max: [f64; 3] = std::array::from_fn(|i| errs.iter().map(|e| e[i]).fold(0.0, f64::max));
        fig4.push((m, mean, max));
    }
    drop(progress);
    if let Some(p) = &a.plot {
        crate::plot::write(p, &figure(&fig4)?)?;
    }
    let secs = t0.elapsed().as_secs_f64();
    let bytes: u64 = packets.iter().map(|p| p.len as u64).sum();
    if a.json {
        crate::output::print_json(json!({
            "trace": { "packets": packets.len(), "bytes": bytes, "periods": periods, "seed": a.seed },
            "reference_scales_ns": scales,
            "expb": { "engine": a.engine, "synopsis_match": expb_match, "timing": expb_timing },
            "table1": rows.iter().map(|(n, f, c)| json!({ "method": n,
                "fine": { "max": f[0], "std": f[1], "p95": f[2] },
                "coarse": { "max": c[0], "std": c[1], "p95": c[2] } })).collect::<Vec<_>>(),
            "fig4": fig4.iter().map(|(m, mean, max)| json!({ "buckets": m,
                "mean": { "max": mean[0], "std": mean[1], "p95": mean[2] },
                "worst": { "max": max[0], "std": max[1], "p95": max[2] } })).collect::<Vec<_>>(),
            "dbm": dbm_engines.iter().map(|(k, _, m, t)| (k.to_string(),
                json!({ "engine": a.engine, "synopsis_match": m, "timing": t })))
                .collect::<serde_json::Map<_, _>>(),
            "seconds": secs,
        }))?;
        return Ok(());
    }
    println!(
        "Bursty synthetic trace: {} packets, {:.1} MB in {periods} periods of 2 s, seed {}; {} reference scales \
         from 78.125 us to 2 s, those dividing 2 s (EXPB answers up to 80 ms).\n",
        packets.len(),
        bytes as f64 / 1e6,
        a.seed,
        scales.len()
    );
    println!("Table 1 (max over scales of the average relative error over periods):\n");
    println!("| method | max ≤ 2 ms | std ≤ 2 ms | p95 ≤ 2 ms | max > 2 ms | std > 2 ms | p95 > 2 ms |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (n, f, c) in &rows {
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} |",
            pct(f[0]),
            pct(f[1]),
            pct(f[2]),
            pct(c[0]),
            pct(c[1]),
            pct(c[2])
        );
    }
    println!("\nFig. 4 (DBM-mr, 78.125 us base, query at 400 us; mean and worst over periods):\n");
    println!("| buckets | max: mean | max: worst | std: mean | std: worst | p95: mean | p95: worst |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for (m, mean, max) in &fig4 {
        println!(
            "| {m} | {} | {} | {} | {} | {} | {} |",
            pct(Some(mean[0])),
            pct(Some(max[0])),
            pct(Some(mean[1])),
            pct(Some(max[1])),
            pct(Some(mean[2])),
            pct(Some(max[2]))
        );
    }
    if expb_match == Some(true) {
        println!("\nThe EXPB rows' synopses: golden and RTL match bit for bit.");
    }
    for (_, name, matched, _) in &dbm_engines {
        if *matched == Some(true) {
            println!("The {name} row's bucket partitions: golden and RTL match bit for bit.");
        }
    }
    println!("\n({secs:.1} s)");
    Ok(())
}

/// Fig. 4 as a figure: DBM-mr's relative error of the max, std-dev and 95th
/// percentile at 400 µs versus the number of buckets, mean over periods (§4.1).
fn figure(fig4: &[(usize, [f64; 3], [f64; 3])]) -> Result<String, String> {
    use crate::plot::{Axes, Series, line_chart};
    let series: Vec<Series> = ["max", "std-dev", "p95"]
        .iter()
        .enumerate()
        .map(|(i, stat)| {
            Series::new(
                i,
                format!("{stat} (mean over periods)"),
                fig4.iter().map(|(m, mean, _)| (*m as f64, 100.0 * mean[i])).collect(),
            )
        })
        .collect();
    let axes = Axes {
        title: "DBM-mr at 400 us: error vs buckets",
        x: "buckets (log scale)",
        y: "relative error (%)",
        log_x: true,
        log_y: false,
    };
    line_chart(&axes, &series, &|x| format!("{x:.0}"))
}
