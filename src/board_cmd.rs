//! `netmeas board read|build`: the measurement engine on a board (or its
//! Verilator model on a simulated serial line), and its bitstreams.

use crate::board_station::{Body, EngineCore, StationSink, epoch_bodies, lda_bodies, save_epochs};
use clap::{Args, Subcommand};
use netmeas_sim::board::engine::{EngineConfig, ExternalBeat};
use netmeas_sim::board::host::{ByteLink, LinkHost, LinkStats, SimulatedLine};
use netmeas_sim::board::reader::{EngineReader, EpochReport};
use netmeas_sim::board::source::{EpochTraffic, SourceModel, SourceSettings, delay_table};
use netmeas_sim::lda::LdaEstimate;
use netmeas_sim::traffic::DelayDist;
use netmeas_synth::board::{Board, build_board};
use netmeas_testbench::engine::{EngineRtl, RtlEngineSide, rtl_engine};
use netmeas_testbench::models::{EngineDefault, EngineHx8k};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `netmeas board …`.
#[derive(Subcommand)]
pub enum BoardCmd {
    /// Configure the engine, read each epoch's synopses, estimate, and check
    /// against the on-chip source's ground truth and the golden models (or
    /// measure the engine's external packet-metadata streams).
    Read(BoardRead),
    /// Build the engine's bitstream for a board (Yosys, nextpnr, ecppack/icepack) with a timing and resource report.
    Build(BoardBuild),
}

/// What the engine's cores measure (`board read --source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PacketSource {
    /// The on-chip traffic source.
    Onchip,
    /// The engine's external packet-metadata streams.
    External,
}

