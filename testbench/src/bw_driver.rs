//! Random stimulus shared by the bandwidth cores (DBM and EXPB): a packet
//! offered and held until taken, the time input, the read-out consumer and
//! reset. What differs between the cores, how the next packet's timestamp
//! and length are drawn, is a [`BwPacketDraw`].

use crate::lane;
use netmeas_sim::dbm::BwInputs;
use netmeas_sim::prng::SplitMix64;

/// The largest timestamp the cores take (48 bits).
const TS_MAX: u64 = (1 << 48) - 1;

/// How often the ports other than the packet's fields are driven: parts per
/// 65536 per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BwLanes {
    /// A packet is offered (held until taken).
    pub valid: u32,
    /// The time input carries the next packet's timestamp.
    pub now: u32,
    /// The read-out consumer is ready.
    pub ro_ready: u32,
    /// Reset is asserted (time restarts at 0).
    pub reset: u32,
}

/// Draws the next packet of a stimulus.
pub trait BwPacketDraw {
    /// Advances the timestamp `ts` and returns the packet's length and flow;
    /// `r` is a fresh random word whose 16-bit lanes 0..=3 the draw may use.
    fn draw(&mut self, rng: &mut SplitMix64, r: u64, ts: &mut u64) -> (u32, u32);
}

/// Random bandwidth-core inputs, reproducible from a seed; a packet is held
/// until taken.
pub struct BwDriver<D> {
    rng: SplitMix64,
    lanes: BwLanes,
    draw: D,
    pending: Option<(u64, u32, u32)>,
    ts: u64,
}

impl<D: BwPacketDraw> BwDriver<D> {
    /// A driver whose packets come from `draw`.
    pub fn with_draw(lanes: BwLanes, draw: D, seed: u64) -> Self {
        Self { rng: SplitMix64::new(seed), lanes, draw, pending: None, ts: 0 }
    }

    /// This cycle's inputs.
    pub fn next(&mut self) -> BwInputs {
        let w = self.rng.next_u64();
        let reset = lane(w, 0, self.lanes.reset);
        if self.pending.is_none() && lane(w, 1, self.lanes.valid) {
            let r = self.rng.next_u64();
            let (len, flow) = self.draw.draw(&mut self.rng, r, &mut self.ts);
            self.pending = Some((self.ts.min(TS_MAX), len, flow));
        }
        let p = self.pending;
        BwInputs {
            reset,
            valid: p.is_some(),
            ts: p.map_or(0, |p| p.0),
            len: p.map_or(0, |p| p.1),
            flow: p.map_or(0, |p| p.2),
            now_valid: lane(w, 2, self.lanes.now),
            now: self.ts.min(TS_MAX),
            ro_ready: lane(w, 3, self.lanes.ro_ready),
        }
    }

    /// The core's `ready` in the cycle of `i`: a taken packet is done; a reset restarts time.
    pub fn observe(&mut self, i: &BwInputs, ready: bool) {
        if i.reset {
            self.pending = None;
            self.ts = 0;
        } else if i.valid && ready {
            self.pending = None;
        }
    }
}

/// The port struct `$tin` of a bandwidth core (EXPB and DBM have the same
/// packet and time ports) from the golden model's inputs `$i`.
macro_rules! bandwidth_ports {
    ($tin:ident, $i:ident) => {
        $tin {
            reset: P::from_u128($i.reset as u128),
            s_valid: P::from_u128($i.valid as u128),
            s_ts: P::from_u128(($i.ts & ((1 << 48) - 1)) as u128),
            s_len: P::from_u128($i.len as u128),
            s_flow: P::from_u128($i.flow as u128),
            now_valid: P::from_u128($i.now_valid as u128),
            now: P::from_u128(($i.now & ((1 << 48) - 1)) as u128),
            m_ro_ready: P::from_u128($i.ro_ready as u128),
        }
    };
}
pub(crate) use bandwidth_ports;
