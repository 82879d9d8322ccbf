//! The host link's frames: register reads and writes over the UART, each
//! frame checked by a CRC, and the per-clock model of the board's bridge
//! between the UART's bytes and the engine's register bus, which
//! `netmeas-hdl`'s `RegBridge` equals every clock.
//!
//! **Frames** (bytes on the line; the CRC is CRC-16/CCITT-FALSE, polynomial
//! 0x1021, initial value 0xFFFF, sent high byte first, over every byte after
//! the sync byte):
//!
//! | frame | bytes |
//! |---|---|
//! | read request | `5A`, `01`, address (2, big-endian), CRC (2) |
//! | write request | `5A`, `02`, address (2), data (4, big-endian), CRC (2) |
//! | response | `A5`, status, data (4: the word read; 0 otherwise), CRC (2) |
//!
//! Status: 0 done, 1 the request's CRC failed, 2 unknown command, 3 the
//! register bus did not answer within [`LINK_BUS_WAIT`] clocks.
//!
//! **Bridge.** It hunts for `5A`, then takes the request's bytes; a gap of
//! more than `timeout` clocks inside a request drops it (counted as
//! truncated: the host sees no response and retries). A complete request
//! with a bad CRC is answered with status 1 and counted. A good read or
//! write strobes the bus for one clock and waits for `ack` (in that clock or
//! up to [`LINK_BUS_WAIT`] clocks later). While it executes and answers, it
//! takes no bytes (the UART receiver holds one and counts the rest as
//! overruns). A host never turns a corrupted frame into a value: every
//! response is CRC-checked too, and a bad or missing one is retried.

use super::uart::{UartConfig, UartRxCycle, UartRxInputs, UartTxCycle, UartTxInputs};
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// First byte of a request.
pub const LINK_REQUEST_SYNC: u8 = 0x5A;
/// First byte of a response.
pub const LINK_RESPONSE_SYNC: u8 = 0xA5;
/// Command byte of a read.
pub const LINK_CMD_READ: u8 = 0x01;
/// Command byte of a write.
pub const LINK_CMD_WRITE: u8 = 0x02;
/// Bytes of a response.
pub const LINK_RESPONSE_BYTES: usize = 8;
/// Clocks the bridge waits for the register bus's `ack` after the strobe's clock.
pub const LINK_BUS_WAIT: u32 = 255;

/// CRC-16/CCITT-FALSE of `crc` followed by `byte`.
pub fn crc16_update(crc: u16, byte: u8) -> u16 {
    let mut c = crc ^ (byte as u16) << 8;
    for _ in 0..8 {
        c = if c & 0x8000 != 0 { c << 1 ^ 0x1021 } else { c << 1 };
    }
    c
}

/// CRC-16/CCITT-FALSE of `bytes`.
pub fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0xFFFF, |c, &b| crc16_update(c, b))
}

/// What a response reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkStatus {
    /// The read or write was done.
    Done = 0,
    /// The request's CRC failed.
    BadCrc = 1,
    /// The command byte is neither read nor write.
    BadCommand = 2,
    /// The register bus did not answer.
    BusTimeout = 3,
}

impl LinkStatus {
    /// The status of a response's status byte, if it is one.
    pub fn from_byte(b: u8) -> Option<Self> {
        [Self::Done, Self::BadCrc, Self::BadCommand, Self::BusTimeout].into_iter().find(|s| *s as u8 == b)
    }
}

/// A register access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRequest {
    /// Read the register at the address.
    Read(u16),
    /// Write the word to the register at the address.
    Write(u16, u32),
}

impl LinkRequest {
    /// The request's frame.
    pub fn encode(&self) -> Vec<u8> {
        let mut f = vec![LINK_REQUEST_SYNC];
        match *self {
            Self::Read(a) => {
                f.push(LINK_CMD_READ);
                f.extend(a.to_be_bytes());
            }
            Self::Write(a, d) => {
                f.push(LINK_CMD_WRITE);
                f.extend(a.to_be_bytes());
                f.extend(d.to_be_bytes());
            }
        }
        let c = crc16(&f[1..]);
        f.extend(c.to_be_bytes());
        f
    }
}

/// Why a response was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Fewer than [`LINK_RESPONSE_BYTES`] bytes came back in time.
    Truncated(usize),
    /// The first byte is not [`LINK_RESPONSE_SYNC`].
    BadSync(u8),
    /// The response's CRC failed.
    BadCrc,
    /// The status byte is not a known status.
    BadStatus(u8),
    /// The bridge answered with a status other than done.
    Refused(LinkStatus),
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Truncated(n) => write!(f, "response truncated: {n} of {LINK_RESPONSE_BYTES} bytes"),
            Self::BadSync(b) => write!(f, "response starts with 0x{b:02x}, not 0x{LINK_RESPONSE_SYNC:02x}"),
            Self::BadCrc => write!(f, "response CRC failed"),
            Self::BadStatus(b) => write!(f, "unknown response status 0x{b:02x}"),
            Self::Refused(s) => write!(f, "the board refused the request: {s:?}"),
        }
    }
}