/// Flags of `board read`.
#[derive(Args)]
pub struct BoardRead {
    /// Serial device of the board (e.g. /dev/ttyUSB0), or `sim` for the
    /// Verilator model of the board's engine on a simulated serial line.
    #[arg(long)]
    port: String,
    /// The board on the port (sets the engine's geometry, clock and baud rate): ulx3s | ice40-hx8k.
    #[arg(long, default_value = "ulx3s", value_parser = Board::parse)]
    board: Board,
    /// What the cores measure: `onchip`, the on-chip traffic source; or
    /// `external`, the engine's external packet-metadata streams (x_tx_*,
    /// x_rx_*), whose flips end the epochs. With `--port sim` the Verilated
    /// engine's external ports are fed the packets the source's model
    /// generates, as a NIC would deliver them, and checked as with `onchip`;
    /// on a board the estimates are printed without a ground truth.
    #[arg(long, value_enum, default_value_t = PacketSource::Onchip)]
    source: PacketSource,
    /// Epochs to read.
    #[arg(long, default_value_t = 3)]
    epochs: u32,
    /// Packets per epoch.
    #[arg(long, default_value_t = 65_536)]
    packets: u32,
    /// Clocks between packets (1 = one packet per clock).
    #[arg(long, default_value_t = 1)]
    gap: u16,
    /// One-way delay: weibull:SCALE_US:SHAPE | pareto:SCALE_US:SHAPE | const:DELAY_US (256-entry table).
    #[arg(long, default_value = "weibull:2:0.8")]
    delay: String,
    /// Loss probability.
    #[arg(long, default_value_t = 0.01)]
    loss: f64,
    /// Probability that a delivered packet is held back (reordering; it may cross into the next epoch).
    #[arg(long, default_value_t = 0.0)]
    reorder: f64,
    /// PRNG seed of the source, 1 to 2^63: every seed gives its own traffic (the source's
    /// generators keep 63 bits of state, so the registers get 2 (seed − 1)).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// With `--port sim`: probability that a bit on the simulated line is inverted.
    #[arg(long, default_value_t = 0.0)]
    bit_errors: f64,
    /// Write every epoch's synopses as a measurement station ingests them:
    /// DIR/epoch-<seq>/sender.json and receiver.json (LDA), fridge.json,
    /// and expb-<period>.json and dbm-<period>.json for the bandwidth
    /// periods read with the epoch (docs/station.md).
    #[arg(long)]
    save_epochs: Option<PathBuf>,
    /// Store every epoch in this measurement station (its station file) as
    /// soon as it is read, one transaction per epoch, with the serial
    /// line's retries and CRC errors for the points' health (docs/station.md).
    #[arg(long, requires = "points", value_name = "FILE")]
    station: Option<PathBuf>,
    /// The station's points of the engine's cores, CORE=POINT comma-separated
    /// (cores: sender, receiver, fridge, expb, dbm; e.g. sender=r1.tx,receiver=r2.rx).
    #[arg(long, value_delimiter = ',', requires = "station")]
    points: Vec<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Flags of `board build`.
#[derive(Args)]
pub struct BoardBuild {
    /// ulx3s | ice40-hx8k
    #[arg(value_parser = Board::parse)]
    board: Board,
    /// Output folder (default build/board/<board>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// A serial device in raw 8N1 mode.
struct SerialPort {
    file: std::fs::File,
    timeout: Duration,
    /// The end of the open response window.
    window_end: Instant,
}

impl SerialPort {
    fn open(path: &str, baud: u32, timeout: Duration) -> Result<Self, String> {
        use std::os::unix::fs::OpenOptionsExt;
        use std::os::unix::io::AsRawFd;
        let speed = match baud {
            9_600 => libc::B9600,
            19_200 => libc::B19200,
            38_400 => libc::B38400,
            57_600 => libc::B57600,
            115_200 => libc::B115200,
            230_400 => libc::B230400,
            460_800 => libc::B460800,
            921_600 => libc::B921600,
            1_000_000 => libc::B1000000,
            2_000_000 => libc::B2000000,
            3_000_000 => libc::B3000000,
            other => return Err(format!("{other} baud is not a rate the serial driver can be set to")),
        };
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(path)
            .map_err(|e| format!("cannot open {path}: {e}"))?;
        let fd = file.as_raw_fd();
        // SAFETY: termios is plain data, filled by tcgetattr on an open descriptor.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        let ok = unsafe {
            libc::tcgetattr(fd, &mut t) == 0 && {
                libc::cfmakeraw(&mut t);
                t.c_cflag |= libc::CLOCAL | libc::CREAD;
                t.c_cflag &= !(libc::CSTOPB | libc::PARENB | libc::CRTSCTS);
                t.c_cc[libc::VMIN] = 0;
                t.c_cc[libc::VTIME] = 1;
                libc::cfsetispeed(&mut t, speed) == 0
                    && libc::cfsetospeed(&mut t, speed) == 0
                    && libc::tcsetattr(fd, libc::TCSANOW, &t) == 0
                    && libc::tcflush(fd, libc::TCIOFLUSH) == 0
            }
        };
        if !ok {
            return Err(format!("{path} is not a serial port that takes 8N1 at {baud} baud"));
        }
        Ok(Self { file, timeout, window_end: Instant::now() })
    }
}

impl ByteLink for SerialPort {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.file.write_all(bytes).map_err(|e| format!("serial write: {e}"))?;
        self.window_end = Instant::now() + self.timeout;
        Ok(())
    }

    fn receive(&mut self, n: usize) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; n];
        let mut got = 0;
        while got < n && Instant::now() < self.window_end {
            got += self.file.read(&mut out[got..]).map_err(|e| format!("serial read: {e}"))?;
        }
        out.truncate(got);
        Ok(out)
    }

    fn discard_input(&mut self) -> Result<(), String> {
        use std::os::unix::io::AsRawFd;
        std::thread::sleep(Duration::from_millis(20));
        // SAFETY: flushing the input queue of an open descriptor.
        if unsafe { libc::tcflush(self.file.as_raw_fd(), libc::TCIFLUSH) } != 0 {
            return Err("serial flush failed".into());
        }
        Ok(())
    }
}

/// What one reading session measured.
struct Session<R> {
    reports: Vec<R>,
    /// The serial line's requests, retries and failed attempts by cause.
    link: LinkStats,
    polls: u32,
    /// Bit times on the line per epoch read (from the second epoch on), when known.
    bit_times_per_epoch: Option<f64>,
    /// Seconds per epoch read: link time in simulation, wall time on a board.
    seconds_per_epoch: f64,
}

