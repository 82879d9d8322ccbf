//! Packaged measurement points (`netmeas_hdl::point::top`): the frame
//! parser, the record FIFO, the status counters, a core, its register block
//! and a bus slave in one top module, generated over the registry.

use super::corpus_frames;
use netmeas_hdl::point::bus::Bus;
use netmeas_hdl::point::sim::Simulator;
use netmeas_hdl::point::top::{PointDesign, wrap};
use netmeas_hdl::registry;
use netmeas_hdl::tools;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("packaged").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The point of `core`'s default config behind the 64-bit frame parser, as
/// `netmeas export <core> --wrap` builds it.
fn design(core: &str, bus: Bus) -> PointDesign {
    let cfg = registry::core(core).unwrap().default_config(None).unwrap();
    wrap(&cfg, 64, bus).unwrap_or_else(|e| panic!("{core}: {e}")).0
}

/// Every file of `d` in one, for tools that take one file.
fn one_file(d: &PointDesign, dir: &std::path::Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let all: String = d.files.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join("\n");
    let file = dir.join(format!("{}.v", d.top));
    std::fs::write(&file, all).unwrap();
    file
}

/// Every core of the registry that takes frames (gives a point binding).
fn point_cores() -> Vec<&'static str> {
    let cores: Vec<&'static str> = registry::names()
        .into_iter()
        .filter(|core| registry::core(core).unwrap().default_config(None).unwrap().point_binding().is_some())
        .collect();
    assert!(cores.len() >= 5, "{} cores give a point binding", cores.len());
    cores
}

/// Every core that takes frames, on both buses.
#[test]
fn every_point_lints_clean_on_both_buses() {
    for core in point_cores() {
        for bus in [Bus::Axil, Bus::Wishbone] {
            let d = design(core, bus);
            let file = one_file(&d, &scratch(&format!("lint_{core}_{bus:?}")));
            tools::lint(&file, &d.top).unwrap_or_else(|e| panic!("{core} on {bus:?}: {e}"));
        }
    }
}

#[test]
fn the_lda_point_places_every_core_port() {
    for bus in [Bus::Axil, Bus::Wishbone] {
        let d = design("lda", bus);
        // Every core port found its place: the LDA's extra outputs are status words.
        for name in ["FRAMES", "UNPARSED_BAD_FRAME", "FIFO_OVERFLOWS", "EPOCH_PENDING", "FROZEN_PACKETS_HI"] {
            assert!(d.regs.status.iter().any(|s| s.name == name), "{name}: {:?}", d.regs.status);
        }
        assert!(d.regs.commands.iter().any(|c| c.name == "OVF_CLEAR"), "{:?}", d.regs.commands);
    }
}

/// What a point gave for corpus frames, and what the host's reader made of them.
struct PointResult {
    design: PointDesign,
    run: netmeas_hdl::point::cosim::PointRun,
    /// The host reader's records, in frame order.
    records: Vec<netmeas_sim::frame::FrameRecord>,
}

impl PointResult {
    /// A status word, by name.
    fn reg(&self, name: &str) -> u64 {
        u64::from(self.run.status[self.design.status_index(name).unwrap_or_else(|| panic!("no status word {name}"))])
    }

    /// A 64-bit status word of two halves.
    fn reg64(&self, name: &str) -> u64 {
        self.reg(&format!("{name}_LO")) | self.reg(&format!("{name}_HI")) << 32
    }

    /// The lowest bit and width of a read-out field.
    fn field(&self, name: &str) -> (u32, u32) {
        netmeas_hdl::point::top::tdata_field(&self.design.readout, name)
            .unwrap_or_else(|| panic!("no read-out field {name}: {:?}", self.design.readout))
    }

    /// The read-out's fields `names` (up to 128 bits each) of every beat, in
    /// one list per epoch: cut after each `TLAST`, which must end the read-out.
    fn epochs(&self, names: &[&str]) -> Vec<Vec<Vec<u128>>> {
        use netmeas_hdl::point::cosim::PointRun;
        let fields: Vec<(u32, u32)> = names.iter().map(|n| self.field(n)).collect();
        let mut epochs = vec![Vec::new()];
        for (beat, last) in &self.run.readout {
            let wide = |l: u32, b: u32| {
                let lo = u128::from(PointRun::field(beat, l, b.min(64)));
                if b > 64 { lo | u128::from(PointRun::field(beat, l + 64, b - 64)) << 64 } else { lo }
            };
            epochs.last_mut().unwrap().push(fields.iter().map(|&(l, b)| wide(l, b)).collect());
            if *last {
                epochs.push(Vec::new());
            }
        }
        assert_eq!(epochs.pop(), Some(Vec::new()), "the read-out ends with TLAST");
        epochs
    }

    /// The read-out's fields `names` (up to 64 bits each) of every beat;
    /// exactly one beat is the last.
    fn readout(&self, names: &[&str]) -> Vec<Vec<u64>> {
        let mut epochs = self.epochs(names);
        assert_eq!(epochs.len(), 1, "one TLAST");
        epochs.remove(0).into_iter().map(|f| f.into_iter().map(|v| v as u64).collect()).collect()
    }
}

/// How a run ends: the time held `after_ns` past the last frame's (0: not
/// moved), the read-out taken through the window (`window`) or the stream.
#[derive(Clone, Copy, Default)]
struct Ending {
    after_ns: u64,
    window: bool,
}

/// The point of `cfg` fed `n` corpus frames in `sim`, ended as `end` says;
/// the point's counters checked against the host reader's counts, frame by
/// frame.
fn run_point(cfg: &netmeas_hdl::export::BlockConfig, sim: Simulator, n: usize, seed: u64, end: Ending) -> PointResult {
    let frames = corpus_frames(seed, n);
    run_point_with(cfg, sim, &frames, end, &netmeas_hdl::point::cosim::HostScript::default())
}

