//! `netmeas`: export, co-simulate, synthesize and benchmark the netmeas blocks.

mod lda_cmd;
mod lda_reproduce;

use clap::{Parser, Subcommand};
use netmeas_hdl::export::{BlockConfig, export};
use netmeas_sim::counter_bank::{BankStore, CountSum, CounterBankConfig};
use netmeas_sim::error::load_config;
use netmeas_sim::h3::H3Config;
use netmeas_sim::lda::{LdaConfig, LdaGolden, LdaPacket};
use netmeas_sim::prng::SplitMix64;
use netmeas_synth::{SynthReport, Target};
use netmeas_testbench::models::*;
use netmeas_testbench::{CbStimulus, cosim_counter_bank, cosim_h3};
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
    /// Write a block's Verilog, interface JSON and FuseSoC core file.
    Export {
        /// h3 | counter-bank | lda
        block: String,
        /// Config file (TOML, or JSON if it ends in .json); defaults otherwise.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output folder.
        #[arg(long, default_value = "out/export")]
        out: PathBuf,
    },
    /// Synthesize, place and route a block and its reference RMW loop; print Fmax and resources.
    Synth {
        /// h3 | counter-bank | lda | all
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
    /// Measure co-simulation and golden-model throughput.
    Bench {
        /// Co-simulated cycles.
        #[arg(long, default_value_t = 20_000_000)]
        cycles: u64,
    },
    /// Everything on default configs: export, co-simulate ≥ 10^6 cycles, synthesize both targets, report.
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
}

#[derive(Subcommand)]
enum ReproduceCore {
    /// §IV-A/B loss sweep: error of mean and std-dev versus loss, tuned single bank and two banks.
    Lda(lda_reproduce::ReproduceLda),
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
}

fn block_config(block: &str, config: Option<&Path>, target: Option<Target>) -> Result<BlockConfig, String> {
    let cfg = match block {
        "h3" => BlockConfig::H3(match config {
            Some(p) => load_config::<H3Config>(p).map_err(|e| e.to_string())?,
            None => H3Config::default(),
        }),
        "counter-bank" => BlockConfig::CounterBank(match config {
            Some(p) => load_config::<CounterBankConfig>(p).map_err(|e| e.to_string())?,
            None => default_bank(target),
        }),
        "lda" => BlockConfig::Lda(match config {
            Some(p) => load_config::<LdaConfig>(p).map_err(|e| e.to_string())?,
            None => default_lda(target),
        }),
        other => return Err(format!("unknown block `{other}`: use h3, counter-bank or lda")),
    };
    cfg.validate().map_err(|e| e.to_string())?;
    Ok(cfg)
}

/// The default bank for a target: the paper's 1024 rows, or 512 on the iCE40-HX8K,
/// whose 32 EBRs (128 kbit) cannot hold two copies of 1024 × 72 bits.
fn default_bank(target: Option<Target>) -> CounterBankConfig {
    match target {
        Some(Target::Ice40Hx8k) => CounterBankConfig { rows: 512, ..Default::default() },
        _ => CounterBankConfig::default(),
    }
}

/// The default LDA for a target: the paper's two banks of 512 rows, or two of
/// 256 on the iCE40-HX8K (two copies of 1024 × 72 bits exceed its 32 EBRs).
fn default_lda(target: Option<Target>) -> LdaConfig {
    match target {
        Some(Target::Ice40Hx8k) => LdaConfig { rows: 256, ..Default::default() },
        _ => LdaConfig::default(),
    }
}

fn print_synth(r: &SynthReport, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::json!({
                "core": r.core, "top": r.top, "target": r.target.name(), "fmax_mhz": r.fmax_mhz,
                "ref_fmax_mhz": r.ref_fmax_mhz, "ratio": r.ratio, "luts": r.luts, "ffs": r.ffs, "brams": r.brams,
                "reference": r.reference, "build_dir": r.build_dir,
            })
        );
    } else {
        println!(
            "{:<13} {:<11} Fmax {:>6.1} MHz  ref {:>6.1} MHz  ratio {:>5.3}  LUT {:>5}  FF {:>5}  BRAM {:>3}",
            r.core,
            r.target.name(),
            r.fmax_mhz,
            r.ref_fmax_mhz,
            r.ratio,
            r.luts,
            r.ffs,
            r.brams
        );
    }
}

