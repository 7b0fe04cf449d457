//! Random-projection (RP) and hyperlink-map (HM) signatures of a whole corpus (paper 000).
//!
//! * RP: the raw projections of the signature stage ([`neardup_sketch::projection`]), divided by
//!   the page's term count for relative term frequencies (the default, see [`TermWeights`]),
//!   minus the collection's componentwise minimum, each component scaled to `[0, 1]`.
//! * Link graph: every page's outlinks (resolved by the tokenizer in canonical form, hashed
//!   with [`url_hash`]) matched against the corpus's page URLs in the same form ([`link_key`]), in compressed
//!   sparse row form with `u32` page ids. A URL held by several pages (one crawl per input)
//!   resolves to the page from the linking page's own input when there is one, else to the first
//!   page with that URL. Repeated links count once and links to the page's own URL not at all,
//!   i.e. `ch(p)` is a set without `p`.
//! * HM: `x_p(t+1) = r_p + γ Σ_(q ∈ ch(p)) x_q(t) ⊙ r_q`, `x_p(0) = r_p`, every vector then
//!   divided by the largest component of any page (equation 1). Iterations run in parallel over
//!   pages; each page sums its children in increasing order, so results do not depend on the
//!   thread count.

use neardup_store::Corpus;
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

/// XXH3-64 (seed 0) of a link as the tokenizer gives it, in canonical form
/// ([`neardup_text::canonical_link`]: session ids, tracking parameters, `www.` and the query's
/// order set aside): what signature files store for outlinks.
pub fn url_hash(canonical: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(canonical.as_bytes())
}

/// [`url_hash`] of a page's own URL in canonical form (as it is when it does not parse): what
/// outlinks are matched by, so that a link carrying a session id reaches the page it names.
pub fn link_key(url: &str) -> u64 {
    match neardup_text::canonical_link(url) {
        Some(c) => url_hash(&c),
        None => url_hash(url),
    }
}

use neardup_store::sort_dedup_tail;

/// How the bag of words weighs a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TermWeights {
    /// Occurrences divided by the page's term count: pages of different lengths with the same
    /// word distribution project to the same point.
    Relative,
    /// Raw occurrence counts: a page's projection grows with its length.
    Counts,
}

/// How RP and HM signatures are brought to `[0, 1]`, and so what the tolerances `D` and `C`
/// mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scaling {
    /// Fixed bounds, whatever the collection (the default): a projection of relative term
    /// frequencies lies in `[-1, 1]` and is mapped to `[0, 1]`; the hyperlink map averages its
    /// children, `x_p(t+1) = (r_p + γ mean_(q ∈ ch(p)) x_q(t) ⊙ r_q) / (1 + γ)`, which stays in
    /// `[0, 1]`. A tolerance is a property of the pair, so it holds on any crawl. With raw
    /// counts (unbounded) the RP part falls back to the collection's range.
    Fixed,
    /// Paper 000: each RP component scaled by the collection's minimum and range, the HM sum
    /// over children divided by the largest component of any page after each iteration. The
    /// tolerances then depend on the collection's extremes (its shortest pages, its largest
    /// hub).
    Collection,
}

impl Scaling {
    /// The default tolerances `(D, C)` under this scaling, from the labelled development set
    /// (break-even of RP+HM; see the README's "rp-hm" section).
    pub fn tolerances(self) -> (f64, f64) {
        match self {
            Scaling::Fixed => (0.0096, 0.0068),
            Scaling::Collection => (0.023, 0.00006),
        }
    }
}

/// The RP normalization and hyperlink-map parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HmParams {
    /// How signatures are scaled.
    pub scaling: Scaling,
    /// Term weights of the bag of words.
    pub weights: TermWeights,
    /// Damping factor `γ` of equation 1.
    pub gamma: f64,
    /// Iterations (paper: 3-5); 0 makes HM equal RP.
    pub iterations: u32,
}

