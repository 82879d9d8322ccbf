//! The counter bank under co-simulation: its stimulus and driver, the
//! runners that compare a Verilated bank with the golden model every cycle,
//! and its port adapter.

use crate::{
    CbIn, CbOut, CounterBankRtl, Mismatch, StreamMismatch, cosim_model, cosim_model_fused, cosim_streams, differ, lane,
    stream_shares,
};
use netmeas_sim::counter_bank::{CountSum, CounterBankConfig, CounterBankCycle};
use netmeas_sim::prng::SplitMix64;

/// Distances (in cycles) at which the counter bank forwards an older update's
/// result: the writes a read at edge E has not seen (see `RmwBank`).
pub const FWD_DEPTH: usize = 4;

/// How to drive a counter bank: probabilities in parts per 65536 per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CbStimulus {
    /// An update is offered.
    pub valid: u32,
    /// Entry `d`: the update repeats the row of the update offered `d + 1`
    /// offers ago (hazards at every forwarding distance of the pipeline).
    pub row_back: [u32; FWD_DEPTH],
    /// The count operand is random rather than 1 (drives overflows).
    pub wide_count: u32,
    /// A flip is requested.
    pub flip: u32,
    /// The read-out consumer is ready.
    pub ro_ready: u32,
    /// Reset is asserted.
    pub reset: u32,
    /// The overflow flag is cleared.
    pub ovf_clear: u32,
}

impl Default for CbStimulus {
    /// Busy traffic with hazards, frequent flips, a mostly ready consumer.
    fn default() -> Self {
        Self {
            valid: 58000,
            row_back: [16000, 8000, 8000, 8000],
            wide_count: 300,
            flip: 400,
            ro_ready: 52000,
            reset: 3,
            ovf_clear: 200,
        }
    }
}

/// Random counter-bank inputs, reproducible from a seed.
pub struct CbDriver {
    rng: SplitMix64,
    p: CbStimulus,
    rows: u64,
    count_mask: u64,
    tsum_mask: u64,
    last_rows: [u32; FWD_DEPTH],
}

impl CbDriver {
    /// A driver for `cfg` with stimulus `p`, seeded by `seed`.
    pub fn new(cfg: &CounterBankConfig, p: CbStimulus, seed: u64) -> Self {
        let m = |b: usize| if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
        Self {
            rng: SplitMix64::new(seed),
            p,
            rows: cfg.rows as u64,
            count_mask: m(cfg.count_bits),
            tsum_mask: m(cfg.tsum_bits),
            last_rows: [0; FWD_DEPTH],
        }
    }

    /// The next cycle's inputs: random words cut into 16-bit [`lane`]s.
    #[inline]
    pub fn next(&mut self) -> CbIn {
        let w0 = self.rng.next_u64();
        let w1 = self.rng.next_u64();
        let w2 = self.rng.next_u64();
        let upd_valid = lane(w0, 0, self.p.valid);
        let back = (0..FWD_DEPTH).find(|&d| lane(w1, d as u32, self.p.row_back[d]));
        let upd_row = match back {
            Some(d) => self.last_rows[d],
            None => (((w2 >> 32) * self.rows) >> 32) as u32,
        };
        if upd_valid {
            self.last_rows.rotate_right(1);
            self.last_rows[0] = upd_row;
        }
        let count = if lane(w2, 0, self.p.wide_count) { self.rng.next_u64() & self.count_mask } else { 1 };
        CbIn {
            reset: lane(w0, 1, self.p.reset),
            upd_valid,
            upd_row,
            upd_op: CountSum { count, tsum: self.rng.next_u64() & self.tsum_mask },
            flip: lane(w0, 2, self.p.flip),
            ro_ready: lane(w0, 3, self.p.ro_ready),
            ovf_clear: lane(w2, 1, self.p.ovf_clear),
            ..Default::default()
        }
    }
}

/// What a co-simulation run exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CbStats {
    /// Cycles compared.
    pub cycles: u64,
    /// Updates accepted.
    pub updates: u64,
    /// Entry `d`: updates to the row of the update accepted `d + 1` cycles
    /// before, each forwarded by its own path of the RTL.
    pub hazards: [u64; FWD_DEPTH],
    /// Flips taken.
    pub flips: u64,
    /// Read-out rows compared.
    pub rows_read: u64,
    /// Complete epochs read out.
    pub epochs_read: u64,
    /// Cycles with reset asserted.
    pub resets: u64,
    /// Cycles on which the sticky overflow flag rose.
    pub overflows: u64,
}

impl CbStats {
    /// The statistics of two runs together.
    pub fn merged(&self, o: &CbStats) -> CbStats {
        let mut hazards = self.hazards;
        for (h, x) in hazards.iter_mut().zip(o.hazards) {
            *h += x;
        }
        CbStats {
            cycles: self.cycles + o.cycles,
            updates: self.updates + o.updates,
            hazards,
            flips: self.flips + o.flips,
            rows_read: self.rows_read + o.rows_read,
            epochs_read: self.epochs_read + o.epochs_read,
            resets: self.resets + o.resets,
            overflows: self.overflows + o.overflows,
        }
    }
}

/// Runs `cycles` cycles of `M` against the golden model, comparing every output
/// every cycle (row, data and last only when `ro_valid`, as they mean nothing
/// otherwise). The RTL and the golden model run in [`lockstep`] on two threads.
pub fn cosim_counter_bank<M: CounterBankRtl>(p: CbStimulus, seed: u64, cycles: u64) -> Result<CbStats, Mismatch> {
    let (next, mut checker) = counter_bank_stream::<M>(p, seed);
    cosim_model::<M>(cycles, next, |cycle, i, r, g| checker.check(cycle, i, r, g))?;
    Ok(checker.st)
}