/// The point of `cfg` fed `frames` in `sim` with the host's set-up and
/// queries, ended as `end` says; the point's counters checked against the
/// host reader's counts.
fn run_point_with(
    cfg: &netmeas_hdl::export::BlockConfig,
    sim: Simulator,
    frames: &[netmeas_hdl::point::cosim::MacFrame],
    end: Ending,
    host: &netmeas_hdl::point::cosim::HostScript,
) -> PointResult {
    use netmeas_hdl::point::cosim::{PointClocks, PointSim};
    use netmeas_sim::frame::{ParseCounts, parse_frame};

    let n = frames.len();
    let design = wrap(cfg, 64, Bus::Axil).unwrap_or_else(|e| panic!("{e}")).0;
    let mut counts = ParseCounts::default();
    let records: Vec<_> =
        frames.iter().filter_map(|f| counts.count(parse_frame(f.ts_ns, &f.bytes, f.bad)).ok()).collect();
    assert!(counts.records > n as u64 / 2 && counts.unparsed.iter().filter(|&&u| u > 0).count() >= 4, "{counts:?}");

    let name = format!("cosim_{}_{sim:?}", cfg.block_name());
    let point = PointSim::new(sim, &scratch(&name), &design).unwrap();
    let end_ns = if end.after_ns == 0 { 0 } else { frames.last().unwrap().ts_ns + end.after_ns };
    let clocks = PointClocks { end_ns, window: end.window, ..PointClocks::default() };
    let run = point.run_with(&design, frames, &clocks, host, 5).unwrap();
    let r = PointResult { design, run, records };
    assert_eq!(r.reg("FRAMES"), counts.frames);
    assert_eq!(r.reg("RECORDS"), counts.records);
    for (i, u) in netmeas_sim::frame::Unparsed::ALL.iter().enumerate() {
        let name = netmeas_hdl::point::top::counter_names()[2 + i].clone();
        assert_eq!(r.reg(&name), counts.unparsed[i], "{name} ({})", u.name());
    }
    assert_eq!((r.reg("RECORDS_DROPPED"), r.reg("FIFO_OVERFLOWS")), (0, 0));
    r
}

/// The LDA point fed `n` corpus frames in `sim` against the golden model
/// fed by the host's reader: counters, frozen-epoch counters and every row
/// (from the stream, or through the read-out window).
fn check_lda_point(sim: Simulator, n: usize, seed: u64, window: bool) {
    use netmeas_sim::lda::{LdaConfig, LdaGolden, LdaPacket};

    let cfg = LdaConfig::default();
    let r = run_point(
        &netmeas_hdl::export::BlockConfig::new(cfg.clone()),
        sim,
        n,
        seed,
        Ending { window, ..Ending::default() },
    );
    let mut golden = LdaGolden::new(&cfg);
    for rec in &r.records {
        golden.packet(&LdaPacket { key: rec.key, ts: rec.ts_ns & ((1 << 40) - 1), class: rec.class });
    }
    let want = golden.end_epoch();
    assert!(want.sampled > 0);
    // The frozen epoch's counters and rows.
    assert_eq!(r.reg("FROZEN_SEQ"), u64::from(want.seq));
    assert_eq!(r.reg64("FROZEN_PACKETS"), want.packets);
    assert_eq!(r.reg64("FROZEN_SAMPLED"), want.sampled);
    let mut rows = vec![None; want.rows.len()];
    for f in r.readout(&["m_ro_addr", "m_ro_count", "m_ro_tsum"]) {
        rows[f[0] as usize] = Some((f[1], f[2]));
    }
    assert_eq!(r.run.readout.len(), want.rows.len());
    let rows: Vec<(u64, u64)> = rows.into_iter().map(|r| r.expect("every row read out")).collect();
    assert_eq!(rows, want.rows, "the read-out differs from the golden model");
}

#[test]
fn the_lda_point_measures_raw_frames_as_the_golden_model_fed_by_the_host_reader() {
    check_lda_point(Simulator::Verilator, 3000, 11, false);
}

/// The same in Icarus Verilog, the epoch read through the read-out window.
#[test]
fn the_lda_point_testbench_runs_in_icarus_alike_through_the_window() {
    check_lda_point(Simulator::Icarus, 400, 12, true);
}

/// The fridge point (two fridges, entry probabilities 1/2 and 1 so that the
/// corpus's handshakes and DNS exchanges give samples) fed corpus frames:
/// the frozen histograms, the sample register and the status equal the
/// golden model fed the host reader's requests and responses. The epoch is
/// read through the read-out window.
#[test]
fn the_fridge_point_measures_raw_frames_as_the_golden_model_fed_by_the_host_reader() {
    use netmeas_sim::frame::Role;
    use netmeas_sim::fridge::{FRIDGE_BINS, FridgeConfig, FridgeGolden, FridgePacket};

    let cfg = FridgeConfig { entry_prob_log2: vec![-1.0, 0.0], ..FridgeConfig::default() };
    let end = Ending { window: true, ..Ending::default() };
    let r = run_point(&netmeas_hdl::export::BlockConfig::new(cfg.clone()), Simulator::Verilator, 3000, 21, end);
    let mut golden = FridgeGolden::new(&cfg);
    let mut samples = Vec::new();
    let mut packets = 0;
    for rec in r.records.iter().filter(|rec| rec.role != Role::None) {
        packets += 1;
        let p = FridgePacket { id: rec.match_id, response: rec.role == Role::Response, ts: rec.ts_ns };
        samples.extend(golden.process(&p));
    }
    let want = golden.flip();
    assert!(packets > 500 && samples.len() > 50, "{packets} packets, {} samples", samples.len());
    // Every bin of both fridges, in row order 32·k + bin, the last with TLAST.
    let rows = r.readout(&["m_ro_row", "m_ro_count", "m_ro_wsum", "m_ro_w2sum"]);
    assert_eq!(rows.len(), cfg.fridges() * FRIDGE_BINS);
    for (i, (row, bin)) in rows.iter().zip(&want).enumerate() {
        assert_eq!(row[..], [i as u64, u64::from(bin.count), bin.wsum, bin.w2sum], "row {i}");
    }
    assert_eq!(rows.iter().map(|f| f[1]).sum::<u64>(), samples.len() as u64);
    // The sample register holds the first sample (nothing takes it); every later one was dropped.
    let first = samples[0];
    assert_eq!(r.reg("M_SMP_VALID"), 1);
    assert_eq!(r.reg("M_SMP_FRIDGE"), u64::from(first.fridge));
    assert_eq!(r.reg64("M_SMP_DELAY"), first.delay);
    assert_eq!(r.reg("M_SMP_X"), u64::from(first.x));
    assert_eq!(r.reg("SMP_DROPPED"), samples.len() as u64 - 1);
    assert_eq!(r.reg("SATURATED"), u64::from(golden.saturated));
    assert_eq!(r.reg("EPOCH"), 1);
}

