//! The fleet simulator: `links` simulated links, each an LDA segment (a
//! sender and a receiver point, Kompella et al. §III-C) and an EXPB point at
//! the sender (Uyeda et al. §3.2), all on the golden models (bit-exact with
//! the RTL), reporting one epoch every [`EPOCH_NS`] into a station. The load
//! follows the time of day; microbursts and latency spikes are injected at
//! known links and epochs; then the station's own queries are checked
//! against that truth: every burst found on its link, in its epoch, with its
//! flow as the culprit, every spike found on its segment in its epoch, and
//! nothing else above the thresholds.

use crate::bench::{bench_station, link_reports, store_new};
use crate::config::{StationConfig, format_time};
use crate::fleet::{ExpbLink, InjectedBurst, LdaLink};
use crate::ingest::{INGEST_BATCH, Station};
use crate::query;
use netmeas_sim::dbm::ExpbConfig;
use netmeas_sim::lda::LdaConfig;
use netmeas_sim::prng::SplitMix64;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// Epoch length: the EXPB's default aggregation period (bandwidth paper §4.1).
pub const EPOCH_NS: i64 = 2_000_000_000;
/// Packets each LDA sender sees per epoch (20 Mpps for 100 µs).
pub const LDA_PACKETS: u32 = 2_000;
/// Share of a segment's packets lost.
pub const LDA_LOSS: f64 = 0.001;
/// Mean delay of an idle segment, ns; queueing adds [`QUEUE_NS`] at full load.
pub const BASE_DELAY_NS: f64 = 1_000.0;
/// Mean queueing delay at the busiest hour, ns.
pub const QUEUE_NS: f64 = 4_000.0;
/// What an injected latency spike adds to a segment's mean delay, ns.
pub const SPIKE_NS: f64 = 50_000.0;
/// A segment's epoch is a spike when its mean delay exceeds this, ns.
pub const SPIKE_THRESHOLD_NS: f64 = 20_000.0;
/// Rate of an injected microburst, bits/s (on top of the link's load).
pub const BURST_RATE_BPS: f64 = 2e9;
/// Length of an injected microburst, ns.
pub const BURST_NS: u64 = 20_000_000;
/// The time scale bursts are searched at, ns (the EXPB's Δ_8 = 2^7 × 78.125 µs).
pub const BURST_SCALE_NS: i64 = 10_000_000;
/// A link's interval is a burst when its rate at [`BURST_SCALE_NS`] exceeds this, bits/s.
pub const BURST_THRESHOLD_BPS: f64 = 1e9;
/// The highest peak load simulated, bits/s (a 10 Gbit/s link). Loads
/// within a few standard deviations of [`BURST_THRESHOLD_BPS`] cross it
/// without an injected burst, and the check reports them.
pub const MAX_LOAD_BPS: f64 = 1e10;
/// First flow ID of the injected bursts (the background flows are 1..=64).
pub const BURST_FLOW_BASE: u32 = 1_000;

/// What to simulate.
#[derive(Clone, Debug, Serialize)]
pub struct FleetPlan {
    /// Links (three points and one segment each: `lK.tx`, `lK.rx`, `lK.bw`; segment `lK`).
    pub links: usize,
    /// Start of the first epoch, ns since 1970-01-01 UTC.
    pub start_ns: i64,
    /// Epochs per point.
    pub epochs: u32,
    /// Mean load of the busiest link at the busiest hour (16:00 UTC), bits/s.
    pub peak_load_bps: f64,
    /// Microbursts to inject, each on its own link and epoch.
    pub bursts: usize,
    /// Latency spikes to inject, each on its own segment and epoch.
    pub spikes: usize,
    /// Seed of every random choice (traffic, placements).
    pub seed: u64,
}

/// An injected microburst.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BurstTruth {
    /// The link.
    pub link: String,
    /// The epoch it is in.
    pub seq: u64,
    /// Its start, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// Its length, ns.
    pub duration_ns: u64,
    /// Its rate, bits/s.
    pub rate_bps: f64,
    /// Its flow.
    pub flow: u32,
}

/// An injected latency spike.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpikeTruth {
    /// The segment.
    pub segment: String,
    /// The epoch.
    pub seq: u64,
    /// The epoch's start, ns since 1970-01-01 UTC.
    pub t_ns: i64,
    /// The mean delay the segment had in that epoch, ns.
    pub mean_ns: f64,
}

/// Everything injected.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FleetTruth {
    /// The microbursts, in time order.
    pub bursts: Vec<BurstTruth>,
    /// The latency spikes, in time order.
    pub spikes: Vec<SpikeTruth>,
}

