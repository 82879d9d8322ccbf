//! Verilated fridge cores: cycle-by-cycle co-simulation against
//! [`FridgeCycle`], and whole request/response streams through the RTL with
//! the samples and histograms read back (`netmeas run fridge --engine rtl`).

use crate::driver::Driver;
use crate::models::{FridgeDefault, FridgeSmall, FridgeThree};
use crate::{CoreRtl, Mismatch, cosim_model, differ, lane};
use netmeas_sim::fridge::{
    FRIDGE_BINS, FRIDGE_REG_BIN_SHIFT, FRIDGE_REG_CORR_CM, FRIDGE_REG_CORR_PINV, FRIDGE_REG_CORR_SH, FRIDGE_REG_FLIP,
    FRIDGE_REG_HIST_ROW, FRIDGE_REG_THRESH, FridgeConfig, FridgeCycle, FridgeIndex, FridgeInputs, FridgeOutputs,
    FridgePacket, FridgeRun, FridgeSample, HistBin, fridge_config_registers,
};
use netmeas_sim::prng::SplitMix64;

/// A Verilated fridge core.
pub trait FridgeRtl: CoreRtl<Config = FridgeConfig, In = FridgeInputs, Out = FridgeOutputs> {}
impl<M: CoreRtl<Config = FridgeConfig, In = FridgeInputs, Out = FridgeOutputs>> FridgeRtl for M {}

/// How to drive a fridge core: probabilities in parts per 65536 per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FridgeStimulus {
    /// A packet is offered.
    pub valid: u32,
    /// The packet is a response (else a request).
    pub response: u32,
    /// A response answers one of the last 16 requests (else a random ID, mostly a miss).
    pub answered: u32,
    /// A request reuses one of 8 hot IDs (same entry: overwrites, back-to-back hits).
    pub hot: u32,
    /// A random register is written (THRESH, correction, BIN_SHIFT with random values).
    pub csr: u32,
    /// `FLIP` is written.
    pub flip: u32,
    /// A random register is read (the histogram row presented, counters, status).
    pub csr_read: u32,
    /// The sample consumer is ready.
    pub smp_ready: u32,
    /// The histogram read-out consumer is ready.
    pub ro_ready: u32,
    /// Reset is asserted.
    pub reset: u32,
    /// The overflow flag is cleared.
    pub ovf_clear: u32,
    /// Start the clock 10 000 ticks before the 48-bit timestamp wraps.
    pub near_wrap: bool,
}

impl Default for FridgeStimulus {
    /// Line-rate requests and responses, many answered at once (forwarding),
    /// a slow sample consumer, frequent flips and register writes.
    fn default() -> Self {
        Self {
            valid: 60000,
            response: 26000,
            answered: 50000,
            hot: 6000,
            csr: 60,
            flip: 150,
            csr_read: 8000,
            smp_ready: 52000,
            ro_ready: 56000,
            reset: 2,
            ovf_clear: 100,
            near_wrap: false,
        }
    }
}

/// What a fridge co-simulation exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FridgeStats {
    /// Cycles compared.
    pub cycles: u64,
    /// Packets accepted.
    pub packets: u64,
    /// Samples taken from the output stream.
    pub samples: u64,
    /// Largest `smp_dropped` seen.
    pub dropped: u32,
    /// Largest `saturated` seen.
    pub saturated: u32,
    /// `HIST_ROW` reads that found a row presented.
    pub rows_read_by_register: u64,
    /// Epoch changes seen on `epoch`.
    pub flips: u64,
    /// Complete histogram read-outs.
    pub epochs_read: u64,
    /// Bins read out with a non-zero count.
    pub busy_bins: u64,
    /// CSR writes.
    pub csr_writes: u64,
}

/// Random fridge inputs around a clock that moves about one tick per cycle.
struct FridgeDriver {
    rng: SplitMix64,
    p: FridgeStimulus,
    clock: u64,
    hot: [u32; 8],
    recent: [u32; 16],
    next_recent: usize,
}

impl FridgeDriver {
    const MASK: u64 = (1 << 48) - 1;

    fn new(p: FridgeStimulus, seed: u64) -> Self {
        let mut rng = SplitMix64::new(seed);
        let hot = std::array::from_fn(|_| rng.next_u64() as u32);
        let recent = std::array::from_fn(|_| rng.next_u64() as u32);
        let clock = if p.near_wrap { Self::MASK - 10_000 } else { rng.below(1 << 30) };
        Self { rng, p, clock, hot, recent, next_recent: 0 }
    }

