//! Building and running the point's self-checking Verilog testbenches (the
//! record FIFO's, the bus slaves') in Icarus Verilog or Verilator: one
//! build per size, many runs by plusargs, a `PASS key=value …` or `FAIL …`
//! line as the result.

use crate::tools;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The testbenches' random draws (`xorshift32`), an include every build gets.
pub const XORSHIFT_VH: &str = include_str!("netmeas_tb_xorshift.vh");
/// One stream of draws (`prng`, `rnd`), an include every build gets.
pub const RND_VH: &str = include_str!("netmeas_tb_rnd.vh");

/// A simulator the testbenches run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulator {
    /// Icarus Verilog (`iverilog -g2005`, `vvp`).
    Icarus,
    /// Verilator (`--binary --timing`).
    Verilator,
}

/// Writes `files` (name, text) into the scratch folder `dir` and builds the
/// testbench `top` from the `.v` among them (the others are includes found
/// in `dir`, as are `netmeas_tb_xorshift.vh` and `netmeas_tb_rnd.vh`) with the parameters `params`
/// of `top`; the command that runs it, with its leading arguments.
pub fn build(
    sim: Simulator,
    dir: &Path,
    top: &str,
    files: &[(String, &str)],
    params: &[(&str, u32)],
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut sources = Vec::new();
    let shared = [("netmeas_tb_xorshift.vh".to_string(), XORSHIFT_VH), ("netmeas_tb_rnd.vh".to_string(), RND_VH)];
    for (name, text) in files.iter().chain(&shared) {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        if name.ends_with(".v") {
            sources.push(path);
        }
    }
    Ok(match sim {
        Simulator::Icarus => {
            let vvp = dir.join("tb.vvp");
            let mut build = Command::new("iverilog");
            build.args(["-g2005", "-s", top, "-o"]).arg(&vvp).arg(format!("-I{}", dir.display()));
            for (name, v) in params {
                build.arg(format!("-P{top}.{name}={v}"));
            }
            checked(build.args(&sources), "iverilog")?;
            vec!["vvp".into(), "-n".into(), vvp]
        }
        Simulator::Verilator => {
            let obj = dir.join("obj");
            let mut build = Command::new(tools::verilator()?);
            build.args(["--binary", "--timing", "--top-module", top, "-o", "tb", "-Mdir"]).arg(&obj);
            build.arg(format!("-I{}", dir.display()));
            for (name, v) in params {
                build.arg(format!("-G{name}={v}"));
            }
            checked(build.args(&sources), "verilator")?;
            vec![obj.join("tb")]
        }
    })
}

/// Runs `cmd`; its standard output, or an error with what it printed (its
/// `FAIL` line if it printed one).
pub fn checked(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("cannot run {what}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(text)
    } else {
        let fail = text.lines().find(|l| l.starts_with("FAIL")).map(str::to_string);
        Err(fail.unwrap_or_else(|| format!("{what} failed:\n{text}{}", String::from_utf8_lossy(&out.stderr))))
    }
}

/// The numbers of a testbench's `PASS key=value …` line, by key; or its
/// `FAIL` line as the error.
pub fn pass_fields(out: &str) -> Result<impl Fn(&str) -> Result<u64, String> + '_, String> {
    if let Some(fail) = out.lines().find(|l| l.starts_with("FAIL")) {
        return Err(fail.to_string());
    }
    let pass = out.lines().find(|l| l.starts_with("PASS")).ok_or_else(|| format!("no PASS line in:\n{out}"))?;
    Ok(move |name: &str| {
        pass.split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("no {name} in `{pass}`"))
    })
}

/// Half of a clock period of `mhz`, whole ps (the testbenches' clocks).
pub fn half_ps(mhz: f64) -> Result<u64, String> {
    let h = (1e6 / mhz / 2.0).round();
    if mhz.is_finite() && mhz > 0.0 && h >= 1.0 {
        Ok(h as u64)
    } else {
        Err(format!("{mhz} MHz is not a usable clock"))
    }
}