/// One query checked against the truth.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Check {
    /// Injected.
    pub injected: usize,
    /// Found where injected (link or segment, epoch, and for bursts time and culprit).
    pub found: usize,
    /// Injected and not found, described.
    pub missed: Vec<String>,
    /// Found in the injected epoch but with the wrong time or culprit, described.
    pub wrong: Vec<String>,
    /// Found where nothing was injected, described.
    pub false_positives: Vec<String>,
    /// Time the station took to answer, ms.
    pub query_ms: f64,
}

impl Check {
    /// Every injected event found where it was, and nothing else.
    pub fn passed(&self) -> bool {
        self.found == self.injected
            && self.missed.is_empty()
            && self.wrong.is_empty()
            && self.false_positives.is_empty()
    }
}

/// What the simulator did and what the checks found.
#[derive(Clone, Debug, Serialize)]
pub struct FleetReport {
    /// The plan.
    pub plan: FleetPlan,
    /// Epochs stored (3 per link and epoch).
    pub epochs_stored: u64,
    /// Synopsis bytes ingested.
    pub bytes: u64,
    /// Wall time of simulation and ingest, s (the two overlap).
    pub seconds: f64,
    /// Of which ingest (the station's work), s.
    pub ingest_seconds: f64,
    /// The burst query (bandwidth paper §1) over every link and the whole run.
    pub bursts: Check,
    /// The latency query (LDA §III-D) of every segment over the whole run.
    pub spikes: Check,
}

impl FleetReport {
    /// Both checks passed.
    pub fn passed(&self) -> bool {
        self.bursts.passed() && self.spikes.passed()
    }
}

/// The time-of-day share of the peak load: 0.2 at 04:00 UTC, 1.0 at 16:00.
pub fn diurnal(t_ns: i64) -> f64 {
    let day = 86_400e9;
    let phase = (t_ns.rem_euclid(86_400_000_000_000) as f64 - 4.0 * 3_600e9) / day;
    0.6 - 0.4 * (2.0 * std::f64::consts::PI * phase).cos()
}

impl FleetPlan {
    /// Checks the plan, naming the first bad field.
    pub fn validate(&self) -> Result<(), String> {
        if self.links == 0 || self.epochs == 0 {
            return Err("a fleet has at least one link and one epoch".into());
        }
        if self.start_ns.rem_euclid(EPOCH_NS) != 0 {
            return Err(format!("the start must be on a {} s boundary", EPOCH_NS / 1_000_000_000));
        }
        if !(self.peak_load_bps.is_finite() && self.peak_load_bps >= 0.0 && self.peak_load_bps <= MAX_LOAD_BPS) {
            return Err(format!("a peak load of {} bit/s is outside 0..={MAX_LOAD_BPS:e}", self.peak_load_bps));
        }
        let slots = self.links as u64 * u64::from(self.epochs);
        for (what, n) in [("bursts", self.bursts), ("spikes", self.spikes)] {
            if n as u64 > slots / 2 {
                return Err(format!("{n} {what} do not fit: at most one per link and epoch, on half of them"));
            }
        }
        Ok(())
    }

    /// The station file of the fleet on `database`.
    pub fn station_file(&self, database: &str) -> String {
        bench_station(database, self.links, &format_time(self.start_ns))
    }

    /// What will be injected where (a function of the plan alone).
    pub fn truth(&self) -> FleetTruth {
        let mut rng = SplitMix64::new(self.seed ^ 0x6275_7273_7473);
        let place = |rng: &mut SplitMix64, n: usize| {
            let mut at = BTreeSet::new();
            while at.len() < n {
                at.insert((rng.below(u64::from(self.epochs)), rng.below(self.links as u64) as usize));
            }
            at
        };
        let mut bursts: Vec<BurstTruth> = place(&mut rng, self.bursts)
            .into_iter()
            .enumerate()
            .map(|(i, (seq, k))| {
                // Whole within its epoch, at least one scale clear of either end.
                let room = EPOCH_NS as u64 - BURST_NS - 2 * BURST_SCALE_NS as u64;
                let offset = BURST_SCALE_NS as u64 + rng.below(room);
                BurstTruth {
                    link: format!("l{k}"),
                    seq,
                    t_ns: self.epoch_start(seq) + offset as i64,
                    duration_ns: BURST_NS,
                    rate_bps: BURST_RATE_BPS,
                    flow: BURST_FLOW_BASE + i as u32,
                }
            })
            .collect();
        bursts.sort_by_key(|b| (b.t_ns, b.link.clone()));
        let spikes = place(&mut rng, self.spikes)
            .into_iter()
            .map(|(seq, k)| {
                let t_ns = self.epoch_start(seq);
                SpikeTruth { segment: format!("l{k}"), seq, t_ns, mean_ns: self.mean_delay_ns(t_ns) + SPIKE_NS }
            })
            .collect();
        FleetTruth { bursts, spikes }
    }

