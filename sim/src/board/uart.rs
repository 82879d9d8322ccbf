//! Per-clock models of the host link's UART (8 data bits, no parity, one
//! stop bit, least significant bit first): the transmitter and the receiver
//! that `netmeas-hdl`'s `UartTx` and `UartRx` equal every clock.
//!
//! - **Bit time.** A bit lasts `divisor` clocks, the clock rate over the
//!   baud rate rounded to the nearest integer ([`UartConfig::divisor`]).
//! - **Transmitter.** A byte offered while `ready` is taken at the edge and
//!   driven from the next clock: start bit, 8 data bits, stop bit, each
//!   `divisor` clocks. `ready` is high when idle and in the stop bit's last
//!   clock, so back-to-back bytes take exactly 10 bit times each.
//! - **Receiver.** The line passes two synchronizer registers. A low level
//!   while idle starts a frame; the start bit is sampled again half a bit
//!   later (still low, or the pulse was a glitch and is ignored), then the
//!   data bits and the stop bit one bit time apart, each in its middle. A
//!   low stop bit drops the byte, counts a framing error and waits for the
//!   line to go high. A byte completed while the previous one is still
//!   unread (and not taken in that clock) is dropped and counted as an
//!   overrun. Both counters saturate at
//!   2^16 − 1; nothing is lost without being counted.

use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// The fewest clocks per bit (the receiver samples at half a bit).
pub const UART_MIN_DIVISOR: u32 = 4;
/// The most clocks per bit (a 16-bit counter).
pub const UART_MAX_DIVISOR: u32 = 65_535;
/// The largest baud-rate error a divisor may leave, in parts per million
/// (2 %: 8N1 framing tolerates about 5 % between the two ends together).
pub const UART_MAX_RATE_ERROR_PPM: u64 = 20_000;

/// Clock and baud rate of a UART.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UartConfig {
    /// Clock of the core in Hz.
    pub clock_hz: u64,
    /// Baud rate (bits per second).
    pub baud: u32,
}

impl Default for UartConfig {
    fn default() -> Self {
        Self { clock_hz: 50_000_000, baud: 3_000_000 }
    }
}

impl UartConfig {
    /// Clocks per bit: clock / baud, rounded to the nearest integer.
    pub fn divisor(&self) -> u64 {
        if self.baud == 0 { 0 } else { (self.clock_hz + self.baud as u64 / 2) / self.baud as u64 }
    }

    /// The baud rate's error with this divisor, in parts per million.
    pub fn rate_error_ppm(&self) -> u64 {
        let d = self.divisor();
        let actual = d * self.baud as u64;
        actual.abs_diff(self.clock_hz) * 1_000_000 / self.clock_hz.max(1)
    }

    /// Checks the rates, naming the first bad field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.baud == 0 {
            return Err(ConfigError::new("uart.baud", "must be at least 1"));
        }
        let d = self.divisor();
        if !(UART_MIN_DIVISOR as u64..=UART_MAX_DIVISOR as u64).contains(&d) {
            return Err(ConfigError::new(
                "uart.baud",
                format!(
                    "{} Hz / {} baud is {d} clocks per bit, outside {UART_MIN_DIVISOR}..={UART_MAX_DIVISOR}",
                    self.clock_hz, self.baud
                ),
            ));
        }
        let e = self.rate_error_ppm();
        if e > UART_MAX_RATE_ERROR_PPM {
            return Err(ConfigError::new(
                "uart.baud",
                format!(
                    "{} Hz / {} baud leaves a rate error of {:.2} % with {d} clocks per bit (at most 2 %)",
                    self.clock_hz,
                    self.baud,
                    e as f64 / 1e4
                ),
            ));
        }
        Ok(())
    }
}

/// Inputs of the transmitter in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UartTxInputs {
    /// Synchronous reset: idle, line high.
    pub reset: bool,
    /// A byte is offered.
    pub valid: bool,
    /// The byte.
    pub data: u8,
}