/// Where a session's epochs go besides its report: a station, as each is
/// read, and synopsis files, once all are read.
#[derive(Default)]
struct Keep {
    station: Option<StationSink>,
    /// The epochs to save (`--save-epochs`): each one's number and synopses.
    saved: Option<Vec<(u32, Vec<Body>)>>,
}

/// One epoch as a session reads it: the report, and the epoch's number and
/// synopses as a station takes them.
type ReadEpoch<R> = (R, u32, Vec<Body>);

/// Reads `epochs` epochs with `next`, timing them on the line (`clocks`) or
/// by the wall clock, each stored in `keep`'s station as it is read.
fn session<L: ByteLink, R>(
    mut reader: EngineReader<L>,
    cfg: &EngineConfig,
    epochs: u32,
    quiet: bool,
    keep: &mut Keep,
    clocks: impl Fn(&mut LinkHost<L>) -> Option<u64>,
    mut next: impl FnMut(&mut EngineReader<L>) -> Result<ReadEpoch<R>, String>,
) -> Result<Session<R>, String> {
    let progress = crate::progress::Progress::bar(epochs as u64, "board read", quiet);
    progress.message("configuring the engine and filling the first epoch");
    // Retries show as they happen: the link's count and the last reason.
    let say = progress.messenger();
    reader.host_mut().on_retry(Box::new(move |s, why| {
        say(&|done| format!("epoch {}: {} retries, last after {why}", done + 1, s.retries))
    }));
    let mut reports = Vec::new();
    let (mut t0, mut c0) = (Instant::now(), clocks(reader.host_mut()));
    let (mut span_t, mut span_c) = (0.0, 0u64);
    for k in 0..epochs {
        let (r, seq, bodies) = next(&mut reader)?;
        let (t1, c1) = (Instant::now(), clocks(reader.host_mut()));
        if let Some(station) = keep.station.as_mut() {
            station.store(&bodies, reader.host_mut().stats())?;
        }
        if let Some(saved) = keep.saved.as_mut() {
            saved.push((seq, bodies));
        }
        // The first epoch includes the configuration and its own filling: time the others.
        if k > 0 || epochs == 1 {
            span_t += (t1 - t0).as_secs_f64();
            span_c += c1.zip(c0).map_or(0, |(a, b)| a - b);
        }
        (t0, c0) = (t1, c1);
        reports.push(r);
        progress.inc();
        progress.message(format!("epoch {}", k + 2));
    }
    let n = if epochs > 1 { epochs - 1 } else { 1 } as f64;
    let st = reader.host_mut().stats();
    let divisor = cfg.link.uart.divisor() as f64;
    let simulated = c0.is_some();
    Ok(Session {
        reports,
        link: st,
        polls: reader.polls(),
        bit_times_per_epoch: simulated.then(|| span_c as f64 / n / divisor),
        seconds_per_epoch: if simulated { span_c as f64 / n / cfg.link.uart.clock_hz as f64 } else { span_t / n },
    })
}

/// The beats of one point's packets, the last one carrying the epoch's flip
/// (a flip alone when the point saw no packet).
fn beats(packets: &[(u128, u64)]) -> impl Iterator<Item = ExternalBeat> + '_ {
    let n = packets.len();
    packets
        .iter()
        .enumerate()
        .map(move |(i, &(key, ts))| ExternalBeat { valid: true, key, ts, class: 0, flip: i + 1 == n })
        .chain((n == 0).then(|| ExternalBeat { flip: true, ..Default::default() }))
}

