//! Station scenarios run on SQLite and on PostgreSQL alike.
#![allow(dead_code)]

pub mod dbm;
pub mod fridge;
pub mod rda;

use crate::common::*;
use netmeas_sim::lda::estimate;
use netmeas_station::db::{Access, Db, Val};
use netmeas_station::query;
use netmeas_station::{Ingested, Station, StationConfig};
use std::path::Path;

fn count(db: &mut Db, table: &str) -> i64 {
    db.query(&format!("SELECT COUNT(*) FROM {table}"), &[]).unwrap()[0][0].int("count").unwrap()
}

/// Three segments in a chain, five epochs each, ingested in a mixed order
/// (sender first on some, receiver first on others): every segment epoch is
/// estimated exactly as the host estimator does from the same pair, the
/// path's latency is the sum of its segments', and nothing is left unpaired.
pub fn chain_is_paired_estimated_and_summed(target: &str, dir: &Path) {
    let cfg = StationConfig::parse(&chain_station(target, 3), dir).unwrap();
    let mut st = Station::open(cfg, target).unwrap();
    let lda = lda_config();
    // Segment k: mean delay 1 µs × (k + 1), and a 20 µs spike on segment 1 in epoch 3.
    let segs: Vec<_> = (0..3)
        .map(|k| {
            segment_epochs(&lda, 5, 20_000, 0.01, 11 + k as u64, move |e| {
                1_000.0 * (k + 1) as f64 + if k == 1 && e == 3 { 20_000.0 } else { 0.0 }
            })
        })
        .collect();
    for e in 0..5 {
        for (k, seg) in segs.iter().enumerate() {
            let (s, r) = &seg[e];
            let first_sender = (e + k) % 2 == 0;
            let order = if first_sender { [("sender", s), ("receiver", r)] } else { [("receiver", r), ("sender", s)] };
            for (n, (end, syn)) in order.into_iter().enumerate() {
                let point = if end == "sender" { format!("r{k}.egress") } else { format!("r{}.ingress", k + 1) };
                let got = st.ingest(&point, "test", &synopsis_json(syn, end)).unwrap();
                let Ingested::Stored { seq, t_ns, paired } = got else { panic!("{got:?}") };
                assert_eq!((seq, t_ns), (e as u64, START_NS + e as i64 * 1_000_000_000));
                assert_eq!(paired, if n == 1 { vec![format!("l{k}")] } else { vec![] }, "epoch {e} segment {k}");
            }
        }
    }
    let db = st.db();
    assert_eq!(count(db, "synopsis"), 30);
    for (k, seg) in segs.iter().enumerate() {
        let rows = query::latency(db, &format!("l{k}"), START_NS, START_NS + 10_000_000_000).unwrap();
        assert_eq!(rows.len(), 5);
        for (e, row) in rows.iter().enumerate() {
            let want = estimate(&seg[e].0, &seg[e].1).unwrap();
            assert_eq!((row.seq, row.sent, row.received), (e as i64, want.sent as i64, want.received as i64));
            assert_eq!(row.samples, want.samples as i64);
            assert_eq!(row.mean_ns, Some(want.mean));
            assert_eq!(row.std_ns, Some(want.std));
            assert_eq!(row.bound98_ns, Some(want.mean_bound_98));
            assert_eq!(row.loss, Some(want.loss));
            assert!(row.unusable.is_none());
        }
    }
    // A window selects by epoch start, [from, to).
    let two = query::latency(db, "l1", START_NS + 1_000_000_000, START_NS + 3_000_000_000).unwrap();
    assert_eq!(two.iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2]);
    let names: Vec<String> = (0..3).map(|k| format!("l{k}")).collect();
    let path = query::path_latency(db, &names, START_NS, START_NS + 10_000_000_000).unwrap();
    assert_eq!(path.epochs.len(), 5);
    assert!(path.incomplete.is_empty());
    for (e, row) in path.epochs.iter().enumerate() {
        let est: Vec<_> = segs.iter().map(|s| estimate(&s[e].0, &s[e].1).unwrap()).collect();
        let mean: f64 = est.iter().map(|x| x.mean).sum();
        let var: f64 = est.iter().map(|x| x.std * x.std).sum();
        assert_eq!(row.mean_ns, mean);
        assert_eq!(row.std_ns, var.sqrt());
        // The spike is where it was injected: segment l1, epoch 3.
        let worst = (0..3).max_by(|&a, &b| row.segment_means_ns[a].total_cmp(&row.segment_means_ns[b])).unwrap();
        if e == 3 {
            assert_eq!(worst, 1);
            assert!(row.segment_means_ns[1] > 15_000.0, "{row:?}");
        } else {
            assert_eq!(worst, 2, "epoch {e}: {row:?}");
        }
    }
    assert!(query::unpaired(db).unwrap().is_empty());
    assert!(query::rejections(db).unwrap().is_empty());
}

