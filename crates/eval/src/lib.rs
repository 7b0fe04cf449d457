//! Measuring near-duplicate predictions against labelled pairs (paper 003 Tables 2, 5, 12;
//! paper 000's break-even point).
//!
//! * [`evaluate`]: precision, recall and F1 over the labelled pairs, overall, per kind and for
//!   same-site vs different-site pairs; predicted pairs the labels do not mention are counted
//!   apart (they are neither right nor wrong).
//! * [`pr_curve`] and [`break_even`]: the precision-recall curve over a score threshold.
//! * [`indel_distance`]: term differences of two token sequences (paper 003 section 3.2);
//!   [`term_diff`] the steps themselves, for showing two pages side by side.
//!
//! ```
//! use neardup_eval::{break_even, evaluate, indel_distance, pr_curve, Label, Predicted};
//!
//! let label = |a: &str, b: &str, positive| Label {
//!     a: a.into(),
//!     b: b.into(),
//!     positive,
//!     kind: String::new(),
//!     same_site: true,
//! };
//! let labels = [label("u1", "u2", true), label("u1", "u3", false)];
//! let predicted = vec![("u1".to_string(), "u2".to_string())];
//! let r = evaluate(&labels, &Predicted::Pairs(&predicted));
//! assert_eq!((r.overall.precision, r.overall.recall), (Some(1.0), Some(1.0)));
//! // Scores of the labelled pairs: the curve and where precision meets recall.
//! let curve = pr_curve(&[(true, Some(0.9)), (false, Some(0.2))]);
//! assert_eq!(break_even(&curve).unwrap().precision, 1.0);
//! assert_eq!(indel_distance(&["a", "b", "c"], &["a", "c", "d"]), 2);
//! ```

pub mod sites;

use neardup_report::plot;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A labelled pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// First URL.
    pub a: String,
    /// Second URL.
    pub b: String,
    /// True for a near-duplicate.
    pub positive: bool,
    /// Optional kind (how the pair was made), "" if none.
    pub kind: String,
    /// Both pages on one site.
    pub same_site: bool,
}

/// Confusion counts and derived scores.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Scores {
    /// Labelled positive, predicted.
    pub true_positives: u64,
    /// Labelled negative, predicted.
    pub false_positives: u64,
    /// Labelled positive, not predicted.
    pub false_negatives: u64,
    /// Labelled negative, not predicted.
    pub true_negatives: u64,
    /// TP / (TP + FP); `None` when nothing labelled was predicted.
    pub precision: Option<f64>,
    /// TP / (TP + FN); `None` without labelled positives.
    pub recall: Option<f64>,
    /// Harmonic mean of precision and recall.
    pub f1: Option<f64>,
}

impl Scores {
    fn add(&mut self, positive: bool, predicted: bool) {
        match (positive, predicted) {
            (true, true) => self.true_positives += 1,
            (false, true) => self.false_positives += 1,
            (true, false) => self.false_negatives += 1,
            (false, false) => self.true_negatives += 1,
        }
    }

    fn finish(mut self) -> Scores {
        let (tp, fp, fnn) = (
            self.true_positives as f64,
            self.false_positives as f64,
            self.false_negatives as f64,
        );
        self.precision = (tp + fp > 0.0).then(|| tp / (tp + fp));
        self.recall = (tp + fnn > 0.0).then(|| tp / (tp + fnn));
        self.f1 = match (self.precision, self.recall) {
            (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
            (Some(_), Some(_)) => Some(0.0),
            _ => None,
        };
        self
    }
}

/// The result of [`evaluate`].
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Over all labelled pairs.
    pub overall: Scores,
    /// Per kind.
    pub by_kind: BTreeMap<String, Scores>,
    /// Pairs on one site.
    pub same_site: Scores,
    /// Pairs on different sites.
    pub different_site: Scores,
    /// Predicted pairs that no label mentions (neither right nor wrong).
    pub unlabelled_predictions: u64,
    /// Labelled pairs.
    pub labelled: u64,
}

/// An unordered pair key.
fn key<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// What a prediction says.
pub enum Predicted<'a> {
    /// Explicit pairs (from a pairs file).
    Pairs(&'a [(String, String)]),
    /// Cluster ids by URL: two pages are predicted near-duplicates when they share a cluster.
    Clusters(&'a HashMap<String, u64>),
}

impl Predicted<'_> {
    fn count(&self) -> u64 {
        match self {
            Predicted::Pairs(p) => p.len() as u64,
            Predicted::Clusters(c) => {
                let mut sizes: HashMap<u64, u64> = HashMap::new();
                for id in c.values() {
                    *sizes.entry(*id).or_default() += 1;
                }
                sizes.values().map(|&s| s * (s - 1) / 2).sum()
            }
        }
    }
}

