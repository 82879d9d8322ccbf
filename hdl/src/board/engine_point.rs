//! One measurement point of the engine: an LDA core (Kompella et al., ToN
//! 2012, §III-B..C, §V) with its packet input, its register page and its
//! read-out window. The engine holds two, the sender and the receiver; each
//! decodes the register bus itself (its page and window of
//! [`engine_registers`](netmeas_sim::board::engine::engine_registers)) and
//! tells the engine whether an address is its own (`bus_hit`) and what it
//! answers (`bus_rdata`).
//!
//! **Packets.** The on-chip source's stream (`src_*`), or with `external`
//! the point's external packet-metadata stream (`x_*`). `x_ready` comes from
//! registers: the core's `s_ready` falls only at reset and its `flip_ready`
//! only at reset or at a flip this block gives it, so last clock's values are
//! this clock's except in the clock after a reset or a flip, which `reset_q`
//! and `flipped` cover (a rise is seen one clock late). No combinational path
//! runs from the stream through the core and back.
//!
//! **Page.** Words 0–7 write the core's CSRs (its classifier), a write of
//! word 13 clears its overflow flag; words 8–15 read the frozen epoch's
//! sequence number, packet and sampled counts, the overflow flag and the
//! presented row's count and timestamp-sum low word. Other words read 0.
//!
//! **Window** ([`ReadoutWindow`]). A read at `+ row` returns `{valid, last,
//! row, tsum[39:32]}` of the presented row and takes it only if it is that
//! row; the row taken last is kept, so a read the host repeats after a lost
//! response gets the same word back and takes nothing.

use super::readout_window::ReadoutWindow;
use crate::lda::LdaCore;
use netmeas_sim::lda::LdaConfig;
use rust_hdl::prelude::*;

/// A point whose core has `K`-bit keys, `2^RB` rows per bank and `A`-bit row addresses.
#[derive(LogicBlock)]
pub struct EnginePoint<const K: usize, const RB: usize, const A: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the measurement side: the core clears its memory, the window forgets its last row.
    pub reset: Signal<In, Bit>,
    // --- packet input ---
    /// The core takes the external stream instead of the source's (`CTRL.external`).
    pub external: Signal<In, Bit>,
    /// The source offers a packet.
    pub src_valid: Signal<In, Bit>,
    /// Its key.
    pub src_key: Signal<In, Bits<K>>,
    /// Its timestamp in ticks.
    pub src_ts: Signal<In, Bits<40>>,
    /// The source ends the epoch after this clock's packet.
    pub src_flip: Signal<In, Bit>,
    /// The external stream offers a packet.
    pub x_valid: Signal<In, Bit>,
    /// This clock's external packet and flip are taken.
    pub x_ready: Signal<Out, Bit>,
    /// Its key.
    pub x_key: Signal<In, Bits<K>>,
    /// Its timestamp in ticks (mod 2^40).
    pub x_ts: Signal<In, Bits<40>>,
    /// Its class field for the LDA classifier.
    pub x_class: Signal<In, Bits<8>>,
    /// End the epoch after this clock's external packet (with or without one).
    pub x_flip: Signal<In, Bit>,
    // --- register bus (the engine answers one clock later) ---
    /// Word address.
    pub bus_addr: Signal<In, Bits<16>>,
    /// Read strobe.
    pub bus_re: Signal<In, Bit>,
    /// Write strobe.
    pub bus_we: Signal<In, Bit>,
    /// Write data, bits 7:0 (the core's CSRs are 8 bits; the overflow clear takes no data).
    pub bus_wdata: Signal<In, Bits<8>>,
    /// The address is in this point's page or window.
    pub bus_hit: Signal<Out, Bit>,
    /// The answer at the address: the window word, or the page word (0 where the page holds none).
    pub bus_rdata: Signal<Out, Bits<32>>,
    // --- status ---
    /// The core takes packets (low while it clears its memory).
    pub s_ready: Signal<Out, Bit>,
    /// The core can take a flip.
    pub flip_ready: Signal<Out, Bit>,
    /// The core's live copy.
    pub epoch: Signal<Out, Bit>,
    /// A row of the frozen epoch is presented.
    pub ro_valid: Signal<Out, Bit>,
    /// A row count wrapped (sticky).
    pub ovf_sticky: Signal<Out, Bit>,
    // --- blocks ---
    core: LdaCore<K, RB, A>,
    ro_window: ReadoutWindow<A>,
    // --- constants ---
    page: Constant<Bits<8>>,
    page_region: Constant<Bits<2>>,
    csr_words: Constant<Bits<8>>,
    zero8: Constant<Bits<8>>,
    zero32: Constant<Bits<32>>,
    // --- registers ---
    reset_q: DFF<Bit>,
    s_ready_q: DFF<Bit>,
    flip_ready_q: DFF<Bit>,
    flipped: DFF<Bit>,
    // --- combinational helpers ---
    word: Signal<Local, Bits<8>>,
    page_hit: Signal<Local, Bit>,
    page_word: Signal<Local, Bits<32>>,
}

