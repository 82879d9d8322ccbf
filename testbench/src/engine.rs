//! The Verilated measurement engine on a simulated serial line: the host
//! reader ([`EngineReader`](netmeas_sim::board::reader::EngineReader)) runs
//! against the RTL of the whole top exactly as against a board, through the
//! host's UART models and a line that can flip bits.

use crate::CoreRtl;
use crate::models::EngineDefault;
use netmeas_sim::board::engine::{EngineConfig, EngineInputs, EngineOutputs};
use netmeas_sim::board::host::{SerialSide, SimulatedLine};

/// A Verilated engine.
pub trait EngineRtl: CoreRtl<Config = EngineConfig, In = EngineInputs, Out = EngineOutputs> {}
impl<M: CoreRtl<Config = EngineConfig, In = EngineInputs, Out = EngineOutputs>> EngineRtl for M {}

/// A Verilated engine as a board on a serial line.
pub struct RtlEngineSide<M> {
    model: M,
    /// The status lights of the last clock.
    pub leds: u8,
}

impl<M: EngineRtl> SerialSide for RtlEngineSide<M> {
    fn clock(&mut self, rx: bool) -> bool {
        let o = self.model.cycle(&EngineInputs { reset: false, rx });
        self.leds = o.leds;
        o.tx
    }
}

/// A fresh `M`, reset with the line idle, on a clean simulated line.
pub fn rtl_engine<M: EngineRtl>() -> Result<SimulatedLine<RtlEngineSide<M>>, String> {
    let cfg = M::config();
    let mut model = M::create();
    for _ in 0..4 {
        model.cycle(&EngineInputs { reset: true, rx: true });
    }
    SimulatedLine::on_line(RtlEngineSide { model, leds: 0 }, &cfg.link)
}

/// The default engine (two 2 × 512-row LDA cores, 50 MHz, 3 Mbaud) on a simulated line.
pub fn rtl_engine_default() -> Result<SimulatedLine<RtlEngineSide<EngineDefault>>, String> {
    rtl_engine::<EngineDefault>()
}