/// Scores a prediction against labels.
pub fn evaluate(labels: &[Label], predicted: &Predicted) -> Report {
    let pairs: HashSet<(&str, &str)> = match predicted {
        Predicted::Pairs(p) => p.iter().map(|(a, b)| key(a, b)).collect(),
        Predicted::Clusters(_) => HashSet::new(),
    };
    let is_predicted = |l: &Label| match predicted {
        Predicted::Pairs(_) => pairs.contains(&key(&l.a, &l.b)),
        Predicted::Clusters(c) => {
            matches!((c.get(&l.a), c.get(&l.b)), (Some(x), Some(y)) if x == y)
        }
    };
    let mut overall = Scores::default();
    let mut by_kind: BTreeMap<String, Scores> = BTreeMap::new();
    let (mut same, mut diff) = (Scores::default(), Scores::default());
    let mut seen = HashSet::new();
    let mut labelled_predicted = 0u64;
    for l in labels {
        if !seen.insert(key(&l.a, &l.b)) {
            continue; // a pair labelled twice counts once (the first label)
        }
        let p = is_predicted(l);
        labelled_predicted += p as u64;
        overall.add(l.positive, p);
        by_kind
            .entry(l.kind.clone())
            .or_default()
            .add(l.positive, p);
        if l.same_site { &mut same } else { &mut diff }.add(l.positive, p);
    }
    Report {
        overall: overall.finish(),
        by_kind: by_kind.into_iter().map(|(k, v)| (k, v.finish())).collect(),
        same_site: same.finish(),
        different_site: diff.finish(),
        unlabelled_predictions: predicted.count().saturating_sub(labelled_predicted),
        labelled: seen.len() as u64,
    }
}

/// A point of the precision-recall curve: pairs with score >= `threshold` are predicted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PrPoint {
    /// The threshold.
    pub threshold: f64,
    /// Precision at it.
    pub precision: f64,
    /// Recall at it.
    pub recall: f64,
}

/// The precision-recall curve of scored labelled pairs (`None` = never predicted, below every
/// threshold). One point per distinct score, from the highest threshold down.
pub fn pr_curve(scored: &[(bool, Option<f64>)]) -> Vec<PrPoint> {
    let positives = scored.iter().filter(|s| s.0).count() as f64;
    let mut v: Vec<(f64, bool)> = scored
        .iter()
        .filter_map(|&(p, s)| s.map(|s| (s, p)))
        .collect();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out = Vec::new();
    let (mut tp, mut fp) = (0.0, 0.0);
    let mut i = 0;
    while i < v.len() {
        let t = v[i].0;
        while i < v.len() && v[i].0 == t {
            if v[i].1 {
                tp += 1.0;
            } else {
                fp += 1.0;
            }
            i += 1;
        }
        out.push(PrPoint {
            threshold: t,
            precision: tp / (tp + fp),
            recall: if positives > 0.0 { tp / positives } else { 0.0 },
        });
    }
    out
}

/// The break-even point: where precision and recall are closest (their mean there).
pub fn break_even(curve: &[PrPoint]) -> Option<PrPoint> {
    curve.iter().copied().min_by(|a, b| {
        (a.precision - a.recall)
            .abs()
            .total_cmp(&(b.precision - b.recall).abs())
    })
}

/// The curve as an SVG plot (recall on x, precision on y), self-contained.
pub fn pr_svg(title: &str, curves: &[(&str, &[PrPoint])]) -> String {
    let series: Vec<plot::Series> = curves
        .iter()
        .map(|(name, pts)| plot::Series {
            name: name.to_string(),
            points: pts.iter().map(|p| (p.recall, p.precision)).collect(),
        })
        .collect();
    plot::line_chart(
        title,
        &plot::Axis::linear("recall", 0.0, 1.0),
        &plot::Axis::linear("precision", 0.0, 1.0),
        &series,
        false,
    )
}

