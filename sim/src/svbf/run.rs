//! A MAPLE measurement run on the golden store (§3, §5.3 methodology): per
//! epoch, packets of many flows with delays from a distribution, centers
//! chosen from the samples of two epochs back (§3.2 pipeline), every packet
//! stored, then every packet queried; classification failure, false
//! classification, per-packet absolute and relative error, and per-flow
//! mean-latency error against the truth. The first two epochs only feed the
//! clustering (§5.3: "the first 2 epochs are used for clustering only").
//! Each flow is then queried by range tuples (§4, [`super::query`]) as an
//! aggregate, and every packet once more with its epoch's neighbours
//! (§4 "Query timing", §5.4's bogus epochs).

use super::centers::{Clustering, OnlineKMedians, centers_from};
use super::query::{EpochAnswer, HeldEpochs, message_bytes, range_aggregate, range_packets, ranges_of};
use super::{Answer, Centers, MatchKind, SvbfConfig, SvbfStore};
use crate::prng::SplitMix64;
use crate::traffic::delay::DelayDist;

/// Parameters of a run.
#[derive(Clone, Debug)]
pub struct SvbfRunSpec {
    /// Store geometry.
    pub cfg: SvbfConfig,
    /// Center selection.
    pub clustering: Clustering,
    /// Epochs in total (the first two only train the clustering).
    pub epochs: usize,
    /// Packets per epoch.
    pub packets: usize,
    /// Flows the packets belong to (key = flow · 2^16 + IP-ID, §4).
    pub flows: usize,
    /// Delay distribution of epoch 0; epoch e scales it by 1 + drift · sin(e).
    pub delay: DelayDist,
    /// Relative drift of the delay scale between epochs.
    pub drift: f64,
    /// The online clustering sees one packet in 2^sample_log2 (§3.2: 1-10 %).
    pub sample_log2: u32,
    /// Logarithmic centers start at this delay, ns, over `decades` decades.
    pub log_lo_ns: u32,
    /// Decades of the logarithmic centers.
    pub decades: usize,
    /// Seed of the trace.
    pub seed: u64,
}

/// Percentiles of an error distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Pcts {
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
}

fn pcts(v: &mut [f64]) -> Pcts {
    if v.is_empty() {
        return Pcts::default();
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| crate::stats::quantile_sorted_rounded(v, q);
    Pcts { p50: at(0.5), p90: at(0.9), p99: at(0.99) }
}

/// Results over the measured epochs.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SvbfRunReport {
    /// Packets stored and queried in the measured epochs.
    pub packets: u64,
    /// Fraction answered Multi-Match (§3.3.4 classification failure).
    pub classification_failure: f64,
    /// Fraction answered with a wrong center after tie-breaking.
    pub false_classification: f64,
    /// Fraction answered No-Match (0 for a store that loses nothing).
    pub no_match: f64,
    /// |estimate − truth| per packet, ns.
    pub abs_error_ns: Pcts,
    /// |estimate − truth| / truth per packet.
    pub rel_error: Pcts,
    /// Per-flow mean latency: |estimate − truth| / truth over flows.
    pub flow_rel_error: Pcts,
    /// Same, without the store (the packet's own center's refined estimate): the clustering's share of the error.
    pub rel_error_clustering_only: Pcts,
    /// Mean fill of the SVBF at the end of an epoch (not seen through the RTL's ports).
    pub fill: Option<f64>,
    /// Range queries and neighbouring epochs (§4), on the golden copy of each epoch.
    pub range: RangeReport,
}

/// The query interface of §4 over a run: every flow of a measured epoch
/// asked for by range tuples, answered as one aggregate; every packet asked
/// for in its epoch and both neighbours.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RangeReport {
    /// Range tuples sent (one per run of consecutive IP-IDs of a flow in an epoch).
    pub tuples: u64,
    /// Bytes of the range messages / bytes of the same packets queried one by one (§5.4).
    pub compression: f64,
    /// Per-flow mean latency from the aggregate response: |estimate − truth| / truth.
    pub flow_rel_error: Pcts,
    /// Queried in epochs e − 1, e, e + 1: fraction answered Multi-Match.
    pub neighbours_classification_failure: f64,
    /// Queried in e − 1, e, e + 1: fraction answered from another epoch than its own.
    pub neighbours_wrong_epoch: f64,
    /// Queried in e − 1, e, e + 1: |estimate − truth| / truth per packet.
    pub neighbours_rel_error: Pcts,
}

