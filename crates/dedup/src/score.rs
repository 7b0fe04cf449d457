//! Scoring a pair: its evidence under a configuration, and whether that evidence is a match.

use crate::config::DedupConfig;
use crate::evidence::{Evidence, Rule};
use crate::method::Method;
use crate::rphm::RpHm;
use crate::titles::Titles;
use neardup_candidates::{agreement, exact_jaccard_at};
use neardup_store::Corpus;
use neardup_text::language::Language;

/// What scoring needs of one page of a pair, wherever the page is held (a corpus, or an
/// index's catalog).
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    /// Host, lowercased (the site rule).
    pub host: &'a str,
    /// Token-sequence hash and number of terms (identical pages).
    pub token_hash: u64,
    /// Number of terms.
    pub tokens: u32,
    /// Distinct shingles (containment).
    pub shingles: u32,
    /// Share of terms left out as chrome.
    pub chrome: f32,
    /// Share of shingles that were host boilerplate.
    pub boilerplate: f32,
    /// Minvalues (their low 32 bits, or the low `minvalue_bits` of them).
    pub minvalues: &'a [u32],
    /// The bits of each minvalue held: 32, or 16 or 8 from an index that keeps b-bit
    /// minvalues (a pair is scored on the bits both sides hold, corrected for collisions).
    pub minvalue_bits: u32,
    /// The shingle set when kept: its members' low `set_bits` bits.
    pub shingle_set: Option<&'a [u32]>,
    /// The bits of each shingle set member held: 32, or 18 to 30 from an index that keeps
    /// b-bit sets (a pair is compared on the bits both sides hold).
    pub set_bits: u32,
    /// Supershingles (empty where not kept, as in an index's catalog).
    pub supershingles: &'a [u64],
    /// The simhash (empty where not computed).
    pub simhash: &'a [u64],
    /// The page's language (`Language::UNKNOWN` where not known, as in an index written
    /// before languages were kept).
    pub language: Language,
}

