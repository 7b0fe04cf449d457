//! Paper 003's Alg. C: pairs whose simhashes agree in at least `min_c` bits, found by permuted
//! block tables that miss no such pair.

use super::{bucket_pairs, Include, Method};
use crate::config::{check_min_c, ConfigError};
use crate::evidence::{Evidence, Rule};
use crate::rphm::RpHm;
use neardup_candidates::SimhashTables;
use neardup_sketch::SketchParams;
use neardup_store::Corpus;

pub(crate) struct Simhash {
    pub min_c: u32,
    pub blocks: Option<u32>,
}

impl Simhash {
    /// The tables for `min_c` of the corpus's bits.
    fn tables(min_c: u32, blocks: Option<u32>, bits: u32) -> Result<SimhashTables, ConfigError> {
        Ok(SimhashTables::new(bits, bits - min_c, blocks)?)
    }

    /// The candidates of the permuted tables (shared with split).
    pub(crate) fn pairs(
        min_c: u32,
        blocks: Option<u32>,
        corpus: &Corpus,
        include: Include,
    ) -> (u64, Vec<(u32, u32)>) {
        let bits = corpus.family().params().simhash_bits;
        // Validated before any candidates are asked for (crate::dedup checks the config).
        let Ok(tables) = Self::tables(min_c, blocks, bits) else {
            return (0, Vec::new());
        };
        let pairs = bucket_pairs(corpus.len(), tables.tables.len(), |p, t| {
            include(p).then(|| tables.key(corpus.simhash(p), t))
        });
        (tables.tables.len() as u64, pairs)
    }

    pub(crate) fn check(
        setting: &'static str,
        min_c: u32,
        blocks: Option<u32>,
        params: &SketchParams,
    ) -> Result<(), ConfigError> {
        check_min_c(setting, "simhash matching", min_c, params)?;
        Self::tables(min_c, blocks, params.simhash_bits).map(|_| ())
    }
}

impl Method for Simhash {
    fn validate(&self, params: &SketchParams) -> Result<(), ConfigError> {
        Self::check("c_threshold", self.min_c, self.blocks, params)
    }

    fn candidates(
        &self,
        corpus: &Corpus,
        _: Option<&RpHm>,
        include: Include,
    ) -> (u64, Vec<(u32, u32)>) {
        Self::pairs(self.min_c, self.blocks, corpus, include)
    }

    fn rule(&self, _same_site: bool) -> Rule {
        Rule::Simhash
    }

    fn accepts(&self, e: &Evidence, _threshold: f64) -> bool {
        e.c_similarity.unwrap_or(0) >= self.min_c
    }

    fn accept_rule(&self, _threshold: f64) -> String {
        format!("C-similarity >= {}", self.min_c)
    }

    fn describe(&self, params: &SketchParams, _threshold: f64, tables: u64) -> String {
        format!(
            "Alg. C: {tables} simhash tables (C-similarity >= {} of {})",
            self.min_c, params.simhash_bits
        )
    }
}
