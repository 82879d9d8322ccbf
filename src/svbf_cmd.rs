//! `netmeas svbf`: MAPLE packet-latency-store tools — the §3.4 dimensioning
//! formulas, and the classification-failure and false-classification rates
//! of the golden SVBF (§3.3.3-3.3.4) at a given memory per packet, beside the
//! eq. (3) prediction.

use crate::args::Engine;
use clap::{Args, Subcommand};
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::svbf::baselines::{Comb, Pbf};
use netmeas_sim::svbf::centers::{Clustering, log_centers};
use netmeas_sim::svbf::dimension::{p_cf_comb, p_cf_svbf, p_fp_partitioned};
use netmeas_sim::svbf::run::{EpochResult, GoldenEngine, Pcts, SvbfEngine, SvbfRunSpec, run as run_engine, run_golden};
use netmeas_sim::svbf::{Centers, MatchKind, SvbfConfig, SvbfStore, answer, dimension};
use netmeas_sim::traffic::delay::DelayDist;
use netmeas_testbench::svbf::rtl_svbf_engine;
use serde_json::json;

/// Subcommands of `netmeas svbf`.
#[derive(Subcommand, Clone, Debug)]
pub enum SvbfCmd {
    /// §3.4.2 / Table 2: hash functions and bits per packet for k centers and a target classification failure.
    Dimension {
        /// Delay centers k (2-64).
        #[arg(long, default_value_t = 50)]
        centers: usize,
        /// Target classification-failure rate ε, in (0, 1).
        #[arg(long, default_value_t = 0.1)]
        target_failure: f64,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// §5.3 / Fig. 6 shape: store random packets at a given memory per packet in SVBF, PBF and
    /// COMB(8, 3) of equal size, query every one and count classification failures (golden models).
    Failure(FailureArgs),
}

/// Flags of `netmeas svbf failure`.
#[derive(Args, Clone, Debug)]
pub struct FailureArgs {
    /// Hash functions h (one partition each).
    #[arg(long, default_value_t = 9)]
    pub hashes: usize,
    /// log2 of the bits of one partition (m = h · 2^p).
    #[arg(long, default_value_t = 17)]
    pub partition_log2: u32,
    /// Delay centers k (logarithmic: k/γ linear centers in each decade of 100 ns … 10 ms).
    #[arg(long, default_value_t = 50)]
    pub centers: usize,
    /// Memory per stored packet m/n, bits (§5.3: 12.8).
    #[arg(long, default_value_t = 12.8)]
    pub bits_per_packet: f64,
    /// Seed of the keys and latencies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs a `netmeas svbf` subcommand.
pub fn run(cmd: &SvbfCmd) -> Result<(), String> {
    match cmd {
        SvbfCmd::Dimension { centers, target_failure, json } => {
            let d = dimension(*centers, *target_failure).map_err(|e| e.to_string())?;
            if *json {
                crate::output::print_json(&d)?;
            } else {
                println!("k = {}, target classification failure {}", d.centers, d.target);
                println!("hash functions h ≥ {:.3} → {}", d.h_bound, d.hashes);
                println!(
                    "memory m/n ≥ {:.2} bits per packet (load n/m ≤ {:.4})",
                    d.bits_per_packet,
                    1.0 / d.bits_per_packet
                );
                println!("classification failure at that load (eq. 3): {:.4}", d.expected_failure);
            }
            Ok(())
        }
        SvbfCmd::Failure(a) => failure(a),
    }
}

fn failure(a: &FailureArgs) -> Result<(), String> {
    let cfg =
        SvbfConfig { hashes: a.hashes, partition_log2: a.partition_log2, centers: a.centers, ..Default::default() };
    cfg.validate().map_err(|e| e.to_string())?;
    if !(a.bits_per_packet.is_finite() && a.bits_per_packet >= 1.0) {
        return Err(format!("--bits-per-packet {} must be at least 1", a.bits_per_packet));
    }
    let m = cfg.total_bits() as f64;
    let n = (m / a.bits_per_packet) as usize;
    let values = log_centers(a.centers, 100, 5);
    if values.len() != a.centers {
        return Err(format!("--centers {}: logarithmic centers over 5 decades are not distinct", a.centers));
    }
    let centers = Centers::new(&values).map_err(|e| e.to_string())?;
    let mut store = SvbfStore::new(&cfg, centers).map_err(|e| e.to_string())?;
    // Latencies log-uniform over the five decades (100 ns … 10 ms in ns ticks).
    let mut rng = SplitMix64::new(a.seed);
    let pkts: Vec<(u64, u64, usize)> = (0..n)
        .map(|_| {
            let key = rng.next_u64();
            let lat = (100.0 * 10f64.powf(5.0 * rng.unit_open())) as u64;
            (key, lat, 0)
        })
        .collect();
    let pkts: Vec<(u64, u64, usize)> = pkts.into_iter().map(|(k, l, _)| (k, l, store.insert(k, l))).collect();
    let (mut matched, mut multi, mut wrong, mut none) = (0usize, 0usize, 0usize, 0usize);
    for &(key, _, i) in &pkts {
        let ans = store.lookup(key);
        match ans.kind {
            MatchKind::Match => matched += 1,
            MatchKind::MultiMatch => {
                multi += 1;
                if ans.center != i {
                    wrong += 1;
                }
            }
            MatchKind::NoMatch => none += 1,
        }
    }
    if none != 0 {
        return Err(format!("{none} stored packets were not found: the store lost packets"));
    }
    let stray = (0..n).filter(|_| store.lookup(rng.next_u64()).kind != MatchKind::NoMatch).count();
    // Baselines at the same memory: PBF split by the shares of an earlier epoch
    // of the same distribution (§5.3), COMB(8, 3) with 3 hashes per code bit.
    let mut shares = vec![0f64; a.centers];
    for _ in 0..n {
        shares[store.centers().classify((100.0 * 10f64.powf(5.0 * rng.unit_open())) as u32)] += 1.0;
    }
    let mut pbf = Pbf::new(cfg.total_bits(), &shares, a.hashes, a.seed ^ 0x5042);
    let mut comb = Comb::new(cfg.total_bits(), a.centers, 8, 3, 3, a.seed ^ 0x434f)?;
    for &(key, _, i) in &pkts {
        pbf.insert(key, i);
        comb.insert(key, i);
    }
    // Failure (several candidates) and false classification (the §3.3.4 tie
    // rule, with the epoch's per-center counts, picks another center) of a baseline.
    let rates = |cand: &dyn Fn(u64) -> u64| {
        let (mut fail, mut wrong) = (0usize, 0usize);
        for &(key, _, i) in &pkts {
            let c = cand(key);
            if c.count_ones() > 1 {
                fail += 1;
                wrong += (answer(c, store.counts(), store.sums(), store.centers()).center != i) as usize;
            }
        }
        (fail as f64 / n as f64, wrong as f64 / n as f64)
    };
    let (pbf_fail, pbf_wrong) = rates(&|k| pbf.candidates(k));
    let (comb_fail, comb_wrong) = rates(&|k| comb.candidates(k));
    let comb_predicted = p_cf_comb(m, n as f64, 3.0, 8, 3);
    let predicted = p_cf_svbf(p_fp_partitioned(m, n as f64, a.hashes as f64), a.centers);
    let nf = n as f64;
    let out = json!({
        "bits": cfg.total_bits(), "hashes": a.hashes, "centers": a.centers, "packets": n,
        "bits_per_packet": m / nf, "fill": store.fill(),
        "classification_failure": multi as f64 / nf, "predicted_failure_eq3": predicted,
        "false_classification": wrong as f64 / nf, "match": matched as f64 / nf,
        "unknown_key_answered": stray as f64 / nf,
        "pbf_failure": pbf_fail, "pbf_false_classification": pbf_wrong, "pbf_bits": pbf.total_bits(),
        "comb_8_3_failure": comb_fail, "comb_8_3_false_classification": comb_wrong,
        "comb_predicted_eq2": comb_predicted,
    });
    if a.json {
        crate::output::print_json(out)?;
    } else {
        println!(
            "SVBF {} bits = {} × 2^{}, k = {}, {} packets ({:.2} bits/packet), fill {:.4}",
            cfg.total_bits(),
            a.hashes,
            a.partition_log2,
            a.centers,
            n,
            m / nf,
            store.fill()
        );
        println!("classification failure (Multi-Match): {:.4}   eq. (3): {:.4}", multi as f64 / nf, predicted);
        println!("false classification (tie-break wrong): {:.4}", wrong as f64 / nf);
        println!("unique Match: {:.4}   unknown keys answered: {:.4}", matched as f64 / nf, stray as f64 / nf);
        println!(
            "same memory: PBF (h = {}) failure {:.4}, false classification {:.4}; \
             COMB(8, 3), h = 3: failure {:.4}, eq. (2) {:.4}, false classification {:.4}",
            a.hashes, pbf_fail, pbf_wrong, comb_fail, comb_predicted, comb_wrong
        );
    }
    Ok(())
}

/// Flags of `netmeas run svbf`.
#[derive(Args, Clone, Debug)]
pub struct RunSvbf {
    /// Hash functions h (one partition each).
    #[arg(long, default_value_t = 9)]
    pub hashes: usize,
    /// log2 of the bits of one partition (m = h · 2^p).
    #[arg(long, default_value_t = 17)]
    pub partition_log2: u32,
    /// Delay centers k (2-64).
    #[arg(long, default_value_t = 50)]
    pub centers: usize,
    /// log | kmedians | hybrid (§3.1-3.2; centers from the samples of two epochs back).
    #[arg(long, default_value = "hybrid")]
    pub clustering: String,
    /// Packets per epoch; default m / 12.8 (§5.3's memory per packet).
    #[arg(long)]
    pub packets: Option<usize>,
    /// Epochs (the first two train the clustering only).
    #[arg(long, default_value_t = 6)]
    pub epochs: usize,
    /// Flows (keys are flow · 2^16 + IP-ID).
    #[arg(long, default_value_t = 20_000)]
    pub flows: usize,
    /// Delay distribution, µs: weibull:SCALE:SHAPE | pareto:SCALE:SHAPE | const:D.
    #[arg(long, default_value = "weibull:50:0.6")]
    pub delay: String,
    /// Relative drift of the delay scale between epochs (epoch e scales by 1 + drift · sin e).
    #[arg(long, default_value_t = 0.2)]
    pub drift: f64,
    /// The online clustering samples one packet in 2^S.
    #[arg(long, default_value_t = 3)]
    pub sample_log2: u32,
    /// golden | rtl (the Verilated core in the loop) | both (compared epoch by epoch).
    #[arg(long, value_enum, default_value_t = Engine::Golden)]
    pub engine: Engine,
    /// Seed of the trace.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seed of the hash functions (the RTL's are baked in: the default matches the built core).
    #[arg(long)]
    pub hash_seed: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `netmeas run svbf`.
pub fn run_svbf(a: &RunSvbf) -> Result<(), String> {
    let progress = crate::progress::Progress::spinner("run svbf", a.json);
    let clustering: Clustering = a.clustering.parse()?;
    let cfg = SvbfConfig {
        hashes: a.hashes,
        partition_log2: a.partition_log2,
        centers: a.centers,
        seed: a.hash_seed.unwrap_or(SvbfConfig::default().seed),
    };
    cfg.validate().map_err(|e| e.to_string())?;
    let rtl = if a.engine == Engine::Golden { None } else { Some(rtl_svbf_engine(&cfg)?) };
    let packets = a.packets.unwrap_or((cfg.total_bits() as f64 / 12.8) as usize);
    let delay: DelayDist = a.delay.parse()?;
    if a.sample_log2 > 20 {
        return Err(format!("--sample-log2 {} is above 20", a.sample_log2));
    }
    let spec = SvbfRunSpec {
        cfg: cfg.clone(),
        clustering,
        epochs: a.epochs,
        packets,
        flows: a.flows,
        delay,
        drift: a.drift,
        sample_log2: a.sample_log2,
        log_lo_ns: 100,
        decades: 5,
        seed: a.seed,
    };
    let (r, matched) = match rtl {
        None => (run_golden(&spec)?, None),
        Some(mut rtl) if a.engine == Engine::Rtl => (run_engine(&spec, rtl.as_mut())?, None),
        Some(rtl) => (run_engine(&spec, &mut BothEngine { rtl, epoch: 0 })?, Some(true)),
    };
    drop(progress);
    if a.json {
        let v = json!({
            "bits": cfg.total_bits(), "hashes": a.hashes, "centers": a.centers, "clustering": a.clustering,
            "packets_per_epoch": packets, "bits_per_packet": cfg.total_bits() as f64 / packets as f64,
            "epochs_measured": a.epochs - 2, "delay": a.delay, "engine": a.engine, "report": r,
            "synopsis_match": matched,
        });
        crate::output::print_json(v)?;
    } else {
        println!(
            "SVBF {} bits = {} × 2^{}, k = {} ({} clustering), {} packets/epoch ({:.2} bits/packet), {} epochs measured, delay {}",
            cfg.total_bits(),
            a.hashes,
            a.partition_log2,
            a.centers,
            a.clustering,
            packets,
            cfg.total_bits() as f64 / packets as f64,
            a.epochs - 2,
            a.delay
        );
        println!(
            "classification failure {:.4}  false classification {:.4}  no match {:.4}  fill {}",
            r.classification_failure,
            r.false_classification,
            r.no_match,
            r.fill.map_or("not visible through the RTL".to_string(), |f| format!("{f:.3}"))
        );
        let p = |x: Pcts| format!("{:.4} / {:.4} / {:.4}", x.p50, x.p90, x.p99);
        println!("per packet  abs. error ns p50/p90/p99: {}", p(r.abs_error_ns));
        println!("per packet  rel. error    p50/p90/p99: {}", p(r.rel_error));
        println!("  clustering alone        p50/p90/p99: {}", p(r.rel_error_clustering_only));
        println!("per flow    rel. error of the mean latency p50/p90/p99: {}", p(r.flow_rel_error));
        let q = &r.range;
        println!(
            "range queries (§4): {} tuples, {:.4} of the bytes of packet queries; per-flow aggregate rel. error \
             p50/p90/p99: {}",
            q.tuples,
            q.compression,
            p(q.flow_rel_error)
        );
        println!(
            "with the neighbouring epochs: classification failure {:.4}, answered from another epoch {:.4}, \
             rel. error p50/p90/p99: {}",
            q.neighbours_classification_failure,
            q.neighbours_wrong_epoch,
            p(q.neighbours_rel_error)
        );
    }
    if !a.json && matched == Some(true) {
        println!("RTL and golden store agree: every answer, count and sum of every epoch");
    }
    Ok(())
}

/// The golden store and the RTL side by side: every epoch's answers and
/// counters compared; the first difference ends the run with an error.
struct BothEngine {
    rtl: Box<dyn SvbfEngine>,
    epoch: usize,
}

impl SvbfEngine for BothEngine {
    fn epoch(&mut self, cfg: &SvbfConfig, centers: &Centers, packets: &[(u64, u64)]) -> Result<EpochResult, String> {
        let g = GoldenEngine.epoch(cfg, centers, packets)?;
        let r = self.rtl.epoch(cfg, centers, packets)?;
        let e = self.epoch;
        self.epoch += 1;
        if let Some(i) = (0..g.answers.len().max(r.answers.len())).find(|&i| g.answers.get(i) != r.answers.get(i)) {
            return Err(format!(
                "epoch {e}: golden and RTL answers differ at packet {i}: {:?} vs {:?}",
                g.answers.get(i),
                r.answers.get(i)
            ));
        }
        if let Some(c) = (0..g.counts.len().max(r.counts.len()))
            .find(|&c| (g.counts.get(c), g.sums.get(c)) != (r.counts.get(c), r.sums.get(c)))
        {
            return Err(format!("epoch {e}: golden and RTL counters of center {c} differ"));
        }
        Ok(g)
    }
}