impl<'a> Side<'a> {
    /// Page `p` of a corpus.
    pub fn of(corpus: &'a Corpus, p: u32) -> Side<'a> {
        let m = corpus.page(p);
        Side {
            host: m.host,
            token_hash: m.token_hash,
            tokens: m.tokens,
            shingles: m.shingles,
            chrome: m.chrome,
            boilerplate: m.boilerplate,
            minvalues: corpus.minvalues(p),
            minvalue_bits: 32,
            shingle_set: corpus.shingles(p),
            set_bits: 32,
            supershingles: corpus.supershingles(p),
            simhash: corpus.simhash(p),
            language: m.language,
        }
    }
}

/// What two titles say (`titles`: whether their own segments agree) about two pages: the same
/// item in two languages of two writing systems is a [`crate::TitleMatch::Translation`]. Only
/// the writing system is trusted: a language told from a short or mixed sample can be another
/// of the same script (Czech read as Vietnamese, an article read in its template's language),
/// never another script.
pub(crate) fn title_match(titles: Option<bool>, a: &Side, b: &Side) -> crate::TitleMatch {
    // Asked only of agreeing titles of two languages (scoring asks of every pair).
    let translation = titles == Some(true)
        && a.language != b.language
        && matches!(
            (a.language.writing_system(), b.language.writing_system()),
            (Some(x), Some(y)) if x != y
        );
    if translation {
        crate::TitleMatch::Translation
    } else {
        titles.into()
    }
}

/// The evidence every method shares (Jaccard, identity, containment, site, what was left out);
/// `method_rule` names the rule of a pair whose tokens differ, from whether it is same-site.
/// Supershingle agreement, simhash, RP/HM distances and titles are left empty.
fn base_evidence(
    cfg: &DedupConfig,
    method_rule: impl Fn(bool) -> Rule,
    a: &Side,
    b: &Side,
) -> Evidence {
    let bits = a.minvalue_bits.min(b.minvalue_bits);
    let est = neardup_candidates::b_bit_jaccard(a.minvalues, b.minvalues, bits);
    let identical = a.token_hash == b.token_hash && a.tokens == b.tokens;
    let exact = match (a.shingle_set, b.shingle_set) {
        (Some(x), Some(y)) => Some(exact_jaccard_at(x, a.set_bits, y, b.set_bits)),
        _ => None,
    };
    // Equal hosts are one site; only different hosts need the site rule (a suffix lookup).
    let same_site = a.host == b.host || cfg.site.site(a.host) == cfg.site.site(b.host);
    Evidence {
        rule: if identical {
            Rule::IdenticalTokens
        } else {
            method_rule(same_site)
        },
        b_similarity: 0,
        estimated_jaccard: est,
        exact_jaccard: exact,
        c_similarity: None,
        same_site,
        rp_distance: None,
        hm_distance: None,
        containment: containment(exact.unwrap_or(est), a.shingles, b.shingles),
        titles: crate::TitleMatch::Unknown,
        boilerplate_a: left_out(a.chrome, a.boilerplate),
        boilerplate_b: left_out(b.chrome, b.boilerplate),
        shared_shingles: shared(exact.unwrap_or(est), a.shingles, b.shingles).round() as u32,
    }
}

/// Every score of a pair from the two sides, what their titles say (`titles`, from each page's
/// own title segments) and, for rp-hm runs, the RP and HM distances: what [`score`] gives for
/// pages of one corpus, and [`crate::parts::PairScorer`] for pages held anywhere.
pub(crate) fn side_evidence(
    cfg: &DedupConfig,
    method: &dyn Method,
    a: &Side,
    b: &Side,
    titles: Option<bool>,
    rp_hm: Option<(f64, f64)>,
) -> Evidence {
    let mut e = base_evidence(cfg, |same| method.rule(same), a, b);
    e.b_similarity = agreement(a.supershingles, b.supershingles) as u32;
    e.c_similarity =
        (!a.simhash.is_empty()).then(|| neardup_sketch::c_similarity(a.simhash, b.simhash));
    if let Some((r, x)) = rp_hm {
        e.rp_distance = Some(r);
        e.hm_distance = Some(x);
    }
    e.titles = title_match(titles, a, b);
    e
}

/// Scores and accepts pairs of pages held apart from one corpus (a page against an index's)
/// under one configuration, its method built once.
pub struct SideScorer {
    cfg: DedupConfig,
    method: Box<dyn Method>,
    /// `(m', l)`: the supershingles of the signatures and the minvalues each is taken over.
    groups: (usize, usize),
}

impl SideScorer {
    /// A scorer for `cfg` (kept).
    pub fn new(cfg: &DedupConfig) -> SideScorer {
        SideScorer {
            cfg: cfg.clone(),
            method: cfg.matching.method(),
            groups: (0, 0),
        }
    }

    /// Sides held without their supershingles (an index keeps the minvalues only) get their
    /// B-similarity from the minvalues: the groups of `l` minvalues, `m'` of them, that agree
    /// whole (each supershingle is the fingerprint of one group).
    pub fn with_groups(mut self, supershingles: u32, l: u32) -> SideScorer {
        self.groups = (supershingles as usize, l as usize);
        self
    }

    /// The evidence every method shares, under the configuration's method, with what the
    /// titles say (`titles`: [`crate::own_segments_agree`] of the two pages' own segments).
    pub fn score(&self, a: &Side, b: &Side, titles: Option<bool>) -> Evidence {
        let mut e = base_evidence(&self.cfg, |same| self.method.rule(same), a, b);
        e.b_similarity = if !a.supershingles.is_empty() && !b.supershingles.is_empty() {
            agreement(a.supershingles, b.supershingles) as u32
        } else {
            let bits = a.minvalue_bits.min(b.minvalue_bits);
            groups_agreeing(a.minvalues, b.minvalues, bits, self.groups) as u32
        };
        e.titles = title_match(titles, a, b);
        e
    }

