//! Golden model of the RDA core (Fu et al. §V-A insertion: ID ⊕= id,
//! TS += ts, Δ += 1 in one bucket of every bank; §III-A intervals
//! [t_i, t_i + δ) delimited by the synchronized clock). Transaction level:
//! one call per packet, bit-identical to the RTL's read-out, including where
//! the interval boundaries fall.

use super::config::{
    CsrEffect, RDA_COUNT_BITS, RDA_EPOCH_COUNT_BITS, RDA_ID_BITS, RDA_TS_BITS, RdaConfig, RdaHashes, RdaRegs,
};
use super::hash::MultiBucketHash;
use crate::counter_bank::{Record, Word};
use serde::{Deserialize, Serialize};

const TS_MASK: u64 = (1 << RDA_TS_BITS) - 1;
const EPOCH_MASK: u64 = (1 << RDA_EPOCH_COUNT_BITS) - 1;

/// `a ≥ b` on the 48-bit timestamp circle (exact while they are < 2^47 ticks apart).
#[inline]
pub fn ts_ge(a: u64, b: u64) -> bool {
    a.wrapping_sub(b) & TS_MASK < 1 << (RDA_TS_BITS - 1)
}

/// Field widths of [`RdaRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdaLayout {
    /// Timestamp-sum width.
    pub tsum_bits: u32,
}

/// One RDA bucket (§V-A): XOR of the IDs, modular sum of the timestamps and
/// the packet count Δ. Packed as `{id, tsum, count}`, count in the low 32 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdaRecord {
    /// XOR of the IDs of the packets in the bucket.
    pub id: u64,
    /// Sum of their timestamps modulo 2^tsum_bits.
    pub tsum: u64,
    /// Packets in the bucket (a wrap is an overflow, flagged by the core).
    pub count: u64,
}

#[inline]
fn mask64(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

impl RdaRecord {
    /// Inserts one packet {id, ts}: ID ^= id, TS += ts (under `tsum_mask`),
    /// Δ += 1 (§V-A); true if the count wrapped.
    #[inline(always)]
    pub fn insert(&mut self, id: u64, ts: u64, tsum_mask: u64) -> bool {
        let count = self.count + 1;
        self.count = count & mask64(RDA_COUNT_BITS);
        self.tsum = self.tsum.wrapping_add(ts) & tsum_mask;
        self.id ^= id;
        count > mask64(RDA_COUNT_BITS)
    }

    /// Adds the packets of `other` (the same bucket filled from another part
    /// of the stream: every field is a commutative modular sum) and empties
    /// it; true if the count wrapped.
    #[inline]
    pub fn absorb(&mut self, other: &mut Self, tsum_mask: u64) -> bool {
        let count = self.count + other.count;
        self.count = count & mask64(RDA_COUNT_BITS);
        self.tsum = self.tsum.wrapping_add(other.tsum) & tsum_mask;
        self.id ^= other.id;
        *other = Self::default();
        count > mask64(RDA_COUNT_BITS)
    }
}

impl Record for RdaRecord {
    type Layout = RdaLayout;

    #[inline]
    fn apply(&mut self, op: &Self, l: &RdaLayout) -> bool {
        let cm = mask64(RDA_COUNT_BITS);
        let sum = self.count + (op.count & cm);
        self.count = sum & cm;
        self.tsum = self.tsum.wrapping_add(op.tsum) & mask64(l.tsum_bits);
        self.id ^= op.id;
        sum > cm
    }

    fn pack(&self, l: &RdaLayout) -> Word {
        let mut bits = [0u64; 4];
        let mut put = |v: u64, at: u32, w: u32| {
            let v = v & mask64(w);
            bits[(at / 64) as usize] |= v << (at % 64);
            if at % 64 != 0 && at % 64 + w > 64 {
                bits[(at / 64) as usize + 1] |= v >> (64 - at % 64);
            }
        };
        put(self.count, 0, RDA_COUNT_BITS);
        put(self.tsum, RDA_COUNT_BITS, l.tsum_bits);
        put(self.id, RDA_COUNT_BITS + l.tsum_bits, RDA_ID_BITS);
        let mut w = Word::default();
        for (i, limb) in w.iter_mut().take(2 * bits.len()).enumerate() {
            *limb = (bits[i / 2] >> (32 * (i % 2))) as u32;
        }
        w
    }
}

/// What one end of a segment reports for one measurement interval.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdaSynopsis {
    /// The core's config.
    pub config: RdaConfig,
    /// Interval index i since the last restart: the interval is [t_0 + iδ, t_0 + (i+1)δ) when δ is constant.
    pub interval: u32,
    /// Packets of the interval that the core saw (modulo 2^48).
    pub packets: u64,
    /// Packets that updated the banks: those selected by the sampling hash (modulo 2^48).
    pub sampled: u64,
    /// A bucket count wrapped since reset (sticky; the synopsis is then unreliable).
    pub overflow: bool,
    /// Buckets, bank-major: bucket `i` of bank `l` at `l * buckets + i`.
    pub buckets: Vec<RdaRecord>,
}

