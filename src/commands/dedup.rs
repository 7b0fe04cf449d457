//! `neardup dedup`: flags to [`DedupOptions`], the job's report to files and text.

use crate::flags::DedupArgs;
use anyhow::Result;
use neardup_engine::dedup::{
    DedupOptions, DedupReport, DedupSettings, DedupSummary, CHAIN_WARNING,
};
use neardup_report::Format;
use serde::Serialize;
use std::fmt::Write as _;

/// Resolves a `--level` of supershingle clusters against the number of supershingles (a
/// level out of range is a usage error even where it does not apply).
pub(crate) fn level(s: &str, m_prime: u32) -> Result<u32> {
    neardup_dedup::Level::parse(s)
        .and_then(|l| l.min_agree(m_prime))
        .map_err(|e| crate::flags::usage(format!("--{e}")))
}

/// summary.json: the job's summary and the files written.
#[derive(Serialize)]
struct SummaryFile<'a> {
    #[serde(flatten)]
    summary: &'a DedupSummary,
    files: &'a [String],
    /// The report's replay link template (`--replay-url`), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    replay_url: Option<&'a str>,
    /// The kept corpus (`--write-kept`), when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    kept: Option<&'a neardup_clean::KeptSummary>,
}

/// The job's options from the flags: what they said, resolved by the library.
pub(crate) fn options(args: &DedupArgs) -> Result<DedupOptions> {
    let neardup_dedup::Resolved { params, config } = args
        .request()
        .resolve()
        .map_err(neardup_engine::Error::from)?;
    Ok(DedupOptions {
        pipeline: args.common.pipeline(),
        params,
        config,
        boilerplate: args.boilerplate.config(),
        pairs_per_cluster: args.pairs.then_some(args.max_pairs_per_cluster),
        top: args.top,
        samples: if args.no_report { 0 } else { REPORT_SAMPLES },
        references: Vec::new(),
    })
}

/// `--explain URL_A URL_B`: the explanation as text, and as JSON with `--json`.
fn explain(
    args: &DedupArgs,
    inputs: &[neardup_engine::Input],
    settings: &DedupSettings,
    urls: &[String],
    quiet: bool,
) -> Result<()> {
    use neardup_engine::dedup::explain;
    let outs = crate::output::Outputs::new(inputs, args.common.force);
    if let Some(path) = &args.json {
        outs.file(path, neardup_report::is_neardup_json)?;
    }
    let bar = crate::progress::Bar::new(quiet);
    let e = explain::explain(inputs, settings, &urls[0], &urls[1], &bar)?;
    let to_stdout_json = outs.json_report(args.json.as_deref(), &e)?;
    if !quiet && !to_stdout_json {
        print!("{}", e.text);
    }
    Ok(())
}

/// Clusters shown side by side in the report (canonical page beside its least similar member).
const REPORT_SAMPLES: usize = 10;

pub fn run(args: &DedupArgs, quiet: bool) -> Result<()> {
    // `-j` bounds the whole command, writing the tables included.
    let threads = args.common.pipeline().threads;
    neardup_engine::on_threads(threads, || run_on_threads(args, quiet))
}

