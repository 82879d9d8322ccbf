//! Fridge points in the station (fridge paper §3.3, §6.2): each epoch's
//! frozen histograms kept, a service's delay percentiles answered per epoch
//! as the host computes them from the same histograms, and an hour of
//! epochs rolled up into the histograms of an hour-long epoch.

use super::count;
use crate::common::*;
use netmeas_sim::fridge::{FridgeConfig, FridgePacket, FridgeSynopsis, HistBin, golden_epochs, histogram_cdf};
use netmeas_sim::prng::SplitMix64;
use netmeas_station::config::HOUR_NS;
use netmeas_station::ingest::Epoch;
use netmeas_station::query;
use netmeas_station::{Station, StationConfig};
use std::path::Path;

const EPOCH_NS: u64 = 10_000_000_000;

/// `epochs` epochs of 10 s of a service: 200 requests per epoch, each
/// answered after 50 to 150 µs, ten times that in epochs `spike`.
fn service(epochs: u64, spike: std::ops::Range<u64>) -> Vec<FridgePacket> {
    let mut rng = SplitMix64::new(23);
    let mut packets = Vec::new();
    for e in 0..epochs {
        for i in 0..200u64 {
            let ts = e * EPOCH_NS + i * 50_000_000 + rng.below(1_000_000);
            let id = rng.next_u64() as u32;
            let delay = (50_000 + rng.below(100_000)) * if spike.contains(&e) { 10 } else { 1 };
            packets.push(FridgePacket { id, response: false, ts });
            packets.push(FridgePacket { id, response: true, ts: ts + delay });
        }
    }
    packets.sort_by_key(|p| (p.ts, p.response));
    packets
}

