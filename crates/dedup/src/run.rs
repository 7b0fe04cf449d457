//! One dedup run over a corpus, in memory (the rules of each step are [`crate::steps`]):
//!
//! 1. Identity sets: pages with the same token sequence (Henzinger's preprocessing); only the
//!    first page of each set takes part in candidate generation, the others join its cluster.
//!    Byte-identical bodies are grouped separately for the report.
//! 2. Candidates from the method's tables (see `method/`).
//! 3. Scoring: every candidate pair gets its evidence and is accepted by the method's rule (and
//!    by the exact Jaccard when verifying).
//! 4. Clusters: union-find over accepted pairs, or star clusters around canonical pages (every
//!    member accepted against the canonical page itself), canonical page by the [`Keep`] rule.

use crate::config::{ClusterMode, ConfigError, DedupConfig, Matching};
use crate::evidence::Evidence;
use crate::method::Method;
use crate::score::{accepts_with, score_with};
#[cfg(doc)]
use neardup_cluster::Keep;
use neardup_cluster::{star_split, star_split_graph, UnionFind};
use neardup_store::Corpus;
use rayon::prelude::*;
use serde::Serialize;

/// A cluster of near-duplicates.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// The kept page.
    pub canonical: u32,
    /// All members (canonical included), increasing.
    pub members: Vec<u32>,
    /// Each member's evidence against the canonical page (same order as `members`).
    pub evidence: Vec<Evidence>,
}

impl Cluster {
    /// The smallest estimated Jaccard between the canonical page and a member (chaining shows as
    /// a low value).
    pub fn min_estimated_jaccard(&self) -> f64 {
        self.members
            .iter()
            .zip(&self.evidence)
            .filter(|(m, _)| **m != self.canonical)
            .map(|(_, e)| e.estimated_jaccard)
            .fold(1.0, f64::min)
    }
}

/// An accepted pair.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    /// First page (smaller id).
    pub a: u32,
    /// Second page.
    pub b: u32,
    /// Evidence.
    pub evidence: Evidence,
}

/// Counts and timings of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DedupCounts {
    /// Sketched pages.
    pub pages: u64,
    /// Identity sets (same token sequence, two or more pages).
    pub identity_sets: u64,
    /// Pages in identity sets beyond the first of each.
    pub identity_duplicates: u64,
    /// Byte-identical body sets.
    pub byte_identical_sets: u64,
    /// Pages in byte-identical sets beyond the first of each.
    pub byte_identical_duplicates: u64,
    /// Candidate tables built.
    pub tables: u64,
    /// Distinct candidate pairs examined.
    pub candidate_pairs: u64,
    /// Pairs accepted.
    pub accepted_pairs: u64,
    /// Clusters (two or more pages).
    pub clusters: u64,
    /// Pages in clusters.
    pub pages_in_clusters: u64,
    /// Pages to remove (all but the canonical page of each cluster).
    pub pages_to_remove: u64,
    /// Pages in clusters at the "virtually identical" level (all supershingles agree), when the
    /// run uses supershingles.
    pub virtually_identical_pages: Option<u64>,
    /// The link graph and signature timings of rp-hm runs.
    pub rp_hm: Option<crate::rphm::RpHmStats>,
    /// Seconds for identity sets, candidates, scoring, clustering.
    pub seconds: Vec<(String, f64)>,
    /// The same stages' wall and CPU seconds (a job's summary lists them with its others).
    #[serde(skip)]
    pub stages: Vec<crate::clock::StageTime>,
}

/// Everything a dedup run finds.
#[derive(Debug)]
pub struct DedupResult {
    /// Clusters ordered by their smallest member.
    pub clusters: Vec<Cluster>,
    /// `cluster_of[p]` = index into `clusters` of page `p`'s cluster, if it is in one.
    pub cluster_of: Vec<Option<u32>>,
    /// Accepted pairs (each with both pages in one cluster for union-find; star clusters may
    /// split a pair apart), ordered by `(a, b)`.
    pub pairs: Vec<Pair>,
    /// Byte-identical sets (two or more pages each).
    pub byte_identical: Vec<Vec<u32>>,
    /// Pages kept out of clustering because they are mostly host boilerplate.
    pub boilerplate_pages: Vec<u32>,
    /// Counts and timings.
    pub counts: DedupCounts,
    /// The RP and HM signatures, for rp-hm runs.
    pub rphm: Option<crate::rphm::RpHm>,
    /// The site-naming title segments of the corpus (for scoring pairs again).
    pub titles: crate::titles::Titles,
}

/// Groups pages by a 64-bit key; returns the groups of two or more, each increasing, in key
/// order (what one table of [`groups`] visits): keys computed on every thread, then sorted.
fn group_by(n: u32, key: impl Fn(u32) -> u64 + Sync) -> Vec<Vec<u32>> {
    let entries: Vec<(u64, u32)> = (0..n).into_par_iter().map(|p| (key(p), p)).collect();
    neardup_candidates::sort_entries(entries)
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() >= 2)
        .map(|run| run.iter().map(|e| e.1).collect())
        .collect()
}

