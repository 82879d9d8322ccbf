//! DBM points in the station (Uyeda et al. §3.1): partitions stored per
//! period, the bandwidth at any time scale answered from them as the host's
//! query does from the same buckets, bursts found where injected, and an
//! hour of periods rolled up into m buckets.

use super::count;
use crate::common::*;
use netmeas_sim::dbm::{BwPacket, DbmConfig, DbmGolden, DbmSynopsis, ExpbConfig, dbm_series, series_stats};
use netmeas_station::config::HOUR_NS;
use netmeas_station::fleet::{ExpbLink, InjectedBurst};
use netmeas_station::ingest::Epoch;
use netmeas_station::query;
use netmeas_station::{Ingested, Station, StationConfig};
use std::path::Path;

/// A link's traffic, as the fleet's bandwidth links make it, measured by a DBM core of `cfg`.
struct DbmLink {
    traffic: ExpbLink,
    core: DbmGolden,
    cfg: DbmConfig,
}

impl DbmLink {
    fn new(cfg: &DbmConfig, seed: u64) -> Self {
        let period = ExpbConfig { period_ticks: cfg.period_ticks, ..ExpbConfig::default() };
        DbmLink { traffic: ExpbLink::new(&period, seed).unwrap(), core: DbmGolden::new(cfg).unwrap(), cfg: cfg.clone() }
    }

    /// The next period's synopsis and its packets.
    fn epoch(&mut self, load_bps: f64, bursts: &[InjectedBurst]) -> (DbmSynopsis, Vec<BwPacket>) {
        let (_, packets) = self.traffic.epoch_with_packets(load_bps, bursts);
        let mut closed = Vec::new();
        for p in &packets {
            self.core.push(p, &mut closed).unwrap();
        }
        assert!(closed.is_empty(), "every packet is inside the period");
        (DbmSynopsis { config: self.cfg.clone(), period: self.core.finish() }, packets)
    }
}

fn point(name: &str, link: &str, core: &str, start: &str, config: &str) -> String {
    format!(
        "[[point]]\nname = \"{name}\"\nrouter = \"r-{link}\"\nlink = \"{link}\"\ndirection = \"egress\"\n\
         core = \"{core}\"\nepoch = \"2s\"\nstart = \"{start}\"\n{config}"
    )
}

