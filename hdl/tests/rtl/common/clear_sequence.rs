use netmeas_hdl::common::clear_sequence::*;
use rust_hdl::prelude::*;

#[test]
fn clear_sequence_is_synthesizable() {
    netmeas_hdl::export::lint_block(ClearSequence::<10>::new(1024), "clear_sequence").unwrap();
    netmeas_hdl::export::lint_block(ClearSequence::<16>::new(64), "clear_sequence_short").unwrap();
}

/// Rows 0 … rows − 1 on consecutive clocks after reset, `done` from rows + 1 clocks after it.
fn check_walk(rows: usize) {
    let mut uut = ClearSequence::<6>::new(rows);
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<ClearSequence<6>>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<ClearSequence<6>>| {
        let mut x = sim.init()?;
        for round in 0..2 {
            x.reset.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
            for r in 0..rows {
                sim_assert!(sim, !x.done.val(), x);
                sim_assert_eq!(sim, x.row.val(), r as u64, x);
                wait_clock_cycle!(sim, clock, x);
            }
            sim_assert!(sim, !x.done.val(), x);
            wait_clock_cycle!(sim, clock, x);
            for _ in 0..3 * rows + round {
                sim_assert!(sim, x.done.val(), x);
                wait_clock_cycle!(sim, clock, x);
            }
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000).unwrap();
}

#[test]
fn clear_sequence_walks_every_row_once_after_reset() {
    check_walk(64);
    check_walk(40);
    check_walk(1);
}
