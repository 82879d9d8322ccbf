//! The engine's DBM point: a DBM core (Uyeda et al., *Efficiently Measuring
//! Bandwidth at All Time Scales*, §3.1 dynamic bucket merge by mass per
//! packet, Algorithm 1; §3.3 culprits; §5 the two-level radix-32 structure)
//! on the sender's packets, with its register page. Each period leaves a
//! partition of at most m buckets from which the host answers the bandwidth
//! at any time scale a posteriori (Theorem 1: within 4B/m of the truth).
//!
//! **Feed.** The same bandwidth packets as the EXPB point's
//! ([`BandwidthFeed`](super::bandwidth_feed::BandwidthFeed)). The core's
//! `s_ready` is low while a packet waits at its input (18 clocks for a real
//! merge, one for a packet that fills the partition or joins its tail) and
//! while a period's end waits for the previous period's read-out.
//! `feed_ready` lets the source draw only while the core is ready and no
//! packet is at its input, so every packet that arrives is taken: nothing
//! is dropped, a merge holds the source back. The core's `now` input is not
//! used: the packets' times alone close its periods, so the host's golden
//! model sees exactly what the core saw. On the external streams the point
//! takes no packets.
//!
//! **Page** (`reg::DBM`): the build's m and period, the frozen period's
//! index, packets, merges and tail joins, and the presented read-out beat:
//! bucket b of the frozen partition (oldest first), or the period's end
//! after the last bucket. The point numbers the beats; writing `DBM_TAKE`
//! with `{period[20:0], beat[10:0]}` of the presented beat takes it, so a
//! write the host repeats after a lost response takes nothing.
//!
//! Without a DBM core in the config the block is built with its core tied
//! off (`on` low): no packet, no answer, always ready, and synthesis removes it.

use crate::common::unused::Unused;
use crate::dbm::DbmCore;
use netmeas_sim::board::engine::{engine_dbm_default, reg};
use netmeas_sim::dbm::DbmConfig;
use rust_hdl::prelude::*;

/// The DBM point.
#[derive(LogicBlock)]
pub struct EngineDbm {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the measurement side: the core starts a new first period at time 0.
    pub reset: Signal<In, Bit>,
    // --- the sender's packets as bandwidth packets (`BandwidthFeed`) ---
    /// The source feeds the cores (low on the external streams: the point takes nothing).
    pub active: Signal<In, Bit>,
    /// A packet at the sender.
    pub pkt_valid: Signal<In, Bit>,
    /// Its time: the points' time.
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
    /// A beat of a frozen period is presented.
    pub ro_valid: Signal<Out, Bit>,
    // --- blocks ---
    core: DbmCore,
    /// Per packet, every bucket's Σs² is 0 and no interval sum saturates.
    unused_sumsq: Unused<Bits<84>>,
    unused_interval_saturated: Unused<Bit>,
    // --- constants ---
    on: Constant<Bit>,
    page: Constant<Bits<8>>,
    page_region: Constant<Bits<2>>,
    buckets: Constant<Bits<32>>,
    period_ticks: Constant<Bits<48>>,
    word_take: Constant<Bits<8>>,
    one11: Constant<Bits<11>>,
    zero11: Constant<Bits<11>>,
    zero32: Constant<Bits<32>>,
    zero48: Constant<Bits<48>>,
    // --- registers ---
    /// Number of the presented beat in its period.
    beat: DFF<Bits<11>>,
    // --- combinational helpers ---
    in_valid: Signal<Local, Bit>,
    page_hit: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    beat_word: Signal<Local, Bits<32>>,
    take_word: Signal<Local, Bits<32>>,
}

