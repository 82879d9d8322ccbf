//! `netmeas run dbm` and `netmeas run expb`: the bandwidth cores (Uyeda,
//! Foschini, Baker, Suri, Varghese) on a bursty synthetic stream or a
//! capture, queried after the fact at any time scale (§3: max, std-dev,
//! 95th percentile, mean, the coarsest scale whose peak exceeds a rate) and
//! scored against the exact statistics of the raw stream.

use crate::args::{BwTraffic, Engine, TrafficSource, parse_duration_ns, run_engines};
use clap::Args;
use netmeas_sim::dbm::{
    BwPacket, DbmConfig, DbmPeriod, ExpbConfig, ExpbPeriod, MergeRule, SeriesStats, coarsest_exceeding, dbm_series,
    expb_stats, run_dbm, run_expb, series_stats, true_series,
};
use netmeas_sim::error::load_config;
use netmeas_sim::stats::rel_error;
use netmeas_testbench::dbm::{check_rtl_dbm_config, rtl_dbm_run};
use netmeas_testbench::expb::{check_rtl_expb_config, rtl_expb_run};
use serde_json::{Value, json};
use std::path::PathBuf;

/// What is asked of the synopses.
#[derive(Args, Clone, Debug)]
pub struct BwQuery {
    /// Statistic of S_Δ: max, std, p95, mean, or coarsest:L (the coarsest Δ = T·2^j whose peak
    /// bandwidth exceeds L bits/s, e.g. coarsest:2e9).
    #[arg(long, default_value = "max")]
    pub query: String,
    /// The query time scale T in µs (§4.1: 400 µs in Fig. 4).
    #[arg(long, default_value_t = 400.0)]
    pub timescale_us: f64,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// A parsed query.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Query {
    Mean,
    Max,
    Std,
    P95,
    /// Rate in bytes per ns.
    Coarsest(f64),
}

impl BwQuery {
    fn parse(&self) -> Result<(Query, u64), String> {
        let q = match self.query.as_str() {
            "mean" => Query::Mean,
            "max" => Query::Max,
            "std" => Query::Std,
            "p95" => Query::P95,
            s => match s.strip_prefix("coarsest:").map(str::parse::<f64>) {
                Some(Ok(l)) if l.is_finite() && l > 0.0 => Query::Coarsest(l / 8.0 / 1e9),
                _ => {
                    return Err(format!("--query `{s}`: expected max, std, p95, mean or coarsest:L (L in bits/s)"));
                }
            },
        };
        let t = self.timescale_us * 1e3;
        if !(t.is_finite() && t >= 1.0 && t.fract() == 0.0 && t < (1u64 << 48) as f64) {
            return Err(format!("--timescale-us {}: not a whole number of ns", self.timescale_us));
        }
        Ok((q, t as u64))
    }
}

fn pick(q: Query, s: &SeriesStats) -> f64 {
    match q {
        Query::Mean => s.mean,
        Query::Max => s.max,
        Query::Std => s.std,
        Query::P95 => s.p95,
        Query::Coarsest(_) => unreachable!("coarsest is answered by scales"),
    }
}

/// One period's answer: estimate and truth (for coarsest: Δ in ns, 0 when no Δ qualifies).
struct Answer {
    index: u64,
    estimate: f64,
    truth: f64,
}

fn period_packets(packets: &[BwPacket], t0: u64, period: u64) -> &[BwPacket] {
    let a = packets.partition_point(|p| p.ts < t0);
    let b = packets.partition_point(|p| p.ts < t0 + period);
    &packets[a..b]
}

/// Most periods one run may measure (each keeps its buckets for the answer).
const MAX_PERIODS: u64 = 1 << 20;

/// Refuses a run whose periods could not be held, and a query time scale
/// longer than the period (no interval of it fits in one).
fn check_span(packets: &[BwPacket], period_ticks: u64, delta: u64, q: Query) -> Result<(), String> {
    let periods = packets.last().map_or(1, |p| p.ts / period_ticks + 1);
    if periods > MAX_PERIODS {
        return Err(format!(
            "--period {period_ticks} ns: the traffic spans {periods} periods, more than the {MAX_PERIODS} one run holds"
        ));
    }
    if !matches!(q, Query::Coarsest(_)) && delta > period_ticks {
        return Err(format!(
            "--timescale-us {}: longer than the period of {} us, so no interval of it fits in one",
            delta as f64 / 1e3,
            period_ticks as f64 / 1e3
        ));
    }
    Ok(())
}