/// Checks a response and returns its data word (the status must be done).
pub fn decode_response(bytes: &[u8]) -> Result<u32, LinkError> {
    if bytes.len() < LINK_RESPONSE_BYTES {
        return Err(LinkError::Truncated(bytes.len()));
    }
    let r = &bytes[..LINK_RESPONSE_BYTES];
    if r[0] != LINK_RESPONSE_SYNC {
        return Err(LinkError::BadSync(r[0]));
    }
    if crc16(&r[1..]) != 0 {
        return Err(LinkError::BadCrc);
    }
    match LinkStatus::from_byte(r[1]) {
        None => Err(LinkError::BadStatus(r[1])),
        Some(LinkStatus::Done) => Ok(u32::from_be_bytes([r[2], r[3], r[4], r[5]])),
        Some(s) => Err(LinkError::Refused(s)),
    }
}

/// Parameters of the bridge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BridgeConfig {
    /// Clocks without a byte after which a request in progress is dropped (1..2^32).
    pub timeout_clocks: u64,
}

impl Default for BridgeConfig {
    fn default() -> Self {
        // 20 ms at 50 MHz: longer than a USB serial adapter's gaps inside one write.
        Self { timeout_clocks: 1_000_000 }
    }
}

impl BridgeConfig {
    /// Checks the timeout.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.timeout_clocks == 0 || self.timeout_clocks >= 1 << 32 {
            return Err(ConfigError::new(
                "bridge.timeout_clocks",
                format!("{} is not in 1..2^32", self.timeout_clocks),
            ));
        }
        Ok(())
    }
}

/// Inputs of the bridge in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BridgeInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// A received byte is offered.
    pub rx_valid: bool,
    /// The byte.
    pub rx_data: u8,
    /// The transmitter takes the presented byte.
    pub tx_ready: bool,
    /// The register bus answers (in the strobe's clock or later).
    pub bus_ack: bool,
    /// The word read (with `bus_ack`).
    pub bus_rdata: u32,
}

/// Outputs of the bridge in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BridgeOutputs {
    /// A received byte offered now is taken.
    pub rx_ready: bool,
    /// A response byte is presented.
    pub tx_valid: bool,
    /// The byte.
    pub tx_data: u8,
    /// Read strobe (one clock).
    pub bus_re: bool,
    /// Write strobe (one clock).
    pub bus_we: bool,
    /// Register address.
    pub bus_addr: u16,
    /// Word to write.
    pub bus_wdata: u32,
    /// Requests answered with a CRC error (saturating).
    pub crc_errors: u16,
    /// Requests dropped by the timeout (saturating).
    pub truncated: u16,
}

/// Where the bridge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BridgeState {
    Hunt,
    /// `n` bytes after the sync byte received.
    Receive {
        n: u8,
    },
    /// The bus access, `wait` clocks after the strobe.
    Execute {
        wait: u32,
    },
    /// Response byte `idx` presented.
    Respond {
        idx: u8,
    },
}

/// Per-clock model of the bridge.
#[derive(Clone, Debug)]
pub struct BridgeCycle {
    timeout: u32,
    state: BridgeState,
    crc: u16,
    cmd: u8,
    addr: u16,
    wdata: u32,
    rdata: u32,
    status: u8,
    timer: u32,
    crc_errors: u16,
    truncated: u16,
}

impl BridgeCycle {
    /// A bridge hunting for a request (`cfg` validated).
    pub fn new(cfg: &BridgeConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(Self::idle(cfg.timeout_clocks as u32))
    }

    fn idle(timeout: u32) -> Self {
        Self {
            timeout,
            state: BridgeState::Hunt,
            crc: 0,
            cmd: 0,
            addr: 0,
            wdata: 0,
            rdata: 0,
            status: 0,
            timer: 0,
            crc_errors: 0,
            truncated: 0,
        }
    }

    /// The response byte `idx`.
    fn response_byte(&self, idx: u8) -> u8 {
        match idx {
            0 => LINK_RESPONSE_SYNC,
            1 => self.status,
            2..=5 => (self.rdata >> (8 * (5 - idx))) as u8,
            6 => (self.crc >> 8) as u8,
            _ => self.crc as u8,
        }
    }

