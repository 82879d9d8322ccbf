//! End-to-end property of the LDA (Kompella et al. §III-D): on a loss-free
//! FIFO segment every row is usable, so the estimated mean is exactly the mean
//! delay of the sampled packets, and the true mean when every packet is sampled.

use netmeas_sim::lda::{LdaConfig, LdaHashes, LdaRegs, golden_pair, outcome};
use netmeas_sim::traffic::{DelayDist, LossModel, Source, Trace, TrafficSpec};
use proptest::prelude::*;

fn config() -> impl Strategy<Value = LdaConfig> {
    (
        prop::sample::select(vec![32usize, 64, 104, 120, 128]),
        1usize..=4,
        prop::sample::select(vec![64usize, 256, 1024]),
        any::<u64>(),
        prop::collection::vec(0u32..12, 4),
    )
        .prop_map(|(key_bits, banks, rows, seed, mut k)| {
            k.truncate(banks);
            k.sort();
            LdaConfig { key_bits, banks, rows, bank_prob_log2: k, seed, ts_in_ram: false, name: None }
        })
}

fn delay() -> impl Strategy<Value = DelayDist> {
    prop_oneof![
        (0.05f64..2.0, 0.5f64..1.5).prop_map(|(scale_us, shape)| DelayDist::Weibull { scale_us, shape }),
        (0.05f64..1.0, 2.5f64..5.0).prop_map(|(scale_us, shape)| DelayDist::Pareto { scale_us, shape }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn no_loss_mean_is_exact(cfg in config(), d in delay(), seed in any::<u64>(), n in 1u64..40_000, all in any::<bool>()) {
        let mut cfg = cfg;
        if all {
            cfg.bank_prob_log2[0] = 0;
        }
        let spec = TrafficSpec {
            source: Source::Synthetic { packets: n, rate_pps: 5e6, flows: 300 },
            delay: d,
            loss_rate: 0.0,
            loss_model: LossModel::Uniform,
            seed,
        };
        let t = Trace::build(&spec).unwrap();
        let pair = golden_pair(&cfg, &t);
        let o = outcome(&pair, t.truth()).unwrap();
        // The sampled packets and their exact mean delay, from the hashes directly.
        let (h, regs) = (LdaHashes::new(&cfg), LdaRegs::reset(&cfg));
        let key_mask = if cfg.key_bits == 128 { u128::MAX } else { (1u128 << cfg.key_bits) - 1 };
        let (mut k, mut s) = (0u64, 0u128);
        for p in &t.packets {
            if regs.bank(h.sample(p.key & key_mask)).is_some() {
                k += 1;
                s += (p.received.unwrap() - p.sent) as u128;
            }
        }
        prop_assert_eq!(o.estimates.usable_rows, cfg.banks * cfg.rows);
        prop_assert_eq!(o.estimates.samples, k);
        prop_assert_eq!(o.estimates.loss, 0.0);
        if k > 0 {
            prop_assert_eq!(o.estimates.mean, s as f64 / k as f64);
        }
        if all {
            prop_assert_eq!(k, n);
            prop_assert_eq!(o.estimates.mean, o.truth.mean);
        }
    }
}
