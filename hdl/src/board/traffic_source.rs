//! The engine's on-chip traffic source: packet metadata for a sender and a
//! receiver measurement point, so a board measures without a NIC. Packet by
//! packet it equals [`SourceModel`](netmeas_sim::board::source::SourceModel)
//! (the draws, the keys, the timestamps, the loss and the reordering are
//! documented there and in `docs/board.md`).
//!
//! One packet leaves every `gap` clocks while `run` is high and the cores
//! accept packets; the outputs are registered, so the cores see it one
//! clock after it is drawn. The epoch's last packet waits for `flip_ready`
//! (and for the previous flip to have reached the cores) and goes with
//! `flip`, so both cores end the epoch after the same packet; the
//! truth counters of the epoch (start, sent, received, lost, delay sum) are
//! frozen with it. The delay table is a 256 × 24-bit RAM read at the PRNG
//! state's next value, so its word always belongs to the current state.

use crate::common::sync_ram::SyncRam;
use netmeas_sim::board::source::source_prng_states;
use rust_hdl::prelude::*;

/// The source (keys of 120 bits: packet number 119:64, PRNG A 63:0).
#[derive(LogicBlock)]
pub struct TrafficSource {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: counters cleared, PRNGs loaded from `seed`, nothing held.
    pub reset: Signal<In, Bit>,
    // --- settings (engine registers) ---
    /// Packets leave while high.
    pub run: Signal<In, Bit>,
    /// Packets per epoch (0 means 2^32).
    pub epoch_packets: Signal<In, Bits<32>>,
    /// Clocks (and timestamp ticks) between packets; 0 acts as 1.
    pub gap: Signal<In, Bits<16>>,
    /// Loss threshold on the 16-bit loss draw.
    pub loss: Signal<In, Bits<16>>,
    /// Reorder threshold on the 16-bit reorder draw.
    pub reorder: Signal<In, Bits<16>>,
    /// Load both PRNGs from `seed` at this edge.
    pub seed_load: Signal<In, Bit>,
    /// PRNG seed.
    pub seed: Signal<In, Bits<64>>,
    /// Write `table_delay` into delay-table entry `table_index` at this edge.
    pub table_we: Signal<In, Bit>,
    /// Delay-table entry.
    pub table_index: Signal<In, Bits<8>>,
    /// Delay in ticks.
    pub table_delay: Signal<In, Bits<24>>,
    /// The timestamp counter.
    pub now: Signal<In, Bits<40>>,
    // --- the cores ---
    /// Both cores accept packets.
    pub sink_ready: Signal<In, Bit>,
    /// Both cores can take a flip.
    pub flip_ready: Signal<In, Bit>,
    /// A packet at the sender.
    pub tx_valid: Signal<Out, Bit>,
    /// Its key.
    pub tx_key: Signal<Out, Bits<120>>,
    /// Its send timestamp.
    pub tx_ts: Signal<Out, Bits<40>>,
    /// A packet at the receiver.
    pub rx_valid: Signal<Out, Bit>,
    /// Its key.
    pub rx_key: Signal<Out, Bits<120>>,
    /// Its arrival timestamp (send timestamp + delay, mod 2^40).
    pub rx_ts: Signal<Out, Bits<40>>,
    /// End the epoch with this clock's packets.
    pub flip: Signal<Out, Bit>,
    // --- status and the frozen epoch's truth ---
    /// The epoch's last packet waits for the cores' read-out.
    pub waiting: Signal<Out, Bit>,
    /// Epochs ended since reset, mod 2^16.
    pub epochs: Signal<Out, Bits<16>>,
    /// Timestamp of the frozen epoch's first packet.
    pub frozen_start: Signal<Out, Bits<40>>,
    /// Packets the sender saw in the frozen epoch.
    pub frozen_sent: Signal<Out, Bits<32>>,
    /// Packets the receiver saw in it.
    pub frozen_received: Signal<Out, Bits<32>>,
    /// Packets of it lost on the way.
    pub frozen_lost: Signal<Out, Bits<32>>,
    /// Sum of the delays of the packets the receiver saw.
    pub frozen_delay: Signal<Out, Bits<64>>,
    // --- blocks ---
    delays: SyncRam<24, 8>,
    // --- constants ---
    seed_b: Constant<Bits<64>>,
    one64: Constant<Bits<64>>,
    sh13: Constant<Bits<6>>,
    sh7: Constant<Bits<6>>,
    sh17: Constant<Bits<6>>,
    sh64: Constant<Bits<7>>,
    one56: Constant<Bits<56>>,
    zero56: Constant<Bits<56>>,
    one32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero64: Constant<Bits<64>>,
    zero40: Constant<Bits<40>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    // --- PRNGs and packet numbering ---
    prng_a: DFF<Bits<64>>,
    prng_b: DFF<Bits<64>>,
    seq: DFF<Bits<56>>,
    // --- epoch and timing ---
    count: DFF<Bits<32>>,
    first: DFF<Bit>,
    ts_next: DFF<Bits<40>>,
    gap_left: DFF<Bits<16>>,
    live_start: DFF<Bits<40>>,
    live_received: DFF<Bits<32>>,
    live_lost: DFF<Bits<32>>,
    live_delay: DFF<Bits<64>>,
    epoch_count: DFF<Bits<16>>,
    frz_start: DFF<Bits<40>>,
    frz_sent: DFF<Bits<32>>,
    frz_received: DFF<Bits<32>>,
    frz_lost: DFF<Bits<32>>,
    frz_delay: DFF<Bits<64>>,
    // --- output registers (the cores see a packet one clock after it is drawn) ---
    q_tx_valid: DFF<Bit>,
    q_tx_key: DFF<Bits<120>>,
    q_tx_ts: DFF<Bits<40>>,
    q_rx_valid: DFF<Bit>,
    q_rx_key: DFF<Bits<120>>,
    q_rx_ts: DFF<Bits<40>>,
    q_flip: DFF<Bit>,
    q_waiting: DFF<Bit>,
    // --- the receiver's held packet ---
    held_valid: DFF<Bit>,
    held_key: DFF<Bits<120>>,
    held_ts: DFF<Bits<40>>,
    held_delay: DFF<Bits<24>>,
    // --- combinational helpers ---
    a_x1: Signal<Local, Bits<64>>,
    a_x2: Signal<Local, Bits<64>>,
    a_x3: Signal<Local, Bits<64>>,
    b_x1: Signal<Local, Bits<64>>,
    b_x2: Signal<Local, Bits<64>>,
    b_x3: Signal<Local, Bits<64>>,
    b_next: Signal<Local, Bits<64>>,
    gap_eff: Signal<Local, Bits<16>>,
    last: Signal<Local, Bit>,
    due: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    key: Signal<Local, Bits<120>>,
    ts: Signal<Local, Bits<40>>,
    delay: Signal<Local, Bits<24>>,
    lost: Signal<Local, Bit>,
    hold: Signal<Local, Bit>,
    out_valid: Signal<Local, Bit>,
    out_delay: Signal<Local, Bits<24>>,
    start_now: Signal<Local, Bits<40>>,
    received_now: Signal<Local, Bits<32>>,
    lost_now: Signal<Local, Bits<32>>,
    delay_now: Signal<Local, Bits<64>>,
}

