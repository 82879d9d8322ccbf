//! The measurement point's status counters (`docs/cores/point-counters.md`):
//! `netmeas_point_counters`, hand-written Verilog like the record FIFO.
//! Events of the MAC's clock domain (a frame seen, a record given, a frame
//! without a record by reason, a record dropped, a FIFO overflow) are
//! counted there, saturating, and cross to the core's clock domain as Gray
//! codes through two-flop synchronizers, where the register block reads
//! them. No frame is lost silently; the LDA paper's monitoring station
//! (§II) and the bandwidth paper's archive (§4) read such counters to tell
//! a gap in the data from a quiet link.
//!
//! The block ships with a self-checking testbench that runs unchanged in
//! Icarus Verilog and Verilator; [`CountersBuild`] builds it once per size
//! and runs it with two clocks of any periods.

use super::sim::{self, Simulator};
use std::path::Path;
use std::process::Command;

/// The counters' Verilog (module [`MODULE`], parameters `N` counters of `W` bits).
pub const VERILOG: &str = include_str!("netmeas_point_counters.v");
/// Its top module.
pub const MODULE: &str = "netmeas_point_counters";
/// The self-checking testbench's Verilog (module [`TB_MODULE`]).
pub const TESTBENCH: &str = include_str!("netmeas_point_counters_tb.v");
/// The testbench's top module.
pub const TB_MODULE: &str = "netmeas_point_counters_tb";

/// One run of the testbench: the two clocks and the events.
#[derive(Clone, Debug, PartialEq)]
pub struct CountersRun {
    /// Write (MAC) clock, MHz.
    pub s_mhz: f64,
    /// Read (core) clock, MHz.
    pub m_mhz: f64,
    /// Delay of the read clock's first edge, ps.
    pub m_phase_ps: u64,
    /// Chance of an event per write clock, % (counter i of N: this × (i + 1) / N).
    pub event_pct: u32,
    /// Write clocks with events.
    pub clocks: u32,
    /// Random seed (not 0).
    pub seed: u32,
}

impl Default for CountersRun {
    /// A 10G MAC's 156.25 MHz into a 200 MHz core, events on half the clocks.
    fn default() -> Self {
        CountersRun { s_mhz: 156.25, m_mhz: 200.0, m_phase_ps: 1234, event_pct: 50, clocks: 20_000, seed: 1 }
    }
}

impl CountersRun {
    fn plusargs(&self) -> Result<Vec<String>, String> {
        if self.event_pct > 100 || self.clocks == 0 || self.seed == 0 {
            return Err(format!("not a usable counters run: {self:?}"));
        }
        let args = [
            ("S_HALF_PS", sim::half_ps(self.s_mhz)?),
            ("M_HALF_PS", sim::half_ps(self.m_mhz)?),
            ("M_PHASE_PS", self.m_phase_ps),
            ("EVENT_PCT", self.event_pct.into()),
            ("CLOCKS", self.clocks.into()),
            ("SEED", self.seed.into()),
        ];
        Ok(args.iter().map(|(k, v)| format!("+{k}={v}")).collect())
    }
}

/// What a passing run reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountersOutcome {
    /// Events made, over every counter.
    pub events: u64,
    /// Write clocks.
    pub s_clocks: u64,
}

/// The testbench built in one simulator for one size; each
/// [`CountersBuild::run`] reuses the build.
pub struct CountersBuild {
    command: Vec<std::path::PathBuf>,
}

impl CountersBuild {
    /// Builds the testbench of `n` counters of `w` bits in `sim`, in the scratch folder `dir`.
    pub fn new(sim: Simulator, dir: &Path, n: u32, w: u32) -> Result<Self, String> {
        Self::with_verilog(sim, dir, n, w, VERILOG)
    }

    /// [`Self::new`] for another `verilog` of the module (a modified block).
    pub fn with_verilog(sim: Simulator, dir: &Path, n: u32, w: u32, verilog: &str) -> Result<Self, String> {
        if n == 0 || !(2..=32).contains(&w) {
            return Err(format!("{n} counters of {w} bits: the block takes ≥ 1 of 2..=32"));
        }
        let files = [
            (format!("{MODULE}.v"), verilog),
            (super::reset_bridge::FILE.to_string(), super::reset_bridge::VERILOG),
            (format!("{TB_MODULE}.v"), TESTBENCH),
        ];
        Ok(CountersBuild { command: sim::build(sim, dir, TB_MODULE, &files, &[("N", n), ("W", w)])? })
    }

    /// Runs the testbench once: its outcome, or its failure line.
    pub fn run(&self, run: &CountersRun) -> Result<CountersOutcome, String> {
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..]).args(run.plusargs()?);
        let out = sim::checked(&mut cmd, "the testbench")?;
        let field = sim::pass_fields(&out)?;
        Ok(CountersOutcome { events: field("events")?, s_clocks: field("s_clocks")? })
    }
}
