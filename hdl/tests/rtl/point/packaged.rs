//! Packaged measurement points (`netmeas_hdl::point::top`): the frame
//! parser, the record FIFO, the status counters, a core, its register block
//! and a bus slave in one top module, generated over the registry.

use netmeas_hdl::point::bus::Bus;
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

#[test]
fn the_lda_point_lints_clean_on_both_buses() {
    for bus in [Bus::Axil, Bus::Wishbone] {
        let d = design("lda", bus);
        let file = one_file(&d, &scratch(&format!("lint_lda_{bus:?}")));
        tools::lint(&file, &d.top).unwrap_or_else(|e| panic!("{bus:?}: {e}"));
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

/// The LDA point fed `n` corpus frames in `sim` against the golden model
/// fed by the host's reader: counters, frozen-epoch counters and every row.
fn check_lda_point(sim: netmeas_hdl::point::sim::Simulator, n: usize, seed: u64) {
    use netmeas_hdl::point::cosim::{PointClocks, PointRun, PointSim};
    use netmeas_sim::frame::{ParseCounts, parse_frame};
    use netmeas_sim::lda::{LdaConfig, LdaGolden, LdaPacket};

    let d = design("lda", Bus::Axil);
    let frames = corpus_frames(seed, n);
    // The host's reader and the golden model.
    let cfg = LdaConfig::default();
    let mut golden = LdaGolden::new(&cfg);
    let mut counts = ParseCounts::default();
    for f in &frames {
        if let Ok(r) = counts.count(parse_frame(f.ts_ns, &f.bytes, f.bad)) {
            golden.packet(&LdaPacket { key: r.key, ts: r.ts_ns & ((1 << 40) - 1), class: r.class });
        }
    }
    let want = golden.end_epoch();
    assert!(counts.records > n as u64 / 2 && counts.unparsed.iter().filter(|&&u| u > 0).count() >= 4, "{counts:?}");

    let sim = PointSim::new(sim, &scratch(&format!("cosim_lda_{sim:?}")), &d).unwrap();
    let run: PointRun = sim.run(&d, &frames, &PointClocks::default(), 5).unwrap();

    // The counters, frame by frame as the host counted.
    let reg = |name: &str| u64::from(run.status[d.status_index(name).unwrap_or_else(|| panic!("{name}"))]);
    assert_eq!(reg("FRAMES"), counts.frames);
    assert_eq!(reg("RECORDS"), counts.records);
    for (i, u) in netmeas_sim::frame::Unparsed::ALL.iter().enumerate() {
        let name = netmeas_hdl::point::top::counter_names()[2 + i].clone();
        assert_eq!(reg(&name), counts.unparsed[i], "{name} ({})", u.name());
    }
    assert_eq!((reg("RECORDS_DROPPED"), reg("FIFO_OVERFLOWS")), (0, 0));
    // The frozen epoch's counters and rows.
    assert_eq!(reg("FROZEN_SEQ"), u64::from(want.seq));
    assert_eq!(reg("FROZEN_PACKETS_LO") | reg("FROZEN_PACKETS_HI") << 32, want.packets);
    assert_eq!(reg("FROZEN_SAMPLED_LO") | reg("FROZEN_SAMPLED_HI") << 32, want.sampled);
    let field = |name: &str| {
        let mut lsb = 0;
        for (n, b) in &d.readout {
            if n == name {
                return (lsb, *b);
            }
            lsb += b;
        }
        panic!("no read-out field {name}: {:?}", d.readout)
    };
    let (addr, count, tsum) = (field("m_ro_addr"), field("m_ro_count"), field("m_ro_tsum"));
    let mut rows = vec![None; want.rows.len()];
    for (beat, _) in &run.readout {
        let a = PointRun::field(beat, addr.0, addr.1) as usize;
        rows[a] = Some((PointRun::field(beat, count.0, count.1), PointRun::field(beat, tsum.0, tsum.1)));
    }
    assert_eq!(run.readout.iter().filter(|(_, last)| *last).count(), 1);
    assert_eq!(run.readout.len(), want.rows.len());
    let rows: Vec<(u64, u64)> = rows.into_iter().map(|r| r.expect("every row read out")).collect();
    assert_eq!(rows, want.rows, "the read-out differs from the golden model");
    assert!(want.sampled > 0);
}

#[test]
fn the_lda_point_measures_raw_frames_as_the_golden_model_fed_by_the_host_reader() {
    check_lda_point(netmeas_hdl::point::sim::Simulator::Verilator, 3000, 11);
}

#[test]
fn the_lda_point_testbench_runs_in_icarus_alike() {
    check_lda_point(netmeas_hdl::point::sim::Simulator::Icarus, 400, 12);
}

#[test]
fn the_lda_point_crosses_clock_domains_only_through_the_fifo_and_the_counters() {
    use netmeas_hdl::point::cdc::{Domain, check_crossings, netlist_of};
    let d = design("lda", Bus::Axil);
    // The frame parser and the core are single-clock modules: kept whole, each must
    // take all its inputs from its own clock's domain.
    let black = |name: &str| {
        !name.starts_with("netmeas_point_")
            && !name.starts_with("netmeas_async_fifo")
            && !name.starts_with("netmeas_axil")
            && !name.starts_with("netmeas_wb")
    };
    let check = |name: &str, top_v: &str| {
        let files: Vec<(&str, &str, bool)> = d
            .files
            .iter()
            .enumerate()
            .map(|(i, (n, v))| (n.as_str(), if i == 0 { top_v } else { v.as_str() }, black(n)))
            .collect();
        let n = netlist_of(&files, &d.top, &[], &scratch(name)).unwrap_or_else(|e| panic!("{e}"));
        let domains = [Domain { clock: "s_axis_aclk", prefix: "s_axis_" }, Domain { clock: "aclk", prefix: "" }];
        check_crossings(&n, &d.top, &domains)
    };
    let top_v = &d.files[0].1;
    let report = check("cdc_lda", top_v).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    // The FIFO's two Gray pointers of 5 bits and the 12 counters of 32 bits.
    assert_eq!(report.synchronized_bits, 2 * 5 + 12 * 32, "{report:?}");
    // A record field taken straight from the MAC's side, and a counter event
    // read in the core's domain, are each caught.
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
        let found = check("cdc_lda_broken", &broken).expect_err(what);
        assert!(!found.is_empty(), "{what}");
    }
}
