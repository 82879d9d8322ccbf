//! UART receiver of the host link: 8 data bits, no parity, one stop bit,
//! least significant bit first, `divisor` clocks per bit; two synchronizer
//! registers on the line, every bit sampled in its middle, a glitch shorter
//! than half a bit ignored. A low stop bit drops the byte and counts a
//! framing error; a byte completed while the previous one is unread is
//! dropped and counted as an overrun (both counters saturate). It equals the
//! per-clock model [`UartRxCycle`](netmeas_sim::board::uart::UartRxCycle)
//! every clock.
//!
//! The synchronizers hold the inverted line, so power-up (all registers
//! zero) equals reset: the line reads high.

use netmeas_sim::board::uart::UartConfig;
use rust_hdl::prelude::*;

/// Receiver states.
const IDLE: u64 = 0;
const START: u64 = 1;
const DATA: u64 = 2;
const STOP: u64 = 3;
/// After a framing error: until the line is high.
const WAIT_HIGH: u64 = 4;

/// The receiver for one [`UartConfig`].
#[derive(LogicBlock)]
pub struct UartRx {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: idle, counters cleared, no byte held.
    pub reset: Signal<In, Bit>,
    // --- serial line ---
    /// The line (asynchronous to `clock`).
    pub rx: Signal<In, Bit>,
    // --- received bytes ---
    /// A received byte is held.
    pub m_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ready: Signal<In, Bit>,
    /// The byte.
    pub m_data: Signal<Out, Bits<8>>,
    // --- error counters (saturating, cleared by reset) ---
    /// Frames dropped for a low stop bit.
    pub frame_errors: Signal<Out, Bits<16>>,
    /// Bytes dropped because the previous one was unread.
    pub overruns: Signal<Out, Bits<16>>,
    // --- constants ---
    bit_last: Constant<Bits<16>>,
    half_last: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    ones16: Constant<Bits<16>>,
    one3: Constant<Bits<3>>,
    seven3: Constant<Bits<3>>,
    zero3: Constant<Bits<3>>,
    zero8: Constant<Bits<8>>,
    st_idle: Constant<Bits<3>>,
    st_start: Constant<Bits<3>>,
    st_data: Constant<Bits<3>>,
    st_stop: Constant<Bits<3>>,
    st_wait_high: Constant<Bits<3>>,
    // --- state ---
    /// The line, inverted, through two synchronizer registers.
    sync1_n: DFF<Bit>,
    sync2_n: DFF<Bit>,
    state: DFF<Bits<3>>,
    /// Clocks to the next sample, minus one.
    count: DFF<Bits<16>>,
    /// Data bit being received.
    bit_index: DFF<Bits<3>>,
    shift: DFF<Bits<8>>,
    held: DFF<Bit>,
    held_data: DFF<Bits<8>>,
    frame_error_count: DFF<Bits<16>>,
    overrun_count: DFF<Bits<16>>,
    line: Signal<Local, Bit>,
}

impl UartRx {
    /// The receiver for `cfg` (validated by the caller: 4..=65 535 clocks per bit).
    pub fn new(cfg: &UartConfig) -> Self {
        let d = cfg.divisor();
        assert!(cfg.validate().is_ok(), "invalid UART config {cfg:?}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_data: Default::default(),
            frame_errors: Default::default(),
            overruns: Default::default(),
            bit_last: Constant::new((d - 1).to_bits()),
            half_last: Constant::new((d / 2 - 1).to_bits()),
            zero16: Constant::new(0u64.to_bits()),
            one16: Constant::new(1u64.to_bits()),
            ones16: Constant::new(0xFFFFu64.to_bits()),
            one3: Constant::new(1u64.to_bits()),
            seven3: Constant::new(7u64.to_bits()),
            zero3: Constant::new(0u64.to_bits()),
            zero8: Constant::new(0u64.to_bits()),
            st_idle: Constant::new(IDLE.to_bits()),
            st_start: Constant::new(START.to_bits()),
            st_data: Constant::new(DATA.to_bits()),
            st_stop: Constant::new(STOP.to_bits()),
            st_wait_high: Constant::new(WAIT_HIGH.to_bits()),
            sync1_n: Default::default(),
            sync2_n: Default::default(),
            state: Default::default(),
            count: Default::default(),
            bit_index: Default::default(),
            shift: Default::default(),
            held: Default::default(),
            held_data: Default::default(),
            frame_error_count: Default::default(),
            overrun_count: Default::default(),
            line: Default::default(),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            sync1_n,
            sync2_n,
            state,
            count,
            bit_index,
            shift,
            held,
            held_data,
            frame_error_count,
            overrun_count
        );
        self.m_valid.next = self.held.q.val();
        self.m_data.next = self.held_data.q.val();
        self.frame_errors.next = self.frame_error_count.q.val();
        self.overruns.next = self.overrun_count.q.val();
        self.line.next = !self.sync2_n.q.val();
        self.sync1_n.d.next = !self.rx.val();
        self.sync2_n.d.next = self.sync1_n.q.val();
        if self.held.q.val() & self.m_ready.val() {
            self.held.d.next = false;
        }
        if self.state.q.val() == self.st_idle.val() {
            if !self.line.val() {
                self.state.d.next = self.st_start.val();
                self.count.d.next = self.half_last.val();
            }
        } else if self.state.q.val() == self.st_wait_high.val() {
            if self.line.val() {
                self.state.d.next = self.st_idle.val();
            }
        } else if self.count.q.val() != self.zero16.val() {
            self.count.d.next = self.count.q.val() - self.one16.val();
        } else if self.state.q.val() == self.st_start.val() {
            if self.line.val() {
                self.state.d.next = self.st_idle.val();
            } else {
                self.state.d.next = self.st_data.val();
                self.count.d.next = self.bit_last.val();
                self.bit_index.d.next = self.zero3.val();
            }
        } else if self.state.q.val() == self.st_data.val() {
            self.shift.d.next = (self.shift.q.val() >> 1) | (bit_cast::<8, 1>(self.line.val().into()) << 7);
            self.count.d.next = self.bit_last.val();
            if self.bit_index.q.val() == self.seven3.val() {
                self.state.d.next = self.st_stop.val();
            } else {
                self.bit_index.d.next = self.bit_index.q.val() + self.one3.val();
            }
        } else if !self.line.val() {
            // The stop bit is low: a framing error.
            if self.frame_error_count.q.val() != self.ones16.val() {
                self.frame_error_count.d.next = self.frame_error_count.q.val() + self.one16.val();
            }
            self.state.d.next = self.st_wait_high.val();
        } else {
            // A byte taken in this clock frees the register for the new one.
            if self.held.q.val() & !self.m_ready.val() {
                if self.overrun_count.q.val() != self.ones16.val() {
                    self.overrun_count.d.next = self.overrun_count.q.val() + self.one16.val();
                }
            } else {
                self.held.d.next = true;
                self.held_data.d.next = self.shift.q.val();
            }
            self.state.d.next = self.st_idle.val();
        }
        if self.reset.val() {
            self.sync1_n.d.next = false;
            self.sync2_n.d.next = false;
            self.state.d.next = self.st_idle.val();
            self.count.d.next = self.zero16.val();
            self.bit_index.d.next = self.zero3.val();
            self.shift.d.next = self.zero8.val();
            self.held.d.next = false;
            self.held_data.d.next = self.zero8.val();
            self.frame_error_count.d.next = self.zero16.val();
            self.overrun_count.d.next = self.zero16.val();
        }
    }
}
