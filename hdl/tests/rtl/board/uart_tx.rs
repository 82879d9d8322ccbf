use netmeas_hdl::board::uart_tx::*;
use netmeas_sim::board::uart::UartConfig;
use netmeas_sim::board::uart::{UartTxCycle, UartTxInputs, UartTxOutputs};
use netmeas_sim::prng::SplitMix64;
use rust_hdl::prelude::*;

fn step(uut: &mut UartTx, i: &UartTxInputs) -> UartTxOutputs {
    uut.reset.next = i.reset;
    uut.s_valid.next = i.valid;
    uut.s_data.next = (i.data as u64).into();
    uut.clock.next = Clock { clk: false };
    assert!(simulate(uut, 100));
    let o = UartTxOutputs { ready: uut.s_ready.val(), tx: uut.tx.val() };
    uut.clock.next = Clock { clk: true };
    assert!(simulate(uut, 100));
    o
}

#[test]
fn rust_hdl_simulation_equals_the_per_clock_model() {
    let mut rng = SplitMix64::new(9);
    for divisor in [4u64, 5, 17] {
        let cfg = UartConfig { clock_hz: divisor * 1_000_000, baud: 1_000_000 };
        let mut uut = UartTx::new(&cfg);
        uut.connect_all();
        let mut gold = UartTxCycle::new(&cfg).unwrap();
        let mut taken = 0;
        for cycle in 0..20_000 {
            let i = UartTxInputs { reset: rng.chance(1, 3000), valid: rng.chance(3, 4), data: rng.next_u64() as u8 };
            let want = gold.step(&i);
            assert_eq!(step(&mut uut, &i), want, "divisor {divisor}, cycle {cycle}");
            taken += (i.valid && want.ready && !i.reset) as u32;
        }
        assert!(taken > 20_000 / (12 * divisor as u32), "{taken} bytes taken");
    }
}

#[test]
fn transmitter_is_synthesizable() {
    netmeas_hdl::export::lint_block(UartTx::new(&UartConfig::default()), "uart_tx").unwrap();
}
