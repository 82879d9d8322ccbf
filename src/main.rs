//! `netmeas`: export, co-simulate, synthesize and benchmark the netmeas blocks.

/// Every line the CLI prints goes through [`output::print_line`]: a full
/// disk is a one-line error, not a panic in `std::io::stdio`.
macro_rules! println {
    () => {
        $crate::output::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::print_line(format_args!($($arg)*))
    };
}

mod args;
mod board_cmd;
mod board_station;
mod dbm_cmd;
mod dbm_reproduce;
mod demo;
mod fridge_cmd;
mod fridge_reproduce;
mod lda_cmd;
mod lda_reproduce;
mod output;
mod plot;
mod progress;
mod rda_cmd;
mod rda_reproduce;
mod sim_cmd;
mod station_cmd;
mod svbf_cmd;

use clap::{Parser, Subcommand};
use netmeas_hdl::export::{BlockConfig, export};
use netmeas_hdl::registry::{self, Kind};
use netmeas_sim::counter_bank::{BankStore, CountSum, CounterBankConfig};
use netmeas_sim::lda::{LdaConfig, LdaGolden, LdaPacket};
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::rda::RdaConfig;
use netmeas_synth::{SynthReport, Target};
use netmeas_testbench::models::*;
use netmeas_testbench::{CbDriver, CbStimulus, CoreRtl, cosim_counter_bank, cosim_counter_bank_streams};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(name = "netmeas", version, about = "Line-rate network-measurement cores: export, co-simulate, synthesize")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write a block's Verilog, interface JSON, FuseSoC core, clock constraints, register map and testbench.
    Export {
        /// h3 | counter-bank | lda | rda | fridge | expb | dbm | svbf | link | engine
        block: String,
        /// Config file (TOML, or JSON if it ends in .json); defaults otherwise.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output folder.
        #[arg(long, default_value = "out/export")]
        out: PathBuf,
        /// Clock frequency the constraints (.sdc, .lpf, .pcf) ask for, MHz.
        #[arg(long, default_value_t = netmeas_hdl::export::DEFAULT_CLOCK_MHZ)]
        clock_mhz: f64,
        /// Also write the self-checking Verilog testbench (<top>_tb.v, <top>_tb.hex) and the FuseSoC `sim` target.
        #[arg(long)]
        testbench: bool,
        /// Seed of the testbench's stimulus.
        #[arg(long, default_value_t = 1, requires = "testbench")]
        seed: u64,
        /// Wrap the core as a measurement point: frames in on AXI4-Stream (frame parser, record
        /// FIFO, status counters), registers on `axi` (AXI4-Lite) or `wishbone` (B4 pipelined).
        #[arg(long, conflicts_with = "testbench")]
        wrap: Option<String>,
        /// The point's MAC data width (`s_axis_tdata`), bits: 64, 128, 256 or 512.
        #[arg(long, default_value_t = 64, requires = "wrap")]
        mac_bits: usize,
        /// The point's MAC clock (`s_axis_aclk`) its constraints ask for, MHz.
        #[arg(long, default_value_t = netmeas_hdl::export::DEFAULT_CLOCK_MHZ, requires = "wrap")]
        mac_mhz: f64,
        /// An inline point (lda, svbf; 64-bit MAC): the frames pass through it (`s_axis_*` to
        /// `m_axis_*`) and a pair of points ends its epochs in band, with control frames.
        #[arg(long, requires = "wrap")]
        inline: bool,
    },
    /// Verilate a block with its shipped testbench and run it against the golden per-clock model;
    /// optionally write the waveform.
    Sim {
        /// h3 | counter-bank | lda | rda | fridge | expb | dbm | svbf | link
        block: String,
        /// Config file (TOML, or JSON if it ends in .json); defaults otherwise.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Clocks to run (default: the block's testbench length, which covers its read-outs).
        #[arg(long)]
        cycles: Option<usize>,
        /// Seed of the stimulus.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the waveform here (.vcd or .fst).
        #[arg(long)]
        wave: Option<PathBuf>,
    },
    /// Synthesize, place and route a block and its reference RMW loop; print Fmax and resources.
    Synth {
        /// h3 | counter-bank | lda | rda | fridge | expb | dbm | svbf | link | engine | all
        block: String,
        /// ecp5-85k | ice40-hx8k
        #[arg(long)]
        target: String,
        /// Config file (TOML or JSON); defaults to the block's default for the target.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Print one JSON object per block.
        #[arg(long)]
        json: bool,
    },
    /// Run one measurement interval of a sender/receiver pair of cores and estimate.
    Run {
        #[command(subcommand)]
        core: RunCore,
    },
    /// Estimate from saved sender and receiver synopses.
    Estimate {
        #[command(subcommand)]
        core: EstimateCore,
    },
    /// Reproduce a paper's evaluation and print the table (docs/cores/*.md).
    Reproduce {
        #[command(subcommand)]
        core: ReproduceCore,
    },
    /// MAPLE packet latency store: §3.4 dimensioning and measured classification failure.
    Svbf {
        #[command(subcommand)]
        cmd: svbf_cmd::SvbfCmd,
    },
    /// The measurement engine on a board: read its epochs and estimate, or build its bitstream.
    Board {
        #[command(subcommand)]
        cmd: board_cmd::BoardCmd,
    },
    /// The measurement station: archive every epoch of every point in SQLite
    /// or PostgreSQL; with --http, serve its dashboard.
    #[command(args_conflicts_with_subcommands = true, subcommand_required = false)]
    Station {
        #[command(subcommand)]
        cmd: Option<station_cmd::StationCmd>,
        #[command(flatten)]
        dashboard: station_cmd::Dashboard,
    },
    /// Ask the station: latency of a segment or a path over time, bursts on links and where they coincide, unpaired and refused epochs.
    Query {
        #[command(subcommand)]
        cmd: station_cmd::QueryCmd,
    },
    /// Measure co-simulation and golden-model throughput.
    Bench {
        /// Co-simulated cycles.
        #[arg(long, default_value_t = 20_000_000)]
        cycles: u64,
    },
    /// Every block on its default config: export and lint, co-simulation, its estimate vs the truth,
    /// synthesis on both targets; writes out/report.md.
    Demo {
        /// Co-simulated cycles per block.
        #[arg(long, default_value_t = 2_000_000)]
        cycles: u64,
        /// Skip place and route (export and co-simulation only).
        #[arg(long)]
        no_synth: bool,
    },
}