fn parse_period(s: &str) -> Result<u64, String> {
    let t = parse_duration_ns(s)?;
    if t.fract() != 0.0 {
        return Err(format!("--period {s}: not a whole number of ns"));
    }
    Ok(t as u64)
}

fn parse_base_us(flag: &str, us: f64) -> Result<u64, String> {
    let t = us * 1e3;
    if !(t.is_finite() && t >= 0.0 && t.fract() == 0.0) {
        return Err(format!("{flag} {us}: not a whole number of ns"));
    }
    Ok(t as u64)
}

/// A bandwidth run's JSON report: `run` (core, engine, config, synopsis
/// match), the traffic, the query asked, and `rest` (periods, result, timing).
fn report_json(q: &BwQuery, run: Value, source: &TrafficSource, packets: &[BwPacket], rest: Value) -> Value {
    let mut v = run;
    let bytes: u64 = packets.iter().map(|p| p.len as u64).sum();
    v["units"] = json!("ns, bytes");
    let (name, capture) = source.json_fields();
    v["traffic"] = json!({ "source": name, "capture": capture, "packets": packets.len(), "bytes": bytes });
    v["query"] = json!(q.query);
    v["timescale_us"] = json!(q.timescale_us);
    if let (Some(m), Value::Object(r)) = (v.as_object_mut(), rest) {
        m.extend(r);
    }
    v
}

fn summary_json(answers: &[Answer]) -> Value {
    let errs: Vec<f64> = answers.iter().map(|a| rel_error(a.estimate, a.truth)).collect();
    let finite: Vec<f64> = errs.iter().copied().filter(|e| e.is_finite()).collect();
    json!({
        "estimates": answers.iter().map(|a| a.estimate).collect::<Vec<_>>(),
        "truth": answers.iter().map(|a| a.truth).collect::<Vec<_>>(),
        "relative_errors": errs.iter().map(|&e| if e.is_finite() { json!(e) } else { Value::Null }).collect::<Vec<_>>(),
        "max_relative_error": finite.iter().copied().fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e)))),
        "mean_relative_error": if finite.is_empty() { None } else { Some(finite.iter().sum::<f64>() / finite.len() as f64) },
    })
}

fn print_answers(what: &str, q: Query, answers: &[Answer]) {
    let unit = |v: f64| match q {
        Query::Coarsest(_) if v == 0.0 => "none".to_string(),
        Query::Coarsest(_) => format!("{:.3} ms", v / 1e6),
        _ => format!("{v:.0} B"),
    };
    for a in answers {
        let e = rel_error(a.estimate, a.truth);
        println!(
            "period {:<4} {what}: estimate {:>14}  truth {:>14}  relative error {}",
            a.index,
            unit(a.estimate),
            unit(a.truth),
            if e.is_finite() { format!("{:.2} %", 100.0 * e) } else { "n/a (truth 0)".into() }
        );
    }
}

/// Flags of `netmeas run dbm`.
#[derive(Args, Clone, Debug)]
pub struct RunDbm {
    /// Base config file (TOML or JSON); the flags below override its fields.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Buckets m (2-1024).
    #[arg(long)]
    pub buckets: Option<usize>,
    /// Merge rule: mm (mass, Algorithm 1), mr (range) or mv (variance), §3.1.3.
    #[arg(long)]
    pub mode: Option<String>,
    /// Base interval Δ in µs: every Δ-interval sum becomes a bucket; 0 = per packet (mm only).
    /// Default: 0 for mm, 78.125 (§4.1) for mr and mv.
    #[arg(long)]
    pub base_us: Option<f64>,
    /// Aggregation period T (default: the config's, §4.1: 2 s).
    #[arg(long)]
    pub period: Option<String>,
    /// Seed of the culprit PRNG (§3.3).
    #[arg(long)]
    pub culprit_seed: Option<u32>,
    /// Engine: golden (the bit-exact model), rtl (the Verilated DBM core, per packet or base
    /// interval, for the configs it was built from) or both (compared period by period).
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Write the first period's bucket partition over the true S_T as an SVG (Fig. 5 style).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Write each period's synopsis (config and buckets, what `netmeas
    /// station ingest` takes) into this folder as period-<index>.json.
    #[arg(long)]
    pub save_periods: Option<PathBuf>,
    #[command(flatten)]
    pub traffic: BwTraffic,
    #[command(flatten)]
    pub query: BwQuery,
}