/// Re-ingesting an epoch changes nothing; another synopsis for a stored
/// epoch, an older epoch, a sender without its receiver, and bad synopses
/// are each handled as the station promises: refused and logged with point
/// and epoch, never stored; the unpaired end kept and reported.
pub fn epochs_are_idempotent_and_bad_ones_refused(target: &str, dir: &Path) {
    let cfg = StationConfig::parse(&chain_station(target, 1), dir).unwrap();
    let mut st = Station::open(cfg, target).unwrap();
    let lda = lda_config();
    let seg = segment_epochs(&lda, 4, 5_000, 0.0, 5, |_| 500.0);
    let (s0, r0) = (synopsis_json(&seg[0].0, "sender"), synopsis_json(&seg[0].1, "receiver"));
    assert!(matches!(st.ingest("r0.egress", "a", &s0).unwrap(), Ingested::Stored { .. }));
    assert!(matches!(st.ingest("r1.ingress", "a", &r0).unwrap(), Ingested::Stored { .. }));
    assert_eq!(st.ingest("r0.egress", "again", &s0).unwrap(), Ingested::AlreadyStored { seq: 0 });
    assert_eq!(st.ingest("r1.ingress", "again", &r0).unwrap(), Ingested::AlreadyStored { seq: 0 });
    let db = st.db();
    assert_eq!((count(db, "synopsis"), count(db, "latency")), (2, 1));

    // Epoch 2 of the sender only: kept, reported unpaired, not estimated.
    st.ingest("r0.egress", "a", &synopsis_json(&seg[2].0, "sender")).unwrap();
    let un = query::unpaired(st.db()).unwrap();
    assert_eq!(un.len(), 1);
    assert_eq!((un[0].segment.as_str(), un[0].seq, un[0].have.as_str()), ("l0", 2, "sender"));

    let mut changed = seg[0].0.clone();
    changed.rows[0].0 += 1;
    changed.sampled += 1;
    changed.packets += 1;
    let mut other_cfg = seg[1].0.clone();
    other_cfg.config.seed ^= 1;
    let mut short = seg[1].0.clone();
    short.rows.pop();
    let cases: Vec<(&str, String, &str)> = vec![
        ("r9.egress", s0.clone(), "no such point in the station file"),
        ("r0.egress", synopsis_json(&changed, "sender"), "already stored with a different synopsis"),
        ("r0.egress", synopsis_json(&seg[1].0, "sender"), "out of order: epoch 2 is already stored"),
        ("r0.egress", s0[..s0.len() / 2].to_string(), "bad JSON"),
        ("r0.egress", "[1, 2]".to_string(), "not a JSON object"),
        ("r1.ingress", synopsis_json(&other_cfg, "receiver"), "its LDA config differs from the point's"),
        ("r1.ingress", synopsis_json(&short, "receiver"), "rows, config says"),
        ("r1.ingress", synopsis_json(&seg[1].0, "sender"), "swapped?"),
    ];
    for (point, body, why) in &cases {
        let e = st.ingest(point, "bad.json", body).unwrap_err();
        assert!(e.contains(why) && e.contains(point) && e.contains("bad.json"), "{e}");
    }
    let db = st.db();
    assert_eq!((count(db, "synopsis"), count(db, "latency")), (3, 1), "nothing refused was stored");
    let rej = query::rejections(db).unwrap();
    assert_eq!(rej.len(), cases.len());
    for (r, (point, _, why)) in rej.iter().zip(&cases) {
        assert!(r.point == *point && r.reason.contains(why) && r.source == "bad.json", "{r:?}");
    }
    // The epoch number is logged whenever the synopsis had one.
    assert_eq!(
        rej.iter().map(|r| r.seq).collect::<Vec<_>>(),
        [Some(0), Some(0), Some(1), None, None, Some(1), Some(1), Some(1)]
    );

    // A point whose settings changed is refused as a whole station.
    drop(st);
    let moved = chain_station(target, 1).replace("epoch = \"1s\"", "epoch = \"2s\"");
    let e = Station::open(StationConfig::parse(&moved, dir).unwrap(), target).err().unwrap();
    assert!(e.contains("point `r0.egress` is stored with another epoch"), "{e}");

    // A read-only open sees the same store.
    let mut ro = Db::open(target, Access::Read).unwrap();
    assert_eq!(count(&mut ro, "synopsis"), 3);
    assert_eq!(
        ro.query("SELECT COUNT(*) FROM point WHERE name = $1", &[Val::from("r0.egress")]).unwrap()[0][0],
        Val::Int(1)
    );
}

