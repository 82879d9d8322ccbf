//! Verilated SVBF store cores: cycle-by-cycle co-simulation against [`SvbfCycle`].

use crate::driver::{Driver, PATIENCE};
use crate::models::{SvbfDefault, SvbfSmall, SvbfTiny};
use crate::{CoreRtl, Mismatch, cosim_model, differ, lane};
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::svbf::cycle::{SVBF_REG_NBOUNDS, SvbfCycle, SvbfInputs, SvbfOutputs};
use netmeas_sim::svbf::run::{EpochResult, SvbfEngine};
use netmeas_sim::svbf::{Centers, MatchKind, SvbfConfig, port_answer};

/// A Verilated SVBF store core.
pub trait SvbfRtl: CoreRtl<Config = SvbfConfig, In = SvbfInputs, Out = SvbfOutputs> {}
impl<M: CoreRtl<Config = SvbfConfig, In = SvbfInputs, Out = SvbfOutputs>> SvbfRtl for M {}

/// How to drive an SVBF core: probabilities in parts per 65536 per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvbfStimulus {
    /// A packet is offered.
    pub valid: u32,
    /// Its key repeats one of the last few (same bits, or neighbours in one word: forwarding).
    pub repeat: u32,
    /// A CSR write (a boundary, or the boundary count).
    pub csr: u32,
    /// A flip is requested.
    pub flip: u32,
    /// The held epoch is released.
    pub release: u32,
    /// A query is offered.
    pub query: u32,
    /// The center read-out consumer is ready.
    pub ro_ready: u32,
    /// Reset is asserted.
    pub reset: u32,
}

impl Default for SvbfStimulus {
    /// Dense packets with repeats, frequent epochs, queries whenever held.
    fn default() -> Self {
        Self {
            valid: 50000,
            repeat: 12000,
            csr: 2000,
            flip: 300,
            release: 150,
            query: 45000,
            ro_ready: 40000,
            reset: 2,
        }
    }
}

/// What a co-simulation exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SvbfStats {
    /// Cycles compared.
    pub cycles: u64,
    /// Packets taken.
    pub packets: u64,
    /// Flips taken.
    pub flips: u64,
    /// Query results by kind: No-Match, Match, Multi-Match.
    pub results: [u64; 3],
    /// Center rows read out.
    pub centers_read: u64,
}

/// Random SVBF inputs, reproducible from a seed. Queries mostly ask for keys
/// of the frozen epoch (so Match and Multi-Match are common), the rest for
/// keys never inserted.
pub struct SvbfDriver {
    rng: SplitMix64,
    p: SvbfStimulus,
    /// The last keys taken in the live epoch (a ring).
    live: [u64; 16],
    live_len: usize,
    live_next: usize,
    /// Keys of the epoch frozen by the last flip.
    frozen: [u64; 16],
    frozen_len: usize,
    tag: u16,
    /// The reset of the cycle before (the core acts on it a clock late).
    reset_q: bool,
}

impl SvbfDriver {
    /// A driver with stimulus `p`.
    pub fn new(p: SvbfStimulus, seed: u64) -> Self {
        Self {
            rng: SplitMix64::new(seed),
            p,
            live: [0; 16],
            live_len: 0,
            live_next: 0,
            frozen: [0; 16],
            frozen_len: 0,
            tag: 0,
            reset_q: false,
        }
    }

    /// This cycle's inputs.
    pub fn next(&mut self) -> SvbfInputs {
        let w = self.rng.next_u64();
        let r = self.rng.next_u64();
        let mut i = SvbfInputs {
            reset: lane(w, 0, self.p.reset),
            flip: lane(w, 1, self.p.flip),
            release: lane(w, 2, self.p.release),
            ro_ready: lane(w, 3, self.p.ro_ready),
            ovf_clear: lane(r, 3, 100),
            ..Default::default()
        };
        if lane(r, 0, self.p.valid) {
            i.valid = true;
            i.key = if self.live_len > 0 && lane(r, 1, self.p.repeat) {
                // One of the last four keys taken.
                let back = 1 + self.rng.below(self.live_len.min(4) as u64) as usize;
                self.live[(self.live_next + self.live.len() - back) % self.live.len()]
            } else {
                self.rng.next_u64()
            };
            // Latencies around the boundaries the CSR writes place (0 .. 4096), some huge.
            i.latency =
                if lane(r, 2, 2000) { u32::MAX - self.rng.below(4) as u32 } else { self.rng.below(4200) as u32 };
        }
        if lane(w, 4, self.p.csr) {
            i.csr_we = true;
            i.csr_addr = self.rng.below(64) as u32;
            i.csr_wdata = if i.csr_addr == SVBF_REG_NBOUNDS {
                self.rng.next_u64() as u32 // any value: the core keeps 6 bits
            } else {
                // Mostly increasing with the address, now and then anything.
                if lane(r, 4, 6000) { self.rng.next_u64() as u32 } else { i.csr_addr * 64 + self.rng.below(64) as u32 }
            };
        }
        if lane(w, 5, self.p.query) {
            i.q_valid = true;
            i.q_key = if self.frozen_len > 0 && lane(r, 5, 45000) {
                self.frozen[self.rng.below(self.frozen_len as u64) as usize]
            } else {
                self.rng.next_u64()
            };
            i.q_tag = self.tag;
            self.tag = self.tag.wrapping_add(1);
        }
        i
    }

