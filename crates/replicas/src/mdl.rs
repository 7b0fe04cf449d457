//! Fayyad and Irani's supervised discretization (IJCAI 1993): a feature's sorted values are cut
//! recursively where the class-information entropy is smallest, as long as the information gain
//! pays for the cut under the minimum description length principle:
//!
//! `Gain(A, T; S) > log2(N - 1) / N + Δ(A, T; S) / N`, with
//! `Δ = log2(3^k - 2) - (k·E(S) - k1·E(S1) - k2·E(S2))`,
//!
//! `k`, `k1`, `k2` the numbers of classes present in `S`, `S1`, `S2`.

use crate::FEATURES;

fn entropy(pos: usize, n: usize) -> f64 {
    if n == 0 || pos == 0 || pos == n {
        return 0.0;
    }
    let p = pos as f64 / n as f64;
    -(p * p.log2() + (1.0 - p) * (1.0 - p).log2())
}

fn classes(pos: usize, n: usize) -> f64 {
    ((pos > 0) as u8 + (pos < n) as u8) as f64
}

/// Cut points of one feature, increasing, from `(value, label)` examples. Values below or at a
/// cut fall left of it. NaN values are ignored.
pub fn mdl_cuts(examples: &[(f64, bool)]) -> Vec<f64> {
    let mut v: Vec<(f64, bool)> = examples.iter().copied().filter(|e| !e.0.is_nan()).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    // prefix[i] = positives among v[..i].
    let mut prefix = Vec::with_capacity(v.len() + 1);
    prefix.push(0usize);
    for e in &v {
        prefix.push(prefix.last().unwrap() + e.1 as usize);
    }
    let mut cuts = Vec::new();
    let mut stack = vec![(0usize, v.len())];
    while let Some((lo, hi)) = stack.pop() {
        let n = hi - lo;
        if n < 2 {
            continue;
        }
        let pos = prefix[hi] - prefix[lo];
        let e = entropy(pos, n);
        if e == 0.0 {
            continue;
        }
        // The cut with the smallest weighted entropy, among value changes.
        let mut best: Option<(f64, usize)> = None;
        for i in lo + 1..hi {
            if v[i].0 == v[i - 1].0 {
                continue;
            }
            let (n1, p1) = (i - lo, prefix[i] - prefix[lo]);
            let (n2, p2) = (hi - i, prefix[hi] - prefix[i]);
            let w = (n1 as f64 * entropy(p1, n1) + n2 as f64 * entropy(p2, n2)) / n as f64;
            if best.is_none_or(|(b, _)| w < b) {
                best = Some((w, i));
            }
        }
        let Some((w, i)) = best else { continue };
        let (n1, p1) = (i - lo, prefix[i] - prefix[lo]);
        let (n2, p2) = (hi - i, prefix[hi] - prefix[i]);
        let (e1, e2) = (entropy(p1, n1), entropy(p2, n2));
        let k = classes(pos, n);
        let delta =
            (3f64.powf(k) - 2.0).log2() - (k * e - classes(p1, n1) * e1 - classes(p2, n2) * e2);
        let gain = e - w;
        let nf = n as f64;
        if gain > ((nf - 1.0).log2() + delta) / nf {
            cuts.push((v[i - 1].0 + v[i].0) / 2.0);
            stack.push((lo, i));
            stack.push((i, hi));
        }
    }
    cuts.sort_by(f64::total_cmp);
    cuts
}

/// Interval of `v` among `cuts`: 0 up to the first cut, then 1, ...
pub fn interval(cuts: &[f64], v: f64) -> u8 {
    cuts.partition_point(|&c| c < v).min(u8::MAX as usize) as u8
}

/// Cut points of every feature.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Discretizer {
    /// Per feature, increasing.
    pub cuts: [Vec<f64>; FEATURES],
}

impl Discretizer {
    /// Fits every feature's cuts to the labels.
    pub fn fit(features: &[[f64; FEATURES]], labels: &[bool]) -> Discretizer {
        let cuts = std::array::from_fn(|f| {
            let ex: Vec<(f64, bool)> = features
                .iter()
                .zip(labels)
                .map(|(x, &l)| (x[f], l))
                .collect();
            mdl_cuts(&ex)
        });
        Discretizer { cuts }
    }

    /// The interval of each feature.
    pub fn items(&self, x: &[f64; FEATURES]) -> [u8; FEATURES] {
        std::array::from_fn(|f| interval(&self.cuts[f], x[f]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separable_classes_get_one_cut_between_them() {
        let mut ex: Vec<(f64, bool)> = (0..50).map(|i| (i as f64, false)).collect();
        ex.extend((0..50).map(|i| (100.0 + i as f64, true)));
        assert_eq!(mdl_cuts(&ex), vec![74.5]);
        assert_eq!(interval(&[74.5], 3.0), 0);
        assert_eq!(interval(&[74.5], 74.5), 0);
        assert_eq!(interval(&[74.5], 80.0), 1);
    }

    #[test]
    fn noise_and_tiny_sets_are_not_cut() {
        // Alternating labels: no cut pays for itself.
        let ex: Vec<(f64, bool)> = (0..200).map(|i| (i as f64, i % 2 == 0)).collect();
        assert!(mdl_cuts(&ex).is_empty());
        // One class only.
        assert!(mdl_cuts(&[(0.0, true), (1.0, true), (2.0, true)]).is_empty());
        assert!(mdl_cuts(&[]).is_empty());
    }

    #[test]
    fn three_bands_get_two_cuts() {
        // negative, positive, negative bands of 40.
        let ex: Vec<(f64, bool)> = (0..120)
            .map(|i| (i as f64, (40..80).contains(&i)))
            .collect();
        assert_eq!(mdl_cuts(&ex), vec![39.5, 79.5]);
    }

    #[test]
    fn the_criterion_by_hand() {
        // 4 negatives at 0, 4 positives at 1: E(S) = 1, the cut gives two pure halves, gain 1.
        // k = 2, k1 = k2 = 1: Δ = log2(7) - 2 = 0.807; threshold (log2(7) + 0.807) / 8 = 0.452.
        let ex: Vec<(f64, bool)> = (0..8).map(|i| ((i / 4) as f64, i >= 4)).collect();
        assert_eq!(mdl_cuts(&ex), vec![0.5]);
        // 1 negative and 1 positive: threshold (log2(1) + 0.807) / 2 = 0.404 < gain 1: a cut.
        assert_eq!(mdl_cuts(&[(0.0, false), (1.0, true)]), vec![0.5]);
    }
}
