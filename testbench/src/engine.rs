//! The Verilated measurement engine on a simulated serial line: the host
//! reader ([`EngineReader`](netmeas_sim::board::reader::EngineReader)) runs
//! against the RTL of the whole top exactly as against a board, through the
//! host's UART models and a line that can flip bits.

use crate::CoreRtl;
use crate::models::EngineDefault;
use netmeas_sim::board::engine::{EngineConfig, EngineInputs, EngineOutputs, ExternalBeat};
use netmeas_sim::board::host::{SerialSide, SimulatedLine};
use std::collections::VecDeque;

/// A Verilated engine.
pub trait EngineRtl: CoreRtl<Config = EngineConfig, In = EngineInputs, Out = EngineOutputs> {}
impl<M: CoreRtl<Config = EngineConfig, In = EngineInputs, Out = EngineOutputs>> EngineRtl for M {}

/// Beats waiting at the engine's external packet-metadata streams: the
/// front beat of each is offered every clock and leaves when the engine
/// takes it (`x_tx_ready`, `x_rx_ready`).
#[derive(Clone, Debug, Default)]
pub struct ExternalFeed {
    /// Beats for the sender point.
    pub sender: VecDeque<ExternalBeat>,
    /// Beats for the receiver point.
    pub receiver: VecDeque<ExternalBeat>,
    /// Clocks in which a beat was offered and not taken, per point.
    pub stalls: [u64; 2],
}

impl ExternalFeed {
    /// The front beats (idle when a queue is empty).
    fn offer(&self) -> (ExternalBeat, ExternalBeat) {
        let front = |q: &VecDeque<ExternalBeat>| q.front().copied().unwrap_or_default();
        (front(&self.sender), front(&self.receiver))
    }

    /// Removes the beats `o` says were taken; counts the others as stalls.
    fn taken(&mut self, o: &EngineOutputs) {
        for (j, (q, ready)) in
            [(&mut self.sender, o.sender_ready), (&mut self.receiver, o.receiver_ready)].into_iter().enumerate()
        {
            if let Some(b) = q.front() {
                if ready {
                    q.pop_front();
                } else if b.valid || b.flip {
                    self.stalls[j] += 1;
                }
            }
        }
    }
}

/// A Verilated engine as a board on a serial line, its external streams fed from [`ExternalFeed`].
pub struct RtlEngineSide<M> {
    model: M,
    /// The status lights of the last clock.
    pub leds: u8,
    /// What the external streams offer.
    pub feed: ExternalFeed,
}

impl<M: EngineRtl> SerialSide for RtlEngineSide<M> {
    fn clock(&mut self, rx: bool) -> bool {
        let (sender, receiver) = self.feed.offer();
        let o = self.model.cycle(&EngineInputs { reset: false, rx, sender, receiver });
        self.feed.taken(&o);
        self.leds = o.leds;
        o.tx
    }
}

/// A fresh `M`, reset with the line idle, on a clean simulated line.
pub fn rtl_engine<M: EngineRtl>() -> Result<SimulatedLine<RtlEngineSide<M>>, String> {
    let cfg = M::config();
    let mut model = M::create();
    for _ in 0..4 {
        model.cycle(&EngineInputs { reset: true, rx: true, ..Default::default() });
    }
    SimulatedLine::on_line(RtlEngineSide { model, leds: 0, feed: ExternalFeed::default() }, &cfg.link)
}

/// The default engine (two 2 × 512-row LDA cores, 50 MHz, 3 Mbaud) on a simulated line.
pub fn rtl_engine_default() -> Result<SimulatedLine<RtlEngineSide<EngineDefault>>, String> {
    rtl_engine::<EngineDefault>()
}

/// [`crate::CoreRtl`] for a Verilated measurement engine (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::board::engine::EngineConfig,
            netmeas_sim::board::engine::EngineInputs,
            netmeas_sim::board::engine::EngineOutputs,
            |i| $tin {
                reset: P::from_u128(i.reset as u128),
                rx: P::from_u128(i.rx as u128),
                x_tx_valid: P::from_u128(i.sender.valid as u128),
                x_tx_key: P::from_u128(i.sender.key),
                x_tx_ts: P::from_u128(i.sender.ts as u128),
                x_tx_class: P::from_u128(i.sender.class as u128),
                x_tx_flip: P::from_u128(i.sender.flip as u128),
                x_rx_valid: P::from_u128(i.receiver.valid as u128),
                x_rx_key: P::from_u128(i.receiver.key),
                x_rx_ts: P::from_u128(i.receiver.ts as u128),
                x_rx_class: P::from_u128(i.receiver.class as u128),
                x_rx_flip: P::from_u128(i.receiver.flip as u128),
            },
            |o| netmeas_sim::board::engine::EngineOutputs {
                tx: o.tx.to_u128() != 0,
                leds: o.leds.to_u128() as u8,
                sender_ready: o.x_tx_ready.to_u128() != 0,
                receiver_ready: o.x_rx_ready.to_u128() != 0,
            }
        );
    };
}
pub(crate) use core_rtl;
