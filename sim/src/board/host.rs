//! The host's side of the link: register reads and writes with retries over
//! any byte link ([`ByteLink`]: a serial port, or [`SimulatedBoard`], the
//! per-clock models of both UARTs and the bridge with a register file behind
//! it and a line that can flip bits). A response is used only when its sync
//! byte, length, CRC and status are right; a missing, cut or corrupted
//! response, or a request the board saw corrupted, is retried, so a noisy
//! line costs time, never a wrong value.

use super::link::{
    LINK_RESPONSE_BYTES, LINK_RESPONSE_SYNC, LinkConfig, LinkCycle, LinkError, LinkInputs, LinkOutputs, LinkRequest,
    LinkStatus, decode_response,
};
use super::uart::{UartRxCycle, UartRxInputs, UartTxCycle, UartTxInputs};
use crate::prng::SplitMix64;

/// A byte link to a board.
pub trait ByteLink {
    /// Sends `bytes` (one whole request) and opens its response window: it
    /// ends one response timeout of the link from now.
    fn send(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// Returns the bytes received until `n` have come or the response window
    /// has ended (then fewer; none once it has ended). Noise on the line can
    /// bring bytes, but never keep a request waiting past its window.
    fn receive(&mut self, n: usize) -> Result<Vec<u8>, String>;
    /// Drops whatever has been received and not read (a late response),
    /// within a bounded time however noisy the line.
    fn discard_input(&mut self) -> Result<(), String>;
}

/// What a [`LinkHost`] has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Requests completed.
    pub requests: u64,
    /// Attempts repeated after a bad or missing response.
    pub retries: u64,
    /// Attempts that failed on a CRC: the response's, or the request's as
    /// the board reported it (bit errors on the line, either way).
    pub crc_errors: u64,
    /// Attempts whose response did not come, or came cut or unreadable
    /// (no sync byte, an unknown status), within the response window.
    pub lost_responses: u64,
}

impl LinkStats {
    /// What was done since `before` (the stats of the same host, taken earlier).
    pub fn since(&self, before: &LinkStats) -> LinkStats {
        LinkStats {
            requests: self.requests - before.requests,
            retries: self.retries - before.retries,
            crc_errors: self.crc_errors - before.crc_errors,
            lost_responses: self.lost_responses - before.lost_responses,
        }
    }
}

/// Called on every retry with the stats so far and why the attempt before failed.
pub type RetryObserver = Box<dyn FnMut(&LinkStats, &str)>;

/// Register access over a [`ByteLink`] with up to `attempts` tries a request,
/// each bounded by the link's response window: a request ends, answered or
/// given up with an error, within `attempts` windows and discards.
pub struct LinkHost<L> {
    link: L,
    attempts: u32,
    stats: LinkStats,
    on_retry: Option<RetryObserver>,
}

impl<L: ByteLink> LinkHost<L> {
    /// A host on `link` trying each request up to `attempts` times (at least 1).
    pub fn new(link: L, attempts: u32) -> Self {
        Self { link, attempts: attempts.max(1), stats: LinkStats::default(), on_retry: None }
    }

    /// Calls `f` on every retry (to show retries as they happen).
    pub fn on_retry(&mut self, f: RetryObserver) {
        self.on_retry = Some(f);
    }

    /// Reads the register at `addr`.
    pub fn read(&mut self, addr: u16) -> Result<u32, String> {
        self.transact(LinkRequest::Read(addr))
    }

    /// Writes `value` to the register at `addr`. A retried write is written
    /// again: the engine's registers are plain stores, so that is harmless.
    pub fn write(&mut self, addr: u16, value: u32) -> Result<(), String> {
        self.transact(LinkRequest::Write(addr, value)).map(|_| ())
    }

    /// What the host has done so far.
    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// The link.
    pub fn link_mut(&mut self) -> &mut L {
        &mut self.link
    }

    fn transact(&mut self, req: LinkRequest) -> Result<u32, String> {
        let frame = req.encode();
        let mut last = String::new();
        for attempt in 0..self.attempts {
            if attempt > 0 {
                self.stats.retries += 1;
                if let Some(f) = self.on_retry.as_mut() {
                    f(&self.stats, &format!("{req:?}: {last}"));
                }
                self.link.discard_input()?;
            }
            self.link.send(&frame)?;
            match self.response()? {
                Ok(v) => {
                    self.stats.requests += 1;
                    return Ok(v);
                }
                // The board answered, and will answer the same again: no retry.
                Err(e @ LinkError::Refused(LinkStatus::BadCommand | LinkStatus::BusTimeout)) => {
                    return Err(format!("{req:?}: {e}"));
                }
                Err(e) => {
                    match e {
                        LinkError::BadCrc | LinkError::Refused(LinkStatus::BadCrc) => self.stats.crc_errors += 1,
                        _ => self.stats.lost_responses += 1,
                    }
                    last = e.to_string()
                }
            }
        }
        Err(format!("{req:?}: no good response in {} attempts (last: {last})", self.attempts))
    }

