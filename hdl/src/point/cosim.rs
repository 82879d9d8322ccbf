//! Co-simulation of a packaged measurement point from raw frames
//! (`docs/cores/point.md`): the frames become AXI4-Stream beats (the
//! `tkeep` tail each frame's length gives, idle clocks between frames and
//! now and then inside one, the MAC's timestamp and bad-frame flag in
//! `tuser`), the point's testbench (`netmeas_point_tb.v`) drives them in
//! Icarus Verilog or Verilator, ends the epoch over AXI4-Lite, takes the
//! read-out and reads every status word; [`PointRun`] is what it saw, for
//! the caller to compare with the golden model fed by the host's reader.

use super::sim::{self, Simulator};
use super::top::PointDesign;
use netmeas_sim::prng::SplitMix64;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The point's testbench (module `netmeas_point_tb`).
pub const TESTBENCH: &str = include_str!("netmeas_point_tb.v");

/// One frame as the MAC delivers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacFrame {
    /// Ingress time, ns (`tuser[64:1]` on the first beat).
    pub ts_ns: u64,
    /// The bytes, no FCS (at least one).
    pub bytes: Vec<u8>,
    /// The MAC's bad-frame flag (`tuser[0]` on the last beat).
    pub bad: bool,
    /// The frame's one-way delay (`tuser[96:65]` on the first beat, for a
    /// point whose core takes it; 0 otherwise).
    pub delay: u32,
}

/// The beat file's lines for `frames` on a `data_bits` bus: one line per
/// MAC clock (see the testbench's header), with 0–3 idle clocks between
/// frames, one frame in 24 after a long gap (48–111 idle clocks: the parser
/// drains and a point's time markers come in) and, one beat in 16, an idle
/// clock inside a frame, drawn from `seed`; idle lanes and idle clocks
/// carry random bytes. The time (`s_axis_time_ns`) is the next frame's
/// ingress time from the clock after the previous frame's last beat.
/// `tuser_bits` is the point's `s_axis_tuser` (65, or 97 with the delay).
pub fn beat_lines(frames: &[MacFrame], data_bits: u32, tuser_bits: u32, seed: u64) -> Result<Vec<String>, String> {
    Ok(beat_plan(frames, data_bits, tuser_bits, seed)?.0)
}

/// [`beat_lines`], and the line of each frame's first beat.
pub fn beat_plan(
    frames: &[MacFrame],
    data_bits: u32,
    tuser_bits: u32,
    seed: u64,
) -> Result<(Vec<String>, Vec<usize>), String> {
    if tuser_bits != 65 && tuser_bits != 97 {
        return Err(format!("s_axis_tuser of {tuser_bits} bits: 65, or 97 with the delay"));
    }
    let lanes = (data_bits / 8) as usize;
    let mut rng = SplitMix64::new(seed);
    let mut lines = Vec::new();
    let mut starts = Vec::with_capacity(frames.len());
    let junk = |rng: &mut SplitMix64| (0..lanes).map(|_| rng.next_u64() as u8).collect::<Vec<u8>>();
    for (n, f) in frames.iter().enumerate() {
        if f.bytes.is_empty() {
            return Err(format!("frame {n} is empty"));
        }
        let gap = if rng.below(24) == 0 { 48 + rng.below(64) } else { rng.below(4) };
        let idle = |rng: &mut SplitMix64| {
            let j = junk(rng);
            line(
                f.ts_ns,
                Beat { valid: false, last: false, ts: 0, bad: false, delay: 0, keep: 0 },
                &j,
                lanes,
                tuser_bits,
            )
        };
        for _ in 0..gap {
            lines.push(idle(&mut rng));
        }
        let beats = f.bytes.len().div_ceil(lanes);
        starts.push(lines.len());
        for b in 0..beats {
            if b > 0 && rng.below(16) == 0 {
                lines.push(idle(&mut rng));
            }
            let chunk = &f.bytes[b * lanes..f.bytes.len().min((b + 1) * lanes)];
            let mut data = junk(&mut rng);
            data[..chunk.len()].copy_from_slice(chunk);
            let keep = if chunk.len() == lanes { u64::MAX } else { (1u64 << chunk.len()) - 1 };
            let last = b + 1 == beats;
            let delay = if tuser_bits > 65 { f.delay } else { 0 };
            let beat = Beat { valid: true, last, ts: f.ts_ns, bad: last && f.bad, delay, keep };
            lines.push(line(f.ts_ns, beat, &data, lanes, tuser_bits));
        }
    }
    Ok((lines, starts))
}

