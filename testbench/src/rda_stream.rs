//! Whole measurement intervals through Verilated RDA cores: the sender's and
//! the receiver's streams of {ID, timestamp} each drive their own instance of
//! the exported core at one packet per clock, on two threads. The interval
//! registers (`T0`, `DELTA`, `GUARD`, `SAMPLE_LZ`) are written at run time; the
//! cores close interval 0 by themselves when a timestamp or `now` crosses its
//! end (Fu et al. §III-A) and the frozen copy is read out bank by bank.

use crate::driver::Driver;
use crate::models::{RdaDefault, RdaSmall};
use crate::{CoreRtl, RdaRtl, RtlRunCycles, both_ends};
use netmeas_sim::rda::run::closing_time;
use netmeas_sim::rda::{
    IntervalTrace, RDA_REG_DELTA, RDA_REG_GUARD, RDA_REG_SAMPLE_LZ, RDA_REG_T0_HI, RDA_REG_T0_LO, RDA_TS_BITS,
    RdaConfig, RdaInputs, RdaOutputs, RdaPair, RdaReadout, RdaSynopsis, ts_ge,
};

/// Whether model config `built` runs `cfg`: same geometry, sum width and hash
/// seed (baked into the netlist); the interval and sampling registers are
/// written at run time.
fn runs(built: &RdaConfig, cfg: &RdaConfig) -> bool {
    built.banks == cfg.banks
        && built.buckets == cfg.buckets
        && built.tsum_bits == cfg.tsum_bits
        && built.seed == cfg.seed
        && built.read_stages == cfg.read_stages
}

/// The configs the Verilated RDA models were built from.
pub fn rtl_rda_configs() -> Vec<RdaConfig> {
    vec![RdaDefault::config(), RdaSmall::config()]
}

const TS_MASK: u64 = (1 << RDA_TS_BITS) - 1;

/// Interval 0 of a fresh Verilated core `M` configured as `cfg` by register
/// writes, fed `stream` (ID, timestamp) at one packet per clock; `now` then
/// advances to `now_end`. Returns interval 0's synopsis (all zero if the
/// interval saw no packet) and the cycles taken.
pub fn rtl_synopsis<M: RdaRtl>(
    cfg: &RdaConfig,
    stream: impl Iterator<Item = (u64, u64)>,
    now_end: u64,
) -> Result<(RdaSynopsis, u64), String> {
    if !runs(&M::config(), cfg) {
        return Err(format!("{} was built for another RDA geometry, sum width or hash seed", M::NAME));
    }
    let mut d = Driver::<M>::new();
    let mut readout = RdaReadout::new(cfg);
    let mut found: Option<RdaSynopsis> = None;
    // Every output goes through the read-out (the core closes intervals by
    // itself); whether interval 0 has been read out.
    let mut watch = |o: &RdaOutputs| -> Result<bool, String> {
        if let Some(s) = readout.take(o).map_err(|e| format!("{}: {e}", M::NAME))?
            && s.interval == 0
        {
            found = Some(s);
        }
        Ok(found.is_some())
    };
    let idle = RdaInputs { ro_ready: true, ..Default::default() };
    watch(&d.step(&RdaInputs { reset: true, ..idle }))?;
    d.until(&idle, 0, "no ready after reset", |o| watch(o).map(|_| o.ready))?;
    // DELTA, GUARD and SAMPLE_LZ first; the T0_HI write restarts the clock at t_0.
    for (addr, data) in [
        (RDA_REG_DELTA, cfg.interval_ticks as u32),
        (RDA_REG_GUARD, cfg.guard_ticks as u32),
        (RDA_REG_SAMPLE_LZ, cfg.sample_prob_log2),
        (RDA_REG_T0_LO, cfg.t0 as u32),
        (RDA_REG_T0_HI, (cfg.t0 >> 32) as u32),
    ] {
        watch(&d.step(&RdaInputs { csr_we: true, csr_addr: addr, csr_wdata: data, ..idle }))?;
    }
    // Whether interval 0 holds a packet (the stream is in time order): only then does it flip.
    let end0 = (cfg.t0 + cfg.interval_ticks) & TS_MASK;
    let mut in_interval0 = false;
    let packets = stream.map(|(id, ts)| {
        in_interval0 |= ts_ge(ts, cfg.t0) && !ts_ge(ts, end0);
        RdaInputs { valid: true, id, ts, ..idle }
    });
    d.feed(packets, |o| watch(o).map(|_| o.ready))?;
    let close = RdaInputs { now_valid: true, now: now_end & TS_MASK, ..idle };
    let rows = (cfg.banks * cfg.buckets) as u64;
    d.until(&close, rows, "interval 0 not closed and read out", |o| {
        let read = watch(o)?;
        Ok(o.live_interval != 0 && (read || !in_interval0))
    })?;
    Ok((found.unwrap_or_else(|| RdaSynopsis::empty(cfg, 0)), d.cycles()))
}

fn pair_on<M: RdaRtl>(cfg: &RdaConfig, iv: &IntervalTrace) -> Result<(RdaPair, RtlRunCycles), String> {
    let now = closing_time(iv, cfg);
    let ((sender, receiver), cycles) = both_ends(
        || rtl_synopsis::<M>(cfg, iv.sender.iter().copied(), now),
        || rtl_synopsis::<M>(cfg, iv.receiver.iter().copied(), now),
    )?;
    Ok((RdaPair { sender, receiver }, cycles))
}

/// Checks that a Verilated core runs `cfg` (see [`rtl_rda_configs`]), with an
/// error that lists what was built otherwise.
pub fn check_rtl_config(cfg: &RdaConfig) -> Result<(), String> {
    cfg.validate().map_err(|e| e.to_string())?;
    if cfg.interval_ticks > u32::MAX as u64 || cfg.guard_ticks > u32::MAX as u64 {
        return Err("DELTA and GUARD are 32-bit registers".into());
    }
    if rtl_rda_configs().iter().any(|b| runs(b, cfg)) {
        return Ok(());
    }
    let built: Vec<String> = rtl_rda_configs()
        .iter()
        .map(|c| format!("{} x {} buckets, {}-bit sums, seed {:#x}", c.banks, c.buckets, c.tsum_bits, c.seed))
        .collect();
    Err(format!(
        "no Verilated RDA has this geometry, sum width and hash seed (interval and sampling registers may differ); built: {}",
        built.join("; ")
    ))
}

/// Sender and receiver synopses of interval 0 of `iv` from two Verilated cores
/// running in parallel; `cfg` is the cores' config for the interval
/// ([`IntervalTrace::core_config`]) and must pass [`check_rtl_config`].
pub fn rtl_pair(cfg: &RdaConfig, iv: &IntervalTrace) -> Result<(RdaPair, RtlRunCycles), String> {
    check_rtl_config(cfg)?;
    if runs(&RdaDefault::config(), cfg) { pair_on::<RdaDefault>(cfg, iv) } else { pair_on::<RdaSmall>(cfg, iv) }
}
