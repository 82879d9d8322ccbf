//! Per-clock model of the per-packet DBM-mm core (Uyeda et al. §3.1
//! Algorithm 1, §3.3 culprits, §5 "a 1000 bucket heap can be maintained in
//! hardware using a 2-level radix-32 heap that uses 32-way comparators"):
//! the hardware's organisation of the merge and its clock-by-clock timing.
//! It equals [`DbmGolden`](super::DbmGolden) bucket for bucket, flags and
//! counts included (tested below); the RTL is to equal it every clock.
//!
//! **Why a packet usually takes one clock.** A new bucket b either joins the
//! tail (the pair (tail, b) has the smallest key) or a pair (w, next(w))
//! elsewhere merges and b takes the freed slot. Joins are the rule once the
//! partition has filled: 99.7 % of the merges of 2 M back-to-back 64-byte
//! packets into 1024 buckets (`DbmPeriod::tail_joins`). So the core keeps the
//! tail and its predecessor (the pred) in registers, outside the min
//! structure, with the pred's raw key K(pred, tail); a join touches only
//! those registers:
//! - join iff (K(tail, b), tail) < (K(pred, tail), pred) and < the
//!   structure's registered minimum `s_min`, packed key · 2^10 + slot (the
//!   golden model's tie rule: the lowest slot among equal keys);
//! - the tail takes b (mass, last, n, max, min, and its culprit by one step of
//!   the weighted majority), and K(pred, tail) grows by b's length.
//!
//! **A real merge** ([`DBM_MERGE_CYCLES`] clocks): either the pred pair
//! (case A: pred and tail merge in the pred's registers, b becomes the tail
//! in the tail's slot) or the structure's minimum w with v = next(w) (case
//! B: (w, v) merge into slot w, the pred enters the structure, the tail
//! becomes the pred, b the tail in slot v; if v is the pred, only the tail
//! moves up). Keys are kept raw: slot s's raw key is mass_s + mass_next(s)
//! saturated at 2^48 (which reads "≥ 2^48"); the key is min(raw, 2^48 − 1),
//! and raw = 2^48 sets the period's key-saturated flag, exactly when the
//! golden model's key saturates. Raw keys make the new keys one add each:
//! K'(w) = mass_w + raw(v), K'(u) = raw(u) + mass_v for u = prev(w). The
//! groups of u, w, v and the entering pred are then re-minimised from their
//! 32-key rows (the pred's and tail's lanes masked), and `s_min` from the 32
//! group minima.
//!
//! **Ports and timing.** Packets enter a one-deep register with a skid
//! register behind it (`ready` = the skid is empty). A packet at or beyond
//! the period's end, or `now` at or beyond it with no packet waiting, closes
//! the period once the previous one has been read out: [`DBM_CLOSE_CYCLES`]
//! clocks write the pred and tail records and flip the ping-pong bucket
//! memory; the frozen partition then streams out oldest bucket first, two
//! clocks per bucket, then one end beat (so an empty period is one beat).

use super::config::*;
use super::culprit::{majority, merge_flows};
use super::model::{Bucket, DbmFlags, DbmPeriod};
use super::traffic::BwPacket;

/// Clocks a real merge takes, its decision included (fill and join take one).
pub const DBM_MERGE_CYCLES: u64 = 18;
/// Clocks a period close takes before its read-out starts.
pub const DBM_CLOSE_CYCLES: u64 = 3;
/// A raw key at this value means "2^48 or more" (a saturated key).
const RAW_SAT: u64 = 1 << KEY_BITS;
/// Bits of a slot in a packed (key, slot) word.
const SLOT_BITS: u32 = 10;
/// The packed word above every real one (no key).
const PACKED_NONE: u64 = KEY_NONE << SLOT_BITS | ((1 << SLOT_BITS) - 1);

/// Inputs of the DBM core in one clock.
pub type DbmInputs = super::stream::BwInputs;

/// Outputs of the DBM core in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DbmOutputs {
    /// A packet offered now is taken.
    pub ready: bool,
    /// A beat of the frozen period is presented.
    pub ro_valid: bool,
    /// The beat is the period's end (no bucket); otherwise it carries `ro_bucket`.
    pub ro_end: bool,
    /// The bucket (oldest first).
    pub ro_bucket: Bucket,
    /// Index of the frozen period (counted from reset).
    pub period_index: u32,
    /// Packets of the frozen period.
    pub period_packets: u64,
    /// Merges of the frozen period.
    pub period_merges: u64,
    /// Of them, joins of the tail.
    pub period_tail_joins: u64,
    /// A merge key of the frozen period saturated.
    pub period_key_saturated: bool,
    /// A bucket mass of the frozen period saturated.
    pub period_mass_saturated: bool,
    /// A base-interval sum of the frozen period saturated (base-interval core only).
    pub period_interval_saturated: bool,
}