/// Two links with DBM points (the default 1 024 buckets, per packet) and one
/// with an EXPB point, bursts injected at known times: the burst query finds
/// each on its link, in its epoch and interval, with its flow, at scales EXPB
/// does not measure as well as at those it does; every row of a point's
/// bandwidth equals the host's S_Δ statistics of the same buckets.
pub fn dbm_bursts_are_found_at_any_scale(target: &str, dir: &Path) {
    let start = "2026-12-01T00:00:00Z";
    let mut file = format!("database = {target:?}\n");
    file += &point("a.dbm", "a", "dbm", start, "");
    file += &point("b.dbm", "b", "dbm", start, "");
    file += &point("c.bw", "c", "expb", start, "");
    let mut st = Station::open(StationConfig::parse(&file, dir).unwrap(), target).unwrap();
    let cfg = DbmConfig::default();
    let burst = |offset_ms: u64, flow: u32| InjectedBurst {
        offset_ns: offset_ms * 1_000_000,
        duration_ns: 4_000_000,
        rate_bps: 9e9,
        flow,
    };
    let injected = [("a", 1u64, burst(300, 1001)), ("b", 2, burst(1500, 1002)), ("b", 3, burst(10, 1003))];
    let mut periods = Vec::new();
    for (k, l) in ["a", "b"].into_iter().enumerate() {
        let mut link = DbmLink::new(&cfg, 90 + k as u64);
        for e in 0..4u64 {
            let here: Vec<InjectedBurst> = injected.iter().filter(|i| i.0 == l && i.1 == e).map(|i| i.2).collect();
            let (syn, _) = link.epoch(1e9 * (0.5 + 0.25 * e as f64), &here);
            assert_eq!(syn.period.index, e);
            let got = st.ingest(&format!("{l}.dbm"), "sim", &serde_json::to_string(&syn).unwrap()).unwrap();
            assert!(matches!(got, Ingested::Stored { .. }), "{got:?}");
            periods.push((l, e, syn));
        }
    }
    let mut expb = ExpbLink::new(&ExpbConfig::default(), 7).unwrap();
    for _ in 0..4 {
        st.ingest("c.bw", "sim", &serde_json::to_string(&expb.epoch(5e8, &[])).unwrap()).unwrap();
    }
    let db = st.db();
    assert_eq!(count(db, "dbm_partition"), 8);
    let far = START_NS + 100_000_000_000;
    let links = ["a".to_string(), "b".to_string()];
    // At 1 ms (an EXPB scale would be 1.25 ms) and 200 µs: DBM answers at the scale asked.
    for scale in [1_000_000i64, 200_000] {
        let found = query::bursts(db, &links, scale, 5e9, START_NS, far).unwrap();
        assert_eq!(found.len(), injected.len(), "{scale} ns: {found:#?}");
        for (f, (l, e, b)) in found.iter().zip(&injected) {
            let epoch_ns = START_NS + *e as i64 * 2_000_000_000;
            let at = epoch_ns + b.offset_ns as i64;
            assert_eq!((f.link.as_str(), f.point.as_str()), (*l, format!("{l}.dbm").as_str()));
            assert_eq!((f.burst.epoch_ns, f.burst.scale_ns, f.burst.periods), (epoch_ns, scale, 1), "{f:?}");
            assert!(f.burst.t_ns > at - scale && f.burst.t_ns < at + b.duration_ns as i64, "{f:?} vs {at}");
            assert_eq!(f.burst.culprit, Some(b.flow), "{f:?}");
            assert!(f.burst.rate_bps > 5e9 && f.burst.rate_bps < 12e9, "{f:?}");
        }
    }
    // Every link: the EXPB point answers alongside (nothing above 5 Gbit/s at 500 Mbit/s).
    assert_eq!(query::bursts(db, &[], 1_000_000, 5e9, START_NS, far).unwrap().len(), 3);

    // Each row equals the host's Theorem 1 series of the same buckets: its
    // maximum, where it is, its mean and standard deviation.
    for delta in [1_000_000u64, 7_000_000, 100_000_000] {
        for l in ["a", "b"] {
            let rows = query::bandwidth(db, &format!("{l}.dbm"), delta as i64, START_NS, far).unwrap();
            assert_eq!(rows.len(), 4);
            for (row, (_, e, syn)) in rows.iter().zip(periods.iter().filter(|p| p.0 == l)) {
                let t0 = e * cfg.period_ticks;
                let series = dbm_series(&syn.period.buckets, t0, cfg.period_ticks, delta);
                let s = series_stats(&series);
                let first_max = series.iter().position(|&v| v == s.max).unwrap() as u64;
                let bps = |bytes: f64| bytes * 8e9 / delta as f64;
                let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
                assert!(close(row.max_bps, bps(s.max)), "{l} {e} {delta}: {} vs {}", row.max_bps, bps(s.max));
                assert!(close(row.mean_bps, bps(s.mean)) && close(row.std_bps, bps(s.std)), "{l} {e} {delta}");
                let at = row.max_t_ns - row.t_ns;
                // Equal maxima up to rounding may sit in another interval: the value there must match.
                let k = at as u64 / delta;
                assert!(close(series[k as usize], s.max), "{l} {e} {delta}: interval {k} vs {first_max}");
                assert_eq!(at as u64 % delta, 0);
            }
        }
    }
    for (scale, why) in [(3_000_000_000i64, "coarser"), (0, "positive time scale")] {
        let e = query::bursts(db, &links, scale, 5e9, START_NS, far).unwrap_err();
        assert!(e.contains(why), "{e}");
    }

    // Impossible or foreign periods are refused, and nothing of them stored.
    let refuse = |st: &mut Station, s: &DbmSynopsis, why: &str| {
        let e = st.ingest("a.dbm", "bad", &serde_json::to_string(s).unwrap()).unwrap_err();
        assert!(e.contains(why), "{e}");
    };
    let good = &periods[3].2;
    let mut bad = good.clone();
    bad.period.buckets.swap(3, 4);
    refuse(&mut st, &bad, "bucket 4 is impossible");
    let mut bad = good.clone();
    bad.period.packets += 1;
    refuse(&mut st, &bad, "its buckets hold");
    let mut bad = good.clone();
    bad.config.seed ^= 1;
    refuse(&mut st, &bad, "DBM config differs");
    let mut bad = good.clone();
    bad.period.buckets[0].first = 0;
    refuse(&mut st, &bad, "bucket 0 is impossible");
    assert_eq!(count(st.db(), "dbm_partition"), 8);
}

