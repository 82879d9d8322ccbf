//! `netmeas demo`: every block of the core registry on its default config —
//! exported and linted, co-simulated cycle for cycle against its golden model,
//! its estimate next to the truth on a default run, and its synthesis figures.
//!
//! The per-block part is one [`DemoHook`] in [`HOOKS`], beside the registry
//! entry of the same name (`netmeas_hdl::registry::CORES`).

use crate::{block_config, cores, synth_one};
use netmeas_hdl::export::export;
use netmeas_hdl::registry::{self, Target};
use netmeas_testbench::CoreRtl;
use netmeas_testbench::models::*;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// What the demo co-simulated of one block.
pub struct Cosim {
    /// The Verilated model (a `testbench/variants.rs` entry).
    pub model: &'static str,
    /// Whether the model's config is the block's default.
    pub default_config: bool,
    /// Cycles compared.
    pub cycles: u64,
    /// What the stimulus exercised, in words (packets, epochs, …).
    pub exercised: String,
}

/// The demo's per-block part.
pub trait DemoHook: Sync {
    /// The registry name it belongs to.
    fn name(&self) -> &'static str;
    /// Co-simulates the block for about `cycles` cycles with `seed`, every
    /// output compared on every cycle; nothing where the block is
    /// co-simulated by its estimate's run instead (`Ok(None)`: the board engine).
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String>;
    /// The estimate the block exists for next to the truth, from `netmeas`
    /// runs of golden model and Verilated core on the same packets; `None`
    /// for a building block without an estimator.
    fn estimate(&self) -> Option<Result<Estimate, String>> {
        None
    }
}

/// What a block's runs showed.
pub struct Estimate {
    /// Whether golden and RTL synopses matched bit for bit (`None`: the
    /// run checks them itself and fails otherwise).
    pub matched: Option<bool>,
    /// The estimate next to the truth, one line.
    pub line: String,
}

/// Runs `netmeas ARGS` and returns its JSON with the synopsis check.
fn run_checked(args: &[&str]) -> Result<(Value, Option<bool>), String> {
    let v = run_json(args)?;
    let m = synopses_matched(&v);
    Ok((v, m))
}

/// The estimate of a run whose JSON holds `estimates` and `truth` objects
/// with a mean and a standard deviation (LDA, RDA).
fn mean_std(args: &[&str]) -> Result<Estimate, String> {
    let (v, matched) = run_checked(args)?;
    let line = format!(
        "{}; {}",
        versus("mean", num(&v, "estimates.mean")?, num(&v, "truth.mean")?, " ns"),
        versus("std", num(&v, "estimates.std")?, num(&v, "truth.std")?, " ns")
    );
    Ok(Estimate { matched, line })
}

/// The peak bandwidth at a few time scales (2, 16 and 256 × 78.125 µs, all
/// EXPB scales), each from one `netmeas run CORE --query max` on the default
/// trace, next to the exact peak.
fn peaks(core: &str) -> Result<Estimate, String> {
    let mut parts = Vec::new();
    let mut matched = Some(true);
    for us in ["156.25", "1250", "20000"] {
        let (v, m) = run_checked(&["run", core, "--engine", "both", "--query", "max", "--timescale-us", us, "--json"])?;
        matched = matched.zip(m).map(|(a, b)| a && b);
        let est = v["result"]["estimates"].as_array().and_then(|a| a.first()).and_then(Value::as_f64);
        let truth = v["result"]["truth"].as_array().and_then(|a| a.first()).and_then(Value::as_f64);
        let (Some(est), Some(truth)) = (est, truth) else {
            return Err(format!("run {core}: no answer at {us} us"));
        };
        let mbps = |bytes: f64| bytes * 8.0 / us.parse::<f64>().expect("a number");
        parts.push(versus(&format!("peak at {us} us"), mbps(est), mbps(truth), " Mb/s"));
    }
    Ok(Estimate { matched, line: parts.join("; ") })
}

