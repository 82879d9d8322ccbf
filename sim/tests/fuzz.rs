//! Mutation fuzzing of everything that reads outside input, on stable Rust
//! with proptest: a corpus of valid inputs (built from the models with fixed
//! seeds, so it is the same on every run) is mutated (bit flips, byte sets,
//! insertions, deletions, truncation, splices of two inputs) and fed to
//!
//! - the pcap reader (`parse_pcap`, `pcap_bandwidth`, `pcap_pairs`),
//! - the config loader (`load_config` and `validate` of every core's config,
//!   then the golden model on a few packets for a config it accepts),
//! - the synopsis loaders and estimators (LDA `estimate`, RDA `reconcile`),
//! - the UART frame decoder (the register bridge's per-clock model).
//!
//! None may panic or allocate without bound, and what each accepts must hold
//! its invariants (times below 2^48 ns; a bus strobe only for a frame whose
//! CRC is good). Each target runs a bounded number of cases
//! (`NETMEAS_FUZZ_CASES`, default below) and prints its executions per
//! second; a failure is shrunk and kept in `fuzz.proptest-regressions`.

use netmeas_sim::board::link::{
    BridgeConfig, BridgeCycle, BridgeInputs, LINK_RESPONSE_BYTES, LinkRequest, decode_response,
};
use netmeas_sim::dbm::pcap_bandwidth;
use netmeas_sim::error::load_config;
use netmeas_sim::fridge::{Exchange, pcap_pairs, write_exchange_pcap};
use netmeas_sim::lda::{LdaConfig, LdaSynopsis, golden_pair};
use netmeas_sim::prng::SplitMix64;
use netmeas_sim::rda::{IntervalTrace, RdaConfig, RdaHashes, RdaSynopsis, RdaTrafficSpec, reconcile};
use netmeas_sim::traffic::{
    CaptureFormat, CaptureReader, DelayDist, LossModel, PcapPacket, Source, Trace, TrafficSpec, pack_key, parse_pcap,
    write_pcap, write_pcap_as,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use std::time::Instant;

/// One edit of an input.
#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
    /// The tail of corpus entry `.0` from `.1` on, after this input's first `.2` bytes.
    Splice(usize, usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
        3 => (any::<usize>(), prop_oneof![Just(0u8), Just(0xff), Just(0x7f), Just(0x80), any::<u8>()])
            .prop_map(|(p, v)| Mutation::Set(p, v)),
        2 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16)).prop_map(|(p, v)| Mutation::Insert(p, v)),
        2 => (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Delete(p, n)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<usize>(), any::<usize>()).prop_map(|(k, a, b)| Mutation::Splice(k, a, b)),
    ]
}

fn apply(corpus: &[Vec<u8>], seed: &[u8], edits: &[Mutation]) -> Vec<u8> {
    let mut d = seed.to_vec();
    for m in edits {
        let at = |p: usize, len: usize| if len == 0 { 0 } else { p % len };
        match m {
            Mutation::Flip(p, b) if !d.is_empty() => {
                let i = at(*p, d.len());
                d[i] ^= 1 << b;
            }
            Mutation::Set(p, v) if !d.is_empty() => {
                let i = at(*p, d.len());
                d[i] = *v;
            }
            Mutation::Insert(p, v) => {
                let i = at(*p, d.len() + 1);
                d.splice(i..i, v.iter().copied());
            }
            Mutation::Delete(p, n) if !d.is_empty() => {
                let i = at(*p, d.len());
                d.drain(i..(i + n).min(d.len()));
            }
            Mutation::Truncate(n) => d.truncate(at(*n, d.len() + 1)),
            Mutation::Splice(k, a, b) => {
                let other = &corpus[k % corpus.len()];
                let (a, b) = (at(*a, other.len() + 1), at(*b, d.len() + 1));
                d.truncate(b);
                d.extend_from_slice(&other[a..]);
            }
            _ => {}
        }
    }
    d
}

