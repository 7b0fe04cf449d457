//! One module per matching method, behind the private [`Method`] trait; the public
//! [`Matching`] enum dispatches to them in [`Matching::method`]. A new method is a new module, a
//! new variant and one line there.

mod bands;
mod combined;
mod rp_hm;
mod simhash;
mod split;
mod supershingles;

use crate::config::{ConfigError, DedupConfig, Matching};
use crate::evidence::{Evidence, Rule};
use crate::rphm::RpHm;
use neardup_sketch::SketchParams;
use neardup_store::Corpus;
use rayon::prelude::*;

/// Which pages take part in candidate generation.
pub(crate) type Include<'a> = &'a (dyn Fn(u32) -> bool + Sync);

/// A matching method: what it checks, what it needs, how it finds candidate pairs, when a pair
/// matches, and how it is described.
pub(crate) trait Method: Send + Sync {
    /// Checks its settings against the signature parameters.
    fn validate(&self, params: &SketchParams) -> Result<(), ConfigError>;
    /// Supershingles take part (the summary then reports the virtually-identical level).
    fn uses_supershingles(&self) -> bool {
        false
    }
    /// Signatures computed over the whole corpus before candidates (rp-hm's normalized
    /// projections and hyperlink maps).
    fn prepare(&self, _corpus: &Corpus) -> Option<RpHm> {
        None
    }
    /// Candidates come from every page, not only identity-set representatives, and are
    /// complete (every matching pair is found), so star clusters come from the match graph.
    fn searches_every_page(&self) -> bool {
        false
    }
    /// Candidate pairs among pages where `include(p)`: the number of tables and the pairs,
    /// `(a, b)` with `a < b`, sorted and distinct.
    fn candidates(
        &self,
        corpus: &Corpus,
        rphm: Option<&RpHm>,
        include: Include,
    ) -> (u64, Vec<(u32, u32)>);
    /// Candidates come from bucket tables ([`bucket_pairs`]) keyed by [`Method::table_keys`].
    fn has_tables(&self) -> bool {
        false
    }
    /// For methods with tables: page `p`'s key in each table, appended to `out` in table order
    /// (nothing for the others).
    fn table_keys(&self, _corpus: &Corpus, _p: u32, _out: &mut Vec<u64>) {}
    /// The rule an accepted pair that is not token-identical is labelled with.
    fn rule(&self, same_site: bool) -> Rule;
    /// Whether the scores make a match (before exact verification).
    fn accepts(&self, e: &Evidence, threshold: f64) -> bool;
    /// [`Method::accepts`] in words, with its bars (`estimated Jaccard >= 0.8`).
    fn accept_rule(&self, threshold: f64) -> String;
    /// The method in a sentence, given the tables it built.
    fn describe(&self, params: &SketchParams, threshold: f64, tables: u64) -> String;
}

impl Matching {
    /// Banded LSH with the bands and rows that minimize false positives plus false negatives at
    /// Jaccard `threshold` with `m` minvalues.
    pub fn bands_for(m: u32, threshold: f64) -> Matching {
        let b = neardup_candidates::optimal_bands(m, threshold, 0.5, 0.5);
        Matching::Bands {
            bands: b.bands,
            rows: b.rows,
        }
    }

    /// The min-hash family that suits the method when none is asked for: the papers' Rabin
    /// functions for the methods built on supershingles (B-similarity), whose agreement law
    /// (`J^l` per supershingle) assumes independent functions; one-permutation hashing
    /// otherwise (same agreement probability per minvalue, one hash evaluation per shingle).
    pub fn preferred_minhash(&self) -> neardup_sketch::MinHashFamily {
        if self.method().uses_supershingles() {
            neardup_sketch::MinHashFamily::Rabin
        } else {
            neardup_sketch::MinHashFamily::Oph
        }
    }

    /// What the method does, in a sentence (for summaries), given the tables it built.
    pub fn describe(&self, params: &SketchParams, threshold: f64, tables: u64) -> String {
        self.method().describe(params, threshold, tables)
    }