    /// The outputs of the cycle of `i`: a taken packet joins the live keys, a
    /// taken flip freezes them, a reset forgets both (in the clock it is
    /// sampled and the next, the clock the core acts on it).
    pub fn observe(&mut self, i: &SvbfInputs, o: &SvbfOutputs) {
        let reset = i.reset || self.reset_q;
        self.reset_q = i.reset;
        if reset {
            self.live_len = 0;
            self.live_next = 0;
            self.frozen_len = 0;
            return;
        }
        if i.valid && o.ready {
            self.live[self.live_next] = i.key;
            self.live_next = (self.live_next + 1) % self.live.len();
            self.live_len = (self.live_len + 1).min(self.live.len());
        }
        if i.flip && o.flip_ready {
            self.frozen = self.live;
            self.frozen_len = self.live_len;
            self.live_len = 0;
            self.live_next = 0;
        }
    }
}

/// Runs `cycles` cycles of `M` against [`SvbfCycle`], comparing every output
/// every cycle (the center row only when `ro_valid`; the query result's
/// payload is zero without a result on both sides).
pub fn cosim_svbf<M: SvbfRtl>(p: SvbfStimulus, seed: u64, cycles: u64) -> Result<SvbfStats, Mismatch> {
    let cfg = M::config();
    let mut golden = SvbfCycle::new(&cfg);
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&SvbfInputs::default());
    let mut drv = SvbfDriver::new(p, seed);
    let mut st = SvbfStats::default();
    // The reset of the cycle before: what the core takes in that clock is dropped as well.
    let mut reset_q = false;
    let n = M::NAME;
    cosim_model::<M>(
        cycles,
        || {
            let i = drv.next();
            let o = golden.step(&i);
            drv.observe(&i, &o);
            (i, o)
        },
        |cycle, i, r, g| {
            differ(n, cycle, "ready", r.ready, g.ready)?;
            differ(n, cycle, "flip_ready", r.flip_ready, g.flip_ready)?;
            differ(n, cycle, "epoch", r.epoch, g.epoch)?;
            differ(n, cycle, "held", r.held, g.held)?;
            differ(n, cycle, "q_ready", r.q_ready, g.q_ready)?;
            differ(n, cycle, "r_valid", r.r_valid, g.r_valid)?;
            differ(n, cycle, "r_tag", r.r_tag, g.r_tag)?;
            differ(n, cycle, "r_kind", r.r_kind, g.r_kind)?;
            differ(n, cycle, "r_center", r.r_center, g.r_center)?;
            differ(n, cycle, "r_count", r.r_count, g.r_count)?;
            differ(n, cycle, "r_latency", r.r_latency, g.r_latency)?;
            differ(n, cycle, "r_candidates", r.r_candidates, g.r_candidates)?;
            differ(n, cycle, "ro_valid", r.ro_valid, g.ro_valid)?;
            differ(n, cycle, "ovf_sticky", r.ovf_sticky, g.ovf_sticky)?;
            if g.ro_valid {
                differ(n, cycle, "ro_center", r.ro_center, g.ro_center)?;
                differ(n, cycle, "ro_count", r.ro_count, g.ro_count)?;
                differ(n, cycle, "ro_sum", r.ro_sum, g.ro_sum)?;
                differ(n, cycle, "ro_last", r.ro_last, g.ro_last)?;
                st.centers_read += (i.ro_ready && !i.reset && !reset_q) as u64;
            }
            if g.r_valid {
                st.results[g.r_kind as usize] += 1;
            }
            if !i.reset && !reset_q {
                st.packets += (i.valid && g.ready) as u64;
                st.flips += (i.flip && g.flip_ready) as u64;
            }
            reset_q = i.reset;
            st.cycles += 1;
            Ok(())
        },
    )?;
    Ok(st)
}