/// Runs the reader against the Verilated engine `M` of the board on a
/// simulated serial line: on the on-chip source, or (`external`) with the
/// source's model playing the NIC on the external streams; every epoch is
/// checked against the golden models.
fn read_sim<M: EngineRtl>(
    a: &BoardRead,
    cfg: &EngineConfig,
    settings: &SourceSettings,
    external: bool,
    keep: &mut Keep,
) -> Result<Session<EpochReport>, String> {
    if M::config() != *cfg {
        return Err(format!("the Verilated {} was built for another engine than the board's", M::NAME));
    }
    let mut line = rtl_engine::<M>()?;
    line.set_bit_errors(a.bit_errors, a.seed ^ 0x11);
    let host = LinkHost::new(line, 20);
    let clocks = |h: &mut LinkHost<SimulatedLine<RtlEngineSide<M>>>| Some(h.link_mut().clocks);
    if external {
        // The source's model plays the NIC: each epoch's packets go to the external ports.
        let mut model = SourceModel::new(settings)?;
        let mut start = 0u64;
        let reader = EngineReader::start_external(host, cfg)?;
        session(reader, cfg, a.epochs, a.json, keep, clocks, |r| {
            let t: EpochTraffic = model.epoch(start);
            start += a.packets as u64 * a.gap.max(1) as u64;
            let feed = &mut r.host_mut().link_mut().board.feed;
            feed.sender.extend(beats(&t.sender));
            feed.receiver.extend(beats(&t.receiver));
            let e = r.read_epoch()?;
            with_bodies(r.check(e, &t)?)
        })
    } else {
        let reader = EngineReader::start(host, cfg, settings)?;
        session(reader, cfg, a.epochs, a.json, keep, clocks, |r| with_bodies(r.next_epoch()?))
    }
}

/// An epoch's report with its number and every core's synopsis.
fn with_bodies(r: EpochReport) -> Result<ReadEpoch<EpochReport>, String> {
    let bodies = epoch_bodies(&r.synopses)?;
    let seq = r.seq;
    Ok((r, seq, bodies))
}

/// The source's seed register for `--seed S`: 2 (S − 1). The generators load
/// `seed | 1` (bit 0 of their state is always set), so this keeps every S in
/// 1..=2^63 apart, and seed 1 is the register value 0.
fn register_seed(seed: u64) -> Result<u64, String> {
    if !(1..=1 << 63).contains(&seed) {
        return Err(format!("--seed {seed}: outside 1..=2^63 (the source's generators keep 63 bits)"));
    }
    Ok((seed - 1) << 1)
}