impl Default for TrafficSource {
    fn default() -> Self {
        let (_, b0) = source_prng_states(0);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            run: Default::default(),
            epoch_packets: Default::default(),
            gap: Default::default(),
            loss: Default::default(),
            reorder: Default::default(),
            seed_load: Default::default(),
            seed: Default::default(),
            table_we: Default::default(),
            table_index: Default::default(),
            table_delay: Default::default(),
            now: Default::default(),
            sink_ready: Default::default(),
            flip_ready: Default::default(),
            tx_valid: Default::default(),
            tx_key: Default::default(),
            tx_ts: Default::default(),
            rx_valid: Default::default(),
            rx_key: Default::default(),
            rx_ts: Default::default(),
            flip: Default::default(),
            waiting: Default::default(),
            epochs: Default::default(),
            frozen_start: Default::default(),
            frozen_sent: Default::default(),
            frozen_received: Default::default(),
            frozen_lost: Default::default(),
            frozen_delay: Default::default(),
            delays: SyncRam::default(),
            // B's state is (seed ^ SEED_B) | 1: with seed 0 it is SEED_B | 1.
            seed_b: Constant::new((b0 & !1).into()),
            one64: Constant::new(1u64.into()),
            sh13: Constant::new(13u64.into()),
            sh7: Constant::new(7u64.into()),
            sh17: Constant::new(17u64.into()),
            sh64: Constant::new(64u64.into()),
            one56: Constant::new(1u64.into()),
            zero56: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            zero64: Constant::new(0u64.into()),
            zero40: Constant::new(0u64.into()),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            prng_a: Default::default(),
            prng_b: Default::default(),
            seq: Default::default(),
            count: Default::default(),
            first: Default::default(),
            ts_next: Default::default(),
            gap_left: Default::default(),
            live_start: Default::default(),
            live_received: Default::default(),
            live_lost: Default::default(),
            live_delay: Default::default(),
            epoch_count: Default::default(),
            frz_start: Default::default(),
            frz_sent: Default::default(),
            frz_received: Default::default(),
            frz_lost: Default::default(),
            frz_delay: Default::default(),
            q_tx_valid: Default::default(),
            q_tx_key: Default::default(),
            q_tx_ts: Default::default(),
            q_rx_valid: Default::default(),
            q_rx_key: Default::default(),
            q_rx_ts: Default::default(),
            q_flip: Default::default(),
            q_waiting: Default::default(),
            held_valid: Default::default(),
            held_key: Default::default(),
            held_ts: Default::default(),
            held_delay: Default::default(),
            a_x1: Default::default(),
            a_x2: Default::default(),
            a_x3: Default::default(),
            b_x1: Default::default(),
            b_x2: Default::default(),
            b_x3: Default::default(),
            b_next: Default::default(),
            gap_eff: Default::default(),
            last: Default::default(),
            due: Default::default(),
            go: Default::default(),
            key: Default::default(),
            ts: Default::default(),
            delay: Default::default(),
            lost: Default::default(),
            hold: Default::default(),
            out_valid: Default::default(),
            out_delay: Default::default(),
            start_now: Default::default(),
            received_now: Default::default(),
            lost_now: Default::default(),
            delay_now: Default::default(),
        }
    }
}