/// Runs dedup over a corpus; refuses a configuration that does not fit the corpus's signature
/// parameters ([`DedupConfig::validate`]).
pub fn dedup(corpus: &Corpus, cfg: &DedupConfig) -> Result<DedupResult, ConfigError> {
    cfg.validate(corpus.family().params())?;
    let method = cfg.matching.method();
    let method = &*method;
    let n = corpus.len();
    let mut counts = DedupCounts {
        pages: n as u64,
        ..Default::default()
    };
    let mut clock = crate::clock::Clock::start();
    let mut lap = |name: &str, counts: &mut DedupCounts| {
        let t = clock.lap(name);
        counts.seconds.push((name.to_string(), t.wall_seconds));
        counts.stages.push(t);
    };

    // 1. Identity sets and byte-identical sets.
    let (identity, byte_identical) = rayon::join(
        || {
            group_by(n, |p| {
                let page = corpus.page(p);
                let partition = crate::steps::partition(page.language, cfg.per_language);
                crate::steps::identity_key(page.token_hash, page.tokens, partition)
            })
        },
        || group_by(n, |p| corpus.page(p).body_hash),
    );
    let mut rep_of: Vec<u32> = (0..n).collect();
    for set in &identity {
        for &p in &set[1..] {
            rep_of[p as usize] = set[0];
        }
    }
    counts.identity_sets = identity.len() as u64;
    counts.identity_duplicates = identity.iter().map(|s| s.len() as u64 - 1).sum();
    counts.byte_identical_sets = byte_identical.len() as u64;
    counts.byte_identical_duplicates = byte_identical.iter().map(|s| s.len() as u64 - 1).sum();
    lap("identity-sets", &mut counts);

    // 2. Candidates among identity-set representatives that are not mostly boilerplate.
    let mostly = |p: u32| {
        cfg.boilerplate_mostly
            .is_some_and(|t| corpus.page(p).boilerplate as f64 >= t)
    };
    let boilerplate_pages: Vec<u32> = (0..n).filter(|&p| mostly(p)).collect();
    let is_rep = |p: u32| rep_of[p as usize] == p && !mostly(p);
    let rphm_owned = method.prepare(corpus);
    if let Some(s) = &rphm_owned {
        counts.rp_hm = Some(s.stats.clone());
        lap("rp-hm-signatures", &mut counts);
    }
    let rphm = rphm_owned.as_ref();
    let titles = crate::titles::Titles::new(corpus);
    // rp-hm searches every page: an identity-set member has its representative's RP signature
    // but its own hyperlink map, so its near-duplicates can differ from its representative's.
    // Decided once per page (the tables ask it once per page and table).
    let every_page = method.searches_every_page();
    let searched: Vec<bool> = (0..n)
        .into_par_iter()
        .map(|p| if every_page { !mostly(p) } else { is_rep(p) })
        .collect();
    let in_search = |p: u32| searched[p as usize];
    let include: &(dyn Fn(u32) -> bool + Sync) = &in_search;
    let (tables, edges) = if cfg.per_language {
        // Each language's pages apart (their keys would be partitioned as the parts' are).
        let languages: std::collections::BTreeSet<_> = corpus.pages().map(|p| p.language).collect();
        let mut all = Vec::new();
        let mut tables = 0;
        for language in languages {
            let within = |p: u32| include(p) && corpus.page(p).language == language;
            let (t, edges) = method.candidates(corpus, rphm, &within);
            tables = t;
            all.extend(edges);
        }
        all.sort_unstable();
        (tables, all)
    } else {
        method.candidates(corpus, rphm, include)
    };
    counts.tables = tables;
    counts.candidate_pairs = edges.len() as u64;
    lap("candidates", &mut counts);

    // 3. Scoring.
    let pairs: Vec<Pair> = edges
        .par_iter()
        .filter_map(|&(a, b)| {
            let e = score_with(corpus, cfg, method, rphm, &titles, a, b);
            accepts_with(cfg, method, &e).then_some(Pair { a, b, evidence: e })
        })
        .collect();
    counts.accepted_pairs = pairs.len() as u64;
    lap("scoring", &mut counts);

    // 4. Clusters.
    let ctx = Ctx {
        corpus,
        cfg,
        method,
        rphm,
        titles: &titles,
    };
    let (clusters, cluster_of) = cluster(&ctx, &pairs, &identity, &rep_of, &mostly);
    counts.clusters = clusters.len() as u64;
    counts.pages_in_clusters = clusters.iter().map(|c| c.members.len() as u64).sum();
    counts.pages_to_remove = counts.pages_in_clusters - counts.clusters;
    lap("clustering", &mut counts);

    if let Some(v) = virtually_identical(corpus, method) {
        counts.virtually_identical_pages = Some(v);
        lap("virtually-identical-level", &mut counts);
    }

    Ok(DedupResult {
        clusters,
        cluster_of,
        pairs,
        byte_identical,
        boilerplate_pages,
        counts,
        rphm: rphm_owned,
        titles,
    })
}