fn run_on_threads(args: &DedupArgs, quiet: bool) -> Result<()> {
    if let Some(t) = args.replay_url.as_deref() {
        check_replay_url(t)?;
    }
    if let Some(dir) = &args.index {
        return run_index(args, dir, quiet);
    }
    let mut inputs = crate::inputs::expand_common(&args.common)?;
    // Reference inputs come after the others: the inputs before them are the ones written.
    let written = inputs.len();
    if !args.reference.is_empty() {
        inputs.extend(crate::inputs::expand(
            &args.reference,
            args.common.input_format.map(Into::into),
            args.common.base_url.is_some(),
        )?);
    }
    let mut opts = options(args)?;
    opts.references = (written..inputs.len()).collect();
    let settings = DedupSettings::new(opts)?;
    if let Some(urls) = &args.explain {
        return explain(args, &inputs, &settings, urls, quiet);
    }
    let out = &args.out;
    let outs = crate::output::Outputs::new(&inputs, args.common.force);
    outs.dir(out)?;
    // The kept corpus's inputs and folder, checked before anything is read.
    let kept_inputs: Vec<std::path::PathBuf> = match &args.write_kept {
        Some(dir) => {
            let paths: Vec<_> = inputs[..written]
                .iter()
                .map(|i| i.as_path().map(std::path::Path::to_path_buf))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "--write-kept writes files' records; an input here is not a file"
                    )
                })?;
            neardup_clean::check_inputs(&paths)?;
            outs.dir(dir)?;
            paths
        }
        None => Vec::new(),
    };
    let bar = crate::progress::Bar::new(quiet);
    let mut report = neardup_engine::dedup::run(&inputs, &settings, &bar)?;
    let mut clock = neardup_dedup::clock::Clock::start();
    let kept = match &args.write_kept {
        Some(dir) => Some(neardup_clean::write_kept(
            &kept_inputs,
            &report.kept,
            dir,
            outs.guard(),
            &neardup_clean::KeptOptions {
                counts: args.kept_counts,
                language: args.kept_language,
            },
        )?),
        None => None,
    };
    let format: Format = args.format.into();
    let t = &report.tables;
    let clusters = || outs.table(out, format, &t.clusters);
    let rest = || -> Result<Vec<String>> {
        let mut files = vec![outs.table(out, format, &t.remove)?];
        if let Some(p) = &t.pairs {
            files.push(outs.table(out, format, p)?);
        }
        if let Some(b) = &t.boilerplate {
            files.push(outs.table(out, format, b)?);
        }
        files.push(outs.table(out, format, &t.byte_identical)?);
        // The report's side-by-side views: the largest clusters' pages read again.
        if let Some(s) = &t.samples {
            files.push(outs.table(out, format, s)?);
        }
        Ok(files)
    };
    // The clusters table (the largest) is written beside the others, unless one thread was
    // asked for.
    let (clusters, rest) = if settings.options().pipeline.threads > 1 {
        std::thread::scope(|s| {
            let side = s.spawn(clusters);
            let rest = rest();
            (
                side.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                rest,
            )
        })
    } else {
        (clusters(), rest())
    };
    let mut files = vec![clusters?];
    files.extend(rest?);
    report.summary.stages.push(clock.lap("write"));
    if let Some(k) = &kept {
        files.extend(k.files.iter().map(|f| f.output.clone()));
    }
    outs.summary(out, &mut files, !args.no_report, |files| {
        serde_json::to_vec_pretty(&SummaryFile {
            summary: &report.summary,
            files,
            replay_url: args.replay_url.as_deref(),
            kept: kept.as_ref(),
        })
    })?;
    if !args.no_report {
        outs.dedup_report(out, report_members(&t.clusters, format))?;
    }
    outs.finish()?;
    if !quiet {
        let star = settings.options().config.cluster == neardup_dedup::ClusterMode::Star;
        print!("{}", human(&report, &files, args.stats, star));
        if let Some(k) = &kept {
            let (written, removed) = k.files.iter().fold((0, 0), |a, f| {
                (a.0 + f.records_written, a.1 + f.records_removed)
            });
            println!(
                "kept corpus: {written} records written to {} ({removed} removed), one file per input",
                k.dir
            );
        }
    }
    // The process ends with this command: its rows go back to the system at exit, not a
    // million frees one by one (60 ms on a million pages, every core idle).
    std::mem::forget(report);
    Ok(())
}

