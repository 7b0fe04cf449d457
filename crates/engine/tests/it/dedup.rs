//! The dedup stage on real signatures (the committed sample crawl): the candidate tables find
//! exactly the clusters a brute-force comparison of all pairs finds.

use crate::common;

use neardup_candidates::{agreement, estimated_jaccard};
use neardup_cluster::{Keep, UnionFind};
use neardup_dedup::rphm::{HmParams, RpHm};
use neardup_dedup::{accepts, dedup, score, ClusterMode, DedupConfig, Matching};
use neardup_engine::sketching::{assemble, CorpusSink, SketchVisitor};
use neardup_engine::{Input, NoProgress, PipelineConfig};
use neardup_sketch::{Family, SketchParams};
use neardup_store::Corpus;

fn sample(params: &SketchParams) -> Corpus {
    sample_keeping(params, true)
}

/// The sample crawl's corpus; `every_set` keeps every page's shingle set (as `--verify`), else
/// only the small pages' (`exact_sets`).
fn sample_keeping(params: &SketchParams, every_set: bool) -> Corpus {
    let mut pipeline = PipelineConfig::default();
    pipeline.tokenizer.links = params.rp_dims > 0;
    let inputs = common::sample_inputs();
    let family = Family::new(params);
    let sink = CorpusSink::new(family, every_set);
    let run = neardup_engine::run(
        &inputs,
        &pipeline,
        || SketchVisitor::new(&sink),
        &NoProgress,
    )
    .unwrap();
    assemble(sink, run).0
}

fn partition(mut uf: UnionFind) -> Vec<Vec<u32>> {
    uf.components()
}

fn brute(corpus: &Corpus, near: impl Fn(u32, u32) -> bool) -> Vec<Vec<u32>> {
    let n = corpus.len();
    let mut uf = UnionFind::new(n);
    for i in 0..n {
        for j in i + 1..n {
            if near(i, j) {
                uf.union(i, j);
            }
        }
    }
    partition(uf)
}

fn cfg(matching: Matching) -> DedupConfig {
    DedupConfig::new(matching)
}

#[test]
fn supershingle_tables_equal_brute_force_on_real_pages() {
    let corpus = sample(&SketchParams::default());
    // 1087 responses, of which 383 are redirect stubs and 24 not HTML.
    assert!(corpus.len() > 600);
    for b in [2u32, 3, 6] {
        let got: Vec<Vec<u32>> = dedup(&corpus, &cfg(Matching::Supershingles { min_agree: b }))
            .unwrap()
            .clusters
            .into_iter()
            .map(|c| c.members)
            .collect();
        let want = brute(&corpus, |i, j| {
            let (pi, pj) = (corpus.page(i), corpus.page(j));
            (pi.token_hash == pj.token_hash && pi.tokens == pj.tokens)
                || agreement(corpus.supershingles(i), corpus.supershingles(j)) >= b as usize
        });
        assert_eq!(got, want, "B-similarity >= {b}");
        assert!(!got.is_empty());
    }
}

#[test]
fn bands_equal_brute_force_on_real_pages() {
    let params = SketchParams {
        m: 128,
        ..SketchParams::default()
    };
    let corpus = sample_keeping(&params, false);
    let (bands, rows) = (9usize, 13usize);
    let got: Vec<Vec<u32>> = dedup(
        &corpus,
        &cfg(Matching::Bands {
            bands: bands as u32,
            rows: rows as u32,
        }),
    )
    .unwrap()
    .clusters
    .into_iter()
    .map(|c| c.members)
    .collect();
    // Brute force over pairs that collide in a band, accepted at J >= 0.8 (exact when both
    // pages kept their shingle sets, else estimated). The tables compare bucket members with
    // the bucket's first member and predecessor, so the oracle is the same rule on all pairs:
    // they must give the same partition on this corpus.
    let want = brute(&corpus, |i, j| {
        let (pi, pj) = (corpus.page(i), corpus.page(j));
        if pi.token_hash == pj.token_hash && pi.tokens == pj.tokens {
            return true;
        }
        let (a, b) = (corpus.minvalues(i), corpus.minvalues(j));
        let collide =
            (0..bands).any(|t| a[t * rows..(t + 1) * rows] == b[t * rows..(t + 1) * rows]);
        let j = match (corpus.shingles(i), corpus.shingles(j)) {
            (Some(x), Some(y)) => neardup_candidates::exact_jaccard(x, y),
            _ => estimated_jaccard(a, b),
        };
        collide && j >= 0.8
    });
    assert!(corpus.shingle_sets() > 0 && corpus.shingle_sets() < corpus.len() as usize);
    assert_eq!(got, want);
}

