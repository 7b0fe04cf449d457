//! The library API as a Python caller, an HTTP handler or a Spark partition uses it: pages built
//! in memory, settings built once, typed reports back; no file is read or written.

use neardup_engine::clusters::ClusterSource;
use neardup_engine::dedup::{self, DedupOptions, DedupSettings, Matching, Rule};
use neardup_engine::evolve::{self, Action, Crawl, EvolveOptions, EvolveSettings};
use neardup_engine::mirrors::{self, MirrorKind, MirrorsOptions, MirrorsSettings};
use neardup_engine::{Error, Input, NoProgress};
use neardup_ingest::Page;

/// A page of `n` words that depends only on `seed`.
fn text(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("w{}", x % 5000)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn html(body: &str) -> String {
    format!("<!doctype html><html><head><title>t</title></head><body><p>{body}</p></body></html>")
}

#[test]
fn dedup_on_pages_in_memory() {
    let a = text(1, 300);
    let b = a.replacen(' ', " inserted ", 1);
    let pages = vec![
        Page::html("https://one.example/a", html(&a)).with_id("row-1"),
        Page::html("https://two.example/a", html(&b)).with_id("row-2"),
        Page::html("https://one.example/b", html(&text(2, 300))).with_id("row-3"),
        Page::html("https://one.example/c", html(&a)).with_id("row-4"),
    ];
    let mut opts = DedupOptions::default();
    opts.pipeline.threads = 2;
    opts.pairs_per_cluster = Some(100);
    let settings = DedupSettings::new(opts).unwrap();
    let r = dedup::run(&[Input::pages("batch", pages)], &settings, &NoProgress).unwrap();
    let s = &r.summary;
    assert_eq!(
        (s.pages_read, s.pages_sketched, s.records_skipped),
        (4, 4, 0)
    );
    assert_eq!(s.counts.clusters, 1);
    assert_eq!(s.inputs, ["batch"]);
    let ids: Vec<&str> = r.tables.clusters.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["row-1", "row-2", "row-4"]);
    // Every removed row names the kept row and carries the evidence.
    for row in &r.tables.remove {
        assert_eq!(row.kept_id, "row-1");
        assert!(row.estimated_jaccard > 0.8, "{row:?}");
        assert!(row.b_similarity >= 2);
    }
    let identical = r.tables.remove.iter().find(|x| x.id == "row-4").unwrap();
    assert_eq!(identical.rule, Rule::IdenticalTokens);
    assert_eq!(
        r.tables.byte_identical.len(),
        2,
        "row-1 and row-4 have one body"
    );
    assert!(!r.tables.pairs.as_ref().unwrap().is_empty());
}

#[test]
fn settings_that_cannot_run_are_refused_before_any_work() {
    let mut opts = DedupOptions::default();
    opts.config.matching = Matching::Simhash {
        min_c: 372,
        blocks: None,
    };
    // No simhash bits in the signature parameters.
    assert!(matches!(
        DedupSettings::new(opts.clone()),
        Err(Error::Config(_))
    ));
    opts.params.simhash_bits = 384;
    opts.config.threshold = 1.5;
    assert!(matches!(
        DedupSettings::new(opts.clone()),
        Err(Error::Config(_))
    ));
    opts.config.threshold = 0.8;
    opts.params.k = 0;
    assert!(matches!(DedupSettings::new(opts), Err(Error::Params(_))));
}

#[test]
fn mirrors_on_pages_in_memory() {
    // Two hosts serving the same 12 pages under the same paths, a third unrelated host.
    let mut pages = Vec::new();
    for host in ["docs.example.org", "mirror.example.net"] {
        for i in 0..12 {
            pages.push(Page::html(
                format!("https://{host}/guide/page{i}.html"),
                html(&text(100 + i, 200)),
            ));
        }
    }
    for i in 0..12 {
        pages.push(Page::html(
            format!("https://other.example.com/p{i}.html"),
            html(&text(900 + i, 200)),
        ));
    }
    let mut opts = MirrorsOptions::default();
    opts.pipeline.threads = 2;
    assert_eq!(opts.clusters, ClusterSource::Dedup);
    let settings = MirrorsSettings::new(opts).unwrap();
    let r = mirrors::run(&[Input::pages("crawl", pages)], &settings, &NoProgress).unwrap();
    assert_eq!(r.rows.len(), 1, "{:?}", r.rows);
    let m = &r.rows[0];
    assert_eq!(
        (m.host_a.as_str(), m.host_b.as_str(), m.kind),
        ("docs.example.org", "mirror.example.net", MirrorKind::Mirror)
    );
    assert_eq!((m.pages_shared_a, m.pages_shared_b), (12, 12));
    assert_eq!(m.suffix_match_last_arc, Some(1.0));
    assert_eq!(r.summary.counts.mirrors, 1);
}

