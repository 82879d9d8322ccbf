//! The MAPLE query interface (§4): packet queries with a rough time, answered
//! from that epoch and its neighbours ("Query timing"), and range queries
//! (flow key, [IP-ID i, IP-ID j]) that the store expands to packet queries
//! and answers per packet or as one aggregate ("Query using flow key and IP
//! identifier"). Packet keys are the concatenation flow key · 2^16 + IP-ID.

use super::{Answer, MatchKind, SvbfStore};
use std::collections::VecDeque;

/// Bits of the IP identifier in a packet key.
pub const IPID_BITS: u32 = 16;
/// Bits of the flow key in a packet key (the rest of the 64-bit key).
pub const FLOW_KEY_BITS: u32 = 64 - IPID_BITS;
/// Bytes of one packet query on the wire: the 64-bit key.
pub const PACKET_QUERY_BYTES: u64 = 8;
/// Bytes of one range tuple on the wire: the 48-bit flow key and two IP-IDs.
pub const RANGE_QUERY_BYTES: u64 = (FLOW_KEY_BITS as u64 + 2 * IPID_BITS as u64) / 8;

/// The packet key of (flow key, IP-ID) (§4); `None` if the flow key has more than 48 bits.
pub fn packet_key(flow: u64, ipid: u16) -> Option<u64> {
    (flow >> FLOW_KEY_BITS == 0).then_some(flow << IPID_BITS | ipid as u64)
}

/// Answer to a packet query over several epochs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpochAnswer {
    /// The chosen epoch and its answer (Match, or Multi-Match when several
    /// (epoch, center) pairs survived).
    Found {
        /// Epoch of the chosen center.
        epoch: u64,
        /// Kind, center and refined latency.
        answer: Answer,
    },
    /// Every queried epoch that is held says No-Match.
    NoMatch,
    /// None of the queried epochs is held any more: the record is gone.
    Expired,
}

/// The frozen epochs a store still holds, oldest first, up to a capacity:
/// the query side of §4 ("the previous epoch and the next epoch are also
/// queried").
#[derive(Clone, Debug)]
pub struct HeldEpochs {
    capacity: usize,
    epochs: VecDeque<(u64, SvbfStore)>,
}

impl HeldEpochs {
    /// Holds up to `capacity` ≥ 1 epochs.
    pub fn new(capacity: usize) -> Result<Self, String> {
        if capacity == 0 {
            return Err("held epochs: capacity must be at least 1".into());
        }
        Ok(Self { capacity, epochs: VecDeque::new() })
    }

    /// Adds the frozen store of `epoch` (numbers must increase); the oldest
    /// epoch is dropped when the capacity is reached.
    pub fn push(&mut self, epoch: u64, store: SvbfStore) -> Result<(), String> {
        if let Some(&(last, _)) = self.epochs.back()
            && epoch <= last
        {
            return Err(format!("epoch {epoch} after epoch {last}: epochs must increase"));
        }
        if self.epochs.len() == self.capacity {
            self.epochs.pop_front();
        }
        self.epochs.push_back((epoch, store));
        Ok(())
    }

    /// The oldest and newest epoch held.
    pub fn span(&self) -> Option<(u64, u64)> {
        Some((self.epochs.front()?.0, self.epochs.back()?.0))
    }

    /// The store of `epoch`, if held.
    pub fn get(&self, epoch: u64) -> Option<&SvbfStore> {
        self.epochs.iter().find(|(e, _)| *e == epoch).map(|(_, s)| s)
    }

    /// Queries `key` in epochs `hint − spread ..= hint + spread` that are
    /// held. Every surviving (epoch, center) pair is a candidate; one is a
    /// Match, several a Multi-Match decided by the §3.3.4 rule across epochs:
    /// the largest per-center count, then the epoch nearest the hint, then
    /// the earlier epoch, then the lower center (as §5.4 resolves bogus
    /// epochs: "using the same tie-breaking heuristic").
    pub fn query(&self, key: u64, hint: u64, spread: u64) -> EpochAnswer {
        let (lo, hi) = (hint.saturating_sub(spread), hint.saturating_add(spread));
        let mut held_any = false;
        let mut best: Option<(u64, u64, Answer)> = None; // (epoch, count, answer)
        let mut pairs = 0u32;
        for (e, store) in self.epochs.iter().filter(|(e, _)| (lo..=hi).contains(e)) {
            held_any = true;
            let cand = store.candidates(key);
            pairs += cand.count_ones();
            if cand == 0 {
                continue;
            }
            let a = store.lookup(key);
            let count = store.counts()[a.center];
            let better = match best {
                None => true,
                Some((be, bc, _)) => count > bc || (count == bc && e.abs_diff(hint) < be.abs_diff(hint)),
            };
            if better {
                best = Some((*e, count, a));
            }
        }
        match best {
            Some((epoch, _, mut answer)) => {
                if pairs > 1 {
                    answer.kind = MatchKind::MultiMatch;
                }
                EpochAnswer::Found { epoch, answer }
            }
            None if held_any => EpochAnswer::NoMatch,
            None => EpochAnswer::Expired,
        }
    }
}