#[test]
fn star_clusters_only_hold_matches_of_the_canonical_page() {
    let corpus = sample(&SketchParams::default());
    let mut c = cfg(Matching::Supershingles { min_agree: 2 });
    c.cluster = ClusterMode::Star;
    c.verify = true;
    let r = dedup(&corpus, &c).unwrap();
    for cl in &r.clusters {
        for (&m, e) in cl.members.iter().zip(&cl.evidence) {
            if m != cl.canonical {
                assert!(
                    e.b_similarity >= 2
                        || e.exact_jaccard == Some(1.0)
                        || e.estimated_jaccard == 1.0
                );
                assert!(e.exact_jaccard.unwrap() >= 0.8, "{e:?}");
            }
        }
    }
    // Deterministic across runs.
    let again = dedup(&corpus, &c).unwrap();
    let a: Vec<_> = r
        .clusters
        .iter()
        .map(|c| (c.canonical, c.members.clone()))
        .collect();
    let b: Vec<_> = again
        .clusters
        .iter()
        .map(|c| (c.canonical, c.members.clone()))
        .collect();
    assert_eq!(a, b);
}

fn identical(corpus: &Corpus, i: u32, j: u32) -> bool {
    let (pi, pj) = (corpus.page(i), corpus.page(j));
    pi.token_hash == pj.token_hash && pi.tokens == pj.tokens
}

#[test]
fn simhash_tables_equal_brute_force_on_real_pages() {
    let corpus = sample(&SketchParams {
        simhash_bits: 384,
        ..SketchParams::default()
    });
    for (min_c, blocks) in [(372u32, None), (372, Some(16)), (360, None)] {
        let c = cfg(Matching::Simhash { min_c, blocks });
        c.validate(corpus.family().params()).unwrap();
        let got: Vec<Vec<u32>> = dedup(&corpus, &c)
            .unwrap()
            .clusters
            .into_iter()
            .map(|c| c.members)
            .collect();
        let want = brute(&corpus, |i, j| {
            identical(&corpus, i, j)
                || neardup_sketch::c_similarity(corpus.simhash(i), corpus.simhash(j)) >= min_c
        });
        assert_eq!(got, want, "C >= {min_c}, blocks {blocks:?}");
    }
}

#[test]
fn combined_keeps_only_b_similar_pairs_with_high_c_similarity() {
    let corpus = sample(&SketchParams {
        simhash_bits: 384,
        ..SketchParams::default()
    });
    let c = cfg(Matching::Combined {
        min_agree: 2,
        min_c: 355,
    });
    let r = dedup(&corpus, &c).unwrap();
    for p in &r.pairs {
        assert!(
            p.evidence.b_similarity >= 2 && p.evidence.c_similarity.unwrap() >= 355,
            "{:?}",
            p.evidence
        );
    }
    let got: Vec<Vec<u32>> = r.clusters.into_iter().map(|c| c.members).collect();
    let want = brute(&corpus, |i, j| {
        identical(&corpus, i, j)
            || (agreement(corpus.supershingles(i), corpus.supershingles(j)) >= 2
                && neardup_sketch::c_similarity(corpus.simhash(i), corpus.simhash(j)) >= 355)
    });
    assert_eq!(got, want);
}

#[test]
fn rp_hm_collisions_equal_brute_force_on_real_pages() {
    let corpus = sample(&SketchParams {
        rp_dims: 5,
        ..SketchParams::default()
    });
    assert_eq!(corpus.all_rp().len(), 5 * corpus.len() as usize);
    assert!(
        corpus.link_count() > 10_000,
        "outlinks kept: {}",
        corpus.link_count()
    );
    let hm = HmParams::default();
    let sigs = RpHm::new(&corpus, hm);
    assert!(sigs.stats.graph.edges > 0);
    assert!(sigs
        .rp
        .iter()
        .chain(&sigs.hm)
        .all(|v| (0.0..=1.0).contains(v)));
    for (rp_tol, hm_tol) in [
        (1e-4, 1.0),
        (1e-3, 1.0),
        (2e-3, 1e-4),
        (0.05, 1e-3),
        (1e-4, 1e-9),
    ] {
        let c = cfg(Matching::RpHm { rp_tol, hm_tol, hm });
        c.validate(corpus.family().params()).unwrap();
        let r = dedup(&corpus, &c).unwrap();
        for p in &r.pairs {
            let e = p.evidence;
            assert!(e.rp_distance.unwrap() < rp_tol, "{e:?}");
            assert!(hm_tol >= 1.0 || e.hm_distance.unwrap() < hm_tol, "{e:?}");
        }
        let got: Vec<Vec<u32>> = r.clusters.into_iter().map(|c| c.members).collect();
        let want = brute(&corpus, |i, j| {
            let (dr, dx) = sigs.distances(i, j);
            identical(&corpus, i, j) || (dr < rp_tol && (hm_tol >= 1.0 || dx < hm_tol))
        });
        assert_eq!(got, want, "D {rp_tol}, C {hm_tol}");
        // Star clusters from the match graph equal the exhaustive star split of the same
        // components (every remaining member compared with every canonical page).
        for keep in [Keep::First, Keep::ShortestUrl] {
            let mut star = c.clone();
            star.cluster = ClusterMode::Star;
            star.keep = keep;
            let r = dedup(&corpus, &star).unwrap();
            let got: Vec<(u32, Vec<u32>)> = r
                .clusters
                .iter()
                .map(|c| (c.canonical, c.members.clone()))
                .collect();
            let mut want: Vec<(u32, Vec<u32>)> = want
                .iter()
                .flat_map(|comp| {
                    neardup_cluster::star_split(comp, keep, &corpus, |a, b| {
                        accepts(&star, &score(&corpus, &star, Some(&sigs), &r.titles, a, b))
                    })
                })
                .collect();
            want.sort_by_key(|c| c.1[0]);
            assert_eq!(got, want, "star, D {rp_tol}, C {hm_tol}, {keep:?}");
        }
    }
}