#[test]
fn evolve_on_crawls_in_memory() {
    // Week 1: a cluster of three copies and ten unique pages. Week 2: the cluster holds, two
    // unique pages change completely, one page is new.
    let page = |url: &str, seed: u64| Page::html(url, html(&text(seed, 250)));
    let mut week1 = Vec::new();
    let mut week2 = Vec::new();
    for i in 0..3 {
        week1.push(page(&format!("https://s.example/copy{i}"), 7));
        week2.push(page(&format!("https://s.example/copy{i}"), 7));
    }
    for i in 0..10u64 {
        week1.push(page(&format!("https://s.example/u{i}"), 50 + i));
        let seed = if i < 2 { 500 + i } else { 50 + i };
        week2.push(page(&format!("https://s.example/u{i}"), seed));
    }
    week2.push(page("https://s.example/new", 77));
    let crawls = [
        Crawl {
            label: "week1".into(),
            inputs: vec![Input::pages("week1", week1)],
        },
        Crawl {
            label: "week2".into(),
            inputs: vec![Input::pages("week2", week2)],
        },
    ];
    let mut opts = EvolveOptions::default();
    opts.pipeline.threads = 2;
    let settings = EvolveSettings::new(opts).unwrap();
    let mut seen = Vec::new();
    let r = evolve::run(&crawls, &settings, &NoProgress, &mut |n, label, s| {
        seen.push((n, label.to_string(), s.counts.pages))
    })
    .unwrap();
    assert_eq!(seen, [(0, "week1".into(), 13), (1, "week2".into(), 14)]);
    assert_eq!(r.labels, ["week1", "week2"]);
    // The cluster of three is stable: full containment and similarity in week 2.
    let c = r
        .tables
        .coefficients
        .iter()
        .find(|c| c.crawl == "week2" && c.range == "2-10")
        .unwrap();
    assert_eq!(
        (c.urls, c.containment, c.similarity),
        (3, Some(1.0), Some(1.0))
    );
    // Recrawl advice covers every URL of week 2; the new URL is prioritized.
    assert_eq!(r.tables.recrawl.len(), 14);
    let new = r
        .tables
        .recrawl
        .iter()
        .find(|a| a.url == "https://s.example/new")
        .unwrap();
    assert_eq!(new.action, Action::Prioritize);
    // Unchanged pages shared all minvalues plus the body (85); changed ones far fewer.
    let changed = r
        .tables
        .recrawl
        .iter()
        .find(|a| a.url == "https://s.example/u0")
        .unwrap();
    assert!(changed.shared_with_previous.unwrap() < 20, "{changed:?}");
}

#[test]
fn a_huge_page_is_cut_before_tokenizing_and_the_cut_is_noted() {
    // 40 MiB of text in one page: tokenizing takes memory in proportion, so the page is cut to
    // the documented 16 MiB and the cut counted, not silently kept whole.
    let word = "huge ";
    let body = word.repeat((40 << 20) / word.len());
    let pages = vec![Page::text("https://big.example/", body)];
    let cfg = neardup_engine::PipelineConfig {
        threads: 1,
        ..Default::default()
    };
    let r = neardup_engine::scan::run(&[Input::pages("big", pages)], &cfg, 10, 10, &NoProgress)
        .unwrap();
    let notes = serde_json::to_string(&r).unwrap();
    assert!(
        notes.contains("page-cut-to-16777216-bytes-for-tokenizing"),
        "{notes}"
    );
    assert!(r.tokens <= (16 << 20) / 5 + 1, "{} tokens", r.tokens);
}