/// `netmeas board read`.
pub fn read(a: &BoardRead) -> Result<(), String> {
    let board = a.board;
    let cfg = board.engine();
    let dist: DelayDist = a.delay.parse()?;
    for (name, p) in [("--loss", a.loss), ("--reorder", a.reorder)] {
        if !(0.0..=1.0).contains(&p) {
            return Err(format!("{name} {p} is not a probability in [0, 1]"));
        }
    }
    if a.epochs == 0 {
        return Err("--epochs must be at least 1".into());
    }
    if !(0.0..0.5).contains(&a.bit_errors) || (a.bit_errors > 0.0 && a.port != "sim") {
        return Err("--bit-errors takes a probability below 0.5, and only with --port sim".into());
    }
    let settings = SourceSettings {
        seed: register_seed(a.seed)?,
        epoch_packets: a.packets,
        gap: a.gap,
        loss: SourceSettings::threshold(a.loss),
        reorder: SourceSettings::threshold(a.reorder),
        delays: delay_table(&dist, cfg.link.uart.clock_hz)?,
    };
    settings.validate()?;
    let external = a.source == PacketSource::External;
    // A board's external streams are read without a model of their traffic: only the two LDA cores.
    let board_external = external && a.port != "sim";
    let readable: &[EngineCore] =
        if board_external { &[EngineCore::Sender, EngineCore::Receiver] } else { &EngineCore::ALL };
    let mut keep = Keep {
        station: match &a.station {
            Some(file) => Some(StationSink::open(file, &a.points, &cfg, &a.port, readable)?),
            None => None,
        },
        saved: a.save_epochs.as_ref().map(|_| Vec::new()),
    };
    let s = if a.port == "sim" {
        match board {
            Board::Ulx3s => read_sim::<EngineDefault>(a, &cfg, &settings, external, &mut keep)?,
            Board::Ice40Hx8k => read_sim::<EngineHx8k>(a, &cfg, &settings, external, &mut keep)?,
        }
    } else {
        // A response takes 80 bit times; allow for the USB adapter's latency.
        let timeout = Duration::from_millis(100);
        let port = SerialPort::open(&a.port, cfg.link.uart.baud, timeout)?;
        if board_external {
            let reader = EngineReader::start_external(LinkHost::new(port, 5), &cfg)?;
            let s = session(
                reader,
                &cfg,
                a.epochs,
                a.json,
                &mut keep,
                |_| None,
                |r| {
                    let (e, est) = r.next_external_epoch()?;
                    Ok((est, e.sender.seq, lda_bodies(&e.sender, &e.receiver)))
                },
            )?;
            if let (Some(dir), Some(saved)) = (&a.save_epochs, &keep.saved) {
                save_epochs(dir, saved)?;
            }
            return print_external(a, board, &cfg, &s);
        }
        let reader = EngineReader::start(LinkHost::new(port, 5), &cfg, &settings)?;
        session(reader, &cfg, a.epochs, a.json, &mut keep, |_| None, |r| with_bodies(r.next_epoch()?))?
    };
    if let (Some(dir), Some(saved)) = (&a.save_epochs, &keep.saved) {
        save_epochs(dir, saved)?;
    }
    let tick_us = 1e6 / cfg.link.uart.clock_hz as f64;
    let rates = s.bit_times_per_epoch.map(|b| [115_200.0 / b, 3_000_000.0 / b]);
    if a.json {
        let source = serde_json::json!({ "kind": a.source, "packets_per_epoch": a.packets, "gap": a.gap,
            "delay": dist.to_string(), "loss": a.loss, "reorder": a.reorder, "seed": a.seed });
        let mut v = session_json(a, board, &cfg, source, &s);
        v["bit_times_per_epoch"] = serde_json::json!(s.bit_times_per_epoch);
        v["epochs_per_s_at_115200"] = serde_json::json!(rates.map(|r| r[0]));
        v["epochs_per_s_at_3000000"] = serde_json::json!(rates.map(|r| r[1]));
        crate::output::print_json(v)?;
        return Ok(());
    }
    println!(
        "engine on {} ({}): sender and receiver LDA, {} x {} rows, {}-bit keys{}, {} MHz, {} baud",
        board.name(),
        a.port,
        cfg.lda.banks,
        cfg.lda.rows,
        cfg.lda.key_bits,
        cfg.fridge.as_ref().map_or(String::new(), |f| format!(
            "; fridge core, {} fridges of {:?} entries",
            f.fridges(),
            f.entries
        )) + &cfg.expb.as_ref().map_or(String::new(), |x| format!(
            "; EXPB core, {} scales from {} ticks, periods of {} ticks",
            x.scales, x.base_ticks, x.period_ticks
        )) + &cfg.dbm.as_ref().map_or(String::new(), |d| format!(
            "; DBM core, {} buckets, periods of {} ticks",
            d.buckets, d.period_ticks
        )),
        cfg.link.uart.clock_hz as f64 / 1e6,
        cfg.link.uart.baud
    );
    println!(
        "source: {}{} packets/epoch every {} clock(s), delay {dist}, loss {:.2} %, reorder {:.2} %, seed {}",
        if external { "external ports fed by the source's model, " } else { "" },
        a.packets,
        a.gap,
        100.0 * a.loss,
        100.0 * a.reorder,
        a.seed
    );
    println!(
        "{:>5} {:>9} {:>9} {:>7} | {:>10} {:>10} {:>8} | {:>10} {:>10} {:>8} | {:>7} synopses",
        "epoch",
        "sent",
        "received",
        "loss %",
        "mean µs",
        "true µs",
        "rel err",
        "std µs",
        "true µs",
        "rel err",
        "samples"
    );
    for r in &s.reports {
        let (e, t) = (&r.estimates, &r.truth);
        println!(
            "{:>5} {:>9} {:>9} {:>7.3} | {:>10.4} {:>10.4} {:>8.2e} | {:>10.4} {:>10.4} {:>8.2e} | {:>7} {}",
            r.seq,
            t.sent,
            t.received,
            100.0 * t.loss,
            e.mean * tick_us,
            t.mean * tick_us,
            r.rel_error.mean,
            e.std * tick_us,
            t.std * tick_us,
            r.rel_error.std,
            e.samples,
            if r.synopses_match { "= golden" } else { "DIFFER" }
        );
    }
    if s.reports.iter().any(|r| r.fridge.is_some()) {
        println!("fridge (requests: the sender's packets, responses: the receiver's; percentiles of the delay):");
        println!(
            "{:>5} {:>7} | {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>9} | {:>8} histograms",
            "epoch", "samples", "p50 µs", "true µs", "p95 µs", "true µs", "p99 µs", "true µs", "CDF gap"
        );
        for r in &s.reports {
            let Some(f) = &r.fridge else { continue };
            let verdict = if f.histograms_match { "= golden" } else { "DIFFER" };
            match &f.estimate {
                Some(e) => println!(
                    "{:>5} {:>7} | {:>9.4} {:>9.4} | {:>9.4} {:>9.4} | {:>9.4} {:>9.4} | {:>8.3} {verdict}",
                    r.seq,
                    e.samples,
                    e.estimates.p50 * tick_us,
                    f.truth.p50 * tick_us,
                    e.estimates.p95 * tick_us,
                    f.truth.p95 * tick_us,
                    e.estimates.p99 * tick_us,
                    f.truth.p99 * tick_us,
                    e.max_cdf_gap
                ),
                None => println!("{:>5} {:>7} | no sample in this epoch {verdict}", r.seq, 0),
            }
        }
    }
    if s.reports.iter().any(|r| !r.expb.is_empty()) {
        println!("EXPB (the sender's bytes per interval at each scale, exact; flow of the busiest interval):");
        println!(
            "{:>5} {:>6} {:>8} {:>5} {:>10} {:>9} | {:>9} {:>9} {:>9} | {:>6}",
            "epoch",
            "period",
            "packets",
            "scale",
            "interval",
            "intervals",
            "mean Mb/s",
            "std Mb/s",
            "peak Mb/s",
            "flow"
        );
        for r in &s.reports {
            for p in &r.expb {
                for (j, x) in p.scales.iter().enumerate() {
                    println!(
                        "{:>5} {:>6} {:>8} {:>5} {:>8.2}µs {:>9} | {:>9.1} {:>9.1} {:>9.1} | {:>6}{}",
                        r.seq,
                        p.period,
                        p.packets,
                        j,
                        x.ticks as f64 * tick_us,
                        x.intervals,
                        x.mean_mbps,
                        x.std_mbps,
                        x.peak_mbps,
                        x.culprit,
                        if p.saturated { " (saturated)" } else { "" }
                    );
                }
            }
        }
    }
    if s.reports.iter().any(|r| !r.dbm.is_empty()) {
        println!(
            "DBM (the sender's bandwidth at each scale from the period's buckets, next to the exact; \
             error bound 4B/m):"
        );
        println!(
            "{:>5} {:>6} {:>8} {:>7} {:>7} {:>10} | {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>9}",
            "epoch",
            "period",
            "packets",
            "buckets",
            "merges",
            "interval",
            "peak Mb/s",
            "true",
            "std Mb/s",
            "true",
            "max err B",
            "bound B"
        );
        for r in &s.reports {
            for p in &r.dbm {
                for x in &p.scales {
                    println!(
                        "{:>5} {:>6} {:>8} {:>7} {:>7} {:>8.2}µs | {:>9.1} {:>9.1} | {:>9.1} {:>9.1} | {:>9.0} {:>9.0}{}",
                        r.seq,
                        p.period,
                        p.packets,
                        p.buckets,
                        p.merges,
                        x.ticks as f64 * tick_us,
                        x.peak_mbps,
                        x.true_peak_mbps,
                        x.std_mbps,
                        x.true_std_mbps,
                        x.max_error_bytes,
                        p.bound_bytes,
                        if p.saturated { " (saturated)" } else { "" }
                    );
                }
            }
        }
    }
    print_link(&s.link, s.polls);
    match (s.bit_times_per_epoch, rates) {
        (Some(b), Some([slow, fast])) => println!(
            "read-out: {b:.0} bit times per epoch ({:.3} s of link time): {slow:.3} epochs/s at 115 200 baud, \
             {fast:.2} at 3 000 000",
            s.seconds_per_epoch
        ),
        _ => println!("read-out: {:.3} s per epoch ({:.2} epochs/s)", s.seconds_per_epoch, 1.0 / s.seconds_per_epoch),
    }
    Ok(())
}

