//! The two-level radix-32 min structure of the DBM's merge keys (Uyeda et
//! al. §5: "a 1000 bucket heap can be maintained in hardware using a 2-level
//! radix-32 heap that uses 32-way comparators").
//!
//! Slot s's key lives in group s / 32. Every group keeps its minimum (key and
//! slot) as the RTL keeps it in a register; the global minimum is a 32-way
//! comparison over the group minima. Ties go to the lower slot, in a group
//! and across groups, so the software and the RTL pick the same pair.

use super::config::{DBM_MAX_BUCKETS, DBM_RADIX, KEY_NONE};

/// Bits of a slot number in a packed (key, slot) word.
const SLOT_BITS: u32 = 10;

/// Keys of up to 1024 slots with their group minima.
///
/// Each entry is packed as key · 2^10 + slot, so one integer comparison
/// orders by key and then by slot: the minimum of the packed words is the
/// lowest slot among the smallest keys, exactly the RTL's comparators' rule.
#[derive(Clone, Debug)]
pub struct RadixMin {
    packed: Vec<u64>,
    /// Per group: its minimum packed word.
    group_min: Vec<u64>,
}

impl RadixMin {
    /// `slots` keys (at most 1024), all [`KEY_NONE`].
    pub fn new(slots: usize) -> Self {
        assert!(slots <= DBM_MAX_BUCKETS);
        let groups = slots.div_ceil(DBM_RADIX).max(1);
        let packed: Vec<u64> = (0..groups * DBM_RADIX).map(|s| (KEY_NONE << SLOT_BITS) | s as u64).collect();
        // Padded to a multiple of four with words above every real one (see `min4`).
        let group_min = (0..groups.next_multiple_of(4))
            .map(|g| if g < groups { packed[g * DBM_RADIX] } else { u64::MAX })
            .collect();
        Self { packed, group_min }
    }

    /// Slot s's key.
    #[inline]
    pub fn key(&self, s: usize) -> u64 {
        self.packed[s] >> SLOT_BITS
    }

    /// Sets slot s's key and refreshes its group's minimum.
    #[inline]
    pub fn set(&mut self, s: usize, key: u64) {
        let g = s / DBM_RADIX;
        let old = self.packed[s];
        let new = (key << SLOT_BITS) | s as u64;
        self.packed[s] = new;
        if new < self.group_min[g] {
            self.group_min[g] = new;
        } else if old == self.group_min[g] && new > old {
            self.group_min[g] = min4(&self.packed[g * DBM_RADIX..(g + 1) * DBM_RADIX]);
        }
    }

    /// The smallest key and its slot (the lowest slot among equal keys).
    #[inline]
    pub fn min(&self) -> (u64, usize) {
        let m = min4(&self.group_min);
        (m >> SLOT_BITS, (m & ((1 << SLOT_BITS) - 1)) as usize)
    }
}

/// The minimum of `v` (a multiple of four long) in four independent chains.
#[inline]
fn min4(v: &[u64]) -> u64 {
    let mut m = [u64::MAX; 4];
    for c in v.chunks_exact(4) {
        for i in 0..4 {
            m[i] = m[i].min(c[i]);
        }
    }
    m[0].min(m[1]).min(m[2].min(m[3]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    #[test]
    fn minimum_and_tie_rule_match_a_linear_scan() {
        let mut rng = SplitMix64::new(5);
        for slots in [2usize, 31, 32, 33, 500, 1024] {
            let mut r = RadixMin::new(slots);
            let mut shadow = vec![KEY_NONE; slots];
            for _ in 0..20_000 {
                let s = rng.below(slots as u64) as usize;
                // Few distinct values, so ties are common.
                let k = if rng.chance(1, 10) { KEY_NONE } else { rng.below(8) };
                r.set(s, k);
                shadow[s] = k;
                let (mut bk, mut bs) = (shadow[0], 0);
                for (i, &k) in shadow.iter().enumerate() {
                    if k < bk {
                        (bk, bs) = (k, i);
                    }
                }
                assert_eq!(r.min(), (bk, bs), "slots {slots}");
                assert_eq!(r.key(s), k);
            }
        }
    }
}
