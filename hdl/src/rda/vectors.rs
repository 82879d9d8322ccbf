//! The RDA core's shipped-testbench vectors (`docs/cores/rda.md`): after
//! each reset the interval length δ and the start t_0 are written; packets
//! arrive on nine clocks in ten on a clock that advances 0-3 ticks a clock,
//! one in four with one of eight hot IDs (back-to-back updates of one
//! bucket), one in 64 late (out of its interval); the time input is sampled
//! one clock in two; δ is two thirds of a read-out at full speed, so an
//! interval can end while the last one still streams out (the documented
//! back-pressure on `s_ready`); registers are rewritten now and then and the
//! read-out consumer stalls one clock in four. Answered by the golden
//! per-clock model [`RdaCycle`] (Fu et al. §IV, §VII).

use crate::shipped_testbench::{Tally, VectorCycle, Vectors, reset_at};
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::rda::{
    RDA_REG_DELTA, RDA_REG_GUARD, RDA_REG_SAMPLE_LZ, RDA_REG_T0_HI, RDA_REG_T0_LO, RdaConfig, RdaCycle, RdaInputs,
};

/// The vectors of `cfg` (by default three read-outs' worth of clocks and 2000 more).
pub fn rda_vectors(cfg: &RdaConfig, seed: u64, cycles: Option<usize>) -> Vectors {
    const MASK: u64 = (1 << 48) - 1;
    let total = cfg.banks * cfg.buckets;
    let n = cycles.unwrap_or(3 * total + 2000);
    let delta = total as u32;
    let mut golden = RdaCycle::new(cfg);
    let mut rng = SplitMix64::new(seed);
    let hot: Vec<u64> = (0..8).map(|_| rng.next_u64()).collect();
    let (mut tally, mut cycles) = (Tally::default(), Vec::with_capacity(n));
    let (mut clock, mut setup, mut last_id, mut prev_interval) = (rng.below(1 << 20), 0usize, None, 0u32);
    for k in 0..n {
        clock = (clock + rng.below(4)) & MASK;
        let i = if k == 0 {
            RdaInputs::default()
        } else {
            let reset = reset_at(k, n);
            let id = if rng.chance(1, 4) { hot[rng.below(8) as usize] } else { rng.next_u64() };
            let ts = if rng.chance(1, 64) { clock.wrapping_sub(rng.below(1000)) & MASK } else { clock };
            let mut i = RdaInputs {
                reset,
                valid: rng.chance(9, 10),
                id,
                ts,
                now_valid: rng.chance(1, 2),
                now: (clock + rng.below(500)) & MASK,
                csr_we: false,
                csr_addr: 0,
                csr_wdata: 0,
                ro_ready: rng.chance(3, 4),
                ovf_clear: rng.chance(1, 512),
            };
            if reset {
                setup = 0;
            } else if setup < 3 {
                // δ, then t_0 = the clock (a restart): the first interval starts now.
                let (addr, data) =
                    [(RDA_REG_DELTA, delta), (RDA_REG_T0_LO, clock as u32), (RDA_REG_T0_HI, (clock >> 32) as u32)]
                        [setup];
                i = RdaInputs { valid: false, csr_we: true, csr_addr: addr, csr_wdata: data, ..i };
                setup += 1;
            } else if rng.chance(1, 1024) {
                let addr = [RDA_REG_GUARD, RDA_REG_SAMPLE_LZ][rng.below(2) as usize];
                let data = if addr == RDA_REG_GUARD { rng.below(256) as u32 } else { rng.below(3) as u32 };
                i = RdaInputs { csr_we: true, csr_addr: addr, csr_wdata: data, ..i };
            }
            i
        };
        let o = golden.step(&i);
        let live = !i.reset;
        let taken = live && i.valid && o.ready;
        tally.count("resets", i.reset);
        tally.count("packets", taken);
        tally.count("back-to-back packets with one ID", taken && last_id == Some(i.id));
        tally.count("register writes", live && i.csr_we);
        tally.count("interval boundaries", o.live_interval == prev_interval.wrapping_add(1));
        tally.count("clocks with s_ready low", !o.ready);
        tally.count("buckets read", live && o.ro_valid && i.ro_ready);
        tally.count("read-out stalls", live && o.ro_valid && !i.ro_ready);
        tally.count("read-outs completed", live && o.ro_valid && i.ro_ready && o.ro_last);
        last_id = taken.then_some(i.id);
        prev_interval = o.live_interval;
        let mut c = VectorCycle::default();
        c.input("reset", i.reset)
            .input("s_valid", i.valid)
            .input("s_id", i.id)
            .input("s_ts", i.ts)
            .input("now_valid", i.now_valid)
            .input("now", i.now)
            .input("csr_we", i.csr_we)
            .input("csr_addr", i.csr_addr)
            .input("csr_wdata", i.csr_wdata)
            .input("m_ro_ready", i.ro_ready)
            .input("ovf_clear", i.ovf_clear);
        c.output("s_ready", o.ready)
            .output("m_ro_valid", o.ro_valid)
            .output_when("m_ro_bank", o.ro_valid, o.ro_bank)
            .output_when("m_ro_row", o.ro_valid, o.ro_row)
            .output_when("m_ro_id", o.ro_valid, o.ro_data.id)
            .output_when("m_ro_tsum", o.ro_valid, o.ro_data.tsum)
            .output_when("m_ro_count", o.ro_valid, o.ro_data.count)
            .output_when("m_ro_last", o.ro_valid, o.ro_last)
            .output("frozen_interval", o.frozen_interval)
            .output("frozen_packets", o.frozen_packets)
            .output("frozen_sampled", o.frozen_sampled)
            .output("live_interval", o.live_interval)
            .output("out_of_interval", o.out_of_interval)
            .output("live_epoch", o.live_epoch)
            .output("ovf_sticky", o.ovf_sticky);
        cycles.push(c);
    }
    tally.into_vectors(cycles)
}
