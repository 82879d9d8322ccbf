//! The EXPB core's shipped-testbench vectors (`docs/cores/expb.md`): each
//! packet 0-6 base intervals after the last (the core closes one interval a
//! clock, so `s_ready` falls behind every gap: the documented
//! back-pressure), one in 300 of a length near 2^32 (saturation), over four
//! flows; the time input closes intervals between packets, the read-out
//! consumer stalls one clock in two. A period of up to about a thousand
//! base intervals ends and reads out within the run (`configs/expb-period-80ms.toml`);
//! the default's (25 600 base intervals, about 92 000 clocks at some 3.6
//! clocks per interval) does not. Answered by the golden per-clock model
//! [`ExpbCycle`] (Basat et al. §4.1, exponential buckets).

use crate::common::bandwidth_vectors::{BwStimulus, bandwidth_inputs};
use crate::shipped_testbench::{Tally, VectorCycle, Vectors};
use netmeas_sim::dbm::{ExpbConfig, ExpbCycle};

/// The vectors of `cfg`, `cycles` clocks long (by default three periods at
/// four clocks per base interval and 4000 clocks more, within 6000..=12000).
pub fn expb_vectors(cfg: &ExpbConfig, seed: u64, cycles: Option<usize>) -> Result<Vectors, String> {
    let per_period = (cfg.period_ticks / cfg.base_ticks) as usize;
    let n = cycles.unwrap_or((12 * per_period + 4000).clamp(6000, 12_000));
    let mut golden = ExpbCycle::new(cfg).map_err(|e| e.to_string())?;
    let mut stim = BwStimulus::new(seed);
    let (mut tally, mut cycles) = (Tally::default(), Vec::with_capacity(n));
    let base = cfg.base_ticks;
    for k in 0..n {
        let i = stim.next(k, n, |rng, ts| {
            *ts += rng.below(6 * base + 1);
            let len = if rng.chance(1, 300) { u32::MAX - rng.below(3) as u32 } else { 40 + rng.below(1500) as u32 };
            (len, rng.below(4) as u32)
        });
        let o = golden.step(&i);
        stim.observe(&i, o.ready);
        let live = !i.reset;
        tally.count("resets", i.reset);
        tally.count("packets", live && i.valid && o.ready);
        tally.count("clocks a packet waited", live && i.valid && !o.ready);
        tally.count("scales read", live && o.ro_valid && i.ro_ready);
        tally.count("read-out stalls", live && o.ro_valid && !i.ro_ready);
        tally.count("periods read", live && o.ro_valid && i.ro_ready && o.ro_last);
        let mut c = VectorCycle::default();
        bandwidth_inputs(&mut c, &i);
        c.output("s_ready", o.ready)
            .output("m_ro_valid", o.ro_valid)
            .output_when("m_ro_scale", o.ro_valid, o.ro_scale)
            .output_when("m_ro_count", o.ro_valid, o.ro_data.count)
            .output_when("m_ro_sum", o.ro_valid, o.ro_data.sum)
            .output_when("m_ro_sumsq", o.ro_valid, o.ro_data.sumsq)
            .output_when("m_ro_max", o.ro_valid, o.ro_data.max)
            .output_when("m_ro_max_index", o.ro_valid, o.ro_data.max_index)
            .output_when("m_ro_max_flow", o.ro_valid, o.ro_data.max_flow)
            .output_when("m_ro_last", o.ro_valid, o.ro_last)
            .output("period_index", o.period_index)
            .output("period_packets", o.period_packets)
            .output("period_saturated", o.period_saturated)
            .output("live_period", o.live_period);
        cycles.push(c);
    }
    Ok(tally.into_vectors(cycles))
}
