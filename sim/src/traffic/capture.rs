//! Captures read as a stream, one frame at a time (memory does not grow
//! with the capture): classic libpcap files (either byte order, micro- or
//! nanosecond timestamps) and pcapng (any interface time resolution and
//! offset), through the `pcap-file` crate, and each frame parsed by the
//! frame parser's reference ([`crate::frame`]) as the cores' front end
//! would parse it.

use crate::frame::{FrameRecord, LINK_TYPES, ParseCounts, Unparsed, parse_captured};
use pcap_file::pcap::PcapParser;
use pcap_file::pcapng::PcapNgParser;
use pcap_file::pcapng::blocks::Block;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::{PcapError, TsResolution};
use std::io::{Cursor, Read};
use std::path::Path;

/// Largest captured or wire length of a frame taken as real; a larger one
/// means a corrupt file.
pub const MAX_FRAME: u32 = 1 << 18;

/// One frame of a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedFrame {
    /// Capture time, ns since the Unix epoch.
    pub ts_ns: u64,
    /// libpcap link type of its interface.
    pub link: u32,
    /// Captured bytes, link layer first.
    pub data: Vec<u8>,
    /// Length on the wire (at least the captured bytes).
    pub wire_len: u32,
}

/// A pcapng interface: link type and time unit.
struct Interface {
    link: u32,
    /// Time = (raw + offset s) × num / den ns.
    num: u128,
    den: u128,
    offset_s: u64,
}

impl Interface {
    fn new(link: u32, options: &[InterfaceDescriptionOption]) -> Result<Self, String> {
        let mut i = Interface { link, num: 1000, den: 1, offset_s: 0 };
        for o in options {
            match *o {
                InterfaceDescriptionOption::IfTsResol(r) if r & 0x80 == 0 => {
                    let e = r as u32;
                    if e > 38 {
                        return Err(format!("interface time resolution 10^-{e} s is out of range"));
                    }
                    (i.num, i.den) = if e <= 9 { (10u128.pow(9 - e), 1) } else { (1, 10u128.pow(e - 9)) };
                }
                InterfaceDescriptionOption::IfTsResol(r) => {
                    let e = (r & 0x7f) as u32;
                    if e > 100 {
                        return Err(format!("interface time resolution 2^-{e} s is out of range"));
                    }
                    (i.num, i.den) = (1_000_000_000, 1u128 << e);
                }
                InterfaceDescriptionOption::IfTsOffset(s) => i.offset_s = s,
                _ => {}
            }
        }
        Ok(i)
    }

    fn ns(&self, raw: u64) -> Result<u64, String> {
        let ns = raw as u128 * self.num / self.den + self.offset_s as u128 * 1_000_000_000;
        u64::try_from(ns).map_err(|_| format!("a timestamp of {ns} ns is beyond 2^64 ns"))
    }
}

/// Largest block the reader holds at once (a bigger one is a corrupt file).
const MAX_BLOCK: usize = 1 << 24;
/// Bytes read from the input at a time.
const READ_CHUNK: usize = 1 << 16;

/// The input and the bytes read from it but not yet parsed: memory stays
/// within one block and one read.
struct Buffered {
    input: Box<dyn Read>,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
}

impl Buffered {
    /// Reads more input; `eof` once there is none.
    fn fill(&mut self) -> Result<(), PcapError> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        if self.buf.len() > MAX_BLOCK {
            return Err(PcapError::InvalidField("a block longer than 16 MiB"));
        }
        let at = self.buf.len();
        self.buf.resize(at + READ_CHUNK, 0);
        let n = loop {
            match self.input.read(&mut self.buf[at..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                r => break r,
            }
        };
        self.buf.truncate(at + *n.as_ref().unwrap_or(&0));
        self.eof = matches!(n, Ok(0));
        n.map(|_| ()).map_err(PcapError::IoError)
    }

    /// Whether the input is at its end.
    fn at_end(&mut self) -> Result<bool, PcapError> {
        while self.pos == self.buf.len() && !self.eof {
            self.fill()?;
        }
        Ok(self.pos == self.buf.len())
    }

    /// Runs `f` on the unparsed bytes, reading more while it needs more:
    /// `f` gives the bytes it used and what it made of them.
    fn parse<T>(&mut self, mut f: impl FnMut(&[u8]) -> Result<(usize, T), PcapError>) -> Result<T, PcapError> {
        loop {
            match f(&self.buf[self.pos..]) {
                Ok((used, t)) => {
                    self.pos += used;
                    return Ok(t);
                }
                Err(PcapError::IncompleteBuffer) if !self.eof => self.fill()?,
                Err(PcapError::IncompleteBuffer) => {
                    return Err(PcapError::IoError(std::io::ErrorKind::UnexpectedEof.into()));
                }
                Err(e) => return Err(e),
            }
        }
    }
}