/// `model`'s name and whether its config is the registry default of `block`.
fn model_of<M: CoreRtl>(block: &str) -> (&'static str, bool)
where
    M::Config: serde::Serialize,
{
    let default = registry::core(block).and_then(|c| c.default_config(None)).map(|c| c.to_json()).ok();
    let built = serde_json::to_value(M::config()).ok();
    (M::NAME, default.is_some() && default == built)
}

fn cosim_of<M: CoreRtl>(block: &str, cycles: u64, exercised: String) -> Cosim
where
    M::Config: serde::Serialize,
{
    let (model, default_config) = model_of::<M>(block);
    Cosim { model, default_config, cycles, exercised }
}

/// A number of a run's JSON at `path` (`a.b.c`).
fn num(v: &Value, path: &str) -> Result<f64, String> {
    path.split('.')
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("the run's JSON has no number at `{path}`"))
}

/// The relative error in per cent, or a dash against a zero truth.
fn rel(est: f64, truth: f64) -> String {
    if truth != 0.0 { format!("{:+.2} %", 100.0 * (est - truth) / truth) } else { "-".into() }
}

/// `name est (truth t, error e %)`.
fn versus(name: &str, est: f64, truth: f64, unit: &str) -> String {
    format!("{name} {est:.1}{unit} (truth {truth:.1}{unit}, {})", rel(est, truth))
}

/// [`versus`] for delays in ns, each in the unit that suits it.
fn versus_ns(name: &str, est: f64, truth: f64) -> String {
    use crate::plot::fmt_ns;
    format!("{name} {} (truth {}, {})", fmt_ns(est), fmt_ns(truth), rel(est, truth))
}

struct H3;
impl DemoHook for H3 {
    fn name(&self) -> &'static str {
        "h3"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        let n = netmeas_testbench::cosim_h3::<H3Wide>(60000, seed, cycles).map_err(|m| m.to_string())?;
        Ok(Some(cosim_of::<H3Wide>(self.name(), n, "random keys, valid 92 %".into())))
    }
}

struct FrameParser;
impl DemoHook for FrameParser {
    fn name(&self) -> &'static str {
        "frame-parser"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        let st = netmeas_testbench::cosim_frame_parser::<Fp64>(seed, cycles).map_err(|m| m.to_string())?;
        let exercised =
            format!("{} frames, {} records (link-shaped traffic, every header variant)", st.frames, st.records);
        Ok(Some(cosim_of::<Fp64>(self.name(), st.cycles, exercised)))
    }
}

struct CounterBank;
impl DemoHook for CounterBank {
    fn name(&self) -> &'static str {
        "counter-bank"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        use netmeas_testbench::{CbStimulus, cosim_counter_bank_streams};
        let st = cosim_counter_bank_streams::<CbDefault>(CbStimulus::default(), seed, cycles, cores())
            .map_err(|m| m.to_string())?;
        let ex = format!(
            "{} updates, same-row hazards at distance 1..4 {:?}, {} epochs read",
            st.updates, st.hazards, st.epochs_read
        );
        Ok(Some(cosim_of::<CbDefault>(self.name(), st.cycles, ex)))
    }
}

struct Lda;
impl DemoHook for Lda {
    fn name(&self) -> &'static str {
        "lda"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        use netmeas_testbench::{LdaStimulus, cosim_lda};
        let st = cosim_lda::<LdaDefault>(LdaStimulus::default(), seed, cycles).map_err(|m| m.to_string())?;
        Ok(Some(cosim_of::<LdaDefault>(self.name(), st.cycles, format!("{} packets", st.packets))))
    }
    fn estimate(&self) -> Option<Result<Estimate, String>> {
        Some(mean_std(&["run", "lda", "--engine", "both", "--json"]))
    }
}

struct Rda;
impl DemoHook for Rda {
    fn name(&self) -> &'static str {
        "rda"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        use netmeas_testbench::{RdaStimulus, cosim_rda};
        let st = cosim_rda::<RdaDefault>(RdaStimulus::default(), seed, cycles).map_err(|m| m.to_string())?;
        Ok(Some(cosim_of::<RdaDefault>(self.name(), st.cycles, format!("{} packets", st.packets))))
    }
    fn estimate(&self) -> Option<Result<Estimate, String>> {
        Some(mean_std(&["run", "rda", "--engine", "both", "--json"]))
    }
}

