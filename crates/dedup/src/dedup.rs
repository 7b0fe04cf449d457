//! `dedup`: near-duplicate clusters by shingling (papers 004 section 2, 003 Alg. B), or by banded
//! LSH, over a [`Corpus`].
//!
//! 1. Identity sets: pages with the same token sequence (Henzinger's preprocessing); only the
//!    first page of each set takes part in candidate generation, the others join its cluster.
//!    Byte-identical bodies are grouped separately for the report.
//! 2. Candidates: one table per combination of `b` supershingle positions (paper 004's
//!    megashingles for `b = 2`), or one table per LSH band. Within a bucket every member is
//!    paired with the bucket's first member and with its predecessor (a bucket never expands into
//!    all its pairs).
//! 3. Scoring: every candidate pair gets its evidence (B-similarity, estimated Jaccard from the
//!    `m` minvalues, and with `verify` the exact Jaccard of the shingle sets) and is accepted by
//!    the rule of the mode (B-similarity >= b, or estimated Jaccard >= threshold; and exact
//!    Jaccard >= threshold when verifying).
//! 4. Clusters: union-find over accepted pairs, or star clusters around canonical pages (every
//!    member accepted against the canonical page itself), canonical page by the [`Keep`] rule.

use neardup_candidates::{
    agreement, combinations, estimated_jaccard, exact_jaccard, groups, SimhashTables,
};
use neardup_cluster::{star_split, star_split_graph, Keep, UnionFind};
use neardup_store::Corpus;
use rayon::prelude::*;
use serde::Serialize;
use std::sync::Mutex;
use std::time::Instant;

/// Which candidate tables are built and what a match means.
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

impl Matching {
    /// True when the mode needs simhashes.
    pub fn needs_simhash(&self) -> bool {
        matches!(
            self,
            Matching::Simhash { .. } | Matching::Combined { .. } | Matching::Split { .. }
        )
    }

    /// True when the mode needs random projections and outlinks.
    pub fn needs_rp(&self) -> bool {
        matches!(self, Matching::RpHm { .. })
    }

    fn uses_supershingles(&self) -> bool {
        matches!(
            self,
            Matching::Supershingles { .. } | Matching::Combined { .. } | Matching::Split { .. }
        )
    }
}

/// What "the same site" means for `--algo split` and the same-site evidence.
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
}

impl DedupConfig {
    /// `matching` with the defaults of `neardup dedup`: Jaccard threshold 0.8, no verification,
    /// union-find clusters, the first page kept, Henzinger's site rule, no boilerplate filter.
    pub fn new(matching: Matching) -> DedupConfig {
        DedupConfig {
            matching,
            threshold: 0.8,
            verify: false,
            cluster: ClusterMode::UnionFind,
            keep: Keep::First,
            site: SiteRule::Henzinger,
            boilerplate_mostly: None,
        }
    }

    /// Checks the configuration against the signature parameters.
    pub fn validate(&self, params: &neardup_sketch::SketchParams) -> Result<(), String> {
        let bits = params.simhash_bits;
        if let Matching::RpHm { rp_tol, hm_tol, hm } = self.matching {
            if params.rp_dims == 0 {
                return Err(
                    "rp-hm needs random projections (signatures made with --rp-dims > 0)".into(),
                );
            }
            let positive = |t: f64| t > 0.0 && t.is_finite();
            if !(positive(rp_tol) && positive(hm_tol)) {
                return Err(format!(
                    "tolerances must be positive numbers (--rp-tol {rp_tol}, --hm-tol {hm_tol})"
                ));
            }
            if !(hm.gamma >= 0.0 && hm.gamma.is_finite()) || hm.iterations > 1000 {
                return Err(format!(
                    "--hm-gamma {} must be a number >= 0 and --hm-iterations {} at most 1000",
                    hm.gamma, hm.iterations
                ));
            }
        }
        if self.matching.needs_simhash() && bits == 0 {
            return Err(
                "this algorithm needs simhashes (signatures made with --simhash-bits > 0)".into(),
            );
        }
        let c_max = |c: u32| {
            if c > bits {
                Err(format!(
                    "C-similarity threshold {c} exceeds the {bits} simhash bits"
                ))
            } else {
                Ok(())
            }
        };
        match self.matching {
            Matching::Simhash { min_c, blocks }
            | Matching::Split {
                min_c_other_site: min_c,
                blocks,
                ..
            } => {
                c_max(min_c)?;
                SimhashTables::new(bits, bits - min_c, blocks)?;
            }
            Matching::Combined { min_c, .. } => c_max(min_c)?,
            _ => {}
        }
        if let Matching::Split {
            min_c_same_site, ..
        } = self.matching
        {
            c_max(min_c_same_site)?;
        }
        Ok(())
    }
}

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