/// Three links with an EXPB point each, five 2 s periods at a varying load,
/// bursts injected at known times on two of them: the burst query finds
/// every injected burst, on its link, at its time, with its flow as the
/// culprit, and nothing else; by link set and by time window.
pub fn bursts_are_found_where_injected(target: &str, dir: &Path) {
    use netmeas_sim::dbm::ExpbConfig;
    use netmeas_station::fleet::{ExpbLink, InjectedBurst};
    let mut file = format!("database = {target:?}\n");
    for l in ["a", "b", "c"] {
        file += &format!(
            "[[point]]\nname = \"{l}.bw\"\nrouter = \"r-{l}\"\nlink = \"{l}\"\ndirection = \"egress\"\ncore = \"expb\"\n\
             epoch = \"2s\"\nstart = \"2026-12-01T00:00:00Z\"\n"
        );
    }
    let mut st = Station::open(StationConfig::parse(&file, dir).unwrap(), target).unwrap();
    let cfg = ExpbConfig::default();
    let burst = |offset_ms: u64, flow: u32| InjectedBurst {
        offset_ns: offset_ms * 1_000_000,
        duration_ns: 4_000_000,
        rate_bps: 9e9,
        flow,
    };
    // (link, epoch, burst)
    let injected = [("a", 1u64, burst(300, 1001)), ("b", 1, burst(1500, 1002)), ("b", 3, burst(10, 1003))];
    let mut periods = Vec::new();
    for (k, l) in ["a", "b", "c"].into_iter().enumerate() {
        let mut link = ExpbLink::new(&cfg, 70 + k as u64).unwrap();
        for e in 0..5u64 {
            let load = 1e9 * (0.5 + 0.25 * e as f64);
            let here: Vec<InjectedBurst> = injected.iter().filter(|i| i.0 == l && i.1 == e).map(|i| i.2).collect();
            let syn = link.epoch(load, &here);
            assert_eq!(syn.period.index, e);
            let got = st.ingest(&format!("{l}.bw"), "fleet", &serde_json::to_string(&syn).unwrap()).unwrap();
            assert!(matches!(got, Ingested::Stored { .. }), "{got:?}");
            periods.push((l, e, syn));
        }
    }
    let db = st.db();
    let scales = cfg.scales as i64;
    assert_eq!(count(db, "bandwidth"), 15 * scales);
    let far = START_NS + 100_000_000_000;
    let found = query::bursts(db, &[], 1_000_000, 5e9, START_NS, far).unwrap();
    assert_eq!(found.len(), injected.len(), "{found:#?}");
    let dj = 1_250_000; // the smallest Δ_j ≥ 1 ms: 2^4 × 78.125 µs
    for (f, (l, e, b)) in found.iter().zip(&injected) {
        let epoch_ns = START_NS + *e as i64 * 2_000_000_000;
        let at = epoch_ns + b.offset_ns as i64;
        assert_eq!((f.link.as_str(), f.burst.epoch_ns, f.burst.scale_ns), (*l, epoch_ns, dj), "{f:?}");
        assert!(f.burst.t_ns >= at - dj && f.burst.t_ns < at + b.duration_ns as i64, "{f:?} vs {at}");
        assert_eq!(f.burst.culprit, Some(b.flow));
        // The rate is the core's own maximum at that scale, in bits/s.
        let syn = &periods.iter().find(|p| p.0 == *l && p.1 == *e).unwrap().2;
        assert_eq!(f.burst.rate_bps, syn.period.scales[4].max as f64 * 8e9 / dj as f64);
        assert!(f.burst.rate_bps > 5e9 && f.burst.rate_bps < 12e9, "{f:?}");
    }
    // A link set, and a window of epoch starts.
    let a_c = query::bursts(db, &["a".into(), "c".into()], 1_000_000, 5e9, START_NS, far).unwrap();
    assert_eq!(a_c.iter().map(|f| f.link.as_str()).collect::<Vec<_>>(), ["a"]);
    let epoch1 = query::bursts(db, &[], 1_000_000, 5e9, START_NS + 2_000_000_000, START_NS + 4_000_000_000).unwrap();
    assert_eq!(epoch1.iter().map(|f| f.burst.culprit).collect::<Vec<_>>(), [Some(1001), Some(1002)]);
    // Coincidences across links: a's burst (2.3 s) and b's first (3.5 s) are
    // 1.2 s apart, b's second (6.01 s) 2.51 s after that.
    let mut within = |w_ms: i64, links: &[String]| {
        query::coincident(query::bursts(db, links, 1_000_000, 5e9, START_NS, far).unwrap(), w_ms * 1_000_000).unwrap()
    };
    let c = within(1_500, &[]);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0].links, ["a", "b"]);
    assert_eq!(c[0].bursts.iter().map(|b| b.burst.culprit).collect::<Vec<_>>(), [Some(1001), Some(1002)]);
    assert_eq!((c[0].first_ns, c[0].last_ns), (found[0].burst.t_ns, found[1].burst.t_ns));
    assert!(within(1_000, &[]).is_empty(), "1.2 s apart is not within 1 s");
    assert_eq!(within(3_000, &[])[0].bursts.len(), 3, "b's second burst chains on");
    assert!(within(10_000, &["b".into()]).is_empty(), "one link's bursts are no coincidence");
    // Nothing above the link's capacity at the coarsest scale.
    assert!(query::bursts(db, &[], 80_000_000, 10e9, START_NS, far).unwrap().is_empty());
    for (links, scale, why) in [
        (vec!["z".to_string()], 1_000_000, "no point on link `z`"),
        (vec![], 10_000, "finest time scale is 78125 ns"),
        (vec![], 1_000_000_000, "coarser"),
    ] {
        let e = query::bursts(db, &links, scale, 5e9, START_NS, far).unwrap_err();
        assert!(e.contains(why), "{e}");
    }

    // Impossible or foreign periods are refused.
    let mut bad = periods[0].2.clone();
    bad.period.index = 9;
    bad.period.scales[2].count += 1;
    let e = st.ingest("a.bw", "bad", &serde_json::to_string(&bad).unwrap()).unwrap_err();
    assert!(e.contains("scale 2's statistics are impossible"), "{e}");
    let mut other = periods[0].2.clone();
    other.period.index = 9;
    other.config.scales = 10;
    let e = st.ingest("a.bw", "bad", &serde_json::to_string(&other).unwrap()).unwrap_err();
    assert!(e.contains("EXPB config differs"), "{e}");
    assert_eq!(count(st.db(), "synopsis"), 15);
}

