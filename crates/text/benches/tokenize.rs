//! HTML-to-tokens throughput per core on the real rustdoc pages of the committed sample crawl
//! (or, with NEARDUP_BENCH_WARC=path, on any WARC file).

// Benches read the committed sample crawl; the crate itself does no file I/O.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_ingest::{open_source, BodyKind, Page, ReadOptions};
use neardup_text::{Document, Tokenizer, TokenizerConfig};
use std::path::PathBuf;

fn pages() -> Vec<(String, Vec<u8>)> {
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
    let mut out = Vec::new();
    for p in paths {
        let mut src = open_source(&p, None, 0, &ReadOptions::default()).unwrap();
        let mut page = Page::default();
        while src.next_page(&mut page).unwrap() {
            if page.kind == BodyKind::Html {
                out.push((page.url.clone(), page.body.clone()));
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let pages = pages();
    let bytes: u64 = pages.iter().map(|(_, b)| b.len() as u64).sum();
    let mut g = c.benchmark_group("tokenize");
    g.throughput(Throughput::Bytes(bytes));
    g.sample_size(20);
    for (name, links) in [("html", false), ("html+links", true)] {
        let tok = Tokenizer::new(TokenizerConfig {
            links,
            ..Default::default()
        });
        let mut doc = Document::new();
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut terms = 0;
                for (url, body) in &pages {
                    tok.html(body, Some(b"text/html; charset=utf-8"), url, &mut doc);
                    terms += doc.len();
                }
                terms
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