    /// Scores a pair and says whether it is a match, asking `titles` what the titles say only
    /// when that can change the answer or the evidence of a match (a pair rejected whatever
    /// its titles say is not asked about): what a lookup does, whose site names cost reads.
    pub fn judge<E>(
        &self,
        a: &Side,
        b: &Side,
        titles: impl FnOnce() -> Result<Option<bool>, E>,
    ) -> Result<(Evidence, bool), E> {
        let mut e = self.score(a, b, None);
        // Titles that say nothing reject nothing: a pair refused without them, and refused
        // with titles that name one item, stays refused.
        let mut same = e;
        same.titles = crate::TitleMatch::Same;
        if !self.accepts(&e) && !self.accepts(&same) {
            return Ok((e, false));
        }
        e.titles = title_match(titles()?, a, b);
        let ok = self.accepts(&e);
        Ok((e, ok))
    }

    /// Whether the configuration compares titles.
    pub fn compares_titles(&self) -> bool {
        self.cfg.different_titles_need.is_some()
    }

    /// Whether the evidence is a match under the configuration.
    pub fn accepts(&self, e: &Evidence) -> bool {
        accepts_with(&self.cfg, &*self.method, e)
    }
}

/// How many of the `m'` groups of `l` minvalues of `a` and `b` are equal in their low `bits`
/// (0 when the minvalues do not hold them).
fn groups_agreeing(a: &[u32], b: &[u32], bits: u32, (groups, l): (usize, usize)) -> usize {
    if l == 0 || a.len() < groups * l || b.len() < groups * l {
        return 0;
    }
    let same = |x: &[u32], y: &[u32]| {
        x.iter()
            .zip(y)
            .all(|(&x, &y)| neardup_candidates::low_bits(x ^ y, bits) == 0)
    };
    (0..groups)
        .filter(|j| same(&a[j * l..(j + 1) * l], &b[j * l..(j + 1) * l]))
        .count()
}

/// The evidence for pages `a` and `b` under a configuration and its method.
pub(crate) fn score_with(
    corpus: &Corpus,
    cfg: &DedupConfig,
    method: &dyn Method,
    rphm: Option<&RpHm>,
    titles: &Titles,
    a: u32,
    b: u32,
) -> Evidence {
    side_evidence(
        cfg,
        method,
        &Side::of(corpus, a),
        &Side::of(corpus, b),
        titles.agree(corpus, a, b),
        rphm.map(|s| s.distances(a, b)),
    )
}

/// The size of the intersection of two sets from their Jaccard and sizes:
/// `|A & B| = J (|A| + |B|) / (1 + J)`, at most the smaller size.
fn shared(jaccard: f64, a: u32, b: u32) -> f64 {
    (jaccard * (a as f64 + b as f64) / (1.0 + jaccard)).min(a.min(b) as f64)
}

/// The containment of the smaller set in the larger from their Jaccard and sizes:
/// [`shared`] over `min(|A|, |B|)`; 0 when a size is unknown.
pub(crate) fn containment(jaccard: f64, a: u32, b: u32) -> f64 {
    let small = a.min(b) as f64;
    if small == 0.0 {
        return 0.0;
    }
    (shared(jaccard, a, b) / small).min(1.0)
}

/// Share of a page left out of its signature: chrome (by terms), then host boilerplate (by
/// shingles of what was left).
fn left_out(chrome: f32, boilerplate: f32) -> f64 {
    let kept = (1.0 - chrome as f64) * (1.0 - boilerplate as f64);
    (1.0 - kept).clamp(0.0, 1.0)
}

/// Whether evidence is a match under a configuration and its method.
///
/// A pair is accepted when its tokens are identical, or when the method accepts it, or (with
/// `containment`) when its containment reaches that and its Jaccard is at least
/// [`crate::CONTAINMENT_MIN_JACCARD`], or (with `different_titles_need`) when its titles name the
/// same item and its Jaccard reaches [`crate::config::SAME_TITLES_JACCARD`] or its containment
/// [`crate::config::SAME_TITLES_CONTAINMENT`] (with [`crate::config::
/// SAME_TITLES_CONTAINMENT_MIN_JACCARD`]), or the pages share a passage ([`crate::config::
/// SAME_TITLES_PASSAGE_SHINGLES`] shingles at containment [`crate::config::
/// SAME_TITLES_PASSAGE_CONTAINMENT`]); then (with `different_titles_need`) a pair whose
/// titles name different items, or one item in two languages (a translation), is rejected
/// unless its Jaccard reaches that; then (with `verify`) its
/// exact Jaccard must reach the threshold. "Jaccard" is [`Evidence::jaccard`]: exact when both
/// pages kept their shingle sets, else estimated.
pub(crate) fn accepts_with(cfg: &DedupConfig, method: &dyn Method, e: &Evidence) -> bool {
    verdict(cfg, method, e).accepted()
}

/// Each rule of [`accepts_with`] judged on one pair: `None` where the configuration has no
/// such rule. Allocates nothing (it runs for every candidate pair).
#[derive(Clone, Copy, Debug)]
struct Verdict {
    identical: bool,
    method: bool,
    containment: Option<bool>,
    same_jaccard: Option<bool>,
    same_containment: Option<bool>,
    passage: Option<bool>,
    titles: Option<bool>,
    verify: Option<bool>,
}

impl Verdict {
    fn accepted(&self) -> bool {
        if self.identical {
            return true;
        }
        let accepts = self.method
            || self.containment == Some(true)
            || self.same_jaccard == Some(true)
            || self.same_containment == Some(true)
            || self.passage == Some(true);
        accepts && self.titles != Some(false) && self.verify != Some(false)
    }
}

fn verdict(cfg: &DedupConfig, method: &dyn Method, e: &Evidence) -> Verdict {
    use crate::config::*;
    let j = e.jaccard();
    let same = e.titles == crate::TitleMatch::Same;
    let same_rule = |holds: bool| cfg.different_titles_need.map(|_| same && holds);
    Verdict {
        identical: e.rule == Rule::IdenticalTokens,
        method: method.accepts(e, cfg.threshold),
        containment: cfg
            .containment
            .map(|c| e.containment >= c && j >= CONTAINMENT_MIN_JACCARD),
        same_jaccard: same_rule(j >= SAME_TITLES_JACCARD),
        same_containment: same_rule(
            e.containment >= SAME_TITLES_CONTAINMENT && j >= SAME_TITLES_CONTAINMENT_MIN_JACCARD,
        ),
        passage: same_rule(
            e.containment >= SAME_TITLES_PASSAGE_CONTAINMENT
                && e.shared_shingles >= SAME_TITLES_PASSAGE_SHINGLES,
        ),
        titles: cfg.different_titles_need.map(|need| match e.titles {
            crate::TitleMatch::Different | crate::TitleMatch::Translation => j >= need,
            _ => true,
        }),
        verify: cfg
            .verify
            .then(|| e.exact_jaccard.is_some_and(|x| x >= cfg.threshold)),
    }
}

/// One rule a pair is judged by, and whether the pair meets it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Check {
    /// The rule, with its bar (`estimated Jaccard >= 0.8`).
    pub rule: String,
    /// `accepts`: meeting it accepts the pair (one such is enough); `requires`: failing it
    /// rejects the pair whatever accepted it.
    pub role: &'static str,
    /// Whether the pair meets it.
    pub holds: bool,
}

