//! `netmeas sim`: a block's exported Verilog Verilated (`verilator --binary`)
//! with the self-checking testbench its export ships, run against the golden
//! per-clock model's vectors for the config, and, on request, its waveform
//! (VCD or FST, which GTKWave and Surfer open). Also the Icarus Verilog run
//! of a written export's testbench that `netmeas demo` reports.

use netmeas_hdl::export::{BlockConfig, export};
use netmeas_hdl::registry;
use netmeas_hdl::shipped_testbench::Testbench;
use netmeas_hdl::tools;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Which trace format a waveform path asks for: Verilator's flag.
fn trace_flag(wave: &Path) -> Result<&'static str, String> {
    match wave.extension().and_then(|e| e.to_str()) {
        Some("vcd") => Ok("--trace"),
        Some("fst") => Ok("--trace-fst"),
        _ => Err(format!("--wave {}: the file must end in .vcd or .fst", wave.display())),
    }
}

/// The blocks whose default config ships a testbench, for error messages.
fn blocks_with_testbench() -> String {
    registry::CORES
        .iter()
        .filter(|c| c.default_config(None).is_ok_and(|cfg| cfg.test_vectors(0, Some(2)).is_ok()))
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The shipped testbench's one `PASS: …` or `FAIL: …` line in its output.
fn verdict_line(out: &str) -> Option<String> {
    out.lines().find(|l| l.starts_with("PASS: ") || l.starts_with("FAIL: ")).map(str::to_string)
}

/// A build folder removed when dropped.
struct BuildDir(PathBuf);

impl Drop for BuildDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `cfg`'s shipped testbench under Verilator: `cycles` clocks of the
/// vectors drawn from `seed` (the block's own length when `None`), the
/// waveform into `wave` if given (kept on a mismatch too: that is when it is
/// wanted). Prints the testbench's PASS line and what the stimulus covered;
/// a mismatch is an error carrying the FAIL line.
pub fn sim(cfg: &BlockConfig, cycles: Option<usize>, seed: u64, wave: Option<&Path>) -> Result<(), String> {
    let flag = wave.map(trace_flag).transpose()?;
    if let Some(w) = wave {
        let parent = w.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !parent.is_dir() {
            return Err(format!("--wave {}: folder {} does not exist", w.display(), parent.display()));
        }
    }
    if cycles.is_some_and(|n| n < 2) {
        return Err("--cycles must be at least 2 (the power-up clock and the reset)".into());
    }
    let e = export(cfg).map_err(|e| e.to_string())?;
    let tb = e
        .testbench(seed, cycles)
        .map_err(|m| format!("{m}; the blocks that ship a testbench: {}", blocks_with_testbench()))?;
    let verilator = tools::verilator()?;
    let dir = BuildDir(std::env::temp_dir().join(format!("netmeas-sim-{}-{}", e.top, std::process::id())));
    std::fs::create_dir_all(&dir.0).map_err(|err| format!("cannot create {}: {err}", dir.0.display()))?;
    for (name, text) in [
        (format!("{}.v", e.top), &e.verilog),
        (format!("{}.v", tb.name), &tb.verilog),
        (tb.vectors_file(), &tb.vectors),
    ] {
        std::fs::write(dir.0.join(&name), text).map_err(|err| format!("cannot write {name}: {err}"))?;
    }
    eprintln!("netmeas sim: Verilating {} with its testbench ({} clocks)", e.top, tb.cycles);
    let mut build = Command::new(&verilator);
    build.current_dir(&dir.0).args(["--binary", "-j", "0", "--top-module", &tb.name, "-Mdir", "obj"]);
    build.args(flag).arg(format!("{}.v", tb.name)).arg(format!("{}.v", e.top));
    let o = build.output().map_err(|err| format!("cannot run {}: {err}", verilator.display()))?;
    if !o.status.success() {
        let log = String::from_utf8_lossy(&o.stderr);
        let first = log.lines().find(|l| l.contains("%Error")).unwrap_or("see above");
        return Err(format!("Verilator could not build the testbench: {first}"));
    }
    let trace = dir.0.join("trace");
    let mut run = Command::new(dir.0.join("obj").join(format!("V{}", tb.name)));
    run.current_dir(&dir.0);
    if wave.is_some() {
        run.arg(format!("+wave={}", trace.display()));
    }
    let o = run.output().map_err(|err| format!("cannot run the Verilated testbench: {err}"))?;
    let out = String::from_utf8_lossy(&o.stdout);
    let verdict = verdict_line(&out).ok_or_else(|| {
        format!("the testbench ended without a verdict: {}", String::from_utf8_lossy(&o.stderr).trim())
    })?;
    if let Some(w) = wave {
        // Copied, not renamed: the build folder may be on another file system.
        std::fs::copy(&trace, w).map_err(|err| format!("cannot write {}: {err}", w.display()))?;
    }
    if !verdict.starts_with("PASS: ") || !o.status.success() {
        return Err(verdict);
    }
    println!("{verdict}");
    println!("covered: {}", tb.coverage_line());
    if let Some(w) = wave {
        println!("waveform: {}", w.display());
    }
    Ok(())
}

/// Runs the testbench `tb` of the export `top` written in `dir` under Icarus
/// Verilog (`iverilog -g2005`, `vvp -n`, built in a scratch folder): its
/// PASS line and the simulation's seconds, or the FAIL line or what stopped it.
pub fn run_icarus(dir: &Path, top: &str, tb: &Testbench) -> Result<(String, f64), String> {
    // The simulation runs in the scratch folder: the export's paths must not be relative.
    let dir = &std::path::absolute(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    let build = BuildDir(std::env::temp_dir().join(format!("netmeas-icarus-{top}-{}", std::process::id())));
    std::fs::create_dir_all(&build.0).map_err(|err| format!("cannot create {}: {err}", build.0.display()))?;
    let vvp = build.0.join("tb.vvp");
    let o = Command::new("iverilog")
        .args(["-g2005", "-o"])
        .arg(&vvp)
        .arg(dir.join(format!("{}.v", tb.name)))
        .arg(dir.join(format!("{top}.v")))
        .output()
        .map_err(|err| format!("cannot run iverilog (tools/setup.sh installs it): {err}"))?;
    if !o.status.success() {
        let log = String::from_utf8_lossy(&o.stderr);
        return Err(format!("iverilog: {}", log.lines().next().unwrap_or("failed")));
    }
    let t = Instant::now();
    let o = Command::new("vvp")
        .current_dir(&build.0)
        .arg("-n")
        .arg(&vvp)
        .arg(format!("+vectors={}", dir.join(tb.vectors_file()).display()))
        .output()
        .map_err(|err| format!("cannot run vvp: {err}"))?;
    let secs = t.elapsed().as_secs_f64();
    let out = String::from_utf8_lossy(&o.stdout);
    let verdict = verdict_line(&out).ok_or("the testbench ended without a verdict")?;
    if verdict.starts_with("PASS: ") && o.status.success() { Ok((verdict, secs)) } else { Err(verdict) }
}
