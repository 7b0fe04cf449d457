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

use crate::lac::{Items, RuleTable};
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

fn entropy(neg: f64, pos: f64) -> f64 {
    let n = neg + pos;
    if n == 0.0 {
        return 0.0;
    }
    let h = |c: f64| {
        if c == 0.0 {
            0.0
        } else {
            -(c / n) * (c / n).ln()
        }
    };
    h(neg) + h(pos)
}

/// The best entropy cut (equations 6 and 7) of weighted points `(α(y, -), negatives,
/// positives)`: the `f` among the `α` values that minimizes `E(O_f)`, the size-weighted entropy
/// of the parts `α <= f` and `α > f` (that is, maximizes the information gain `E(O) - E(O_f)`).
/// Ties go to the smallest `f`. `None` without points.
pub fn best_entropy_cut(points: &[(f64, u32, u32)]) -> Option<f64> {
    let mut p: Vec<(f64, u32, u32)> = points.to_vec();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    cut_sorted(p.iter().copied())
}

/// [`best_entropy_cut`] over points already sorted by `α`.
fn cut_sorted(points: impl Iterator<Item = (f64, u32, u32)> + Clone) -> Option<f64> {
    let (mut tn, mut tp) = (0f64, 0f64);
    for (_, n, p) in points.clone() {
        tn += n as f64;
        tp += p as f64;
    }
    let total = tn + tp;
    if total == 0.0 {
        return None;
    }
    let (mut ln, mut lp) = (0f64, 0f64);
    let mut best: Option<(f64, f64)> = None;
    let mut it = points.peekable();
    while let Some((a, n, p)) = it.next() {
        ln += n as f64;
        lp += p as f64;
        if it.peek().is_some_and(|q| q.0 == a) {
            continue;
        }
        let (rn, rp) = (tn - ln, tp - lp);
        let e = ((ln + lp) * entropy(ln, lp) + (rn + rp) * entropy(rn, rp)) / total;
        if best.is_none_or(|(b, _)| e < b - 1e-15) {
            best = Some((e, a));
        }
    }
    best.map(|b| b.1)
}

fn shares_item(a: &Items, b: &Items) -> bool {
    (0..FEATURES).any(|f| a[f] == b[f])
}

/// Runs EM on `examples` in place (labels move) and returns the final classifier.
pub fn em(
    examples: &mut [Example],
    data: Data,
    updates: Updates,
    max_passes: usize,
) -> (RuleTable, EmStats) {
    let start = Instant::now();
    let mut table = RuleTable::build(examples.iter().map(|e| (&e.items, e.label)));
    // Distinct tuples with their label counts.
    let mut tuple_of: HashMap<Items, usize> = HashMap::new();
    let mut tuples: Vec<Items> = Vec::new();
    let mut counts: Vec<[u32; 2]> = Vec::new();
    let mut which = Vec::with_capacity(examples.len());
    for e in examples.iter() {
        let t = *tuple_of.entry(e.items).or_insert_with(|| {
            tuples.push(e.items);
            counts.push([0, 0]);
            tuples.len() - 1
        });
        counts[t][e.label as usize] += 1;
        which.push(t);
    }
    // α per tuple, and the tuples in α order; refreshed after transitions.
    let mut alpha = vec![0.0f64; tuples.len()];
    let mut order: Vec<usize> = (0..tuples.len()).collect();
    let mut dirty = true;
    let movable_label = data == Data::Nu; // NU moves positives, PU negatives
    let mut stats = EmStats {
        tuples: tuples.len(),
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
            if dirty {
                for (t, a) in alpha.iter_mut().enumerate() {
                    *a = table.score(&tuples[t]).alpha_negative();
                }
                order.sort_by(|&a, &b| alpha[a].total_cmp(&alpha[b]).then(a.cmp(&b)));
                dirty = false;
            }
            let x = e.items;
            let ax = alpha[which[i]];
            let dx = order
                .iter()
                .filter(|&&t| shares_item(&tuples[t], &x))
                .map(|&t| (alpha[t], counts[t][0], counts[t][1]));
            let Some(cut) = cut_sorted(dx) else { continue };
            let go = match data {
                Data::Pu => ax <= cut,
                Data::Nu => ax > cut,
            };
            if !go {
                continue;
            }
            let from = e.label;
            examples[i].label = !from;
            counts[which[i]][from as usize] -= 1;
            counts[which[i]][!from as usize] += 1;
            match updates {
                Updates::Incremental => table.transition(&x, from),
                Updates::FromScratch => {
                    table = RuleTable::build(examples.iter().map(|e| (&e.items, e.label)))
                }
            }
            dirty = true;
            moved += 1;
        }
        stats.transitions += moved;
        if moved == 0 {
            break;
        }
    }
    stats.rules = table.len();
    stats.seconds = start.elapsed().as_secs_f64();
    (table, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let (_, stats) = em(&mut d, Data::Pu, Updates::Incremental, 50);
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
        let (_, stats) = em(&mut d, Data::Nu, Updates::Incremental, 50);
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
        for data in [Data::Pu, Data::Nu] {
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
            let (ta, sa) = em(&mut a, data, Updates::Incremental, 50);
            let (tb, sb) = em(&mut b, data, Updates::FromScratch, 50);
            assert_eq!(a, b, "{data:?}: same labels");
            assert_eq!(ta, tb, "{data:?}: same rules");
            assert_eq!((sa.transitions, sa.passes), (sb.transitions, sb.passes));
            // And the incremental table equals one rebuilt from the final labels.
            assert_eq!(ta, RuleTable::build(a.iter().map(|e| (&e.items, e.label))));
        }
    }
}
