//! Packaged measurement points (`netmeas_hdl::point::top`): the frame
//! parser, the record FIFO, the status counters, a core, its register block
//! and a bus slave in one top module, generated over the registry.

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

/// Every core that takes frames, on both buses.
#[test]
fn every_point_lints_clean_on_both_buses() {
    let mut points = 0;
    for core in registry::names() {
        let cfg = registry::core(core).unwrap().default_config(None).unwrap();
        if cfg.point_binding().is_none() {
            continue;
        }
        points += 1;
        for bus in [Bus::Axil, Bus::Wishbone] {
            let d = design(core, bus);
            let file = one_file(&d, &scratch(&format!("lint_{core}_{bus:?}")));
            tools::lint(&file, &d.top).unwrap_or_else(|e| panic!("{core} on {bus:?}: {e}"));
        }
    }
    assert!(points >= 2, "{points} cores give a point binding");
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

/// `n` frames of the corpus (TCP connections, DNS, IPv6, VLANs, runts,
/// bad-FCS flags, frames the parser refuses) at increasing ingress times.
fn corpus_frames(seed: u64, n: usize) -> Vec<netmeas_hdl::point::cosim::MacFrame> {
    use netmeas_sim::frame::corpus::Corpus;
    use netmeas_sim::prng::SplitMix64;
    let mut corpus = Corpus::new(seed);
    let mut rng = SplitMix64::new(seed ^ 0x7157);
    let mut t = 1_700_000_000_000_000_000u64;
    (0..n)
        .map(|_| {
            let f = corpus.next_frame();
            t += 50 + rng.below(2000);
            netmeas_hdl::point::cosim::MacFrame { ts_ns: t, bytes: f.bytes, bad: f.bad }
        })
        .filter(|f| !f.bytes.is_empty())
        .collect()
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
        let mut lsb = 0;
        for (n, b) in &self.design.readout {
            if n == name {
                return (lsb, *b);
            }
            lsb += b;
        }
        panic!("no read-out field {name}: {:?}", self.design.readout)
    }

    /// The read-out's fields `names` of every beat; exactly one beat is the last.
    fn readout(&self, names: &[&str]) -> Vec<Vec<u64>> {
        use netmeas_hdl::point::cosim::PointRun;
        assert_eq!(self.run.readout.iter().filter(|(_, last)| *last).count(), 1, "one TLAST");
        assert!(self.run.readout.last().is_some_and(|(_, last)| *last), "TLAST on the last beat");
        let fields: Vec<(u32, u32)> = names.iter().map(|n| self.field(n)).collect();
        self.run
            .readout
            .iter()
            .map(|(beat, _)| fields.iter().map(|&(l, b)| PointRun::field(beat, l, b)).collect())
            .collect()
    }
}

/// The point of `cfg` fed `n` corpus frames in `sim`; the point's counters
/// checked against the host reader's counts, frame by frame.
fn run_point(cfg: &netmeas_hdl::export::BlockConfig, sim: Simulator, n: usize, seed: u64) -> PointResult {
    use netmeas_hdl::point::cosim::{PointClocks, PointSim};
    use netmeas_sim::frame::{ParseCounts, parse_frame};

    let design = wrap(cfg, 64, Bus::Axil).unwrap_or_else(|e| panic!("{e}")).0;
    let frames = corpus_frames(seed, n);
    let mut counts = ParseCounts::default();
    let records: Vec<_> =
        frames.iter().filter_map(|f| counts.count(parse_frame(f.ts_ns, &f.bytes, f.bad)).ok()).collect();
    assert!(counts.records > n as u64 / 2 && counts.unparsed.iter().filter(|&&u| u > 0).count() >= 4, "{counts:?}");

    let name = format!("cosim_{}_{sim:?}", cfg.block_name());
    let point = PointSim::new(sim, &scratch(&name), &design).unwrap();
    let run = point.run(&design, &frames, &PointClocks::default(), 5).unwrap();
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
/// fed by the host's reader: counters, frozen-epoch counters and every row.
fn check_lda_point(sim: Simulator, n: usize, seed: u64) {
    use netmeas_sim::lda::{LdaConfig, LdaGolden, LdaPacket};

    let cfg = LdaConfig::default();
    let r = run_point(&netmeas_hdl::export::BlockConfig::new(cfg.clone()), sim, n, seed);
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
    check_lda_point(Simulator::Verilator, 3000, 11);
}

#[test]
fn the_lda_point_testbench_runs_in_icarus_alike() {
    check_lda_point(Simulator::Icarus, 400, 12);
}

/// The fridge point (two fridges, entry probabilities 1/2 and 1 so that the
/// corpus's handshakes and DNS exchanges give samples) fed corpus frames:
/// the frozen histograms, the sample register and the status equal the
/// golden model fed the host reader's requests and responses.
#[test]
fn the_fridge_point_measures_raw_frames_as_the_golden_model_fed_by_the_host_reader() {
    use netmeas_sim::frame::Role;
    use netmeas_sim::fridge::{FRIDGE_BINS, FridgeConfig, FridgeGolden, FridgePacket};

    let cfg = FridgeConfig { entry_prob_log2: vec![-1.0, 0.0], ..FridgeConfig::default() };
    let r = run_point(&netmeas_hdl::export::BlockConfig::new(cfg.clone()), Simulator::Verilator, 3000, 21);
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

/// The clock-domain check of a point's netlist with its top module's text
/// replaced by `top_v`: the frame parser and the core are single-clock
/// modules, kept whole, each required to take all its inputs from its own
/// clock's domain.
fn check_domains(d: &PointDesign, name: &str, top_v: &str) -> Result<netmeas_hdl::point::cdc::CdcReport, Vec<String>> {
    use netmeas_hdl::point::cdc::{Domain, check_crossings, netlist_of};
    let black = |name: &str| {
        !name.starts_with("netmeas_point_")
            && !name.starts_with("netmeas_async_fifo")
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
    let domains = [Domain { clock: "s_axis_aclk", prefix: "s_axis_" }, Domain { clock: "aclk", prefix: "" }];
    check_crossings(&n, &d.top, &domains)
}

#[test]
fn every_point_crosses_clock_domains_only_through_the_fifo_and_the_counters() {
    for core in ["lda", "fridge"] {
        let d = design(core, Bus::Axil);
        let report = check_domains(&d, &format!("cdc_{core}"), &d.files[0].1)
            .unwrap_or_else(|e| panic!("{core}: {}", e.join("\n")));
        // The FIFO's two Gray pointers of 5 bits and the 12 counters of 32 bits.
        assert_eq!(report.synchronized_bits, 2 * 5 + 12 * 32, "{core}: {report:?}");
    }
    // A record field taken straight from the MAC's side, and a counter event
    // read in the core's domain, are each caught.
    let d = design("lda", Bus::Axil);
    let top_v = &d.files[0].1;
    for (what, from, to) in [
        ("the parser's class into the core", "rec[41:34]", "rec_class"),
        (
            "a MAC-domain event in the flags",
            "wire [3:0] flag_set = {cnt_changed[2]",
            "wire [3:0] flag_set = {stat_valid",
        ),
    ] {
        assert!(top_v.contains(from), "{what}: `{from}` moved");
        let broken = top_v.replace(from, to);
        let found = check_domains(&d, "cdc_lda_broken", &broken).expect_err(what);
        assert!(!found.is_empty(), "{what}");
    }
}