/// Number of inserted plus deleted tokens in a shortest edit script between two sequences:
/// what `diff` over the token sequences counts (paper 003 section 3.2), `a.len() + b.len() - 2 *
/// LCS`. The common prefix and suffix are stripped, then the longest common subsequence is
/// counted bit-parallel (Hyyro 2004: one machine word holds 64 positions of `a`; a token's
/// positions are kept sparse, so memory is linear), so two unrelated 10,000-token pages cost at
/// most about 1.6 million word operations, not the 10^8 steps of Myers' O((N + M) D) walk at
/// D near N + M.
pub fn indel_distance<T: Eq + std::hash::Hash>(a: &[T], b: &[T]) -> usize {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    if a.is_empty() || b.is_empty() {
        return a.len() + b.len();
    }
    // Positions of `a` as bit masks, one sparse list per distinct token: (word, bits) for the
    // words holding it, in order (as many entries at most as `a` has tokens).
    let words = a.len().div_ceil(64);
    let mut slot: HashMap<&T, usize> = HashMap::new();
    let mut masks: Vec<Vec<(usize, u64)>> = Vec::new();
    for (i, t) in a.iter().enumerate() {
        let next = slot.len();
        let s = *slot.entry(t).or_insert(next);
        if s == next {
            masks.push(Vec::new());
        }
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        match masks[s].last_mut() {
            Some((lw, bits)) if *lw == w => *bits |= bit,
            _ => masks[s].push((w, bit)),
        }
    }
    // V: a zero bit at position i for every LCS step ending at a[i] (Hyyro's recurrence
    // V' = (V + (V & M)) | (V & !M), the addition carrying across words). A word without the
    // token only takes the carry: V' = (V + carry) | V.
    let mut v = vec![u64::MAX; words];
    let carry_into = |v: &mut [u64], mut from: usize, to: usize| {
        // Adds 1 at word `from`, carrying up to (not into) `to`; true if it reaches `to`.
        while from < to {
            let (x, c) = v[from].overflowing_add(1);
            v[from] |= x;
            if !c {
                return false;
            }
            from += 1;
        }
        true
    };
    for t in b {
        let Some(&s) = slot.get(t) else {
            continue;
        };
        let (mut carry, mut next) = (false, 0);
        for &(w, mw) in &masks[s] {
            if carry {
                carry = carry_into(&mut v, next, w);
            }
            let vw = v[w];
            let (sum, c1) = vw.overflowing_add(vw & mw);
            let (sum, c2) = sum.overflowing_add(carry as u64);
            carry = c1 || c2;
            v[w] = sum | (vw & !mw);
            next = w + 1;
        }
        if carry {
            carry_into(&mut v, next, words);
        }
    }
    let tail = a.len() % 64;
    let zeros: usize = v
        .iter()
        .enumerate()
        .map(|(w, &x)| {
            let x = if w + 1 == words && tail != 0 {
                x | (u64::MAX << tail)
            } else {
                x
            };
            x.count_zeros() as usize
        })
        .sum();
    a.len() + b.len() - 2 * zeros
}

/// One step of a term diff ([`term_diff`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// The next term of both sequences.
    Same,
    /// The next term of the first sequence only (deleted).
    Deleted,
    /// The next term of the second sequence only (inserted).
    Inserted,
}

/// A shortest edit script from `a` to `b` (insertions and deletions only), in order: exactly
/// [`indel_distance`] `Deleted` and `Inserted` steps, the rest `Same`. Computed over a longest
/// common subsequence table, so it costs `a.len() * b.len()` cells: callers cap the sequences
/// (the report shows a page's first terms). Ties prefer deleting first, so the script is one
/// fixed answer for the same inputs.
pub fn term_diff<T: PartialEq>(a: &[T], b: &[T]) -> Vec<Edit> {
    let (n, m) = (a.len(), b.len());
    // lcs[i * (m + 1) + j]: the longest common subsequence of a[i..] and b[j..].
    let w = m + 1;
    let mut lcs = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * w + j] = if a[i] == b[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let mut out = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(Edit::Same);
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            out.push(Edit::Deleted);
            i += 1;
        } else {
            out.push(Edit::Inserted);
            j += 1;
        }
    }
    out
}

