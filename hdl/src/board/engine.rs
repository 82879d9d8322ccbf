//! The measurement engine: what a board runs. A sender and a receiver
//! measurement point ([`EnginePoint`]: an LDA core, Kompella et al., ToN
//! 2012, §III-B..C, §V, with its register page and read-out window) measure
//! the on-chip traffic source's two packet streams, or, with
//! `CTRL.external`, two external packet-metadata streams (`x_tx_*`,
//! `x_rx_*`: a NIC's or a switch's ingress and egress points), each ending
//! its epochs with its own flip. On the source's streams a fridge point
//! ([`EngineFridge`]: a fridge core, Zheng et al. §3, §4.2, §6, taking the
//! sender's packets as requests and the receiver's as responses) measures
//! the delay distribution, an EXPB point ([`EngineExpb`]: an EXPB core,
//! Uyeda et al. §3.2, §3.3) the bandwidth at every scale 2^j Δ_1, and a DBM
//! point ([`EngineDbm`]: a DBM core, §3.1, §5) a partition of each period
//! into m buckets that answers the bandwidth at any scale, both on the
//! sender's packets as [`BandwidthFeed`] makes them. One 40-bit timestamp counter (one tick per clock) stamps
//! the source's epochs; the host reaches everything through the host link
//! ([`LinkTop`]) on a 16-bit register bus whose map is
//! [`engine_registers`](netmeas_sim::board::engine::engine_registers)
//! (`csr.json`, `docs/board.md`).
//!
//! Bus: a strobe's side effects happen at its clock; the answer (`bus_ack`,
//! `bus_rdata`) is registered and comes one clock later (two for a read of
//! the fridge's page, which goes through its core's CSR port). Pages 0x00
//! (the engine), 0x01 (sender), 0x02 (receiver), 0x03 (fridge), 0x04 (EXPB) and 0x05 (DBM) and the
//! three read-out windows answer, unassigned words in them read 0; any other address is not
//! answered, so the bridge reports a bus timeout. Each point decodes its
//! page and its window itself; the engine registers the answer.
//!
//! Read-out: each core's frozen epoch streams out one row at a time; the
//! presented row's count and timestamp-sum low word are plain registers, and
//! a read of the core's window at `+ row` returns the rest of the row and
//! takes it only if it is that row. The row taken last is kept, so a read
//! the host repeats after a lost response gets the same word back and takes
//! nothing: reads over a noisy link never skip or repeat a row.

use super::bandwidth_feed::BandwidthFeed;
use super::engine_dbm::EngineDbm;
use super::engine_expb::EngineExpb;
use super::engine_fridge::EngineFridge;
use super::engine_point::EnginePoint;
use super::link_top::LinkTop;
use super::traffic_source::TrafficSource;
use netmeas_sim::board::engine::{ENGINE_ID, EngineConfig, reg};
use rust_hdl::prelude::*;

