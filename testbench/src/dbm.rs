//! Verilated DBM cores: cycle-by-cycle co-simulation of the per-packet core
//! against [`DbmCycle`], period-by-period co-simulation of the base-interval
//! core against [`DbmGolden`](netmeas_sim::dbm::DbmGolden), and whole streams
//! through the RTL for `netmeas run dbm --engine rtl|both`.

use crate::bw_driver::{BwDriver, BwLanes, BwPacketDraw};
use crate::models::{DbmDefault, DbmMid, DbmMmMid, DbmMr, DbmMv, DbmMvSmall, DbmSmall, DbmTwo};
use crate::{CoreRtl, Mismatch, built_variant, cosim_model, differ, lane};
use netmeas_sim::dbm::{
    BwPacket, DbmConfig, DbmCycle, DbmDrive, DbmInputs, DbmOutputs, DbmPeriod, DbmReadOut, TimeOrder, drive_dbm,
};
use netmeas_sim::prng::SplitMix64;

/// A Verilated DBM core.
pub trait DbmRtl: CoreRtl<Config = DbmConfig, In = DbmInputs, Out = DbmOutputs> {}
impl<M: CoreRtl<Config = DbmConfig, In = DbmInputs, Out = DbmOutputs>> DbmRtl for M {}

/// How to drive a DBM core: probabilities in parts per 65536 per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DbmStimulus {
    /// A packet is offered (held until taken).
    pub valid: u32,
    /// The time input carries the next packet's timestamp.
    pub now: u32,
    /// The next packet's timestamp jumps by up to three periods (closes, empty periods).
    pub jump: u32,
    /// The next packet's timestamp stays (equal timestamps).
    pub same: u32,
    /// The packet's length repeats the last one (equal merge keys: the tie rule).
    pub repeat: u32,
    /// The packet is near 2^32 bytes (saturates keys and, over long runs, masses).
    pub huge: u32,
    /// The read-out consumer is ready.
    pub ro_ready: u32,
    /// Reset is asserted (time restarts at 0).
    pub reset: u32,
}

impl Default for DbmStimulus {
    /// Line-rate packets of a few lengths and flows, frequent ties, a slow consumer.
    fn default() -> Self {
        Self { valid: 60000, now: 30000, jump: 30, same: 20000, repeat: 40000, huge: 200, ro_ready: 30000, reset: 3 }
    }
}

/// What a co-simulation exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DbmStats {
    /// Cycles compared.
    pub cycles: u64,
    /// Packets taken.
    pub packets: u64,
    /// Cycles a packet was offered and not taken.
    pub stalls: u64,
    /// Buckets read out.
    pub buckets_read: u64,
    /// Periods read out.
    pub periods_read: u64,
    /// Merges other than tail joins in the periods read out.
    pub real_merges: u64,
    /// Tail joins in the periods read out.
    pub tail_joins: u64,
    /// Periods read out with a saturated key.
    pub key_saturated_periods: u64,
}

/// The packets of a [`DbmStimulus`]: small steps in time within a period,
/// now and then a jump of up to three periods; lengths that repeat (equal
/// merge keys) and now and then near 2^32 bytes.
pub struct DbmDraw {
    p: DbmStimulus,
    period: u64,
    len: u32,
}

impl BwPacketDraw for DbmDraw {
    fn draw(&mut self, rng: &mut SplitMix64, r: u64, ts: &mut u64) -> (u32, u32) {
        if lane(r, 0, self.p.jump) {
            *ts += rng.below(3 * self.period);
        } else if !lane(r, 1, self.p.same) {
            *ts += rng.below(self.period / 64 + 2);
        }
        if !lane(r, 2, self.p.repeat) {
            self.len = if rng.chance(1, 2) { 1 + rng.below(4) as u32 } else { 40 + rng.below(1500) as u32 };
        }
        let len = if lane(r, 3, self.p.huge) { u32::MAX - rng.below(3) as u32 } else { self.len };
        (len, rng.below(3) as u32)
    }
}

/// Random DBM inputs, reproducible from a seed; a packet is held until taken.
pub type DbmDriver = BwDriver<DbmDraw>;

impl DbmDriver {
    /// A driver for `cfg`.
    pub fn new(cfg: &DbmConfig, p: DbmStimulus, seed: u64) -> Self {
        let lanes = BwLanes { valid: p.valid, now: p.now, ro_ready: p.ro_ready, reset: p.reset };
        Self::with_draw(lanes, DbmDraw { p, period: cfg.period_ticks, len: 64 }, seed)
    }
}