/// One transaction for many epochs, a savepoint each: the good epochs of a
/// batch are stored and paired, the bad ones refused and logged alone. An
/// epoch that fails after its first row was written (the bandwidth table is
/// gone) leaves nothing, and the next epoch of the same day still finds its
/// day partition (on PostgreSQL the failed epoch's partition went with it).
pub fn a_batch_keeps_its_good_epochs(target: &str, dir: &Path) {
    use netmeas_sim::dbm::ExpbConfig;
    use netmeas_station::fleet::ExpbLink;
    use netmeas_station::ingest::Epoch;
    let file = chain_station(target, 1)
        + "[[point]]\nname = \"r0.bw\"\nrouter = \"r0\"\nlink = \"l0\"\ndirection = \"egress\"\ncore = \"expb\"\n\
           epoch = \"2s\"\nstart = \"2026-12-01T00:00:00Z\"\n";
    let mut st = Station::open(StationConfig::parse(&file, dir).unwrap(), target).unwrap();
    let seg = segment_epochs(&lda_config(), 3, 3_000, 0.0, 21, |_| 700.0);
    let expb = ExpbLink::new(&ExpbConfig::default(), 4).unwrap().epoch(2e9, &[]);
    st.db().execute("DROP TABLE bandwidth", &[]).unwrap();
    let bodies: Vec<(&str, String)> = vec![
        ("r0.bw", serde_json::to_string(&expb).unwrap()),
        ("r0.egress", synopsis_json(&seg[0].0, "sender")),
        ("r0.egress", "{\"seq\": 1, \"rows\"".into()),
        ("r1.ingress", synopsis_json(&seg[0].1, "receiver")),
        ("r1.ingress", synopsis_json(&seg[1].0, "sender")),
        ("r0.egress", synopsis_json(&seg[2].0, "sender")),
        ("r1.ingress", synopsis_json(&seg[2].1, "receiver")),
    ];
    let epochs: Vec<Epoch<'_>> =
        bodies.iter().map(|(point, body)| Epoch { point, source: "batch", body: body.as_str(), link: None }).collect();
    let out = st.ingest_batch(&epochs).unwrap();
    assert_eq!(out.len(), 7);
    assert!(out[0].as_ref().unwrap_err().contains("bandwidth"), "{:?}", out[0]);
    assert!(out[2].as_ref().unwrap_err().contains("bad JSON"), "{:?}", out[2]);
    assert!(out[4].as_ref().unwrap_err().contains("swapped?"), "{:?}", out[4]);
    let stored: Vec<(u64, Vec<String>)> = [1, 3, 5, 6]
        .iter()
        .map(|&k| match out[k].clone().unwrap() {
            Ingested::Stored { seq, paired, .. } => (seq, paired),
            other => panic!("epoch {k}: {other:?}"),
        })
        .collect();
    let l0 = vec!["l0".to_string()];
    assert_eq!(stored, [(0, vec![]), (0, l0.clone()), (2, vec![]), (2, l0)]);
    let db = st.db();
    assert_eq!((count(db, "synopsis"), count(db, "latency")), (4, 2));
    let rej = query::rejections(db).unwrap();
    let logged: Vec<(&str, Option<i64>)> = rej.iter().map(|r| (r.point.as_str(), r.seq)).collect();
    assert_eq!(logged, [("r0.bw", Some(0)), ("r0.egress", None), ("r1.ingress", Some(1))]);
    let rows = query::latency(db, "l0", START_NS, START_NS + 10_000_000_000).unwrap();
    for (row, e) in rows.iter().zip([0usize, 2]) {
        assert_eq!(row.mean_ns, Some(estimate(&seg[e].0, &seg[e].1).unwrap().mean));
    }
}

