//! What a dedup run is asked to do: the matching method, the Jaccard threshold, verification,
//! clustering, the canonical-page rule, the site rule. Checked against the signature
//! parameters by [`DedupConfig::validate`]; [`crate::dedup`] refuses a configuration that fails
//! it, so no call panics on settings.

use neardup_candidates::TablesError;
use neardup_cluster::Keep;
use neardup_sketch::SketchParams;
use serde::Serialize;

/// Which candidate tables are built and what a match means. Each variant is one method module
/// under `method/`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Matching {
    /// At least `min_agree` of the `m'` supershingles agree (B-similarity, 2 = "very similar",
    /// `m'` = "virtually identical").
    Supershingles {
        /// The B-similarity threshold.
        min_agree: u32,
    },
    /// Banded LSH over the minvalues; a candidate is accepted when its estimated Jaccard reaches
    /// the threshold.
    Bands {
        /// Number of bands.
        bands: u32,
        /// Minvalues per band.
        rows: u32,
    },
    /// Alg. C (paper 003): C-similarity (agreeing simhash bits) at least `min_c`, candidates from
    /// permuted tables that find every such pair.
    Simhash {
        /// C-similarity threshold (paper: 372 of 384).
        min_c: u32,
        /// Blocks the simhash is cut into (`None`: distance + 1, the fewest tables).
        blocks: Option<u32>,
    },
    /// The combined algorithm (paper 003 section 3.5): B-similar pairs kept only when their
    /// C-similarity reaches `min_c` (paper: 355).
    Combined {
        /// B-similarity threshold.
        min_agree: u32,
        /// C-similarity threshold.
        min_c: u32,
    },
    /// Pairs on different sites from Alg. C, pairs on the same site from the combined algorithm
    /// (end of paper 003 section 3.5).
    Split {
        /// B-similarity threshold of the combined part.
        min_agree: u32,
        /// C-similarity threshold of the combined part (same site).
        min_c_same_site: u32,
        /// C-similarity threshold of Alg. C (different sites).
        min_c_other_site: u32,
        /// Simhash blocks for the Alg. C candidates.
        blocks: Option<u32>,
    },
    /// Paper 000: pages collide when their random-projection signatures differ by less than
    /// `rp_tol` (D) and their hyperlink-map signatures by less than `hm_tol` (C) in every
    /// component; `hm_tol >= 1` means RP only.
    RpHm {
        /// D: L-infinity tolerance on the RP signatures.
        rp_tol: f64,
        /// C: L-infinity tolerance on the HM signatures (1 = RP only).
        hm_tol: f64,
        /// The hyperlink-map iteration.
        hm: crate::rphm::HmParams,
    },
}

/// What "the same site" means for `split` and the same-site evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteRule {
    /// Henzinger's rule (paper 003 section 2): the host minus its first label when it has
    /// three or more.
    Henzinger,
    /// The registered domain (public suffix list plus one label).
    RegisteredDomain,
}

impl SiteRule {
    /// The site of a host.
    pub fn site(self, host: &str) -> &str {
        match self {
            SiteRule::Henzinger => neardup_text::henzinger_site(host),
            SiteRule::RegisteredDomain => neardup_text::registered_domain(host),
        }
    }
}

/// How clusters are formed from accepted pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterMode {
    /// Connected components (paper 004). Transitive: A~B and B~C put A and C together.
    UnionFind,
    /// A page joins a cluster only if it matches the cluster's canonical page itself.
    Star,
}

/// Settings of a dedup run.
#[derive(Clone, Debug, Serialize)]
pub struct DedupConfig {
    /// Candidate tables and match rule.
    pub matching: Matching,
    /// Jaccard threshold (bands mode, and `verify`).
    pub threshold: f64,
    /// Recompute the exact Jaccard of the shingle sets and drop pairs below the threshold.
    pub verify: bool,
    /// Clustering.
    pub cluster: ClusterMode,
    /// Canonical page rule.
    pub keep: Keep,
    /// The site rule (split mode, same-site evidence).
    pub site: SiteRule,
    /// Pages whose shingles are at least this share host boilerplate are reported and kept out
    /// of candidates and clusters (`None`: no page is kept out).
    pub boilerplate_mostly: Option<f64>,
    /// Also accept a pair whose estimated containment (the smaller page's share found in the
    /// larger) reaches this, when its estimated Jaccard is at least [`CONTAINMENT_MIN_JACCARD`]
    /// (a print view in its article, a copy missing a sentence); `None`: Jaccard only.
    pub containment: Option<f64>,
    /// Reject a pair whose titles name different items (two pages of one template) unless its
    /// estimated Jaccard reaches this; `None`: titles are not looked at.
    pub different_titles_need: Option<f64>,
    /// Match pages only within one language (`neardup_text::language`): a run over each
    /// language's pages apart, as FineWeb2 deduplicates each of its languages.
    pub per_language: bool,
}

