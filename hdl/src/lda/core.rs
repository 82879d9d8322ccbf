//! LDA core: lossy difference aggregator at one packet per clock (Kompella et
//! al., ToN 2012, §III-B..C and the hardware of §V). The same core runs at the
//! sender and at the receiver of a segment; the host compares their synopses.
//!
//! Pipeline (a packet accepted at cycle t):
//! - **p1** (t+1) packet registered; classifier (§V: `(class & CLASS_MASK) ==
//!   CLASS_MATCH`); the row hash h(x) and the sampling hash g(x), two H3 units
//!   with independent matrices, register their outputs.
//! - **p2** (t+2) bank selection (§III-B.4): bank j is a candidate when the top
//!   `BANK_LZ[j]` bits of g(x) are zero; the highest candidate wins; none means
//!   the packet is not sampled.
//! - **p3** (t+3) update {bank, h(x)}: count += 1, tsum += timestamp (mod 2^40)
//!   in the counter bank (five-stage read-modify-write, one per clock).
//!
//! The timestamp is needed only by the bank's add, six clocks after p1. It
//! rides the pipeline registers (p2, p3 and the bank's four operand stages),
//! or, with `ts_in_ram`, waits in a 256 × 40-bit block RAM written from p1
//! every clock and read six clocks later (the same cycle behaviour, one
//! block RAM and two 8-bit pointers instead of 240 flip-flops; for the
//! iCE40 engine).
//!
//! An epoch flip travels down p1..p3 with the packets, so the packet offered
//! in the flip cycle is the last of the old epoch at every stage and counter.
//! Per epoch: a sequence number, the packets that passed the classifier and
//! the packets sampled; frozen with the epoch and presented with its read-out.

use crate::common::counter_bank::CounterBank;
use crate::common::h3::H3Unit;
use crate::common::sync_ram::SyncRam;
use netmeas_sim::counter_bank::CounterBankConfig;
use netmeas_sim::lda::{
    LDA_CLASS_BITS, LDA_COUNT_BITS, LDA_REG_BANK_LZ, LDA_REG_CLASS_MASK, LDA_REG_CLASS_MATCH, LDA_TS_BITS, LdaConfig,
    lz_mask,
};
use rust_hdl::prelude::*;

/// `ts_rd` takes `ts_wr − TS_LINE_LAG` at each edge, so it trails `ts_wr` by
/// `TS_LINE_LAG + 1`; with the RAM's registered read, the word on `read_data`
/// was written from p1 `TS_LINE_LAG + 2` = six clocks before: p1 → p2 → p3
/// (offered to the bank) → four clocks to the bank's add.
const TS_LINE_LAG: u64 = 4;