/// The evidence for a match.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Evidence {
    /// Which rule matched.
    pub rule: Rule,
    /// Agreeing supershingles (of `m'`).
    pub b_similarity: u32,
    /// Share of agreeing minvalues.
    pub estimated_jaccard: f64,
    /// Exact Jaccard of the shingle sets, when verified.
    pub exact_jaccard: Option<f64>,
    /// Agreeing simhash bits, when simhashes were computed.
    pub c_similarity: Option<u32>,
    /// Both pages on one site (under the configured site rule).
    pub same_site: bool,
    /// `||R_a - R_b||inf` of the normalized random projections, for rp-hm runs.
    pub rp_distance: Option<f64>,
    /// `||X_a - X_b||inf` of the hyperlink maps, for rp-hm runs.
    pub hm_distance: Option<f64>,
}

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
}

/// Everything a dedup run finds.
#[derive(Debug)]
pub struct DedupResult {
    /// Clusters ordered by their smallest member.
    pub clusters: Vec<Cluster>,
    /// `cluster_of[p]` = index into `clusters`, or `u32::MAX`.
    pub cluster_of: Vec<u32>,
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
}

/// Groups pages by a 64-bit key; returns the groups of two or more, each increasing, in key
/// order (one table of [`groups`], whose buckets are visited in key order).
fn group_by(n: u32, key: impl Fn(u32) -> u64 + Sync) -> Vec<Vec<u32>> {
    let out = Mutex::new(Vec::new());
    groups(
        n,
        1,
        |p, _| Some(key(p)),
        |_, members| {
            out.lock()
                .expect("no panics while locked")
                .push(members.to_vec())
        },
    );
    out.into_inner().expect("no panics while locked")
}