impl HmParams {
    /// The settings given, [`HmParams::default`]'s for the others.
    pub fn with(
        scaling: Option<Scaling>,
        weights: Option<TermWeights>,
        gamma: Option<f64>,
        iterations: Option<u32>,
    ) -> HmParams {
        let d = HmParams::default();
        HmParams {
            scaling: scaling.unwrap_or(d.scaling),
            weights: weights.unwrap_or(d.weights),
            gamma: gamma.unwrap_or(d.gamma),
            iterations: iterations.unwrap_or(d.iterations),
        }
    }
}

impl Default for HmParams {
    /// Fixed scaling, relative weights, `γ = 0.5`, 3 iterations: see the README's "rp-hm"
    /// section for how they were chosen.
    fn default() -> Self {
        HmParams {
            scaling: Scaling::Fixed,
            weights: TermWeights::Relative,
            gamma: 0.5,
            iterations: 3,
        }
    }
}

/// Outlinks as a compressed sparse row graph over dense page ids.
#[derive(Clone, Debug, Default)]
pub struct LinkGraph {
    /// `children(p) = targets[offsets[p] .. offsets[p + 1]]`, increasing.
    pub offsets: Vec<u64>,
    /// Child page ids.
    pub targets: Vec<u32>,
}

impl LinkGraph {
    /// The pages `p` links to (in the corpus, without `p`), increasing.
    pub fn children(&self, p: u32) -> &[u32] {
        &self.targets[self.offsets[p as usize] as usize..self.offsets[p as usize + 1] as usize]
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.offsets.len() * 8 + self.targets.len() * 4) as u64
    }
}

/// Counts of the link graph, for the summary.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkGraphStats {
    /// Pages (nodes).
    pub pages: u64,
    /// Distinct outlinks over all pages.
    pub outlinks: u64,
    /// Outlinks to a page of the corpus other than the linking page (edges).
    pub edges: u64,
    /// Pages with at least one edge.
    pub pages_with_children: u64,
    /// Bytes of the CSR arrays.
    pub bytes: u64,
}

/// Builds the link graph of a corpus from its pages' outlink hashes.
pub fn link_graph(corpus: &Corpus) -> (LinkGraph, LinkGraphStats) {
    let n = corpus.len();
    // Each page's own URL key (one URL parse a page), then (url hash, input, page), sorted: a
    // URL's pages are one run, ordered by input.
    let own: Vec<u64> = (0..n)
        .into_par_iter()
        .map(|p| link_key(corpus.page(p).url))
        .collect();
    let mut keys: Vec<(u64, u32, u32)> = (0..n)
        .into_par_iter()
        .map(|p| (own[p as usize], corpus.page(p).id.source, p))
        .collect();
    keys.par_sort_unstable();
    let resolve = |h: u64, source: u32| -> Option<u32> {
        let start = keys.partition_point(|k| k.0 < h);
        let run = keys[start..].iter().take_while(|k| k.0 == h);
        let mut first = None;
        for k in run {
            if k.1 == source {
                return Some(k.2);
            }
            first.get_or_insert(k.2);
        }
        first
    };
    const CHUNK: u32 = 4096;
    let parts: Vec<(Vec<u32>, Vec<u32>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut counts = Vec::with_capacity(CHUNK as usize);
            let mut targets = Vec::new();
            for p in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let source = corpus.page(p).id.source;
                // A link to the page's own URL (in canonical form: a copy with a session id
                // linking to itself) is a self-link, whichever page that URL resolves to.
                let own = own[p as usize];
                let start = targets.len();
                targets.extend(
                    corpus
                        .links(p)
                        .iter()
                        .filter(|&&h| h != own)
                        .filter_map(|&h| resolve(h, source))
                        .filter(|&q| q != p),
                );
                counts.push(sort_dedup_tail(&mut targets, start) as u32);
            }
            (counts, targets)
        })
        .collect();
    let mut g = LinkGraph {
        offsets: Vec::with_capacity(n as usize + 1),
        targets: Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum()),
    };
    g.offsets.push(0);
    let mut with_children = 0;
    for (counts, targets) in parts {
        for c in counts {
            with_children += u64::from(c > 0);
            g.offsets
                .push(g.offsets.last().copied().unwrap_or(0) + c as u64);
        }
        g.targets.extend(targets);
    }
    let stats = LinkGraphStats {
        pages: n as u64,
        outlinks: (0..n).map(|p| corpus.links(p).len() as u64).sum(),
        edges: g.targets.len() as u64,
        pages_with_children: with_children,
        bytes: g.bytes(),
    };
    (g, stats)
}

