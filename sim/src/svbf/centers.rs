//! Delay-center selection on the host (MAPLE §3.1-3.2): logarithmic
//! centers, streaming k-medians (the online facility-location stage on
//! sampled packets, then a weighted offline k-medians), the hybrid of both,
//! and the two-epoch pipeline that turns epoch i's samples into the centers
//! of epoch i + 2.

use crate::prng::SplitMix64;

/// Logarithmic centers (§3.1): `decades` sub-ranges [lo·10^d, lo·10^{d+1}),
/// k/γ centers spaced linearly in each (the last takes the remainder).
/// Duplicates (tiny `lo`) are removed, so fewer than k may come back.
pub fn log_centers(k: usize, lo: u32, decades: usize) -> Vec<u32> {
    let decades = decades.max(1);
    let per = k / decades;
    let mut v = Vec::with_capacity(k);
    for d in 0..decades {
        let n = if d + 1 == decades { k - per * (decades - 1) } else { per };
        let base = lo as f64 * 10f64.powi(d as i32);
        for i in 0..n {
            v.push((base + 9.0 * base * i as f64 / n as f64).round().min(u32::MAX as f64) as u32);
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// A weighted candidate center.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weighted {
    /// Latency.
    pub x: f64,
    /// Points it stands for.
    pub w: f64,
}

/// Online stage (§3.2, after Charikar, O'Callaghan, Panigrahy's
/// polylogarithmic-space algorithm with one thread): Meyerson's online
/// facility location with facility cost f = L / (k (1 + log n)); a point at
/// distance δ from the nearest open center opens a new one with probability
/// min(1, δ / f), else adds its weight there. When the centers exceed
/// 4k(1 + log n), L is multiplied by β = 2 and the centers are re-run as
/// weighted points. `fixed` centers (the hybrid's logarithmic half) are
/// always open.
#[derive(Clone, Debug)]
pub struct OnlineKMedians {
    k: usize,
    n_hint: f64,
    lower: f64,
    centers: Vec<Weighted>,
    fixed: Vec<f64>,
    rng: SplitMix64,
    seen: u64,
}

impl OnlineKMedians {
    /// For k final centers and about `n_hint` sampled points.
    pub fn new(k: usize, n_hint: u64, fixed: &[u32], seed: u64) -> Self {
        let mut fx: Vec<f64> = fixed.iter().map(|&c| c as f64).collect();
        fx.sort_by(f64::total_cmp);
        Self {
            k: k.max(1),
            n_hint: (n_hint.max(2)) as f64,
            lower: 0.0,
            centers: fx.iter().map(|&x| Weighted { x, w: 0.0 }).collect(),
            fixed: fx,
            rng: SplitMix64::new(seed),
            seen: 0,
        }
    }

    fn facility_cost(&self) -> f64 {
        self.lower / (self.k as f64 * (1.0 + self.n_hint.ln()))
    }

    fn nearest(&self, x: f64) -> Option<usize> {
        if self.centers.is_empty() {
            return None;
        }
        let i = self.centers.partition_point(|c| c.x < x);
        let mut best = None::<(usize, f64)>;
        for j in [i.wrapping_sub(1), i] {
            if let Some(c) = self.centers.get(j) {
                let d = (c.x - x).abs();
                if best.is_none_or(|(_, bd)| d < bd) {
                    best = Some((j, d));
                }
            }
        }
        best.map(|(j, _)| j)
    }

    fn add(&mut self, p: Weighted) {
        match self.nearest(p.x) {
            None => self.centers.push(p),
            Some(j) => {
                let d = (self.centers[j].x - p.x).abs();
                if self.lower == 0.0 && d > 0.0 {
                    self.lower = d;
                }
                let f = self.facility_cost();
                let open = d > 0.0 && (f == 0.0 || self.rng.unit_open() < (p.w * d / f).min(1.0));
                if open {
                    let at = self.centers.partition_point(|c| c.x < p.x);
                    self.centers.insert(at, p);
                } else {
                    self.centers[j].w += p.w;
                }
            }
        }
    }

    /// Takes one sampled latency.
    pub fn push(&mut self, x: f64) {
        self.seen += 1;
        self.add(Weighted { x, w: 1.0 });
        let cap = 4.0 * self.k as f64 * (1.0 + self.n_hint.ln());
        while self.centers.len() as f64 > cap + self.fixed.len() as f64 {
            // New phase: raise the lower bound and re-cluster the centers.
            self.lower *= 2.0;
            let old = std::mem::take(&mut self.centers);
            self.centers = self.fixed.iter().map(|&x| Weighted { x, w: 0.0 }).collect();
            for c in old {
                if c.w > 0.0 {
                    self.add(c);
                }
            }
        }
    }

    /// Points taken.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The candidate medians with their weights, the fixed ones included.
    pub fn candidates(&self) -> &[Weighted] {
        &self.centers
    }
}

/// Weighted 1-D k-medians of `pts` (offline stage): initial centers at
/// weighted quantiles, then alternate assignment to the nearest center and
/// the weighted median of each cluster until nothing moves (at most 50 rounds).
pub fn offline_kmedians(pts: &[Weighted], k: usize) -> Vec<f64> {
    let mut p: Vec<Weighted> = pts.iter().copied().filter(|p| p.w > 0.0).collect();
    p.sort_by(|a, b| a.x.total_cmp(&b.x));
    if p.is_empty() || k == 0 {
        return Vec::new();
    }
    let total: f64 = p.iter().map(|q| q.w).sum();
    let mut centers: Vec<f64> = (0..k)
        .map(|i| {
            let target = total * (i as f64 + 0.5) / k as f64;
            let mut acc = 0.0;
            p.iter()
                .find(|q| {
                    acc += q.w;
                    acc >= target
                })
                .map_or(p[p.len() - 1].x, |q| q.x)
        })
        .collect();
    centers.dedup();
    for _ in 0..50 {
        // Points are sorted, so clusters are runs split at the midpoints.
        let mut next = Vec::with_capacity(centers.len());
        let mut start = 0;
        for (ci, _) in centers.iter().enumerate() {
            let hi = if ci + 1 < centers.len() { (centers[ci] + centers[ci + 1]) / 2.0 } else { f64::INFINITY };
            let end = start + p[start..].partition_point(|q| q.x < hi);
            if end > start {
                let w: f64 = p[start..end].iter().map(|q| q.w).sum();
                let mut acc = 0.0;
                let med = p[start..end]
                    .iter()
                    .find(|q| {
                        acc += q.w;
                        acc >= w / 2.0
                    })
                    .map_or(p[end - 1].x, |q| q.x);
                next.push(med);
            }
            start = end;
        }
        next.dedup();
        if next == centers {
            break;
        }
        centers = next;
    }
    centers
}

/// How the centers of an epoch are chosen (§3.1-3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clustering {
    /// Static logarithmic centers.
    Log,
    /// Streaming k-medians of the samples of two epochs back.
    Kmedians,
    /// k/2 logarithmic + k/2 streaming k-medians.
    Hybrid,
}

impl std::str::FromStr for Clustering {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "log" => Ok(Self::Log),
            "kmedians" => Ok(Self::Kmedians),
            "hybrid" => Ok(Self::Hybrid),
            _ => Err(format!("clustering `{s}`: use log, kmedians or hybrid")),
        }
    }
}