impl RdaSynopsis {
    /// An interval in which this end saw no packet (the core emits no read-out for it).
    pub fn empty(cfg: &RdaConfig, interval: u32) -> Self {
        Self {
            config: cfg.clone(),
            interval,
            packets: 0,
            sampled: 0,
            overflow: false,
            buckets: vec![RdaRecord::default(); cfg.banks * cfg.buckets],
        }
    }

    /// Bank `l`'s buckets.
    pub fn bank(&self, l: usize) -> &[RdaRecord] {
        let m = self.config.buckets;
        &self.buckets[l * m..(l + 1) * m]
    }
}

/// Fast transaction-level RDA: one call per packet.
#[derive(Clone, Debug)]
pub struct RdaGolden {
    cfg: RdaConfig,
    /// 2^tsum_bits − 1.
    tsum_mask: u64,
    hashes: RdaHashes,
    fast: MultiBucketHash,
    regs: RdaRegs,
    buckets: Vec<RdaRecord>,
    start: u64,
    end: u64,
    interval: u32,
    packets: u64,
    sampled: u64,
    out_of_interval: u64,
    overflow: bool,
    /// Runs of at least this many in-interval packets are split over two
    /// threads (None: one thread).
    parallel_run: Option<usize>,
    /// The second thread's buckets, empty between runs.
    scratch: Vec<RdaRecord>,
}

/// Default shortest run of [`RdaGolden::packets`] worth a second thread.
pub const RDA_PARALLEL_RUN: usize = 1 << 15;

impl RdaGolden {
    /// The core after reset (the config must be valid).
    pub fn new(cfg: &RdaConfig) -> Self {
        let regs = RdaRegs::reset(cfg);
        let hashes = RdaHashes::new(cfg);
        Self {
            tsum_mask: mask64(cfg.tsum_bits as u32),
            fast: MultiBucketHash::new(&hashes.buckets),
            hashes,
            buckets: vec![RdaRecord::default(); cfg.banks * cfg.buckets],
            start: cfg.t0,
            end: (cfg.t0 + regs.delta) & TS_MASK,
            regs,
            interval: 0,
            packets: 0,
            sampled: 0,
            out_of_interval: 0,
            overflow: false,
            parallel_run: std::thread::available_parallelism().is_ok_and(|n| n.get() > 1).then_some(RDA_PARALLEL_RUN),
            scratch: Vec::new(),
            cfg: cfg.clone(),
        }
    }

    /// Splits runs of at least `min_run` in-interval packets of
    /// [`Self::packets`] over two threads (each fills its own buckets, which
    /// are then added: the same result bit for bit); None keeps one thread.
    /// The default is [`RDA_PARALLEL_RUN`] where the machine has two cores.
    pub fn set_parallel_run(&mut self, min_run: Option<usize>) {
        self.parallel_run = min_run;
    }