/// What scoring a pair needs.
struct Ctx<'a> {
    corpus: &'a Corpus,
    cfg: &'a DedupConfig,
    method: &'a dyn Method,
    rphm: Option<&'a crate::rphm::RpHm>,
    titles: &'a crate::titles::Titles,
}

/// Step 4: components of the accepted pairs and identity sets (pages mostly boilerplate
/// stay out), split into stars when asked; each cluster's canonical page by the keep rule and
/// every member's evidence against it. Clusters in the order of their first member, and each
/// page's cluster.
fn cluster(
    ctx: &Ctx,
    pairs: &[Pair],
    identity: &[Vec<u32>],
    rep_of: &[u32],
    mostly: &(dyn Fn(u32) -> bool + Sync),
) -> (Vec<Cluster>, Vec<Option<u32>>) {
    let Ctx {
        corpus,
        cfg,
        method,
        rphm,
        titles,
    } = *ctx;
    let n = corpus.len();
    let mut uf = UnionFind::new(n);
    for p in pairs {
        uf.union(p.a, p.b);
    }
    for p in 0..n {
        if rep_of[p as usize] != p && !mostly(p) && !mostly(rep_of[p as usize]) {
            uf.union(p, rep_of[p as usize]);
        }
    }
    let components = uf.components();
    // rp-hm finds every pair within the tolerances among identity-set representatives, so star
    // clusters come from the match graph (accepted pairs plus identity sets) instead of
    // comparing every remaining member with every canonical page.
    let graph_star = method.searches_every_page() && cfg.cluster == ClusterMode::Star;
    let (adj_offsets, adj) = if graph_star {
        let mut deg = vec![0usize; n as usize + 1];
        for p in pairs {
            deg[p.a as usize + 1] += 1;
            deg[p.b as usize + 1] += 1;
        }
        for i in 1..deg.len() {
            deg[i] += deg[i - 1];
        }
        let mut at = deg.clone();
        let mut adj = vec![0u32; pairs.len() * 2];
        for p in pairs {
            adj[at[p.a as usize]] = p.b;
            at[p.a as usize] += 1;
            adj[at[p.b as usize]] = p.a;
            at[p.b as usize] += 1;
        }
        (deg, adj)
    } else {
        (Vec::new(), Vec::new())
    };
    let mut set_of: Vec<Option<u32>> = vec![None; if graph_star { n as usize } else { 0 }];
    if graph_star {
        for (i, set) in identity.iter().enumerate() {
            for &p in set {
                set_of[p as usize] = Some(i as u32);
            }
        }
    }
    // Near-duplicates of `c` in the match graph: its accepted pairs and its identity set.
    let graph_neighbors = |c: u32, out: &mut Vec<u32>| {
        let edges = |p: u32| &adj[adj_offsets[p as usize]..adj_offsets[p as usize + 1]];
        out.extend_from_slice(edges(c));
        if let Some(set) = set_of[c as usize].map(|i| &identity[i as usize]) {
            out.extend(set.iter().copied().filter(|&m| m != c));
        }
    };
    let mut clusters: Vec<Cluster> = components
        .par_iter()
        .flat_map_iter(|comp| {
            let stars: Vec<(u32, Vec<u32>)> = match cfg.cluster {
                ClusterMode::UnionFind => vec![(cfg.keep.choose(comp, corpus), comp.clone())],
                ClusterMode::Star if graph_star => {
                    star_split_graph(comp, cfg.keep, corpus, graph_neighbors)
                }
                ClusterMode::Star => star_split(comp, cfg.keep, corpus, |c, m| {
                    accepts_with(
                        cfg,
                        method,
                        &score_with(corpus, cfg, method, rphm, titles, c, m),
                    )
                }),
            };
            stars.into_iter().map(|(canonical, members)| {
                let evidence = members
                    .iter()
                    .map(|&m| score_with(corpus, cfg, method, rphm, titles, canonical, m))
                    .collect();
                Cluster {
                    canonical,
                    members,
                    evidence,
                }
            })
        })
        .collect();
    clusters.sort_unstable_by_key(|c| c.members[0]);
    let mut cluster_of = vec![None; n as usize];
    for (i, c) in clusters.iter().enumerate() {
        for &m in &c.members {
            cluster_of[m as usize] = Some(i as u32);
        }
    }
    (clusters, cluster_of)
}

/// The "virtually identical" level for the summary (004: 22.2%): pages whose supershingles
/// all agree with another page's; `None` for methods without supershingles.
fn virtually_identical(corpus: &Corpus, method: &dyn Method) -> Option<u64> {
    let m_prime = corpus.family().params().supershingles;
    if !method.uses_supershingles() || m_prime == 0 {
        return None;
    }
    let (_, vi_edges) = Matching::Supershingles { min_agree: m_prime }
        .method()
        .candidates(corpus, None, &|_| true);
    let mut vi = UnionFind::new(corpus.len());
    for (a, b) in vi_edges {
        vi.union(a, b);
    }
    Some(vi.components().iter().map(|c| c.len() as u64).sum())
}
