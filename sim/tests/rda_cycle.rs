//! The RDA core's per-clock model (`RdaCycle`) at the register port and with
//! extra read stages: what the co-simulation then holds the RTL to.

use netmeas_sim::rda::{
    RDA_MAX_READ_STAGES, RDA_REG_DELTA, RDA_REG_GUARD, RdaConfig, RdaCycle, RdaGolden, RdaInputs, RdaReadout,
};

fn idle() -> RdaInputs {
    RdaInputs { ro_ready: true, ..Default::default() }
}

/// Steps `m` until it accepts packets (the banks have cleared).
fn until_ready(m: &mut RdaCycle) {
    let mut clocks = 0;
    while !m.step(&idle()).ready {
        clocks += 1;
        assert!(clocks < 10_000, "the banks never cleared");
    }
}

#[test]
fn a_delta_write_holds_p1_for_one_clock() {
    let cfg = RdaConfig { buckets: 61, t0: 0, interval_ticks: 1000, ..Default::default() };
    let mut m = RdaCycle::new(&cfg);
    until_ready(&mut m);
    let write = RdaInputs { csr_we: true, csr_addr: RDA_REG_DELTA, csr_wdata: 500, ..idle() };
    assert!(m.step(&write).ready, "ready in the clock of the write");
    assert!(!m.step(&idle()).ready, "p1 holds in the clock after it (end + δ is redone)");
    assert!(m.step(&idle()).ready, "and only then");
    // A GUARD write changes nothing at p1.
    let guard = RdaInputs { csr_we: true, csr_addr: RDA_REG_GUARD, csr_wdata: 5, ..idle() };
    assert!(m.step(&guard).ready && m.step(&idle()).ready);
}

#[test]
fn a_new_delta_applies_from_the_next_boundary() {
    // δ = 1000 from t0 = 0; δ = 300 written inside interval 0: intervals [0, 1000), [1000, 1300), ...
    let cfg = RdaConfig { buckets: 61, t0: 0, interval_ticks: 1000, guard_ticks: 0, ..Default::default() };
    let mut m = RdaCycle::new(&cfg);
    until_ready(&mut m);
    m.step(&RdaInputs { csr_we: true, csr_addr: RDA_REG_DELTA, csr_wdata: 300, ..idle() });
    let mut ro = RdaReadout::new(&cfg);
    let mut synopses = Vec::new();
    let pkts = [(1u64, 10u64), (2, 999), (3, 1000), (4, 1299), (5, 1300)];
    let mut k = 0;
    for _ in 0..20_000 {
        let valid = k < pkts.len();
        let (id, ts) = pkts.get(k).copied().unwrap_or((0, 0));
        let o = m.step(&RdaInputs { valid, id, ts, now_valid: !valid, now: 5000, ..idle() });
        k += (valid && o.ready) as usize;
        if let Some(s) = ro.take(&o).unwrap() {
            synopses.push(s);
        }
    }
    let counts: Vec<(u32, u64)> = synopses.iter().map(|s| (s.interval, s.packets)).collect();
    assert_eq!(counts, vec![(0, 2), (1, 2), (2, 1)], "intervals [0, 1000), [1000, 1300), [1300, 1600)");
}

#[test]
fn read_stages_change_timing_not_synopses() {
    // The same stream through cores with 0, 1 and 2 extra read stages, and the golden model.
    let pkts: Vec<(u64, u64)> = (0..4000u64).map(|i| (i * 7919 % 500, 4800 + i * 2 + (i / 900) * 3000)).collect();
    let mut want = None;
    for read_stages in 0..=RDA_MAX_READ_STAGES {
        let cfg = RdaConfig {
            banks: 2,
            buckets: 61,
            tsum_bits: 40,
            t0: 5000,
            interval_ticks: 700,
            guard_ticks: 50,
            read_stages,
            ..Default::default()
        };
        let mut g = RdaGolden::new(&cfg);
        let mut golden = Vec::new();
        for &(id, t) in &pkts {
            g.packet(id, t, &mut golden);
        }
        let end = pkts.last().unwrap().1 + 10_000;
        g.advance(end, &mut golden);
        let mut m = RdaCycle::new(&cfg);
        let mut ro = RdaReadout::new(&cfg);
        let mut got = Vec::new();
        let mut k = 0;
        for _ in 0..200_000 {
            let valid = k < pkts.len();
            let (id, ts) = pkts.get(k).copied().unwrap_or((0, 0));
            let o = m.step(&RdaInputs { valid, id, ts, now_valid: !valid, now: end, ..idle() });
            k += (valid && o.ready) as usize;
            if let Some(s) = ro.take(&o).unwrap() {
                got.push(s);
            }
        }
        assert!(golden.len() > 5, "{} intervals", golden.len());
        assert_eq!(got, golden, "read stages {read_stages}");
        let buckets: Vec<_> = got.iter().map(|s| s.buckets.clone()).collect();
        match &want {
            None => want = Some(buckets),
            Some(w) => assert_eq!(&buckets, w, "read stages {read_stages} change a synopsis"),
        }
    }
}