#[derive(Subcommand)]
enum RunCore {
    /// Lossy difference aggregator: FIFO segment with delays and loss, mean and std-dev estimates.
    Lda(lda_cmd::RunLda),
    /// Reconcilable difference aggregator: clock-delimited interval with loss and edge reordering, peeling decode, repair, estimates.
    Rda(rda_cmd::RunRda),
    /// Fridges: request/response delay distribution with survivorship-bias correction, vs the simple algorithm.
    Fridge(fridge_cmd::RunFridge),
    /// Dynamic bucket merge: bandwidth at any time scale after the fact, bursts and culprits (Uyeda et al. §3.1).
    Dbm(dbm_cmd::RunDbm),
    /// Exponential bucketing: bandwidth statistics at 2^i time scales (Uyeda et al. §3.2).
    Expb(dbm_cmd::RunExpb),
    /// MAPLE packet latency store: per-packet latencies through delay centers and the SVBF (golden model).
    Svbf(svbf_cmd::RunSvbf),
}

#[derive(Subcommand)]
enum ReproduceCore {
    /// §IV-A/B loss sweep: error of mean and std-dev versus loss, tuned single bank and two banks.
    Lda(lda_reproduce::ReproduceLda),
    /// §VII-B Fig. 7/6 sweep: error of mean and std-dev and decode time versus set difference, RDA vs LDA.
    Rda(rda_reproduce::ReproduceRda),
    /// §5 Fig. 3/5: error versus p, and one/two fridges versus the simple algorithm across memory sizes.
    Fridge(fridge_reproduce::ReproduceFridge),
    /// §4.1 Table 1 and Fig. 4: DBM-mm/mv/mr and EXPB error at fine and coarse time scales, DBM-mr versus buckets.
    Dbm(dbm_reproduce::ReproduceDbm),
}