/// Runs `cycles` cycles of `M` against [`DbmCycle`], comparing every output
/// every cycle (the bucket only when a bucket beat is presented).
pub fn cosim_dbm<M: DbmRtl>(p: DbmStimulus, seed: u64, cycles: u64) -> Result<DbmStats, Mismatch> {
    let cfg = M::config();
    let mut golden = DbmCycle::new(&cfg).expect("variant config is valid");
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&DbmInputs::default());
    let mut drv = DbmDriver::new(&cfg, p, seed);
    let mut st = DbmStats::default();
    let n = M::NAME;
    cosim_model::<M>(
        cycles,
        || {
            let i = drv.next();
            let o = golden.step(&i);
            drv.observe(&i, o.ready);
            (i, o)
        },
        |cycle, i, r, g| {
            differ(n, cycle, "ready", r.ready, g.ready)?;
            differ(n, cycle, "ro_valid", r.ro_valid, g.ro_valid)?;
            differ(n, cycle, "ro_end", r.ro_end, g.ro_end)?;
            differ(n, cycle, "period_index", r.period_index, g.period_index)?;
            differ(n, cycle, "period_packets", r.period_packets, g.period_packets)?;
            differ(n, cycle, "period_merges", r.period_merges, g.period_merges)?;
            differ(n, cycle, "period_tail_joins", r.period_tail_joins, g.period_tail_joins)?;
            differ(n, cycle, "period_key_saturated", r.period_key_saturated, g.period_key_saturated)?;
            differ(n, cycle, "period_mass_saturated", r.period_mass_saturated, g.period_mass_saturated)?;
            if g.ro_valid && !g.ro_end {
                differ(n, cycle, "ro_bucket", r.ro_bucket, g.ro_bucket)?;
            }
            if g.ro_valid && i.ro_ready && !i.reset {
                if g.ro_end {
                    st.periods_read += 1;
                    st.real_merges += g.period_merges - g.period_tail_joins;
                    st.tail_joins += g.period_tail_joins;
                    st.key_saturated_periods += g.period_key_saturated as u64;
                } else {
                    st.buckets_read += 1;
                }
            }
            if i.valid && !i.reset {
                st.packets += g.ready as u64;
                st.stalls += !g.ready as u64;
            }
            st.cycles += 1;
            Ok(())
        },
    )?;
    Ok(st)
}

/// Runs packets on one Verilated DBM model (see [`run_on`]).
type DbmRun = fn(&DbmConfig, &[BwPacket]) -> DbmDrive;

/// The Verilated DBM models: the config each was built from (every parameter
/// is baked into the netlist) and its runner.
fn rtl_dbm_variants() -> [(DbmConfig, DbmRun); 8] {
    [
        (DbmDefault::config(), run_on::<DbmDefault>),
        (DbmSmall::config(), run_on::<DbmSmall>),
        (DbmMid::config(), run_on::<DbmMid>),
        (DbmTwo::config(), run_on::<DbmTwo>),
        (DbmMv::config(), run_on::<DbmMv>),
        (DbmMr::config(), run_on::<DbmMr>),
        (DbmMvSmall::config(), run_on::<DbmMvSmall>),
        (DbmMmMid::config(), run_on::<DbmMmMid>),
    ]
}

/// A built config as the refusal of an unknown one lists it.
fn describe_dbm(c: &DbmConfig) -> String {
    match c.base_ticks {
        0 => format!("per packet, {} buckets, period {} ns, seed {:#x}", c.buckets, c.period_ticks, c.seed),
        b => format!(
            "{}, {} buckets, base {b} ns, period {} ns, seed {:#x}",
            c.rule.name(),
            c.buckets,
            c.period_ticks,
            c.seed
        ),
    }
}

/// The runner of the Verilated core built for `cfg`, with an error that lists what was built otherwise.
fn rtl_dbm_runner(cfg: &DbmConfig) -> Result<DbmRun, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    built_variant(&rtl_dbm_variants(), cfg, "DBM", describe_dbm)
}

/// Checks that a Verilated core runs `cfg`, with an error that lists what was built otherwise.
pub fn check_rtl_dbm_config(cfg: &DbmConfig) -> Result<(), String> {
    rtl_dbm_runner(cfg).map(|_| ())
}

/// `packets` through a fresh Verilated core `M`, one packet offered per clock
/// with `now` carrying its timestamp and the read-out always taken (see [`drive_dbm`]).
fn run_on<M: DbmRtl>(cfg: &DbmConfig, packets: &[BwPacket]) -> DbmDrive {
    let mut m = M::create();
    drive_dbm(cfg, packets, |i| m.cycle(i), |_| true, |_| true)
}

