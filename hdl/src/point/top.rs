//! A packaged measurement point (`docs/cores/point.md`): one top module
//! that takes the frames a MAC delivers and is read and configured over a
//! standard bus. Inside, in the MAC's clock domain (`s_axis_aclk`), the
//! frame parser and the counters' write side; the record FIFO and the
//! counters into the core's clock domain (`aclk`); there, the core, its
//! register block and the bus slave, and the core's read-out as an
//! AXI4-Stream master (`m_axis_*`) for DMA.
//!
//! It is generic over the registry: a core gives its [`PointBinding`]
//! (which record field each packet input takes, how epochs flip); every
//! other port is wired by name:
//! - `clock`, `reset`, `s_valid`/`s_ready`, `csr_*`: the core's clock and
//!   reset, the record FIFO's output, the register block;
//! - `m_ro_valid`, `m_ro_ready` and the binding's last-beat output: the
//!   read-out stream's handshake and `TLAST`; every other `m_ro_*` output,
//!   in port order from bit 0, its `TDATA` (padded to whole bytes);
//! - any other output: status words the host reads (a 48-bit counter as
//!   `NAME_LO`, `NAME_HI`);
//! - any other one-bit input: a command word (write 1: one pulse).
//!
//! The papers assume this layer: LDA §V and MAPLE §4 measure at the line
//! card, behind the MAC; the LDA paper's routers report to a monitoring
//! station (§II).

use super::binding::{DELAY_BITS, PointBinding, QueryBinding, RECORD_BITS, RecordField, RecordSource, TimeInput};
use super::bus::Bus;
use super::regs::{PointConfig, PointField, PointRegs};
use crate::export::{Dir, Exported, Port};
use netmeas_sim::frame::Unparsed;
use netmeas_sim::frame::control::{CONTROL_ETHERTYPE, ControlError};
use std::fmt::Write;

/// The read-out window's Verilog (module `netmeas_point_window`).
pub const WINDOW_VERILOG: &str = include_str!("netmeas_point_window.v");

/// The query port's Verilog (module `netmeas_point_query`).
pub const QUERY_VERILOG: &str = include_str!("netmeas_point_query.v");
/// Its self-checking testbench (module `netmeas_point_query_tb`, plusargs in its header).
pub const QUERY_TESTBENCH: &str = include_str!("netmeas_point_query_tb.v");

/// The record FIFO's memory: 2^4 records (distributed RAM).
pub const FIFO_ADDR_BITS: u32 = 4;

/// An inline point's record FIFO: 2^5 records, so that the path holds the
/// MAC only when the FIFO and the frames inside the parser could fill it.
pub const INLINE_FIFO_ADDR_BITS: u32 = 5;

/// The answer FIFO of a point's query port: 2^5 answers, more than the
/// SVBF core's 22 clocks from a query to its answer, so queries run at one
/// per clock while the answers are taken.
pub const ANSWER_DEPTH_BITS: u32 = 5;

/// The delay side-band's queue in the MAC's domain: a frame's delay waits
/// there from its first beat to its outcome. 2^5 frames: more than can be
/// between the two (the parser's 13 clocks of latency, a frame a clock at
/// most).
pub const DELAY_QUEUE_BITS: u32 = 5;

/// Width of the point's `s_axis_tuser`: the bad-frame flag and the ingress
/// time (65 bits), then the delay side-band if the core takes it.
pub fn tuser_bits(binding: &PointBinding) -> u32 {
    65 + binding.extra_bits()
}

/// The width of a stream's `TDATA` holding `fields` (core port, bits) from
/// bit 0: their bits padded to whole bytes (at least one).
pub fn tdata_width(fields: &[(String, u32)]) -> u32 {
    fields.iter().map(|(_, b)| b).sum::<u32>().div_ceil(8).max(1) * 8
}

/// The Verilog concatenation that drives a stream's `TDATA` of `width` bits
/// from `fields` (core port, bits; from bit 0), each the wire `core_<port>`,
/// zero-padded above.
fn tdata_concat(fields: &[(String, u32)], width: u32) -> String {
    let pad = width - fields.iter().map(|(_, b)| b).sum::<u32>();
    let padding = (pad > 0).then(|| format!("{pad}'d0"));
    let parts: Vec<String> = padding.into_iter().chain(fields.iter().rev().map(|(n, _)| format!("core_{n}"))).collect();
    format!("{{{}}}", parts.join(", "))
}

/// Where field `name` of `fields` (from bit 0) sits in `TDATA`: (lowest bit, bits).
pub fn tdata_field(fields: &[(String, u32)], name: &str) -> Option<(u32, u32)> {
    let mut lsb = 0;
    for (n, b) in fields {
        if n == name {
            return Some((lsb, *b));
        }
        lsb += b;
    }
    None
}

/// A point's query and answer streams (`s_axis_query_*`, `m_axis_answer_*`):
/// the core's query inputs and answer outputs, each `TDATA` from bit 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryStreams {
    /// Query fields, from bit 0: (core port, bits).
    pub query: Vec<(String, u32)>,
    /// `s_axis_query_tdata`'s width (a multiple of 8).
    pub query_bits: u32,
    /// Answer fields, from bit 0: (core port, bits).
    pub answer: Vec<(String, u32)>,
    /// `m_axis_answer_tdata`'s width (a multiple of 8).
    pub answer_bits: u32,
}

impl QueryStreams {
    /// The streams of `q` on `core`'s ports; an error names a port it lacks.
    fn of(core: &Exported, q: &QueryBinding) -> Result<Self, String> {
        let width = |name: &str, dir: Dir| {
            core.ports
                .iter()
                .find(|p| p.name == name && p.dir == dir)
                .map(|p| p.bits as u32)
                .ok_or_else(|| format!("{}: no {} port `{name}` for the query port", core.top, dir_text(dir)))
        };
        for (n, d) in [(&q.valid, Dir::In), (&q.ready, Dir::Out), (&q.answer_valid, Dir::Out)] {
            if width(n, d)? != 1 {
                return Err(format!("{}: `{n}` of the query port is not one bit", core.top));
            }
        }
        let fields = |names: &[String], dir| -> Result<Vec<(String, u32)>, String> {
            names.iter().map(|n| Ok((n.clone(), width(n, dir)?))).collect()
        };
        let (query, answer) = (fields(&q.inputs, Dir::In)?, fields(&q.answers, Dir::Out)?);
        Ok(QueryStreams { query_bits: tdata_width(&query), answer_bits: tdata_width(&answer), query, answer })
    }
}

/// A parameter of a point's top module.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TopParam {
    /// Verilog name.
    pub name: &'static str,
    /// Its width (an unsigned vector).
    pub bits: u32,
    /// Default value.
    pub default: u64,
    /// Whether the default is written in hex (identifiers: addresses,
    /// EtherTypes) rather than decimal (counts and times).
    pub hex: bool,
    /// What it sets.
    pub doc: &'static str,
}

/// The parameters of a point whose core has a time input: the time
/// markers' lag behind `s_axis_time_ns` and how long the parser must be
/// idle before one (`docs/cores/point.md`, *Time markers*).
pub const TIME_MARKER_PARAMS: [TopParam; 2] = [
    TopParam {
        name: "MARKER_LAG_NS",
        bits: 32,
        default: 1000,
        hex: false,
        doc: "a marker's time is s_axis_time_ns less this (at least the MAC's delay from its timestamp to the first beat)",
    },
    TopParam {
        name: "MARKER_IDLE_CLOCKS",
        bits: 16,
        default: 256,
        hex: false,
        doc: "MAC clocks without a frame in the parser before a marker, and between two (4..65535)",
    },
];

/// The parameters of an inline point: the control frames' EtherType and
/// addresses (`docs/cores/point.md`, *In-band epoch control*).
pub const CTRL_PARAMS: [TopParam; 3] = [
    TopParam {
        name: "CTRL_ETHERTYPE",
        bits: 16,
        default: CONTROL_ETHERTYPE as u64,
        hex: true,
        doc: "the control frames' EtherType (IEEE 802 local experimental 0x88B5)",
    },
    TopParam {
        name: "CTRL_DST_MAC",
        bits: 48,
        default: 0xffff_ffff_ffff,
        hex: true,
        doc: "the control frames' destination MAC, byte 0 in bits 47:40 (broadcast)",
    },
    TopParam {
        name: "CTRL_SRC_MAC",
        bits: 48,
        default: 0x0200_0000_0001,
        hex: true,
        doc: "the control frames' source MAC, byte 0 in bits 47:40 (locally administered)",
    },
];

/// Slots of a point's read-out window: beats of an epoch, counted modulo 2^16.
pub const WINDOW_INDEX_BITS: u32 = 16;

/// A point's read-out window (`netmeas_point_window`, `docs/cores/point.md`):
/// the frozen epoch on the register bus, beat `i` in slot `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadoutWindow {
    /// Its byte address on the bus (the top half of the point's map).
    pub base: u32,
    /// 32-bit words of `TDATA` per beat (words 0..words − 1 of a slot;
    /// word `words` is the beat's info).
    pub words: u32,
    /// A slot is 2^`stride_bits` words.
    pub stride_bits: u32,
}

impl ReadoutWindow {
    /// The window of a read-out of `tdata_bits` above a register map of
    /// `regs_addr_bits`: its slots big enough for the `TDATA` words and the
    /// info word, its base the next power of two above both.
    pub fn new(tdata_bits: u32, regs_addr_bits: u32) -> Self {
        let words = tdata_bits.div_ceil(32);
        let stride_bits = 32 - words.leading_zeros();
        let own = 2 + stride_bits + WINDOW_INDEX_BITS;
        ReadoutWindow { base: 1 << own.max(regs_addr_bits), words, stride_bits }
    }

    /// Width of its byte addresses.
    pub fn addr_bits(&self) -> u32 {
        2 + self.stride_bits + WINDOW_INDEX_BITS
    }

    /// Its size in bytes.
    pub fn size(&self) -> u32 {
        1 << self.addr_bits()
    }
}

/// The point's counters, in `netmeas_point_counters` order: frames,
/// records, the frame parser's reasons, records dropped, FIFO overflows,
/// records refused while the record FIFO was in reset.
pub fn counter_names() -> Vec<String> {
    let mut n = vec!["FRAMES".to_string(), "RECORDS".to_string()];
    n.extend(Unparsed::ALL.iter().map(|u| format!("UNPARSED_{}", upper(u.name()))));
    n.extend(["RECORDS_DROPPED".to_string(), "FIFO_OVERFLOWS".to_string(), "RECORDS_IN_RESET".to_string()]);
    n
}

/// An inline point's counters: [`counter_names`], then control frames
/// accepted and refused by reason (`docs/cores/point.md`, *In-band epoch
/// control*).
pub fn inline_counter_names() -> Vec<String> {
    let mut n = counter_names();
    n.push("CONTROL_FRAMES".to_string());
    n.extend(ControlError::ALL.iter().map(|e| format!("CONTROL_REFUSED_{}", upper(e.name()))));
    n
}

/// The index of counter `name` in `names`.
fn counter_index(names: &[String], name: &str) -> usize {
    names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no counter {name}"))
}

/// The point's own status bits (the `POINT_STATUS` word), from bit 0.
pub const POINT_STATUS_BITS: [(&str, &str); 3] = [
    ("READY", "the record FIFO is out of reset and the core takes records: frames from now on are measured"),
    ("LIVE_INTERRUPTED", "a reset of the MAC's side has cost the live epoch records since it began"),
    ("FROZEN_INTERRUPTED", "the same of the epoch last frozen: its synopsis lacks records"),
];