fn synth_one(block: &str, config: Option<&Path>, target: Target) -> Result<SynthReport, String> {
    let cfg = block_config(block, config, Some(target))?;
    let e = export(&cfg).map_err(|e| e.to_string())?;
    eprintln!("[synth] {} on {} (Yosys + nextpnr, core and reference)…", e.top, target.name());
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

/// Co-simulated cycles per second of the default bank, and golden updates per second.
fn bench(cycles: u64) -> Result<(f64, f64), String> {
    let t = Instant::now();
    let st = cosim_counter_bank::<CbDefault>(CbStimulus::default(), 1, cycles).map_err(|m| m.to_string())?;
    let cosim = st.cycles as f64 / t.elapsed().as_secs_f64();
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
    Ok((cosim, golden))
}

fn demo(cycles: u64, no_synth: bool) -> Result<(), String> {
    let out = Path::new("out");
    let mut report = String::from("# netmeas demo report\n\n");
    report.push_str("## Export (verilator --lint-only -Wall)\n\n| block | top module |\n|---|---|\n");
    for block in ["h3", "counter-bank"] {
        let cfg = block_config(block, None, None)?;
        let e = export(&cfg).map_err(|e| e.to_string())?;
        let files = e.write(&out.join("export")).map_err(|e| e.to_string())?;
        netmeas_hdl::tools::lint(&files[0], &e.top)?;
        eprintln!("[export] {} -> {} (lint clean)", block, files[0].display());
        report.push_str(&format!("| {block} | `{}` |\n", e.top));
    }
    report.push_str("\n## Co-simulation (Verilator vs golden model, every output every cycle)\n\n| model | cycles | updates | hazards at distance 1, 2, 3, 4 | epochs read | cycles/s |\n|---|---:|---:|---:|---:|---:|\n");
    let t = Instant::now();
    eprintln!("[cosim] counter bank 1024x{{32,40}}: {cycles} cycles…");
    let st = cosim_counter_bank::<CbDefault>(CbStimulus::default(), 2026, cycles).map_err(|m| m.to_string())?;
    let rate = st.cycles as f64 / t.elapsed().as_secs_f64();
    report.push_str(&format!(
        "| cb_default | {} | {} | {:?} | {} | {:.2e} |\n",
        st.cycles, st.updates, st.hazards, st.epochs_read, rate
    ));
    let t = Instant::now();
    eprintln!("[cosim] H3 128->64 bits: {cycles} cycles…");
    let n = cosim_h3::<H3Wide>(60000, 2026, cycles).map_err(|m| m.to_string())?;
    report.push_str(&format!("| h3_wide | {n} | - | - | - | {:.2e} |\n", n as f64 / t.elapsed().as_secs_f64()));
    println!("co-simulation: {} + {} cycles bit-exact", st.cycles, n);
    if !no_synth {
        report.push_str("\n## Synthesis (Yosys + nextpnr, register-to-register harness)\n\n| block | target | Fmax MHz | ref Fmax MHz | ratio | LUT | FF | BRAM |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
        for block in ["counter-bank", "h3"] {
            for target in [Target::Ecp5_85k, Target::Ice40Hx8k] {
                let r = synth_one(block, None, target)?;
                print_synth(&r, false);
                report.push_str(&format!(
                    "| {} | {} | {:.1} | {:.1} | {:.3} | {} | {} | {} |\n",
                    r.core,
                    r.target.name(),
                    r.fmax_mhz,
                    r.ref_fmax_mhz,
                    r.ratio,
                    r.luts,
                    r.ffs,
                    r.brams
                ));
            }
        }
    }
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    std::fs::write(out.join("report.md"), &report).map_err(|e| e.to_string())?;
    println!("{report}");
    eprintln!("[demo] wrote out/report.md");
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Export { block, config, out } => block_config(&block, config.as_deref(), None).and_then(|cfg| {
            let e = export(&cfg).map_err(|e| e.to_string())?;
            for f in e.write(&out).map_err(|e| format!("cannot write {}: {e}", out.display()))? {
                println!("{}", f.display());
            }
            Ok(())
        }),
        Cmd::Synth { block, target, config, json } => Target::parse(&target).and_then(|t| {
            let blocks: Vec<&str> =
                if block == "all" { vec!["h3", "counter-bank", "lda"] } else { vec![block.as_str()] };
            if block == "all" && config.is_some() {
                return Err("--config applies to one block, not `all`".into());
            }
            for b in blocks {
                print_synth(&synth_one(b, config.as_deref(), t)?, json);
            }
            Ok(())
        }),
        Cmd::Run { core: RunCore::Lda(a) } => lda_cmd::run(&a),
        Cmd::Estimate { core: EstimateCore::Lda { sender, receiver, json } } => {
            lda_cmd::estimate_files(&sender, &receiver, json)
        }
        Cmd::Reproduce { core: ReproduceCore::Lda(a) } => lda_reproduce::run(&a),
        Cmd::Bench { cycles } => bench(cycles).map(|(cosim, golden)| {
            println!("co-simulation (counter bank 1024x72, checked every cycle): {cosim:.3e} cycles/s");
            println!("golden counter bank (transaction level, random rows):     {golden:.3e} updates/s");
            println!("golden LDA core (2 x 512, 120-bit keys, one thread):     {:.3e} packets/s", bench_lda_golden());
        }),
        Cmd::Demo { cycles, no_synth } => demo(cycles, no_synth),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("netmeas: error: {e}");
            ExitCode::FAILURE
        }
    }
}
