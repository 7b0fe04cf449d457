//! What a user asked of a dedup run, every setting optional, and the one place an unset
//! setting gets its value: [`DedupRequest::resolve`]. Every front end (the CLI's flags,
//! Python's keyword arguments, the Spark job, `index create`, the service) fills a request with
//! what its user said and nothing more, so a default is decided here and nowhere else; the
//! names of choices ([`Choice`]) are parsed here too, for clap and Python alike.
//!
//! ```
//! use neardup_dedup::{DedupRequest, Lsh};
//!
//! let r = DedupRequest::default().resolve().unwrap();
//! assert_eq!(r.config.containment, Some(0.8));
//! // The paper's supershingle matching runs as the paper defines it unless asked.
//! let paper = DedupRequest { lsh: Some(Lsh::Supershingles), ..Default::default() };
//! assert_eq!(paper.resolve().unwrap().config.containment, None);
//! ```

use crate::config::{defaults, ClusterMode, ConfigError, DedupConfig, Matching, SiteRule};
use crate::rphm::{HmParams, Scaling, TermWeights};
use neardup_cluster::Keep;
use neardup_sketch::{Content, MinHashFamily, SketchParams};

/// A setting chosen by name: the names every front end accepts, parsed in one place.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// The setting's name (a flag in `snake_case`).
    const SETTING: &'static str;
    /// Every choice with its name, the default's first where there is one.
    const CHOICES: &'static [(&'static str, Self)];

    /// The choice named `s`; an error naming the setting and every choice otherwise.
    fn parse(s: &str) -> Result<Self, ConfigError> {
        Self::CHOICES
            .iter()
            .find(|(n, _)| *n == s)
            .map(|&(_, c)| c)
            .ok_or_else(|| ConfigError::setting(Self::SETTING, format!("{s:?}"), Self::expected()))
    }

    /// The choice's name.
    fn name(self) -> &'static str {
        Self::CHOICES
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("", |(n, _)| n)
    }

    /// Every name, in order.
    fn names() -> Vec<&'static str> {
        Self::CHOICES.iter().map(|(n, _)| *n).collect()
    }

    /// "one of a, b or c".
    fn expected() -> String {
        let names: Vec<String> = Self::names().iter().map(|n| format!("{n:?}")).collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// Which near-duplicate algorithm (the CLI's `--algo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// Alg. B: shingles and min-hashes, candidates from [`Lsh`].
    Shingles,
    /// Alg. C: simhash.
    Simhash,
    /// B-similar pairs kept only when C-similar (Henzinger 3.5).
    Combined,
    /// Different-site pairs from Alg. C, same-site pairs from the combined algorithm.
    Split,
    /// Random-projection and hyperlink-map signatures (Di Iorio et al.).
    RpHm,
}

impl Choice for Algo {
    const SETTING: &'static str = "algo";
    const CHOICES: &'static [(&'static str, Algo)] = &[
        ("shingles", Algo::Shingles),
        ("simhash", Algo::Simhash),
        ("combined", Algo::Combined),
        ("split", Algo::Split),
        ("rp-hm", Algo::RpHm),
    ];
}

/// How shingle signatures find candidates (the CLI's `--lsh`, Python's `matching`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lsh {
    /// Banded LSH over the minvalues, accepted on estimated Jaccard (and the rules beyond).
    Bands,
    /// Supershingle combinations: the paper's B-similarity.
    Supershingles,
}

impl Choice for Lsh {
    const SETTING: &'static str = "matching";
    const CHOICES: &'static [(&'static str, Lsh)] =
        &[("bands", Lsh::Bands), ("supershingles", Lsh::Supershingles)];
}

impl Choice for Keep {
    const SETTING: &'static str = "keep";
    const CHOICES: &'static [(&'static str, Keep)] = &[
        ("first", Keep::First),
        ("shortest-url", Keep::ShortestUrl),
        ("longest-text", Keep::LongestText),
        ("newest", Keep::Newest),
    ];
}

impl Choice for Content {
    const SETTING: &'static str = "content";
    const CHOICES: &'static [(&'static str, Content)] =
        &[("main", Content::Main), ("page", Content::Page)];
}

impl Choice for MinHashFamily {
    const SETTING: &'static str = "minhash";
    const CHOICES: &'static [(&'static str, MinHashFamily)] =
        &[("oph", MinHashFamily::Oph), ("rabin", MinHashFamily::Rabin)];
}

impl Choice for ClusterMode {
    const SETTING: &'static str = "cluster";
    const CHOICES: &'static [(&'static str, ClusterMode)] = &[
        ("union-find", ClusterMode::UnionFind),
        ("star", ClusterMode::Star),
    ];
}

