//! EM over PU or NU data (paper 001 section 3.3, Algorithm 2).
//!
//! PU: obvious replicas are fixed positives, every other example starts negative and may only
//! move to positive. NU: obvious non-replicas are fixed negatives, the others start positive and
//! may only move to negative. Each example `x` in turn: its classifier `R_x` gives `α(x, -)`; the
//! best entropy cut `α_min^x` over its projected training set `D_x` (the examples sharing an item
//! with `x`, each with its own `α(y, -)`) splits `D_x` into "positive" (`α <= α_min`) and
//! "negative"; PU moves `x` to positive when `α(x, -) <= α_min^x`, NU moves it to negative when
//! `α(x, -) > α_min^x`. (The paper writes `α(x, +) > α_min^x` for NU; `α_min` is a threshold on
//! `α(·, -)`, so we compare `α(x, -)`, the reading consistent with the cut.) After a transition
//! the rules applicable to `x` are updated (incrementally, or rebuilt from scratch to measure
//! what incrementality saves). Passes repeat until no label changes: transitions are
//! one-way, so the process converges.
//!
//! Examples with the same items have the same `α` and the same `D_x`: `α` is computed once per
//! distinct tuple after each transition, and each `D_x` is swept in `α` order.

use crate::lac::{key, masks, score_counts, Items, RuleTable};
use crate::FEATURES;
use std::collections::HashMap;
use std::time::Instant;

/// Which obvious examples the training set starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Data {
    /// Positives plus unlabeled (treated as negatives).
    Pu,
    /// Negatives plus unlabeled (treated as positives).
    Nu,
}

/// How the classifier follows the transitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Updates {
    /// Only the rules applicable to the moved example change.
    Incremental,
    /// The rule table is rebuilt from the whole training set after every transition.
    FromScratch,
}

/// A training example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    /// Its intervals.
    pub items: Items,
    /// Current label (`true` = replica).
    pub label: bool,
    /// Obvious (distant supervision): never moves.
    pub fixed: bool,
}

/// What an EM run did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct EmStats {
    /// Passes over the training set (the last one moves nothing).
    pub passes: usize,
    /// Label transitions.
    pub transitions: usize,
    /// Distinct item tuples.
    pub tuples: usize,
    /// Antecedents in the final rule table.
    pub rules: usize,
    /// Wall time.
    pub seconds: f64,
}

/// `k · ln k` for `k` in `0..=n` (`0 · ln 0 = 0`): with integer counts, a part of `s` examples,
/// `c` of one class, has `s · H = s ln s - Σ c ln c`, so a cut costs table lookups, not logs.
fn xlnx_table(n: usize) -> Vec<f64> {
    (0..=n)
        .map(|k| {
            if k == 0 {
                0.0
            } else {
                k as f64 * (k as f64).ln()
            }
        })
        .collect()
}

/// The best entropy cut (equations 6 and 7) of weighted points `(α(y, -), negatives,
/// positives)`: the `f` among the `α` values that minimizes `E(O_f)`, the size-weighted entropy
/// of the parts `α <= f` and `α > f` (that is, maximizes the information gain `E(O) - E(O_f)`).
/// Ties go to the smallest `f`. `None` without points.
pub fn best_entropy_cut(points: &[(f64, u32, u32)]) -> Option<f64> {
    let mut p: Vec<(f64, u32, u32)> = points.to_vec();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: usize = p.iter().map(|x| (x.1 + x.2) as usize).sum();
    cut_sorted(p.iter().copied(), &xlnx_table(total))
}