    /// The next good response within the response window, hunting for its
    /// sync byte: bytes before a sync byte (noise on an idle line) are
    /// skipped, and so is a sync byte whose frame fails its CRC. A refusal by
    /// the board is a response.
    fn response(&mut self) -> Result<Result<u32, LinkError>, String> {
        let mut buf: Vec<u8> = Vec::new();
        let mut last = LinkError::Truncated(0);
        loop {
            let skip = buf.iter().position(|&b| b == LINK_RESPONSE_SYNC).unwrap_or(buf.len());
            buf.drain(..skip);
            if buf.len() >= LINK_RESPONSE_BYTES {
                match decode_response(&buf) {
                    r @ (Ok(_) | Err(LinkError::Refused(_))) => return Ok(r),
                    Err(e) => {
                        last = e;
                        buf.remove(0);
                        continue;
                    }
                }
            }
            let got = self.link.receive(LINK_RESPONSE_BYTES - buf.len())?;
            if got.is_empty() {
                return Ok(Err(match last {
                    LinkError::Truncated(_) => LinkError::Truncated(buf.len()),
                    e => e,
                }));
            }
            buf.extend(got);
        }
    }
}

/// Runs `ops` random accesses to registers `0..regs` through `host` (half
/// writes of random words, half reads checked against the word last written
/// there, 0 at first) and returns the words written: the registers' expected
/// contents. The first error, or a read of a wrong value, is an error.
pub fn exercise_registers<L: ByteLink>(
    host: &mut LinkHost<L>,
    regs: usize,
    ops: usize,
    seed: u64,
) -> Result<Vec<u32>, String> {
    let mut rng = SplitMix64::new(seed);
    let mut want = vec![0u32; regs];
    for _ in 0..ops {
        let a = rng.below(regs as u64) as u16;
        if rng.chance(1, 2) {
            let v = rng.next_u64() as u32;
            host.write(a, v)?;
            want[a as usize] = v;
        } else {
            let got = host.read(a)?;
            if got != want[a as usize] {
                return Err(format!("register {a}: read 0x{got:08x}, last written 0x{:08x}", want[a as usize]));
            }
        }
    }
    Ok(want)
}

/// The board side of the link, one clock at a time: the per-clock model
/// [`LinkCycle`], or the RTL of it under a simulator.
pub trait LinkBoardSide {
    /// One clock: the outputs for these inputs.
    fn step(&mut self, i: &LinkInputs) -> LinkOutputs;
}

impl LinkBoardSide for LinkCycle {
    fn step(&mut self, i: &LinkInputs) -> LinkOutputs {
        LinkCycle::step(self, i)
    }
}

/// A board on a simulated serial line, one clock at a time: the line
/// from the host in, the line to the host out.
pub trait SerialSide {
    /// One clock.
    fn clock(&mut self, rx: bool) -> bool;
}

/// The link's board side `B` with a register file on its bus that answers
/// `ack_delay` clocks after a strobe (addresses at or above its size are
/// not answered: the bus times out).
pub struct BusBoard<B> {
    link: B,
    /// The registers.
    pub regs: Vec<u32>,
    ack_delay: u64,
    access: Option<(u64, bool, u16, u32)>,
}

impl<B: LinkBoardSide> SerialSide for BusBoard<B> {
    fn clock(&mut self, rx: bool) -> bool {
        let ack = self.access.is_some_and(|(c, ..)| c == self.ack_delay);
        let rdata = self.access.map_or(0, |(_, _, a, _)| self.regs.get(a as usize).copied().unwrap_or(0));
        let b = self.link.step(&LinkInputs { reset: false, rx, bus_ack: ack, bus_rdata: rdata });
        self.access = match self.access {
            Some((_, true, a, d)) if ack => {
                if let Some(r) = self.regs.get_mut(a as usize) {
                    *r = d;
                }
                None
            }
            Some(_) if ack => None,
            Some((c, w, a, d)) => Some((c + 1, w, a, d)),
            None => None,
        };
        if b.bus_re || b.bus_we {
            // Only registers that exist answer.
            self.access = ((b.bus_addr as usize) < self.regs.len()).then_some((1, b.bus_we, b.bus_addr, b.bus_wdata));
        }
        b.tx
    }
}

