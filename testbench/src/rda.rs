//! The RDA core under co-simulation: its stimulus and driver, the runner
//! that compares a Verilated core with the per-clock model every cycle, and
//! its port adapter.

use crate::{Mismatch, RdaRtl, cosim_model, differ, lane};
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::rda::{
    RDA_REG_DELTA, RDA_REG_GUARD, RDA_REG_SAMPLE_LZ, RDA_REG_T0_HI, RDA_REG_T0_LO, RdaCycle, RdaInputs,
};

/// How to drive an RDA core: probabilities in parts per 65536 per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdaStimulus {
    /// A packet is offered.
    pub valid: u32,
    /// The packet repeats one of 8 hot IDs (bursts to one bucket per bank).
    pub hot_id: u32,
    /// The clock jumps ahead by up to four intervals (boundary crossed, intervals skipped).
    pub jump: u32,
    /// The packet's timestamp lies up to 1000 ticks in the past (late packets, out of interval).
    pub late: u32,
    /// `now` is valid (idle intervals close once now ≥ end + GUARD).
    pub now: u32,
    /// A CSR register is written (random register; δ values around `interval`).
    pub csr: u32,
    /// The read-out consumer is ready.
    pub ro_ready: u32,
    /// Reset is asserted.
    pub reset: u32,
    /// The overflow flag is cleared.
    pub ovf_clear: u32,
    /// Start the clock 20 000 ticks before the 48-bit timestamp wraps.
    pub near_wrap: bool,
    /// Typical interval δ in ticks (the clock moves about 1.5 ticks per
    /// cycle): the prologue writes it, CSR writes draw 0.3 δ .. 2.3 δ. Below
    /// the read-out time of the banks, the core back-pressures at boundaries.
    pub interval: u32,
}

impl Default for RdaStimulus {
    /// Line-rate traffic with bursts, short intervals, late packets, idle gaps.
    fn default() -> Self {
        Self {
            valid: 56000,
            hot_id: 16000,
            jump: 30,
            late: 300,
            now: 40000,
            csr: 60,
            ro_ready: 56000,
            reset: 2,
            ovf_clear: 100,
            near_wrap: false,
            interval: 1000,
        }
    }
}

/// What an RDA co-simulation exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RdaStats {
    /// Cycles compared.
    pub cycles: u64,
    /// Packets accepted.
    pub packets: u64,
    /// Interval boundaries stepped (live interval index changed by one).
    pub boundaries: u64,
    /// Complete epochs read out (every bucket and counter compared).
    pub epochs_read: u64,
    /// Buckets read out with a non-zero count.
    pub busy_buckets: u64,
    /// Cycles in which `ready` was low.
    pub stalls: u64,
    /// Packets counted out of interval (by the golden model).
    pub out_of_interval: u64,
    /// CSR writes.
    pub csr_writes: u64,
    /// Cycles with reset asserted.
    pub resets: u64,
}

/// Random RDA inputs around a clock that moves about one tick per cycle.
struct RdaDriver {
    rng: SplitMix64,
    p: RdaStimulus,
    clock: u64,
    hot: [u64; 8],
}

impl RdaDriver {
    const MASK: u64 = (1 << 48) - 1;

    fn new(p: RdaStimulus, seed: u64) -> Self {
        let mut rng = SplitMix64::new(seed);
        let hot = std::array::from_fn(|_| rng.next_u64());
        let clock = if p.near_wrap { Self::MASK - 20_000 } else { rng.below(1 << 20) };
        Self { rng, p, clock, hot }
    }

    fn next(&mut self) -> RdaInputs {
        let w0 = self.rng.next_u64();
        let w1 = self.rng.next_u64();
        let w2 = self.rng.next_u64();
        self.clock =
            (self.clock + (w2 & 3) + if lane(w1, 2, self.p.jump) { self.rng.below(8000) } else { 0 }) & Self::MASK;
        let ts = if lane(w1, 3, self.p.late) {
            self.clock.wrapping_sub(self.rng.below(1000)) & Self::MASK
        } else {
            self.clock
        };
        let id = if lane(w1, 0, self.p.hot_id) { self.hot[(w1 >> 16) as usize & 7] } else { self.rng.next_u64() };
        // CSR values: t_0 near the clock, δ of 0.3..2.3 intervals, GUARD < 256, SAMPLE_LZ 0..3 or beyond 24.
        let csr_addr = ((w2 >> 8) & 7) as u32;
        let t0 = self.clock.wrapping_sub(self.rng.below(2000)) & Self::MASK;
        let csr_wdata = match csr_addr {
            RDA_REG_T0_LO => t0 as u32,
            RDA_REG_T0_HI => (t0 >> 32) as u32,
            RDA_REG_DELTA => self.p.interval * 3 / 10 + self.rng.below(2 * self.p.interval as u64) as u32,
            RDA_REG_GUARD => self.rng.below(256) as u32,
            RDA_REG_SAMPLE_LZ => {
                if lane(w2, 3, 8000) {
                    24 + self.rng.below(8) as u32
                } else {
                    self.rng.below(4) as u32
                }
            }
            _ => self.rng.next_u64() as u32,
        };
        RdaInputs {
            reset: lane(w0, 0, self.p.reset),
            valid: lane(w0, 1, self.p.valid),
            id,
            ts,
            now_valid: lane(w0, 2, self.p.now),
            now: (self.clock + self.rng.below(500)) & Self::MASK,
            csr_we: lane(w0, 3, self.p.csr),
            csr_addr,
            csr_wdata,
            ro_ready: lane(w1, 1, self.p.ro_ready),
            ovf_clear: lane(w2, 2, self.p.ovf_clear),
        }
    }
}

