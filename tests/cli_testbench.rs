//! The self-checking testbench `netmeas export --testbench` ships: for every
//! block's default config it passes through FuseSoC's `sim` target under
//! Icarus Verilog and under Verilator `--binary`; it fails, at the right
//! cycle and port, when one expected value is changed; and it refuses a
//! vector file that does not fit the module (short, long, of another width).
//! Prints, per block, the clocks and both simulators' times (the figures of
//! `docs/integration.md`).

mod common;

use common::netmeas;
use netmeas_hdl::registry;
use netmeas_hdl::tools;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn fresh_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shipped_tb").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `PATH` with Verilator's folder and the venv's `bin` first.
fn tool_path() -> std::ffi::OsString {
    let verilator = tools::verilator().unwrap();
    std::env::join_paths(
        [verilator.parent().unwrap().to_path_buf(), tools::venv().join("bin")]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap()
}

/// Runs `program args` in `dir` with [`tool_path`]: its status and output.
fn run(dir: &Path, program: &Path, args: &[&str]) -> (bool, String) {
    let o = Command::new(program)
        .current_dir(dir)
        .env("PATH", tool_path())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{} runs (tools/setup.sh installs it): {e}", program.display()));
    (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

fn fusesoc(dir: &Path, args: &[&str]) -> (bool, String) {
    let mut all = vec!["--cores-root", "."];
    all.extend_from_slice(args);
    run(dir, &tools::venv().join("bin/fusesoc"), &all)
}

/// Exports `block` with its testbench into a fresh folder: (folder, top).
fn export_with_testbench(block: &str, tag: &str) -> (PathBuf, String) {
    let dir = fresh_dir(&format!("{block}{tag}"));
    let o = netmeas(&["export", block, "--testbench", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{block}: {}", String::from_utf8_lossy(&o.stderr));
    let listed = String::from_utf8_lossy(&o.stdout).to_string();
    let top = listed
        .lines()
        .find_map(|l| l.strip_suffix("_tb.v"))
        .map(|p| Path::new(p).file_name().unwrap().to_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("{block}: no testbench among {listed}"));
    (dir, top)
}

/// The one PASS or FAIL line of a testbench's output.
fn verdict(out: &str) -> &str {
    let v: Vec<&str> = out.lines().filter(|l| l.starts_with("PASS: ") || l.starts_with("FAIL: ")).collect();
    assert_eq!(v.len(), 1, "not one PASS/FAIL line in:\n{out}");
    v[0]
}

#[test]
fn every_shipped_testbench_passes_under_icarus_and_verilator_through_fusesoc() {
    let version = env!("CARGO_PKG_VERSION");
    for core in registry::CORES {
        let cfg = core.default_config(None).unwrap();
        if let Err(why) = cfg.test_vectors(1, None) {
            // A block without per-clock vectors says so, and the export refuses the flag.
            let dir = fresh_dir(core.name());
            let o = netmeas(&["export", core.name(), "--testbench", "--out", dir.join("out").to_str().unwrap()]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success() && err.contains(&why), "{}: {err}", core.name());
            assert!(!dir.join("out").exists(), "{}: wrote files", core.name());
            println!("{}: no shipped testbench: {why}", core.name());
            continue;
        }
        let (dir, top) = export_with_testbench(core.name(), "");
        let vlnv = format!("netmeas:blocks:{top}:{version}");
        let (ok, info) = fusesoc(&dir, &["core-info", &vlnv]);
        assert!(ok && info.contains("sim "), "{}: no sim target: {info}", core.name());
        let lines = std::fs::read_to_string(dir.join(format!("{top}_tb.hex"))).unwrap().lines().count() - 1;
        let mut times = Vec::new();
        for tool in ["icarus", "verilator"] {
            let t = Instant::now();
            let (ok, out) = fusesoc(
                &dir,
                &["run", "--build-root", &format!("build_{tool}"), "--target", "sim", "--tool", tool, &vlnv],
            );
            let secs = t.elapsed().as_secs_f64();
            let v = verdict(&out);
            assert!(ok && v.starts_with("PASS: "), "{} under {tool}: {v}\n{out}", core.name());
            assert!(v.contains(&format!("{lines} cycles")), "{}: {v}", core.name());
            times.push(secs);
        }
        println!(
            "{}: {lines} cycles, PASS under Icarus ({:.1} s) and Verilator --binary ({:.1} s, with its C++ build), through FuseSoC",
            core.name(),
            times[0],
            times[1]
        );
    }
}

/// Compiles the testbench in `dir` with Icarus once.
fn icarus_build(dir: &Path, top: &str) -> PathBuf {
    let vvp = dir.join("tb.vvp");
    let (ok, out) = run(
        dir,
        Path::new("iverilog"),
        &["-g2005", "-o", vvp.to_str().unwrap(), &format!("{top}_tb.v"), &format!("{top}.v")],
    );
    assert!(ok, "iverilog: {out}");
    vvp
}

/// Runs a compiled testbench on a vector file: (exit status, PASS/FAIL line).
fn icarus_run(dir: &Path, vvp: &Path, vectors: &Path, extra: &[&str]) -> (bool, String) {
    let plus = format!("+vectors={}", vectors.display());
    let mut args = vec!["-n", vvp.to_str().unwrap(), plus.as_str()];
    args.extend_from_slice(extra);
    let (ok, out) = run(dir, Path::new("vvp"), &args);
    (ok, verdict(&out).to_string())
}

/// Output widths from the interface description: (name, bits) of every output port.
fn outputs(dir: &Path, top: &str) -> Vec<(String, usize)> {
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{top}.interface.json"))).unwrap()).unwrap();
    j["ports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["dir"] == "out")
        .map(|p| (p["name"].as_str().unwrap().to_string(), p["bits"].as_u64().unwrap() as usize))
        .collect()
}

/// The hex line with bit `bit` (from the least significant) flipped.
fn flip_bit(line: &str, bit: usize) -> String {
    let mut digits: Vec<u8> = line.bytes().collect();
    let at = digits.len() - 1 - bit / 4;
    let d = u8::from_str_radix(std::str::from_utf8(&digits[at..at + 1]).unwrap(), 16).unwrap() ^ (1 << (bit % 4));
    digits[at] = format!("{d:x}").as_bytes()[0];
    String::from_utf8(digits).unwrap()
}

#[test]
fn a_changed_expected_value_fails_at_its_cycle_and_a_mismatched_vector_file_is_refused() {
    let (dir, top) = export_with_testbench("lda", "_mutants");
    let vvp = icarus_build(&dir, &top);
    let hex = dir.join(format!("{top}_tb.hex"));
    let text = std::fs::read_to_string(&hex).unwrap();
    let (header, lines): (&str, Vec<&str>) = {
        let mut l = text.lines();
        (l.next().unwrap(), l.collect())
    };
    let write = |name: &str, body: &[String]| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, format!("{header}\n{}\n", body.join("\n"))).unwrap();
        p
    };
    let (ok, v) = icarus_run(&dir, &vvp, &hex, &[]);
    assert!(ok && v.starts_with("PASS: "), "{v}");
    // The last output port's expected value is the lowest field above the
    // masks; its mask bit is bit 0. ovf_sticky is compared on every clock.
    let outs = outputs(&dir, &top);
    let out_bits: usize = outs.iter().map(|(_, b)| b).sum();
    let (last, _) = outs.last().unwrap();
    assert_eq!(last, "ovf_sticky");
    for cycle in [0usize, 1234, lines.len() - 1] {
        let mut body: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        body[cycle] = flip_bit(&body[cycle], out_bits);
        let p = write("mutant.hex", &body);
        let (ok, v) = icarus_run(&dir, &vvp, &p, &[]);
        assert!(!ok, "a changed expected value passed: {v}");
        assert!(v.starts_with("FAIL: ") && v.contains(&format!("cycle {cycle}: port ovf_sticky")), "{v}");
    }
    // Short, long, and one hex digit narrower: refused before the first clock.
    let all: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    let short = write("short.hex", &all[..all.len() - 10]);
    let long = write("long.hex", &[all.clone(), vec![all[0].clone()]].concat());
    let narrow = write("narrow.hex", &all.iter().map(|l| l[1..].to_string()).collect::<Vec<_>>());
    let wide = write("wide.hex", &all.iter().map(|l| format!("{l}0")).collect::<Vec<_>>());
    for (p, why) in [(&short, "too short"), (&long, "more than"), (&narrow, "wrong width"), (&wide, "wrong width")] {
        let (ok, v) = icarus_run(&dir, &vvp, p, &[]);
        assert!(
            !ok && v.starts_with("FAIL: ") && v.contains("does not fit") && v.contains(why),
            "{}: {v}",
            p.display()
        );
    }
    // The testbench dumps a waveform on request.
    let wave = dir.join("tb.vcd");
    let (ok, v) = icarus_run(&dir, &vvp, &hex, &[&format!("+wave={}", wave.display())]);
    assert!(ok && v.starts_with("PASS: "), "{v}");
    let vcd = std::fs::read_to_string(&wave).unwrap();
    for port in ["clock", "s_ready", "m_ro_valid", "ovf_sticky"] {
        assert!(vcd.contains(&format!(" {port} $end")), "{port} not in the VCD");
    }
}
