//! RDA core: reconcilable difference aggregator at one packet per clock (Fu,
//! Barlet-Ros, Li, ToN 2018, §V-A structure, §III-A intervals). The same core
//! runs at the sender and at the receiver of a segment; the host subtracts
//! their synopses and peels the lost and reordered packets (§V-B).
//!
//! Pipeline (a packet accepted at cycle t):
//! - **p1** (t+1) packet registered; interval check against the live
//!   interval [start, end) on the 48-bit timestamp circle. A timestamp at or
//!   past `end` crosses the boundary (§III-A: t_{i+1} = t_i + δ): the packet
//!   waits in p1 (`s_ready` low) while the interval steps, one step per
//!   clock; the first step flips the ping-pong copies of every bank if the
//!   live interval saw a packet, waiting for the frozen copies to be read
//!   out and cleared if need be. A timestamp before `start` is dropped and
//!   counted in `out_of_interval`. Without a packet, `now − GUARD` crossing
//!   `end` steps the interval the same way. The compares are made a clock
//!   ahead, on both timestamps p1 may hold next (the offered one and its
//!   own), against start, end and end + δ (kept in its own register), and
//!   registered; that clock's accept and step select which apply, so no
//!   subtractor sits in front of the boundary logic. `now − GUARD` is
//!   registered and compared the same way (the `now` of two clocks before
//!   counts). A T0_HI write is registered first and sets the interval
//!   [t0, t0 + δ) a clock later, so no add sits behind the register port;
//!   p1 holds for those two clocks while the compares are redone (for one
//!   clock after reset). A DELTA write takes effect in the register only:
//!   end + δ is formed from the register, so p1 holds for the clock after
//!   the write while end + δ is redone with the new δ (it still applies from
//!   the next boundary on, as before).
//! - **p2** (t+2) coordinated sampling: the sampling hash (H3 of the ID,
//!   registered at p1) must have `SAMPLE_LZ` leading zeros; sampled packets
//!   enter every bank lane, the flip token with them.
//! - **lanes** (t+2 .. t+8) per bank: bucket hash (6 clocks), then the
//!   read-modify-write bank: ID ^= id, TS += ts, Δ += 1, read through
//!   the config's `read_stages` extra registers behind each block RAM.
//!
//! The frozen epoch streams out bank by bank, bucket by bucket, with its
//! interval index and packet counters.

use super::lane::RdaLane;
use crate::common::h3::H3Unit;
use netmeas_sim::lda::lz_mask;
use netmeas_sim::rda::hash::sample_hash_config;
use netmeas_sim::rda::{
    RDA_REG_DELTA, RDA_REG_GUARD, RDA_REG_SAMPLE_LZ, RDA_REG_T0_HI, RDA_REG_T0_LO, RDA_TS_BITS, RdaConfig,
};
use rust_hdl::prelude::*;