/// `name` as a register name: upper case, runs of other characters as `_`.
fn upper(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// What each of the core's ports is to the point.
#[derive(Clone, Debug, Default)]
struct Wiring {
    /// Read-out data ports, in `TDATA` order from bit 0.
    readout: Vec<Port>,
    /// Outputs read as status words: (port, first status word index).
    status: Vec<(Port, usize)>,
    /// One-bit inputs driven by commands: (port, command index).
    commands: Vec<(String, usize)>,
}

/// A point's design: its top module and every file it needs.
#[derive(Clone, Debug)]
pub struct PointDesign {
    /// The top module's name.
    pub top: String,
    /// The Verilog files, (file name, text), the top's first.
    pub files: Vec<(String, String)>,
    /// The register map.
    pub regs: PointRegs,
    /// The bus.
    pub bus: Bus,
    /// The read-out's `TDATA` fields, from bit 0: (core port, bits).
    pub readout: Vec<(String, u32)>,
    /// `m_axis_tdata`'s width (a multiple of 8).
    pub tdata_bits: u32,
    /// `s_axis_tdata`'s width.
    pub data_bits: u32,
    /// The top module's parameters ([`TIME_MARKER_PARAMS`] if the core has a time input).
    pub params: Vec<TopParam>,
    /// The read-out window, in the top half of the bus's addresses.
    pub window: ReadoutWindow,
    /// Width of the bus's byte addresses: the register map below the
    /// window, the window above.
    pub addr_width: u32,
    /// Width of `s_axis_tuser` ([`tuser_bits`]).
    pub tuser_bits: u32,
    /// The query and answer streams, if the core answers queries.
    pub query: Option<QueryStreams>,
    /// Inline: frames in on `s_axis_*` and out on `m_axis_*` (the read-out
    /// on `m_axis_ro_*`), with in-band epoch control.
    pub inline: bool,
}

/// The status words of an inline point's in-band epoch control, after
/// `INTERRUPTIONS`: (name, what it holds).
pub const CTRL_STATUS_WORDS: [(&str, &str); 10] = [
    ("CTRL_SEQ", "The sequence number of the control frame that ended the frozen epoch."),
    (
        "CTRL_STATUS",
        "The frozen epoch's pair status: bit 0 USABLE; why not: bit 1 FIRST (no boundary before it), 2 GAP \
         (boundaries missing), 3 CORRUPT (a control frame refused in it), 4 INTERRUPTED (a reset of the MAC's \
         side), 5 LOSS (the point lost records).",
    ),
    ("CTRL_PEER_PACKETS_LO", "The sender's data frames in the frozen epoch, as its control frame says (bits 0..)."),
    ("CTRL_PEER_PACKETS_HI", "(bits 32..)"),
    ("CTRL_PEER_TIME_LO", "The sender's time at the frozen epoch's end, ns, as its control frame says (bits 0..)."),
    ("CTRL_PEER_TIME_HI", "(bits 32..)"),
    ("CTRL_BOUNDARIES", "Epoch boundaries taken (control frames that ended an epoch here)."),
    ("CTRL_FOREIGN", "Control frames of another segment, ignored."),
    ("CTRL_REPLAYED", "Control frames whose sequence number was not after the last one's, ignored."),
    ("CTRL_GAPS", "Boundaries found missing: sequence numbers skipped."),
];

/// The configuration words of an inline point: (name, bits, reset, what it sets).
pub const CTRL_CONFIG_WORDS: [(&str, u32, u32, &str); 7] = [
    ("CTRL_ROLE", 2, 0, "In-band epoch control: 0 off (the host's EPOCH_FLIP flips), 1 sender, 2 receiver."),
    ("CTRL_SEGMENT", 16, 0, "The segment ID the control frames carry (sender) or must carry (receiver)."),
    (
        "CTRL_MODE",
        2,
        0,
        "What ends a sender's epoch besides EPOCH_FLIP: 0 nothing, 1 CTRL_EVERY_PACKETS data frames, 2 CTRL_EVERY_NS ns.",
    ),
    ("CTRL_EVERY_PACKETS", 32, 0, "Data frames per epoch with CTRL_MODE 1 (0: never)."),
    ("CTRL_EVERY_NS_LO", 32, 0, "Epoch length with CTRL_MODE 2, ns (bits 0..; 0: never)."),
    ("CTRL_EVERY_NS_HI", 32, 0, "(bits 32..)"),
    ("CTRL_STRIP", 1, 0, "A receiver takes control frames off its output (1) or passes them on (0)."),
];

/// The point around `core` with the frame parser `parser` (an export of a
/// `frame-parser` config) on `bus`.
pub fn point(
    core: &Exported,
    binding: &PointBinding,
    parser: &Exported,
    bus: Bus,
    inline: bool,
) -> Result<PointDesign, String> {
    let port = |name: &str| core.ports.iter().find(|p| p.name == name);
    let need = |name: &str, dir: Dir| -> Result<&Port, String> {
        port(name)
            .filter(|p| p.dir == dir)
            .ok_or_else(|| format!("{}: no {} port `{name}` for the point", core.top, dir_text(dir)))
    };
    for name in ["clock", "reset", "s_valid", "s_ready", "m_ro_valid", "m_ro_ready"] {
        need(name, if name == "s_ready" || name == "m_ro_valid" { Dir::Out } else { Dir::In })?;
    }
    need(&binding.readout_last, Dir::Out)?;
    need(&binding.epoch_marker, Dir::Out)?;
    for (name, _) in &binding.packet {
        need(name, Dir::In)?;
    }
    if let Some(now) = &binding.now {
        need(&now.valid, Dir::In)?;
        need(&now.time, Dir::In)?;
    }
    if let Some((req, taken)) = &binding.flip {
        need(req, Dir::In)?;
        if let Some(t) = taken {
            need(t, Dir::Out)?;
        }
    }
    let query = binding.query.as_ref().map(|q| QueryStreams::of(core, q)).transpose()?;
    let data_bits = parser
        .ports
        .iter()
        .find(|p| p.name == "s_axis_tdata")
        .map(|p| p.bits as u32)
        .ok_or_else(|| format!("{} is not a frame parser", parser.top))?;
    if inline {
        if data_bits != 64 {
            return Err(format!("an inline point takes a 64-bit MAC (--mac-bits 64), not {data_bits} bits"));
        }
        if !matches!(binding.flip, Some((_, Some(_)))) || binding.now.is_some() {
            return Err(format!(
                "{}: in-band epoch control needs a core that takes an epoch flip when it is ready (lda, svbf); \
                 its epochs cannot be aligned at a control frame",
                core.top
            ));
        }
    }

    // Every other port, by name.
    let mut wiring = Wiring::default();
    let counters = if inline { inline_counter_names() } else { counter_names() };
    let mut status: Vec<PointField> =
        counters.into_iter().map(|n| PointField { doc: counter_doc(&n), name: n }).collect();
    let bits: Vec<String> =
        POINT_STATUS_BITS.iter().enumerate().map(|(i, (n, d))| format!("bit {i} {n}: {d}")).collect();
    status.push(PointField { name: "POINT_STATUS".into(), doc: format!("{}.", bits.join("; ")) });
    status.push(PointField {
        name: "INTERRUPTIONS".into(),
        doc: "Resets of the MAC's side that reached a ready point (saturates at 2^32 - 1).".into(),
    });
    if inline {
        status.extend(CTRL_STATUS_WORDS.iter().map(|(n, d)| PointField { name: n.to_string(), doc: d.to_string() }));
    }
    let mut commands = Vec::new();
    if let Some((_, taken)) = &binding.flip {
        if taken.is_some() {
            status.push(PointField {
                name: "EPOCH_PENDING".into(),
                doc: "1 while an EPOCH_FLIP waits for the core to take it.".into(),
            });
        }
        commands.push(PointField { name: "EPOCH_FLIP".into(), doc: "Ends the epoch: the core flips".into() });
    }
    if binding.keeps_time_origin() {
        for half in ["LO", "HI"] {
            status.push(PointField {
                name: format!("TIME_ORIGIN_{half}"),
                doc: "The first packet's ingress time, ns: the core's time 0 (0 before it).".into(),
            });
        }
    }
    let bound = |n: &str| {
        matches!(n, "clock" | "reset" | "s_valid" | "s_ready" | "m_ro_valid" | "m_ro_ready")
            || n.starts_with("csr_")
            || n == binding.readout_last
            || binding.packet.iter().any(|(p, _)| p == n)
            || binding.now.as_ref().is_some_and(|t| t.valid == n || t.time == n)
            || binding.flip.as_ref().is_some_and(|(r, t)| r == n || t.as_deref() == Some(n))
            || binding.query.as_ref().is_some_and(|q| q.names(n))
    };
    for p in core.ports.iter().filter(|p| !bound(&p.name)) {
        match p.dir {
            Dir::Out if p.name.starts_with("m_ro_") => wiring.readout.push(p.clone()),
            Dir::Out => {
                let first = status.len();
                let words = (p.bits as u32).div_ceil(32);
                for w in 0..words {
                    let name = match words {
                        1 => upper(&p.name),
                        2 => format!("{}_{}", upper(&p.name), ["LO", "HI"][w as usize]),
                        _ => format!("{}_W{w}", upper(&p.name)),
                    };
                    status.push(PointField { name, doc: format!("The core's `{}` (bits {}..).", p.name, 32 * w) });
                }
                wiring.status.push((p.clone(), first));
            }
            Dir::In if p.bits == 1 => {
                wiring.commands.push((p.name.clone(), commands.len()));
                commands.push(PointField {
                    name: upper(&p.name),
                    doc: format!("A one-clock pulse on the core's `{}`", p.name),
                });
            }
            Dir::In => {
                return Err(format!(
                    "{}: input `{}` of {} bits has no place in a point (its binding does not name it)",
                    core.top, p.name, p.bits
                ));
            }
        }
    }
    let flags = [
        ("RECORD_DROPPED", "a record was dropped by the frame parser"),
        ("FIFO_OVERFLOW", "a record found the record FIFO full"),
        ("UNPARSED", "a frame gave no record"),
        ("BAD_FRAME", "the MAC flagged a frame bad"),
        ("INTERRUPTED", "a reset of the MAC's side cost a ready point records"),
    ]
    .map(|(n, d)| PointField { name: n.into(), doc: d.into() })
    .to_vec();
    let mut flags = flags;
    if inline {
        flags.push(PointField {
            name: "CONTROL".into(),
            doc: "a control frame was refused, foreign or replayed, or boundaries are missing".into(),
        });
    }
    // (an inline point is another module than the tap of the same core: both may sit in one design)
    let kind = if inline { "point_inline" } else { "point" };
    let top = format!("netmeas_{kind}_{}", core.top.trim_start_matches("netmeas_"));
    let config: Vec<PointConfig> = if inline {
        CTRL_CONFIG_WORDS
            .iter()
            .map(|&(n, bits, reset, d)| PointConfig { name: n.into(), doc: d.into(), bits, reset })
            .collect()
    } else {
        Vec::new()
    };
    let regs = PointRegs::for_core(core, status, flags, commands).map(|r| PointRegs {
        module: format!("{top}_regs"),
        config,
        ..r
    })?;
    let readout: Vec<(String, u32)> = wiring.readout.iter().map(|p| (p.name.clone(), p.bits as u32)).collect();
    let tdata_bits = tdata_width(&readout);

    let window = ReadoutWindow::new(tdata_bits, regs.addr_width());
    let addr_width = 32 - window.base.leading_zeros();
    let tuser_bits = tuser_bits(binding);
    let params = if binding.now.is_some() {
        TIME_MARKER_PARAMS.to_vec()
    } else if inline {
        CTRL_PARAMS.to_vec()
    } else {
        Vec::new()
    };
    let verilog = top_verilog(&TopParts {
        top: &top,
        core,
        binding,
        parser,
        bus,
        regs: &regs,
        wiring: &wiring,
        data_bits,
        tdata_bits,
        readout: &readout,
        window,
        addr_width,
        tuser_bits,
        query: query.as_ref(),
        inline,
        params: &params,
    });
    let mut files = vec![
        (format!("{top}.v"), verilog),
        (format!("{}.v", parser.top), parser.verilog.clone()),
        (format!("{}.v", core.top), core.verilog.clone()),
        ("netmeas_async_fifo.v".to_string(), super::async_fifo::VERILOG.to_string()),
        ("netmeas_point_counters.v".to_string(), super::counters::VERILOG.to_string()),
        (super::reset_bridge::FILE.to_string(), super::reset_bridge::VERILOG.to_string()),
        ("netmeas_point_window.v".to_string(), WINDOW_VERILOG.to_string()),
        (format!("{}.v", regs.module), regs.verilog()?),
    ];
    if query.is_some() {
        files.push(("netmeas_point_query.v".to_string(), QUERY_VERILOG.to_string()));
    }
    if inline {
        use super::control;
        files.push(("netmeas_ctrl_sender.v".to_string(), control::SENDER_VERILOG.to_string()));
        files.push(("netmeas_ctrl_detect.v".to_string(), control::DETECT_VERILOG.to_string()));
        files.push(("netmeas_ctrl_strip.v".to_string(), control::STRIP_VERILOG.to_string()));
        files.push(("netmeas_ctrl_crc.v".to_string(), control::crc_verilog()));
        files.push(("netmeas_cdc_word.v".to_string(), control::CDC_WORD_VERILOG.to_string()));
    }
    files.push((format!("{}.v", bus.module()), bus.verilog().to_string()));
    Ok(PointDesign {
        top,
        files,
        regs,
        bus,
        readout,
        tdata_bits,
        data_bits,
        params,
        window,
        addr_width,
        tuser_bits,
        query,
        inline,
    })
}

/// The point of the block `cfg` behind a frame parser of `data_bits` on
/// `bus`, and the block's own export; or why the block cannot be a point.
pub fn wrap(cfg: &crate::export::BlockConfig, data_bits: usize, bus: Bus) -> Result<(PointDesign, Exported), String> {
    wrap_with(cfg, data_bits, bus, false)
}

/// [`wrap`], as an inline point (`inline`: frames in and out, in-band epoch
/// control) or a tap.
pub fn wrap_with(
    cfg: &crate::export::BlockConfig,
    data_bits: usize,
    bus: Bus,
    inline: bool,
) -> Result<(PointDesign, Exported), String> {
    use netmeas_sim::frame::FrameParserConfig;
    let binding = cfg
        .point_binding()
        .ok_or_else(|| format!("{} takes no frames: it cannot be wrapped as a measurement point", cfg.block_name()))?;
    let parser_cfg = crate::export::BlockConfig::new(FrameParserConfig { data_bits, ..Default::default() });
    let parser = crate::export::export(&parser_cfg).map_err(|e| e.to_string())?;
    let core = crate::export::export(cfg).map_err(|e| e.to_string())?;
    Ok((point(&core, &binding, &parser, bus, inline)?, core))
}

/// A bus by its CLI name (`axi`: AXI4-Lite, `wishbone`: Wishbone B4 pipelined).
pub fn bus_by_name(name: &str) -> Result<Bus, String> {
    match name {
        "axi" | "axil" | "axi4-lite" => Ok(Bus::Axil),
        "wishbone" | "wb" => Ok(Bus::Wishbone),
        _ => Err(format!("unknown bus `{name}`: axi (AXI4-Lite) or wishbone (Wishbone B4 pipelined)")),
    }
}

impl PointDesign {
    /// The address of a register of the map, by name.
    pub fn addr(&self, name: &str) -> Option<u32> {
        self.regs.words().into_iter().find(|w| w.name == name).map(|w| w.addr)
    }

    /// The status word's index, by name.
    pub fn status_index(&self, name: &str) -> Option<usize> {
        self.regs.status.iter().position(|s| s.name == name)
    }

    /// The `netmeas_segment_tb_map.vh` of the segment's testbench (an inline
    /// point on AXI4-Lite).
    pub fn segment_map(&self) -> Result<String, String> {
        if self.bus != Bus::Axil || !self.inline || self.data_bits != 64 {
            return Err(format!("{}: the segment's testbench takes an inline point on AXI4-Lite", self.top));
        }
        let addr = |n: &str| self.addr(n).ok_or_else(|| format!("{}: no register {n}", self.top));
        let mut v = String::new();
        let _ = writeln!(
            v,
            "// The point {} as the segment's testbench sees it (generated; hdl/src/point/top.rs).",
            self.top
        );
        let _ = writeln!(v, "`define POINT_TOP {}", self.top);
        let _ = writeln!(v, "`define POINT_PARAMS");
        let _ = writeln!(v, "localparam integer TUSER_BITS = {};", self.tuser_bits);
        let _ = writeln!(v, "localparam integer TDATA_BITS = {};", self.tdata_bits);
        let _ = writeln!(v, "localparam integer ADDR_WIDTH = {};", self.addr_width);
        let _ = writeln!(v, "localparam integer N_STATUS = {};", self.regs.status.len());
        let _ = writeln!(v, "localparam [31:0] STATUS_BASE = 32'h{:x};", self.regs.point_base());
        let _ = writeln!(v, "localparam [15:0] CTRL_ETHERTYPE = 16'h{CONTROL_ETHERTYPE:04x};");
        for n in
            ["EPOCH_FLIP", "POINT_STATUS", "CTRL_ROLE", "CTRL_SEGMENT", "CTRL_MODE", "CTRL_EVERY_PACKETS", "CTRL_STRIP"]
        {
            let name = if n == "EPOCH_FLIP" { "FLIP".to_string() } else { n.to_string() };
            let _ = writeln!(v, "localparam [31:0] {name}_ADDR = 32'h{:x};", addr(n)?);
        }
        Ok(v)
    }

    /// The `netmeas_point_tb_map.vh` of the point's testbench (AXI4-Lite only).
    pub fn testbench_map(&self) -> Result<String, String> {
        if self.bus != Bus::Axil {
            return Err(format!("{}: the point's testbench drives AXI4-Lite", self.top));
        }
        let mut v = String::new();
        let _ = writeln!(v, "// The point {} as its testbench sees it (generated; hdl/src/point/top.rs).", self.top);
        let _ = writeln!(v, "`define POINT_TOP {}", self.top);
        if self.params.is_empty() {
            let _ = writeln!(v, "`define POINT_PARAMS");
        } else {
            // Markers after 16 idle clocks: they come in the beat file's long gaps.
            let _ = writeln!(v, "`define POINT_PARAMS #(.MARKER_IDLE_CLOCKS(16'd16))");
        }
        let _ = writeln!(v, "localparam integer DATA_BITS = {};", self.data_bits);
        let _ = writeln!(v, "localparam integer TUSER_BITS = {};", self.tuser_bits);
        let (qb, ab) = self.query.as_ref().map_or((0, 0), |q| (q.query_bits, q.answer_bits));
        let _ = writeln!(v, "localparam integer QUERY_BITS = {qb};");
        let _ = writeln!(v, "localparam integer ANSWER_BITS = {ab};");
        if self.query.is_some() {
            let ports: Vec<String> = ["s_axis_query_tdata", "s_axis_query_tvalid", "s_axis_query_tready"]
                .into_iter()
                .chain(["m_axis_answer_tdata", "m_axis_answer_tvalid", "m_axis_answer_tready"])
                .map(|p| format!(".{p}({p}),"))
                .collect();
            let _ = writeln!(v, "`define POINT_QUERY_PORTS {}", ports.join(" "));
        } else {
            let _ = writeln!(v, "`define POINT_QUERY_PORTS");
        }
        let _ = writeln!(v, "localparam integer TDATA_BITS = {};", self.tdata_bits);
        let _ = writeln!(v, "localparam integer ADDR_WIDTH = {};", self.addr_width);
        let _ = writeln!(v, "localparam [31:0] WINDOW_BASE = 32'h{:x};", self.window.base);
        let _ = writeln!(v, "localparam integer WINDOW_WORDS = {};", self.window.words);
        let _ = writeln!(v, "localparam integer WINDOW_STRIDE_BITS = {};", self.window.stride_bits);
        let _ = writeln!(v, "localparam integer N_STATUS = {};", self.regs.status.len());
        let _ = writeln!(v, "localparam [31:0] STATUS_BASE = 32'h{:x};", self.regs.point_base());
        let _ = writeln!(v, "localparam [31:0] FLIP_ADDR = 32'h{:x};", self.addr("EPOCH_FLIP").unwrap_or(0));
        let status = self.addr("POINT_STATUS").ok_or_else(|| format!("{}: no POINT_STATUS", self.top))?;
        let _ = writeln!(v, "localparam [31:0] POINT_STATUS_ADDR = 32'h{status:x};");
        let flags = self.addr("FLAGS").ok_or_else(|| format!("{}: no FLAGS", self.top))?;
        let _ = writeln!(v, "localparam [31:0] FLAGS_ADDR = 32'h{flags:x};");
        Ok(v)
    }
}

fn dir_text(d: Dir) -> &'static str {
    match d {
        Dir::In => "input",
        Dir::Out => "output",
    }
}