    /// This clock's `rx_ready` (it depends on no input).
    pub fn rx_ready(&self) -> bool {
        matches!(self.state, BridgeState::Hunt | BridgeState::Receive { .. })
    }

    /// One clock: the outputs before the edge, then the edge.
    pub fn step(&mut self, i: &BridgeInputs) -> BridgeOutputs {
        let strobe = matches!(self.state, BridgeState::Execute { wait: 0 });
        let o = BridgeOutputs {
            rx_ready: self.rx_ready(),
            tx_valid: matches!(self.state, BridgeState::Respond { .. }),
            tx_data: match self.state {
                BridgeState::Respond { idx } => self.response_byte(idx),
                _ => 0,
            },
            bus_re: strobe && self.cmd == LINK_CMD_READ,
            bus_we: strobe && self.cmd == LINK_CMD_WRITE,
            bus_addr: self.addr,
            bus_wdata: self.wdata,
            crc_errors: self.crc_errors,
            truncated: self.truncated,
        };
        if i.reset {
            *self = Self::idle(self.timeout);
            return o;
        }
        let byte = i.rx_valid && o.rx_ready;
        match self.state {
            BridgeState::Hunt => {
                if byte && i.rx_data == LINK_REQUEST_SYNC {
                    self.state = BridgeState::Receive { n: 0 };
                    self.crc = 0xFFFF;
                    self.timer = 0;
                }
            }
            BridgeState::Receive { n } => {
                if byte {
                    let b = i.rx_data;
                    self.crc = crc16_update(self.crc, b);
                    self.timer = 0;
                    match n {
                        0 => self.cmd = b,
                        1 => self.addr = (b as u16) << 8 | self.addr & 0xFF,
                        2 => self.addr = self.addr & 0xFF00 | b as u16,
                        3..=6 => self.wdata = self.wdata << 8 | b as u32,
                        _ => {}
                    }
                    let len = if self.cmd == LINK_CMD_WRITE { 9 } else { 5 };
                    if n + 1 < len {
                        self.state = BridgeState::Receive { n: n + 1 };
                    } else if self.crc != 0 {
                        self.crc_errors = self.crc_errors.saturating_add(1);
                        self.respond(LinkStatus::BadCrc);
                    } else if self.cmd == LINK_CMD_READ || self.cmd == LINK_CMD_WRITE {
                        self.state = BridgeState::Execute { wait: 0 };
                        self.rdata = 0;
                    } else {
                        self.respond(LinkStatus::BadCommand);
                    }
                } else if self.timer + 1 == self.timeout {
                    self.truncated = self.truncated.saturating_add(1);
                    self.state = BridgeState::Hunt;
                } else {
                    self.timer += 1;
                }
            }
            BridgeState::Execute { wait } => {
                if i.bus_ack {
                    if self.cmd == LINK_CMD_READ {
                        self.rdata = i.bus_rdata;
                    }
                    self.respond(LinkStatus::Done);
                } else if wait == LINK_BUS_WAIT {
                    self.respond(LinkStatus::BusTimeout);
                } else {
                    self.state = BridgeState::Execute { wait: wait + 1 };
                }
            }
            BridgeState::Respond { idx } => {
                if i.tx_ready {
                    if (1..=5).contains(&idx) {
                        self.crc = crc16_update(self.crc, self.response_byte(idx));
                    }
                    self.state = if idx == 7 { BridgeState::Hunt } else { BridgeState::Respond { idx: idx + 1 } };
                }
            }
        }
        o
    }

    /// Starts the response with `status` (the data word is `rdata`: 0 unless a read was done).
    fn respond(&mut self, status: LinkStatus) {
        if status != LinkStatus::Done {
            self.rdata = 0;
        }
        self.status = status as u8;
        self.crc = 0xFFFF;
        self.state = BridgeState::Respond { idx: 0 };
    }
}

/// Parameters of the host link's board side: the UART and the bridge.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// Clock and baud rate.
    pub uart: UartConfig,
    /// Request timeout.
    pub bridge: BridgeConfig,
}

impl LinkConfig {
    /// Checks both parts, naming the first bad field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.uart.validate()?;
        self.bridge.validate()
    }

    /// The exported top's Verilog module name: clocks per bit and timeout.
    pub fn top_name(&self) -> String {
        format!("netmeas_link_d{}_t{}", self.uart.divisor(), self.bridge.timeout_clocks)
    }
}

/// Inputs of the link's board side in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// The serial line from the host.
    pub rx: bool,
    /// The register bus answers.
    pub bus_ack: bool,
    /// The word read (with `bus_ack`).
    pub bus_rdata: u32,
}