/// RDA core with `NB` banks, a `TW`-bit timestamp sum and `W` = 32 + `TW` +
/// 64-bit bucket records. Bucket indices are 16 bits wide whatever m is
/// (each bank's RAM holds exactly m words): one instance per (k, TW) pair.
#[derive(LogicBlock)]
pub struct RdaCore<const NB: usize, const TW: usize, const W: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops packets in flight, restores the registers, clears every bank.
    pub reset: Signal<In, Bit>,
    // --- packet metadata stream ---
    /// A packet is offered.
    pub s_valid: Signal<In, Bit>,
    /// Packets are accepted (low while the banks clear, while an interval boundary
    /// is being crossed, and while a flip waits for the previous read-out).
    pub s_ready: Signal<Out, Bit>,
    /// Packet identifier (§VIII-A: a 64-bit digest of the invariant packet bytes).
    pub s_id: Signal<In, Bits<64>>,
    /// Timestamp from the synchronized clock, ticks (mod 2^48, non-decreasing).
    pub s_ts: Signal<In, Bits<48>>,
    // --- time without packets ---
    /// `now` is valid.
    pub now_valid: Signal<In, Bit>,
    /// The synchronized clock (closes an idle interval once now ≥ end + GUARD).
    pub now: Signal<In, Bits<48>>,
    // --- CSR write port (register map in docs/cores/rda.md and csr.json) ---
    /// Write strobe.
    pub csr_we: Signal<In, Bit>,
    /// Word address.
    pub csr_addr: Signal<In, Bits<3>>,
    /// Write data.
    pub csr_wdata: Signal<In, Bits<32>>,
    // --- read-out of the frozen epoch ---
    /// A bucket is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Its bank.
    pub m_ro_bank: Signal<Out, Bits<2>>,
    /// Its index in the bank.
    pub m_ro_row: Signal<Out, Bits<16>>,
    /// XOR of the IDs in the bucket.
    pub m_ro_id: Signal<Out, Bits<64>>,
    /// Timestamp sum (mod 2^TW).
    pub m_ro_tsum: Signal<Out, Bits<TW>>,
    /// Packet count Δ.
    pub m_ro_count: Signal<Out, Bits<32>>,
    /// Last bucket of the last bank.
    pub m_ro_last: Signal<Out, Bit>,
    /// Interval index of the frozen epoch.
    pub frozen_interval: Signal<Out, Bits<32>>,
    /// Packets of the frozen interval (mod 2^48).
    pub frozen_packets: Signal<Out, Bits<48>>,
    /// Sampled packets of the frozen interval (mod 2^48).
    pub frozen_sampled: Signal<Out, Bits<48>>,
    // --- status ---
    /// Index of the live interval.
    pub live_interval: Signal<Out, Bits<32>>,
    /// Packets dropped for a timestamp before the live interval, since reset (mod 2^48).
    pub out_of_interval: Signal<Out, Bits<48>>,
    /// Copy of the banks being updated (every bank flips with the same packet).
    pub live_epoch: Signal<Out, Bit>,
    /// A bucket count wrapped since the flag was last cleared.
    pub ovf_sticky: Signal<Out, Bit>,
    /// Clear the overflow flag.
    pub ovf_clear: Signal<In, Bit>,
    // --- blocks ---
    sample_hash: H3Unit<64, 24>,
    lanes: [RdaLane<16, TW, W>; NB],
    // --- constants (reset values of registers held as XOR with them) ---
    rst_t0_lo: Constant<Bits<32>>,
    rst_delta: Constant<Bits<32>>,
    rst_guard: Constant<Bits<32>>,
    rst_smask: Constant<Bits<24>>,
    rst_start: Constant<Bits<48>>,
    rst_end: Constant<Bits<48>>,
    rst_end1: Constant<Bits<48>>,
    reg_t0_lo: Constant<Bits<3>>,
    reg_t0_hi: Constant<Bits<3>>,
    reg_delta: Constant<Bits<3>>,
    reg_guard: Constant<Bits<3>>,
    reg_sample_lz: Constant<Bits<3>>,
    last_sel: Constant<Bits<2>>,
    hi_lsb: Constant<Bits<6>>,
    id_lsb: Constant<Bits<7>>,
    sign: Constant<Bits<6>>,
    ones24: Constant<Bits<24>>,
    zero24: Constant<Bits<24>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    zero48: Constant<Bits<48>>,
    one48: Constant<Bits<48>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    // --- registers ---
    t0_lo_x: DFF<Bits<32>>,
    delta_x: DFF<Bits<32>>,
    guard_x: DFF<Bits<32>>,
    smask_x: DFF<Bits<24>>,
    start_x: DFF<Bits<48>>,
    end_x: DFF<Bits<48>>,
    /// end + δ, kept beside end so that the next boundary is known a clock ahead.
    end1_x: DFF<Bits<48>>,
    /// A T0_HI write of the previous clock, and its t0: the interval restarts at t0 now.
    restart_q: DFF<Bit>,
    restart_t0: DFF<Bits<48>>,
    interval: DFF<Bits<32>>,
    now_g: DFF<Bits<48>>,
    now_g_valid: DFF<Bit>,
    now_g2_valid: DFF<Bit>,
    // --- interval compares made a clock ahead against start, end and end + δ ---
    /// The boundary stepped in the previous clock (selects which compares apply).
    step_q: DFF<Bit>,
    /// A T0_HI or DELTA write or a restart in the previous clock, or reset: the compares are stale, hold p1.
    hold_q: DFF<Bit>,
    /// The offered packet was accepted (p1 now holds it, not the previous one).
    acc_q: DFF<Bit>,
    /// The offered timestamp ≥ start / ≥ end / ≥ end + δ.
    sgs_q: DFF<Bit>,
    sge_q: DFF<Bit>,
    sge1_q: DFF<Bit>,
    /// p1's timestamp ≥ start / ≥ end / ≥ end + δ.
    pgs_q: DFF<Bit>,
    pge_q: DFF<Bit>,
    pge1_q: DFF<Bit>,
    /// now − GUARD ≥ end / ≥ end + δ.
    gn_q: DFF<Bit>,
    gn1_q: DFF<Bit>,
    // --- pipeline ---
    p1_valid: DFF<Bit>,
    p1_id: DFF<Bits<64>>,
    p1_ts: DFF<Bits<48>>,
    p2_v: DFF<Bit>,
    p2_id: DFF<Bits<64>>,
    p2_ts: DFF<Bits<48>>,
    p2_flip: DFF<Bit>,
    // --- epoch counters ---
    live_packets: DFF<Bits<48>>,
    /// The live interval saw a packet (a flag, not `live_packets != 0`: no wide compare before a flip).
    live_any: DFF<Bit>,
    live_sampled: DFF<Bits<48>>,
    frz_packets: DFF<Bits<48>>,
    frz_sampled: DFF<Bits<48>>,
    frz_interval: DFF<Bits<32>>,
    oov: DFF<Bits<48>>,
    ro_sel: DFF<Bits<2>>,
    // --- combinational helpers ---
    iv_start: Signal<Local, Bits<48>>,
    iv_end: Signal<Local, Bits<48>>,
    iv_end1: Signal<Local, Bits<48>>,
    delta: Signal<Local, Bits<48>>,
    g_s: Signal<Local, Bit>,
    g_e: Signal<Local, Bit>,
    g_e1: Signal<Local, Bit>,
    lanes_ready: Signal<Local, Bit>,
    lanes_flip_ready: Signal<Local, Bit>,
    ovf_any: Signal<Local, Bit>,
    epoch_any: Signal<Local, Bit>,
    d_ss: Signal<Local, Bits<48>>,
    d_se: Signal<Local, Bits<48>>,
    d_se1: Signal<Local, Bits<48>>,
    d_ps: Signal<Local, Bits<48>>,
    d_pe: Signal<Local, Bits<48>>,
    d_pe1: Signal<Local, Bits<48>>,
    d_ne: Signal<Local, Bits<48>>,
    d_ne1: Signal<Local, Bits<48>>,
    time_due: Signal<Local, Bit>,
    ge_end: Signal<Local, Bit>,
    ge_start: Signal<Local, Bit>,
    time_up: Signal<Local, Bit>,
    crossing: Signal<Local, Bit>,
    need_flip: Signal<Local, Bit>,
    step: Signal<Local, Bit>,
    flip_now: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    measured: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    p2_valid: Signal<Local, Bit>,
    sampled: Signal<Local, Bit>,
    ro_last_lane: Signal<Local, Bit>,
    ro_data: Signal<Local, Bits<W>>,
    new_t0: Signal<Local, Bits<48>>,
    new_mask: Signal<Local, Bits<24>>,
}