/// The SVBF store on a Verilated core, one epoch at a time (the RTL in the
/// loop of `netmeas run svbf --engine rtl|both`): the centers' boundaries are
/// written over the CSR port and activated by a flip, the packets go in one
/// per clock, a second flip freezes them, the center counters are read out
/// and every key is queried on the held epoch, one query per clock, once
/// the core has refined its center table. The core breaks ties and refines;
/// the host only gives an empty chosen center its value ([`port_answer`]).
pub struct RtlSvbfEngine<M: SvbfRtl> {
    d: Driver<M>,
}

impl<M: SvbfRtl> RtlSvbfEngine<M> {
    /// A fresh core (its memories clear themselves after power-up).
    pub fn new() -> Self {
        Self { d: Driver::new() }
    }

    /// Clock cycles so far.
    pub fn cycles(&self) -> u64 {
        self.d.cycles()
    }

    /// Releases a held epoch (if any), then flips. The center rows of the
    /// epoch frozen before stream out meanwhile and are dropped.
    fn flip(&mut self) -> Result<(), String> {
        let idle = SvbfInputs { ro_ready: true, ..Default::default() };
        let mut held = self.d.step(&idle).held;
        for _ in 0..=PATIENCE {
            let i = SvbfInputs { flip: !held, release: held, ..idle };
            let o = self.d.step(&i);
            if i.flip && o.flip_ready {
                return Ok(());
            }
            held = o.held;
        }
        Err(format!("{}: flip not taken for {PATIENCE} cycles", M::NAME))
    }
}

impl<M: SvbfRtl> Default for RtlSvbfEngine<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: SvbfRtl> SvbfEngine for RtlSvbfEngine<M> {
    fn epoch(&mut self, cfg: &SvbfConfig, centers: &Centers, packets: &[(u64, u64)]) -> Result<EpochResult, String> {
        let built = M::config();
        if (built.hashes, built.partition_log2, built.seed) != (cfg.hashes, cfg.partition_log2, cfg.seed) {
            return Err(format!("the Verilated core {} was built for another SVBF", M::NAME));
        }
        let idle = SvbfInputs { ro_ready: true, ..Default::default() };
        // Boundaries into the shadow registers, active from the flip.
        let bounds = centers.bounds();
        for (j, &b) in bounds.iter().enumerate() {
            self.d.step(&SvbfInputs { csr_we: true, csr_addr: j as u32, csr_wdata: b, ..idle });
        }
        self.d.step(&SvbfInputs { csr_we: true, csr_addr: SVBF_REG_NBOUNDS, csr_wdata: bounds.len() as u32, ..idle });
        self.flip()?;
        // Packets, one per clock.
        let inputs = packets.iter().map(|&(key, lat)| SvbfInputs {
            valid: true,
            key,
            latency: lat.min(u32::MAX as u64) as u32,
            ..idle
        });
        self.d.feed(inputs, |o| Ok(o.ready))?;
        // Freeze them: after the drain the center counters stream out into the
        // core's table and to the host, the partitions are held, and queries
        // are taken once the table is refined.
        self.flip()?;
        let mut rows = Vec::new();
        self.d.until(&idle, 64, "center read-out and refinement unfinished", |o| {
            let ready = rows.len() >= 64 && o.q_ready;
            if !ready && o.ro_valid {
                rows.push((o.ro_count as u64, o.ro_sum));
            }
            if rows.len() > 64 {
                return Err(format!("{}: the center read-out did not end after 64 rows", M::NAME));
            }
            Ok(ready)
        })?;
        let counts: Vec<u64> = rows.iter().take(centers.len()).map(|r| r.0).collect();
        let sums: Vec<u64> = rows.iter().take(centers.len()).map(|r| r.1).collect();
        // Every key, one query per clock; results come back in order, twenty clocks later.
        let mut answers = Vec::with_capacity(packets.len());
        let mut sent = 0;
        let mut waited = 0;
        while answers.len() < packets.len() {
            waited += (sent == packets.len()) as u32;
            if waited > 100 {
                return Err(format!("{} of {} query results never came", packets.len() - answers.len(), packets.len()));
            }
            let q = sent < packets.len();
            let o = self.d.step(&SvbfInputs {
                q_valid: q,
                q_key: if q { packets[sent].0 } else { 0 },
                q_tag: sent as u16,
                ..idle
            });
            if q && !o.q_ready {
                return Err("the held epoch stopped taking queries".into());
            }
            sent += q as usize;
            if o.r_valid {
                let n = answers.len();
                if o.r_tag != n as u16 {
                    return Err(format!("result {n} came back with tag {}", o.r_tag));
                }
                let a = port_answer(o.r_kind, o.r_center, o.r_count, o.r_latency, o.r_candidates, centers);
                if a.kind != MatchKind::NoMatch && o.r_count as u64 != counts[a.center] {
                    return Err(format!(
                        "result {n}: center {} with count {} against {} read out",
                        a.center, o.r_count, counts[a.center]
                    ));
                }
                answers.push(a);
            }
        }
        Ok(EpochResult { answers, counts, sums, fill: None })
    }
}

