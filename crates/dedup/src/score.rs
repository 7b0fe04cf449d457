//! Scoring a pair: its evidence under a configuration, and whether that evidence is a match.

use crate::config::DedupConfig;
use crate::evidence::{Evidence, Rule};
use crate::method::Method;
use crate::rphm::RpHm;
use crate::titles::Titles;
use neardup_candidates::{agreement, estimated_jaccard, exact_jaccard};
use neardup_store::Corpus;

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
    let pa = corpus.page(a);
    let pb = corpus.page(b);
    let b_similarity = agreement(corpus.supershingles(a), corpus.supershingles(b)) as u32;
    let est = estimated_jaccard(corpus.minvalues(a), corpus.minvalues(b));
    let identical = pa.token_hash == pb.token_hash && pa.tokens == pb.tokens;
    let exact = match (corpus.shingles(a), corpus.shingles(b)) {
        (Some(x), Some(y)) => Some(exact_jaccard(x, y)),
        _ => None,
    };
    let (sa, sb) = (corpus.simhash(a), corpus.simhash(b));
    let c_similarity = (!sa.is_empty()).then(|| neardup_sketch::c_similarity(sa, sb));
    let same_site = cfg.site.site(pa.host) == cfg.site.site(pb.host);
    let rule = if identical {
        Rule::IdenticalTokens
    } else {
        method.rule(same_site)
    };
    let (rp_distance, hm_distance) = match rphm {
        Some(s) => {
            let (r, x) = s.distances(a, b);
            (Some(r), Some(x))
        }
        None => (None, None),
    };
    Evidence {
        rule,
        b_similarity,
        estimated_jaccard: est,
        exact_jaccard: exact,
        c_similarity,
        same_site,
        rp_distance,
        hm_distance,
        containment: containment(exact.unwrap_or(est), pa.shingles, pb.shingles),
        titles: titles.agree(corpus, a, b).into(),
        boilerplate_a: left_out(pa),
        boilerplate_b: left_out(pb),
    }
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
fn left_out(p: neardup_store::PageRef) -> f64 {
    let kept = (1.0 - p.chrome as f64) * (1.0 - p.boilerplate as f64);
    (1.0 - kept).clamp(0.0, 1.0)
}

/// Whether evidence is a match under a configuration and its method.
///
/// A pair is accepted when its tokens are identical, or when the method accepts it, or (with
/// `containment`) when its containment reaches that and its Jaccard is at least
/// [`crate::CONTAINMENT_MIN_JACCARD`]; then (with `different_titles_need`) a pair whose titles
/// name different items is rejected unless its Jaccard reaches that; then (with `verify`) its
/// exact Jaccard must reach the threshold. "Jaccard" is [`Evidence::jaccard`]: exact when both
/// pages kept their shingle sets, else estimated.
pub(crate) fn accepts_with(cfg: &DedupConfig, method: &dyn Method, e: &Evidence) -> bool {
    if e.rule == Rule::IdenticalTokens {
        return true;
    }
    let contained = cfg.containment.is_some_and(|c| {
        e.containment >= c && e.jaccard() >= crate::config::CONTAINMENT_MIN_JACCARD
    });
    let base = method.accepts(e, cfg.threshold) || contained;
    let titles_ok = match (cfg.different_titles_need, e.titles) {
        (Some(need), crate::TitleMatch::Different) => e.jaccard() >= need,
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
