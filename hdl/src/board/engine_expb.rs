//! The engine's EXPB point: an EXPB core (Uyeda et al., *Efficiently
//! Measuring Bandwidth at All Time Scales*, §3.2 exponential bucketing,
//! Algorithm 2; §3.3 culprits) on the sender's packets, with its register
//! page. It gives the mean, deviation and maximum of the bytes per interval
//! at 2^j Δ_1 for every scale j, and the flow behind each maximum.
//!
//! **Feed.** The sender's packets arrive as bandwidth packets
//! ([`BandwidthFeed`](super::bandwidth_feed::BandwidthFeed): the points' own
//! time, a length and a flow drawn from the key). The core's `s_ready`
//! drops while a period's last interval waits for the previous period's
//! read-out. `feed_ready` lets the source draw only while the core is ready
//! and no packet is at its input, so every packet that arrives is taken
//! (back-pressure: nothing is dropped; the source then draws at most every
//! other clock, and its timestamps do not depend on it). The core's `now`
//! input is not used: the packets' times alone close its intervals, so the
//! host's golden model sees exactly what the core saw. On the external
//! streams the point takes no packets.
//!
//! **Page** (`reg::EXPB`): the build's Δ_1 and period, the frozen period's
//! index and packets, the presented statistics row (one per scale), the
//! live period and the points' time; writing `EXPB_TAKE` with `{period[27:0],
//! scale[3:0]}` of the presented row takes it, so a write the host repeats
//! after a lost response takes nothing.
//!
//! Without an EXPB core in the config the block is built with its core tied
//! off (`on` low): no packet, no answer, always ready, and synthesis removes it.

use crate::expb::ExpbCore;
use netmeas_sim::board::engine::{engine_expb_default, reg};
use netmeas_sim::dbm::ExpbConfig;
use rust_hdl::prelude::*;

/// The EXPB point.
#[derive(LogicBlock)]
pub struct EngineExpb {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the measurement side: the core clears its bank.
    pub reset: Signal<In, Bit>,
    // --- the sender's packets as bandwidth packets (`BandwidthFeed`) ---
    /// The source feeds the cores (low on the external streams: the point takes nothing).
    pub active: Signal<In, Bit>,
    /// A packet at the sender.
    pub pkt_valid: Signal<In, Bit>,
    /// Its time: the points' time (the next packet's when there is none).
    pub pkt_ts: Signal<In, Bits<48>>,
    /// Its length in bytes.
    pub pkt_len: Signal<In, Bits<32>>,
    /// Its flow.
    pub pkt_flow: Signal<In, Bits<32>>,
    /// The source may draw a packet for the next clock.
    pub feed_ready: Signal<Out, Bit>,
    // --- register bus ---
    /// Word address.
    pub bus_addr: Signal<In, Bits<16>>,
    /// Write strobe.
    pub bus_we: Signal<In, Bit>,
    /// Write data.
    pub bus_wdata: Signal<In, Bits<32>>,
    /// The address is on this point's page (answered with `bus_rdata`).
    pub bus_hit: Signal<Out, Bit>,
    /// The word at the address (0 for unassigned words).
    pub bus_rdata: Signal<Out, Bits<32>>,
    // --- status ---
    /// A row of a frozen period is presented.
    pub ro_valid: Signal<Out, Bit>,
    // --- blocks ---
    core: ExpbCore,
    // --- constants ---
    on: Constant<Bit>,
    page: Constant<Bits<8>>,
    page_region: Constant<Bits<2>>,
    base_ticks: Constant<Bits<32>>,
    period_ticks: Constant<Bits<48>>,
    word_take: Constant<Bits<8>>,
    zero32: Constant<Bits<32>>,
    zero48: Constant<Bits<48>>,
    // --- combinational helpers ---
    in_valid: Signal<Local, Bit>,
    page_hit: Signal<Local, Bit>,
    row_word: Signal<Local, Bits<32>>,
    take_word: Signal<Local, Bits<32>>,
}

impl EngineExpb {
    /// The EXPB point for `cfg`, or a tied-off one for `None` (validated by the caller). Its page
    /// is bus page `page`.
    pub fn new(cfg: Option<&ExpbConfig>, page: u8) -> Self {
        assert!(page != 0, "page 0 is the engine's own");
        let core_cfg = cfg.cloned().unwrap_or_else(engine_expb_default);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            active: Default::default(),
            pkt_valid: Default::default(),
            pkt_ts: Default::default(),
            pkt_len: Default::default(),
            pkt_flow: Default::default(),
            feed_ready: Default::default(),
            bus_addr: Default::default(),
            bus_we: Default::default(),
            bus_wdata: Default::default(),
            bus_hit: Default::default(),
            bus_rdata: Default::default(),
            ro_valid: Default::default(),
            core: ExpbCore::new(&core_cfg),
            on: Constant::new(cfg.is_some()),
            page: Constant::new((page as u64).into()),
            page_region: Constant::new(0u64.into()),
            base_ticks: Constant::new(core_cfg.base_ticks.into()),
            period_ticks: Constant::new(core_cfg.period_ticks.into()),
            word_take: Constant::new((reg::EXPB_TAKE as u64).into()),
            zero32: Constant::new(0u64.into()),
            zero48: Constant::new(0u64.into()),
            in_valid: Default::default(),
            page_hit: Default::default(),
            row_word: Default::default(),
            take_word: Default::default(),
        }
    }
}

