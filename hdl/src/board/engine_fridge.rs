//! The engine's fridge point: a fridge core (Zheng et al., *Unbiased Delay
//! Measurement in the Data Plane*, §3 (M, p)-fridge, §4.2 several fridges,
//! §6 hardware) on the on-chip source's packets, with its register page and
//! its histogram read-out window. The sender's packets are the requests and
//! the receiver's the responses (§2: a request/response pair per key), so
//! the fridge measures the distribution of the segment's delays, unbiased
//! by the entries' survivorship, beside the LDA pair's mean and deviation.
//!
//! **Feed.** The fridge takes one packet a clock; the source can offer one
//! at each point in the same clock. The sender's packet goes first; the
//! receiver's waits one clock in a holding register while `feed_ready` is
//! low, so the source draws no packet for that clock (back-pressure: nothing
//! is dropped, and the source's timestamps do not depend on its stalls).
//! The source's epoch flip becomes the core's `flip` input right after the
//! epoch's last packet (after the held one, if any); `feed_ready` stays low
//! while that flip is requested or pending, so the core's flip token enters
//! with no packet beside it and the epoch ends exactly there. IDs are the
//! XOR of the 120-bit key's 32-bit words, timestamps are shifted up by 8 bits
//! into the core's 48 so that its delay differences wrap with the engine's
//! 40-bit clock ([`fridge_id`](netmeas_sim::board::engine::fridge_id),
//! [`FRIDGE_TS_SHIFT`](netmeas_sim::board::engine::FRIDGE_TS_SHIFT)). On the
//! external streams the fridge takes no packets.
//!
//! **Page** (`reg::FRIDGE`): words 0–31 are the core's registers, written
//! and read through its CSR port (a read answers one clock later than the
//! engine's other registers); writes of `FLIP` and `HIST_POP` are ignored,
//! the engine flips the core and the window takes the rows.
//!
//! **Window** ([`ReadoutWindow`], `reg::FRIDGE_WINDOW + row`): `{valid,
//! last, row}` of the presented histogram row, taken only if it is that row;
//! the row taken last is kept, so a read the host repeats after a lost
//! response takes nothing.
//!
//! Without a fridge in the config the block is built with its core tied off
//! (`on` low): no packet, no answer, always ready, and synthesis removes it.

use super::readout_window::ReadoutWindow;
use crate::common::unused::Unused;
use crate::fridge::FridgeCore;
use netmeas_sim::board::engine::{ENGINE_FRIDGE_ADDR_BITS, FRIDGE_TS_SHIFT, engine_fridge_default};
use netmeas_sim::fridge::{FRIDGE_REG_FLIP, FRIDGE_REG_HIST_POP, FridgeConfig};
use rust_hdl::prelude::*;

/// Entry-address width of the engine's fridge core.
pub const FA: usize = ENGINE_FRIDGE_ADDR_BITS;

