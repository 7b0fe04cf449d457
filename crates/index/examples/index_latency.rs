//! Query latency of the persistent index, one page at a time: `index_latency DIR INPUT...`
//! sketches the pages of INPUT (not timed), then times each page's lookup against the index
//! in DIR (band keys on disk, catalog records read, evidence scored) and prints the count,
//! p50, p90, p99 and max in milliseconds as JSON. Used by `bench/index.sh`.

use neardup_index::{dedup_config, stage, Scratch, Snapshot};
use neardup_pipeline::{Input, NoProgress, PipelineConfig};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let dir = PathBuf::from(args.next().ok_or("usage: index_latency DIR INPUT...")?);
    let inputs: Vec<Input> = args
        .map(|a| Input::Path {
            path: PathBuf::from(a),
            format: None,
        })
        .collect();
    let opened = Instant::now();
    let snap = Snapshot::open(&dir)?;
    let open_ms = opened.elapsed().as_secs_f64() * 1e3;
    let params = &snap.manifest().params;
    let staged = stage(
        &inputs,
        &PipelineConfig::default(),
        params,
        false,
        1 << 30,
        &std::env::temp_dir(),
        &NoProgress,
    )?;
    let mut pages = Vec::new();
    staged.for_each(|_, p| {
        pages.push(p.clone());
        Ok(())
    })?;
    let family = staged.family().clone();
    let cfg = dedup_config(&snap.manifest().matching);
    let scorer = neardup_dedup::SideScorer::new(&cfg);
    let mut scratch = Scratch::default();
    let mut ms = Vec::with_capacity(pages.len());
    let mut matches = 0usize;
    let mut per_page = Vec::with_capacity(pages.len());
    for page in &pages {
        let t = Instant::now();
        let n = snap.matches(&scorer, &family, page, &mut scratch)?.len();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        matches += n;
        per_page.push(n);
    }
    per_page.sort_unstable();
    ms.sort_by(f64::total_cmp);
    let q = |f: f64| ms[((ms.len() as f64 - 1.0) * f).round() as usize];
    println!(
        "{{\"pages\": {}, \"matches\": {matches}, \"matches_p50\": {}, \"matches_p99\": {}, \"open_ms\": {open_ms:.3}, \"p50_ms\": {:.4}, \"p90_ms\": {:.4}, \"p99_ms\": {:.4}, \"max_ms\": {:.4}, \"mean_ms\": {:.4}}}",
        ms.len(),
        per_page[per_page.len() / 2],
        per_page[(per_page.len() - 1) * 99 / 100],
        q(0.5),
        q(0.9),
        q(0.99),
        ms[ms.len() - 1],
        ms.iter().sum::<f64>() / ms.len() as f64
    );
    Ok(())
}