/// What one epoch of a store gives back to a run: the answer to every
/// packet's query (in insertion order) and the per-center counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpochResult {
    /// One answer per packet, tie broken and refined (§3.3.4, §4).
    pub answers: Vec<Answer>,
    /// Packets per center (mod 2^32).
    pub counts: Vec<u64>,
    /// Latency sum per center (mod 2^48).
    pub sums: Vec<u64>,
    /// Fraction of SVBF bits set, where the engine can see it.
    pub fill: Option<f64>,
}

/// A store one epoch at a time: insert `packets` (key, latency) classified
/// by `centers`, then query every key.
pub trait SvbfEngine {
    /// Runs one epoch.
    fn epoch(&mut self, cfg: &SvbfConfig, centers: &Centers, packets: &[(u64, u64)]) -> Result<EpochResult, String>;
}

/// The golden store ([`SvbfStore`]) as an engine.
pub struct GoldenEngine;

impl SvbfEngine for GoldenEngine {
    fn epoch(&mut self, cfg: &SvbfConfig, centers: &Centers, packets: &[(u64, u64)]) -> Result<EpochResult, String> {
        let mut store = SvbfStore::new(cfg, centers.clone()).map_err(|e| e.to_string())?;
        for &(key, lat) in packets {
            store.insert(key, lat);
        }
        Ok(EpochResult {
            answers: packets.iter().map(|&(key, _)| store.lookup(key)).collect(),
            counts: store.counts().to_vec(),
            sums: store.sums().to_vec(),
            fill: Some(store.fill()),
        })
    }
}

/// Runs the golden store over `spec.epochs` epochs.
pub fn run_golden(spec: &SvbfRunSpec) -> Result<SvbfRunReport, String> {
    run(spec, &mut GoldenEngine)
}

