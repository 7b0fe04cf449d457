//! Cluster evolution on small synthetic crawls whose coefficients, change amounts, events and
//! advice were computed by hand (the fractions in the comments).

use neardup_evolve::{Action, EventKind, Evolution, EvolveReport, Reason, RecrawlConfig, RANGES};
use neardup_sketch::{Family, SketchParams};
use neardup_store::{Corpus, PageMeta, Signatures};
use std::sync::{Arc, OnceLock};

/// Building a family (its polynomials) is slow in debug builds: one for every test.
static FAMILY: OnceLock<Arc<Family>> = OnceLock::new();

/// A page version: URL, minvalues sharing `shared` of 84 with version `base` of the URL (84 =
/// same minvalues), and a body hash.
struct V {
    url: &'static str,
    shared: usize,
    body: u64,
}

fn v(url: &'static str, shared: usize, body: u64) -> V {
    V { url, shared, body }
}

/// A corpus of these pages, in order. The minvalues of a URL at change level `shared` share
/// exactly `shared` positions with the URL's base version (`shared = 84`).
fn corpus(pages: &[V]) -> Corpus {
    let params = SketchParams::default();
    let mut minvalues = Vec::new();
    let mut metas = Vec::new();
    for (i, p) in pages.iter().enumerate() {
        let url_seed = p
            .url
            .bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31) + b as u64);
        for j in 0..84u64 {
            minvalues.push(if (j as usize) < p.shared {
                url_seed.wrapping_mul(1000) as u32 + j as u32
            } else {
                // Unique to this page version.
                u32::MAX - (i as u32) * 1000 - j as u32 - 1_000_000 * p.shared as u32
            });
        }
        metas.push(PageMeta {
            url: p.url.to_string(),
            host: p.url.split('/').nth(2).unwrap_or_default().to_string(),
            body_hash: p.body,
            tokens: 100,
            ..Default::default()
        });
    }
    let mut c = Corpus::builder(
        FAMILY.get_or_init(|| Family::new(&params)).clone(),
        vec!["test".into()],
    );
    for (meta, mv) in metas.into_iter().zip(minvalues.chunks(84)) {
        let sigs = Signatures {
            minvalues: mv,
            supershingles: &[0; 6],
            ..Signatures::default()
        };
        c.push(meta, sigs).unwrap();
    }
    c.build()
}

/// Adds a crawl whose clusters are given as page-index lists (first = canonical).
fn add(e: &mut Evolution, label: &str, pages: &[V], clusters: &[&[u32]]) {
    let c = corpus(pages);
    e.add_crawl(label, &c, clusters.iter().map(|m| (m[0], *m)));
}

