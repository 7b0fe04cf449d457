//! Paper 000: random-projection and hyperlink-map signatures; pages collide when both differ by
//! less than their tolerances in every component, found by a k-d tree over every page.

use super::{Include, Method};
use crate::config::ConfigError;
use crate::evidence::{Evidence, Rule};
use crate::rphm::{HmParams, RpHm};
use neardup_sketch::SketchParams;
use neardup_store::Corpus;

pub(crate) struct RpHmMethod {
    pub rp_tol: f64,
    pub hm_tol: f64,
    pub hm: HmParams,
}

impl Method for RpHmMethod {
    fn validate(&self, params: &SketchParams) -> Result<(), ConfigError> {
        if params.rp_dims == 0 {
            return Err(ConfigError::MissingSignatures {
                method: "rp-hm",
                what: "random projections",
                param: "rp_dims",
            });
        }
        let positive = |t: f64| t > 0.0 && t.is_finite();
        if !positive(self.rp_tol) {
            return Err(ConfigError::setting(
                "rp_tol",
                self.rp_tol,
                "a positive number",
            ));
        }
        if !positive(self.hm_tol) {
            return Err(ConfigError::setting(
                "hm_tol",
                self.hm_tol,
                "a positive number",
            ));
        }
        if !(self.hm.gamma >= 0.0 && self.hm.gamma.is_finite()) {
            return Err(ConfigError::setting(
                "hm_gamma",
                self.hm.gamma,
                "a number >= 0",
            ));
        }
        if self.hm.iterations > 1000 {
            return Err(ConfigError::setting(
                "hm_iterations",
                self.hm.iterations,
                "at most 1000",
            ));
        }
        Ok(())
    }

    fn prepare(&self, corpus: &Corpus) -> Option<RpHm> {
        Some(RpHm::new(corpus, self.hm))
    }

    fn searches_every_page(&self) -> bool {
        true
    }

    fn candidates(
        &self,
        _corpus: &Corpus,
        rphm: Option<&RpHm>,
        include: Include,
    ) -> (u64, Vec<(u32, u32)>) {
        match rphm {
            Some(s) => (1, s.collisions(self.rp_tol, self.hm_tol, include)),
            None => (0, Vec::new()),
        }
    }

    fn rule(&self, _same_site: bool) -> Rule {
        Rule::RpHm
    }

    fn accepts(&self, e: &Evidence, _threshold: f64) -> bool {
        e.rp_distance.is_some_and(|d| d < self.rp_tol)
            && (self.hm_tol >= 1.0 || e.hm_distance.is_some_and(|d| d < self.hm_tol))
    }

    fn accept_rule(&self, _threshold: f64) -> String {
        if self.hm_tol >= 1.0 {
            format!("RP distance < {}", self.rp_tol)
        } else {
            format!(
                "RP distance < {} and HM distance < {}",
                self.rp_tol, self.hm_tol
            )
        }
    }

    fn describe(&self, params: &SketchParams, _threshold: f64, _tables: u64) -> String {
        let rp_only = self.hm_tol >= 1.0;
        let hm_part = if rp_only {
            "RP only".to_string()
        } else {
            format!(
                "||X1-X2||inf < C = {} (gamma {}, {} iterations)",
                self.hm_tol, self.hm.gamma, self.hm.iterations
            )
        };
        let dims = params.rp_dims * if rp_only { 1 } else { 2 };
        format!(
            "rp-hm: k-d tree over {dims} dimensions, ||R1-R2||inf < D = {}, {hm_part}",
            self.rp_tol
        )
    }
}