/// A range tuple (f_k, [IPid_i, IPid_j]) of §4: the packets of flow `flow`
/// with IP-IDs `first`, `first + 1`, …, `last` (modulo 2^16: a range may wrap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeQuery {
    /// Flow key (48 bits).
    pub flow: u64,
    /// First IP-ID.
    pub first: u16,
    /// Last IP-ID (inclusive).
    pub last: u16,
}

impl RangeQuery {
    /// Packets the range covers (1 ..= 65536).
    pub fn len(&self) -> usize {
        self.last.wrapping_sub(self.first) as usize + 1
    }

    /// Never empty: a range holds at least its first IP-ID.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The IP-IDs of the range, in order.
    pub fn ipids(&self) -> impl Iterator<Item = u16> + '_ {
        (0..self.len()).map(|i| self.first.wrapping_add(i as u16))
    }
}

/// The client's side of §4: a flow's IP-IDs (in packet order) broken into
/// runs of consecutive IDs, one range tuple each.
pub fn ranges_of(flow: u64, ipids: &[u16]) -> Result<Vec<RangeQuery>, String> {
    if flow >> FLOW_KEY_BITS != 0 {
        return Err(format!("flow key {flow:#x} has more than {FLOW_KEY_BITS} bits"));
    }
    let mut out: Vec<RangeQuery> = Vec::new();
    for &id in ipids {
        match out.last_mut() {
            Some(r) if id == r.last.wrapping_add(1) && r.len() < 1 << IPID_BITS => r.last = id,
            _ => out.push(RangeQuery { flow, first: id, last: id }),
        }
    }
    Ok(out)
}

/// Bytes on the wire of a chained range message against the same packets
/// queried one by one (§5.4's compression ratio = the first over the second).
pub fn message_bytes(ranges: &[RangeQuery]) -> (u64, u64) {
    let packets: u64 = ranges.iter().map(|r| r.len() as u64).sum();
    (ranges.len() as u64 * RANGE_QUERY_BYTES, packets * PACKET_QUERY_BYTES)
}

/// The aggregate response to range queries (§4: "aggregate them in its response").
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct RangeAggregate {
    /// Packets the ranges cover.
    pub packets: u64,
    /// Of those, answered Match or Multi-Match.
    pub answered: u64,
    /// Of those answered, by a Multi-Match.
    pub multi: u64,
    /// No-Match in every held epoch queried.
    pub no_match: u64,
    /// In no held epoch any more.
    pub expired: u64,
    /// Mean refined latency of the answered packets (`None` if none was).
    pub mean_latency: Option<f64>,
    /// Smallest and largest refined latency answered.
    pub min_latency: Option<u32>,
    /// Largest refined latency answered.
    pub max_latency: Option<u32>,
}

/// Expands range tuples to packet queries (epochs `hint ± spread`) and
/// answers each packet: (flow, IP-ID, answer) in order.
pub fn range_packets(
    held: &HeldEpochs,
    ranges: &[RangeQuery],
    hint: u64,
    spread: u64,
) -> Result<Vec<(u64, u16, EpochAnswer)>, String> {
    let mut out = Vec::new();
    for r in ranges {
        for id in r.ipids() {
            let key = packet_key(r.flow, id).ok_or_else(|| format!("flow key {:#x} is too wide", r.flow))?;
            out.push((r.flow, id, held.query(key, hint, spread)));
        }
    }
    Ok(out)
}

