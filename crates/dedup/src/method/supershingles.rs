//! Paper 004's megashingles (paper 003's Alg. B): one table per combination of `min_agree`
//! supershingle positions; a pair matches when at least `min_agree` supershingles agree.

use super::{bucket_pairs, Include, Method};
use crate::config::{check_min_agree, ConfigError};
use crate::evidence::{Evidence, Rule};
use crate::rphm::RpHm;
use neardup_candidates::combinations;
use neardup_sketch::SketchParams;
use neardup_store::Corpus;

pub(crate) struct Supershingles {
    pub min_agree: u32,
    /// The tables' combinations, made on the first page's keys (`table_keys` runs per page).
    combos: std::sync::OnceLock<Vec<Vec<usize>>>,
}

impl Supershingles {
    pub(crate) fn new(min_agree: u32) -> Supershingles {
        Supershingles {
            min_agree,
            combos: std::sync::OnceLock::new(),
        }
    }

    /// The candidates of the supershingle-combination tables (shared with combined and split).
    pub(crate) fn pairs(
        min_agree: u32,
        corpus: &Corpus,
        include: Include,
    ) -> (u64, Vec<(u32, u32)>) {
        let combos = Self::combos(min_agree, corpus);
        let pairs = bucket_pairs(corpus.len(), combos.len(), |p, t| {
            include(p).then(|| Self::key(corpus, p, &combos[t]))
        });
        (combos.len() as u64, pairs)
    }

    /// The tables: every combination of `min_agree` supershingle positions.
    fn combos(min_agree: u32, corpus: &Corpus) -> Vec<Vec<usize>> {
        combinations(
            corpus.family().params().supershingles as usize,
            min_agree as usize,
        )
    }

    /// Page `p`'s key in the table of one combination of positions.
    fn key(corpus: &Corpus, p: u32, combo: &[usize]) -> u64 {
        let s = corpus.supershingles(p);
        let mut buf = [0u64; 16];
        for (k, &i) in combo.iter().enumerate() {
            buf[k] = s[i];
        }
        corpus.family().key_fingerprint(&buf[..combo.len()])
    }
}

impl Method for Supershingles {
    fn validate(&self, params: &SketchParams) -> Result<(), ConfigError> {
        check_min_agree(self.min_agree, params)
    }

    fn uses_supershingles(&self) -> bool {
        true
    }

    fn candidates(
        &self,
        corpus: &Corpus,
        _: Option<&RpHm>,
        include: Include,
    ) -> (u64, Vec<(u32, u32)>) {
        Self::pairs(self.min_agree, corpus, include)
    }

    fn has_tables(&self) -> bool {
        true
    }

    fn table_keys(&self, corpus: &Corpus, p: u32, out: &mut Vec<u64>) {
        let combos = self
            .combos
            .get_or_init(|| Self::combos(self.min_agree, corpus));
        out.extend(combos.iter().map(|c| Self::key(corpus, p, c)));
    }

    fn rule(&self, _same_site: bool) -> Rule {
        Rule::Supershingles
    }

    fn accepts(&self, e: &Evidence, _threshold: f64) -> bool {
        e.b_similarity >= self.min_agree
    }

    fn accept_rule(&self, _threshold: f64) -> String {
        format!("B-similarity >= {}", self.min_agree)
    }

    fn describe(&self, params: &SketchParams, _threshold: f64, tables: u64) -> String {
        format!(
            "{tables} supershingle tables (B-similarity >= {} of {})",
            self.min_agree, params.supershingles
        )
    }
}