fn human(r: &DedupReport, files: &[String], with_stats: bool, star: bool) -> String {
    let s = &r.summary;
    let mut o = String::new();
    let c = &s.counts;
    // First, in plain words: what was found and what to do with it.
    let remove = files
        .iter()
        .find(|f| {
            std::path::Path::new(f)
                .file_stem()
                .is_some_and(|n| n == "remove")
        })
        .map_or("remove", String::as_str);
    let _ = writeln!(
        o,
        "{} of {} pages are near-duplicates of another page ({:.1}%), in {} clusters: keep one page per cluster and drop the {} listed in {remove}, each with the page kept instead and why.",
        c.pages_in_clusters,
        s.pages_sketched,
        s.percent_near_duplicate,
        c.clusters,
        c.pages_to_remove
    );
    let _ = writeln!(
        o,
        "read {} pages from {} input(s) in {:.2} s: {} sketched, {} without terms, {} not HTML/text{}, {} records skipped",
        s.pages_read,
        s.inputs.len(),
        s.seconds_read_and_sketch,
        s.pages_sketched,
        s.pages_without_terms,
        s.pages_not_html_or_text,
        super::not_pages_text(&s.not_pages),
        s.records_skipped
    );
    o.push_str(&super::skipped_text(&s.skipped));
    let mut how = s
        .config
        .matching
        .describe(&s.params, s.config.threshold, c.tables);
    let also = s.config.describe_acceptance();
    if !also.is_empty() {
        how = format!("{how}; {also}");
    }
    let _ = writeln!(
        o,
        "identity sets: {} ({} duplicate pages); byte-identical sets: {} ({} duplicate pages)",
        c.identity_sets, c.identity_duplicates, c.byte_identical_sets, c.byte_identical_duplicates
    );
    let _ = writeln!(
        o,
        "candidates: {how}; {} pairs examined, {} accepted{}",
        c.candidate_pairs,
        c.accepted_pairs,
        if s.config.verify {
            " after exact-Jaccard verification"
        } else {
            ""
        }
    );
    let vi = s
        .percent_virtually_identical
        .map(|p| format!(", {p:.1}% virtually identical"))
        .unwrap_or_default();
    let _ = writeln!(
        o,
        "clusters: {} holding {} pages ({:.1}% of pages are near-duplicates{vi}); {} pages to remove",
        c.clusters, c.pages_in_clusters, s.percent_near_duplicate, c.pages_to_remove
    );
    if let Some(rh) = &c.rp_hm {
        let g = &rh.graph;
        let iters: Vec<String> = rh
            .seconds_iterations
            .iter()
            .map(|t| format!("{t:.3}"))
            .collect();
        let _ = writeln!(
            o,
            "link graph: {} pages, {} distinct outlinks, {} edges inside the collection ({} pages with children), {:.1} MB; built in {:.2} s; RP normalized in {:.3} s; HM iterations [{}] s",
            g.pages,
            g.outlinks,
            g.edges,
            g.pages_with_children,
            g.bytes as f64 / 1e6,
            rh.seconds_graph,
            rh.seconds_normalize,
            iters.join(", ")
        );
    }
    if s.boilerplate_mean_fraction > 0.0 || s.boilerplate_pages_reported > 0 {
        let _ = writeln!(
            o,
            "boilerplate: {:.1}% of the shingles of an average page dropped; {} page(s) mostly boilerplate reported, not clustered",
            100.0 * s.boilerplate_mean_fraction,
            s.boilerplate_pages_reported
        );
    }
    if s.chained_clusters > 0 {
        // Star clusters hold only members matched with the canonical page itself: a low
        // estimate there is a pair some rule other than Jaccard accepted.
        let hint = if star {
            "accepted by a rule other than Jaccard: see each row's evidence"
        } else {
            "try --cluster star"
        };
        let _ = writeln!(
            o,
            "chaining: {} cluster(s) hold a member whose estimated Jaccard with the canonical page is below {CHAIN_WARNING} ({hint})",
            s.chained_clusters
        );
    }
    if !s.largest_clusters.is_empty() {
        let _ = writeln!(
            o,
            "largest clusters:\n  {:>6} {:>6} {:>4} {:>7}  canonical page",
            "pages", "hosts", "ips", "min J"
        );
        for l in &s.largest_clusters {
            // Rows without a URL (JSONL, Parquet, tables) are named by their id.
            let page = if l.canonical_url.is_empty() {
                format!("id {}", l.canonical_id)
            } else {
                l.canonical_url.clone()
            };
            let _ = writeln!(
                o,
                "  {:>6} {:>6} {:>4} {:>7.3}  {page}",
                l.size, l.hosts, l.ips, l.min_estimated_jaccard
            );
        }
    }
    if with_stats {
        let st = &s.cluster_stats;
        let alpha = st
            .power_law_alpha
            .map_or("not fitted: too few clusters or sizes".to_string(), |a| {
                format!("{a:.2}")
            });
        let _ = writeln!(o, "cluster sizes (fitted power-law exponent {alpha}):");
        for (size, n) in &st.size_distribution {
            let _ = writeln!(o, "  {size:>6} pages: {n} cluster(s)");
        }
        let _ = writeln!(o, "replicas per page:");
        for (rep, n) in &st.replicas_per_page {
            let _ = writeln!(o, "  {rep:>6} replicas: {n} page(s)");
        }
    }
    let secs: Vec<String> = s
        .stages
        .iter()
        .map(|t| format!("{} {:.2}/{:.2}", t.stage, t.wall_seconds, t.cpu_seconds))
        .collect();
    let _ = writeln!(
        o,
        "time: {:.2} s total on {} thread(s); wall/CPU s per stage: {}",
        s.seconds_total,
        s.threads,
        secs.join(", ")
    );
    let _ = writeln!(o, "files:");
    for f in files {
        let _ = writeln!(o, "  {f}");
    }
    o
}