/// Writes HTML pages into a folder and sketches them as the crawl of `base`.
fn html_corpus(pages: &[(&str, String)], params: &SketchParams) -> Corpus {
    let dir = tempfile::tempdir().unwrap();
    for (name, html) in pages {
        std::fs::write(dir.path().join(name), html).unwrap();
    }
    let mut pipeline = PipelineConfig::default();
    pipeline.tokenizer.links = true;
    pipeline.read.base_url = Some("http://site.example/".into());
    let sink = CorpusSink::new(Family::new(params), false);
    let run = neardup_engine::run(
        &[Input::file(dir.path())],
        &pipeline,
        || SketchVisitor::new(&sink),
        &NoProgress,
    )
    .unwrap();
    assemble(sink, run).0
}

#[test]
fn the_hyperlink_map_tells_apart_same_text_in_different_link_contexts() {
    let paper = HmParams {
        scaling: neardup_dedup::rphm::Scaling::Collection,
        ..HmParams::default()
    };
    // Three near-identical pages (one word differs): a and d link to pages with the same text,
    // b links to a page about something else. RP cannot tell them apart; HM can.
    let words = |seed: u64, n: usize| -> String {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                format!("w{}", (x >> 33) % 5000)
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let body = words(1, 300);
    let page = |extra: &str, child: &str| {
        format!("<html><body><p>{body} {extra}</p><a href=\"{child}\">next</a></body></html>")
    };
    let leaf = |text: &str| format!("<html><body><p>{text}</p></body></html>");
    let ctx1 = words(2, 400);
    let other = words(3, 400);
    let pages = [
        ("a.html", page("alpha", "c1.html")),
        ("b.html", page("beta", "c2.html")),
        ("c1.html", leaf(&ctx1)),
        ("c2.html", leaf(&other)),
        ("c3.html", leaf(&format!("{ctx1} tail"))),
        ("d.html", page("gamma", "c3.html")),
        // Same tokens ("next" is the anchor text either way), different link contexts.
        ("e.html", page("delta", "c1.html")),
        ("f.html", page("delta", "c2.html")),
    ];
    let corpus = html_corpus(
        &pages,
        &SketchParams {
            rp_dims: 5,
            // With the paper's collection scaling over eight pages, how close a and b project
            // depends on the term hashing's draw; the assertions below were set with the
            // papers' Rabin term fingerprints.
            minhash: neardup_sketch::MinHashFamily::Rabin,
            ..SketchParams::default()
        },
    );
    let id = |name: &str| corpus.pages().position(|p| p.url.ends_with(name)).unwrap() as u32;
    // Fixed scaling separates the link contexts too.
    let fixed = RpHm::new(&corpus, HmParams::default());
    let (a, b, d) = (id("a.html"), id("b.html"), id("d.html"));
    let (_, fa_b) = fixed.distances(a, b);
    let (_, fa_d) = fixed.distances(a, d);
    assert!(fa_d < fa_b / 5.0, "fixed HM: a-d {fa_d}, a-b {fa_b}");
    // The paper's scaling, with tolerances relative to these eight pages.
    let sigs = RpHm::new(&corpus, paper);
    assert_eq!(sigs.stats.graph.edges, 5);
    let (ra_b, xa_b) = sigs.distances(a, b);
    let (ra_d, xa_d) = sigs.distances(a, d);
    assert!(ra_b < 0.05 && ra_d < 0.05, "RP close: {ra_b} {ra_d}");
    assert!(xa_d < xa_b / 5.0, "HM: a-d {xa_d}, a-b {xa_b}");
    // RP only puts all three together; a tight HM tolerance keeps b out.
    let run = |hm_tol: f64| {
        let mut c = cfg(Matching::RpHm {
            rp_tol: 0.05,
            hm_tol,
            hm: paper,
        });
        c.keep = Keep::First;
        dedup(&corpus, &c)
            .unwrap()
            .clusters
            .into_iter()
            .map(|c| c.members)
            .find(|m| m.contains(&a))
            .unwrap_or_default()
    };
    let rp_only = run(1.0);
    assert!(rp_only.contains(&b) && rp_only.contains(&d));
    let with_hm = run((xa_d + xa_b) / 2.0);
    assert!(with_hm.contains(&d) && !with_hm.contains(&b), "{with_hm:?}");
    // Identical token sequences stay together in star clusters whatever their hyperlink maps.
    let (e, f) = (id("e.html"), id("f.html"));
    assert!(sigs.distances(e, f).1 > 1e-6);
    let mut c = cfg(Matching::RpHm {
        rp_tol: 1e-9,
        hm_tol: 1e-9,
        hm: paper,
    });
    c.cluster = ClusterMode::Star;
    let clusters: Vec<Vec<u32>> = dedup(&corpus, &c)
        .unwrap()
        .clusters
        .into_iter()
        .map(|c| c.members)
        .collect();
    assert_eq!(clusters, vec![vec![e.min(f), e.max(f)]]);
}

mod replicas {
    //! Candidate site pairs and their Jaccard against brute force on a hand-made corpus.
    use neardup_sites::replicas::{replicas, ReplicaConfig};
    use neardup_sketch::{Family, SketchParams};
    use neardup_store::{Corpus, PageMeta, Signatures};
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    #[test]
    fn candidates_are_exactly_the_site_pairs_sharing_a_cluster() {
        let hosts = ["a.com", "www.a.com", "a.net", "b.org", "c.io", "d.dev"];
        let mut b = Corpus::builder(Family::new(&SketchParams::default()), vec!["t".into()]);
        // Page p is on host p % 6, path /p/6.
        for p in 0..60u32 {
            let meta = PageMeta {
                url: format!("https://{}/{}.html", hosts[p as usize % 6], p / 6),
                host: hosts[p as usize % 6].to_string(),
                ip: format!("10.0.{}.1", p % 3),
                token_hash: (p / 6) as u64,
                ..Default::default()
            };
            let sigs = Signatures {
                minvalues: &[0; 84],
                supershingles: &[0; 6],
                ..Signatures::default()
            };
            b.push(meta, sigs).unwrap();
        }
        let c = b.build();
        // Clusters: pages of paths 0..4 across the first three hosts; path 5 across b and c;
        // one cluster inside d only.
        let mut clusters: Vec<Vec<u32>> =
            (0..5).map(|k| vec![6 * k, 6 * k + 1, 6 * k + 2]).collect();
        clusters.push(vec![33, 34]);
        clusters.push(vec![5, 11]);
        let r = replicas(&c, &clusters, &HashMap::new(), &ReplicaConfig::default());
        // Brute force.
        let mut sets: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        for (i, cl) in clusters.iter().enumerate() {
            for &p in cl {
                sets.entry(hosts[p as usize % 6]).or_default().insert(i);
            }
        }
        let mut want = BTreeMap::new();
        for (ha, sa) in &sets {
            for (hb, sb) in &sets {
                let shared = sa.intersection(sb).count();
                if ha < hb && shared > 0 {
                    let j = shared as f64 / sa.union(sb).count() as f64;
                    want.insert((ha.to_string(), hb.to_string()), (shared as u32, j));
                }
            }
        }
        let host = |s: u32| r.sites[s as usize].host.clone();
        let got: BTreeMap<(String, String), (u32, f64)> = r
            .candidates
            .iter()
            .map(|c| {
                let (a, b) = (host(c.a), host(c.b));
                let k = if a < b { (a, b) } else { (b, a) };
                (k, (c.shared_clusters, c.jaccard))
            })
            .collect();
        assert_eq!(got, want);
        assert_eq!((r.counts.obvious_www, r.counts.obvious_tld), (1, 2));
        // Ranks are 1..n and the scores are likelihoods.
        let ranks: Vec<u64> = r.candidates.iter().map(|c| c.rank).collect();
        assert_eq!(ranks, (1..=r.candidates.len() as u64).collect::<Vec<_>>());
        // Obvious non-replicas: every site pair sharing nothing (fewer than the minimum).
        assert_eq!(r.counts.obvious_negatives, 15 - want.len() as u64);
    }
}