impl Choice for SiteRule {
    const SETTING: &'static str = "site";
    const CHOICES: &'static [(&'static str, SiteRule)] = &[
        ("henzinger", SiteRule::Henzinger),
        ("registered-domain", SiteRule::RegisteredDomain),
    ];
}

impl Choice for Scaling {
    const SETTING: &'static str = "rp_hm_scaling";
    const CHOICES: &'static [(&'static str, Scaling)] = &[
        ("fixed", Scaling::Fixed),
        ("collection", Scaling::Collection),
    ];
}

impl Choice for TermWeights {
    const SETTING: &'static str = "rp_weights";
    const CHOICES: &'static [(&'static str, TermWeights)] = &[
        ("relative", TermWeights::Relative),
        ("counts", TermWeights::Counts),
    ];
}

/// The B-similarity level of supershingle matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// At least 2 supershingles agree (paper 004's "very similar").
    VerySimilar,
    /// Every supershingle agrees ("virtually identical").
    VirtuallyIdentical,
    /// At least this many agree.
    Agree(u32),
}

impl Level {
    /// `very-similar`, `virtually-identical` or a number.
    pub fn parse(s: &str) -> Result<Level, ConfigError> {
        match s {
            "very-similar" => Ok(Level::VerySimilar),
            "virtually-identical" => Ok(Level::VirtuallyIdentical),
            n => n.parse().map(Level::Agree).map_err(|_| {
                ConfigError::setting(
                    "level",
                    format!("{s:?}"),
                    "very-similar, virtually-identical or a number",
                )
            }),
        }
    }

    /// The number of supershingles (of `m_prime`) that must agree; an error when out of range.
    pub fn min_agree(self, m_prime: u32) -> Result<u32, ConfigError> {
        let n = match self {
            Level::VerySimilar => 2.min(m_prime.max(1)),
            Level::VirtuallyIdentical => m_prime,
            Level::Agree(n) => n,
        };
        if m_prime > 0 && (n == 0 || n > m_prime) {
            return Err(ConfigError::setting(
                "level",
                n,
                format!("a B-similarity between 1 and the {m_prime} supershingles"),
            ));
        }
        Ok(n)
    }
}

/// Signature settings as the user gave them; unset ones come from [`SketchParams::default`]
/// (and, in a dedup request, from what the matching needs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SketchRequest {
    /// Words per shingle (`k`).
    pub shingle_words: Option<u32>,
    /// Wrap the shingle window around the page's end.
    pub wrap: Option<bool>,
    /// Min-hash functions (`m`); the exact-set cut follows it unless given.
    pub minhashes: Option<u32>,
    /// Pages with at most this many distinct shingles keep their sets.
    pub exact_sets: Option<u32>,
    /// Minvalues per supershingle (`l`).
    pub supershingle_size: Option<u32>,
    /// Supershingles per page (`m'`).
    pub supershingles: Option<u32>,
    /// The min-hash seed.
    pub seed: Option<u64>,
    /// Simhash bits (0: none).
    pub simhash_bits: Option<u32>,
    /// Random-projection dimensions (0: none).
    pub rp_dims: Option<u32>,
    /// Main content or the whole page.
    pub content: Option<Content>,
    /// The min-hash family.
    pub minhash: Option<MinHashFamily>,
}

impl SketchRequest {
    /// The validated parameters: every unset setting from [`SketchParams::default`], the
    /// min-hash family `preferred` when none is given.
    pub fn resolve(&self, preferred: MinHashFamily) -> Result<SketchParams, ConfigError> {
        let d = SketchParams::default();
        let m = self.minhashes.unwrap_or(d.m);
        let p = SketchParams {
            k: self.shingle_words.unwrap_or(d.k),
            wrap: self.wrap.unwrap_or(d.wrap),
            m,
            l: self.supershingle_size.unwrap_or(d.l),
            supershingles: self.supershingles.unwrap_or(d.supershingles),
            seed: self.seed.unwrap_or(d.seed),
            simhash_bits: self.simhash_bits.unwrap_or(d.simhash_bits),
            rp_dims: self.rp_dims.unwrap_or(d.rp_dims),
            content: self.content.unwrap_or(d.content),
            minhash: self.minhash.unwrap_or(preferred),
            exact_sets: self.exact_sets.unwrap_or(m),
            ..d
        };
        p.validate()
            .map_err(|e| ConfigError::setting(e.setting, e.value.clone(), e.expected.clone()))?;
        Ok(p)
    }
}