/// The same queries answered as one aggregate.
pub fn range_aggregate(
    held: &HeldEpochs,
    ranges: &[RangeQuery],
    hint: u64,
    spread: u64,
) -> Result<RangeAggregate, String> {
    let mut g = RangeAggregate::default();
    let mut sum = 0f64;
    for (_, _, a) in range_packets(held, ranges, hint, spread)? {
        g.packets += 1;
        match a {
            EpochAnswer::Found { answer, .. } => {
                g.answered += 1;
                g.multi += (answer.kind == MatchKind::MultiMatch) as u64;
                sum += answer.latency as f64;
                g.min_latency = Some(g.min_latency.map_or(answer.latency, |m| m.min(answer.latency)));
                g.max_latency = Some(g.max_latency.map_or(answer.latency, |m| m.max(answer.latency)));
            }
            EpochAnswer::NoMatch => g.no_match += 1,
            EpochAnswer::Expired => g.expired += 1,
        }
    }
    g.mean_latency = (g.answered > 0).then(|| sum / g.answered as f64);
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svbf::{Centers, SvbfConfig};

    fn store(seed_shift: u64, pkts: &[(u64, u64)]) -> SvbfStore {
        let cfg = SvbfConfig { hashes: 4, partition_log2: 12, centers: 8, ..SvbfConfig::default() };
        let centers = Centers::new(&(0..8).map(|i| 100 * (i + 1) + seed_shift as u32).collect::<Vec<_>>()).unwrap();
        let mut s = SvbfStore::new(&cfg, centers).unwrap();
        for &(k, l) in pkts {
            s.insert(k, l);
        }
        s
    }

    #[test]
    fn ranges_follow_runs_of_consecutive_ipids_and_wrap() {
        let r = ranges_of(7, &[5, 6, 7, 9, 65535, 0, 1, 1]).unwrap();
        assert_eq!(
            r,
            vec![
                RangeQuery { flow: 7, first: 5, last: 7 },
                RangeQuery { flow: 7, first: 9, last: 9 },
                RangeQuery { flow: 7, first: 65535, last: 1 },
                RangeQuery { flow: 7, first: 1, last: 1 },
            ]
        );
        assert_eq!(r[2].ipids().collect::<Vec<_>>(), vec![65535, 0, 1]);
        assert_eq!(message_bytes(&r), (40, 8 * 8));
        assert!(ranges_of(1 << 48, &[1]).is_err());
        assert_eq!(packet_key(1 << 48, 0), None);
        assert_eq!(packet_key(3, 9), Some(3 << 16 | 9));
    }

    #[test]
    fn neighbouring_epochs_find_a_packet_stored_across_the_boundary() {
        let a = store(0, &[(packet_key(1, 10).unwrap(), 310)]);
        let b = store(0, &[(packet_key(1, 11).unwrap(), 520)]);
        let mut held = HeldEpochs::new(2).unwrap();
        held.push(4, a).unwrap();
        held.push(5, b).unwrap();
        let k10 = packet_key(1, 10).unwrap();
        // The client thinks packet 10 went through in epoch 5: only spread 1 finds it.
        assert_eq!(held.query(k10, 5, 0), EpochAnswer::NoMatch);
        match held.query(k10, 5, 1) {
            EpochAnswer::Found { epoch, answer } => {
                assert_eq!((epoch, answer.kind, answer.center, answer.latency), (4, MatchKind::Match, 2, 310))
            }
            other => panic!("{other:?}"),
        }
        // Epoch 3 was never held, epoch 4 drops out when 6 arrives.
        assert_eq!(held.query(k10, 3, 0), EpochAnswer::Expired);
        held.push(6, store(0, &[])).unwrap();
        assert_eq!(held.query(k10, 4, 0), EpochAnswer::Expired);
        assert_eq!(held.span(), Some((5, 6)));
        assert!(held.push(6, store(0, &[])).is_err());
        assert!(HeldEpochs::new(0).is_err());
    }

    #[test]
    fn across_epochs_the_largest_count_wins_and_is_a_multi_match() {
        // The key in both epochs; epoch 8 holds more packets of its center.
        let k = packet_key(2, 1).unwrap();
        let mut e7 = vec![(k, 210)];
        e7.extend((0..3).map(|i| (packet_key(9, i).unwrap(), 800)));
        let mut e8 = vec![(k, 640)];
        e8.extend((0..5).map(|i| (packet_key(9, 100 + i).unwrap(), 600)));
        let mut held = HeldEpochs::new(3).unwrap();
        held.push(7, store(0, &e7)).unwrap();
        held.push(8, store(0, &e8)).unwrap();
        match held.query(k, 7, 1) {
            EpochAnswer::Found { epoch, answer } => {
                assert_eq!((epoch, answer.kind, answer.center), (8, MatchKind::MultiMatch, 5));
                assert_eq!(answer.latency, (640 + 5 * 600) / 6);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn aggregates_count_every_kind() {
        let pkts: Vec<(u64, u64)> = (0..20u16).map(|i| (packet_key(5, i).unwrap(), 100 + 10 * i as u64)).collect();
        let mut held = HeldEpochs::new(1).unwrap();
        held.push(0, store(0, &pkts)).unwrap();
        let ranges = ranges_of(5, &(0..20).collect::<Vec<_>>()).unwrap();
        let g = range_aggregate(&held, &ranges, 0, 0).unwrap();
        assert_eq!((g.packets, g.answered, g.no_match, g.expired), (20, 20, 0, 0));
        let per = range_packets(&held, &ranges, 0, 0).unwrap();
        let lat: Vec<u32> = per
            .iter()
            .map(|(_, _, a)| match a {
                EpochAnswer::Found { answer, .. } => answer.latency,
                _ => panic!("{a:?}"),
            })
            .collect();
        let mean = lat.iter().map(|&l| l as f64).sum::<f64>() / 20.0;
        assert_eq!(g.mean_latency, Some(mean));
        assert_eq!(g.min_latency, lat.iter().copied().min());
        assert_eq!(g.max_latency, lat.iter().copied().max());
        let gone = range_aggregate(&held, &ranges, 3, 1).unwrap();
        assert_eq!((gone.expired, gone.mean_latency), (20, None));
    }
}