impl RunDbm {
    fn dbm_config(&self) -> Result<DbmConfig, String> {
        let mut c = match &self.config {
            Some(p) => load_config::<DbmConfig>(p).map_err(|e| e.to_string())?,
            None => DbmConfig::default(),
        };
        if let Some(m) = self.buckets {
            c.buckets = m;
        }
        if let Some(m) = &self.mode {
            c.rule = MergeRule::parse(m).map_err(|e| format!("--mode: {e}"))?;
            if self.base_us.is_none() && c.rule != MergeRule::Mm && c.base_ticks == 0 {
                c.base_ticks = 78_125;
            }
        }
        if let Some(b) = self.base_us {
            c.base_ticks = parse_base_us("--base-us", b)?;
        }
        if let Some(t) = &self.period {
            c.period_ticks = parse_period(t)?;
        }
        if let Some(s) = self.culprit_seed {
            c.seed = s;
        }
        c.validate().map_err(|e| e.to_string())?;
        Ok(c)
    }
}

/// `netmeas run dbm`.
pub fn run_dbm_cmd(a: &RunDbm) -> Result<(), String> {
    let progress = crate::progress::Progress::spinner("run dbm", a.query.json);
    let cfg = a.dbm_config()?;
    let (q, delta) = a.query.parse()?;
    a.plot.as_deref().map(crate::plot::check_path).transpose()?;
    let engine = a.engine;
    if engine != Engine::Golden {
        check_rtl_dbm_config(&cfg)?;
    }
    let (packets, source) = a.traffic.packets()?;
    check_span(&packets, cfg.period_ticks, delta, q)?;
    let (periods, synopsis_match, timing) = run_dbm_engines(&cfg, &packets, engine)?;
    if let Some(dir) = &a.save_periods {
        crate::output::write_numbered(
            dir,
            "period",
            periods.iter().map(|p| (p.index, netmeas_sim::dbm::DbmSynopsis { config: cfg.clone(), period: p.clone() })),
        )?;
    }
    let answers: Vec<Answer> = periods
        .iter()
        .map(|p| {
            let t0 = p.index * cfg.period_ticks;
            let own = period_packets(&packets, t0, cfg.period_ticks);
            let est_at = |d: u64| series_stats(&dbm_series(&p.buckets, t0, cfg.period_ticks, d));
            let true_at = |d: u64| series_stats(&true_series(own, t0, cfg.period_ticks, d));
            let (estimate, truth) = match q {
                Query::Coarsest(rate) => {
                    let cands: Vec<u64> = (0..48).map(|j| delta << j).take_while(|&d| d <= cfg.period_ticks).collect();
                    let e = coarsest_exceeding(&cands, rate, |d| Some(est_at(d).max)).unwrap_or(0);
                    let t = coarsest_exceeding(&cands, rate, |d| Some(true_at(d).max)).unwrap_or(0);
                    (e as f64, t as f64)
                }
                _ => (pick(q, &est_at(delta)), pick(q, &true_at(delta))),
            };
            Answer { index: p.index, estimate, truth }
        })
        .collect();
    if let Some(path) = &a.plot {
        let own = period_packets(&packets, 0, cfg.period_ticks);
        crate::plot::write(path, &buckets_svg(&periods[0], own, cfg.period_ticks, delta)?)?;
    }
    let mode = if cfg.base_ticks == 0 { "per packet".to_string() } else { format!("base {} ns", cfg.base_ticks) };
    drop(progress);
    if a.query.json {
        crate::output::print_json(report_json(
            &a.query,
            json!({ "core": "dbm", "engine": a.engine, "config": cfg, "synopsis_match": synopsis_match }),
            &source,
            &packets,
            json!({
                "periods": periods.iter().map(|p| json!({
                    "index": p.index, "packets": p.packets, "buckets": p.buckets.len(), "merges": p.merges,
                    "tail_joins": p.tail_joins,
                    "key_saturated": p.flags.key_saturated, "mass_saturated": p.flags.mass_saturated,
                    "interval_saturated": p.flags.interval_saturated,
                    "culprit": culprit_json(p),
                })).collect::<Vec<_>>(),
                "result": summary_json(&answers),
                "timing": timing,
            }),
        ))?;
    } else {
        println!(
            "dbm-{}, {} buckets, {mode}, period {} ns; {} packets in {} period(s) ({}); engine {}",
            cfg.rule.name(),
            cfg.buckets,
            cfg.period_ticks,
            packets.len(),
            periods.len(),
            source.text(),
            a.engine
        );
        print_answers(&format!("{} at {} us", a.query.query, a.query.timescale_us), q, &answers);
        for p in &periods {
            if let Some(b) = heaviest(p) {
                println!(
                    "period {:<4} densest bucket [{:.3} ms, {:.3} ms] {:.3} Gb/s, culprit flow {:#010x}",
                    p.index,
                    b.first as f64 / 1e6,
                    (b.last + 1) as f64 / 1e6,
                    b.mass as f64 * 8.0 / (b.last + 1 - b.first) as f64,
                    b.flow
                );
            }
            if p.flags != Default::default() {
                println!("period {:<4} flags {:?}", p.index, p.flags);
            }
        }
        print_timing(&timing, synopsis_match);
    }
    Ok(())
}

