//! Scoring a pair: its evidence under a configuration, and whether that evidence is a match.

use crate::config::DedupConfig;
use crate::evidence::{Evidence, Rule};
use crate::method::Method;
use crate::rphm::RpHm;
use crate::titles::Titles;
use neardup_candidates::{agreement, estimated_jaccard, exact_jaccard};
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
    /// Minvalues (their low 32 bits).
    pub minvalues: &'a [u32],
    /// The shingle set when kept.
    pub shingle_set: Option<&'a [u32]>,
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
            shingle_set: corpus.shingles(p),
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
    match (
        titles,
        a.language.writing_system(),
        b.language.writing_system(),
    ) {
        (Some(true), Some(x), Some(y)) if x != y => crate::TitleMatch::Translation,
        (t, _, _) => t.into(),
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
    let est = estimated_jaccard(a.minvalues, b.minvalues);
    let identical = a.token_hash == b.token_hash && a.tokens == b.tokens;
    let exact = match (a.shingle_set, b.shingle_set) {
        (Some(x), Some(y)) => Some(exact_jaccard(x, y)),
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
}

impl SideScorer {
    /// A scorer for `cfg` (kept).
    pub fn new(cfg: &DedupConfig) -> SideScorer {
        SideScorer {
            cfg: cfg.clone(),
            method: cfg.matching.method(),
        }
    }

    /// The evidence every method shares, under the configuration's method, with what the
    /// titles say (`titles`: [`crate::own_segments_agree`] of the two pages' own segments).
    pub fn score(&self, a: &Side, b: &Side, titles: Option<bool>) -> Evidence {
        let mut e = base_evidence(&self.cfg, |same| self.method.rule(same), a, b);
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

/// The containment of the smaller set in the larger from their Jaccard and sizes:
/// `|A & B| = J (|A| + |B|) / (1 + J)`, over `min(|A|, |B|)`; 0 when a size is unknown.
pub(crate) fn containment(jaccard: f64, a: u32, b: u32) -> f64 {
    let small = a.min(b) as f64;
    if small == 0.0 {
        return 0.0;
    }
    let shared = jaccard * (a as f64 + b as f64) / (1.0 + jaccard);
    (shared / small).min(1.0)
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
/// SAME_TITLES_CONTAINMENT_MIN_JACCARD`]); then (with `different_titles_need`) a pair whose
/// titles name different items, or one item in two languages (a translation), is rejected
/// unless its Jaccard reaches that; then (with `verify`) its
/// exact Jaccard must reach the threshold. "Jaccard" is [`Evidence::jaccard`]: exact when both
/// pages kept their shingle sets, else estimated.
pub(crate) fn accepts_with(cfg: &DedupConfig, method: &dyn Method, e: &Evidence) -> bool {
    if e.rule == Rule::IdenticalTokens {
        return true;
    }
    let contained = cfg.containment.is_some_and(|c| {
        e.containment >= c && e.jaccard() >= crate::config::CONTAINMENT_MIN_JACCARD
    });
    let same_item = cfg.different_titles_need.is_some()
        && e.titles == crate::TitleMatch::Same
        && (e.jaccard() >= crate::config::SAME_TITLES_JACCARD
            || (e.containment >= crate::config::SAME_TITLES_CONTAINMENT
                && e.jaccard() >= crate::config::SAME_TITLES_CONTAINMENT_MIN_JACCARD));
    let base = method.accepts(e, cfg.threshold) || contained || same_item;
    let titles_ok = match (cfg.different_titles_need, e.titles) {
        (Some(need), crate::TitleMatch::Different | crate::TitleMatch::Translation) => {
            e.jaccard() >= need
        }
        _ => true,
    };
    base && titles_ok && (!cfg.verify || e.exact_jaccard.is_some_and(|j| j >= cfg.threshold))
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
