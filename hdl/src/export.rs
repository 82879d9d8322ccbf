//! Verilog export of a block for one config: a single self-contained file whose
//! top module has a unique name and whose header holds the full config, plus an
//! interface description (JSON) and a FuseSoC core file.
//!
//! rust-hdl's widths are type parameters, so each supported width combination
//! is one monomorphization; the lists live next to the configs
//! (`netmeas_sim::h3::H3_KEY_BITS`, …) and each block's
//! [`CoreSpec::generate`](crate::registry::CoreSpec::generate) dispatches over them.

pub use crate::registry::BlockConfig;
use crate::shipped_testbench::Testbench;
use netmeas_sim::ConfigError;
use rust_hdl::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    /// Into the block.
    In,
    /// Out of the block.
    Out,
}

/// One top-level port of an exported module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Port {
    /// Verilog name.
    pub name: String,
    /// Direction.
    pub dir: Dir,
    /// Width in bits.
    pub bits: usize,
}

/// The product of an export.
#[derive(Clone, Debug)]
pub struct Exported {
    /// Which block, with which config.
    pub config: BlockConfig,
    /// Top module name (also the file stem).
    pub top: String,
    /// The Verilog file's text.
    pub verilog: String,
    /// Top-level ports in declaration order.
    pub ports: Vec<Port>,
}

impl Exported {
    /// The self-checking testbench of this export: the golden per-clock
    /// model's vectors for the config, drawn from `seed`, `cycles` clocks
    /// long or the block's own length ([`crate::shipped_testbench`]).
    pub fn testbench(&self, seed: u64, cycles: Option<usize>) -> Result<Testbench, String> {
        let v = self
            .config
            .test_vectors(seed, cycles)
            .map_err(|why| format!("{}: no shipped testbench: {why}", self.top))?;
        Testbench::new(self, &v)
    }

    /// The interface description: block, config, ports.
    pub fn interface_json(&self) -> String {
        serde_json::to_string_pretty(&serde_json::json!({
            "block": self.config.block_name(),
            "top": self.top,
            "config": self.config.to_json(),
            "registers": self.config.registers(),
            "ports": self.ports,
        }))
        .expect("serializes")
    }

    /// A FuseSoC (CAPI2) core file for the Verilog ([`crate::fusesoc`]):
    /// the `NETMEAS_ECP5` define as a parameter, and targets `default`,
    /// `lint`, `synth`, `synth_ice40`; with a shipped testbench `tb`, also
    /// `sim` (Icarus Verilog by default, Verilator with `--tool verilator`).
    pub fn fusesoc_core(&self, tb: Option<&Testbench>) -> String {
        crate::fusesoc::CoreFile {
            name: format!("netmeas:blocks:{}:{}", self.top, env!("CARGO_PKG_VERSION")),
            description: self.config.summary().to_string(),
            files: vec![format!("{}.v", self.top)],
            top: self.top.clone(),
            ecp5_doc: "Build the memories as ECP5 DP16KD block RAMs (the project's ECP5 synthesis sets it)".into(),
            ice40: true,
            testbench: tb.map(|tb| crate::fusesoc::TestbenchFiles {
                top: tb.name.clone(),
                verilog: format!("{}.v", tb.name),
                data: tb.vectors_file(),
            }),
        }
        .yaml()
    }

    /// The clock constraint for tools that read SDC (Yosys/nextpnr flows
    /// that take SDC, and commercial tools): `clock` at `clock_mhz`.
    pub fn sdc(&self, clock_mhz: f64) -> String {
        format!(
            "# {top}: clock constraint (netmeas export).\ncreate_clock -name clock -period {period:.4} [get_ports clock]\n",
            top = self.top,
            period = 1e3 / clock_mhz
        )
    }

    /// The clock constraint in nextpnr-ecp5's LPF (`FREQUENCY PORT`); the
    /// pins are the board's.
    pub fn lpf(&self, clock_mhz: f64) -> String {
        format!(
            "# {}: clock constraint for nextpnr-ecp5 (netmeas export).\nFREQUENCY PORT \"clock\" {clock_mhz} MHZ;\n",
            self.top
        )
    }

    /// The clock constraint in nextpnr-ice40's PCF (`set_frequency`); the
    /// pins are the board's.
    pub fn pcf(&self, clock_mhz: f64) -> String {
        format!(
            "# {}: clock constraint for nextpnr-ice40 (netmeas export).\nset_frequency clock {clock_mhz}\n",
            self.top
        )
    }