    /// The method module of this variant.
    pub(crate) fn method(&self) -> Box<dyn Method> {
        match *self {
            Matching::Supershingles { min_agree } => {
                Box::new(supershingles::Supershingles::new(min_agree))
            }
            Matching::Bands { bands, rows } => Box::new(bands::Bands { bands, rows }),
            Matching::Simhash { min_c, blocks } => Box::new(simhash::Simhash { min_c, blocks }),
            Matching::Combined { min_agree, min_c } => {
                Box::new(combined::Combined { min_agree, min_c })
            }
            Matching::Split {
                min_agree,
                min_c_same_site,
                min_c_other_site,
                blocks,
            } => Box::new(split::Split {
                min_agree,
                min_c_same_site,
                min_c_other_site,
                blocks,
            }),
            Matching::RpHm { rp_tol, hm_tol, hm } => {
                Box::new(rp_hm::RpHmMethod { rp_tol, hm_tol, hm })
            }
        }
    }
}

impl DedupConfig {
    /// Checks the configuration against the signature parameters.
    pub fn validate(&self, params: &SketchParams) -> Result<(), ConfigError> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(ConfigError::setting(
                "threshold",
                self.threshold,
                "a Jaccard similarity between 0 and 1",
            ));
        }
        if let Some(b) = self.boilerplate_mostly {
            if !(0.0..=1.0).contains(&b) {
                return Err(ConfigError::setting(
                    "boilerplate_page",
                    b,
                    "a share between 0 and 1",
                ));
            }
        }
        self.matching.method().validate(params)
    }
}

/// Candidate pairs from `tables` bucket tables keyed by `key(page, table)`: within a bucket,
/// the pairs of [`crate::steps::bucket_edges`] (all pairs of a small bucket; in a large one
/// every member with the first and with its predecessor). Sorted and distinct. Each table's pairs are sorted and
/// merged into the others' as tables finish, so the pairs of all tables are never held at once
/// before their duplicates go.
pub(crate) fn bucket_pairs(
    n: u32,
    tables: usize,
    key: impl Fn(u32, usize) -> Option<u64> + Sync,
) -> Vec<(u32, u32)> {
    (0..tables)
        .into_par_iter()
        .map(|t| {
            let mut local = Vec::new();
            neardup_candidates::table_groups(n, t, &key, |members| {
                crate::steps::bucket_edges(members, |a, b| local.push((a, b)));
            });
            local.sort_unstable();
            local.dedup();
            local
        })
        .reduce(Vec::new, merge_distinct)
}

/// The candidate tables of `cfg`'s method in which pages `a` and `b` of `corpus` share a key,
/// and how many tables there are; `None` for a method without tables (simhash and rp-hm find
/// their candidates otherwise). Pages that share a key are candidates, directly or through the
/// bucket's other pages ([`crate::steps::bucket_edges`]).
pub fn shared_tables(corpus: &Corpus, cfg: &DedupConfig, a: u32, b: u32) -> Option<(usize, usize)> {
    let method = cfg.matching.method();
    if !method.has_tables() {
        return None;
    }
    let (mut ka, mut kb) = (Vec::new(), Vec::new());
    method.table_keys(corpus, a, &mut ka);
    method.table_keys(corpus, b, &mut kb);
    let part = |p: u32| crate::steps::partition(corpus.page(p).language, cfg.per_language);
    let shared = if part(a) == part(b) {
        ka.iter().zip(&kb).filter(|(x, y)| x == y).count()
    } else {
        0
    };
    Some((shared, ka.len()))
}

/// The sorted union of two sorted, distinct lists.
fn merge_distinct(a: Vec<(u32, u32)>, b: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn merge_distinct_is_the_sorted_union() {
        let a = vec![(0, 1), (0, 3), (2, 5)];
        let b = vec![(0, 2), (0, 3), (4, 4)];
        let got = super::merge_distinct(a.clone(), b.clone());
        let mut want: Vec<(u32, u32)> = a.into_iter().chain(b).collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(got, want);
        assert_eq!(super::merge_distinct(Vec::new(), want.clone()), want);
    }
}
