//! A segment measured in band (LDA §III, §V): two inline LDA points, a
//! sender and a receiver, joined by a link that delays and loses data
//! frames, loses one control frame and corrupts another
//! (`netmeas_hdl::point::segment`, Verilator). Each point's epochs are the
//! golden model's of exactly the frames between two control frames, its
//! pair status says which receiver epochs pair with one sender epoch, and
//! the delay the pairs give is the delay the link added.

use super::corpus_frames;
use netmeas_hdl::point::bus::Bus;
use netmeas_hdl::point::cosim::MacFrame;
use netmeas_hdl::point::segment::{Fate, SegmentEpoch, SegmentLink, SegmentSim};
use netmeas_hdl::point::sim::Simulator;
use netmeas_hdl::point::top::{PointDesign, tdata_field, wrap_with};
use netmeas_sim::frame::control::{ControlAddress, ControlFrame, ControlKind};
use netmeas_sim::frame::{FrameRecord, parse_frame};
use netmeas_sim::lda::{LdaConfig, LdaGolden, LdaPacket, LdaSynopsis, estimate};
use netmeas_sim::prng::SplitMix64;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("segment").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The golden LDA synopsis of `records` as epoch `seq`.
fn golden(cfg: &LdaConfig, seq: u32, records: &[FrameRecord]) -> LdaSynopsis {
    let mut g = LdaGolden::new(cfg);
    for rec in records {
        g.packet(&LdaPacket { key: rec.key, ts: rec.ts_ns & ((1 << 40) - 1), class: rec.class });
    }
    LdaSynopsis { seq, ..g.end_epoch() }
}

/// One epoch as a point read it out: a status word by name, the rows.
struct Epoch<'a> {
    design: &'a PointDesign,
    e: &'a SegmentEpoch,
}

impl Epoch<'_> {
    fn reg(&self, name: &str) -> u64 {
        u64::from(self.e.status[self.design.status_index(name).unwrap_or_else(|| panic!("no status word {name}"))])
    }

    fn reg64(&self, name: &str) -> u64 {
        self.reg(&format!("{name}_LO")) | self.reg(&format!("{name}_HI")) << 32
    }

    /// The read-out's rows, by address.
    fn rows(&self) -> Vec<(u64, u64)> {
        let field = |beat: &[u8], name: &str| {
            let (lsb, bits) = tdata_field(&self.design.readout, name).unwrap_or_else(|| panic!("no field {name}"));
            (0..bits).fold(0u64, |v, i| {
                let b = lsb + i;
                v | u64::from(beat[(b / 8) as usize] >> (b % 8) & 1) << i
            })
        };
        let mut rows = vec![None; self.e.readout.len()];
        for beat in &self.e.readout {
            let addr = field(beat, "m_ro_addr") as usize;
            assert!(addr < rows.len() && rows[addr].is_none(), "row {addr} read out twice or out of range");
            rows[addr] = Some((field(beat, "m_ro_count"), field(beat, "m_ro_tsum")));
        }
        rows.into_iter().map(|r| r.expect("every row once")).collect()
    }
}

/// CTRL_STATUS bits (docs/cores/point.md, *In-band epoch control*).
const USABLE: u64 = 1;
const FIRST: u64 = 2;
const GAP: u64 = 4;
const CORRUPT: u64 = 8;

