//! Golden model of the fridge core, one packet at a time (§3.2, §4.2, §6.1,
//! §6.2). The RTL is bit-identical to it: same entries, same samples, same
//! PRNG draws and the same histograms.

use super::config::*;
use super::factor::{CM_BITS, CorrectionRegs, PINV_BITS, weight_q8, weight_sq};
use crate::counter_bank::{Record, Word};
use serde::{Deserialize, Serialize};

/// One packet at the core's input (Definition 2.1: ID, timestamp, type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FridgePacket {
    /// 32-bit request/response ID digest (§6.1).
    pub id: u32,
    /// A response (else a request).
    pub response: bool,
    /// Timestamp in ticks (48 bits used).
    pub ts: u64,
}

/// A delay sample: a response found its request (§6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FridgeSample {
    /// Fridge k that held the request.
    pub fridge: u8,
    /// Response timestamp − request timestamp, modulo 2^48.
    pub delay: u64,
    /// Insertions x the request survived in its fridge (§3.2.1), modulo 2^32.
    pub x: u32,
}

/// One histogram bin of one fridge (§6.2: "adding up the correction factors of
/// delay samples that fall into certain delay ranges").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistBin {
    /// Samples in the bin.
    pub count: u32,
    /// Σ quantized correction factor, 8 fractional bits.
    pub wsum: u64,
    /// Σ quantized factor², integer part (the variance estimate of eq. 4.7).
    pub w2sum: u64,
}

impl HistBin {
    /// The histogram update of one sample of quantized factor `q`: {1, factor, factor²}.
    #[inline]
    pub fn sample(q: u32) -> Self {
        Self { count: 1, wsum: weight_q8(q), w2sum: weight_sq(q) }
    }

    /// Adds one sample of quantized factor `q`; true if a field wrapped.
    pub fn add(&mut self, q: u32) -> bool {
        self.apply(&Self::sample(q), &())
    }
}

/// The histogram bank's record (§6.2), packed as `{w2sum, wsum, count}`:
/// count in bits [31:0], Σ factor in [95:32], Σ factor² in [159:96].
impl Record for HistBin {
    type Layout = ();

    #[inline]
    fn apply(&mut self, op: &Self, _: &()) -> bool {
        let (c, o1) = self.count.overflowing_add(op.count);
        let (w, o2) = self.wsum.overflowing_add(op.wsum);
        let (w2, o3) = self.w2sum.overflowing_add(op.w2sum);
        *self = Self { count: c, wsum: w, w2sum: w2 };
        o1 | o2 | o3
    }

    fn pack(&self, _: &()) -> Word {
        let mut w = Word::default();
        w[0] = self.count;
        w[1] = self.wsum as u32;
        w[2] = (self.wsum >> 32) as u32;
        w[3] = self.w2sum as u32;
        w[4] = (self.w2sum >> 32) as u32;
        w
    }
}

/// Histogram bin of a delay (see [`FridgeConfig::bin_shift`]).
#[inline]
pub fn delay_bin(delay: u64, shift: u32) -> usize {
    let shift = shift.min(FRIDGE_TS_BITS - 1);
    if delay >> shift == 0 {
        0
    } else {
        ((63 - delay.leading_zeros()) - shift + 1).min(FRIDGE_BINS as u32 - 1) as usize
    }
}

/// One step of the fridges' PRNG: xorshift32 (Marsaglia 2003, shifts 13/17/5).
#[inline]
pub fn xorshift32(mut s: u32) -> u32 {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    s
}

/// An entry of the shared fridge memory (§6.1 IDS[idx], TS[idx], CTR[idx]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FridgeEntry {
    /// Holds a request.
    pub valid: bool,
    /// Its ID.
    pub id: u32,
    /// Its timestamp.
    pub ts: u64,
    /// Its fridge's insertion counter just after it arrived.
    pub stamp: u32,
}

/// The core's run-time registers, as the golden models hold them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FridgeRegs {
    /// `BIN_SHIFT`.
    pub bin_shift: u32,
    /// `THRESH_k`.
    pub thresh: Vec<u32>,
    /// `CORR_*_k`.
    pub corr: Vec<CorrectionRegs>,
}

/// What a CSR write does besides setting a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FridgeCsrEffect {
    /// Nothing else.
    None,
    /// Flip the histogram epoch.
    Flip,
}

impl FridgeRegs {
    /// Values after reset.
    pub fn reset(cfg: &FridgeConfig) -> Self {
        Self {
            bin_shift: cfg.bin_shift,
            thresh: (0..cfg.fridges()).map(|k| cfg.threshold(k)).collect(),
            corr: (0..cfg.fridges()).map(|k| cfg.correction(k)).collect(),
        }
    }

