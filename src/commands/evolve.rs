//! `neardup evolve`.

use crate::flags::EvolveArgs;
use anyhow::{Context, Result};
use neardup_engine::evolve::{
    default_label, Crawl, CrawlSummary, EvolveOptions, EvolveReport, EvolveSettings, EvolveSummary,
    RecrawlConfig, BUCKETS, RANGES,
};
use neardup_engine::Input;
use neardup_report::Format;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Serialize)]
struct SummaryFile<'a> {
    #[serde(flatten)]
    summary: &'a EvolveSummary,
    files: &'a [String],
}

/// The crawls: one per INPUT (commas join several paths), or the sample's files.
fn crawls(args: &EvolveArgs) -> Result<Vec<Vec<PathBuf>>> {
    if args.common.inputs.is_empty() {
        let dir = crate::inputs::data_dir("evolve-sample")?;
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("{}: cannot list folder", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
            .collect();
        files.sort();
        return Ok(files.into_iter().map(|f| vec![f]).collect());
    }
    Ok(args
        .common
        .inputs
        .iter()
        .map(|a| {
            a.to_string_lossy()
                .split(',')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .collect())
}

pub fn run(args: &EvolveArgs, quiet: bool) -> Result<()> {
    // Evolution clusters by supershingles (paper 004): the papers' Rabin functions unless told.
    let params = args
        .sketch
        .params_preferring(neardup_sketch::MinHashFamily::Rabin)?;
    let settings = EvolveSettings::new(EvolveOptions {
        pipeline: args.common.pipeline(),
        min_agree: super::dedup::level(&args.level, params.supershingles)?,
        params,
        recrawl: RecrawlConfig {
            stable_similarity: args.stable_similarity,
            fast_change_share: args.fast_change_share,
        },
    })?;
    let paths = crawls(args)?;
    if paths.is_empty() {
        return Err(crate::flags::usage("no crawls"));
    }
    if !args.labels.is_empty() && args.labels.len() != paths.len() {
        return Err(crate::flags::usage(format!(
            "--labels names {} crawls but {} were given",
            args.labels.len(),
            paths.len()
        )));
    }
    let mut crawls = Vec::new();
    for (n, p) in paths.iter().enumerate() {
        let mut common = args.common.clone();
        common.inputs = p.clone();
        let inputs = crate::inputs::expand_common(&common)?;
        crawls.push(Crawl {
            label: args
                .labels
                .get(n)
                .cloned()
                .unwrap_or_else(|| default_label(p, &inputs)),
            inputs,
        });
    }
    let all_inputs: Vec<Input> = crawls.iter().flat_map(|c| c.inputs.clone()).collect();
    let out = &args.out;
    let outs = crate::output::Outputs::new(&all_inputs, args.common.force);
    outs.dir(out)?;
    let bar = crate::progress::Bar::new(quiet);
    let mut on_crawl = |n: usize, label: &str, s: &CrawlSummary| {
        if quiet {
            return;
        }
        let c = &s.counts;
        eprintln!(
            "crawl {} {label}: {} pages{}, {} URLs, {} clusters holding {} URLs, {} new URLs, {} of crawl 1 missing{}; {:.2} s",
            n + 1,
            c.pages,
            super::not_pages_text(&s.not_pages),
            c.urls,
            c.clusters,
            c.clustered_urls,
            c.new_urls,
            c.missing_from_first,
            if s.records_skipped > 0 {
                format!(", {} records skipped", s.records_skipped)
            } else {
                String::new()
            },
            s.seconds
        );
        eprint!("{}", super::skipped_text(&s.skipped));
    };
    let report = neardup_engine::evolve::run(&crawls, &settings, &bar, &mut on_crawl)?;
    let format: Format = args.format.into();
    let t = &report.tables;
    let mut files = vec![
        outs.table(out, format, &t.coefficients)?,
        outs.table(out, format, &t.change)?,
        outs.table(out, format, &t.change_buckets)?,
        outs.table(out, format, &t.hosts)?,
        outs.table(out, format, &t.events)?,
        outs.table(out, format, &t.recrawl)?,
        outs.table(out, format, &t.clusters)?,
    ];
    let labels: Vec<&str> = report.labels.iter().map(String::as_str).collect();
    for (name, svg) in neardup_html::figures::evolve(&report.evolution, &labels) {
        files.push(outs.write(&out.join(name), svg.as_bytes())?);
    }
    let s = &report.summary;
    outs.summary(out, &mut files, !args.no_report, |files| {
        serde_json::to_vec_pretty(&SummaryFile { summary: s, files })
    })?;
    outs.end(out, !args.no_report)?;
    if !quiet {
        let labels: Vec<&str> = report.labels.iter().map(String::as_str).collect();
        let buckets: Vec<u64> = BUCKETS
            .iter()
            .map(|b| s.change_buckets_all_transitions[*b])
            .collect();
        print!(
            "{}",
            human(
                &report.evolution,
                &labels,
                &buckets,
                s.seconds_total,
                s.seconds_evolve,
                out
            )
        );
    }
    Ok(())
}

fn human(
    r: &EvolveReport,
    labels: &[&str],
    buckets: &[u64],
    seconds: f64,
    seconds_evolve: f64,
    out: &Path,
) -> String {
    let mut o = String::new();
    let last = labels.len() - 1;
    let _ = writeln!(o, "{} crawls: {}", labels.len(), labels.join(" -> "));
    if last > 0 {
        let _ = writeln!(
            o,
            "clusters of {} in {} (mean over URLs of {}, by its cluster size there):",
            labels[0], labels[last], labels[0]
        );
        let _ = writeln!(
            o,
            "  {:<14} {:>8} {:>8} {:>12} {:>11} {:>12}",
            "size", "URLs", "missing", "containment", "similarity", "reverse"
        );
        for c in r.coefficients.iter().filter(|c| c.crawl == last) {
            let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
            let _ = writeln!(
                o,
                "  {:<14} {:>8} {:>8} {:>12} {:>11} {:>12}",
                RANGES[c.range],
                c.urls,
                c.missing,
                f(c.containment),
                f(c.similarity),
                f(c.reverse_containment)
            );
        }
        let total: u64 = buckets.iter().sum();
        let parts: Vec<String> = BUCKETS
            .iter()
            .zip(buckets.iter().copied())
            .map(|(b, n)| format!("{b} {:.1}%", 100.0 * n as f64 / total.max(1) as f64))
            .collect();
        let _ = writeln!(
            o,
            "change between consecutive crawls ({total} URL pairs): {}",
            parts.join(", ")
        );
        for c in &r.event_counts {
            let _ = writeln!(
                o,
                "{} -> {}: {} -> {} clusters; {} unchanged, {} changed, {} splits, {} merges, {} births, {} deaths",
                labels[c.from],
                labels[c.to],
                c.clusters_before,
                c.clusters_after,
                c.unchanged,
                c.changed,
                c.splits,
                c.merges,
                c.births,
                c.deaths
            );
        }
    }
    let c = &r.recrawl_counts;
    let _ = writeln!(
        o,
        "recrawl advice for {}: {} URLs: skip {}, fetch {}, prioritize {}; saves {:.1}% of fetches",
        labels[last],
        c.urls,
        c.skip,
        c.fetch,
        c.prioritize,
        100.0 * c.fetch_savings
    );
    if let Some(v) = &r.validation {
        let _ = writeln!(
            o,
            "  checked: the advice for {} would have skipped {} URLs; in {}, {} stayed with their representative, {} left, {} representatives missing, {} URLs missing{}",
            labels[v.advised_on],
            v.counts.skip,
            labels[v.advised_on + 1],
            v.skipped_stayed,
            v.skipped_left,
            v.representative_missing,
            v.skipped_missing,
            v.skip_precision
                .map_or(String::new(), |p| format!(" (precision {p:.3})"))
        );
    }
    let _ = writeln!(
        o,
        "time: {seconds:.2} s (evolution {seconds_evolve:.3} s)\nwritten to {}",
        crate::output::folder_name(out)
    );
    o
}