/// The evidence for a pair under a configuration (`rphm`: the signatures of rp-hm runs).
pub fn score(
    corpus: &Corpus,
    cfg: &DedupConfig,
    rphm: Option<&crate::rphm::RpHm>,
    a: u32,
    b: u32,
) -> Evidence {
    let pa = &corpus.pages[a as usize];
    let pb = &corpus.pages[b as usize];
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
        match cfg.matching {
            Matching::Supershingles { .. } => Rule::Supershingles,
            Matching::Bands { .. } => Rule::LshBands,
            Matching::Simhash { .. } => Rule::Simhash,
            Matching::Combined { .. } => Rule::Combined,
            Matching::Split { .. } if same_site => Rule::Combined,
            Matching::Split { .. } => Rule::Simhash,
            Matching::RpHm { .. } => Rule::RpHm,
        }
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

/// Whether evidence is a match under a configuration.
pub fn accepts(cfg: &DedupConfig, e: &Evidence) -> bool {
    let c = e.c_similarity.unwrap_or(0);
    let base = e.rule == Rule::IdenticalTokens
        || match cfg.matching {
            Matching::Supershingles { min_agree } => e.b_similarity >= min_agree,
            Matching::Bands { .. } => e.estimated_jaccard >= cfg.threshold,
            Matching::Simhash { min_c, .. } => c >= min_c,
            Matching::Combined { min_agree, min_c } => e.b_similarity >= min_agree && c >= min_c,
            Matching::Split {
                min_agree,
                min_c_same_site,
                min_c_other_site,
                ..
            } => {
                if e.same_site {
                    e.b_similarity >= min_agree && c >= min_c_same_site
                } else {
                    c >= min_c_other_site
                }
            }
            Matching::RpHm { rp_tol, hm_tol, .. } => {
                e.rp_distance.is_some_and(|d| d < rp_tol)
                    && (hm_tol >= 1.0 || e.hm_distance.is_some_and(|d| d < hm_tol))
            }
        };
    base && (!cfg.verify
        || e.rule == Rule::IdenticalTokens
        || e.exact_jaccard.is_some_and(|j| j >= cfg.threshold))
}

/// Candidate pairs from the tables of `matching` (or the k-d tree of rp-hm), among pages where
/// `include(p)`.
fn candidates(
    corpus: &Corpus,
    matching: Matching,
    rphm: Option<&crate::rphm::RpHm>,
    include: &(dyn Fn(u32) -> bool + Sync),
) -> (u64, Vec<(u32, u32)>) {
    let family = &corpus.family;
    let edges = Mutex::new(Vec::new());
    let visit = |_t: usize, members: &[u32]| {
        let mut local = Vec::with_capacity(2 * members.len());
        for i in 1..members.len() {
            local.push((members[0], members[i]));
            if i >= 2 {
                local.push((members[i - 1], members[i]));
            }
        }
        edges.lock().expect("no panics while locked").extend(local);
    };
    let tables = match matching {
        Matching::Supershingles { min_agree } => {
            let combos = combinations(family.params().supershingles as usize, min_agree as usize);
            groups(
                corpus.len(),
                combos.len(),
                |p, t| {
                    if !include(p) {
                        return None;
                    }
                    let s = corpus.supershingles(p);
                    let mut buf = [0u64; 16];
                    for (k, &i) in combos[t].iter().enumerate() {
                        buf[k] = s[i];
                    }
                    Some(family.key_fingerprint(&buf[..combos[t].len()]))
                },
                visit,
            );
            combos.len()
        }
        Matching::Combined { min_agree, .. } => {
            return candidates(corpus, Matching::Supershingles { min_agree }, None, include);
        }
        Matching::Split {
            min_agree,
            min_c_other_site,
            blocks,
            ..
        } => {
            let (t1, mut e1) =
                candidates(corpus, Matching::Supershingles { min_agree }, None, include);
            let (t2, e2) = candidates(
                corpus,
                Matching::Simhash {
                    min_c: min_c_other_site,
                    blocks,
                },
                None,
                include,
            );
            e1.extend(e2);
            e1.par_sort_unstable();
            e1.dedup();
            return (t1 + t2, e1);
        }
        Matching::Simhash { min_c, blocks } => {
            let bits = family.params().simhash_bits;
            let tables = SimhashTables::new(bits, bits - min_c, blocks)
                .expect("validated by DedupConfig::validate");
            groups(
                corpus.len(),
                tables.tables.len(),
                |p, t| include(p).then(|| tables.key(corpus.simhash(p), t)),
                visit,
            );
            tables.tables.len()
        }
        Matching::RpHm { rp_tol, hm_tol, .. } => {
            let s = rphm.expect("rp-hm candidates need the signatures");
            return (1, s.collisions(rp_tol, hm_tol, include));
        }
        Matching::Bands { bands, rows } => {
            let r = rows as usize;
            groups(
                corpus.len(),
                bands as usize,
                |p, t| {
                    include(p)
                        .then(|| family.key_fingerprint(&corpus.minvalues(p)[t * r..(t + 1) * r]))
                },
                visit,
            );
            bands as usize
        }
    };
    let mut e = edges.into_inner().expect("no panics while locked");
    e.par_sort_unstable();
    e.dedup();
    (tables as u64, e)
}

/// Runs dedup over a corpus.
pub fn dedup(corpus: &Corpus, cfg: &DedupConfig) -> DedupResult {
    let n = corpus.len();
    let mut counts = DedupCounts {
        pages: n as u64,
        ..Default::default()
    };
    let mut t = Instant::now();
    let mut lap = |name: &str, counts: &mut DedupCounts| {
        counts
            .seconds
            .push((name.to_string(), t.elapsed().as_secs_f64()));
        t = Instant::now();
    };

    // 1. Identity sets and byte-identical sets.
    let identity = group_by(n, |p| {
        corpus.pages[p as usize].token_hash
            ^ (corpus.pages[p as usize].tokens as u64).rotate_left(32)
    });
    let mut rep_of: Vec<u32> = (0..n).collect();
    for set in &identity {
        for &p in &set[1..] {
            rep_of[p as usize] = set[0];
        }
    }
    counts.identity_sets = identity.len() as u64;
    counts.identity_duplicates = identity.iter().map(|s| s.len() as u64 - 1).sum();
    let byte_identical = group_by(n, |p| corpus.pages[p as usize].body_hash);
    counts.byte_identical_sets = byte_identical.len() as u64;
    counts.byte_identical_duplicates = byte_identical.iter().map(|s| s.len() as u64 - 1).sum();
    lap("identity-sets", &mut counts);

    // 2. Candidates among identity-set representatives that are not mostly boilerplate.
    let mostly = |p: u32| {
        cfg.boilerplate_mostly
            .is_some_and(|t| corpus.pages[p as usize].boilerplate as f64 >= t)
    };
    let boilerplate_pages: Vec<u32> = (0..n).filter(|&p| mostly(p)).collect();
    let is_rep = |p: u32| rep_of[p as usize] == p && !mostly(p);
    let rphm_owned = match cfg.matching {
        Matching::RpHm { hm, .. } => {
            let s = crate::rphm::RpHm::new(corpus, hm);
            counts.rp_hm = Some(s.stats.clone());
            lap("rp-hm-signatures", &mut counts);
            Some(s)
        }
        _ => None,
    };
    let rphm = rphm_owned.as_ref();
    // rp-hm searches every page: an identity-set member has its representative's RP signature
    // but its own hyperlink map, so its near-duplicates can differ from its representative's.
    let not_mostly = |p: u32| !mostly(p);
    let include: &(dyn Fn(u32) -> bool + Sync) = if cfg.matching.needs_rp() {
        &not_mostly
    } else {
        &is_rep
    };
    let (tables, edges) = candidates(corpus, cfg.matching, rphm, include);
    counts.tables = tables;
    counts.candidate_pairs = edges.len() as u64;
    lap("candidates", &mut counts);

    // 3. Scoring.
    let pairs: Vec<Pair> = edges
        .par_iter()
        .filter_map(|&(a, b)| {
            let e = score(corpus, cfg, rphm, a, b);
            accepts(cfg, &e).then_some(Pair { a, b, evidence: e })
        })
        .collect();
    counts.accepted_pairs = pairs.len() as u64;
    lap("scoring", &mut counts);

    // 4. Clusters.
    let mut uf = UnionFind::new(n);
    for p in &pairs {
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
    let graph_star =
        matches!(cfg.matching, Matching::RpHm { .. }) && cfg.cluster == ClusterMode::Star;
    let (adj_offsets, adj) = if graph_star {
        let mut deg = vec![0usize; n as usize + 1];
        for p in &pairs {
            deg[p.a as usize + 1] += 1;
            deg[p.b as usize + 1] += 1;
        }
        for i in 1..deg.len() {
            deg[i] += deg[i - 1];
        }
        let mut at = deg.clone();
        let mut adj = vec![0u32; pairs.len() * 2];
        for p in &pairs {
            adj[at[p.a as usize]] = p.b;
            at[p.a as usize] += 1;
            adj[at[p.b as usize]] = p.a;
            at[p.b as usize] += 1;
        }
        (deg, adj)
    } else {
        (Vec::new(), Vec::new())
    };
    let mut set_of = vec![u32::MAX; if graph_star { n as usize } else { 0 }];
    if graph_star {
        for (i, set) in identity.iter().enumerate() {
            for &p in set {
                set_of[p as usize] = i as u32;
            }
        }
    }
    // Near-duplicates of `c` in the match graph: its accepted pairs and its identity set.
    let graph_neighbors = |c: u32, out: &mut Vec<u32>| {
        let edges = |p: u32| &adj[adj_offsets[p as usize]..adj_offsets[p as usize + 1]];
        out.extend_from_slice(edges(c));
        if let Some(set) = identity.get(set_of[c as usize] as usize) {
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
                    accepts(cfg, &score(corpus, cfg, rphm, c, m))
                }),
            };
            stars.into_iter().map(|(canonical, members)| {
                let evidence = members
                    .iter()
                    .map(|&m| score(corpus, cfg, rphm, canonical, m))
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
    let mut cluster_of = vec![u32::MAX; n as usize];
    for (i, c) in clusters.iter().enumerate() {
        for &m in &c.members {
            cluster_of[m as usize] = i as u32;
        }
    }
    counts.clusters = clusters.len() as u64;
    counts.pages_in_clusters = clusters.iter().map(|c| c.members.len() as u64).sum();
    counts.pages_to_remove = counts.pages_in_clusters - counts.clusters;
    lap("clustering", &mut counts);

    // The "virtually identical" level for the summary (004: 22.2%): all supershingles agree.
    let m_prime = corpus.family.params().supershingles;
    if cfg.matching.uses_supershingles() && m_prime > 0 {
        let (_, vi_edges) = candidates(
            corpus,
            Matching::Supershingles { min_agree: m_prime },
            None,
            &|_| true,
        );
        let mut vi = UnionFind::new(n);
        for (a, b) in vi_edges {
            vi.union(a, b);
        }
        counts.virtually_identical_pages =
            Some(vi.components().iter().map(|c| c.len() as u64).sum());
        lap("virtually-identical-level", &mut counts);
    }

    DedupResult {
        clusters,
        cluster_of,
        pairs,
        byte_identical,
        boilerplate_pages,
        counts,
        rphm: rphm_owned,
    }
}