/// LDA core with a `K`-bit key, `2^RB` rows per bank and an `A`-bit {bank, row} address.
#[derive(LogicBlock)]
pub struct LdaCore<const K: usize, const RB: usize, const A: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops packets in flight, restores the registers, clears the counters.
    pub reset: Signal<In, Bit>,
    // --- packet metadata stream ---
    /// A packet is offered.
    pub s_valid: Signal<In, Bit>,
    /// Packets are accepted (low only while the counters clear after reset).
    pub s_ready: Signal<Out, Bit>,
    /// Packet key (e.g. 5-tuple + IP ID).
    pub s_key: Signal<In, Bits<K>>,
    /// Timestamp in ticks (40 bits, added modulo 2^40).
    pub s_ts: Signal<In, Bits<40>>,
    /// Class field for the classifier.
    pub s_class: Signal<In, Bits<8>>,
    // --- epochs ---
    /// Request an epoch flip (end of a measurement interval).
    pub flip: Signal<In, Bit>,
    /// A flip is taken this cycle if requested.
    pub flip_ready: Signal<Out, Bit>,
    /// Live counter copy.
    pub epoch: Signal<Out, Bit>,
    // --- CSR write port (register map in docs/cores/lda.md and csr.json) ---
    /// Write strobe.
    pub csr_we: Signal<In, Bit>,
    /// Word address.
    pub csr_addr: Signal<In, Bits<3>>,
    /// Write data (every register is at most 8 bits wide).
    pub csr_wdata: Signal<In, Bits<8>>,
    // --- read-out of the frozen epoch ---
    /// A row is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Row address {bank, row}.
    pub m_ro_addr: Signal<Out, Bits<A>>,
    /// Packet count of the row.
    pub m_ro_count: Signal<Out, Bits<32>>,
    /// Timestamp sum of the row (mod 2^40).
    pub m_ro_tsum: Signal<Out, Bits<40>>,
    /// Last row.
    pub m_ro_last: Signal<Out, Bit>,
    /// Sequence number of the frozen epoch.
    pub frozen_seq: Signal<Out, Bits<32>>,
    /// Packets of the frozen epoch that passed the classifier (mod 2^48).
    pub frozen_packets: Signal<Out, Bits<48>>,
    /// Packets of the frozen epoch that updated a bank (mod 2^48).
    pub frozen_sampled: Signal<Out, Bits<48>>,
    // --- status ---
    /// A row count wrapped since the flag was last cleared.
    pub ovf_sticky: Signal<Out, Bit>,
    /// Clear the overflow flag.
    pub ovf_clear: Signal<In, Bit>,
    // --- blocks ---
    row_hash: H3Unit<K, RB>,
    sample_hash: H3Unit<K, 24>,
    bank: CounterBank<A, 32, 40, 72, 7>,
    /// The timestamp delay line of `ts_in_ram`: written from p1, read for the bank's add.
    ts_line: SyncRam<40, 8>,
    // --- constants ---
    /// `LdaConfig::ts_in_ram`: the bank takes the timestamp from `ts_line`, late.
    ts_in_ram: Constant<Bit>,
    /// The read pointer trails the write pointer's next value by this (a delay of six clocks).
    ts_lag: Constant<Bits<8>>,
    one8: Constant<Bits<8>>,
    reg_class_mask: Constant<Bits<3>>,
    reg_class_match: Constant<Bits<3>>,
    reg_lz0: Constant<Bits<3>>,
    reg_lz1: Constant<Bits<3>>,
    reg_lz2: Constant<Bits<3>>,
    reg_lz3: Constant<Bits<3>>,
    reset_mask0: Constant<Bits<24>>,
    reset_mask1: Constant<Bits<24>>,
    reset_mask2: Constant<Bits<24>>,
    reset_mask3: Constant<Bits<24>>,
    has_bank1: Constant<Bit>,
    has_bank2: Constant<Bit>,
    has_bank3: Constant<Bit>,
    ones24: Constant<Bits<24>>,
    bsel0: Constant<Bits<2>>,
    bsel1: Constant<Bits<2>>,
    bsel2: Constant<Bits<2>>,
    bsel3: Constant<Bits<2>>,
    row_lsb: Constant<Bits<5>>,
    one_count: Constant<Bits<32>>,
    one48: Constant<Bits<48>>,
    zero48: Constant<Bits<48>>,
    one32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero24: Constant<Bits<24>>,
    zero8: Constant<Bits<8>>,
    // --- registers (bank masks held as XOR with their reset value) ---
    class_mask: DFF<Bits<8>>,
    class_match: DFF<Bits<8>>,
    mask0_x: DFF<Bits<24>>,
    mask1_x: DFF<Bits<24>>,
    mask2_x: DFF<Bits<24>>,
    mask3_x: DFF<Bits<24>>,
    // --- pipeline ---
    p1_valid: DFF<Bit>,
    p1_key: DFF<Bits<K>>,
    p1_ts: DFF<Bits<40>>,
    p1_class: DFF<Bits<8>>,
    p1_flip: DFF<Bit>,
    p2_v: DFF<Bit>,
    p2_ts: DFF<Bits<40>>,
    p2_flip: DFF<Bit>,
    p3_valid: DFF<Bit>,
    p3_ts: DFF<Bits<40>>,
    p3_addr: DFF<Bits<A>>,
    p3_flip: DFF<Bit>,
    /// Delay-line pointers: the row p1 writes, and the row written six clocks before.
    ts_wr: DFF<Bits<8>>,
    ts_rd: DFF<Bits<8>>,
    // --- epoch counters ---
    live_packets: DFF<Bits<48>>,
    live_sampled: DFF<Bits<48>>,
    live_seq: DFF<Bits<32>>,
    frz_packets: DFF<Bits<48>>,
    frz_sampled: DFF<Bits<48>>,
    frz_seq: DFF<Bits<32>>,
    // --- combinational helpers ---
    measured: Signal<Local, Bit>,
    p2_valid: Signal<Local, Bit>,
    sample: Signal<Local, Bits<24>>,
    cand0: Signal<Local, Bit>,
    cand1: Signal<Local, Bit>,
    cand2: Signal<Local, Bit>,
    cand3: Signal<Local, Bit>,
    bank_sel: Signal<Local, Bits<2>>,
    new_mask: Signal<Local, Bits<24>>,
    flip_ok: Signal<Local, Bit>,
}