fn close(a: Option<f64>, b: f64) {
    let a = a.expect("a value");
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

/// Three crawls of hosts a, b, c:
/// - crawl 1: {a1,a2,a3} {b1,b2} {v1,v2,v3}, a4 alone;
/// - crawl 2: a3 not downloaded; n1 new; {a1,a2} {b1,b2,n1} {v1,v2,v3}, a4 alone;
/// - crawl 3: a3 back; {a1,a2,a3,a4} {b1,n1} {v1,v2,v3}, b2 alone.
fn three_crawls() -> (Evolution, EvolveReport) {
    let mut e = Evolution::new(84);
    let c1 = [
        v("http://a.example/1", 84, 11),
        v("http://a.example/2", 84, 12),
        v("http://a.example/3", 84, 13),
        v("http://a.example/4", 84, 14),
        v("http://b.example/1", 84, 21),
        v("http://b.example/2", 84, 22),
        v("http://c.example/1", 84, 31),
        v("http://c.example/2", 84, 32),
        v("http://c.example/3", 84, 33),
    ];
    add(&mut e, "w1", &c1, &[&[0, 1, 2], &[4, 5], &[6, 7, 8]]);
    // Changes 1 -> 2: a1 byte-identical (85), a2 same minvalues other markup (84), a4 shares
    // 60 (small), b1 30 (medium), b2 10 (large), c pages identical.
    let c2 = [
        v("http://a.example/1", 84, 11),
        v("http://a.example/2", 84, 99),
        v("http://a.example/4", 60, 98),
        v("http://b.example/1", 30, 97),
        v("http://b.example/2", 10, 96),
        v("http://b.example/new", 84, 95),
        v("http://c.example/1", 84, 31),
        v("http://c.example/2", 84, 32),
        v("http://c.example/3", 84, 33),
    ];
    add(&mut e, "w2", &c2, &[&[0, 1], &[3, 4, 5], &[6, 7, 8]]);
    // Changes 2 -> 3: a4 shares nothing with its crawl-2 version; everything else identical.
    let c3 = [
        v("http://a.example/1", 84, 11),
        v("http://a.example/2", 84, 99),
        v("http://a.example/3", 84, 13),
        v("http://a.example/4", 0, 90),
        v("http://b.example/1", 30, 97),
        v("http://b.example/2", 10, 96),
        v("http://b.example/new", 84, 95),
        v("http://c.example/1", 84, 31),
        v("http://c.example/2", 84, 32),
        v("http://c.example/3", 84, 33),
    ];
    add(&mut e, "w3", &c3, &[&[0, 1, 2, 3], &[4, 6], &[7, 8, 9]]);
    let r = e.finish(&RecrawlConfig::default());
    (e, r)
}

#[test]
fn coefficients_match_hand_computation() {
    let (_, r) = three_crawls();
    let get = |crawl: usize, range: usize| {
        r.coefficients
            .iter()
            .find(|c| c.crawl == crawl && c.range == range)
            .unwrap_or_else(|| panic!("crawl {crawl} range {}", RANGES[range]))
    };
    // Crawl 1 against itself: everything 1.
    for range in [0, 1] {
        close(get(0, range).containment, 1.0);
        close(get(0, range).similarity, 1.0);
        close(get(0, range).reverse_containment, 1.0);
    }
    // Crawl 2, range 2-10 (a1 a2 a3 b1 b2 v1 v2 v3). Could-not-download = {a3}.
    //   a1, a2: C1 = {a1,a2,a3}, C2 = {a1,a2}: Φ 2/3, Ψ 2/3, rev 1
    //   a3: C2 = {a3}: Φ 1/3, Ψ 1/3, rev 1
    //   b1, b2: C1 = {b1,b2}, C2 = {b1,b2,n1}: Φ 1, Ψ 2/3, rev 2/3
    //   v*: 1, 1, 1
    let c = get(1, 1);
    assert_eq!((c.urls, c.missing), (8, 1));
    close(c.containment, 5.0 / 6.0);
    close(c.similarity, 3.0 / 4.0);
    close(c.reverse_containment, 11.0 / 12.0);
    close(c.containment_present, 19.0 / 21.0);
    close(c.similarity_present, 17.0 / 21.0);
    close(c.reverse_containment_present, 19.0 / 21.0);
    // Range 1 (a4): still alone in crawl 2.
    close(get(1, 0).containment, 1.0);
    close(get(1, 0).similarity, 1.0);
    // Crawl 3, range 2-10:
    //   a1..a3: C3 = {a1..a4}: Φ 1, Ψ 3/4, rev 3/4
    //   b1: C3 = {b1,n1}: Φ 1/2, Ψ 1/3, rev 1/2;  b2 alone: Φ 1/2, Ψ 1/2, rev 1
    let c = get(2, 1);
    assert_eq!((c.urls, c.missing), (8, 0));
    close(c.containment, 7.0 / 8.0);
    close(c.similarity, 73.0 / 96.0);
    close(c.reverse_containment, 27.0 / 32.0);
    // a4 joined a cluster of 4: Φ 1, Ψ 1/4, rev 1/4.
    let c = get(2, 0);
    close(c.containment, 1.0);
    close(c.similarity, 0.25);
    close(c.reverse_containment, 0.25);
}

#[test]
fn change_amounts_and_buckets_match_hand_computation() {
    let (_, r) = three_crawls();
    let h = &r.change[0];
    assert_eq!((h.from, h.to), (0, 1));
    // Range 2-10: a1 85, a2 84, b1 30, b2 10, v1..v3 85; range 1: a4 60.
    assert_eq!(h.counts[1][85], 4);
    assert_eq!(h.counts[1][84], 1);
    assert_eq!(h.counts[1][30], 1);
    assert_eq!(h.counts[1][10], 1);
    assert_eq!(h.counts[0][60], 1);
    assert_eq!(h.counts.iter().flatten().sum::<u64>(), 8);
    let b = h.buckets(84);
    // complete, large, medium, small, no-text-change, no-change
    assert_eq!(b[1], [0, 1, 1, 0, 1, 4]);
    assert_eq!(b[0], [0, 0, 0, 1, 0, 0]);
    // 2 -> 3: a4 (alone in crawl 2) shares nothing; 8 others identical.
    let b = r.change[1].buckets(84);
    assert_eq!(b[0], [1, 0, 0, 0, 0, 0]);
    assert_eq!(b[1], [0, 0, 0, 0, 0, 8]);
}

#[test]
fn hosts_count_distinct_clusters_first_and_last() {
    let (_, r) = three_crawls();
    let row = |h: &str| r.hosts.iter().find(|x| x.host == h).unwrap();
    let a = row("a.example");
    assert_eq!((a.pages_first, a.clusters_first, a.multi_first), (4, 2, 1));
    assert_eq!((a.pages_last, a.clusters_last, a.multi_last), (4, 1, 1));
    let b = row("b.example");
    assert_eq!((b.pages_first, b.clusters_first), (2, 1));
    assert_eq!((b.pages_last, b.clusters_last, b.multi_last), (3, 2, 1));
    let c = row("c.example");
    assert_eq!((c.clusters_first, c.clusters_last), (1, 1));
}

#[test]
fn recrawl_skips_stable_clusters_and_says_why() {
    let (e, r) = three_crawls();
    let advice = |url: &str| {
        r.recrawl
            .iter()
            .find(|a| e.url(a.url) == url)
            .unwrap_or_else(|| panic!("{url}"))
    };
    // {v1,v2,v3} never moved: v1 represents it, v2 and v3 are skipped.
    let v1 = advice("http://c.example/1");
    assert_eq!(
        (v1.action, v1.reason),
        (Action::Fetch, Reason::StableClusterRepresentative)
    );
    close(v1.stability, 1.0);
    for u in ["http://c.example/2", "http://c.example/3"] {
        let a = advice(u);
        assert_eq!(
            (a.action, a.reason),
            (Action::Skip, Reason::StableClusterMember)
        );
        assert_eq!(e.url(a.representative.unwrap()), "http://c.example/1");
    }
    // {a1..a4}: mean Ψ against crawl 1 = (3/4·3 + 1/4)/4 = 0.625, against crawl 2 =
    // (1/2 + 1/2 + 0 + 1/4)/4 = 0.3125 (a3 was missing): unstable, least stable against crawl 2.
    let a1 = advice("http://a.example/1");
    assert_eq!(
        (a1.action, a1.reason),
        (Action::Prioritize, Reason::UnstableCluster)
    );
    close(a1.stability, 0.3125);
    assert_eq!(a1.least_stable_against, Some(1));
    // a4 shares nothing with its previous version: 1 of the 3 members that have one (a3 was
    // missing from crawl 2) changed a lot.
    close(a1.fast_change_share, 1.0 / 3.0);
    // {b1, n1}: against crawl 1, b1 Ψ = 1/3, n1 missing = 0: 1/6.
    close(advice("http://b.example/1").stability, 1.0 / 6.0);
    // b2 was in {b1,b2,n1} in crawl 2 and is alone now.
    let b2 = advice("http://b.example/2");
    assert_eq!(
        (b2.action, b2.reason),
        (Action::Prioritize, Reason::LeftCluster)
    );
    assert_eq!(b2.shared_with_previous, Some(85));
    let c = &r.recrawl_counts;
    assert_eq!((c.urls, c.skip, c.fetch, c.prioritize), (10, 2, 1, 7));
    close(Some(c.fetch_savings), 0.2);
    // The advice for crawl 2 (from crawls 1-2) skipped v2 and v3; both stayed with v1 in crawl 3.
    let v = r.validation.as_ref().unwrap();
    assert_eq!(v.advised_on, 1);
    assert_eq!((v.counts.urls, v.counts.skip), (9, 2));
    assert_eq!((v.skipped_stayed, v.skipped_left), (2, 0));
    close(v.skip_precision, 1.0);
}

#[test]
fn events_are_counted_from_both_sides() {
    // P={1,2,3,4} splits into {1,2} and {3,4}; Q={5,6} and R={7,8} merge; S={9,10} dissolves
    // into singletons; T={11,12} is gone; 13 and 14 form a cluster; new 15 and 16 form one;
    // U={17,18} is unchanged.
    let urls: Vec<&'static str> = vec![
        "http://x/1",
        "http://x/2",
        "http://x/3",
        "http://x/4",
        "http://x/5",
        "http://x/6",
        "http://x/7",
        "http://x/8",
        "http://x/9",
        "http://x/10",
        "http://x/11",
        "http://x/12",
        "http://x/13",
        "http://x/14",
        "http://x/15",
        "http://x/16",
        "http://x/17",
        "http://x/18",
    ];
    let pages =
        |idx: &[usize]| -> Vec<V> { idx.iter().map(|&i| v(urls[i - 1], 84, i as u64)).collect() };
    let mut e = Evolution::new(84);
    let before: Vec<usize> = (1..=14).chain(17..=18).collect();
    add(
        &mut e,
        "x",
        &pages(&before),
        &[
            &[0, 1, 2, 3],
            &[4, 5],
            &[6, 7],
            &[8, 9],
            &[10, 11],
            &[14, 15],
        ],
    );
    let after: Vec<usize> = (1..=10).chain(13..=18).collect();
    // Page indices: 1..10 -> 0..9, 13..18 -> 10..15.
    add(
        &mut e,
        "y",
        &pages(&after),
        &[
            &[0, 1],
            &[2, 3],
            &[4, 5, 6, 7],
            &[10, 11],
            &[12, 13],
            &[14, 15],
        ],
    );
    let r = e.finish(&RecrawlConfig::default());
    let c = &r.event_counts[0];
    assert_eq!((c.clusters_before, c.clusters_after), (6, 6));
    assert_eq!((c.unchanged, c.changed), (1, 0));
    assert_eq!((c.splits, c.split_pieces), (1, 2));
    assert_eq!((c.merges, c.merged), (1, 2));
    assert_eq!((c.births, c.births_new_urls), (2, 1));
    assert_eq!((c.deaths, c.deaths_gone), (2, 1));
    let kinds: Vec<(EventKind, &str, u64)> = r
        .events
        .iter()
        .map(|e| (e.kind, e.detail, e.pieces))
        .collect();
    assert!(kinds.contains(&(EventKind::Split, "", 2)));
    assert!(kinds.contains(&(EventKind::Merge, "", 2)));
    assert!(kinds.contains(&(EventKind::Death, "gone", 0)));
    assert!(kinds.contains(&(EventKind::Death, "dissolved", 0)));
    assert!(kinds.contains(&(EventKind::Birth, "new-urls", 0)));
    assert!(kinds.contains(&(EventKind::Birth, "formed", 0)));
    assert!(kinds.contains(&(EventKind::Unchanged, "", 1)));
}

