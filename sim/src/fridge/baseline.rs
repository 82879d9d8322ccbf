//! The "simple" delay monitor of §2.1 (Chen et al. [6]) as the baseline of
//! §5.1/§5.3: D hash-indexed stages of M/D entries {ID, timestamp}; a request
//! takes the first stage whose entry is empty or older than the expiry
//! threshold T (T = 0: always overwrite, as in §2.1), else it is dropped; a
//! response that finds its ID produces an unweighted sample and frees the entry.

use super::config::FRIDGE_TS_MASK;
use super::model::FridgePacket;
use crate::h3::{H3, H3Config};

/// One stage: its hash and its entries {ID, timestamp}.
type Stage = (H3, Vec<Option<(u32, u64)>>);

/// The simple algorithm with D stages.
#[derive(Clone, Debug)]
pub struct SimpleMonitor {
    stages: Vec<Stage>,
    expiry: u64,
    /// Requests no stage took.
    pub dropped: u64,
}

impl SimpleMonitor {
    /// `stages` stages sharing `entries` entries (each gets entries / stages,
    /// at least one), expiry threshold `expiry` ticks, hashes from `seed`.
    pub fn new(entries: usize, stages: usize, expiry: u64, seed: u64) -> Self {
        let per = (entries / stages.max(1)).max(1);
        let stages = (0..stages.max(1))
            .map(|s| {
                let h = H3::new(&H3Config {
                    key_bits: 32,
                    out_bits: 32,
                    seed: seed ^ 0x5349_4d50_0000_0000 ^ s as u64,
                    registered: false,
                    name: None,
                });
                (h, vec![None; per])
            })
            .collect();
        Self { stages, expiry, dropped: 0 }
    }

    /// Entries in use by this monitor (the memory it is compared at).
    pub fn entries(&self) -> usize {
        self.stages.iter().map(|s| s.1.len()).sum()
    }

    /// One packet; a matched response returns its delay.
    pub fn process(&mut self, p: &FridgePacket) -> Option<u64> {
        let ts = p.ts & FRIDGE_TS_MASK;
        for (h, table) in &mut self.stages {
            let i = (((h.hash(p.id as u128) as u32) as u64 * table.len() as u64) >> 32) as usize;
            let slot = &mut table[i];
            if p.response {
                if let Some((id, t)) = *slot
                    && id == p.id
                {
                    *slot = None;
                    return Some(ts.wrapping_sub(t) & FRIDGE_TS_MASK);
                }
            } else {
                let free = match *slot {
                    None => true,
                    Some((_, t)) => ts.wrapping_sub(t) & FRIDGE_TS_MASK >= self.expiry,
                };
                if free {
                    *slot = Some((p.id, ts));
                    return None;
                }
            }
        }
        if !p.response {
            self.dropped += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: u32, ts: u64) -> FridgePacket {
        FridgePacket { id, response: false, ts }
    }

    fn resp(id: u32, ts: u64) -> FridgePacket {
        FridgePacket { id, response: true, ts }
    }

    #[test]
    fn one_stage_overwrite_matches_and_frees() {
        let mut m = SimpleMonitor::new(1, 1, 0, 1);
        m.process(&req(1, 10));
        assert_eq!(m.process(&resp(1, 25)), Some(15));
        assert_eq!(m.process(&resp(1, 30)), None);
        // One entry, overwrite: request 2 evicts request 3's predecessor.
        m.process(&req(2, 40));
        m.process(&req(3, 41));
        assert_eq!(m.process(&resp(2, 50)), None);
        assert_eq!(m.process(&resp(3, 50)), Some(9));
    }

    #[test]
    fn expiry_keeps_young_entries_and_spills_to_later_stages() {
        let mut m = SimpleMonitor::new(2, 2, 100, 1);
        m.process(&req(1, 0));
        m.process(&req(2, 10)); // stage 0 busy (young) → stage 1
        m.process(&req(3, 20)); // both busy → dropped
        assert_eq!(m.dropped, 1);
        assert_eq!(m.process(&resp(2, 30)), Some(20));
        m.process(&req(4, 150)); // stage 0 entry is 150 old → expired, overwritten
        assert_eq!(m.process(&resp(1, 160)), None);
        assert_eq!(m.process(&resp(4, 160)), Some(10));
        assert_eq!(m.entries(), 2);
    }
}
