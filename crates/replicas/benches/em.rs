//! EM and classification at scale (paper 001 Table 5): synthetic training sets whose examples
//! have five features of four intervals each, replicas concentrated on a few tuples, 2% obvious
//! positives (PU) or a 16x sample of obvious negatives (NU). Incremental EM at 2,000, 20,000
//! and 100,000 candidates; from-scratch EM (the rules rebuilt after every transition) at 2,000 and
//! 20,000;
//! scoring and Pareto aggregation per candidate.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_replicas::em::{em, Data, Example, Updates};
use neardup_replicas::lac::RuleTable;
use neardup_replicas::pareto;

fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` candidates; about 10% replicas (high intervals), 2% of all are obvious.
fn candidates(n: usize, data: Data) -> Vec<Example> {
    let mut s = 7;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let replica = next(&mut s).is_multiple_of(10);
        let items: [u8; 5] = std::array::from_fn(|_| {
            let noise = (next(&mut s) % 4) as u8;
            if replica && !next(&mut s).is_multiple_of(3) {
                3
            } else {
                noise
            }
        });
        let obvious = replica && next(&mut s).is_multiple_of(5);
        out.push(match data {
            Data::Pu => Example {
                items,
                label: obvious,
                fixed: obvious,
            },
            Data::Nu => Example {
                items,
                label: true,
                fixed: false,
            },
        });
    }
    if data == Data::Nu {
        for _ in 0..n / 4 {
            let items: [u8; 5] = std::array::from_fn(|_| (next(&mut s) % 3) as u8);
            out.push(Example {
                items,
                label: false,
                fixed: true,
            });
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("em");
    g.sample_size(10);
    for (n, updates) in [
        (2_000, Updates::FromScratch),
        (2_000, Updates::Incremental),
        (20_000, Updates::FromScratch),
        (20_000, Updates::Incremental),
        (100_000, Updates::Incremental),
    ] {
        for data in [Data::Pu, Data::Nu] {
            let start = candidates(n, data);
            g.throughput(Throughput::Elements(start.len() as u64));
            g.bench_function(format!("{data:?} {updates:?} {n}"), |b| {
                b.iter(|| {
                    let mut d = start.clone();
                    em(&mut d, data, updates, 100, neardup_replicas::lac::MASKS)
                })
            });
        }
    }
    g.finish();
    let d = candidates(100_000, Data::Pu);
    let table = RuleTable::build(d.iter().map(|e| (&e.items, e.label)));
    let mut g = c.benchmark_group("classify");
    g.throughput(Throughput::Elements(d.len() as u64));
    g.sample_size(10);
    g.bench_function("rules + alpha, 100k candidates", |b| {
        b.iter(|| {
            d.iter()
                .map(|e| table.score(&e.items).alpha_positive())
                .sum::<f64>()
        })
    });
    let points: Vec<(f64, f64)> = d
        .iter()
        .map(|e| {
            let a = table.score(&e.items).alpha_positive();
            (a, 1.0 - a * 0.5)
        })
        .collect();
    g.bench_function("pareto rank, 100k candidates", |b| {
        b.iter(|| pareto::rank(&points))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
