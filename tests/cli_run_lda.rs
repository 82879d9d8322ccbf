//! `netmeas run lda` and `netmeas estimate lda` as a user runs them: JSON
//! fields, golden/RTL agreement, saved synopses, and bad input (clear error,
//! non-zero exit, nothing on stdout, nothing written).

mod common;

use common::{assert_refused, json, netmeas};

#[test]
fn both_engines_agree_and_report_every_field() {
    let o = netmeas(&[
        "run",
        "lda",
        "--packets",
        "300000",
        "--loss",
        "0.05",
        "--loss-model",
        "bursty",
        "--seed",
        "3",
        "--engine",
        "both",
        "--json",
    ]);
    let v = json(&o);
    assert_eq!(v["synopsis_match"], true);
    for f in ["mean", "std", "loss", "samples"] {
        assert!(v["estimates"][f].is_number(), "estimates.{f}");
    }
    for f in ["mean", "std", "loss"] {
        assert!(v["truth"][f].is_number(), "truth.{f}");
    }
    // 300k packets leave ~3k samples: the error must sit inside the eq. (1) bound.
    let err = (v["estimates"]["mean"].as_f64().unwrap() - v["truth"]["mean"].as_f64().unwrap()).abs();
    assert!(err <= v["estimates"]["mean_bound_98"].as_f64().unwrap(), "{err}");
    assert!(v["rel_error"]["std"].is_number());
    let loss = v["estimates"]["loss"].as_f64().unwrap();
    assert_eq!(loss, v["truth"]["loss"].as_f64().unwrap());
    assert!((loss - 0.05).abs() < 0.01, "{loss}");
    assert!(v["timing"]["rtl"]["sender_cycles"].as_u64().unwrap() >= 300_000);
}

#[test]
fn golden_runs_without_loss_are_exact_when_every_packet_is_sampled() {
    let v = json(&netmeas(&[
        "run",
        "lda",
        "--packets",
        "50000",
        "--banks",
        "1",
        "--rows",
        "1024",
        "--bank-prob-log2",
        "0",
        "--json",
    ]));
    assert_eq!(v["estimates"]["mean"], v["truth"]["mean"]);
    assert_eq!(v["estimates"]["samples"], 50000);
    assert_eq!(v["rel_error"]["mean"], 0.0);
    assert_eq!(v["synopsis_match"], serde_json::Value::Null);
}