/// The estimated Jaccard a pair accepted by containment needs at least (with containment 0.9
/// this means the smaller page has at least about 60% of the larger's shingles).
pub const CONTAINMENT_MIN_JACCARD: f64 = 0.4;

/// With titles compared (`different_titles_need`), a pair whose titles name the same item
/// (versions and release names set aside, [`neardup_text::TitleKey`]) is also accepted at this
/// estimated Jaccard: one item in another release, edition or template, whose text changed by
/// a few words in ten (at five-word shingles, a tenth of the words changed leaves about half
/// the shingles).
pub const SAME_TITLES_JACCARD: f64 = 0.5;

/// ... or at this estimated containment, with at least [`SAME_TITLES_CONTAINMENT_MIN_JACCARD`]:
/// the item's text inside another page (an excerpt, a catalogue entry in a heavier template).
pub const SAME_TITLES_CONTAINMENT: f64 = 0.75;

/// The estimated Jaccard the same-titles containment rule needs at least.
pub const SAME_TITLES_CONTAINMENT_MIN_JACCARD: f64 = 0.2;

/// ... or when they share a passage: at least [`SAME_TITLES_PASSAGE_SHINGLES`] shingles (a run
/// of about 44 words at five-word shingles), making up at least this share of the smaller page.
/// An excerpt quoted with replies around it, a catalogue entry whose versions and sizes changed
/// with a tenth of its words: the shared text is long, though each page holds more besides.
/// The floor keeps short pages, whose few shared shingles say little, to the rules above.
pub const SAME_TITLES_PASSAGE_CONTAINMENT: f64 = 0.4;

/// The shingles a shared passage holds at least.
pub const SAME_TITLES_PASSAGE_SHINGLES: u32 = 40;

/// The defaults of the settings that are plain numbers, for texts that state them.
pub mod defaults {
    /// The Jaccard a match must reach.
    pub const THRESHOLD: f64 = 0.8;
    /// The containment rule's share, with the default matching.
    pub const CONTAINMENT: f64 = 0.8;
    /// The Jaccard a pair whose titles name different items needs, with the default matching.
    pub const DIFFERENT_TITLES_NEED: f64 = 0.95;
    /// Rows per band of the default bands.
    pub const ROWS: u32 = 2;
    /// Alg. C's threshold (of 384 bits).
    pub const C_THRESHOLD: u32 = 372;
    /// The combined algorithm's C threshold.
    pub const COMBINED_C_THRESHOLD: u32 = 355;
    /// Simhash bits when a simhash method asks for none.
    pub const SIMHASH_BITS: u32 = 384;
    /// RP dimensions when rp-hm asks for none.
    pub const RP_DIMS: u32 = 5;
}

/// Why a configuration cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A setting out of range: `setting` (a field name, `snake_case`) was `value`.
    #[error("{setting} {value}: expected {expected}")]
    Setting {
        /// The setting.
        setting: &'static str,
        /// What it was.
        value: String,
        /// What it must be.
        expected: String,
    },
    /// The method needs signatures the parameters do not make.
    #[error("{method} needs {what} (signatures made with {param} > 0)")]
    MissingSignatures {
        /// The method.
        method: &'static str,
        /// The signatures.
        what: &'static str,
        /// The signature parameter that makes them.
        param: &'static str,
    },
    /// Simhash tables that cannot be built.
    #[error(transparent)]
    Tables(#[from] TablesError),
}

