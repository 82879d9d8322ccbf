//! The measurement point's standard register buses (`docs/cores/bus-slaves.md`):
//! `netmeas_axil_slave` (AXI4-Lite) and `netmeas_wb_slave` (Wishbone B4
//! pipelined, as LiteX reaches a peripheral), hand-written Verilog-2005
//! like the record FIFO, each in front of a point's generated register
//! block ([`super::regs::PointRegs`]): the register map of the core (its
//! one source) read back and written, the point's status words and sticky
//! flags, errors for what the map does not allow. The LDA paper's routers
//! report to a monitoring station (§II) and MAPLE's query engine is asked
//! by the host (§4) over such a bus.
//!
//! Both ship with self-checking testbenches that run unchanged in Icarus
//! Verilog and Verilator, driven with random valid/ready (or STB) timing on
//! every channel and checked against a model of the map on every access;
//! [`BusBuild`] builds one per map and runs it by plusargs.

use super::regs::PointRegs;
use super::sim::{self, Simulator};
use std::path::Path;
use std::process::Command;

/// The AXI4-Lite slave's Verilog (module `netmeas_axil_slave`, parameter `ADDR_WIDTH`).
pub const AXIL_VERILOG: &str = include_str!("netmeas_axil_slave.v");
/// The Wishbone B4 pipelined slave's Verilog (module `netmeas_wb_slave`, parameter `ADDR_WIDTH`).
pub const WB_VERILOG: &str = include_str!("netmeas_wb_slave.v");
/// The AXI4-Lite slave's testbench.
pub const AXIL_TESTBENCH: &str = include_str!("netmeas_axil_slave_tb.v");
/// The Wishbone slave's testbench.
pub const WB_TESTBENCH: &str = include_str!("netmeas_wb_slave_tb.v");
/// What both testbenches share (the model of the map and the checks).
pub const TESTBENCH_COMMON: &str = include_str!("netmeas_bus_tb_common.vh");
/// The register block's module name inside the testbenches.
pub const TB_REGS_MODULE: &str = "netmeas_tb_regs";

/// A register bus of the point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bus {
    /// AXI4-Lite (`s_axil_*`).
    Axil,
    /// Wishbone B4 pipelined (`wb_*`).
    Wishbone,
}

impl Bus {
    /// The slave's module name.
    pub fn module(self) -> &'static str {
        match self {
            Bus::Axil => "netmeas_axil_slave",
            Bus::Wishbone => "netmeas_wb_slave",
        }
    }

    /// The slave's Verilog.
    pub fn verilog(self) -> &'static str {
        match self {
            Bus::Axil => AXIL_VERILOG,
            Bus::Wishbone => WB_VERILOG,
        }
    }

    /// The testbench's Verilog (module `<module>_tb`).
    pub fn testbench(self) -> &'static str {
        match self {
            Bus::Axil => AXIL_TESTBENCH,
            Bus::Wishbone => WB_TESTBENCH,
        }
    }
}

/// One run of a bus testbench.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusRun {
    /// Random seed.
    pub seed: u32,
    /// Rounds (AXI4-Lite: a write and a read at once; Wishbone: a bus cycle of 1–8 accesses).
    pub rounds: u32,
    /// Chance per clock that a waiting channel raises VALID (Wishbone: STB), %.
    pub valid_pct: u32,
    /// Chance per clock of BREADY and RREADY, % (AXI4-Lite).
    pub ready_pct: u32,
}

impl Default for BusRun {
    fn default() -> Self {
        BusRun { seed: 1, rounds: 2000, valid_pct: 60, ready_pct: 60 }
    }
}

/// What a passing run reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusOutcome {
    /// Writes made.
    pub writes: u64,
    /// Reads made.
    pub reads: u64,
    /// Of them answered with an error (as the model required).
    pub errors: u64,
    /// Clocks.
    pub clocks: u64,
}

/// A bus testbench built in one simulator for one register map.
pub struct BusBuild {
    command: Vec<std::path::PathBuf>,
}

impl BusBuild {
    /// Builds the testbench of `bus` in front of the register block of
    /// `regs` in `sim`, in the scratch folder `dir`.
    pub fn new(sim: Simulator, bus: Bus, dir: &Path, regs: &PointRegs) -> Result<Self, String> {
        Self::with_slave(sim, bus, dir, regs, bus.verilog())
    }

    /// [`Self::new`] for another `slave` Verilog of the bus (a modified slave).
    pub fn with_slave(sim: Simulator, bus: Bus, dir: &Path, regs: &PointRegs, slave: &str) -> Result<Self, String> {
        let tb_regs = PointRegs { module: TB_REGS_MODULE.into(), ..regs.clone() };
        let regs_v = tb_regs.verilog()?;
        let map = tb_regs.testbench_map();
        let top = format!("{}_tb", bus.module());
        let files = [
            (format!("{}.v", bus.module()), slave),
            (format!("{TB_REGS_MODULE}.v"), regs_v.as_str()),
            (format!("{top}.v"), bus.testbench()),
            ("netmeas_tb_map.vh".to_string(), map.as_str()),
            ("netmeas_bus_tb_common.vh".to_string(), TESTBENCH_COMMON),
        ];
        Ok(BusBuild { command: sim::build(sim, dir, &top, &files, &[])? })
    }

    /// Runs the testbench once: its outcome, or its failure line.
    pub fn run(&self, run: &BusRun) -> Result<BusOutcome, String> {
        if run.rounds == 0 || !(1..=100).contains(&run.valid_pct) || !(1..=100).contains(&run.ready_pct) {
            return Err(format!("not a usable bus run: {run:?}"));
        }
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..]).args([
            format!("+SEED={}", run.seed),
            format!("+ROUNDS={}", run.rounds),
            format!("+VALID_PCT={}", run.valid_pct),
            format!("+READY_PCT={}", run.ready_pct),
        ]);
        let out = sim::checked(&mut cmd, "the testbench")?;
        let field = sim::pass_fields(&out)?;
        Ok(BusOutcome {
            writes: field("writes")?,
            reads: field("reads")?,
            errors: field("errors")?,
            clocks: field("clocks")?,
        })
    }
}
