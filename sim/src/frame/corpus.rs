//! Frames to exercise a parser with: every header variant the parser
//! understands and every way a frame can fail it, mixed the way a link
//! carries them (TCP connections with their handshakes, data and ACKs, DNS
//! queries and responses, IPv6, VLANs, runts, bad-FCS flags). The RTL
//! parser's vectors and the reference's tests draw from it.

use crate::prng::SplitMix64;

/// Shortest frame a MAC delivers (64 bytes on the wire less the FCS); a
/// shorter one is a runt.
pub const MIN_FRAME: usize = 60;

/// The Ethernet header with `tags` VLAN tags (the outer one 802.1ad when
/// there are two or more) before `ethertype`.
pub fn ethernet(tags: usize, ethertype: u16) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
    for t in 0..tags {
        let tpid: u16 = if t == 0 && tags > 1 { 0x88a8 } else { 0x8100 };
        f.extend_from_slice(&tpid.to_be_bytes());
        f.extend_from_slice(&(100 + t as u16).to_be_bytes());
    }
    f.extend_from_slice(&ethertype.to_be_bytes());
    f
}

/// An IPv4 packet: header with `options` (a multiple of 4 bytes), the
/// fragment field `frag` (flags and offset), then `payload`.
pub fn ipv4(src: u32, dst: u32, id: u16, tos: u8, options: &[u8], proto: u8, frag: u16, payload: &[u8]) -> Vec<u8> {
    let ihl = 20 + options.len();
    let total = (ihl + payload.len()) as u16;
    let mut h = vec![0x40 | (ihl / 4) as u8, tos];
    h.extend_from_slice(&total.to_be_bytes());
    h.extend_from_slice(&id.to_be_bytes());
    h.extend_from_slice(&frag.to_be_bytes());
    h.extend_from_slice(&[64, proto, 0, 0]);
    h.extend_from_slice(&src.to_be_bytes());
    h.extend_from_slice(&dst.to_be_bytes());
    h.extend_from_slice(options);
    let sum = h.chunks(2).fold(0u32, |a, w| a + u16::from_be_bytes([w[0], w[1]]) as u32);
    let sum = !(((sum & 0xffff) + (sum >> 16)) as u16);
    h[10..12].copy_from_slice(&sum.to_be_bytes());
    [h, payload.to_vec()].concat()
}

/// An IPv6 extension header in front of a packet: its kind, and for a
/// fragment header the fragment field, otherwise its length in 8-byte
/// units less one.
#[derive(Clone, Copy, Debug)]
pub enum Extension {
    /// Hop-by-hop (0), routing (43) or destination options (60), `units + 1` × 8 bytes.
    Options(u8, u8),
    /// Fragment header (44) with this offset-and-flags field.
    Fragment(u16),
}

/// An IPv6 packet with `exts` in front of `payload` of protocol `proto`.
pub fn ipv6(
    src: [u8; 16],
    dst: [u8; 16],
    label: u32,
    class: u8,
    exts: &[Extension],
    proto: u8,
    payload: &[u8],
) -> Vec<u8> {
    let mut chain = Vec::new();
    let mut next = proto;
    for e in exts.iter().rev() {
        let (kind, mut h) = match *e {
            Extension::Options(kind, units) => {
                let mut h = vec![0u8; (units as usize + 1) * 8];
                h[1] = units;
                (kind, h)
            }
            Extension::Fragment(field) => {
                let mut h = vec![0u8; 8];
                h[2..4].copy_from_slice(&field.to_be_bytes());
                (44, h)
            }
        };
        h[0] = next;
        h.extend_from_slice(&chain);
        chain = h;
        next = kind;
    }
    let word = 6u32 << 28 | (class as u32) << 20 | (label & 0xf_ffff);
    let mut h = word.to_be_bytes().to_vec();
    h.extend_from_slice(&((chain.len() + payload.len()) as u16).to_be_bytes());
    h.extend_from_slice(&[next, 64]);
    h.extend_from_slice(&src);
    h.extend_from_slice(&dst);
    [h, chain, payload.to_vec()].concat()
}

