//! Signature throughput per core, in tokens per second (term hashing + shingles + min-hashes +
//! supershingles), for each min-hash family, on the tokenized pages of the committed sample
//! crawl (or NEARDUP_BENCH_WARC=path); and the stages alone: the minvalues of ready shingle sets
//! per family, Alg. C's simhash, the random projection.

// Benches read the committed sample crawl; the crate itself does no file I/O.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_ingest::{open_source, BodyKind, Page, ReadOptions};
use neardup_sketch::{minhash, Family, MinHashFamily, SketchParams, Sketcher};
use neardup_text::{Document, Tokenizer};
use std::path::PathBuf;

fn docs() -> Vec<Vec<String>> {
    let paths: Vec<PathBuf> = match std::env::var_os("NEARDUP_BENCH_WARC") {
        Some(p) => vec![PathBuf::from(p)],
        None => {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample");
            let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
                .collect();
            v.sort();
            v
        }
    };
    let tok = Tokenizer::default();
    let mut doc = Document::new();
    let mut out = Vec::new();
    for p in paths {
        let mut src = open_source(&p, None, 0, &ReadOptions::default()).unwrap();
        let mut page = Page::default();
        while src.next_page(&mut page).unwrap() {
            if page.kind == BodyKind::Html {
                tok.html(&page.body, None, &page.url, &mut doc);
                out.push(doc.terms().map(String::from).collect());
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let docs = docs();
    let tokens: u64 = docs.iter().map(|d| d.len() as u64).sum();
    let mut g = c.benchmark_group("sketch");
    g.throughput(Throughput::Elements(tokens));
    g.sample_size(10);
    let rabin = |p: SketchParams| SketchParams {
        minhash: MinHashFamily::Rabin,
        ..p
    };
    let m128 = SketchParams {
        m: 128,
        l: 16,
        supershingles: 8,
        ..SketchParams::default()
    };
    for (name, params) in [
        ("oph-k5-m84-wrap", SketchParams::default()),
        ("rabin-k5-m84-wrap", rabin(SketchParams::default())),
        ("oph-k5-m128", m128.clone()),
        ("rabin-k5-m128", rabin(m128.clone())),
    ] {
        let mut sk = Sketcher::new(Family::new(&params));
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for d in &docs {
                    if let Some(s) = sk.sketch(d.iter().map(String::as_str)) {
                        acc ^= s.supershingles[0];
                    }
                }
                acc
            })
        });
    }
    // Alg. C alone (384 bits) on the same pages, from the same term fingerprints the shingle
    // path starts from.
    let family = Family::new(&SketchParams::default());
    let fps: Vec<Vec<u64>> = docs
        .iter()
        .map(|d| d.iter().map(|t| family.term_fingerprint(t)).collect())
        .collect();
    let mut h = neardup_sketch::SimHasher::new(384, neardup_sketch::DEFAULT_SEED);
    let mut out = [0u64; 6];
    g.bench_function("simhash-384-only", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for d in &fps {
                h.hash(d, &mut out);
                acc ^= out[0];
            }
            acc
        })
    });
    // Paper 000's random projection to 5 dimensions alone, from the same term fingerprints.
    let rp = neardup_sketch::RandomProjection::new(5, neardup_sketch::DEFAULT_SEED);
    let mut r = [0i64; 5];
    g.bench_function("rp-5-only", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for d in &fps {
                rp.project(d, &mut r);
                acc ^= r[0];
            }
            acc
        })
    });
    g.finish();
    // The minvalues alone, from each page's ready shingle set (per shingle: 1 hash for the
    // one-permutation family, m for the Rabin family).
    let mut g = c.benchmark_group("minvalues");
    let sets: Vec<Vec<u64>> = fps
        .iter()
        .map(|t| {
            let mut sh = Vec::new();
            neardup_sketch::shingles(&family, t, &mut sh);
            sh.sort_unstable();
            sh.dedup();
            sh
        })
        .collect();
    g.throughput(Throughput::Elements(
        sets.iter().map(|s| s.len() as u64).sum(),
    ));
    g.sample_size(10);
    for (name, params) in [
        ("oph-m128", m128.clone()),
        ("rabin-m128", rabin(m128.clone())),
    ] {
        let f = Family::new(&params);
        let mut out = vec![0u64; 128];
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for s in sets.iter().filter(|s| !s.is_empty()) {
                    minhash(&f, s, &mut out);
                    acc ^= out[0];
                }
                acc
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