/// The rules `cfg` judges a pair by, each with whether the pair of evidence `e` meets it: the
/// decision of [`accepts`], rule by rule (what `neardup dedup --explain` shows).
pub fn checks(cfg: &DedupConfig, e: &Evidence) -> Vec<Check> {
    use crate::config::*;
    let method = cfg.matching.method();
    let v = verdict(cfg, &*method, e);
    let mut out = Vec::new();
    let mut push = |rule: String, role, holds: Option<bool>| {
        if let Some(holds) = holds {
            out.push(Check { rule, role, holds });
        }
    };
    push(
        "identical token sequences".into(),
        "accepts",
        Some(v.identical),
    );
    push(
        format!("the method's: {}", method.accept_rule(cfg.threshold)),
        "accepts",
        Some(v.method),
    );
    if let Some(c) = cfg.containment {
        push(
            format!("containment >= {c} with Jaccard >= {CONTAINMENT_MIN_JACCARD}"),
            "accepts",
            v.containment,
        );
    }
    push(
        format!("titles name the same item and Jaccard >= {SAME_TITLES_JACCARD}"),
        "accepts",
        v.same_jaccard,
    );
    push(
        format!(
            "titles name the same item, containment >= {SAME_TITLES_CONTAINMENT} and Jaccard >= \
             {SAME_TITLES_CONTAINMENT_MIN_JACCARD}"
        ),
        "accepts",
        v.same_containment,
    );
    push(
        format!(
            "titles name the same item and the pages share a passage: >= \
             {SAME_TITLES_PASSAGE_SHINGLES} shingles, containment >= \
             {SAME_TITLES_PASSAGE_CONTAINMENT}"
        ),
        "accepts",
        v.passage,
    );
    if let Some(need) = cfg.different_titles_need {
        push(
            format!("titles naming different items (or a translation) need Jaccard >= {need}"),
            "requires",
            v.titles,
        );
    }
    push(
        format!("exact Jaccard >= {} (verification)", cfg.threshold),
        "requires",
        v.verify,
    );
    out
}