/// The read-out of the frozen period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadOut {
    Idle,
    /// The slot's record is being read (presented next clock).
    Fetch {
        slot: usize,
        left: usize,
    },
    /// The record is presented.
    Show {
        slot: usize,
        left: usize,
    },
    /// The end beat is presented.
    End,
}

/// What the core does this clock besides taking packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Idle,
    /// A real merge, `left` more clocks; the packet is consumed in its last.
    Merge {
        left: u64,
    },
    /// A close, `left` more clocks; the flip happens in its last.
    Close {
        left: u64,
    },
}

/// Period counters and flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Stats {
    index: u32,
    packets: u64,
    merges: u64,
    joins: u64,
    flags: DbmFlags,
}

/// Per-clock model of the per-packet DBM-mm core.
#[derive(Clone, Debug)]
pub struct DbmCycle {
    cfg: DbmConfig,
    // --- input register and skid ---
    q: Option<BwPacket>,
    k: Option<BwPacket>,
    now_seen: Option<u64>,
    mode: Mode,
    // --- the live period ---
    period_end: u64,
    stats: Stats,
    prng: u32,
    live: usize,
    tail: Bucket,
    t: usize,
    pred: Bucket,
    p: usize,
    p_prev: usize,
    /// Raw key of (pred, tail).
    kp_raw: u64,
    // --- memories: records and next links ping-pong (`epoch` is the live copy) ---
    epoch: usize,
    rec: [Vec<Bucket>; 2],
    nxt: [Vec<usize>; 2],
    prv: Vec<usize>,
    /// Raw keys by slot (32 lanes of 32-deep memories in the RTL).
    lanes: Vec<u64>,
    g_min: Vec<u64>,
    s_min: u64,
    // --- frozen period and its read-out ---
    frozen: Stats,
    frozen_live: usize,
    ro: ReadOut,
}

fn sat_raw(x: u64) -> u64 {
    x.min(RAW_SAT)
}

fn packed(raw: u64, slot: usize) -> u64 {
    raw.min(KEY_MAX) << SLOT_BITS | slot as u64
}

impl DbmCycle {
    /// The core at power-up (as after a reset). Per-packet DBM-mm only: the
    /// base-interval modes are not built in RTL.
    pub fn new(cfg: &DbmConfig) -> Result<Self, crate::ConfigError> {
        cfg.validate()?;
        if cfg.base_ticks != 0 {
            return Err(crate::ConfigError::new(
                "dbm.base_ticks",
                "the DBM core is per-packet DBM-mm (base_ticks = 0); the base-interval modes run on the golden model",
            ));
        }
        let m = cfg.buckets;
        let mut s = Self {
            cfg: cfg.clone(),
            q: None,
            k: None,
            now_seen: None,
            mode: Mode::Idle,
            period_end: 0,
            stats: Stats::default(),
            prng: 0,
            live: 0,
            tail: Bucket::default(),
            t: 0,
            pred: Bucket::default(),
            p: 0,
            p_prev: 0,
            kp_raw: 0,
            epoch: 0,
            rec: [vec![Bucket::default(); m], vec![Bucket::default(); m]],
            nxt: [vec![0; m], vec![0; m]],
            prv: vec![0; m],
            lanes: vec![0; m],
            g_min: vec![PACKED_NONE; m.div_ceil(DBM_RADIX)],
            s_min: PACKED_NONE,
            frozen: Stats::default(),
            frozen_live: 0,
            ro: ReadOut::Idle,
        };
        s.reset();
        Ok(s)
    }

    fn reset(&mut self) {
        self.q = None;
        self.k = None;
        self.now_seen = None;
        self.mode = Mode::Idle;
        self.period_end = self.cfg.period_ticks;
        self.stats = Stats::default();
        self.prng = self.cfg.seed;
        self.frozen = Stats::default();
        self.frozen_live = 0;
        self.ro = ReadOut::Idle;
        self.epoch = 0;
        self.start_period();
    }

    fn start_period(&mut self) {
        self.live = 0;
        self.g_min.fill(PACKED_NONE);
        self.s_min = PACKED_NONE;
    }

