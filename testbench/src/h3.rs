//! The H3 unit under co-simulation: its runner and its port adapter.

use crate::{H3Rtl, Mismatch, differ};
use netmeas_sim::h3::{H3Cycle, H3Inputs};
use netmeas_sim::prng::SplitMix64;

/// Runs `cycles` cycles of `M` against the golden H3 with random keys (valid with
/// probability `valid`/65536), comparing `valid` every cycle and `hash` when valid.
pub fn cosim_h3<M: H3Rtl>(valid: u32, seed: u64, cycles: u64) -> Result<u64, Mismatch> {
    let cfg = M::config();
    let mut rtl = M::create();
    let mut golden = H3Cycle::new(&cfg);
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&H3Inputs::default());
    let mut rng = SplitMix64::new(seed);
    for cycle in 0..cycles {
        let r0 = rng.next_u64();
        let i = H3Inputs { valid: (r0 & 0xFFFF) < valid as u64, key: rng.next_u128() };
        let r = rtl.cycle(&i);
        let g = golden.step(&i);
        differ(M::NAME, cycle, "valid", r.valid, g.valid)?;
        if g.valid {
            differ(M::NAME, cycle, "hash", r.hash, g.hash)?;
        }
    }
    Ok(cycles)
}

/// [`crate::CoreRtl`] for a Verilated H3 unit (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::h3::H3Config,
            netmeas_sim::h3::H3Inputs,
            netmeas_sim::h3::H3Outputs,
            |i| $tin { s_valid: P::from_u128(i.valid as u128), s_key: P::from_u128(i.key) },
            |o| netmeas_sim::h3::H3Outputs { valid: o.m_valid.to_u128() != 0, hash: o.m_hash.to_u128() as u64 }
        );
    };
}
pub(crate) use core_rtl;
