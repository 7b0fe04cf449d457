//! The end of paper 003 section 3.5: pairs on different sites from Alg. C, pairs on the same
//! site from the combined algorithm. Candidates are the union of both tables.

use super::simhash::Simhash;
use super::supershingles::Supershingles;
use super::{Include, Method};
use crate::config::{check_min_agree, check_min_c, ConfigError};
use crate::evidence::{Evidence, Rule};
use crate::rphm::RpHm;
use neardup_sketch::SketchParams;
use neardup_store::Corpus;
use rayon::prelude::*;

pub(crate) struct Split {
    pub min_agree: u32,
    pub min_c_same_site: u32,
    pub min_c_other_site: u32,
    pub blocks: Option<u32>,
}

impl Method for Split {
    fn validate(&self, params: &SketchParams) -> Result<(), ConfigError> {
        check_min_agree(self.min_agree, params)?;
        Simhash::check("c_threshold", self.min_c_other_site, self.blocks, params)?;
        check_min_c(
            "combined_c_threshold",
            "split matching",
            self.min_c_same_site,
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
        let (t1, mut e1) = Supershingles::pairs(self.min_agree, corpus, include);
        let (t2, e2) = Simhash::pairs(self.min_c_other_site, self.blocks, corpus, include);
        e1.extend(e2);
        e1.par_sort_unstable();
        e1.dedup();
        (t1 + t2, e1)
    }

    fn rule(&self, same_site: bool) -> Rule {
        if same_site {
            Rule::Combined
        } else {
            Rule::Simhash
        }
    }

    fn accepts(&self, e: &Evidence, _threshold: f64) -> bool {
        let c = e.c_similarity.unwrap_or(0);
        if e.same_site {
            e.b_similarity >= self.min_agree && c >= self.min_c_same_site
        } else {
            c >= self.min_c_other_site
        }
    }

    fn accept_rule(&self, _threshold: f64) -> String {
        format!(
            "same site: B-similarity >= {} and C-similarity >= {}; other sites: C-similarity >= {}",
            self.min_agree, self.min_c_same_site, self.min_c_other_site
        )
    }

    fn describe(&self, params: &SketchParams, _threshold: f64, tables: u64) -> String {
        format!(
            "split: {tables} tables; same site B >= {} and C >= {}, other sites C >= {} of {}",
            self.min_agree, self.min_c_same_site, self.min_c_other_site, params.simhash_bits
        )
    }
}
