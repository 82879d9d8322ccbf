//! Verilated EXPB cores: cycle-by-cycle co-simulation against [`ExpbCycle`].

use crate::bw_driver::{BwDriver, BwLanes, BwPacketDraw};
use crate::models::{ExpbDefault, ExpbOne, ExpbSmall, ExpbWide};
use crate::{CoreRtl, Mismatch, built_variant, cosim_model, differ, lane};
use netmeas_sim::dbm::expb_cycle::drive_expb;
use netmeas_sim::dbm::{BwPacket, ExpbConfig, ExpbCycle, ExpbInputs, ExpbOutputs, ExpbPeriod, TimeOrder};
use netmeas_sim::prng::SplitMix64;

/// A Verilated EXPB core.
pub trait ExpbRtl: CoreRtl<Config = ExpbConfig, In = ExpbInputs, Out = ExpbOutputs> {}
impl<M: CoreRtl<Config = ExpbConfig, In = ExpbInputs, Out = ExpbOutputs>> ExpbRtl for M {}

/// How to drive an EXPB core: probabilities in parts per 65536 per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpbStimulus {
    /// A packet is offered (held until taken).
    pub valid: u32,
    /// The time input carries the next packet's timestamp.
    pub now: u32,
    /// The next packet's timestamp jumps by up to three periods (many closes at once).
    pub jump: u32,
    /// The next packet's timestamp stays (same tick: packets of one interval).
    pub same: u32,
    /// The packet is near 2^32 bytes (saturates its interval's sum).
    pub huge: u32,
    /// The read-out consumer is ready.
    pub ro_ready: u32,
    /// Reset is asserted (time restarts at 0).
    pub reset: u32,
}

impl Default for ExpbStimulus {
    /// Line-rate packets, a few flows, frequent time jumps and a slow consumer.
    fn default() -> Self {
        Self { valid: 60000, now: 40000, jump: 20, same: 30000, huge: 300, ro_ready: 30000, reset: 3 }
    }
}

/// What a co-simulation exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpbStats {
    /// Cycles compared.
    pub cycles: u64,
    /// Packets taken.
    pub packets: u64,
    /// Cycles a packet was offered and not taken.
    pub stalls: u64,
    /// Scales read out.
    pub scales_read: u64,
    /// Periods read out.
    pub periods_read: u64,
    /// Periods read out with a saturated interval.
    pub saturated_periods: u64,
}

/// The packets of an [`ExpbStimulus`]: mostly steps within a base interval,
/// now and then past one or two, or a jump of up to three periods; lengths
/// now and then near 2^32 bytes.
pub struct ExpbDraw {
    p: ExpbStimulus,
    cfg: ExpbConfig,
}

impl BwPacketDraw for ExpbDraw {
    fn draw(&mut self, rng: &mut SplitMix64, r: u64, ts: &mut u64) -> (u32, u32) {
        if lane(r, 0, self.p.jump) {
            *ts += rng.below(3 * self.cfg.period_ticks);
        } else if !lane(r, 1, self.p.same) {
            // Mostly within an interval, now and then past one or two.
            *ts += rng.below(self.cfg.base_ticks.div_ceil(4) + 1)
                + if lane(r, 3, 3000) { rng.below(3 * self.cfg.base_ticks) } else { 0 };
        }
        let len = if lane(r, 2, self.p.huge) { u32::MAX - rng.below(3) as u32 } else { 40 + rng.below(1500) as u32 };
        (len, rng.below(4) as u32)
    }
}

/// Random EXPB inputs, reproducible from a seed; a packet is held until taken.
pub type ExpbDriver = BwDriver<ExpbDraw>;

impl ExpbDriver {
    /// A driver for `cfg`.
    pub fn new(cfg: &ExpbConfig, p: ExpbStimulus, seed: u64) -> Self {
        let lanes = BwLanes { valid: p.valid, now: p.now, ro_ready: p.ro_ready, reset: p.reset };
        Self::with_draw(lanes, ExpbDraw { p, cfg: cfg.clone() }, seed)
    }
}