/// The time markers' lag behind `s_axis_time_ns` at the points' default.
fn marker_lag_ns() -> u64 {
    let lag = netmeas_hdl::point::top::TIME_MARKER_PARAMS.iter().find(|p| p.name == "MARKER_LAG_NS");
    u64::from(lag.expect("a marker lag").default)
}

/// The RDA point (the paper's two banks of 2 500 buckets, 1 ms intervals
/// from the first frame's ingress time) fed corpus frames, then 3 ms of an
/// idle link: every interval ended, read out bank by bank, bucket by bucket,
/// equals the golden model fed the host reader's records (ID: the key's
/// digest, time: the ingress time) and then the last time marker's time, and
/// so do the last frozen interval's counters. The last packet's interval is
/// ended only by the time markers.
#[test]
fn the_rda_point_measures_raw_frames_as_the_golden_model_fed_by_the_host_reader() {
    use netmeas_sim::frame::key_digest;
    use netmeas_sim::rda::{RdaConfig, RdaGolden};

    let (seed, n, after_ns) = (31, 3000, 3_000_000);
    let t0 = corpus_frames(seed, n)[0].ts_ns & ((1 << 48) - 1);
    let cfg = RdaConfig { t0, interval_ticks: 1_000_000, ..RdaConfig::default() };
    let end = Ending { after_ns, ..Ending::default() };
    let r = run_point(&netmeas_hdl::export::BlockConfig::new(cfg.clone()), Simulator::Verilator, n, seed, end);
    let mut golden = RdaGolden::new(&cfg);
    let mut want = Vec::new();
    for rec in &r.records {
        golden.packet(key_digest(rec.key, 64), rec.ts_ns, &mut want);
    }
    let by_packets = want.len();
    let end = corpus_frames(seed, n).last().unwrap().ts_ns + after_ns - marker_lag_ns();
    golden.advance(end, &mut want);
    assert!(by_packets >= 2 && want.len() > by_packets, "{by_packets} intervals ended by packets, {}", want.len());
    // The read-out, cut at each TLAST: one interval each.
    let got = r.epochs(&["m_ro_bank", "m_ro_row", "m_ro_id", "m_ro_tsum", "m_ro_count"]);
    assert_eq!(got.len(), want.len(), "intervals read out");
    for (g, w) in got.iter().zip(&want) {
        let m = cfg.buckets;
        let rows: Vec<Vec<u128>> = w
            .buckets
            .iter()
            .enumerate()
            .map(|(i, b)| vec![(i / m) as u128, (i % m) as u128, b.id.into(), b.tsum.into(), b.count.into()])
            .collect();
        assert_eq!(g, &rows, "interval {}: the read-out differs from the golden model", w.interval);
    }
    let last = want.last().unwrap();
    assert_eq!(r.reg("FROZEN_INTERVAL"), u64::from(last.interval));
    assert_eq!(r.reg64("FROZEN_PACKETS"), last.packets);
    assert_eq!(r.reg64("FROZEN_SAMPLED"), last.sampled);
    assert_eq!(r.reg("LIVE_INTERVAL"), u64::from(golden.interval()));
    assert_eq!(r.reg64("OUT_OF_INTERVAL"), golden.out_of_interval());
    assert_eq!(r.reg("OVF_STICKY"), 0);
}

/// A bandwidth core's point (EXPB, DBM) fed 3 000 corpus frames from
/// `seed`, then 2 ms of an idle link; the golden model's periods for the
/// host reader's records (their times since the first record's, which
/// `TIME_ORIGIN` must read back) and then the last time marker's time; and
/// the read-out's `fields` per period: every period, at least `min` of
/// them, the last packet's ended only by the time markers.
fn bandwidth_point<P>(
    cfg: netmeas_hdl::export::BlockConfig,
    seed: u64,
    golden: impl Fn(&[netmeas_sim::dbm::BwPacket], u64) -> Result<(Vec<P>, usize), String>,
    fields: &[&str],
    min: usize,
) -> (PointResult, Vec<P>, Vec<Vec<Vec<u128>>>) {
    let after_ns = 2_000_000;
    let r = run_point(&cfg, Simulator::Verilator, 3000, seed, Ending { after_ns, ..Ending::default() });
    let origin = r.records[0].ts_ns;
    assert_eq!(r.reg64("TIME_ORIGIN"), origin);
    let packets: Vec<_> = r
        .records
        .iter()
        .map(|rec| netmeas_sim::dbm::BwPacket { ts: rec.ts_ns - origin, len: rec.len, flow: rec.flow })
        .collect();
    let end = corpus_frames(seed, 3000).last().unwrap().ts_ns + after_ns - marker_lag_ns() - origin;
    let (want, by_packets) = golden(&packets, end).unwrap();
    let got = r.epochs(fields);
    assert!(
        got.len() >= min && got.len() == want.len() && want.len() > by_packets,
        "{} periods read out, {} in the model ({by_packets} ended by packets)",
        got.len(),
        want.len()
    );
    (r, want, got)
}