impl<const K: usize, const RB: usize, const A: usize> LdaCore<K, RB, A> {
    /// The core for `cfg` (whose widths must match the type's).
    pub fn new(cfg: &LdaConfig) -> Self {
        assert_eq!((cfg.key_bits, cfg.row_bits(), cfg.addr_bits()), (K, RB, A), "LDA widths differ from the config");
        assert_eq!((LDA_COUNT_BITS, LDA_TS_BITS, LDA_CLASS_BITS), (32, 40, 8));
        let reset_mask = |j: usize| -> Constant<Bits<24>> {
            Constant::new((cfg.bank_prob_log2.get(j).map_or(0, |&k| lz_mask(k)) as u64).into())
        };
        let bank_cfg =
            CounterBankConfig { rows: cfg.total_rows(), addr_bits: Some(A), count_bits: 32, tsum_bits: 40, name: None };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_key: Default::default(),
            s_ts: Default::default(),
            s_class: Default::default(),
            flip: Default::default(),
            flip_ready: Default::default(),
            epoch: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_addr: Default::default(),
            m_ro_count: Default::default(),
            m_ro_tsum: Default::default(),
            m_ro_last: Default::default(),
            frozen_seq: Default::default(),
            frozen_packets: Default::default(),
            frozen_sampled: Default::default(),
            ovf_sticky: Default::default(),
            ovf_clear: Default::default(),
            row_hash: H3Unit::new(&cfg.row_hash()),
            sample_hash: H3Unit::new(&cfg.sample_hash()),
            bank: CounterBank::with_late_tsum(&bank_cfg, cfg.ts_in_ram),
            ts_line: SyncRam::default(),
            ts_in_ram: Constant::new(cfg.ts_in_ram),
            ts_lag: Constant::new(TS_LINE_LAG.into()),
            one8: Constant::new(1u64.into()),
            reg_class_mask: Constant::new((LDA_REG_CLASS_MASK as u64).into()),
            reg_class_match: Constant::new((LDA_REG_CLASS_MATCH as u64).into()),
            reg_lz0: Constant::new((LDA_REG_BANK_LZ as u64).into()),
            reg_lz1: Constant::new((LDA_REG_BANK_LZ as u64 + 1).into()),
            reg_lz2: Constant::new((LDA_REG_BANK_LZ as u64 + 2).into()),
            reg_lz3: Constant::new((LDA_REG_BANK_LZ as u64 + 3).into()),
            reset_mask0: reset_mask(0),
            reset_mask1: reset_mask(1),
            reset_mask2: reset_mask(2),
            reset_mask3: reset_mask(3),
            has_bank1: Constant::new(cfg.banks > 1),
            has_bank2: Constant::new(cfg.banks > 2),
            has_bank3: Constant::new(cfg.banks > 3),
            ones24: Constant::new(0xFF_FFFFu64.into()),
            bsel0: Constant::new(0u64.into()),
            bsel1: Constant::new(1u64.into()),
            bsel2: Constant::new(2u64.into()),
            bsel3: Constant::new(3u64.into()),
            row_lsb: Constant::new((RB as u64).into()),
            one_count: Constant::new(1u64.into()),
            one48: Constant::new(1u64.into()),
            zero48: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            zero24: Constant::new(0u64.into()),
            zero8: Constant::new(0u64.into()),
            class_mask: Default::default(),
            class_match: Default::default(),
            mask0_x: Default::default(),
            mask1_x: Default::default(),
            mask2_x: Default::default(),
            mask3_x: Default::default(),
            p1_valid: Default::default(),
            p1_key: Default::default(),
            p1_ts: Default::default(),
            p1_class: Default::default(),
            p1_flip: Default::default(),
            p2_v: Default::default(),
            p2_ts: Default::default(),
            p2_flip: Default::default(),
            p3_valid: Default::default(),
            p3_ts: Default::default(),
            p3_addr: Default::default(),
            p3_flip: Default::default(),
            ts_wr: Default::default(),
            ts_rd: Default::default(),
            live_packets: Default::default(),
            live_sampled: Default::default(),
            live_seq: Default::default(),
            frz_packets: Default::default(),
            frz_sampled: Default::default(),
            frz_seq: Default::default(),
            measured: Default::default(),
            p2_valid: Default::default(),
            sample: Default::default(),
            cand0: Default::default(),
            cand1: Default::default(),
            cand2: Default::default(),
            cand3: Default::default(),
            bank_sel: Default::default(),
            new_mask: Default::default(),
            flip_ok: Default::default(),
        }
    }
}

