//! The lazy associative classifier (paper 001 section 3.2, after Veloso et al. 2006).
//!
//! An example is the tuple of its features' intervals ([`Items`]). A rule `X -> l` has an
//! antecedent `X`, a non-empty subset of one example's items (a feature mask and those
//! features' intervals), and a label. Its support `σ(X)` is the number of training examples
//! holding `X`, its confidence `θ = σ(X ∪ l) / σ(X)`. For a candidate `x` only the rules whose
//! antecedent is a subset of `x` apply (the projected training set `D_x`): with five features,
//! the 31 subsets of `x`'s items. The table keeps, for every (mask, intervals) key seen in the
//! training set, the number of negative and positive examples holding it, so a candidate's
//! rules are 31 lookups and a label transition of an example is 31 increments and decrements
//! (the paper's incremental update: exactly the rules applicable to the example change).

use crate::FEATURES;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Interval of each feature.
pub type Items = [u8; FEATURES];

/// Non-empty feature subsets.
pub const MASKS: u8 = (1 << FEATURES) - 1;

/// Multiplicative hashing of the packed keys (they are already well spread in their low bits).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ (k >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Map = HashMap<u64, [u32; 2], BuildHasherDefault<KeyHasher>>;

/// The antecedent key of feature subset `mask` of `items`.
pub fn key(mask: u8, items: &Items) -> u64 {
    let mut k = mask as u64;
    for (f, &v) in items.iter().enumerate() {
        if mask & (1 << f) != 0 {
            k |= (v as u64 + 1) << (FEATURES + 9 * f);
        }
    }
    k
}

/// One rule applicable to a candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    /// Features in the antecedent (bit f = feature f).
    pub mask: u8,
    /// `σ(X)`.
    pub support: u32,
    /// `σ(X ∪ -)`.
    pub negative: u32,
    /// `σ(X ∪ +)`.
    pub positive: u32,
}

/// A candidate's scores.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    /// `s(x, +)`: mean confidence of the rules predicting `+` (equation 4).
    pub positive: f64,
    /// `s(x, -)`.
    pub negative: f64,
    /// Rules predicting `+`.
    pub rules_positive: u32,
    /// Rules predicting `-`.
    pub rules_negative: u32,
}

impl Score {
    /// `α(x, -) = s(x, -) / (s(x, -) + s(x, +))` (equation 5); 0.5 when no rule applies.
    pub fn alpha_negative(&self) -> f64 {
        let t = self.negative + self.positive;
        if t == 0.0 {
            0.5
        } else {
            self.negative / t
        }
    }

    /// `α(x, +) = 1 - α(x, -)`.
    pub fn alpha_positive(&self) -> f64 {
        1.0 - self.alpha_negative()
    }
}

/// Rule statistics of a training set, over the antecedents made of active features.
#[derive(Clone, Debug)]
pub struct RuleTable {
    counts: Map,
    active: u8,
}

impl Default for RuleTable {
    /// Every feature active.
    fn default() -> RuleTable {
        RuleTable::new(MASKS)
    }
}

/// The feature subsets made of `active` features only (all 31 when every feature is active).
pub fn masks(active: u8) -> impl Iterator<Item = u8> + Clone {
    (1..=MASKS).filter(move |m| m & !active == 0)
}

impl PartialEq for RuleTable {
    /// Equal when every antecedent has the same counts (entries counting nothing are ignored).
    fn eq(&self, other: &RuleTable) -> bool {
        let live = |m: &Map| -> Vec<(u64, [u32; 2])> {
            let mut v: Vec<(u64, [u32; 2])> = m
                .iter()
                .filter(|(_, c)| c[0] + c[1] > 0)
                .map(|(&k, &c)| (k, c))
                .collect();
            v.sort_unstable();
            v
        };
        self.active == other.active && live(&self.counts) == live(&other.counts)
    }
}

impl RuleTable {
    /// An empty table whose rules use only the features in `active` (bit f = feature f).
    pub fn new(active: u8) -> RuleTable {
        RuleTable {
            counts: Map::default(),
            active: active & MASKS,
        }
    }

