//! Co-simulation: every Verilated variant against its golden model, cycle by
//! cycle, under random stimulus drawn by proptest (probabilities of updates,
//! same-row bursts, hazards at every forwarding distance, flips at any cycle, read-out
//! back-pressure, resets and flag clears). A failing case prints its seed.

use netmeas_testbench::dbm::*;
use netmeas_testbench::expb::*;
use netmeas_testbench::fridge::*;
use netmeas_testbench::models::*;
use netmeas_testbench::svbf::*;
use netmeas_testbench::*;
use proptest::prelude::*;

fn stimulus() -> impl Strategy<Value = CbStimulus> {
    (
        0u32..=65536,
        (0u32..40000, 0u32..30000, 0u32..30000, 0u32..30000),
        prop_oneof![Just(0u32), 0u32..2000],
        prop_oneof![0u32..200, 200u32..8000, Just(65536)],
        prop_oneof![Just(65536u32), 1000u32..65536, 0u32..1000],
        prop_oneof![Just(0u32), 0u32..40],
        0u32..2000,
    )
        .prop_map(|(valid, (d1, d2, d3, d4), wide_count, flip, ro_ready, reset, ovf_clear)| CbStimulus {
            valid,
            row_back: [d1, d2, d3, d4],
            wide_count,
            flip,
            ro_ready,
            reset,
            ovf_clear,
        })
}

