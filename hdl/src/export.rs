//! Verilog export of a block for one config: a single self-contained file whose
//! top module has a unique name and whose header holds the full config, plus an
//! interface description (JSON) and a FuseSoC core file.
//!
//! rust-hdl's widths are type parameters, so each supported width combination
//! is one monomorphization; the lists live next to the configs
//! (`netmeas_sim::h3::H3_KEY_BITS`, …) and [`export`] dispatches over them.

use crate::board::engine::Engine;
use crate::board::link_top::LinkTop;
use crate::common::counter_bank::CounterBank;
use crate::common::h3::H3Unit;
use crate::dbm::{DbmCore, DbmIntervalCore};
use crate::expb::ExpbCore;
use crate::fridge::FridgeCore;
use crate::lda::LdaCore;
use crate::rda::RdaCore;
use crate::svbf::SvbfCore;
use netmeas_sim::ConfigError;
use netmeas_sim::board::engine::{EngineConfig, engine_registers, engine_registers_markdown};
use netmeas_sim::board::link::LinkConfig;
use netmeas_sim::counter_bank::CounterBankConfig;
use netmeas_sim::dbm::{DbmConfig, ExpbConfig};
use netmeas_sim::fridge::{FridgeConfig, fridge_registers};
use netmeas_sim::h3::H3Config;
use netmeas_sim::lda::{LdaConfig, RegisterDesc, lda_registers};
use netmeas_sim::rda::{RdaConfig, rda_registers};
use netmeas_sim::svbf::{SvbfConfig, svbf_registers};
use rust_hdl::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A block and its config: what `netmeas export` builds.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockConfig {
    /// The H3 hash unit.
    H3(H3Config),
    /// The ping-pong {count, tsum} counter bank.
    CounterBank(CounterBankConfig),
    /// The lossy difference aggregator core.
    Lda(LdaConfig),
    /// The reconcilable difference aggregator core.
    Rda(RdaConfig),
    /// The fridge core (unbiased request/response delays).
    Fridge(FridgeConfig),
    /// The EXPB core (bandwidth at exponential time scales).
    Expb(ExpbConfig),
    /// A DBM core (bandwidth at all time scales by dynamic bucket merge): per
    /// packet by mass (`base_ticks` = 0) or over base-interval sums by mass,
    /// range or variance.
    Dbm(DbmConfig),
    /// The MAPLE packet latency store (SVBF) with its query engine.
    Svbf(SvbfConfig),
    /// The host link's board side: UART and register bridge.
    Link(LinkConfig),
    /// The measurement engine: two LDA cores, the on-chip traffic source and the host link.
    Engine(EngineConfig),
}

