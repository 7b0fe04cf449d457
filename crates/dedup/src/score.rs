//! Scoring a pair: its evidence under a configuration, and whether that evidence is a match.

use crate::config::DedupConfig;
use crate::evidence::{Evidence, Rule};
use crate::method::Method;
use crate::rphm::RpHm;
use neardup_candidates::{agreement, estimated_jaccard, exact_jaccard};
use neardup_store::Corpus;

/// The evidence for pages `a` and `b` under a configuration and its method.
pub(crate) fn score_with(
    corpus: &Corpus,
    cfg: &DedupConfig,
    method: &dyn Method,
    rphm: Option<&RpHm>,
    a: u32,
    b: u32,
) -> Evidence {
    let pa = corpus.page(a);
    let pb = corpus.page(b);
    let b_similarity = agreement(corpus.supershingles(a), corpus.supershingles(b)) as u32;
    let est = estimated_jaccard(corpus.minvalues(a), corpus.minvalues(b));
    let identical = pa.token_hash == pb.token_hash && pa.tokens == pb.tokens;
    let exact = if cfg.verify {
        match (corpus.shingles(a), corpus.shingles(b)) {
            (Some(x), Some(y)) => Some(exact_jaccard(x, y)),
            _ => None,
        }
    } else {
        None
    };
    let (sa, sb) = (corpus.simhash(a), corpus.simhash(b));
    let c_similarity = (!sa.is_empty()).then(|| neardup_sketch::c_similarity(sa, sb));
    let same_site = cfg.site.site(&pa.host) == cfg.site.site(&pb.host);
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
    }
}

/// Whether evidence is a match under a configuration and its method.
pub(crate) fn accepts_with(cfg: &DedupConfig, method: &dyn Method, e: &Evidence) -> bool {
    let base = e.rule == Rule::IdenticalTokens || method.accepts(e, cfg.threshold);
    base && (!cfg.verify
        || e.rule == Rule::IdenticalTokens
        || e.exact_jaccard.is_some_and(|j| j >= cfg.threshold))
}

/// The evidence for pages `a` and `b` under a configuration (`rphm`: the signatures of rp-hm
/// runs, [`crate::DedupResult::rphm`]).
pub fn score(corpus: &Corpus, cfg: &DedupConfig, rphm: Option<&RpHm>, a: u32, b: u32) -> Evidence {
    score_with(corpus, cfg, &*cfg.matching.method(), rphm, a, b)
}

/// Whether evidence is a match under a configuration.
pub fn accepts(cfg: &DedupConfig, e: &Evidence) -> bool {
    accepts_with(cfg, &*cfg.matching.method(), e)
}