/// What a user asked of a dedup run: signature and matching settings, every one optional.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DedupRequest {
    /// Signature settings.
    pub sketch: SketchRequest,
    /// The algorithm (default: shingles).
    pub algo: Option<Algo>,
    /// Candidates of the shingle algorithm (default: bands).
    pub lsh: Option<Lsh>,
    /// The B-similarity level (default: very similar).
    pub level: Option<Level>,
    /// Jaccard a match must reach (default 0.8).
    pub threshold: Option<f64>,
    /// `Some(None)`: the containment rule off; unset: on at 0.8 with the default matching,
    /// off with the papers' methods.
    pub containment: Option<Option<f64>>,
    /// `Some(None)`: the title rule off; unset: on at 0.95 with the default matching, off with
    /// the papers' methods.
    pub different_titles_need: Option<Option<f64>>,
    /// LSH bands (with `rows`; default: chosen from the threshold and the containment rule).
    pub bands: Option<u32>,
    /// Minvalues per band (with `bands`).
    pub rows: Option<u32>,
    /// Check the exact Jaccard of every accepted pair (default: no).
    pub verify: Option<bool>,
    /// Match pages only within one language (default: no).
    pub per_language: Option<bool>,
    /// Clusters (default: union-find; star for rp-hm).
    pub cluster: Option<ClusterMode>,
    /// The canonical page (default: the first).
    pub keep: Option<Keep>,
    /// What "one site" means (default: Henzinger's rule).
    pub site: Option<SiteRule>,
    /// Alg. C's C-similarity threshold (default 372 of 384 bits).
    pub c_threshold: Option<u32>,
    /// The combined algorithm's C-similarity threshold (default 355).
    pub combined_c_threshold: Option<u32>,
    /// Simhash blocks (default: the fewest tables).
    pub simhash_blocks: Option<u32>,
    /// rp-hm: the RP tolerance (default: the scaling's).
    pub rp_tol: Option<f64>,
    /// rp-hm: the HM tolerance (default: the scaling's).
    pub hm_tol: Option<f64>,
    /// rp-hm: RP and HM scaling (default: fixed).
    pub rp_hm_scaling: Option<Scaling>,
    /// rp-hm: term weights (default: relative).
    pub rp_weights: Option<TermWeights>,
    /// rp-hm: the hyperlink map's gamma (default 0.5).
    pub hm_gamma: Option<f64>,
    /// rp-hm: hyperlink-map iterations (default 3).
    pub hm_iterations: Option<u32>,
}

/// A resolved request: the signature parameters and the dedup configuration, validated
/// against each other.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// Signature parameters.
    pub params: SketchParams,
    /// The dedup configuration.
    pub config: DedupConfig,
}

impl DedupRequest {
    /// Whether the matching is neardup's default (shingles with LSH bands), which brings the
    /// rules beyond Jaccard (containment, titles); the papers' methods run as the papers
    /// define them unless asked.
    pub fn default_matching(&self) -> bool {
        self.algo.unwrap_or(Algo::Shingles) == Algo::Shingles
            && self.lsh.unwrap_or(Lsh::Bands) == Lsh::Bands
    }