    /// A C header with the register map (the source of `csr.json`): each
    /// register's word address, width, field mask and reset value, as
    /// `<TOP>_<REGISTER>_ADDR`, `_BITS`, `_MASK` and `_RESET`.
    pub fn c_header(&self) -> String {
        let regs = self.config.registers();
        let preamble =
            format!("/* Word addresses on csr_addr; csr_wdata is {} bits wide. */\n", self.config.csr_data_bits());
        crate::c_header::c_header(
            &self.top,
            &preamble,
            regs.iter().map(|r| crate::c_header::CRegister {
                name: &r.name,
                doc: &r.doc,
                addr: u64::from(r.addr),
                bits: r.bits,
                reset: r.reset,
            }),
        )
    }

    /// Writes `<top>.v`, `<top>.interface.json`, `<top>.core`, the clock
    /// constraints for `clock_mhz` (`.sdc`, `.lpf`, `.pcf`), and the block's
    /// register map (`.csr.json`, `.h`), extra files and, when given, the
    /// shipped testbench (`<top>_tb.v`, `<top>_tb.hex`) into `dir`, all of
    /// them or none ([`netmeas_sim::files::write_all_or_none`]).
    pub fn write(&self, dir: &Path, clock_mhz: f64, tb: Option<&Testbench>) -> Result<Vec<PathBuf>, String> {
        if !(clock_mhz.is_finite() && clock_mhz > 0.0 && clock_mhz <= 2000.0) {
            return Err(format!("clock frequency {clock_mhz} MHz is out of range (0, 2000]"));
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let files = [
            (format!("{}.v", self.top), self.verilog.clone()),
            (format!("{}.interface.json", self.top), self.interface_json()),
            (format!("{}.core", self.top), self.fusesoc_core(tb)),
            (format!("{}.sdc", self.top), self.sdc(clock_mhz)),
            (format!("{}.lpf", self.top), self.lpf(clock_mhz)),
            (format!("{}.pcf", self.top), self.pcf(clock_mhz)),
        ];
        let regs = self.config.registers();
        let extra = self.config.extra_files(&self.top);
        let csr = (!regs.is_empty()).then(|| {
            (
                format!("{}.csr.json", self.top),
                serde_json::to_string_pretty(&serde_json::json!({
                    "top": self.top,
                    "port": { "we": "csr_we", "addr": "csr_addr", "wdata": "csr_wdata", "data_bits": self.config.csr_data_bits() },
                    "registers": regs,
                }))
                .expect("serializes"),
            )
        });
        let header = (!regs.is_empty()).then(|| (format!("{}.h", self.top), self.c_header()));
        let bench = tb
            .into_iter()
            .flat_map(|t| [(format!("{}.v", t.name), t.verilog.clone()), (t.vectors_file(), t.vectors.clone())]);
        let set: Vec<(PathBuf, String)> = files
            .into_iter()
            .chain(csr)
            .chain(header)
            .chain(extra)
            .chain(bench)
            .map(|(name, text)| (dir.join(name), text))
            .collect();
        Ok(netmeas_sim::files::write_all_or_none(&set)?.into_iter().map(|w| w.path).collect())
    }
}

/// The clock the constraints of an export ask for unless told otherwise: a
/// 10G Ethernet MAC's 64-bit interface clock, one beat (and one packet at
/// most) per clock.
pub const DEFAULT_CLOCK_MHZ: f64 = 156.25;

/// Stack of the thread that builds and generates a block: rust-hdl keeps every
/// signal of the hierarchy inline in the block's struct and walks it recursively,
/// and the larger blocks (the engine with its cores, the link and the source; the
/// SVBF store with its 19 read-modify-write banks) outgrow a default thread's stack.
const EXPORT_STACK_BYTES: usize = 1 << 30;

/// Runs `f` on a thread of [`EXPORT_STACK_BYTES`] named `name` and returns its
/// result (a panic in `f` continues in the caller).
fn on_export_stack<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(EXPORT_STACK_BYTES)
        .spawn(f)
        .unwrap_or_else(|e| panic!("cannot start the {name} thread: {e}"))
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// Validates `cfg` and exports its block (built and generated on a thread of
/// [`EXPORT_STACK_BYTES`], whatever the caller's stack).
pub fn export(cfg: &BlockConfig) -> Result<Exported, ConfigError> {
    cfg.validate()?;
    let c = cfg.clone();
    let (verilog, ports) = on_export_stack("netmeas-export", move || c.generate());
    let top = cfg.top_name();
    let verilog = finish_verilog(cfg, &top, &verilog);
    Ok(Exported { config: cfg.clone(), top, verilog, ports })
}

/// Generates the Verilog (module `top`) and the port list of one block instance.
pub fn generate<B: Block>(mut block: B) -> (String, Vec<Port>) {
    block.connect_all();
    let verilog = generate_verilog(&block);
    let mut probe = PortProbe { depth: 0, ports: Vec::new() };
    block.accept("top", &mut probe);
    (verilog, probe.ports)
}

struct PortProbe {
    depth: usize,
    ports: Vec<Port>,
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let dir = match signal.kind() {
            AtomKind::InputParameter => Dir::In,
            AtomKind::OutputParameter => Dir::Out,
            _ => return,
        };
        self.ports.push(Port { name: name.to_string(), dir, bits: signal.bits() });
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// True when `line` holds rust-hdl's zero-extension idiom `(x & N'h<N ones>)`.
pub fn has_zero_extension_idiom(line: &str) -> bool {
    line.match_indices("& ").any(|(i, _)| {
        let rest = &line[i + 2..];
        let Some((n, tail)) = rest.split_once("'h") else {
            return false;
        };
        let Ok(n) = n.parse::<usize>() else {
            return false;
        };
        let hex: String = tail.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        let ones = n / 4;
        let top = n % 4;
        let expect = if top == 0 { "f".repeat(ones) } else { format!("{:x}{}", (1u8 << top) - 1, "f".repeat(ones)) };
        n > 0 && hex == expect && tail[hex.len()..].starts_with(')')
    })
}

/// Renames `top` to `name`, adds the header and the justified lint waivers.
fn finish_verilog(cfg: &BlockConfig, name: &str, verilog: &str) -> String {
    let cfg_json = serde_json::to_string_pretty(&cfg.to_json()).expect("serializes");
    let mut out = String::new();
    out.push_str(&format!("// {name}: {}\n", cfg.summary()));
    out.push_str(&format!(
        "// Generated by netmeas {} (`netmeas export {}`) from rust-hdl; do not edit by hand.\n",
        env!("CARGO_PKG_VERSION"),
        cfg.block_name()
    ));
    out.push_str("//\n// Config:\n");
    for l in cfg_json.lines() {
        out.push_str(&format!("//   {l}\n"));
    }
    out.push_str(&finish_body(name, verilog));
    out
}

/// Exports one block instance on its own (a submodule of a core) under the
/// module name `name`, with the waivers of an export, and runs
/// `verilator --lint-only -Wall` on it: the synthesizability check of a
/// building block.
pub fn lint_block<B: Block>(block: B, name: &str) -> Result<(), String> {
    let (verilog, _) = generate(block);
    lint_verilog(&verilog, name)
}

/// [`lint_block`] for a block that `make` builds on a thread of
/// [`EXPORT_STACK_BYTES`]: blocks as large as the SVBF store outgrow a test
/// thread's stack in an unoptimised build.
pub fn lint_block_built<B: Block, F: FnOnce() -> B + Send + 'static>(make: F, name: &str) -> Result<(), String> {
    let verilog = on_export_stack("netmeas-lint", move || generate(make()).0);
    lint_verilog(&verilog, name)
}

/// Lints a generated module body under `name`.
fn lint_verilog(verilog: &str, name: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("netmeas-lint-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join(format!("{name}.v"));
    std::fs::write(&file, finish_body(name, verilog)).map_err(|e| e.to_string())?;
    let r = crate::tools::lint(&file, name);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// The module text renamed from `top` to `name`, the resize idiom waived line
/// by line, and the waiver comment and `default_nettype` guards around it.
fn finish_body(name: &str, verilog: &str) -> String {
    let mut body = String::new();
    for line in verilog.lines() {
        let mut l = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(i) = rest.find("top") {
            let before_ok = i == 0 || !rest[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$');
            let after = &rest[i + 3..];
            let after_ok = after.starts_with('$') || after.starts_with('(') || after.is_empty();
            l.push_str(&rest[..i]);
            if before_ok && after_ok {
                l.push_str(name);
            } else {
                l.push_str("top");
            }
            rest = after;
        }
        l.push_str(rest);
        if has_zero_extension_idiom(&l) {
            body.push_str("/* verilator lint_off WIDTH */ // resize written by rust-hdl as (x & N'h<ones>)\n");
            body.push_str(&l);
            body.push_str("\n/* verilator lint_on WIDTH */\n");
        } else {
            body.push_str(&l);
            body.push('\n');
        }
    }
    let mut out = String::new();
    out.push_str(
        "//\n\
         // Lint (verilator --lint-only -Wall) waivers, each justified:\n\
         // - DECLFILENAME: this one file holds the top module and the submodules it\n\
         //   instantiates (named <top>$<path>), so most module names differ from the file name.\n\
         // - WIDTH, only on the lines marked below: rust-hdl writes a resize to N bits as\n\
         //   (x & N'h<N ones>), which zero-extends or truncates x to N bits by Verilog's rules\n\
         //   exactly as intended.\n\
         //\n\
         // Reset: `reset` is synchronous; registers also carry `initial` values for FPGAs.\n\
         // Memories are never assumed initialised: a hardware sequence clears them.\n\n",
    );
    out.push_str("`default_nettype none\n/* verilator lint_off DECLFILENAME */\n");
    out.push_str(body.trim());
    out.push_str("\n/* verilator lint_on DECLFILENAME */\n`default_nettype wire\n");
    out
}
