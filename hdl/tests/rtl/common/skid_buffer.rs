use netmeas_hdl::common::skid_buffer::*;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

#[test]
fn skid_buffer_is_synthesizable() {
    netmeas_hdl::export::lint_block(SkidBuffer::<Bits<8>>::default(), "skid_buffer").unwrap();
    netmeas_hdl::export::lint_block(SkidBuffer::<Bits<87>>::default(), "skid_buffer_wide").unwrap();
}

#[test]
fn flag_copies_are_kept_apart() {
    // Three `keep`s: the copy of the full flag behind `s_ready` and the copies behind
    // `s_ready_copy` and `m_valid_copy` (without them Yosys would merge each copy into
    // `skid_valid` or `out_valid`, which have the same inputs).
    let v = netmeas_hdl::export::generate(SkidBuffer::<Bits<8>>::default()).0;
    assert_eq!(v.matches("(* keep *)").count(), 3, "{v}");
}

/// xorshift64: the stimulus's valid and ready patterns.
fn next(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Drives `clocks` clocks of a producer that offers beats 0, 1, 2, … (holding each until
/// taken) with probability `p_valid`/8 per clock and a consumer ready with `p_ready`/8;
/// checks the order, the stage's occupancy against `s_ready`/`m_valid`, and that a reset
/// empties it. Returns the beats delivered.
fn run(clocks: usize, p_valid: u64, p_ready: u64, seed: u64) -> usize {
    let mut uut = SkidBuffer::<Bits<16>>::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<SkidBuffer<Bits<16>>>| x.clock.next = !x.clock.val());
    let (tx, rx) = std::sync::mpsc::channel();
    sim.add_testbench(move |mut sim: Sim<SkidBuffer<Bits<16>>>| {
        let mut x = sim.init()?;
        let mut rng = seed | 1;
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        // Beats inside the stage, oldest first (what it must present, in order).
        let mut inside: VecDeque<u64> = VecDeque::new();
        let mut offered: Option<u64> = None;
        let mut next_beat = 0u64;
        let mut delivered = 0usize;
        for clk in 0..clocks {
            // Every output is a register: read them before this clock's inputs matter.
            sim_assert_eq!(sim, x.s_ready.val(), inside.len() < 2, x);
            sim_assert_eq!(sim, x.m_valid.val(), !inside.is_empty(), x);
            sim_assert_eq!(sim, x.s_ready_copy.val(), x.s_ready.val(), x);
            sim_assert_eq!(sim, x.m_valid_copy.val(), x.m_valid.val(), x);
            if let Some(&head) = inside.front() {
                sim_assert_eq!(sim, x.m_data.val(), head, x);
            }
            if offered.is_none() && next(&mut rng) % 8 < p_valid {
                offered = Some(next_beat);
                next_beat = (next_beat + 1) & 0xffff;
            }
            let ready = next(&mut rng) % 8 < p_ready;
            x.s_valid.next = offered.is_some();
            x.s_data.next = offered.unwrap_or(0xdead).into();
            x.m_ready.next = ready;
            x.m_ready_copy.next = ready;
            let take = !inside.is_empty() && ready;
            let push = offered.is_some() && inside.len() < 2;
            if take {
                inside.pop_front();
                delivered += 1;
            }
            if push {
                inside.push_back(offered.take().unwrap());
            }
            // Once in a while a reset: the stage empties (the offered beat stays offered).
            let reset = clk % 997 == 996;
            x.reset.next = reset;
            if reset {
                inside.clear();
            }
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
        }
        tx.send(delivered).unwrap();
        sim.done(x)
    });
    sim.run(Box::new(uut), 10 * (clocks as u64 + 10)).unwrap();
    rx.recv().unwrap()
}

#[test]
fn skid_buffer_delivers_every_beat_in_order() {
    for (p_valid, p_ready, seed) in [(4, 4, 1), (7, 2, 2), (2, 7, 3), (8, 5, 4), (5, 8, 5)] {
        assert!(run(3000, p_valid, p_ready, seed) > 500, "{p_valid} {p_ready}");
    }
}

#[test]
fn skid_buffer_moves_one_beat_per_clock() {
    // Producer and consumer always ready: after the first beat's clock through the stage,
    // a beat leaves every clock (one lost clock per reset).
    let n = run(3000, 8, 8, 9);
    assert!(n >= 3000 - 2 - 2 * (3000 / 997), "{n} beats in 3000 clocks");
}
