//! The k-d tree L-infinity search (paper 000's (C, D)-tolerance collisions) against its own
//! size: 150,000 points (the development crawl's page count) in 5 and 10 dimensions, clustered
//! like RP/HM signatures (many pages near a few dense regions, near-replicas within 1e-3).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_candidates::kdtree::pairs_within;

fn points(n: usize, dims: usize) -> Vec<f64> {
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let centres: Vec<f64> = (0..64 * dims).map(|_| 0.3 + 0.4 * next()).collect();
    let mut out = Vec::with_capacity(n * dims);
    for i in 0..n {
        let c = i % 64;
        // Groups of three near-replicas around a random point near a centre.
        let base: Vec<f64> = (0..dims)
            .map(|j| centres[c * dims + j] + 0.2 * (next() - 0.5))
            .collect();
        for _ in 0..3.min(n - out.len() / dims) {
            out.extend(base.iter().map(|b| b + 1e-3 * next()));
        }
        if out.len() / dims >= n {
            break;
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let n = 150_000;
    let mut g = c.benchmark_group("kdtree");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    for (dims, tol) in [(5usize, 0.002), (10, 0.002), (5, 0.02)] {
        let pts = points(n, dims);
        let t = vec![tol; dims];
        g.bench_function(format!("pairs-{dims}d-tol{tol}"), |b| {
            b.iter(|| pairs_within(&pts, dims, &t, |_| true).len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