/// Outputs of the link's board side in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkOutputs {
    /// The serial line to the host.
    pub tx: bool,
    /// Read strobe.
    pub bus_re: bool,
    /// Write strobe.
    pub bus_we: bool,
    /// Register address.
    pub bus_addr: u16,
    /// Word to write.
    pub bus_wdata: u32,
    /// The receiver's framing errors.
    pub frame_errors: u16,
    /// The receiver's overruns.
    pub overruns: u16,
    /// Requests answered with a CRC error.
    pub crc_errors: u16,
    /// Requests dropped by the timeout.
    pub truncated: u16,
}

/// Per-clock model of the link's board side: the UART receiver's bytes into
/// the bridge, the bridge's bytes into the UART transmitter, each block's
/// `ready` taken from its registers (as `netmeas-hdl`'s `LinkTop` wires them).
#[derive(Clone, Debug)]
pub struct LinkCycle {
    rx: UartRxCycle,
    bridge: BridgeCycle,
    tx: UartTxCycle,
}

impl LinkCycle {
    /// The link's board side for `cfg` (validated).
    pub fn new(cfg: &LinkConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(Self {
            rx: UartRxCycle::new(&cfg.uart)?,
            bridge: BridgeCycle::new(&cfg.bridge)?,
            tx: UartTxCycle::new(&cfg.uart)?,
        })
    }

    /// One clock: the outputs before the edge, then the edge.
    pub fn step(&mut self, i: &LinkInputs) -> LinkOutputs {
        let tx_ready = self.tx.ready();
        let r = self.rx.step(&UartRxInputs { reset: i.reset, rx: i.rx, ready: self.bridge.rx_ready() });
        let b = self.bridge.step(&BridgeInputs {
            reset: i.reset,
            rx_valid: r.valid,
            rx_data: r.data,
            tx_ready,
            bus_ack: i.bus_ack,
            bus_rdata: i.bus_rdata,
        });
        let t = self.tx.step(&UartTxInputs { reset: i.reset, valid: b.tx_valid, data: b.tx_data });
        LinkOutputs {
            tx: t.tx,
            bus_re: b.bus_re,
            bus_we: b.bus_we,
            bus_addr: b.bus_addr,
            bus_wdata: b.bus_wdata,
            frame_errors: r.frame_errors,
            overruns: r.overruns,
            crc_errors: b.crc_errors,
            truncated: b.truncated,
        }
    }
}

