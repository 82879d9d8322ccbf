//! Culprit identification (Uyeda et al. §3.3): the flow behind a bucket or
//! an interval, kept with one counter.

use crate::fridge::xorshift32;

/// One step of the weighted one-counter Misra–Gries majority (Boyer–Moore by
/// bytes) over (flow, bytes) pairs: a flow with more than half the bytes ends
/// as the candidate. Used for every EXPB scale's interval and for the DBM's
/// base intervals.
pub fn majority((cand, count): (u32, u32), flow: u32, len: u32) -> (u32, u32) {
    if count == 0 {
        (flow, len)
    } else if flow == cand {
        (cand, count.saturating_add(len))
    } else if len > count {
        (flow, len - count)
    } else {
        (cand, count - len)
    }
}

/// The culprit of two merged DBM buckets (§3.3): one flow's (ID, byte count)
/// pairs add up; of two flows, `a`'s is kept iff ⌊r·(c_a + c_b) / 2^32⌋ < c_a
/// for the next xorshift32 draw r of `prng` (stepped only then), and the kept
/// flow keeps its own count.
pub fn merge_flows(prng: &mut u32, a: (u32, u32), b: (u32, u32)) -> (u32, u32) {
    if a.0 == b.0 {
        return (a.0, a.1.saturating_add(b.1));
    }
    *prng = xorshift32(*prng);
    // r · (c_a + c_b) reaches 2^65: computed in 128 bits.
    let total = a.1 as u128 + b.1 as u128;
    if (*prng as u128 * total) >> 32 < a.1 as u128 { a } else { b }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    #[test]
    fn majority_finds_a_flow_with_more_than_half_the_bytes() {
        let mut rng = SplitMix64::new(4);
        let mut m = (0, 0);
        for _ in 0..10_000 {
            let flow = if rng.chance(6, 10) { 7 } else { rng.below(100) as u32 + 10 };
            m = majority(m, flow, 1000);
        }
        assert_eq!(m.0, 7);
    }

    #[test]
    fn merged_flows_follow_their_byte_counts() {
        let mut prng = 1;
        assert_eq!(merge_flows(&mut prng, (5, 10), (5, 20)), (5, 30));
        assert_eq!(prng, 1, "same flow: no draw");
        let kept_a = (0..10_000).filter(|_| merge_flows(&mut prng, (1, 3000), (2, 1000)).0 == 1).count();
        assert!((7200..7800).contains(&kept_a), "{kept_a}");
        assert_eq!(merge_flows(&mut prng, (1, 0), (2, 0)), (2, 0), "no bytes: the later flow");
        assert_eq!(merge_flows(&mut prng, (1, 9), (2, 0)), (1, 9));
        // Counts near 2^32: r · (c_a + c_b) passes 2^64 and must not wrap. The draw after
        // state 0xF000_0000 is 0xF00F_7800 ≈ 0.94 · 2^32, so ⌊r · 2c / 2^32⌋ ≈ 1.88 c ≥ c:
        // b is kept (a product wrapped at 2^64 would keep a).
        let mut p = 0xF000_0000u32;
        let c = u32::MAX - 2;
        assert_eq!(merge_flows(&mut p, (1, c), (2, c)), (2, c));
        assert_eq!(p, 0xF00F_7800);
    }
}
