//! RDA segments in the station (Fu et al. §III, §V): the two ends' synopses
//! of each interval paired, the set difference decoded into the packets
//! lost and reordered, and the delay estimated as the host does.

use super::count;
use crate::common::*;
use netmeas_sim::board::host::LinkStats;
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::rda::{RdaConfig, RdaGolden, RdaHashes, RdaSynopsis, reconcile};
use netmeas_station::ingest::Epoch;
use netmeas_station::query::{self, SerialHealth};
use netmeas_station::{Ingested, Station, StationConfig};
use std::collections::BTreeSet;
use std::path::Path;

/// What one interval was at the two ends: the IDs each saw in it.
struct IntervalTruth {
    sent: BTreeSet<u64>,
    received: BTreeSet<u64>,
}

/// `epochs` intervals of 1 s of a segment whose two ends run RDA cores of
/// `cfg`: 20 000 packets per interval, delays of 10 to 11 µs (40 µs more in
/// interval 2), `lost(e)` packets of interval e dropped, and the last packet
/// of each interval delayed across the boundary. Each interval's synopses and truth.
fn rda_segment(
    cfg: &RdaConfig,
    epochs: u64,
    lost: impl Fn(u64) -> usize,
) -> Vec<(RdaSynopsis, RdaSynopsis, IntervalTruth)> {
    let mut rng = SplitMix64::new(17);
    let (mut tx, mut rx) = (Vec::new(), Vec::new());
    for e in 0..epochs {
        let start = e * 1_000_000_000;
        let mut drop: BTreeSet<usize> = BTreeSet::new();
        while drop.len() < lost(e) {
            drop.insert(rng.below(19_999) as usize);
        }
        for i in 0..20_000usize {
            let id = rng.next_u64();
            let ts = start + i as u64 * 50_000;
            let mut delay = 10_000 + rng.below(1_000) + if e == 2 { 40_000 } else { 0 };
            if i == 19_999 {
                delay = 60_000; // received in the next interval: reordered there
            }
            tx.push((id, ts));
            if !drop.contains(&i) {
                rx.push((id, ts + delay));
            }
        }
    }
    rx.sort_by_key(|p| p.1);
    let end = epochs * 1_000_000_000 + 2_000_000_000;
    let run = |stream: &[(u64, u64)]| {
        let mut core = RdaGolden::new(cfg);
        let mut out = Vec::new();
        core.packets(stream, &mut out);
        core.advance(end, &mut out);
        out
    };
    let (s, r) = (run(&tx), run(&rx));
    let of = |stream: &[(u64, u64)], e: u64| -> BTreeSet<u64> {
        stream.iter().filter(|p| p.1 / 1_000_000_000 == e).map(|p| p.0).collect()
    };
    (0..epochs)
        .map(|e| {
            let k = e as usize;
            assert_eq!((s[k].interval, r[k].interval), (e as u32, e as u32));
            (s[k].clone(), r[k].clone(), IntervalTruth { sent: of(&tx, e), received: of(&rx, e) })
        })
        .collect()
}

