//! The host link's board side: the UART receiver's bytes into the register
//! bridge, the bridge's responses into the UART transmitter, the bridge on
//! the engine's register bus. It equals the per-clock model
//! [`LinkCycle`](netmeas_sim::board::link::LinkCycle) every clock; the
//! frames are documented with the bridge's model and in `docs/board.md`.

use super::reg_bridge::RegBridge;
use super::uart_rx::UartRx;
use super::uart_tx::UartTx;
use netmeas_sim::board::link::LinkConfig;
use rust_hdl::prelude::*;

/// The link's board side for one [`LinkConfig`].
#[derive(LogicBlock)]
pub struct LinkTop {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of all three blocks.
    pub reset: Signal<In, Bit>,
    // --- serial line ---
    /// From the host (asynchronous).
    pub rx: Signal<In, Bit>,
    /// To the host.
    pub tx: Signal<Out, Bit>,
    // --- register bus ---
    /// Read strobe (one clock).
    pub bus_re: Signal<Out, Bit>,
    /// Write strobe (one clock).
    pub bus_we: Signal<Out, Bit>,
    /// Register address.
    pub bus_addr: Signal<Out, Bits<16>>,
    /// Word to write.
    pub bus_wdata: Signal<Out, Bits<32>>,
    /// The bus answers (in the strobe's clock or up to 255 clocks later).
    pub bus_ack: Signal<In, Bit>,
    /// The word read, with `bus_ack`.
    pub bus_rdata: Signal<In, Bits<32>>,
    // --- error counters (saturating, cleared by reset) ---
    /// Bytes dropped for a low stop bit.
    pub frame_errors: Signal<Out, Bits<16>>,
    /// Bytes dropped while the bridge was busy.
    pub overruns: Signal<Out, Bits<16>>,
    /// Requests answered with a CRC error.
    pub crc_errors: Signal<Out, Bits<16>>,
    /// Requests dropped by the timeout.
    pub truncated: Signal<Out, Bits<16>>,
    // --- blocks ---
    uart_rx: UartRx,
    bridge: RegBridge,
    uart_tx: UartTx,
}

impl LinkTop {
    /// The link for `cfg` (validated by the caller).
    pub fn new(cfg: &LinkConfig) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            bus_re: Default::default(),
            bus_we: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_ack: Default::default(),
            bus_rdata: Default::default(),
            frame_errors: Default::default(),
            overruns: Default::default(),
            crc_errors: Default::default(),
            truncated: Default::default(),
            uart_rx: UartRx::new(&cfg.uart),
            bridge: RegBridge::new(&cfg.bridge),
            uart_tx: UartTx::new(&cfg.uart),
        }
    }
}

impl Logic for LinkTop {
    #[hdl_gen]
    fn update(&mut self) {
        self.uart_rx.clock.next = self.clock.val();
        self.bridge.clock.next = self.clock.val();
        self.uart_tx.clock.next = self.clock.val();
        self.uart_rx.reset.next = self.reset.val();
        self.bridge.reset.next = self.reset.val();
        self.uart_tx.reset.next = self.reset.val();
        // Line → receiver → bridge.
        self.uart_rx.rx.next = self.rx.val();
        self.bridge.s_valid.next = self.uart_rx.m_valid.val();
        self.bridge.s_data.next = self.uart_rx.m_data.val();
        self.uart_rx.m_ready.next = self.bridge.s_ready.val();
        // Bridge → transmitter → line.
        self.uart_tx.s_valid.next = self.bridge.m_valid.val();
        self.uart_tx.s_data.next = self.bridge.m_data.val();
        self.bridge.m_ready.next = self.uart_tx.s_ready.val();
        self.tx.next = self.uart_tx.tx.val();
        // Register bus.
        self.bus_re.next = self.bridge.bus_re.val();
        self.bus_we.next = self.bridge.bus_we.val();
        self.bus_addr.next = self.bridge.bus_addr.val();
        self.bus_wdata.next = self.bridge.bus_wdata.val();
        self.bridge.bus_ack.next = self.bus_ack.val();
        self.bridge.bus_rdata.next = self.bus_rdata.val();
        // Counters.
        self.frame_errors.next = self.uart_rx.frame_errors.val();
        self.overruns.next = self.uart_rx.overruns.val();
        self.crc_errors.next = self.bridge.crc_errors.val();
        self.truncated.next = self.bridge.truncated.val();
    }
}