/// Runs `target` on mutated corpus entries; prints executions per second.
fn fuzz(name: &str, default_cases: u32, corpus: &[Vec<u8>], target: impl Fn(&[u8]) -> Result<bool, TestCaseError>) {
    let cases = std::env::var("NETMEAS_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default_cases);
    let config = Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/fuzz.proptest-regressions"))),
        rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &[0x4e; 32]),
    );
    let strategy = (0..corpus.len(), prop::collection::vec(mutation(), 0..8));
    let start = Instant::now();
    let (runs, accepted) = (std::cell::Cell::new(0u64), std::cell::Cell::new(0u64));
    let r = runner.run(&strategy, |(k, edits)| {
        runs.set(runs.get() + 1);
        accepted.set(accepted.get() + target(&apply(corpus, &corpus[k], &edits))? as u64);
        Ok(())
    });
    let s = start.elapsed().as_secs_f64();
    let (runs, accepted) = (runs.get(), accepted.get());
    eprintln!(
        "fuzz {name}: {runs} executions in {s:.2} s ({:.0} per second), {accepted} inputs got past the parser",
        runs as f64 / s
    );
    if let Err(e) = r {
        panic!("fuzz {name}: {e}");
    }
}

fn lda_trace(packets: u64, loss: f64, seed: u64) -> Trace {
    Trace::build(&TrafficSpec {
        source: Source::Synthetic { packets, rate_pps: 5e6, flows: 100 },
        delay: DelayDist::PAPER_WEIBULL,
        loss_rate: loss,
        loss_model: LossModel::Uniform,
        seed,
    })
    .unwrap()
}

#[test]
fn pcap_reader() {
    let mut rng = SplitMix64::new(7);
    let packets: Vec<PcapPacket> = (0..40u64)
        .map(|i| PcapPacket {
            ts_ns: 1_700_000_000_000_000_000 + i * 1000 + rng.below(900),
            key: pack_key(rng.next_u64() as u32, 0xc0a8_0101, 1000 + i as u16, 53, 17, i as u16),
        })
        .collect();
    let exchanges: Vec<Exchange> = (0..12u64)
        .map(|i| Exchange {
            t_ns: 1_000 + i * 5_000,
            client: 0x0a00_0001 + i as u32,
            server: 0x0a00_00fe,
            client_port: 40_000 + i as u16,
            tag: 0x1000 + i as u32,
            dns: i % 3 == 0,
            answer_after_ns: (i % 4 != 1).then_some(300 + 97 * i),
        })
        .collect();
    let corpus = vec![
        write_pcap(&packets),
        write_exchange_pcap(&exchanges),
        write_pcap(&packets[..3]),
        write_pcap_as(&packets, CaptureFormat::PcapNgNanos),
        write_pcap_as(&packets[..5], CaptureFormat::PcapNgMicros),
    ];
    for c in &corpus {
        parse_pcap(c).unwrap();
    }
    fuzz("pcap", 1_000_000, &corpus, |d| {
        let mut accepted = false;
        if let Ok(t) = parse_pcap(d) {
            accepted = true;
            let t0 = t.packets.first().map_or(0, |p| p.ts_ns);
            prop_assert!(t.packets.iter().all(|p| p.ts_ns.abs_diff(t0) < 1 << 48));
        }
        if let Ok((b, _)) = CaptureReader::from_bytes(d).and_then(pcap_bandwidth) {
            prop_assert!(b.windows(2).all(|w| w[0].ts <= w[1].ts) && b.iter().all(|p| p.ts < 1 << 48));
            prop_assert!(b.iter().all(|p| p.len as usize <= 1 << 18));
        }
        if let Ok(f) = CaptureReader::from_bytes(d).and_then(pcap_pairs) {
            prop_assert!(f.packets.iter().all(|p| p.ts < 1 << 48));
        }
        Ok(accepted)
    });
}