impl EngineDbm {
    /// The DBM point for `cfg`, or a tied-off one for `None` (validated by the caller: per packet,
    /// `base_ticks` 0). Its page is bus page `page`.
    pub fn new(cfg: Option<&DbmConfig>, page: u8) -> Self {
        assert!(page != 0, "page 0 is the engine's own");
        let core_cfg = cfg.cloned().unwrap_or_else(engine_dbm_default);
        assert_eq!(core_cfg.base_ticks, 0, "the engine's DBM core works per packet");
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
            core: DbmCore::new(&core_cfg),
            unused_sumsq: Default::default(),
            unused_interval_saturated: Default::default(),
            on: Constant::new(cfg.is_some()),
            page: Constant::new((page as u64).into()),
            page_region: Constant::new(0u64.into()),
            buckets: Constant::new((core_cfg.buckets as u64).into()),
            period_ticks: Constant::new(core_cfg.period_ticks.into()),
            word_take: Constant::new((reg::DBM_TAKE as u64).into()),
            one11: Constant::new(1u64.into()),
            zero11: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
            zero48: Constant::new(0u64.into()),
            beat: Default::default(),
            in_valid: Default::default(),
            page_hit: Default::default(),
            take: Default::default(),
            beat_word: Default::default(),
            take_word: Default::default(),
        }
    }
}

impl Logic for EngineDbm {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat);
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.core.now_valid.next = false;
        self.core.now.next = self.zero48.val();
        self.unused_sumsq.sig.next = self.core.m_ro_sumsq.val();
        self.unused_interval_saturated.sig.next = self.core.period_interval_saturated.val();

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
        self.beat_word.next = (bit_cast::<32, 1>(self.core.m_ro_valid.val().into()) << 31)
            | (bit_cast::<32, 1>(self.core.m_ro_end.val().into()) << 30)
            | (bit_cast::<32, 1>(self.core.period_key_saturated.val().into()) << 29)
            | (bit_cast::<32, 1>(self.core.period_mass_saturated.val().into()) << 28)
            | bit_cast::<32, 11>(self.beat.q.val());
        self.take_word.next = (self.core.period_index.val() << 11) | bit_cast::<32, 11>(self.beat.q.val());
        self.take.next = self.bus_we.val()
            & self.page_hit.val()
            & (self.bus_addr.val().get_bits::<8>(0) == self.word_take.val())
            & self.core.m_ro_valid.val()
            & (self.bus_wdata.val() == self.take_word.val());
        self.core.m_ro_ready.next = self.take.val();
        if self.take.val() {
            self.beat.d.next = self.beat.q.val() + self.one11.val();
            if self.core.m_ro_end.val() {
                self.beat.d.next = self.zero11.val();
            }
        }
        self.bus_rdata.next = self.zero32.val();
        match self.bus_addr.val().get_bits::<8>(0).index() {
            0 => {
                self.bus_rdata.next = self.buckets.val();
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
                self.bus_rdata.next = self.core.period_merges.val().get_bits::<32>(0);
            }
            7 => {
                self.bus_rdata.next = self.core.period_merges.val().get_bits::<32>(32);
            }
            8 => {
                self.bus_rdata.next = self.core.period_tail_joins.val().get_bits::<32>(0);
            }
            9 => {
                self.bus_rdata.next = self.core.period_tail_joins.val().get_bits::<32>(32);
            }
            10 => {
                self.bus_rdata.next = self.beat_word.val();
            }
            11 => {
                self.bus_rdata.next = self.core.m_ro_first.val().get_bits::<32>(0);
            }
            12 => {
                self.bus_rdata.next = bit_cast::<32, 16>(self.core.m_ro_first.val().get_bits::<16>(32));
            }
            13 => {
                self.bus_rdata.next = self.core.m_ro_last_ts.val().get_bits::<32>(0);
            }
            14 => {
                self.bus_rdata.next = bit_cast::<32, 16>(self.core.m_ro_last_ts.val().get_bits::<16>(32));
            }
            15 => {
                self.bus_rdata.next = self.core.m_ro_mass.val().get_bits::<32>(0);
            }
            16 => {
                self.bus_rdata.next = bit_cast::<32, 24>(self.core.m_ro_mass.val().get_bits::<24>(32));
            }
            17 => {
                self.bus_rdata.next = self.core.m_ro_n.val();
            }
            18 => {
                self.bus_rdata.next = self.core.m_ro_max.val();
            }
            19 => {
                self.bus_rdata.next = self.core.m_ro_min.val();
            }
            20 => {
                self.bus_rdata.next = self.core.m_ro_flow.val();
            }
            21 => {
                self.bus_rdata.next = self.core.m_ro_flow_count.val();
            }
            _ => {}
        }

        // ---- synchronous reset ----
        if self.reset.val() {
            self.beat.d.next = self.zero11.val();
        }
    }
}