/// Outputs of the transmitter in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UartTxOutputs {
    /// A byte offered now is taken.
    pub ready: bool,
    /// The serial line (high when idle).
    pub tx: bool,
}

/// Per-clock model of the transmitter.
#[derive(Clone, Debug)]
pub struct UartTxCycle {
    divisor: u16,
    busy: bool,
    /// Stop bit, data bits, start bit: bit 0 is on the line.
    shift: u16,
    /// Bits after the one on the line.
    bits_left: u8,
    /// Clocks left of the bit on the line, minus one.
    count: u16,
}

impl UartTxCycle {
    /// An idle transmitter for `cfg` (validated).
    pub fn new(cfg: &UartConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(Self { divisor: cfg.divisor() as u16, busy: false, shift: 0, bits_left: 0, count: 0 })
    }

    /// This clock's `ready` (it depends on no input).
    pub fn ready(&self) -> bool {
        !self.busy || (self.bits_left == 0 && self.count == 0)
    }

    /// One clock: the outputs before the edge, then the edge.
    pub fn step(&mut self, i: &UartTxInputs) -> UartTxOutputs {
        let o = UartTxOutputs { ready: self.ready(), tx: !self.busy || self.shift & 1 == 1 };
        if i.reset {
            *self = Self { divisor: self.divisor, busy: false, shift: 0, bits_left: 0, count: 0 };
        } else if i.valid && o.ready {
            self.busy = true;
            self.shift = 1 << 9 | (i.data as u16) << 1;
            self.bits_left = 9;
            self.count = self.divisor - 1;
        } else if self.busy {
            if self.count != 0 {
                self.count -= 1;
            } else if self.bits_left == 0 {
                self.busy = false;
            } else {
                self.shift >>= 1;
                self.bits_left -= 1;
                self.count = self.divisor - 1;
            }
        }
        o
    }
}

/// Inputs of the receiver in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UartRxInputs {
    /// Synchronous reset: idle, counters cleared, no byte held.
    pub reset: bool,
    /// The serial line (asynchronous).
    pub rx: bool,
    /// The consumer takes the held byte.
    pub ready: bool,
}

/// Outputs of the receiver in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UartRxOutputs {
    /// A received byte is held.
    pub valid: bool,
    /// The byte (while not `valid`, the last one held, 0 after reset).
    pub data: u8,
    /// Frames dropped for a low stop bit (saturating).
    pub frame_errors: u16,
    /// Bytes dropped because the previous one was unread (saturating).
    pub overruns: u16,
}

/// Where the receiver is in a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RxState {
    Idle,
    Start,
    Data,
    Stop,
    /// After a framing error: until the line is high.
    WaitHigh,
}

/// Per-clock model of the receiver.
#[derive(Clone, Debug)]
pub struct UartRxCycle {
    divisor: u16,
    sync1: bool,
    sync2: bool,
    state: RxState,
    count: u16,
    bit: u8,
    shift: u8,
    held: bool,
    held_data: u8,
    frame_errors: u16,
    overruns: u16,
}

impl UartRxCycle {
    /// An idle receiver for `cfg` (validated).
    pub fn new(cfg: &UartConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(Self::idle(cfg.divisor() as u16))
    }

    fn idle(divisor: u16) -> Self {
        Self {
            divisor,
            sync1: true,
            sync2: true,
            state: RxState::Idle,
            count: 0,
            bit: 0,
            shift: 0,
            held: false,
            held_data: 0,
            frame_errors: 0,
            overruns: 0,
        }
    }

