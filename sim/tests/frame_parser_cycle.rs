//! The frame parser's per-clock model (what the RTL parser's ports show) and
//! the stimulus its vectors and co-simulation draw from.

use netmeas_sim::frame::corpus::{self, Corpus, stimulus};
use netmeas_sim::frame::cycle::{MAX_FRAME_BYTES, MAX_LANES, lanes_mask};
use netmeas_sim::frame::{
    FRAME_PARSER_LATENCY, FrameParserConfig, FrameParserCycle, FrameParserInputs, FrameParserOutputs, ParseCounts,
    Role, TimestampSource, Unparsed, parse_frame,
};

/// The beats of `frame` for `lanes` bytes a beat, the last one flagged `bad`.
fn beats(frame: &[u8], lanes: usize, ts: u64, bad: bool) -> Vec<FrameParserInputs> {
    let chunks: Vec<&[u8]> = frame.chunks(lanes).collect();
    chunks
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let mut tdata = [0u8; MAX_LANES];
            tdata[..c.len()].copy_from_slice(c);
            let last = k + 1 == chunks.len();
            FrameParserInputs {
                tvalid: true,
                tdata,
                tkeep: lanes_mask(c.len()),
                tlast: last,
                bad: bad && last,
                tuser_ts: ts + k as u64,
                time_ns: 7_000 + k as u64,
                m_ready: true,
                ..Default::default()
            }
        })
        .collect()
}

fn idle() -> FrameParserInputs {
    FrameParserInputs { m_ready: true, ..Default::default() }
}

/// Runs `inputs` then idle clocks; every clock's outputs.
fn run(cfg: &FrameParserConfig, inputs: &[FrameParserInputs], idle_after: usize) -> Vec<FrameParserOutputs> {
    let mut m = FrameParserCycle::new(cfg);
    inputs.iter().chain(std::iter::repeat_n(&idle(), idle_after)).map(|i| m.step(i)).collect()
}

fn dns_query() -> Vec<u8> {
    let udp = corpus::udp(4000, 53, &corpus::dns(77, false, 30));
    corpus::padded([corpus::ethernet(1, 0x0800), corpus::ipv4(1, 2, 3, 0, &[], 17, 0, &udp)].concat())
}

#[test]
fn a_frame_outcome_is_shown_once_exactly_the_latency_after_its_last_beat() {
    for (bits, ts_src) in [(64, TimestampSource::Tuser), (512, TimestampSource::TimeInput)] {
        let cfg = FrameParserConfig { data_bits: bits, timestamp: ts_src, name: None };
        let f = dns_query();
        let ins = beats(&f, cfg.data_bytes(), 1_000, false);
        let out = run(&cfg, &ins, 20);
        let last = ins.len() - 1;
        let shown: Vec<usize> = (0..out.len()).filter(|&k| out[k].stat_valid).collect();
        assert_eq!(shown, vec![last + FRAME_PARSER_LATENCY as usize], "{bits}");
        let r = out[shown[0]].record.unwrap();
        let ts = if ts_src == TimestampSource::Tuser { 1_000 } else { 7_000 };
        assert_eq!(r, parse_frame(ts, &f, false).unwrap());
        assert_eq!((r.role, r.len as usize), (Role::Request, f.len()));
    }
}

#[test]
fn broken_keep_bad_flags_and_overlong_frames_are_bad_frames_and_a_reset_drops_what_is_pending() {
    let cfg = FrameParserConfig::default();
    let f = dns_query();
    let reason = |ins: &[FrameParserInputs]| -> Vec<u8> {
        run(&cfg, ins, 20).iter().filter(|o| o.stat_valid).map(|o| o.stat_reason).collect()
    };
    let bad = 1 + Unparsed::BadFrame as u8;
    assert_eq!(reason(&beats(&f, 8, 0, true)), vec![bad]);
    // A hole in a beat before the last, and a tail that is not lanes 0..n-1.
    let mut b = beats(&f, 8, 0, false);
    b[1].tkeep = 0xfe;
    assert_eq!(reason(&b), vec![bad]);
    let mut b = beats(&f, 8, 0, false);
    b.last_mut().unwrap().tkeep = 0b1010;
    assert_eq!(reason(&b), vec![bad]);
    // One byte too long.
    let long = vec![0u8; MAX_FRAME_BYTES + 1];
    assert_eq!(reason(&beats(&long, 8, 0, false)), vec![bad]);
    // A reset while an outcome is pending, and one inside a frame.
    let mut b = beats(&f, 8, 0, false);
    b.push(FrameParserInputs { reset: true, ..idle() });
    assert_eq!(reason(&b), Vec::<u8>::new());
    // Cut at its fourth beat (the rest, were it sent, would be a frame of its own).
    let mut b = beats(&f, 8, 0, false);
    b[3].reset = true;
    b.truncate(4);
    b.extend(beats(&f, 8, 0, false));
    assert_eq!(reason(&b), vec![0]);
}

#[test]
fn a_record_the_consumer_does_not_take_is_flagged_dropped() {
    let cfg = FrameParserConfig::default();
    let mut ins = beats(&dns_query(), 8, 0, false);
    ins.extend(std::iter::repeat_n(FrameParserInputs { m_ready: false, ..idle() }, 20));
    let out = run(&cfg, &ins, 0);
    let o: Vec<&FrameParserOutputs> = out.iter().filter(|o| o.stat_valid).collect();
    assert_eq!(o.len(), 1);
    assert!(o[0].valid && o[0].stat_dropped);
    assert_eq!(out.iter().filter(|o| o.stat_dropped).count(), 1);
}

#[test]
fn the_stimulus_reaches_every_reason_and_role_and_its_outcomes_are_the_references() {
    for lanes in [8, 64] {
        let cfg = FrameParserConfig { data_bits: 8 * lanes, ..Default::default() };
        let ins = stimulus(lanes, 3, 60_000);
        assert!(ins[1].reset && ins[36_000].reset);
        let out = run(&cfg, &ins, 0);
        let mut reasons = [0u64; 9];
        let (mut req, mut resp, mut dropped) = (0, 0, 0);
        for o in &out {
            reasons[o.stat_reason as usize] += o.stat_valid as u64;
            req += o.record.is_some_and(|r| r.role == Role::Request) as u64;
            resp += o.record.is_some_and(|r| r.role == Role::Response) as u64;
            dropped += o.stat_dropped as u64;
        }
        assert!(reasons.iter().all(|&n| n > 0), "{lanes}: {reasons:?}");
        assert!(req > 100 && resp > 100 && dropped > 0, "{lanes}: {req} {resp} {dropped}");
    }
    // The corpus's frames, parsed by the reference, give every reason too.
    let mut counts = ParseCounts::default();
    let mut c = Corpus::new(5);
    for _ in 0..20_000 {
        let f = c.next_frame();
        counts.count(parse_frame(0, &f.bytes, f.bad)).ok();
    }
    assert!(counts.unparsed.iter().all(|&n| n > 0) && counts.records > 15_000, "{}", counts.summary());
}