impl<const K: usize, const RB: usize, const A: usize> Logic for LdaCore<K, RB, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            class_mask,
            class_match,
            mask0_x,
            mask1_x,
            mask2_x,
            mask3_x,
            p1_valid,
            p1_key,
            p1_ts,
            p1_class,
            p1_flip,
            p2_v,
            p2_ts,
            p2_flip,
            p3_valid,
            p3_ts,
            p3_addr,
            p3_flip,
            ts_wr,
            ts_rd,
            live_packets,
            live_sampled,
            live_seq,
            frz_packets,
            frz_sampled,
            frz_seq
        );
        self.row_hash.clock.next = self.clock.val();
        self.sample_hash.clock.next = self.clock.val();
        self.bank.clock.next = self.clock.val();
        self.bank.reset.next = self.reset.val();
        self.ts_line.clock.next = self.clock.val();

        // ---- outputs ----
        self.s_ready.next = self.bank.s_upd_ready.val();
        self.flip_ok.next =
            self.bank.flip_ready.val() & !self.p1_flip.q.val() & !self.p2_flip.q.val() & !self.p3_flip.q.val();
        self.flip_ready.next = self.flip_ok.val();
        self.epoch.next = self.bank.epoch.val();
        self.m_ro_valid.next = self.bank.m_ro_valid.val();
        self.bank.m_ro_ready.next = self.m_ro_ready.val();
        self.m_ro_addr.next = self.bank.m_ro_row.val();
        self.m_ro_count.next = self.bank.m_ro_count.val();
        self.m_ro_tsum.next = self.bank.m_ro_tsum.val();
        self.m_ro_last.next = self.bank.m_ro_last.val();
        self.frozen_seq.next = self.frz_seq.q.val();
        self.frozen_packets.next = self.frz_packets.q.val();
        self.frozen_sampled.next = self.frz_sampled.q.val();
        self.ovf_sticky.next = self.bank.ovf_sticky.val();
        self.bank.ovf_clear.next = self.ovf_clear.val();

        // ---- input -> p1 ----
        self.p1_valid.d.next = self.s_valid.val() & self.bank.s_upd_ready.val();
        self.p1_key.d.next = self.s_key.val();
        self.p1_ts.d.next = self.s_ts.val();
        self.p1_class.d.next = self.s_class.val();
        self.p1_flip.d.next = self.flip.val() & self.flip_ok.val();

        // ---- p1: classifier, hashes (registered in the H3 units) ----
        self.measured.next =
            self.p1_valid.q.val() & ((self.p1_class.q.val() & self.class_mask.q.val()) == self.class_match.q.val());
        self.row_hash.s_valid.next = self.measured.val();
        self.row_hash.s_key.next = self.p1_key.q.val();
        self.sample_hash.s_valid.next = self.measured.val();
        self.sample_hash.s_key.next = self.p1_key.q.val();
        self.p2_v.d.next = self.measured.val();
        self.p2_ts.d.next = self.p1_ts.q.val();
        self.p2_flip.d.next = self.p1_flip.q.val();
        if self.p1_flip.q.val() {
            if self.measured.val() {
                self.frz_packets.d.next = self.live_packets.q.val() + self.one48.val();
            } else {
                self.frz_packets.d.next = self.live_packets.q.val();
            }
            self.live_packets.d.next = self.zero48.val();
        } else if self.measured.val() {
            self.live_packets.d.next = self.live_packets.q.val() + self.one48.val();
        }

        // ---- p2: bank selection by leading zeros of g(x) ----
        // `p2_v` is the hash units' own valid, but cleared by reset (the units have none).
        self.p2_valid.next = self.p2_v.q.val() & self.row_hash.m_valid.val() & self.sample_hash.m_valid.val();
        self.sample.next = self.sample_hash.m_hash.val();
        self.cand0.next = (self.sample.val() & (self.mask0_x.q.val() ^ self.reset_mask0.val())) == self.zero24.val();
        self.cand1.next = self.has_bank1.val()
            & ((self.sample.val() & (self.mask1_x.q.val() ^ self.reset_mask1.val())) == self.zero24.val());
        self.cand2.next = self.has_bank2.val()
            & ((self.sample.val() & (self.mask2_x.q.val() ^ self.reset_mask2.val())) == self.zero24.val());
        self.cand3.next = self.has_bank3.val()
            & ((self.sample.val() & (self.mask3_x.q.val() ^ self.reset_mask3.val())) == self.zero24.val());
        if self.cand3.val() {
            self.bank_sel.next = self.bsel3.val();
        } else if self.cand2.val() {
            self.bank_sel.next = self.bsel2.val();
        } else if self.cand1.val() {
            self.bank_sel.next = self.bsel1.val();
        } else {
            self.bank_sel.next = self.bsel0.val();
        }
        self.p3_valid.d.next =
            self.p2_valid.val() & (self.cand0.val() | self.cand1.val() | self.cand2.val() | self.cand3.val());
        self.p3_ts.d.next = self.p2_ts.q.val();
        self.p3_addr.d.next = bit_cast::<A, RB>(self.row_hash.m_hash.val())
            | (bit_cast::<A, 2>(self.bank_sel.val()) << self.row_lsb.val());
        self.p3_flip.d.next = self.p2_flip.q.val();

        // ---- p3: the counter bank's update port; the flip lands here ----
        self.bank.s_upd_valid.next = self.p3_valid.q.val();
        self.bank.s_upd_row.next = self.p3_addr.q.val();
        self.bank.s_upd_count.next = self.one_count.val();
        // The timestamp: with the update from p3, or (`ts_in_ram`) at the bank's add,
        // four clocks later, from the delay line: p1's of six clocks before. The
        // pointers run free; the read row, registered, trails the write row by five.
        self.ts_wr.d.next = self.ts_wr.q.val() + self.one8.val();
        self.ts_rd.d.next = self.ts_wr.q.val() - self.ts_lag.val();
        self.ts_line.write_address.next = self.ts_wr.q.val();
        self.ts_line.write_data.next = self.p1_ts.q.val();
        self.ts_line.write_enable.next = self.ts_in_ram.val();
        self.ts_line.read_address.next = self.ts_rd.q.val();
        if self.ts_in_ram.val() {
            self.bank.s_upd_tsum.next = self.ts_line.read_data.val();
        } else {
            self.bank.s_upd_tsum.next = self.p3_ts.q.val();
        }
        self.bank.flip.next = self.p3_flip.q.val();
        if self.p3_flip.q.val() {
            if self.p3_valid.q.val() {
                self.frz_sampled.d.next = self.live_sampled.q.val() + self.one48.val();
            } else {
                self.frz_sampled.d.next = self.live_sampled.q.val();
            }
            self.live_sampled.d.next = self.zero48.val();
            self.frz_seq.d.next = self.live_seq.q.val();
            self.live_seq.d.next = self.live_seq.q.val() + self.one32.val();
        } else if self.p3_valid.q.val() {
            self.live_sampled.d.next = self.live_sampled.q.val() + self.one48.val();
        }

        // ---- CSR writes (effective from the next cycle) ----
        self.new_mask.next = self.ones24.val() ^ (self.ones24.val() >> self.csr_wdata.val().get_bits::<6>(0));
        if self.csr_we.val() {
            if self.csr_addr.val() == self.reg_class_mask.val() {
                self.class_mask.d.next = self.csr_wdata.val().get_bits::<8>(0);
            }
            if self.csr_addr.val() == self.reg_class_match.val() {
                self.class_match.d.next = self.csr_wdata.val().get_bits::<8>(0);
            }
            if self.csr_addr.val() == self.reg_lz0.val() {
                self.mask0_x.d.next = self.new_mask.val() ^ self.reset_mask0.val();
            }
            if (self.csr_addr.val() == self.reg_lz1.val()) & self.has_bank1.val() {
                self.mask1_x.d.next = self.new_mask.val() ^ self.reset_mask1.val();
            }
            if (self.csr_addr.val() == self.reg_lz2.val()) & self.has_bank2.val() {
                self.mask2_x.d.next = self.new_mask.val() ^ self.reset_mask2.val();
            }
            if (self.csr_addr.val() == self.reg_lz3.val()) & self.has_bank3.val() {
                self.mask3_x.d.next = self.new_mask.val() ^ self.reset_mask3.val();
            }
        }

        // ---- synchronous reset ----
        if self.reset.val() {
            self.class_mask.d.next = self.zero8.val();
            self.class_match.d.next = self.zero8.val();
            self.mask0_x.d.next = self.zero24.val();
            self.mask1_x.d.next = self.zero24.val();
            self.mask2_x.d.next = self.zero24.val();
            self.mask3_x.d.next = self.zero24.val();
            self.p1_valid.d.next = false;
            self.p1_flip.d.next = false;
            self.p2_v.d.next = false;
            self.p2_flip.d.next = false;
            self.p3_valid.d.next = false;
            self.p3_flip.d.next = false;
            self.live_packets.d.next = self.zero48.val();
            self.live_sampled.d.next = self.zero48.val();
            self.live_seq.d.next = self.zero32.val();
            self.frz_packets.d.next = self.zero48.val();
            self.frz_sampled.d.next = self.zero48.val();
            self.frz_seq.d.next = self.zero32.val();
        }
    }
}