    fn epoch_start(&self, seq: u64) -> i64 {
        self.start_ns + seq as i64 * EPOCH_NS
    }

    fn end_ns(&self) -> i64 {
        self.epoch_start(u64::from(self.epochs))
    }

    /// A segment's mean delay outside spikes: base plus queueing at the hour's load.
    fn mean_delay_ns(&self, t_ns: i64) -> f64 {
        BASE_DELAY_NS + QUEUE_NS * diurnal(t_ns)
    }
}

/// One simulated link: its two LDA ends and its EXPB point, and its share of the peak load.
struct SimLink {
    lda: LdaLink,
    expb: ExpbLink,
    weight: f64,
}

/// One round of every link's reports: (point, synopsis JSON).
type Round = Vec<(String, String)>;

/// Simulates `plan` into a new station at `target` (an SQLite file or a
/// PostgreSQL URL that holds none of the fleet's points), then checks the
/// burst and latency queries against the injected truth. `progress` is told
/// each epoch done.
pub fn run(target: &str, plan: &FleetPlan, mut progress: impl FnMut(u32)) -> Result<(FleetReport, FleetTruth), String> {
    plan.validate()?;
    let cfg = StationConfig::parse(&plan.station_file(target), std::path::Path::new("."))?;
    let mut st = Station::open(cfg, target)?;
    let truth = plan.truth();
    let mut seeds = SplitMix64::new(plan.seed);
    let lda = LdaConfig::default();
    let expb = ExpbConfig::default();
    debug_assert_eq!(expb.period_ticks as i64, EPOCH_NS);
    let mut links = Vec::with_capacity(plan.links);
    for _ in 0..plan.links {
        links.push(SimLink {
            lda: LdaLink::new(&lda, EPOCH_NS as u64, seeds.next_u64()),
            expb: ExpbLink::new(&expb, seeds.next_u64())?,
            weight: 0.5 + 0.5 * seeds.unit_open(),
        });
    }
    let mut bursts_at: BTreeMap<(u64, usize), InjectedBurst> = BTreeMap::new();
    for b in &truth.bursts {
        let k: usize = b.link[1..].parse().expect("links are named lK");
        let offset_ns = (b.t_ns - plan.epoch_start(b.seq)) as u64;
        bursts_at.insert(
            (b.seq, k),
            InjectedBurst { offset_ns, duration_ns: b.duration_ns, rate_bps: b.rate_bps, flow: b.flow },
        );
    }
    let spikes_at: BTreeSet<(u64, usize)> =
        truth.spikes.iter().map(|s| (s.seq, s.segment[1..].parse().expect("segments are named lK"))).collect();

    let began = Instant::now();
    let (mut stored, mut bytes, mut ingest_seconds) = (0u64, 0u64, 0f64);
    // The links are simulated a round ahead of the ingest, on their own threads.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Round>(1);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| -> Result<(), String> {
        let (bursts_at, spikes_at) = (&bursts_at, &spikes_at);
        scope.spawn(move || {
            for seq in 0..u64::from(plan.epochs) {
                let t_ns = plan.epoch_start(seq);
                let load = plan.peak_load_bps * diurnal(t_ns);
                let mean = plan.mean_delay_ns(t_ns);
                let chunk = links.len().div_ceil(workers);
                let parts: Vec<Round> = std::thread::scope(|s| {
                    let jobs: Vec<_> = links
                        .chunks_mut(chunk)
                        .enumerate()
                        .map(|(c, part)| {
                            s.spawn(move || {
                                let mut out = Vec::with_capacity(3 * part.len());
                                for (i, l) in part.iter_mut().enumerate() {
                                    let k = c * chunk + i;
                                    let extra = if spikes_at.contains(&(seq, k)) { SPIKE_NS } else { 0.0 };
                                    let (sender, receiver, _) = l.lda.epoch(LDA_PACKETS, mean + extra, LDA_LOSS);
                                    let injected: Vec<InjectedBurst> =
                                        bursts_at.get(&(seq, k)).copied().into_iter().collect();
                                    let period = l.expb.epoch(load * l.weight, &injected);
                                    out.extend(link_reports(k, &sender, &receiver, &period));
                                }
                                out
                            })
                        })
                        .collect();
                    jobs.into_iter().map(|j| j.join().expect("a simulated link does not panic")).collect()
                });
                if tx.send(parts.into_iter().flatten().collect()).is_err() {
                    return; // the ingest stopped on an error
                }
            }
        });
        for (round, reported) in rx.iter().enumerate() {
            let t = Instant::now();
            bytes += store_new(&mut st, &reported, "fleet", INGEST_BATCH)?;
            stored += reported.len() as u64;
            ingest_seconds += t.elapsed().as_secs_f64();
            progress(round as u32 + 1);
        }
        Ok(())
    })?;
    let seconds = began.elapsed().as_secs_f64();
    let bursts = check_bursts(st.db(), plan, &truth)?;
    let spikes = check_spikes(st.db(), plan, &truth)?;
    let report =
        FleetReport { plan: plan.clone(), epochs_stored: stored, bytes, seconds, ingest_seconds, bursts, spikes };
    Ok((report, truth))
}