/// Roll-up on a retention policy (bandwidth paper §4): two and a half hours
/// of 2 s EXPB periods, starting two hours before midnight, with bursts in
/// the first hour and none in the second (so that equal maxima decide); as
/// of 01:05, with `rollup` and `raw` both an hour, the two hours before
/// midnight are collapsed into one row per scale each, bit for bit what the
/// same core reports for the same packets with a period of an hour, their
/// raw synopses are dropped (on PostgreSQL their day's partition as a
/// whole), the half hour after midnight stays per period, an epoch before
/// the horizon is refused, and a second roll-up changes nothing.
pub fn rollup_collapses_hours_like_an_hour_long_period(target: &str, dir: &Path) {
    use netmeas_sim::dbm::{ExpbConfig, ExpbGolden};
    use netmeas_station::config::HOUR_NS;
    use netmeas_station::fleet::{ExpbLink, InjectedBurst};
    use netmeas_station::ingest::Epoch;
    let start = START_NS - 2 * HOUR_NS;
    let file = format!(
        "database = {target:?}\n[retention]\nrollup = \"1h\"\nraw = \"1h\"\n\
         [[point]]\nname = \"a.bw\"\nrouter = \"r-a\"\nlink = \"a\"\ndirection = \"egress\"\ncore = \"expb\"\n\
         epoch = \"2s\"\nstart = \"2026-11-30T22:00:00Z\"\n\
         config = {{ scales = 4, base_ticks = 10000000, period_ticks = 2000000000 }}\n"
    );
    let mut st = Station::open(StationConfig::parse(&file, dir).unwrap(), target).unwrap();
    let cfg = ExpbConfig { scales: 4, base_ticks: 10_000_000, period_ticks: 2_000_000_000 };
    let hourly = ExpbConfig { period_ticks: HOUR_NS as u64, ..cfg.clone() };
    let mut link = ExpbLink::new(&cfg, 31).unwrap();
    let mut golden = ExpbGolden::new(&hourly).unwrap();
    let mut hours = Vec::new();
    let mut bodies = Vec::new();
    for e in 0..4500u64 {
        let burst =
            InjectedBurst { offset_ns: 500_000_000, duration_ns: 30_000_000, rate_bps: 1e9, flow: 500 + e as u32 };
        let here = if e % 97 == 5 && e < 1800 { vec![burst] } else { vec![] };
        let (syn, packets) = link.epoch_with_packets(2e6 + (e % 7) as f64 * 1e6, &here);
        for p in &packets {
            golden.push(p, &mut hours).unwrap();
        }
        bodies.push(serde_json::to_string(&syn).unwrap());
    }
    assert_eq!(hours.len(), 2, "the two hours before midnight closed");
    for chunk in bodies.chunks(256) {
        let epochs: Vec<Epoch<'_>> =
            chunk.iter().map(|b| Epoch { point: "a.bw", source: "fleet", body: b, link: None }).collect();
        assert!(st.ingest_batch(&epochs).unwrap().iter().all(Result::is_ok));
    }

    let now = START_NS + HOUR_NS + 300_000_000_000;
    let r = st.rollup(now).unwrap();
    assert_eq!((r.rolled_before_ns, r.raw_before_ns), (START_NS, START_NS));
    assert_eq!((r.points[0].rolled.hours, r.points[0].rolled.epochs, r.points[0].raw_dropped), (2, 3600, 3600));
    let day = netmeas_station::db::partition_name("synopsis", start / netmeas_station::db::DAY_NS);
    let postgres = netmeas_station::db::is_postgres(target);
    assert_eq!(r.partitions_dropped, if postgres { vec![day] } else { vec![] });

    let rows = |db: &mut Db| {
        db.query(
            "SELECT t_ns, scale_ns, periods, intervals, mean_bps, std_bps, max_bps, max_t_ns, culprit \
             FROM bandwidth ORDER BY t_ns, scale_ns",
            &[],
        )
        .unwrap()
    };
    let stored = rows(st.db());
    assert_eq!(stored.len(), 2 * 4 + 900 * 4);
    for (h, period) in hours.iter().enumerate() {
        let t0 = start + h as i64 * HOUR_NS;
        for (j, s) in period.scales.iter().enumerate() {
            let dj = (cfg.base_ticks << j) as i64;
            let bps = |bytes: f64| bytes * 8e9 / dj as f64;
            let want = vec![
                Val::Int(t0),
                Val::Int(dj),
                Val::Int(1800),
                Val::Int(s.count as i64),
                Val::Real(bps(s.mean())),
                Val::Real(bps(s.std())),
                Val::Real(bps(s.max as f64)),
                Val::Int(t0 + s.max_index as i64 * dj),
                Val::Int(i64::from(s.max_flow)),
            ];
            assert_eq!(stored[h * 4 + j], want, "hour {h}, scale {j}");
        }
    }
    assert!(stored[8..].iter().all(|r| r[2] == Val::Int(1)), "the half hour after midnight stays per period");
    // The first hour's largest burst at 10 ms, found with its culprit and the hour it stands for.
    let found = query::bursts(st.db(), &["a".into()], 10_000_000, 5e8, start, START_NS).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].burst.epoch_ns, found[0].burst.periods), (start, 1800));
    assert_eq!(found[0].burst.culprit, Some(hours[0].scales[0].max_flow));
    assert!(hours[0].scales[0].max_flow >= 500);
    assert_eq!(count(st.db(), "synopsis"), 900);

    // Before the horizon: refused and logged; after it: stored as usual.
    let e = st.ingest("a.bw", "late", &bodies[10]).unwrap_err();
    assert!(e.contains("roll-up horizon"), "{e}");
    assert_eq!(st.ingest("a.bw", "again", &bodies[4000]).unwrap(), Ingested::AlreadyStored { seq: 4000 });
    let again = st.rollup(now).unwrap();
    assert_eq!((again.points[0].rolled.hours, again.points[0].raw_dropped), (0, 0));
    assert!(again.partitions_dropped.is_empty());
    assert_eq!(rows(st.db()), stored);
}