    /// The table of a training set, from scratch, every feature active.
    pub fn build<'a>(examples: impl IntoIterator<Item = (&'a Items, bool)>) -> RuleTable {
        RuleTable::build_with(MASKS, examples)
    }

    /// The table of a training set, from scratch, over the `active` features.
    pub fn build_with<'a>(
        active: u8,
        examples: impl IntoIterator<Item = (&'a Items, bool)>,
    ) -> RuleTable {
        let mut t = RuleTable::new(active);
        for (items, label) in examples {
            t.add(items, label);
        }
        t
    }

    /// The active features.
    pub fn active(&self) -> u8 {
        self.active
    }

    /// Counts one more example.
    pub fn add(&mut self, items: &Items, label: bool) {
        for mask in masks(self.active) {
            self.counts.entry(key(mask, items)).or_default()[label as usize] += 1;
        }
    }

    /// Moves one example from label `from` to the other label: the incremental update of every
    /// rule applicable to it.
    pub fn transition(&mut self, items: &Items, from: bool) {
        for mask in masks(self.active) {
            let c = self
                .counts
                .get_mut(&key(mask, items))
                .expect("the example was counted");
            debug_assert!(c[from as usize] > 0);
            c[from as usize] -= 1;
            c[!from as usize] += 1;
        }
    }

    /// Number of antecedents counted.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The rules applicable to `x` (those with support), by mask.
    pub fn rules(&self, x: &Items) -> Vec<Rule> {
        masks(self.active)
            .filter_map(|mask| {
                let c = self.counts.get(&key(mask, x))?;
                let support = c[0] + c[1];
                (support > 0).then_some(Rule {
                    mask,
                    support,
                    negative: c[0],
                    positive: c[1],
                })
            })
            .collect()
    }

    /// `s(x, +)`, `s(x, -)`: every applicable rule `X -> l` with `σ(X ∪ l) > 0` votes with its
    /// confidence for `l`.
    pub fn score(&self, x: &Items) -> Score {
        score_counts(masks(self.active).filter_map(|mask| self.counts.get(&key(mask, x)).copied()))
    }

    /// Counts per antecedent key.
    pub(crate) fn from_counts(
        active: u8,
        counts: impl IntoIterator<Item = (u64, [u32; 2])>,
    ) -> RuleTable {
        RuleTable {
            counts: counts.into_iter().collect(),
            active,
        }
    }
}