fn counter_doc(name: &str) -> String {
    match name {
        "FRAMES" => "Frames seen (saturates at 2^32 - 1).".into(),
        "RECORDS" => "Frames that gave a record.".into(),
        "RECORDS_DROPPED" => "Records the frame parser could not hand on.".into(),
        "FIFO_OVERFLOWS" => "Records dropped because the record FIFO was full.".into(),
        "RECORDS_IN_RESET" => {
            "Records refused because the record FIFO was in reset (a reset of either side, for its handshake).".into()
        }
        "CONTROL_FRAMES" => {
            "Control frames of in-band epoch control accepted (their CRC, version and kind right).".into()
        }
        n if n.starts_with("CONTROL_REFUSED_") => format!(
            "Control frames refused: {} (docs/cores/point.md, In-band epoch control).",
            n.trim_start_matches("CONTROL_REFUSED_").to_lowercase().replace('_', " ")
        ),
        n => {
            format!("Frames without a record: {}.", n.trim_start_matches("UNPARSED_").to_lowercase().replace('_', " "))
        }
    }
}

struct TopParts<'a> {
    top: &'a str,
    core: &'a Exported,
    binding: &'a PointBinding,
    parser: &'a Exported,
    bus: Bus,
    regs: &'a PointRegs,
    wiring: &'a Wiring,
    data_bits: u32,
    tdata_bits: u32,
    /// The read-out's fields (core port, bits), from `m_axis_tdata`'s bit 0.
    readout: &'a [(String, u32)],
    window: ReadoutWindow,
    addr_width: u32,
    tuser_bits: u32,
    query: Option<&'a QueryStreams>,
    inline: bool,
    params: &'a [TopParam],
}