/// [`run_golden`] on any engine (the RTL in the loop, or both side by side).
pub fn run(spec: &SvbfRunSpec, engine: &mut dyn SvbfEngine) -> Result<SvbfRunReport, String> {
    spec.cfg.validate().map_err(|e| e.to_string())?;
    if spec.epochs < 3 {
        return Err(format!("epochs {}: need at least 3 (two train the clustering)", spec.epochs));
    }
    let limit = crate::traffic::trace::MAX_PACKETS;
    if spec.packets == 0 || spec.flows == 0 || spec.flows as u64 > limit {
        return Err(format!("packets and flows must be positive, flows at most {limit}"));
    }
    if (spec.packets as u64).saturating_mul(spec.epochs as u64) > limit {
        return Err(format!(
            "{} packets × {} epochs: at most {limit} in one run (every measured packet is kept for the answer)",
            spec.packets, spec.epochs
        ));
    }
    if !(0.0..1.0).contains(&spec.drift) {
        return Err(format!("drift {} is outside [0, 1)", spec.drift));
    }
    let k = spec.cfg.centers;
    let mut rng = SplitMix64::new(spec.seed);
    let mut trained: Vec<Option<OnlineKMedians>> = Vec::new();
    let (mut abs, mut rel, mut rel_cl, mut flow_rel) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut total, mut multi, mut wrong, mut none) = (0u64, 0u64, 0u64, 0u64);
    let mut fill = Some(0.0);
    let mut ipid = vec![0u16; spec.flows];
    let mut held = HeldEpochs::new(spec.epochs)?;
    // Per measured epoch: per flow, its IP-IDs in order and true latencies.
    type FlowPackets = std::collections::BTreeMap<usize, (Vec<u16>, Vec<u64>)>;
    let mut epoch_flows: Vec<(u64, FlowPackets)> = Vec::new();
    for e in 0..spec.epochs {
        let online = if e >= 2 { trained[e - 2].as_ref() } else { None };
        let values = centers_from(spec.clustering, k, online, spec.log_lo_ns, spec.decades);
        let centers = Centers::new(&values).map_err(|err| format!("epoch {e}: {err}"))?;
        let fixed = if spec.clustering == Clustering::Hybrid {
            super::centers::log_centers(k / 2, spec.log_lo_ns, spec.decades)
        } else {
            Vec::new()
        };
        let mut learn = OnlineKMedians::new(k, (spec.packets >> spec.sample_log2) as u64, &fixed, spec.seed ^ e as u64);
        let scale = 1.0 + spec.drift * (e as f64).sin();
        let mut pkts = Vec::with_capacity(spec.packets);
        let mut stored = Vec::with_capacity(spec.packets);
        for _ in 0..spec.packets {
            let f = rng.below(spec.flows as u64) as usize;
            ipid[f] = ipid[f].wrapping_add(1);
            let key = ((f as u64) << 16) | ipid[f] as u64;
            let lat = (spec.delay.sample(&mut rng) * scale * 1000.0).clamp(0.0, u32::MAX as f64) as u64;
            let i = centers.classify(lat.min(u32::MAX as u64) as u32);
            stored.push((key, lat));
            if rng.below(1 << spec.sample_log2) == 0 {
                learn.push(lat as f64);
            }
            pkts.push((key, f, lat, i));
        }
        trained.push(Some(learn));
        if e < 2 {
            continue;
        }
        let ep = engine.epoch(&spec.cfg, &centers, &stored).map_err(|err| format!("epoch {e}: {err}"))?;
        let mut golden = SvbfStore::new(&spec.cfg, centers.clone()).map_err(|err| err.to_string())?;
        let mut flows = FlowPackets::new();
        for &(key, f, lat, _) in &pkts {
            golden.insert(key, lat);
            let fp = flows.entry(f).or_default();
            fp.0.push(key as u16);
            fp.1.push(lat);
        }
        held.push(e as u64, golden)?;
        epoch_flows.push((e as u64, flows));
        if ep.answers.len() != pkts.len() {
            return Err(format!("epoch {e}: {} answers for {} packets", ep.answers.len(), pkts.len()));
        }
        fill = match (fill, ep.fill) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        let mut flow_sum: std::collections::HashMap<usize, (f64, f64)> = Default::default();
        for (&(_, f, lat, i), &a) in pkts.iter().zip(&ep.answers) {
            total += 1;
            match a.kind {
                MatchKind::NoMatch => none += 1,
                MatchKind::MultiMatch => {
                    multi += 1;
                    wrong += (a.center != i) as u64;
                }
                MatchKind::Match => {}
            }
            let est = a.latency as f64;
            let t = lat as f64;
            abs.push((est - t).abs());
            rel.push((est - t).abs() / t.max(1.0));
            rel_cl.push((super::refined(i, &ep.counts, &ep.sums, &centers) as f64 - t).abs() / t.max(1.0));
            let s = flow_sum.entry(f).or_default();
            s.0 += est;
            s.1 += t;
        }
        flow_rel.extend(flow_sum.values().map(|&(est, t)| (est - t).abs() / t.max(1.0)));
    }
    let range = range_report(&held, &epoch_flows)?;
    let n = total as f64;
    Ok(SvbfRunReport {
        packets: total,
        classification_failure: multi as f64 / n,
        false_classification: wrong as f64 / n,
        no_match: none as f64 / n,
        abs_error_ns: pcts(&mut abs),
        rel_error: pcts(&mut rel),
        flow_rel_error: pcts(&mut flow_rel),
        rel_error_clustering_only: pcts(&mut rel_cl),
        fill: fill.map(|f| f / (spec.epochs - 2) as f64),
        range,
    })
}