    fn next(&mut self) -> FridgeInputs {
        let w0 = self.rng.next_u64();
        let w1 = self.rng.next_u64();
        let w2 = self.rng.next_u64();
        self.clock = (self.clock + (w2 & 3)) & Self::MASK;
        let response = lane(w0, 2, self.p.response);
        let id = if response {
            if lane(w1, 0, self.p.answered) {
                // Mostly the newest requests: a response right behind its request.
                let back = ((w1 >> 16) & 0xFF).trailing_zeros().min(15) as usize;
                self.recent[(self.next_recent + 16 - 1 - back) % 16]
            } else {
                self.rng.next_u64() as u32
            }
        } else {
            let id =
                if lane(w1, 2, self.p.hot) { self.hot[(w1 >> 48) as usize & 7] } else { self.rng.next_u64() as u32 };
            self.recent[self.next_recent] = id;
            self.next_recent = (self.next_recent + 1) % 16;
            id
        };
        // A flip comes as a FLIP write, on the `flip` input beside any other register write, or both.
        let flip = lane(w0, 3, self.p.flip);
        let flip_how = if flip { self.rng.below(3) } else { 3 };
        let flip_write = flip_how == 0 || flip_how == 2;
        let flip_port = flip_how == 1 || flip_how == 2;
        let csr = !flip_write && lane(w2, 1, self.p.csr);
        // A random fridge register with values that matter: thresholds from never to always,
        // correction registers across their range, BIN_SHIFT beyond 47.
        let addr = (w2 >> 40) as u32 & 31;
        let csr_wdata = match addr {
            FRIDGE_REG_BIN_SHIFT => self.rng.below(64) as u32,
            a if a >= FRIDGE_REG_THRESH && (a - FRIDGE_REG_THRESH) % 4 == 0 => match self.rng.below(4) {
                0 => u32::MAX,
                1 => 0,
                _ => self.rng.next_u64() as u32,
            },
            // log2(1/p) up to 32 octaves, half the time near the top: saturating factors.
            a if a >= FRIDGE_REG_CORR_PINV && (a - FRIDGE_REG_CORR_PINV) % 4 == 0 => {
                (if self.rng.below(2) == 0 { 28 << 16 } else { 0 }) + self.rng.below(28 << 16) as u32
            }
            a if a >= FRIDGE_REG_CORR_CM && (a - FRIDGE_REG_CORR_CM) % 4 == 0 => self.rng.next_u64() as u32,
            a if a >= FRIDGE_REG_CORR_SH && (a - FRIDGE_REG_CORR_SH) % 4 == 0 => self.rng.below(64) as u32,
            _ => self.rng.next_u64() as u32,
        };
        FridgeInputs {
            reset: lane(w0, 0, self.p.reset),
            valid: lane(w0, 1, self.p.valid),
            id,
            response,
            ts: self.clock,
            flip: flip_port,
            csr_we: flip_write || csr,
            csr_addr: if flip_write { FRIDGE_REG_FLIP } else { addr },
            csr_wdata,
            csr_re: lane(w2, 2, self.p.csr_read),
            smp_ready: lane(w1, 1, self.p.smp_ready),
            ro_ready: lane(w1, 3, self.p.ro_ready),
            ovf_clear: lane(w2, 0, self.p.ovf_clear),
        }
    }
}