/// The fridge point.
#[derive(LogicBlock)]
pub struct EngineFridge {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the measurement side: the core clears its memories, the feed and the
    /// window forget what they hold.
    pub reset: Signal<In, Bit>,
    // --- the source's packets ---
    /// The source feeds the cores (low on the external streams: the fridge takes nothing).
    pub active: Signal<In, Bit>,
    /// A packet at the sender (a request).
    pub tx_valid: Signal<In, Bit>,
    /// Its key.
    pub tx_key: Signal<In, Bits<120>>,
    /// Its timestamp in ticks.
    pub tx_ts: Signal<In, Bits<40>>,
    /// A packet at the receiver (a response).
    pub rx_valid: Signal<In, Bit>,
    /// Its key.
    pub rx_key: Signal<In, Bits<120>>,
    /// Its timestamp in ticks.
    pub rx_ts: Signal<In, Bits<40>>,
    /// The epoch ends with this clock's packets.
    pub src_flip: Signal<In, Bit>,
    /// The source may draw a packet for the next clock.
    pub feed_ready: Signal<Out, Bit>,
    // --- register bus ---
    /// Word address.
    pub bus_addr: Signal<In, Bits<16>>,
    /// Read strobe.
    pub bus_re: Signal<In, Bit>,
    /// Write strobe.
    pub bus_we: Signal<In, Bit>,
    /// Write data.
    pub bus_wdata: Signal<In, Bits<32>>,
    /// The strobe is answered now with `bus_rdata` (a page write, or a window read or ignored write).
    pub bus_hit: Signal<Out, Bit>,
    /// The answer to a window read (0 for a page write).
    pub bus_rdata: Signal<Out, Bits<32>>,
    /// The page read strobed last clock is answered now with `bus_late_rdata`.
    pub bus_late: Signal<Out, Bit>,
    /// Its answer: the core's register (0 above word 31).
    pub bus_late_rdata: Signal<Out, Bits<32>>,
    // --- status ---
    /// The core takes packets (high without a fridge).
    pub s_ready: Signal<Out, Bit>,
    /// A frozen histogram row is presented.
    pub ro_valid: Signal<Out, Bit>,
    /// The core's flip waits for its previous read-out.
    pub flip_pending: Signal<Out, Bit>,
    /// A histogram field wrapped (sticky).
    pub ovf_sticky: Signal<Out, Bit>,
    // --- blocks ---
    core: FridgeCore<FA>,
    ro_window: ReadoutWindow<7>,
    unused_smp_valid: Unused<Bit>,
    unused_smp_fridge: Unused<Bits<2>>,
    unused_smp_delay: Unused<Bits<48>>,
    unused_smp_x: Unused<Bits<32>>,
    unused_smp_dropped: Unused<Bits<32>>,
    unused_epoch: Unused<Bit>,
    unused_ro_count: Unused<Bits<32>>,
    unused_ro_wsum: Unused<Bits<64>>,
    unused_ro_w2sum: Unused<Bits<64>>,
    unused_saturated: Unused<Bits<32>>,
    // --- constants ---
    on: Constant<Bit>,
    page: Constant<Bits<8>>,
    page_region: Constant<Bits<2>>,
    csr_words: Constant<Bits<8>>,
    word_flip: Constant<Bits<8>>,
    word_pop: Constant<Bits<8>>,
    ts_shift: Constant<Bits<6>>,
    zero8: Constant<Bits<8>>,
    zero32: Constant<Bits<32>>,
    // --- registers ---
    hold_valid: DFF<Bit>,
    hold_id: DFF<Bits<32>>,
    hold_ts: DFF<Bits<48>>,
    hold_flip: DFF<Bit>,
    late: DFF<Bit>,
    late_in_range: DFF<Bit>,
    // --- combinational helpers ---
    tx_id: Signal<Local, Bits<32>>,
    rx_id: Signal<Local, Bits<32>>,
    tx_wide: Signal<Local, Bits<128>>,
    rx_wide: Signal<Local, Bits<128>>,
    both: Signal<Local, Bit>,
    word: Signal<Local, Bits<8>>,
    page_hit: Signal<Local, Bit>,
}

