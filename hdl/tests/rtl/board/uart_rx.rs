use netmeas_hdl::board::uart_rx::*;
use netmeas_sim::board::uart::UartConfig;
use netmeas_sim::board::uart::{UartRxCycle, UartRxInputs, UartRxOutputs, UartTxCycle, UartTxInputs};
use netmeas_sim::prng::SplitMix64;
use rust_hdl::prelude::*;

fn step(uut: &mut UartRx, i: &UartRxInputs) -> UartRxOutputs {
    uut.reset.next = i.reset;
    uut.rx.next = i.rx;
    uut.m_ready.next = i.ready;
    uut.clock.next = Clock { clk: false };
    assert!(simulate(uut, 100));
    let o = UartRxOutputs {
        valid: uut.m_valid.val(),
        data: uut.m_data.val().to_u64() as u8,
        frame_errors: uut.frame_errors.val().to_u64() as u16,
        overruns: uut.overruns.val().to_u64() as u16,
    };
    uut.clock.next = Clock { clk: true };
    assert!(simulate(uut, 100));
    o
}

#[test]
fn rust_hdl_simulation_equals_the_per_clock_model() {
    let mut rng = SplitMix64::new(13);
    let (mut bytes, mut frame_errors, mut overruns) = (0, 0, 0);
    for divisor in [4u64, 5, 17] {
        let cfg = UartConfig { clock_hz: divisor * 1_000_000, baud: 1_000_000 };
        let mut uut = UartRx::new(&cfg);
        uut.connect_all();
        let mut gold = UartRxCycle::new(&cfg).unwrap();
        // The line: a transmitter's bytes, sometimes flipped for a few
        // clocks (glitches, broken stop bits) or held low (a break); the
        // consumer now and then stops for up to 30 frames (overruns).
        let mut tx = UartTxCycle::new(&cfg).unwrap();
        let (mut flip, mut low, mut stall) = (0u64, 0u64, 0u64);
        for cycle in 0..30_000 {
            let t = tx.step(&UartTxInputs { reset: false, valid: rng.chance(7, 8), data: rng.next_u64() as u8 });
            if flip == 0 && rng.chance(1, 300) {
                flip = 1 + rng.below(divisor);
            }
            if low == 0 && rng.chance(1, 5000) {
                low = 1 + rng.below(30 * divisor);
            }
            if stall == 0 && rng.chance(1, 3000) {
                stall = rng.below(300 * divisor);
            }
            let line = (t.tx ^ (flip > 0)) && low == 0;
            // In the second half the consumer takes a byte one clock in every
            // 10 bit times + 1, so now and then exactly when the next byte completes.
            let ready = if cycle >= 15_000 { cycle % (10 * divisor + 1) == 0 } else { stall == 0 && rng.chance(1, 2) };
            (flip, low, stall) = (flip.saturating_sub(1), low.saturating_sub(1), stall.saturating_sub(1));
            let i = UartRxInputs { reset: rng.chance(1, 10_000), rx: line, ready };
            let want = gold.step(&i);
            assert_eq!(step(&mut uut, &i), want, "divisor {divisor}, cycle {cycle}");
            bytes += (want.valid && i.ready && !i.reset) as u32;
            (frame_errors, overruns) = (frame_errors.max(want.frame_errors), overruns.max(want.overruns));
        }
    }
    assert!(
        bytes > 1000 && frame_errors > 3 && overruns > 3,
        "{bytes} bytes, {frame_errors} framing errors, {overruns} overruns"
    );
}

#[test]
fn receiver_is_synthesizable() {
    netmeas_hdl::export::lint_block(UartRx::new(&UartConfig::default()), "uart_rx").unwrap();
}
