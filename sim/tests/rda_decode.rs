//! Peeling decode (Fu et al. Algorithm 1) on random set differences, from
//! far below to beyond the m = 2d sizing of §VI: a decode that reports
//! success lists exactly the true lost and reordered packets and, with their
//! timestamps, repairs the sums to the exact mean; a decode that cannot
//! finish says so.

use netmeas_sim::prng::SplitMix64;
use netmeas_sim::rda::decode::reconcile_cells;
use netmeas_sim::rda::{BucketMap, CaptureTimestamps, RdaConfig, RdaHashes, RdaRecord, peel, subtract};
use proptest::prelude::*;
use std::collections::HashMap;

fn insert(cells: &mut [RdaRecord], map: &RdaHashes, id: u64, t: u64) {
    for l in 0..map.banks() {
        let c = &mut cells[map.cell(l, id).unwrap()];
        c.id ^= id;
        c.tsum = (c.tsum + t) & ((1 << 48) - 1);
        c.count += 1;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn decode_is_exact_or_reports_failure(
        banks in 2usize..=3,
        buckets in 16usize..600,
        common in 0usize..3000,
        // Set difference as a fraction of the buckets per bank: up to 1.5 m.
        diff_per_mille in 0u32..1500,
        lost_share in 0u32..=100,
        seed in any::<u64>(),
    ) {
        let cfg = RdaConfig { banks, buckets, seed, ..Default::default() };
        let map = RdaHashes::new(&cfg);
        let d = (buckets as u64 * diff_per_mille as u64 / 1000) as usize;
        let n_lost = d * lost_share as usize / 100;
        let mut rng = SplitMix64::new(seed ^ 1);
        let n = banks * buckets;
        let (mut a, mut b) = (vec![RdaRecord::default(); n], vec![RdaRecord::default(); n]);
        let (mut sent, mut recv) = (HashMap::new(), HashMap::new());
        let (mut lat_sum, mut lost, mut reordered) = (0u128, Vec::new(), Vec::new());
        for i in 0..common + d {
            let id = rng.next_u64() | 1;
            let t = rng.below(1 << 40);
            let lat = rng.below(1 << 20);
            if i < common {
                insert(&mut a, &map, id, t);
                insert(&mut b, &map, id, t + lat);
                lat_sum += lat as u128;
            } else if i < common + n_lost {
                insert(&mut a, &map, id, t);
                sent.insert(id, t);
                lost.push(id);
            } else {
                insert(&mut b, &map, id, t + lat);
                recv.insert(id, t + lat);
                reordered.push(id);
            }
        }
        let mut cells = subtract(&a, &b);
        let got = peel(&map, &mut cells);
        prop_assert_eq!(got.complete, got.residual_buckets == 0);
        if got.complete {
            let (mut gl, mut gr) = (got.lost.clone(), got.reordered.clone());
            gl.sort();
            gr.sort();
            lost.sort();
            reordered.sort();
            prop_assert_eq!(gl, lost);
            prop_assert_eq!(gr, reordered);
            let ranges: Vec<_> = (0..banks).map(|l| (l * buckets, (l + 1) * buckets)).collect();
            let e = reconcile_cells(&a, &b, &ranges, &map, 48, Some(&CaptureTimestamps { sent, received: recv }));
            prop_assert_eq!(e.usable_buckets, n);
            prop_assert_eq!(e.samples, (banks * common) as u64);
            if common > 0 {
                let truth = lat_sum as f64 / common as f64;
                prop_assert!((e.mean - truth).abs() <= 1e-12 * truth.max(1.0), "{} vs {}", e.mean, truth);
            }
        } else {
            prop_assert!(got.residual_buckets > 0);
            prop_assert!(got.lost.len() + got.reordered.len() < d || d == 0);
        }
    }
}

/// §VI / Fig. 7: with 2 × 2500 buckets the decode finishes for most set
/// differences below 2000 and rarely beyond 3000 (the peeling threshold of a
/// random bipartite graph is d = m).
#[test]
fn decode_rate_has_the_peeling_threshold() {
    let rate = |d: usize| {
        let mut ok = 0;
        for seed in 0..20u64 {
            let cfg = RdaConfig { seed, ..Default::default() };
            let map = RdaHashes::new(&cfg);
            let mut rng = SplitMix64::new(seed);
            let mut a = vec![RdaRecord::default(); 5000];
            let b = vec![RdaRecord::default(); 5000];
            for _ in 0..d {
                insert(&mut a, &map, rng.next_u64(), 7);
            }
            let mut cells = subtract(&a, &b);
            ok += peel(&map, &mut cells).complete as u32;
        }
        ok
    };
    assert!(rate(500) >= 17, "{}", rate(500));
    assert!(rate(4000) <= 2, "{}", rate(4000));
}