/// The golden model `core` fed `packets`, then time `end`: every period
/// ended, and how many of them the packets ended.
fn periods_until<C: netmeas_sim::dbm::PeriodCore>(
    mut core: C,
    packets: &[netmeas_sim::dbm::BwPacket],
    end: u64,
    advance: impl Fn(&mut C, u64, &mut Vec<C::Period>),
) -> Result<(Vec<C::Period>, usize), String> {
    let mut out = Vec::new();
    for p in packets {
        core.push(p, &mut out)?;
    }
    let by_packets = out.len();
    advance(&mut core, end, &mut out);
    Ok((out, by_packets))
}

/// The EXPB point (4 scales from 10 µs, 800 µs periods) fed corpus frames:
/// every period ended, one row per scale, equals the golden model fed the
/// host reader's lengths, flows and times since the first packet; so do the
/// last period's counters.
#[test]
fn the_expb_point_measures_raw_frames_as_the_golden_model_fed_by_the_host_reader() {
    use netmeas_sim::dbm::{ExpbConfig, ExpbGolden};

    let cfg = ExpbConfig { scales: 4, base_ticks: 10_000, period_ticks: 800_000 };
    let fields = ["m_ro_scale", "m_ro_count", "m_ro_sum", "m_ro_sumsq", "m_ro_max", "m_ro_max_index", "m_ro_max_flow"];
    let golden = |p: &[_], end| {
        let core = ExpbGolden::new(&cfg).map_err(|e| e.to_string())?;
        periods_until(core, p, end, |c, t, out| c.advance(t, out))
    };
    let (r, want, got) = bandwidth_point(netmeas_hdl::export::BlockConfig::new(cfg.clone()), 41, golden, &fields, 3);
    for (g, w) in got.iter().zip(&want) {
        let rows: Vec<Vec<u128>> = w
            .scales
            .iter()
            .enumerate()
            .map(|(j, s)| {
                vec![
                    j as u128,
                    s.count.into(),
                    s.sum.into(),
                    s.sumsq,
                    s.max.into(),
                    s.max_index.into(),
                    s.max_flow.into(),
                ]
            })
            .collect();
        assert_eq!(g, &rows, "period {}: the read-out differs from the golden model", w.index);
    }
    let last = want.last().unwrap();
    assert_eq!(r.reg("PERIOD_INDEX"), last.index);
    assert_eq!(r.reg64("PERIOD_PACKETS"), last.packets);
    assert_eq!(r.reg("PERIOD_SATURATED"), u64::from(last.interval_saturated));
    assert_eq!(r.reg("LIVE_PERIOD"), last.index + 1);
}

/// The DBM point (64 buckets merged by mass, 1 ms periods) fed corpus
/// frames: every period ended, bucket by bucket, equals the golden model fed
/// the host reader's lengths, flows and times since the first packet; so do
/// the last period's counters.
#[test]
fn the_dbm_point_measures_raw_frames_as_the_golden_model_fed_by_the_host_reader() {
    use netmeas_sim::dbm::{DbmConfig, DbmGolden};

    let cfg = DbmConfig { buckets: 64, period_ticks: 1_000_000, ..DbmConfig::default() };
    let fields =
        ["m_ro_first", "m_ro_last_ts", "m_ro_mass", "m_ro_n", "m_ro_max", "m_ro_min", "m_ro_flow", "m_ro_flow_count"];
    let golden = |p: &[_], end| {
        let core = DbmGolden::new(&cfg).map_err(|e| e.to_string())?;
        periods_until(core, p, end, |c, t, out| c.advance(t, out))
    };
    let (r, want, got) = bandwidth_point(netmeas_hdl::export::BlockConfig::new(cfg.clone()), 51, golden, &fields, 2);
    for (g, w) in got.iter().zip(&want) {
        // The buckets, oldest first, then the period's end beat (a period
        // without packets has none).
        let rows: Vec<Vec<u128>> = w
            .buckets
            .iter()
            .map(|b| {
                [b.first, b.last, b.mass, b.n.into(), b.max, b.min, b.flow.into(), b.flow_count.into()]
                    .map(u128::from)
                    .to_vec()
            })
            .collect();
        assert_eq!(g.len(), rows.len() + 1, "period {}: buckets and the end beat", w.index);
        assert_eq!(g[..rows.len()], rows[..], "period {}: the read-out differs from the golden model", w.index);
    }
    // Every period with packets merged buckets (an idle one has none).
    assert!(want.iter().all(|w| w.packets == 0 || w.merges > 0), "a period without a merge");
    assert!(want.iter().filter(|w| w.merges > 0).count() >= 2, "periods with merges");
    let last = want.last().unwrap();
    assert_eq!(r.reg("PERIOD_INDEX"), last.index);
    assert_eq!(r.reg64("PERIOD_PACKETS"), last.packets);
    assert_eq!(r.reg64("PERIOD_MERGES"), last.merges);
    assert_eq!(r.reg64("PERIOD_TAIL_JOINS"), last.tail_joins);
}

