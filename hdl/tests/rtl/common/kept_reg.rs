use netmeas_hdl::common::kept_reg::*;
use rust_hdl::prelude::*;

/// Two kept copies of one value, read by different logic.
#[derive(LogicBlock, Default)]
struct TwoCopies {
    clock: Signal<In, Clock>,
    d: Signal<In, Bits<8>>,
    a: Signal<Out, Bits<8>>,
    b: Signal<Out, Bits<8>>,
    r0: KeptReg<Bits<8>>,
    r1: KeptReg<Bits<8>>,
}

impl Logic for TwoCopies {
    #[hdl_gen]
    fn update(&mut self) {
        self.r0.clock.next = self.clock.val();
        self.r1.clock.next = self.clock.val();
        self.r0.d.next = self.d.val();
        self.r1.d.next = self.d.val();
        self.a.next = self.r0.q.val();
        self.b.next = !self.r1.q.val();
    }
}

#[test]
fn kept_reg_is_synthesizable() {
    netmeas_hdl::export::lint_block(KeptReg::<Bits<8>>::default(), "kept_reg").unwrap();
    netmeas_hdl::export::lint_block(TwoCopies::default(), "kept_reg_two_copies").unwrap();
}

#[test]
fn kept_reg_registers_its_input() {
    let mut uut = TwoCopies::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<TwoCopies>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<TwoCopies>| {
        let mut x = sim.init()?;
        x.d.next = 0x3c.into();
        wait_clock_cycle!(sim, clock, x);
        x.d.next = 0xa5.into();
        sim_assert_eq!(sim, x.a.val(), 0x3c, x);
        sim_assert_eq!(sim, x.b.val(), 0xc3, x);
        wait_clock_cycle!(sim, clock, x);
        sim_assert_eq!(sim, x.a.val(), 0xa5, x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 100).unwrap();
}

#[test]
fn every_copy_carries_keep() {
    // Yosys keeps a register whose process carries the attribute (two copies of eight
    // flip-flops stay 16 `TRELLIS_FF` through `synth_ecp5`; without it, 8).
    let v = netmeas_hdl::export::generate(TwoCopies::default()).0;
    assert_eq!(v.matches("(* keep *)").count(), 2, "{v}");
}
