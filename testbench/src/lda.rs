//! The LDA core under co-simulation: its stimulus, the runner that compares
//! a Verilated core with the per-clock model every cycle, and its port adapter.

use crate::{LdaRtl, Mismatch, cosim_model, differ, lane};
use netmeas_sim::lda::{LdaCycle, LdaInputs, LdaPacket};
use netmeas_sim::prng::SplitMix64;

/// How to drive an LDA core: probabilities in parts per 65536 per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdaStimulus {
    /// A packet is offered.
    pub valid: u32,
    /// The packet repeats one of 8 hot keys (bursts to one row).
    pub hot_key: u32,
    /// A flip is requested.
    pub flip: u32,
    /// A CSR register is written (random register, small values).
    pub csr: u32,
    /// The read-out consumer is ready.
    pub ro_ready: u32,
    /// Reset is asserted.
    pub reset: u32,
}

impl Default for LdaStimulus {
    /// Line-rate traffic with bursts, frequent flips, occasional register writes.
    fn default() -> Self {
        Self { valid: 60000, hot_key: 20000, flip: 300, csr: 100, ro_ready: 56000, reset: 2 }
    }
}

/// What an LDA co-simulation exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LdaStats {
    /// Cycles compared.
    pub cycles: u64,
    /// Packets accepted.
    pub packets: u64,
    /// Flips taken.
    pub flips: u64,
    /// Complete epochs read out (rows, counters and sequence numbers compared).
    pub epochs_read: u64,
    /// Rows read out with a non-zero count.
    pub busy_rows: u64,
    /// CSR writes.
    pub csr_writes: u64,
}

/// Runs `cycles` cycles of the LDA model `M` against [`LdaCycle`], comparing
/// every output every cycle (row fields only when `ro_valid`).
pub fn cosim_lda<M: LdaRtl>(p: LdaStimulus, seed: u64, cycles: u64) -> Result<LdaStats, Mismatch> {
    let cfg = M::config();
    let mut golden = LdaCycle::new(&cfg);
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&LdaInputs::default());
    let mut rng = SplitMix64::new(seed);
    let hot: Vec<u128> = (0..8).map(|_| rng.next_u128()).collect();
    let key_mask = if cfg.key_bits == 128 { u128::MAX } else { (1u128 << cfg.key_bits) - 1 };
    let mut st = LdaStats::default();
    let n = M::NAME;
    cosim_model::<M>(
        cycles,
        || {
            let w0 = rng.next_u64();
            let w1 = rng.next_u64();
            let key = if lane(w1, 0, p.hot_key) { hot[(w1 >> 16) as usize & 7] } else { rng.next_u128() };
            let csr_addr = ((w1 >> 24) & 7) as u32;
            let i = LdaInputs {
                reset: lane(w0, 0, p.reset),
                valid: lane(w0, 1, p.valid),
                pkt: LdaPacket { key: key & key_mask, ts: rng.next_u64() >> 24, class: ((w1 >> 32) & 3) as u8 },
                flip: lane(w0, 2, p.flip),
                csr_we: lane(w0, 3, p.csr),
                csr_addr,
                // Thresholds 0..7 (dense sampling), class registers 0..3.
                csr_wdata: ((w1 >> 40) & if csr_addr < 2 { 3 } else { 7 }) as u32,
                ro_ready: lane(w1, 3, p.ro_ready),
                ovf_clear: false,
            };
            (i, golden.step(&i))
        },
        |cycle, i, r, g| {
            differ(n, cycle, "ready", r.ready, g.ready)?;
            differ(n, cycle, "flip_ready", r.flip_ready, g.flip_ready)?;
            differ(n, cycle, "epoch", r.epoch, g.epoch)?;
            differ(n, cycle, "ro_valid", r.ro_valid, g.ro_valid)?;
            differ(n, cycle, "frozen_seq", r.frozen_seq, g.frozen_seq)?;
            differ(n, cycle, "frozen_packets", r.frozen_packets, g.frozen_packets)?;
            differ(n, cycle, "frozen_sampled", r.frozen_sampled, g.frozen_sampled)?;
            differ(n, cycle, "ovf_sticky", r.ovf_sticky, g.ovf_sticky)?;
            if g.ro_valid {
                differ(n, cycle, "ro_addr", r.ro_addr, g.ro_addr)?;
                differ(n, cycle, "ro_data", r.ro_data, g.ro_data)?;
                differ(n, cycle, "ro_last", r.ro_last, g.ro_last)?;
                if i.ro_ready {
                    st.busy_rows += (g.ro_data.count != 0) as u64;
                    st.epochs_read += g.ro_last as u64;
                }
            }
            if !i.reset {
                st.packets += (i.valid && g.ready) as u64;
                st.flips += (i.flip && g.flip_ready) as u64;
                st.csr_writes += i.csr_we as u64;
            }
            st.cycles += 1;
            Ok(())
        },
    )?;
    Ok(st)
}

/// [`crate::CoreRtl`] for a Verilated LDA core (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::lda::LdaConfig,
            netmeas_sim::lda::LdaInputs,
            netmeas_sim::lda::LdaOutputs,
            |i| $tin {
                reset: P::from_u128(i.reset as u128),
                s_valid: P::from_u128(i.valid as u128),
                s_key: P::from_u128(i.pkt.key),
                s_ts: P::from_u128((i.pkt.ts & ((1 << 40) - 1)) as u128),
                s_class: P::from_u128(i.pkt.class as u128),
                flip: P::from_u128(i.flip as u128),
                csr_we: P::from_u128(i.csr_we as u128),
                csr_addr: P::from_u128((i.csr_addr & 7) as u128),
                csr_wdata: P::from_u128((i.csr_wdata & 0xFF) as u128),
                m_ro_ready: P::from_u128(i.ro_ready as u128),
                ovf_clear: P::from_u128(i.ovf_clear as u128),
            },
            |o| netmeas_sim::lda::LdaOutputs {
                ready: o.s_ready.to_u128() != 0,
                flip_ready: o.flip_ready.to_u128() != 0,
                epoch: o.epoch.to_u128() != 0,
                ro_valid: o.m_ro_valid.to_u128() != 0,
                ro_addr: o.m_ro_addr.to_u128() as u32,
                ro_data: netmeas_sim::counter_bank::CountSum {
                    count: o.m_ro_count.to_u128() as u64,
                    tsum: o.m_ro_tsum.to_u128() as u64,
                },
                ro_last: o.m_ro_last.to_u128() != 0,
                frozen_seq: o.frozen_seq.to_u128() as u32,
                frozen_packets: o.frozen_packets.to_u128() as u64,
                frozen_sampled: o.frozen_sampled.to_u128() as u64,
                ovf_sticky: o.ovf_sticky.to_u128() != 0,
            }
        );
    };
}
pub(crate) use core_rtl;