/// The AXI4-Stream side-band of one beat.
struct Beat {
    valid: bool,
    last: bool,
    /// `tuser[64:1]`.
    ts: u64,
    /// `tuser[0]`.
    bad: bool,
    /// `tuser[96:65]` (a point with the delay side-band).
    delay: u32,
    keep: u64,
}

/// One line: {time, tvalid, tlast, tuser, tkeep, tdata} in hex.
fn line(time: u64, beat: Beat, data: &[u8], lanes: usize, tuser_bits: u32) -> String {
    // Bits from the least significant: tdata (8·lanes), tkeep (lanes), tuser, tlast, tvalid, time (64).
    let tu = tuser_bits as usize;
    let total = 8 * lanes + lanes + tu + 2 + 64;
    let mut bits = vec![false; total];
    for (i, byte) in data.iter().enumerate() {
        for k in 0..8 {
            bits[8 * i + k] = byte >> k & 1 == 1;
        }
    }
    let at = 8 * lanes;
    for k in 0..lanes {
        bits[at + k] = beat.keep >> k & 1 == 1;
    }
    let at = at + lanes;
    bits[at] = beat.bad;
    for k in 0..64 {
        bits[at + 1 + k] = beat.ts >> k & 1 == 1;
    }
    for k in 65..tu {
        bits[at + k] = beat.delay >> (k - 65) & 1 == 1;
    }
    bits[at + tu] = beat.last;
    bits[at + tu + 1] = beat.valid;
    for k in 0..64 {
        bits[at + tu + 2 + k] = time >> k & 1 == 1;
    }
    hex(&bits)
}

/// Bits (least significant first) as hex, most significant digit first.
fn hex(bits: &[bool]) -> String {
    let digits = bits.len().div_ceil(4);
    let mut s = String::with_capacity(digits);
    for d in (0..digits).rev() {
        let v = (0..4).filter(|&k| bits.get(4 * d + k).copied().unwrap_or(false)).fold(0u8, |a, k| a | 1 << k);
        let _ = write!(s, "{v:x}");
    }
    s
}

/// What the testbench saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointRun {
    /// The read-out beats: `TDATA` as little-endian bytes, and `TLAST`.
    pub readout: Vec<(Vec<u8>, bool)>,
    /// Every status word, by index.
    pub status: Vec<u32>,
    /// The answers to the queries, in order: `TDATA` as little-endian bytes.
    pub answers: Vec<Vec<u8>>,
    /// The flags word at the end.
    pub flags: u32,
    /// A reset's beat line (`None` for one in the read-out), if one was made.
    pub reset: Option<Option<usize>>,
    /// After a reset of the MAC's side, the beat line its frames went on from.
    pub resumed: Option<usize>,
    /// After a reset of the core's side, the beat line reached when
    /// `POINT_STATUS` showed READY again.
    pub ready: Option<usize>,
    /// Each frame's first beat line.
    pub frame_starts: Vec<usize>,
}

impl PointRun {
    /// A field of a read-out beat: `bits` (≤ 64) from bit `lsb`.
    pub fn field(beat: &[u8], lsb: u32, bits: u32) -> u64 {
        (0..bits).fold(0u64, |v, k| {
            let b = (lsb + k) as usize;
            v | (u64::from(beat.get(b / 8).copied().unwrap_or(0) >> (b % 8) & 1) << k)
        })
    }
}

/// The clocks and the read-out's back-pressure of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct PointClocks {
    /// MAC clock, MHz.
    pub s_mhz: f64,
    /// Core clock, MHz.
    pub m_mhz: f64,
    /// Core clocks after reset before the first frame (the core clears its memories).
    pub wait_clocks: u32,
    /// Chance of `m_axis_tready` per core clock, %.
    pub ready_pct: u32,
    /// The time (`s_axis_time_ns`) after the last frame, ns (0: the last
    /// frame's): a point's time markers end the intervals up to it.
    pub end_ns: u64,
    /// The read-out taken through the read-out window over AXI4-Lite
    /// instead of from `m_axis_*` (a point with an `EPOCH_FLIP`).
    pub window: bool,
    /// A reset of one side or both during the run.
    pub reset: Option<PointReset>,
}