/// The SVBF point (the default store: 9 partitions of 2^17 bits; its 50
/// logarithmic centers over 1 µs..1 ms written over the bus and made active
/// by a flip) fed corpus frames, each with a one-way delay in
/// `s_axis_tuser` (log-uniform over 1 µs..1 ms): the empty epoch of the
/// set-up and the frames' epoch read out center by center, and the answers
/// to queries for stored packets and for unknown IDs (sent with random
/// `TVALID`, taken with random `TREADY`), equal the golden store fed the
/// host reader's packets (ID: the key's digest) with their delays.
#[test]
fn the_svbf_point_stores_raw_frames_delays_and_answers_queries_as_the_golden_store() {
    use netmeas_hdl::point::cosim::{BusOp, HostScript, MacFrame, PointRun};
    use netmeas_sim::frame::{key_digest, parse_frame};
    use netmeas_sim::prng::SplitMix64;
    use netmeas_sim::svbf::centers::log_centers;
    use netmeas_sim::svbf::{Centers, SvbfConfig, SvbfStore, port_answer};

    let cfg = SvbfConfig::default();
    let block = netmeas_hdl::export::BlockConfig::new(cfg.clone());
    let design = wrap(&block, 64, Bus::Axil).unwrap().0;
    let centers = Centers::new(&log_centers(cfg.centers, 1000, 3)).unwrap();
    assert_eq!(centers.len(), cfg.centers);
    let mut rng = SplitMix64::new(61);
    let frames: Vec<MacFrame> = corpus_frames(61, 3000)
        .into_iter()
        .map(|f| MacFrame { delay: (1000.0 * 10f64.powf(rng.below(3000) as f64 / 1000.0)) as u32, ..f })
        .collect();

    // The set-up: the boundaries, a flip to make them active, the empty
    // epoch it froze released.
    let addr = |name: &str| design.addr(name).unwrap_or_else(|| panic!("no register {name}"));
    let mut setup: Vec<BusOp> =
        centers.bounds().iter().enumerate().map(|(j, &b)| BusOp::Write(addr(&format!("BOUND{}", j + 1)), b)).collect();
    setup.push(BusOp::Write(addr("NBOUNDS"), centers.bounds().len() as u32));
    setup.push(BusOp::Write(addr("EPOCH_FLIP"), 1));
    setup.push(BusOp::Poll(addr("HELD"), 1));
    setup.push(BusOp::Write(addr("RELEASE_FROZEN"), 1));
    setup.push(BusOp::Poll(addr("HELD"), 0));

    // The golden store, fed the host reader's packets with their frames' delays.
    let mut store = SvbfStore::new(&cfg, centers.clone()).unwrap();
    let mut stored = Vec::new();
    for f in &frames {
        if let Ok(rec) = parse_frame(f.ts_ns, &f.bytes, f.bad) {
            let id = key_digest(rec.key, 64);
            store.insert(id, u64::from(f.delay));
            stored.push(id);
        }
    }
    // Queries: every fifth stored packet, and IDs never stored; tag = index.
    let mut ids: Vec<u64> = stored.iter().step_by(5).copied().collect();
    ids.extend((0..200).map(|_| rng.next_u64()));
    let queries: Vec<Vec<u8>> = ids
        .iter()
        .enumerate()
        .map(|(tag, id)| id.to_le_bytes().into_iter().chain((tag as u16).to_le_bytes()).collect())
        .collect();
    let host = HostScript { setup, queries };
    let r = run_point_with(&block, Simulator::Verilator, &frames, Ending::default(), &host);
    assert_eq!(r.records.len(), stored.len());

    // Two epochs of 64 center rows: the set-up's, empty, then the frames'.
    let epochs = r.epochs(&["m_ro_center", "m_ro_count", "m_ro_sum"]);
    assert_eq!(epochs.len(), 2, "the set-up's epoch and the frames'");
    for (i, row) in epochs[0].iter().enumerate() {
        assert_eq!(row[..], [i as u128, 0, 0], "the set-up's epoch, center {i}");
    }
    for (i, row) in epochs[1].iter().enumerate() {
        let (count, sum) = store.counts().get(i).zip(store.sums().get(i)).map_or((0, 0), |(&c, &s)| (c, s));
        let want = [i as u128, u128::from(count & 0xffff_ffff), u128::from(sum & ((1 << 48) - 1))];
        assert_eq!(row[..], want, "center {i}: the read-out differs from the golden store");
    }
    assert_eq!(epochs[1].len(), 64);
    assert_eq!(epochs[1].iter().map(|row| row[1]).sum::<u128>(), stored.len() as u128);

    // Every answer, in query order, equals the golden store's.
    let get = |a: &[u8], name: &str| {
        let answer = &design.query.as_ref().unwrap().answer;
        let (lsb, bits) = netmeas_hdl::point::top::tdata_field(answer, name)
            .unwrap_or_else(|| panic!("no answer field {name}: {answer:?}"));
        PointRun::field(a, lsb, bits)
    };
    assert_eq!(r.run.answers.len(), ids.len());
    let mut kinds = [0usize; 3];
    for (tag, (a, &id)) in r.run.answers.iter().zip(&ids).enumerate() {
        assert_eq!(get(a, "r_tag"), tag as u64, "answers in query order");
        let got = port_answer(
            get(a, "r_kind") as u8,
            get(a, "r_center") as u8,
            get(a, "r_count") as u32,
            get(a, "r_latency") as u32,
            get(a, "r_candidates"),
            &centers,
        );
        let want = store.lookup(id);
        assert_eq!(got, want, "query {tag} (ID {id:016x})");
        kinds[get(a, "r_kind") as usize] += 1;
    }
    assert!(kinds.iter().all(|&k| k > 0), "No-Match, Match and Multi-Match answers: {kinds:?}");
    assert_eq!((r.reg("HELD"), r.reg("OVF_STICKY")), (1, 0));
}