/// The fleet simulator: 8 links for a minute around the busiest hour, 6
/// microbursts and 6 latency spikes injected; the station's burst and
/// latency queries find each where it was injected and nothing else, and
/// the same checks against a truth with one event moved report it.
pub fn fleet_finds_what_was_injected(target: &str) {
    use netmeas_station::scenario::{self, FleetPlan};
    let plan = FleetPlan {
        links: 8,
        start_ns: START_NS + 15 * 3_600_000_000_000,
        epochs: 30,
        peak_load_bps: 1e8,
        bursts: 6,
        spikes: 6,
        seed: 7,
    };
    let mut seen = Vec::new();
    let (report, truth) = scenario::run(target, &plan, |k| seen.push(k)).unwrap();
    assert_eq!(seen, (1..=30).collect::<Vec<_>>());
    assert_eq!(report.epochs_stored, 8 * 30 * 3);
    assert!(report.passed(), "{report:#?}");
    assert_eq!((report.bursts.found, report.spikes.found), (6, 6));
    assert_eq!(truth.bursts.len(), 6);
    let distinct: std::collections::BTreeSet<_> = truth.bursts.iter().map(|b| (&b.link, b.seq)).collect();
    assert_eq!(distinct.len(), 6, "one burst per link and epoch");

    // Against a truth with the first burst and spike moved to another link,
    // the same checks name the miss and the false positive.
    let mut moved = truth.clone();
    let b = &mut moved.bursts[0];
    let other = |l: &str| format!("l{}", (l[1..].parse::<usize>().unwrap() + 1) % 8);
    let was = b.link.clone();
    b.link = other(&was);
    let s = &mut moved.spikes[0];
    s.segment = other(&s.segment.clone());
    let mut db = Db::open(target, Access::Read).unwrap();
    let bursts = scenario::check_bursts(&mut db, &plan, &moved).unwrap();
    let spikes = scenario::check_spikes(&mut db, &plan, &moved).unwrap();
    for c in [&bursts, &spikes] {
        assert!(!c.passed() && c.found == 5 && c.missed.len() == 1 && c.false_positives.len() == 1, "{c:#?}");
    }
    assert!(bursts.false_positives[0].starts_with(&format!("{was} at ")), "{bursts:#?}");
    assert!(scenario::run(target, &FleetPlan { links: 0, ..plan.clone() }, |_| {}).is_err());
}