/// The engine with `K`-bit LDA keys, `2^RB` rows per bank and `A`-bit row addresses.
#[derive(LogicBlock)]
pub struct Engine<const K: usize, const RB: usize, const A: usize> {
    // --- clock and synchronous reset ---
    /// Clock (the link's `uart.clock_hz`).
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of everything, the link included.
    pub reset: Signal<In, Bit>,
    // --- serial line ---
    /// From the host.
    pub rx: Signal<In, Bit>,
    /// To the host.
    pub tx: Signal<Out, Bit>,
    // --- status lights ---
    /// Bit 0 running, 1 frozen epoch waiting for read-out, 2 source waiting, 3 any overflow.
    pub leds: Signal<Out, Bits<4>>,
    // --- external packet metadata at the sender point (used while CTRL.external is set) ---
    /// A packet is offered.
    pub x_tx_valid: Signal<In, Bit>,
    /// This clock's packet and flip are taken (low while CTRL.external is clear, while the core
    /// clears its memory after a reset, in the clock after a flip, and while a flip waits for the
    /// previous epoch's read-out).
    pub x_tx_ready: Signal<Out, Bit>,
    /// Packet key.
    pub x_tx_key: Signal<In, Bits<K>>,
    /// Timestamp in ticks (mod 2^40).
    pub x_tx_ts: Signal<In, Bits<40>>,
    /// Class field for the LDA classifier.
    pub x_tx_class: Signal<In, Bits<8>>,
    /// End the sender's epoch after this clock's packet (with or without one).
    pub x_tx_flip: Signal<In, Bit>,
    // --- external packet metadata at the receiver point (used while CTRL.external is set) ---
    /// A packet is offered.
    pub x_rx_valid: Signal<In, Bit>,
    /// This clock's packet and flip are taken (as `x_tx_ready`).
    pub x_rx_ready: Signal<Out, Bit>,
    /// Packet key.
    pub x_rx_key: Signal<In, Bits<K>>,
    /// Timestamp in ticks (mod 2^40).
    pub x_rx_ts: Signal<In, Bits<40>>,
    /// Class field for the LDA classifier.
    pub x_rx_class: Signal<In, Bits<8>>,
    /// End the receiver's epoch after this clock's packet (with or without one).
    pub x_rx_flip: Signal<In, Bit>,
    // --- blocks ---
    link: LinkTop,
    source: TrafficSource,
    sender: EnginePoint<K, RB, A>,
    receiver: EnginePoint<K, RB, A>,
    fridge: EngineFridge,
    bandwidth: BandwidthFeed,
    expb: EngineExpb,
    dbm: EngineDbm,
    // --- constants ---
    id: Constant<Bits<32>>,
    config_word: Constant<Bits<32>>,
    epoch_packets_reset: Constant<Bits<32>>,
    one16: Constant<Bits<16>>,
    one40: Constant<Bits<40>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    zero64: Constant<Bits<64>>,
    sh16: Constant<Bits<5>>,
    page0: Constant<Bits<8>>,
    region0: Constant<Bits<2>>,
    // --- registers ---
    timestamp: DFF<Bits<40>>,
    run: DFF<Bit>,
    external: DFF<Bit>,
    meas_reset: DFF<Bit>,
    seed_lo: DFF<Bits<32>>,
    seed_hi: DFF<Bits<32>>,
    epoch_packets: DFF<Bits<32>>,
    gap: DFF<Bits<16>>,
    loss: DFF<Bits<16>>,
    reorder: DFF<Bits<16>>,
    ack: DFF<Bit>,
    rdata: DFF<Bits<32>>,
    // --- combinational helpers ---
    core_reset: Signal<Local, Bit>,
    page: Signal<Local, Bits<8>>,
    word: Signal<Local, Bits<8>>,
    region: Signal<Local, Bits<2>>,
    strobe: Signal<Local, Bit>,
    status: Signal<Local, Bits<32>>,
}

impl<const K: usize, const RB: usize, const A: usize> Engine<K, RB, A> {
    /// The engine for `cfg` (validated by the caller; its widths must match the type's).
    pub fn new(cfg: &EngineConfig) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            leds: Default::default(),
            x_tx_valid: Default::default(),
            x_tx_ready: Default::default(),
            x_tx_key: Default::default(),
            x_tx_ts: Default::default(),
            x_tx_class: Default::default(),
            x_tx_flip: Default::default(),
            x_rx_valid: Default::default(),
            x_rx_ready: Default::default(),
            x_rx_key: Default::default(),
            x_rx_ts: Default::default(),
            x_rx_class: Default::default(),
            x_rx_flip: Default::default(),
            link: LinkTop::new(&cfg.link),
            source: TrafficSource::default(),
            sender: EnginePoint::new(&cfg.lda, (reg::SENDER >> 8) as u8, (reg::SENDER_WINDOW >> 14) as u8),
            receiver: EnginePoint::new(&cfg.lda, (reg::RECEIVER >> 8) as u8, (reg::RECEIVER_WINDOW >> 14) as u8),
            fridge: EngineFridge::new(cfg.fridge.as_ref(), (reg::FRIDGE >> 8) as u8, (reg::FRIDGE_WINDOW >> 14) as u8),
            bandwidth: Default::default(),
            expb: EngineExpb::new(cfg.expb.as_ref(), (reg::EXPB >> 8) as u8),
            dbm: EngineDbm::new(cfg.dbm.as_ref(), (reg::DBM >> 8) as u8),
            id: Constant::new((ENGINE_ID as u64).into()),
            config_word: Constant::new((cfg.config_word() as u64).into()),
            epoch_packets_reset: Constant::new(65_536u64.into()),
            one16: Constant::new(1u64.into()),
            one40: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
            zero64: Constant::new(0u64.into()),
            sh16: Constant::new(16u64.into()),
            page0: Constant::new(0u64.into()),
            region0: Constant::new(0u64.into()),
            timestamp: Default::default(),
            run: Default::default(),
            external: Default::default(),
            meas_reset: Default::default(),
            seed_lo: Default::default(),
            seed_hi: Default::default(),
            epoch_packets: Default::default(),
            gap: Default::default(),
            loss: Default::default(),
            reorder: Default::default(),
            ack: Default::default(),
            rdata: Default::default(),
            core_reset: Default::default(),
            page: Default::default(),
            word: Default::default(),
            region: Default::default(),
            strobe: Default::default(),
            status: Default::default(),
        }
    }
}