/// Iterates equation 1 (or its fixed-scale form, see [`Scaling`]): the HM signatures (`dims`
/// per page) from the normalized RP signatures. Returns the signatures and the seconds of each
/// iteration.
pub fn hyperlink_map(
    graph: &LinkGraph,
    rp: &[f64],
    dims: usize,
    hm: HmParams,
) -> (Vec<f64>, Vec<f64>) {
    let mut x = rp.to_vec();
    let mut next = vec![0.0; rp.len()];
    let mut seconds = Vec::with_capacity(hm.iterations as usize);
    if dims == 0 {
        return (x, seconds);
    }
    for _ in 0..hm.iterations {
        let t = Instant::now();
        next.par_chunks_mut(dims).enumerate().for_each(|(p, out)| {
            let mut sum = [0.0f64; neardup_sketch::MAX_RP_DIMS as usize];
            let children = graph.children(p as u32);
            for &q in children {
                let q = q as usize * dims;
                for j in 0..dims {
                    sum[j] += x[q + j] * rp[q + j];
                }
            }
            match hm.scaling {
                Scaling::Collection => {
                    for j in 0..dims {
                        out[j] = rp[p * dims + j] + hm.gamma * sum[j];
                    }
                }
                Scaling::Fixed => {
                    let n = children.len().max(1) as f64;
                    for j in 0..dims {
                        out[j] = (rp[p * dims + j] + hm.gamma * sum[j] / n) / (1.0 + hm.gamma);
                    }
                }
            }
        });
        if hm.scaling == Scaling::Collection {
            let max = next.par_iter().copied().reduce(|| 0.0, f64::max);
            if max > 0.0 {
                next.par_iter_mut().for_each(|v| *v /= max);
            }
        }
        std::mem::swap(&mut x, &mut next);
        seconds.push(t.elapsed().as_secs_f64());
    }
    (x, seconds)
}

