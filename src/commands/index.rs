//! `neardup index create|add|query`: the persistent index.

use crate::flags::IndexCommand;
use anyhow::Result;
use std::path::Path;

pub fn run(cmd: &IndexCommand, quiet: bool) -> Result<()> {
    match cmd {
        IndexCommand::Create(a) => {
            let params = a.sketch.params()?;
            let m = neardup_engine::index::create(&a.dir, &params, a.threshold)?;
            if !quiet {
                println!(
                    "created an index in {}: m = {}, k = {}, {} family; LSH {} bands x {} rows, matches at Jaccard >= {}",
                    a.dir.display(),
                    m.params.m,
                    m.params.k,
                    m.params.minhash.name(),
                    m.matching.bands,
                    m.matching.rows,
                    m.matching.threshold
                );
            }
        }
        IndexCommand::Add(a) => {
            let inputs = crate::inputs::expand_common(&a.common)?;
            let bar = crate::progress::Bar::new(quiet);
            let r =
                neardup_engine::index::add(&a.dir, &inputs, &a.label, &a.common.pipeline(), &bar)?;
            if !quiet {
                println!(
                    "added {} pages (ids {}..{}) to {} as crawl {:?}; index generation {}",
                    r.pages,
                    r.first_id,
                    r.first_id + r.pages,
                    a.dir.display(),
                    a.label,
                    r.generation
                );
            }
        }
        IndexCommand::Query(a) => {
            let inputs = crate::inputs::expand_common(&a.common)?;
            let out = a.output.as_deref().unwrap_or(Path::new("-"));
            let outputs = crate::output::Outputs::new(&inputs, a.common.force);
            outputs.file(out, |_| false)?;
            let bar = crate::progress::Bar::new(quiet || out == Path::new("-"));
            let rows = neardup_engine::index::query(&a.dir, &inputs, &a.common.pipeline(), &bar)?;
            let mut bytes = Vec::new();
            for r in &rows {
                serde_json::to_writer(&mut bytes, r)?;
                bytes.push(b'\n');
            }
            outputs.write_file(out, &bytes)?;
            if !quiet && out != Path::new("-") {
                let pages: std::collections::BTreeSet<&str> =
                    rows.iter().map(|r| r.url.as_str()).collect();
                println!(
                    "{} matches for {} pages written to {}",
                    rows.len(),
                    pages.len(),
                    out.display()
                );
            }
        }
        IndexCommand::Check(a) => {
            let r = neardup_engine::index::check(&a.dir)?;
            if !quiet {
                println!(
                    "{}: ok, generation {}: {} segments, {} pages, {} keys, {} bytes ({:.0} bytes per page)",
                    a.dir.display(),
                    r.generation,
                    r.segments,
                    r.pages,
                    r.keys,
                    r.bytes,
                    r.bytes as f64 / r.pages.max(1) as f64
                );
            }
        }
    }
    Ok(())
}