fn top_verilog(t: &TopParts<'_>) -> String {
    let aw = t.addr_width;
    let regs_aw = t.regs.addr_width();
    let ns = t.regs.status.len();
    let nf = t.regs.flags.len();
    let nc = t.regs.commands.len().max(1);
    let names = if t.inline { inline_counter_names() } else { counter_names() };
    let n_counters = names.len();
    let idx = |n: &str| counter_index(&names, n);
    // The read-out stream: m_axis_* on a tap, m_axis_ro_* inline (m_axis_* is the frames' way out).
    let ro = if t.inline { "m_axis_ro" } else { "m_axis" };
    let has = |n: &str| t.core.ports.iter().any(|p| p.name == n);
    let csr_rdata = if has("csr_rdata") { "core_csr_rdata" } else { "32'd0" };
    let mut v = String::new();
    let w = &mut v;
    let _ = writeln!(w, "// {}: a measurement point (netmeas, generated; docs/cores/point.md).", t.top);
    let _ = writeln!(w, "// Frames from a MAC on s_axis_* ({} bits, MAC clock s_axis_aclk) through the", t.data_bits);
    let _ = writeln!(w, "// frame parser {}, the record FIFO and the status counters into the", t.parser.top);
    let _ = writeln!(
        w,
        "// core {} (clock aclk); its registers on {}, its read-out on {ro}_*.",
        t.core.top,
        bus_text(t.bus)
    );
    if t.inline {
        let _ = writeln!(w, "// Inline: the frames go on to m_axis_* (MAC clock), with the control frames of");
        let _ = writeln!(w, "// in-band epoch control put between them (sender) or taken off (receiver).");
    }
    let _ = writeln!(w, "//\n// Register map (byte addresses):");
    for word in t.regs.words() {
        let _ = writeln!(w, "//   0x{:04x} {}", word.addr, word.name);
    }
    let _ = writeln!(
        w,
        "//   0x{:x} READOUT_WINDOW (slot i at +i*{}: {} TDATA words, then the info word)",
        t.window.base,
        4 << t.window.stride_bits,
        t.window.words
    );
    let _ = writeln!(w, "// {ro}_tdata fields, from bit 0:");
    let mut at = 0;
    for p in &t.wiring.readout {
        let _ = writeln!(w, "//   [{}:{}] {}", at + p.bits - 1, at, p.name);
        at += p.bits;
    }
    if let Some(q) = t.query {
        for (name, fields) in [("s_axis_query_tdata", &q.query), ("m_axis_answer_tdata", &q.answer)] {
            let _ = writeln!(w, "// {name} fields, from bit 0:");
            let mut at = 0;
            for (n, b) in fields {
                let _ = writeln!(w, "//   [{}:{}] {n}", at + b - 1, at);
                at += b;
            }
        }
    }
    if t.binding.takes_delay() {
        let _ = writeln!(w, "// s_axis_tuser[{}:65]: the frame's one-way delay (first beat).", 64 + DELAY_BITS);
    }
    let _ = writeln!(w, "\n`resetall\n`timescale 1ns / 1ps\n`default_nettype none\n");
    if t.params.is_empty() {
        let _ = writeln!(w, "module {} (", t.top);
    } else {
        let _ = writeln!(w, "module {} #(", t.top);
        for (i, p) in t.params.iter().enumerate() {
            let sep = if i + 1 == t.params.len() { "" } else { "," };
            let _ = writeln!(w, "    // {}", p.doc);
            let value =
                if p.hex { format!("{}'h{:x}", p.bits, p.default) } else { format!("{}'d{}", p.bits, p.default) };
            let _ = writeln!(w, "    parameter [{}:0] {} = {value}{sep}", p.bits - 1, p.name);
        }
        let _ = writeln!(w, ") (");
    }
    let ports = top_ports(t.bus, t.data_bits, aw, t.tdata_bits, t.tuser_bits, t.query, t.inline);
    let mut group = "";
    for (i, p) in ports.iter().enumerate() {
        if p.group != group {
            group = p.group;
            let _ = writeln!(w, "    // --- {group} ---");
        }
        let dir = if p.dir == Dir::In { "input " } else { "output" };
        let range = if p.bits == 1 { String::new() } else { format!("[{}:0]", p.bits - 1) };
        let sep = if i + 1 == ports.len() { "" } else { "," };
        let decl = format!("    {dir} wire {range:<8} {}{sep}", p.name);
        if p.doc.is_empty() {
            let _ = writeln!(w, "{decl}");
        } else {
            let _ = writeln!(w, "{decl:<44} // {}", p.doc);
        }
    }
    let _ = writeln!(w, ");\n");

    // MAC domain.
    let _ = writeln!(w, "// ------------------------------------------------------------ MAC domain");
    let _ = writeln!(w, "wire s_rst = !s_axis_aresetn;");
    let _ = writeln!(w, "wire        rec_valid;");
    for f in RecordField::ALL {
        let _ = writeln!(w, "wire [{}:0] rec_{};", f.bits() - 1, field_name(f));
    }
    let _ = writeln!(w, "wire        stat_valid;\nwire [3:0]  stat_reason;\nwire        stat_dropped;");
    let _ = writeln!(
        w,
        "wire        fifo_in_ready;      // always 1: a record that finds the FIFO full is dropped and counted"
    );
    let _ = writeln!(w, "wire        fifo_overflow;");
    let _ = writeln!(
        w,
        "wire        fifo_s_reset;       // the FIFO's write side is in reset: a record is refused, counted"
    );
    if t.inline {
        inline_path_verilog(w, t.tuser_bits);
    }
    let (pd, pk, pv, pl, pu) = if t.inline {
        ("p_tdata", "p_tkeep", "p_tvalid", "p_tlast", "p_tuser")
    } else {
        ("s_axis_tdata", "s_axis_tkeep", "s_axis_tvalid", "s_axis_tlast", "s_axis_tuser")
    };
    let parser_ready = if t.inline { "" } else { "s_axis_tready" };
    if t.inline {
        let _ = writeln!(
            w,
            "/* verilator lint_off PINCONNECTEMPTY */  // the parser watches the path: it is never asked to wait"
        );
    }
    let _ = writeln!(w, "\n{} parser (", t.parser.top);
    let _ = writeln!(w, "    .clock(s_axis_aclk), .reset(s_rst),");
    let _ = writeln!(w, "    .s_axis_tdata({pd}), .s_axis_tkeep({pk}), .s_axis_tvalid({pv}),");
    let _ = writeln!(
        w,
        "    .s_axis_tready({parser_ready}), .s_axis_tlast({pl}), .s_axis_tuser({pu}{}),",
        if t.tuser_bits > 65 { "[64:0]" } else { "" }
    );
    let _ = writeln!(w, "    .time_ns(s_axis_time_ns),");
    let _ = writeln!(w, "    .m_valid(rec_valid), .m_ready(fifo_in_ready),");
    for f in RecordField::ALL {
        let _ = writeln!(w, "    .{}(rec_{}),", f.parser_port(), field_name(f));
    }
    let _ = writeln!(w, "    .stat_valid(stat_valid), .stat_reason(stat_reason), .stat_dropped(stat_dropped)\n);\n");
    if t.inline {
        let _ = writeln!(w, "/* verilator lint_on PINCONNECTEMPTY */");
        inline_verdict_verilog(w);
    }
    // Counter events.
    let data = if t.inline { " && !ctrl_here" } else { "" };
    let _ = writeln!(w, "// Counter events: {}.", names.join(", "));
    let _ = writeln!(w, "wire [{}:0] s_event;", n_counters - 1);
    let _ = writeln!(w, "assign s_event[0] = stat_valid;");
    let _ = writeln!(w, "assign s_event[1] = stat_valid && stat_reason == 4'd0;");
    for r in 1..=Unparsed::ALL.len() {
        let _ = writeln!(w, "assign s_event[{}] = stat_valid && stat_reason == 4'd{r}{data};", r + 1);
    }
    let _ = writeln!(w, "assign s_event[{}] = stat_dropped;", idx("RECORDS_DROPPED"));
    let _ = writeln!(w, "assign s_event[{}] = fifo_overflow;", idx("FIFO_OVERFLOWS"));
    let _ = writeln!(
        w,
        "assign s_event[{}] = (rec_valid{}) && fifo_s_reset;",
        idx("RECORDS_IN_RESET"),
        if t.inline { " || ctrl_here" } else { "" }
    );
    if t.inline {
        let _ = writeln!(w, "assign s_event[{}] = ctrl_here && ctrl_error == 3'd0;", idx("CONTROL_FRAMES"));
        for (i, e) in ControlError::ALL.iter().enumerate() {
            let n = format!("CONTROL_REFUSED_{}", upper(e.name()));
            let _ = writeln!(w, "assign s_event[{}] = ctrl_here && ctrl_error == 3'd{};", idx(&n), i + 1);
        }
    }
    // The record, and the delay above it if the core takes it.
    let mut packed: Vec<String> = RecordField::ALL.iter().map(|&f| format!("rec_{}", field_name(f))).collect();
    if t.binding.takes_delay() {
        packed.insert(0, "rec_delay".into());
    }
    let packed = format!("{{{}}}", packed.join(", "));
    let rec_bits = RECORD_BITS + t.binding.extra_bits();
    if t.binding.takes_delay() || t.binding.now.is_some() {
        frame_tracker_verilog(w, pv, pl);
    }
    if t.binding.takes_delay() {
        delay_verilog(w, pu);
    }
    let (fifo_bits, fifo_in, fifo_in_valid) = match &t.binding.now {
        Some(_) => {
            marker_verilog(w, &packed, rec_bits);
            (rec_bits + 1, "fifo_in", "fifo_in_valid")
        }
        None if t.inline => {
            inline_fifo_in_verilog(w, &packed, rec_bits);
            (rec_bits + 1, "fifo_in", "fifo_in_valid")
        }
        None => (rec_bits, packed.as_str(), "rec_valid"),
    };
    let fifo_addr_bits = if t.inline { INLINE_FIFO_ADDR_BITS } else { FIFO_ADDR_BITS };

    // Crossing.
    let _ = writeln!(w, "\n// ------------------------------------------------------------ crossing");
    let _ = writeln!(w, "wire             rst = !aresetn;");
    let _ = writeln!(w, "wire             fifo_m_reset;  // the FIFO's read side is in reset (a reset of either side)");
    let _ = writeln!(w, "/* verilator lint_off UNUSEDSIGNAL */  // the core takes the fields it needs");
    let _ = writeln!(
        w,
        "wire [{}:0]     rec;          // the record{}, in the core's domain",
        fifo_bits - 1,
        if t.inline {
            " (or a control frame: its top bit)"
        } else if fifo_bits > rec_bits {
            " (or a time marker: its top bit)"
        } else {
            ""
        }
    );
    let _ = writeln!(w, "wire             rec_out_valid;");
    let _ = writeln!(w, "wire             rec_out_ready;");
    let _ = writeln!(w, "wire [{}:0]   cnt;", 32 * n_counters - 1);
    let _ = writeln!(w, "wire [{}:0]     cnt_changed;  // (frames and records set no flag)", n_counters - 1);
    let _ = writeln!(w, "/* verilator lint_on UNUSEDSIGNAL */");
    let _ =
        writeln!(w, "\n/* verilator lint_off PINCONNECTEMPTY */  // the FIFO's own status: FIFO_OVERFLOWS counts it");
    let _ = writeln!(w, "netmeas_async_fifo #(.WIDTH({fifo_bits}), .ADDR_BITS({fifo_addr_bits})) fifo (");
    let _ = writeln!(w, "    .s_clk(s_axis_aclk), .s_rst(s_rst),");
    let _ =
        writeln!(w, "    .s_axis_tdata({fifo_in}), .s_axis_tvalid({fifo_in_valid}), .s_axis_tready(fifo_in_ready),");
    let empty = if t.binding.now.is_some() { "s_fifo_empty" } else { "" };
    let _ = writeln!(
        w,
        "    .s_status_full(), .s_status_empty({empty}), .s_status_overflow(fifo_overflow), .s_overflow_count(),"
    );
    let used = if t.inline { "fifo_used" } else { "" };
    let _ = writeln!(w, "    .s_status_reset(fifo_s_reset), .s_status_used({used}),");
    let _ = writeln!(w, "    .m_clk(aclk), .m_rst(rst),");
    let _ = writeln!(w, "    .m_axis_tdata(rec), .m_axis_tvalid(rec_out_valid), .m_axis_tready(rec_out_ready),");
    let _ = writeln!(w, "    .m_status_reset(fifo_m_reset)\n);");
    let _ = writeln!(w, "/* verilator lint_on PINCONNECTEMPTY */");
    let _ = writeln!(w, "// The counters restart with the core's reset only: a reset of the MAC's side");
    let _ = writeln!(w, "// (a link flap) leaves them counting (docs/cores/point.md, Reset).");
    let _ = writeln!(w, "\nnetmeas_point_counters #(.N({n_counters}), .W(32)) counters (");
    let _ = writeln!(w, "    .s_clk(s_axis_aclk), .s_rst(1'b0), .s_event(s_event),");
    let _ = writeln!(w, "    .m_clk(aclk), .m_rst(rst), .m_count(cnt), .m_changed(cnt_changed)\n);");

    // Core domain.
    let _ = writeln!(w, "\n// ------------------------------------------------------------ core domain");
    let _ = writeln!(w, "wire core_s_ready;");
    let not_marker = if t.binding.now.is_some() {
        let _ = writeln!(w, "wire is_marker = rec[{rec_bits}];   // a time marker, taken at once");
        "!is_marker && "
    } else {
        ""
    };
    if t.binding.role_only {
        let _ = writeln!(w, "// Only requests and responses are packets; other records are taken and left.");
        let r = RecordField::Role;
        let _ = writeln!(w, "wire is_packet = {not_marker}rec[{}:{}] != 2'd0;", r.lsb() + 1, r.lsb());
    } else if t.binding.now.is_some() {
        let _ = writeln!(w, "wire is_packet = !is_marker;");
    } else if t.inline {
        let _ = writeln!(
            w,
            "wire is_control = rec[{rec_bits}];   // a control frame's verdict, taken by the control logic"
        );
        let _ = writeln!(w, "wire is_packet = !is_control;");
    } else {
        let _ = writeln!(w, "wire is_packet = 1'b1;");
    }
    if t.inline {
        let _ = writeln!(w, "wire ctrl_take;                  // the control logic takes the control frame's verdict");
        let _ = writeln!(w, "wire ctrl_flip;                  // ... which flips the core (an epoch boundary)");
        let _ = writeln!(w, "wire ctrl_flag;                  // ... which sets the CONTROL flag");
        let _ =
            writeln!(w, "wire [{}:0] ctrl_words;         // CTRL_SEQ ... CTRL_GAPS", 32 * CTRL_STATUS_WORDS.len() - 1);
        let _ = writeln!(w, "/* verilator lint_off UNUSEDSIGNAL */  // the words' bits above their fields read 0");
        let _ = writeln!(
            w,
            "wire [{}:0] config_words;        // CTRL_ROLE ... CTRL_STRIP",
            32 * CTRL_CONFIG_WORDS.len() - 1
        );
        let _ = writeln!(w, "/* verilator lint_on UNUSEDSIGNAL */");
        let _ = writeln!(w, "assign rec_out_ready = is_control ? ctrl_take : core_s_ready;");
    } else {
        let _ = writeln!(w, "assign rec_out_ready = !is_packet || core_s_ready;");
    }
    if t.binding.keeps_time_origin() {
        let ts = RecordField::Ts;
        let ts = format!("rec[{}:{}]", ts.lsb() + 63, ts.lsb());
        let _ = writeln!(w, "\n// The core's time: ns since the first packet's ingress (TIME_ORIGIN).");
        let _ = writeln!(w, "reg         have_origin = 1'b0;\nreg  [63:0] time_origin = 64'd0;");
        let _ = writeln!(w, "always @(posedge aclk) begin");
        let _ = writeln!(w, "    if (rst) begin\n        have_origin <= 1'b0;\n        time_origin <= 64'd0;");
        let _ = writeln!(w, "    end else if (!have_origin && rec_out_valid && is_packet && core_s_ready) begin");
        let _ = writeln!(w, "        have_origin <= 1'b1;\n        time_origin <= {ts};\n    end\nend");
        let _ = writeln!(w, "/* verilator lint_off UNUSEDSIGNAL */  // the core takes the low bits");
        let _ = writeln!(w, "wire [63:0] ts_since_first = have_origin ? {ts} - time_origin : 64'd0;");
        let _ = writeln!(w, "/* verilator lint_on UNUSEDSIGNAL */");
    }
    if let Some(now) = &t.binding.now {
        now_verilog(w, t.core, now);
    }
    let _ = writeln!(w, "\n// Register block and bus.");
    let _ = writeln!(w, "wire        acc_valid;\nwire        acc_we;\nwire [{}:0] acc_addr;", aw - 1);
    let _ = writeln!(
        w,
        "wire [31:0] acc_wdata;\nwire [3:0]  acc_wstrb;\nwire        rsp_valid;\nwire        rsp_err;\nwire [31:0] rsp_rdata;"
    );
    let _ = writeln!(w, "wire        regs_rsp_valid;\nwire        regs_rsp_err;\nwire [31:0] regs_rsp_rdata;");
    let csr_addr_bits = t.regs.csr_addr_bits;
    for n in ["csr_we", "csr_re"] {
        if has(n) {
            let _ = writeln!(w, "wire        core_{n};");
        }
    }
    if has("csr_addr") {
        let _ = writeln!(
            w,
            "wire [{}:0] core_csr_addr;\nwire [{}:0] core_csr_wdata;",
            csr_addr_bits - 1,
            t.regs.csr_data_bits - 1
        );
    }
    if has("csr_rdata") {
        let _ = writeln!(w, "wire [31:0] core_csr_rdata;");
    }
    let _ = writeln!(w, "wire [{}:0] status_words;", 32 * ns - 1);
    let _ = writeln!(w, "wire [{}:0] flags;", nf - 1);
    if t.regs.commands.is_empty() {
        let _ = writeln!(w, "/* verilator lint_off UNUSEDSIGNAL */  // no command: the block drives 0");
        let _ = writeln!(w, "wire [0:0] cmd_pulse;");
        let _ = writeln!(w, "/* verilator lint_on UNUSEDSIGNAL */");
    } else {
        let _ = writeln!(w, "wire [{}:0] cmd_pulse;", nc - 1);
    }
    // Status words.
    let _ = writeln!(w, "assign status_words[{}:0] = cnt;", 32 * n_counters - 1);
    let _ = writeln!(
        w,
        "assign status_words[{}:{}] = {{29'd0, frozen_interrupted, live_interrupted, point_ready}};",
        32 * n_counters + 31,
        32 * n_counters
    );
    let _ = writeln!(w, "assign status_words[{}:{}] = interruptions;", 32 * n_counters + 63, 32 * n_counters + 32);
    let mut next_word = n_counters + 2;
    if t.inline {
        let _ = writeln!(
            w,
            "assign status_words[{}:{}] = ctrl_words;   // CTRL_SEQ ... CTRL_GAPS",
            32 * (next_word + CTRL_STATUS_WORDS.len()) - 1,
            32 * next_word
        );
        next_word += CTRL_STATUS_WORDS.len();
    }
    if let Some((_, taken)) = &t.binding.flip {
        let _ = writeln!(w, "reg  epoch_pending = 1'b0;");
        if taken.is_some() {
            let _ = writeln!(
                w,
                "assign status_words[{}:{}] = {{31'd0, epoch_pending}};",
                32 * next_word + 31,
                32 * next_word
            );
            next_word += 1;
        }
    }
    if t.binding.keeps_time_origin() {
        let _ = writeln!(w, "assign status_words[{}:{}] = time_origin;", 32 * next_word + 63, 32 * next_word);
        next_word += 2;
    }
    for (p, first) in &t.wiring.status {
        let words = (p.bits as u32).div_ceil(32);
        let pad = 32 * words - p.bits as u32;
        let value = if pad == 0 { format!("core_{}", p.name) } else { format!("{{{pad}'d0, core_{}}}", p.name) };
        let _ = writeln!(w, "wire [{}:0] core_{};", p.bits - 1, p.name);
        let _ =
            writeln!(w, "assign status_words[{}:{}] = {value};", 32 * (*first as u32 + words) - 1, 32 * *first as u32);
        next_word = first + words as usize;
    }
    debug_assert_eq!(next_word, ns);
    let marker = t.core.ports.iter().find(|p| p.name == t.binding.epoch_marker).expect("checked by point()");
    readiness_verilog(w, marker, idx("RECORDS_IN_RESET"));
    // Flags: set when a counter moves, or by an interruption (or the control logic).
    let reasons = Unparsed::ALL.len();
    let _ = writeln!(
        w,
        "wire [{}:0] flag_set = {{{}interruption, cnt_changed[2], |cnt_changed[{}:2], cnt_changed[{}], cnt_changed[{}]}};",
        nf - 1,
        if t.inline { "ctrl_flag, " } else { "" },
        reasons + 1,
        idx("FIFO_OVERFLOWS"),
        idx("RECORDS_DROPPED")
    );
    // Epoch flip.
    if let Some((req, taken)) = &t.binding.flip {
        if let Some(tk) = taken {
            let _ = writeln!(w, "wire core_{tk};");
        }
        let _ = writeln!(w, "// EPOCH_FLIP (command 0) asks for a flip; one asked while one waits is the same flip.");
        if t.inline {
            let _ = writeln!(w, "// Inline, with CTRL_ROLE 0 only: a sender asks its control frame for it, a receiver");
            let _ = writeln!(w, "// follows the sender's.");
        }
        let host = if t.inline { "cmd_pulse[0] && ctrl_role == 2'd0" } else { "cmd_pulse[0]" };
        let _ = writeln!(w, "always @(posedge aclk) begin");
        match taken {
            Some(tk) => {
                let _ = writeln!(w, "    if (rst || (epoch_pending && core_{tk})) epoch_pending <= 1'b0;");
                let _ = writeln!(w, "    else if ({host}) epoch_pending <= 1'b1;");
            }
            None => {
                let _ =
                    writeln!(w, "    epoch_pending <= !rst && cmd_pulse[0];   // the core takes a one-clock request");
            }
        }
        let _ = writeln!(w, "end");
        if t.inline {
            let tk = taken.as_deref().expect("checked by point()");
            inline_control_verilog(w, tk, idx);
            let _ = writeln!(w, "wire core_{req} = epoch_pending || ctrl_flip;");
        } else {
            let _ = writeln!(w, "wire core_{req} = epoch_pending;");
        }
    }
    // Read-out.
    let _ = writeln!(w, "\n// Read-out fields.");
    for p in &t.wiring.readout {
        let _ = writeln!(w, "wire [{}:0] core_{};", p.bits - 1, p.name);
    }
    let _ = writeln!(w, "assign {ro}_tdata = {};", tdata_concat(t.readout, t.tdata_bits));

    // Packet IDs computed from the key.
    for (n, _) in t.binding.packet.iter().filter(|(_, s)| *s == RecordSource::KeyDigest) {
        let bits = t.core.ports.iter().find(|p| &p.name == n).map_or(64, |p| p.bits as u32);
        let _ = writeln!(w, "\n// The packet's ID for `{n}`: H3 of the record's key (netmeas_sim::frame::key_digest).");
        let _ = writeln!(
            w,
            "wire [{}:0] digest_{n} = {};",
            bits - 1,
            PointBinding::expression(RecordSource::KeyDigest, bits, "rec")
        );
    }

    if let Some(streams) = t.query {
        query_verilog(w, streams);
    }

    // The core.
    let _ = writeln!(w, "\n{} core (", t.core.top);
    let mut conns = Vec::new();
    for p in &t.core.ports {
        let n = p.name.as_str();
        let e = if n == "clock" {
            "aclk".to_string()
        } else if n == "reset" {
            "rst".into()
        } else if n == "s_valid" {
            "rec_out_valid && is_packet".into()
        } else if n == "s_ready" {
            "core_s_ready".into()
        } else if n == "m_ro_valid" {
            format!("{ro}_tvalid")
        } else if n == "m_ro_ready" {
            format!("{ro}_tready || window_take")
        } else if n == t.binding.readout_last {
            format!("{ro}_tlast")
        } else if n.starts_with("csr_") {
            format!("core_{n}")
        } else if t.binding.packet.iter().any(|(q, s)| q == n && *s == RecordSource::KeyDigest) {
            format!("digest_{n}")
        } else if let Some((_, src)) = t.binding.packet.iter().find(|(q, _)| q == n) {
            PointBinding::expression(*src, p.bits as u32, "rec")
        } else if t.binding.now.as_ref().is_some_and(|q| q.valid == n) {
            "now_valid_q".into()
        } else if t.binding.now.as_ref().is_some_and(|q| q.time == n) {
            "now_q".into()
        } else if let Some(q) = t.binding.query.as_ref().filter(|q| q.names(n)) {
            query_connection(q, t.query.expect("a query binding gives streams"), n)
        } else if let Some((_, i)) = t.wiring.commands.iter().find(|(q, _)| q == n) {
            format!("cmd_pulse[{i}]")
        } else {
            format!("core_{n}")
        };
        conns.push(format!("    .{n}({e})"));
    }
    let _ = writeln!(w, "{}\n);", conns.join(",\n"));

    // Register block.
    let _ = writeln!(w, "\nassign irq = |flags;");
    let empty = !has("csr_we") || !has("csr_re");
    if empty || !t.inline {
        let _ = writeln!(
            w,
            "/* verilator lint_off PINCONNECTEMPTY */  // a strobe the core does not take; no configuration"
        );
    }
    let _ = writeln!(w, "{} regs (", t.regs.module);
    let _ = writeln!(w, "    .clk(aclk), .rst(rst),");
    let _ = writeln!(
        w,
        "    .acc_valid(acc_valid && acc_regs), .acc_we(acc_we), .acc_addr(acc_addr[{}:0]), .acc_wdata(acc_wdata), .acc_wstrb(acc_wstrb),",
        regs_aw - 1
    );
    let _ = writeln!(w, "    .rsp_valid(regs_rsp_valid), .rsp_err(regs_rsp_err), .rsp_rdata(regs_rsp_rdata),");
    let csr_we = if has("csr_we") { "core_csr_we" } else { "" };
    let csr_re = if has("csr_re") { "core_csr_re" } else { "" };
    let (csr_addr, csr_wdata) = if has("csr_addr") { ("core_csr_addr", "core_csr_wdata") } else { ("", "") };
    let _ = writeln!(
        w,
        "    .csr_we({csr_we}), .csr_re({csr_re}), .csr_addr({csr_addr}), .csr_wdata({csr_wdata}), .csr_rdata({csr_rdata}),"
    );
    let _ = writeln!(w, "    .status_words(status_words), .flag_set(flag_set), .flags(flags), .cmd_pulse(cmd_pulse),");
    if t.inline {
        let _ = writeln!(w, "    .config_words(config_words)\n);");
    } else {
        let _ = writeln!(w, "    .config_words()   // (no configuration words of the point's own)\n);");
    }
    if empty || !t.inline {
        let _ = writeln!(w, "/* verilator lint_on PINCONNECTEMPTY */");
    }

    window_verilog(w, t, regs_aw);

    // Bus slave.
    let _ = writeln!(w, "\n{} #(.ADDR_WIDTH({aw})) slave (", t.bus.module());
    let _ = writeln!(w, "    .clk(aclk), .rst(rst),");
    match t.bus {
        Bus::Axil => {
            let names = [
                "awaddr", "awprot", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp", "bvalid",
                "bready", "araddr", "arprot", "arvalid", "arready", "rdata", "rresp", "rvalid", "rready",
            ];
            let c: Vec<String> = names.iter().map(|n| format!(".s_axil_{n}(s_axil_{n})")).collect();
            for chunk in c.chunks(5) {
                let _ = writeln!(w, "    {},", chunk.join(", "));
            }
        }
        Bus::Wishbone => {
            let names = ["adr_i", "dat_i", "dat_o", "sel_i", "we_i", "stb_i", "cyc_i", "stall_o", "ack_o", "err_o"];
            let c: Vec<String> = names.iter().map(|n| format!(".wb_{n}(wb_{n})")).collect();
            for chunk in c.chunks(5) {
                let _ = writeln!(w, "    {},", chunk.join(", "));
            }
        }
    }
    let _ = writeln!(
        w,
        "    .acc_valid(acc_valid), .acc_we(acc_we), .acc_addr(acc_addr), .acc_wdata(acc_wdata), .acc_wstrb(acc_wstrb),"
    );
    let _ = writeln!(w, "    .rsp_valid(rsp_valid), .rsp_err(rsp_err), .rsp_rdata(rsp_rdata)\n);");
    let _ = writeln!(w, "\nendmodule\n\n`resetall");
    v
}