/// The serial line's figures of a session.
fn print_link(l: &LinkStats, polls: u32) {
    println!(
        "link: {} requests, {} retries ({} after a CRC error, {} after a lost response), {polls} status polls",
        l.requests, l.retries, l.crc_errors, l.lost_responses
    );
}

/// The JSON report of a reading session: board, port, engine, tick, `source`, epochs, link.
fn session_json<R: serde::Serialize>(
    a: &BoardRead,
    board: Board,
    cfg: &EngineConfig,
    source: serde_json::Value,
    s: &Session<R>,
) -> serde_json::Value {
    serde_json::json!({
        "board": board.name(),
        "port": a.port,
        "engine": cfg,
        "tick_us": 1e6 / cfg.link.uart.clock_hz as f64,
        "source": source,
        "epochs": s.reports,
        "link": { "requests": s.link.requests, "retries": s.link.retries, "crc_errors": s.link.crc_errors,
                  "lost_responses": s.link.lost_responses, "polls": s.polls },
        "seconds_per_epoch": s.seconds_per_epoch,
    })
}

/// Prints what a board measured on its external streams: estimates, no ground truth.
fn print_external(a: &BoardRead, board: Board, cfg: &EngineConfig, s: &Session<LdaEstimate>) -> Result<(), String> {
    let tick_us = 1e6 / cfg.link.uart.clock_hz as f64;
    if a.json {
        crate::output::print_json(session_json(a, board, cfg, serde_json::json!({ "kind": "external" }), s))?;
        return Ok(());
    }
    println!("engine on {} ({}): external packet-metadata streams", board.name(), a.port);
    println!(
        "{:>5} {:>9} {:>9} {:>7} | {:>10} {:>10} | {:>10} | {:>7}",
        "epoch", "sent", "received", "loss %", "mean µs", "±98 % µs", "std µs", "samples"
    );
    for (k, e) in s.reports.iter().enumerate() {
        println!(
            "{:>5} {:>9} {:>9} {:>7.3} | {:>10.4} {:>10.4} | {:>10.4} | {:>7}",
            k,
            e.sent,
            e.received,
            100.0 * e.loss,
            e.mean * tick_us,
            e.mean_bound_98 * tick_us,
            e.std * tick_us,
            e.samples
        );
    }
    print_link(&s.link, s.polls);
    println!("read-out: {:.3} s per epoch", s.seconds_per_epoch);
    Ok(())
}