/// The clock-domain check of a point's netlist with its top module's text
/// replaced by `top_v`: the frame parser and the core are single-clock
/// modules, kept whole, each required to take all its inputs from its own
/// clock's domain.
fn check_domains(d: &PointDesign, name: &str, top_v: &str) -> Result<netmeas_hdl::point::cdc::CdcReport, Vec<String>> {
    use netmeas_hdl::point::cdc::{Domain, check_crossings, netlist_of};
    let black = |name: &str| {
        !name.starts_with("netmeas_point_")
            && !name.starts_with("netmeas_async_fifo")
            && !name.starts_with("netmeas_reset_bridge")
            && !name.starts_with("netmeas_cdc_word")
            && !name.starts_with("netmeas_axil")
            && !name.starts_with("netmeas_wb")
    };
    let files: Vec<(&str, &str, bool)> = d
        .files
        .iter()
        .enumerate()
        .map(|(i, (n, v))| (n.as_str(), if i == 0 { top_v } else { v.as_str() }, black(n)))
        .collect();
    let n = netlist_of(&files, &d.top, &[], &scratch(name)).unwrap_or_else(|e| panic!("{e}"));
    // (The query and answer streams, `s_axis_query_*` and `m_axis_answer_*`,
    // and an inline point's read-out, `m_axis_ro_*`, are the core's, like every port but the MAC's; an inline
    // point's frames leave on the MAC's clock, `m_axis_*`.)
    let domains = [
        Domain { clock: "aclk", prefix: "s_axis_query_" },
        Domain { clock: "aclk", prefix: "m_axis_ro_" },
        Domain { clock: "aclk", prefix: "m_axis_answer_" },
        Domain { clock: "s_axis_aclk", prefix: "s_axis_" },
        Domain { clock: if d.inline { "s_axis_aclk" } else { "aclk" }, prefix: "m_axis_" },
        Domain { clock: "aclk", prefix: "" },
    ];
    check_crossings(&n, &d.top, &domains)
}

#[test]
fn every_point_crosses_clock_domains_only_through_the_fifo_and_the_counters() {
    for core in point_cores() {
        let d = design(core, Bus::Axil);
        let report = check_domains(&d, &format!("cdc_{core}"), &d.files[0].1)
            .unwrap_or_else(|e| panic!("{core}: {}", e.join("\n")));
        // The FIFO's two Gray pointers of 5 bits, the 13 counters of 32 bits, and
        // the two reset bridges' requests and acknowledges.
        assert_eq!(report.synchronized_bits, 2 * 5 + 13 * 32 + 2 * 4, "{core}: {report:?}");
    }
    // An inline point: a FIFO of 32 records (6-bit Gray pointers), six more
    // counters (the control frames'), the host's EPOCH_FLIP level (1 bit), and
    // its configuration's handshake (request and acknowledge) with the 117
    // configuration bits captured under it.
    for core in ["lda", "svbf"] {
        let cfg = registry::core(core).unwrap().default_config(None).unwrap();
        let d = netmeas_hdl::point::top::wrap_with(&cfg, 64, Bus::Axil, true).unwrap_or_else(|e| panic!("{e}")).0;
        let report = check_domains(&d, &format!("cdc_inline_{core}"), &d.files[0].1)
            .unwrap_or_else(|e| panic!("{core} inline: {}", e.join("\n")));
        assert_eq!(report.synchronized_bits, 2 * 6 + 19 * 32 + 2 * 4 + 1 + 2, "{core} inline: {report:?}");
        assert_eq!(report.captured_bits, 117, "{core} inline: {report:?}");
    }
    // A record field taken straight from the MAC's side, and a counter event
    // read in the core's domain, are each caught.
    let d = design("lda", Bus::Axil);
    let top_v = &d.files[0].1;
    for (what, from, to) in [
        ("the parser's class into the core", "rec[41:34]", "rec_class"),
        (
            "a MAC-domain event in the flags",
            "wire [4:0] flag_set = {interruption, cnt_changed[2]",
            "wire [4:0] flag_set = {interruption, stat_valid",
        ),
    ] {
        assert!(top_v.contains(from), "{what}: `{from}` moved");
        let broken = top_v.replace(from, to);
        let found = check_domains(&d, "cdc_lda_broken", &broken).expect_err(what);
        assert!(!found.is_empty(), "{what}");
    }
}

/// What the LDA point's epoch must hold after a reset: the records of
/// `frames` (host reader's, with each one's frame index).
struct ResetCase {
    name: &'static str,
    reset: netmeas_hdl::point::cosim::PointReset,
}

/// The LDA golden synopsis's (packets, rows) of `records`.
fn lda_golden(
    cfg: &netmeas_sim::lda::LdaConfig,
    records: &[&netmeas_sim::frame::FrameRecord],
) -> (u64, Vec<(u64, u64)>) {
    use netmeas_sim::lda::{LdaGolden, LdaPacket};
    let mut golden = LdaGolden::new(cfg);
    for rec in records {
        golden.packet(&LdaPacket { key: rec.key, ts: rec.ts_ns & ((1 << 40) - 1), class: rec.class });
    }
    let s = golden.end_epoch();
    (s.packets, s.rows)
}

