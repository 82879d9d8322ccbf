//! The fridge core's shipped-testbench vectors (`docs/cores/fridge.md`):
//! after each reset every configuration register is written with the
//! config's value (the register map's reset column); then requests and
//! responses on nine clocks in ten (a response one clock in three, mostly to
//! one of the last sixteen requests, often right behind it; one request in
//! eight with one of eight hot IDs: overwrites of one entry), a flip one
//! clock in 1500 (by the FLIP register, the `flip` input, or both), random
//! register reads (the histogram row window among them), and the sample and
//! read-out consumers stalling one clock in four. Answered by the golden
//! per-clock model [`FridgeCycle`] (Chen et al. §3-§4).

use crate::shipped_testbench::{Tally, VectorCycle, Vectors, reset_at};
use netmeas_sim::fridge::{FRIDGE_REG_FLIP, FridgeConfig, FridgeCycle, FridgeInputs, fridge_config_registers};
use netmeas_sim::prng::SplitMix64;

/// The vectors of `cfg`, `cycles` clocks long (by default three clears of
/// every entry and 4000 clocks more: each reset clears the entries before
/// the core takes a packet).
pub fn fridge_vectors(cfg: &FridgeConfig, seed: u64, cycles: Option<usize>) -> Vectors {
    const MASK: u64 = (1 << 48) - 1;
    let n = cycles.unwrap_or(3 * cfg.entries.iter().sum::<usize>() + 4000);
    let setup: Vec<(u32, u32)> = fridge_config_registers(cfg)
        .iter()
        .filter(|r| r.addr != FRIDGE_REG_FLIP)
        .map(|r| (r.addr as u32, r.reset as u32))
        .collect();
    let mut golden = FridgeCycle::new(cfg);
    let mut rng = SplitMix64::new(seed);
    let hot: Vec<u32> = (0..8).map(|_| rng.next_u64() as u32).collect();
    let mut recent: Vec<u32> = (0..16).map(|_| rng.next_u64() as u32).collect();
    let (mut tally, mut cycles, mut clock, mut step, mut last_epoch) =
        (Tally::default(), Vec::with_capacity(n), rng.below(1 << 30), setup.len(), false);
    for k in 0..n {
        clock = (clock + rng.below(4)) & MASK;
        let i = if k == 0 {
            FridgeInputs::default()
        } else {
            let reset = reset_at(k, n);
            let response = rng.chance(1, 3);
            let id = if response {
                recent[15 - (rng.next_u64().trailing_zeros().min(15) as usize)]
            } else {
                let id = if rng.chance(1, 8) { hot[rng.below(8) as usize] } else { rng.next_u64() as u32 };
                recent.rotate_left(1);
                recent[15] = id;
                id
            };
            let flip = rng.chance(1, 1500);
            let flip_how = rng.below(3);
            let (mut csr_we, mut csr_addr, mut csr_wdata) = (flip && flip_how != 1, FRIDGE_REG_FLIP, 0);
            if reset {
                step = 0;
            } else if step < setup.len() && !csr_we {
                (csr_we, csr_addr, csr_wdata) = (true, setup[step].0, setup[step].1);
                step += 1;
            }
            FridgeInputs {
                reset,
                valid: rng.chance(9, 10),
                id,
                response,
                ts: clock,
                flip: flip && flip_how != 0,
                csr_we,
                csr_addr: if csr_we { csr_addr } else { rng.below(32) as u32 },
                csr_wdata,
                csr_re: rng.chance(1, 8),
                smp_ready: rng.chance(3, 4),
                ro_ready: rng.chance(3, 4),
                ovf_clear: rng.chance(1, 512),
            }
        };
        let o = golden.step(&i);
        let live = !i.reset;
        tally.count("resets", i.reset);
        tally.count("requests", live && i.valid && o.ready && !i.response);
        tally.count("responses", live && i.valid && o.ready && i.response);
        tally.count("register writes", live && i.csr_we);
        tally.count("register reads", live && i.csr_re);
        tally.count("flips", o.epoch != last_epoch);
        tally.count("samples taken", live && o.smp_valid && i.smp_ready);
        tally.count("sample stalls", live && o.smp_valid && !i.smp_ready);
        tally.count("histogram rows read", live && o.ro_valid && i.ro_ready);
        tally.count("read-out stalls", live && o.ro_valid && !i.ro_ready);
        last_epoch = o.epoch;
        let mut c = VectorCycle::default();
        c.input("reset", i.reset)
            .input("s_valid", i.valid)
            .input("s_id", i.id)
            .input("s_response", i.response)
            .input("s_ts", i.ts)
            .input("flip", i.flip)
            .input("csr_we", i.csr_we)
            .input("csr_re", i.csr_re)
            .input("csr_addr", i.csr_addr)
            .input("csr_wdata", i.csr_wdata)
            .input("m_smp_ready", i.smp_ready)
            .input("m_ro_ready", i.ro_ready)
            .input("ovf_clear", i.ovf_clear);
        c.output("s_ready", o.ready)
            .output("csr_rdata", o.csr_rdata)
            .output("m_smp_valid", o.smp_valid)
            .output_when("m_smp_fridge", o.smp_valid, o.smp.fridge)
            .output_when("m_smp_delay", o.smp_valid, o.smp.delay)
            .output_when("m_smp_x", o.smp_valid, o.smp.x)
            .output("smp_dropped", o.smp_dropped)
            .output("flip_pending", o.flip_pending)
            .output("epoch", o.epoch)
            .output("m_ro_valid", o.ro_valid)
            .output_when("m_ro_row", o.ro_valid, o.ro_row)
            .output_when("m_ro_count", o.ro_valid, o.ro_data.count)
            .output_when("m_ro_wsum", o.ro_valid, o.ro_data.wsum)
            .output_when("m_ro_w2sum", o.ro_valid, o.ro_data.w2sum)
            .output_when("m_ro_last", o.ro_valid, o.ro_last)
            .output("ovf_sticky", o.ovf_sticky)
            .output("saturated", o.saturated);
        cycles.push(c);
    }
    tally.into_vectors(cycles)
}