/// A simulated serial line: the host's UART models, the line in both
/// directions (each bit time may be flipped) and the board `S` on it.
pub struct SimulatedLine<S> {
    host_tx: UartTxCycle,
    host_rx: UartRxCycle,
    /// The board.
    pub board: S,
    to_send: std::collections::VecDeque<u8>,
    received: std::collections::VecDeque<u8>,
    /// Clocks of a response window.
    timeout_clocks: u64,
    /// The clock the open response window ends at.
    window_end: u64,
    /// Probability (parts per 2^32) that a clock of the line is inverted, each direction.
    flip: u32,
    flip_left: [u64; 2],
    rng: SplitMix64,
    divisor: u64,
    /// Clocks run.
    pub clocks: u64,
}

/// The per-clock link models (or their RTL, `B`) with a register file on the bus.
pub type SimulatedBoard<B = LinkCycle> = SimulatedLine<BusBoard<B>>;

impl SimulatedBoard<LinkCycle> {
    /// The per-clock models at `cfg`'s rates with `regs` registers; bit errors start off.
    pub fn new(cfg: &LinkConfig, regs: usize, ack_delay: u64) -> Result<Self, String> {
        let board = LinkCycle::new(cfg).map_err(|e| e.to_string())?;
        Self::with_board(board, cfg, regs, ack_delay)
    }
}

impl<B: LinkBoardSide> SimulatedBoard<B> {
    /// The board side `board` (built for `cfg`) with `regs` registers; bit errors start off.
    pub fn with_board(board: B, cfg: &LinkConfig, regs: usize, ack_delay: u64) -> Result<Self, String> {
        SimulatedLine::on_line(BusBoard { link: board, regs: vec![0; regs], ack_delay, access: None }, cfg)
    }
}

impl<S: SerialSide> SimulatedLine<S> {
    /// `board`, whose link is built for `cfg`, on a clean line.
    pub fn on_line(board: S, cfg: &LinkConfig) -> Result<Self, String> {
        let (uart, bridge) = (&cfg.uart, &cfg.bridge);
        let divisor = uart.divisor();
        Ok(Self {
            host_tx: UartTxCycle::new(uart).map_err(|e| e.to_string())?,
            host_rx: UartRxCycle::new(uart).map_err(|e| e.to_string())?,
            board,
            to_send: Default::default(),
            received: Default::default(),
            // A response's 8 bytes, the bus wait and the bridge's timeout, with room.
            timeout_clocks: 2 * (10 * divisor * LINK_RESPONSE_BYTES as u64 + 300) + bridge.timeout_clocks,
            flip: 0,
            flip_left: [0; 2],
            rng: SplitMix64::new(1),
            divisor,
            clocks: 0,
            window_end: 0,
        })
    }

    /// Each bit time of the line, in either direction, is inverted with
    /// probability `per_bit` (its clocks from a random one to its end).
    pub fn set_bit_errors(&mut self, per_bit: f64, seed: u64) {
        self.flip = ((per_bit / self.divisor as f64) * 2f64.powi(32)) as u32;
        self.rng = SplitMix64::new(seed);
    }

    fn line(&mut self, dir: usize, level: bool) -> bool {
        if self.flip_left[dir] == 0 && (self.rng.next_u64() as u32) < self.flip {
            self.flip_left[dir] = 1 + self.rng.below(self.divisor);
        }
        let out = level ^ (self.flip_left[dir] > 0);
        self.flip_left[dir] = self.flip_left[dir].saturating_sub(1);
        out
    }

    /// One clock of the whole link.
    fn clock(&mut self) {
        // Host → board.
        let next = self.to_send.front().copied();
        let t = self.host_tx.step(&UartTxInputs { reset: false, valid: next.is_some(), data: next.unwrap_or(0) });
        if next.is_some() && t.ready {
            self.to_send.pop_front();
        }
        let down = self.line(0, t.tx);
        let tx = self.board.clock(down);
        // Board → host.
        let up = self.line(1, tx);
        let h = self.host_rx.step(&UartRxInputs { reset: false, rx: up, ready: true });
        if h.valid {
            self.received.push_back(h.data);
        }
        self.clocks += 1;
    }

    /// Runs `n` clocks with nothing sent (the board working on its own).
    pub fn idle(&mut self, n: u64) {
        for _ in 0..n {
            self.clock();
        }
    }
}

