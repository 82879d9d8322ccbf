//! `netmeas export` as an integrator takes it into their own flow: every
//! block's default export is a core FuseSoC accepts (`core-info`) whose
//! `lint` target (Verilator `-Wall` through FuseSoC and Edalize) passes, and
//! it carries the clock constraints and a C header of its register map that
//! agrees with `csr.json`.

mod common;

use common::{assert_refused, fusesoc, netmeas};
use netmeas_hdl::registry;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fresh_dir(name: &str) -> PathBuf {
    common::fresh_dir("export_flow", name)
}

/// The stem of the first file in `dir` named `*<ext>`.
fn stem_of(dir: &Path, ext: &str) -> String {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find_map(|n| n.strip_suffix(ext).map(str::to_string))
        .unwrap_or_else(|| panic!("no {ext} file in {}", dir.display()))
}

/// The exported top of `dir` (the `.v` file's stem).
fn top_of(dir: &Path) -> String {
    stem_of(dir, ".v")
}

#[test]
fn every_default_export_is_a_fusesoc_core_whose_lint_target_passes() {
    let version = env!("CARGO_PKG_VERSION");
    for core in registry::CORES {
        let dir = fresh_dir(core.name());
        let o = netmeas(&["export", core.name(), "--out", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", core.name(), String::from_utf8_lossy(&o.stderr));
        let top = top_of(&dir);
        let vlnv = format!("netmeas:blocks:{top}:{version}");
        let (ok, out) = fusesoc(&dir, &["core-info", &vlnv]);
        assert!(ok, "{}: core-info: {out}", core.name());
        for target in ["lint", "synth", "synth_ice40"] {
            assert!(out.contains(&format!("{target} ")), "{}: no {target} target in {out}", core.name());
        }
        let (ok, out) = fusesoc(&dir, &["run", "--build-root", "build", "--target", "lint", &vlnv]);
        assert!(ok, "{}: lint: {out}", core.name());
    }
    // The lint target can fail: an undriven, unused wire in the top is refused.
    let dir = fresh_dir("lint_mutant");
    let o = netmeas(&["export", "lda", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success());
    let top = top_of(&dir);
    let v = dir.join(format!("{top}.v"));
    let text = std::fs::read_to_string(&v).unwrap();
    let at = text.find(&format!("module {top}(")).unwrap();
    let end = at + text[at..].find(");").unwrap() + 2;
    std::fs::write(&v, format!("{}\nwire lint_probe;\n{}", &text[..end], &text[end..])).unwrap();
    let (ok, out) = fusesoc(
        &dir,
        &["run", "--build-root", "build", "--target", "lint", &format!("netmeas:blocks:{top}:{version}")],
    );
    assert!(!ok && out.contains("lint_probe"), "the mutant passed lint: {out}");
}

#[test]
fn an_export_carries_its_clock_constraints_and_a_c_header_of_its_register_map() {
    let dir = fresh_dir("constraints");
    let o = netmeas(&["export", "lda", "--out", dir.to_str().unwrap(), "--clock-mhz", "200"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let top = top_of(&dir);
    let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{top}.{ext}"))).unwrap();
    assert!(read("sdc").contains("create_clock -name clock -period 5.0000 [get_ports clock]"), "{}", read("sdc"));
    assert!(read("lpf").contains("FREQUENCY PORT \"clock\" 200 MHZ;"), "{}", read("lpf"));
    assert!(read("pcf").contains("set_frequency clock 200"), "{}", read("pcf"));
    // Every register of csr.json is in the header with its address, width, mask and reset.
    let csr: serde_json::Value = serde_json::from_str(&read("csr.json")).unwrap();
    let h = read("h");
    let prefix = top.to_ascii_uppercase();
    let regs = csr["registers"].as_array().unwrap();
    assert!(!regs.is_empty());
    for r in regs {
        let name = format!("{prefix}_{}", r["name"].as_str().unwrap().to_ascii_uppercase());
        let bits = r["bits"].as_u64().unwrap();
        for line in [
            format!("#define {name}_ADDR 0x{:x}u", r["addr"].as_u64().unwrap()),
            format!("#define {name}_BITS {bits}u"),
            format!("#define {name}_MASK 0x{:x}ull", (1u64 << bits) - 1),
            format!("#define {name}_RESET 0x{:x}ull", r["reset"].as_u64().unwrap()),
        ] {
            assert!(h.contains(&line), "{line} not in the header:\n{h}");
        }
    }
    // The header compiles as C.
    compiles_as_c(
        &dir,
        &format!(
            "#include \"{top}.h\"\nunsigned long long f(void) {{ return {prefix}_{}_MASK; }}\n",
            regs[0]["name"].as_str().unwrap().to_ascii_uppercase()
        ),
    )
    .unwrap();
}

/// Compiles `source` (C99, every warning an error) in `dir`, where the export's header is.
fn compiles_as_c(dir: &Path, source: &str) -> Result<(), String> {
    std::fs::write(dir.join("use.c"), source).map_err(|e| e.to_string())?;
    let cc = Command::new("cc")
        .current_dir(dir)
        .args(["-std=c99", "-Wall", "-Werror", "-c", "use.c", "-o", "use.o"])
        .output()
        .map_err(|e| format!("cc: {e}"))?;
    if cc.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&cc.stderr).into_owned()) }
}

#[test]
fn a_clock_frequency_out_of_range_is_refused_and_writes_nothing() {
    for f in ["0", "-5", "nan", "inf", "1e9"] {
        let dir = fresh_dir(&format!("bad_clock_{f}"));
        let out = dir.join("out");
        assert_refused(
            &["export", "lda", "--out", out.to_str().unwrap(), &format!("--clock-mhz={f}")],
            "clock frequency",
        );
        assert!(!out.exists(), "--clock-mhz {f}: wrote {}", out.display());
    }
}

/// The (name, default) of each top parameter an interface JSON lists.
fn parameters(iface: &serde_json::Value) -> Vec<(String, u64)> {
    iface["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), p["default"].as_u64().unwrap()))
        .collect()
}

/// The point's top in `dir` (the `.core` file's stem: the point has several `.v` files).
fn point_top(dir: &Path) -> String {
    stem_of(dir, ".core")
}

#[test]
fn a_wrapped_core_is_a_fusesoc_core_whose_lint_target_passes_with_its_register_map() {
    let version = env!("CARGO_PKG_VERSION");
    for (bus, bus_port) in [("axi", "s_axil_awaddr"), ("wishbone", "wb_adr_i")] {
        let dir = fresh_dir(&format!("wrap_{bus}"));
        let o = netmeas(&["export", "lda", "--wrap", bus, "--out", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{bus}: {}", String::from_utf8_lossy(&o.stderr));
        let top = point_top(&dir);
        assert!(top.starts_with("netmeas_point_lda"), "{top}");
        let vlnv = format!("netmeas:points:{top}:{version}");
        let (ok, out) = fusesoc(&dir, &["run", "--build-root", "build", "--target", "lint", &vlnv]);
        assert!(ok, "{bus}: lint: {out}");
        // The interface names the MAC's stream, the bus and the read-out.
        let iface: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{top}.interface.json"))).unwrap()).unwrap();
        let port = |name: &str| iface["ports"].as_array().unwrap().iter().find(|p| p["name"] == name).cloned();
        assert_eq!(port("s_axis_tdata").unwrap()["bits"], 64);
        assert_eq!(port("s_axis_tdata").unwrap()["clock"], "s_axis_aclk");
        assert_eq!(port(bus_port).unwrap()["clock"], "aclk");
        assert!(port("m_axis_tdata").is_some() && port("irq").is_some());
        // Every register of csr.json is in the C header at its byte address, and the header compiles.
        let csr: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{top}.csr.json"))).unwrap()).unwrap();
        let h = std::fs::read_to_string(dir.join(format!("{top}.h"))).unwrap();
        let regs = csr["registers"].as_array().unwrap();
        let prefix = top.to_uppercase();
        for r in regs {
            let name = format!("{prefix}_{}", r["name"].as_str().unwrap());
            for line in [
                format!("#define {name}_ADDR 0x{:x}u", r["addr"].as_u64().unwrap()),
                format!("#define {name}_BITS {}u", r["bits"].as_u64().unwrap()),
                format!("#define {name}_RESET 0x{:x}ull", r["reset"].as_u64().unwrap()),
            ] {
                assert!(h.contains(&line), "{bus}: no `{line}` in the header");
            }
        }
        compiles_as_c(&dir, &format!("#include \"{top}.h\"\nunsigned f(void) {{ return {prefix}_FLAGS_ADDR; }}\n"))
            .unwrap_or_else(|e| panic!("{bus}: {e}"));
        // The read-out window: above every register, as csr.json and the header say.
        let window = &csr["memories"].as_array().unwrap()[0];
        assert_eq!(window["name"], "READOUT_WINDOW");
        let (base, size) = (window["base"].as_u64().unwrap(), window["size"].as_u64().unwrap());
        assert!(regs.iter().all(|r| r["addr"].as_u64().unwrap() < base), "{window}");
        assert_eq!(base + size, 1 << csr["addr_bits"].as_u64().unwrap(), "{window}");
        assert!(h.contains(&format!("#define {prefix}_READOUT_WINDOW_BASE 0x{base:x}u")), "{bus}: {h}");
        let slot = window["slot_bytes"].as_u64().unwrap();
        assert!(h.contains(&format!("#define {prefix}_READOUT_WINDOW_SLOT_BYTES {slot}u")), "{bus}: {h}");
        assert!(4 * (window["tdata_words"].as_u64().unwrap() + 1) <= slot, "{window}");
        let access = |name: &str| regs.iter().find(|r| r["name"] == name).map(|r| r["access"].clone());
        assert_eq!(access("CLASS_MASK").unwrap(), "rw");
        assert_eq!(access("FRAMES").unwrap(), "ro");
        assert_eq!(access("FLAGS").unwrap(), "w1c");
        assert_eq!(access("EPOCH_FLIP").unwrap(), "wo");
        let sdc = std::fs::read_to_string(dir.join(format!("{top}.sdc"))).unwrap();
        assert!(sdc.contains("-period 6.4000 [get_ports s_axis_aclk]") && sdc.contains("-asynchronous"), "{sdc}");
        // LDA has no time input: no time-marker parameters.
        assert_eq!(iface["parameters"].as_array().unwrap().len(), 0);
    }
}

#[test]
fn a_wrapped_core_with_a_time_input_gives_the_time_markers_parameters() {
    let dir = fresh_dir("wrap_rda");
    let o = netmeas(&["export", "rda", "--wrap", "axi", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let top = point_top(&dir);
    let iface: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{top}.interface.json"))).unwrap()).unwrap();
    let params = parameters(&iface);
    assert_eq!(params, [("MARKER_LAG_NS".to_string(), 1000), ("MARKER_IDLE_CLOCKS".to_string(), 256)]);
    let v = std::fs::read_to_string(dir.join(format!("{top}.v"))).unwrap();
    assert!(v.contains("parameter [31:0] MARKER_LAG_NS = 32'd1000") && v.contains("now_q"), "{top}.v");
}

/// An inline point: frames pass from `s_axis_*` to `m_axis_*` on the MAC's
/// clock, the read-out leaves on `m_axis_ro_*`, the registers hold the
/// in-band control's configuration and the pair's status, and the control
/// frames' EtherType and addresses are parameters. Cores that cannot be
/// aligned at a control frame, and other MAC widths, are refused.
#[test]
fn an_inline_point_is_a_fusesoc_core_whose_lint_target_passes_with_its_control_registers() {
    let version = env!("CARGO_PKG_VERSION");
    let dir = fresh_dir("wrap_inline");
    let o = netmeas(&["export", "lda", "--wrap", "axi", "--inline", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let top = point_top(&dir);
    assert!(top.starts_with("netmeas_point_inline_lda"), "{top}");
    let (ok, out) = fusesoc(
        &dir,
        &["run", "--build-root", "build", "--target", "lint", &format!("netmeas:points:{top}:{version}")],
    );
    assert!(ok, "lint: {out}");
    let iface: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{top}.interface.json"))).unwrap()).unwrap();
    let port = |name: &str| iface["ports"].as_array().unwrap().iter().find(|p| p["name"] == name).cloned();
    assert_eq!(port("m_axis_tdata").unwrap()["clock"], "s_axis_aclk");
    assert_eq!(port("m_axis_tready").unwrap()["clock"], "s_axis_aclk");
    assert_eq!(port("m_axis_ro_tdata").unwrap()["clock"], "aclk");
    let csr: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{top}.csr.json"))).unwrap()).unwrap();
    let access = |name: &str| {
        csr["registers"].as_array().unwrap().iter().find(|r| r["name"] == name).map(|r| r["access"].clone())
    };
    for (name, want) in [("CTRL_ROLE", "rw"), ("CTRL_EVERY_PACKETS", "rw"), ("CTRL_STATUS", "ro"), ("CTRL_SEQ", "ro")] {
        assert_eq!(access(name), Some(serde_json::json!(want)), "{name}");
    }
    let params = parameters(&iface);
    assert_eq!(params[0], ("CTRL_ETHERTYPE".to_string(), 0x88b5));
    let v = std::fs::read_to_string(dir.join(format!("{top}.v"))).unwrap();
    assert!(v.contains("parameter [15:0] CTRL_ETHERTYPE = 16'h88b5"), "{top}.v");
    // What cannot be inline is refused with one line, writing nothing.
    for (args, says) in [
        (&["export", "rda", "--wrap", "axi", "--inline"][..], "in-band epoch control needs"),
        (&["export", "lda", "--wrap", "axi", "--inline", "--mac-bits", "128"][..], "64-bit MAC"),
    ] {
        let out = fresh_dir("wrap_inline_refused").join("out");
        let mut a = args.to_vec();
        a.extend(["--out", out.to_str().unwrap()]);
        assert_refused(&a, says);
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
}

/// The SVBF point: the delay side-band widens `s_axis_tuser`, and the
/// interface lists the query and answer streams, their clock and fields.
#[test]
fn a_wrapped_svbf_takes_the_frames_delays_and_answers_queries_on_streams() {
    let dir = fresh_dir("wrap_svbf");
    let o = netmeas(&["export", "svbf", "--wrap", "axi", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let top = point_top(&dir);
    let iface: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{top}.interface.json"))).unwrap()).unwrap();
    let port = |name: &str| {
        let p = iface["ports"].as_array().unwrap().iter().find(|p| p["name"] == name).cloned();
        p.unwrap_or_else(|| panic!("no port {name}"))
    };
    assert_eq!(
        (port("s_axis_tuser")["bits"].as_u64(), port("s_axis_tuser")["clock"].as_str()),
        (Some(97), Some("s_axis_aclk"))
    );
    for (name, bits) in [("s_axis_query_tdata", 80), ("m_axis_answer_tdata", 152)] {
        assert_eq!((port(name)["bits"].as_u64(), port(name)["clock"].as_str()), (Some(bits), Some("aclk")), "{name}");
    }
    let fields = |stream: &str| -> Vec<(String, u64, u64)> {
        iface[stream]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (f["field"].as_str().unwrap().to_string(), f["lsb"].as_u64().unwrap(), f["bits"].as_u64().unwrap())
            })
            .collect()
    };
    assert_eq!(fields("query"), [("key".to_string(), 0, 64), ("tag".to_string(), 64, 16)]);
    let answer = fields("answer");
    assert_eq!(answer.first(), Some(&("tag".to_string(), 0, 16)));
    assert_eq!(answer.last(), Some(&("candidates".to_string(), 88, 64)));
    let csr: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{top}.csr.json"))).unwrap()).unwrap();
    let names: Vec<&str> = csr["registers"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    for name in ["BOUND1", "NBOUNDS", "EPOCH_FLIP", "HELD", "RELEASE_FROZEN"] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }
    assert!(dir.join("netmeas_point_query.v").exists());
}

#[test]
fn a_wrap_that_cannot_be_built_is_refused_and_writes_nothing() {
    for (args, needle) in [
        (&["lda", "--wrap", "pcie"][..], "unknown bus"),
        (&["h3", "--wrap", "axi"][..], "takes no frames"),
        (&["lda", "--wrap", "axi", "--mac-bits", "48"][..], "data_bits"),
        (&["lda", "--wrap", "axi", "--mac-mhz", "0"][..], "MAC clock frequency"),
    ] {
        let dir = fresh_dir(&format!("wrap_bad_{}", args.join("_")));
        let out = dir.join("out");
        let mut all = vec!["export"];
        all.extend_from_slice(args);
        all.extend(["--out", out.to_str().unwrap()]);
        assert_refused(&all, needle);
        assert!(!out.exists(), "{args:?}: wrote {}", out.display());
    }
}