    /// The outputs of this clock (they depend on registers only).
    fn outputs(&self) -> DbmOutputs {
        let f = &self.frozen;
        let mut o = DbmOutputs {
            ready: self.k.is_none(),
            period_index: f.index,
            period_packets: f.packets,
            period_merges: f.merges,
            period_tail_joins: f.joins,
            period_key_saturated: f.flags.key_saturated,
            period_mass_saturated: f.flags.mass_saturated,
            ..Default::default()
        };
        match self.ro {
            ReadOut::Show { slot, .. } => {
                o.ro_valid = true;
                o.ro_bucket = self.rec[1 - self.epoch][slot];
            }
            ReadOut::End => {
                o.ro_valid = true;
                o.ro_end = true;
            }
            _ => {}
        }
        o
    }

    /// One clock: returns this clock's outputs, then takes the rising edge.
    pub fn step(&mut self, i: &DbmInputs) -> DbmOutputs {
        let o = self.outputs();
        if i.reset {
            self.reset();
            return o;
        }
        // ---- read-out (its next state; a close below may start a new one) ----
        let ro_next = match self.ro {
            ReadOut::Idle => ReadOut::Idle,
            ReadOut::Fetch { slot, left } => ReadOut::Show { slot, left },
            ReadOut::Show { slot, left } if i.ro_ready => {
                if left == 1 {
                    ReadOut::End
                } else {
                    ReadOut::Fetch { slot: self.nxt[1 - self.epoch][slot], left: left - 1 }
                }
            }
            ReadOut::End if i.ro_ready => ReadOut::Idle,
            r => r,
        };
        // ---- the packet in the input register, or a close ----
        let mut consume = false;
        let mut flipped = false;
        match self.mode {
            Mode::Idle => {
                let close = match self.q {
                    Some(p) => p.ts >= self.period_end,
                    None => self.now_seen.is_some_and(|n| n >= self.period_end),
                };
                if close {
                    if self.ro == ReadOut::Idle {
                        self.mode = Mode::Close { left: DBM_CLOSE_CYCLES - 1 };
                    }
                } else if let Some(p) = self.q {
                    if self.live < self.cfg.buckets {
                        self.fill(&p);
                        consume = true;
                    } else if self.try_join(&p) {
                        consume = true;
                    } else {
                        self.merge(&p);
                        self.mode = Mode::Merge { left: DBM_MERGE_CYCLES - 1 };
                    }
                }
            }
            Mode::Merge { left } => {
                if left == 1 {
                    self.mode = Mode::Idle;
                    consume = true;
                } else {
                    self.mode = Mode::Merge { left: left - 1 };
                }
            }
            Mode::Close { left } => {
                if left == 1 {
                    self.mode = Mode::Idle;
                    self.flip();
                    flipped = true;
                } else {
                    self.mode = Mode::Close { left: left - 1 };
                }
            }
        }
        if !flipped {
            self.ro = ro_next;
        }
        // ---- skid ----
        let take = i.valid && self.k.is_none();
        let pkt = BwPacket { ts: i.ts, len: i.len, flow: i.flow };
        if self.q.is_none() || consume {
            self.q = if self.k.is_some() { self.k.take() } else { take.then_some(pkt) };
        } else if take {
            self.k = Some(pkt);
        }
        if i.now_valid {
            self.now_seen = Some(i.now);
        }
        o
    }

    /// Fill: b takes slot `live`; the pred enters the structure.
    fn fill(&mut self, p: &BwPacket) {
        let b = Bucket::packet(p);
        let s = self.live;
        self.stats.packets += 1;
        if s >= 2 {
            let (pk, pd) = (self.p, self.p_prev);
            self.enter(pk, pd);
            let e = packed(self.kp_raw, pk);
            let g = pk / DBM_RADIX;
            self.g_min[g] = self.g_min[g].min(e);
            self.s_min = self.s_min.min(e);
        }
        if s >= 1 {
            let k = self.raw_key(self.tail.mass + p.len as u64);
            self.p_prev = self.p;
            self.pred = self.tail;
            self.p = self.t;
            self.kp_raw = k;
        }
        self.tail = b;
        self.t = s;
        self.live += 1;
    }

    /// The pred (slot `pk`, predecessor `prev`) enters the structure: its
    /// raw key, record and links are written.
    fn enter(&mut self, pk: usize, prev: usize) {
        self.lanes[pk] = self.kp_raw;
        self.rec[self.epoch][pk] = self.pred;
        self.nxt[self.epoch][pk] = self.t;
        self.prv[pk] = prev;
    }

