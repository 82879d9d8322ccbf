//! The engine's bandwidth packets: the sender's packets as the EXPB and DBM
//! points see them (Uyeda et al. §2: a packet is a time, a length and a flow).
//!
//! A sender packet becomes [`bandwidth_packet`](netmeas_sim::board::engine::bandwidth_packet):
//! its time is the points' own clock, which starts at 0 after reset and
//! advances `GAP` ticks with every sender packet (the source's timeline
//! without the pauses between epochs, so a period never holds seconds of
//! silence while the host reads an epoch); its length is 64 + key bits 41:32
//! bytes and its flow the leading zeros of key bits 63:48. On the external
//! streams (`active` low) no packet is made and the time stands still.

use crate::common::leading_zeros::LeadingZeros16;
use rust_hdl::prelude::*;

/// The sender's packets as bandwidth packets, and the points' time.
#[derive(LogicBlock)]
pub struct BandwidthFeed {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the measurement side: the time returns to 0.
    pub reset: Signal<In, Bit>,
    // --- the source's sender packets ---
    /// The source feeds the cores (low on the external streams).
    pub active: Signal<In, Bit>,
    /// A packet at the sender.
    pub tx_valid: Signal<In, Bit>,
    /// Its key's bits 41:32 (the length draw).
    pub tx_len_draw: Signal<In, Bits<10>>,
    /// Its key's bits 63:48 (the flow draw).
    pub tx_flow_draw: Signal<In, Bits<16>>,
    /// The source's `GAP` register: ticks from one packet to the next (0 acts as 1).
    pub gap: Signal<In, Bits<16>>,
    // --- the bandwidth packet, in the sender packet's clock ---
    /// A bandwidth packet.
    pub pkt_valid: Signal<Out, Bit>,
    /// Its time: the points' time, which is the next packet's when there is none.
    pub pkt_ts: Signal<Out, Bits<48>>,
    /// Its length in bytes.
    pub pkt_len: Signal<Out, Bits<32>>,
    /// Its flow.
    pub pkt_flow: Signal<Out, Bits<32>>,
    // --- blocks and registers ---
    flow_draw: LeadingZeros16,
    point_time: DFF<Bits<48>>,
    // --- constants ---
    len_base: Constant<Bits<32>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    zero48: Constant<Bits<48>>,
    // --- combinational helpers ---
    step: Signal<Local, Bits<16>>,
}

impl Default for BandwidthFeed {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            active: Default::default(),
            tx_valid: Default::default(),
            tx_len_draw: Default::default(),
            tx_flow_draw: Default::default(),
            gap: Default::default(),
            pkt_valid: Default::default(),
            pkt_ts: Default::default(),
            pkt_len: Default::default(),
            pkt_flow: Default::default(),
            flow_draw: Default::default(),
            point_time: Default::default(),
            len_base: Constant::new(64u64.into()),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            zero48: Constant::new(0u64.into()),
            step: Default::default(),
        }
    }
}

impl Logic for BandwidthFeed {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, point_time);
        self.step.next = self.gap.val();
        if self.gap.val() == self.zero16.val() {
            self.step.next = self.one16.val();
        }
        self.pkt_valid.next = self.tx_valid.val() & self.active.val();
        self.pkt_ts.next = self.point_time.q.val();
        self.pkt_len.next = bit_cast::<32, 10>(self.tx_len_draw.val()) + self.len_base.val();
        self.flow_draw.value.next = self.tx_flow_draw.val();
        self.pkt_flow.next = bit_cast::<32, 5>(self.flow_draw.zeros.val());
        if self.tx_valid.val() & self.active.val() {
            self.point_time.d.next = self.point_time.q.val() + bit_cast::<48, 16>(self.step.val());
        }
        if self.reset.val() {
            self.point_time.d.next = self.zero48.val();
        }
    }
}