impl<const K: usize, const RB: usize, const A: usize> EnginePoint<K, RB, A> {
    /// The point for `lda` whose register page is `page` (1..=255) and whose
    /// read-out window is bus region `window` (1..=3: addresses `window` · 2^14 + row).
    pub fn new(lda: &LdaConfig, page: u8, window: u8) -> Self {
        assert!(page != 0, "page 0 is the engine's own");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            external: Default::default(),
            src_valid: Default::default(),
            src_key: Default::default(),
            src_ts: Default::default(),
            src_flip: Default::default(),
            x_valid: Default::default(),
            x_ready: Default::default(),
            x_key: Default::default(),
            x_ts: Default::default(),
            x_class: Default::default(),
            x_flip: Default::default(),
            bus_addr: Default::default(),
            bus_re: Default::default(),
            bus_we: Default::default(),
            bus_wdata: Default::default(),
            bus_hit: Default::default(),
            bus_rdata: Default::default(),
            s_ready: Default::default(),
            flip_ready: Default::default(),
            epoch: Default::default(),
            ro_valid: Default::default(),
            ovf_sticky: Default::default(),
            core: LdaCore::new(lda),
            ro_window: ReadoutWindow::new(window),
            page: Constant::new((page as u64).into()),
            page_region: Constant::new(0u64.into()),
            csr_words: Constant::new(8u64.into()),
            zero8: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
            reset_q: Default::default(),
            s_ready_q: Default::default(),
            flip_ready_q: Default::default(),
            flipped: Default::default(),
            word: Default::default(),
            page_hit: Default::default(),
            page_word: Default::default(),
        }
    }
}

impl<const K: usize, const RB: usize, const A: usize> Logic for EnginePoint<K, RB, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, reset_q, s_ready_q, flip_ready_q, flipped);
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.ro_window.clock.next = self.clock.val();
        self.ro_window.reset.next = self.reset.val();

        // ---- status ----
        self.s_ready.next = self.core.s_ready.val();
        self.flip_ready.next = self.core.flip_ready.val();
        self.epoch.next = self.core.epoch.val();
        self.ro_valid.next = self.core.m_ro_valid.val();
        self.ovf_sticky.next = self.core.ovf_sticky.val();

        // ---- packets: the source's, or the external stream's (ready from registers) ----
        self.reset_q.d.next = self.reset.val();
        self.s_ready_q.d.next = self.core.s_ready.val();
        self.flip_ready_q.d.next = self.core.flip_ready.val();
        self.x_ready.next = self.external.val()
            & !self.reset.val()
            & !self.reset_q.q.val()
            & self.s_ready_q.q.val()
            & (!self.x_flip.val() | (self.flip_ready_q.q.val() & !self.flipped.q.val()));
        self.flipped.d.next = self.x_flip.val() & self.x_ready.val();
        if self.external.val() {
            self.core.s_valid.next = self.x_valid.val() & self.x_ready.val();
            self.core.s_key.next = self.x_key.val();
            self.core.s_ts.next = self.x_ts.val();
            self.core.s_class.next = self.x_class.val();
            self.core.flip.next = self.x_flip.val() & self.x_ready.val();
        } else {
            self.core.s_valid.next = self.src_valid.val();
            self.core.s_key.next = self.src_key.val();
            self.core.s_ts.next = self.src_ts.val();
            self.core.s_class.next = self.zero8.val();
            self.core.flip.next = self.src_flip.val();
        }

        // ---- bus decode ----
        self.word.next = self.bus_addr.val().get_bits::<8>(0);
        self.page_hit.next = (self.bus_addr.val().get_bits::<2>(14) == self.page_region.val())
            & (self.bus_addr.val().get_bits::<8>(8) == self.page.val());
        self.bus_hit.next = self.page_hit.val() | self.ro_window.hit.val();

        // ---- read-out window: {valid, last, row, tsum[39:32]}; a read at the presented row takes it ----
        self.ro_window.enable.next = true;
        self.ro_window.bus_addr.next = self.bus_addr.val();
        self.ro_window.bus_re.next = self.bus_re.val();
        self.ro_window.ro_valid.next = self.core.m_ro_valid.val();
        self.ro_window.ro_last.next = self.core.m_ro_last.val();
        self.ro_window.ro_row.next = self.core.m_ro_addr.val();
        self.ro_window.ro_low.next = self.core.m_ro_tsum.val().get_bits::<8>(32);
        self.core.m_ro_ready.next = self.ro_window.take.val();

        // ---- page writes: the core's CSRs (words 0-7) and its overflow flag (word 13) ----
        self.core.csr_we.next = false;
        self.core.ovf_clear.next = false;
        self.core.csr_addr.next = self.word.val().get_bits::<3>(0);
        self.core.csr_wdata.next = self.bus_wdata.val();
        if self.bus_we.val() & self.page_hit.val() {
            if self.word.val() < self.csr_words.val() {
                self.core.csr_we.next = true;
            }
            match self.word.val().index() {
                13 => {
                    self.core.ovf_clear.next = true;
                }
                _ => {}
            }
        }

        // ---- page reads (one `case`: a parallel multiplexer) and the answer ----
        self.page_word.next = self.zero32.val();
        match self.word.val().index() {
            8 => {
                self.page_word.next = self.core.frozen_seq.val();
            }
            9 => {
                self.page_word.next = self.core.frozen_packets.val().get_bits::<32>(0);
            }
            10 => {
                self.page_word.next = bit_cast::<32, 16>(self.core.frozen_packets.val().get_bits::<16>(32));
            }
            11 => {
                self.page_word.next = self.core.frozen_sampled.val().get_bits::<32>(0);
            }
            12 => {
                self.page_word.next = bit_cast::<32, 16>(self.core.frozen_sampled.val().get_bits::<16>(32));
            }
            13 => {
                self.page_word.next = bit_cast::<32, 1>(self.core.ovf_sticky.val().into());
            }
            14 => {
                self.page_word.next = self.core.m_ro_count.val();
            }
            15 => {
                self.page_word.next = self.core.m_ro_tsum.val().get_bits::<32>(0);
            }
            _ => {}
        }
        if self.ro_window.hit.val() {
            self.bus_rdata.next = self.ro_window.answer.val();
        } else {
            self.bus_rdata.next = self.page_word.val();
        }
    }
}