#[test]
fn config_loader() {
    use netmeas_sim::counter_bank::CounterBankConfig;
    use netmeas_sim::dbm::{DbmConfig, ExpbConfig};
    use netmeas_sim::fridge::FridgeConfig;
    use netmeas_sim::h3::H3Config;
    use netmeas_sim::svbf::SvbfConfig;
    let corpus: Vec<Vec<u8>> = [
        toml::to_string(&LdaConfig::default()),
        toml::to_string(&RdaConfig::default()),
        toml::to_string(&FridgeConfig::default()),
        toml::to_string(&DbmConfig::default()),
        toml::to_string(&ExpbConfig::default()),
        toml::to_string(&SvbfConfig::default()),
        toml::to_string(&CounterBankConfig::default()),
        toml::to_string(&H3Config::default()),
    ]
    .into_iter()
    .map(|t| t.unwrap().into_bytes())
    .collect();
    let dir = std::env::temp_dir().join(format!("netmeas-fuzz-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c.toml");
    let trace = lda_trace(64, 0.1, 3);
    fuzz("config", 20_000, &corpus, |d| {
        std::fs::write(&path, d).unwrap();
        // Each loader either refuses (naming the file or a field) or gives a config that validates or is refused.
        let mut valid = 0;
        if let Ok(c) = load_config::<LdaConfig>(&path)
            && c.validate().is_ok()
        {
            valid += 1;
            let pair = golden_pair(&c, &trace);
            prop_assert_eq!(pair.sender.rows.len(), c.total_rows());
        }
        if let Ok(c) = load_config::<RdaConfig>(&path) {
            valid += c.validate().is_ok() as u32;
        }
        if let Ok(c) = load_config::<FridgeConfig>(&path)
            && c.validate().is_ok()
        {
            valid += 1;
            prop_assert!(c.entry_prob_log2.iter().all(|p| p.is_finite() && *p <= 0.0));
        }
        if let Ok(c) = load_config::<DbmConfig>(&path)
            && c.validate().is_ok()
        {
            valid += 1;
            prop_assert!(c.period_ticks > 0 && c.period_ticks < 1 << 48);
        }
        if let Ok(c) = load_config::<ExpbConfig>(&path)
            && c.validate().is_ok()
        {
            valid += 1;
            prop_assert!(c.scale_ticks(c.scales - 1) < 1 << 48);
            prop_assert!(c.period_ticks.is_multiple_of(c.scale_ticks(c.scales - 1)));
        }
        if let Ok(c) = load_config::<SvbfConfig>(&path) {
            valid += c.validate().is_ok() as u32;
        }
        if let Ok(c) = load_config::<CounterBankConfig>(&path) {
            valid += c.validate().is_ok() as u32;
        }
        if let Ok(c) = load_config::<H3Config>(&path) {
            valid += c.validate().is_ok() as u32;
        }
        Ok(valid > 0)
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// The sender and receiver JSON of one pair, joined by a NUL byte (a mutation
/// may move, break or duplicate the separator: both halves are then whatever
/// is on either side of the first one).
fn pair_entry(a: &impl serde::Serialize, b: &impl serde::Serialize) -> Vec<u8> {
    let mut v = serde_json::to_vec(a).unwrap();
    v.push(0);
    v.extend(serde_json::to_vec(b).unwrap());
    v
}

/// Both halves of a [`pair_entry`], when both still parse as `T`.
fn pair<T: serde::de::DeserializeOwned>(d: &[u8]) -> Option<(T, T)> {
    let (a, b) = match d.iter().position(|&b| b == 0) {
        Some(i) => (&d[..i], &d[i + 1..]),
        None => (d, &[][..]),
    };
    Some((serde_json::from_slice(a).ok()?, serde_json::from_slice(b).ok()?))
}

#[test]
fn lda_synopsis_loader() {
    let small = LdaConfig { banks: 1, rows: 64, bank_prob_log2: vec![0], ..Default::default() };
    let corpus: Vec<Vec<u8>> = [(small.clone(), 0.0, 1), (small, 0.05, 2), (LdaConfig::default(), 0.01, 3)]
        .into_iter()
        .map(|(c, loss, seed)| {
            let p = golden_pair(&c, &lda_trace(300, loss, seed));
            pair_entry(&p.sender, &p.receiver)
        })
        .collect();
    fuzz("lda synopsis", 200_000, &corpus, |d| {
        let Some((a, b)) =
            pair::<LdaSynopsis>(d).filter(|(a, b)| a.config.validate().is_ok() && b.config.validate().is_ok())
        else {
            return Ok(false);
        };
        if let Ok(e) = netmeas_sim::lda::estimate(&a, &b) {
            prop_assert!(e.received <= e.sent && e.samples <= a.sampled);
            prop_assert!(e.mean.is_nan() || e.mean.abs() < (1u64 << 39) as f64);
        }
        Ok(true)
    });
}

#[test]
fn rda_synopsis_loader() {
    let cfg = RdaConfig { buckets: 64, banks: 2, ..Default::default() };
    let spec = |seed| RdaTrafficSpec {
        base: TrafficSpec {
            source: Source::Synthetic { packets: 200, rate_pps: 5e6, flows: 50 },
            delay: DelayDist::PAPER_WEIBULL,
            loss_rate: 0.02,
            loss_model: LossModel::Uniform,
            seed,
        },
        reorder_rate: 0.01,
        window_ns: 1_000,
    };
    let corpus: Vec<Vec<u8>> = (1..4)
        .map(|seed| {
            let iv = IntervalTrace::build(&spec(seed)).unwrap();
            let p = netmeas_sim::rda::golden_pair(&iv.core_config(&cfg), &iv);
            pair_entry(&p.sender, &p.receiver)
        })
        .collect();
    let hashes = RdaHashes::new(&cfg);
    fuzz("rda synopsis", 200_000, &corpus, |d| {
        let Some((a, b)) =
            pair::<RdaSynopsis>(d).filter(|(a, b)| a.config.validate().is_ok() && b.config.validate().is_ok())
        else {
            return Ok(false);
        };
        let other;
        let h = if (a.config.banks, a.config.buckets, a.config.seed) == (cfg.banks, cfg.buckets, cfg.seed) {
            &hashes
        } else {
            other = RdaHashes::new(&a.config);
            &other
        };
        if let Ok(e) = reconcile(&a, &b, h, None) {
            prop_assert!(e.usable_buckets <= a.buckets.len());
        }
        Ok(true)
    });
}

#[test]
fn uart_frame_decoder() {
    let mut rng = SplitMix64::new(11);
    let corpus: Vec<Vec<u8>> = (0..6)
        .map(|_| {
            (0..4)
                .flat_map(|_| {
                    let a = rng.below(64) as u16;
                    if rng.chance(1, 2) { LinkRequest::Read(a) } else { LinkRequest::Write(a, rng.next_u64() as u32) }
                        .encode()
                })
                .collect()
        })
        .collect();
    let cfg = BridgeConfig { timeout_clocks: 64 };
    fuzz("uart frames", 300_000, &corpus, |d| {
        // Every CRC-good request frame the stream holds, at any offset.
        let good: Vec<LinkRequest> = (0..d.len())
            .flat_map(|i| {
                [LinkRequest::Read(0), LinkRequest::Write(0, 0)].into_iter().filter_map(move |kind| {
                    let n = kind.encode().len();
                    let f = d.get(i..i + n)?;
                    let (addr, data) = (
                        u16::from_be_bytes([f[2], f[3]]),
                        f.get(4..8).map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]])),
                    );
                    let req = match kind {
                        LinkRequest::Read(_) => LinkRequest::Read(addr),
                        LinkRequest::Write(..) => LinkRequest::Write(addr, data.unwrap_or(0)),
                    };
                    (req.encode() == f).then_some(req)
                })
            })
            .collect();
        let mut bridge = BridgeCycle::new(&cfg).unwrap();
        let (mut i, mut clocks) = (0, 0);
        while clocks < 64 * (d.len() as u64 + 4) + 1000 {
            let rx_valid = i < d.len();
            let o = bridge.step(&BridgeInputs {
                reset: false,
                rx_valid,
                rx_data: d.get(i).copied().unwrap_or(0),
                tx_ready: true,
                bus_ack: true,
                bus_rdata: 0x5a5a_5a5a,
            });
            if rx_valid && o.rx_ready {
                i += 1;
            }
            if o.bus_we {
                prop_assert!(
                    good.contains(&LinkRequest::Write(o.bus_addr, o.bus_wdata)),
                    "write {:?}",
                    (o.bus_addr, o.bus_wdata)
                );
            }
            if o.bus_re {
                prop_assert!(good.contains(&LinkRequest::Read(o.bus_addr)), "read {}", o.bus_addr);
            }
            clocks += 1;
        }
        // The host's response check takes any bytes.
        for w in d.windows(LINK_RESPONSE_BYTES) {
            let _ = decode_response(w);
        }
        Ok(!good.is_empty())
    });
}