/// [`best_entropy_cut`] over points already sorted by `α`; `xlnx` covers the total count.
fn cut_sorted(points: impl Iterator<Item = (f64, u32, u32)> + Clone, xlnx: &[f64]) -> Option<f64> {
    let (mut tn, mut tp) = (0usize, 0usize);
    for (_, n, p) in points.clone() {
        tn += n as usize;
        tp += p as usize;
    }
    let total = tn + tp;
    if total == 0 {
        return None;
    }
    // size · entropy of a part with n negatives and p positives.
    let part = |n: usize, p: usize| xlnx[n + p] - xlnx[n] - xlnx[p];
    let (mut ln, mut lp) = (0usize, 0usize);
    let mut best: Option<(f64, f64)> = None;
    let mut it = points.peekable();
    while let Some((a, n, p)) = it.next() {
        ln += n as usize;
        lp += p as usize;
        if it.peek().is_some_and(|q| q.0 == a) {
            continue;
        }
        let e = (part(ln, lp) + part(tn - ln, tp - lp)) / total as f64;
        if best.is_none_or(|(b, _)| e < b - 1e-12) {
            best = Some((e, a));
        }
    }
    best.map(|b| b.1)
}

fn shares_item(a: &Items, b: &Items) -> bool {
    (0..FEATURES).any(|f| a[f] == b[f])
}

/// Rule counts over dense antecedent ids: each distinct tuple's 31 antecedents, the tuples
/// holding each antecedent, and the (negative, positive) examples per antecedent.
struct Dense {
    active: u8,
    tuples: Vec<Items>,
    keys_of: Vec<Vec<u32>>,
    tuples_of: Vec<Vec<u32>>,
    key_list: Vec<u64>,
    counts: Vec<[u32; 2]>,
}

impl Dense {
    fn new(tuples: Vec<Items>, active: u8) -> Dense {
        let mut index: HashMap<u64, u32> = HashMap::new();
        let mut key_list = Vec::new();
        let mut tuples_of: Vec<Vec<u32>> = Vec::new();
        let keys_of = tuples
            .iter()
            .enumerate()
            .map(|(t, items)| {
                masks(active)
                    .map(|m| {
                        let k = key(m, items);
                        let id = *index.entry(k).or_insert_with(|| {
                            key_list.push(k);
                            tuples_of.push(Vec::new());
                            key_list.len() as u32 - 1
                        });
                        tuples_of[id as usize].push(t as u32);
                        id
                    })
                    .collect()
            })
            .collect();
        let counts = vec![[0, 0]; key_list.len()];
        Dense {
            active,
            tuples,
            keys_of,
            tuples_of,
            key_list,
            counts,
        }
    }

    fn count(&mut self, examples: &[Example], which: &[usize]) {
        self.counts.iter_mut().for_each(|c| *c = [0, 0]);
        for (e, &t) in examples.iter().zip(which) {
            for &k in &self.keys_of[t] {
                self.counts[k as usize][e.label as usize] += 1;
            }
        }
    }

    fn alpha(&self, t: usize) -> f64 {
        score_counts(self.keys_of[t].iter().map(|&k| self.counts[k as usize])).alpha_negative()
    }

    fn table(&self) -> RuleTable {
        RuleTable::from_counts(
            self.active,
            self.key_list
                .iter()
                .zip(&self.counts)
                .map(|(&k, &c)| (k, c)),
        )
    }
}