    /// A write on the CSR port (unknown addresses are ignored, as in the RTL).
    pub fn write(&mut self, addr: u32, data: u32) -> FridgeCsrEffect {
        match addr {
            FRIDGE_REG_BIN_SHIFT => self.bin_shift = data & 63,
            FRIDGE_REG_FLIP => return FridgeCsrEffect::Flip,
            a if a >= FRIDGE_REG_THRESH && ((a - FRIDGE_REG_THRESH) / 4) < self.thresh.len() as u32 => {
                // Fridge k's four registers sit at FRIDGE_REG_* + 4k.
                let k = ((a - FRIDGE_REG_THRESH) / 4) as usize;
                match a - 4 * k as u32 {
                    FRIDGE_REG_THRESH => self.thresh[k] = data,
                    FRIDGE_REG_CORR_PINV => self.corr[k].pinv = data & ((1 << PINV_BITS) - 1),
                    FRIDGE_REG_CORR_CM => self.corr[k].cm = data & ((1 << CM_BITS) - 1),
                    _ => self.corr[k].sh = data & 63,
                }
            }
            _ => {}
        }
        FridgeCsrEffect::None
    }
}

/// What a fridge point reports for one epoch (§6.2): the core's config, the
/// epoch number and the histograms `EPOCH_FLIP` froze ([`FRIDGE_BINS`] bins
/// per fridge, fridge-major), with the sticky flags read beside them. One
/// epoch of the measurement station.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FridgeSynopsis {
    /// The core's config.
    pub config: FridgeConfig,
    /// The epoch: flips since reset.
    pub epoch: u64,
    /// The frozen histograms, bin `b` of fridge `k` at `k * FRIDGE_BINS + b`.
    pub histograms: Vec<HistBin>,
    /// A histogram field wrapped (sticky since reset): the histograms are unreliable.
    pub overflow: bool,
    /// Samples whose quantized factor saturated (since reset).
    pub saturated: u32,
}

/// The fridge core, packet by packet.
#[derive(Clone, Debug)]
pub struct FridgeGolden {
    cfg: FridgeConfig,
    index: FridgeIndex,
    /// Run-time registers.
    pub regs: FridgeRegs,
    prng: Vec<u32>,
    ctr: Vec<u32>,
    entries: Vec<FridgeEntry>,
    hist: [Vec<HistBin>; 2],
    epoch: usize,
    /// A histogram field wrapped (sticky).
    pub hist_overflow: bool,
    /// Samples whose quantized factor saturated at 2^32 (saturating counter).
    pub saturated: u32,
}

impl FridgeGolden {
    /// A core after reset.
    pub fn new(cfg: &FridgeConfig) -> Self {
        let n = cfg.fridges();
        Self {
            cfg: cfg.clone(),
            index: FridgeIndex::new(cfg),
            regs: FridgeRegs::reset(cfg),
            prng: (0..n).map(|k| cfg.prng_seed(k)).collect(),
            ctr: vec![0; n],
            entries: vec![FridgeEntry::default(); cfg.total_entries()],
            hist: [vec![HistBin::default(); n * FRIDGE_BINS], vec![HistBin::default(); n * FRIDGE_BINS]],
            epoch: 0,
            hist_overflow: false,
            saturated: 0,
        }
    }

    /// The config.
    pub fn config(&self) -> &FridgeConfig {
        &self.cfg
    }

    /// One packet: a request may enter its fridge, a response may produce a sample.
    #[inline]
    pub fn process(&mut self, p: &FridgePacket) -> Option<FridgeSample> {
        let (k, row) = self.index.locate(p.id);
        let ts = p.ts & FRIDGE_TS_MASK;
        if !p.response {
            // §6.1: every request routed here counts as an insertion attempt and draws
            // from the PRNG; it is stored (overwriting) iff the draw is ≤ THRESH.
            self.ctr[k] = self.ctr[k].wrapping_add(1);
            self.prng[k] = xorshift32(self.prng[k]);
            if self.prng[k] <= self.regs.thresh[k] {
                self.entries[row] = FridgeEntry { valid: true, id: p.id, ts, stamp: self.ctr[k] };
            }
            return None;
        }
        let e = self.entries[row];
        if !(e.valid && e.id == p.id) {
            return None;
        }
        self.entries[row] = FridgeEntry::default();
        let s = FridgeSample {
            fridge: k as u8,
            delay: ts.wrapping_sub(e.ts) & FRIDGE_TS_MASK,
            x: self.ctr[k].wrapping_sub(e.stamp),
        };
        self.tally(&s);
        Some(s)
    }

    /// Adds a sample to the live histogram (§6.2).
    fn tally(&mut self, s: &FridgeSample) {
        let k = s.fridge as usize;
        let (q, sat) = self.regs.corr[k].quantize(s.x);
        if sat {
            self.saturated = self.saturated.saturating_add(1);
        }
        let b = k * FRIDGE_BINS + delay_bin(s.delay, self.regs.bin_shift);
        self.hist_overflow |= self.hist[self.epoch][b].add(q);
    }

    /// The live histograms, fridge-major (fridge k's bin i at k·32 + i).
    pub fn live_histogram(&self) -> &[HistBin] {
        &self.hist[self.epoch]
    }