struct Fridge;
impl DemoHook for Fridge {
    fn name(&self) -> &'static str {
        "fridge"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        use netmeas_testbench::fridge::{FridgeStimulus, cosim_fridge};
        let st = cosim_fridge::<FridgeDefault>(FridgeStimulus::default(), seed, cycles).map_err(|m| m.to_string())?;
        Ok(Some(cosim_of::<FridgeDefault>(self.name(), st.cycles, format!("{} packets", st.packets))))
    }
    fn estimate(&self) -> Option<Result<Estimate, String>> {
        Some(run_checked(&["run", "fridge", "--engine", "both", "--json"]).and_then(|(v, matched)| {
            let line = format!(
                "{}; {}",
                versus_ns("p50", num(&v, "estimates.p50")?, num(&v, "truth.p50")?),
                versus_ns("p99", num(&v, "estimates.p99")?, num(&v, "truth.p99")?)
            );
            Ok(Estimate { matched, line })
        }))
    }
}

struct Expb;
impl DemoHook for Expb {
    fn name(&self) -> &'static str {
        "expb"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        use netmeas_testbench::expb::{ExpbStimulus, cosim_expb};
        let st = cosim_expb::<ExpbDefault>(ExpbStimulus::default(), seed, cycles).map_err(|m| m.to_string())?;
        Ok(Some(cosim_of::<ExpbDefault>(self.name(), st.cycles, format!("{} packets", st.packets))))
    }
    fn estimate(&self) -> Option<Result<Estimate, String>> {
        Some(peaks("expb"))
    }
}

struct Dbm;
impl DemoHook for Dbm {
    fn name(&self) -> &'static str {
        "dbm"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        use netmeas_testbench::dbm::{DbmStimulus, cosim_dbm};
        let st = cosim_dbm::<DbmDefault>(DbmStimulus::default(), seed, cycles).map_err(|m| m.to_string())?;
        Ok(Some(cosim_of::<DbmDefault>(self.name(), st.cycles, format!("{} packets", st.packets))))
    }
    fn estimate(&self) -> Option<Result<Estimate, String>> {
        Some(peaks("dbm"))
    }
}

struct Svbf;
impl DemoHook for Svbf {
    fn name(&self) -> &'static str {
        "svbf"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        use netmeas_testbench::svbf::{SvbfStimulus, cosim_svbf};
        let st = cosim_svbf::<SvbfDefault>(SvbfStimulus::default(), seed, cycles).map_err(|m| m.to_string())?;
        Ok(Some(cosim_of::<SvbfDefault>(self.name(), st.cycles, format!("{} packets", st.packets))))
    }
    fn estimate(&self) -> Option<Result<Estimate, String>> {
        Some(run_checked(&["run", "svbf", "--engine", "both", "--json"]).and_then(|(v, matched)| {
            let line = format!(
                "per-packet latency vs truth: relative error p50 {:.4}, p90 {:.4}, p99 {:.4}",
                num(&v, "report.rel_error.p50")?,
                num(&v, "report.rel_error.p90")?,
                num(&v, "report.rel_error.p99")?
            );
            Ok(Estimate { matched, line })
        }))
    }
}

struct Link;
impl DemoHook for Link {
    fn name(&self) -> &'static str {
        "link"
    }
    fn cosim(&self, cycles: u64, seed: u64) -> Result<Option<Cosim>, String> {
        let st = netmeas_testbench::link::cosim_link::<LinkDefault>(seed, cycles).map_err(|m| m.to_string())?;
        Ok(Some(cosim_of::<LinkDefault>(self.name(), st.cycles, format!("{} register accesses", st.accesses))))
    }
}

