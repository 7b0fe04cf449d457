//! Banded LSH over the minvalues: one table per band of `rows` minvalues; a candidate matches
//! when its estimated Jaccard reaches the threshold.

use super::{bucket_pairs, Include, Method};
use crate::config::ConfigError;
use crate::evidence::{Evidence, Rule};
use crate::rphm::RpHm;
use neardup_sketch::SketchParams;
use neardup_store::Corpus;

pub(crate) struct Bands {
    pub bands: u32,
    pub rows: u32,
}

impl Bands {
    /// Page `p`'s key in band `t`.
    fn key(&self, corpus: &Corpus, p: u32, t: usize) -> u64 {
        let r = self.rows as usize;
        corpus
            .family()
            .band_key(&corpus.minvalues(p)[t * r..(t + 1) * r])
    }
}

impl Method for Bands {
    fn validate(&self, params: &SketchParams) -> Result<(), ConfigError> {
        let need = self.bands as u64 * self.rows as u64;
        if self.bands == 0 || self.rows == 0 || need > params.m as u64 {
            return Err(ConfigError::setting(
                "bands",
                format!("{} x {} rows", self.bands, self.rows),
                format!(
                    "at least one band of one row, and at most the {} minvalues in all",
                    params.m
                ),
            ));
        }
        Ok(())
    }

    fn candidates(
        &self,
        corpus: &Corpus,
        _: Option<&RpHm>,
        include: Include,
    ) -> (u64, Vec<(u32, u32)>) {
        let pairs = bucket_pairs(corpus.len(), self.bands as usize, |p, t| {
            include(p).then(|| self.key(corpus, p, t))
        });
        (self.bands as u64, pairs)
    }

    fn has_tables(&self) -> bool {
        true
    }

    fn table_keys(&self, corpus: &Corpus, p: u32, out: &mut Vec<u64>) {
        out.extend((0..self.bands as usize).map(|t| self.key(corpus, p, t)));
    }

    fn rule(&self, _same_site: bool) -> Rule {
        Rule::LshBands
    }

    fn accepts(&self, e: &Evidence, threshold: f64) -> bool {
        e.jaccard() >= threshold
    }

    fn accept_rule(&self, threshold: f64) -> String {
        format!("Jaccard >= {threshold}")
    }

    fn describe(&self, _params: &SketchParams, threshold: f64, _tables: u64) -> String {
        format!(
            "LSH {} bands x {} rows (threshold {threshold})",
            self.bands, self.rows
        )
    }
}