/// Whether the LDA epoch of `packets` packets and `rows` holds every record
/// of `must` and some of `maybe`: the rows less those of `must` must be
/// made of `maybe`'s, each row's count and timestamp sum by a subset of the
/// records that hash to it, and the packets left over by the same number of
/// `maybe`'s records. The kept records of `maybe`, or why none fit.
fn lda_epoch_of(
    cfg: &netmeas_sim::lda::LdaConfig,
    packets: u64,
    rows: &[(u64, u64)],
    must: &[&netmeas_sim::frame::FrameRecord],
    maybe: &[&netmeas_sim::frame::FrameRecord],
) -> Result<u64, String> {
    let mask = (1u64 << 40) - 1;
    let (must_packets, must_rows) = lda_golden(cfg, must);
    let left = packets.checked_sub(must_packets).ok_or("fewer packets than the records that must be in")?;
    // Each candidate's row, if it is sampled.
    let mut by_row: std::collections::HashMap<usize, Vec<u64>> = std::collections::HashMap::new();
    for rec in maybe {
        let (_, one) = lda_golden(cfg, &[*rec]);
        if let Some(row) = one.iter().position(|&(c, _)| c > 0) {
            by_row.entry(row).or_default().push(one[row].1);
        }
    }
    let mut sampled_kept = 0;
    for (row, (&(c, t), &(mc, mt))) in rows.iter().zip(&must_rows).enumerate() {
        let count = c.checked_sub(mc).ok_or_else(|| format!("row {row} lacks a record that must be in"))?;
        let tsum = t.wrapping_sub(mt) & mask;
        let cands = by_row.get(&row).map_or(&[][..], |v| v.as_slice());
        let fits = (0u32..1 << cands.len()).any(|set| {
            let picked = (0..cands.len()).filter(|i| set >> i & 1 == 1);
            let (n, sum) = picked.fold((0u64, 0u64), |(n, s), i| (n + 1, s.wrapping_add(cands[i]) & mask));
            n == count && sum == tsum
        });
        if !fits {
            return Err(format!("row {row}: ({count}, {tsum}) is no sum of the candidates {cands:?}"));
        }
        sampled_kept += count;
    }
    let unsampled = maybe.len() as u64 - by_row.values().map(|v| v.len() as u64).sum::<u64>();
    match left.checked_sub(sampled_kept) {
        Some(u) if u <= unsampled => Ok(left),
        _ => Err(format!("{left} packets left for {sampled_kept} sampled records and {unsampled} others")),
    }
}