struct Engine;
impl DemoHook for Engine {
    fn name(&self) -> &'static str {
        "engine"
    }
    /// The engine is co-simulated as the board's reader sees it: the
    /// Verilated engine on a simulated serial line, every epoch's synopses
    /// checked against the golden cores (its estimate's run), so there is no
    /// separate per-cycle stream.
    fn cosim(&self, _cycles: u64, _seed: u64) -> Result<Option<Cosim>, String> {
        Ok(None)
    }
    fn estimate(&self) -> Option<Result<Estimate, String>> {
        let args = ["board", "read", "--port", "sim", "--epochs", "1", "--packets", "8192", "--json"];
        Some(run_json(&args).and_then(|v| {
            let e = v["epochs"].as_array().and_then(|e| e.first()).ok_or("the read's JSON has no epoch")?;
            if e["synopses_match"] != Value::Bool(true) {
                return Err("the engine's synopses differ from the golden cores'".into());
            }
            let line = format!(
                "LDA pair on the board's packets: {}; {}",
                versus("mean", num(e, "estimates.mean")?, num(e, "truth.mean")?, " ns"),
                versus("std", num(e, "estimates.std")?, num(e, "truth.std")?, " ns")
            );
            Ok(Estimate { matched: None, line })
        }))
    }
}

/// The demo's hooks, one per registry entry, in the registry's order.
pub static HOOKS: &[&dyn DemoHook] =
    &[&H3, &CounterBank, &FrameParser, &Lda, &Rda, &Fridge, &Expb, &Dbm, &Svbf, &Link, &Engine];

/// Runs `netmeas ARGS` (this executable) and returns its one JSON object.
fn run_json(args: &[&str]) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find netmeas itself: {e}"))?;
    let o = Command::new(exe).args(args).output().map_err(|e| format!("cannot run netmeas: {e}"))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        return Err(format!("`netmeas {}` failed: {}", args.join(" "), err.trim()));
    }
    serde_json::from_slice(&o.stdout).map_err(|e| format!("`netmeas {}`: not one JSON object: {e}", args.join(" ")))
}

/// Whether the golden and RTL synopses of a run matched, from its JSON.
fn synopses_matched(v: &Value) -> Option<bool> {
    v.get("synopsis_match").or_else(|| v.get("synopses_match")).and_then(Value::as_bool)
}

