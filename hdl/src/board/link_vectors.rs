//! The host link's shipped-testbench vectors (`docs/board.md`, host link):
//! a host transmitter (the golden UART) sends register reads and writes,
//! one in eight with a flipped bit (CRC errors), one in eight cut short
//! and followed by a pause past the bridge's timeout where the run has room
//! for it (truncated frames: with a timeout of 20 000 clocks,
//! `configs/link-timeout-20k.toml`; the default's 10^6 clocks do not fit, so
//! its requests all go whole); the bus acknowledges 1-4 clocks after a strobe, one strobe in 40 never; two
//! resets. Answered by the golden per-clock model [`LinkCycle`] (UART
//! receiver, register bridge, UART transmitter).

use crate::shipped_testbench::{Tally, VectorCycle, Vectors, reset_at};
use netmeas_sim::board::link::{LinkConfig, LinkCycle, LinkInputs, stimulus_request};
use netmeas_sim::board::uart::{UartTxCycle, UartTxInputs};
use netmeas_sim::prng::SplitMix64;

/// The vectors of `cfg` (by default about 25 requests' worth of clocks).
pub fn link_vectors(cfg: &LinkConfig, seed: u64, cycles: Option<usize>) -> Result<Vectors, String> {
    let divisor = cfg.uart.divisor() as usize;
    let n = cycles.unwrap_or(4800 * divisor);
    let mut golden = LinkCycle::new(cfg).map_err(|e| e.to_string())?;
    let mut host = UartTxCycle::new(&cfg.uart).map_err(|e| e.to_string())?;
    let mut rng = SplitMix64::new(seed);
    let (mut tally, mut cycles) = (Tally::default(), Vec::with_capacity(n));
    let (mut bytes, mut sent, mut pause, mut ack_in) = (Vec::<u8>::new(), 0usize, 0u64, None::<u64>);
    let mut requests = 0u64;
    let (mut last_tx, mut last_crc, mut last_trunc) = (true, 0u16, 0u16);
    for k in 0..n {
        let reset = reset_at(k, n);
        if sent == bytes.len() && pause == 0 {
            // Every eighth request from the third on flipped, every eighth from the sixth on cut
            // short if the bridge's timeout ends within the run (a frame is at most 10 bytes).
            requests += 1;
            let room = (n - k) as u64 > cfg.bridge.timeout_clocks + 200 + 100 * divisor as u64;
            (bytes, pause) = stimulus_request(&mut rng, cfg, requests % 8 == 3, requests % 8 == 6 && room);
            sent = 0;
        }
        let offer = sent < bytes.len();
        let t = host.step(&UartTxInputs { reset: false, valid: offer, data: bytes.get(sent).copied().unwrap_or(0) });
        if offer && t.ready {
            sent += 1;
        } else if !offer {
            pause = pause.saturating_sub(1);
        }
        let i = LinkInputs { reset, rx: t.tx, bus_ack: ack_in == Some(0), bus_rdata: rng.next_u64() as u32 };
        let o = golden.step(&i);
        ack_in = ack_in.and_then(|c| c.checked_sub(1));
        if o.bus_re || o.bus_we {
            ack_in = if rng.chance(1, 40) { None } else { Some(rng.below(4)) };
        }
        tally.count("resets", i.reset);
        tally.count("register reads", o.bus_re);
        tally.count("register writes", o.bus_we);
        tally.count("response bytes", last_tx && !o.tx);
        tally.count("CRC errors", o.crc_errors > last_crc);
        tally.count("truncated frames", o.truncated > last_trunc);
        (last_tx, last_crc, last_trunc) = (o.tx, o.crc_errors, o.truncated);
        let mut c = VectorCycle::default();
        c.input("reset", i.reset).input("rx", i.rx).input("bus_ack", i.bus_ack).input("bus_rdata", i.bus_rdata);
        c.output("tx", o.tx)
            .output("bus_re", o.bus_re)
            .output("bus_we", o.bus_we)
            .output("bus_addr", o.bus_addr)
            .output("bus_wdata", o.bus_wdata)
            .output("frame_errors", o.frame_errors)
            .output("overruns", o.overruns)
            .output("crc_errors", o.crc_errors)
            .output("truncated", o.truncated);
        cycles.push(c);
    }
    Ok(tally.into_vectors(cycles))
}