#[test]
fn two_inline_lda_points_measure_their_segment_in_band_through_lost_and_corrupted_control_frames() {
    let cfg = LdaConfig::default();
    let design = wrap_with(&netmeas_hdl::export::BlockConfig::new(cfg.clone()), 64, Bus::Axil, true)
        .unwrap_or_else(|e| panic!("{e}"))
        .0;
    let segment = 0x2a7u16;
    let mut frames = corpus_frames(23, 1000);
    // Two forged control frames come from MAC A with the data: one of
    // another segment (in epoch 1), one replaying epoch 0's boundary (in
    // epoch 5). Each point ignores and counts them; they are frames the
    // sender passed.
    let forged = [(200usize, segment + 1, 3u32), (780, segment, 0)];
    for &(at, seg, seq) in &forged {
        let c = ControlFrame { kind: ControlKind::Boundary, segment: seg, seq, packets: 150, time_ns: 0 };
        let ts_ns = frames[at - 1].ts_ns + 1;
        frames.insert(at, MacFrame { ts_ns, bytes: c.encode(&ControlAddress::default()), bad: false, delay: 0 });
    }
    let is_forged = |i: usize| forged.iter().any(|&(at, _, _)| at == i);
    let every = 150usize;
    let n = frames.len();
    assert!(n % every != 0, "the last epoch, ended by the host, holds frames");
    let epochs = n.div_ceil(every);

    // The link: the sender's order is `every` data frames and a control
    // frame, the last after the rest. Data frames delayed 1..6 µs, 3 % lost;
    // the control frame of epoch 2 lost, that of epoch 4 corrupted.
    let (lost_ctrl, corrupt_ctrl) = (2usize, 4usize);
    let offset_ns = 250_000u64;
    let mut rng = SplitMix64::new(0x5e9);
    let mut order = Vec::new(); // Some(frame index) or None (a control frame)
    let mut link = Vec::new();
    for (i, _) in frames.iter().enumerate() {
        order.push(Some(i));
        let lost = rng.below(100) < 3;
        link.push((if lost { Fate::Lost } else { Fate::Delivered }, 1000 + rng.below(5000) as u32));
        if (i + 1) % every == 0 || i + 1 == n {
            let k = i / every;
            order.push(None);
            let fate = match k {
                _ if k == lost_ctrl => Fate::Lost,
                _ if k == corrupt_ctrl => Fate::Corrupted,
                _ => Fate::Delivered,
            };
            link.push((fate, 0));
        }
    }
    let link = SegmentLink { every: every as u32, segment, offset_ns, frames: link, epochs: epochs as u32 };

    let sim = SegmentSim::new(Simulator::Verilator, &scratch("lda"), &design).unwrap_or_else(|e| panic!("{e}"));
    let run = sim.run(&design, &frames, &link, 5).unwrap_or_else(|e| panic!("{e}"));
    // The control frames went exactly where the epochs end.
    let control_on_wire: Vec<bool> = order.iter().map(|o| o.is_none_or(is_forged)).collect();
    assert_eq!(run.wire, control_on_wire, "the frames on the link");

    // The sender: epoch k is the golden model of frames [k·every, (k+1)·every), stamped as sent.
    let sent: Vec<(usize, Option<FrameRecord>)> =
        frames.iter().enumerate().map(|(i, f)| (i, parse_frame(f.ts_ns, &f.bytes, f.bad).ok())).collect();
    assert_eq!(run.epochs[0].len(), epochs);
    let mut sender = Vec::new();
    for (k, e) in run.epochs[0].iter().enumerate() {
        let e = Epoch { design: &design, e };
        let records: Vec<FrameRecord> =
            sent.iter().filter(|(i, _)| i / every == k).filter_map(|(_, r)| r.clone()).collect();
        let want = golden(&cfg, k as u32, &records);
        assert_eq!(e.reg("CTRL_SEQ"), k as u64, "sender epoch {k}");
        assert_eq!(e.reg("CTRL_STATUS"), if k == 0 { FIRST } else { USABLE }, "sender epoch {k}");
        let frames_in = sent.iter().filter(|(i, _)| i / every == k).count() as u64;
        assert_eq!(e.reg64("CTRL_PEER_PACKETS"), frames_in, "sender epoch {k}: its own control frame");
        assert_eq!(e.reg64("FROZEN_PACKETS"), want.packets, "sender epoch {k}");
        assert_eq!(e.rows(), want.rows, "sender epoch {k}: the rows differ from the golden model's");
        sender.push(want);
    }

    // The receiver: an epoch ends at each control frame it takes; what it
    // holds is the golden model of the data frames delivered since the last
    // one taken, stamped send time + delay + offset.
    let mut receiver_want: Vec<(u32, u64, Vec<FrameRecord>)> = Vec::new(); // (seq, status, records)
    let mut pending = Vec::new();
    let mut corrupt_seen = false;
    let mut last_taken: Option<usize> = None;
    for (slot, what) in order.iter().enumerate() {
        let (fate, delay) = link.frames[slot];
        match what {
            Some(i) if fate == Fate::Delivered => {
                let f = &frames[*i];
                if let Ok(r) = parse_frame(f.ts_ns + u64::from(delay) + offset_ns, &f.bytes, f.bad) {
                    pending.push(r);
                }
            }
            Some(_) => {}
            None => {
                let k = order[..slot].iter().filter(|o| o.is_none()).count();
                match fate {
                    Fate::Lost => {}
                    Fate::Corrupted => corrupt_seen = true,
                    Fate::Delivered => {
                        let mut status = 0;
                        match last_taken {
                            None => status |= FIRST,
                            Some(l) if k != l + 1 => status |= GAP,
                            _ => {}
                        }
                        if corrupt_seen {
                            status |= CORRUPT;
                        }
                        if status == 0 {
                            status = USABLE;
                        }
                        receiver_want.push((k as u32, status, std::mem::take(&mut pending)));
                        last_taken = Some(k);
                        corrupt_seen = false;
                    }
                }
            }
        }
    }
    assert_eq!(run.epochs[1].len(), receiver_want.len(), "the receiver's epochs");
    let mut pairs = 0;
    for (e, (seq, status, records)) in run.epochs[1].iter().zip(&receiver_want) {
        let e = Epoch { design: &design, e };
        let want = golden(&cfg, *seq, records);
        assert_eq!(e.reg("CTRL_SEQ"), u64::from(*seq), "receiver epoch");
        assert_eq!(e.reg("CTRL_STATUS"), *status, "receiver epoch {seq}");
        let peer = sent.iter().filter(|(i, _)| i / every == *seq as usize).count() as u64;
        assert_eq!(e.reg64("CTRL_PEER_PACKETS"), peer, "receiver epoch {seq}: the sender's count");
        assert_eq!(e.reg64("FROZEN_PACKETS"), want.packets, "receiver epoch {seq}");
        assert_eq!(e.rows(), want.rows, "receiver epoch {seq}: the rows differ from the golden model's");
        if *status == USABLE {
            // A usable pair: the LDA's mean delay is the mean the link added
            // to the sampled packets of the rows whose counts agree; with no
            // data frame lost in the epoch, every sampled packet's.
            let a = &sender[*seq as usize];
            let est = estimate(a, &want).unwrap_or_else(|err| panic!("epoch {seq}: {err}"));
            let lo = offset_ns as f64 + 1000.0;
            let hi = offset_ns as f64 + 6000.0;
            assert!(est.samples > 0 && est.mean >= lo && est.mean < hi, "epoch {seq}: {est:?}");
            assert_eq!(est.sent, a.packets);
            assert_eq!(est.received, want.packets);
            pairs += 1;
        }
    }
    assert_eq!(pairs, 2, "epochs 1 and 6 pair (0 is the first, 3 and 5 follow a lost control frame)");
    // The receiver's counters: one control frame refused for its CRC, two
    // boundaries missed; at both ends, the forged frames counted and ignored.
    let last = Epoch { design: &design, e: run.epochs[1].last().unwrap() };
    assert_eq!(last.reg("CONTROL_REFUSED_CRC"), 1);
    assert_eq!(last.reg("CTRL_GAPS"), 2);
    assert_eq!(last.reg("CTRL_BOUNDARIES"), receiver_want.len() as u64);
    let sender_last = Epoch { design: &design, e: run.epochs[0].last().unwrap() };
    for (end, e) in [("sender", &sender_last), ("receiver", &last)] {
        assert_eq!((e.reg("CTRL_FOREIGN"), e.reg("CTRL_REPLAYED")), (1, 1), "{end}");
    }
    assert_eq!(sender_last.reg("CTRL_GAPS"), 0);
}
