//! The lookups `neardup serve` answers, in one process with no HTTP: `lookup_inproc DIR
//! BODIES.jsonl THREADS SECONDS [LIMIT]` reads request bodies (`{"url", "html"}` per line),
//! then THREADS threads each run `index::Lookup::page_upto` (tokenize, sketch, match,
//! evidence; LIMIT matches at most, 0 all; by default the service's, `Ask::DEFAULT`: 1; the
//! index's segments in memory up to 1 GiB, as the service holds them) over them for SECONDS, and prints lookups per second and per-lookup p50/p90/p99 in milliseconds
//! as JSON. Used by `bench/serve.sh` beside the same lookups over HTTP.

use neardup_index::{Ask, Lookup, Snapshot};
use neardup_ingest::Page;
use neardup_pipeline::PipelineConfig;
use std::io::BufRead as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (dir, bodies, threads, seconds, limit) = match &a[..] {
        [d, b, t, s] => (d, b, t, s, Ask::DEFAULT.matches),
        [d, b, t, s, l] => (d, b, t, s, l.parse()?),
        _ => return Err("usage: lookup_inproc DIR BODIES.jsonl THREADS SECONDS [LIMIT]".into()),
    };
    let limit = if limit == 0 { usize::MAX } else { limit };
    let (threads, seconds): (usize, f64) = (threads.parse()?, seconds.parse()?);
    let mut pages = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(bodies)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        let (url, html) = (v["url"].as_str(), v["html"].as_str());
        pages.push(Page::html(url.unwrap_or(""), html.unwrap_or("")));
    }
    let snap = Arc::new(Snapshot::open_cached(std::path::Path::new(dir), 1 << 30)?);
    let until = Instant::now() + Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut ms: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (snap, pages) = (snap.clone(), &pages);
                s.spawn(move || {
                    let mut l = Lookup::new(snap, &PipelineConfig::default());
                    let mut out = Vec::new();
                    let mut i = t * pages.len() / threads;
                    while Instant::now() < until {
                        let t0 = Instant::now();
                        l.page_upto(&pages[i % pages.len()], limit)
                            .expect("a lookup");
                        out.push(t0.elapsed().as_secs_f64() * 1e3);
                        i += 1;
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let wall = start.elapsed().as_secs_f64();
    ms.sort_by(f64::total_cmp);
    let q = |f: f64| ms[((ms.len() as f64 - 1.0) * f).round() as usize];
    println!(
        "{{\"threads\": {threads}, \"lookups\": {}, \"lookups_per_s\": {:.1}, \"p50_ms\": {:.3}, \"p90_ms\": {:.3}, \"p99_ms\": {:.3}, \"max_ms\": {:.3}}}",
        ms.len(),
        ms.len() as f64 / wall,
        q(0.5),
        q(0.9),
        q(0.99),
        ms[ms.len() - 1]
    );
    Ok(())
}
