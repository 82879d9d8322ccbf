//! The LDA core's shipped-testbench vectors (`docs/cores/lda.md`): traffic
//! at nine packets in ten clocks with bursts to four hot keys (back-to-back
//! updates of one row), threshold and class registers written under traffic,
//! flips requested as soon as the last read-out ends, the read-out consumer
//! stalling one clock in four, and two resets (power-up and under traffic),
//! answered by the golden per-clock model [`LdaCycle`] (Kompella et al. §III-B..E).

use crate::shipped_testbench::{Tally, VectorCycle, Vectors, reset_at};
use netmeas_sim::lda::{LdaConfig, LdaCycle, LdaInputs, LdaPacket};
use netmeas_sim::prng::SplitMix64;

/// The vectors of `cfg` (by default four read-outs' worth of clocks and 2000 more).
pub fn lda_vectors(cfg: &LdaConfig, seed: u64, cycles: Option<usize>) -> Vectors {
    let n = cycles.unwrap_or(4 * cfg.total_rows() + 2000);
    let mut golden = LdaCycle::new(cfg);
    let mut rng = SplitMix64::new(seed);
    let key_mask = if cfg.key_bits == 128 { u128::MAX } else { (1u128 << cfg.key_bits) - 1 };
    let hot: Vec<u128> = (0..4).map(|_| rng.next_u128() & key_mask).collect();
    let (mut tally, mut cycles, mut last_key) = (Tally::default(), Vec::with_capacity(n), None);
    for k in 0..n {
        let i = if k == 0 {
            LdaInputs::default()
        } else {
            let key = if rng.chance(3, 10) { hot[rng.below(4) as usize] } else { rng.next_u128() & key_mask };
            let csr_addr = rng.below(8) as u32;
            LdaInputs {
                reset: reset_at(k, n),
                valid: rng.chance(9, 10),
                pkt: LdaPacket { key, ts: rng.next_u64() >> 24, class: rng.below(4) as u8 },
                flip: rng.chance(1, 32),
                // Thresholds 0..3 (dense sampling), class registers 0..7.
                csr_we: k < 40 || rng.chance(1, 256),
                csr_addr,
                csr_wdata: rng.below(if csr_addr < 2 { 4 } else { 8 }) as u32,
                ro_ready: rng.chance(3, 4),
                ovf_clear: rng.chance(1, 512),
            }
        };
        let o = golden.step(&i);
        let live = !i.reset;
        let taken = live && i.valid && o.ready;
        tally.count("resets", i.reset);
        tally.count("packets", taken);
        tally.count("back-to-back packets with one key", taken && last_key == Some(i.pkt.key));
        tally.count("register writes", live && i.csr_we);
        tally.count("flips taken", live && i.flip && o.flip_ready);
        tally.count("rows read", live && o.ro_valid && i.ro_ready);
        tally.count("read-out stalls", live && o.ro_valid && !i.ro_ready);
        tally.count("read-outs completed", live && o.ro_valid && i.ro_ready && o.ro_last);
        last_key = if taken { Some(i.pkt.key) } else { None };
        let mut c = VectorCycle::default();
        c.input("reset", i.reset)
            .input("s_valid", i.valid)
            .input("s_key", i.pkt.key)
            .input("s_ts", i.pkt.ts)
            .input("s_class", i.pkt.class)
            .input("flip", i.flip)
            .input("csr_we", i.csr_we)
            .input("csr_addr", i.csr_addr)
            .input("csr_wdata", i.csr_wdata)
            .input("m_ro_ready", i.ro_ready)
            .input("ovf_clear", i.ovf_clear);
        c.output("s_ready", o.ready)
            .output("flip_ready", o.flip_ready)
            .output("epoch", o.epoch)
            .output("m_ro_valid", o.ro_valid)
            .output_when("m_ro_addr", o.ro_valid, o.ro_addr)
            .output_when("m_ro_count", o.ro_valid, o.ro_data.count)
            .output_when("m_ro_tsum", o.ro_valid, o.ro_data.tsum)
            .output_when("m_ro_last", o.ro_valid, o.ro_last)
            .output("frozen_seq", o.frozen_seq)
            .output("frozen_packets", o.frozen_packets)
            .output("frozen_sampled", o.frozen_sampled)
            .output("ovf_sticky", o.ovf_sticky);
        cycles.push(c);
    }
    tally.into_vectors(cycles)
}