impl Logic for TrafficSource {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            prng_a,
            prng_b,
            seq,
            count,
            first,
            ts_next,
            gap_left,
            live_start,
            live_received,
            live_lost,
            live_delay,
            epoch_count,
            frz_start,
            frz_sent,
            frz_received,
            frz_lost,
            frz_delay,
            held_valid,
            held_key,
            held_ts,
            held_delay,
            q_tx_valid,
            q_tx_key,
            q_tx_ts,
            q_rx_valid,
            q_rx_key,
            q_rx_ts,
            q_flip,
            q_waiting
        );
        self.delays.clock.next = self.clock.val();
        self.delays.write_enable.next = self.table_we.val();
        self.delays.write_address.next = self.table_index.val();
        self.delays.write_data.next = self.table_delay.val();

        // ---- when the next packet goes ----
        if self.gap.val() == self.zero16.val() {
            self.gap_eff.next = self.one16.val();
        } else {
            self.gap_eff.next = self.gap.val();
        }
        self.last.next = self.count.q.val() == (self.epoch_packets.val() - self.one32.val());
        self.due.next = self.run.val() & (self.gap_left.q.val() == self.zero16.val()) & self.sink_ready.val();
        // A flip still on its way to the cores is not in their `flip_ready` yet.
        self.go.next = self.due.val() & (!self.last.val() | (self.flip_ready.val() & !self.q_flip.q.val()));
        self.q_waiting.d.next = self.due.val() & self.last.val() & !self.flip_ready.val();
        if self.go.val() {
            self.gap_left.d.next = self.gap_eff.val() - self.one16.val();
        } else if self.gap_left.q.val() != self.zero16.val() {
            self.gap_left.d.next = self.gap_left.q.val() - self.one16.val();
        }

        // ---- the PRNGs: xorshift64 (13, 7, 17), one step a packet ----
        self.a_x1.next = self.prng_a.q.val() ^ (self.prng_a.q.val() << self.sh13.val());
        self.a_x2.next = self.a_x1.val() ^ (self.a_x1.val() >> self.sh7.val());
        self.a_x3.next = self.a_x2.val() ^ (self.a_x2.val() << self.sh17.val());
        self.b_x1.next = self.prng_b.q.val() ^ (self.prng_b.q.val() << self.sh13.val());
        self.b_x2.next = self.b_x1.val() ^ (self.b_x1.val() >> self.sh7.val());
        self.b_x3.next = self.b_x2.val() ^ (self.b_x2.val() << self.sh17.val());
        self.b_next.next = self.prng_b.q.val();
        if self.go.val() {
            self.prng_a.d.next = self.a_x3.val();
            self.b_next.next = self.b_x3.val();
            self.seq.d.next = self.seq.q.val() + self.one56.val();
        }
        if self.seed_load.val() | self.reset.val() {
            self.prng_a.d.next = self.seed.val() | self.one64.val();
            self.b_next.next = (self.seed.val() ^ self.seed_b.val()) | self.one64.val();
        }
        self.prng_b.d.next = self.b_next.val();
        // The table word of the state being loaded is read now: it is there with the state.
        self.delays.read_address.next = self.b_next.val().get_bits::<8>(0);

        // ---- this packet ----
        self.key.next =
            (bit_cast::<120, 56>(self.seq.q.val()) << self.sh64.val()) | bit_cast::<120, 64>(self.prng_a.q.val());
        if self.first.q.val() {
            self.ts.next = self.now.val();
        } else {
            self.ts.next = self.ts_next.q.val();
        }
        self.delay.next = self.delays.read_data.val();
        self.lost.next = self.prng_b.q.val().get_bits::<16>(8) < self.loss.val();
        self.hold.next = !self.lost.val() & (self.prng_b.q.val().get_bits::<16>(24) < self.reorder.val());
        self.q_tx_valid.d.next = self.go.val();
        self.q_tx_key.d.next = self.key.val();
        self.q_tx_ts.d.next = self.ts.val();
        self.q_flip.d.next = self.go.val() & self.last.val();

        // ---- the receiver's lane ----
        if self.lost.val() | self.hold.val() {
            self.out_valid.next = self.held_valid.q.val();
            self.q_rx_key.d.next = self.held_key.q.val();
            self.q_rx_ts.d.next = self.held_ts.q.val();
            self.out_delay.next = self.held_delay.q.val();
        } else {
            self.out_valid.next = true;
            self.q_rx_key.d.next = self.key.val();
            self.q_rx_ts.d.next = self.ts.val() + bit_cast::<40, 24>(self.delay.val());
            self.out_delay.next = self.delay.val();
        }
        self.q_rx_valid.d.next = self.go.val() & self.out_valid.val();
        if self.go.val() & self.lost.val() {
            self.held_valid.d.next = false;
        }
        if self.go.val() & self.hold.val() {
            self.held_valid.d.next = true;
            self.held_key.d.next = self.key.val();
            self.held_ts.d.next = self.ts.val() + bit_cast::<40, 24>(self.delay.val());
            self.held_delay.d.next = self.delay.val();
        }

        // ---- epoch accounting ----
        if self.first.q.val() {
            self.start_now.next = self.ts.val();
        } else {
            self.start_now.next = self.live_start.q.val();
        }
        self.received_now.next = self.live_received.q.val();
        self.delay_now.next = self.live_delay.q.val();
        if self.out_valid.val() {
            self.received_now.next = self.live_received.q.val() + self.one32.val();
            self.delay_now.next = self.live_delay.q.val() + bit_cast::<64, 24>(self.out_delay.val());
        }
        self.lost_now.next = self.live_lost.q.val();
        if self.lost.val() {
            self.lost_now.next = self.live_lost.q.val() + self.one32.val();
        }
        if self.go.val() {
            self.ts_next.d.next = self.ts.val() + bit_cast::<40, 16>(self.gap_eff.val());
            self.first.d.next = false;
            self.live_start.d.next = self.start_now.val();
            self.live_received.d.next = self.received_now.val();
            self.live_lost.d.next = self.lost_now.val();
            self.live_delay.d.next = self.delay_now.val();
            self.count.d.next = self.count.q.val() + self.one32.val();
            if self.last.val() {
                self.frz_start.d.next = self.start_now.val();
                self.frz_sent.d.next = self.count.q.val() + self.one32.val();
                self.frz_received.d.next = self.received_now.val();
                self.frz_lost.d.next = self.lost_now.val();
                self.frz_delay.d.next = self.delay_now.val();
                self.live_received.d.next = self.zero32.val();
                self.live_lost.d.next = self.zero32.val();
                self.live_delay.d.next = self.zero64.val();
                self.count.d.next = self.zero32.val();
                self.first.d.next = true;
                self.epoch_count.d.next = self.epoch_count.q.val() + self.one16.val();
            }
        }
        self.tx_valid.next = self.q_tx_valid.q.val();
        self.tx_key.next = self.q_tx_key.q.val();
        self.tx_ts.next = self.q_tx_ts.q.val();
        self.rx_valid.next = self.q_rx_valid.q.val();
        self.rx_key.next = self.q_rx_key.q.val();
        self.rx_ts.next = self.q_rx_ts.q.val();
        self.flip.next = self.q_flip.q.val();
        self.waiting.next = self.q_waiting.q.val();
        self.epochs.next = self.epoch_count.q.val();
        self.frozen_start.next = self.frz_start.q.val();
        self.frozen_sent.next = self.frz_sent.q.val();
        self.frozen_received.next = self.frz_received.q.val();
        self.frozen_lost.next = self.frz_lost.q.val();
        self.frozen_delay.next = self.frz_delay.q.val();

        // ---- synchronous reset ----
        if self.reset.val() {
            self.seq.d.next = self.zero56.val();
            self.count.d.next = self.zero32.val();
            self.first.d.next = true;
            self.gap_left.d.next = self.zero16.val();
            self.live_received.d.next = self.zero32.val();
            self.live_lost.d.next = self.zero32.val();
            self.live_delay.d.next = self.zero64.val();
            self.epoch_count.d.next = self.zero16.val();
            self.frz_start.d.next = self.zero40.val();
            self.frz_sent.d.next = self.zero32.val();
            self.frz_received.d.next = self.zero32.val();
            self.frz_lost.d.next = self.zero32.val();
            self.frz_delay.d.next = self.zero64.val();
            self.held_valid.d.next = false;
            self.q_tx_valid.d.next = false;
            self.q_rx_valid.d.next = false;
            self.q_flip.d.next = false;
            self.q_waiting.d.next = false;
        }
    }
}