    /// A raw key from an unsaturated sum, setting the key-saturated flag.
    fn raw_key(&mut self, sum: u64) -> u64 {
        let k = sat_raw(sum);
        self.stats.flags.key_saturated |= k == RAW_SAT;
        k
    }

    /// The mass of two merged buckets, setting the mass-saturated flag.
    fn mass(&mut self, a: u64, b: u64) -> u64 {
        let m = a + b;
        self.stats.flags.mass_saturated |= m > MASS_MAX;
        m.min(MASS_MAX)
    }

    fn merged(&mut self, a: &Bucket, b: &Bucket, join: bool) -> Bucket {
        let mass = self.mass(a.mass, b.mass);
        let (flow, flow_count) = if join {
            majority((a.flow, a.flow_count), b.flow, b.flow_count)
        } else {
            merge_flows(&mut self.prng, (a.flow, a.flow_count), (b.flow, b.flow_count))
        };
        self.stats.merges += 1;
        Bucket {
            first: a.first,
            last: b.last,
            mass,
            n: a.n.saturating_add(b.n),
            sumsq: 0,
            max: a.max.max(b.max),
            min: a.min.min(b.min),
            flow,
            flow_count,
        }
    }

    /// The decision of a full core: joins b to the tail if (tail, b) is the
    /// smallest pair; returns whether it did.
    fn try_join(&mut self, p: &BwPacket) -> bool {
        self.stats.packets += 1;
        let kt = self.raw_key(self.tail.mass + p.len as u64);
        let pt = packed(kt, self.t);
        if pt < packed(self.kp_raw, self.p) && pt < self.s_min {
            let b = Bucket::packet(p);
            let tb = self.tail;
            self.tail = self.merged(&tb, &b, true);
            self.kp_raw = self.raw_key(self.kp_raw + p.len as u64);
            self.stats.joins += 1;
            true
        } else {
            false
        }
    }

    /// A real merge (the decision has counted the packet and its tail key).
    fn merge(&mut self, p: &BwPacket) {
        let b = Bucket::packet(p);
        let kt = sat_raw(self.tail.mass + p.len as u64);
        let e = self.epoch;
        let (pk, tk) = (self.p, self.t);
        if packed(self.kp_raw, pk) < self.s_min {
            // Case A: pred and tail merge in the pred's registers; b takes the tail's slot.
            let (pb, tb) = (self.pred, self.tail);
            let m = self.merged(&pb, &tb, false);
            let u = self.p_prev;
            if pk != 0 {
                self.lanes[u] = self.raw_key(self.lanes[u] + tb.mass);
            }
            self.pred = m;
            self.kp_raw = self.raw_key(m.mass + p.len as u64);
            self.tail = b;
            self.recompute(&[u, pk, tk, pk]);
            return;
        }
        // Case B: the structure's minimum w and v = next(w) merge into w.
        let w = (self.s_min & ((1 << SLOT_BITS) - 1)) as usize;
        let v = self.nxt[e][w];
        let u = self.prv[w];
        let wb = self.rec[e][w];
        let (vb, raw_v, x) =
            if v == pk { (self.pred, self.kp_raw, tk) } else { (self.rec[e][v], self.lanes[v], self.nxt[e][v]) };
        let m = self.merged(&wb, &vb, false);
        if w != 0 {
            self.lanes[u] = self.raw_key(self.lanes[u] + vb.mass);
        }
        self.lanes[w] = self.raw_key(wb.mass + raw_v);
        self.rec[e][w] = m;
        self.nxt[e][w] = x;
        if v != pk {
            // The pred enters the structure (its predecessor is w if v was before it).
            let pd = if x == pk { w } else { self.p_prev };
            if x != pk {
                self.prv[x] = w;
            }
            self.enter(pk, pd);
            self.p_prev = pk;
            self.p = tk;
            self.t = v;
        } else {
            self.p_prev = w;
            self.p = tk;
            self.t = pk;
        }
        self.pred = self.tail;
        self.kp_raw = kt;
        self.tail = b;
        self.recompute(&[u, w, v, pk]);
    }