    /// The config.
    pub fn config(&self) -> &RdaConfig {
        &self.cfg
    }

    /// The hashes.
    pub fn hashes(&self) -> &RdaHashes {
        &self.hashes
    }

    /// A CSR write (takes effect for the following packets).
    pub fn write_csr(&mut self, addr: u32, data: u32) {
        if let CsrEffect::Restart(t0) = self.regs.write(addr, data) {
            self.start = t0;
            self.end = (t0 + self.regs.delta) & TS_MASK;
            self.interval = 0;
        }
    }

    /// Packets dropped because their timestamp fell before the live interval
    /// (before t_0, or time went backwards), modulo 2^48.
    pub fn out_of_interval(&self) -> u64 {
        self.out_of_interval & EPOCH_MASK
    }

    /// The live interval's index.
    pub fn interval(&self) -> u32 {
        self.interval
    }

    /// Crosses one interval boundary: the live synopsis is emitted if the
    /// interval saw a packet (the RTL flips its copies), then t_i += δ.
    fn cross(&mut self, out: &mut Vec<RdaSynopsis>) {
        if self.packets != 0 {
            out.push(RdaSynopsis {
                config: self.cfg.clone(),
                interval: self.interval,
                packets: self.packets & EPOCH_MASK,
                sampled: self.sampled & EPOCH_MASK,
                overflow: self.overflow,
                buckets: std::mem::replace(
                    &mut self.buckets,
                    vec![RdaRecord::default(); self.cfg.banks * self.cfg.buckets],
                ),
            });
            self.packets = 0;
            self.sampled = 0;
        }
        self.start = self.end;
        self.end = (self.end + self.regs.delta) & TS_MASK;
        self.interval = self.interval.wrapping_add(1);
    }

    /// One packet {id, ts}: closes every interval that ended at or before
    /// `ts` (their synopses are appended to `out`), then inserts the packet
    /// into one bucket per bank (§V-A) if it is sampled.
    #[inline]
    pub fn packet(&mut self, id: u64, ts: u64, out: &mut Vec<RdaSynopsis>) {
        let ts = ts & TS_MASK;
        while ts_ge(ts, self.end) {
            self.cross(out);
        }
        if !ts_ge(ts, self.start) {
            self.out_of_interval += 1;
            return;
        }
        self.packets += 1;
        // SAMPLE_LZ = 0 measures every packet: the sampling hash need not be computed.
        if self.regs.sample_mask != 0 && (self.hashes.sample.hash(id as u128) as u32) & self.regs.sample_mask != 0 {
            return;
        }
        self.sampled += 1;
        let m = self.cfg.buckets;
        // Banks 0 and 1 (the default k = 2) straight from registers, then banks 2 and 3.
        let [b0, b1] = self.fast.first_two(id);
        let mut wrapped = self.buckets[b0 as usize].insert(id, ts, self.tsum_mask);
        if self.cfg.banks > 1 {
            wrapped |= self.buckets[m + b1 as usize].insert(id, ts, self.tsum_mask);
        }
        if self.cfg.banks > 2 {
            let [b2, b3] = self.fast.last_two(id);
            wrapped |= self.buckets[2 * m + b2 as usize].insert(id, ts, self.tsum_mask);
            if self.cfg.banks > 3 {
                wrapped |= self.buckets[3 * m + b3 as usize].insert(id, ts, self.tsum_mask);
            }
        }
        self.overflow |= wrapped;
    }

