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