impl BlockConfig {
    /// The block's CLI name (`h3`, `counter-bank`).
    pub fn block_name(&self) -> &'static str {
        match self {
            BlockConfig::H3(_) => "h3",
            BlockConfig::CounterBank(_) => "counter-bank",
            BlockConfig::Lda(_) => "lda",
            BlockConfig::Rda(_) => "rda",
            BlockConfig::Fridge(_) => "fridge",
            BlockConfig::Expb(_) => "expb",
            BlockConfig::Dbm(_) => "dbm",
            BlockConfig::Svbf(_) => "svbf",
            BlockConfig::Link(_) => "link",
            BlockConfig::Engine(_) => "engine",
        }
    }

    /// The CSR register map (empty for blocks without registers).
    pub fn registers(&self) -> Vec<RegisterDesc> {
        match self {
            BlockConfig::Lda(c) => lda_registers(c),
            BlockConfig::Rda(c) => rda_registers(c),
            BlockConfig::Svbf(_) => svbf_registers(),
            BlockConfig::Fridge(c) => fridge_registers(c),
            _ => Vec::new(),
        }
    }

    /// Width of `csr_wdata` (0 without registers).
    pub fn csr_data_bits(&self) -> u32 {
        match self {
            BlockConfig::Lda(_) => 8,
            BlockConfig::Rda(_) | BlockConfig::Fridge(_) | BlockConfig::Svbf(_) => 32,
            _ => 0,
        }
    }

    /// Checks the config; the error names the offending field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            BlockConfig::H3(c) => c.validate(),
            BlockConfig::CounterBank(c) => c.validate(),
            BlockConfig::Lda(c) => c.validate(),
            BlockConfig::Rda(c) => c.validate(),
            BlockConfig::Fridge(c) => c.validate(),
            BlockConfig::Expb(c) => c.validate(),
            BlockConfig::Dbm(c) => c.validate(),
            BlockConfig::Svbf(c) => c.validate_rtl(),
            BlockConfig::Link(c) => c.validate(),
            BlockConfig::Engine(c) => c.validate(),
        }
    }

    /// The Verilog top module name.
    pub fn top_name(&self) -> String {
        match self {
            BlockConfig::H3(c) => c.top_name(),
            BlockConfig::CounterBank(c) => c.top_name(),
            BlockConfig::Lda(c) => c.top_name(),
            BlockConfig::Rda(c) => c.top_name(),
            BlockConfig::Fridge(c) => c.top_name(),
            BlockConfig::Expb(c) => c.top_name(),
            BlockConfig::Dbm(c) => c.top_name(),
            BlockConfig::Svbf(c) => c.top_name(),
            BlockConfig::Link(c) => c.top_name(),
            BlockConfig::Engine(c) => c.top_name(),
        }
    }

    /// The config as JSON (as written into the Verilog header and interface file).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            BlockConfig::H3(c) => serde_json::to_value(c),
            BlockConfig::CounterBank(c) => serde_json::to_value(c),
            BlockConfig::Lda(c) => serde_json::to_value(c),
            BlockConfig::Rda(c) => serde_json::to_value(c),
            BlockConfig::Fridge(c) => serde_json::to_value(c),
            BlockConfig::Expb(c) => serde_json::to_value(c),
            BlockConfig::Dbm(c) => serde_json::to_value(c),
            BlockConfig::Svbf(c) => serde_json::to_value(c),
            BlockConfig::Link(c) => serde_json::to_value(c),
            BlockConfig::Engine(c) => serde_json::to_value(c),
        }
        .expect("configs serialize")
    }

    fn summary(&self) -> &'static str {
        match self {
            BlockConfig::H3(_) => {
                "H3 hash unit (Kompella et al., ToN 2012, §V): hash[j] = ^(key & Q_j), one key per clock"
            }
            BlockConfig::CounterBank(_) => {
                "Counter bank (Kompella et al., ToN 2012, §V): ping-pong RAM of {count, tsum} rows, \
                 one read-modify-write per clock with forwarding, streamed read-out, hardware clear"
            }
            BlockConfig::Lda(_) => {
                "LDA core (Kompella et al., ToN 2012, §III-B..C, §V): classifier, H3 row and sampling hashes, \
                 banks chosen by leading zeros, {count, tsum} rows at one packet per clock, ping-pong epochs"
            }
            BlockConfig::Rda(_) => {
                "RDA core (Fu et al., ToN 2018, §III-A, §V-A): k banks of {ID xor, TS sum, count} buckets, \
                 non-linear bucket hash per bank, one packet per clock, intervals delimited by the synchronized clock"
            }
            BlockConfig::Fridge(_) => {
                "Fridge core (Zheng et al., §3.2, §4.2, §6): N fridges in one entry memory, PRNG entry probability, \
                 insertion counters, delay samples with x at one packet per clock, in-fabric correction into \
                 ping-pong log2 histograms"
            }
            BlockConfig::Expb(_) => {
                "EXPB core (Uyeda et al., NSDI 2011, §3.2, §3.3): byte counts at m time scales 2^j base intervals, \
                 Algorithm 2's trailing-zero cascade one scale per clock, {count, sum, sum of squares, max} per scale \
                 with a majority culprit, ping-pong periods streamed out"
            }
            BlockConfig::Dbm(c) if c.base_ticks == 0 => {
                "DBM core (Uyeda et al., NSDI 2011, §3.1, §3.3, §5): per-packet dynamic bucket merge by mass, \
                 m buckets as a time-ordered list in block RAM, merge keys in a two-level radix-32 min structure, \
                 a join of the tail in one clock, a real merge in 18, culprits, ping-pong periods streamed out"
            }
            BlockConfig::Dbm(_) => {
                "DBM core (Uyeda et al., NSDI 2011, §3.1.3, §3.3, §5): dynamic bucket merge over base-interval \
                 byte sums by mass, range or variance, an interval front end taking one packet per clock, a \
                 sequential list back end with m buckets in block RAM and merge keys in a two-level radix-32 min \
                 structure, culprits, ping-pong periods streamed out"
            }
            BlockConfig::Svbf(_) => {
                "SVBF store (Lee et al., SIGMETRICS 2012, §3.3.3, §4, §6): delay-center classifier, one partition \
                 of even/odd word banks per hash function, one packet per clock, frozen epoch held for a query \
                 engine answering one query per clock, per-center {count, sum} streamed out"
            }
            BlockConfig::Link(_) => {
                "Host link, board side: 8N1 UART receiver and transmitter, register bridge of CRC-16-checked \
                 read/write request and response frames onto a register bus (docs/board.md)"
            }
            BlockConfig::Engine(_) => {
                "Measurement engine (docs/board.md): sender and receiver LDA cores (Kompella et al., ToN 2012, §III, §V) \
                 fed by an on-chip traffic source with programmable delay, loss and reordering, a 40-bit timestamp \
                 counter, and the host link onto the engine's register bus"
            }
        }
    }
}

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

    /// A FuseSoC (CAPI2) core file for the Verilog, with a lint target.
    pub fn fusesoc_core(&self) -> String {
        format!(
            "CAPI=2:\nname: netmeas:blocks:{top}:{ver}\ndescription: {desc}\n\nfilesets:\n  rtl:\n    files:\n      - {top}.v\n    file_type: verilogSource\n\ntargets:\n  default:\n    filesets: [rtl]\n    toplevel: {top}\n  lint:\n    default_tool: verilator\n    filesets: [rtl]\n    toplevel: {top}\n    tools:\n      verilator:\n        mode: lint-only\n        verilator_options: [-Wall]\n",
            top = self.top,
            ver = env!("CARGO_PKG_VERSION"),
            desc = self.config.summary(),
        )
    }

    /// Writes `<top>.v`, `<top>.interface.json` and `<top>.core` into `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let files = [
            (format!("{}.v", self.top), self.verilog.clone()),
            (format!("{}.interface.json", self.top), self.interface_json()),
            (format!("{}.core", self.top), self.fusesoc_core()),
        ];
        let regs = self.config.registers();
        // The engine's register map: csr.json and the Markdown table of docs/board.md.
        let engine_csr = match &self.config {
            BlockConfig::Engine(c) => vec![
                (
                    format!("{}.csr.json", self.top),
                    serde_json::to_string_pretty(&serde_json::json!({
                        "top": self.top,
                        "bus": { "link": "UART frames with CRC-16 (docs/board.md)", "addr_bits": 16, "data_bits": 32 },
                        "registers": engine_registers(c),
                    }))
                    .expect("serializes"),
                ),
                (format!("{}.registers.md", self.top), engine_registers_markdown(c)),
            ],
            _ => Vec::new(),
        };
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
        let mut written = Vec::new();
        for (name, text) in files.into_iter().chain(csr).chain(engine_csr) {
            let p = dir.join(name);
            std::fs::write(&p, text)?;
            written.push(p);
        }
        Ok(written)
    }
}

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
    let (verilog, ports) = on_export_stack("netmeas-export", move || generate_block(&c));
    let top = cfg.top_name();
    let verilog = finish_verilog(cfg, &top, &verilog);
    Ok(Exported { config: cfg.clone(), top, verilog, ports })
}

