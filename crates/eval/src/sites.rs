//! Site-pair metrics of paper 001 section 4.1.2: ROC curve and AUC, the operating point at a
//! fixed false-positive rate, the reduction ratio of duplicate URLs when the predicted replicas
//! are removed (Table 3), and the replica detection rate among `k + 1` candidates (Table 4).

use serde::Serialize;
use std::collections::HashMap;

/// A point of a ROC curve: pairs scoring `>= threshold` are predicted replicas.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RocPoint {
    /// The threshold.
    pub threshold: f64,
    /// True-positive rate (recall).
    pub tpr: f64,
    /// False-positive rate.
    pub fpr: f64,
    /// Precision.
    pub precision: f64,
    /// Labelled pairs predicted at this threshold.
    pub predicted: usize,
}

/// A row of `roc.csv`: a point of one method's ROC curve.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct RocRow {
    /// pu, nu, pu+nu or normpaths.
    pub method: String,
    /// The threshold.
    pub threshold: f64,
    /// True-positive rate.
    pub tpr: f64,
    /// False-positive rate.
    pub fpr: f64,
    /// Precision.
    pub precision: f64,
    /// Labelled pairs predicted.
    pub predicted: u64,
}

impl neardup_report::Table for RocRow {
    const NAME: &'static str = "roc";
}