/// Three station processes (threads, each with its own connection) opening
/// one new database at once, as readers of three boards started together
/// do: one creates and migrates it, each registers the same points and
/// segments without failing, and each stores its own segment's epochs.
pub fn stations_opened_together_share_one_database(target: &str, dir: &Path) {
    let text = chain_station(target, 3);
    let lda = lda_config();
    let barrier = std::sync::Barrier::new(3);
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..3)
            .map(|k| {
                let (text, lda, barrier) = (&text, &lda, &barrier);
                s.spawn(move || {
                    let cfg = StationConfig::parse(text, dir).unwrap();
                    let seg = segment_epochs(lda, 2, 2_000, 0.0, 40 + k as u64, |_| 700.0);
                    barrier.wait();
                    let mut st = Station::open(cfg, target)?;
                    for (snd, rcv) in &seg {
                        st.ingest(&format!("r{k}.egress"), "t", &synopsis_json(snd, "sender"))?;
                        st.ingest(&format!("r{}.ingress", k + 1), "t", &synopsis_json(rcv, "receiver"))?;
                    }
                    Ok::<_, String>(())
                })
            })
            .collect();
        for (k, r) in runs.into_iter().enumerate() {
            r.join().unwrap().unwrap_or_else(|e| panic!("station {k}: {e}"));
        }
    });
    let mut db = Db::open(target, Access::Read).unwrap();
    assert_eq!((count(&mut db, "point"), count(&mut db, "segment")), (6, 3));
    assert_eq!((count(&mut db, "synopsis"), count(&mut db, "latency")), (12, 6));
}
