//! What the DBM and EXPB models share as packet consumers: the timestamp
//! rules of their packet port and the driver that runs a whole stream.

use super::config::TS_BITS;
use super::traffic::BwPacket;

/// The timestamp rules of a bandwidth core's packet port: timestamps fit
/// [`TS_BITS`] and never go backwards.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeOrder {
    last: Option<u64>,
}

impl TimeOrder {
    /// Accepts `ts` if it fits and is not below the previous one.
    pub fn check(&mut self, ts: u64) -> Result<(), String> {
        if ts >= 1 << TS_BITS {
            return Err(format!("timestamp {ts} does not fit {TS_BITS} bits"));
        }
        if let Some(last) = self.last.filter(|&l| ts < l) {
            return Err(format!("timestamp {ts} goes backwards (previous {last})"));
        }
        self.last = Some(ts);
        Ok(())
    }
}

/// Inputs of a bandwidth core (the DBM and EXPB RTL and their per-clock
/// models) in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BwInputs {
    /// Synchronous reset: a new first period starting at time 0.
    pub reset: bool,
    /// A packet is offered.
    pub valid: bool,
    /// Its timestamp (ticks, 48 bits, not going backwards).
    pub ts: u64,
    /// Its length in bytes.
    pub len: u32,
    /// Its flow (for the culprit).
    pub flow: u32,
    /// The time input carries the current time.
    pub now_valid: bool,
    /// The current time (ticks, 48 bits, not going backwards, not behind the packets to come).
    pub now: u64,
    /// The read-out consumer takes the presented beat.
    pub ro_ready: bool,
}

impl BwInputs {
    /// A clock of a stream driven in time order: `p` (the next packet, if
    /// any) is offered; `now` carries its timestamp when `now_valid`, and
    /// `end` (the end of the last packet's period) once the packets are out.
    pub fn offer(p: Option<&BwPacket>, end: u64, now_valid: bool, ro_ready: bool) -> Self {
        Self {
            reset: false,
            valid: p.is_some(),
            ts: p.map_or(0, |p| p.ts),
            len: p.map_or(0, |p| p.len),
            flow: p.map_or(0, |p| p.flow),
            now_valid: p.is_none() || now_valid,
            now: p.map_or(end, |p| p.ts),
            ro_ready,
        }
    }
}

/// A core that takes packets in time order and emits one synopsis per aggregation period.
pub trait PeriodCore {
    /// The synopsis of one period.
    type Period;
    /// Adds a packet, appending the periods it closes to `out`.
    fn push(&mut self, p: &BwPacket, out: &mut Vec<Self::Period>) -> Result<(), String>;
    /// Closes the period in progress and returns it.
    fn finish(&mut self) -> Self::Period;
}

/// Runs a whole packet stream through `core` and returns every period up to
/// the one holding the last packet.
pub fn run_periods<C: PeriodCore>(mut core: C, packets: &[BwPacket]) -> Result<Vec<C::Period>, String> {
    let mut out = Vec::new();
    for p in packets {
        core.push(p, &mut out)?;
    }
    out.push(core.finish());
    Ok(out)
}