/// Runs EM on `examples` in place (labels move) and returns the final classifier, whose rules
/// use the `active` features (bit f = feature f; `lac::MASKS` for all).
pub fn em(
    examples: &mut [Example],
    data: Data,
    updates: Updates,
    max_passes: usize,
    active: u8,
) -> (RuleTable, EmStats) {
    let start = Instant::now();
    // Distinct tuples with their label counts.
    let mut tuple_of: HashMap<Items, usize> = HashMap::new();
    let mut tuples: Vec<Items> = Vec::new();
    let mut which = Vec::with_capacity(examples.len());
    for e in examples.iter() {
        let t = *tuple_of.entry(e.items).or_insert_with(|| {
            tuples.push(e.items);
            tuples.len() - 1
        });
        which.push(t);
    }
    let mut counts: Vec<[u32; 2]> = vec![[0, 0]; tuples.len()];
    for (e, &t) in examples.iter().zip(&which) {
        counts[t][e.label as usize] += 1;
    }
    let mut dense = Dense::new(tuples, active);
    dense.count(examples, &which);
    let nt = dense.tuples.len();
    // α per tuple, and the tuples in α order.
    let mut alpha: Vec<f64> = (0..nt).map(|t| dense.alpha(t)).collect();
    let mut order: Vec<usize> = (0..nt).collect();
    let by_alpha = |alpha: &[f64], order: &mut Vec<usize>| {
        // Nearly sorted after one transition: the adaptive merge sort runs in about linear time.
        order.sort_by(|&a, &b| alpha[a].total_cmp(&alpha[b]).then(a.cmp(&b)));
    };
    by_alpha(&alpha, &mut order);
    let mut stamp = vec![0u64; nt];
    let mut cut_cache: Vec<(u64, Option<f64>)> = vec![(u64::MAX, None); nt];
    let xlnx = xlnx_table(examples.len());
    let mut version = 0u64;
    let mut epoch = 0u64;
    let movable_label = data == Data::Nu; // NU moves positives, PU negatives
    let mut stats = EmStats {
        tuples: nt,
        ..Default::default()
    };
    while stats.passes < max_passes {
        stats.passes += 1;
        let mut moved = 0;
        for i in 0..examples.len() {
            let e = examples[i];
            if e.fixed || e.label != movable_label {
                continue;
            }
            let x = e.items;
            let tx = which[i];
            // The cut depends on the tuple and the labels only: examples of one tuple share it
            // until the next transition.
            if cut_cache[tx].0 != version {
                let dx = order
                    .iter()
                    .filter(|&&t| shares_item(&dense.tuples[t], &x))
                    .map(|&t| (alpha[t], counts[t][0], counts[t][1]));
                cut_cache[tx] = (version, cut_sorted(dx, &xlnx));
            }
            let Some(cut) = cut_cache[tx].1 else { continue };
            let go = match data {
                Data::Pu => alpha[tx] <= cut,
                Data::Nu => alpha[tx] > cut,
            };
            if !go {
                continue;
            }
            let from = e.label;
            version += 1;
            examples[i].label = !from;
            counts[tx][from as usize] -= 1;
            counts[tx][!from as usize] += 1;
            match updates {
                Updates::Incremental => {
                    // Only the 31 rules applicable to x change, and only the tuples holding
                    // one of them see a new α.
                    epoch += 1;
                    for &k in &dense.keys_of[tx] {
                        dense.counts[k as usize][from as usize] -= 1;
                        dense.counts[k as usize][!from as usize] += 1;
                    }
                    for &k in &dense.keys_of[tx] {
                        for &t in &dense.tuples_of[k as usize] {
                            if stamp[t as usize] != epoch {
                                stamp[t as usize] = epoch;
                                alpha[t as usize] = dense.alpha(t as usize);
                            }
                        }
                    }
                }
                Updates::FromScratch => {
                    dense.count(examples, &which);
                    for (t, a) in alpha.iter_mut().enumerate() {
                        *a = dense.alpha(t);
                    }
                }
            }
            by_alpha(&alpha, &mut order);
            moved += 1;
        }
        stats.transitions += moved;
        if moved == 0 {
            break;
        }
    }
    let table = dense.table();
    stats.rules = table.len();
    stats.seconds = start.elapsed().as_secs_f64();
    (table, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lac::MASKS;

    #[test]
    fn entropy_cut_by_hand() {
        // Perfectly separable: negatives-free part below 0.3, positives-free above.
        let p = [(0.1, 0, 3), (0.3, 0, 2), (0.6, 4, 0), (0.9, 1, 0)];
        assert_eq!(best_entropy_cut(&p), Some(0.3));
        // One mixed point in the middle: cutting at 0.2 leaves {2+} | {1+ 1-, 3-}:
        // E = (2·0 + 5·H(1/5)) / 7; cutting at 0.5 leaves {2+, 1+ 1-} | {3-}: (4·H(1/4) + 0)/7.
        // H(1/5) = 0.500, H(1/4) = 0.562: 5·0.500 = 2.502 > 4·0.562 = 2.249, so 0.5 wins.
        let q = [(0.2, 0, 2), (0.5, 1, 1), (0.8, 3, 0)];
        assert_eq!(best_entropy_cut(&q), Some(0.5));
        // All one class: every cut has entropy 0; the smallest f wins.
        assert_eq!(best_entropy_cut(&[(0.4, 2, 0), (0.7, 1, 0)]), Some(0.4));
        assert_eq!(best_entropy_cut(&[]), None);
        // Unsorted input, equal α grouped.
        assert_eq!(
            best_entropy_cut(&[(0.9, 1, 0), (0.1, 0, 1), (0.1, 0, 1)]),
            Some(0.1)
        );
    }

    /// Positives cluster on item value 0, negatives on 2; the unlabeled include hidden
    /// positives (value 0) that PU should move and NU should keep.
    fn data(pu: bool) -> Vec<Example> {
        let ex = |v: u8, label: bool, fixed: bool| Example {
            items: [v, v, v, 1, v],
            label,
            fixed,
        };
        let mut d = Vec::new();
        for _ in 0..20 {
            d.push(ex(0, true, pu)); // obvious positives (fixed in PU)
        }
        for _ in 0..10 {
            d.push(ex(0, !pu, false)); // hidden positives, unlabeled
        }
        for _ in 0..40 {
            d.push(ex(2, false, !pu)); // negatives: unlabeled in PU, obvious in NU
        }
        d
    }

    #[test]
    fn pu_moves_hidden_positives_and_nothing_else() {
        let mut d = data(true);
        let (_, stats) = em(&mut d, Data::Pu, Updates::Incremental, 50, MASKS);
        assert!(d[20..30].iter().all(|e| e.label), "hidden positives moved");
        assert!(d[30..].iter().all(|e| !e.label), "negatives stay");
        assert_eq!(stats.transitions, 10);
    }

    #[test]
    fn nu_moves_the_negatives_sharing_items_with_obvious_negatives() {
        let mut d = data(false);
        // Unlabeled start positive; the unlabeled that look like the obvious negatives... here
        // none do (obvious negatives are the only value-2 tuples), so the hidden positives
        // stay positive and the fixed negatives stay negative.
        let (_, stats) = em(&mut d, Data::Nu, Updates::Incremental, 50, MASKS);
        assert!(d[..30].iter().all(|e| e.label));
        assert!(d[30..].iter().all(|e| !e.label));
        assert_eq!(stats.transitions, 0);
    }

    #[test]
    fn incremental_equals_from_scratch() {
        // A mixed set where transitions happen in several passes.
        let mut d = Vec::new();
        for i in 0..120u32 {
            let v = (i % 7) as u8;
            let w = (i % 5) as u8;
            let label = i % 3 == 0 && v < 3;
            d.push(Example {
                items: [v, w, (i % 2) as u8, v / 2, (w + v) % 4],
                label,
                fixed: label && i % 2 == 0,
            });
        }
        for (data, active) in [
            (Data::Pu, MASKS),
            (Data::Nu, MASKS),
            (Data::Pu, 0b10101),
            (Data::Nu, 0b00110),
        ] {
            let mut start = d.clone();
            if data == Data::Nu {
                for e in &mut start {
                    if !e.fixed {
                        e.label = true;
                    }
                    if e.fixed {
                        e.label = false;
                    }
                }
            }
            let mut a = start.clone();
            let mut b = start.clone();
            let (ta, sa) = em(&mut a, data, Updates::Incremental, 50, active);
            let (tb, sb) = em(&mut b, data, Updates::FromScratch, 50, active);
            assert_eq!(a, b, "{data:?}: same labels");
            assert_eq!(ta, tb, "{data:?}: same rules");
            assert_eq!((sa.transitions, sa.passes), (sb.transitions, sb.passes));
            // And the incremental table equals one rebuilt from the final labels.
            assert_eq!(
                ta,
                RuleTable::build_with(active, a.iter().map(|e| (&e.items, e.label)))
            );
        }
    }
}