fn check<M: CounterBankRtl>(p: CbStimulus, seed: u64, cycles: u64) -> CbStats {
    match cosim_counter_bank::<M>(p, seed, cycles) {
        Ok(st) => st,
        Err(m) => panic!("{m} (stimulus {p:?}, seed {seed})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn cb_default_matches_golden(p in stimulus(), seed: u64) {
        check::<CbDefault>(p, seed, 60_000);
    }

    #[test]
    fn cb_small_matches_golden(p in stimulus(), seed: u64) {
        check::<CbSmall>(p, seed, 30_000);
    }

    #[test]
    fn cb_one_row_matches_golden(p in stimulus(), seed: u64) {
        check::<CbOneRow>(p, seed, 20_000);
    }

    #[test]
    fn cb_mid_matches_golden(p in stimulus(), seed: u64) {
        check::<CbMid>(p, seed, 30_000);
    }

    #[test]
    fn h3_variants_match_golden(valid in 0u32..=65536, seed: u64) {
        for r in [cosim_h3::<H3Wide>(valid, seed, 5000), cosim_h3::<H3Row>(valid, seed, 5000),
                  cosim_h3::<H3Bit>(valid, seed, 5000), cosim_h3::<H3Mid>(valid, seed, 5000)] {
            if let Err(m) = r { panic!("{m} (valid {valid}, seed {seed})"); }
        }
    }
}

fn lda_stimulus() -> impl Strategy<Value = LdaStimulus> {
    (
        0u32..=65536,
        0u32..60000,
        prop_oneof![0u32..100, 100u32..3000],
        0u32..2000,
        1000u32..=65536,
        prop_oneof![Just(0u32), 0u32..20],
    )
        .prop_map(|(valid, hot_key, flip, csr, ro_ready, reset)| LdaStimulus {
            valid,
            hot_key,
            flip,
            csr,
            ro_ready,
            reset,
        })
}

fn check_lda<M: LdaRtl>(p: LdaStimulus, seed: u64, cycles: u64) -> LdaStats {
    match cosim_lda::<M>(p, seed, cycles) {
        Ok(st) => st,
        Err(m) => panic!("{m} (stimulus {p:?}, seed {seed})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn lda_default_matches_golden(p in lda_stimulus(), seed: u64) {
        check_lda::<LdaDefault>(p, seed, 40_000);
    }

    #[test]
    fn lda_small_matches_golden(p in lda_stimulus(), seed: u64) {
        check_lda::<LdaSmall>(p, seed, 30_000);
    }

    #[test]
    fn lda_ts_ram_matches_golden(p in lda_stimulus(), seed: u64) {
        check_lda::<LdaTsRam>(p, seed, 30_000);
    }
}

/// The default LDA stimulus reads out complete epochs with sampled rows,
/// takes register writes and flips at line rate.
#[test]
fn lda_default_stimulus_exercises_the_core() {
    let st = check_lda::<LdaSmall>(LdaStimulus::default(), 9, 200_000);
    assert!(st.epochs_read > 50 && st.busy_rows > 5_000 && st.csr_writes > 100, "{st:?}");
    let st = check_lda::<LdaDefault>(LdaStimulus::default(), 9, 200_000);
    assert!(st.epochs_read > 20 && st.busy_rows > 1_000 && st.packets > 150_000, "{st:?}");
}

/// The stream driver resets a core until it is ready, and a wait the core
/// never ends stops after the one patience limit with an error naming it.
#[test]
fn the_stream_driver_waits_at_most_its_patience() {
    use netmeas_sim::lda::LdaInputs;
    use netmeas_testbench::driver::{Driver, PATIENCE};
    let mut d = Driver::<LdaSmall>::new();
    let idle = LdaInputs { ro_ready: true, ..Default::default() };
    d.reset(&LdaInputs { reset: true, ..idle }, &idle, |o| o.ready).unwrap();
    let after_reset = d.cycles();
    assert!((2..PATIENCE).contains(&after_reset), "{after_reset} cycles to ready");
    let e = d.until(&idle, 5, "no answer", |_| Ok(false)).unwrap_err();
    assert_eq!(e, format!("{}: no answer for {} cycles", LdaSmall::NAME, PATIENCE + 5));
    assert_eq!(d.cycles(), after_reset + PATIENCE + 6);
    let e = d.until(&idle, 0, "never", |_| Err("the watcher refused".to_string())).unwrap_err();
    assert_eq!(e, "the watcher refused");
}

/// The default stimulus really exercises what the tests claim: hazards at every
/// forwarding distance, flips, complete read-outs, resets and overflows.
#[test]
fn default_stimulus_exercises_every_mechanism() {
    let st = check::<CbSmall>(CbStimulus::default(), 7, 300_000);
    assert!(st.hazards.iter().all(|&n| n > 10_000), "{st:?}");
    assert!(st.flips > 100 && st.epochs_read > 100, "{st:?}");
    assert!(st.resets > 0 && st.overflows > 0, "{st:?}");
    let st = check::<CbDefault>(CbStimulus::default(), 7, 300_000);
    assert!(st.epochs_read > 50 && st.rows_read > 50 * 1024, "{st:?}");
}

/// Two models of the same variant in parallel threads (one per thread, each
/// with its own VerilatedContext) stay bit-exact.
#[test]
fn models_in_parallel_threads_are_independent() {
    let hs: Vec<_> = (0..2u64)
        .map(|s| std::thread::spawn(move || check::<CbSmall>(CbStimulus::default(), 100 + s, 100_000)))
        .collect();
    for h in hs {
        assert!(h.join().unwrap().updates > 50_000);
    }
}

/// Streams on their own threads (RTL, golden model and comparison on one
/// thread each) cover exactly what the same streams run one by one in
/// lockstep cover: stream k is seed + k over its share of the cycles.
#[test]
fn streams_add_up_to_their_single_runs() {
    let (seed, cycles, streams) = (40, 90_001, 3);
    let all = cosim_counter_bank_streams::<CbSmall>(CbStimulus::default(), seed, cycles, streams)
        .unwrap_or_else(|m| panic!("{m}"));
    let shares = stream_shares(cycles, streams);
    assert_eq!(shares, [30_001, 30_000, 30_000]);
    let one_by_one = shares
        .iter()
        .enumerate()
        .map(|(k, &n)| check::<CbSmall>(CbStimulus::default(), seed + k as u64, n))
        .fold(CbStats::default(), |a, b| a.merged(&b));
    assert_eq!(all, one_by_one);
    assert!(all.updates > 70_000 && all.epochs_read > 10, "{all:?}");
}

/// The one-thread runner compares every cycle: a golden output changed on one
/// cycle is reported on that cycle, and in a stream with that stream's seed.
#[test]
fn fused_streams_report_the_first_mismatch_with_its_seed() {
    use netmeas_sim::counter_bank::CounterBankCycle;
    let run = |k: usize, seed: u64| {
        let cfg = CbSmall::config();
        let mut golden = CounterBankCycle::new(cfg.rows, cfg.layout());
        golden.step(&CbIn::default());
        let mut drv = CbDriver::new(&cfg, CbStimulus::default(), seed);
        let mut cycle = 0u64;
        let next = move || {
            let i = drv.next();
            let mut g = golden.step(&i);
            // Stream 1 sees a wrong epoch on cycle 1000.
            g.epoch ^= k == 1 && cycle == 1000;
            cycle += 1;
            (i, g)
        };
        cosim_model_fused::<CbSmall>(5000, next, |c, _, r, g| {
            if r.epoch == g.epoch {
                Ok(())
            } else {
                Err(Mismatch { model: "cb_small", cycle: c, field: "epoch", rtl: "-".into(), golden: "-".into() })
            }
        })
    };
    let e = cosim_streams(3, 70, run).expect_err("the changed cycle is caught");
    assert_eq!((e.stream, e.seed, e.mismatch.cycle, e.mismatch.field), (1, 71, 1000, "epoch"));
    assert!(cosim_streams(1, 70, run).is_ok());
}

/// The HX8K engine's core, its timestamps in a block-RAM delay line instead
/// of the pipeline registers, cycle by cycle against the same golden model
/// (every read-out row's timestamp sum included).
#[test]
fn lda_with_timestamps_in_ram_matches_golden() {
    let st = check_lda::<LdaTsRam>(LdaStimulus::default(), 23, 200_000);
    assert!(st.epochs_read > 20 && st.busy_rows > 1_000 && st.packets > 150_000, "{st:?}");
}

/// The one-bank 1024-row LDA of the §IV single-bank evaluation, cycle by cycle.
#[test]
fn lda_single_matches_golden() {
    let st = check_lda::<LdaSingle>(LdaStimulus::default(), 21, 100_000);
    assert!(st.epochs_read > 5 && st.packets > 80_000, "{st:?}");
}

/// A whole measurement interval: a lossy Weibull trace through two Verilated
/// cores (sender and receiver, thresholds written at run time) gives
/// bit-identical synopses to the golden model, and the estimates follow.
#[test]
fn lda_interval_on_rtl_matches_golden_synopses() {
    use netmeas_sim::lda::{LdaConfig, golden_pair, outcome};
    use netmeas_sim::traffic::{DelayDist, LossModel, Source, Trace, TrafficSpec};
    use netmeas_testbench::lda_stream::rtl_pair;
    let trace = Trace::build(&TrafficSpec {
        source: Source::Synthetic { packets: 150_000, rate_pps: 5e6, flows: 1000 },
        delay: DelayDist::PAPER_WEIBULL,
        loss_rate: 0.02,
        loss_model: LossModel::Bursty { mean_episode: 100.0 },
        seed: 77,
    })
    .unwrap();
    for cfg in [LdaConfig { bank_prob_log2: vec![2, 6], ..LdaConfig::default() }, LdaSingle::config()] {
        let (rtl, cycles) = rtl_pair(&cfg, &trace).unwrap();
        assert_eq!(rtl, golden_pair(&cfg, &trace), "{cfg:?}");
        assert!(cycles.sender > 150_000 && cycles.receiver < cycles.sender, "{cycles:?}");
        let o = outcome(&rtl, trace.truth()).unwrap();
        assert!(o.estimates.samples > 1_000 && o.rel_error.mean < 0.05, "{o:?}");
    }
    let other_seed = LdaConfig { seed: 1, ..LdaConfig::default() };
    assert!(rtl_pair(&other_seed, &trace).unwrap_err().contains("no Verilated LDA"));
}

fn rda_stimulus() -> impl Strategy<Value = RdaStimulus> {
    (
        (0u32..=65536, 0u32..60000, prop_oneof![Just(0u32), 0u32..200], prop_oneof![Just(0u32), 0u32..3000]),
        (0u32..=65536, 0u32..400, 1000u32..=65536, prop_oneof![Just(0u32), 0u32..20], 0u32..2000),
        (any::<bool>(), prop_oneof![Just(1000u32), Just(4000), Just(40_000)]),
    )
        .prop_map(
            |((valid, hot_id, jump, late), (now, csr, ro_ready, reset, ovf_clear), (near_wrap, interval))| {
                RdaStimulus { valid, hot_id, jump, late, now, csr, ro_ready, reset, ovf_clear, near_wrap, interval }
            },
        )
}

fn check_rda<M: RdaRtl>(p: RdaStimulus, seed: u64, cycles: u64) -> RdaStats {
    match cosim_rda::<M>(p, seed, cycles) {
        Ok(st) => st,
        Err(m) => panic!("{m} (stimulus {p:?}, seed {seed})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn rda_default_matches_golden(p in rda_stimulus(), seed: u64) {
        check_rda::<RdaDefault>(p, seed, 40_000);
    }

    #[test]
    fn rda_small_matches_golden(p in rda_stimulus(), seed: u64) {
        check_rda::<RdaSmall>(p, seed, 30_000);
    }
}

#[test]
fn rda_default_stimulus_exercises_the_core() {
    let st = check_rda::<RdaSmall>(RdaStimulus::default(), 5, 300_000);
    assert!(st.epochs_read > 50 && st.busy_buckets > 5_000 && st.boundaries > 100, "{st:?}");
    assert!(st.out_of_interval > 100 && st.csr_writes > 100 && st.resets > 0, "{st:?}");
    // 2 × 2500 buckets take about 5900 read-out cycles at this ro_ready; the clock moves about
    // 3.3 ticks per cycle with the jumps, so intervals of 40 000 ticks (12 000 cycles) keep up.
    let st = check_rda::<RdaDefault>(RdaStimulus { reset: 0, interval: 40_000, ..Default::default() }, 5, 300_000);
    assert!(st.epochs_read > 10 && st.busy_buckets > 10_000 && st.packets > 200_000, "{st:?}");
    let st = check_rda::<RdaSmall>(RdaStimulus { near_wrap: true, reset: 0, ..Default::default() }, 6, 100_000);
    assert!(st.epochs_read > 10 && st.boundaries > 20, "{st:?}");
}

/// A whole clock-delimited interval: a trace with loss and edge reordering
/// through two Verilated cores (registers written at run time) gives the
/// golden synopses bit for bit, and the host decodes the true set difference.
#[test]
fn rda_interval_on_rtl_matches_golden_synopses() {
    use netmeas_sim::rda::{IntervalTrace, RdaConfig, RdaHashes, RdaTrafficSpec, golden_pair, outcome};
    use netmeas_sim::traffic::{DelayDist, LossModel, Source, TrafficSpec};
    use netmeas_testbench::rda_stream::rtl_pair;
    let iv = IntervalTrace::build(&RdaTrafficSpec {
        base: TrafficSpec {
            source: Source::Synthetic { packets: 150_000, rate_pps: 5e6, flows: 1000 },
            delay: DelayDist::PAPER_WEIBULL,
            loss_rate: 0.002,
            loss_model: LossModel::Uniform,
            seed: 78,
        },
        reorder_rate: 0.002,
        window_ns: 10_000,
    })
    .unwrap();
    let small = RdaConfig { sample_prob_log2: 4, guard_ticks: 5000, ..RdaSmall::config() };
    for base in [RdaConfig::default(), small] {
        let cfg = iv.core_config(&base);
        let (rtl, cycles) = rtl_pair(&cfg, &iv).unwrap();
        assert_eq!(rtl, golden_pair(&cfg, &iv), "{cfg:?}");
        assert!(cycles.sender > 150_000 && cycles.receiver < cycles.sender, "{cycles:?}");
        assert_eq!(rtl.sender.packets, iv.truth(&cfg).sent);
        let o = outcome(&rtl, &RdaHashes::new(&cfg), iv.truth(&cfg), Some(&iv.timestamps())).unwrap();
        assert!(o.truth.set_difference > 20, "{:?}", o.truth);
        if cfg.buckets == 2500 {
            assert!(o.decode.complete && o.decode.exact && o.rel_error.mean < 1e-12, "{:?}", o.decode);
        }
    }
    let other_seed = iv.core_config(&RdaConfig { seed: 1, ..RdaConfig::default() });
    assert!(rtl_pair(&other_seed, &iv).unwrap_err().contains("no Verilated RDA"));
}

fn fridge_stimulus() -> impl Strategy<Value = FridgeStimulus> {
    (
        (0u32..=65536, 0u32..=65536, 0u32..=65536, prop_oneof![Just(0u32), 0u32..20000]),
        (prop_oneof![Just(0u32), 0u32..400], prop_oneof![Just(0u32), 0u32..1000], 0u32..=65536, 1000u32..=65536),
        (prop_oneof![Just(0u32), 0u32..20], 0u32..2000, any::<bool>(), 0u32..30000),
    )
        .prop_map(
            |(
                (valid, response, answered, hot),
                (csr, flip, smp_ready, ro_ready),
                (reset, ovf_clear, near_wrap, csr_read),
            )| {
                FridgeStimulus {
                    valid,
                    response,
                    answered,
                    hot,
                    csr,
                    flip,
                    csr_read,
                    smp_ready,
                    ro_ready,
                    reset,
                    ovf_clear,
                    near_wrap,
                }
            },
        )
}

fn check_fridge<M: FridgeRtl>(p: FridgeStimulus, seed: u64, cycles: u64) -> FridgeStats {
    match cosim_fridge::<M>(p, seed, cycles) {
        Ok(st) => st,
        Err(m) => panic!("{m} (stimulus {p:?}, seed {seed})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn fridge_default_matches_golden(p in fridge_stimulus(), seed: u64) {
        check_fridge::<FridgeDefault>(p, seed, 30_000);
    }

    #[test]
    fn fridge_small_matches_golden(p in fridge_stimulus(), seed: u64) {
        check_fridge::<FridgeSmall>(p, seed, 30_000);
    }

    #[test]
    fn fridge_three_matches_golden(p in fridge_stimulus(), seed: u64) {
        check_fridge::<FridgeThree>(p, seed, 20_000);
    }
}

#[test]
fn fridge_default_stimulus_exercises_the_core() {
    let st = check_fridge::<FridgeSmall>(FridgeStimulus::default(), 7, 300_000);
    assert!(st.samples > 20_000 && st.dropped > 100 && st.saturated > 10, "{st:?}");
    assert!(st.epochs_read > 50 && st.busy_bins > 1_000 && st.csr_writes > 100, "{st:?}");
    assert!(st.rows_read_by_register > 20, "{st:?}");
    let st = check_fridge::<FridgeDefault>(FridgeStimulus { reset: 0, ..Default::default() }, 8, 300_000);
    assert!(st.samples > 20_000 && st.flips > 50 && st.packets > 250_000, "{st:?}");
    let st =
        check_fridge::<FridgeThree>(FridgeStimulus { near_wrap: true, reset: 0, ..Default::default() }, 9, 100_000);
    assert!(st.samples > 5_000 && st.epochs_read > 10, "{st:?}");
}

/// A §5 synthetic request/response stream through the Verilated core at one
/// packet per clock, registers written at run time: the samples and the
/// histograms equal the golden model's bit for bit.
#[test]
fn fridge_stream_on_rtl_matches_golden() {
    use netmeas_sim::fridge::{FridgeConfig, SyntheticSpec, run_golden};
    use netmeas_testbench::fridge::rtl_fridge_run;
    let trace = SyntheticSpec { requests: 60_000, max_delay_ns: 64e6, ..Default::default() }.build().unwrap();
    let default = FridgeConfig { entry_prob_log2: vec![-3.0, -6.0], bin_shift: 12, ..FridgeConfig::default() };
    let small = FridgeConfig { entry_prob_log2: vec![0.0, -1.0, -2.0, -3.0], ..FridgeSmall::config() };
    for cfg in [default, small] {
        let (rtl, cycles) = rtl_fridge_run(&cfg, &trace.packets).unwrap();
        let golden = run_golden(&cfg, &trace.packets);
        assert!(golden.samples.len() > 1000, "{}", golden.samples.len());
        assert_eq!(rtl.samples, golden.samples, "{cfg:?}");
        assert_eq!(rtl.histograms, golden.histograms, "{cfg:?}");
        assert_eq!((rtl.saturated, rtl.hist_overflow), (golden.saturated, golden.hist_overflow));
        assert_eq!(rtl.insertions, golden.insertions);
        assert!(cycles >= trace.packets.len() as u64 && cycles < trace.packets.len() as u64 + 5000, "{cycles}");
    }
    let other_seed = FridgeConfig { seed: 1, ..FridgeConfig::default() };
    assert!(rtl_fridge_run(&other_seed, &trace.packets).unwrap_err().contains("no Verilated fridge"));
}

fn expb_stimulus() -> impl Strategy<Value = ExpbStimulus> {
    (
        (0u32..=65536, 0u32..=65536, prop_oneof![Just(0u32), 0u32..200]),
        (0u32..=65536, prop_oneof![Just(0u32), 0u32..3000], 0u32..=65536, prop_oneof![Just(0u32), 0u32..20]),
    )
        .prop_map(|((valid, now, jump), (same, huge, ro_ready, reset))| ExpbStimulus {
            valid,
            now,
            jump,
            same,
            huge,
            ro_ready,
            reset,
        })
}

fn check_expb<M: ExpbRtl>(p: ExpbStimulus, seed: u64, cycles: u64) -> ExpbStats {
    match cosim_expb::<M>(p, seed, cycles) {
        Ok(st) => st,
        Err(m) => panic!("{m} (stimulus {p:?}, seed {seed})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn expb_default_matches_golden(p in expb_stimulus(), seed: u64) {
        check_expb::<ExpbDefault>(p, seed, 20_000);
    }

    #[test]
    fn expb_small_matches_golden(p in expb_stimulus(), seed: u64) {
        check_expb::<ExpbSmall>(p, seed, 20_000);
    }

    #[test]
    fn expb_one_matches_golden(p in expb_stimulus(), seed: u64) {
        check_expb::<ExpbOne>(p, seed, 10_000);
    }

    #[test]
    fn expb_wide_matches_golden(p in expb_stimulus(), seed: u64) {
        check_expb::<ExpbWide>(p, seed, 20_000);
    }
}

#[test]
fn expb_default_stimulus_exercises_the_core() {
    let st = check_expb::<ExpbSmall>(ExpbStimulus::default(), 3, 200_000);
    assert!(st.periods_read > 500 && st.saturated_periods > 10 && st.stalls > 1_000, "{st:?}");
    let st = check_expb::<ExpbOne>(ExpbStimulus { reset: 0, ..Default::default() }, 4, 100_000);
    assert!(st.periods_read > 1_000 && st.packets > 30_000, "{st:?}");
    // Time jumps of whole periods: 2^15 closes each, every cascade to scale 15.
    let st =
        check_expb::<ExpbWide>(ExpbStimulus { reset: 0, jump: 200, ro_ready: 65536, ..Default::default() }, 5, 400_000);
    assert!(st.periods_read >= 2 && st.scales_read >= 32, "{st:?}");
    let st = check_expb::<ExpbDefault>(ExpbStimulus { reset: 0, jump: 0, ..Default::default() }, 6, 100_000);
    assert!(st.packets > 50_000, "{st:?}");
}

fn dbm_stimulus() -> impl Strategy<Value = DbmStimulus> {
    (
        (0u32..=65536, 0u32..=65536, prop_oneof![Just(0u32), 0u32..200], 0u32..=65536),
        (0u32..=65536, prop_oneof![Just(0u32), 0u32..2000], 0u32..=65536, prop_oneof![Just(0u32), 0u32..20]),
    )
        .prop_map(|((valid, now, jump, same), (repeat, huge, ro_ready, reset))| DbmStimulus {
            valid,
            now,
            jump,
            same,
            repeat,
            huge,
            ro_ready,
            reset,
        })
}

fn check_dbm<M: DbmRtl>(p: DbmStimulus, seed: u64, cycles: u64) -> DbmStats {
    match cosim_dbm::<M>(p, seed, cycles) {
        Ok(st) => st,
        Err(m) => panic!("{m} (stimulus {p:?}, seed {seed})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn dbm_default_matches_golden(p in dbm_stimulus(), seed: u64) {
        check_dbm::<DbmDefault>(p, seed, 20_000);
    }

    #[test]
    fn dbm_small_matches_golden(p in dbm_stimulus(), seed: u64) {
        check_dbm::<DbmSmall>(p, seed, 20_000);
    }

    #[test]
    fn dbm_mid_matches_golden(p in dbm_stimulus(), seed: u64) {
        check_dbm::<DbmMid>(p, seed, 20_000);
    }

    #[test]
    fn dbm_two_matches_golden(p in dbm_stimulus(), seed: u64) {
        check_dbm::<DbmTwo>(p, seed, 10_000);
    }
}

/// A base-interval stream for `cfg`: bursts of back-to-back packets, quiet
/// stretches of a few intervals, gaps over whole periods, three flows, and
/// with probability `huge`/1000 a packet of about 2^32 bytes (saturated
/// interval sums and keys).
fn interval_stream(
    seed: u64,
    cfg: &netmeas_sim::dbm::DbmConfig,
    n: usize,
    huge: u64,
) -> Vec<netmeas_sim::dbm::BwPacket> {
    let mut rng = netmeas_sim::prng::SplitMix64::new(seed);
    let mut ts = rng.below(cfg.base_ticks);
    (0..n)
        .map(|_| {
            ts += match rng.below(40) {
                0 => rng.below(2 * cfg.period_ticks),
                1..=8 => rng.below(3 * cfg.base_ticks),
                _ => rng.below(2),
            };
            let len = if rng.below(1000) < huge { u32::MAX - rng.below(3) as u32 } else { 40 + rng.below(1500) as u32 };
            netmeas_sim::dbm::BwPacket { ts, len, flow: rng.below(3) as u32 }
        })
        .collect()
}

fn check_dbm_interval<M: DbmRtl>(
    seed: u64,
    n: usize,
    huge: u64,
    now_in: u64,
    ro_in: u64,
) -> netmeas_sim::dbm::DbmDrive {
    let packets = interval_stream(seed, &M::config(), n, huge);
    match cosim_dbm_interval::<M>(&packets, |c| c % now_in == 0, |c| c % ro_in == 0) {
        Ok(d) => d,
        Err(m) => panic!("{m} (seed {seed}, {n} packets, huge {huge}, now every {now_in}, read-out every {ro_in})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn dbm_mv_small_matches_golden(seed: u64, huge in 0u64..60, now_in in 1u64..4, ro_in in 1u64..4) {
        check_dbm_interval::<DbmMvSmall>(seed, 3000, huge, now_in, ro_in);
    }

    #[test]
    fn dbm_mm_mid_matches_golden(seed: u64, huge in 0u64..60, now_in in 1u64..4, ro_in in 1u64..4) {
        check_dbm_interval::<DbmMmMid>(seed, 3000, huge, now_in, ro_in);
    }
}

#[test]
fn dbm_interval_streams_exercise_the_core() {
    // Many merges, tail joins and real merges, saturated interval sums; saturated
    // variance keys (a huge interval beside an empty one: about 2^62). Mass keys
    // cannot saturate here: 70 intervals of at most 2^32 − 1 bytes stay below 2^39.
    let small = check_dbm_interval::<DbmMvSmall>(1, 20_000, 30, 2, 2);
    let mid = check_dbm_interval::<DbmMmMid>(2, 20_000, 30, 1, 3);
    for d in [&small, &mid] {
        let merges: u64 = d.periods.iter().map(|p| p.merges).sum();
        let joins: u64 = d.periods.iter().map(|p| p.tail_joins).sum();
        assert!(merges - joins > 1000 && joins > 100, "{merges} merges, {joins} tail joins");
        assert!(d.periods.iter().any(|p| p.flags.interval_saturated));
    }
    assert!(small.periods.iter().any(|p| p.flags.key_saturated));
}

#[test]
fn dbm_interval_rtl_runs_the_paper_configs_in_real_time_without_stalls() {
    use netmeas_sim::dbm::{BurstySpec, DBM_BASE_INSERT_CLOCKS, run_dbm};
    // A bursty §4.1.2-style trace (2 s, three 4 ms microbursts) at 100 ns a
    // clock (10 MHz): a 78.125 µs base interval lasts 781 clocks, above the
    // back end's worst-case insert, so no packet may wait.
    let packets = BurstySpec::default().generate().unwrap();
    assert!(78_125 / 100 >= DBM_BASE_INSERT_CLOCKS);
    for (name, cfg, (periods, stalls)) in [
        ("mv", DbmMv::config(), rtl_dbm_realtime::<DbmMv>(&packets, 100)),
        ("mr", DbmMr::config(), rtl_dbm_realtime::<DbmMr>(&packets, 100)),
    ] {
        let want = run_dbm(&cfg, &packets).unwrap();
        assert_eq!(periods, want, "{name}");
        assert_eq!(stalls, 0, "{name}");
        assert_eq!(want[0].buckets.len(), 1024);
        // The same stream offered back to back (time compressed): equal periods, the input held back.
        let d = rtl_dbm_run(&cfg, &packets).unwrap();
        assert_eq!(d.periods, want, "{name}");
        assert!(d.stalls > 0);
    }
}

#[test]
fn dbm_default_stimulus_exercises_the_core() {
    let small = check_dbm::<DbmSmall>(DbmStimulus::default(), 3, 200_000);
    let mid = check_dbm::<DbmMid>(DbmStimulus { reset: 0, ..Default::default() }, 4, 200_000);
    let two = check_dbm::<DbmTwo>(DbmStimulus { reset: 0, ..Default::default() }, 5, 100_000);
    // Equal timestamps: thousands of packets per period fill the 1024 buckets and merge.
    let p = DbmStimulus { reset: 0, jump: 0, same: 65000, ro_ready: 65536, ..Default::default() };
    let full = check_dbm::<DbmDefault>(p, 6, 300_000);
    let all = format!("small {small:?}\nmid {mid:?}\ntwo {two:?}\nfull {full:?}");
    assert!(small.periods_read > 400 && small.real_merges > 5_000 && small.tail_joins > 50_000, "{all}");
    assert!(small.stalls > 100_000, "{all}");
    assert!(mid.periods_read > 50 && mid.real_merges > 500 && mid.buckets_read > 1_000, "{all}");
    assert!(two.periods_read > 100 && two.real_merges > 200, "{all}");
    assert!(full.real_merges > 100 && full.tail_joins > 10_000 && full.buckets_read >= 1024, "{all}");
}

#[test]
fn dbm_rtl_runs_streams_as_the_golden_model_does() {
    use netmeas_sim::dbm::dbm_cycle::DBM_MERGE_CYCLES;
    use netmeas_sim::dbm::{BurstySpec, BwPacket, DbmConfig, run_dbm};
    let cfg = DbmConfig::default();
    // A bursty §4.1.2-style trace (2 s, three 4 ms microbursts).
    let packets = BurstySpec::default().generate().unwrap();
    let d = rtl_dbm_run(&cfg, &packets).unwrap();
    assert_eq!(d.periods, run_dbm(&cfg, &packets).unwrap());
    // Back-to-back 64-byte packets: a stall only behind a real merge.
    let packets: Vec<_> = (0..300_000u64).map(|i| BwPacket { ts: 6 * i, len: 64, flow: (i % 5) as u32 }).collect();
    let d = rtl_dbm_run(&cfg, &packets).unwrap();
    assert_eq!(d.periods, run_dbm(&cfg, &packets).unwrap());
    let p = &d.periods[0];
    assert_eq!(d.stalls, (p.merges - p.tail_joins) * (DBM_MERGE_CYCLES - 1));
    let bad = DbmConfig { buckets: 1000, ..Default::default() };
    assert!(rtl_dbm_run(&bad, &packets).unwrap_err().contains("no Verilated DBM core"));
    let backwards = [BwPacket { ts: 5, len: 1, flow: 0 }, BwPacket { ts: 4, len: 1, flow: 0 }];
    assert!(rtl_dbm_run(&cfg, &backwards).unwrap_err().contains("backwards"));
}

#[test]
fn dbm_rtl_flags_saturated_keys_as_the_golden_model_does() {
    use netmeas_sim::dbm::BwPacket;
    use netmeas_sim::dbm::run_dbm;
    // 2^17 packets of about 2^32 bytes into two buckets: keys pass 2^48.
    let cfg = DbmTwo::config();
    let packets: Vec<_> =
        (0..140_000u64).map(|i| BwPacket { ts: i, len: u32::MAX - (i % 5) as u32, flow: (i % 2) as u32 }).collect();
    let d = rtl_dbm_run(&cfg, &packets).unwrap();
    let want = run_dbm(&cfg, &packets).unwrap();
    assert!(want[0].flags.key_saturated && !want[0].flags.mass_saturated);
    assert_eq!(d.periods, want);
}

#[test]
fn dbm_rtl_breaks_ties_among_saturated_keys_as_the_golden_model_does() {
    use netmeas_sim::dbm::BwPacket;
    use netmeas_sim::dbm::run_dbm;
    // 10^6 packets of about 2^32 bytes into five buckets within one period:
    // every adjacent pair passes 2^48, so the structure's minimum, the pred's key
    // and the tail's pair are all saturated and the slots decide the merges.
    // Six times the tail's own pair saturates with the tail in a lower slot
    // than the pred: the tail pair wins the tie against the pred pair, and
    // the structure's saturated minimum (the head's pair: the head never
    // leaves slot 0) decides that the packet does not join the tail. None of
    // these comes in the first 3 × 10^5 packets, hence the stream's length.
    let cfg = DbmSmall::config();
    let packets: Vec<_> = (0..1_000_000u64)
        .map(|i| BwPacket { ts: i / 2600, len: u32::MAX - (i % 7) as u32, flow: (i % 3) as u32 })
        .collect();
    let d = rtl_dbm_run(&cfg, &packets).unwrap();
    let want = run_dbm(&cfg, &packets).unwrap();
    assert_eq!(want.len(), 1);
    let first = &want[0];
    assert!(first.flags.key_saturated && !first.flags.mass_saturated);
    assert_eq!(first.buckets.len(), 5);
    assert!(first.buckets.windows(2).all(|w| w[0].mass + w[1].mass >= 1 << 48), "a pair below 2^48");
    assert_eq!(d.periods, want);
}

fn svbf_stimulus() -> impl Strategy<Value = SvbfStimulus> {
    (
        (0u32..=65536, 0u32..=65536, 0u32..8000, prop_oneof![Just(65536u32), 0u32..3000]),
        (0u32..3000, 0u32..=65536, 0u32..=65536, prop_oneof![Just(0u32), 0u32..20]),
    )
        .prop_map(|((valid, repeat, csr, flip), (release, query, ro_ready, reset))| SvbfStimulus {
            valid,
            repeat,
            csr,
            flip,
            release,
            query,
            ro_ready,
            reset,
        })
}

fn check_svbf<M: SvbfRtl>(p: SvbfStimulus, seed: u64, cycles: u64) -> SvbfStats {
    match cosim_svbf::<M>(p, seed, cycles) {
        Ok(st) => st,
        Err(m) => panic!("{m} (stimulus {p:?}, seed {seed})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn svbf_default_matches_golden(p in svbf_stimulus(), seed: u64) {
        check_svbf::<SvbfDefault>(p, seed, 20_000);
    }

    #[test]
    fn svbf_small_matches_golden(p in svbf_stimulus(), seed: u64) {
        check_svbf::<SvbfSmall>(p, seed, 20_000);
    }

    #[test]
    fn svbf_tiny_matches_golden(p in svbf_stimulus(), seed: u64) {
        check_svbf::<SvbfTiny>(p, seed, 20_000);
    }
}

#[test]
fn svbf_default_stimulus_exercises_the_core() {
    // The tiny store (2 × 256 bits) is nearly full within an epoch: Multi-Match dominates.
    // Queries wait for the refined center table (about 400 clocks an epoch), so the run is longer.
    let st = check_svbf::<SvbfTiny>(SvbfStimulus::default(), 3, 500_000);
    assert!(st.flips > 100 && st.centers_read > 100 * 64, "{st:?}");
    assert!(st.results[1] > 1_000 && st.results[2] > 1_000, "{st:?}");
    // The small one (4 × 1024 bits) answers every kind, No-Match included.
    let st = check_svbf::<SvbfSmall>(SvbfStimulus { reset: 0, ..Default::default() }, 4, 200_000);
    assert!(st.flips > 50 && st.packets > 50_000, "{st:?}");
    assert!(st.results.iter().all(|&n| n > 1_000), "every kind of answer: {st:?}");
    let st = check_svbf::<SvbfDefault>(SvbfStimulus { reset: 0, ..Default::default() }, 5, 300_000);
    assert!(st.flips > 20 && st.results[1] > 10_000, "{st:?}");
}

/// The RTL in the loop of `run svbf`: three epochs of a Verilated store give
/// the golden store's answers (kind, center, candidates, refined latency)
/// and counters; a geometry without a built core is refused by name.
#[test]
fn svbf_rtl_engine_answers_like_the_golden_store() {
    use netmeas_sim::prng::SplitMix64;
    use netmeas_sim::svbf::run::{GoldenEngine, SvbfEngine};
    use netmeas_sim::svbf::{Centers, MatchKind, SvbfConfig};
    let cfg = SvbfConfig { centers: 20, ..SvbfSmall::config() };
    let centers = Centers::new(&(0..20u32).map(|i| 50 + 100 * i + i * i).collect::<Vec<_>>()).unwrap();
    let mut rtl = rtl_svbf_engine(&cfg).unwrap();
    let mut rng = SplitMix64::new(8);
    for epoch in 0..3 {
        let pkts: Vec<(u64, u64)> = (0..400).map(|_| (rng.next_u64(), rng.below(2500))).collect();
        let g = GoldenEngine.epoch(&cfg, &centers, &pkts).unwrap();
        let r = rtl.epoch(&cfg, &centers, &pkts).unwrap();
        assert_eq!((&r.counts, &r.sums), (&g.counts, &g.sums), "epoch {epoch}");
        assert_eq!(r.answers.len(), g.answers.len(), "epoch {epoch}");
        let first = (0..pkts.len()).find(|&i| r.answers[i] != g.answers[i]);
        assert!(first.is_none(), "epoch {epoch}, packet {first:?}: {:?}", first.map(|i| (r.answers[i], g.answers[i])));
        assert!(g.answers.iter().filter(|a| a.kind == MatchKind::MultiMatch).count() > 20, "ties exercised");
        assert!(g.answers.iter().all(|a| a.kind != MatchKind::NoMatch), "no false negatives");
    }
    let other = SvbfConfig { seed: 1, ..cfg };
    assert!(rtl_svbf_engine(&other).err().unwrap().contains("no Verilated SVBF core"));
}

#[test]
fn link_matches_golden_and_the_host_reads_through_it() {
    use netmeas_sim::board::host::{LinkHost, exercise_registers};
    use netmeas_testbench::link::{cosim_link, rtl_board};
    let st = match cosim_link::<netmeas_testbench::models::LinkDefault>(11, 4_000_000) {
        Ok(st) => st,
        Err(m) => panic!("{m}"),
    };
    assert!(st.accesses > 500 && st.tx_bytes > 5_000 && st.crc_errors > 40 && st.truncated > 40, "{st:?}");
    // The host side against the RTL on a line where 2 bits in 1000 are inverted:
    // every value read is the one written, the noise costs only retries.
    let mut host = LinkHost::new(rtl_board(16, 2).unwrap(), 20);
    host.link_mut().set_bit_errors(2e-3, 3);
    let want = exercise_registers(&mut host, 16, 400, 5).unwrap();
    assert_eq!(host.link_mut().board.regs, want);
    assert!(host.stats().retries > 5, "{:?}", host.stats());
    // A register that does not exist is reported, not retried.
    assert!(host.read(16).unwrap_err().contains("BusTimeout"));
}

/// The external packet-metadata streams: the Verilated engine switched to
/// `CTRL.external` measures packets fed on its `x_tx_*`/`x_rx_*` ports (random
/// keys and classes, 1 % loss, adjacent swaps, idle clocks, one epoch ended by
/// a flip riding a packet and one by a flip alone), read by the host reader
/// over a noisy line; both synopses of every epoch equal the golden LDA's on
/// the same packets, the classifier set by register drops the same packets,
/// and a flip waiting for the previous epoch's read-out holds its stream back.
#[test]
fn engine_measures_external_streams_through_the_reader() {
    use netmeas_sim::board::engine::{ExternalBeat, reg};
    use netmeas_sim::board::host::LinkHost;
    use netmeas_sim::board::reader::EngineReader;
    use netmeas_sim::lda::{LDA_REG_CLASS_MASK, LDA_REG_CLASS_MATCH, LdaGolden, LdaPacket};
    use netmeas_sim::prng::SplitMix64;
    use netmeas_testbench::models::EngineDefault;
    let cfg = EngineDefault::config();
    let mut line = netmeas_testbench::engine::rtl_engine_default().unwrap();
    line.set_bit_errors(1e-5, 29);
    let mut reader = EngineReader::start_external(LinkHost::new(line, 20), &cfg).unwrap();
    assert!(reader.next_epoch().unwrap_err().contains("external"));
    // Classifier: odd classes are not measured, at both points.
    let mut golden = [LdaGolden::new(&cfg.lda), LdaGolden::new(&cfg.lda)];
    for (base, g) in [reg::SENDER, reg::RECEIVER].into_iter().zip(golden.iter_mut()) {
        reader.host_mut().write(base + reg::CORE_CSR + LDA_REG_CLASS_MASK as u16, 1).unwrap();
        reader.host_mut().write(base + reg::CORE_CSR + LDA_REG_CLASS_MATCH as u16, 0).unwrap();
        g.write_csr(LDA_REG_CLASS_MASK, 1);
        g.write_csr(LDA_REG_CLASS_MATCH, 0);
    }
    assert_eq!(reader.host_mut().read(reg::CTRL).unwrap(), 2, "CTRL reads external, source stopped");
    let mut rng = SplitMix64::new(0xE7);
    let mut want = Vec::new();
    let (epochs, packets) = (3u32, 30_000u64);
    let mut ts = 1u64 << 39; // the timestamp sums wrap within the epochs
    for epoch in 0..epochs {
        let mut beats = [Vec::new(), Vec::new()];
        let mut true_delays = Vec::new();
        let mut held: Option<ExternalBeat> = None;
        for _ in 0..packets {
            ts = (ts + 1 + rng.below(3)) & ((1 << 40) - 1);
            let key = (rng.next_u64() as u128) << 56 ^ rng.next_u64() as u128;
            let class = rng.next_u64() as u8;
            let b = ExternalBeat { valid: true, key, ts, class, flip: false };
            beats[0].push(b);
            if rng.below(100) == 0 {
                continue; // lost
            }
            let delay = 20 + rng.below(400) + rng.below(4) * rng.below(2000);
            let r = ExternalBeat { ts: (ts + delay) & ((1 << 40) - 1), ..b };
            if class & 1 == 0 {
                true_delays.push(delay as f64);
            }
            // Swap with the next delivered packet now and then.
            match held.take() {
                Some(h) => {
                    beats[1].push(r);
                    beats[1].push(h);
                }
                None if rng.below(50) == 0 => held = Some(r),
                None => beats[1].push(r),
            }
            for q in beats.iter_mut() {
                if rng.below(20) == 0 {
                    q.push(ExternalBeat::default()); // an idle clock
                }
            }
        }
        beats[1].extend(held.take());
        for (q, g) in beats.iter_mut().zip(golden.iter_mut()) {
            for b in q.iter().filter(|b| b.valid) {
                g.packet(&LdaPacket { key: b.key, ts: b.ts, class: b.class });
            }
            // Epoch 1 ends with a flip alone, the others with a flip riding the last packet.
            match q.last_mut() {
                Some(last) if epoch != 1 && last.valid => last.flip = true,
                _ => q.push(ExternalBeat { flip: true, ..Default::default() }),
            }
        }
        want.push((golden[0].end_epoch(), golden[1].end_epoch(), true_delays));
        let feed = &mut reader.host_mut().link_mut().board.feed;
        feed.sender.extend(beats[0].drain(..));
        feed.receiver.extend(beats[1].drain(..));
    }
    for (epoch, (sender, receiver, delays)) in want.into_iter().enumerate() {
        let (e, est) = reader.next_external_epoch().unwrap_or_else(|e| panic!("epoch {epoch}: {e}"));
        assert_eq!(e.sender.seq, epoch as u32);
        assert!(e.sender == sender, "epoch {epoch}: the sender's synopsis differs from the golden model");
        assert!(e.receiver == receiver, "epoch {epoch}: the receiver's synopsis differs from the golden model");
        assert_eq!((e.sent, e.received, e.lost), (0, 0, 0), "no source truth in external mode");
        let n = delays.len() as f64;
        let mean = delays.iter().sum::<f64>() / n;
        eprintln!(
            "external epoch {epoch}: measured {} / {} (true {}), mean {:.2} (truth {mean:.2}, bound {:.2}), {} samples",
            est.sent, est.received, n, est.mean, est.mean_bound_98, est.samples
        );
        assert!(est.sent > packets as u64 * 4 / 10 && est.sent < packets as u64 * 6 / 10, "{est:?}");
        assert_eq!(est.received, n as u64);
        assert!((est.mean - mean).abs() <= est.mean_bound_98, "mean {} vs truth {mean}", est.mean);
    }
    let feed = &reader.host_mut().link_mut().board.feed;
    assert!(feed.sender.is_empty() && feed.receiver.is_empty());
    assert!(feed.stalls[0] > 0 && feed.stalls[1] > 0, "a flip waited for the read-out: {:?}", feed.stalls);
}

/// The whole engine under Verilator with the host reader on a noisy
/// simulated serial line: configure, run the on-chip traffic, read three
/// epochs of both LDA cores and the fridge core and the EXPB and DBM cores'
/// period, estimate. Every synopsis equals the golden LDA's on the packets the
/// source model regenerates, the fridge's histograms equal the golden fridge's,
/// the EXPB period equals the golden EXPB's and the DBM partition the golden
/// DBM's (within Lemma 1's bound of the truth), the source's truth counters equal
/// the model's, and the estimates are within the LDA's own bounds.
#[test]
fn engine_measures_its_own_traffic_through_the_reader() {
    use netmeas_sim::board::engine::reg;
    use netmeas_sim::board::host::LinkHost;
    use netmeas_sim::board::reader::EngineReader;
    use netmeas_sim::board::source::{SourceSettings, delay_table};
    use netmeas_sim::traffic::DelayDist;
    use netmeas_testbench::models::EngineDefault;
    let cfg = EngineDefault::config();
    let settings = SourceSettings {
        seed: 0x5eed_0000_0000_0042,
        epoch_packets: 40_000,
        gap: 1,
        loss: SourceSettings::threshold(0.005),
        reorder: SourceSettings::threshold(0.002),
        delays: delay_table(&DelayDist::Weibull { scale_us: 2.0, shape: 0.8 }, cfg.link.uart.clock_hz).unwrap(),
    };
    let mut line = netmeas_testbench::engine::rtl_engine_default().unwrap();
    line.set_bit_errors(1e-5, 17);
    let mut reader = EngineReader::start(LinkHost::new(line, 20), &cfg, &settings).unwrap();
    let (mut expb_periods, mut dbm_periods) = (Vec::new(), Vec::new());
    for epoch in 0..3u32 {
        let r = reader.next_epoch().unwrap_or_else(|e| panic!("epoch {epoch}: {e}"));
        expb_periods.extend(r.expb.iter().map(|p| (epoch, p.clone())));
        dbm_periods.extend(r.dbm.iter().map(|p| (epoch, p.clone())));
        let (e, t) = (&r.estimates, &r.truth);
        eprintln!(
            "epoch {}: sent {} received {} | mean {:.2} (truth {:.2}, bound {:.2}) std {:.2} (truth {:.2}) | {} samples",
            r.seq, t.sent, t.received, e.mean, t.mean, e.mean_bound_98, e.std, t.std, e.samples
        );
        assert_eq!((r.seq, t.sent, e.sent, e.received), (epoch, 40_000, t.sent, t.received));
        assert!(r.synopses_match);
        assert!(e.samples > 1_000, "{e:?}");
        assert!((e.mean - t.mean).abs() <= e.mean_bound_98, "mean {} vs truth {}", e.mean, t.mean);
        assert!(r.rel_error.std < 0.2, "std {} vs truth {}", e.std, t.std);
        // The fridge core on the same packets (requests at the sender, responses at the receiver):
        // its histograms equal the golden fridge's on the regenerated stream, and the histogram
        // CDF stays within one histogram bin (an octave) of the true delay distribution.
        let f = r.fridge.as_ref().expect("the default engine has a fridge core");
        assert!(f.histograms_match);
        let fe = f.estimate.as_ref().expect("the fridge kept samples");
        eprintln!(
            "epoch {}: fridge {} samples, p50 {:.1} (truth {:.1}) p95 {:.1} (truth {:.1}) p99 {:.1} (truth {:.1}), \
             CDF gap {:.3}",
            r.seq,
            fe.samples,
            fe.estimates.p50,
            f.truth.p50,
            fe.estimates.p95,
            f.truth.p95,
            fe.estimates.p99,
            f.truth.p99,
            fe.max_cdf_gap
        );
        // 20 000 requests a fridge at p = 2^-4 (fridge 1) and 2^-9 (fridge 0): about 1 280 samples.
        assert!(fe.samples > 1_000, "{fe:?}");
        assert!(fe.max_cdf_gap < 1.0 && fe.errors.p50 < 1.0, "{fe:?} vs {:?}", f.truth);
    }
    // The EXPB core on the sender's packets: its time advances one tick a packet, so its first period
    // (65 536 ticks) ends in epoch 1 (packets 40 000 to 79 999) and is read with it; it equals the golden
    // EXPB's (or next_epoch fails). Lengths are 64 + 10 uniform bits: 575.5 bytes a tick on average.
    let x = cfg.expb.as_ref().unwrap();
    assert_eq!(expb_periods.iter().map(|(e, p)| (*e, p.period, p.packets)).collect::<Vec<_>>(), [(1, 0, 65_536)]);
    let p = &expb_periods[0].1;
    assert_eq!(p.scales.len(), x.scales);
    for (j, sc) in p.scales.iter().enumerate() {
        eprintln!(
            "EXPB scale {j}: {} ticks, {} intervals, mean {:.1} B, std {:.1} B, max {} B at {}, culprit {}",
            sc.ticks, sc.intervals, sc.mean_bytes, sc.std_bytes, sc.max_bytes, sc.max_index, sc.culprit
        );
        assert_eq!((sc.ticks, sc.intervals), (x.base_ticks << j, x.period_ticks / (x.base_ticks << j)));
        let per_tick = sc.mean_bytes / sc.ticks as f64;
        assert!((per_tick - 575.5).abs() < 575.5 * 0.02, "scale {j}: {per_tick} bytes a tick");
        assert!(sc.max_bytes as f64 >= sc.mean_bytes && sc.max_index < sc.intervals && sc.culprit <= 16);
    }
    // Independent lengths (σ² = (1024² − 1) / 12 a packet): an interval of n ticks has σ·√n.
    let sigma = ((1024.0f64 * 1024.0 - 1.0) / 12.0).sqrt();
    for (j, tol) in [(0, 0.05), (4, 0.2)] {
        let want = sigma * ((x.base_ticks << j) as f64).sqrt();
        assert!(
            (p.scales[j].std_bytes - want).abs() < tol * want,
            "scale {j}: std {} vs {want}",
            p.scales[j].std_bytes
        );
    }
    // The DBM core on the same packets: its first period is read with epoch 1 and equals the golden
    // DBM's (or next_epoch fails). Every packet after the first m merges once; at every scale no
    // interval's estimate from the buckets is further from the truth than Lemma 1's 4B/m.
    let d = cfg.dbm.as_ref().unwrap();
    let got: Vec<_> = dbm_periods.iter().map(|(e, p)| (*e, p.period, p.packets, p.buckets)).collect();
    assert_eq!(got, [(1, 0, 65_536, d.buckets)]);
    let p = &dbm_periods[0].1;
    eprintln!(
        "DBM period 0: {} buckets, {} merges ({} tail joins), largest interval error {:.0} B, bound {:.0} B",
        p.buckets, p.merges, p.tail_joins, p.max_error_bytes, p.bound_bytes
    );
    assert_eq!(p.merges, 65_536 - d.buckets as u64);
    assert!(p.tail_joins > 0 && p.tail_joins < p.merges && !p.saturated, "{p:?}");
    assert!(p.max_error_bytes > 0.0 && p.max_error_bytes <= p.bound_bytes, "{p:?}");
    assert_eq!(p.scales.len(), x.scales);
    for sc in &p.scales {
        eprintln!(
            "DBM at {} ticks: peak {:.1} Mb/s (truth {:.1}), std {:.1} Mb/s (truth {:.1})",
            sc.ticks, sc.peak_mbps, sc.true_peak_mbps, sc.std_mbps, sc.true_std_mbps
        );
    }
    // At the coarsest scale (two intervals of 32 768 ticks, 18.9 MB each) 4B/m is under 1 %.
    let coarse = p.scales.last().unwrap();
    assert!((coarse.peak_mbps - coarse.true_peak_mbps).abs() < 0.01 * coarse.true_peak_mbps, "{coarse:?}");
    let stats = reader.host_mut().stats();
    eprintln!("{stats:?}, {} polls", reader.polls());
    assert!(stats.retries > 0, "the noisy line cost no retry: {stats:?}");
    // The link's error counters are readable, and an address outside the map is refused.
    let h = reader.host_mut();
    // A window read repeated (its response lost) gets the same word and takes nothing;
    // a read at the wrong row shows the presented row and takes nothing.
    use netmeas_sim::board::engine::{STATUS_FROZEN, WindowWord};
    while h.read(reg::STATUS).unwrap() & STATUS_FROZEN == 0 {}
    let w0 = h.read(reg::SENDER_WINDOW).unwrap();
    assert_eq!(h.read(reg::SENDER_WINDOW).unwrap(), w0, "a repeated read answers the row taken");
    let w = WindowWord::unpack(w0);
    assert!(w.valid && w.row == 0 && !w.last, "{w:?}");
    let shown = WindowWord::unpack(h.read(reg::SENDER_WINDOW + 5).unwrap());
    assert!(shown.valid && shown.row == 1, "{shown:?}");
    let w1 = WindowWord::unpack(h.read(reg::SENDER_WINDOW + 1).unwrap());
    assert_eq!((w1.row, shown), (1, w1));
    assert_eq!(WindowWord::unpack(h.read(reg::SENDER_WINDOW + 2).unwrap()).row, 2);
    // The fridge's window works the same way; its page answers through the core's CSR port, and
    // the engine keeps the core's FLIP and HIST_POP to itself.
    use netmeas_sim::board::engine::{STATUS_FRIDGE_FROZEN, STATUS_FRIDGE_PENDING};
    use netmeas_sim::fridge::{FRIDGE_REG_FLIP, FRIDGE_REG_HIST_COUNT, FRIDGE_REG_HIST_POP, FRIDGE_REG_HIST_ROW};
    while h.read(reg::STATUS).unwrap() & STATUS_FRIDGE_FROZEN == 0 {}
    let row0 = h.read(reg::FRIDGE + FRIDGE_REG_HIST_ROW as u16).unwrap();
    assert_eq!(row0, 1 << 31, "the page shows frozen row 0 through the core's HIST_ROW");
    h.write(reg::FRIDGE + FRIDGE_REG_HIST_POP as u16, 1).unwrap();
    h.write(reg::FRIDGE + FRIDGE_REG_FLIP as u16, 1).unwrap();
    assert_eq!(h.read(reg::FRIDGE + FRIDGE_REG_HIST_ROW as u16).unwrap(), row0, "a HIST_POP write takes nothing");
    assert_eq!(h.read(reg::STATUS).unwrap() & STATUS_FRIDGE_PENDING, 0, "a FLIP write flips nothing");
    let _ = h.read(reg::FRIDGE + FRIDGE_REG_HIST_COUNT as u16).unwrap();
    let f0 = h.read(reg::FRIDGE_WINDOW).unwrap();
    assert_eq!(h.read(reg::FRIDGE_WINDOW).unwrap(), f0, "a repeated read answers the row taken");
    let w = WindowWord::unpack(f0);
    assert!(w.valid && w.row == 0 && !w.last, "{w:?}");
    let shown = WindowWord::unpack(h.read(reg::FRIDGE_WINDOW + 9).unwrap());
    assert!(shown.valid && shown.row == 1, "{shown:?}");
    assert_eq!(h.read(reg::FRIDGE + FRIDGE_REG_HIST_ROW as u16).unwrap(), 1 << 31 | 1);
    // The EXPB core's second period (ticks 65 536 to 131 071) ends in epoch 3: a TAKE of another
    // row, or one repeated, takes nothing.
    use netmeas_sim::board::engine::STATUS_EXPB_FROZEN;
    while h.read(reg::STATUS).unwrap() & STATUS_EXPB_FROZEN == 0 {}
    assert_eq!(h.read(reg::EXPB + reg::EXPB_PERIOD).unwrap(), 1);
    assert_eq!(h.read(reg::EXPB + reg::EXPB_ROW).unwrap(), 1 << 31, "scale 0 of period 1 is presented");
    h.write(reg::EXPB + reg::EXPB_TAKE, 1 << 4 | 1).unwrap();
    h.write(reg::EXPB + reg::EXPB_TAKE, 0).unwrap();
    assert_eq!(h.read(reg::EXPB + reg::EXPB_ROW).unwrap(), 1 << 31, "a TAKE of another row takes nothing");
    h.write(reg::EXPB + reg::EXPB_TAKE, 1 << 4).unwrap();
    h.write(reg::EXPB + reg::EXPB_TAKE, 1 << 4).unwrap();
    assert_eq!(h.read(reg::EXPB + reg::EXPB_ROW).unwrap(), 1 << 31 | 1, "the TAKE took scale 0 once");
    assert_eq!(h.read(reg::EXPB + reg::EXPB_BASE_TICKS).unwrap(), 32);
    // The DBM core's second period likewise: its beats are numbered, and a TAKE of another beat or
    // period, or one repeated, takes nothing.
    use netmeas_sim::board::engine::STATUS_DBM_FROZEN;
    while h.read(reg::STATUS).unwrap() & STATUS_DBM_FROZEN == 0 {}
    macro_rules! beat {
        () => {
            h.read(reg::DBM + reg::DBM_BEAT).unwrap() & !(3 << 28)
        };
    }
    assert_eq!(h.read(reg::DBM + reg::DBM_PERIOD).unwrap(), 1);
    assert_eq!(beat!(), 1 << 31, "bucket 0 of period 1 is presented");
    h.write(reg::DBM + reg::DBM_TAKE, 1 << 11 | 1).unwrap();
    h.write(reg::DBM + reg::DBM_TAKE, 0).unwrap();
    assert_eq!(beat!(), 1 << 31, "a TAKE of another beat takes nothing");
    h.write(reg::DBM + reg::DBM_TAKE, 1 << 11).unwrap();
    h.write(reg::DBM + reg::DBM_TAKE, 1 << 11).unwrap();
    assert_eq!(beat!(), 1 << 31 | 1, "the TAKE took bucket 0 once");
    assert_eq!(h.read(reg::DBM + reg::DBM_BUCKETS).unwrap(), 1024);
    assert!(h.read(reg::LINK_REQUEST_ERRORS).unwrap() & 0xFFFF > 0, "CRC errors were counted");
    assert!(h.read(0x3000).unwrap_err().contains("BusTimeout"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// The frame parser at 64 bits (MAC timestamps) and 512 bits (time input)
    /// on link-shaped traffic with every header variant and every reason a
    /// frame gives no record: records and outcomes bit for bit, clock for clock.
    #[test]
    fn frame_parser_variants_match_golden(seed: u64) {
        for (name, r) in [
            ("fp_64", cosim_frame_parser::<Fp64>(seed, 60_000)),
            ("fp_512_time", cosim_frame_parser::<Fp512Time>(seed, 30_000)),
        ] {
            match r {
                Ok(st) => prop_assert!(st.records > 100 && st.frames > st.records, "{name}: {st:?}"),
                Err(m) => panic!("{m} (seed {seed})"),
            }
        }
    }
}