/// Runs `packets` (in time order, timestamps below 2^48) on the Verilated core
/// built for `cfg`: the periods (what [`run_dbm`](netmeas_sim::dbm::run_dbm)
/// returns), the clocks and the input stalls.
pub fn rtl_dbm_run(cfg: &DbmConfig, packets: &[BwPacket]) -> Result<DbmDrive, String> {
    let run = rtl_dbm_runner(cfg)?;
    let mut order = TimeOrder::default();
    for p in packets {
        order.check(p.ts)?;
    }
    Ok(run(cfg, packets))
}

/// Runs `packets` (in time order) through a fresh Verilated base-interval core
/// `M` with `now` given on the clocks `now_every` picks and the read-out taken
/// on those `ro_ready` picks, and compares every period (buckets, counts and
/// flags) with the golden model's. Returns what the run measured.
pub fn cosim_dbm_interval<M: DbmRtl>(
    packets: &[BwPacket],
    now_every: impl FnMut(u64) -> bool,
    ro_ready: impl FnMut(u64) -> bool,
) -> Result<DbmDrive, String> {
    let cfg = M::config();
    let want = netmeas_sim::dbm::run_dbm(&cfg, packets)?;
    let mut m = M::create();
    let got = drive_dbm(&cfg, packets, |i| m.cycle(i), now_every, ro_ready);
    if got.periods.len() != want.len() {
        return Err(format!(
            "{}: {} periods read out, the golden model has {}",
            M::NAME,
            got.periods.len(),
            want.len()
        ));
    }
    for (g, w) in got.periods.iter().zip(&want) {
        if g != w {
            return Err(format!("{}: period {} differs:\n  rtl    {g:?}\n  golden {w:?}", M::NAME, w.index));
        }
    }
    Ok(got)
}

/// Runs `packets` through a fresh Verilated core `M` in real time: clock c is
/// time c · `ticks_per_clock`, a packet is offered from the clock its
/// timestamp is reached (one per clock), `now` carries the time whenever no
/// packet is offered, and the read-out is always taken; runs to the end of the
/// last packet's period. Returns the periods and the clocks in which an
/// offered packet was not taken.
pub fn rtl_dbm_realtime<M: DbmRtl>(packets: &[BwPacket], ticks_per_clock: u64) -> (Vec<DbmPeriod>, u64) {
    let cfg = M::config();
    let end = packets.last().map_or(0, |p| p.ts) / cfg.period_ticks * cfg.period_ticks + cfg.period_ticks;
    let periods_expected = (end / cfg.period_ticks) as usize;
    let mut m = M::create();
    let (mut next, mut stalls, mut clock) = (0usize, 0u64, 0u64);
    let (mut out, mut ro) = (Vec::new(), DbmReadOut::default());
    while out.len() < periods_expected {
        let t = (clock * ticks_per_clock).min(end);
        let p = packets.get(next).filter(|p| p.ts <= t);
        let i = DbmInputs { now: p.map_or(t, |p| p.ts), ..DbmInputs::offer(p, end, p.is_none(), true) };
        let o = m.cycle(&i);
        if i.valid {
            if o.ready {
                next += 1;
            } else {
                stalls += 1;
            }
        }
        if o.ro_valid {
            out.extend(ro.take(&o));
        }
        clock += 1;
    }
    (out, stalls)
}

/// [`crate::CoreRtl`] for a Verilated DBM core (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::dbm::DbmConfig,
            netmeas_sim::dbm::DbmInputs,
            netmeas_sim::dbm::DbmOutputs,
            |i| $crate::bw_driver::bandwidth_ports!($tin, i),
            |o| netmeas_sim::dbm::DbmOutputs {
                ready: o.s_ready.to_u128() != 0,
                ro_valid: o.m_ro_valid.to_u128() != 0,
                ro_end: o.m_ro_end.to_u128() != 0,
                ro_bucket: netmeas_sim::dbm::Bucket {
                    first: o.m_ro_first.to_u128() as u64,
                    last: o.m_ro_last_ts.to_u128() as u64,
                    mass: o.m_ro_mass.to_u128() as u64,
                    n: o.m_ro_n.to_u128() as u32,
                    sumsq: o.m_ro_sumsq.to_u128(),
                    max: o.m_ro_max.to_u128() as u64,
                    min: o.m_ro_min.to_u128() as u64,
                    flow: o.m_ro_flow.to_u128() as u32,
                    flow_count: o.m_ro_flow_count.to_u128() as u32,
                },
                period_index: o.period_index.to_u128() as u32,
                period_packets: o.period_packets.to_u128() as u64,
                period_merges: o.period_merges.to_u128() as u64,
                period_tail_joins: o.period_tail_joins.to_u128() as u64,
                period_key_saturated: o.period_key_saturated.to_u128() != 0,
                period_mass_saturated: o.period_mass_saturated.to_u128() != 0,
                period_interval_saturated: o.period_interval_saturated.to_u128() != 0,
            }
        );
    };
}
pub(crate) use core_rtl;
