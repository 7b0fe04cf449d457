//! The evidence for a pair of pages: which rule matched and every score the run computed.

use serde::Serialize;

/// Why two pages were matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Same token sequence.
    IdenticalTokens,
    /// Enough agreeing supershingles.
    Supershingles,
    /// An LSH band collision with a high enough estimated Jaccard.
    LshBands,
    /// Enough agreeing simhash bits (Alg. C).
    Simhash,
    /// B-similar and enough agreeing simhash bits (the combined algorithm).
    Combined,
    /// RP and HM signatures within the `(C, D)` tolerances (paper 000).
    RpHm,
}

/// Whether two pages' titles name the same item ([`crate::Titles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TitleMatch {
    /// The titles share a segment that is not a site name.
    Same,
    /// They share none: the pages are about different items.
    Different,
    /// Either title says nothing beyond its site (or there is none).
    Unknown,
}

impl TitleMatch {
    /// The name every table gives it (its serde name).
    pub fn name(self) -> &'static str {
        match self {
            TitleMatch::Same => "same",
            TitleMatch::Different => "different",
            TitleMatch::Unknown => "unknown",
        }
    }
}

impl From<Option<bool>> for TitleMatch {
    fn from(v: Option<bool>) -> TitleMatch {
        match v {
            Some(true) => TitleMatch::Same,
            Some(false) => TitleMatch::Different,
            None => TitleMatch::Unknown,
        }
    }
}

/// The evidence for a match.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Evidence {
    /// Which rule matched.
    pub rule: Rule,
    /// Agreeing supershingles (of `m'`).
    pub b_similarity: u32,
    /// Share of agreeing minvalues.
    pub estimated_jaccard: f64,
    /// Exact Jaccard of the shingle sets, when both pages kept theirs: small pages (at most
    /// `exact_sets` shingles), every page with `--verify`.
    pub exact_jaccard: Option<f64>,
    /// Agreeing simhash bits, when simhashes were computed.
    pub c_similarity: Option<u32>,
    /// Both pages on one site (under the configured site rule).
    pub same_site: bool,
    /// `||R_a - R_b||inf` of the normalized random projections, for rp-hm runs.
    pub rp_distance: Option<f64>,
    /// `||X_a - X_b||inf` of the hyperlink maps, for rp-hm runs.
    pub hm_distance: Option<f64>,
    /// Share of the smaller page's shingles found in the larger one (from [`Evidence::jaccard`]
    /// and the two pages' shingle counts; estimated unless the Jaccard is exact): a print view
    /// is contained in its article.
    pub containment: f64,
    /// Whether the titles name the same item (site names set aside).
    pub titles: TitleMatch,
    /// Share of each page left out of its signature: navigation, sidebars and other chrome,
    /// and host boilerplate.
    pub boilerplate_a: f64,
    /// The same for the second page.
    pub boilerplate_b: f64,
}

impl Evidence {
    /// The Jaccard similarity the decisions use: the exact one when both shingle sets were
    /// kept, else the estimate.
    pub fn jaccard(&self) -> f64 {
        self.exact_jaccard.unwrap_or(self.estimated_jaccard)
    }
}