/// The burst query over every link and the whole run of `plan`, against `truth`.
pub fn check_bursts(db: &mut crate::Db, plan: &FleetPlan, truth: &FleetTruth) -> Result<Check, String> {
    let t = Instant::now();
    let found = query::bursts(db, &[], BURST_SCALE_NS, BURST_THRESHOLD_BPS, plan.start_ns, plan.end_ns())?;
    let query_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut left: BTreeMap<(String, i64), &BurstTruth> =
        truth.bursts.iter().map(|b| ((b.link.clone(), plan.epoch_start(b.seq)), b)).collect();
    let mut c = Check { injected: truth.bursts.len(), query_ms, ..Check::default() };
    for f in &found {
        let said = format!(
            "{} at {} ({:.0} bit/s, culprit {})",
            f.link,
            format_time(f.burst.t_ns),
            f.burst.rate_bps,
            f.burst.culprit.map_or("none".into(), |c| c.to_string())
        );
        let Some(b) = left.remove(&(f.link.clone(), f.burst.epoch_ns)) else {
            c.false_positives.push(said);
            continue;
        };
        // The interval of the maximum overlaps the burst, and its top flow is the burst's.
        let overlaps = f.burst.t_ns + f.burst.scale_ns > b.t_ns && f.burst.t_ns < b.t_ns + b.duration_ns as i64;
        if overlaps && f.burst.culprit == Some(b.flow) {
            c.found += 1;
        } else {
            c.wrong.push(format!("{said}; injected at {} by flow {}", format_time(b.t_ns), b.flow));
        }
    }
    c.missed = left.values().map(|b| format!("{} at {} (flow {})", b.link, format_time(b.t_ns), b.flow)).collect();
    Ok(c)
}

/// The latency query of every segment over the whole run of `plan`, against `truth`.
pub fn check_spikes(db: &mut crate::Db, plan: &FleetPlan, truth: &FleetTruth) -> Result<Check, String> {
    let mut left: BTreeSet<(String, u64)> = truth.spikes.iter().map(|s| (s.segment.clone(), s.seq)).collect();
    let mut c = Check { injected: truth.spikes.len(), ..Check::default() };
    let t = Instant::now();
    let mut rows = Vec::with_capacity(plan.links);
    for k in 0..plan.links {
        let segment = format!("l{k}");
        rows.push((query::latency(db, &segment, plan.start_ns, plan.end_ns())?, segment));
    }
    c.query_ms = t.elapsed().as_secs_f64() * 1e3;
    for (epochs, segment) in rows {
        if epochs.len() != plan.epochs as usize {
            c.missed.push(format!("segment {segment}: {} of {} epochs estimated", epochs.len(), plan.epochs));
        }
        for r in epochs {
            let Some(mean) = r.mean_ns else {
                c.missed.push(format!(
                    "segment {segment} epoch {}: no estimate ({})",
                    r.seq,
                    r.unusable.unwrap_or_default()
                ));
                continue;
            };
            if mean <= SPIKE_THRESHOLD_NS {
                continue;
            }
            if left.remove(&(segment.clone(), r.seq as u64)) {
                c.found += 1;
            } else {
                c.false_positives.push(format!("segment {segment} at {}: mean {mean:.0} ns", format_time(r.t_ns)));
            }
        }
    }
    c.missed.extend(left.into_iter().map(|(s, seq)| format!("segment {s} epoch {seq}")));
    Ok(c)
}