/// Equations 4 and 5 from the (negative, positive) counts of the antecedents applicable to a
/// candidate, in mask order (the one summation order used everywhere, so that every way of
/// keeping the counts gives bit-identical scores).
pub fn score_counts(counts: impl IntoIterator<Item = [u32; 2]>) -> Score {
    let mut s = Score::default();
    for c in counts {
        let support = (c[0] + c[1]) as f64;
        if c[0] > 0 {
            s.negative += c[0] as f64 / support;
            s.rules_negative += 1;
        }
        if c[1] > 0 {
            s.positive += c[1] as f64 / support;
            s.rules_positive += 1;
        }
    }
    if s.rules_negative > 0 {
        s.negative /= s.rules_negative as f64;
    }
    if s.rules_positive > 0 {
        s.positive /= s.rules_positive as f64;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 1 of the paper, features in our order (ndist, nmatch, ip4, ip3, fullpath), each
    /// interval numbered from the lowest: ip4 and ip3 [0.1-0.3]=0 [0.3-0.5]=1 [0.5-0.8]=2;
    /// ndist [5-8]=0 [8-10]=1 [10-14]=2; nmatch [0.1-0.2]=0 [0.2-0.5]=1 [0.5-0.7]=2; fullpath
    /// [0.1-0.3]=0 [0.3-0.5]=1.
    fn table1() -> (Vec<(Items, bool)>, Items) {
        // (ip4, ip3, ndist, nmatch, fullpath) -> our order.
        let y = |ip4: u8, ip3: u8, nd: u8, nm: u8, fp: u8| [nd, nm, ip4, ip3, fp];
        let d = vec![
            (y(0, 1, 1, 1, 1), true),
            (y(0, 0, 2, 0, 0), false),
            (y(2, 0, 1, 0, 0), true),
            (y(0, 2, 1, 1, 1), true),
            (y(1, 2, 0, 2, 1), true),
            (y(0, 1, 1, 2, 1), false),
            (y(0, 0, 2, 0, 1), false),
            (y(1, 2, 0, 2, 1), true),
        ];
        (d, y(0, 0, 1, 1, 0))
    }

    #[test]
    fn rules_of_table_1_by_hand() {
        let (d, x) = table1();
        let t = RuleTable::build(d.iter().map(|(i, l)| (i, *l)));
        let rules = t.rules(&x);
        let get = |features: &[usize]| {
            let mask = features.iter().fold(0u8, |m, f| m | 1 << f);
            rules.iter().find(|r| r.mask == mask).copied()
        };
        let (nd, nm, ip4, ip3, fp) = (0, 1, 2, 3, 4);
        // {ip4 [0.1-0.3]}: y1+ y2- y4+ y6- y7-.
        assert_eq!(get(&[ip4]).map(|r| (r.support, r.positive)), Some((5, 2)));
        // {ip3 [0.1-0.3]}: y2- y3+ y7-.
        assert_eq!(get(&[ip3]).map(|r| (r.support, r.positive)), Some((3, 1)));
        // {ndist [8-10]}: y1+ y3+ y4+ y6-.
        assert_eq!(get(&[nd]).map(|r| (r.support, r.positive)), Some((4, 3)));
        assert_eq!(get(&[nm]).map(|r| (r.support, r.positive)), Some((2, 2)));
        assert_eq!(get(&[fp]).map(|r| (r.support, r.positive)), Some((2, 1)));
        assert_eq!(
            get(&[ip4, ip3]).map(|r| (r.support, r.positive)),
            Some((2, 0))
        );
        assert_eq!(
            get(&[ip4, nd, nm]).map(|r| (r.support, r.positive)),
            Some((2, 2))
        );
        assert_eq!(
            get(&[ip4, ip3, fp]).map(|r| (r.support, r.negative)),
            Some((1, 1))
        );
        assert_eq!(get(&[ip3, nm]), None);
        assert_eq!(get(&[nd, nm, ip4, ip3, fp]), None);
        // 13 rules predict +: confidences 2/5 1/3 3/4 1 1/2 2/3 1 1 1/2 1 1 1 1 (sum 10.15);
        // 9 predict -: 3/5 2/3 1/4 1/2 1 1/3 1 1/2 1 (sum 5.85).
        let s = t.score(&x);
        assert_eq!((s.rules_positive, s.rules_negative), (13, 9));
        assert!((s.positive - 10.15 / 13.0).abs() < 1e-12);
        assert!((s.negative - 5.85 / 9.0).abs() < 1e-12);
        let alpha = 0.65 / (0.65 + 10.15 / 13.0);
        assert!((s.alpha_negative() - alpha).abs() < 1e-12);
        assert!((s.alpha_positive() - (1.0 - alpha)).abs() < 1e-12);
    }

    #[test]
    fn inactive_features_make_no_rules() {
        let (d, x) = table1();
        // ndist and nmatch only (bits 0 and 1): rules {ndist}, {nmatch}, {ndist, nmatch}.
        let t = RuleTable::build_with(0b11, d.iter().map(|(i, l)| (i, *l)));
        let r = t.rules(&x);
        assert_eq!(r.iter().map(|r| r.mask).collect::<Vec<_>>(), vec![1, 2, 3]);
        // {ndist [8-10]} 3+ 1-, {nmatch [0.2-0.5]} 2+, {both} 2+: s(+) = (3/4 + 1 + 1) / 3,
        // s(-) = 1/4.
        let s = t.score(&x);
        assert!((s.positive - 2.75 / 3.0).abs() < 1e-12);
        assert!((s.negative - 0.25).abs() < 1e-12);
        assert_eq!(masks(MASKS).count(), 31);
    }

    #[test]
    fn transitions_equal_a_rebuild() {
        let (mut d, _) = table1();
        let mut t = RuleTable::build(d.iter().map(|(i, l)| (i, *l)));
        for i in [1, 5, 2] {
            t.transition(&d[i].0, d[i].1);
            d[i].1 = !d[i].1;
            assert_eq!(t, RuleTable::build(d.iter().map(|(i, l)| (i, *l))));
        }
        assert_ne!(t, RuleTable::default());
        // No rule applies to an unseen tuple: α = 0.5.
        assert_eq!(t.score(&[9; FEATURES]).alpha_negative(), 0.5);
    }
}