    /// Re-minimises the groups of `slots` from their rows (pred and tail
    /// lanes masked), then `s_min` from the group minima.
    fn recompute(&mut self, slots: &[usize]) {
        for &s in slots {
            let g = s / DBM_RADIX;
            let lo = g * DBM_RADIX;
            let hi = (lo + DBM_RADIX).min(self.cfg.buckets);
            self.g_min[g] = (lo..hi)
                .filter(|&j| j != self.p && j != self.t)
                .map(|j| packed(self.lanes[j], j))
                .min()
                .unwrap_or(PACKED_NONE);
        }
        self.s_min = self.g_min.iter().copied().min().unwrap_or(PACKED_NONE);
    }

    /// The last clock of a close: the pred and tail records are in memory,
    /// the live copy freezes and streams out, a new period starts.
    fn flip(&mut self) {
        let e = self.epoch;
        if self.live >= 2 {
            self.rec[e][self.p] = self.pred;
            self.nxt[e][self.p] = self.t;
        }
        if self.live >= 1 {
            self.rec[e][self.t] = self.tail;
        }
        self.frozen = self.stats;
        self.frozen_live = self.live;
        self.ro = if self.live > 0 { ReadOut::Fetch { slot: 0, left: self.live } } else { ReadOut::End };
        self.epoch = 1 - e;
        self.stats = Stats { index: self.stats.index.wrapping_add(1), ..Default::default() };
        self.period_end += self.cfg.period_ticks;
        self.start_period();
    }
}

/// What [`drive_dbm`] measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DbmDrive {
    /// The periods read out.
    pub periods: Vec<DbmPeriod>,
    /// Clocks run.
    pub cycles: u64,
    /// Clocks in which a packet was offered and not taken.
    pub stalls: u64,
}

/// Gathers a DBM core's read-out stream into periods: the buckets of the
/// beats taken, then the frozen period's status on its end beat.
#[derive(Clone, Debug, Default)]
pub struct DbmReadOut {
    buckets: Vec<Bucket>,
}

impl DbmReadOut {
    /// Takes the beat presented on `o` (`ro_valid` and taken): the period
    /// it ends, if it is the end beat.
    pub fn take(&mut self, o: &DbmOutputs) -> Option<DbmPeriod> {
        if !o.ro_end {
            self.buckets.push(o.ro_bucket);
            return None;
        }
        Some(DbmPeriod {
            index: o.period_index as u64,
            buckets: std::mem::take(&mut self.buckets),
            packets: o.period_packets,
            merges: o.period_merges,
            tail_joins: o.period_tail_joins,
            flags: DbmFlags {
                key_saturated: o.period_key_saturated,
                mass_saturated: o.period_mass_saturated,
                interval_saturated: o.period_interval_saturated,
            },
        })
    }
}