/// Runs `cycles` cycles of the fridge model `M` against [`FridgeCycle`],
/// comparing every output every cycle (sample fields when `smp_valid`, bin
/// fields when `ro_valid`).
pub fn cosim_fridge<M: FridgeRtl>(p: FridgeStimulus, seed: u64, cycles: u64) -> Result<FridgeStats, Mismatch> {
    let cfg = M::config();
    let mut golden = FridgeCycle::new(&cfg);
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&FridgeInputs::default());
    let mut drv = FridgeDriver::new(p, seed);
    let mut st = FridgeStats::default();
    let mut last_epoch = false;
    let mut last_read_row = false;
    let n = M::NAME;
    cosim_model::<M>(
        cycles,
        || {
            let i = drv.next();
            (i, golden.step(&i))
        },
        |cycle, i, r, g| {
            differ(n, cycle, "ready", r.ready, g.ready)?;
            differ(n, cycle, "flip_pending", r.flip_pending, g.flip_pending)?;
            differ(n, cycle, "epoch", r.epoch, g.epoch)?;
            differ(n, cycle, "smp_valid", r.smp_valid, g.smp_valid)?;
            differ(n, cycle, "smp_dropped", r.smp_dropped, g.smp_dropped)?;
            differ(n, cycle, "ro_valid", r.ro_valid, g.ro_valid)?;
            differ(n, cycle, "ovf_sticky", r.ovf_sticky, g.ovf_sticky)?;
            differ(n, cycle, "saturated", r.saturated, g.saturated)?;
            differ(n, cycle, "csr_rdata", r.csr_rdata, g.csr_rdata)?;
            st.rows_read_by_register += (g.csr_rdata >> 31 != 0 && last_read_row) as u64;
            last_read_row = i.csr_re && i.csr_addr & 31 == FRIDGE_REG_HIST_ROW;
            if g.smp_valid {
                differ(n, cycle, "smp", r.smp, g.smp)?;
                st.samples += i.smp_ready as u64;
            }
            if g.ro_valid {
                differ(n, cycle, "ro_row", r.ro_row, g.ro_row)?;
                differ(n, cycle, "ro_data", r.ro_data, g.ro_data)?;
                differ(n, cycle, "ro_last", r.ro_last, g.ro_last)?;
                if i.ro_ready {
                    st.busy_bins += (g.ro_data.count != 0) as u64;
                    st.epochs_read += g.ro_last as u64;
                }
            }
            if !i.reset {
                st.packets += (i.valid && g.ready) as u64;
                st.csr_writes += i.csr_we as u64;
            }
            st.flips += (g.epoch != last_epoch) as u64;
            last_epoch = g.epoch;
            st.dropped = st.dropped.max(g.smp_dropped);
            st.saturated = st.saturated.max(g.saturated);
            st.cycles += 1;
            Ok(())
        },
    )?;
    Ok(st)
}

/// Whether model config `built` runs `cfg`: same fridge sizes and seed (the
/// index hash and the PRNG seeds are baked into the netlist); the entry
/// probabilities, correction registers and `BIN_SHIFT` are written at run time.
fn runs(built: &FridgeConfig, cfg: &FridgeConfig) -> bool {
    built.entries == cfg.entries && built.seed == cfg.seed
}

/// The configs the Verilated fridge models were built from.
pub fn rtl_fridge_configs() -> Vec<FridgeConfig> {
    vec![FridgeDefault::config(), FridgeSmall::config(), FridgeThree::config()]
}

/// Checks that a Verilated core runs `cfg`, with an error that lists what was built otherwise.
pub fn check_rtl_config(cfg: &FridgeConfig) -> Result<(), String> {
    cfg.validate().map_err(|e| e.to_string())?;
    if rtl_fridge_configs().iter().any(|b| runs(b, cfg)) {
        return Ok(());
    }
    let built: Vec<String> =
        rtl_fridge_configs().iter().map(|c| format!("entries {:?} seed {:#x}", c.entries, c.seed)).collect();
    Err(format!(
        "no Verilated fridge core has these fridge sizes and seed (entry probabilities and BIN_SHIFT are registers and may differ); built: {}",
        built.join("; ")
    ))
}

/// `packets` through a fresh Verilated core `M` configured as `cfg` by
/// register writes, one packet per clock, the sample stream always taken;
/// then a flip and the histogram read-out. Returns what the golden
/// [`run_golden`](netmeas_sim::fridge::run_golden) returns, and the cycles.
fn run_on<M: FridgeRtl>(cfg: &FridgeConfig, packets: &[FridgePacket]) -> Result<(FridgeRun, u64), String> {
    let mut d = Driver::<M>::new();
    let n = cfg.fridges();
    let mut samples: Vec<FridgeSample> = Vec::new();
    let mut hist = vec![HistBin::default(); n * FRIDGE_BINS];
    let mut saturated = 0;
    let mut overflow = false;
    let mut dropped = 0;
    // Every output: a sample taken, a histogram row read out, the status.
    let mut watch = |o: &FridgeOutputs| {
        if o.smp_valid {
            samples.push(o.smp);
        }
        if o.ro_valid {
            hist[o.ro_row as usize] = o.ro_data;
        }
        (saturated, overflow, dropped) = (o.saturated, o.ovf_sticky, o.smp_dropped);
    };
    let idle = FridgeInputs { smp_ready: true, ro_ready: true, ..Default::default() };
    watch(&d.step(&FridgeInputs { reset: true, ..idle }));
    d.until(&idle, 0, "no ready after reset", |o| {
        watch(o);
        Ok(o.ready)
    })?;
    // Every configuration register but FLIP at `cfg`'s value: the register map's reset column for `cfg`.
    for r in fridge_config_registers(cfg).iter().filter(|r| r.addr != FRIDGE_REG_FLIP) {
        watch(&d.step(&FridgeInputs { csr_we: true, csr_addr: r.addr, csr_wdata: r.reset as u32, ..idle }));
    }
    let inputs = packets.iter().map(|p| FridgeInputs { valid: true, id: p.id, response: p.response, ts: p.ts, ..idle });
    d.feed(inputs, |o| {
        watch(o);
        Ok(o.ready)
    })?;
    watch(&d.step(&FridgeInputs { csr_we: true, csr_addr: FRIDGE_REG_FLIP, ..idle }));
    let rows = (n * FRIDGE_BINS) as u64;
    d.until(&idle, rows, "histograms not read out", |o| {
        watch(o);
        Ok(o.ro_valid && o.ro_last)
    })?;
    let cycles = d.cycles();
    if dropped != 0 {
        return Err(format!("{}: {dropped} samples dropped with the consumer always ready", M::NAME));
    }
    // The insertion counters are not read out: each counts the requests routed to its fridge.
    let index = FridgeIndex::new(cfg);
    let mut insertions = vec![0u32; n];
    for p in packets.iter().filter(|p| !p.response) {
        let k = index.locate(p.id).0;
        insertions[k] = insertions[k].wrapping_add(1);
    }
    let run = FridgeRun { samples, histograms: hist, saturated, hist_overflow: overflow, insertions };
    Ok((run, cycles))
}

