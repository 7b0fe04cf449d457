//! Language detection per page: `language::detect` on the text pages of a JSONL corpus
//! (NEARDUP_BENCH_JSONL=path, its first 20,000 pages: the peers' corpus is the one the issue
//! measures) or on the committed sample crawl's pages, tokenized as a run samples them.

// Benches read corpora; the crate itself does no file I/O.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_ingest::{open_source, BodyKind, Format, Page, ReadOptions};
use neardup_text::{language, Document, Tokenizer, TokenizerConfig};
use std::path::PathBuf;

/// The texts the detector is given: a text page's body, an HTML page's sample of terms.
fn samples() -> Vec<String> {
    let (paths, format) = match std::env::var_os("NEARDUP_BENCH_JSONL") {
        Some(p) => (vec![PathBuf::from(p)], Some(Format::Jsonl)),
        None => {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample");
            let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
                .collect();
            v.sort();
            (v, None)
        }
    };
    let tokenizer = Tokenizer::new(TokenizerConfig::default());
    let mut doc = Document::new();
    let mut out = Vec::new();
    for p in paths {
        let mut src = open_source(&p, format, 0, &ReadOptions::default()).unwrap();
        let mut page = Page::default();
        while out.len() < 20_000 && src.next_page(&mut page).unwrap() {
            match page.kind {
                BodyKind::Text => out.push(String::from_utf8_lossy(&page.body).into_owned()),
                BodyKind::Html => {
                    tokenizer.html(&page.body, None, &page.url, &mut doc);
                    let mut sample = String::new();
                    language::detect_document(&doc, &mut sample);
                    out.push(sample);
                }
                BodyKind::Other => {}
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let samples = samples();
    let mut g = c.benchmark_group("language");
    g.throughput(Throughput::Elements(samples.len() as u64));
    g.sample_size(10);
    g.bench_function("detect per page", |b| {
        b.iter(|| {
            samples
                .iter()
                .map(|s| language::detect(s).to_bytes()[0] as u64)
                .sum::<u64>()
        })
    });
    // As a run asks: one memo for all the pages (made afresh each time round).
    g.bench_function("detect per page, remembered", |b| {
        b.iter(|| {
            let memo = language::Memo::default();
            samples
                .iter()
                .map(|s| memo.detect(s).to_bytes()[0] as u64)
                .sum::<u64>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
