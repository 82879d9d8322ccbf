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

#[cfg(test)]
mod tests {
    use super::*;
    use netmeas_sim::board::link::{BridgeConfig, LinkCycle, LinkInputs, LinkOutputs, LinkRequest};
    use netmeas_sim::board::uart::{UartConfig, UartTxCycle, UartTxInputs};
    use netmeas_sim::prng::SplitMix64;

    fn step(uut: &mut LinkTop, i: &LinkInputs) -> LinkOutputs {
        uut.reset.next = i.reset;
        uut.rx.next = i.rx;
        uut.bus_ack.next = i.bus_ack;
        uut.bus_rdata.next = (i.bus_rdata as u64).into();
        uut.clock.next = Clock { clk: false };
        assert!(simulate(uut, 100));
        let o = LinkOutputs {
            tx: uut.tx.val(),
            bus_re: uut.bus_re.val(),
            bus_we: uut.bus_we.val(),
            bus_addr: uut.bus_addr.val().to_u64() as u16,
            bus_wdata: uut.bus_wdata.val().to_u64() as u32,
            frame_errors: uut.frame_errors.val().to_u64() as u16,
            overruns: uut.overruns.val().to_u64() as u16,
            crc_errors: uut.crc_errors.val().to_u64() as u16,
            truncated: uut.truncated.val().to_u64() as u16,
        };
        uut.clock.next = Clock { clk: true };
        assert!(simulate(uut, 100));
        o
    }

    #[test]
    fn rust_hdl_simulation_equals_the_per_clock_model() {
        let cfg = LinkConfig {
            uart: UartConfig { clock_hz: 4_000_000, baud: 1_000_000 },
            bridge: BridgeConfig { timeout_clocks: 500 },
        };
        let mut uut = LinkTop::new(&cfg);
        uut.connect_all();
        let mut gold = LinkCycle::new(&cfg).unwrap();
        let mut host = UartTxCycle::new(&cfg.uart).unwrap();
        let mut rng = SplitMix64::new(4);
        let (mut bytes, mut k) = (Vec::new(), 0);
        let (mut ack_in, mut accesses, mut tx_bytes) = (None::<u64>, 0, 0);
        let mut last_tx = true;
        for cycle in 0..100_000 {
            if k == bytes.len() {
                bytes = if rng.chance(1, 2) {
                    LinkRequest::Read(rng.below(4) as u16).encode()
                } else {
                    LinkRequest::Write(rng.below(4) as u16, rng.next_u64() as u32).encode()
                };
                if rng.chance(1, 10) {
                    let j = rng.below(bytes.len() as u64) as usize;
                    bytes[j] ^= 1 << rng.below(8);
                }
                k = 0;
            }
            let t = host.step(&UartTxInputs { reset: false, valid: true, data: bytes[k] });
            if t.ready {
                k += 1;
            }
            let ack = ack_in == Some(0);
            let i =
                LinkInputs { reset: rng.chance(1, 30_000), rx: t.tx, bus_ack: ack, bus_rdata: rng.next_u64() as u32 };
            let want = gold.step(&i);
            assert_eq!(step(&mut uut, &i), want, "cycle {cycle}");
            ack_in = ack_in.and_then(|c| c.checked_sub(1));
            if want.bus_re || want.bus_we {
                accesses += 1;
                ack_in = Some(1 + rng.below(4));
            }
            tx_bytes += (last_tx && !want.tx) as u32;
            last_tx = want.tx;
        }
        // Requests come back to back, so many land while a response is sent (overruns).
        assert!(accesses > 50 && tx_bytes > 500, "{accesses} accesses, {tx_bytes} bytes sent");
    }

    #[test]
    fn link_top_is_synthesizable() {
        crate::export::lint_block(LinkTop::new(&LinkConfig::default()), "link_top").unwrap();
    }
}