impl<S: SerialSide> ByteLink for SimulatedLine<S> {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.to_send.extend(bytes);
        self.window_end = self.clocks + self.timeout_clocks;
        Ok(())
    }

    fn receive(&mut self, n: usize) -> Result<Vec<u8>, String> {
        while self.received.len() < n && self.clocks < self.window_end {
            self.clock();
        }
        let k = n.min(self.received.len());
        Ok(self.received.drain(..k).collect())
    }

    fn discard_input(&mut self) -> Result<(), String> {
        // Until the line from the board has been quiet for two frames, or
        // for at most one response window on a line noisy enough to never be.
        let end = self.clocks + self.timeout_clocks;
        while self.clocks < end {
            let before = self.received.len();
            for _ in 0..20 * self.divisor {
                self.clock();
            }
            if self.received.len() == before {
                break;
            }
        }
        self.received.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::link::BridgeConfig;
    use crate::board::uart::UartConfig;

    fn board(baud: u32, regs: usize) -> SimulatedBoard {
        let cfg = LinkConfig {
            uart: UartConfig { clock_hz: 50_000_000, baud },
            bridge: BridgeConfig { timeout_clocks: 20_000 },
        };
        SimulatedBoard::new(&cfg, regs, 3).unwrap()
    }

    #[test]
    fn a_clean_line_reads_back_every_write_and_refusals_are_errors() {
        let mut host = LinkHost::new(board(3_000_000, 64), 3);
        for a in 0..64u16 {
            host.write(a, (0x0101_0101 * a as u32) ^ 0xA5A5_0000).unwrap();
        }
        for a in 0..64u16 {
            assert_eq!(host.read(a).unwrap(), (0x0101_0101 * a as u32) ^ 0xA5A5_0000);
        }
        assert_eq!(host.stats(), LinkStats { requests: 128, ..LinkStats::default() });
        // A register that does not exist: the bus times out, reported at once.
        let e = host.read(64).unwrap_err();
        assert!(e.contains("BusTimeout"), "{e}");
        assert_eq!(host.stats().retries, 0);
    }

    #[test]
    fn a_noisy_line_costs_retries_never_a_wrong_value() {
        let mut host = LinkHost::new(board(3_000_000, 16), 20);
        host.link_mut().set_bit_errors(2e-3, 7);
        let want = exercise_registers(&mut host, 16, 600, 9).unwrap();
        assert_eq!(host.link_mut().board.regs, want);
        // About one frame in 40 is hit at this bit-error rate.
        let s = host.stats();
        assert!(s.retries > 10, "{s:?}");
        // Every failed attempt is counted by its cause, and every one but a
        // request's last is retried (none was given up here).
        assert_eq!(s.crc_errors + s.lost_responses, s.retries, "{s:?}");
        assert!(s.crc_errors > 0 && s.lost_responses > 0, "{s:?}");
    }

    #[test]
    fn a_line_too_noisy_to_answer_is_given_up_within_the_attempts_windows() {
        // Noise brings a byte every few bit times: an attempt must still end
        // with its response window, and the discard with one more.
        let mut host = LinkHost::new(board(3_000_000, 16), 4);
        host.link_mut().set_bit_errors(0.3, 5);
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = seen.clone();
        host.on_retry(Box::new(move |s, why| log.borrow_mut().push((s.retries, why.to_string()))));
        let t0 = host.link_mut().clocks;
        let e = host.read(3).unwrap_err();
        assert!(e.contains("no good response in 4 attempts"), "{e}");
        let window = host.link_mut().timeout_clocks;
        let spent = host.link_mut().clocks - t0;
        assert!(spent <= 4 * window + 3 * window, "{spent} clocks for 4 attempts of {window}");
        let seen = seen.borrow();
        assert_eq!(seen.iter().map(|r| r.0).collect::<Vec<_>>(), vec![1, 2, 3], "{seen:?}");
        assert!(seen.iter().all(|r| r.1.starts_with("Read(3): ")), "{seen:?}");
    }

    #[test]
    fn register_reads_per_second() {
        // A read is 6 + 8 bytes on the line: about baud / 140 reads per second.
        for baud in [115_200u32, 3_000_000] {
            let mut host = LinkHost::new(board(baud, 4), 1);
            let t0 = host.link_mut().clocks;
            for _ in 0..20 {
                host.read(1).unwrap();
            }
            let per_read = (host.link_mut().clocks - t0) as f64 / 20.0;
            let reads_per_s = 50e6 / per_read;
            // The bridge answers from the request's last stop bit and the host
            // reads the response at its last stop bit's middle: 138.5 bit times.
            let bits = 50e6 / (reads_per_s * UartConfig { clock_hz: 50_000_000, baud }.divisor() as f64);
            assert!((138.0..140.0).contains(&bits), "{baud} baud: {reads_per_s:.0} reads/s, {bits:.1} bit times");
        }
    }
}
