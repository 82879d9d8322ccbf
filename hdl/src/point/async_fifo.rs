//! The measurement point's clock crossing: `netmeas_async_fifo`, a
//! hand-written Verilog FIFO with Gray-coded pointers and two-flop
//! synchronizers that carries the frame parser's records (one per frame,
//! in the MAC's clock domain) to the core's clock domain. The tap never
//! back-pressures the MAC, so a record that finds it full is dropped and
//! counted (`s_status_overflow`, `s_overflow_count`), never lost silently.
//! The papers assume this layer exists: LDA §V and MAPLE §4 measure at the
//! line card, where the MAC and the measurement logic need not share a
//! clock.
//!
//! The FIFO ships with a self-checking testbench (`netmeas_async_fifo_tb.v`)
//! that runs unchanged in Icarus Verilog and in Verilator (`--binary
//! --timing`); [`FifoBuild`] builds it once per size and runs it with two
//! clocks of any periods.

use super::sim;
use std::path::Path;
use std::process::Command;

/// The FIFO's Verilog (module [`MODULE`], parameters `WIDTH` and `ADDR_BITS` ≥ 2).
pub const VERILOG: &str = include_str!("netmeas_async_fifo.v");
/// Its top module.
pub const MODULE: &str = "netmeas_async_fifo";
/// The self-checking testbench's Verilog (module [`TB_MODULE`]).
pub const TESTBENCH: &str = include_str!("netmeas_async_fifo_tb.v");
/// The testbench's top module.
pub const TB_MODULE: &str = "netmeas_async_fifo_tb";

pub use super::sim::Simulator;

/// One run of the testbench: the two clocks and the traffic.
#[derive(Clone, Debug, PartialEq)]
pub struct FifoRun {
    /// Write (MAC) clock, MHz.
    pub s_mhz: f64,
    /// Read (core) clock, MHz.
    pub m_mhz: f64,
    /// Delay of the read clock's first edge, ps.
    pub m_phase_ps: u64,
    /// Chance of a record on a write clock, %.
    pub write_pct: u32,
    /// Chance of `m_axis_tready` on a read clock, %.
    pub read_pct: u32,
    /// Records offered (at most [`MAX_RECORDS`]).
    pub records: u32,
    /// Random seed.
    pub seed: u32,
    /// Fail on any dropped record (the reader keeps up).
    pub no_drops: bool,
    /// Resets after the first one, at random times.
    pub resets: u32,
    /// Which side they reset.
    pub reset_side: ResetSide,
    /// The longest of them, clocks of the domain reset.
    pub reset_max: u32,
}

/// Which side of the FIFO a run's resets assert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetSide {
    /// Each reset one of the three below, at random.
    Any = 0,
    /// The write (MAC) side alone.
    Write = 1,
    /// The read (core) side alone.
    Read = 2,
    /// Both sides, each for its own length.
    Both = 3,
}

/// The most records one run offers (the testbench's `MAX_RECORDS`).
pub const MAX_RECORDS: u32 = 100_000;

impl Default for FifoRun {
    /// A 10G MAC's 156.25 MHz into a 200 MHz core, a record every clock,
    /// the reader always ready: nothing may be dropped.
    fn default() -> Self {
        FifoRun {
            s_mhz: 156.25,
            m_mhz: 200.0,
            m_phase_ps: 1234,
            write_pct: 100,
            read_pct: 100,
            records: MAX_RECORDS,
            seed: 1,
            no_drops: true,
            resets: 0,
            reset_side: ResetSide::Any,
            reset_max: 40,
        }
    }
}

/// What a passing run reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FifoOutcome {
    /// Records offered.
    pub records: u64,
    /// Of them dropped (the FIFO was full).
    pub dropped: u64,
    /// Of them refused (offered while the write side was in reset).
    pub refused: u64,
    /// Of them abandoned by a reset (in the FIFO while it ran).
    pub vanished: u64,
    /// Of them taken out, in order.
    pub received: u64,
    /// Longest time from a record's write clock to its read clock, ps.
    pub max_latency_ps: u64,
}

impl FifoRun {
    /// The testbench's plusargs.
    fn plusargs(&self) -> Result<Vec<String>, String> {
        if self.write_pct > 100
            || self.read_pct > 100
            || self.records == 0
            || self.records > MAX_RECORDS
            || self.reset_max == 0
        {
            return Err(format!("not a usable FIFO run: {self:?}"));
        }
        let args = [
            ("S_HALF_PS", sim::half_ps(self.s_mhz)?),
            ("M_HALF_PS", sim::half_ps(self.m_mhz)?),
            ("M_PHASE_PS", self.m_phase_ps),
            ("WRITE_PCT", self.write_pct.into()),
            ("READ_PCT", self.read_pct.into()),
            ("RECORDS", self.records.into()),
            ("SEED", self.seed.into()),
            ("NO_DROPS", self.no_drops.into()),
            ("RESETS", self.resets.into()),
            ("RESET_SIDE", self.reset_side as u64),
            ("RESET_MAX", self.reset_max.into()),
        ];
        Ok(args.iter().map(|(k, v)| format!("+{k}={v}")).collect())
    }
}

/// The testbench built in one simulator for one size of the FIFO; each
/// [`FifoBuild::run`] reuses the build.
pub struct FifoBuild {
    sim: Simulator,
    /// The program that runs it, with its leading arguments.
    command: Vec<std::path::PathBuf>,
}

impl FifoBuild {
    /// Builds the testbench of the FIFO with records of `width` bits (≥ 32:
    /// a record carries its number) and 2^`addr_bits` (≥ 2) of memory in
    /// `sim`, in the scratch folder `dir`.
    pub fn new(sim: Simulator, dir: &Path, width: u32, addr_bits: u32) -> Result<Self, String> {
        Self::with_verilog(sim, dir, width, addr_bits, VERILOG)
    }

    /// [`Self::new`] for another `verilog` of the module (a modified FIFO).
    pub fn with_verilog(sim: Simulator, dir: &Path, width: u32, addr_bits: u32, verilog: &str) -> Result<Self, String> {
        if width < 32 || addr_bits < 2 {
            return Err(format!(
                "records of {width} bits and 2^{addr_bits} of memory: the testbench needs ≥ 32 and ≥ 2"
            ));
        }
        let params = [("WIDTH", width), ("ADDR_BITS", addr_bits)];
        let files = [
            (format!("{MODULE}.v"), verilog),
            (super::reset_bridge::FILE.to_string(), super::reset_bridge::VERILOG),
            (format!("{TB_MODULE}.v"), TESTBENCH),
        ];
        let command = sim::build(sim, dir, TB_MODULE, &files, &params)?;
        Ok(FifoBuild { sim, command })
    }

    /// The simulator it was built in.
    pub fn simulator(&self) -> Simulator {
        self.sim
    }

    /// Runs the testbench once: its outcome, or its failure line.
    pub fn run(&self, run: &FifoRun) -> Result<FifoOutcome, String> {
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..]).args(run.plusargs()?);
        parse_outcome(&sim::checked(&mut cmd, "the testbench")?)
    }
}

/// The testbench's PASS line as an outcome, or its FAIL line as the error.
fn parse_outcome(out: &str) -> Result<FifoOutcome, String> {
    let field = sim::pass_fields(out)?;
    Ok(FifoOutcome {
        records: field("records")?,
        dropped: field("dropped")?,
        refused: field("refused")?,
        vanished: field("vanished")?,
        received: field("received")?,
        max_latency_ps: field("max_latency_ps")?,
    })
}