/// The fridge run of `packets` on a Verilated core (see [`check_rtl_config`])
/// and the cycles taken.
pub fn rtl_fridge_run(cfg: &FridgeConfig, packets: &[FridgePacket]) -> Result<(FridgeRun, u64), String> {
    check_rtl_config(cfg)?;
    if runs(&FridgeDefault::config(), cfg) {
        run_on::<FridgeDefault>(cfg, packets)
    } else if runs(&FridgeSmall::config(), cfg) {
        run_on::<FridgeSmall>(cfg, packets)
    } else {
        run_on::<FridgeThree>(cfg, packets)
    }
}

/// [`crate::CoreRtl`] for a Verilated fridge core (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::fridge::FridgeConfig,
            netmeas_sim::fridge::FridgeInputs,
            netmeas_sim::fridge::FridgeOutputs,
            |i| $tin {
                reset: P::from_u128(i.reset as u128),
                s_valid: P::from_u128(i.valid as u128),
                s_id: P::from_u128(i.id as u128),
                s_response: P::from_u128(i.response as u128),
                s_ts: P::from_u128((i.ts & ((1 << 48) - 1)) as u128),
                flip: P::from_u128(i.flip as u128),
                csr_we: P::from_u128(i.csr_we as u128),
                csr_re: P::from_u128(i.csr_re as u128),
                csr_addr: P::from_u128((i.csr_addr & 31) as u128),
                csr_wdata: P::from_u128(i.csr_wdata as u128),
                m_smp_ready: P::from_u128(i.smp_ready as u128),
                m_ro_ready: P::from_u128(i.ro_ready as u128),
                ovf_clear: P::from_u128(i.ovf_clear as u128),
            },
            |o| netmeas_sim::fridge::FridgeOutputs {
                ready: o.s_ready.to_u128() != 0,
                flip_pending: o.flip_pending.to_u128() != 0,
                epoch: o.epoch.to_u128() != 0,
                smp_valid: o.m_smp_valid.to_u128() != 0,
                smp: netmeas_sim::fridge::FridgeSample {
                    fridge: o.m_smp_fridge.to_u128() as u8,
                    delay: o.m_smp_delay.to_u128() as u64,
                    x: o.m_smp_x.to_u128() as u32,
                },
                smp_dropped: o.smp_dropped.to_u128() as u32,
                ro_valid: o.m_ro_valid.to_u128() != 0,
                ro_row: o.m_ro_row.to_u128() as u32,
                ro_data: netmeas_sim::fridge::HistBin {
                    count: o.m_ro_count.to_u128() as u32,
                    wsum: o.m_ro_wsum.to_u128() as u64,
                    w2sum: o.m_ro_w2sum.to_u128() as u64,
                },
                ro_last: o.m_ro_last.to_u128() != 0,
                ovf_sticky: o.ovf_sticky.to_u128() != 0,
                saturated: o.saturated.to_u128() as u32,
                csr_rdata: o.csr_rdata.to_u128() as u32,
            }
        );
    };
}
pub(crate) use core_rtl;