enum Format {
    Pcap { parser: PcapParser, link: u32, nanos: bool },
    PcapNg { parser: PcapNgParser, interfaces: Vec<Interface> },
}

/// A capture being read, frame by frame.
pub struct CaptureReader {
    input: Buffered,
    format: Format,
    /// Frames read so far (for messages).
    frames: u64,
    first_ts: Option<u64>,
}

/// What a libpcap error means to the user.
fn pcap_error(e: PcapError, at: u64) -> String {
    match e {
        PcapError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            format!("truncated record after {at} frames")
        }
        e => format!("corrupt record after {at} frames: {e}"),
    }
}

fn unsupported_link(link: u32) -> String {
    format!("link type {link} is not supported (Ethernet 1, raw IP 101/228/229, Linux cooked 113/276)")
}

impl CaptureReader {
    /// Opens the capture at `path` (a regular file: a FIFO or a device is
    /// refused, see [`crate::files::open_input`]).
    pub fn open(path: &Path) -> Result<Self, String> {
        let f = crate::files::open_input(path)?;
        Self::new(f).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// A capture held in memory.
    pub fn from_bytes(data: &[u8]) -> Result<Self, String> {
        Self::new(Cursor::new(data.to_vec()))
    }

    /// Reads the file header from `r` and tells pcap from pcapng by its magic number.
    pub fn new(mut r: impl Read + 'static) -> Result<Self, String> {
        let mut magic = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match r.read(&mut magic[got..]) {
                Ok(0) => return Err(format!("not a capture: {got} bytes, shorter than a file header")),
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        let mut input = Buffered { input: Box::new(Cursor::new(magic).chain(r)), buf: Vec::new(), pos: 0, eof: false };
        let format = match u32::from_le_bytes(magic) {
            0xa1b2_c3d4 | 0xa1b2_3c4d | 0xd4c3_b2a1 | 0x4d3c_b2a1 => {
                let parser = input
                    .parse(|b| PcapParser::new(b).map(|(rest, p)| (b.len() - rest.len(), p)))
                    .map_err(|e| format!("not a pcap file: {e}"))?;
                let h = parser.header();
                let link = u32::from(h.datalink);
                if !LINK_TYPES.contains(&link) {
                    return Err(unsupported_link(link));
                }
                Format::Pcap { parser, link, nanos: h.ts_resolution == TsResolution::NanoSecond }
            }
            0x0a0d_0d0a => {
                let parser = input
                    .parse(|b| PcapNgParser::new(b).map(|(rest, p)| (b.len() - rest.len(), p)))
                    .map_err(|e| format!("not a pcapng file: {e}"))?;
                Format::PcapNg { parser, interfaces: Vec::new() }
            }
            m => return Err(format!("not a pcap file, nor pcapng (magic 0x{m:08x})")),
        };
        Ok(Self { input, format, frames: 0, first_ts: None })
    }

    /// The next frame, `None` at the end, or what is wrong with the file.
    pub fn next_frame(&mut self) -> Option<Result<CapturedFrame, String>> {
        let at = self.frames;
        let input = &mut self.input;
        match input.at_end() {
            Ok(true) => return None,
            Ok(false) => {}
            Err(e) => return Some(Err(pcap_error(e, at))),
        }
        let f = match &mut self.format {
            Format::Pcap { parser, link, nanos } => {
                let p = input.parse(|b| {
                    parser
                        .next_raw_packet(b)
                        .map(|(rest, p)| (b.len() - rest.len(), (p.ts_sec, p.ts_frac, p.orig_len, p.data.into_owned())))
                });
                let (sec, frac, wire_len, data) = match p {
                    Ok(p) => p,
                    Err(e) => return Some(Err(pcap_error(e, at))),
                };
                let frac = frac as u64;
                if frac >= if *nanos { 1_000_000_000 } else { 1_000_000 } {
                    return Some(Err(format!(
                        "record after {at} frames has a sub-second timestamp {frac} out of range: corrupt file"
                    )));
                }
                let ts_ns = sec as u64 * 1_000_000_000 + if *nanos { frac } else { frac * 1000 };
                CapturedFrame { ts_ns, link: *link, wire_len, data }
            }
            Format::PcapNg { parser, interfaces } => loop {
                if matches!(input.at_end(), Ok(true)) {
                    return None;
                }
                let block = input
                    .parse(|b| parser.next_block(b).map(|(rest, block)| (b.len() - rest.len(), block.into_owned())));
                let (iface, raw, wire_len, data) = match block {
                    Err(e) => return Some(Err(pcap_error(e, at))),
                    Ok(Block::InterfaceDescription(d)) => {
                        let link = u32::from(d.linktype);
                        if !LINK_TYPES.contains(&link) {
                            return Some(Err(unsupported_link(link)));
                        }
                        match Interface::new(link, &d.options) {
                            Ok(i) => interfaces.push(i),
                            Err(e) => return Some(Err(e)),
                        }
                        continue;
                    }
                    Ok(Block::SectionHeader(_)) => {
                        // A new section numbers its interfaces afresh.
                        interfaces.clear();
                        continue;
                    }
                    Ok(Block::EnhancedPacket(p)) => {
                        // pcap-file keeps the raw 64-bit count in the Duration's nanoseconds.
                        (p.interface_id, p.timestamp.as_nanos() as u64, p.original_len, p.data.into_owned())
                    }
                    Ok(Block::SimplePacket(_)) => {
                        return Some(Err(format!("a simple packet block (no timestamp) after {at} frames")));
                    }
                    Ok(Block::Packet(p)) => (p.interface_id as u32, p.timestamp, p.original_len, p.data.into_owned()),
                    Ok(_) => continue,
                };
                let Some(i) = interfaces.get(iface as usize) else {
                    return Some(Err(format!("a packet of undeclared interface {iface} after {at} frames")));
                };
                let ts_ns = match i.ns(raw) {
                    Ok(t) => t,
                    Err(e) => return Some(Err(e)),
                };
                break CapturedFrame { ts_ns, link: i.link, wire_len, data };
            },
        };
        self.frames += 1;
        if f.data.len() > MAX_FRAME as usize || f.wire_len > MAX_FRAME {
            return Some(Err(format!(
                "frame {at} claims {} captured and {} wire bytes (more than {MAX_FRAME}): corrupt file",
                f.data.len(),
                f.wire_len
            )));
        }
        let first = *self.first_ts.get_or_insert(f.ts_ns);
        if f.ts_ns.abs_diff(first) >= super::trace::MAX_TIME_NS {
            return Some(Err(format!(
                "frame {at} is {} ns from the first: a capture may span less than 2^48 ns (about 78 h), \
                 the cores' timestamp width",
                f.ts_ns.abs_diff(first)
            )));
        }
        Some(Ok(CapturedFrame { wire_len: f.wire_len.max(f.data.len() as u32), ..f }))
    }

    /// The next frame's record or the reason it has none, counted in
    /// `counts`; `None` at the end; `Err` for a bad file.
    pub fn next_record(&mut self, counts: &mut ParseCounts) -> Option<Result<Result<FrameRecord, Unparsed>, String>> {
        Some(self.next_frame()?.map(|f| counts.count(parse_captured(f.ts_ns, f.link, &f.data, f.wire_len as usize))))
    }
}

/// Time resolution of a written pcapng interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    /// Classic pcap, little-endian, nanosecond timestamps.
    Pcap,
    /// pcapng, one Ethernet interface with nanosecond timestamps (`if_tsresol` 9).
    PcapNgNanos,
    /// pcapng, one Ethernet interface at the default microsecond resolution.
    PcapNgMicros,
}

/// Writes Ethernet frames `(time in ns, bytes)` as a capture file in `format`
/// (the tests' and the synthetic traces' captures).
pub fn write_capture(frames: &[(u64, Vec<u8>)], format: CaptureFormat) -> Vec<u8> {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    use pcap_file::pcapng::PcapNgWriter;
    use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
    use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
    use pcap_file::{DataLink, Endianness};
    use std::time::Duration;
    match format {
        CaptureFormat::Pcap => {
            let header = PcapHeader {
                ts_resolution: TsResolution::NanoSecond,
                endianness: Endianness::Little,
                snaplen: MAX_FRAME,
                ..Default::default()
            };
            let mut w = PcapWriter::with_header(Vec::new(), header).expect("writing to memory");
            for (t, f) in frames {
                w.write_packet(&PcapPacket::new(Duration::from_nanos(*t), f.len() as u32, f)).expect("a valid frame");
            }
            w.into_writer()
        }
        CaptureFormat::PcapNgNanos | CaptureFormat::PcapNgMicros => {
            let nanos = format == CaptureFormat::PcapNgNanos;
            let mut w = PcapNgWriter::new(Vec::new()).expect("writing to memory");
            let options = if nanos { vec![InterfaceDescriptionOption::IfTsResol(9)] } else { vec![] };
            let idb = InterfaceDescriptionBlock { linktype: DataLink::ETHERNET, snaplen: 0, options };
            w.write_pcapng_block(idb).expect("writing to memory");
            for (t, f) in frames {
                // The block holds the raw count of the interface's time units.
                let raw = if nanos { *t } else { *t / 1000 };
                let epb = EnhancedPacketBlock {
                    interface_id: 0,
                    timestamp: Duration::from_nanos(raw),
                    original_len: f.len() as u32,
                    data: f[..].into(),
                    options: vec![],
                };
                w.write_pcapng_block(epb).expect("writing to memory");
            }
            w.into_inner()
        }
    }
}