impl<const NB: usize, const TW: usize, const W: usize> RdaCore<NB, TW, W> {
    /// The core for `cfg` (whose widths must match the type's).
    pub fn new(cfg: &RdaConfig) -> Self {
        assert_eq!((cfg.banks, cfg.tsum_bits, cfg.record_bits()), (NB, TW, W), "RDA widths differ from the config");
        assert!(NB <= 4);
        let ts_mask = (1u64 << RDA_TS_BITS) - 1;
        let c32 = |v: u64| -> Constant<Bits<32>> { Constant::new((v & 0xffff_ffff).into()) };
        let c48 = |v: u64| -> Constant<Bits<48>> { Constant::new((v & ts_mask).into()) };
        let c3 = |v: u32| -> Constant<Bits<3>> { Constant::new((v as u64).into()) };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_id: Default::default(),
            s_ts: Default::default(),
            now_valid: Default::default(),
            now: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_bank: Default::default(),
            m_ro_row: Default::default(),
            m_ro_id: Default::default(),
            m_ro_tsum: Default::default(),
            m_ro_count: Default::default(),
            m_ro_last: Default::default(),
            frozen_interval: Default::default(),
            frozen_packets: Default::default(),
            frozen_sampled: Default::default(),
            live_interval: Default::default(),
            out_of_interval: Default::default(),
            live_epoch: Default::default(),
            ovf_sticky: Default::default(),
            ovf_clear: Default::default(),
            sample_hash: H3Unit::new(&sample_hash_config(cfg.seed)),
            lanes: core::array::from_fn(|l| RdaLane::new(&cfg.bucket_hash(l), cfg.read_stages)),
            rst_t0_lo: c32(cfg.t0),
            rst_delta: c32(cfg.interval_ticks.max(1)),
            rst_guard: c32(cfg.guard_ticks),
            rst_smask: Constant::new((lz_mask(cfg.sample_prob_log2) as u64).into()),
            rst_start: c48(cfg.t0),
            rst_end: c48(cfg.t0 + cfg.interval_ticks.max(1)),
            rst_end1: c48(cfg.t0 + 2 * cfg.interval_ticks.max(1)),
            reg_t0_lo: c3(RDA_REG_T0_LO),
            reg_t0_hi: c3(RDA_REG_T0_HI),
            reg_delta: c3(RDA_REG_DELTA),
            reg_guard: c3(RDA_REG_GUARD),
            reg_sample_lz: c3(RDA_REG_SAMPLE_LZ),
            last_sel: Constant::new(((NB - 1) as u64).into()),
            hi_lsb: Constant::new(32u64.into()),
            id_lsb: Constant::new(((32 + TW) as u64).into()),
            sign: Constant::new(47u64.into()),
            ones24: Constant::new(0xff_ffffu64.into()),
            zero24: Constant::new(0u64.into()),
            zero32: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            zero48: Constant::new(0u64.into()),
            one48: Constant::new(1u64.into()),
            zero2: Constant::new(0u64.into()),
            one2: Constant::new(1u64.into()),
            t0_lo_x: Default::default(),
            delta_x: Default::default(),
            guard_x: Default::default(),
            smask_x: Default::default(),
            start_x: Default::default(),
            end_x: Default::default(),
            end1_x: Default::default(),
            restart_q: Default::default(),
            restart_t0: Default::default(),
            interval: Default::default(),
            now_g: Default::default(),
            now_g_valid: Default::default(),
            now_g2_valid: Default::default(),
            step_q: Default::default(),
            hold_q: Default::default(),
            acc_q: Default::default(),
            sgs_q: Default::default(),
            sge_q: Default::default(),
            sge1_q: Default::default(),
            pgs_q: Default::default(),
            pge_q: Default::default(),
            pge1_q: Default::default(),
            gn_q: Default::default(),
            gn1_q: Default::default(),
            p1_valid: Default::default(),
            p1_id: Default::default(),
            p1_ts: Default::default(),
            p2_v: Default::default(),
            p2_id: Default::default(),
            p2_ts: Default::default(),
            p2_flip: Default::default(),
            live_packets: Default::default(),
            live_any: Default::default(),
            live_sampled: Default::default(),
            frz_packets: Default::default(),
            frz_sampled: Default::default(),
            frz_interval: Default::default(),
            oov: Default::default(),
            ro_sel: Default::default(),
            iv_start: Default::default(),
            iv_end: Default::default(),
            iv_end1: Default::default(),
            delta: Default::default(),
            g_s: Default::default(),
            g_e: Default::default(),
            g_e1: Default::default(),
            lanes_ready: Default::default(),
            lanes_flip_ready: Default::default(),
            ovf_any: Default::default(),
            epoch_any: Default::default(),
            d_ss: Default::default(),
            d_se: Default::default(),
            d_se1: Default::default(),
            d_ps: Default::default(),
            d_pe: Default::default(),
            d_pe1: Default::default(),
            d_ne: Default::default(),
            d_ne1: Default::default(),
            time_due: Default::default(),
            ge_end: Default::default(),
            ge_start: Default::default(),
            time_up: Default::default(),
            crossing: Default::default(),
            need_flip: Default::default(),
            step: Default::default(),
            flip_now: Default::default(),
            advance: Default::default(),
            measured: Default::default(),
            accept: Default::default(),
            p2_valid: Default::default(),
            sampled: Default::default(),
            ro_last_lane: Default::default(),
            ro_data: Default::default(),
            new_t0: Default::default(),
            new_mask: Default::default(),
        }
    }
}

