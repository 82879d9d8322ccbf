//! The DBM core's shipped-testbench vectors (`docs/cores/dbm.md`): packets a
//! small fraction of a period apart, one in five at the same time as the
//! last, one in 500 past up to three periods (period ends and skipped
//! periods), lengths repeated three times in five (ties between merge
//! candidates), one in 500 near 2^32 (saturation), over three flows; the time
//! input closes periods between packets, the read-out consumer stalls one
//! clock in two (back-pressure reaches `s_ready` while a period streams out).
//! Answered by the golden per-clock model [`DbmCycle`] (Basat et al. §3,
//! Algorithm 1, per-packet DBM-mm).

use crate::common::bandwidth_vectors::{BwStimulus, bandwidth_inputs};
use crate::shipped_testbench::{Tally, VectorCycle, Vectors};
use netmeas_sim::dbm::{DbmConfig, DbmCycle};

/// The vectors of `cfg` (by default three read-outs' worth of clocks and 5000 more).
pub fn dbm_vectors(cfg: &DbmConfig, seed: u64, cycles: Option<usize>) -> Result<Vectors, String> {
    let n = cycles.unwrap_or(3 * cfg.buckets + 5000);
    let mut golden = DbmCycle::new(cfg).map_err(|e| e.to_string())?;
    let mut stim = BwStimulus::new(seed);
    let (mut tally, mut cycles, mut len) = (Tally::default(), Vec::with_capacity(n), 64u32);
    let period = cfg.period_ticks;
    for k in 0..n {
        let i = stim.next(k, n, |rng, ts| {
            if rng.chance(1, 500) {
                *ts += rng.below(3 * period);
            } else if !rng.chance(1, 5) {
                *ts += rng.below(period / 2048 + 2);
            }
            if !rng.chance(3, 5) {
                len = if rng.chance(1, 2) { 1 + rng.below(4) as u32 } else { 40 + rng.below(1500) as u32 };
            }
            let l = if rng.chance(1, 500) { u32::MAX - rng.below(3) as u32 } else { len };
            (l, rng.below(3) as u32)
        });
        let o = golden.step(&i);
        stim.observe(&i, o.ready);
        let live = !i.reset;
        let bucket = o.ro_valid && !o.ro_end;
        tally.count("resets", i.reset);
        tally.count("packets", live && i.valid && o.ready);
        tally.count("clocks a packet waited", live && i.valid && !o.ready);
        tally.count("buckets read", live && bucket && i.ro_ready);
        tally.count("read-out stalls", live && o.ro_valid && !i.ro_ready);
        tally.count("periods read", live && o.ro_valid && o.ro_end && i.ro_ready);
        let b = &o.ro_bucket;
        let mut c = VectorCycle::default();
        bandwidth_inputs(&mut c, &i);
        c.output("s_ready", o.ready)
            .output("m_ro_valid", o.ro_valid)
            .output("m_ro_end", o.ro_end)
            .output_when("m_ro_first", bucket, b.first)
            .output_when("m_ro_last_ts", bucket, b.last)
            .output_when("m_ro_mass", bucket, b.mass)
            .output_when("m_ro_n", bucket, b.n)
            .output_when("m_ro_sumsq", bucket, b.sumsq)
            .output_when("m_ro_max", bucket, b.max)
            .output_when("m_ro_min", bucket, b.min)
            .output_when("m_ro_flow", bucket, b.flow)
            .output_when("m_ro_flow_count", bucket, b.flow_count)
            .output("period_index", o.period_index)
            .output("period_packets", o.period_packets)
            .output("period_merges", o.period_merges)
            .output("period_tail_joins", o.period_tail_joins)
            .output("period_key_saturated", o.period_key_saturated)
            .output("period_mass_saturated", o.period_mass_saturated)
            .output("period_interval_saturated", o.period_interval_saturated);
        cycles.push(c);
    }
    Ok(tally.into_vectors(cycles))
}