/// Runs `packets` on `engine` (see [`run_engines`]): the golden DBM, the
/// Verilated per-packet core, or both with every period's partition compared.
pub fn run_dbm_engines(
    cfg: &DbmConfig,
    packets: &[BwPacket],
    engine: Engine,
) -> Result<(Vec<DbmPeriod>, Option<bool>, Value), String> {
    let (periods, matched, timing) = run_engines(
        engine,
        packets.len() as f64,
        || run_dbm(cfg, packets),
        || rtl_dbm_run(cfg, packets).map(|d| (Ok(d.periods), json!({ "cycles": d.cycles, "stalls": d.stalls }))),
        |g, r| match (g, r) {
            (Ok(g), Ok(r)) => dbm_difference(g, r),
            _ => None,
        },
    )?;
    Ok((periods?, matched, timing))
}

/// Where the golden periods `g` and the RTL periods `r` first differ, if they do.
fn dbm_difference(g: &[DbmPeriod], r: &[DbmPeriod]) -> Option<String> {
    if g.len() != r.len() {
        return Some(format!("{} periods vs {}", g.len(), r.len()));
    }
    let (gp, rp) = g.iter().zip(r).find(|(a, b)| a != b)?;
    match (0..gp.buckets.len().max(rp.buckets.len())).find(|&j| gp.buckets.get(j) != rp.buckets.get(j)) {
        Some(j) => {
            Some(format!("period {} bucket {j}: golden {:?}, RTL {:?}", gp.index, gp.buckets.get(j), rp.buckets.get(j)))
        }
        None => Some(format!(
            "period {}: golden {} packets, {} merges, {} joins, {:?}; RTL {} packets, {} merges, {} joins, {:?}",
            gp.index, gp.packets, gp.merges, gp.tail_joins, gp.flags, rp.packets, rp.merges, rp.tail_joins, rp.flags
        )),
    }
}

/// The bucket with the highest bandwidth (mass per tick spanned).
fn heaviest(p: &DbmPeriod) -> Option<&netmeas_sim::dbm::Bucket> {
    p.buckets.iter().max_by(|a, b| {
        let ra = a.mass as f64 / (a.last + 1 - a.first) as f64;
        let rb = b.mass as f64 / (b.last + 1 - b.first) as f64;
        ra.total_cmp(&rb)
    })
}

fn culprit_json(p: &DbmPeriod) -> Value {
    match heaviest(p) {
        Some(b) => {
            json!({ "first": b.first, "last": b.last, "mass": b.mass, "flow": b.flow, "flow_count": b.flow_count })
        }
        None => Value::Null,
    }
}

/// The partition of one period as rectangles of its buckets' bandwidth over
/// the true S_Δ (grey steps), time in ms, bandwidth in Gb/s (Fig. 5).
fn buckets_svg(p: &DbmPeriod, packets: &[BwPacket], period: u64, delta: u64) -> Result<String, String> {
    let t0 = p.index * period;
    // bytes over ticks (ns) × 8: Gb/s.
    let gbps = |bytes: f64, ticks: f64| bytes * 8.0 / ticks;
    let truth: Vec<(u64, u64, f64)> = true_series(packets, t0, period, delta)
        .iter()
        .enumerate()
        .map(|(i, &v)| (t0 + i as u64 * delta, t0 + (i as u64 + 1) * delta, gbps(v, delta as f64)))
        .collect();
    let buckets: Vec<(u64, u64, f64)> =
        p.buckets.iter().map(|k| (k.first, k.last + 1, gbps(k.mass as f64, (k.last + 1 - k.first) as f64))).collect();
    let title = format!("period {}: DBM buckets over the true bandwidth at {} us", p.index, delta as f64 / 1e3);
    crate::plot::buckets_chart(&title, t0, period, &truth, &buckets)
}