/// Every flow of every measured epoch queried by range tuples (aggregate,
/// its own epoch), and every packet in its epoch and both neighbours.
fn range_report(
    held: &HeldEpochs,
    epoch_flows: &[(u64, std::collections::BTreeMap<usize, (Vec<u16>, Vec<u64>)>)],
) -> Result<RangeReport, String> {
    let (mut tuples, mut range_bytes, mut packet_bytes) = (0u64, 0u64, 0u64);
    let (mut flow_rel, mut rel) = (Vec::new(), Vec::new());
    let (mut packets, mut multi, mut other_epoch) = (0u64, 0u64, 0u64);
    for (e, flows) in epoch_flows {
        for (&f, (ids, lats)) in flows {
            let ranges = ranges_of(f as u64, ids)?;
            let (rb, pb) = message_bytes(&ranges);
            tuples += ranges.len() as u64;
            range_bytes += rb;
            packet_bytes += pb;
            let truth = lats.iter().map(|&l| l as f64).sum::<f64>() / lats.len() as f64;
            let agg = range_aggregate(held, &ranges, *e, 0)?;
            let est = agg.mean_latency.ok_or_else(|| format!("epoch {e}: flow {f} has no answered packet"))?;
            flow_rel.push((est - truth).abs() / truth.max(1.0));
            for ((_, _, a), &lat) in range_packets(held, &ranges, *e, 1)?.iter().zip(lats) {
                packets += 1;
                let EpochAnswer::Found { epoch, answer } = a else {
                    return Err(format!("epoch {e}: a stored packet of flow {f} was not found: {a:?}"));
                };
                multi += (answer.kind == MatchKind::MultiMatch) as u64;
                other_epoch += (epoch != e) as u64;
                rel.push((answer.latency as f64 - lat as f64).abs() / (lat as f64).max(1.0));
            }
        }
    }
    let n = packets.max(1) as f64;
    Ok(RangeReport {
        tuples,
        compression: range_bytes as f64 / packet_bytes.max(1) as f64,
        flow_rel_error: pcts(&mut flow_rel),
        neighbours_classification_failure: multi as f64 / n,
        neighbours_wrong_epoch: other_epoch as f64 / n,
        neighbours_rel_error: pcts(&mut rel),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(clustering: Clustering) -> SvbfRunSpec {
        SvbfRunSpec {
            cfg: SvbfConfig { hashes: 9, partition_log2: 13, centers: 50, seed: 3 },
            clustering,
            epochs: 4,
            packets: (9 << 13) * 10 / 128,
            flows: 200,
            delay: DelayDist::Weibull { scale_us: 50.0, shape: 0.6 },
            drift: 0.2,
            sample_log2: 3,
            log_lo_ns: 100,
            decades: 5,
            seed: 1,
        }
    }

    #[test]
    fn a_run_loses_nothing_and_meets_the_failure_bound() {
        let r = run_golden(&spec(Clustering::Hybrid)).unwrap();
        assert_eq!(r.no_match, 0.0);
        assert!(r.classification_failure < 0.12, "{r:?}");
        assert!(r.false_classification <= r.classification_failure);
        assert!(r.rel_error.p50 < 0.2, "{r:?}");
        assert!(r.flow_rel_error.p50 < r.rel_error.p90, "{r:?}");
    }

    #[test]
    fn range_queries_end_to_end_match_the_packet_queries() {
        // A flow's packets of one epoch are consecutive IP-IDs: one tuple per
        // flow and epoch (flows wrap their IP-ID at most once here).
        let s = spec(Clustering::Log);
        let r = run_golden(&s).unwrap();
        let flows_seen = r.range.tuples as f64 / (s.epochs - 2) as f64;
        assert!(flows_seen >= s.flows as f64 && flows_seen <= 1.05 * s.flows as f64, "{:?}", r.range);
        let expect = r.range.tuples as f64 * 10.0 / (r.packets as f64 * 8.0);
        assert!((r.range.compression - expect).abs() < 1e-12, "{:?}", r.range);
        // The aggregate response gives the per-flow means the per-packet answers give
        // (the same ratio, summed in another order: equal to rounding).
        let (a, b) = (r.range.flow_rel_error, r.flow_rel_error);
        for (x, y) in [(a.p50, b.p50), (a.p90, b.p90), (a.p99, b.p99)] {
            assert!((x - y).abs() <= 1e-12 * y.max(1e-3), "{a:?} vs {b:?}");
        }
        // Asking the neighbouring epochs too costs accuracy, never packets (§5.4 Fig. 8(c)).
        assert!(r.range.neighbours_classification_failure > r.classification_failure, "{r:?}");
        assert!(r.range.neighbours_wrong_epoch > 0.0 && r.range.neighbours_wrong_epoch < 0.2, "{r:?}");
        assert!(r.range.neighbours_rel_error.p90 >= r.rel_error.p90, "{r:?}");
    }

    #[test]
    fn kmedians_beats_log_in_absolute_error_at_the_tail() {
        // §5.2: k-medians has the smaller absolute error at high percentiles.
        let km = run_golden(&spec(Clustering::Kmedians)).unwrap();
        let lg = run_golden(&spec(Clustering::Log)).unwrap();
        assert!(km.abs_error_ns.p90 < lg.abs_error_ns.p90, "{:?} vs {:?}", km.abs_error_ns, lg.abs_error_ns);
    }

    #[test]
    fn bad_specs_are_refused() {
        assert!(run_golden(&SvbfRunSpec { epochs: 2, ..spec(Clustering::Log) }).unwrap_err().contains("epochs"));
        assert!(run_golden(&SvbfRunSpec { flows: 0, ..spec(Clustering::Log) }).is_err());
        assert!(run_golden(&SvbfRunSpec { drift: 1.5, ..spec(Clustering::Log) }).unwrap_err().contains("drift"));
    }
}