/// An inline point's data path in the MAC's clock (`docs/cores/point.md`,
/// *Inline*): `s_axis_*` through the control frame sender
/// (`netmeas_ctrl_sender`) onto the path `x_*`, which the frame parser and
/// the control detector watch (`p_*`: its beats as they are taken), and
/// through the strip (`netmeas_ctrl_strip`) to `m_axis_*`. The path holds
/// the MAC while the record FIFO and the frames inside the parser could fill
/// the FIFO, so the point loses no record. Declares the configuration as the
/// MAC's side sees it (`s_ctrl_*`, from [`inline_control_verilog`]'s
/// crossing) and `s_flip_req`.
fn inline_path_verilog(w: &mut String, tuser_bits: u32) {
    let room = (1u32 << INLINE_FIFO_ADDR_BITS) - 1;
    let text = r#"
// ------------------------------------------------------------ the data path (inline)
// s_axis_* -> control frame sender -> x_* -> strip -> m_axis_*; the frame parser and
// the control detector watch x_* (docs/cores/point.md, In-band epoch control).
wire [63:0]     x_tdata;
wire [7:0]      x_tkeep;
wire            x_tvalid;
wire            x_tready;
wire            x_tlast;
wire [TU_MSB:0] x_tuser;
wire            x_take = x_tvalid && x_tready;
wire [ADDR:0]   fifo_used;          // records in the FIFO, as the MAC's side sees them
reg  [5:0]      s_parsing = 6'd0;   // frames begun on the path whose outcome has not come
reg             x_in_frame = 1'b0;
wire            strip_ready;
// The path holds the MAC while the FIFO and the frames inside the parser could fill
// the FIFO: no record is lost, and tready tells the MAC. The room is a clock old (a
// register: the sum may have grown by one frame begun since), hence one of margin.
reg             room = 1'b0;
assign x_tready = strip_ready && room;
always @(posedge s_axis_aclk) begin
    room <= {1'b0, fifo_used} + {1'b0, s_parsing} < 7'dROOM - 7'd1;
    if (s_rst) begin
        x_in_frame <= 1'b0;
        s_parsing <= 6'd0;
    end else begin
        if (x_take) x_in_frame <= !x_tlast;
        s_parsing <= s_parsing + {5'd0, x_take && !x_in_frame} - {5'd0, stat_valid};
    end
end
// The configuration as the MAC's side has it (from the core's clock: netmeas_cdc_word).
wire [116:0]    s_ctrl_cfg;
wire [1:0]      s_ctrl_role = s_ctrl_cfg[1:0];
wire [15:0]     s_ctrl_segment = s_ctrl_cfg[17:2];
wire [1:0]      s_ctrl_mode = s_ctrl_cfg[19:18];
wire [31:0]     s_ctrl_every_packets = s_ctrl_cfg[51:20];
wire [63:0]     s_ctrl_every_ns = s_ctrl_cfg[115:52];
wire            s_ctrl_strip = s_ctrl_cfg[116];
wire            s_flip_req;         // a host's EPOCH_FLIP on a sender
/* verilator lint_off PINCONNECTEMPTY */  // the sender's own status: the core's CTRL_* say it
netmeas_ctrl_sender #(.TUSER_BITS(TU), .ETHERTYPE(CTRL_ETHERTYPE), .DST_MAC(CTRL_DST_MAC), .SRC_MAC(CTRL_SRC_MAC)) path_sender (
    .clk(s_axis_aclk), .rst(s_rst),
    .enable(s_ctrl_role == 2'd1), .mode(s_ctrl_mode), .every_packets(s_ctrl_every_packets),
    .every_ns(s_ctrl_every_ns), .segment(s_ctrl_segment), .flip_req(s_flip_req), .time_ns(s_axis_time_ns),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
    .m_axis_tdata(x_tdata), .m_axis_tkeep(x_tkeep), .m_axis_tvalid(x_tvalid), .m_axis_tready(x_tready),
    .m_axis_tlast(x_tlast), .m_axis_tuser(x_tuser),
    .seq(), .sent()
);
/* verilator lint_on PINCONNECTEMPTY */
netmeas_ctrl_strip #(.TUSER_BITS(TU), .ETHERTYPE(CTRL_ETHERTYPE)) path_strip (
    .clk(s_axis_aclk), .rst(s_rst), .strip(s_ctrl_role == 2'd2 && s_ctrl_strip),
    .s_axis_tdata(x_tdata), .s_axis_tkeep(x_tkeep), .s_axis_tvalid(x_tvalid && room), .s_axis_tready(strip_ready),
    .s_axis_tlast(x_tlast), .s_axis_tuser(x_tuser),
    .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser)
);
// The frames as the parser sees them: the path's beats as they are taken.
wire [63:0]     p_tdata = x_tdata;
wire [7:0]      p_tkeep = x_tkeep;
wire            p_tvalid = x_take;
wire            p_tlast = x_tlast;
wire [TU_MSB:0] p_tuser = x_tuser;
"#;
    let text = text
        .replace("TU_MSB", &(tuser_bits - 1).to_string())
        .replace("(TU)", &format!("({tuser_bits})"))
        .replace("ADDR:0", &format!("{INLINE_FIFO_ADDR_BITS}:0"))
        .replace("7'dROOM", &format!("7'd{room}"));
    w.push_str(&text);
}

