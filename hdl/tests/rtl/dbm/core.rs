use netmeas_hdl::dbm::core::*;
use netmeas_sim::dbm::DbmConfig;
use netmeas_sim::dbm::{BwPacket, DbmCycle, DbmInputs, DbmOutputs};
use netmeas_sim::prng::SplitMix64;
use rust_hdl::prelude::*;

/// One clock of the core in rust-hdl's own simulator.
fn step(uut: &mut DbmCore, i: &DbmInputs) -> DbmOutputs {
    sim_step!(uut, i)
}

#[test]
fn rust_hdl_simulation_equals_the_per_clock_model() {
    let mut rng = SplitMix64::new(3);
    let (mut real_merges, mut periods) = (0, 0);
    for round in 0..7 {
        let cfg = DbmConfig {
            buckets: [5, 2, 33, 3, 64, 40, 100][round],
            period_ticks: [400, 400, 400, 400, 400, 400, 2000][round],
            seed: 1 + round as u32,
            ..Default::default()
        };
        let mut uut = DbmCore::new(&cfg);
        uut.connect_all();
        let mut gold = DbmCycle::new(&cfg).unwrap();
        let mut ts = 0u64;
        let mut pending: Option<BwPacket> = None;
        for cycle in 0..20_000 {
            if pending.is_none() && rng.chance(3, 4) {
                ts += rng.below(4);
                let len = if rng.chance(1, 4) {
                    1 + rng.below(3) as u32
                } else if rng.chance(1, 30) {
                    u32::MAX - rng.below(3) as u32
                } else {
                    40 + rng.below(1500) as u32
                };
                pending = Some(BwPacket { ts, len, flow: rng.below(3) as u32 });
            }
            let i = DbmInputs {
                reset: rng.chance(1, 2000),
                valid: pending.is_some(),
                ts: pending.map_or(0, |p| p.ts),
                len: pending.map_or(0, |p| p.len),
                flow: pending.map_or(0, |p| p.flow),
                now_valid: rng.chance(1, 2),
                now: ts,
                ro_ready: rng.chance(1, 2),
            };
            let want = gold.step(&i);
            let got = step(&mut uut, &i);
            let mut w = want;
            let mut g = got;
            if !want.ro_valid || want.ro_end {
                w.ro_bucket = Default::default();
                g.ro_bucket = Default::default();
            }
            assert_eq!(g, w, "round {round} ({} buckets), cycle {cycle}", cfg.buckets);
            if want.ro_valid && want.ro_end && i.ro_ready && !i.reset {
                real_merges += want.period_merges - want.period_tail_joins;
                periods += 1;
            }
            if i.reset {
                pending = None;
                ts = 0;
            } else if i.valid && want.ready {
                pending = None;
            }
        }
    }
    assert!(real_merges > 2000 && periods > 30, "{real_merges} real merges in {periods} periods");
}
