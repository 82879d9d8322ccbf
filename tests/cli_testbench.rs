//! The self-checking testbench `netmeas export --testbench` ships: for every
//! block's default config, and for the short configs in `configs/`, it
//! passes through FuseSoC's `sim` target under Icarus Verilog and under
//! Verilator `--binary`; it fails, at the right
//! cycle and port, when one expected value is changed; and it refuses a
//! vector file that does not fit the module (short, long, of another width).
//! Prints, per block, the clocks and both simulators' times (the figures of
//! `docs/integration.md`).

mod common;

use common::{fusesoc, netmeas, run_tool as run};
use netmeas_hdl::registry;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn fresh_dir(name: &str) -> PathBuf {
    common::fresh_dir("shipped_tb", name)
}

/// Exports `block` (with the config file `config`, else its default) and its
/// testbench into a fresh folder: (folder, top).
fn export_with_testbench(block: &str, tag: &str, config: Option<&Path>) -> (PathBuf, String) {
    let dir = fresh_dir(&format!("{block}{tag}"));
    let mut args = vec!["export", block, "--testbench", "--out", dir.to_str().unwrap()];
    if let Some(c) = config {
        args.extend(["--config", c.to_str().unwrap()]);
    }
    let o = netmeas(&args);
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

/// Exports `block` with its testbench and runs FuseSoC's `core-info` and its
/// `sim` target under Icarus and Verilator; both must PASS. Prints the
/// clocks and the two times.
fn passes_through_fusesoc(block: &str, tag: &str, config: Option<&Path>) {
    let version = env!("CARGO_PKG_VERSION");
    let (dir, top) = export_with_testbench(block, tag, config);
    let vlnv = format!("netmeas:blocks:{top}:{version}");
    let (ok, info) = fusesoc(&dir, &["core-info", &vlnv]);
    assert!(ok && info.contains("sim "), "{block}: no sim target: {info}");
    let lines = std::fs::read_to_string(dir.join(format!("{top}_tb.hex"))).unwrap().lines().count() - 1;
    let mut times = Vec::new();
    for tool in ["icarus", "verilator"] {
        let t = Instant::now();
        let (ok, out) =
            fusesoc(&dir, &["run", "--build-root", &format!("build_{tool}"), "--target", "sim", "--tool", tool, &vlnv]);
        let secs = t.elapsed().as_secs_f64();
        let v = verdict(&out);
        assert!(ok && v.starts_with("PASS: "), "{block} under {tool}: {v}\n{out}");
        assert!(v.contains(&format!("{lines} cycles")), "{block}: {v}");
        times.push(secs);
    }
    let with = config.map_or(String::new(), |c| format!(" ({})", c.file_name().unwrap().to_string_lossy()));
    println!(
        "{block}{with}: {lines} cycles, PASS under Icarus ({:.1} s) and Verilator --binary ({:.1} s, with its C++ build), through FuseSoC",
        times[0], times[1]
    );
}

#[test]
fn every_shipped_testbench_passes_under_icarus_and_verilator_through_fusesoc() {
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
        passes_through_fusesoc(core.name(), "", None);
    }
}

/// The configs in `configs/` whose testbenches reach what the defaults'
/// cannot in a few thousand clocks (EXPB's period end and read-out, the
/// link's timed-out frames) pass as well.
#[test]
fn the_shipped_testbenches_of_the_short_configs_pass_under_icarus_and_verilator() {
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    for (block, file) in [("expb", "expb-period-80ms.toml"), ("link", "link-timeout-20k.toml")] {
        passes_through_fusesoc(block, "_short", Some(&configs.join(file)));
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
    let (dir, top) = export_with_testbench("lda", "_mutants", None);
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