impl ConfigError {
    /// A setting error.
    pub fn setting(
        setting: &'static str,
        value: impl std::fmt::Display,
        expected: impl Into<String>,
    ) -> ConfigError {
        ConfigError::Setting {
            setting,
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}

impl DedupConfig {
    /// `matching` with the defaults of `neardup dedup`: Jaccard threshold 0.8, no verification,
    /// union-find clusters, the first page kept, Henzinger's site rule, no boilerplate filter.
    pub fn new(matching: Matching) -> DedupConfig {
        DedupConfig {
            matching,
            threshold: defaults::THRESHOLD,
            verify: false,
            cluster: ClusterMode::UnionFind,
            keep: Keep::First,
            site: SiteRule::Henzinger,
            boilerplate_mostly: None,
            containment: None,
            different_titles_need: None,
            per_language: false,
        }
    }

    /// neardup's defaults for signatures of `m` minvalues: LSH bands of 2 rows (`m / 2` bands:
    /// for m = 84, a pair at Jaccard 0.2 meets in at least one band with probability 0.82, at
    /// 0.3 with 0.98, so that the same-item rules' pairs, down to a shared passage, are found);
    /// a pair matches at estimated Jaccard 0.8, or at estimated containment 0.8 (with Jaccard
    /// at least [`CONTAINMENT_MIN_JACCARD`]); a pair whose titles name different items needs
    /// estimated Jaccard 0.95. Chosen on the labelled crawls of `bench/make_labelled_crawl.py`
    /// (issue 16) and `bench/make_clothes_crawl.py` (issue 57: with 3 rows, about one in ten of
    /// the excerpts and releases the rules accept never met in a band).
    pub fn accurate(m: u32) -> DedupConfig {
        let rows = defaults::ROWS.min(m.max(1));
        let mut c = DedupConfig::new(Matching::Bands {
            bands: (m / rows).max(1),
            rows,
        });
        c.containment = Some(defaults::CONTAINMENT);
        c.different_titles_need = Some(defaults::DIFFERENT_TITLES_NEED);
        c
    }

    /// The bands of the default matching for `m` minvalues: with the containment rule on, the
    /// accurate defaults' bands (pairs down to containment's Jaccard floor must meet); without
    /// it, the bands that suit `threshold`. Every front end chooses bands through this.
    pub fn default_bands(m: u32, threshold: f64, containment: bool) -> Matching {
        if containment {
            DedupConfig::accurate(m).matching
        } else {
            Matching::bands_for(m, threshold)
        }
    }

    /// The acceptance rules beyond the method's, in words (for summaries); empty for none.
    pub fn describe_acceptance(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = self.containment {
            parts.push(format!(
                "also accepted at estimated containment >= {c} with Jaccard >= {CONTAINMENT_MIN_JACCARD}"
            ));
        }
        if let Some(j) = self.different_titles_need {
            parts.push(format!(
                "pages whose titles name different items need estimated Jaccard >= {j}; \
                 pages whose titles name the same item are also accepted at estimated Jaccard \
                 >= {SAME_TITLES_JACCARD}, or containment >= {SAME_TITLES_CONTAINMENT} with \
                 Jaccard >= {SAME_TITLES_CONTAINMENT_MIN_JACCARD}, or when they share a passage \
                 of >= {SAME_TITLES_PASSAGE_SHINGLES} shingles making up >= \
                 {SAME_TITLES_PASSAGE_CONTAINMENT} of the smaller page"
            ));
        }
        parts.join("; ")
    }
}

/// Checks a B-similarity threshold against the supershingles per page.
pub(crate) fn check_min_agree(min_agree: u32, params: &SketchParams) -> Result<(), ConfigError> {
    let m_prime = params.supershingles;
    if m_prime == 0 {
        return Err(ConfigError::MissingSignatures {
            method: "supershingle matching",
            what: "supershingles",
            param: "supershingles",
        });
    }
    if min_agree == 0 || min_agree > m_prime {
        return Err(ConfigError::setting(
            "level",
            min_agree,
            format!("a B-similarity between 1 and the {m_prime} supershingles"),
        ));
    }
    Ok(())
}

/// Checks a C-similarity threshold against the simhash bits.
pub(crate) fn check_min_c(
    setting: &'static str,
    method: &'static str,
    min_c: u32,
    params: &SketchParams,
) -> Result<(), ConfigError> {
    let bits = params.simhash_bits;
    if bits == 0 {
        return Err(ConfigError::MissingSignatures {
            method,
            what: "simhashes",
            param: "simhash_bits",
        });
    }
    if min_c > bits {
        return Err(ConfigError::setting(
            setting,
            min_c,
            format!("at most the {bits} simhash bits"),
        ));
    }
    Ok(())
}