impl<const NB: usize, const TW: usize, const W: usize> Logic for RdaCore<NB, TW, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            t0_lo_x,
            delta_x,
            guard_x,
            smask_x,
            start_x,
            end_x,
            end1_x,
            restart_q,
            restart_t0,
            interval,
            now_g,
            now_g_valid,
            now_g2_valid,
            step_q,
            hold_q,
            acc_q,
            sgs_q,
            sge_q,
            sge1_q,
            pgs_q,
            pge_q,
            pge1_q,
            gn_q,
            gn1_q,
            p1_valid,
            p1_id,
            p1_ts,
            p2_v,
            p2_id,
            p2_ts,
            p2_flip,
            live_packets,
            live_any,
            live_sampled,
            frz_packets,
            frz_sampled,
            frz_interval,
            oov,
            ro_sel
        );
        self.sample_hash.clock.next = self.clock.val();
        self.lanes_ready.next = true;
        self.lanes_flip_ready.next = true;
        self.ovf_any.next = false;
        self.epoch_any.next = false;
        for i in 0..NB {
            self.lanes[i].clock.next = self.clock.val();
            self.lanes[i].reset.next = self.reset.val();
            self.lanes[i].ovf_clear.next = self.ovf_clear.val();
            self.lanes_ready.next = self.lanes_ready.val() & self.lanes[i].s_ready.val();
            self.lanes_flip_ready.next = self.lanes_flip_ready.val() & self.lanes[i].flip_ready.val();
            self.ovf_any.next = self.ovf_any.val() | self.lanes[i].ovf_sticky.val();
            self.epoch_any.next = self.epoch_any.val() | self.lanes[i].epoch.val();
        }

        // ---- register values ----
        self.iv_start.next = self.start_x.q.val() ^ self.rst_start.val();
        self.iv_end.next = self.end_x.q.val() ^ self.rst_end.val();
        self.iv_end1.next = self.end1_x.q.val() ^ self.rst_end1.val();
        self.delta.next = bit_cast::<48, 32>(self.delta_x.q.val() ^ self.rst_delta.val());

        // ---- p1: interval check (§III-A), one boundary step per clock ----
        // The compares were made a clock ahead against start, end and end + δ;
        // a step in that clock moved the interval to [end, end + δ).
        if self.acc_q.q.val() {
            self.g_s.next = self.sgs_q.q.val();
            self.g_e.next = self.sge_q.q.val();
            self.g_e1.next = self.sge1_q.q.val();
        } else {
            self.g_s.next = self.pgs_q.q.val();
            self.g_e.next = self.pge_q.q.val();
            self.g_e1.next = self.pge1_q.q.val();
        }
        if self.step_q.q.val() {
            self.ge_start.next = self.g_e.val();
            self.ge_end.next = self.g_e1.val();
            self.time_due.next = self.gn1_q.q.val();
        } else {
            self.ge_start.next = self.g_s.val();
            self.ge_end.next = self.g_e.val();
            self.time_due.next = self.gn_q.q.val();
        }
        self.time_up.next = self.now_g2_valid.q.val() & self.time_due.val();
        self.crossing.next = !self.hold_q.q.val()
            & ((self.p1_valid.q.val() & self.ge_end.val()) | (!self.p1_valid.q.val() & self.time_up.val()));
        self.need_flip.next = self.crossing.val() & self.live_any.q.val();
        self.step.next =
            self.crossing.val() & (!self.need_flip.val() | (self.lanes_flip_ready.val() & !self.p2_flip.q.val()));
        self.flip_now.next = self.step.val() & self.need_flip.val();
        self.advance.next = !self.hold_q.q.val() & self.p1_valid.q.val() & !self.ge_end.val();
        self.measured.next = self.advance.val() & self.ge_start.val();
        self.s_ready.next =
            self.lanes_ready.val() & !self.hold_q.q.val() & !(self.p1_valid.q.val() & self.ge_end.val());
        self.accept.next = self.s_valid.val() & self.s_ready.val();

        if self.accept.val() {
            self.p1_valid.d.next = true;
            self.p1_id.d.next = self.s_id.val();
            self.p1_ts.d.next = self.s_ts.val();
        } else if self.advance.val() {
            self.p1_valid.d.next = false;
        }
        // Next clock's compares, on the 48-bit circle (sign of the difference), for both
        // timestamps p1 can hold then: the offered one and its own.
        self.d_ss.next = self.s_ts.val() - self.iv_start.val();
        self.d_se.next = self.s_ts.val() - self.iv_end.val();
        self.d_se1.next = self.s_ts.val() - self.iv_end1.val();
        self.d_ps.next = self.p1_ts.q.val() - self.iv_start.val();
        self.d_pe.next = self.p1_ts.q.val() - self.iv_end.val();
        self.d_pe1.next = self.p1_ts.q.val() - self.iv_end1.val();
        self.acc_q.d.next = self.accept.val();
        self.sgs_q.d.next = !self.d_ss.val().get_bit(self.sign.val().index());
        self.sge_q.d.next = !self.d_se.val().get_bit(self.sign.val().index());
        self.sge1_q.d.next = !self.d_se1.val().get_bit(self.sign.val().index());
        self.pgs_q.d.next = !self.d_ps.val().get_bit(self.sign.val().index());
        self.pge_q.d.next = !self.d_pe.val().get_bit(self.sign.val().index());
        self.pge1_q.d.next = !self.d_pe1.val().get_bit(self.sign.val().index());
        self.d_ne.next = self.now_g.q.val() - self.iv_end.val();
        self.d_ne1.next = self.now_g.q.val() - self.iv_end1.val();
        self.gn_q.d.next = !self.d_ne.val().get_bit(self.sign.val().index());
        self.gn1_q.d.next = !self.d_ne1.val().get_bit(self.sign.val().index());
        self.step_q.d.next = self.step.val();
        self.hold_q.d.next = false;
        if self.step.val() {
            self.start_x.d.next = self.iv_end.val() ^ self.rst_start.val();
            self.end_x.d.next = self.iv_end1.val() ^ self.rst_end.val();
            self.end1_x.d.next = (self.iv_end1.val() + self.delta.val()) ^ self.rst_end1.val();
            self.interval.d.next = self.interval.q.val() + self.one32.val();
        } else {
            self.end1_x.d.next = (self.iv_end.val() + self.delta.val()) ^ self.rst_end1.val();
        }
        if self.flip_now.val() {
            self.frz_interval.d.next = self.interval.q.val();
            self.frz_packets.d.next = self.live_packets.q.val();
            self.live_packets.d.next = self.zero48.val();
            self.live_any.d.next = false;
        } else if self.measured.val() {
            self.live_packets.d.next = self.live_packets.q.val() + self.one48.val();
            self.live_any.d.next = true;
        }
        if self.advance.val() & !self.ge_start.val() {
            self.oov.d.next = self.oov.q.val() + self.one48.val();
        }
        self.now_g.d.next = self.now.val() - bit_cast::<48, 32>(self.guard_x.q.val() ^ self.rst_guard.val());
        self.now_g_valid.d.next = self.now_valid.val();
        self.now_g2_valid.d.next = self.now_g_valid.q.val();

        // ---- p1 -> p2: sampling hash; the flip token rides in the slot ----
        self.sample_hash.s_valid.next = self.measured.val();
        self.sample_hash.s_key.next = self.p1_id.q.val();
        self.p2_v.d.next = self.measured.val();
        self.p2_id.d.next = self.p1_id.q.val();
        self.p2_ts.d.next = self.p1_ts.q.val();
        self.p2_flip.d.next = self.flip_now.val();

        // ---- p2: coordinated sampling, into every lane ----
        self.p2_valid.next = self.p2_v.q.val() & self.sample_hash.m_valid.val();
        self.sampled.next = self.p2_valid.val()
            & ((self.sample_hash.m_hash.val() & (self.smask_x.q.val() ^ self.rst_smask.val())) == self.zero24.val());
        for i in 0..NB {
            self.lanes[i].s_valid.next = self.sampled.val();
            self.lanes[i].s_id.next = self.p2_id.q.val();
            self.lanes[i].s_ts.next = bit_cast::<TW, 48>(self.p2_ts.q.val());
            self.lanes[i].s_flip.next = self.p2_flip.q.val();
        }
        if self.p2_flip.q.val() {
            self.frz_sampled.d.next = self.live_sampled.q.val();
            self.live_sampled.d.next = self.zero48.val();
        } else if self.sampled.val() {
            self.live_sampled.d.next = self.live_sampled.q.val() + self.one48.val();
        }

        // ---- read-out: bank by bank ----
        self.m_ro_valid.next = false;
        self.ro_last_lane.next = false;
        self.ro_data.next = self.lanes[0].m_ro_data.val();
        self.m_ro_row.next = self.lanes[0].m_ro_row.val();
        for i in 0..NB {
            self.lanes[i].m_ro_ready.next = false;
            if self.ro_sel.q.val().index() == i {
                self.m_ro_valid.next = self.lanes[i].m_ro_valid.val();
                self.lanes[i].m_ro_ready.next = self.m_ro_ready.val();
                self.m_ro_row.next = self.lanes[i].m_ro_row.val();
                self.ro_data.next = self.lanes[i].m_ro_data.val();
                self.ro_last_lane.next = self.lanes[i].m_ro_last.val();
            }
        }
        self.m_ro_bank.next = self.ro_sel.q.val();
        self.m_ro_count.next = self.ro_data.val().get_bits::<32>(0);
        self.m_ro_tsum.next = bit_cast::<TW, W>(self.ro_data.val() >> self.hi_lsb.val());
        self.m_ro_id.next = bit_cast::<64, W>(self.ro_data.val() >> self.id_lsb.val());
        self.m_ro_last.next = self.ro_last_lane.val() & (self.ro_sel.q.val() == self.last_sel.val());
        if self.m_ro_valid.val() & self.m_ro_ready.val() & self.ro_last_lane.val() {
            if self.ro_sel.q.val() == self.last_sel.val() {
                self.ro_sel.d.next = self.zero2.val();
            } else {
                self.ro_sel.d.next = self.ro_sel.q.val() + self.one2.val();
            }
        }
        self.frozen_interval.next = self.frz_interval.q.val();
        self.frozen_packets.next = self.frz_packets.q.val();
        self.frozen_sampled.next = self.frz_sampled.q.val();
        self.live_interval.next = self.interval.q.val();
        self.out_of_interval.next = self.oov.q.val();
        self.ovf_sticky.next = self.ovf_any.val();
        self.live_epoch.next = self.epoch_any.val();

        // ---- restart: the interval [t0, t0 + δ) of last clock's T0_HI write (wins over a step) ----
        self.restart_q.d.next = false;
        if self.restart_q.q.val() {
            self.start_x.d.next = self.restart_t0.q.val() ^ self.rst_start.val();
            self.end_x.d.next = (self.restart_t0.q.val() + self.delta.val()) ^ self.rst_end.val();
            self.end1_x.d.next = (self.restart_t0.q.val() + (self.delta.val() << 1)) ^ self.rst_end1.val();
            self.hold_q.d.next = true;
        }

        // ---- CSR writes (effective from the next cycle; a T0_HI write zeroes the interval index) ----
        self.new_t0.next = bit_cast::<48, 32>(self.t0_lo_x.q.val() ^ self.rst_t0_lo.val())
            | (bit_cast::<48, 16>(self.csr_wdata.val().get_bits::<16>(0)) << self.hi_lsb.val());
        self.new_mask.next = self.ones24.val() ^ (self.ones24.val() >> self.csr_wdata.val().get_bits::<5>(0));
        if self.csr_we.val() {
            if self.csr_addr.val() == self.reg_t0_lo.val() {
                self.t0_lo_x.d.next = self.csr_wdata.val() ^ self.rst_t0_lo.val();
            }
            if self.csr_addr.val() == self.reg_t0_hi.val() {
                self.restart_t0.d.next = self.new_t0.val();
                self.restart_q.d.next = true;
                self.interval.d.next = self.zero32.val();
                self.hold_q.d.next = true;
            }
            if self.csr_addr.val() == self.reg_delta.val() {
                // end + δ is stale for a clock (formed from the old δ): hold p1 while it is redone.
                self.hold_q.d.next = true;
                if self.csr_wdata.val() == self.zero32.val() {
                    self.delta_x.d.next = self.one32.val() ^ self.rst_delta.val();
                } else {
                    self.delta_x.d.next = self.csr_wdata.val() ^ self.rst_delta.val();
                }
            }
            if self.csr_addr.val() == self.reg_guard.val() {
                self.guard_x.d.next = self.csr_wdata.val() ^ self.rst_guard.val();
            }
            if self.csr_addr.val() == self.reg_sample_lz.val() {
                self.smask_x.d.next = self.new_mask.val() ^ self.rst_smask.val();
            }
        }

        // ---- synchronous reset ----
        if self.reset.val() {
            self.t0_lo_x.d.next = self.zero32.val();
            self.delta_x.d.next = self.zero32.val();
            self.guard_x.d.next = self.zero32.val();
            self.smask_x.d.next = self.zero24.val();
            self.start_x.d.next = self.zero48.val();
            self.end_x.d.next = self.zero48.val();
            self.end1_x.d.next = self.zero48.val();
            self.restart_q.d.next = false;
            self.interval.d.next = self.zero32.val();
            self.now_g_valid.d.next = false;
            self.now_g2_valid.d.next = false;
            self.step_q.d.next = false;
            self.hold_q.d.next = true;
            self.p1_valid.d.next = false;
            self.p2_v.d.next = false;
            self.p2_flip.d.next = false;
            self.live_packets.d.next = self.zero48.val();
            self.live_any.d.next = false;
            self.live_sampled.d.next = self.zero48.val();
            self.frz_packets.d.next = self.zero48.val();
            self.frz_sampled.d.next = self.zero48.val();
            self.frz_interval.d.next = self.zero32.val();
            self.oov.d.next = self.zero48.val();
            self.ro_sel.d.next = self.zero2.val();
        }
    }
}