/// Drives a DBM core (this model or anything with its ports) with a packet
/// stream in time order: each clock the next packet is offered, `now` (when
/// `now_every` says so) carries that packet's timestamp, and after the last
/// packet `now` moves to the end of its period; the read-out is taken when
/// `ro_ready` says so. Runs until the period of the last packet is read out.
pub fn drive_dbm(
    cfg: &DbmConfig,
    packets: &[BwPacket],
    mut step: impl FnMut(&DbmInputs) -> DbmOutputs,
    mut now_every: impl FnMut(u64) -> bool,
    mut ro_ready: impl FnMut(u64) -> bool,
) -> DbmDrive {
    let end = packets.last().map_or(0, |p| p.ts) / cfg.period_ticks * cfg.period_ticks + cfg.period_ticks;
    let periods_expected = end / cfg.period_ticks;
    let mut d = DbmDrive::default();
    let mut ro = DbmReadOut::default();
    let mut next = 0usize;
    // Generous bound: a packet takes at most a merge, a base interval at most
    // an insert, a period at most a close and its read-out.
    let intervals = end.checked_div(cfg.base_ticks).unwrap_or(0);
    let limit = DBM_MERGE_CYCLES * 4 * (packets.len() as u64 + 1)
        + 2 * intervals * DBM_BASE_INSERT_CLOCKS
        + periods_expected * (DBM_CLOSE_CYCLES + 8 + 8 * cfg.buckets as u64)
        + 1000;
    while (d.periods.len() as u64) < periods_expected {
        assert!(d.cycles < limit, "DBM stopped making progress at cycle {}", d.cycles);
        let p = packets.get(next);
        let i = DbmInputs::offer(p, end, now_every(d.cycles), ro_ready(d.cycles));
        let o = step(&i);
        if i.valid {
            if o.ready {
                next += 1;
            } else {
                d.stalls += 1;
            }
        }
        if o.ro_valid && i.ro_ready {
            d.periods.extend(ro.take(&o));
        }
        d.cycles += 1;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dbm::model::run_dbm;
    use crate::prng::SplitMix64;

    /// A random stream: runs of equal small lengths (ties), time jumps over
    /// periods, now and then a huge packet.
    fn stream(rng: &mut SplitMix64, period: u64, n: usize, huge: u64) -> Vec<BwPacket> {
        let mut ts = 0;
        let mut len = 1;
        (0..n)
            .map(|_| {
                ts += match rng.below(50) {
                    0 => rng.below(3 * period),
                    1..=20 => rng.below(period / 64 + 1),
                    _ => 0,
                };
                if rng.chance(1, 8) {
                    let top = if rng.chance(1, 2) { 4 } else { 1500 };
                    len = 1 + rng.below(top) as u32;
                }
                let l = if rng.chance(huge, 1000) { u32::MAX - rng.below(3) as u32 } else { len };
                BwPacket { ts, len: l, flow: rng.below(3) as u32 }
            })
            .collect()
    }

    fn check(cfg: &DbmConfig, packets: &[BwPacket], now: u64, ro: u64, seed: u64) -> DbmDrive {
        let want = run_dbm(cfg, packets).unwrap();
        let mut core = DbmCycle::new(cfg).unwrap();
        let mut rng = SplitMix64::new(seed);
        let mut r2 = SplitMix64::new(seed ^ 1);
        let d = drive_dbm(cfg, packets, |i| core.step(i), |_| rng.chance(now, 100), |_| r2.chance(ro, 100));
        assert_eq!(d.periods.len(), want.len(), "{cfg:?}");
        for (g, w) in d.periods.iter().zip(&want) {
            assert_eq!(g, w, "period {} of {cfg:?}", w.index);
        }
        d
    }

    #[test]
    fn equals_the_golden_model_on_random_streams() {
        let mut rng = SplitMix64::new(77);
        for round in 0..300 {
            let buckets = [2, 3, 4, 5, 31, 32, 33, 64, 100, 1024][round % 10];
            let period = [50, 1000, 1 << 20][rng.below(3) as usize];
            let cfg =
                DbmConfig { buckets, period_ticks: period, seed: 1 + rng.below(1000) as u32, ..Default::default() };
            let n = 1 + rng.below(if buckets > 100 { 6000 } else { 1500 }) as usize;
            let packets = stream(&mut rng, period, n, 2);
            check(&cfg, &packets, 1 + rng.below(100), 10 + rng.below(91), round as u64);
        }
    }

    #[test]
    fn saturated_keys_and_masses_are_flagged_as_the_golden_model_does() {
        // 2^17 packets of ~2^32 bytes reach 2^48 per bucket; 2^24 more would reach 2^56.
        let cfg = DbmConfig { buckets: 3, period_ticks: 1 << 40, ..Default::default() };
        let packets: Vec<_> =
            (0..140_000u64).map(|i| BwPacket { ts: i, len: u32::MAX - (i % 5) as u32, flow: (i % 2) as u32 }).collect();
        let d = check(&cfg, &packets, 100, 100, 1);
        assert!(d.periods[0].flags.key_saturated);
    }

    #[test]
    fn joins_take_one_clock_and_merges_their_fixed_time() {
        // Back-to-back 64-byte packets, now every clock, consumer always ready.
        let cfg = DbmConfig { buckets: 1024, period_ticks: 1 << 40, ..Default::default() };
        let packets: Vec<_> = (0..200_000u64).map(|i| BwPacket { ts: i, len: 64, flow: (i % 7) as u32 }).collect();
        let d = check(&cfg, &packets, 100, 100, 2);
        let p = &d.periods[0];
        let real = p.merges - p.tail_joins;
        // A real merge holds its packet DBM_MERGE_CYCLES clocks: the skid takes the
        // next packet in the first, the offered one waits in the other
        // DBM_MERGE_CYCLES − 1. Fills and joins never stall.
        assert!(real > 1000 && p.tail_joins > 190_000, "{real} real merges, {} joins", p.tail_joins);
        assert_eq!(d.stalls, real * (DBM_MERGE_CYCLES - 1));
    }

    #[test]
    fn base_interval_configs_are_refused() {
        let cfg = DbmConfig { base_ticks: 10, period_ticks: 100, ..Default::default() };
        assert_eq!(DbmCycle::new(&cfg).unwrap_err().field, "dbm.base_ticks");
    }
}