/// Which side of a point a reset asserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetSide {
    /// The MAC's (`s_axis_aresetn`).
    Mac = 1,
    /// The core's (`aresetn`).
    Core = 2,
    /// Both, each for the same number of its own clocks.
    Both = 3,
}

/// When a reset comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetAt {
    /// Before frame `k`'s beat `b` (0: between frames).
    Frame(usize, usize),
    /// In the read-out, after its first beat.
    Readout,
}

/// A reset of a point during a run (`netmeas_point_tb.v`, `+RESET_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointReset {
    /// The side reset.
    pub side: ResetSide,
    /// When.
    pub at: ResetAt,
    /// For how many clocks of each side's own clock.
    pub clocks: u32,
}

impl Default for PointClocks {
    /// A 10G MAC's 156.25 MHz, a 200 MHz core.
    fn default() -> Self {
        PointClocks {
            s_mhz: 156.25,
            m_mhz: 200.0,
            wait_clocks: 5000,
            ready_pct: 70,
            end_ns: 0,
            window: false,
            reset: None,
        }
    }
}

/// An access of the host's set-up, before the frames (`setup.hex`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusOp {
    /// Write a word: (byte address, value).
    Write(u32, u32),
    /// Read a word until it equals the value: (byte address, value).
    Poll(u32, u32),
}

/// What the host does besides the frames: its set-up, and the queries it
/// sends once the epoch is read out (each its `TDATA`, little-endian bytes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostScript {
    /// Bus accesses before the frames.
    pub setup: Vec<BusOp>,
    /// Queries on `s_axis_query_*` after the read-out.
    pub queries: Vec<Vec<u8>>,
}

/// `bytes` (little-endian) as `bits / 4` hex digits, most significant first.
fn hex_bytes(bytes: &[u8], bits: u32) -> String {
    let b: Vec<bool> = (0..bits as usize).map(|i| bytes.get(i / 8).is_some_and(|v| v >> (i % 8) & 1 == 1)).collect();
    hex(&b)
}

/// A hex line of the testbench's output as little-endian bytes.
fn parse_hex(hex: &str, l: &str) -> Result<Vec<u8>, String> {
    if !hex.len().is_multiple_of(2) {
        return Err(format!("a line with an odd number of hex digits: {l}"));
    }
    let bytes: Result<Vec<u8>, _> =
        (0..hex.len() / 2).rev().map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)).collect();
    bytes.map_err(|_| format!("a line that is not hex: {l}"))
}

/// The point's testbench built in one simulator.
pub struct PointSim {
    dir: PathBuf,
    command: Vec<PathBuf>,
}

impl PointSim {
    /// Builds the testbench of `design` (on AXI4-Lite) in `sim`, in the scratch folder `dir`.
    pub fn new(sim: Simulator, dir: &Path, design: &PointDesign) -> Result<Self, String> {
        let map = design.testbench_map()?;
        let mut files: Vec<(String, &str)> = design.files.iter().map(|(n, v)| (n.clone(), v.as_str())).collect();
        files.push(("netmeas_point_tb.v".into(), TESTBENCH));
        files.push(("netmeas_point_tb_map.vh".into(), map.as_str()));
        let command = sim::build(sim, dir, "netmeas_point_tb", &files, &[])?;
        Ok(PointSim { dir: dir.to_path_buf(), command })
    }

    /// Runs the frames through the point: what the testbench saw.
    pub fn run(
        &self,
        design: &PointDesign,
        frames: &[MacFrame],
        clocks: &PointClocks,
        seed: u32,
    ) -> Result<PointRun, String> {
        self.run_with(design, frames, clocks, &HostScript::default(), seed)
    }