/// `netmeas board build`.
pub fn build(a: &BoardBuild) -> Result<(), String> {
    let board = a.board;
    let dir =
        a.out.clone().unwrap_or_else(|| netmeas_hdl::tools::repo_root().join("build").join("board").join(board.name()));
    eprintln!("[board] {} (Yosys, nextpnr, pack) in {} …", board.name(), dir.display());
    let r = build_board(board, &dir)?;
    if a.json {
        crate::output::print_json(&r)?;
    } else {
        let f = &r.figures;
        println!(
            "{}: {} at {} MHz: Fmax {:.1} MHz, LUT {} / {}, FF {}, BRAM {} / {}",
            board.name(),
            r.engine_top,
            r.clock_mhz,
            f.fmax_mhz,
            f.luts,
            r.available.0,
            f.ffs,
            f.brams,
            r.available.1
        );
        println!("bitstream: {}", r.bitstream.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use netmeas_sim::board::source::source_prng_states;

    /// Neighbouring seeds (2k, 2k + 1) load different generator states; seed 1
    /// loads what it always has; seeds outside 1..=2^63 are refused.
    #[test]
    fn every_seed_gives_its_own_generator_states() {
        let states = |s: u64| source_prng_states(register_seed(s).unwrap());
        assert_eq!(states(1), source_prng_states(1));
        for s in [2, 3, 4, 5, 1 << 40, (1 << 40) + 1, (1 << 63) - 1, 1 << 63] {
            assert_ne!(states(s), states(s - 1), "{s}");
            assert_ne!(states(s).0, states(s - 1).0, "{s}");
        }
        assert!(register_seed(0).is_err());
        assert!(register_seed((1 << 63) + 1).unwrap_err().contains("outside 1..=2^63"));
    }
}