    /// A run of packets {id, ts} in time order, the same as [`Self::packet`]
    /// on each in turn. The packets that stay inside the live interval and
    /// need no sampling decision take a loop that keeps the bucket array, the
    /// hash tables and the interval bounds in registers; the rest (boundary
    /// crossings, late packets, sampling) go through [`Self::packet`].
    pub fn packets(&mut self, pkts: &[(u64, u64)], out: &mut Vec<RdaSynopsis>) {
        let mut rest = pkts;
        while !rest.is_empty() {
            let taken = self.insert_in_interval(rest);
            rest = &rest[taken..];
            if let Some((&(id, ts), tail)) = rest.split_first() {
                self.packet(id, ts, out);
                rest = tail;
            }
        }
    }

    /// Inserts the leading packets of `pkts` that fall in [start, end) while
    /// every packet is measured (SAMPLE_LZ = 0); returns how many it took.
    /// A long run is split in two halves inserted by two threads.
    fn insert_in_interval(&mut self, pkts: &[(u64, u64)]) -> usize {
        if self.regs.sample_mask != 0 {
            return 0;
        }
        // start ≤ ts < end on the circle is one compare: end − start = δ < 2^32 ≤ 2^47.
        let (start, delta) = (self.start, self.end.wrapping_sub(self.start) & TS_MASK);
        let taken = pkts.iter().position(|&(_, ts)| (ts & TS_MASK).wrapping_sub(start) & TS_MASK >= delta);
        let run = &pkts[..taken.unwrap_or(pkts.len())];
        let (tsum_mask, m, banks) = (self.tsum_mask, self.cfg.buckets, self.cfg.banks);
        let hash = &self.fast;
        let wrapped = match self.parallel_run {
            Some(min) if run.len() >= min.max(2) => {
                let (first, second) = run.split_at(run.len() / 2);
                self.scratch.resize(self.buckets.len(), RdaRecord::default());
                let (live, scratch) = (&mut self.buckets, &mut self.scratch);
                let (w0, w1) = std::thread::scope(|s| {
                    let other = s.spawn(|| insert_run(hash, scratch, m, banks, tsum_mask, second));
                    let w0 = insert_run(hash, live, m, banks, tsum_mask, first);
                    (w0, other.join().expect("RDA golden worker"))
                });
                let mut wrapped = w0 | w1;
                for (b, o) in self.buckets.iter_mut().zip(self.scratch.iter_mut()) {
                    wrapped |= b.absorb(o, tsum_mask);
                }
                wrapped
            }
            _ => insert_run(hash, &mut self.buckets, m, banks, tsum_mask, run),
        };
        self.overflow |= wrapped;
        self.packets += run.len() as u64;
        self.sampled += run.len() as u64;
        run.len()
    }

    /// Time passes without packets: closes every interval with end + GUARD ≤ `now`.
    pub fn advance(&mut self, now: u64, out: &mut Vec<RdaSynopsis>) {
        let now = now & TS_MASK;
        while ts_ge(now, (self.end + self.regs.guard) & TS_MASK) {
            self.cross(out);
        }
    }
}