    /// One clock: the outputs before the edge, then the edge.
    pub fn step(&mut self, i: &UartRxInputs) -> UartRxOutputs {
        let o = UartRxOutputs {
            valid: self.held,
            data: self.held_data,
            frame_errors: self.frame_errors,
            overruns: self.overruns,
        };
        if i.reset {
            *self = Self::idle(self.divisor);
            return o;
        }
        let line = self.sync2;
        (self.sync2, self.sync1) = (self.sync1, i.rx);
        if o.valid && i.ready {
            self.held = false;
        }
        let bit_time = self.divisor - 1;
        match self.state {
            RxState::Idle => {
                if !line {
                    self.state = RxState::Start;
                    self.count = self.divisor / 2 - 1;
                }
            }
            RxState::WaitHigh => {
                if line {
                    self.state = RxState::Idle;
                }
            }
            _ if self.count != 0 => self.count -= 1,
            RxState::Start => {
                if line {
                    self.state = RxState::Idle;
                } else {
                    self.state = RxState::Data;
                    self.count = bit_time;
                    self.bit = 0;
                }
            }
            RxState::Data => {
                self.shift = (line as u8) << 7 | self.shift >> 1;
                self.count = bit_time;
                if self.bit == 7 {
                    self.state = RxState::Stop;
                } else {
                    self.bit += 1;
                }
            }
            RxState::Stop => {
                if !line {
                    self.frame_errors = self.frame_errors.saturating_add(1);
                    self.state = RxState::WaitHigh;
                } else {
                    if self.held {
                        self.overruns = self.overruns.saturating_add(1);
                    } else {
                        self.held = true;
                        self.held_data = self.shift;
                    }
                    self.state = RxState::Idle;
                }
            }
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    fn cfg(divisor: u32) -> UartConfig {
        UartConfig { clock_hz: divisor as u64 * 1_000_000, baud: 1_000_000 }
    }

    /// Drives bytes through a transmitter into a receiver (the line optionally
    /// corrupted by `corrupt(clock, line)`), reading every byte at once;
    /// returns the bytes received, the receiver's last outputs and the clocks.
    fn loopback(
        divisor: u32,
        bytes: &[u8],
        gap: impl Fn(usize) -> u64,
        corrupt: impl Fn(u64, bool) -> bool,
    ) -> (Vec<u8>, UartRxOutputs, u64) {
        let c = cfg(divisor);
        let (mut tx, mut rx) = (UartTxCycle::new(&c).unwrap(), UartRxCycle::new(&c).unwrap());
        let (mut got, mut next, mut wait, mut clock) = (Vec::new(), 0, 0, 0u64);
        let mut last = UartRxOutputs::default();
        // Until every byte is sent and the line has been idle for two frames.
        let mut idle = 0;
        while idle < 20 * divisor as u64 {
            let valid = next < bytes.len() && wait == 0;
            let t = tx.step(&UartTxInputs { reset: false, valid, data: bytes.get(next).copied().unwrap_or(0) });
            if valid && t.ready {
                next += 1;
                wait = gap(next);
            } else {
                wait = wait.saturating_sub(1);
            }
            last = rx.step(&UartRxInputs { reset: false, rx: corrupt(clock, t.tx), ready: true });
            if last.valid {
                got.push(last.data);
            }
            idle = if next == bytes.len() && t.ready && t.tx { idle + 1 } else { 0 };
            clock += 1;
        }
        (got, last, clock)
    }

    #[test]
    fn bytes_pass_a_loopback_at_ten_bit_times_each() {
        let mut rng = SplitMix64::new(5);
        for divisor in [4u32, 5, 7, 16, 17, 434] {
            let bytes: Vec<u8> = (0..300).map(|_| rng.next_u64() as u8).collect();
            let (got, last, _) = loopback(divisor, &bytes, |_| 0, |_, l| l);
            assert_eq!(got, bytes, "divisor {divisor}");
            assert_eq!((last.frame_errors, last.overruns), (0, 0));
            // Back to back: the transmitter takes a byte every 10 bit times.
            let c = cfg(divisor);
            let mut tx = UartTxCycle::new(&c).unwrap();
            let taken: Vec<u64> = (0..400u64)
                .filter(|_| tx.step(&UartTxInputs { reset: false, valid: true, data: 0x55 }).ready)
                .collect();
            assert!(taken.windows(2).all(|w| w[1] - w[0] == 10 * divisor as u64), "divisor {divisor}");
            let with_gaps = loopback(divisor, &bytes, |k| (k as u64 * 7) % 23, |_, l| l).0;
            assert_eq!(with_gaps, bytes);
        }
    }

    #[test]
    fn a_low_stop_bit_is_a_counted_framing_error_and_a_glitch_is_ignored() {
        let d = 16u32;
        let bytes = [0xA5u8, 0x3C, 0xFF, 0x00, 0x81];
        // Frame k starts at clock 160 k + 1 (start bit in clocks 1..=16 of it);
        // its stop bit is clocks 145..=160. Pull the third frame's stop bit low.
        let frame = |c: u64| (c.saturating_sub(1)) / 160;
        let stop_of_third = |c: u64| frame(c) == 2 && (c - 1) % 160 >= 144;
        let (got, last, _) = loopback(d, &bytes, |_| 0, |c, l| l && !stop_of_third(c));
        assert_eq!(last.frame_errors, 1);
        // The third byte is lost, and since the line stays low into the fourth
        // frame's start bit the receiver resynchronises on a later byte; none
        // is received wrong: every byte it keeps is one that was sent, in order.
        assert!(got.len() < bytes.len() && got[..2] == bytes[..2], "{got:?}");
        let mut it = bytes[2..].iter();
        assert!(got[2..].iter().all(|b| it.any(|s| s == b)), "{got:?}");
        // A low pulse shorter than half a bit on an idle line starts nothing.
        let c = cfg(d);
        let mut rx = UartRxCycle::new(&c).unwrap();
        for clock in 0..400u64 {
            let o = rx.step(&UartRxInputs { reset: false, rx: !(100..106).contains(&clock), ready: true });
            assert!(!o.valid && o.frame_errors == 0, "clock {clock}");
        }
    }

    #[test]
    fn an_unread_byte_makes_the_next_an_overrun() {
        let c = cfg(8);
        let (mut tx, mut rx) = (UartTxCycle::new(&c).unwrap(), UartRxCycle::new(&c).unwrap());
        let mut o = UartRxOutputs::default();
        for _ in 0..1000 {
            let t = tx.step(&UartTxInputs { reset: false, valid: true, data: 0x42 });
            o = rx.step(&UartRxInputs { reset: false, rx: t.tx, ready: false });
        }
        // 1000 clocks are 12 frames of 80: the first byte is held, the rest overrun.
        assert!(o.valid && o.data == 0x42 && o.overruns == 11, "{o:?}");
        let o = rx.step(&UartRxInputs { reset: true, rx: true, ready: false });
        assert!(o.valid);
        let o = rx.step(&UartRxInputs { reset: false, rx: true, ready: false });
        assert!(!o.valid && o.overruns == 0 && o.frame_errors == 0);
    }

    #[test]
    fn rates_are_checked() {
        assert_eq!(UartConfig::default().divisor(), 17);
        UartConfig::default().validate().unwrap();
        assert_eq!(UartConfig { clock_hz: 48_000_000, baud: 115_200 }.divisor(), 417);
        UartConfig { clock_hz: 48_000_000, baud: 115_200 }.validate().unwrap();
        let field = |c: UartConfig| c.validate().unwrap_err().field;
        assert_eq!(field(UartConfig { baud: 0, ..Default::default() }), "uart.baud");
        assert_eq!(field(UartConfig { clock_hz: 10_000_000, baud: 3_000_000 }), "uart.baud");
        assert_eq!(field(UartConfig { clock_hz: 100_000_000, baud: 1_000 }), "uart.baud");
        // 25 MHz / 3 Mbaud = 8.33: divisor 8 is 4 % fast.
        let e = UartConfig { clock_hz: 25_000_000, baud: 3_000_000 }.validate().unwrap_err();
        assert!(e.message.contains("4.00 %"), "{e}");
    }
}