    /// Ends the histogram epoch: returns the frozen histograms and counts into the clear copy.
    pub fn flip(&mut self) -> Vec<HistBin> {
        let frozen =
            std::mem::replace(&mut self.hist[self.epoch], vec![HistBin::default(); self.cfg.fridges() * FRIDGE_BINS]);
        self.epoch ^= 1;
        frozen
    }

    /// A CSR write (a `FLIP` write returns the frozen histograms).
    pub fn csr_write(&mut self, addr: u32, data: u32) -> Option<Vec<HistBin>> {
        match self.regs.write(addr, data) {
            FridgeCsrEffect::Flip => Some(self.flip()),
            FridgeCsrEffect::None => None,
        }
    }

    /// The entry at a row of the shared memory.
    pub fn entry(&self, row: usize) -> FridgeEntry {
        self.entries[row]
    }

    /// Fridge k's insertion counter.
    pub fn insertions(&self, k: usize) -> u32 {
        self.ctr[k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fridge::factor::quantized_factor;

    #[test]
    fn bins_follow_log2_of_the_delay() {
        assert_eq!(delay_bin(0, 10), 0);
        assert_eq!(delay_bin(1023, 10), 0);
        assert_eq!(delay_bin(1024, 10), 1);
        assert_eq!(delay_bin(2047, 10), 1);
        assert_eq!(delay_bin(2048, 10), 2);
        assert_eq!(delay_bin(1 << 40, 10), 31);
        assert_eq!(delay_bin(u64::MAX >> 16, 0), 31);
        assert_eq!(delay_bin(1, 0), 1);
        assert_eq!(delay_bin(0, 0), 0);
    }

    #[test]
    fn xorshift32_has_the_published_sequence() {
        // Marsaglia's xorshift32 from 2463534242: 723471715, 2497366906, 2064144800.
        let a = xorshift32(2_463_534_242);
        let b = xorshift32(a);
        assert_eq!((a, b, xorshift32(b)), (723_471_715, 2_497_366_906, 2_064_144_800));
    }

    #[test]
    fn a_response_after_its_request_gives_its_delay_and_clears_the_entry() {
        let cfg = FridgeConfig { entries: vec![1024], entry_prob_log2: vec![0.0], ..Default::default() };
        let mut g = FridgeGolden::new(&cfg);
        assert_eq!(g.process(&FridgePacket { id: 7, response: false, ts: 100 }), None);
        for i in 0..5 {
            g.process(&FridgePacket { id: 1000 + i, response: false, ts: 101 + i as u64 });
        }
        let s = g.process(&FridgePacket { id: 7, response: true, ts: 5000 }).unwrap_or_else(|| {
            panic!("no sample (row collision would need the 7/1000.. IDs to share a row)");
        });
        assert_eq!(s, FridgeSample { fridge: 0, delay: 4900, x: 5 });
        // Cleared: a second response finds nothing.
        assert_eq!(g.process(&FridgePacket { id: 7, response: true, ts: 6000 }), None);
        // The sample is in bin ⌊log2 4900⌋ − 10 + 1 = 3 with factor ≈ 1/p.
        let bin = g.live_histogram()[3];
        assert_eq!(bin.count, 1);
        let f = bin.wsum as f64 / 256.0;
        assert!((f / quantized_factor(0) - 1.0).abs() < 1e-3, "{f}");
        let frozen = g.flip();
        assert_eq!(frozen[3], bin);
        assert!(g.live_histogram().iter().all(|b| *b == HistBin::default()));
    }

    #[test]
    fn entry_probability_is_the_threshold_over_the_prng() {
        let cfg = FridgeConfig { entries: vec![1 << 16], entry_prob_log2: vec![-3.0], ..Default::default() };
        let mut g = FridgeGolden::new(&cfg);
        let n = 200_000u32;
        for i in 0..n {
            g.process(&FridgePacket { id: i.wrapping_mul(0x9e37_79b1), response: false, ts: i as u64 });
        }
        let stored = (0..cfg.total_entries()).filter(|&r| g.entry(r).valid).count() as f64;
        // With 2^16 rows, n·p = 25 000 stores leave 2^16·(1 − e^{−25000/2^16}) rows filled.
        let m = (1 << 16) as f64;
        let want = m * (1.0 - (-(n as f64) / 8.0 / m).exp());
        assert!((stored / want - 1.0).abs() < 0.03, "{stored} vs {want}");
        assert_eq!(g.insertions(0), n);
    }

    #[test]
    fn csr_writes_reach_the_registers() {
        let mut g = FridgeGolden::new(&FridgeConfig::default());
        g.csr_write(FRIDGE_REG_THRESH + 4, 77);
        g.csr_write(FRIDGE_REG_CORR_SH + 4, 65);
        g.csr_write(FRIDGE_REG_BIN_SHIFT, 3);
        g.csr_write(FRIDGE_REG_THRESH + 8, 5); // no third fridge: ignored
        assert_eq!((g.regs.thresh[1], g.regs.corr[1].sh, g.regs.bin_shift), (77, 1, 3));
        assert!(g.csr_write(FRIDGE_REG_FLIP, 0).is_some());
    }
}
