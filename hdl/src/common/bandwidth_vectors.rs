//! What the shipped-testbench vectors of the two bandwidth cores (EXPB and
//! DBM, Basat et al. §4) share: a packet offered and held until taken, the
//! time input, the read-out consumer and the reset plan; the cores differ in
//! how the next packet's timestamp, length and flow are drawn.

use crate::shipped_testbench::{VectorCycle, reset_at};
use netmeas_sim::dbm::BwInputs;
use netmeas_sim::prng::SplitMix64;

/// Largest timestamp on the 48-bit `s_ts` and `now` ports.
const TS_MAX: u64 = (1 << 48) - 1;

/// The bandwidth cores' stimulus: nine clocks in ten offer a packet (held
/// until taken), the time input is sampled one clock in two, the read-out
/// consumer stalls one clock in two.
pub struct BwStimulus {
    /// The random source.
    pub rng: SplitMix64,
    pending: Option<(u64, u32, u32)>,
    /// The packet clock (timestamps never go back).
    pub ts: u64,
}

impl BwStimulus {
    /// A stimulus drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { rng: SplitMix64::new(seed), pending: None, ts: 0 }
    }

    /// Clock `k` of `n`: `draw` gives a new packet's (length, flow) and moves
    /// the packet clock.
    pub fn next(&mut self, k: usize, n: usize, draw: impl FnOnce(&mut SplitMix64, &mut u64) -> (u32, u32)) -> BwInputs {
        if k == 0 {
            return BwInputs::default();
        }
        if self.pending.is_none() && self.rng.chance(9, 10) {
            let (len, flow) = draw(&mut self.rng, &mut self.ts);
            self.pending = Some((self.ts.min(TS_MAX), len, flow));
        }
        let p = self.pending;
        BwInputs {
            reset: reset_at(k, n),
            valid: p.is_some(),
            ts: p.map_or(0, |p| p.0),
            len: p.map_or(0, |p| p.1),
            flow: p.map_or(0, |p| p.2),
            now_valid: self.rng.chance(1, 2),
            now: self.ts.min(TS_MAX),
            ro_ready: self.rng.chance(1, 2),
        }
    }

    /// What the core answered: a taken packet (or a reset) frees the offer.
    pub fn observe(&mut self, i: &BwInputs, ready: bool) {
        if i.reset {
            self.pending = None;
            self.ts = 0;
        } else if i.valid && ready {
            self.pending = None;
        }
    }
}

/// The bandwidth cores' input ports for `i`.
pub fn bandwidth_inputs(c: &mut VectorCycle, i: &BwInputs) {
    c.input("reset", i.reset)
        .input("s_valid", i.valid)
        .input("s_ts", i.ts)
        .input("s_len", i.len)
        .input("s_flow", i.flow)
        .input("now_valid", i.now_valid)
        .input("now", i.now)
        .input("m_ro_ready", i.ro_ready);
}
