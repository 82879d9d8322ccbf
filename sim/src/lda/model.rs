//! Golden models of the LDA core (Kompella et al. §III-C update procedure,
//! §V hardware): a fast transaction-level model ([`LdaGolden`]) and a
//! cycle-accurate model of the RTL's ports ([`LdaCycle`]). Both produce the
//! same [`LdaSynopsis`] for the same config and packet stream.

use super::config::{LDA_CLASS_BITS, LDA_COUNT_BITS, LDA_EPOCH_COUNT_BITS, LDA_TS_BITS, LdaConfig, LdaHashes, LdaRegs};
use crate::counter_bank::{CountSum, CountSumLayout, CounterBankCycle, CounterBankInputs, CounterBankOutputs, Record};
use serde::{Deserialize, Serialize};

/// The record layout of an LDA row (§V: 32-bit count + 40-bit timestamp sum).
pub const LDA_LAYOUT: CountSumLayout = CountSumLayout { count_bits: LDA_COUNT_BITS, tsum_bits: LDA_TS_BITS };

const TS_MASK: u64 = (1 << LDA_TS_BITS) - 1;
const EPOCH_MASK: u64 = (1 << LDA_EPOCH_COUNT_BITS) - 1;

/// One packet as the core sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LdaPacket {
    /// Key (5-tuple + IP ID or any invariant bytes; bits above `key_bits` ignored).
    pub key: u128,
    /// Timestamp in clock ticks (modulo 2^40).
    pub ts: u64,
    /// Class field for the classifier.
    pub class: u8,
}

/// What one end of a segment reports for one measurement interval.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LdaSynopsis {
    /// The core's config.
    pub config: LdaConfig,
    /// Epoch sequence number (0 for the first epoch after reset).
    pub seq: u32,
    /// Packets that passed the classifier in the epoch (modulo 2^48).
    pub packets: u64,
    /// Packets that updated a bank in the epoch (modulo 2^48).
    pub sampled: u64,
    /// A row count wrapped since reset (sticky; the synopsis is then unreliable).
    pub overflow: bool,
    /// Rows {count, tsum}, bank-major: row `r` of bank `j` at `j * rows + r`.
    pub rows: Vec<(u64, u64)>,
}

/// Collects the read-out stream of a frozen epoch (§V: the second copy read
/// out while the first counts), one row per `ro_valid` cycle, into a synopsis
/// whose counters are those shown with the last row.
#[derive(Clone, Debug)]
pub struct LdaReadout {
    cfg: LdaConfig,
    rows: Vec<Option<(u64, u64)>>,
}

impl LdaReadout {
    /// An empty read-out of a core built from `cfg`.
    pub fn new(cfg: &LdaConfig) -> Self {
        Self { cfg: cfg.clone(), rows: vec![None; cfg.total_rows()] }
    }

    /// Takes one cycle's outputs; the synopsis once the last row has arrived.
    pub fn take(&mut self, o: &LdaOutputs) -> Result<Option<LdaSynopsis>, String> {
        if !o.ro_valid {
            return Ok(None);
        }
        let r = self
            .rows
            .get_mut(o.ro_addr as usize)
            .ok_or_else(|| format!("read-out address {} out of range", o.ro_addr))?;
        *r = Some((o.ro_data.count, o.ro_data.tsum));
        if !o.ro_last {
            return Ok(None);
        }
        let rows: Option<Vec<(u64, u64)>> = std::mem::take(&mut self.rows).into_iter().collect();
        Ok(Some(LdaSynopsis {
            config: self.cfg.clone(),
            seq: o.frozen_seq,
            packets: o.frozen_packets,
            sampled: o.frozen_sampled,
            overflow: o.ovf_sticky,
            rows: rows.ok_or("read-out skipped a row")?,
        }))
    }
}

