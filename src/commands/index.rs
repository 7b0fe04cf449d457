//! `neardup index create|add|query`: the persistent index.

use crate::flags::IndexCommand;
use anyhow::Result;
use neardup_index::Index;
use std::io::Write as _;
use std::path::Path;

pub fn run(cmd: &IndexCommand, quiet: bool) -> Result<()> {
    match cmd {
        IndexCommand::Create(a) => {
            let shards = a.shard_dirs();
            let index = match shards.is_empty() {
                true => Index::create(&a.dir, &a.request(), a.storage()?)?,
                false => Index::create_sharded(&a.dir, &shards, &a.request(), a.storage()?)?,
            };
            let m = index.manifest()?;
            if !quiet {
                let what = match shards.len() {
                    0 => "an index".to_string(),
                    n => format!("a set of {n} shards"),
                };
                println!(
                    "created {what} in {}: m = {}, k = {}, {} family; LSH {} bands x {} rows, matches at Jaccard >= {}{}{}; {}",
                    a.dir.display(),
                    m.params.m,
                    m.params.k,
                    m.params.minhash.name(),
                    m.matching.bands,
                    m.matching.rows,
                    m.matching.threshold,
                    m.matching
                        .containment
                        .map_or(String::new(), |c| format!(" or containment >= {c}")),
                    m.matching.different_titles_need.map_or(String::new(), |j| format!(
                        "; pages whose titles name different items need Jaccard >= {j}"
                    )),
                    m.storage.describe()
                );
            }
        }
        IndexCommand::Add(a) => {
            let inputs = crate::inputs::expand_common(&a.common)?;
            let bar = crate::progress::Bar::new(quiet);
            let mut opts = neardup_index::AddOptions::new(a.common.pipeline(), &a.label);
            opts.mem_limit = a.mem_limit;
            opts.again = a.again;
            if a.no_merge {
                opts.merge = neardup_index::MergePolicy::NEVER;
            }
            let r = Index::open(&a.dir)?.add(&inputs, &opts, &bar)?;
            eprint!("{}", super::skipped_text(&r.skipped));
            eprint!("{}", super::untracked_text(r.untracked));
            if r.already_added {
                if !quiet {
                    println!(
                        "already added, nothing to do: {} holds these files as crawl {:?} (index generation {}); --again reads them again",
                        a.dir.display(),
                        a.label,
                        r.generation
                    );
                }
            } else if !quiet {
                println!(
                    "added {} pages (ids {}..{}) to {}{} as crawl {:?}; index generation {}{}",
                    r.pages,
                    r.first_id,
                    r.first_id + r.pages,
                    a.dir.display(),
                    r.shard
                        .map_or(String::new(), |i| format!(" (shard {})", i + 1)),
                    a.label,
                    r.generation,
                    super::held_text(r.held)
                );
                print!("{}", super::merged_text(r.merged.as_ref()));
            }
        }
        IndexCommand::Query(a) => {
            let inputs = crate::inputs::expand_common(&a.common)?;
            let out = a.output.as_deref().unwrap_or(Path::new("-"));
            let outputs = crate::output::Outputs::new(&inputs, a.common.force);
            outputs.file(out, |_| false)?;
            let bar = crate::progress::Bar::new(quiet || out == Path::new("-"));
            let mut opts = neardup_index::QueryOptions::new(a.common.pipeline());
            opts.mem_limit = a.mem_limit;
            if let Some(t) = &a.tmp_dir {
                opts.tmp_dir = t.clone();
            }
            opts.max_matches = a
                .max_matches
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
            let index = Index::open(&a.dir)?;
            let s = outputs.stream_file(out, |w| {
                let mut line = Vec::new();
                Ok(index.query(&inputs, &opts, &bar, |_, r| {
                    line.clear();
                    serde_json::to_writer(&mut line, &r).expect("a row serializes");
                    line.push(b'\n');
                    w.write_all(&line).map_err(|source| {
                        neardup_report::ReportError::Io {
                            path: out.to_path_buf(),
                            source,
                        }
                        .into()
                    })
                })?)
            })?;
            eprint!("{}", super::skipped_text(&s.skipped));
            if !quiet {
                // With the rows on stdout, the count goes to stderr (the rows stay JSON lines).
                let mut text = format!(
                    "{} matches for {} of {} pages",
                    s.matches, s.pages_matched, s.pages
                );
                if out != Path::new("-") {
                    text.push_str(&format!(" written to {}", out.display()));
                }
                if s.matches == 0 {
                    text.push_str(if s.pages == 0 {
                        ": no page read from the inputs"
                    } else {
                        ": no page of the inputs is a near-duplicate of an indexed page"
                    });
                }
                if s.pages_cut > 0 {
                    text.push_str(&format!(
                        "\n{} pages had more than --max-matches matches (the likeliest kept)",
                        s.pages_cut
                    ));
                }
                if out == Path::new("-") {
                    eprintln!("{text}");
                } else {
                    println!("{text}");
                }
            }
        }
        IndexCommand::Digest(a) => {
            let index = Index::open(&a.dir)?;
            let rows = index.digests(&a.digests)?;
            let mut out = std::io::stdout().lock();
            for r in &rows {
                serde_json::to_writer(&mut out, r)?;
                writeln!(out)?;
            }
            if rows.is_empty() && !quiet {
                eprintln!(
                    "no page with {} in {} ({} pages; the index holds the payload digest of every page it was given)",
                    if a.digests.len() == 1 { "this digest" } else { "these digests" },
                    a.dir.display(),
                    index.stats()?.pages
                );
            }
        }
        IndexCommand::Cluster(a) => {
            let index = Index::open(&a.dir)?;
            let mut lookup = index.lookup(&neardup_pipeline::PipelineConfig::default())?;
            let Some(c) = lookup.cluster(a.id, a.offset, a.limit)? else {
                return Err(
                    neardup_engine::Error::from(neardup_pipeline::SettingsError::new(
                        "id",
                        a.id,
                        "the id of a page the index holds",
                    ))
                    .into(),
                );
            };
            let c = neardup_index::ClusterAnswer::from(c);
            println!("{}", serde_json::to_string_pretty(&c)?);
        }
        IndexCommand::Changes(a) => {
            let snap = Index::open(&a.dir)?.snapshot()?;
            if let Some(note) = snap.manifest().storage.timelines_note() {
                eprintln!("note: {note}");
            }
            let held = snap
                .held_captures(&a.url)
                .map_err(neardup_engine::Error::from)?;
            let t = neardup_engine::changes::url_timeline(&a.url, held, &Default::default())?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&t)?);
            } else {
                print!("{}", super::changes::url_text(&t));
            }
        }
        IndexCommand::Stats(a) => {
            let s = Index::open(&a.dir)?.stats()?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&s)?);
            } else {
                print!("{}", stats_text(&a.dir, &s));
            }
        }
        IndexCommand::Remove(a) => {
            let r = Index::open(&a.dir)?.remove(&a.label)?;
            if !quiet {
                println!(
                    "removed crawl {:?} from {}: {} pages, {} segments; index generation {}",
                    a.label,
                    a.dir.display(),
                    r.pages_removed,
                    r.segments_dropped,
                    r.generation
                );
            }
        }
        IndexCommand::Compact(a) => {
            let r = Index::open(&a.dir)?.compact()?;
            if !quiet {
                println!(
                    "compacted {}: {} key and link segments merged into {} (one of each kind), {} entries of removed crawls dropped; index generation {}",
                    a.dir.display(),
                    r.segments_dropped,
                    r.segments_written,
                    r.entries_dropped,
                    r.generation
                );
            }
        }
        IndexCommand::Check(a) => {
            let r = Index::open(&a.dir)?.check()?;
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

/// `index stats` in words.
fn stats_text(dir: &Path, s: &neardup_index::StatsReport) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: generation {}, {} pages (next id {}), {} keys, {} links, {} segments, {} bytes ({:.0} bytes per page)",
        dir.display(),
        s.generation,
        s.pages,
        s.next_page,
        s.keys,
        s.links,
        s.segments,
        s.bytes,
        s.bytes_per_page
    );
    let _ = writeln!(
        t,
        "signatures: m = {}, k = {}, {} family; LSH {} bands x {} rows, matches at Jaccard >= {}{}; {}",
        s.params.m,
        s.params.k,
        s.params.minhash.name(),
        s.matching.bands,
        s.matching.rows,
        s.matching.threshold,
        s.matching
            .containment
            .map_or(String::new(), |c| format!(" or containment >= {c}")),
        s.storage.describe()
    );
    for c in &s.crawls {
        let _ = writeln!(
            t,
            "  crawl {}: {} pages, {} segments, {} bytes",
            c.label, c.pages, c.segments, c.bytes
        );
    }
    if s.merged_segments > 0 {
        let _ = writeln!(
            t,
            "  merged from several crawls: {} segments, {} bytes",
            s.merged_segments, s.merged_bytes
        );
    }
    for d in &s.language_detectors {
        let own = if d == neardup_text::language::DETECTOR {
            " (this build's)"
        } else {
            ""
        };
        let _ = writeln!(t, "languages told by {d}{own}");
    }
    t
}