/// An inline point's control detector (`netmeas_ctrl_detect`) on the path,
/// its verdicts queued in frame order until each frame's outcome from the
/// parser (one per frame, in order: the detector's comes ten clocks
/// earlier). Defines `ctrl_here` (this outcome is a control frame's),
/// `ctrl_error` and `ctrl_fields` ({error, kind, segment, seq, packets,
/// time}, 187 bits).
fn inline_verdict_verilog(w: &mut String) {
    w.push_str(
        r#"
// Control frames on the path (netmeas_ctrl_detect), their verdicts queued in frame
// order until each frame's outcome from the parser.
wire            v_valid;
wire            v_ctrl;
wire [2:0]      v_error;
wire [7:0]      v_kind;
wire [15:0]     v_segment;
wire [31:0]     v_seq;
wire [63:0]     v_packets;
wire [63:0]     v_time;
netmeas_ctrl_detect #(.ETHERTYPE(CTRL_ETHERTYPE)) path_detect (
    .clk(s_axis_aclk), .rst(s_rst),
    .beat_valid(x_take), .beat_data(x_tdata), .beat_keep(x_tkeep), .beat_last(x_tlast), .beat_bad(x_tuser[0]),
    .v_valid(v_valid), .v_ctrl(v_ctrl), .v_error(v_error), .v_kind(v_kind), .v_segment(v_segment),
    .v_seq(v_seq), .v_packets(v_packets), .v_time(v_time)
);
reg  [187:0]    s_verdict [0:15];
reg  [3:0]      s_verdict_wr = 4'd0;
reg  [3:0]      s_verdict_rd = 4'd0;
always @(posedge s_axis_aclk) begin
    if (v_valid) s_verdict[s_verdict_wr] <= {v_ctrl, v_error, v_kind, v_segment, v_seq, v_packets, v_time};
    if (s_rst) begin
        s_verdict_wr <= 4'd0;
        s_verdict_rd <= 4'd0;
    end else begin
        if (v_valid) s_verdict_wr <= s_verdict_wr + 4'd1;
        if (stat_valid) s_verdict_rd <= s_verdict_rd + 4'd1;
    end
end
wire [187:0]    s_verdict_head = s_verdict[s_verdict_rd];
wire            ctrl_here = stat_valid && s_verdict_head[187];   // this outcome is a control frame's
wire [2:0]      ctrl_error = s_verdict_head[186:184];
wire [186:0]    ctrl_fields = s_verdict_head[186:0];
"#,
    );
}

/// An inline point's FIFO word: a record, or a control frame's verdict in
/// the record's place with the word's top bit set. Defines `fifo_in` and
/// `fifo_in_valid`.
fn inline_fifo_in_verilog(w: &mut String, packed: &str, rec_bits: u32) {
    let _ = writeln!(w, "\n// A record, or a control frame's verdict (the word's top bit) in the record's place.");
    let _ = writeln!(w, "wire         fifo_in_valid = rec_valid || ctrl_here;");
    let _ = writeln!(
        w,
        "wire [{rec_bits}:0] fifo_in = ctrl_here ? {{1'b1, {}'d0, ctrl_fields}} : {{1'b0, {packed}}};",
        rec_bits - 187
    );
}