/// Resets of the MAC's side alone (mid-frame), the core's alone (between
/// frames, one clock), both (mid-frame), and each in the read-out, on the
/// LDA point in Verilator with 600 corpus frames: the epoch read out is the
/// golden model of the records sent before the reset and those after it —
/// a prefix and a suffix of them, never a record not sent or one twice —
/// and what is missing is flagged: a reset of the MAC's side marks the
/// epoch it cost records (`FROZEN_INTERRUPTED`, `INTERRUPTIONS`, the
/// `INTERRUPTED` flag) and leaves the counters counting; a reset of the
/// core's side restarts the point, which shows `READY` once its banks are
/// clear.
#[test]
fn the_lda_point_invents_nothing_and_flags_what_a_reset_of_either_side_costs() {
    use netmeas_hdl::point::cosim::{PointClocks, PointReset, PointSim, ResetAt, ResetSide};
    use netmeas_sim::frame::{ParseCounts, parse_frame};
    use netmeas_sim::lda::LdaConfig;

    let cfg = LdaConfig::default();
    let design = wrap(&netmeas_hdl::export::BlockConfig::new(cfg.clone()), 64, Bus::Axil).unwrap().0;
    let frames = corpus_frames(31, 600);
    let n = frames.len();
    // Each frame's record, if it gives one.
    let recs: Vec<Option<netmeas_sim::frame::FrameRecord>> =
        frames.iter().map(|f| ParseCounts::default().count(parse_frame(f.ts_ns, &f.bytes, f.bad)).ok()).collect();
    let point = PointSim::new(Simulator::Verilator, &scratch("resets_lda"), &design).unwrap();
    let k = n / 2;
    let cases = [
        ResetCase {
            name: "mac_mid_frame",
            reset: PointReset { side: ResetSide::Mac, at: ResetAt::Frame(k, 2), clocks: 40 },
        },
        ResetCase {
            name: "core_pulse",
            reset: PointReset { side: ResetSide::Core, at: ResetAt::Frame(k, 0), clocks: 1 },
        },
        ResetCase {
            name: "both_mid_frame",
            reset: PointReset { side: ResetSide::Both, at: ResetAt::Frame(k, 3), clocks: 300 },
        },
        ResetCase {
            name: "mac_in_readout",
            reset: PointReset { side: ResetSide::Mac, at: ResetAt::Readout, clocks: 3000 },
        },
        ResetCase {
            name: "core_in_readout",
            reset: PointReset { side: ResetSide::Core, at: ResetAt::Readout, clocks: 5 },
        },
    ];
    let bit = |r: &PointResult, b: u32| r.reg("POINT_STATUS") >> b & 1;
    for case in cases {
        let name = case.name;
        let clocks = PointClocks { reset: Some(case.reset), ..PointClocks::default() };
        let run = point.run(&design, &frames, &clocks, 7).unwrap_or_else(|e| panic!("{name}: {e}"));
        let starts = run.frame_starts.clone();
        let frame_of_line = |line: usize| starts.iter().rposition(|&s| s <= line).unwrap_or(0);
        let records: Vec<(usize, &netmeas_sim::frame::FrameRecord)> =
            recs.iter().enumerate().filter_map(|(i, r)| r.as_ref().map(|r| (i, r))).collect();
        let r = PointResult { design: design.clone(), run, records: Vec::new() };
        assert_eq!(bit(&r, 0), 1, "{name}: READY at the end");
        let interrupted_flag = r.run.flags >> 4 & 1;
        let rows_of = |r: &PointResult| -> Vec<(u64, u64)> {
            let mut rows = vec![(0, 0); 2 * cfg.rows as usize];
            for f in r.readout(&["m_ro_addr", "m_ro_count", "m_ro_tsum"]) {
                rows[f[0] as usize] = (f[1], f[2]);
            }
            rows
        };
        match case.reset.at {
            ResetAt::Frame(..) => {
                let line = r.run.reset.flatten().expect("the reset's line");
                let first_cut = frame_of_line(line);
                // Records of the frames before the reset, and the first frame whose record may follow it.
                let before = records.iter().filter(|(i, _)| *i < first_cut).count();
                let after_line = match case.reset.side {
                    ResetSide::Mac => r.run.resumed.expect("resumed"),
                    _ => r.run.ready.expect("ready"),
                };
                let from_frame = frame_of_line(after_line);
                let from = records.iter().position(|(i, _)| *i >= from_frame).unwrap_or(records.len());
                // The epoch is a prefix [0, a) and a suffix [b, ..) of the records.
                let rows = rows_of(&r);
                let packets = r.reg64("FROZEN_PACKETS");
                if case.reset.side == ResetSide::Mac {
                    // A prefix [0, a) and a suffix [b, ..) of the records.
                    let found = (before.saturating_sub(40)..=before).rev().find_map(|a| {
                        (from..=(from + 40).min(records.len()))
                            .find(|&b| {
                                let kept: Vec<_> = records[..a].iter().chain(&records[b..]).map(|(_, r)| *r).collect();
                                kept.len() as u64 == packets && lda_golden(&cfg, &kept).1 == rows
                            })
                            .map(|b| (a, b))
                    });
                    let (a, b) = found.unwrap_or_else(|| {
                        panic!("{name}: the epoch ({packets} packets) is no prefix and suffix of the records sent")
                    });
                    let lost = (before - a) + (b - from);
                    assert!(r.reg("RECORDS_IN_RESET") <= lost as u64 && lost <= 24, "{name}: {lost} lost");
                } else {
                    // Every record from READY on, and some of those before it (queued while
                    // the banks cleared, or still in the parser as the reset came; those
                    // that found the FIFO full or in reset are counted) — nothing else.
                    let must: Vec<_> = records[from..].iter().map(|(_, r)| *r).collect();
                    let maybe: Vec<_> = records[before.saturating_sub(40)..from].iter().map(|(_, r)| *r).collect();
                    let kept =
                        lda_epoch_of(&cfg, packets, &rows, &must, &maybe).unwrap_or_else(|e| panic!("{name}: {e}"));
                    eprintln!("{name}: {kept} of the {} records before READY kept", maybe.len());
                }
                if case.reset.side == ResetSide::Mac {
                    // The counters go on; what was lost is flagged.
                    let sent_frames = first_cut + (n - frame_of_line(r.run.resumed.unwrap()));
                    // (less the frames inside the parser's 13 clocks when it was reset: two at most)
                    let frames = r.reg("FRAMES");
                    assert!(
                        frames <= sent_frames as u64 && frames + 2 >= sent_frames as u64,
                        "{name}: {frames} frames"
                    );
                    assert_eq!(
                        (r.reg("INTERRUPTIONS"), bit(&r, 2), bit(&r, 1), interrupted_flag),
                        (1, 1, 0, 1),
                        "{name}"
                    );
                } else {
                    // A fresh point: every record counted since is in the epoch, refused or overflowed.
                    assert_eq!(
                        r.reg("RECORDS"),
                        packets + r.reg("RECORDS_IN_RESET") + r.reg("FIFO_OVERFLOWS"),
                        "{name}: records since the core's reset"
                    );
                    assert_eq!((r.reg("INTERRUPTIONS"), bit(&r, 2), interrupted_flag), (0, 0, 0), "{name}");
                }
            }
            ResetAt::Readout => {
                let all: Vec<_> = records.iter().map(|(_, r)| *r).collect();
                let (packets, want) = lda_golden(&cfg, &all);
                if case.reset.side == ResetSide::Mac {
                    // The frozen epoch is read out whole; the live one is marked.
                    assert_eq!(rows_of(&r), want, "{name}");
                    assert_eq!(r.reg64("FROZEN_PACKETS"), packets, "{name}");
                    assert_eq!(r.reg("FRAMES"), n as u64, "{name}: the counters go on");
                    assert_eq!(
                        (r.reg("INTERRUPTIONS"), bit(&r, 2), bit(&r, 1), interrupted_flag),
                        (1, 0, 1, 1),
                        "{name}"
                    );
                } else {
                    // The read-out stops; what came is the golden rows' beginning; the point starts afresh.
                    let got: Vec<Vec<u64>> = r
                        .run
                        .readout
                        .iter()
                        .map(|(beat, _)| {
                            ["m_ro_addr", "m_ro_count", "m_ro_tsum"]
                                .iter()
                                .map(|f| {
                                    let (l, b) = r.field(f);
                                    netmeas_hdl::point::cosim::PointRun::field(beat, l, b)
                                })
                                .collect()
                        })
                        .collect();
                    assert!(!got.is_empty() && got.len() < want.len(), "{name}: {} beats", got.len());
                    for g in &got {
                        assert_eq!((g[1], g[2]), want[g[0] as usize], "{name}: row {}", g[0]);
                    }
                    assert_eq!((r.reg("FRAMES"), r.reg("FROZEN_SEQ"), r.reg("INTERRUPTIONS")), (0, 0, 0), "{name}");
                }
            }
        }
    }
}

/// Every core that can be inline (a flip taken when ready: LDA, SVBF), on both buses.
#[test]
fn every_inline_point_lints_clean_on_both_buses() {
    use netmeas_hdl::point::top::wrap_with;
    let mut inline = 0;
    for core in point_cores() {
        let cfg = registry::core(core).unwrap().default_config(None).unwrap();
        for bus in [Bus::Axil, Bus::Wishbone] {
            let Ok((d, _)) = wrap_with(&cfg, 64, bus, true) else { continue };
            inline += 1;
            let file = one_file(&d, &scratch(&format!("lint_inline_{core}_{bus:?}")));
            tools::lint(&file, &d.top).unwrap_or_else(|e| panic!("{core} inline on {bus:?}: {e}"));
        }
    }
    assert_eq!(inline, 4, "lda and svbf, on both buses");
}