#[test]
fn a_url_fetched_twice_counts_once_and_one_crawl_gives_no_history() {
    let mut e = Evolution::new(84);
    let c = [
        v("http://a.example/1", 84, 1),
        v("http://a.example/1", 84, 2),
        v("http://a.example/2", 84, 3),
    ];
    // The cluster {page 0, page 1} is one URL: a singleton.
    add(&mut e, "only", &c, &[&[0, 1]]);
    let r = e.finish(&RecrawlConfig::default());
    let k = &r.crawls[0];
    assert_eq!((k.pages, k.urls, k.repeated_urls, k.clusters), (3, 2, 1, 0));
    assert!(r.recrawl.iter().all(|a| a.reason == Reason::NoHistory));
    assert!(r.change.is_empty() && r.validation.is_none());
}

mod oracle {
    //! The coefficients against a direct computation over URL sets, on random crawls.
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// A crawl: per URL (0..n), None = missing, Some(label) = cluster label (labels >= 100 are
    /// singletons: the label is made unique per URL).
    fn crawl_strategy(n: usize) -> impl Strategy<Value = Vec<Option<u32>>> {
        proptest::collection::vec(
            prop_oneof![1 => Just(None), 4 => (0u32..4).prop_map(Some), 2 => Just(Some(100))],
            n,
        )
    }