/// The evidence for pages `a` and `b` under a configuration (`rphm`: the signatures of rp-hm
/// runs, [`crate::DedupResult::rphm`]).
pub fn score(
    corpus: &Corpus,
    cfg: &DedupConfig,
    rphm: Option<&RpHm>,
    titles: &Titles,
    a: u32,
    b: u32,
) -> Evidence {
    score_with(corpus, cfg, &*cfg.matching.method(), rphm, titles, a, b)
}

/// Whether evidence is a match under a configuration.
pub fn accepts(cfg: &DedupConfig, e: &Evidence) -> bool {
    accepts_with(cfg, &*cfg.matching.method(), e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{DedupConfig, Matching};
    use proptest::prelude::*;

    fn evidence(j: f64, c: f64, shared: u32, titles: u8, identical: bool) -> Evidence {
        Evidence {
            rule: if identical {
                Rule::IdenticalTokens
            } else {
                Rule::LshBands
            },
            b_similarity: 0,
            estimated_jaccard: j,
            exact_jaccard: None,
            c_similarity: None,
            same_site: false,
            rp_distance: None,
            hm_distance: None,
            containment: c,
            titles: [
                crate::TitleMatch::Same,
                crate::TitleMatch::Different,
                crate::TitleMatch::Unknown,
                crate::TitleMatch::Translation,
            ][titles as usize % 4],
            boilerplate_a: 0.0,
            boilerplate_b: 0.0,
            shared_shingles: shared,
        }
    }

    proptest! {
        /// The rules `checks` lists decide what `accepts` decides: accepted exactly when one
        /// `accepts` rule holds and no `requires` rule fails.
        #[test]
        fn checks_decide_as_accepts_does(
            j in 0.0f64..=1.0,
            c in 0.0f64..=1.0,
            shared in 0u32..200,
            titles in 0u8..4,
            identical in proptest::bool::weighted(0.1),
            accurate in any::<bool>(),
        ) {
            let cfg = if accurate {
                DedupConfig::accurate(84)
            } else {
                DedupConfig::new(Matching::Bands { bands: 20, rows: 4 })
            };
            let e = evidence(j, c, shared, titles, identical);
            let checks = checks(&cfg, &e);
            let by_checks = checks.iter().any(|k| k.role == "accepts" && k.holds)
                && checks.iter().all(|k| k.role != "requires" || k.holds);
            prop_assert_eq!(accepts(&cfg, &e), by_checks || identical, "{:?}", checks);
        }
    }

    #[test]
    fn a_shared_passage_needs_the_same_item_and_enough_shingles() {
        let cfg = DedupConfig::accurate(84);
        // An excerpt quoted with replies: 120 shared shingles, half of the smaller page.
        assert!(accepts(&cfg, &evidence(0.25, 0.5, 120, 0, false)));
        // The same share of a short page: too few shingles to say.
        assert!(!accepts(&cfg, &evidence(0.25, 0.5, 39, 0, false)));
        // Titles of different items, or of one item in two scripts.
        assert!(!accepts(&cfg, &evidence(0.25, 0.5, 120, 1, false)));
        assert!(!accepts(&cfg, &evidence(0.25, 0.5, 120, 3, false)));
        // Under the share.
        assert!(!accepts(&cfg, &evidence(0.2, 0.39, 120, 0, false)));
    }
}