/// Runs `cycles` cycles of the RDA model `M` against [`RdaCycle`], comparing
/// every output every cycle (bucket fields only when `ro_valid`). The first
/// cycles write δ = `p.interval` and restart the interval clock, so that
/// boundaries come at the stimulus's pace whatever the variant's reset values.
pub fn cosim_rda<M: RdaRtl>(p: RdaStimulus, seed: u64, cycles: u64) -> Result<RdaStats, Mismatch> {
    let cfg = M::config();
    let mut golden = RdaCycle::new(&cfg);
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&RdaInputs::default());
    let mut drv = RdaDriver::new(p, seed);
    let mut st = RdaStats::default();
    let mut prologue = 0u32;
    let mut prev_interval = 0u32;
    let mut last_oov = 0u64;
    let n = M::NAME;
    cosim_model::<M>(
        cycles,
        || {
            let mut i = drv.next();
            // Prologue: δ, then t_0 = the clock (restart), so the first interval is short.
            let t0 = drv.clock;
            let setup = [(RDA_REG_DELTA, p.interval), (RDA_REG_T0_LO, t0 as u32), (RDA_REG_T0_HI, (t0 >> 32) as u32)];
            if let Some(&(addr, data)) = setup.get(prologue as usize) {
                i = RdaInputs { reset: false, valid: false, csr_we: true, csr_addr: addr, csr_wdata: data, ..i };
                prologue += 1;
            }
            (i, golden.step(&i))
        },
        |cycle, i, r, g| {
            differ(n, cycle, "ready", r.ready, g.ready)?;
            differ(n, cycle, "ro_valid", r.ro_valid, g.ro_valid)?;
            differ(n, cycle, "frozen_interval", r.frozen_interval, g.frozen_interval)?;
            differ(n, cycle, "frozen_packets", r.frozen_packets, g.frozen_packets)?;
            differ(n, cycle, "frozen_sampled", r.frozen_sampled, g.frozen_sampled)?;
            differ(n, cycle, "live_interval", r.live_interval, g.live_interval)?;
            differ(n, cycle, "out_of_interval", r.out_of_interval, g.out_of_interval)?;
            differ(n, cycle, "live_epoch", r.live_epoch, g.live_epoch)?;
            differ(n, cycle, "ovf_sticky", r.ovf_sticky, g.ovf_sticky)?;
            if g.ro_valid {
                differ(n, cycle, "ro_bank", r.ro_bank, g.ro_bank)?;
                differ(n, cycle, "ro_row", r.ro_row, g.ro_row)?;
                differ(n, cycle, "ro_data", r.ro_data, g.ro_data)?;
                differ(n, cycle, "ro_last", r.ro_last, g.ro_last)?;
                if i.ro_ready {
                    st.busy_buckets += (g.ro_data.count != 0) as u64;
                    st.epochs_read += g.ro_last as u64;
                }
            }
            st.boundaries += (g.live_interval == prev_interval.wrapping_add(1)) as u64;
            prev_interval = g.live_interval;
            st.out_of_interval += (g.out_of_interval > last_oov) as u64;
            last_oov = g.out_of_interval;
            st.stalls += !g.ready as u64;
            if !i.reset {
                st.packets += (i.valid && g.ready) as u64;
                st.csr_writes += i.csr_we as u64;
            }
            st.resets += i.reset as u64;
            st.cycles += 1;
            Ok(())
        },
    )?;
    Ok(st)
}

/// [`crate::CoreRtl`] for a Verilated RDA core (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::rda::RdaConfig,
            netmeas_sim::rda::RdaInputs,
            netmeas_sim::rda::RdaOutputs,
            |i| $tin {
                reset: P::from_u128(i.reset as u128),
                s_valid: P::from_u128(i.valid as u128),
                s_id: P::from_u128(i.id as u128),
                s_ts: P::from_u128((i.ts & ((1 << 48) - 1)) as u128),
                now_valid: P::from_u128(i.now_valid as u128),
                now: P::from_u128((i.now & ((1 << 48) - 1)) as u128),
                csr_we: P::from_u128(i.csr_we as u128),
                csr_addr: P::from_u128((i.csr_addr & 7) as u128),
                csr_wdata: P::from_u128(i.csr_wdata as u128),
                m_ro_ready: P::from_u128(i.ro_ready as u128),
                ovf_clear: P::from_u128(i.ovf_clear as u128),
            },
            |o| netmeas_sim::rda::RdaOutputs {
                ready: o.s_ready.to_u128() != 0,
                ro_valid: o.m_ro_valid.to_u128() != 0,
                ro_bank: o.m_ro_bank.to_u128() as u32,
                ro_row: o.m_ro_row.to_u128() as u32,
                ro_data: netmeas_sim::rda::RdaRecord {
                    id: o.m_ro_id.to_u128() as u64,
                    tsum: o.m_ro_tsum.to_u128() as u64,
                    count: o.m_ro_count.to_u128() as u64,
                },
                ro_last: o.m_ro_last.to_u128() != 0,
                frozen_interval: o.frozen_interval.to_u128() as u32,
                frozen_packets: o.frozen_packets.to_u128() as u64,
                frozen_sampled: o.frozen_sampled.to_u128() as u64,
                live_interval: o.live_interval.to_u128() as u32,
                out_of_interval: o.out_of_interval.to_u128() as u64,
                live_epoch: o.live_epoch.to_u128() != 0,
                ovf_sticky: o.ovf_sticky.to_u128() != 0,
            }
        );
    };
}
pub(crate) use core_rtl;
