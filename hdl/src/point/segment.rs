//! Co-simulation of a segment (`docs/cores/point.md`, *In-band epoch
//! control*): two inline points of one core, a sender and a receiver,
//! joined by a link that loses, delays and corrupts frames as the caller
//! says (`netmeas_segment_tb.v`, in Icarus Verilog or Verilator). The
//! sender ends an epoch every `every` data frames with a control frame
//! (LDA §III); the receiver flips at each one it takes. [`SegmentRun`] is
//! what the testbench saw: the frames on the link, and each point's
//! read-outs with their status words.

use super::cosim::{MacFrame, beat_plan};
use super::sim::{self, Simulator};
use super::top::PointDesign;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The segment's testbench (module `netmeas_segment_tb`).
pub const TESTBENCH: &str = include_str!("netmeas_segment_tb.v");

/// What the link does to a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Delivered (a data frame with its delay).
    Delivered = 0,
    /// Lost.
    Lost = 1,
    /// Delivered with a byte of its header changed (a control frame: its CRC fails).
    Corrupted = 2,
}

/// The link of a run: one fate and delay (ns) per frame the sender puts on
/// it, in order, control frames included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentLink {
    /// Data frames per epoch (the sender's `CTRL_EVERY_PACKETS`, `CTRL_MODE` 1).
    pub every: u32,
    /// The segment ID both points are given.
    pub segment: u16,
    /// The receiver's clock ahead of the sender's, ns.
    pub offset_ns: u64,
    /// Each frame on the link: its fate and delay.
    pub frames: Vec<(Fate, u32)>,
    /// The sender's epochs (boundaries), the last ended by the host's EPOCH_FLIP.
    pub epochs: u32,
}

/// One point's epoch as the testbench read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentEpoch {
    /// Its read-out beats: `TDATA` as little-endian bytes.
    pub readout: Vec<Vec<u8>>,
    /// Every status word, read before the last beat was taken.
    pub status: Vec<u32>,
}

/// What the testbench saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentRun {
    /// The frames on the link, in order: whether each was a control frame.
    pub wire: Vec<bool>,
    /// The sender's epochs and the receiver's, in the order they were read out.
    pub epochs: [Vec<SegmentEpoch>; 2],
}

/// The segment's testbench built in one simulator.
pub struct SegmentSim {
    dir: PathBuf,
    command: Vec<PathBuf>,
}

impl SegmentSim {
    /// Builds the testbench of two points of `design` (inline, AXI4-Lite) in `sim`, in `dir`.
    pub fn new(sim: Simulator, dir: &Path, design: &PointDesign) -> Result<Self, String> {
        let map = design.segment_map()?;
        let mut files: Vec<(String, &str)> = design.files.iter().map(|(n, v)| (n.clone(), v.as_str())).collect();
        files.push(("netmeas_segment_tb.v".into(), TESTBENCH));
        files.push(("netmeas_segment_tb_map.vh".into(), map.as_str()));
        let command = sim::build(sim, dir, "netmeas_segment_tb", &files, &[])?;
        Ok(SegmentSim { dir: dir.to_path_buf(), command })
    }

    /// Runs `frames` through the sender, the link and the receiver.
    pub fn run(
        &self,
        design: &PointDesign,
        frames: &[MacFrame],
        link: &SegmentLink,
        seed: u32,
    ) -> Result<SegmentRun, String> {
        let (lines, _) = beat_plan(frames, design.data_bits, design.tuser_bits, u64::from(seed))?;
        let beats = self.dir.join("beats.hex");
        std::fs::write(&beats, lines.join("\n") + "\n").map_err(|e| format!("{}: {e}", beats.display()))?;
        let mut fates = String::new();
        for (fate, delay) in &link.frames {
            let _ = writeln!(fates, "{:02x}{delay:08x}", *fate as u8);
        }
        let path = self.dir.join("fates.hex");
        std::fs::write(&path, fates).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..]).current_dir(&self.dir).args([
            format!("+BEATS={}", lines.len()),
            format!("+FRAMES={}", link.frames.len()),
            format!("+EVERY={}", link.every),
            format!("+SEGMENT={}", link.segment),
            format!("+OFFSET_NS={}", link.offset_ns),
            format!("+EPOCHS={}", link.epochs),
            format!("+SEED={}", seed.max(1)),
        ]);
        let out = sim::checked(&mut cmd, "the segment's testbench")?;
        let _ = sim::pass_fields(&out)?("clocks")?;
        let n_status = design.regs.status.len();
        let mut run = SegmentRun { wire: Vec::new(), epochs: [Vec::new(), Vec::new()] };
        let mut current: [SegmentEpoch; 2] =
            std::array::from_fn(|_| SegmentEpoch { readout: Vec::new(), status: vec![0; n_status] });
        let bad = |l: &str| format!("bad line: {l}");
        for l in out.lines() {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.first().copied() {
                Some("WIRE") => run.wire.push(w.get(2) == Some(&"1")),
                Some("REG") => {
                    let pt: usize = w.get(1).and_then(|v| v.parse().ok()).filter(|&p| p < 2).ok_or_else(|| bad(l))?;
                    let i: usize =
                        w.get(2).and_then(|v| v.parse().ok()).filter(|&i| i < n_status).ok_or_else(|| bad(l))?;
                    current[pt].status[i] = w.get(3).and_then(|v| v.parse().ok()).ok_or_else(|| bad(l))?;
                }
                Some("RO") => {
                    let pt: usize = w.get(1).and_then(|v| v.parse().ok()).filter(|&p| p < 2).ok_or_else(|| bad(l))?;
                    let hex = w.get(2).ok_or_else(|| bad(l))?;
                    let bytes: Result<Vec<u8>, _> =
                        (0..hex.len() / 2).rev().map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)).collect();
                    current[pt].readout.push(bytes.map_err(|_| bad(l))?);
                    if w.get(3) == Some(&"1") {
                        let done = std::mem::replace(
                            &mut current[pt],
                            SegmentEpoch { readout: Vec::new(), status: vec![0; n_status] },
                        );
                        run.epochs[pt].push(done);
                    }
                }
                _ => {}
            }
        }
        Ok(run)
    }
}