/// Inserts every packet of `run` into one bucket per bank of `buckets`
/// (`banks` × `m` records); true if a count wrapped. Blocks of packets are
/// hashed first and inserted second, so the table lookups of a block overlap
/// instead of waiting on the bucket updates.
fn insert_run(
    hash: &MultiBucketHash,
    buckets: &mut [RdaRecord],
    m: usize,
    banks: usize,
    tsum_mask: u64,
    run: &[(u64, u64)],
) -> bool {
    const BLOCK: usize = 64;
    let (bank0, rest) = buckets.split_at_mut(m.min(buckets.len()));
    let (bank1, bank23) = rest.split_at_mut(if banks > 1 { m } else { 0 });
    let mut wrapped = false;
    let mut idx = [[0u32; 2]; BLOCK];
    for block in run.chunks(BLOCK) {
        for (slot, &(id, _)) in idx.iter_mut().zip(block) {
            *slot = hash.first_two(id);
        }
        for (&[b0, b1], &(id, ts)) in idx.iter().zip(block) {
            let ts = ts & TS_MASK;
            wrapped |= bank0[b0 as usize].insert(id, ts, tsum_mask);
            if banks > 1 {
                wrapped |= bank1[b1 as usize].insert(id, ts, tsum_mask);
            }
        }
        if banks > 2 {
            for (slot, &(id, _)) in idx.iter_mut().zip(block) {
                *slot = hash.last_two(id);
            }
            for (&[b2, b3], &(id, ts)) in idx.iter().zip(block) {
                let ts = ts & TS_MASK;
                wrapped |= bank23[b2 as usize].insert(id, ts, tsum_mask);
                if banks > 3 {
                    wrapped |= bank23[m + b3 as usize].insert(id, ts, tsum_mask);
                }
            }
        }
    }
    wrapped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> RdaConfig {
        RdaConfig { buckets: 64, t0: 1000, interval_ticks: 100, guard_ticks: 10, ..Default::default() }
    }

    #[test]
    fn record_packs_count_tsum_id() {
        let r = RdaRecord { id: 0x0123_4567_89ab_cdef, tsum: 0xfedc_ba98_7654, count: 0x1111_2222 };
        let w = r.pack(&RdaLayout { tsum_bits: 48 });
        assert_eq!(w[0], 0x1111_2222);
        assert_eq!(w[1], 0xba98_7654);
        assert_eq!(w[2] & 0xffff, 0xfedc);
        assert_eq!((w[2] >> 16) | (w[3] << 16), 0x89ab_cdef);
        assert_eq!((w[3] >> 16) | (w[4] << 16), 0x0123_4567);
        assert_eq!(w[4] >> 16, 0);
        let w = r.pack(&RdaLayout { tsum_bits: 64 });
        assert_eq!((w[2], w[3], w[4], w[5]), (0xfedc, 0x89ab_cdef, 0x0123_4567, 0));
    }

    #[test]
    fn intervals_follow_the_clock() {
        let c = cfg();
        let mut g = RdaGolden::new(&c);
        let mut out = Vec::new();
        g.packet(1, 999, &mut out); // before t0
        assert_eq!(g.out_of_interval(), 1);
        g.packet(2, 1000, &mut out);
        g.packet(3, 1099, &mut out);
        assert!(out.is_empty());
        g.packet(4, 1100, &mut out); // boundary: interval 1
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].interval, out[0].packets), (0, 2));
        // Every bank's IDs XOR to the XOR of the interval's packets.
        for l in 0..2 {
            assert_eq!(out[0].bank(l).iter().fold(0, |x, r| x ^ r.id), 2 ^ 3);
            assert_eq!(out[0].bank(l).iter().map(|r| r.tsum).sum::<u64>(), 2099);
        }
        g.packet(5, 1450, &mut out); // skips intervals 2, 3 (empty: no synopsis)
        assert_eq!(out.len(), 2);
        assert_eq!((out[1].interval, out[1].packets), (1, 1));
        assert_eq!(g.interval(), 4);
        g.advance(1509, &mut out); // end 1500 + guard 10 not reached
        assert_eq!(out.len(), 2);
        g.advance(1510, &mut out);
        assert_eq!((out.len(), out[2].interval, out[2].packets), (3, 4, 1));
        let sum: u64 = out[2].bank(1).iter().map(|r| r.count).sum();
        assert_eq!(sum, 1);
        assert_eq!(out[2].bank(1).iter().map(|r| r.tsum).sum::<u64>(), 1450);
    }

    #[test]
    fn restart_and_wrap_around() {
        let mut g = RdaGolden::new(&cfg());
        let mut out = Vec::new();
        let t0 = (1u64 << 48) - 150;
        g.write_csr(super::super::config::RDA_REG_T0_LO, t0 as u32);
        g.write_csr(super::super::config::RDA_REG_T0_HI, (t0 >> 32) as u32);
        g.packet(9, t0 + 10, &mut out);
        g.packet(9, t0 + 120, &mut out); // interval 1 straddles 2^48
        g.packet(9, 30, &mut out); // still interval 1 (t0 + 180 mod 2^48)
        assert_eq!(out.len(), 1);
        g.packet(9, 50, &mut out); // t0 + 200: interval 2
        assert_eq!(out.len(), 2);
        assert_eq!((out[1].interval, out[1].packets), (1, 2));
        // Two copies of one ID cancel; the sum wraps mod 2^48.
        assert!(out[1].buckets.iter().all(|r| r.id == 0));
        let b = out[1].bank(0).iter().find(|r| r.count == 2).unwrap();
        assert_eq!(b.tsum, (t0 + 120 + 30) & TS_MASK);
    }

    #[test]
    fn sampling_selects_by_leading_zeros() {
        let c = RdaConfig { sample_prob_log2: 4, ..cfg() };
        let mut g = RdaGolden::new(&c);
        let mut out = Vec::new();
        for id in 0..16_000u64 {
            g.packet(id, 1000, &mut out);
        }
        g.advance(2000, &mut out);
        assert_eq!(out[0].packets, 16_000);
        let s = out[0].sampled as f64;
        assert!((s - 1000.0).abs() < 4.0 * 1000f64.sqrt(), "{s}");
        assert_eq!(out[0].bank(0).iter().map(|r| r.count).sum::<u64>(), out[0].sampled);
    }

    #[test]
    fn absorb_adds_every_field_flags_a_count_wrap_and_empties_the_other() {
        let mut a = RdaRecord { id: 0b1100, tsum: 0xFFFF_FFFF_FFFF, count: 0xFFFF_FFFF };
        let mut b = RdaRecord { id: 0b1010, tsum: 2, count: 3 };
        assert!(a.absorb(&mut b, mask64(48)));
        assert_eq!(a, RdaRecord { id: 0b0110, tsum: 1, count: 2 });
        assert_eq!(b, RdaRecord::default());
        let mut c = RdaRecord { id: 1, tsum: 5, count: 7 };
        assert!(!c.absorb(&mut a, mask64(48)));
        assert_eq!(c, RdaRecord { id: 0b0111, tsum: 6, count: 9 });
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// The batch path equals the packet-by-packet path: synopses, counters
        /// and flags, with boundaries, late packets, gaps, wrap-around and sampling.
        #[test]
        fn packets_equals_packet_by_packet(
            banks in 1usize..=4,
            buckets in 2usize..200,
            sample in 0u32..3,
            split in proptest::option::of(1usize..64),
            steps in proptest::collection::vec((proptest::prelude::any::<u64>(), 0u64..5, 0u32..100), 1..600),
        ) {
            let c = RdaConfig { banks, buckets, sample_prob_log2: sample, t0: TS_MASK - 350, ..cfg() };
            let (mut one, mut batch) = (RdaGolden::new(&c), RdaGolden::new(&c));
            // Runs of at least `split` packets go to two threads (None: one thread).
            batch.set_parallel_run(split);
            let (mut out_one, mut out_batch) = (Vec::new(), Vec::new());
            let mut ts = TS_MASK - 400;
            let mut pkts = Vec::new();
            for &(id, step, kind) in &steps {
                // Mostly forward steps; now and then a jump over intervals or a packet from the past.
                ts = match kind {
                    0 => ts.wrapping_add(250),
                    1 => ts.wrapping_sub(150),
                    _ => ts.wrapping_add(step),
                } & TS_MASK;
                pkts.push((id, ts));
            }
            for &(id, ts) in &pkts {
                one.packet(id, ts, &mut out_one);
            }
            batch.packets(&pkts, &mut out_batch);
            one.advance(ts + 1000, &mut out_one);
            batch.advance(ts + 1000, &mut out_batch);
            proptest::prop_assert_eq!(out_one, out_batch);
            proptest::prop_assert_eq!(one.out_of_interval(), batch.out_of_interval());
            proptest::prop_assert_eq!(one.interval(), batch.interval());
        }
    }
}
