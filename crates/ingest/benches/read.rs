//! WARC.gz reading throughput (gunzip + record parsing + HTTP decoding), pages per second, on the
//! committed sample crawl held in memory (or NEARDUP_BENCH_WARC=path). With NEARDUP_BENCH_WARC,
//! also that file read from disk with its gzip members inflated on 1, 2, 4 ... threads (up to
//! the machine's cores): how far one large file's reading goes with cores. With
//! NEARDUP_BENCH_JSONL=path, that JSONL file's records decoded into pages (held in memory, one
//! thread: the JSON decoding a run's workers do), bytes per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_ingest::{open_bytes, open_source, Format, Page, ReadOptions};
use std::path::PathBuf;

fn files() -> Vec<Vec<u8>> {
    match std::env::var_os("NEARDUP_BENCH_WARC") {
        Some(p) => vec![std::fs::read(p).unwrap()],
        None => {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample");
            let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
                .collect();
            v.sort();
            v.into_iter().map(|p| std::fs::read(p).unwrap()).collect()
        }
    }
}

fn count(files: &[Vec<u8>]) -> u64 {
    let opts = ReadOptions::default();
    let mut page = Page::default();
    let mut n = 0;
    for f in files {
        let mut src = open_bytes(f.clone(), Format::Warc, "bench", &opts).unwrap();
        while src.next_page(&mut page).unwrap() {
            n += 1;
        }
    }
    n
}

/// Pages of the file at `path`, read with `threads` inflate threads.
fn count_file(path: &std::path::Path, threads: usize) -> u64 {
    let opts = ReadOptions {
        file_threads: threads,
        ..ReadOptions::default()
    };
    let mut page = Page::default();
    let mut src = open_source(path, Some(Format::Warc), 0, &opts).unwrap();
    let mut n = 0;
    while src.next_page(&mut page).unwrap() {
        n += 1;
    }
    n
}

/// Pages of a JSONL file's bytes, each record decoded.
fn count_jsonl(bytes: &[u8]) -> u64 {
    let opts = ReadOptions::default();
    let mut page = Page::default();
    let mut src = open_bytes(bytes.to_vec(), Format::Jsonl, "bench", &opts).unwrap();
    let mut n = 0;
    while src.next_page(&mut page).unwrap() {
        n += 1;
    }
    n
}

fn bench(c: &mut Criterion) {
    if let Some(path) = std::env::var_os("NEARDUP_BENCH_JSONL") {
        let bytes = std::fs::read(path).unwrap();
        let mut g = c.benchmark_group("jsonl");
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.sample_size(10);
        g.bench_function("records decoded", |b| b.iter(|| count_jsonl(&bytes)));
        g.finish();
    }
    let files = files();
    let pages = count(&files);
    let mut g = c.benchmark_group("read");
    g.throughput(Throughput::Elements(pages));
    g.sample_size(20);
    g.bench_function("warc.gz pages", |b| b.iter(|| count(&files)));
    g.finish();
    let Some(path) = std::env::var_os("NEARDUP_BENCH_WARC").map(PathBuf::from) else {
        return;
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut g = c.benchmark_group("one file, inflate threads");
    g.throughput(Throughput::Elements(count_file(&path, 1)));
    g.sample_size(10);
    let mut threads = 1;
    while threads <= cores {
        g.bench_function(format!("{threads}"), |b| {
            b.iter(|| count_file(&path, threads))
        });
        threads *= 2;
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