/// Centers from one epoch's online stage: exactly `k` strictly increasing
/// values (padded from the logarithmic set when the data have fewer distinct
/// medians), ready for [`super::Centers::new`].
pub fn centers_from(mode: Clustering, k: usize, online: Option<&OnlineKMedians>, lo: u32, decades: usize) -> Vec<u32> {
    let logs = log_centers(k, lo, decades);
    let mut v: Vec<u32> = match (mode, online) {
        (Clustering::Log, _) | (_, None) => logs.clone(),
        (Clustering::Kmedians, Some(o)) => {
            offline_kmedians(o.candidates(), k).iter().map(|&x| x.round().max(0.0) as u32).collect()
        }
        (Clustering::Hybrid, Some(o)) => {
            let half = log_centers(k / 2, lo, decades);
            // The fixed (logarithmic) candidates are left out of the offline stage (§3.2).
            let dynamic: Vec<Weighted> =
                o.candidates().iter().copied().filter(|c| !half.contains(&(c.x.round() as u32))).collect();
            let mut v = half;
            v.extend(offline_kmedians(&dynamic, k - k / 2).iter().map(|&x| x.round().max(0.0) as u32));
            v
        }
    };
    v.sort_unstable();
    v.dedup();
    // Pad with logarithmic values not yet present, then trim to k.
    for &c in &logs {
        if v.len() >= k {
            break;
        }
        if let Err(at) = v.binary_search(&c) {
            v.insert(at, c);
        }
    }
    let mut extra = 1u32;
    while v.len() < k {
        let c = v.last().copied().unwrap_or(0).saturating_add(extra);
        extra += 1;
        if let Err(at) = v.binary_search(&c) {
            v.insert(at, c);
        }
    }
    if v.len() > k {
        // Keep k, dropping the closest neighbours' upper member first.
        while v.len() > k {
            let j = (1..v.len()).min_by_key(|&j| v[j] - v[j - 1]).unwrap_or(1);
            v.remove(j);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_centers_are_increasing_decades() {
        let c = log_centers(50, 100, 5);
        assert_eq!(c.len(), 50);
        assert!(c.windows(2).all(|w| w[0] < w[1]));
        assert_eq!((c[0], c[10], c[40]), (100, 1000, 1_000_000));
        assert!(*c.last().unwrap() < 10_000_000);
    }

    #[test]
    fn offline_kmedians_finds_separated_clusters() {
        let mut pts = Vec::new();
        for (m, w) in [(10.0, 5.0), (1000.0, 3.0), (50_000.0, 7.0)] {
            for d in [-2.0, -1.0, 0.0, 1.0, 2.0] {
                pts.push(Weighted { x: m + d, w });
            }
        }
        assert_eq!(offline_kmedians(&pts, 3), vec![10.0, 1000.0, 50_000.0]);
    }

    #[test]
    fn online_stage_keeps_few_candidates_and_all_the_weight() {
        let mut o = OnlineKMedians::new(10, 100_000, &[], 3);
        let mut rng = SplitMix64::new(1);
        for _ in 0..100_000 {
            o.push(1000.0 * (-rng.unit_open().ln()));
        }
        let w: f64 = o.candidates().iter().map(|c| c.w).sum();
        assert_eq!(w, 100_000.0);
        assert!(o.candidates().len() <= (4.0 * 10.0 * (1.0 + 100_000f64.ln())) as usize);
        assert!(o.candidates().len() >= 10);
    }

    #[test]
    fn kmedians_beats_log_centers_on_clustered_delays() {
        // Delays around three values: k-medians puts centers on them.
        let mut rng = SplitMix64::new(7);
        let sample =
            |rng: &mut SplitMix64| [300.0, 4_000.0, 70_000.0][rng.below(3) as usize] * (0.95 + 0.1 * rng.unit_open());
        let mut o = OnlineKMedians::new(8, 20_000, &[], 5);
        for _ in 0..20_000 {
            o.push(sample(&mut rng));
        }
        let cost = |c: &[u32], rng: &mut SplitMix64| {
            (0..5000)
                .map(|_| {
                    let x = sample(rng);
                    c.iter().map(|&v| (v as f64 - x).abs()).fold(f64::INFINITY, f64::min)
                })
                .sum::<f64>()
        };
        let km = centers_from(Clustering::Kmedians, 8, Some(&o), 100, 4);
        let lg = centers_from(Clustering::Log, 8, None, 100, 4);
        let hy = centers_from(Clustering::Hybrid, 8, Some(&o), 100, 4);
        for c in [&km, &lg, &hy] {
            assert_eq!(c.len(), 8);
            assert!(c.windows(2).all(|w| w[0] < w[1]));
        }
        let (ckm, clg, chy) = (cost(&km, &mut rng), cost(&lg, &mut rng), cost(&hy, &mut rng));
        assert!(ckm < clg / 2.0, "k-medians {ckm} vs log {clg}");
        assert!(chy < clg, "hybrid {chy} vs log {clg}");
    }

    #[test]
    fn clustering_names_parse() {
        assert_eq!("hybrid".parse::<Clustering>().unwrap(), Clustering::Hybrid);
        assert!("kmeans".parse::<Clustering>().unwrap_err().contains("log, kmedians or hybrid"));
    }
}
