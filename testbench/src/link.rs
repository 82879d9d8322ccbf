//! The Verilated host link (UART receiver, register bridge, UART
//! transmitter): cycle-by-cycle co-simulation against [`LinkCycle`], and the
//! host side ([`LinkHost`](netmeas_sim::board::host::LinkHost)) running
//! against it through a simulated serial line.

use crate::models::LinkDefault;
use crate::{CoreRtl, Mismatch, cosim_model, differ};
use netmeas_sim::board::host::{LinkBoardSide, SimulatedBoard};
use netmeas_sim::board::link::{LinkConfig, LinkCycle, LinkInputs, LinkOutputs, stimulus_request};
use netmeas_sim::board::uart::{UartTxCycle, UartTxInputs};
use netmeas_sim::prng::SplitMix64;

/// A Verilated link.
pub trait LinkRtl: CoreRtl<Config = LinkConfig, In = LinkInputs, Out = LinkOutputs> {}
impl<M: CoreRtl<Config = LinkConfig, In = LinkInputs, Out = LinkOutputs>> LinkRtl for M {}

/// A Verilated link as the board side of a [`SimulatedBoard`].
pub struct RtlLinkSide<M>(pub M);

impl<M: LinkRtl> LinkBoardSide for RtlLinkSide<M> {
    fn step(&mut self, i: &LinkInputs) -> LinkOutputs {
        self.0.cycle(i)
    }
}

/// The default Verilated link (50 MHz, 3 Mbaud) on a simulated board with
/// `regs` registers answering `ack_delay` clocks after a strobe.
pub fn rtl_board(regs: usize, ack_delay: u64) -> Result<SimulatedBoard<RtlLinkSide<LinkDefault>>, String> {
    SimulatedBoard::with_board(RtlLinkSide(LinkDefault::create()), &LinkDefault::config(), regs, ack_delay)
}

/// What a co-simulation exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Cycles compared.
    pub cycles: u64,
    /// Bus accesses (read and write strobes).
    pub accesses: u64,
    /// Bytes the link sent (start bits on `tx`).
    pub tx_bytes: u64,
    /// CRC errors counted.
    pub crc_errors: u64,
    /// Requests dropped by the timeout.
    pub truncated: u64,
}

/// Runs `cycles` cycles of `M` against [`LinkCycle`], comparing every output
/// every cycle. The line carries a host transmitter's requests (reads and
/// writes, one in eight with a flipped bit, one in sixteen cut short and
/// followed by a pause past the bridge's timeout); the bus answers 1–4
/// clocks after a strobe, now and then never; resets are rare.
pub fn cosim_link<M: LinkRtl>(seed: u64, cycles: u64) -> Result<LinkStats, Mismatch> {
    let cfg = M::config();
    let mut golden = LinkCycle::new(&cfg).expect("variant config is valid");
    // The simulation top registers the inputs: its core first sees one all-zero cycle.
    golden.step(&LinkInputs::default());
    let mut host = UartTxCycle::new(&cfg.uart).expect("variant config is valid");
    let mut rng = SplitMix64::new(seed);
    let (mut bytes, mut k, mut pause) = (Vec::<u8>::new(), 0, 0u64);
    let mut ack_in: Option<u64> = None;
    let mut last = LinkOutputs { tx: true, ..Default::default() };
    let mut st = LinkStats::default();
    let n = M::NAME;
    cosim_model::<M>(
        cycles,
        || {
            if k == bytes.len() && pause == 0 {
                let (flip, cut) = (rng.chance(1, 8), rng.chance(1, 16));
                (bytes, pause) = stimulus_request(&mut rng, &cfg, flip, cut);
                k = 0;
            }
            let offer = k < bytes.len();
            let t = host.step(&UartTxInputs { reset: false, valid: offer, data: bytes.get(k).copied().unwrap_or(0) });
            if offer && t.ready {
                k += 1;
            } else if !offer {
                pause = pause.saturating_sub(1);
            }
            let ack = ack_in == Some(0);
            let i =
                LinkInputs { reset: rng.chance(1, 200_000), rx: t.tx, bus_ack: ack, bus_rdata: rng.next_u64() as u32 };
            let o = golden.step(&i);
            ack_in = ack_in.and_then(|c| c.checked_sub(1));
            if o.bus_re || o.bus_we {
                ack_in = if rng.chance(1, 40) { None } else { Some(rng.below(4)) };
            }
            (i, o)
        },
        |cycle, i, r, g| {
            differ(n, cycle, "tx", r.tx, g.tx)?;
            differ(n, cycle, "bus_re", r.bus_re, g.bus_re)?;
            differ(n, cycle, "bus_we", r.bus_we, g.bus_we)?;
            differ(n, cycle, "bus_addr", r.bus_addr, g.bus_addr)?;
            differ(n, cycle, "bus_wdata", r.bus_wdata, g.bus_wdata)?;
            differ(n, cycle, "frame_errors", r.frame_errors, g.frame_errors)?;
            differ(n, cycle, "overruns", r.overruns, g.overruns)?;
            differ(n, cycle, "crc_errors", r.crc_errors, g.crc_errors)?;
            differ(n, cycle, "truncated", r.truncated, g.truncated)?;
            st.accesses += (g.bus_re || g.bus_we) as u64;
            st.tx_bytes += (last.tx && !g.tx) as u64;
            if !i.reset {
                st.crc_errors += g.crc_errors.saturating_sub(last.crc_errors) as u64;
                st.truncated += g.truncated.saturating_sub(last.truncated) as u64;
            }
            last = *g;
            st.cycles += 1;
            Ok(())
        },
    )?;
    Ok(st)
}

/// [`crate::CoreRtl`] for a Verilated host link (`build.rs` invokes it per variant).
macro_rules! core_rtl {
    ($t:ident, $tin:ident, $tout:ident) => {
        $crate::impl_core_rtl!(
            $t,
            $tin,
            $tout,
            netmeas_sim::board::link::LinkConfig,
            netmeas_sim::board::link::LinkInputs,
            netmeas_sim::board::link::LinkOutputs,
            |i| $tin {
                reset: P::from_u128(i.reset as u128),
                rx: P::from_u128(i.rx as u128),
                bus_ack: P::from_u128(i.bus_ack as u128),
                bus_rdata: P::from_u128(i.bus_rdata as u128),
            },
            |o| netmeas_sim::board::link::LinkOutputs {
                tx: o.tx.to_u128() != 0,
                bus_re: o.bus_re.to_u128() != 0,
                bus_we: o.bus_we.to_u128() != 0,
                bus_addr: o.bus_addr.to_u128() as u16,
                bus_wdata: o.bus_wdata.to_u128() as u32,
                frame_errors: o.frame_errors.to_u128() as u16,
                overruns: o.overruns.to_u128() as u16,
                crc_errors: o.crc_errors.to_u128() as u16,
                truncated: o.truncated.to_u128() as u16,
            }
        );
    };
}
pub(crate) use core_rtl;