/// Fast transaction-level LDA: one call per packet.
#[derive(Clone, Debug)]
pub struct LdaGolden {
    cfg: LdaConfig,
    hashes: LdaHashes,
    regs: LdaRegs,
    rows: Vec<CountSum>,
    packets: u64,
    sampled: u64,
    seq: u32,
    overflow: bool,
}

impl LdaGolden {
    /// The core after reset (the config must be valid).
    pub fn new(cfg: &LdaConfig) -> Self {
        Self {
            cfg: cfg.clone(),
            hashes: LdaHashes::new(cfg),
            regs: LdaRegs::reset(cfg),
            rows: vec![CountSum::default(); cfg.total_rows()],
            packets: 0,
            sampled: 0,
            seq: 0,
            overflow: false,
        }
    }

    /// A CSR write (takes effect for the following packets).
    pub fn write_csr(&mut self, addr: u32, data: u32) {
        self.regs.write(addr, data);
    }

    /// §III-C: i ← h(x), j ← g(x); if sampled, T[i, j] += τ and S[i, j] += 1.
    #[inline]
    pub fn packet(&mut self, p: &LdaPacket) {
        if !self.regs.measured(p.class) {
            return;
        }
        self.packets += 1;
        let (row, sample) = self.hashes.row_and_sample(p.key);
        if let Some(bank) = self.regs.bank(sample) {
            let addr = bank * self.cfg.rows + row as usize;
            self.overflow |= self.rows[addr].apply(&CountSum { count: 1, tsum: p.ts }, &LDA_LAYOUT);
            self.sampled += 1;
        }
    }

    /// Ends the epoch: returns its synopsis and starts the next one with clear counters.
    pub fn end_epoch(&mut self) -> LdaSynopsis {
        let s = LdaSynopsis {
            config: self.cfg.clone(),
            seq: self.seq,
            packets: self.packets & EPOCH_MASK,
            sampled: self.sampled & EPOCH_MASK,
            overflow: self.overflow,
            rows: self.rows.iter().map(|r| (r.count, r.tsum)).collect(),
        };
        self.rows.iter_mut().for_each(|r| *r = CountSum::default());
        self.packets = 0;
        self.sampled = 0;
        self.seq = self.seq.wrapping_add(1);
        s
    }
}

/// Inputs of the LDA core in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LdaInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// A packet is offered.
    pub valid: bool,
    /// The packet.
    pub pkt: LdaPacket,
    /// Request an epoch flip.
    pub flip: bool,
    /// CSR write enable, word address and data.
    pub csr_we: bool,
    /// CSR word address.
    pub csr_addr: u32,
    /// CSR write data.
    pub csr_wdata: u32,
    /// The read-out consumer takes the presented row.
    pub ro_ready: bool,
    /// Clear the sticky overflow flag.
    pub ovf_clear: bool,
}