#[test]
fn saved_synopses_estimate_the_same_and_mismatched_pairs_are_refused() {
    let dir = std::env::temp_dir().join(format!("netmeas-cli-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let run = json(&netmeas(&["run", "lda", "--packets", "40000", "--loss", "0.01", "--save-synopses", d, "--json"]));
    let (s, r) = (dir.join("sender.json"), dir.join("receiver.json"));
    let est = json(&netmeas(&["estimate", "lda", s.to_str().unwrap(), r.to_str().unwrap(), "--json"]));
    assert_eq!(est["estimates"], run["estimates"]);
    // A receiver from another epoch: the interval is unusable.
    let mut other: serde_json::Value = serde_json::from_slice(&std::fs::read(&r).unwrap()).unwrap();
    other["seq"] = 1.into();
    let o2 = dir.join("other.json");
    std::fs::write(&o2, other.to_string()).unwrap();
    assert_refused(&["estimate", "lda", s.to_str().unwrap(), o2.to_str().unwrap()], "epoch");
    // Swapped ends: each file says which end it is.
    assert_refused(&["estimate", "lda", r.to_str().unwrap(), s.to_str().unwrap()], "(swapped?)");
    // Swapped without the marks: the receiver cannot count more packets than the sender.
    let unmarked = |p: &std::path::Path, name: &str| {
        let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("end");
        let q = dir.join(name);
        std::fs::write(&q, v.to_string()).unwrap();
        (q, v)
    };
    let ((us, _), (ur, mut rv)) = (unmarked(&s, "us.json"), unmarked(&r, "ur.json"));
    let (us, ur) = (us.to_str().unwrap(), ur.to_str().unwrap());
    assert_refused(&["estimate", "lda", ur, us], "more than the sender's");
    // A row count no 32-bit register can hold.
    rv["rows"][3][0] = (1u64 << 32).into();
    let wide = dir.join("wide.json");
    std::fs::write(&wide, rv.to_string()).unwrap();
    assert_refused(&["estimate", "lda", us, wide.to_str().unwrap()], "wider than 32 / 40 bits");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_fails_cleanly() {
    let dir = std::env::temp_dir().join(format!("netmeas-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_pcap = dir.join("bad.pcap");
    std::fs::write(&bad_pcap, b"\xd4\xc3\xb2\xa1 this is not a capture at all").unwrap();
    let out = dir.join("syn");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--engine", "fast"], "--engine"),
        (vec!["--delay", "weibull:0.1"], "delay"),
        (vec!["--loss", "1"], "loss rate"),
        (vec!["--loss-model", "gilbert"], "invalid value 'gilbert' for '--loss-model"),
        (vec!["--rows", "500"], "rows"),
        (vec!["--banks", "2", "--bank-prob-log2", "3"], "bank_prob_log2"),
        (vec!["--engine", "rtl", "--hash-seed", "3"], "no Verilated LDA"),
        (vec!["--pcap", bad_pcap.to_str().unwrap()], "bad.pcap"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["run", "lda", "--packets", "1000", "--save-synopses", out.to_str().unwrap()];
        args.extend(extra.iter());
        assert_refused(&args, needle);
        assert!(!out.exists(), "{extra:?} wrote synopses");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reproduce_sweeps_loss_and_checks_the_rtl_run() {
    let o = netmeas(&[
        "reproduce",
        "lda",
        "--packets",
        "200000",
        "--runs",
        "3",
        "--losses",
        "0.001,0.05",
        "--engine",
        "both",
        "--json",
    ]);
    let v = json(&o);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        for name in ["one_bank_tuned", "two_banks_0.005_0.1", "default"] {
            let q = &r["points"][name];
            assert_eq!(q["rtl_match"], true, "{name}");
            assert!(q["samples"].as_f64().unwrap() > 0.0);
        }
        // §III-D tuning: 0.1 % of 200 000 → L = 200, p = 512/201 → k = 0; 5 % → L = 10 000 → k = 4.
        let k = r["points"]["one_bank_tuned"]["bank_prob_log2"][0].as_u64().unwrap();
        assert_eq!(k, if r["loss_rate"] == 0.001 { 0 } else { 4 });
    }
    // Fewer lost packets, more samples: the tuned bank's error grows with loss.
    let err = |i: usize| rows[i]["points"]["one_bank_tuned"]["mean_rel_error"].as_f64().unwrap();
    assert!(err(0) < err(1) && err(0) < 0.01, "{} {}", err(0), err(1));
}

#[test]
fn reproduce_refuses_bad_flags() {
    for args in [
        &["reproduce", "lda", "--runs", "0"][..],
        &["reproduce", "lda", "--losses", "1.5"],
        &["reproduce", "lda", "--engine", "rtl"],
        &["reproduce", "lda", "--packets", "10", "--flows", "200000000"],
    ] {
        assert_refused(args, "error");
    }
}

#[test]
fn a_capture_drives_both_engines() {
    use netmeas_sim::traffic::{PcapPacket, pack_key, write_pcap};
    let dir = std::env::temp_dir().join(format!("netmeas-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("cap.pcap");
    // 20 000 UDP packets of 50 flows, 1 µs apart, consecutive IP IDs per flow.
    let pkts: Vec<PcapPacket> = (0..20_000u64)
        .map(|i| PcapPacket {
            ts_ns: 1_700_000_000_000_000_000 + 1_000 * i,
            key: pack_key(0x0a00_0001 + (i % 50) as u32, 0x0a00_0100, 4000, 53, 17, (i / 50) as u16),
        })
        .collect();
    std::fs::write(&pcap, write_pcap(&pkts)).unwrap();
    let v = json(&netmeas(&[
        "run",
        "lda",
        "--pcap",
        pcap.to_str().unwrap(),
        "--packets",
        "15000",
        "--loss",
        "0.01",
        "--engine",
        "both",
        "--json",
    ]));
    assert_eq!(v["synopsis_match"], true);
    assert_eq!(v["traffic"]["packets"], 15000);
    assert_eq!(v["estimates"]["sent"], 15000);
    let err = (v["estimates"]["mean"].as_f64().unwrap() - v["truth"]["mean"].as_f64().unwrap()).abs();
    assert!(err <= v["estimates"]["mean_bound_98"].as_f64().unwrap(), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A pcapng capture (microsecond interface) with IPv6 frames, double-tagged
/// frames and frames the parser skips: the run takes every IP packet and
/// reports the rest by reason, in JSON and in text.
#[test]
fn a_pcapng_capture_with_ipv6_vlans_and_junk_reports_what_it_skipped() {
    use netmeas_sim::traffic::{CaptureFormat, PcapPacket, pack_key, write_capture, write_pcap_as};
    let dir = common::fresh_dir("pcapng", "mixed");
    let keys: Vec<PcapPacket> = (0..3000u64)
        .map(|i| PcapPacket {
            ts_ns: 1_700_000_000_000_000_000 + 2_000 * i,
            key: pack_key(0x0a00_0001 + (i % 40) as u32, 0x0a00_0100, 4000, 53, 17, (i / 40) as u16),
        })
        .collect();
    // The same frames as pcapng, then each IPv4 frame also as IPv6 and double-tagged, and an ARP frame.
    let ipv4 = netmeas_sim::traffic::parse_pcap(&write_pcap_as(&keys, CaptureFormat::Pcap)).unwrap();
    assert_eq!(ipv4.packets.len(), 3000);
    let base = write_pcap_as(&keys, CaptureFormat::PcapNgMicros);
    let mut frames: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut r = netmeas_sim::traffic::CaptureReader::from_bytes(&base).unwrap();
    while let Some(f) = r.next_frame() {
        let f = f.unwrap();
        let v4 = f.data.clone();
        // 802.1ad + 802.1Q tags in front of the IPv4 ethertype.
        let tagged = [&v4[..12], &[0x88, 0xa8, 0, 1, 0x81, 0, 0, 2], &v4[12..]].concat();
        // IPv6: version 6, payload = the UDP datagram, next header UDP, addresses from the IPv4 ones.
        let udp = &v4[34..];
        let mut v6 = [&v4[..12], &[0x86, 0xdd][..]].concat();
        v6.extend_from_slice(&[0x60, 0, 0, 1]);
        v6.extend_from_slice(&(udp.len() as u16).to_be_bytes());
        v6.extend_from_slice(&[17, 64]);
        v6.extend_from_slice(&[&v4[26..30], &[0; 12][..]].concat());
        v6.extend_from_slice(&[&v4[30..34], &[0; 12][..]].concat());
        v6.extend_from_slice(udp);
        frames.push((f.ts_ns, v4));
        frames.push((f.ts_ns + 300, tagged));
        frames.push((f.ts_ns + 600, v6));
        frames.push((f.ts_ns + 900, [&[0xff; 12][..], &[0x08, 0x06], &[0; 28]].concat()));
    }
    let cap = dir.join("mixed.pcapng");
    std::fs::write(&cap, write_capture(&frames, CaptureFormat::PcapNgNanos)).unwrap();
    let run = |json_out: bool| {
        let mut args = vec!["run", "lda", "--pcap", cap.to_str().unwrap(), "--engine", "golden"];
        if json_out {
            args.push("--json");
        }
        netmeas(&args)
    };
    let v = json(&run(true));
    assert_eq!(v["traffic"]["packets"], 9000);
    assert_eq!(v["traffic"]["capture"]["frames"], 12000);
    assert_eq!(v["traffic"]["capture"]["records"], 9000);
    assert_eq!(v["traffic"]["capture"]["skipped"]["not_ip"], 3000);
    assert_eq!(v["traffic"]["capture"]["skipped"]["truncated"], 0);
    let o = run(false);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains("12000 frames, 9000 records, 3000 skipped (not IP 3000)"), "{text}");
}

#[test]
fn short_runs_work_with_the_default_flow_count() {
    // 1 000 packets drawn from the default 10 000 flows.
    let v = json(&netmeas(&["run", "lda", "--packets", "1000", "--json"]));
    assert_eq!(v["traffic"]["packets"], 1000);
    assert_eq!(v["estimates"]["sent"], 1000);
}
