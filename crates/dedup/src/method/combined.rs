//! Paper 003's combined algorithm (section 3.5): B-similar pairs from the supershingle tables,
//! kept only when their C-similarity reaches `min_c`.

use super::supershingles::Supershingles;
use super::{Include, Method};
use crate::config::{check_min_agree, check_min_c, ConfigError};
use crate::evidence::{Evidence, Rule};
use crate::rphm::RpHm;
use neardup_sketch::SketchParams;
use neardup_store::Corpus;

pub(crate) struct Combined {
    pub min_agree: u32,
    pub min_c: u32,
}

impl Method for Combined {
    fn validate(&self, params: &SketchParams) -> Result<(), ConfigError> {
        check_min_agree(self.min_agree, params)?;
        check_min_c(
            "combined_c_threshold",
            "combined matching",
            self.min_c,
            params,
        )
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
        Supershingles::pairs(self.min_agree, corpus, include)
    }

    fn rule(&self, _same_site: bool) -> Rule {
        Rule::Combined
    }

    fn accepts(&self, e: &Evidence, _threshold: f64) -> bool {
        e.b_similarity >= self.min_agree && e.c_similarity.unwrap_or(0) >= self.min_c
    }

    fn accept_rule(&self, _threshold: f64) -> String {
        format!(
            "B-similarity >= {} and C-similarity >= {}",
            self.min_agree, self.min_c
        )
    }

    fn describe(&self, params: &SketchParams, _threshold: f64, tables: u64) -> String {
        format!(
            "combined: {tables} supershingle tables (B-similarity >= {}), kept at C-similarity >= {} of {}",
            self.min_agree, self.min_c, params.simhash_bits
        )
    }
}