/// summary.json of a dedup against an index.
#[derive(Serialize)]
struct IndexSummaryFile<'a> {
    #[serde(flatten)]
    summary: &'a neardup_index::IndexDedupSummary,
    index: &'a std::path::Path,
    files: &'a [String],
}

/// The clusters table's rows as the report reads them back from its format: what
/// [`neardup_html::build_dedup`] needs to give the page `neardup report` makes of the folder.
fn report_members(
    rows: &[neardup_engine::dedup::ClusterRow],
    format: Format,
) -> Vec<neardup_html::ClusterMember> {
    let stored = |v: f64| neardup_report::stored_f64(format, v);
    rows.iter()
        .map(|r| neardup_html::ClusterMember {
            url: r.url.clone(),
            date: Some(r.date.clone()),
            file: Some(r.file.clone()),
            offset: r.offset,
            cluster: r.cluster,
            cluster_size: r.cluster_size,
            canonical: r.canonical,
            rule: Some(r.rule.name().to_string()),
            estimated_jaccard: stored(r.estimated_jaccard),
            exact_jaccard: r.exact_jaccard.and_then(stored),
            containment: stored(r.containment),
            titles: Some(r.titles.name().to_string()),
            boilerplate_b: stored(r.boilerplate_b),
            shared_shingles: Some(f64::from(r.shared_shingles)),
            b_similarity: Some(f64::from(r.b_similarity)),
            c_similarity: r.c_similarity.map(f64::from),
            rp_distance: r.rp_distance.and_then(stored),
            hm_distance: r.hm_distance.and_then(stored),
        })
        .collect()
}