impl<const K: usize, const RB: usize, const A: usize> Logic for Engine<K, RB, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            timestamp,
            run,
            external,
            meas_reset,
            seed_lo,
            seed_hi,
            epoch_packets,
            gap,
            loss,
            reorder,
            ack,
            rdata
        );
        self.link.clock.next = self.clock.val();
        self.source.clock.next = self.clock.val();
        self.sender.clock.next = self.clock.val();
        self.receiver.clock.next = self.clock.val();
        self.fridge.clock.next = self.clock.val();
        self.bandwidth.clock.next = self.clock.val();
        self.expb.clock.next = self.clock.val();
        self.dbm.clock.next = self.clock.val();
        self.link.reset.next = self.reset.val();
        self.core_reset.next = self.reset.val() | self.meas_reset.q.val();
        self.source.reset.next = self.core_reset.val();
        self.sender.reset.next = self.core_reset.val();
        self.receiver.reset.next = self.core_reset.val();
        self.fridge.reset.next = self.core_reset.val();
        self.bandwidth.reset.next = self.core_reset.val();
        self.expb.reset.next = self.core_reset.val();
        self.dbm.reset.next = self.core_reset.val();
        self.timestamp.d.next = self.timestamp.q.val() + self.one40.val();

        // ---- serial line ----
        self.link.rx.next = self.rx.val();
        self.tx.next = self.link.tx.val();

        // ---- source -> points; the external streams -> points (CTRL.external) ----
        self.source.run.next = self.run.q.val() & !self.external.q.val();
        self.source.epoch_packets.next = self.epoch_packets.q.val();
        self.source.gap.next = self.gap.q.val();
        self.source.loss.next = self.loss.q.val();
        self.source.reorder.next = self.reorder.q.val();
        self.source.seed.next = bit_cast::<64, 32>(self.seed_hi.q.val()) << self.sh16.val() << self.sh16.val()
            | bit_cast::<64, 32>(self.seed_lo.q.val());
        self.source.now.next = self.timestamp.q.val();
        self.source.sink_ready.next = self.sender.s_ready.val()
            & self.receiver.s_ready.val()
            & self.fridge.feed_ready.val()
            & self.expb.feed_ready.val()
            & self.dbm.feed_ready.val()
            & !self.external.q.val();
        self.source.flip_ready.next = self.sender.flip_ready.val() & self.receiver.flip_ready.val();
        self.sender.external.next = self.external.q.val();
        self.sender.src_valid.next = self.source.tx_valid.val();
        self.sender.src_key.next = bit_cast::<K, 120>(self.source.tx_key.val());
        self.sender.src_ts.next = self.source.tx_ts.val();
        self.sender.src_flip.next = self.source.flip.val();
        self.sender.x_valid.next = self.x_tx_valid.val();
        self.sender.x_key.next = self.x_tx_key.val();
        self.sender.x_ts.next = self.x_tx_ts.val();
        self.sender.x_class.next = self.x_tx_class.val();
        self.sender.x_flip.next = self.x_tx_flip.val();
        self.x_tx_ready.next = self.sender.x_ready.val();
        self.receiver.external.next = self.external.q.val();
        self.receiver.src_valid.next = self.source.rx_valid.val();
        self.receiver.src_key.next = bit_cast::<K, 120>(self.source.rx_key.val());
        self.receiver.src_ts.next = self.source.rx_ts.val();
        self.receiver.src_flip.next = self.source.flip.val();
        self.receiver.x_valid.next = self.x_rx_valid.val();
        self.receiver.x_key.next = self.x_rx_key.val();
        self.receiver.x_ts.next = self.x_rx_ts.val();
        self.receiver.x_class.next = self.x_rx_class.val();
        self.receiver.x_flip.next = self.x_rx_flip.val();
        self.x_rx_ready.next = self.receiver.x_ready.val();
        self.fridge.active.next = !self.external.q.val();
        self.fridge.tx_valid.next = self.source.tx_valid.val();
        self.fridge.tx_key.next = self.source.tx_key.val();
        self.fridge.tx_ts.next = self.source.tx_ts.val();
        self.fridge.rx_valid.next = self.source.rx_valid.val();
        self.fridge.rx_key.next = self.source.rx_key.val();
        self.fridge.rx_ts.next = self.source.rx_ts.val();
        self.fridge.src_flip.next = self.source.flip.val();
        self.bandwidth.active.next = !self.external.q.val();
        self.bandwidth.tx_valid.next = self.source.tx_valid.val();
        self.bandwidth.tx_len_draw.next = self.source.tx_key.val().get_bits::<10>(32);
        self.bandwidth.tx_flow_draw.next = self.source.tx_key.val().get_bits::<16>(48);
        self.bandwidth.gap.next = self.gap.q.val();
        self.expb.active.next = !self.external.q.val();
        self.expb.pkt_valid.next = self.bandwidth.pkt_valid.val();
        self.expb.pkt_ts.next = self.bandwidth.pkt_ts.val();
        self.expb.pkt_len.next = self.bandwidth.pkt_len.val();
        self.expb.pkt_flow.next = self.bandwidth.pkt_flow.val();
        self.dbm.active.next = !self.external.q.val();
        self.dbm.pkt_valid.next = self.bandwidth.pkt_valid.val();
        self.dbm.pkt_ts.next = self.bandwidth.pkt_ts.val();
        self.dbm.pkt_len.next = self.bandwidth.pkt_len.val();
        self.dbm.pkt_flow.next = self.bandwidth.pkt_flow.val();

        // ---- bus: the points decode their pages and windows themselves ----
        self.sender.bus_addr.next = self.link.bus_addr.val();
        self.sender.bus_re.next = self.link.bus_re.val();
        self.sender.bus_we.next = self.link.bus_we.val();
        self.sender.bus_wdata.next = self.link.bus_wdata.val().get_bits::<8>(0);
        self.receiver.bus_addr.next = self.link.bus_addr.val();
        self.receiver.bus_re.next = self.link.bus_re.val();
        self.receiver.bus_we.next = self.link.bus_we.val();
        self.receiver.bus_wdata.next = self.link.bus_wdata.val().get_bits::<8>(0);
        self.fridge.bus_addr.next = self.link.bus_addr.val();
        self.fridge.bus_re.next = self.link.bus_re.val();
        self.fridge.bus_we.next = self.link.bus_we.val();
        self.fridge.bus_wdata.next = self.link.bus_wdata.val();
        self.expb.bus_addr.next = self.link.bus_addr.val();
        self.expb.bus_we.next = self.link.bus_we.val();
        self.expb.bus_wdata.next = self.link.bus_wdata.val();
        self.dbm.bus_addr.next = self.link.bus_addr.val();
        self.dbm.bus_we.next = self.link.bus_we.val();
        self.dbm.bus_wdata.next = self.link.bus_wdata.val();
        self.page.next = self.link.bus_addr.val().get_bits::<8>(8);
        self.word.next = self.link.bus_addr.val().get_bits::<8>(0);
        self.region.next = self.link.bus_addr.val().get_bits::<2>(14);
        self.strobe.next = self.link.bus_re.val() | self.link.bus_we.val();
        self.status.next = bit_cast::<32, 1>(self.run.q.val().into())
            | (bit_cast::<32, 1>((self.sender.ro_valid.val() & self.receiver.ro_valid.val()).into()) << 1)
            | (bit_cast::<32, 1>(self.source.waiting.val().into()) << 2)
            | (bit_cast::<32, 1>(self.sender.ovf_sticky.val().into()) << 3)
            | (bit_cast::<32, 1>(self.receiver.ovf_sticky.val().into()) << 4)
            | (bit_cast::<32, 1>(
                (self.sender.s_ready.val() & self.receiver.s_ready.val() & self.fridge.s_ready.val()).into(),
            ) << 5)
            | (bit_cast::<32, 1>(self.sender.epoch.val().into()) << 6)
            | (bit_cast::<32, 1>(self.receiver.epoch.val().into()) << 7)
            | (bit_cast::<32, 1>(self.fridge.ro_valid.val().into()) << 8)
            | (bit_cast::<32, 1>(self.fridge.flip_pending.val().into()) << 9)
            | (bit_cast::<32, 1>(self.fridge.ovf_sticky.val().into()) << 10)
            | (bit_cast::<32, 1>(self.expb.ro_valid.val().into()) << 11)
            | (bit_cast::<32, 1>(self.dbm.ro_valid.val().into()) << 12)
            | (bit_cast::<32, 16>(self.source.epochs.val()) << self.sh16.val());

        // ---- register writes of page 0x00 (effective from the next clock) ----
        self.meas_reset.d.next = false;
        self.source.seed_load.next = false;
        self.source.table_we.next = false;
        self.source.table_index.next = self.link.bus_wdata.val().get_bits::<8>(24);
        self.source.table_delay.next = self.link.bus_wdata.val().get_bits::<24>(0);
        if self.link.bus_we.val() & (self.region.val() == self.region0.val()) & (self.page.val() == self.page0.val()) {
            match self.word.val().index() {
                2 => {
                    self.run.d.next = self.link.bus_wdata.val().get_bit(0);
                    self.external.d.next = self.link.bus_wdata.val().get_bit(1);
                }
                3 => {
                    self.meas_reset.d.next = self.link.bus_wdata.val().get_bit(0);
                }
                4 => {
                    self.seed_lo.d.next = self.link.bus_wdata.val();
                }
                5 => {
                    self.seed_hi.d.next = self.link.bus_wdata.val();
                    self.source.seed.next =
                        (bit_cast::<64, 32>(self.link.bus_wdata.val()) << self.sh16.val() << self.sh16.val())
                            | bit_cast::<64, 32>(self.seed_lo.q.val());
                    self.source.seed_load.next = true;
                }
                6 => {
                    self.epoch_packets.d.next = self.link.bus_wdata.val();
                }
                7 => {
                    self.gap.d.next = self.link.bus_wdata.val().get_bits::<16>(0);
                }
                8 => {
                    self.loss.d.next = self.link.bus_wdata.val().get_bits::<16>(0);
                }
                9 => {
                    self.reorder.d.next = self.link.bus_wdata.val().get_bits::<16>(0);
                }
                10 => {
                    self.source.table_we.next = true;
                }
                _ => {}
            }
        }

        // ---- register reads (the answer is registered; page 0x00 is one `case`,
        // a parallel multiplexer rather than a priority chain) ----
        self.ack.d.next = false;
        self.rdata.d.next = self.zero32.val();
        if self.strobe.val() {
            if self.sender.bus_hit.val() {
                self.ack.d.next = true;
                self.rdata.d.next = self.sender.bus_rdata.val();
            }
            if self.receiver.bus_hit.val() {
                self.ack.d.next = true;
                self.rdata.d.next = self.receiver.bus_rdata.val();
            }
            if self.fridge.bus_hit.val() {
                self.ack.d.next = true;
                self.rdata.d.next = self.fridge.bus_rdata.val();
            }
            if self.expb.bus_hit.val() {
                self.ack.d.next = true;
                self.rdata.d.next = self.expb.bus_rdata.val();
            }
            if self.dbm.bus_hit.val() {
                self.ack.d.next = true;
                self.rdata.d.next = self.dbm.bus_rdata.val();
            }
            if (self.region.val() == self.region0.val()) & (self.page.val() == self.page0.val()) {
                self.ack.d.next = true;
                match self.word.val().index() {
                    0 => {
                        self.rdata.d.next = self.id.val();
                    }
                    1 => {
                        self.rdata.d.next = self.config_word.val();
                    }
                    2 => {
                        self.rdata.d.next = bit_cast::<32, 1>(self.run.q.val().into())
                            | (bit_cast::<32, 1>(self.external.q.val().into()) << 1);
                    }
                    4 => {
                        self.rdata.d.next = self.seed_lo.q.val();
                    }
                    5 => {
                        self.rdata.d.next = self.seed_hi.q.val();
                    }
                    6 => {
                        self.rdata.d.next = self.epoch_packets.q.val();
                    }
                    7 => {
                        self.rdata.d.next = bit_cast::<32, 16>(self.gap.q.val());
                    }
                    8 => {
                        self.rdata.d.next = bit_cast::<32, 16>(self.loss.q.val());
                    }
                    9 => {
                        self.rdata.d.next = bit_cast::<32, 16>(self.reorder.q.val());
                    }
                    16 => {
                        self.rdata.d.next = self.status.val();
                    }
                    17 => {
                        self.rdata.d.next = self.timestamp.q.val().get_bits::<32>(0);
                    }
                    18 => {
                        self.rdata.d.next = bit_cast::<32, 8>(self.timestamp.q.val().get_bits::<8>(32));
                    }
                    19 => {
                        self.rdata.d.next = self.source.frozen_start.val().get_bits::<32>(0);
                    }
                    20 => {
                        self.rdata.d.next = bit_cast::<32, 8>(self.source.frozen_start.val().get_bits::<8>(32));
                    }
                    21 => {
                        self.rdata.d.next = self.source.frozen_sent.val();
                    }
                    22 => {
                        self.rdata.d.next = self.source.frozen_received.val();
                    }
                    23 => {
                        self.rdata.d.next = self.source.frozen_lost.val();
                    }
                    24 => {
                        self.rdata.d.next = self.source.frozen_delay.val().get_bits::<32>(0);
                    }
                    25 => {
                        self.rdata.d.next = self.source.frozen_delay.val().get_bits::<32>(32);
                    }
                    26 => {
                        self.rdata.d.next = (bit_cast::<32, 16>(self.link.overruns.val()) << self.sh16.val())
                            | bit_cast::<32, 16>(self.link.frame_errors.val());
                    }
                    27 => {
                        self.rdata.d.next = (bit_cast::<32, 16>(self.link.truncated.val()) << self.sh16.val())
                            | bit_cast::<32, 16>(self.link.crc_errors.val());
                    }
                    _ => {}
                }
            }
        }
        // A fridge page read strobed last clock answers now (its core's CSR read takes a clock).
        if self.fridge.bus_late.val() {
            self.ack.d.next = true;
            self.rdata.d.next = self.fridge.bus_late_rdata.val();
        }
        self.link.bus_ack.next = self.ack.q.val();
        self.link.bus_rdata.next = self.rdata.q.val();

        // ---- lights ----
        self.leds.next = bit_cast::<4, 1>(self.run.q.val().into())
            | (bit_cast::<4, 1>((self.sender.ro_valid.val() & self.receiver.ro_valid.val()).into()) << 1)
            | (bit_cast::<4, 1>(self.source.waiting.val().into()) << 2)
            | (bit_cast::<4, 1>(
                (self.sender.ovf_sticky.val() | self.receiver.ovf_sticky.val() | self.fridge.ovf_sticky.val()).into(),
            ) << 3);

        // ---- synchronous reset (the link's `reset` only: the measurement reset keeps the settings) ----
        if self.reset.val() {
            self.run.d.next = false;
            self.external.d.next = false;
            self.meas_reset.d.next = false;
            self.seed_lo.d.next = self.zero32.val();
            self.seed_hi.d.next = self.zero32.val();
            self.epoch_packets.d.next = self.epoch_packets_reset.val();
            self.gap.d.next = self.one16.val();
            self.loss.d.next = self.zero16.val();
            self.reorder.d.next = self.zero16.val();
            self.ack.d.next = false;
            self.timestamp.d.next = self.zero64.val().get_bits::<40>(0);
        }
    }
}