/// A host's request as the link's stimulus draws it (the co-simulation and
/// the shipped testbench): a read or a write of one of the first eight
/// registers, with one bit flipped when `flip` (a CRC error) and cut short
/// when `cut` (a truncated frame); with the clocks the host then stays
/// silent: past the bridge's timeout after a cut frame, otherwise room for
/// the 8-byte response.
pub fn stimulus_request(rng: &mut crate::prng::SplitMix64, cfg: &LinkConfig, flip: bool, cut: bool) -> (Vec<u8>, u64) {
    let a = rng.below(8) as u16;
    let mut bytes = if rng.chance(1, 2) {
        LinkRequest::Read(a).encode()
    } else {
        LinkRequest::Write(a, rng.next_u64() as u32).encode()
    };
    if flip {
        let j = rng.below(bytes.len() as u64) as usize;
        bytes[j] ^= 1 << rng.below(8);
    }
    let pause = if cut {
        bytes.truncate(1 + rng.below(bytes.len() as u64 - 1) as usize);
        cfg.bridge.timeout_clocks + rng.below(200)
    } else {
        // 8 bytes of response, 80 bit times, and some.
        (90 + rng.below(40)) * cfg.uart.divisor()
    };
    (bytes, pause)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    #[test]
    fn crc_matches_the_standard_check_value_and_frames_check_to_zero() {
        // CRC-16/CCITT-FALSE of "123456789" is 0x29B1.
        assert_eq!(crc16(b"123456789"), 0x29B1);
        let f = LinkRequest::Write(0x1234, 0xDEAD_BEEF).encode();
        assert_eq!(f.len(), 10);
        assert_eq!(&f[..8], &[0x5A, 0x02, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF]);
        assert_eq!(crc16(&f[1..]), 0);
        assert_eq!(LinkRequest::Read(7).encode().len(), 6);
    }

    /// A bus access in progress: clocks since the strobe, write, address, word.
    type Access = (u32, bool, u16, u32);

    /// Feeds `bytes` into a bridge one per clock (a gap of `gap` clocks after
    /// each), answering the bus from `regs` `ack_delay` clocks after the
    /// strobe, and returns the response bytes.
    fn exchange(b: &mut BridgeCycle, bytes: &[u8], gap: u32, regs: &mut [u32; 16], ack_delay: u32) -> Vec<u8> {
        let (mut out, mut k, mut wait, mut access) = (Vec::new(), 0, 0, None::<Access>);
        for _ in 0..10_000 {
            let valid = k < bytes.len() && wait == 0;
            let ack = access.is_some_and(|(c, ..)| c == ack_delay);
            let o = b.step(&BridgeInputs {
                reset: false,
                rx_valid: valid,
                rx_data: bytes.get(k).copied().unwrap_or(0),
                tx_ready: true,
                bus_ack: ack,
                bus_rdata: access.map_or(0, |(_, _, a, _)| regs[a as usize % 16]),
            });
            access = match access {
                Some((_, true, a, d)) if ack => {
                    regs[a as usize % 16] = d;
                    None
                }
                Some(_) if ack => None,
                Some((c, w, a, d)) => Some((c + 1, w, a, d)),
                None => None,
            };
            if o.bus_re || o.bus_we {
                access = Some((1, o.bus_we, o.bus_addr, o.bus_wdata));
            }
            if valid && o.rx_ready {
                k += 1;
                wait = gap;
            } else {
                wait = wait.saturating_sub(1);
            }
            if o.tx_valid {
                out.push(o.tx_data);
                if out.len() == LINK_RESPONSE_BYTES {
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn requests_are_answered_and_bad_ones_refused() {
        let mut rng = SplitMix64::new(3);
        let mut regs = [0u32; 16];
        let mut b = BridgeCycle::new(&BridgeConfig { timeout_clocks: 50 }).unwrap();
        for round in 0..200 {
            let a = rng.below(16) as u16;
            let v = rng.next_u64() as u32;
            let delay = 1 + rng.below(5) as u32;
            let r = exchange(&mut b, &LinkRequest::Write(a, v).encode(), round % 3, &mut regs, delay);
            assert_eq!(decode_response(&r), Ok(0), "round {round}");
            assert_eq!(regs[a as usize], v);
            let r = exchange(&mut b, &LinkRequest::Read(a).encode(), 0, &mut regs, delay);
            assert_eq!(decode_response(&r), Ok(v));
        }
        // A flipped bit in a request: status 1, counted, nothing written.
        let before = regs;
        let mut f = LinkRequest::Write(3, 0x0BAD_F00D).encode();
        f[5] ^= 0x10;
        let r = exchange(&mut b, &f, 0, &mut regs, 1);
        assert_eq!(decode_response(&r), Err(LinkError::Refused(LinkStatus::BadCrc)));
        assert_eq!((regs, b.crc_errors), (before, 1));
        // An unknown command with a good CRC: status 2.
        let mut f = vec![0x5A, 0x07, 0x00, 0x01];
        let c = crc16(&f[1..]);
        f.extend(c.to_be_bytes());
        assert_eq!(
            decode_response(&exchange(&mut b, &f, 0, &mut regs, 1)),
            Err(LinkError::Refused(LinkStatus::BadCommand))
        );
        // No ack: status 3 after the bus wait.
        let r = exchange(&mut b, &LinkRequest::Read(1).encode(), 0, &mut regs, 10_000);
        assert_eq!(decode_response(&r), Err(LinkError::Refused(LinkStatus::BusTimeout)));
        // A request cut short: no response, counted once the timeout passes; the next request works.
        let f = LinkRequest::Write(2, 5).encode();
        assert!(exchange(&mut b, &f[..6], 0, &mut regs, 1).is_empty());
        assert_eq!(b.truncated, 1);
        let r = exchange(&mut b, &LinkRequest::Read(2).encode(), 0, &mut regs, 1);
        assert_eq!(decode_response(&r), Ok(before[2]));
    }

    #[test]
    fn corrupted_responses_are_never_accepted() {
        let good = {
            let mut r = vec![LINK_RESPONSE_SYNC, 0, 0x12, 0x34, 0x56, 0x78];
            let c = crc16(&r[1..]);
            r.extend(c.to_be_bytes());
            r
        };
        assert_eq!(decode_response(&good), Ok(0x1234_5678));
        for bit in 0..64 {
            let mut r = good.clone();
            r[bit / 8] ^= 1 << (bit % 8);
            assert!(decode_response(&r).is_err(), "bit {bit}");
        }
        for n in 0..LINK_RESPONSE_BYTES {
            assert_eq!(decode_response(&good[..n]), Err(LinkError::Truncated(n)));
        }
        assert!(BridgeConfig { timeout_clocks: 0 }.validate().is_err());
    }
}