    /// Runs the frames through the point with the host's set-up before them
    /// and its queries after the read-out: what the testbench saw.
    pub fn run_with(
        &self,
        design: &PointDesign,
        frames: &[MacFrame],
        clocks: &PointClocks,
        host: &HostScript,
        seed: u32,
    ) -> Result<PointRun, String> {
        let (lines, frame_starts) = beat_plan(frames, design.data_bits, design.tuser_bits, u64::from(seed))?;
        let reset_args = match clocks.reset {
            None => Vec::new(),
            Some(r) => {
                let (beat, readout) = match r.at {
                    ResetAt::Frame(k, b) => {
                        let line =
                            frame_starts.get(k).ok_or_else(|| format!("a reset at frame {k} of {}", frames.len()))?;
                        (line + b, 0)
                    }
                    ResetAt::Readout => (0, 1),
                };
                vec![
                    format!("+RESET_SIDE={}", r.side as u8),
                    format!("+RESET_BEAT={beat}"),
                    format!("+RESET_CLOCKS={}", r.clocks),
                    format!("+RESET_READOUT={readout}"),
                ]
            }
        };
        let setup: Vec<String> = host
            .setup
            .iter()
            .map(|op| match *op {
                BusOp::Write(a, v) => format!("00000000{a:08x}{v:08x}"),
                BusOp::Poll(a, v) => format!("00000001{a:08x}{v:08x}"),
            })
            .collect();
        let qb = match (&design.query, host.queries.is_empty()) {
            (_, true) => 0,
            (Some(q), false) => q.query_bits,
            (None, false) => return Err(format!("{} has no query port", design.top)),
        };
        let queries: Vec<String> = host.queries.iter().map(|q| hex_bytes(q, qb)).collect();
        for (name, l) in [("setup.hex", &setup), ("queries.hex", &queries)] {
            let f = self.dir.join(name);
            std::fs::write(&f, l.join("\n") + "\n").map_err(|e| format!("{}: {e}", f.display()))?;
        }
        let beats = self.dir.join("beats.hex");
        std::fs::write(&beats, lines.join("\n") + "\n").map_err(|e| format!("{}: {e}", beats.display()))?;
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..]).current_dir(&self.dir).args([
            format!("+BEATS={}", lines.len()),
            format!("+S_HALF_PS={}", sim::half_ps(clocks.s_mhz)?),
            format!("+M_HALF_PS={}", sim::half_ps(clocks.m_mhz)?),
            format!("+WAIT_CLOCKS={}", clocks.wait_clocks),
            format!("+READY_PCT={}", clocks.ready_pct),
            format!("+SEED={}", seed.max(1)),
            format!("+END_NS={}", clocks.end_ns),
            format!("+WINDOW={}", u8::from(clocks.window)),
            format!("+SETUP={}", setup.len()),
            format!("+QUERIES={}", queries.len()),
        ]);
        cmd.args(&reset_args);
        let out = sim::checked(&mut cmd, "the point's testbench")?;
        let _ = sim::pass_fields(&out)?("clocks")?;
        let mut run = PointRun {
            readout: Vec::new(),
            status: vec![0; design.regs.status.len()],
            answers: Vec::new(),
            flags: 0,
            reset: None,
            resumed: None,
            ready: None,
            frame_starts,
        };
        let number = |w: Option<&str>, l: &str| -> Result<i64, String> {
            w.and_then(|v| v.parse().ok()).ok_or_else(|| format!("bad line: {l}"))
        };
        for l in out.lines() {
            let mut w = l.split_whitespace();
            match w.next() {
                Some("RO") => {
                    let (hex, last) = (w.next().unwrap_or(""), w.next() == Some("1"));
                    run.readout.push((parse_hex(hex, l)?, last));
                }
                Some("ANS") => run.answers.push(parse_hex(w.next().unwrap_or(""), l)?),
                Some("FLAGS") => run.flags = number(w.next(), l)? as u32,
                Some("RESET") => run.reset = Some(usize::try_from(number(w.next(), l)?).ok()),
                Some("RESUMED") => run.resumed = Some(number(w.next(), l)? as usize),
                Some("READY") => run.ready = Some(number(w.next(), l)? as usize),
                Some("REG") => {
                    let i: usize = w.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("bad line: {l}"))?;
                    let v: u32 = w.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("bad line: {l}"))?;
                    *run.status.get_mut(i).ok_or_else(|| format!("status word {i} out of range"))? = v;
                }
                _ => {}
            }
        }
        Ok(run)
    }
}
