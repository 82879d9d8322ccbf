//! UART transmitter of the host link: 8 data bits, no parity, one stop bit,
//! least significant bit first, `divisor` clocks per bit. It equals the
//! per-clock model [`UartTxCycle`](netmeas_sim::board::uart::UartTxCycle)
//! every clock; that model documents the timing (a byte every 10 bit times
//! when bytes are offered back to back).

use netmeas_sim::board::uart::UartConfig;
use rust_hdl::prelude::*;

/// The transmitter for one [`UartConfig`].
#[derive(LogicBlock)]
pub struct UartTx {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: idle, line high.
    pub reset: Signal<In, Bit>,
    // --- bytes to send ---
    /// A byte is offered.
    pub s_valid: Signal<In, Bit>,
    /// The byte is taken (idle, or in the stop bit's last clock).
    pub s_ready: Signal<Out, Bit>,
    /// The byte.
    pub s_data: Signal<In, Bits<8>>,
    // --- serial line ---
    /// The line (high when idle).
    pub tx: Signal<Out, Bit>,
    // --- constants ---
    bit_last: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero4: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    nine4: Constant<Bits<4>>,
    stop_bit: Constant<Bits<10>>,
    zero10: Constant<Bits<10>>,
    // --- state ---
    busy: DFF<Bit>,
    /// Stop bit, data bits, start bit: bit 0 is on the line.
    shift: DFF<Bits<10>>,
    /// Bits after the one on the line.
    bits_left: DFF<Bits<4>>,
    /// Clocks left of the bit on the line, minus one.
    count: DFF<Bits<16>>,
    last_clock: Signal<Local, Bit>,
}

impl UartTx {
    /// The transmitter for `cfg` (validated by the caller: 4..=65 535 clocks per bit).
    pub fn new(cfg: &UartConfig) -> Self {
        let d = cfg.divisor();
        assert!(cfg.validate().is_ok(), "invalid UART config {cfg:?}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_data: Default::default(),
            tx: Default::default(),
            bit_last: Constant::new((d - 1).to_bits()),
            zero16: Constant::new(0u64.to_bits()),
            one16: Constant::new(1u64.to_bits()),
            zero4: Constant::new(0u64.to_bits()),
            one4: Constant::new(1u64.to_bits()),
            nine4: Constant::new(9u64.to_bits()),
            stop_bit: Constant::new((1u64 << 9).to_bits()),
            zero10: Constant::new(0u64.to_bits()),
            busy: Default::default(),
            shift: Default::default(),
            bits_left: Default::default(),
            count: Default::default(),
            last_clock: Default::default(),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, shift, bits_left, count);
        self.last_clock.next = (self.bits_left.q.val() == self.zero4.val()) & (self.count.q.val() == self.zero16.val());
        self.s_ready.next = !self.busy.q.val() | self.last_clock.val();
        self.tx.next = !self.busy.q.val() | self.shift.q.val().get_bit(0);
        if self.reset.val() {
            self.busy.d.next = false;
            self.shift.d.next = self.zero10.val();
            self.bits_left.d.next = self.zero4.val();
            self.count.d.next = self.zero16.val();
        } else if self.s_valid.val() & self.s_ready.val() {
            self.busy.d.next = true;
            self.shift.d.next = self.stop_bit.val() | (bit_cast::<10, 8>(self.s_data.val()) << 1);
            self.bits_left.d.next = self.nine4.val();
            self.count.d.next = self.bit_last.val();
        } else if self.busy.q.val() {
            if self.count.q.val() != self.zero16.val() {
                self.count.d.next = self.count.q.val() - self.one16.val();
            } else if self.bits_left.q.val() == self.zero4.val() {
                self.busy.d.next = false;
            } else {
                self.shift.d.next = self.shift.q.val() >> 1;
                self.bits_left.d.next = self.bits_left.q.val() - self.one4.val();
                self.count.d.next = self.bit_last.val();
            }
        }
    }
}
