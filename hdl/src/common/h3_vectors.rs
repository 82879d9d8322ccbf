//! The H3 unit's shipped-testbench vectors (`docs/cores/h3.md`): 4096 clocks
//! of random keys, a key on three clocks in four, one in eight a repeat of
//! the last; answered by the golden per-clock model [`H3Cycle`] (Carter and
//! Wegman's H3 class, as the LDA paper §V and the RDA paper hash).

use crate::shipped_testbench::{Tally, VectorCycle, Vectors};
use netmeas_sim::h3::{H3Config, H3Cycle, H3Inputs};
use netmeas_sim::prng::SplitMix64;

/// Clocks of the H3 unit's vectors.
const CYCLES: usize = 4096;

/// The vectors of `cfg`, `cycles` clocks long (by default [`CYCLES`]).
pub fn h3_vectors(cfg: &H3Config, seed: u64, cycles: Option<usize>) -> Vectors {
    let n = cycles.unwrap_or(CYCLES);
    let mut golden = H3Cycle::new(cfg);
    let mut rng = SplitMix64::new(seed);
    let key_mask = if cfg.key_bits >= 128 { u128::MAX } else { (1u128 << cfg.key_bits) - 1 };
    let (mut tally, mut cycles, mut key) = (Tally::default(), Vec::with_capacity(n), 0u128);
    for k in 0..n {
        let repeat = rng.chance(1, 8);
        if !repeat {
            key = rng.next_u128() & key_mask;
        }
        let i = if k == 0 { H3Inputs::default() } else { H3Inputs { valid: rng.chance(3, 4), key } };
        let o = golden.step(&i);
        tally.count("keys hashed", i.valid);
        tally.count("repeated keys", i.valid && repeat);
        let mut c = VectorCycle::default();
        c.input("s_valid", i.valid).input("s_key", i.key);
        c.output("m_valid", o.valid).output_when("m_hash", o.valid, o.hash);
        cycles.push(c);
    }
    tally.into_vectors(cycles)
}