    /// Every setting: what the user gave, the default otherwise; validated (signatures,
    /// ranges, the method against the signatures).
    pub fn resolve(&self) -> Result<Resolved, ConfigError> {
        let algo = self.algo.unwrap_or(Algo::Shingles);
        let lsh = self.lsh.unwrap_or(Lsh::Bands);
        let mut sketch = self.sketch.clone();
        if matches!(algo, Algo::Simhash | Algo::Combined | Algo::Split) {
            sketch.simhash_bits.get_or_insert(defaults::SIMHASH_BITS);
        }
        if algo == Algo::RpHm {
            sketch.rp_dims.get_or_insert(defaults::RP_DIMS);
        }
        // The family is chosen below, once the matching is known.
        let mut params = sketch.resolve(MinHashFamily::Oph)?;
        // The level is checked whatever the method, so a bad value is always told.
        let min_agree = self
            .level
            .unwrap_or(Level::VerySimilar)
            .min_agree(params.supershingles)?;
        let default_matching = self.default_matching();
        let rule = |asked: Option<Option<f64>>, default: f64| match asked {
            Some(v) => v,
            None => default_matching.then_some(default),
        };
        let containment = rule(self.containment, defaults::CONTAINMENT);
        let different_titles_need =
            rule(self.different_titles_need, defaults::DIFFERENT_TITLES_NEED);
        let threshold = self.threshold.unwrap_or(defaults::THRESHOLD);
        let c_threshold = self.c_threshold.unwrap_or(defaults::C_THRESHOLD);
        let combined_c = self
            .combined_c_threshold
            .unwrap_or(defaults::COMBINED_C_THRESHOLD);
        let forced = match (self.bands, self.rows) {
            (Some(bands), Some(rows)) => Some(Matching::Bands { bands, rows }),
            (None, None) => None,
            (b, _) => {
                return Err(ConfigError::setting(
                    if b.is_some() { "rows" } else { "bands" },
                    "unset",
                    "bands and rows given together (bands x rows LSH tables) or neither",
                ))
            }
        };
        if forced.is_some() && !(algo == Algo::Shingles && lsh == Lsh::Bands) {
            return Err(ConfigError::setting(
                "bands",
                self.bands.unwrap_or_default(),
                "bands and rows only with LSH bands matching",
            ));
        }
        let matching = match (algo, lsh) {
            (Algo::RpHm, _) => {
                let hm = HmParams::with(
                    self.rp_hm_scaling,
                    self.rp_weights,
                    self.hm_gamma,
                    self.hm_iterations,
                );
                let (rp_tol, hm_tol) = hm.scaling.tolerances();
                Matching::RpHm {
                    rp_tol: self.rp_tol.unwrap_or(rp_tol),
                    hm_tol: self.hm_tol.unwrap_or(hm_tol),
                    hm,
                }
            }
            (Algo::Simhash, _) => Matching::Simhash {
                min_c: c_threshold,
                blocks: self.simhash_blocks,
            },
            (Algo::Combined, _) => Matching::Combined {
                min_agree,
                min_c: combined_c,
            },
            (Algo::Split, _) => Matching::Split {
                min_agree,
                min_c_same_site: combined_c,
                min_c_other_site: c_threshold,
                blocks: self.simhash_blocks,
            },
            (Algo::Shingles, Lsh::Supershingles) => Matching::Supershingles { min_agree },
            (Algo::Shingles, Lsh::Bands) => forced.unwrap_or_else(|| {
                DedupConfig::default_bands(params.m, threshold, containment.is_some())
            }),
        };
        if self.sketch.minhash.is_none() {
            params.minhash = matching.preferred_minhash();
        }
        let config = DedupConfig {
            matching,
            threshold,
            verify: self.verify.unwrap_or(false),
            cluster: self.cluster.unwrap_or(if algo == Algo::RpHm {
                ClusterMode::Star
            } else {
                ClusterMode::UnionFind
            }),
            keep: self.keep.unwrap_or(Keep::First),
            site: self.site.unwrap_or(SiteRule::Henzinger),
            boilerplate_mostly: None,
            containment,
            different_titles_need,
            per_language: self.per_language.unwrap_or(false),
        };
        check_share("threshold", Some(threshold))?;
        check_share("containment", containment)?;
        check_share("different_titles_need", different_titles_need)?;
        config.validate(&params)?;
        Ok(Resolved { params, config })
    }
}

/// A share or Jaccard in (0, 1], when given.
fn check_share(setting: &'static str, v: Option<f64>) -> Result<(), ConfigError> {
    match v {
        Some(x) if !(x > 0.0 && x <= 1.0) => {
            Err(ConfigError::setting(setting, x, "a number in (0, 1]"))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_request_is_neardups_defaults() {
        let r = DedupRequest::default().resolve().unwrap();
        let accurate = DedupConfig::accurate(SketchParams::default().m);
        assert_eq!(r.config.matching, accurate.matching);
        assert_eq!(r.config.containment, accurate.containment);
        assert_eq!(
            r.config.different_titles_need,
            accurate.different_titles_need
        );
        assert_eq!(r.config.threshold, defaults::THRESHOLD);
        assert_eq!(r.params, SketchParams::default());
    }

    #[test]
    fn the_papers_methods_bring_no_rules_unless_asked() {
        let paper = DedupRequest {
            lsh: Some(Lsh::Supershingles),
            ..Default::default()
        };
        let r = paper.resolve().unwrap();
        assert_eq!(r.config.matching, Matching::Supershingles { min_agree: 2 });
        assert_eq!(
            (r.config.containment, r.config.different_titles_need),
            (None, None)
        );
        assert_eq!(r.params.minhash, MinHashFamily::Rabin);
        let asked = DedupRequest {
            containment: Some(Some(0.9)),
            ..paper
        };
        assert_eq!(asked.resolve().unwrap().config.containment, Some(0.9));
    }

    #[test]
    fn choices_parse_by_name_and_name_every_choice_when_wrong() {
        assert_eq!(Keep::parse("newest").unwrap(), Keep::Newest);
        assert_eq!(Keep::Newest.name(), "newest");
        let e = Keep::parse("last").unwrap_err().to_string();
        assert!(e.contains("keep") && e.contains("\"shortest-url\""), "{e}");
        assert!(Level::parse("x").is_err());
        assert_eq!(Level::VirtuallyIdentical.min_agree(6).unwrap(), 6);
        assert!(Level::Agree(7).min_agree(6).is_err());
    }

    #[test]
    fn bands_need_rows_and_shares_are_checked() {
        let r = DedupRequest {
            bands: Some(9),
            ..Default::default()
        };
        assert!(r.resolve().is_err());
        let r = DedupRequest {
            threshold: Some(1.5),
            ..Default::default()
        };
        assert!(r.resolve().is_err());
    }
}
