//! The counter bank's shipped-testbench vectors (`docs/cores/counter-bank.md`):
//! updates on nine clocks in ten, half of them to one of the last four rows
//! updated (a hazard at every forwarding distance of the read-modify-write
//! pipeline), wide count operands now and then (overflows), flips requested
//! one clock in 32, the read-out consumer stalling one clock in four, and two
//! resets; answered by the golden per-clock model [`CounterBankCycle`]
//! (Kompella et al. §V's counter memory).

use crate::shipped_testbench::{Tally, VectorCycle, Vectors, reset_at};
use netmeas_sim::counter_bank::{CountSum, CounterBankConfig, CounterBankCycle, CounterBankInputs};
use netmeas_sim::prng::SplitMix64;

/// The vectors of `cfg` (by default four read-outs' worth of clocks and 2000 more).
pub fn counter_bank_vectors(cfg: &CounterBankConfig, seed: u64, cycles: Option<usize>) -> Vectors {
    let n = cycles.unwrap_or(4 * cfg.rows + 2000);
    let mut golden = CounterBankCycle::<CountSum>::new(cfg.rows, cfg.layout());
    let mut rng = SplitMix64::new(seed);
    let mask = |b: usize| if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
    let (mut tally, mut cycles, mut recent) = (Tally::default(), Vec::with_capacity(n), [0u32; 4]);
    let mut prev_taken: [Option<u32>; 4] = [None; 4];
    for k in 0..n {
        let i = if k == 0 {
            CounterBankInputs::default()
        } else {
            let row = if rng.chance(1, 2) { recent[rng.below(4) as usize] } else { rng.below(cfg.rows as u64) as u32 };
            let count = if rng.chance(1, 64) { rng.next_u64() & mask(cfg.count_bits) } else { 1 };
            CounterBankInputs {
                reset: reset_at(k, n),
                upd_valid: rng.chance(9, 10),
                upd_row: row,
                upd_op: CountSum { count, tsum: rng.next_u64() & mask(cfg.tsum_bits) },
                flip: rng.chance(1, 32),
                ro_ready: rng.chance(3, 4),
                ovf_clear: rng.chance(1, 256),
                ..Default::default()
            }
        };
        let o = golden.step(&i);
        let live = !i.reset;
        let taken = live && i.upd_valid && o.upd_ready;
        tally.count("resets", i.reset);
        tally.count("updates", taken);
        tally.count("updates to a row updated 1-4 clocks before", taken && prev_taken.contains(&Some(i.upd_row)));
        tally.count("flips taken", live && i.flip && o.flip_ready);
        tally.count("rows read", live && o.ro_valid && i.ro_ready);
        tally.count("read-out stalls", live && o.ro_valid && !i.ro_ready);
        tally.count("read-outs completed", live && o.ro_valid && i.ro_ready && o.ro_last);
        tally.count("clocks with the overflow flag up", o.ovf_sticky);
        if i.upd_valid {
            recent.rotate_right(1);
            recent[0] = i.upd_row;
        }
        prev_taken.rotate_right(1);
        prev_taken[0] = taken.then_some(i.upd_row);
        let mut c = VectorCycle::default();
        c.input("reset", i.reset)
            .input("s_upd_valid", i.upd_valid)
            .input("s_upd_row", i.upd_row)
            .input("s_upd_count", i.upd_op.count)
            .input("s_upd_tsum", i.upd_op.tsum)
            .input("flip", i.flip)
            .input("m_ro_ready", i.ro_ready)
            .input("ovf_clear", i.ovf_clear);
        c.output("s_upd_ready", o.upd_ready)
            .output("flip_ready", o.flip_ready)
            .output("epoch", o.epoch)
            .output("m_ro_valid", o.ro_valid)
            .output_when("m_ro_row", o.ro_valid, o.ro_row)
            .output_when("m_ro_count", o.ro_valid, o.ro_data.count)
            .output_when("m_ro_tsum", o.ro_valid, o.ro_data.tsum)
            .output_when("m_ro_last", o.ro_valid, o.ro_last)
            .output("ovf_sticky", o.ovf_sticky);
        cycles.push(c);
    }
    tally.into_vectors(cycles)
}