/// Mean, median and 90th percentile of a distribution (`None` when empty).
pub fn summary(values: &mut [usize]) -> Option<(f64, usize, usize)> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let mean = values.iter().sum::<usize>() as f64 / values.len() as f64;
    let pct = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    Some((mean, pct(0.5), pct(0.9)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_term_diff_rebuilds_both_sides_in_as_many_steps_as_indel_distance_counts(
            a in proptest::collection::vec(0u8..4, 0..40),
            b in proptest::collection::vec(0u8..4, 0..40),
        ) {
            let steps = term_diff(&a, &b);
            let (mut left, mut right) = (Vec::new(), Vec::new());
            let (mut i, mut j) = (0, 0);
            for s in &steps {
                match s {
                    Edit::Same => {
                        prop_assert_eq!(a[i], b[j]);
                        left.push(a[i]);
                        right.push(b[j]);
                        i += 1;
                        j += 1;
                    }
                    Edit::Deleted => {
                        left.push(a[i]);
                        i += 1;
                    }
                    Edit::Inserted => {
                        right.push(b[j]);
                        j += 1;
                    }
                }
            }
            prop_assert_eq!(&left, &a);
            prop_assert_eq!(&right, &b);
            let edits = steps.iter().filter(|s| **s != Edit::Same).count();
            prop_assert_eq!(edits, indel_distance(&a, &b));
        }
    }

    fn label(a: &str, b: &str, positive: bool, kind: &str, same_site: bool) -> Label {
        Label {
            a: a.into(),
            b: b.into(),
            positive,
            kind: kind.into(),
            same_site,
        }
    }

    #[test]
    fn confusion_from_pairs_and_clusters() {
        let labels = vec![
            label("a", "b", true, "k1", true),
            label("c", "d", true, "k1", false),
            label("e", "f", false, "k2", true),
            label("b", "a", false, "k2", true), // duplicate of the first pair: ignored
        ];
        let pairs = vec![
            ("b".to_string(), "a".to_string()),
            ("e".into(), "f".into()),
            ("x".into(), "y".into()),
        ];
        let r = evaluate(&labels, &Predicted::Pairs(&pairs));
        assert_eq!(
            (
                r.overall.true_positives,
                r.overall.false_positives,
                r.overall.false_negatives
            ),
            (1, 1, 1)
        );
        assert_eq!(r.overall.precision, Some(0.5));
        assert_eq!(r.unlabelled_predictions, 1);
        assert_eq!(r.labelled, 3);
        assert_eq!(r.different_site.recall, Some(0.0));
        assert_eq!(r.by_kind["k2"].false_positives, 1);
        let clusters: HashMap<String, u64> = [("a", 1), ("b", 1), ("c", 2), ("d", 2), ("z", 2)]
            .iter()
            .map(|(u, c)| (u.to_string(), *c))
            .collect();
        let r = evaluate(&labels, &Predicted::Clusters(&clusters));
        assert_eq!(
            (r.overall.true_positives, r.overall.false_positives),
            (2, 0)
        );
        assert_eq!(r.overall.f1, Some(1.0));
        assert_eq!(r.unlabelled_predictions, 2); // c-z and d-z
    }

    #[test]
    fn curve_and_break_even() {
        let scored = vec![
            (true, Some(0.9)),
            (true, Some(0.8)),
            (false, Some(0.8)),
            (true, Some(0.5)),
            (false, None),
        ];
        let c = pr_curve(&scored);
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].precision, c[0].recall), (1.0, 1.0 / 3.0));
        assert_eq!(
            (c[1].threshold, c[1].precision, c[1].recall),
            (0.8, 2.0 / 3.0, 2.0 / 3.0)
        );
        assert_eq!(break_even(&c).unwrap().threshold, 0.8);
        assert!(pr_svg("t", &[("x", &c)]).starts_with("<svg"));
    }

    #[test]
    fn myers_known_cases() {
        assert_eq!(indel_distance(b"abcabba", b"cbabac"), 5);
        assert_eq!(indel_distance::<u8>(b"", b"abc"), 3);
        assert_eq!(indel_distance(b"same", b"same"), 0);
        let mut v = vec![3, 1, 2];
        assert_eq!(summary(&mut v), Some((2.0, 2, 3)));
    }

    /// The classic dynamic program: n + m - 2 LCS.
    fn lcs_distance(a: &[u8], b: &[u8]) -> usize {
        let mut dp = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                dp[i + 1][j + 1] = if a[i] == b[j] {
                    dp[i][j] + 1
                } else {
                    dp[i][j + 1].max(dp[i + 1][j])
                };
            }
        }
        a.len() + b.len() - 2 * dp[a.len()][b.len()]
    }

    proptest! {
        #[test]
        fn indel_distance_equals_the_lcs_table(a in proptest::collection::vec(0u8..6, 0..300), b in proptest::collection::vec(0u8..6, 0..300)) {
            prop_assert_eq!(indel_distance(&a, &b), lcs_distance(&a, &b));
        }
    }
}
