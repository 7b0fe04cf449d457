//! The evolution stage on its own (reading and clustering excluded): three crawls of 60,000 URLs
//! each (the development crawl's largest version), 5% of URLs replaced per crawl, 3% in clusters of
//! 2-5 pages that partly reshuffle, minvalues changed in 40% of pages. Measures folding the crawls
//! into per-URL cluster ids (URL interning, change amounts) and computing every table.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_evolve::{Evolution, RecrawlConfig};
use neardup_sketch::{Family, SketchParams};
use neardup_store::{Corpus, PageMeta, Signatures};
use std::sync::Arc;

const URLS: usize = 60_000;

fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Crawl `n`: its corpus and clusters (page lists).
fn crawl(family: &Arc<Family>, n: u64) -> (Corpus, Vec<Vec<u32>>) {
    let mut s = 42 + n;
    let mut pages = Vec::with_capacity(URLS);
    let mut minvalues = Vec::with_capacity(URLS * 84);
    for i in 0..URLS as u64 {
        // URL ids shift by 5% per crawl: the oldest vanish, new ones appear.
        let u = i + n * (URLS as u64 / 20);
        pages.push(PageMeta {
            url: format!("https://site{}.example/doc/{u}.html", u % 500),
            host: format!("site{}.example", u % 500),
            body_hash: if next(&mut s) % 10 < 4 {
                next(&mut s)
            } else {
                u
            },
            ..Default::default()
        });
        let changed = next(&mut s) % 10 < 4;
        for j in 0..84u64 {
            minvalues.push(if changed && j % 3 == 0 {
                next(&mut s) as u32
            } else {
                (u * 100 + j) as u32
            });
        }
    }
    let mut clusters = Vec::new();
    let mut p = 0u32;
    while (p as usize) < URLS * 3 / 100 * 10 {
        let size = 2 + (next(&mut s) % 4) as u32;
        clusters.push(
            (p..p + size)
                .step_by(1)
                .filter(|x| (*x as usize) < URLS)
                .collect(),
        );
        p += size + (next(&mut s) % 8) as u32;
    }
    let mut corpus = Corpus::builder(family.clone(), vec![format!("crawl{n}")]);
    for (meta, mv) in pages.into_iter().zip(minvalues.chunks(84)) {
        let sigs = Signatures {
            minvalues: mv,
            supershingles: &[0; 6],
            ..Signatures::default()
        };
        corpus.push(meta, sigs).expect("default parameters");
    }
    (corpus.build(), clusters)
}

fn bench(c: &mut Criterion) {
    let family = Family::new(&SketchParams::default());
    let crawls: Vec<(Corpus, Vec<Vec<u32>>)> = (0..3).map(|n| crawl(&family, n)).collect();
    let mut g = c.benchmark_group("evolve");
    g.throughput(Throughput::Elements((3 * URLS) as u64));
    g.sample_size(10);
    g.bench_function("3 crawls x 60k URLs", |b| {
        b.iter(|| {
            let mut e = Evolution::new(84);
            for (n, (corpus, clusters)) in crawls.iter().enumerate() {
                e.add_crawl(
                    &format!("c{n}"),
                    corpus,
                    clusters.iter().map(|m| (m[0], m.as_slice())),
                );
            }
            e.finish(&RecrawlConfig::default())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