/// `netmeas demo`.
pub fn demo(cycles: u64, no_synth: bool) -> Result<(), String> {
    let out = Path::new("out");
    let started = Instant::now();
    let mut report = String::from("# netmeas demo report\n\n");
    writeln!(
        report,
        "Every block of the registry on its default config. The shipped testbench is the export's \
         self-checking Verilog testbench under Icarus Verilog. Co-simulation compares every output of the \
         Verilated core with its golden model on every cycle; the estimate comes from `netmeas run` with \
         `--engine both` (golden model and Verilated core on the same packets, synopses compared bit for bit).\n"
    )
    .unwrap();
    report.push_str(
        "| block | top module | lint | shipped testbench (Icarus) | co-simulated model | cycles bit-exact | exercised | run synopses | estimate vs truth |\n\
         |---|---|---|---|---|---:|---|---|---|\n",
    );
    let mut failures = Vec::new();
    let progress = crate::progress::Progress::bar(registry::CORES.len() as u64, "demo", false);
    for (i, core) in registry::CORES.iter().enumerate() {
        let hook = HOOKS
            .iter()
            .find(|h| h.name() == core.name())
            .ok_or_else(|| format!("no demo hook for `{}`: add one to src/demo.rs", core.name()))?;
        let name = core.name();
        progress.message(format!("{name}: export, lint, co-simulation, estimate"));
        let cfg = block_config(name, None, None)?;
        let e = export(&cfg).map_err(|e| e.to_string())?;
        let tb = e.testbench(2026, None);
        let files = e.write(&out.join("export"), netmeas_hdl::export::DEFAULT_CLOCK_MHZ, tb.as_ref().ok())?;
        let shipped = match &tb {
            Ok(tb) => match crate::sim_cmd::run_icarus(&out.join("export"), &e.top, tb) {
                Ok((_, secs)) => format!("PASS, {} cycles, {secs:.1} s", tb.cycles),
                Err(m) => {
                    failures.push(format!("{name}: shipped testbench: {m}"));
                    "FAILED".into()
                }
            },
            Err(why) => format!("none: {}", why.rsplit(": no shipped testbench: ").next().unwrap_or(why)),
        };
        let lint = match netmeas_hdl::tools::lint(&files[0], &e.top) {
            Ok(()) => "clean".to_string(),
            Err(m) => {
                failures.push(format!("{name}: lint: {m}"));
                "FAILED".into()
            }
        };
        let (model, cyc, exercised) = match hook.cosim(cycles, 2026 + i as u64) {
            Ok(Some(c)) => {
                let m = if c.default_config {
                    format!("`{}`", c.model)
                } else {
                    format!("`{}` (not the default)", c.model)
                };
                (m, c.cycles.to_string(), c.exercised)
            }
            Err(m) => {
                failures.push(format!("{name}: co-simulation: {m}"));
                ("FAILED".into(), "-".into(), m)
            }
            Ok(None) => ("-".into(), "-".into(), "in its run: `board read --port sim`".into()),
        };
        let (matched, estimate) = match hook.estimate() {
            None => ("-".to_string(), "no estimator: a building block of the cores".to_string()),
            Some(Ok(Estimate { matched, line })) => {
                let m = match matched {
                    Some(true) => "bit-identical".to_string(),
                    Some(false) => {
                        failures.push(format!("{name}: golden and RTL synopses differ"));
                        "DIFFER".into()
                    }
                    None => "checked by the reader".into(),
                };
                (m, line)
            }
            Some(Err(m)) => {
                failures.push(format!("{name}: {m}"));
                ("FAILED".into(), m)
            }
        };
        writeln!(
            report,
            "| {name} | `{}` | {lint} | {shipped} | {model} | {cyc} | {exercised} | {matched} | {estimate} |",
            e.top
        )
        .unwrap();
        progress.println(format!("{name}: lint {lint}, co-simulation {cyc} cycles, run {matched}"));
        progress.inc();
    }
    drop(progress);
    if !no_synth {
        report.push_str(
            "\n## Synthesis (Yosys + nextpnr, register-to-register harness)\n\n\
             | block | target | Fmax MHz | reference Fmax MHz | ratio | LUT | FF | BRAM |\n\
             |---|---|---:|---:|---:|---:|---:|---:|\n",
        );
        for core in registry::CORES.iter().filter(|c| c.kind() != registry::Kind::System) {
            for target in Target::ALL {
                if let Some(why) = core.unfit_for(target) {
                    writeln!(report, "| {} | {} | not built: {why} | | | | | |", core.name(), target.name()).unwrap();
                    continue;
                }
                let r = synth_one(core.name(), None, target, false)?;
                crate::print_synth(&r, false)?;
                let (reference, ratio) = match (r.ref_fmax_mhz, r.ratio) {
                    (Some(f), Some(q)) => (format!("{f:.1}"), format!("{q:.3}")),
                    _ => (format!("none: {}", r.no_reference.as_deref().unwrap_or("no reference")), "-".into()),
                };
                writeln!(
                    report,
                    "| {} | {} | {:.1} | {reference} | {ratio} | {} | {} | {} |",
                    r.core,
                    r.target.name(),
                    r.fmax_mhz,
                    r.luts,
                    r.ffs,
                    r.brams
                )
                .unwrap();
            }
        }
    }
    writeln!(report, "\nWall time: {:.0} s.", started.elapsed().as_secs_f64()).unwrap();
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    crate::output::write_atomic(out, "report.md", &report)?;
    println!("{report}");
    eprintln!("[demo] wrote out/report.md");
    if failures.is_empty() { Ok(()) } else { Err(failures.join("; ")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_entry_has_one_demo_hook() {
        let hooks: Vec<&str> = HOOKS.iter().map(|h| h.name()).collect();
        assert_eq!(hooks, registry::names());
    }
}