/// A segment of two RDA points of 2 × 500 buckets, five intervals, with 30
/// packets lost in each and 400 in the last: each interval's lost and
/// reordered packets are listed exactly (the last as a partial decode), the
/// latency row equals the host's estimate of the same pair, bad synopses
/// are refused, and a segment of an RDA and an LDA point is a config error.
pub fn rda_segments_list_lost_and_reordered_packets(target: &str, dir: &Path) {
    let mut file = format!("database = {target:?}\n");
    for (name, d) in [("a.tx", "egress"), ("a.rx", "ingress")] {
        file += &format!(
            "[[point]]\nname = \"{name}\"\nrouter = \"r-{name}\"\nlink = \"a\"\ndirection = \"{d}\"\ncore = \"rda\"\n\
             config = {{ buckets = 500 }}\nepoch = \"1s\"\nstart = \"2026-12-01T00:00:00Z\"\n"
        );
    }
    file += "[[segment]]\nname = \"a\"\nsender = \"a.tx\"\nreceiver = \"a.rx\"\n";
    let mut st = Station::open(StationConfig::parse(&file, dir).unwrap(), target).unwrap();
    let cfg = RdaConfig { buckets: 500, ..RdaConfig::default() };
    let epochs = rda_segment(&cfg, 5, |e| if e == 4 { 400 } else { 30 });
    for (e, (s, r, _)) in epochs.iter().enumerate() {
        // Receiver first on odd intervals.
        let order = if e % 2 == 1 { [("a.rx", r), ("a.tx", s)] } else { [("a.tx", s), ("a.rx", r)] };
        for (k, (point, syn)) in order.into_iter().enumerate() {
            let got = st.ingest(point, "sim", &serde_json::to_string(syn).unwrap()).unwrap();
            let Ingested::Stored { paired, .. } = got else { panic!("{got:?}") };
            assert_eq!(paired, if k == 1 { vec!["a".to_string()] } else { vec![] });
        }
    }
    let db = st.db();
    let far = START_NS + 100_000_000_000;
    let diffs = query::packets(db, "a", START_NS, far).unwrap();
    let latency = query::latency(db, "a", START_NS, far).unwrap();
    assert_eq!((diffs.len(), latency.len()), (5, 5));
    for (e, ((s, r, truth), (d, l))) in epochs.iter().zip(diffs.iter().zip(&latency)).enumerate() {
        let t_ns = START_NS + e as i64 * 1_000_000_000;
        assert_eq!((d.seq, d.t_ns, l.seq, l.t_ns), (e as i64, t_ns, e as i64, t_ns));
        let lost: BTreeSet<u64> = truth.sent.difference(&truth.received).copied().collect();
        let reordered: BTreeSet<u64> = truth.received.difference(&truth.sent).copied().collect();
        assert_eq!(lost.len(), if e == 4 { 401 } else { 31 }, "interval {e}: the drops and the late last packet");
        assert_eq!(reordered.len(), usize::from(e > 0), "interval {e}: the previous interval's last packet");
        let host = reconcile(s, r, &RdaHashes::new(&cfg), None).unwrap();
        if e < 4 {
            assert!(d.complete && d.residual_buckets == 0, "interval {e}: {d:?}");
            assert_eq!(d.lost.iter().copied().collect::<BTreeSet<u64>>(), lost, "interval {e}");
            assert_eq!(d.reordered.iter().copied().collect::<BTreeSet<u64>>(), reordered, "interval {e}");
            assert_eq!(l.loss, Some(lost.len() as f64 / 20_000.0));
        } else {
            // 402 differences in 500 buckets per bank: beyond m = 2d (§VI), the decode stops short.
            assert!(!d.complete && d.residual_buckets > 0, "{d:?}");
            assert!(d.lost.iter().all(|id| lost.contains(id)) && d.lost.len() < lost.len());
            assert_eq!(l.loss, None, "no loss rate from a partial decode");
        }
        // The latency row is the host's estimate of the same pair, in ns (1 ns ticks).
        assert_eq!((l.sent, l.received, l.samples), (host.sent as i64, host.received as i64, host.samples as i64));
        assert_eq!((l.mean_ns, l.std_ns), (Some(host.mean), Some(host.std)), "interval {e}");
        assert_eq!((l.bound98_ns, l.unusable.as_deref()), (None, None));
        let want = if e == 2 { 50_500.0 } else { 10_500.0 };
        assert!((host.mean - want).abs() < 0.02 * want, "interval {e}: mean {} vs {want}", host.mean);
    }
    assert!(query::unpaired(db).unwrap().is_empty());
    assert_eq!(count(db, "packet_diff"), 5);

    // Refused: another config, and counts the registers cannot hold.
    let mut other = epochs[0].0.clone();
    other.config.buckets = 400;
    other.buckets.truncate(800);
    let e = st.ingest("a.tx", "bad", &serde_json::to_string(&other).unwrap()).unwrap_err();
    assert!(e.contains("RDA config differs"), "{e}");
    let mut wide = epochs[1].1.clone();
    wide.interval = 7;
    wide.buckets[3].count = 1 << 33;
    let e = st.ingest("a.rx", "bad", &serde_json::to_string(&wide).unwrap()).unwrap_err();
    assert!(e.contains("bucket 3") && e.contains("wider"), "{e}");
    assert_eq!(count(st.db(), "synopsis"), 10);

    // A synopsis whose sticky overflow flag is set is stored, counted in the
    // point's health, and its pair reported unusable.
    let mut wrapped = (epochs[4].0.clone(), epochs[4].1.clone());
    for s in [&mut wrapped.0, &mut wrapped.1] {
        s.interval = 5;
        s.overflow = true;
    }
    // The sender's came over a board's serial line: what reading it cost is
    // kept with it and summed in the point's health.
    let line = LinkStats { requests: 1_000_000_007, retries: 9, crc_errors: 7, lost_responses: 2 };
    let body = serde_json::to_string(&wrapped.0).unwrap();
    let done = st.ingest_batch(&[Epoch { point: "a.tx", source: "board", body: &body, link: Some(line) }]).unwrap();
    assert!(matches!(done[..], [Ok(Ingested::Stored { .. })]), "{done:?}");
    st.ingest("a.rx", "wrapped", &serde_json::to_string(&wrapped.1).unwrap()).unwrap();
    let health = query::points(st.db()).unwrap();
    let overflows: Vec<(&str, i64)> = health.iter().map(|p| (p.name.as_str(), p.overflows)).collect();
    assert_eq!(overflows, [("a.rx", 1), ("a.tx", 1)]);
    let serial: Vec<(&str, SerialHealth)> = health.iter().map(|p| (p.name.as_str(), p.serial)).collect();
    let tx = SerialHealth { epochs: 1, requests: 1_000_000_007, retries: 9, crc_errors: 7, lost_responses: 2 };
    assert_eq!(serial, [("a.rx", SerialHealth::default()), ("a.tx", tx)]);
    let last = query::latency(st.db(), "a", START_NS, far).unwrap().pop().unwrap();
    assert_eq!((last.seq, last.mean_ns), (5, None));
    assert!(last.unusable.unwrap().contains("overflow"));

    // A segment pairs two points of one core.
    let mixed = file.replace(
        "[[segment]]",
        "[[point]]\nname = \"b.tx\"\nrouter = \"r\"\nlink = \"b\"\ndirection = \"egress\"\ncore = \"lda\"\n\
         epoch = \"1s\"\nstart = \"2026-12-01T00:00:00Z\"\n\
         [[segment]]\nname = \"b\"\nsender = \"b.tx\"\nreceiver = \"a.rx\"\n[[segment]]",
    );
    let e = StationConfig::parse(&mixed, dir).err().unwrap();
    assert!(e.contains("segment `b`") && e.contains("lda and rda"), "{e}");
}
