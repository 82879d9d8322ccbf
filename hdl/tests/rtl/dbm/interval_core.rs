use netmeas_hdl::dbm::interval_core::*;
use netmeas_sim::dbm::{BwPacket, DbmInputs, DbmOutputs, drive_dbm, run_dbm};
use netmeas_sim::dbm::{DbmConfig, MergeRule};
use netmeas_sim::prng::SplitMix64;
use rust_hdl::prelude::*;

/// One clock of the core in rust-hdl's own simulator.
fn step(uut: &mut DbmIntervalCore, i: &DbmInputs) -> DbmOutputs {
    sim_step!(uut, i)
}

/// A stream with bursts, quiet stretches, gaps over whole periods, few
/// flows, and now and then a huge packet (saturated interval sums).
fn stream(rng: &mut SplitMix64, cfg: &DbmConfig, n: usize) -> Vec<BwPacket> {
    let mut ts = rng.below(cfg.base_ticks);
    (0..n)
        .map(|_| {
            ts += match rng.below(40) {
                0 => rng.below(2 * cfg.period_ticks),
                1..=8 => rng.below(3 * cfg.base_ticks),
                _ => rng.below(2),
            };
            let len = if rng.chance(1, 40) { u32::MAX - rng.below(3) as u32 } else { 40 + rng.below(1500) as u32 };
            BwPacket { ts, len, flow: rng.below(3) as u32 }
        })
        .collect()
}

#[test]
fn rust_hdl_simulation_equals_the_golden_model() {
    let mut rng = SplitMix64::new(5);
    let mut merges = 0;
    for (round, (rule, buckets, intervals)) in [
        (MergeRule::Mv, 5, 16),
        (MergeRule::Mr, 5, 16),
        (MergeRule::Mm, 3, 8),
        (MergeRule::Mv, 33, 48),
        (MergeRule::Mr, 2, 6),
        (MergeRule::Mv, 40, 64),
        // Three groups: the groups of p, w and v differ (re-minimising each of them matters).
        (MergeRule::Mm, 70, 300),
    ]
    .into_iter()
    .enumerate()
    {
        let base = 10 + round as u64;
        let cfg = DbmConfig { buckets, rule, base_ticks: base, period_ticks: base * intervals, seed: 3 + round as u32 };
        let packets = stream(&mut rng, &cfg, if buckets > 64 { 3000 } else { 600 });
        let want = run_dbm(&cfg, &packets).unwrap();
        let mut uut = DbmIntervalCore::new(&cfg);
        uut.connect_all();
        let got = drive_dbm(&cfg, &packets, |i| step(&mut uut, i), |c| c % 3 != 0, |c| c % 5 != 1);
        assert_eq!(got.periods.len(), want.len(), "round {round}");
        for (g, w) in got.periods.iter().zip(&want) {
            assert_eq!(g, w, "round {round} ({rule:?}, {buckets} buckets), period {}", w.index);
            merges += w.merges;
        }
    }
    assert!(merges > 1000, "{merges} merges");
}
