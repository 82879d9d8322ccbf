use netmeas_hdl::board::link_top::*;
use netmeas_sim::board::link::LinkConfig;
use netmeas_sim::board::link::{BridgeConfig, LinkCycle, LinkInputs, LinkOutputs, LinkRequest};
use netmeas_sim::board::uart::{UartConfig, UartTxCycle, UartTxInputs};
use netmeas_sim::prng::SplitMix64;
use rust_hdl::prelude::*;

fn step(uut: &mut LinkTop, i: &LinkInputs) -> LinkOutputs {
    uut.reset.next = i.reset;
    uut.rx.next = i.rx;
    uut.bus_ack.next = i.bus_ack;
    uut.bus_rdata.next = (i.bus_rdata as u64).into();
    uut.clock.next = Clock { clk: false };
    assert!(simulate(uut, 100));
    let o = LinkOutputs {
        tx: uut.tx.val(),
        bus_re: uut.bus_re.val(),
        bus_we: uut.bus_we.val(),
        bus_addr: uut.bus_addr.val().to_u64() as u16,
        bus_wdata: uut.bus_wdata.val().to_u64() as u32,
        frame_errors: uut.frame_errors.val().to_u64() as u16,
        overruns: uut.overruns.val().to_u64() as u16,
        crc_errors: uut.crc_errors.val().to_u64() as u16,
        truncated: uut.truncated.val().to_u64() as u16,
    };
    uut.clock.next = Clock { clk: true };
    assert!(simulate(uut, 100));
    o
}

#[test]
fn rust_hdl_simulation_equals_the_per_clock_model() {
    let cfg = LinkConfig {
        uart: UartConfig { clock_hz: 4_000_000, baud: 1_000_000 },
        bridge: BridgeConfig { timeout_clocks: 500 },
    };
    let mut uut = LinkTop::new(&cfg);
    uut.connect_all();
    let mut gold = LinkCycle::new(&cfg).unwrap();
    let mut host = UartTxCycle::new(&cfg.uart).unwrap();
    let mut rng = SplitMix64::new(4);
    let (mut bytes, mut k) = (Vec::new(), 0);
    let (mut ack_in, mut accesses, mut tx_bytes) = (None::<u64>, 0, 0);
    let mut last_tx = true;
    for cycle in 0..100_000 {
        if k == bytes.len() {
            bytes = if rng.chance(1, 2) {
                LinkRequest::Read(rng.below(4) as u16).encode()
            } else {
                LinkRequest::Write(rng.below(4) as u16, rng.next_u64() as u32).encode()
            };
            if rng.chance(1, 10) {
                let j = rng.below(bytes.len() as u64) as usize;
                bytes[j] ^= 1 << rng.below(8);
            }
            k = 0;
        }
        let t = host.step(&UartTxInputs { reset: false, valid: true, data: bytes[k] });
        if t.ready {
            k += 1;
        }
        let ack = ack_in == Some(0);
        let i = LinkInputs { reset: rng.chance(1, 30_000), rx: t.tx, bus_ack: ack, bus_rdata: rng.next_u64() as u32 };
        let want = gold.step(&i);
        assert_eq!(step(&mut uut, &i), want, "cycle {cycle}");
        ack_in = ack_in.and_then(|c| c.checked_sub(1));
        if want.bus_re || want.bus_we {
            accesses += 1;
            ack_in = Some(1 + rng.below(4));
        }
        tx_bytes += (last_tx && !want.tx) as u32;
        last_tx = want.tx;
    }
    // Requests come back to back, so many land while a response is sent (overruns).
    assert!(accesses > 50 && tx_bytes > 500, "{accesses} accesses, {tx_bytes} bytes sent");
}

#[test]
fn link_top_is_synthesizable() {
    netmeas_hdl::export::lint_block(LinkTop::new(&LinkConfig::default()), "link_top").unwrap();
}