impl EngineFridge {
    /// The fridge point for `cfg`, or a tied-off one for `None` (validated by the caller: the
    /// engine's fridge has [`FA`] entry-address bits). Its page is bus page `page`, its window bus
    /// region `window` (addresses `window` · 2^14 + row).
    pub fn new(cfg: Option<&FridgeConfig>, page: u8, window: u8) -> Self {
        assert!(page != 0, "page 0 is the engine's own");
        let core_cfg = cfg.cloned().unwrap_or_else(engine_fridge_default);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            active: Default::default(),
            tx_valid: Default::default(),
            tx_key: Default::default(),
            tx_ts: Default::default(),
            rx_valid: Default::default(),
            rx_key: Default::default(),
            rx_ts: Default::default(),
            src_flip: Default::default(),
            feed_ready: Default::default(),
            bus_addr: Default::default(),
            bus_re: Default::default(),
            bus_we: Default::default(),
            bus_wdata: Default::default(),
            bus_hit: Default::default(),
            bus_rdata: Default::default(),
            bus_late: Default::default(),
            bus_late_rdata: Default::default(),
            s_ready: Default::default(),
            ro_valid: Default::default(),
            flip_pending: Default::default(),
            ovf_sticky: Default::default(),
            core: FridgeCore::new(&core_cfg),
            ro_window: ReadoutWindow::new(window),
            unused_smp_valid: Default::default(),
            unused_smp_fridge: Default::default(),
            unused_smp_delay: Default::default(),
            unused_smp_x: Default::default(),
            unused_smp_dropped: Default::default(),
            unused_epoch: Default::default(),
            unused_ro_count: Default::default(),
            unused_ro_wsum: Default::default(),
            unused_ro_w2sum: Default::default(),
            unused_saturated: Default::default(),
            on: Constant::new(cfg.is_some()),
            page: Constant::new((page as u64).into()),
            page_region: Constant::new(0u64.into()),
            csr_words: Constant::new(32u64.into()),
            word_flip: Constant::new((FRIDGE_REG_FLIP as u64).into()),
            word_pop: Constant::new((FRIDGE_REG_HIST_POP as u64).into()),
            ts_shift: Constant::new((FRIDGE_TS_SHIFT as u64).into()),
            zero8: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
            hold_valid: Default::default(),
            hold_id: Default::default(),
            hold_ts: Default::default(),
            hold_flip: Default::default(),
            late: Default::default(),
            late_in_range: Default::default(),
            tx_id: Default::default(),
            rx_id: Default::default(),
            tx_wide: Default::default(),
            rx_wide: Default::default(),
            both: Default::default(),
            word: Default::default(),
            page_hit: Default::default(),
        }
    }
}