/// TCP flag bits.
pub const FIN: u8 = 0x01;
/// SYN.
pub const SYN: u8 = 0x02;
/// RST.
pub const RST: u8 = 0x04;
/// ACK.
pub const ACK: u8 = 0x10;

/// A TCP segment with `options_words` words of options and `data`.
pub fn tcp(sport: u16, dport: u16, seq: u32, ack: u32, flags: u8, options_words: u8, data: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&sport.to_be_bytes());
    h.extend_from_slice(&dport.to_be_bytes());
    h.extend_from_slice(&seq.to_be_bytes());
    h.extend_from_slice(&ack.to_be_bytes());
    h.extend_from_slice(&[(5 + options_words) << 4, flags, 0xff, 0xff, 0, 0, 0, 0]);
    h.extend(std::iter::repeat_n(1u8, 4 * options_words as usize));
    [h, data.to_vec()].concat()
}

/// A UDP datagram.
pub fn udp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&sport.to_be_bytes());
    h.extend_from_slice(&dport.to_be_bytes());
    h.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    h.extend_from_slice(&[0, 0]);
    [h, payload.to_vec()].concat()
}

/// A DNS message of `len` bytes (at least the 12-byte header): a query or a response.
pub fn dns(id: u16, response: bool, len: usize) -> Vec<u8> {
    let mut m = vec![0u8; len.max(12)];
    m[..2].copy_from_slice(&id.to_be_bytes());
    m[2] = if response { 0x81 } else { 0x01 };
    m[5] = 1;
    m
}

/// Pads a frame to [`MIN_FRAME`] bytes, as a MAC pads short frames.
pub fn padded(mut f: Vec<u8>) -> Vec<u8> {
    if f.len() < MIN_FRAME {
        f.resize(MIN_FRAME, 0);
    }
    f
}

/// Where the IP header of a frame built by [`ethernet`] starts.
fn l3_offset(f: &[u8]) -> usize {
    let mut at = 12;
    while matches!(u16::from_be_bytes([f[at], f[at + 1]]), 0x8100 | 0x88a8) {
        at += 4;
    }
    at + 2
}

/// One frame of a [`Corpus`]: its bytes and the MAC's bad-frame flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusFrame {
    /// The frame as the MAC delivers it (no FCS).
    pub bytes: Vec<u8>,
    /// The MAC flagged it bad (FCS error).
    pub bad: bool,
}

/// A stream of frames shaped like a link's traffic, drawn from a seed.
#[derive(Clone, Debug)]
pub struct Corpus {
    rng: SplitMix64,
    pending: std::collections::VecDeque<Vec<u8>>,
}