/// Scored labelled pairs sorted by decreasing score; `None` scores (never predicted) last.
fn sorted(scored: &[(bool, Option<f64>)]) -> Vec<(bool, Option<f64>)> {
    let mut v = scored.to_vec();
    v.sort_by(|a, b| match (a.1, b.1) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    v
}

/// The ROC curve from (0, 0): one point per distinct score, ties taken together; pairs without
/// a score join only at the end (1, 1).
pub fn roc_curve(scored: &[(bool, Option<f64>)]) -> Vec<RocPoint> {
    let p = scored.iter().filter(|s| s.0).count() as f64;
    let n = scored.len() as f64 - p;
    let rate = |x: f64, d: f64| if d > 0.0 { x / d } else { 0.0 };
    let v = sorted(scored);
    let mut out = vec![RocPoint {
        threshold: f64::INFINITY,
        tpr: 0.0,
        fpr: 0.0,
        precision: 1.0,
        predicted: 0,
    }];
    let (mut tp, mut fp) = (0.0, 0.0);
    let mut i = 0;
    while i < v.len() {
        let s = v[i].1;
        while i < v.len() && v[i].1 == s {
            if v[i].0 {
                tp += 1.0;
            } else {
                fp += 1.0;
            }
            i += 1;
        }
        out.push(RocPoint {
            threshold: s.unwrap_or(f64::NEG_INFINITY),
            tpr: rate(tp, p),
            fpr: rate(fp, n),
            precision: rate(tp, tp + fp),
            predicted: i,
        });
    }
    out
}

/// Area under a ROC curve (trapezoids: ties count half, as the Mann-Whitney statistic).
pub fn auc(curve: &[RocPoint]) -> f64 {
    curve
        .windows(2)
        .map(|w| (w[1].fpr - w[0].fpr) * (w[1].tpr + w[0].tpr) / 2.0)
        .sum()
}

/// The most permissive point whose false-positive rate is at most `max_fpr`.
pub fn at_fpr(curve: &[RocPoint], max_fpr: f64) -> RocPoint {
    curve
        .iter()
        .rev()
        .find(|p| p.fpr <= max_fpr + 1e-12)
        .copied()
        .unwrap_or(curve[0])
}

/// Replica detection rate (section 4.1.2): `repetitions` times, one labelled replica and `k`
/// labelled non-replicas drawn at random (seeded SplitMix64) are ranked by score; the mean of
/// `1 / position` of the replica. Ties are ranked at their mean position; unscored pairs score
/// below every scored one. `None` when there are no replicas or fewer than `k` non-replicas.
pub fn replica_detection_rate(
    scored: &[(bool, Option<f64>)],
    k: usize,
    repetitions: usize,
    seed: u64,
) -> Option<f64> {
    let key = |s: Option<f64>| s.unwrap_or(f64::NEG_INFINITY);
    let pos: Vec<f64> = scored.iter().filter(|s| s.0).map(|s| key(s.1)).collect();
    let neg: Vec<f64> = scored.iter().filter(|s| !s.0).map(|s| key(s.1)).collect();
    if pos.is_empty() || neg.len() < k || repetitions == 0 {
        return None;
    }
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut idx: Vec<usize> = (0..neg.len()).collect();
    let mut sum = 0.0;
    for _ in 0..repetitions {
        let s = pos[(next() % pos.len() as u64) as usize];
        // A partial Fisher-Yates shuffle draws k non-replicas without replacement.
        let (mut above, mut ties) = (0usize, 0usize);
        for j in 0..k {
            let r = j + (next() % (neg.len() - j) as u64) as usize;
            idx.swap(j, r);
            let t = neg[idx[j]];
            if t > s {
                above += 1;
            } else if t == s {
                ties += 1;
            }
        }
        sum += 1.0 / (1.0 + above as f64 + ties as f64 / 2.0);
    }
    Some(sum / repetitions as f64)
}

/// Reduction ratio of duplicate URLs (section 4.1.2) when the site pairs `removed` are
/// predicted replicas: sites joined by predicted pairs form groups; each group keeps its site
/// with the most pages (ties: the smallest id) and every other site of the group loses its
/// pages in dup-clusters shared with another site of the group. `site_clusters` are (site,
/// cluster, pages of the site in the cluster); `U` is all their pages. Returns (pages removed,
/// `|U|`).
pub fn reduction(
    removed: &[(u32, u32)],
    site_pages: &[u64],
    site_clusters: &[(u32, u32, u64)],
) -> (u64, u64) {
    let total: u64 = site_clusters.iter().map(|x| x.2).sum();
    let n = site_pages.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(a, b) in removed {
        let (ra, rb) = (find(&mut parent, a as usize), find(&mut parent, b as usize));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let group: Vec<usize> = (0..n).map(|s| find(&mut parent, s)).collect();
    let mut keeper: HashMap<usize, usize> = HashMap::new();
    for s in 0..n {
        let k = keeper.entry(group[s]).or_insert(s);
        if site_pages[s] > site_pages[*k] {
            *k = s;
        }
    }
    // Sites of each group per cluster.
    let mut in_cluster: HashMap<(u32, usize), u32> = HashMap::new();
    for &(s, c, _) in site_clusters {
        *in_cluster.entry((c, group[s as usize])).or_default() += 1;
    }
    let mut gone = 0;
    for &(s, c, pages) in site_clusters {
        let g = group[s as usize];
        if keeper[&g] != s as usize && in_cluster[&(c, g)] >= 2 {
            gone += pages;
        }
    }
    (gone, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roc_and_auc_by_hand() {
        // Scores: + 0.9, - 0.8, + 0.7, - 0.3, + unscored.
        let s = [
            (true, Some(0.9)),
            (false, Some(0.8)),
            (true, Some(0.7)),
            (false, Some(0.3)),
            (true, None),
        ];
        let c = roc_curve(&s);
        let pts: Vec<(f64, f64)> = c.iter().map(|p| (p.fpr, p.tpr)).collect();
        let t = 1.0 / 3.0;
        assert_eq!(
            pts,
            vec![
                (0.0, 0.0),
                (0.0, t),
                (0.5, t),
                (0.5, 2.0 * t),
                (1.0, 2.0 * t),
                (1.0, 1.0)
            ]
        );
        // Area: 0.5·1/3 + 0.5·2/3 = 0.5.
        assert!((auc(&c) - 0.5).abs() < 1e-12);
        let p = at_fpr(&c, 0.0);
        assert_eq!((p.tpr, p.predicted), (t, 1));
        assert_eq!(at_fpr(&c, 0.5).predicted, 3);
        // A perfect ranking has area 1, ties between classes count half.
        assert_eq!(
            auc(&roc_curve(&[(true, Some(1.0)), (false, Some(0.0))])),
            1.0
        );
        assert_eq!(
            auc(&roc_curve(&[(true, Some(0.5)), (false, Some(0.5))])),
            0.5
        );
    }

    #[test]
    fn detection_rate() {
        // The replica always first: 1.
        let s: Vec<(bool, Option<f64>)> = std::iter::once((true, Some(0.9)))
            .chain((0..20).map(|i| (false, Some(i as f64 / 100.0))))
            .collect();
        assert_eq!(replica_detection_rate(&s, 10, 50, 1), Some(1.0));
        // The replica always last among k + 1: 1 / (k + 1).
        let s: Vec<(bool, Option<f64>)> = std::iter::once((true, Some(0.0)))
            .chain((0..20).map(|_| (false, Some(0.5))))
            .collect();
        let r = replica_detection_rate(&s, 10, 50, 1).unwrap();
        assert!((r - 1.0 / 11.0).abs() < 1e-12);
        // All tied: mean position (k + 2) / 2.
        let s: Vec<(bool, Option<f64>)> = std::iter::once((true, Some(0.5)))
            .chain((0..20).map(|_| (false, Some(0.5))))
            .collect();
        let r = replica_detection_rate(&s, 10, 5, 1).unwrap();
        assert!((r - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(replica_detection_rate(&s, 100, 5, 1), None);
    }

    #[test]
    fn reduction_keeps_the_largest_site_of_each_group() {
        // Sites 0 (10 pages), 1 (5), 2 (3), 3 (7). Cluster 0 spans 0, 1, 2; cluster 1 spans
        // 2 and 3; cluster 2 is inside site 1 only.
        let sc = [
            (0, 0, 2),
            (1, 0, 1),
            (2, 0, 1),
            (2, 1, 2),
            (3, 1, 2),
            (1, 2, 3),
        ];
        let pages = [10, 5, 3, 7];
        // Predicted: 0~1. Site 1 goes: its page in cluster 0 (shared with 0) only.
        assert_eq!(reduction(&[(0, 1)], &pages, &sc), (1, 11));
        // Predicted 0~1, 1~2: group {0, 1, 2}, 0 kept; 1 loses 1, 2 loses 1 (cluster 0) but not
        // its cluster-1 pages (3 is in another group).
        assert_eq!(reduction(&[(0, 1), (1, 2)], &pages, &sc), (2, 11));
        // Nothing predicted: nothing removed.
        assert_eq!(reduction(&[], &pages, &sc), (0, 11));
    }
}