/// The RTL engine for `cfg`: a Verilated core built with its hash functions,
/// partition size and seed (the centers are loaded at run time).
pub fn rtl_svbf_engine(cfg: &SvbfConfig) -> Result<Box<dyn SvbfEngine>, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    let key = |c: &SvbfConfig| (c.hashes, c.partition_log2, c.seed);
    if key(cfg) == key(&SvbfDefault::config()) {
        return Ok(Box::new(RtlSvbfEngine::<SvbfDefault>::new()));
    }
    if key(cfg) == key(&SvbfSmall::config()) {
        return Ok(Box::new(RtlSvbfEngine::<SvbfSmall>::new()));
    }
    if key(cfg) == key(&SvbfTiny::config()) {
        return Ok(Box::new(RtlSvbfEngine::<SvbfTiny>::new()));
    }
    let built: Vec<String> = [SvbfDefault::config(), SvbfSmall::config(), SvbfTiny::config()]
        .iter()
        .map(|c| format!("h = {}, p = {}, seed = {:#x}", c.hashes, c.partition_log2, c.seed))
        .collect();
    Err(format!(
        "no Verilated SVBF core has this geometry and seed (baked into the netlist); built: {}",
        built.join("; ")
    ))
}

/// [`crate::CoreRtl`] for a Verilated SVBF store (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::svbf::SvbfConfig,
            netmeas_sim::svbf::cycle::SvbfInputs,
            netmeas_sim::svbf::cycle::SvbfOutputs,
            |i| $tin {
                reset: P::from_u128(i.reset as u128),
                s_valid: P::from_u128(i.valid as u128),
                s_key: P::from_u128(i.key as u128),
                s_latency: P::from_u128(i.latency as u128),
                csr_we: P::from_u128(i.csr_we as u128),
                csr_addr: P::from_u128((i.csr_addr & 63) as u128),
                csr_wdata: P::from_u128(i.csr_wdata as u128),
                flip: P::from_u128(i.flip as u128),
                release_frozen: P::from_u128(i.release as u128),
                q_valid: P::from_u128(i.q_valid as u128),
                q_key: P::from_u128(i.q_key as u128),
                q_tag: P::from_u128(i.q_tag as u128),
                m_ro_ready: P::from_u128(i.ro_ready as u128),
                ovf_clear: P::from_u128(i.ovf_clear as u128),
            },
            |o| netmeas_sim::svbf::cycle::SvbfOutputs {
                ready: o.s_ready.to_u128() != 0,
                flip_ready: o.flip_ready.to_u128() != 0,
                epoch: o.live_epoch.to_u128() != 0,
                held: o.held.to_u128() != 0,
                q_ready: o.q_ready.to_u128() != 0,
                r_valid: o.r_valid.to_u128() != 0,
                r_tag: o.r_tag.to_u128() as u16,
                r_kind: o.r_kind.to_u128() as u8,
                r_center: o.r_center.to_u128() as u8,
                r_count: o.r_count.to_u128() as u32,
                r_latency: o.r_latency.to_u128() as u32,
                r_candidates: o.r_candidates.to_u128() as u64,
                ro_valid: o.m_ro_valid.to_u128() != 0,
                ro_center: o.m_ro_center.to_u128() as u8,
                ro_count: o.m_ro_count.to_u128() as u32,
                ro_sum: o.m_ro_sum.to_u128() as u64,
                ro_last: o.m_ro_last.to_u128() != 0,
                ovf_sticky: o.ovf_sticky.to_u128() != 0,
            }
        );
    };
}
pub(crate) use core_rtl;