impl Corpus {
    /// The stream drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { rng: SplitMix64::new(seed), pending: Default::default() }
    }

    fn pick(&mut self, n: u64) -> u64 {
        self.rng.below(n)
    }

    fn addr6(&mut self) -> [u8; 16] {
        self.rng.next_u128().to_be_bytes()
    }

    /// The IP packet around `l4` (protocol `proto`), IPv4 or IPv6 at random,
    /// IPv4 sometimes with options, IPv6 sometimes with extension headers.
    fn ip(&mut self, proto: u8, l4: &[u8], src: u32, dst: u32, v6: bool) -> (u16, Vec<u8>) {
        if v6 {
            let exts: Vec<Extension> = match self.pick(10) {
                0 => vec![Extension::Options(0, self.pick(3) as u8)],
                1 => vec![Extension::Options(60, 0), Extension::Options(43, self.pick(2) as u8)],
                2 => vec![Extension::Fragment(0)],
                _ => vec![],
            };
            let (s, d) = (self.addr6(), self.addr6());
            let (mut s, mut d) = (s, d);
            s[12..].copy_from_slice(&src.to_be_bytes());
            d[12..].copy_from_slice(&dst.to_be_bytes());
            let label = self.pick(1 << 20) as u32;
            let class = self.pick(256) as u8;
            (0x86dd, ipv6(s, d, label, class, &exts, proto, l4))
        } else {
            let words = if self.rng.chance(1, 6) { 1 + self.pick(10) as usize } else { 0 };
            let options: Vec<u8> = (0..4 * words).map(|k| if k == 0 { 0x94 } else { 1 }).collect();
            let id = self.pick(1 << 16) as u16;
            let tos = self.pick(256) as u8;
            (0x0800, ipv4(src, dst, id, tos, &options, proto, 0x4000, l4))
        }
    }

    fn frame(&mut self, proto: u8, l4: &[u8], src: u32, dst: u32, v6: bool) -> Vec<u8> {
        let (ethertype, ip) = self.ip(proto, l4, src, dst, v6);
        let tags = [0, 0, 0, 0, 1, 1, 2][self.pick(7) as usize];
        padded([ethernet(tags, ethertype), ip].concat())
    }

    /// A TCP connection's frames: handshake, a request with data, its ACK,
    /// a response, the FINs and their ACKs (queued in order).
    fn connection(&mut self) {
        let (c, s) = (self.rng.next_u64() as u32, self.rng.next_u64() as u32);
        let (cp, sp) = (1024 + self.pick(60000) as u16, [80u16, 443, 22][self.pick(3) as usize]);
        let (a, b) = (self.rng.next_u64() as u32, self.rng.next_u64() as u32);
        let v6 = self.rng.chance(1, 4);
        let q = self.pick(600) as usize + 1;
        let r = self.pick(1400) as usize + 1;
        let opts = self.pick(3) as u8;
        let steps: Vec<(bool, u32, u32, u8, usize)> = vec![
            (true, a, 0, SYN, 0),
            (false, b, a + 1, SYN | ACK, 0),
            (true, a + 1, b + 1, ACK, 0),
            (true, a + 1, b + 1, ACK, q),
            (false, b + 1, a + 1 + q as u32, ACK, r),
            (true, a + 1 + q as u32, b + 1 + r as u32, ACK | FIN, 0),
            (false, b + 1 + r as u32, a + 2 + q as u32, ACK | FIN, 0),
            (true, a + 2 + q as u32, b + 2 + r as u32, ACK, 0),
        ];
        for (up, seq, ack, flags, len) in steps {
            let data = vec![0x5a; len];
            let seg =
                if up { tcp(cp, sp, seq, ack, flags, opts, &data) } else { tcp(sp, cp, seq, ack, flags, opts, &data) };
            let (src, dst) = if up { (c, s) } else { (s, c) };
            let f = self.frame(6, &seg, src, dst, v6);
            self.pending.push_back(f);
        }
    }

    /// A DNS query and its response.
    fn dns_exchange(&mut self) {
        let (c, s, id, port) =
            (self.rng.next_u64() as u32, 0x0808_0808, self.pick(1 << 16) as u16, 1024 + self.pick(60000) as u16);
        let v6 = self.rng.chance(1, 3);
        let q = udp(port, 53, &dns(id, false, 12 + self.pick(40) as usize));
        let r = udp(53, port, &dns(id, true, 12 + self.pick(200) as usize));
        let fq = self.frame(17, &q, c, s, v6);
        let fr = self.frame(17, &r, s, c, v6);
        self.pending.extend([fq, fr]);
    }

    /// A frame that is not a well-formed IP packet of the kinds above, or an odd one.
    fn odd(&mut self) -> Vec<u8> {
        let good = {
            let v6 = self.rng.chance(1, 2);
            let seg = tcp(1, 2, 3, 4, ACK, 0, &[7; 30]);
            self.frame(6, &seg, 10, 20, v6)
        };
        let l3 = l3_offset(&good);
        let v6 = good[l3] >> 4 == 6;
        let mut f = good.clone();
        match self.pick(16) {
            // ARP, LLDP: not IP.
            0 => {
                f = padded(
                    [ethernet(self.pick(2) as usize, [0x0806, 0x88cc][self.pick(2) as usize]), vec![0; 28]].concat(),
                )
            }
            // Three VLAN tags.
            1 => f = padded([ethernet(3, 0x0800), vec![0x45; 40]].concat()),
            // A runt or a frame cut anywhere in its headers.
            2 | 3 => f.truncate(1 + self.pick(l3 as u64 + 60) as usize),
            // A bad version.
            4 => f[l3] = (f[l3] & 0x0f) | [0x50, 0x70, 0x00][self.pick(3) as usize],
            // IPv4 header length below 5 words (IPv6: a bad version instead).
            5 => f[l3] = if v6 { 0x45 } else { 0x40 | self.pick(5) as u8 },
            // An IP length that claims more than the frame holds, or less than the header.
            6 => {
                let at = l3 + if v6 { 4 } else { 2 };
                let claim = if self.rng.chance(1, 2) { 1500 + self.pick(1000) as u16 } else { self.pick(20) as u16 };
                f[at..at + 2].copy_from_slice(&claim.to_be_bytes());
            }
            // A TCP data offset below 5 words.
            7 => {
                let l4 = l3 + if v6 { 40 } else { (f[l3] & 15) as usize * 4 };
                f[l4 + 12] = (self.pick(5) as u8) << 4;
            }
            // A UDP length below 8.
            8 => {
                f = self.frame(17, &udp(1, 2, &[0; 20]), 1, 2, v6);
                let l3 = l3_offset(&f);
                let l4 = l3 + if v6 { 40 } else { (f[l3] & 15) as usize * 4 };
                f[l4 + 4..l4 + 6].copy_from_slice(&(self.pick(8) as u16).to_be_bytes());
            }
            // Long IPv6 extension chains: three headers, or headers past the window.
            9 => {
                let exts = if self.rng.chance(1, 2) {
                    vec![Extension::Options(0, 0), Extension::Options(60, 0), Extension::Options(43, 0)]
                } else {
                    vec![Extension::Options(0, 3 + self.pick(8) as u8), Extension::Options(60, self.pick(4) as u8)]
                };
                f = padded(
                    [
                        ethernet(self.pick(3) as usize, 0x86dd),
                        ipv6([1; 16], [2; 16], 5, 0, &exts, 17, &udp(5, 6, &[0; 16])),
                    ]
                    .concat(),
                );
            }
            // Later and first IPv4 fragments.
            10 => {
                let frag = [0x2000u16, 0x0010, 0x2010][self.pick(3) as usize];
                f = padded(
                    [ethernet(0, 0x0800), ipv4(1, 2, 3, 0, &[], 6, frag, &tcp(1, 2, 3, 4, SYN, 0, &[]))].concat(),
                );
            }
            // An IPv6 fragment header, first or later.
            11 => {
                let field = [0x0001u16, 0x0008, 0x0009][self.pick(3) as usize];
                f = padded(
                    [
                        ethernet(1, 0x86dd),
                        ipv6(
                            [3; 16],
                            [4; 16],
                            7,
                            1,
                            &[Extension::Fragment(field)],
                            17,
                            &udp(1, 53, &dns(9, false, 12)),
                        ),
                    ]
                    .concat(),
                );
            }
            // ICMP and other protocols without ports.
            12 => {
                f = padded(
                    [ethernet(0, 0x0800), ipv4(1, 2, 3, 0, &[], [1u8, 47, 50][self.pick(3) as usize], 0, &[0; 30])]
                        .concat(),
                )
            }
            // A TCP RST; a bare header without data and flags.
            13 => {
                let seg = tcp(9, 10, 11, 12, [RST | ACK, 0][self.pick(2) as usize], 0, &[]);
                f = self.frame(6, &seg, 5, 6, v6);
            }
            // A jumbo frame.
            14 => {
                let seg = udp(7, 8, &vec![3; 3000 + self.pick(6000) as usize]);
                f = self.frame(17, &seg, 7, 8, v6);
            }
            // A header cut inside the transport header by the IP length.
            _ => {
                let at = l3 + if v6 { 4 } else { 2 };
                let keep = if v6 { self.pick(20) as u16 } else { (f[l3] & 15) as u16 * 4 + self.pick(20) as u16 };
                f[at..at + 2].copy_from_slice(&keep.to_be_bytes());
            }
        }
        f
    }

    /// The next frame.
    pub fn next_frame(&mut self) -> CorpusFrame {
        if self.pending.is_empty() {
            match self.pick(10) {
                0..=4 => self.connection(),
                5 | 6 => self.dns_exchange(),
                _ => {
                    let f = self.odd();
                    self.pending.push_back(f);
                }
            }
        }
        let bytes = self.pending.pop_front().unwrap();
        CorpusFrame { bytes, bad: self.rng.chance(1, 40) }
    }
}