/// An inline point's in-band epoch control in the core's clock (LDA §III,
/// §V; `docs/cores/point.md`): the configuration's crossing to the MAC's
/// clock, a sender's EPOCH_FLIP as a toggle, and the control frames' verdicts
/// as they reach the head of the records: an epoch boundary of the segment,
/// after the last one taken, flips the core (`ctrl_flip`, held until the
/// core's `taken` output shows the flip taken, no record passing it) and
/// freezes the pair's status (`ctrl_words`); a refused control frame taints
/// the live epoch; one of another segment, or whose sequence number is not
/// after the last, is counted and ignored. Assigns `ctrl_take`, `ctrl_flip`,
/// `ctrl_flag` and `ctrl_words`.
fn inline_control_verilog(w: &mut String, taken: &str, idx: impl Fn(&str) -> usize) {
    let text = r#"
// ------------------------------------------------------------ in-band epoch control
// (LDA §III, §V: a sequence-numbered control frame at each epoch's end.)
wire [1:0]   ctrl_role = config_words[1:0];
wire [15:0]  ctrl_segment = config_words[47:32];
// The configuration into the MAC's clock: {strip, every_ns, every_packets, mode, segment, role}.
netmeas_cdc_word #(.W(117)) cfg_cross (
    .m_clk(aclk), .m_rst(rst),
    .m_value({config_words[192], config_words[191:128], config_words[127:96], config_words[65:64],
              config_words[47:32], config_words[1:0]}),
    .s_clk(s_axis_aclk), .s_value_capture(s_ctrl_cfg)
);
// A host's EPOCH_FLIP on a sender: a level toggled here, a pulse in the MAC's clock.
reg          m_flip_level = 1'b0;
always @(posedge aclk) if (cmd_pulse[0] && ctrl_role == 2'd1) m_flip_level <= !m_flip_level;
(* ASYNC_REG = "TRUE" *) reg s_flip_sync1 = 1'b0;
(* ASYNC_REG = "TRUE" *) reg s_flip_sync2 = 1'b0;
reg          s_flip_seen = 1'b0;
always @(posedge s_axis_aclk) begin
    s_flip_sync1 <= m_flip_level;
    s_flip_sync2 <= s_flip_sync1;
    s_flip_seen <= s_flip_sync2;
end
assign s_flip_req = s_flip_sync2 != s_flip_seen;

// A control frame's verdict at the head of the records.
wire [2:0]   c_error = rec[186:184];
wire [15:0]  c_segment = rec[175:160];
wire [31:0]  c_seq = rec[159:128];
wire [63:0]  c_packets = rec[127:64];
wire [63:0]  c_time = rec[63:0];
reg          have_seq = 1'b0;        // a boundary was taken since the role was set
reg  [31:0]  last_seq = 32'd0;       // its sequence number
reg  [1:0]   role_seen = 2'd0;
// The head's comparisons, registered: a control frame's verdict is acted on a clock
// after it reaches the head (`c_settled`), when they are its own.
wire [31:0]  c_ahead_now = c_seq - last_seq;
reg  [31:0]  c_ahead = 32'd0;        // sequence numbers from the last boundary to the head's
reg          c_not_after = 1'b0;     // the head's is not after the last boundary's
reg          c_next = 1'b0;          // the head's is the next one
reg          c_other_segment = 1'b0; // the head is another segment's
reg          c_settled = 1'b0;       // the head was there a clock ago (and stayed)
always @(posedge aclk) begin
    c_ahead <= c_ahead_now;
    c_not_after <= c_ahead_now == 32'd0 || c_ahead_now[31];
    c_next <= c_ahead_now == 32'd1;
    c_other_segment <= c_segment != ctrl_segment;
    c_settled <= !rst && rec_out_valid && !rec_out_ready;
end
wire         c_head = rec_out_valid && is_control && ctrl_role != 2'd0 && c_settled;
wire         c_ok = c_error == 3'd0;
wire         c_foreign = c_ok && c_other_segment;
wire         c_replay = c_ok && !c_foreign && have_seq && c_not_after;
wire         c_boundary = c_head && c_ok && !c_foreign && !c_replay;
assign ctrl_flip = c_boundary;
// A boundary is taken with the core's flip (no record passes it); any other control
// frame once settled.
assign ctrl_take = c_settled && (!c_boundary || core_TAKEN);
wire         c_taken = c_head && ctrl_take;
wire         c_first = !have_seq;
wire         c_gap = have_seq && !c_next;
// The point lost records (the FIFO full, refused in reset, dropped by the parser).
wire         lost_now = cnt_changed[I_OVERFLOW] || cnt_changed[I_IN_RESET] || cnt_changed[I_DROPPED];
reg          live_corrupt = 1'b0;    // a control frame was refused in the live epoch
reg          live_loss = 1'b0;       // the point lost records in it
wire [4:0]   c_why = {live_loss || lost_now, live_interrupted || losing, live_corrupt, c_gap, c_first};
reg  [31:0]  ctrl_seq_q = 32'd0;
reg  [5:0]   ctrl_status_q = 6'd0;
reg  [63:0]  ctrl_peer_packets = 64'd0;
reg  [63:0]  ctrl_peer_time = 64'd0;
reg  [31:0]  ctrl_boundaries = 32'd0;
reg  [31:0]  ctrl_foreign = 32'd0;
reg  [31:0]  ctrl_replayed = 32'd0;
reg  [31:0]  ctrl_gaps = 32'd0;
reg          ctrl_flag_q = 1'b0;
always @(posedge aclk) begin
    ctrl_flag_q <= 1'b0;
    role_seen <= ctrl_role;
    if (rst) begin
        have_seq <= 1'b0;
        live_corrupt <= 1'b0;
        live_loss <= 1'b0;
        ctrl_seq_q <= 32'd0;
        ctrl_status_q <= 6'd0;
        ctrl_peer_packets <= 64'd0;
        ctrl_peer_time <= 64'd0;
        ctrl_boundaries <= 32'd0;
        ctrl_foreign <= 32'd0;
        ctrl_replayed <= 32'd0;
        ctrl_gaps <= 32'd0;
    end else if (ctrl_role != role_seen) begin
        // A new role: the next boundary is the first.
        have_seq <= 1'b0;
        live_corrupt <= 1'b0;
        live_loss <= 1'b0;
    end else begin
        if (lost_now) live_loss <= 1'b1;
        if (c_taken) begin
            if (c_boundary) begin
                ctrl_seq_q <= c_seq;
                ctrl_status_q <= {c_why, c_why == 5'd0};
                ctrl_peer_packets <= c_packets;
                ctrl_peer_time <= c_time;
                last_seq <= c_seq;
                have_seq <= 1'b1;
                live_corrupt <= 1'b0;
                live_loss <= lost_now;
                ctrl_boundaries <= ctrl_boundaries + 32'd1;
                if (c_gap) begin
                    ctrl_gaps <= ctrl_gaps + c_ahead - 32'd1;
                    ctrl_flag_q <= 1'b1;
                end
            end else if (!c_ok) begin
                live_corrupt <= 1'b1;
                ctrl_flag_q <= 1'b1;
            end else if (c_foreign) begin
                ctrl_foreign <= ctrl_foreign + 32'd1;
                ctrl_flag_q <= 1'b1;
            end else begin
                ctrl_replayed <= ctrl_replayed + 32'd1;
                ctrl_flag_q <= 1'b1;
            end
        end
    end
end
assign ctrl_flag = ctrl_flag_q;
assign ctrl_words = {ctrl_gaps, ctrl_replayed, ctrl_foreign, ctrl_boundaries, ctrl_peer_time, ctrl_peer_packets,
                     26'd0, ctrl_status_q, ctrl_seq_q};
"#;
    let text = text
        .replace("core_TAKEN", &format!("core_{taken}"))
        .replace("I_OVERFLOW", &idx("FIFO_OVERFLOWS").to_string())
        .replace("I_IN_RESET", &idx("RECORDS_IN_RESET").to_string())
        .replace("I_DROPPED", &idx("RECORDS_DROPPED").to_string());
    w.push_str(&text);
}

/// The point's readiness and its interruptions (`docs/cores/point.md`,
/// *Reset*): `point_ready` once the record FIFO is out of reset and the
/// core has shown `s_ready` (after a reset, once its memories are clear);
/// an interruption when a reset of the MAC's side reaches a point that has
/// been ready: the FIFO's read side going into reset (what it held is
/// lost), or a record refused while its write side was (counter
/// `refused`). The live epoch is marked while either lasts, its frozen
/// copy when the core's `marker` output shows the next epoch begun.
/// Defines `point_ready`, `live_interrupted`, `frozen_interrupted`,
/// `interruptions` and the one-clock `interruption`.
fn readiness_verilog(w: &mut String, marker: &Port, refused: usize) {
    let (marker, bits) = (marker.name.as_str(), marker.bits);
    let _ = writeln!(w, "\n// Readiness and interruptions by a reset of the MAC's side (docs/cores/point.md, Reset).");
    let _ =
        writeln!(w, "reg         point_ready = 1'b0;        // the FIFO is out of reset and the core takes records");
    let _ = writeln!(w, "reg         ready_once = 1'b0;         // ready since the core's reset");
    let _ = writeln!(
        w,
        "reg         live_interrupted = 1'b0;   // the live epoch lost records to a reset of the MAC's side"
    );
    let _ = writeln!(w, "reg         frozen_interrupted = 1'b0; // ... the epoch last frozen");
    let _ = writeln!(w, "reg  [31:0] interruptions = 32'd0;");
    let _ = writeln!(
        w,
        "reg  [{}:0] marker_seen = {bits}'d0;  // core_{marker} a clock ago: it moves as an epoch begins",
        bits - 1
    );
    let _ = writeln!(w, "wire        interruption = point_ready && fifo_m_reset;");
    let _ = writeln!(w, "wire        losing = ready_once && (fifo_m_reset || !point_ready || cnt_changed[{refused}]);");
    let _ = writeln!(w, "wire        new_epoch = core_{marker} != marker_seen;");
    let _ = writeln!(w, "always @(posedge aclk) begin");
    let _ = writeln!(w, "    if (rst) begin");
    let _ = writeln!(w, "        point_ready <= 1'b0;\n        ready_once <= 1'b0;");
    let _ = writeln!(w, "        live_interrupted <= 1'b0;\n        frozen_interrupted <= 1'b0;");
    let _ = writeln!(w, "        interruptions <= 32'd0;");
    let _ = writeln!(w, "    end else begin");
    let _ = writeln!(w, "        if (fifo_m_reset) point_ready <= 1'b0;");
    let _ = writeln!(w, "        else if (core_s_ready) point_ready <= 1'b1;");
    let _ = writeln!(w, "        if (point_ready) ready_once <= 1'b1;");
    let _ = writeln!(
        w,
        "        if (interruption && interruptions != 32'hffff_ffff) interruptions <= interruptions + 32'd1;"
    );
    let _ = writeln!(w, "        if (new_epoch) begin");
    let _ = writeln!(w, "            frozen_interrupted <= live_interrupted || losing;");
    let _ = writeln!(w, "            live_interrupted <= losing;");
    let _ = writeln!(w, "        end else if (losing) begin");
    let _ = writeln!(w, "            live_interrupted <= 1'b1;");
    let _ = writeln!(w, "        end");
    let _ = writeln!(w, "    end");
    let _ = writeln!(w, "    marker_seen <= core_{marker};");
    let _ = writeln!(w, "end");
}

/// The bus's accesses split between the register block (the bottom of the
/// map) and the read-out window (the top half); an address in neither is
/// answered with an error two clocks later, like theirs.
fn window_verilog(w: &mut String, t: &TopParts<'_>, regs_aw: u32) {
    let (aw, waw) = (t.addr_width, t.window.addr_bits());
    let _ = writeln!(w, "\n// The read-out window (the frozen epoch, beat by beat) at 0x{:x}.", t.window.base);
    let _ = writeln!(w, "wire        window_take;");
    let _ = writeln!(w, "wire        win_rsp_valid;\nwire        win_rsp_err;\nwire [31:0] win_rsp_rdata;");
    let _ = writeln!(
        w,
        "netmeas_point_window #(.TDATA_BITS({}), .STRIDE_BITS({}), .INDEX_BITS({WINDOW_INDEX_BITS})) window (",
        t.tdata_bits, t.window.stride_bits
    );
    let _ = writeln!(w, "    .clk(aclk), .rst(rst),");
    let _ =
        writeln!(w, "    .acc_valid(acc_valid && acc_window), .acc_we(acc_we), .acc_addr(acc_addr[{}:0]),", waw - 1);
    let _ = writeln!(w, "    .rsp_valid(win_rsp_valid), .rsp_err(win_rsp_err), .rsp_rdata(win_rsp_rdata),");
    let ro = if t.inline { "m_axis_ro" } else { "m_axis" };
    let _ = writeln!(w, "    .ro_tdata({ro}_tdata), .ro_tvalid({ro}_tvalid), .ro_tlast({ro}_tlast),");
    let _ = writeln!(w, "    .ro_tready_ext({ro}_tready), .ro_take(window_take)\n);");
    let zero = |hi: u32, lo: u32| {
        if hi < lo { "1'b1".to_string() } else { format!("acc_addr[{hi}:{lo}] == {}'d0", hi - lo + 1) }
    };
    let _ = writeln!(w, "\n// Which answers an access: the register block, the window, or neither (an error).");
    let _ = writeln!(w, "wire acc_regs = {};", zero(aw - 1, regs_aw));
    let _ = writeln!(w, "wire acc_window = acc_addr[{}] && {};", aw - 1, zero(aw - 2, waw));
    let _ = writeln!(w, "reg  hole_1 = 1'b0, hole_2 = 1'b0;");
    let _ = writeln!(w, "always @(posedge aclk) begin");
    let _ = writeln!(w, "    hole_1 <= acc_valid && !acc_regs && !acc_window && !rst;");
    let _ = writeln!(w, "    hole_2 <= hole_1 && !rst;\nend");
    let _ = writeln!(w, "assign rsp_valid = regs_rsp_valid || win_rsp_valid || hole_2;");
    let _ = writeln!(w, "assign rsp_err = regs_rsp_err || win_rsp_err || hole_2;");
    let _ = writeln!(w, "assign rsp_rdata = regs_rsp_rdata | win_rsp_rdata;   // 0 from the one not answering");
}

/// The query port (MAPLE §4): `s_axis_query_*` into the core's query
/// input, its answers through the answer FIFO to `m_axis_answer_*`
/// (`netmeas_point_query`). Defines `query_data`, `query_valid`,
/// `query_ready`, `answer_valid` and the answer fields `core_<port>`.
fn query_verilog(w: &mut String, s: &QueryStreams) {
    let (qb, ab) = (s.query_bits, s.answer_bits);
    let _ =
        writeln!(w, "\n// Queries and their answers (MAPLE §4): a query is taken only when its answer will find room.");
    let _ = writeln!(w, "/* verilator lint_off UNUSEDSIGNAL */  // TDATA's padding to whole bytes");
    let _ = writeln!(w, "wire [{}:0] query_data;", qb - 1);
    let _ = writeln!(w, "/* verilator lint_on UNUSEDSIGNAL */");
    let _ = writeln!(w, "wire         query_valid;\nwire         query_ready;\nwire         answer_valid;");
    let _ = writeln!(w, "wire [{}:0] answer_data;", ab - 1);
    for (n, b) in &s.answer {
        let _ = writeln!(w, "wire [{}:0] core_{n};", b - 1);
    }
    let _ = writeln!(w, "assign answer_data = {};", tdata_concat(&s.answer, ab));
    let _ = writeln!(
        w,
        "netmeas_point_query #(.QUERY_BITS({qb}), .ANSWER_BITS({ab}), .DEPTH_BITS({ANSWER_DEPTH_BITS})) query ("
    );
    let _ = writeln!(w, "    .clk(aclk), .rst(rst),");
    let _ = writeln!(
        w,
        "    .s_axis_query_tdata(s_axis_query_tdata), .s_axis_query_tvalid(s_axis_query_tvalid), .s_axis_query_tready(s_axis_query_tready),"
    );
    let _ = writeln!(w, "    .core_q_data(query_data), .core_q_valid(query_valid), .core_q_ready(query_ready),");
    let _ = writeln!(w, "    .core_r_data(answer_data), .core_r_valid(answer_valid),");
    let _ = writeln!(
        w,
        "    .m_axis_answer_tdata(m_axis_answer_tdata), .m_axis_answer_tvalid(m_axis_answer_tvalid), .m_axis_answer_tready(m_axis_answer_tready)\n);"
    );
}

/// What the core's query port `n` connects to (see [`query_verilog`]).
fn query_connection(q: &QueryBinding, s: &QueryStreams, n: &str) -> String {
    if let Some((lsb, bits)) = tdata_field(&s.query, n) {
        return format!("query_data[{}:{lsb}]", lsb + bits - 1);
    }
    if n == q.valid {
        "query_valid".into()
    } else if n == q.ready {
        "query_ready".into()
    } else if n == q.answer_valid {
        "answer_valid".into()
    } else {
        format!("core_{n}")
    }
}

/// The MAC domain's time markers: once a record has gone, when no frame is
/// on its way through the parser and the record FIFO is empty, a marker
/// (the FIFO word's top bit set) carries max(`s_axis_time_ns` −
/// `MARKER_LAG_NS`, the last record's time) in the timestamp field, every
/// `MARKER_IDLE_CLOCKS` clocks. The
/// next frame's timestamp is never below it, so the core sees the
/// intervals its packets give, ended sooner on an idle link. Defines
/// `fifo_in`, `fifo_in_valid` and takes `s_fifo_empty` from the FIFO.
fn marker_verilog(w: &mut String, packed: &str, rec_bits: u32) {
    let ts_lsb = RecordField::Ts.lsb();
    let above = if rec_bits > RECORD_BITS { format!("{}'d0, ", rec_bits - RECORD_BITS) } else { String::new() };
    let _ = writeln!(w, "\n// Time markers: with no frame in the parser and the record FIFO empty for");
    let _ = writeln!(w, "// MARKER_IDLE_CLOCKS clocks, a marker takes the time to the core (docs/cores/point.md).");
    let _ = writeln!(w, "reg  [5:0]  s_in_flight = 6'd0;   // frames begun whose outcome has not come");
    let _ = writeln!(w, "reg         s_have_record = 1'b0; // a record has gone: markers follow the records' time");
    let _ = writeln!(w, "reg  [63:0] s_last_ts = 64'd0;    // the last record's time");
    let _ = writeln!(w, "reg  [63:0] s_lagged = 64'd0;     // s_axis_time_ns - MARKER_LAG_NS, 0 below it");
    let _ = writeln!(w, "reg  [63:0] s_marker_ts = 64'd0;  // the larger of the two");
    let _ = writeln!(w, "reg  [15:0] s_quiet = 16'd0;      // idle clocks, up to MARKER_IDLE_CLOCKS - 1");
    let _ = writeln!(w, "wire        s_fifo_empty;");
    let _ = writeln!(w, "wire        s_busy = s_first_beat || s_in_frame || s_in_flight != 6'd0;");
    let _ = writeln!(
        w,
        "wire        s_marker = s_have_record && !s_busy && s_fifo_empty && s_quiet == MARKER_IDLE_CLOCKS - 16'd1;"
    );
    let _ = writeln!(w, "wire [64:0] s_lag_diff = {{1'b0, s_axis_time_ns}} - {{33'd0, MARKER_LAG_NS}};");
    let _ = writeln!(w, "always @(posedge s_axis_aclk) begin");
    let _ = writeln!(w, "    s_lagged <= s_lag_diff[64] ? 64'd0 : s_lag_diff[63:0];");
    let _ = writeln!(w, "    s_marker_ts <= s_lagged > s_last_ts ? s_lagged : s_last_ts;");
    let _ = writeln!(w, "    if (s_rst) begin");
    let _ = writeln!(w, "        s_in_flight <= 6'd0;");
    let _ = writeln!(w, "        s_have_record <= 1'b0;\n        s_last_ts <= 64'd0;\n        s_quiet <= 16'd0;");
    let _ = writeln!(w, "    end else begin");
    let _ = writeln!(w, "        s_in_flight <= s_in_flight + {{5'd0, s_first_beat}} - {{5'd0, stat_valid}};");
    let _ = writeln!(w, "        if (rec_valid) s_have_record <= 1'b1;\n        if (rec_valid) s_last_ts <= rec_ts;");
    let _ = writeln!(w, "        if (s_busy || s_marker) s_quiet <= 16'd0;");
    let _ = writeln!(w, "        else if (s_quiet != MARKER_IDLE_CLOCKS - 16'd1) s_quiet <= s_quiet + 16'd1;");
    let _ = writeln!(w, "    end\nend");
    let _ = writeln!(w, "// A frame's record and a marker never meet: the marker waits for an idle parser.");
    let _ = writeln!(w, "wire         fifo_in_valid = rec_valid || s_marker;");
    let _ = writeln!(
        w,
        "wire [{rec_bits}:0] fifo_in = rec_valid ? {{1'b0, {packed}}} : {{1'b1, {above}s_marker_ts, {ts_lsb}'d0}};"
    );
}

/// The MAC domain's frame tracker: `s_first_beat` marks each frame's first
/// beat (every frame the parser sees gives one outcome, `stat_valid`, in
/// frame order).
/// The parser's beats are `valid` and `last`.
fn frame_tracker_verilog(w: &mut String, valid: &str, last: &str) {
    let _ = writeln!(w, "\n// Frames as the parser sees them: a beat after a last beat (or reset) begins one.");
    let _ = writeln!(w, "reg         s_in_frame = 1'b0;    // between a frame's first and last beat");
    let _ = writeln!(w, "wire        s_first_beat = {valid} && !s_in_frame;");
    let _ = writeln!(w, "always @(posedge s_axis_aclk) begin");
    let _ = writeln!(w, "    if (s_rst) s_in_frame <= 1'b0;");
    let _ = writeln!(w, "    else if ({valid}) s_in_frame <= !{last};\nend");
}

/// The delay side-band (MAPLE §2.3): `s_axis_tuser` above the ingress time
/// on a frame's first beat, queued in frame order until the frame's outcome
/// (one per frame, in order), where it joins the record as `rec_delay`.
fn delay_verilog(w: &mut String, user: &str) {
    let (hi, n) = (64 + DELAY_BITS, DELAY_QUEUE_BITS);
    let _ = writeln!(w, "\n// The frames' delays (s_axis_tuser[{hi}:65], first beat), in frame order until");
    let _ = writeln!(w, "// each frame's outcome: at most 2^{n} frames are between the two.");
    let _ = writeln!(w, "reg  [{}:0] s_delay_mem [0:{}];", DELAY_BITS - 1, (1 << n) - 1);
    let _ = writeln!(w, "reg  [{}:0]  s_delay_wr = {n}'d0;\nreg  [{}:0]  s_delay_rd = {n}'d0;", n - 1, n - 1);
    let _ = writeln!(w, "always @(posedge s_axis_aclk) begin");
    let _ = writeln!(w, "    if (s_first_beat) s_delay_mem[s_delay_wr] <= {user}[{hi}:65];");
    let _ = writeln!(w, "    if (s_rst) begin\n        s_delay_wr <= {n}'d0;\n        s_delay_rd <= {n}'d0;");
    let _ = writeln!(w, "    end else begin");
    let _ = writeln!(w, "        if (s_first_beat) s_delay_wr <= s_delay_wr + {n}'d1;");
    let _ = writeln!(w, "        if (stat_valid) s_delay_rd <= s_delay_rd + {n}'d1;");
    let _ = writeln!(w, "    end\nend");
    let _ = writeln!(w, "wire [{}:0] rec_delay = s_delay_mem[s_delay_rd];", DELAY_BITS - 1);
}

/// The core domain's side of the time markers: the core's time input holds
/// the last marker's time (in the packets' time base: the binding's
/// `source`), valid from the first marker on (from the first packet's on
/// for a time since the first packet).
fn now_verilog(w: &mut String, core: &Exported, now: &TimeInput) {
    let bits = core.ports.iter().find(|p| p.name == now.time).map_or(64, |p| p.bits as u32);
    let after_origin = if now.source == RecordSource::TimeSinceFirst { " && have_origin" } else { "" };
    let _ = writeln!(w, "\n// The core's time input: the last time marker's time, held.");
    let _ = writeln!(w, "reg         now_valid_q = 1'b0;\nreg  [{}:0] now_q = {bits}'d0;", bits - 1);
    let _ = writeln!(w, "always @(posedge aclk) begin");
    let _ = writeln!(w, "    if (rst) begin\n        now_valid_q <= 1'b0;\n        now_q <= {bits}'d0;");
    let _ = writeln!(w, "    end else if (rec_out_valid && is_marker{after_origin}) begin");
    let _ = writeln!(w, "        now_valid_q <= 1'b1;");
    let _ = writeln!(w, "        now_q <= {};", PointBinding::expression(now.source, bits, "rec"));
    let _ = writeln!(w, "    end\nend");
}

/// `s_axis_tuser` of a point without the delay side-band.
const TUSER_DOC: &str = "bit 0 bad frame (last beat); 64:1 ingress time, ns (first beat)";
/// `s_axis_tuser` of a point whose core takes the frames' delays.
const TUSER_DELAY_DOC: &str =
    "bit 0 bad frame (last beat); 64:1 ingress time, ns, 96:65 the frame's one-way delay (first beat)";

/// A port of the point's top module.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TopPort {
    /// Verilog name.
    pub name: String,
    /// Direction.
    pub dir: Dir,
    /// Width in bits.
    pub bits: u32,
    /// Its clock (`s_axis_aclk` or `aclk`; a clock names itself).
    pub clock: &'static str,
    /// What it is.
    pub doc: &'static str,
    /// Its group in the port list.
    #[serde(skip)]
    pub group: &'static str,
}

/// The point's top-level ports for `bus`, a MAC bus of `data_bits`, a register
/// address of `aw` bits and a read-out of `tdata_bits`.
pub fn top_ports(
    bus: Bus,
    data_bits: u32,
    aw: u32,
    tdata_bits: u32,
    tuser_bits: u32,
    query: Option<&QueryStreams>,
    inline: bool,
) -> Vec<TopPort> {
    let mac = if inline {
        "MAC clock domain: frames in (AXI4-Stream; tready held low while a control frame goes out)"
    } else {
        "MAC clock domain: frames in (AXI4-Stream, never back-pressured)"
    };
    let core = "core clock domain";
    let p = |name: &str, dir: Dir, bits: u32, clock: &'static str, group: &'static str, doc: &'static str| TopPort {
        name: name.to_string(),
        dir,
        bits,
        clock,
        doc,
        group,
    };
    let (i, o) = (Dir::In, Dir::Out);
    let s = "s_axis_aclk";
    let mut v = vec![
        p("s_axis_aclk", i, 1, s, mac, "the MAC's clock"),
        p("s_axis_aresetn", i, 1, s, mac, "synchronous, active low"),
        p("s_axis_tdata", i, data_bits, s, mac, "frame bytes, lane 0 first, no FCS"),
        p("s_axis_tkeep", i, data_bits / 8, s, mac, ""),
        p("s_axis_tvalid", i, 1, s, mac, ""),
        p("s_axis_tready", o, 1, s, mac, if inline { "the path takes the beat" } else { "always 1" }),
        p("s_axis_tlast", i, 1, s, mac, ""),
        p("s_axis_tuser", i, tuser_bits, s, mac, if tuser_bits > 65 { TUSER_DELAY_DOC } else { TUSER_DOC }),
        p("s_axis_time_ns", i, 64, s, mac, "the time, ns (the MAC's PTP clock): frames' if tuser has none; markers'"),
    ];
    if inline {
        let g = "MAC clock domain: frames out (AXI4-Stream), the control frames between them";
        v.push(p("m_axis_tdata", o, data_bits, s, g, ""));
        v.push(p("m_axis_tkeep", o, data_bits / 8, s, g, ""));
        v.push(p("m_axis_tvalid", o, 1, s, g, ""));
        v.push(p("m_axis_tready", i, 1, s, g, ""));
        v.push(p("m_axis_tlast", o, 1, s, g, ""));
        v.push(p("m_axis_tuser", o, tuser_bits, s, g, "as it came in (0 on a control frame)"));
    }
    v.extend([
        p("aclk", i, 1, "aclk", core, "the core's clock"),
        p("aresetn", i, 1, "aclk", core, "synchronous, active low"),
    ]);
    let c = "aclk";
    match bus {
        Bus::Axil => {
            let g = "registers: AXI4-Lite slave";
            for (n, d, b) in [
                ("awaddr", i, aw),
                ("awprot", i, 3),
                ("awvalid", i, 1),
                ("awready", o, 1),
                ("wdata", i, 32),
                ("wstrb", i, 4),
                ("wvalid", i, 1),
                ("wready", o, 1),
                ("bresp", o, 2),
                ("bvalid", o, 1),
                ("bready", i, 1),
                ("araddr", i, aw),
                ("arprot", i, 3),
                ("arvalid", i, 1),
                ("arready", o, 1),
                ("rdata", o, 32),
                ("rresp", o, 2),
                ("rvalid", o, 1),
                ("rready", i, 1),
            ] {
                v.push(p(&format!("s_axil_{n}"), d, b, c, g, ""));
            }
        }
        Bus::Wishbone => {
            let g = "registers: Wishbone B4 pipelined slave (word addresses)";
            for (n, d, b) in [
                ("adr_i", i, aw - 2),
                ("dat_i", i, 32),
                ("dat_o", o, 32),
                ("sel_i", i, 4),
                ("we_i", i, 1),
                ("stb_i", i, 1),
                ("cyc_i", i, 1),
                ("stall_o", o, 1),
                ("ack_o", o, 1),
                ("err_o", o, 1),
            ] {
                v.push(p(&format!("wb_{n}"), d, b, c, g, ""));
            }
        }
    }
    let g = "read-out of the frozen epoch (AXI4-Stream master)";
    let ro = if inline { "m_axis_ro" } else { "m_axis" };
    v.push(p(&format!("{ro}_tdata"), o, tdata_bits, c, g, ""));
    v.push(p(&format!("{ro}_tvalid"), o, 1, c, g, ""));
    v.push(p(&format!("{ro}_tready"), i, 1, c, g, ""));
    v.push(p(&format!("{ro}_tlast"), o, 1, c, g, ""));
    if let Some(q) = query {
        let g = "queries in (AXI4-Stream slave), their answers out (master)";
        v.push(p("s_axis_query_tdata", i, q.query_bits, c, g, "a packet's ID and the query's tag"));
        v.push(p("s_axis_query_tvalid", i, 1, c, g, ""));
        v.push(p("s_axis_query_tready", o, 1, c, g, "low while the answers owed fill the answer FIFO"));
        v.push(p("m_axis_answer_tdata", o, q.answer_bits, c, g, ""));
        v.push(p("m_axis_answer_tvalid", o, 1, c, g, ""));
        v.push(p("m_axis_answer_tready", i, 1, c, g, ""));
    }
    v.push(p("irq", o, 1, c, "interrupt", "high while a sticky flag is set (FLAGS, write 1 to clear)"));
    v
}

fn field_name(f: RecordField) -> &'static str {
    f.parser_port().trim_start_matches("m_")
}

fn bus_text(b: Bus) -> &'static str {
    match b {
        Bus::Axil => "AXI4-Lite (s_axil_*)",
        Bus::Wishbone => "Wishbone B4 pipelined (wb_*)",
    }
}