impl Logic for EngineExpb {
    #[hdl_gen]
    fn update(&mut self) {
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.core.now_valid.next = false;
        self.core.now.next = self.zero48.val();

        // ---- feed: the core takes every packet it is offered ----
        // The source draws only in a clock without a packet at the core's input and while the
        // core is ready, so the core's input register is empty when the drawn packet arrives.
        self.in_valid.next = self.pkt_valid.val() & self.active.val() & self.on.val();
        self.core.s_valid.next = self.in_valid.val();
        self.core.s_ts.next = self.pkt_ts.val();
        self.core.s_len.next = self.pkt_len.val();
        self.core.s_flow.next = self.pkt_flow.val();
        self.feed_ready.next = !self.on.val() | !self.active.val() | (self.core.s_ready.val() & !self.pkt_valid.val());

        // ---- page ----
        self.page_hit.next = self.on.val()
            & (self.bus_addr.val().get_bits::<2>(14) == self.page_region.val())
            & (self.bus_addr.val().get_bits::<8>(8) == self.page.val());
        self.bus_hit.next = self.page_hit.val();
        self.ro_valid.next = self.core.m_ro_valid.val() & self.on.val();
        self.row_word.next = (bit_cast::<32, 1>(self.core.m_ro_valid.val().into()) << 31)
            | (bit_cast::<32, 1>(self.core.m_ro_last.val().into()) << 30)
            | (bit_cast::<32, 1>(self.core.period_saturated.val().into()) << 29)
            | bit_cast::<32, 4>(self.core.m_ro_scale.val());
        self.take_word.next = (self.core.period_index.val() << 4) | bit_cast::<32, 4>(self.core.m_ro_scale.val());
        self.core.m_ro_ready.next = self.bus_we.val()
            & self.page_hit.val()
            & (self.bus_addr.val().get_bits::<8>(0) == self.word_take.val())
            & self.core.m_ro_valid.val()
            & (self.bus_wdata.val() == self.take_word.val());
        self.bus_rdata.next = self.zero32.val();
        match self.bus_addr.val().get_bits::<8>(0).index() {
            0 => {
                self.bus_rdata.next = self.base_ticks.val();
            }
            1 => {
                self.bus_rdata.next = self.period_ticks.val().get_bits::<32>(0);
            }
            2 => {
                self.bus_rdata.next = bit_cast::<32, 16>(self.period_ticks.val().get_bits::<16>(32));
            }
            3 => {
                self.bus_rdata.next = self.core.period_index.val();
            }
            4 => {
                self.bus_rdata.next = self.core.period_packets.val().get_bits::<32>(0);
            }
            5 => {
                self.bus_rdata.next = self.core.period_packets.val().get_bits::<32>(32);
            }
            6 => {
                self.bus_rdata.next = self.row_word.val();
            }
            7 => {
                self.bus_rdata.next = bit_cast::<32, 21>(self.core.m_ro_count.val());
            }
            8 => {
                self.bus_rdata.next = self.core.m_ro_sum.val().get_bits::<32>(0);
            }
            9 => {
                self.bus_rdata.next = bit_cast::<32, 20>(self.core.m_ro_sum.val().get_bits::<20>(32));
            }
            10 => {
                self.bus_rdata.next = self.core.m_ro_sumsq.val().get_bits::<32>(0);
            }
            11 => {
                self.bus_rdata.next = self.core.m_ro_sumsq.val().get_bits::<32>(32);
            }
            12 => {
                self.bus_rdata.next = self.core.m_ro_sumsq.val().get_bits::<32>(64);
            }
            13 => {
                self.bus_rdata.next = bit_cast::<32, 8>(self.core.m_ro_sumsq.val().get_bits::<8>(96));
            }
            14 => {
                self.bus_rdata.next = self.core.m_ro_max.val().get_bits::<32>(0);
            }
            15 => {
                self.bus_rdata.next = bit_cast::<32, 16>(self.core.m_ro_max.val().get_bits::<16>(32));
            }
            16 => {
                self.bus_rdata.next = bit_cast::<32, 20>(self.core.m_ro_max_index.val());
            }
            17 => {
                self.bus_rdata.next = self.core.m_ro_max_flow.val();
            }
            18 => {
                self.bus_rdata.next = self.core.live_period.val();
            }
            19 => {
                self.bus_rdata.next = self.pkt_ts.val().get_bits::<32>(0);
            }
            20 => {
                self.bus_rdata.next = bit_cast::<32, 16>(self.pkt_ts.val().get_bits::<16>(32));
            }
            _ => {}
        }
    }
}
