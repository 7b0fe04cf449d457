//! zlib-rs (streaming), ISA-L (streaming) and libdeflate (whole members) inflating one WARC.gz
//! held in memory: bytes out per second. NEARDUP_BENCH_WARC names the file (default: the
//! committed sample crawl's stable WARC).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_bench_inflate::{isal, libdeflate, zlib_rs};

fn bench(c: &mut Criterion) {
    let path = std::env::var("NEARDUP_BENCH_WARC").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/sample/rustdocs-stable.warc.gz"
        )
        .into()
    });
    let gz = std::fs::read(&path).expect("NEARDUP_BENCH_WARC");
    let all = |f: fn(&[u8], &mut dyn FnMut(&[u8])) -> u64| {
        let mut v = Vec::new();
        f(&gz, &mut |b| v.extend_from_slice(b));
        v
    };
    let want = all(zlib_rs);
    assert!(all(isal) == want, "ISA-L reads other bytes");
    assert!(all(libdeflate) == want, "libdeflate reads other bytes");
    let out = want.len() as u64;
    drop(want);
    eprintln!("{path}: {} bytes in, {out} bytes out", gz.len());
    let mut g = c.benchmark_group("inflate");
    g.throughput(Throughput::Bytes(out));
    g.sample_size(10);
    g.bench_function("zlib-rs stream", |b| {
        b.iter(|| {
            zlib_rs(&gz, &mut |b| {
                std::hint::black_box(b);
            })
        })
    });
    g.bench_function("isa-l stream", |b| {
        b.iter(|| {
            isal(&gz, &mut |b| {
                std::hint::black_box(b);
            })
        })
    });
    g.bench_function("libdeflate members", |b| {
        b.iter(|| {
            libdeflate(&gz, &mut |b| {
                std::hint::black_box(b);
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