/// Flags of `netmeas run expb`.
#[derive(Args, Clone, Debug)]
pub struct RunExpb {
    /// Base config file (TOML or JSON); the flags below override its fields.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Time scales m (1-16): Δ_i = 2^(i-1) Δ_1.
    #[arg(long)]
    pub scales: Option<usize>,
    /// Δ_1 in µs (§4.1: 78.125).
    #[arg(long)]
    pub base_us: Option<f64>,
    /// Aggregation period T, a multiple of Δ_m (default: the config's, §4.1: 2 s).
    #[arg(long)]
    pub period: Option<String>,
    /// Engine: golden (the bit-exact model), rtl (the Verilated core, for the
    /// configs it was built for: the paper's 11 scales from 78.125 µs over 2 s,
    /// and the test variants) or both (synopses compared bit for bit).
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Write each period's synopsis (config and statistics, what `netmeas
    /// station ingest` takes) into this folder as period-<index>.json.
    #[arg(long)]
    pub save_periods: Option<PathBuf>,
    #[command(flatten)]
    pub traffic: BwTraffic,
    #[command(flatten)]
    pub query: BwQuery,
}

/// `netmeas run expb`.
pub fn run_expb_cmd(a: &RunExpb) -> Result<(), String> {
    let progress = crate::progress::Progress::spinner("run expb", a.query.json);
    let mut cfg = match &a.config {
        Some(p) => load_config::<ExpbConfig>(p).map_err(|e| e.to_string())?,
        None => ExpbConfig::default(),
    };
    if let Some(m) = a.scales {
        cfg.scales = m;
    }
    if let Some(b) = a.base_us {
        cfg.base_ticks = parse_base_us("--base-us", b)?;
    }
    if let Some(t) = &a.period {
        cfg.period_ticks = parse_period(t)?;
    }
    cfg.validate().map_err(|e| e.to_string())?;
    let (q, delta) = a.query.parse()?;
    if q == Query::P95 {
        return Err("--query p95: EXPB keeps no quantiles (§4.1, Table 1: N/A); use run dbm".into());
    }
    let top = cfg.scale_ticks(cfg.scales - 1);
    if !matches!(q, Query::Coarsest(_)) && !(cfg.base_ticks..=top).contains(&delta) {
        return Err(format!(
            "--timescale-us {}: EXPB answers for Δ_1 = {} us ≤ T ≤ Δ_m = {} us (Lemma 2)",
            a.query.timescale_us,
            cfg.base_ticks as f64 / 1e3,
            top as f64 / 1e3
        ));
    }
    let engine = a.engine;
    if engine != Engine::Golden {
        check_rtl_expb_config(&cfg)?;
    }
    let (packets, source) = a.traffic.packets()?;
    check_span(&packets, cfg.period_ticks, delta, q)?;
    let (periods, synopsis_match, timing) = run_expb_engines(&cfg, &packets, engine)?;
    if let Some(dir) = &a.save_periods {
        crate::output::write_numbered(
            dir,
            "period",
            periods
                .iter()
                .map(|p| (p.index, netmeas_sim::dbm::ExpbSynopsis { config: cfg.clone(), period: p.clone() })),
        )?;
    }
    let answers: Vec<Answer> = periods
        .iter()
        .map(|p: &ExpbPeriod| {
            let t0 = p.index * cfg.period_ticks;
            let own = period_packets(&packets, t0, cfg.period_ticks);
            let true_at = |d: u64| series_stats(&true_series(own, t0, cfg.period_ticks, d));
            let (estimate, truth) = match q {
                Query::Coarsest(rate) => {
                    let cands: Vec<u64> = (0..cfg.scales).map(|j| cfg.scale_ticks(j)).filter(|&d| d >= delta).collect();
                    let e = coarsest_exceeding(&cands, rate, |d| expb_stats(p, &cfg, d).map(|s| s.max)).unwrap_or(0);
                    let t = coarsest_exceeding(&cands, rate, |d| Some(true_at(d).max)).unwrap_or(0);
                    (e as f64, t as f64)
                }
                _ => (pick(q, &expb_stats(p, &cfg, delta).expect("checked range")), pick(q, &true_at(delta))),
            };
            Answer { index: p.index, estimate, truth }
        })
        .collect();
    drop(progress);
    if a.query.json {
        crate::output::print_json(report_json(
            &a.query,
            json!({ "core": "expb", "engine": a.engine, "config": cfg, "synopsis_match": synopsis_match }),
            &source,
            &packets,
            json!({
                "periods": periods.iter().map(|p| json!({
                    "index": p.index, "packets": p.packets, "interval_saturated": p.interval_saturated,
                    "scales": p.scales.iter().enumerate().map(|(j, s)| json!({
                        "delta_ns": cfg.scale_ticks(j), "count": s.count, "sum": s.sum, "max": s.max,
                        "max_index": s.max_index, "std": s.std(), "culprit": s.max_flow,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "result": summary_json(&answers),
                "timing": timing,
            }),
        ))?;
    } else {
        println!(
            "expb, {} scales from {} ns, period {} ns; {} packets in {} period(s) ({}); engine {}",
            cfg.scales,
            cfg.base_ticks,
            cfg.period_ticks,
            packets.len(),
            periods.len(),
            source.text(),
            a.engine
        );
        print_answers(&format!("{} at {} us", a.query.query, a.query.timescale_us), q, &answers);
        for p in &periods {
            let (j, s) = p.scales.iter().enumerate().max_by_key(|(j, s)| s.max >> j).expect("m ≥ 1");
            println!(
                "period {:<4} peak {:.3} Gb/s at Δ = {} us (interval {}), culprit flow {:#010x}",
                p.index,
                s.max as f64 * 8.0 / cfg.scale_ticks(j) as f64,
                cfg.scale_ticks(j) as f64 / 1e3,
                s.max_index,
                s.max_flow
            );
        }
        print_timing(&timing, synopsis_match);
    }
    Ok(())
}

/// Runs `packets` on `engine` (see [`run_engines`]): the golden EXPB, the
/// Verilated core, or both with every period's statistics compared.
pub fn run_expb_engines(
    cfg: &ExpbConfig,
    packets: &[BwPacket],
    engine: Engine,
) -> Result<(Vec<ExpbPeriod>, Option<bool>, Value), String> {
    let (periods, matched, timing) = run_engines(
        engine,
        packets.len() as f64,
        || run_expb(cfg, packets),
        || rtl_expb_run(cfg, packets).map(|(p, c)| (Ok(p), json!({ "cycles": c.cycles, "stalls": c.stalls }))),
        |g, r| match (g, r) {
            (Ok(g), Ok(r)) => expb_difference(g, r),
            _ => None,
        },
    )?;
    Ok((periods?, matched, timing))
}

/// Where the golden periods `g` and the RTL periods `r` first differ, if they do.
fn expb_difference(g: &[ExpbPeriod], r: &[ExpbPeriod]) -> Option<String> {
    if g.len() != r.len() {
        return Some(format!("{} periods vs {}", g.len(), r.len()));
    }
    let (gp, rp) = g.iter().zip(r).find(|(a, b)| a != b)?;
    match (0..gp.scales.len()).find(|&j| gp.scales.get(j) != rp.scales.get(j)) {
        Some(j) => {
            Some(format!("period {} scale {j}: golden {:?}, RTL {:?}", gp.index, gp.scales[j], rp.scales.get(j)))
        }
        None => Some(format!("period {}: golden {gp:?}, RTL {rp:?}", gp.index)),
    }
}

/// Prints each engine's speed (and the RTL's cycles and input stalls) and
/// whether the synopses matched.
fn print_timing(timing: &Value, synopsis_match: Option<bool>) {
    for (name, t) in timing.as_object().into_iter().flatten() {
        let cycles = t.get("cycles").map_or(String::new(), |c| format!(", {c} cycles"));
        let stalls = t.get("stalls").map_or(String::new(), |c| format!(" ({c} clocks a packet waited)"));
        println!("{name:<16} {:.3e} packets/s{cycles}{stalls}", t["packets_per_s"].as_f64().unwrap_or(f64::NAN));
    }
    if synopsis_match == Some(true) {
        println!("golden and RTL synopses match bit for bit");
    }
}