/// Outputs of the LDA core in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LdaOutputs {
    /// Packets are accepted (low only while clearing after reset).
    pub ready: bool,
    /// A flip would be taken now.
    pub flip_ready: bool,
    /// Live copy.
    pub epoch: bool,
    /// A row of the frozen epoch is presented.
    pub ro_valid: bool,
    /// Its address {bank, row}.
    pub ro_addr: u32,
    /// Its count and timestamp sum.
    pub ro_data: CountSum,
    /// Last row.
    pub ro_last: bool,
    /// Sequence number of the frozen epoch.
    pub frozen_seq: u32,
    /// Measured packets of the frozen epoch.
    pub frozen_packets: u64,
    /// Sampled packets of the frozen epoch.
    pub frozen_sampled: u64,
    /// A row count wrapped since the flag was last cleared.
    pub ovf_sticky: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct P1 {
    valid: bool,
    pkt: LdaPacket,
    flip: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct P2 {
    valid: bool,
    ts: u64,
    row: u32,
    sample: u32,
    flip: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct P3 {
    valid: bool,
    ts: u64,
    addr: u32,
    flip: bool,
}

/// Cycle-accurate model of the LDA core (see `docs/cores/lda.md`, pipeline):
/// p1 input register, classifier and hashes; p2 bank selection; p3 the counter
/// bank's update port. A flip travels down the same stages so that the packet
/// offered in the flip cycle is the last of the old epoch.
#[derive(Clone, Debug)]
pub struct LdaCycle {
    cfg: LdaConfig,
    hashes: LdaHashes,
    regs: LdaRegs,
    bank: CounterBankCycle<CountSum>,
    p1: P1,
    p2: P2,
    p3: P3,
    live_packets: u64,
    live_sampled: u64,
    live_seq: u32,
    frozen_packets: u64,
    frozen_sampled: u64,
    frozen_seq: u32,
}

impl LdaCycle {
    /// The core at power-up (clearing its counters, as after a reset).
    pub fn new(cfg: &LdaConfig) -> Self {
        Self::with_parts(cfg.clone(), LdaHashes::new(cfg), CounterBankCycle::new(cfg.total_rows(), LDA_LAYOUT))
    }

    /// State as after a reset around the given hashes and counter bank.
    fn with_parts(cfg: LdaConfig, hashes: LdaHashes, bank: CounterBankCycle<CountSum>) -> Self {
        Self {
            regs: LdaRegs::reset(&cfg),
            cfg,
            hashes,
            bank,
            p1: P1::default(),
            p2: P2::default(),
            p3: P3::default(),
            live_packets: 0,
            live_sampled: 0,
            live_seq: 0,
            frozen_packets: 0,
            frozen_sampled: 0,
            frozen_seq: 0,
        }
    }

    /// One clock: returns the outputs seen during this cycle, then advances.
    pub fn step(&mut self, i: &LdaInputs) -> LdaOutputs {
        let bank_in = CounterBankInputs {
            reset: i.reset,
            upd_valid: self.p3.valid,
            upd_row: self.p3.addr,
            upd_op: CountSum { count: 1, tsum: self.p3.ts },
            flip: self.p3.flip,
            ro_ready: i.ro_ready,
            ovf_clear: i.ovf_clear,
            ..Default::default()
        };
        let b: CounterBankOutputs<CountSum> = self.bank.step(&bank_in);
        let flip_ready = b.flip_ready && !self.p1.flip && !self.p2.flip && !self.p3.flip;
        let out = LdaOutputs {
            ready: b.upd_ready,
            flip_ready,
            epoch: b.epoch,
            ro_valid: b.ro_valid,
            ro_addr: b.ro_row,
            ro_data: b.ro_data,
            ro_last: b.ro_last,
            frozen_seq: self.frozen_seq,
            frozen_packets: self.frozen_packets,
            frozen_sampled: self.frozen_sampled,
            ovf_sticky: b.ovf_sticky,
        };
        if i.reset {
            // The bank resets itself (it saw `reset`); everything else returns to its reset state.
            let bank = std::mem::replace(&mut self.bank, CounterBankCycle::new(0, LDA_LAYOUT));
            *self = Self::with_parts(self.cfg.clone(), self.hashes.clone(), bank);
            return out;
        }
        // p3: sampled-packet counter and the flip at the bank.
        if self.p3.flip {
            self.frozen_sampled = (self.live_sampled + self.p3.valid as u64) & EPOCH_MASK;
            self.live_sampled = 0;
            self.frozen_seq = self.live_seq;
            self.live_seq = self.live_seq.wrapping_add(1);
        } else {
            self.live_sampled = (self.live_sampled + self.p3.valid as u64) & EPOCH_MASK;
        }
        // p2 -> p3: bank selection.
        let bank = if self.p2.valid { self.regs.bank(self.p2.sample) } else { None };
        let p3 = P3 {
            valid: bank.is_some(),
            ts: self.p2.ts,
            addr: ((bank.unwrap_or(0) << self.cfg.row_bits()) as u32) | self.p2.row,
            flip: self.p2.flip,
        };
        // p1 -> p2: classifier (registers as of this cycle), hashes.
        let measured = self.p1.valid && self.regs.measured(self.p1.pkt.class);
        if self.p1.flip {
            self.frozen_packets = (self.live_packets + measured as u64) & EPOCH_MASK;
            self.live_packets = 0;
        } else {
            self.live_packets = (self.live_packets + measured as u64) & EPOCH_MASK;
        }
        let (row, sample) = self.hashes.row_and_sample(self.p1.pkt.key);
        let p2 = P2 { valid: measured, ts: self.p1.pkt.ts & TS_MASK, row, sample, flip: self.p1.flip };
        // input -> p1.
        let class_mask = (1u32 << LDA_CLASS_BITS) - 1;
        let p1 = P1 {
            valid: i.valid && out.ready,
            pkt: LdaPacket { class: (i.pkt.class as u32 & class_mask) as u8, ..i.pkt },
            flip: i.flip && flip_ready,
        };
        self.p3 = p3;
        self.p2 = p2;
        self.p1 = p1;
        if i.csr_we {
            self.regs.write(i.csr_addr, i.csr_wdata);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    /// Runs a packet stream through the cycle model and returns the synopsis of its first epoch.
    fn cycle_synopsis(cfg: &LdaConfig, pkts: &[LdaPacket], gaps: &mut SplitMix64) -> LdaSynopsis {
        let mut m = LdaCycle::new(cfg);
        let idle = LdaInputs { ro_ready: true, ..Default::default() };
        while !m.step(&idle).ready {}
        let mut k = 0;
        while k < pkts.len() {
            let valid = gaps.below(4) != 0;
            let o = m.step(&LdaInputs { valid, pkt: pkts[k], ..idle });
            assert!(o.ready);
            k += valid as usize;
        }
        let mut o = m.step(&LdaInputs { flip: true, ..idle });
        while !o.flip_ready {
            o = m.step(&LdaInputs { flip: true, ..idle });
        }
        let mut readout = LdaReadout::new(cfg);
        for _ in 0..cfg.total_rows() * 2 + 20 {
            if let Some(s) = readout.take(&m.step(&idle)).unwrap() {
                return s;
            }
        }
        panic!("read-out incomplete");
    }

    #[test]
    fn cycle_and_transaction_models_agree() {
        let cfg = LdaConfig { bank_prob_log2: vec![1, 3], rows: 64, ..Default::default() };
        let mut rng = SplitMix64::new(3);
        let pkts: Vec<LdaPacket> = (0..5000)
            .map(|i| LdaPacket { key: rng.next_u128() % 700, ts: 1000 + i * 7, class: rng.below(4) as u8 })
            .collect();
        let mut g = LdaGolden::new(&cfg);
        for p in &pkts {
            g.packet(p);
        }
        let want = g.end_epoch();
        assert!(want.sampled > 1000 && want.sampled < want.packets);
        assert_eq!(cycle_synopsis(&cfg, &pkts, &mut rng), want);
    }

    #[test]
    fn classifier_filters_and_every_packet_reaches_a_bank_at_threshold_zero() {
        let cfg = LdaConfig { bank_prob_log2: vec![0, 24], rows: 64, ..Default::default() };
        let mut g = LdaGolden::new(&cfg);
        g.write_csr(super::super::config::LDA_REG_CLASS_MASK, 0x3);
        g.write_csr(super::super::config::LDA_REG_CLASS_MATCH, 0x1);
        for i in 0..100u64 {
            g.packet(&LdaPacket { key: i as u128, ts: i, class: i as u8 });
        }
        let s = g.end_epoch();
        assert_eq!(s.packets, 25);
        assert_eq!(s.sampled, 25);
        assert_eq!(s.rows.iter().map(|r| r.0).sum::<u64>(), 25);
        assert_eq!(g.end_epoch().seq, 1);
    }
}