/// The Verilog and ports of `cfg`'s block (validated).
fn generate_block(cfg: &BlockConfig) -> (String, Vec<Port>) {
    match cfg {
        BlockConfig::H3(c) => export_h3(c),
        BlockConfig::CounterBank(c) => export_counter_bank(c),
        BlockConfig::Lda(c) => export_lda(c),
        BlockConfig::Rda(c) => export_rda(c),
        BlockConfig::Fridge(c) => export_fridge(c),
        BlockConfig::Expb(c) => generate(ExpbCore::new(c)),
        BlockConfig::Dbm(c) if c.base_ticks == 0 => generate(DbmCore::new(c)),
        BlockConfig::Dbm(c) => generate(DbmIntervalCore::new(c)),
        BlockConfig::Svbf(c) => export_svbf(c),
        BlockConfig::Link(c) => generate(LinkTop::new(c)),
        BlockConfig::Engine(c) => export_engine(c),
    }
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

macro_rules! h3_out {
    ($c:expr, $k:literal; $($o:literal),*) => {
        match $c.out_bits {
            $($o => generate(H3Unit::<$k, $o>::new($c)),)*
            other => unreachable!("out_bits {other} passed validation but has no instance"),
        }
    };
}

macro_rules! h3_key {
    ($c:expr; $($k:literal),*) => {
        match $c.key_bits {
            $($k => h3_out!($c, $k; 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 32, 40, 48, 64),)*
            other => unreachable!("key_bits {other} passed validation but has no instance"),
        }
    };
}

fn export_h3(c: &H3Config) -> (String, Vec<Port>) {
    h3_key!(c; 8, 16, 24, 32, 48, 64, 96, 104, 112, 120, 128)
}

macro_rules! cb_addr {
    ($c:expr, $cw:literal, $tw:literal, $w:literal, $iw:literal) => {
        match $c.addr_bits() {
            1 => generate(CounterBank::<1, $cw, $tw, $w, $iw>::new($c)),
            2 => generate(CounterBank::<2, $cw, $tw, $w, $iw>::new($c)),
            3 => generate(CounterBank::<3, $cw, $tw, $w, $iw>::new($c)),
            4 => generate(CounterBank::<4, $cw, $tw, $w, $iw>::new($c)),
            5 => generate(CounterBank::<5, $cw, $tw, $w, $iw>::new($c)),
            6 => generate(CounterBank::<6, $cw, $tw, $w, $iw>::new($c)),
            7 => generate(CounterBank::<7, $cw, $tw, $w, $iw>::new($c)),
            8 => generate(CounterBank::<8, $cw, $tw, $w, $iw>::new($c)),
            9 => generate(CounterBank::<9, $cw, $tw, $w, $iw>::new($c)),
            10 => generate(CounterBank::<10, $cw, $tw, $w, $iw>::new($c)),
            11 => generate(CounterBank::<11, $cw, $tw, $w, $iw>::new($c)),
            12 => generate(CounterBank::<12, $cw, $tw, $w, $iw>::new($c)),
            13 => generate(CounterBank::<13, $cw, $tw, $w, $iw>::new($c)),
            14 => generate(CounterBank::<14, $cw, $tw, $w, $iw>::new($c)),
            15 => generate(CounterBank::<15, $cw, $tw, $w, $iw>::new($c)),
            16 => generate(CounterBank::<16, $cw, $tw, $w, $iw>::new($c)),
            other => unreachable!("addr_bits {other} passed validation but has no instance"),
        }
    };
}

fn export_counter_bank(c: &CounterBankConfig) -> (String, Vec<Port>) {
    match (c.count_bits, c.tsum_bits) {
        (16, 32) => cb_addr!(c, 16, 32, 48, 6),
        (16, 40) => cb_addr!(c, 16, 40, 56, 6),
        (16, 48) => cb_addr!(c, 16, 48, 64, 6),
        (16, 64) => cb_addr!(c, 16, 64, 80, 7),
        (32, 32) => cb_addr!(c, 32, 32, 64, 6),
        (32, 40) => cb_addr!(c, 32, 40, 72, 7),
        (32, 48) => cb_addr!(c, 32, 48, 80, 7),
        (32, 64) => cb_addr!(c, 32, 64, 96, 7),
        other => unreachable!("widths {other:?} passed validation but have no instance"),
    }
}

macro_rules! lda_rows {
    ($c:expr, $k:literal) => {
        match ($c.row_bits(), $c.bank_bits()) {
            (6, 0) => generate(LdaCore::<$k, 6, 6>::new($c)),
            (6, 1) => generate(LdaCore::<$k, 6, 7>::new($c)),
            (6, 2) => generate(LdaCore::<$k, 6, 8>::new($c)),
            (7, 0) => generate(LdaCore::<$k, 7, 7>::new($c)),
            (7, 1) => generate(LdaCore::<$k, 7, 8>::new($c)),
            (7, 2) => generate(LdaCore::<$k, 7, 9>::new($c)),
            (8, 0) => generate(LdaCore::<$k, 8, 8>::new($c)),
            (8, 1) => generate(LdaCore::<$k, 8, 9>::new($c)),
            (8, 2) => generate(LdaCore::<$k, 8, 10>::new($c)),
            (9, 0) => generate(LdaCore::<$k, 9, 9>::new($c)),
            (9, 1) => generate(LdaCore::<$k, 9, 10>::new($c)),
            (9, 2) => generate(LdaCore::<$k, 9, 11>::new($c)),
            (10, 0) => generate(LdaCore::<$k, 10, 10>::new($c)),
            (10, 1) => generate(LdaCore::<$k, 10, 11>::new($c)),
            (10, 2) => generate(LdaCore::<$k, 10, 12>::new($c)),
            (11, 0) => generate(LdaCore::<$k, 11, 11>::new($c)),
            (11, 1) => generate(LdaCore::<$k, 11, 12>::new($c)),
            (11, 2) => generate(LdaCore::<$k, 11, 13>::new($c)),
            other => unreachable!("LDA geometry {other:?} passed validation but has no instance"),
        }
    };
}

macro_rules! engine_rows {
    ($c:expr, $k:literal) => {
        match ($c.lda.row_bits(), $c.lda.bank_bits()) {
            (6, 0) => generate(Engine::<$k, 6, 6>::new($c)),
            (6, 1) => generate(Engine::<$k, 6, 7>::new($c)),
            (6, 2) => generate(Engine::<$k, 6, 8>::new($c)),
            (7, 0) => generate(Engine::<$k, 7, 7>::new($c)),
            (7, 1) => generate(Engine::<$k, 7, 8>::new($c)),
            (7, 2) => generate(Engine::<$k, 7, 9>::new($c)),
            (8, 0) => generate(Engine::<$k, 8, 8>::new($c)),
            (8, 1) => generate(Engine::<$k, 8, 9>::new($c)),
            (8, 2) => generate(Engine::<$k, 8, 10>::new($c)),
            (9, 0) => generate(Engine::<$k, 9, 9>::new($c)),
            (9, 1) => generate(Engine::<$k, 9, 10>::new($c)),
            (9, 2) => generate(Engine::<$k, 9, 11>::new($c)),
            (10, 0) => generate(Engine::<$k, 10, 10>::new($c)),
            (10, 1) => generate(Engine::<$k, 10, 11>::new($c)),
            (10, 2) => generate(Engine::<$k, 10, 12>::new($c)),
            (11, 0) => generate(Engine::<$k, 11, 11>::new($c)),
            (11, 1) => generate(Engine::<$k, 11, 12>::new($c)),
            (11, 2) => generate(Engine::<$k, 11, 13>::new($c)),
            other => {
                unreachable!("engine geometry {other:?} passed validation but has no instance")
            }
        }
    };
}

fn export_engine(c: &EngineConfig) -> (String, Vec<Port>) {
    match c.lda.key_bits {
        32 => engine_rows!(c, 32),
        64 => engine_rows!(c, 64),
        120 => engine_rows!(c, 120),
        other => unreachable!("engine key_bits {other} passed validation but has no instance"),
    }
}

fn export_lda(c: &LdaConfig) -> (String, Vec<Port>) {
    match c.key_bits {
        32 => lda_rows!(c, 32),
        64 => lda_rows!(c, 64),
        104 => lda_rows!(c, 104),
        120 => lda_rows!(c, 120),
        128 => lda_rows!(c, 128),
        other => unreachable!("key_bits {other} passed validation but has no instance"),
    }
}

fn export_rda(c: &RdaConfig) -> (String, Vec<Port>) {
    match (c.banks, c.tsum_bits) {
        (1, 32) => generate(RdaCore::<1, 32, 128>::new(c)),
        (1, 40) => generate(RdaCore::<1, 40, 136>::new(c)),
        (1, 48) => generate(RdaCore::<1, 48, 144>::new(c)),
        (1, 64) => generate(RdaCore::<1, 64, 160>::new(c)),
        (2, 32) => generate(RdaCore::<2, 32, 128>::new(c)),
        (2, 40) => generate(RdaCore::<2, 40, 136>::new(c)),
        (2, 48) => generate(RdaCore::<2, 48, 144>::new(c)),
        (2, 64) => generate(RdaCore::<2, 64, 160>::new(c)),
        (3, 32) => generate(RdaCore::<3, 32, 128>::new(c)),
        (3, 40) => generate(RdaCore::<3, 40, 136>::new(c)),
        (3, 48) => generate(RdaCore::<3, 48, 144>::new(c)),
        (3, 64) => generate(RdaCore::<3, 64, 160>::new(c)),
        (4, 32) => generate(RdaCore::<4, 32, 128>::new(c)),
        (4, 40) => generate(RdaCore::<4, 40, 136>::new(c)),
        (4, 48) => generate(RdaCore::<4, 48, 144>::new(c)),
        (4, 64) => generate(RdaCore::<4, 64, 160>::new(c)),
        other => unreachable!("RDA geometry {other:?} passed validation but has no instance"),
    }
}

fn export_svbf(c: &SvbfConfig) -> (String, Vec<Port>) {
    match (c.hashes, c.partition_log2) {
        (9, 17) => generate(SvbfCore::<9, 17, 11, 10>::new(c)),
        (9, 16) => generate(SvbfCore::<9, 16, 10, 9>::new(c)),
        (9, 12) => generate(SvbfCore::<9, 12, 6, 5>::new(c)),
        (4, 10) => generate(SvbfCore::<4, 10, 4, 3>::new(c)),
        (2, 8) => generate(SvbfCore::<2, 8, 2, 1>::new(c)),
        other => unreachable!("SVBF build {other:?} passed validation but has no instance"),
    }
}

fn export_fridge(c: &FridgeConfig) -> (String, Vec<Port>) {
    match c.addr_bits() {
        1 => generate(FridgeCore::<1>::new(c)),
        2 => generate(FridgeCore::<2>::new(c)),
        3 => generate(FridgeCore::<3>::new(c)),
        4 => generate(FridgeCore::<4>::new(c)),
        5 => generate(FridgeCore::<5>::new(c)),
        6 => generate(FridgeCore::<6>::new(c)),
        7 => generate(FridgeCore::<7>::new(c)),
        8 => generate(FridgeCore::<8>::new(c)),
        9 => generate(FridgeCore::<9>::new(c)),
        10 => generate(FridgeCore::<10>::new(c)),
        11 => generate(FridgeCore::<11>::new(c)),
        12 => generate(FridgeCore::<12>::new(c)),
        13 => generate(FridgeCore::<13>::new(c)),
        14 => generate(FridgeCore::<14>::new(c)),
        15 => generate(FridgeCore::<15>::new(c)),
        16 => generate(FridgeCore::<16>::new(c)),
        17 => generate(FridgeCore::<17>::new(c)),
        other => {
            unreachable!("fridge entry-address width {other} passed validation but has no instance")
        }
    }
}

/// True when `line` holds rust-hdl's zero-extension idiom `(x & N'h<N ones>)`.
fn has_zero_extension_idiom(line: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_extension_idiom_is_recognised_exactly() {
        assert!(has_zero_extension_idiom("a = ((c) & 72'hffffffffffffffffff) | b;"));
        assert!(has_zero_extension_idiom("a = ((c) & 6'h3f);"));
        assert!(!has_zero_extension_idiom("a = ((c) & 72'hfffffffffffffffffe);"));
        assert!(!has_zero_extension_idiom("a = c & 8'hff | d;"));
        assert!(!has_zero_extension_idiom("a = b & c;"));
    }
}