/// Runs `cycles` cycles of `M` against [`ExpbCycle`], comparing every output
/// every cycle (the presented scale only when `ro_valid`).
pub fn cosim_expb<M: ExpbRtl>(p: ExpbStimulus, seed: u64, cycles: u64) -> Result<ExpbStats, Mismatch> {
    let cfg = M::config();
    let mut golden = ExpbCycle::new(&cfg).expect("variant config is valid");
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&ExpbInputs::default());
    let mut drv = ExpbDriver::new(&cfg, p, seed);
    let mut st = ExpbStats::default();
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
            differ(n, cycle, "period_index", r.period_index, g.period_index)?;
            differ(n, cycle, "period_packets", r.period_packets, g.period_packets)?;
            differ(n, cycle, "period_saturated", r.period_saturated, g.period_saturated)?;
            differ(n, cycle, "live_period", r.live_period, g.live_period)?;
            if g.ro_valid {
                differ(n, cycle, "ro_scale", r.ro_scale, g.ro_scale)?;
                differ(n, cycle, "ro_data", r.ro_data, g.ro_data)?;
                differ(n, cycle, "ro_last", r.ro_last, g.ro_last)?;
                if i.ro_ready && !i.reset {
                    st.scales_read += 1;
                    st.periods_read += g.ro_last as u64;
                    st.saturated_periods += (g.ro_last && g.period_saturated) as u64;
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

/// Runs packets on one Verilated EXPB model (see [`run_on`]).
type ExpbRun = fn(&ExpbConfig, &[BwPacket]) -> (Vec<ExpbPeriod>, ExpbRunCycles);

/// The Verilated EXPB models: the config each was built from (every
/// parameter is baked into the netlist) and its runner.
fn rtl_expb_variants() -> [(ExpbConfig, ExpbRun); 4] {
    [
        (ExpbDefault::config(), run_on::<ExpbDefault>),
        (ExpbSmall::config(), run_on::<ExpbSmall>),
        (ExpbOne::config(), run_on::<ExpbOne>),
        (ExpbWide::config(), run_on::<ExpbWide>),
    ]
}

/// A built config as the refusal of an unknown one lists it.
fn describe_expb(c: &ExpbConfig) -> String {
    format!("{} scales, base {} ns, period {} ns", c.scales, c.base_ticks, c.period_ticks)
}

/// The runner of the Verilated core built for `cfg`, with an error that lists what was built otherwise.
fn rtl_expb_runner(cfg: &ExpbConfig) -> Result<ExpbRun, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    built_variant(&rtl_expb_variants(), cfg, "EXPB", describe_expb)
}

/// Checks that a Verilated core runs `cfg`, with an error that lists what was built otherwise.
pub fn check_rtl_expb_config(cfg: &ExpbConfig) -> Result<(), String> {
    rtl_expb_runner(cfg).map(|_| ())
}

/// What an RTL run took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpbRunCycles {
    /// Clock cycles, packets and read-out together.
    pub cycles: u64,
    /// Cycles a packet was offered and not taken.
    pub stalls: u64,
}

/// `packets` through a fresh Verilated core `M`, one packet offered per clock
/// with `now` carrying its timestamp and the read-out always taken (see
/// [`drive_expb`]). Returns what the golden
/// [`run_expb`](netmeas_sim::dbm::run_expb) returns.
fn run_on<M: ExpbRtl>(cfg: &ExpbConfig, packets: &[BwPacket]) -> (Vec<ExpbPeriod>, ExpbRunCycles) {
    let mut m = M::create();
    let mut cycles = 0;
    let (periods, stalls) = drive_expb(
        cfg,
        packets,
        |i| {
            cycles += 1;
            m.cycle(i)
        },
        |_| true,
        |_| true,
    );
    (periods, ExpbRunCycles { cycles, stalls })
}

/// Runs `packets` (in time order, timestamps below 2^48) on the Verilated core
/// built for `cfg`.
pub fn rtl_expb_run(cfg: &ExpbConfig, packets: &[BwPacket]) -> Result<(Vec<ExpbPeriod>, ExpbRunCycles), String> {
    let run = rtl_expb_runner(cfg)?;
    let mut order = TimeOrder::default();
    for p in packets {
        order.check(p.ts)?;
    }
    Ok(run(cfg, packets))
}

/// [`crate::CoreRtl`] for a Verilated EXPB core (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::dbm::ExpbConfig,
            netmeas_sim::dbm::ExpbInputs,
            netmeas_sim::dbm::ExpbOutputs,
            |i| $crate::bw_driver::bandwidth_ports!($tin, i),
            |o| netmeas_sim::dbm::ExpbOutputs {
                ready: o.s_ready.to_u128() != 0,
                ro_valid: o.m_ro_valid.to_u128() != 0,
                ro_scale: o.m_ro_scale.to_u128() as u32,
                ro_data: netmeas_sim::dbm::ScaleStats {
                    count: o.m_ro_count.to_u128() as u64,
                    sum: o.m_ro_sum.to_u128() as u64,
                    sumsq: o.m_ro_sumsq.to_u128(),
                    max: o.m_ro_max.to_u128() as u64,
                    max_index: o.m_ro_max_index.to_u128() as u64,
                    max_flow: o.m_ro_max_flow.to_u128() as u32,
                },
                ro_last: o.m_ro_last.to_u128() != 0,
                period_index: o.period_index.to_u128() as u32,
                period_packets: o.period_packets.to_u128() as u64,
                period_saturated: o.period_saturated.to_u128() != 0,
                live_period: o.live_period.to_u128() as u32,
            }
        );
    };
}
pub(crate) use core_rtl;