/// A fridge point over two and a half hours of a service with a delay
/// spike: every epoch's percentiles equal the host's of its histograms, the
/// spike stands out, bad synopses are refused, and each whole hour rolls up
/// into exactly the histograms the core freezes with an epoch of an hour.
pub fn fridge_delays_follow_the_service_over_time(target: &str, dir: &Path) {
    let start = START_NS - 2 * HOUR_NS;
    let file = format!(
        "database = {target:?}\n[retention]\nrollup = \"1h\"\nraw = \"1h\"\n\
         [[point]]\nname = \"svc.fridge\"\nrouter = \"r1\"\nlink = \"svc\"\ndirection = \"ingress\"\ncore = \"fridge\"\n\
         config = {{ entries = [1024, 1024], entry_prob_log2 = [0.0, -1.0] }}\n\
         epoch = \"10s\"\nstart = \"2026-11-30T22:00:00Z\"\n\
         [[point]]\nname = \"svc.bw\"\nrouter = \"r1\"\nlink = \"svc\"\ndirection = \"ingress\"\ncore = \"expb\"\n\
         epoch = \"2s\"\nstart = \"2026-11-30T22:00:00Z\"\n"
    );
    let mut st = Station::open(StationConfig::parse(&file, dir).unwrap(), target).unwrap();
    let cfg = FridgeConfig { entries: vec![1024, 1024], entry_prob_log2: vec![0.0, -1.0], ..FridgeConfig::default() };
    let packets = service(900, 300..306);
    let epochs = golden_epochs(&cfg, &packets, EPOCH_NS);
    assert_eq!(epochs.len(), 900);
    let hours = golden_epochs(&cfg, &packets, HOUR_NS as u64);
    assert_eq!(hours.len(), 3, "two whole hours and the half hour after midnight");
    let bodies: Vec<String> = epochs.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
    for chunk in bodies.chunks(256) {
        let batch: Vec<Epoch<'_>> =
            chunk.iter().map(|b| Epoch { point: "svc.fridge", source: "sim", body: b, link: None }).collect();
        assert!(st.ingest_batch(&batch).unwrap().iter().all(Result::is_ok));
    }
    let far = START_NS + 100 * HOUR_NS;
    let qs = [0.5, 0.95, 0.99];
    let rows = query::delays(st.db(), "svc.fridge", &qs, start, far).unwrap();
    assert_eq!(rows.len(), 900);
    // The host's percentiles of the same histograms (1 ns ticks).
    let host = |h: &[HistBin]| histogram_cdf(h, 2, cfg.bin_shift).map(|c| qs.map(|q| c.quantile(q)));
    for (e, (row, s)) in rows.iter().zip(&epochs).enumerate() {
        assert_eq!((row.t_ns, row.periods), (start + e as i64 * EPOCH_NS as i64, 1));
        assert_eq!(row.samples, s.histograms.iter().map(|h| i64::from(h.count)).sum::<i64>());
        let want = host(&s.histograms).expect("every epoch has samples");
        assert_eq!(row.quantiles_ns, want.map(Some).to_vec(), "epoch {e}");
    }
    let median = |e: usize| rows[e].quantiles_ns[0].unwrap();
    for e in 300..306 {
        assert!(median(e) > 5.0 * median(e - 10) && median(e) > 5.0 * median(e + 10), "epoch {e}: {}", median(e));
    }
    assert!((0..900).filter(|e| !(300..307).contains(e)).all(|e| median(e) < 250_000.0));
    // Only what a fridge measures answers; quantiles are fractions.
    let e = query::delays(st.db(), "svc.bw", &qs, start, far).unwrap_err();
    assert!(e.contains("does not measure a delay distribution"), "{e}");
    let e = query::delays(st.db(), "svc.fridge", &[1.5], start, far).unwrap_err();
    assert!(e.contains("quantiles are between 0 and 1"), "{e}");

    // Refused, and nothing of them stored.
    let refuse = |st: &mut Station, s: &FridgeSynopsis, why: &str| {
        let e = st.ingest("svc.fridge", "bad", &serde_json::to_string(s).unwrap()).unwrap_err();
        assert!(e.contains(why), "{e}");
    };
    let mut bad = epochs[899].clone();
    bad.config.bin_shift = 12;
    refuse(&mut st, &bad, "fridge config differs");
    let mut bad = epochs[899].clone();
    bad.histograms.pop();
    refuse(&mut st, &bad, "63 histogram bins");
    let mut bad = epochs[899].clone();
    let empty = bad.histograms.iter().position(|h| h.count == 0).unwrap();
    bad.histograms[empty].wsum = 256;
    refuse(&mut st, &bad, &format!("bin {empty} has weight without a sample"));
    assert_eq!(count(st.db(), "delay_hist"), 900);

    // Rolled up: each whole hour is the histograms of an hour-long epoch.
    let r = st.rollup(START_NS + HOUR_NS + 300_000_000_000).unwrap();
    let fridge = r.points.iter().find(|p| p.point == "svc.fridge").unwrap();
    assert_eq!((fridge.rolled.hours, fridge.rolled.epochs, fridge.raw_dropped), (2, 720, 720));
    let stored = st.db().query("SELECT t_ns, periods, bins FROM delay_hist ORDER BY t_ns", &[]).unwrap();
    assert_eq!(stored.len(), 2 + 180);
    for (h, want) in hours.iter().take(2).enumerate() {
        assert_eq!(stored[h][0].int("t_ns").unwrap(), start + h as i64 * HOUR_NS);
        assert_eq!(stored[h][1].int("periods").unwrap(), 360);
        let bins: Vec<(u64, u64, u64)> = serde_json::from_str(&stored[h][2].text("bins").unwrap().unwrap()).unwrap();
        let want: Vec<(u64, u64, u64)> =
            want.histograms.iter().map(|b| (u64::from(b.count), b.wsum, b.w2sum)).collect();
        assert_eq!(bins, want, "hour {h}");
    }
    let rolled = query::delays(st.db(), "svc.fridge", &qs, start, START_NS).unwrap();
    assert_eq!(rolled.len(), 2);
    assert_eq!(rolled[0].quantiles_ns, host(&hours[0].histograms).unwrap().map(Some).to_vec());
    let again = st.rollup(START_NS + HOUR_NS + 300_000_000_000).unwrap();
    assert!(again.points.iter().all(|p| p.rolled.hours == 0 && p.raw_dropped == 0));
}