/// [`cosim_counter_bank`] as `streams` independent streams, one per thread,
/// each running its share of `cycles` with the RTL, the golden model and the
/// comparison on its own thread ([`cosim_model_fused`]); stream `k` is seeded
/// with `seed + k`. Returns the streams' statistics added up.
pub fn cosim_counter_bank_streams<M: CounterBankRtl>(
    p: CbStimulus,
    seed: u64,
    cycles: u64,
    streams: usize,
) -> Result<CbStats, StreamMismatch> {
    let per = stream_shares(cycles, streams);
    let stats = cosim_streams(streams, seed, |k, seed| {
        let (next, mut checker) = counter_bank_stream::<M>(p, seed);
        cosim_model_fused::<M>(per[k], next, |cycle, i, r, g| checker.check(cycle, i, r, g))?;
        Ok(checker.st)
    })?;
    Ok(stats.into_iter().fold(CbStats::default(), |a, b| a.merged(&b)))
}

/// One counter-bank co-simulation stream: the stimulus and golden-model
/// source, and the per-cycle comparison that also gathers the statistics.
fn counter_bank_stream<M: CounterBankRtl>(
    p: CbStimulus,
    seed: u64,
) -> (impl FnMut() -> (CbIn, CbOut) + Send, CbChecker) {
    let cfg = M::config();
    let mut golden = CounterBankCycle::<CountSum>::new(cfg.rows, cfg.layout());
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&CbIn::default());
    let mut drv = CbDriver::new(&cfg, p, seed);
    let next = move || {
        let i = drv.next();
        (i, golden.step(&i))
    };
    (next, CbChecker { model: M::NAME, st: CbStats::default(), prev_rows: [None; FWD_DEPTH], prev_ovf: false })
}

/// The counter bank's per-cycle comparison, with what the run exercised.
struct CbChecker {
    model: &'static str,
    st: CbStats,
    prev_rows: [Option<u32>; FWD_DEPTH],
    prev_ovf: bool,
}

impl CbChecker {
    #[inline]
    fn check(&mut self, cycle: u64, i: &CbIn, r: &CbOut, g: &CbOut) -> Result<(), Mismatch> {
        let (n, st) = (self.model, &mut self.st);
        differ(n, cycle, "upd_ready", r.upd_ready, g.upd_ready)?;
        differ(n, cycle, "flip_ready", r.flip_ready, g.flip_ready)?;
        differ(n, cycle, "epoch", r.epoch, g.epoch)?;
        differ(n, cycle, "ro_valid", r.ro_valid, g.ro_valid)?;
        differ(n, cycle, "ovf_sticky", r.ovf_sticky, g.ovf_sticky)?;
        if g.ro_valid {
            differ(n, cycle, "ro_row", r.ro_row, g.ro_row)?;
            differ(n, cycle, "ro_data", r.ro_data, g.ro_data)?;
            differ(n, cycle, "ro_last", r.ro_last, g.ro_last)?;
            if i.ro_ready {
                st.rows_read += 1;
                st.epochs_read += g.ro_last as u64;
            }
        }
        st.resets += i.reset as u64;
        st.overflows += (g.ovf_sticky && !self.prev_ovf) as u64;
        self.prev_ovf = g.ovf_sticky;
        let accepted = i.upd_valid && g.upd_ready && !i.reset;
        if accepted {
            st.updates += 1;
            for (n, prev) in st.hazards.iter_mut().zip(self.prev_rows) {
                *n += (prev == Some(i.upd_row)) as u64;
            }
        }
        self.prev_rows.rotate_right(1);
        self.prev_rows[0] = if accepted { Some(i.upd_row) } else { None };
        if i.reset {
            self.prev_rows = [None; FWD_DEPTH];
        }
        st.flips += (i.flip && g.flip_ready && !i.reset) as u64;
        st.cycles += 1;
        Ok(())
    }
}

/// [`crate::CoreRtl`] for a Verilated counter bank (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::counter_bank::CounterBankConfig,
            crate::CbIn,
            crate::CbOut,
            |i| $tin {
                reset: P::from_u128(i.reset as u128),
                s_upd_valid: P::from_u128(i.upd_valid as u128),
                s_upd_row: P::from_u128(i.upd_row as u128),
                s_upd_count: P::from_u128(i.upd_op.count as u128),
                s_upd_tsum: P::from_u128(i.upd_op.tsum as u128),
                flip: P::from_u128(i.flip as u128),
                m_ro_ready: P::from_u128(i.ro_ready as u128),
                ovf_clear: P::from_u128(i.ovf_clear as u128),
            },
            |o| crate::CbOut {
                upd_ready: o.s_upd_ready.to_u128() != 0,
                flip_ready: o.flip_ready.to_u128() != 0,
                epoch: o.epoch.to_u128() != 0,
                ro_valid: o.m_ro_valid.to_u128() != 0,
                ro_row: o.m_ro_row.to_u128() as u32,
                ro_data: netmeas_sim::counter_bank::CountSum {
                    count: o.m_ro_count.to_u128() as u64,
                    tsum: o.m_ro_tsum.to_u128() as u64,
                },
                ro_last: o.m_ro_last.to_u128() != 0,
                ovf_sticky: o.ovf_sticky.to_u128() != 0,
                // The counter bank never holds its frozen copy (its RmwBank's hold port is tied off).
                held: false,
                q_data: Default::default(),
            }
        );
    };
}
pub(crate) use core_rtl;