/// `dedup --index DIR`: the engine's dedup against the index, its clusters table and summary.
fn run_index(args: &DedupArgs, dir: &std::path::Path, quiet: bool) -> Result<()> {
    let inputs = crate::inputs::expand_common(&args.common)?;
    let out = &args.out;
    let outs = crate::output::Outputs::new(&inputs, args.common.force);
    outs.dir(out)?;
    let bar = crate::progress::Bar::new(quiet);
    let mut opts =
        neardup_index::IndexDedupOptions::new(args.common.pipeline(), args.add_as.clone());
    if let Some(m) = args.mem_limit {
        opts.mem_limit = m;
    }
    opts.again = args.again;
    if args.no_merge {
        opts.merge = neardup_index::MergePolicy::NEVER;
    }
    if let Some(t) = &args.tmp_dir {
        opts.tmp_dir = t.clone();
    }
    let format: Format = args.format.into();
    let table = std::cell::RefCell::new(Some(
        outs.table_writer::<neardup_index::IndexDedupRow>(out, format)?,
    ));
    let mut files = Vec::new();
    let index = neardup_index::Index::open(dir)?;
    // The outputs land before the add is committed (`land`): a kill after the commit leaves
    // them whole, and the same command run again has nothing to do.
    let mut land = |s: &neardup_index::IndexDedupSummary| -> Result<()> {
        let Some(table) = table.borrow_mut().take() else {
            anyhow::bail!("the clusters table was finished twice");
        };
        files.push(table.finish()?.display().to_string());
        outs.summary(out, &mut files, !args.no_report, |files| {
            serde_json::to_vec_pretty(&IndexSummaryFile {
                summary: s,
                index: dir,
                files,
            })
        })?;
        outs.end(out, !args.no_report)?;
        Ok(())
    };
    let mut landed: Option<anyhow::Error> = None;
    let s = index.dedup(
        &inputs,
        &opts,
        &bar,
        |r| match table.borrow_mut().as_mut() {
            Some(t) => Ok(t.write(&r)?),
            None => Ok(()),
        },
        |s| {
            land(s).map_err(|e| {
                let stop = neardup_engine::Error::Cancelled;
                landed = Some(e);
                stop
            })
        },
    );
    if let Some(e) = landed {
        return Err(e.context("the add was not made: its outputs could not be written"));
    }
    let s = &s?;
    if let Some(generation) = s.already_added {
        if !quiet {
            println!(
                "already added, nothing to do: {} holds these files as crawl {:?} (index generation {}); the run that added them wrote its outputs before its commit; --again reads them again",
                dir.display(),
                args.add_as.as_deref().unwrap_or_default(),
                generation
            );
        }
        return Ok(());
    }
    if !quiet {
        println!(
            "{} pages against an index of {} pages ({}): {} duplicates of indexed pages; {} pages in {} clusters, {} to remove",
            s.pages,
            s.index_pages,
            dir.display(),
            s.duplicates_of_index,
            s.pages_in_clusters,
            s.clusters,
            s.pages_to_remove
        );
        print!("{}", super::skipped_text(&s.skipped));
        if let Some(a) = &s.added {
            eprint!("{}", super::untracked_text(a.untracked));
            println!(
                "added {} pages (ids {}..{}) as crawl {:?}; index generation {}{}",
                a.pages,
                a.first_id,
                a.first_id + a.pages,
                a.label,
                a.generation,
                super::held_text(a.held)
            );
            print!("{}", super::merged_text(a.merged.as_ref()));
        }
        for f in &files {
            println!("wrote {f}");
        }
    }
    Ok(())
}

/// A replay link template must say where the capture's URL goes.
pub fn check_replay_url(t: &str) -> Result<()> {
    if !t.contains("{url}") {
        anyhow::bail!("--replay-url {t:?}: the template needs {{url}} (and usually {{timestamp}})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    /// The CLI decides no default: `neardup dedup` with no flags is the library's resolution
    /// of an empty request, and so is `index create`.
    #[test]
    fn no_flags_are_an_empty_request() {
        let cli = crate::flags::Cli::try_parse_from(["neardup", "dedup"]).unwrap();
        let crate::flags::Command::Dedup(args) = &cli.command else {
            panic!("dedup")
        };
        assert_eq!(args.request(), neardup_dedup::DedupRequest::default());
        let o = super::options(args).unwrap();
        let r = neardup_dedup::DedupRequest::default().resolve().unwrap();
        assert_eq!(o.params, r.params);
        assert_eq!(
            serde_json::to_value(&o.config).unwrap(),
            serde_json::to_value(&r.config).unwrap()
        );
        let cli = crate::flags::Cli::try_parse_from(["neardup", "index", "create", "x"]).unwrap();
        let crate::flags::Command::Index(crate::flags::IndexCommand::Create(args)) = &cli.command
        else {
            panic!("index create")
        };
        assert_eq!(args.request(), neardup_dedup::DedupRequest::default());
    }
}
