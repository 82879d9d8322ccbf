use netmeas_hdl::board::reg_bridge::*;
use netmeas_sim::board::link::BridgeConfig;
use netmeas_sim::board::link::{BridgeCycle, BridgeInputs, BridgeOutputs, LinkRequest, crc16};
use netmeas_sim::prng::SplitMix64;
use rust_hdl::prelude::*;

fn step(uut: &mut RegBridge, i: &BridgeInputs) -> BridgeOutputs {
    uut.reset.next = i.reset;
    uut.s_valid.next = i.rx_valid;
    uut.s_data.next = (i.rx_data as u64).into();
    uut.m_ready.next = i.tx_ready;
    uut.bus_ack.next = i.bus_ack;
    uut.bus_rdata.next = (i.bus_rdata as u64).into();
    uut.clock.next = Clock { clk: false };
    assert!(simulate(uut, 100));
    let o = BridgeOutputs {
        rx_ready: uut.s_ready.val(),
        tx_valid: uut.m_valid.val(),
        tx_data: uut.m_data.val().to_u64() as u8,
        bus_re: uut.bus_re.val(),
        bus_we: uut.bus_we.val(),
        bus_addr: uut.bus_addr.val().to_u64() as u16,
        bus_wdata: uut.bus_wdata.val().to_u64() as u32,
        crc_errors: uut.crc_errors.val().to_u64() as u16,
        truncated: uut.truncated.val().to_u64() as u16,
    };
    uut.clock.next = Clock { clk: true };
    assert!(simulate(uut, 100));
    o
}

/// A random stream of request bytes: good reads and writes, frames with a
/// flipped bit, unknown commands, frames cut short, and stray bytes.
fn frame(rng: &mut SplitMix64) -> Vec<u8> {
    let a = rng.below(8) as u16;
    let mut f = if rng.chance(1, 2) {
        LinkRequest::Read(a).encode()
    } else {
        LinkRequest::Write(a, rng.next_u64() as u32).encode()
    };
    match rng.below(12) {
        0 => {
            let k = 1 + rng.below(f.len() as u64 - 1) as usize;
            f[k] ^= 1 << rng.below(8);
        }
        1 => f.truncate(1 + rng.below(f.len() as u64 - 1) as usize),
        2 => {
            f = vec![0x5A, 0x40 + rng.below(8) as u8, 0, a as u8];
            let c = crc16(&f[1..]);
            f.extend(c.to_be_bytes());
        }
        3 => f.insert(0, rng.next_u64() as u8),
        _ => {}
    }
    f
}

#[test]
fn rust_hdl_simulation_equals_the_per_clock_model() {
    let mut rng = SplitMix64::new(21);
    let cfg = BridgeConfig { timeout_clocks: 300 };
    let mut uut = RegBridge::new(&cfg);
    uut.connect_all();
    let mut gold = BridgeCycle::new(&cfg).unwrap();
    let (mut bytes, mut k, mut gap) = (Vec::new(), 0, 0u64);
    // Bus: the ack comes 0..=8 clocks after the strobe, now and then never.
    let (mut ack_in, mut regs) = (None::<u64>, [0u32; 8]);
    let (mut responses, mut accesses, mut crc_errors, mut truncated) = (0, 0, 0, 0);
    let mut last = BridgeOutputs::default();
    for cycle in 0..200_000 {
        if k == bytes.len() {
            bytes = frame(&mut rng);
            k = 0;
            gap = if rng.chance(1, 4) { rng.below(700) } else { 0 };
        }
        let ack = ack_in == Some(0);
        let i = BridgeInputs {
            reset: rng.chance(1, 20_000),
            rx_valid: gap == 0 && rng.chance(3, 4),
            rx_data: bytes[k],
            tx_ready: rng.chance(1, 2),
            bus_ack: ack,
            bus_rdata: if ack { regs[last.bus_addr as usize % 8] } else { rng.next_u64() as u32 },
        };
        let want = gold.step(&i);
        let got = step(&mut uut, &i);
        assert_eq!(got, want, "cycle {cycle}");
        gap = gap.saturating_sub(1);
        if i.rx_valid && want.rx_ready {
            k += 1;
        }
        ack_in = ack_in.and_then(|c| c.checked_sub(1));
        if want.bus_re || want.bus_we {
            accesses += 1;
            if want.bus_we {
                regs[want.bus_addr as usize % 8] = want.bus_wdata;
            }
            ack_in = if rng.chance(1, 30) { None } else { Some(rng.below(9)) };
            if ack_in == Some(0) {
                // An ack in the strobe's own clock was not offered: take the next one.
                ack_in = Some(1);
            }
        }
        responses += (want.tx_valid && want.tx_data == 0xA5 && i.tx_ready) as u32;
        crc_errors += want.crc_errors.saturating_sub(last.crc_errors);
        truncated += want.truncated.saturating_sub(last.truncated);
        last = want;
    }
    assert!(
        responses > 1000 && accesses > 1000 && crc_errors > 10 && truncated > 10,
        "{responses} responses, {accesses} accesses, {crc_errors} CRC errors, {truncated} truncated"
    );
}

#[test]
fn bridge_is_synthesizable() {
    netmeas_hdl::export::lint_block(RegBridge::new(&BridgeConfig::default()), "reg_bridge").unwrap();
}

/// The proofs of `hdl/src/board/reg_bridge.sby` on a bridge with a 3-clock
/// timeout: the register bus is strobed, and a request answered "done", only
/// for a frame whose CRC checks, with its own fields; the response keeps the
/// stream rule. Taking the CRC check out of the bridge must break the proof.
#[test]
fn bridge_proofs_hold_and_fail_without_the_crc_check() {
    let (verilog, _) = netmeas_hdl::export::generate(RegBridge::new(&BridgeConfig { timeout_clocks: 3 }));
    let prove = |name: &str, verilog: &str, task: &str| {
        let dir = crate::formal::proof_dir(name);
        crate::formal::write_dut(&dir, verilog, "top");
        crate::formal::copy_source(&dir, "board/reg_bridge.sby");
        crate::formal::copy_source(&dir, "board/reg_bridge_formal.sv");
        crate::formal::apply_binds(&dir, "reg_bridge_formal.sv");
        crate::formal::run(&dir, "reg_bridge.sby", task).0
    };
    assert_eq!(prove("reg_bridge", &verilog, "prove"), crate::formal::Status::Pass);
    assert_eq!(prove("reg_bridge_cover", &verilog, "cover"), crate::formal::Status::Pass);
    let check = "(crc_byte$crc_out != zero16)";
    assert!(verilog.contains(check), "`{check}` is not in the export");
    let mutant = verilog.replacen(check, "(1'b0)", 1);
    assert_eq!(prove("reg_bridge_no_crc", &mutant, "bmc"), crate::formal::Status::Fail);
}