/// A directed-random AXI4-Stream stimulus of `cycles` clocks for a parser of
/// `lanes` bytes a beat, drawn from `seed`: [`Corpus`] frames, one beat a
/// clock with idle clocks between frames and now and then inside one, random
/// bytes in the lanes `tkeep` leaves out and on idle clocks, a timestamp on
/// every beat (only the first beat's counts), bad-frame flags on beats before
/// the last (not read), a byte-rule break in one frame in 150, `m_ready`
/// low one clock in 16, clock 0 idle, a reset at clock 1 and another three
/// fifths into the run (inside a frame, as likely as not).
pub fn stimulus(lanes: usize, seed: u64, cycles: usize) -> Vec<super::FrameParserInputs> {
    use super::FrameParserInputs;
    let mut corpus = Corpus::new(seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_bea7);
    let all = super::cycle::lanes_mask(lanes);
    let mut out: Vec<FrameParserInputs> = Vec::with_capacity(cycles);
    let mut time = 1_000_000u64;
    let junk = |rng: &mut SplitMix64| {
        let mut d = [0u8; super::cycle::MAX_LANES];
        d[..lanes].iter_mut().for_each(|b| *b = rng.next_u64() as u8);
        d
    };
    let idle = |rng: &mut SplitMix64, time: u64| FrameParserInputs {
        tdata: junk(rng),
        tkeep: rng.next_u64() & all,
        tlast: rng.chance(1, 2),
        bad: rng.chance(1, 2),
        tuser_ts: rng.next_u64(),
        time_ns: time,
        m_ready: !rng.chance(1, 16),
        ..Default::default()
    };
    out.push(FrameParserInputs::default());
    out.push(FrameParserInputs { reset: true, m_ready: true, ..Default::default() });
    let middle = cycles * 3 / 5;
    while out.len() < cycles {
        let f = corpus.next_frame();
        let stamp = rng.next_u64();
        let beats = f.bytes.len().div_ceil(lanes).max(1);
        let breaks = rng.chance(1, 150);
        let broken_beat = rng.below(beats as u64) as usize;
        for _ in 0..if rng.chance(2, 5) { 1 + rng.below(4) } else { 0 } {
            time += 3 + rng.below(4);
            out.push(idle(&mut rng, time));
        }
        for b in 0..beats {
            if b > 0 && rng.chance(1, 25) {
                time += 3 + rng.below(4);
                out.push(idle(&mut rng, time));
            }
            time += 3 + rng.below(4);
            let last = b + 1 == beats;
            let chunk = &f.bytes[b * lanes..((b + 1) * lanes).min(f.bytes.len())];
            let mut tdata = junk(&mut rng);
            tdata[..chunk.len()].copy_from_slice(chunk);
            let mut tkeep = super::cycle::lanes_mask(chunk.len());
            if breaks && b == broken_beat {
                tkeep ^= 1 << rng.below(lanes as u64);
            }
            let mut i = FrameParserInputs {
                tvalid: true,
                tdata,
                tkeep,
                tlast: last,
                bad: if last { f.bad } else { rng.chance(1, 8) },
                tuser_ts: if b == 0 { stamp } else { rng.next_u64() },
                time_ns: time,
                m_ready: !rng.chance(1, 16),
                ..Default::default()
            };
            if out.len() == middle {
                i.reset = true;
            }
            out.push(i);
        }
    }
    out.truncate(cycles);
    out
}