    fn clusters_of(c: &[Option<u32>]) -> Vec<BTreeSet<usize>> {
        let mut out: Vec<BTreeSet<usize>> = Vec::new();
        for label in 0..4 {
            let s: BTreeSet<usize> = (0..c.len()).filter(|&u| c[u] == Some(label)).collect();
            if s.len() >= 2 {
                out.push(s);
            }
        }
        for (u, l) in c.iter().enumerate() {
            if let Some(l) = l {
                if *l >= 4 || c.iter().filter(|x| *x == &Some(*l)).count() < 2 {
                    out.push([u].into());
                }
            }
        }
        out
    }

    const URLS: [&str; 12] = [
        "http://h/0",
        "http://h/1",
        "http://h/2",
        "http://h/3",
        "http://h/4",
        "http://h/5",
        "http://h/6",
        "http://h/7",
        "http://h/8",
        "http://h/9",
        "http://h/10",
        "http://h/11",
    ];

    proptest! {
        #[test]
        fn coefficients_equal_set_arithmetic(
            crawls in proptest::collection::vec(crawl_strategy(12), 2..4)
        ) {
            let mut e = Evolution::new(84);
            for (n, c) in crawls.iter().enumerate() {
                let present: Vec<usize> = (0..12).filter(|&u| c[u].is_some()).collect();
                let pages: Vec<V> = present.iter().map(|&u| v(URLS[u], 84, u as u64)).collect();
                let page_of = |u: usize| present.iter().position(|&x| x == u).unwrap() as u32;
                let clusters: Vec<Vec<u32>> = clusters_of(c)
                    .into_iter()
                    .filter(|s| s.len() >= 2)
                    .map(|s| s.into_iter().map(page_of).collect())
                    .collect();
                let refs: Vec<&[u32]> = clusters.iter().map(|c| c.as_slice()).collect();
                add(&mut e, &format!("c{n}"), &pages, &refs);
            }
            let r = e.finish(&RecrawlConfig::default());
            let first = clusters_of(&crawls[0]);
            let of = |sets: &[BTreeSet<usize>], u: usize| sets.iter().find(|s| s.contains(&u)).cloned();
            for (n, c) in crawls.iter().enumerate() {
                let sets = clusters_of(c);
                let missing: BTreeSet<usize> =
                    (0..12).filter(|&u| crawls[0][u].is_some() && c[u].is_none()).collect();
                let mut sums: BTreeMap<usize, (u64, [f64; 3])> = BTreeMap::new();
                for u in (0..12).filter(|&u| crawls[0][u].is_some()) {
                    let c1 = of(&first, u).unwrap();
                    let cn = of(&sets, u).unwrap_or_else(|| missing.clone());
                    let i = c1.intersection(&cn).count() as f64;
                    let un = c1.union(&cn).count() as f64;
                    let e = sums.entry(neardup_evolve::size_range(c1.len() as u64)).or_default();
                    e.0 += 1;
                    e.1[0] += i / c1.len() as f64;
                    e.1[1] += i / un;
                    e.1[2] += i / cn.len() as f64;
                }
                for (range, (count, s)) in sums {
                    let got = r.coefficients.iter().find(|x| x.crawl == n && x.range == range).unwrap();
                    prop_assert_eq!(got.urls, count);
                    for (g, want) in [got.containment, got.similarity, got.reverse_containment].into_iter().zip(s) {
                        prop_assert!((g.unwrap() - want / count as f64).abs() < 1e-9);
                    }
                }
            }
        }
    }

    use std::collections::BTreeMap;
}