#[derive(Subcommand)]
enum EstimateCore {
    /// §III-D/E estimates from `run lda --save-synopses` files (or a board's read-out).
    Lda {
        /// Sender synopsis (JSON).
        sender: PathBuf,
        /// Receiver synopsis (JSON).
        receiver: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// §V-B/C decode and estimates from `run rda --save-synopses` files (or a board's read-out);
    /// without per-packet timestamps the buckets of decoded packets are excluded.
    Rda {
        /// Sender synopsis (JSON).
        sender: PathBuf,
        /// Receiver synopsis (JSON).
        receiver: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// The config of `block`: from `config` if given, else the block's default for
/// `target`; validated, and refused for a target the block cannot be built for.
fn block_config(block: &str, config: Option<&Path>, target: Option<Target>) -> Result<BlockConfig, String> {
    let core = registry::core(block)?;
    let cfg = match config {
        Some(p) => {
            if let Some(why) = target.and_then(|t| core.unfit_for(t)) {
                return Err(why.into());
            }
            core.load_config(p)?
        }
        None => core.default_config(target)?,
    };
    cfg.validate().map_err(|e| e.to_string())?;
    Ok(cfg)
}

fn print_synth(r: &SynthReport, json: bool) -> Result<(), String> {
    if json {
        crate::output::print_json(serde_json::json!({
            "core": r.core, "top": r.top, "target": r.target.name(), "fmax_mhz": r.fmax_mhz,
            "ref_fmax_mhz": r.ref_fmax_mhz, "ratio": r.ratio, "no_reference": r.no_reference,
            "luts": r.luts, "ffs": r.ffs, "brams": r.brams,
            "endpoints": r.endpoints, "endpoints_missing_goal": r.endpoints_missing_goal,
            "goal_ratio": netmeas_synth::GOAL_RATIO, "reference": r.reference, "build_dir": r.build_dir,
        }))?;
    } else {
        let against = match (r.ref_fmax_mhz, r.ratio) {
            (Some(f), Some(q)) => format!(
                "ref {f:>6.1} MHz  ratio {q:>5.3}  late at {:.1} × ref {:>5} of {}",
                netmeas_synth::GOAL_RATIO,
                r.endpoints_missing_goal,
                r.endpoints
            ),
            _ => format!("no reference ({})", r.no_reference.as_deref().unwrap_or("none")),
        };
        println!(
            "{:<13} {:<11} Fmax {:>6.1} MHz  LUT {:>5}  FF {:>5}  BRAM {:>3}  {against}",
            r.core,
            r.target.name(),
            r.fmax_mhz,
            r.luts,
            r.ffs,
            r.brams,
        );
    }
    Ok(())
}

fn synth_one(block: &str, config: Option<&Path>, target: Target, quiet: bool) -> Result<SynthReport, String> {
    let cfg = block_config(block, config, Some(target))?;
    let e = export(&cfg).map_err(|e| e.to_string())?;
    let progress = progress::Progress::spinner(&format!("synth {block}"), quiet);
    progress.message(format!("{} on {}: Yosys, nextpnr, core and reference", e.top, target.name()));
    netmeas_synth::synth(&e, target, &netmeas_hdl::tools::repo_root().join("build").join("synth"))
}

/// Packets per second of one golden LDA core (default config, random 120-bit
/// keys, every packet measured; one thread).
fn bench_lda_golden() -> f64 {
    let cfg = LdaConfig::default();
    let mut core = LdaGolden::new(&cfg);
    let mut rng = SplitMix64::new(6);
    let pkts: Vec<LdaPacket> =
        (0..1 << 16).map(|i| LdaPacket { key: rng.next_u128(), ts: 1000 + 200 * i as u64, class: 0 }).collect();
    let n = 200_000_000usize;
    let t = Instant::now();
    for k in 0..n {
        core.packet(&pkts[k & 0xFFFF]);
    }
    let rate = n as f64 / t.elapsed().as_secs_f64();
    std::hint::black_box(core.end_epoch());
    rate
}

/// Packets per second of one golden RDA core (default config, random IDs,
/// every packet measured, no interval boundary): packet by packet, then in
/// runs of 2^16 through `packets` on one thread and on two.
fn bench_rda_golden() -> [f64; 3] {
    let cfg = RdaConfig::default();
    let mut rng = SplitMix64::new(7);
    let ids: Vec<u64> = (0..1 << 16).map(|_| rng.next_u64()).collect();
    // 3000 runs of 2^16 packets.
    let n = 3000 * ids.len();
    let mut rates = [0.0; 3];
    let mut synopses = Vec::new();
    for (mode, rate) in rates.iter_mut().enumerate() {
        let mut core = netmeas_sim::rda::RdaGolden::new(&cfg);
        core.set_parallel_run((mode == 2).then_some(netmeas_sim::rda::RDA_PARALLEL_RUN));
        let mut out = Vec::new();
        let mut run = Vec::with_capacity(ids.len());
        let t = Instant::now();
        if mode == 0 {
            for k in 0..n {
                core.packet(ids[k & 0xFFFF], 1 + (k as u64 >> 8), &mut out);
            }
        } else {
            for c in 0..n / ids.len() {
                run.clear();
                run.extend(ids.iter().enumerate().map(|(j, &id)| (id, 1 + ((c * ids.len() + j) as u64 >> 8))));
                core.packets(&run, &mut out);
            }
        }
        *rate = n as f64 / t.elapsed().as_secs_f64();
        core.advance(1 << 40, &mut out);
        synopses.push(out);
    }
    // The three modes are one model: the same synopses.
    assert!(synopses.windows(2).all(|w| w[0] == w[1]), "RDA golden modes disagree");
    rates
}

/// Packets per second of one golden fridge core (default config, 2 × 2048
/// entries, the §5 synthetic trace of 1.75 M requests and responses replayed;
/// one thread).
fn bench_fridge_golden() -> f64 {
    use netmeas_sim::fridge::{FridgeConfig, FridgeGolden, SyntheticSpec};
    let trace = SyntheticSpec::default().build().expect("bench trace");
    let mut core = FridgeGolden::new(&FridgeConfig::default());
    let rounds = 80;
    let t = Instant::now();
    let mut samples = 0usize;
    for _ in 0..rounds {
        for p in &trace.packets {
            samples += core.process(p).is_some() as usize;
        }
    }
    let rate = (rounds * trace.packets.len()) as f64 / t.elapsed().as_secs_f64();
    std::hint::black_box(samples);
    rate
}

/// Packets per second of the golden DBM and EXPB cores (one thread): DBM-mm
/// in per-packet mode with 1024 buckets (every packet a bucket and a merge,
/// Algorithm 1) and EXPB with 11 scales from 78.125 µs, both on the default
/// bursty 2 s trace.
fn bench_bandwidth_golden() -> (f64, f64, usize) {
    use netmeas_sim::dbm::{BurstySpec, DbmConfig, DbmGolden, ExpbConfig, ExpbGolden};
    let packets = BurstySpec::default().generate().expect("bench trace");
    let rounds = 10;
    let mut periods = Vec::new();
    let t = Instant::now();
    for _ in 0..rounds {
        let mut dbm = DbmGolden::new(&DbmConfig::default()).expect("default config");
        for p in &packets {
            dbm.push(p, &mut periods).expect("ordered trace");
        }
        periods.push(dbm.finish());
    }
    let dbm_rate = (rounds * packets.len()) as f64 / t.elapsed().as_secs_f64();
    let mut eperiods = Vec::new();
    let t = Instant::now();
    for _ in 0..rounds {
        let mut e = ExpbGolden::new(&ExpbConfig::default()).expect("default config");
        for p in &packets {
            e.push(p, &mut eperiods).expect("ordered trace");
        }
        eperiods.push(e.finish());
    }
    let expb_rate = (rounds * packets.len()) as f64 / t.elapsed().as_secs_f64();
    std::hint::black_box((periods.len(), eperiods.len()));
    (dbm_rate, expb_rate, packets.len())
}

/// Clocks per packet of the per-packet DBM-mm core (its per-clock model,
/// 1024 buckets), each packet offered as soon as the last was taken: on the
/// default bursty trace (one 2 s period, 61 481 packets) and on 2 × 10^6
/// back-to-back 64-byte packets of 16 flows in one period (40GbE line rate).
fn bench_dbm_clocks() -> [(f64, u64, u64); 2] {
    use netmeas_sim::dbm::{BurstySpec, BwPacket, DbmConfig, DbmCycle, drive_dbm};
    let bursty = BurstySpec::default().generate().expect("bench trace");
    let minsize: Vec<BwPacket> =
        (0..2_000_000u64).map(|i| BwPacket { ts: i * 17, len: 64, flow: (i % 16) as u32 }).collect();
    [bursty, minsize].map(|packets| {
        let cfg = DbmConfig { period_ticks: 1 << 40, ..Default::default() };
        let mut core = DbmCycle::new(&cfg).expect("default config");
        let d = drive_dbm(&cfg, &packets, |i| core.step(i), |_| true, |_| true);
        let p = &d.periods[0];
        ((packets.len() as u64 + d.stalls) as f64 / packets.len() as f64, p.tail_joins, p.merges - p.tail_joins)
    })
}

/// The host's subtract + peel + repair + estimates for one interval with a set
/// difference of about 2000 on 2 × 2500 buckets (§VII-B.1, Fig. 6): the true
/// d and the median time in ms.
fn bench_rda_decode() -> (usize, f64) {
    use netmeas_sim::rda::{IntervalTrace, RdaHashes, RdaTrafficSpec, golden_pair, reconcile};
    use netmeas_sim::traffic::{DelayDist, LossModel, Source, TrafficSpec};
    let spec = RdaTrafficSpec {
        base: TrafficSpec {
            source: Source::Synthetic { packets: 1_000_000, rate_pps: 5e6, flows: 10_000 },
            delay: DelayDist::PAPER_WEIBULL,
            loss_rate: 0.001,
            loss_model: LossModel::Uniform,
            seed: 2000,
        },
        reorder_rate: 0.001,
        window_ns: 10_000,
    };
    let iv = IntervalTrace::build(&spec).expect("bench trace");
    let cfg = iv.core_config(&RdaConfig::default());
    let pair = golden_pair(&cfg, &iv);
    let ts = iv.timestamps();
    let d = iv.truth(&cfg).set_difference;
    let hashes = RdaHashes::new(&cfg);
    let mut times: Vec<f64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            let e = reconcile(&pair.sender, &pair.receiver, &hashes, Some(&ts)).expect("pair");
            let s = t.elapsed().as_secs_f64();
            std::hint::black_box(e.mean);
            s * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (d, times[10])
}

/// Co-simulated cycles per second of the default fridge core against its per-clock model.
fn bench_fridge_cosim(cycles: u64) -> Result<f64, String> {
    use netmeas_testbench::fridge::{FridgeStimulus, cosim_fridge};
    let t = Instant::now();
    let st = cosim_fridge::<netmeas_testbench::models::FridgeDefault>(FridgeStimulus::default(), 1, cycles)
        .map_err(|m| m.to_string())?;
    Ok(st.cycles as f64 / t.elapsed().as_secs_f64())
}

/// Threads for co-simulation streams: one per core.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Checked co-simulation cycles per second of the default bank: one stream in
/// lockstep on two threads, and `cores()` independent streams, one per core.
struct CosimRates {
    one_stream: f64,
    streams: usize,
    all_streams: f64,
}

/// Co-simulation rates of the default bank, the Verilated bank's rate alone,
/// and golden updates per second.
fn bench(cycles: u64) -> Result<(CosimRates, f64, f64), String> {
    let t = Instant::now();
    let st = cosim_counter_bank::<CbDefault>(CbStimulus::default(), 1, cycles).map_err(|m| m.to_string())?;
    let one_stream = st.cycles as f64 / t.elapsed().as_secs_f64();
    let streams = cores();
    let t = Instant::now();
    let st = cosim_counter_bank_streams::<CbDefault>(CbStimulus::default(), 1, cycles, streams)
        .map_err(|m| m.to_string())?;
    let all_streams = st.cycles as f64 / t.elapsed().as_secs_f64();
    let cosim = CosimRates { one_stream, streams, all_streams };
    let alone = bench_rtl_alone(cycles);
    let cfg = CounterBankConfig::default();
    let mut store = BankStore::<CountSum>::new(cfg.rows, cfg.layout());
    let mut rng = SplitMix64::new(5);
    let ops: Vec<(usize, CountSum)> =
        (0..1 << 16).map(|_| (rng.below(1024) as usize, CountSum { count: 1, tsum: rng.next_u64() >> 24 })).collect();
    let n = 200_000_000u64;
    let t = Instant::now();
    let mut ovf = 0u64;
    for k in 0..n as usize {
        let (row, op) = ops[k & 0xFFFF];
        ovf += store.apply(0, row, &op) as u64;
    }
    let golden = n as f64 / t.elapsed().as_secs_f64();
    std::hint::black_box((ovf, store.get(0, 1)));
    Ok((cosim, alone, golden))
}

/// Cycles per second of the Verilated default bank alone, on one thread with
/// no golden model and no checks: the co-simulation's stimulus (2^16 clocks
/// of it, encoded beforehand, repeated) stepped through the model. The
/// ceiling of the checked co-simulation.
fn bench_rtl_alone(cycles: u64) -> f64 {
    let mut drv = CbDriver::new(&CbDefault::config(), CbStimulus::default(), 1);
    let ins: Vec<_> = (0..1 << 16).map(|_| CbDefault::encode(&drv.next())).collect();
    let mut rtl = CbDefault::create();
    let t = Instant::now();
    for k in 0..cycles as usize {
        std::hint::black_box(rtl.step_ports(&ins[k & 0xFFFF]));
    }
    cycles as f64 / t.elapsed().as_secs_f64()
}

fn main() -> ExitCode {
    output::default_sigpipe();
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Export { block, config, out, clock_mhz, wrap: Some(bus), mac_bits, mac_mhz, inline, .. } => {
            block_config(&block, config.as_deref(), None).and_then(|cfg| {
                let bus = netmeas_hdl::point::top::bus_by_name(&bus)?;
                let (point, core) = netmeas_hdl::point::top::wrap_with(&cfg, mac_bits, bus, inline)?;
                for f in point.write(&out, &core, mac_mhz, clock_mhz)? {
                    println!("{}", f.display());
                }
                Ok(())
            })
        }
        Cmd::Export { block, config, out, clock_mhz, testbench, seed, .. } => {
            block_config(&block, config.as_deref(), None).and_then(|cfg| {
                let e = export(&cfg).map_err(|e| e.to_string())?;
                let tb = testbench.then(|| e.testbench(seed, None)).transpose()?;
                for f in e.write(&out, clock_mhz, tb.as_ref())? {
                    println!("{}", f.display());
                }
                Ok(())
            })
        }
        Cmd::Sim { block, config, cycles, seed, wave } => block_config(&block, config.as_deref(), None)
            .and_then(|cfg| sim_cmd::sim(&cfg, cycles, seed, wave.as_deref())),
        Cmd::Synth { block, target, config, json } => Target::parse(&target).and_then(|t| {
            // `all`: every block and core that fits the target (the board systems are built by `board build`).
            let blocks: Vec<&str> = if block == "all" {
                registry::CORES
                    .iter()
                    .filter(|c| c.kind() != Kind::System && c.unfit_for(t).is_none())
                    .map(|c| c.name())
                    .collect()
            } else {
                vec![block.as_str()]
            };
            if block == "all" && config.is_some() {
                return Err("--config applies to one block, not `all`".into());
            }
            for b in blocks {
                print_synth(&synth_one(b, config.as_deref(), t, json)?, json)?;
            }
            Ok(())
        }),
        Cmd::Run { core: RunCore::Lda(a) } => lda_cmd::run(&a),
        Cmd::Estimate { core: EstimateCore::Lda { sender, receiver, json } } => {
            lda_cmd::estimate_files(&sender, &receiver, json)
        }
        Cmd::Run { core: RunCore::Rda(a) } => rda_cmd::run(&a),
        Cmd::Run { core: RunCore::Fridge(a) } => fridge_cmd::run(&a),
        Cmd::Run { core: RunCore::Dbm(a) } => dbm_cmd::run_dbm_cmd(&a),
        Cmd::Run { core: RunCore::Expb(a) } => dbm_cmd::run_expb_cmd(&a),
        Cmd::Run { core: RunCore::Svbf(a) } => svbf_cmd::run_svbf(&a),
        Cmd::Estimate { core: EstimateCore::Rda { sender, receiver, json } } => {
            rda_cmd::estimate_files(&sender, &receiver, json)
        }
        Cmd::Reproduce { core: ReproduceCore::Lda(a) } => lda_reproduce::run(&a),
        Cmd::Reproduce { core: ReproduceCore::Rda(a) } => rda_reproduce::run(&a),
        Cmd::Reproduce { core: ReproduceCore::Fridge(a) } => fridge_reproduce::run(&a),
        Cmd::Reproduce { core: ReproduceCore::Dbm(a) } => dbm_reproduce::run(&a),
        Cmd::Svbf { cmd } => svbf_cmd::run(&cmd),
        Cmd::Board { cmd: board_cmd::BoardCmd::Read(a) } => board_cmd::read(&a),
        Cmd::Board { cmd: board_cmd::BoardCmd::Build(a) } => board_cmd::build(&a),
        Cmd::Bench { cycles } => bench(cycles).map(|(cosim, alone, golden)| {
            println!(
                "co-simulation (counter bank 1024x72, checked every cycle), one stream on two threads: {:.3e} cycles/s",
                cosim.one_stream
            );
            println!(
                "co-simulation (counter bank 1024x72, checked every cycle), {} streams, one per core:  {:.3e} cycles/s",
                cosim.streams, cosim.all_streams
            );
            println!("Verilated counter bank alone (one thread, no checks):     {alone:.3e} cycles/s");
            println!("golden counter bank (transaction level, random rows):     {golden:.3e} updates/s");
            println!("golden LDA core (2 x 512, 120-bit keys, one thread):     {:.3e} packets/s", bench_lda_golden());
            let [per_packet, one_thread, two_threads] = bench_rda_golden();
            println!("golden RDA core (2 x 2500, 64-bit IDs, packet by packet): {per_packet:.3e} packets/s");
            println!("golden RDA core, runs of 2^16 packets, one thread:       {one_thread:.3e} packets/s");
            println!("golden RDA core, runs of 2^16 packets, two threads:      {two_threads:.3e} packets/s");
            println!(
                "golden fridge core (2 x 2048, §5 trace, one thread):     {:.3e} packets/s",
                bench_fridge_golden()
            );
            let (dbm, expb, n) = bench_bandwidth_golden();
            println!("golden DBM-mm (1024 buckets, per packet, {n} packets):  {dbm:.3e} packets/s");
            println!("golden EXPB (11 scales from 78.125 us, same trace):       {expb:.3e} packets/s");
            let [(bc, bj, br), (mc, mj, mr)] = bench_dbm_clocks();
            println!("DBM-mm core model, bursty trace ({bj} joins, {br} merges):  {bc:.4} clocks/packet");
            println!("DBM-mm core model, 2e6 x 64 B ({mj} joins, {mr} merges):  {mc:.4} clocks/packet");
            match bench_fridge_cosim(cycles) {
                Ok(r) => println!("co-simulation (fridge 2 x 2048, checked every cycle):     {r:.3e} cycles/s"),
                Err(e) => println!("co-simulation (fridge 2 x 2048): {e}"),
            }
            let (d, ms) = bench_rda_decode();
            println!("RDA host decode + repair + estimates, d = {d}, 2 x 2500:  {ms:.3} ms (median of 21)");
        }),
        Cmd::Demo { cycles, no_synth } => demo::demo(cycles, no_synth),
        Cmd::Station { cmd: Some(cmd), .. } => station_cmd::station(&cmd),
        Cmd::Station { cmd: None, dashboard } => station_cmd::dashboard(&dashboard),
        Cmd::Query { cmd } => station_cmd::query(&cmd),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("netmeas: error: {e}");
            ExitCode::FAILURE
        }
    }
}