/// Two and a half hours of DBM periods (64 buckets each) rolled up: each
/// whole hour becomes one row of at most 64 buckets in time order holding
/// every byte and packet of its periods; the hour's largest burst is still
/// found at a 1 s scale with its flow; raw synopses are dropped; a second
/// roll-up changes nothing.
pub fn dbm_rollup_keeps_an_hour_in_m_buckets(target: &str, dir: &Path) {
    let start = START_NS - 2 * HOUR_NS;
    let file = format!(
        "database = {target:?}\n[retention]\nrollup = \"1h\"\nraw = \"1h\"\n{}",
        point("a.dbm", "a", "dbm", "2026-11-30T22:00:00Z", "config = { buckets = 64 }\n")
    );
    let mut st = Station::open(StationConfig::parse(&file, dir).unwrap(), target).unwrap();
    let cfg = DbmConfig { buckets: 64, ..DbmConfig::default() };
    let mut link = DbmLink::new(&cfg, 5);
    let burst = InjectedBurst { offset_ns: 400_000_000, duration_ns: 1_000_000_000, rate_bps: 2e9, flow: 4242 };
    let mut bodies = Vec::new();
    let mut per_hour = [(0u64, 0u64); 3];
    for e in 0..4500u64 {
        let here = if e == 1234 { vec![burst] } else { vec![] };
        let (syn, packets) = link.epoch(2e6, &here);
        let h = (e / 1800) as usize;
        per_hour[h].0 += packets.len() as u64;
        per_hour[h].1 += packets.iter().map(|p| u64::from(p.len)).sum::<u64>();
        bodies.push(serde_json::to_string(&syn).unwrap());
    }
    for chunk in bodies.chunks(256) {
        let epochs: Vec<Epoch<'_>> =
            chunk.iter().map(|b| Epoch { point: "a.dbm", source: "sim", body: b, link: None }).collect();
        assert!(st.ingest_batch(&epochs).unwrap().iter().all(Result::is_ok));
    }
    let now = START_NS + HOUR_NS + 300_000_000_000;
    let r = st.rollup(now).unwrap();
    assert_eq!((r.points[0].rolled.hours, r.points[0].rolled.epochs, r.points[0].raw_dropped), (2, 3600, 3600));
    let rows = st
        .db()
        .query("SELECT t_ns, periods, span_ns, packets, bytes, buckets FROM dbm_partition ORDER BY t_ns", &[])
        .unwrap();
    assert_eq!(rows.len(), 2 + 900);
    for (h, r) in rows.iter().take(2).enumerate() {
        let t0 = start + h as i64 * HOUR_NS;
        let got: Vec<i64> = (0..5).map(|i| r[i].int("column").unwrap()).collect();
        assert_eq!(got, [t0, 1800, HOUR_NS, per_hour[h].0 as i64, per_hour[h].1 as i64], "hour {h}");
        let buckets: Vec<netmeas_station::dbm::SpanBucket> =
            serde_json::from_str(&r[5].text("buckets").unwrap().unwrap()).unwrap();
        assert!(buckets.len() <= 64 && buckets.len() > 32, "{}", buckets.len());
        assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].0) && buckets.iter().all(|b| b.0 < b.1));
        assert!(buckets.last().unwrap().1 <= HOUR_NS as u64);
        assert_eq!(buckets.iter().map(|b| b.2).sum::<u64>(), per_hour[h].1);
    }
    // The hour's mean is every byte over the hour, at any scale.
    let hourly = query::bandwidth(st.db(), "a.dbm", HOUR_NS, start, start + 2 * HOUR_NS).unwrap();
    assert_eq!(hourly.len(), 2);
    for (h, row) in hourly.iter().enumerate() {
        let want = per_hour[h].1 as f64 * 8.0 / 3600.0;
        assert!((row.mean_bps - want).abs() < 1e-9 * want && (row.max_bps - want).abs() < 1e-9 * want, "{row:?}");
    }
    // The burst (epoch 1234, hour 0: 2 Gbit/s for 1 s from 0.4 s into its
    // second) at 1 s: found above 1 Gbit/s with its flow, at its time,
    // standing for the hour.
    let at = start + 1234 * 2_000_000_000 + 400_000_000;
    let found = query::bursts(st.db(), &[], 1_000_000_000, 1e9, start, START_NS).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0].burst;
    assert_eq!((f.epoch_ns, f.periods, f.culprit), (start, 1800, Some(4242)));
    assert!(f.t_ns > at - 1_000_000_000 && f.t_ns < at + 1_000_000_000, "{f:?} vs {at}");
    assert_eq!(count(st.db(), "synopsis"), 900);
    let e = st.ingest("a.dbm", "late", &bodies[10]).unwrap_err();
    assert!(e.contains("roll-up horizon"), "{e}");
    let again = st.rollup(now).unwrap();
    assert_eq!((again.points[0].rolled.hours, again.points[0].raw_dropped), (0, 0));
    let after =
        st.db().query("SELECT t_ns, periods, span_ns, packets, bytes, buckets FROM dbm_partition ORDER BY t_ns", &[]);
    assert_eq!(after.unwrap(), rows, "a second roll-up changes nothing");
}
