//! The SVBF store's shipped-testbench vectors (`docs/cores/svbf.md`):
//! packets on three clocks in four, one in five repeating one of the last
//! four keys (back-to-back inserts into one word), latencies across the
//! boundary registers and now and then near 2^32; after each reset the
//! boundary registers are written (increasing), later one clock in 512 a
//! register is rewritten (sometimes with anything); a flip one clock in 64;
//! queries on two clocks in three, mostly for keys of the frozen epoch; the
//! held frozen copy released once the query port has taken queries for
//! [`QUERY_CLOCKS`] clocks (it opens when the refined center table of the
//! held epoch is complete); the center read-out stalling one clock in
//! three; two resets. Answered by the
//! golden per-clock model [`SvbfCycle`] (MAPLE §3-§4: the partitioned store
//! and its query port).

use crate::shipped_testbench::{Tally, VectorCycle, Vectors, reset_at};
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::svbf::SvbfConfig;
use netmeas_sim::svbf::cycle::{SVBF_REG_NBOUNDS, SvbfCycle, SvbfInputs};

/// Clocks of an SVBF store's vectors.
const CYCLES: usize = 5000;
/// Clocks the query port is ready (`q_ready`) before the vectors release the held copy.
const QUERY_CLOCKS: u32 = 150;

/// The vectors of `cfg`, `cycles` clocks long (by default [`CYCLES`]).
pub fn svbf_vectors(cfg: &SvbfConfig, seed: u64, cycles: Option<usize>) -> Vectors {
    let n = cycles.unwrap_or(CYCLES);
    let mut golden = SvbfCycle::new(cfg);
    let mut rng = SplitMix64::new(seed);
    let (mut tally, mut cycles) = (Tally::default(), Vec::with_capacity(n));
    let (mut live, mut frozen, mut tag, mut reset_q) = (Vec::<u64>::new(), Vec::<u64>::new(), 0u16, false);
    let (mut ready_for, mut setup) = (0u32, 0u32);
    for k in 0..n {
        let mut i = SvbfInputs::default();
        if k > 0 {
            i.reset = reset_at(k, n);
            i.flip = rng.chance(1, 64);
            i.release = ready_for >= QUERY_CLOCKS;
            i.ro_ready = rng.chance(2, 3);
            i.ovf_clear = rng.chance(1, 512);
            if rng.chance(3, 4) {
                i.valid = true;
                i.key = match live.len() {
                    0 => rng.next_u64(),
                    l if rng.chance(1, 5) => live[l - 1 - rng.below(l.min(4) as u64) as usize],
                    _ => rng.next_u64(),
                };
                i.latency = if rng.chance(1, 32) { u32::MAX - rng.below(4) as u32 } else { rng.below(4200) as u32 };
            }
            if i.reset {
                setup = 0;
            } else if setup <= SVBF_REG_NBOUNDS {
                // Boundaries 64, 128, …, then their number.
                i.csr_we = true;
                i.csr_addr = setup;
                i.csr_wdata = if setup == SVBF_REG_NBOUNDS { 62 } else { (setup + 1) * 64 };
                setup += 1;
            } else if rng.chance(1, 512) {
                i.csr_we = true;
                i.csr_addr = rng.below(64) as u32;
                i.csr_wdata = if i.csr_addr == SVBF_REG_NBOUNDS || rng.chance(1, 10) {
                    rng.next_u64() as u32
                } else {
                    i.csr_addr * 64 + rng.below(64) as u32
                };
            }
            if rng.chance(2, 3) {
                i.q_valid = true;
                i.q_key = if !frozen.is_empty() && rng.chance(2, 3) {
                    frozen[rng.below(frozen.len() as u64) as usize]
                } else {
                    rng.next_u64()
                };
                i.q_tag = tag;
                tag = tag.wrapping_add(1);
            }
        }
        let o = golden.step(&i);
        // Counted while held (a release holds `q_ready` low until the hold ends).
        ready_for = match (o.held, o.q_ready) {
            (true, true) => ready_for + 1,
            (true, false) => ready_for,
            (false, _) => 0,
        };
        // What the core takes in the clock after a reset is dropped as well.
        let live_clock = !i.reset && !reset_q;
        reset_q = i.reset;
        if !live_clock {
            live.clear();
            frozen.clear();
        } else {
            if i.valid && o.ready {
                live.push(i.key);
                if live.len() > 16 {
                    live.remove(0);
                }
            }
            if i.flip && o.flip_ready {
                frozen = std::mem::take(&mut live);
            }
        }
        tally.count("resets", i.reset);
        tally.count("packets", live_clock && i.valid && o.ready);
        tally.count("register writes", live_clock && i.csr_we);
        tally.count("flips taken", live_clock && i.flip && o.flip_ready);
        tally.count("queries taken", live_clock && i.q_valid && o.q_ready);
        tally.count("single-match answers", o.r_valid && o.r_kind == 1);
        tally.count("multi-match answers", o.r_valid && o.r_kind == 2);
        tally.count("centers read", live_clock && o.ro_valid && i.ro_ready);
        tally.count("read-out stalls", live_clock && o.ro_valid && !i.ro_ready);
        let mut c = VectorCycle::default();
        c.input("reset", i.reset)
            .input("s_valid", i.valid)
            .input("s_key", i.key)
            .input("s_latency", i.latency)
            .input("csr_we", i.csr_we)
            .input("csr_addr", i.csr_addr)
            .input("csr_wdata", i.csr_wdata)
            .input("flip", i.flip)
            .input("release_frozen", i.release)
            .input("q_valid", i.q_valid)
            .input("q_key", i.q_key)
            .input("q_tag", i.q_tag)
            .input("m_ro_ready", i.ro_ready)
            .input("ovf_clear", i.ovf_clear);
        c.output("s_ready", o.ready)
            .output("flip_ready", o.flip_ready)
            .output("live_epoch", o.epoch)
            .output("held", o.held)
            .output("q_ready", o.q_ready)
            .output("r_valid", o.r_valid)
            .output("r_tag", o.r_tag)
            .output("r_kind", o.r_kind)
            .output("r_center", o.r_center)
            .output("r_count", o.r_count)
            .output("r_latency", o.r_latency)
            .output("r_candidates", o.r_candidates)
            .output("m_ro_valid", o.ro_valid)
            .output_when("m_ro_center", o.ro_valid, o.ro_center)
            .output_when("m_ro_count", o.ro_valid, o.ro_count)
            .output_when("m_ro_sum", o.ro_valid, o.ro_sum)
            .output_when("m_ro_last", o.ro_valid, o.ro_last)
            .output("ovf_sticky", o.ovf_sticky);
        cycles.push(c);
    }
    tally.into_vectors(cycles)
}