impl Logic for EngineFridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hold_valid, hold_id, hold_ts, hold_flip, late, late_in_range);
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.ro_window.clock.next = self.clock.val();
        self.ro_window.reset.next = self.reset.val();

        // ---- outputs nobody reads: the sample stream (the histograms hold every sample) ----
        self.core.m_smp_ready.next = true;
        self.core.ovf_clear.next = false;
        self.unused_smp_valid.sig.next = self.core.m_smp_valid.val();
        self.unused_smp_fridge.sig.next = self.core.m_smp_fridge.val();
        self.unused_smp_delay.sig.next = self.core.m_smp_delay.val();
        self.unused_smp_x.sig.next = self.core.m_smp_x.val();
        self.unused_smp_dropped.sig.next = self.core.smp_dropped.val();
        self.unused_epoch.sig.next = self.core.epoch.val();
        self.unused_ro_count.sig.next = self.core.m_ro_count.val();
        self.unused_ro_wsum.sig.next = self.core.m_ro_wsum.val();
        self.unused_ro_w2sum.sig.next = self.core.m_ro_w2sum.val();
        self.unused_saturated.sig.next = self.core.saturated.val();

        // ---- status ----
        self.s_ready.next = self.core.s_ready.val() | !self.on.val();
        self.ro_valid.next = self.core.m_ro_valid.val() & self.on.val();
        self.flip_pending.next = self.core.flip_pending.val() & self.on.val();
        self.ovf_sticky.next = self.core.ovf_sticky.val() & self.on.val();

        // ---- feed: the sender's packet first, the receiver's one clock later; then the flip ----
        self.tx_wide.next = bit_cast::<128, 120>(self.tx_key.val());
        self.rx_wide.next = bit_cast::<128, 120>(self.rx_key.val());
        self.tx_id.next = self.tx_wide.val().get_bits::<32>(0)
            ^ self.tx_wide.val().get_bits::<32>(32)
            ^ self.tx_wide.val().get_bits::<32>(64)
            ^ self.tx_wide.val().get_bits::<32>(96);
        self.rx_id.next = self.rx_wide.val().get_bits::<32>(0)
            ^ self.rx_wide.val().get_bits::<32>(32)
            ^ self.rx_wide.val().get_bits::<32>(64)
            ^ self.rx_wide.val().get_bits::<32>(96);
        self.both.next = self.tx_valid.val() & self.rx_valid.val();
        self.hold_valid.d.next = false;
        self.hold_flip.d.next = false;
        if self.hold_valid.q.val() {
            self.core.s_valid.next = self.on.val();
            self.core.s_id.next = self.hold_id.q.val();
            self.core.s_response.next = true;
            self.core.s_ts.next = self.hold_ts.q.val();
            self.core.flip.next = self.hold_flip.q.val() & self.on.val();
        } else if self.tx_valid.val() {
            self.core.s_valid.next = self.active.val() & self.on.val();
            self.core.s_id.next = self.tx_id.val();
            self.core.s_response.next = false;
            self.core.s_ts.next = bit_cast::<48, 40>(self.tx_ts.val()) << self.ts_shift.val();
            self.core.flip.next = self.active.val() & self.on.val() & self.src_flip.val() & !self.rx_valid.val();
            self.hold_valid.d.next = self.active.val() & self.on.val() & self.rx_valid.val();
            self.hold_flip.d.next = self.src_flip.val() & self.rx_valid.val();
        } else {
            self.core.s_valid.next = self.active.val() & self.on.val() & self.rx_valid.val();
            self.core.s_id.next = self.rx_id.val();
            self.core.s_response.next = true;
            self.core.s_ts.next = bit_cast::<48, 40>(self.rx_ts.val()) << self.ts_shift.val();
            self.core.flip.next = self.active.val() & self.on.val() & self.src_flip.val();
        }
        self.hold_id.d.next = self.rx_id.val();
        self.hold_ts.d.next = bit_cast::<48, 40>(self.rx_ts.val()) << self.ts_shift.val();
        self.feed_ready.next = !self.on.val()
            | !self.active.val()
            | (self.core.s_ready.val()
                & !self.both.val()
                & !self.src_flip.val()
                & !(self.hold_valid.q.val() & self.hold_flip.q.val())
                & !self.core.flip_pending.val());

        // ---- bus decode ----
        self.word.next = self.bus_addr.val().get_bits::<8>(0);
        self.page_hit.next = self.on.val()
            & (self.bus_addr.val().get_bits::<2>(14) == self.page_region.val())
            & (self.bus_addr.val().get_bits::<8>(8) == self.page.val());

        // ---- page: writes to the core's registers (not FLIP, not HIST_POP); reads one clock later ----
        self.core.csr_addr.next = self.word.val().get_bits::<5>(0);
        self.core.csr_wdata.next = self.bus_wdata.val();
        self.core.csr_we.next = self.bus_we.val()
            & self.page_hit.val()
            & (self.word.val() < self.csr_words.val())
            & (self.word.val() != self.word_flip.val())
            & (self.word.val() != self.word_pop.val());
        self.core.csr_re.next = self.bus_re.val() & self.page_hit.val() & (self.word.val() < self.csr_words.val());
        self.late.d.next = self.bus_re.val() & self.page_hit.val();
        self.late_in_range.d.next = self.word.val() < self.csr_words.val();
        self.bus_late.next = self.late.q.val();
        if self.late_in_range.q.val() {
            self.bus_late_rdata.next = self.core.csr_rdata.val();
        } else {
            self.bus_late_rdata.next = self.zero32.val();
        }

        // ---- window: {valid, last, row}; a read at the presented row takes it ----
        self.ro_window.enable.next = self.on.val();
        self.ro_window.bus_addr.next = self.bus_addr.val();
        self.ro_window.bus_re.next = self.bus_re.val();
        self.ro_window.ro_valid.next = self.core.m_ro_valid.val();
        self.ro_window.ro_last.next = self.core.m_ro_last.val();
        self.ro_window.ro_row.next = self.core.m_ro_row.val();
        self.ro_window.ro_low.next = self.zero8.val();
        self.core.m_ro_ready.next = self.ro_window.take.val();
        self.bus_hit.next = (self.bus_we.val() & self.page_hit.val()) | self.ro_window.hit.val();
        if self.ro_window.hit.val() {
            self.bus_rdata.next = self.ro_window.answer.val();
        } else {
            self.bus_rdata.next = self.zero32.val();
        }

        // ---- synchronous reset ----
        if self.reset.val() {
            self.hold_valid.d.next = false;
            self.hold_flip.d.next = false;
            self.late.d.next = false;
        }
    }
}