/// Largest absolute componentwise difference.
pub fn linf(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The RP and HM signatures of a corpus, with how they were made.
#[derive(Debug)]
pub struct RpHm {
    /// Dimensions `K`.
    pub dims: usize,
    /// Normalized RP signatures, `dims` per page.
    pub rp: Vec<f64>,
    /// HM signatures, `dims` per page.
    pub hm: Vec<f64>,
    /// How they were made.
    pub stats: RpHmStats,
}

/// The link graph and the timings of [`RpHm::new`].
#[derive(Clone, Debug, Default, Serialize)]
pub struct RpHmStats {
    /// The link graph's counts.
    pub graph: LinkGraphStats,
    /// Seconds to normalize the projections.
    pub seconds_normalize: f64,
    /// Seconds to build the link graph.
    pub seconds_graph: f64,
    /// Seconds of each HM iteration.
    pub seconds_iterations: Vec<f64>,
}

impl RpHm {
    /// Computes both signatures for every page of a corpus made with `rp_dims > 0`.
    pub fn new(corpus: &Corpus, hm: HmParams) -> RpHm {
        let dims = corpus.family().params().rp_dims as usize;
        let t = Instant::now();
        let rp = match (hm.weights, hm.scaling) {
            (TermWeights::Relative, Scaling::Fixed) => {
                neardup_sketch::projection::to_unit(corpus.all_rp(), dims, |p| {
                    corpus.page(p as u32).tokens.max(1) as f64
                })
            }
            (TermWeights::Counts, _) => {
                neardup_sketch::projection::normalize(corpus.all_rp(), dims, |_| 1.0)
            }
            (TermWeights::Relative, Scaling::Collection) => {
                neardup_sketch::projection::normalize(corpus.all_rp(), dims, |p| {
                    corpus.page(p as u32).tokens.max(1) as f64
                })
            }
        };
        let seconds_normalize = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (graph, stats) = link_graph(corpus);
        let seconds_graph = t.elapsed().as_secs_f64();
        let (hm, seconds_iterations) = hyperlink_map(&graph, &rp, dims, hm);
        RpHm {
            dims,
            rp,
            hm,
            stats: RpHmStats {
                graph: stats,
                seconds_normalize,
                seconds_graph,
                seconds_iterations,
            },
        }
    }

    /// RP signature of page `p`.
    pub fn rp(&self, p: u32) -> &[f64] {
        &self.rp[p as usize * self.dims..(p as usize + 1) * self.dims]
    }

    /// HM signature of page `p`.
    pub fn hm(&self, p: u32) -> &[f64] {
        &self.hm[p as usize * self.dims..(p as usize + 1) * self.dims]
    }

    /// `(||R_a - R_b||inf, ||X_a - X_b||inf)`.
    pub fn distances(&self, a: u32, b: u32) -> (f64, f64) {
        (linf(self.rp(a), self.rp(b)), linf(self.hm(a), self.hm(b)))
    }

    /// Every pair of pages where `include` holds with `||R_a - R_b||inf < rp_tol` and, unless
    /// `hm_tol >= 1` (RP only), `||X_a - X_b||inf < hm_tol`; sorted.
    pub fn collisions(
        &self,
        rp_tol: f64,
        hm_tol: f64,
        include: impl Fn(u32) -> bool + Sync,
    ) -> Vec<(u32, u32)> {
        let k = self.dims;
        if k == 0 {
            return Vec::new();
        }
        if hm_tol >= 1.0 {
            return neardup_candidates::kdtree::pairs_within(
                &self.rp,
                k,
                &vec![rp_tol; k],
                include,
            );
        }
        let n = self.rp.len() / k;
        let mut points = Vec::with_capacity(2 * self.rp.len());
        for p in 0..n {
            points.extend_from_slice(&self.rp[p * k..(p + 1) * k]);
            points.extend_from_slice(&self.hm[p * k..(p + 1) * k]);
        }
        let mut tol = vec![rp_tol; k];
        tol.extend(std::iter::repeat_n(hm_tol, k));
        neardup_candidates::kdtree::pairs_within(&points, 2 * k, &tol, include)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(children: &[&[u32]]) -> LinkGraph {
        let mut g = LinkGraph {
            offsets: vec![0],
            targets: Vec::new(),
        };
        for c in children {
            g.targets.extend_from_slice(c);
            g.offsets.push(g.targets.len() as u64);
        }
        g
    }

    #[test]
    fn hyperlink_map_follows_equation_one() {
        // 0 -> 1, 0 -> 2, 1 -> 2, 2 -> nothing; one dimension.
        let g = graph(&[&[1, 2], &[2], &[]]);
        let r = [0.5, 1.0, 0.25];
        let gamma = 0.5;
        let (x1, s) = hyperlink_map(
            &g,
            &r,
            1,
            HmParams {
                gamma,
                iterations: 1,
                scaling: Scaling::Collection,
                ..HmParams::default()
            },
        );
        assert_eq!(s.len(), 1);
        // x(1) before scaling: 0.5 + 0.5 (1·1 + 0.25·0.25), 1 + 0.5 (0.25·0.25), 0.25.
        let raw: [f64; 3] = [0.5 + 0.5 * (1.0 + 0.0625), 1.0 + 0.5 * 0.0625, 0.25];
        let max = raw[0].max(raw[1]);
        for (a, b) in x1.iter().zip(raw) {
            assert!((a - b / max).abs() < 1e-12);
        }
        // Second iteration from x(1).
        let (x2, _) = hyperlink_map(
            &g,
            &r,
            1,
            HmParams {
                gamma,
                iterations: 2,
                scaling: Scaling::Collection,
                ..HmParams::default()
            },
        );
        let raw2 = [
            0.5 + 0.5 * (x1[1] * 1.0 + x1[2] * 0.25),
            1.0 + 0.5 * (x1[2] * 0.25),
            0.25,
        ];
        let max2 = raw2.iter().copied().fold(0.0, f64::max);
        for (a, b) in x2.iter().zip(raw2) {
            assert!((a - b / max2).abs() < 1e-12);
        }
        // No iteration: HM = RP.
        assert_eq!(
            hyperlink_map(
                &g,
                &r,
                1,
                HmParams {
                    gamma,
                    iterations: 0,
                    ..HmParams::default()
                }
            )
            .0,
            r
        );
    }

    #[test]
    fn fixed_scaling_averages_children_and_ignores_the_rest_of_the_collection() {
        // 0 -> 1, 0 -> 2, 1 -> 2, 2 -> nothing; one dimension.
        let g = graph(&[&[1, 2], &[2], &[]]);
        let r = [0.5, 1.0, 0.25];
        let (x, _) = hyperlink_map(&g, &r, 1, HmParams::default());
        assert_eq!(HmParams::default().scaling, Scaling::Fixed);
        // Three iterations by hand.
        let mut want = r;
        for _ in 0..3 {
            let w = want;
            want = [
                (0.5 + 0.5 * (w[1] * 1.0 + w[2] * 0.25) / 2.0) / 1.5,
                (1.0 + 0.5 * (w[2] * 0.25)) / 1.5,
                0.25 / 1.5,
            ];
        }
        for (a, b) in x.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{x:?} {want:?}");
        }
        // A hub linking to many pages elsewhere changes nothing for pages 0..3 (the paper's
        // global maximum would rescale every page).
        let mut children: Vec<Vec<u32>> = vec![vec![1, 2], vec![2], vec![]];
        children.push((0..3).chain(4..40).collect());
        children.extend((4..40).map(|_| Vec::new()));
        let refs: Vec<&[u32]> = children.iter().map(Vec::as_slice).collect();
        let mut r2 = r.to_vec();
        r2.extend(std::iter::repeat_n(1.0, 37));
        let (x2, _) = hyperlink_map(&graph(&refs), &r2, 1, HmParams::default());
        assert_eq!(&x2[..3], &x[..]);
    }

    #[test]
    fn hyperlink_map_is_componentwise_and_in_unit_range() {
        let g = graph(&[&[1], &[0], &[0, 1]]);
        let r = [0.1, 0.9, 0.8, 0.2, 0.5, 0.5];
        let collection = HmParams {
            scaling: Scaling::Collection,
            ..HmParams::default()
        };
        let (x, _) = hyperlink_map(&g, &r, 2, collection);
        assert!(x.iter().all(|v| (0.0..=1.0).contains(v)));
        assert!(x.contains(&1.0));
        // After one iteration, dimension 0 alone gives the 2-D run's component 0 up to the
        // common scale (the maximum is taken over all components): components do not mix.
        let one = HmParams {
            iterations: 1,
            ..collection
        };
        let (x, _) = hyperlink_map(&g, &r, 2, one);
        let (x0, _) = hyperlink_map(&g, &[0.1, 0.8, 0.5], 1, one);
        let ratio = x[0] / x0[0];
        for p in 0..3 {
            assert!((x[2 * p] - ratio * x0[p]).abs() < 1e-9);
        }
    }
}
