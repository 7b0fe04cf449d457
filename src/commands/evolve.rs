//! `neardup evolve`.

use crate::flags::EvolveArgs;
use crate::output::write_table;
use anyhow::{bail, Context, Result};
use neardup_engine::dedup::{dedup, DedupConfig, Matching};
use neardup_engine::evolve::{Evolution, EvolveReport, RecrawlConfig, BUCKETS, RANGES};
use neardup_report::plot::{line_chart, stacked_bars, Axis, Series};
use neardup_report::Format;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Extensions dropped from a file name to make a crawl label.
const EXTENSIONS: [&str; 9] = [
    ".gz", ".zst", ".warc", ".arc", ".jsonl", ".parquet", ".ndsig", ".sig", ".json",
];

fn label_of(paths: &[PathBuf]) -> String {
    let name = |p: &Path| {
        let mut n = p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        while let Some(e) = EXTENSIONS
            .iter()
            .find(|e| n.ends_with(*e) && n.len() > e.len())
        {
            n.truncate(n.len() - e.len());
        }
        n
    };
    match paths {
        [] => String::new(),
        [p] => name(p),
        [p, rest @ ..] => format!("{}+{}", name(p), rest.len()),
    }
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
    let start = std::time::Instant::now();
    let params = args.sketch.params()?;
    if params.supershingles == 0 {
        bail!("evolve needs supershingles (--supershingles > 0)");
    }
    if params.m > 1000 {
        bail!(
            "evolve counts shared minvalues in 16 bits: --minhashes {} is too many",
            params.m
        );
    }
    for (name, v) in [
        ("--stable-similarity", args.stable_similarity),
        ("--fast-change-share", args.fast_change_share),
    ] {
        if !(0.0..=1.0).contains(&v) {
            bail!("{name} {v}: expected a value between 0 and 1");
        }
    }
    let min_agree = super::dedup::level(&args.level, params.supershingles)?;
    let crawls = crawls(args)?;
    if crawls.is_empty() {
        bail!("no crawls");
    }
    if !args.labels.is_empty() && args.labels.len() != crawls.len() {
        bail!(
            "--labels names {} crawls but {} were given",
            args.labels.len(),
            crawls.len()
        );
    }
    let out = &args.out;
    crate::output::create_out_dir(out, crawls.iter().flatten().map(PathBuf::as_path))?;
    let cfg = DedupConfig::new(Matching::Supershingles { min_agree });
    let mut evolution = Evolution::new(params.m);
    let mut per_crawl = Vec::new();
    let mut all_inputs = Vec::new();
    for (n, paths) in crawls.iter().enumerate() {
        let label = args
            .labels
            .get(n)
            .cloned()
            .unwrap_or_else(|| label_of(paths));
        let mut common = args.common.clone();
        common.inputs = paths.clone();
        let t = std::time::Instant::now();
        let loaded = super::load::load(&common, &params, false, None, quiet)?;
        let read = loaded.read_time.as_secs_f64();
        let result = dedup(&loaded.corpus, &cfg);
        let fold = std::time::Instant::now();
        let counts = evolution
            .add_crawl(
                &label,
                &loaded.corpus,
                result
                    .clusters
                    .iter()
                    .map(|c| (c.canonical, c.members.as_slice())),
            )
            .clone();
        let seconds_fold = fold.elapsed().as_secs_f64();
        let problems: Vec<serde_json::Value> = loaded
            .sources
            .iter()
            .flat_map(|s| s.stats.problems.iter())
            .take(20)
            .map(|p| {
                serde_json::json!({"file": p.file, "offset": p.offset, "reason": p.kind.as_str(), "detail": p.detail})
            })
            .collect();
        let skipped: u64 = loaded.sources.iter().map(|s| s.stats.problem_count()).sum();
        if !quiet {
            eprintln!(
                "crawl {} {label}: {} pages, {} URLs, {} clusters holding {} URLs, {} new URLs, {} of crawl 1 missing{}; {:.2} s",
                n + 1,
                counts.pages,
                counts.urls,
                counts.clusters,
                counts.clustered_urls,
                counts.new_urls,
                counts.missing_from_first,
                if skipped > 0 {
                    format!(", {skipped} records skipped")
                } else {
                    String::new()
                },
                t.elapsed().as_secs_f64()
            );
        }
        per_crawl.push(serde_json::json!({
            "counts": counts,
            "inputs": loaded.corpus.inputs,
            "records_skipped": skipped,
            "skipped_examples": problems,
            "pages_without_terms": loaded.corpus.empty_pages,
            "pages_not_html_or_text": loaded.corpus.other_pages,
            "seconds_read_and_sketch": read,
            "seconds_cluster": result.counts.seconds.iter().map(|s| s.1).sum::<f64>(),
            "seconds_fold_into_evolution": seconds_fold,
        }));
        all_inputs.extend(loaded.inputs);
    }
    let t = std::time::Instant::now();
    let rcfg = RecrawlConfig {
        stable_similarity: args.stable_similarity,
        fast_change_share: args.fast_change_share,
    };
    let report = evolution.finish(&rcfg);
    let seconds_evolve = t.elapsed().as_secs_f64();

    let format: Format = args.format.into();
    let labels = evolution.labels();
    let t = neardup_engine::evolve::tables(&evolution, &report, &labels, &rcfg);
    let mut files = vec![
        write_table(out, format, &t.coefficients)?,
        write_table(out, format, &t.change)?,
        write_table(out, format, &t.change_buckets)?,
        write_table(out, format, &t.hosts)?,
        write_table(out, format, &t.events)?,
        write_table(out, format, &t.recrawl)?,
        write_table(out, format, &t.clusters)?,
    ];
    let figures = figures(&report, &labels);
    for (name, svg) in &figures {
        let path = out.join(name);
        crate::output::write_atomic(&path, &all_inputs, svg.as_bytes())?;
        files.push(path.display().to_string());
    }

    let hosts_both: Vec<_> = report
        .hosts
        .iter()
        .filter(|h| h.pages_first > 0 && h.pages_last > 0)
        .collect();
    let same = hosts_both
        .iter()
        .filter(|h| h.clusters_first == h.clusters_last)
        .count();
    let mut bucket_totals = [0u64; 6];
    for row in report
        .change_all()
        .map_or(Vec::new(), |h| h.buckets(report.m))
    {
        for (t, v) in bucket_totals.iter_mut().zip(row) {
            *t += v;
        }
    }
    let summary_path = out.join("summary.json");
    files.push(summary_path.display().to_string());
    let summary = serde_json::json!({
        "crawls": per_crawl,
        "params": params,
        "level_b_similarity": min_agree,
        "recrawl_config": rcfg,
        "ranges": RANGES,
        "last_crawl_coefficients": report.coefficients.iter()
            .filter(|c| c.crawl + 1 == labels.len())
            .map(|c| serde_json::json!({
                "range": RANGES[c.range], "urls": c.urls, "missing": c.missing,
                "containment": c.containment, "similarity": c.similarity,
                "reverse_containment": c.reverse_containment,
            }))
            .collect::<Vec<_>>(),
        "change_buckets_all_transitions": BUCKETS.iter().zip(bucket_totals)
            .map(|(b, n)| (b.to_string(), n))
            .collect::<BTreeMap<String, u64>>(),
        "hosts": {
            "in_first_and_last": hosts_both.len(),
            "same_number_of_clusters": same,
            "share_same": if hosts_both.is_empty() { None } else { Some(same as f64 / hosts_both.len() as f64) },
        },
        "events": report.event_counts,
        "recrawl": report.recrawl_counts,
        "recrawl_validation": report.validation,
        "seconds_evolve": seconds_evolve,
        "seconds_total": start.elapsed().as_secs_f64(),
        "files": files,
    });
    let mut json = serde_json::to_vec_pretty(&summary)?;
    json.push(b'\n');
    crate::output::write_atomic(&summary_path, &all_inputs, &json)?;
    if !quiet {
        print!(
            "{}",
            human(
                &report,
                &labels,
                bucket_totals,
                start.elapsed().as_secs_f64(),
                seconds_evolve,
                out
            )
        );
    }
    Ok(())
}

/// One SVG per figure of paper 004 section 3 that the crawls allow.
fn figures(r: &EvolveReport, labels: &[&str]) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let n = labels.len();
    // Padded so that the first and last labels fit.
    let crawl_axis = Axis::linear("crawl", 0.6, n as f64 + 0.4).with_ticks(
        labels
            .iter()
            .enumerate()
            .map(|(i, l)| (i as f64 + 1.0, l.to_string()))
            .collect(),
    );
    let ranges_present: Vec<usize> = (0..RANGES.len())
        .filter(|&g| r.coefficients.iter().any(|c| c.range == g))
        .collect();
    type Pick = fn(&neardup_evolve::Coefficients) -> Option<f64>;
    let coefficient_figures: [(&str, &str, &str, Pick); 3] = [
        (
            "fig4-containment.svg",
            "Containment of crawl-n clusters in crawl-1 clusters (paper 004 Fig. 4)",
            "mean |C1 ∩ Cn| / |C1|",
            |c| c.containment,
        ),
        (
            "fig5-similarity.svg",
            "Similarity of crawl-1 and crawl-n clusters (Fig. 5)",
            "mean |C1 ∩ Cn| / |C1 ∪ Cn|",
            |c| c.similarity,
        ),
        (
            "fig7-reverse-containment.svg",
            "Containment of crawl-1 clusters in crawl-n clusters (Fig. 7)",
            "mean |C1 ∩ Cn| / |Cn|",
            |c| c.reverse_containment,
        ),
    ];
    for (file, title, y_label, pick) in coefficient_figures {
        let series: Vec<Series> = ranges_present
            .iter()
            .map(|&g| {
                let urls = r
                    .coefficients
                    .iter()
                    .find(|c| c.range == g)
                    .map_or(0, |c| c.urls);
                Series {
                    name: format!("{} ({urls} URLs)", RANGES[g]),
                    points: r
                        .coefficients
                        .iter()
                        .filter(|c| c.range == g)
                        .filter_map(|c| Some((c.crawl as f64 + 1.0, pick(c)?)))
                        .collect(),
                }
            })
            .collect();
        let y = Axis::linear(y_label, 0.0, 1.0);
        out.push((file, line_chart(title, &crawl_axis, &y, &series, true)));
    }

    // Figure 6: change in the number of distinct clusters per host.
    let mut hist: BTreeMap<i64, u64> = BTreeMap::new();
    for h in r
        .hosts
        .iter()
        .filter(|h| h.pages_first > 0 && h.pages_last > 0)
    {
        *hist
            .entry(h.clusters_last as i64 - h.clusters_first as i64)
            .or_default() += 1;
    }
    if !hist.is_empty() {
        let lo = *hist.keys().next().expect("non-empty") as f64;
        let hi = *hist.keys().last().expect("non-empty") as f64;
        let top = hist.values().copied().max().unwrap_or(1) as f64;
        let series = [Series {
            name: "hosts".into(),
            points: hist.iter().map(|(&k, &v)| (k as f64, v as f64)).collect(),
        }];
        let (lo, hi) = if lo == hi {
            (lo - 1.0, hi + 1.0)
        } else {
            (lo, hi)
        };
        out.push((
            "fig6-host-clusters.svg",
            line_chart(
                &format!(
                    "Change in distinct clusters per host, {} to {} (Fig. 6)",
                    labels[0],
                    labels[n - 1]
                ),
                &Axis::linear("clusters in last crawl - clusters in first crawl", lo, hi),
                &Axis::log("hosts", 0.5, top * 2.0),
                &series,
                true,
            ),
        ));
    }

    let Some(all) = r.change_all() else {
        return out;
    };
    let totals = &all.counts;
    let m = r.m as usize;
    let xs: Vec<String> = (0..=m + 1).map(|x| x.to_string()).collect();
    let per_x: Vec<u64> = (0..=m + 1)
        .map(|x| totals.iter().map(|row| row[x]).sum())
        .collect();
    let share = |g: usize, x: usize| (per_x[x] > 0).then(|| totals[g][x] as f64 / per_x[x] as f64);
    let used: Vec<usize> = (0..RANGES.len())
        .filter(|&g| totals[g].iter().any(|&v| v > 0))
        .collect();
    // Figure 8: for each change amount, which cluster sizes the URLs come from.
    let layers: Vec<(String, Vec<f64>)> = used
        .iter()
        .map(|&g| {
            (
                format!("size {}", RANGES[g]),
                (0..=m + 1).map(|x| share(g, x).unwrap_or(0.0)).collect(),
            )
        })
        .collect();
    out.push((
        "fig8-change-by-size.svg",
        stacked_bars(
            "Cluster size by change amount, all consecutive crawls (Fig. 8)",
            &format!(
                "minvalues shared with the previous crawl ({} = byte-identical)",
                m + 1
            ),
            "share of URLs",
            &xs,
            &layers,
        ),
    ));
    // Figure 9: y / Y, Y the mean height of a range over the change amounts that occur.
    let series: Vec<Series> = used
        .iter()
        .map(|&g| {
            let ys: Vec<(usize, f64)> = (0..=m + 1)
                .filter_map(|x| Some((x, share(g, x)?)))
                .collect();
            let mean = ys.iter().map(|p| p.1).sum::<f64>() / ys.len().max(1) as f64;
            Series {
                name: format!("size {}", RANGES[g]),
                points: ys
                    .iter()
                    .filter(|p| p.1 > 0.0 && mean > 0.0)
                    .map(|&(x, y)| (x as f64, y / mean))
                    .collect(),
            }
        })
        .collect();
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0, f64::max);
    let bottom = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0, f64::min);
    out.push((
        "fig9-relative-change.svg",
        line_chart(
            "Relative contribution of cluster size to change amount (Fig. 9)",
            &Axis::linear(
                "minvalues shared with the previous crawl",
                0.0,
                (m + 1) as f64,
            ),
            &Axis::log(
                "share / mean share of the size range",
                bottom / 2.0,
                top * 2.0,
            ),
            &series,
            true,
        ),
    ));
    // Figure 10: change buckets per cluster-size range.
    let cats: Vec<String> = used.iter().map(|&g| RANGES[g].to_string()).collect();
    let all_buckets = all.buckets(r.m);
    let buckets: Vec<[u64; 6]> = used.iter().map(|&g| all_buckets[g]).collect();
    let layers: Vec<(String, Vec<f64>)> = (0..6)
        .rev()
        .map(|k| {
            (
                BUCKETS[k].to_string(),
                buckets
                    .iter()
                    .map(|b| {
                        let t: u64 = b.iter().sum();
                        if t == 0 {
                            0.0
                        } else {
                            b[k] as f64 / t as f64
                        }
                    })
                    .collect(),
            )
        })
        .collect();
    out.push((
        "fig10-change-buckets.svg",
        stacked_bars(
            "Change amount by cluster size, all consecutive crawls (Fig. 10)",
            "cluster size in the earlier crawl",
            "share of URLs",
            &cats,
            &layers,
        ),
    ));
    out
}

fn human(
    r: &EvolveReport,
    labels: &[&str],
    buckets: [u64; 6],
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
            .zip(buckets)
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
        "time: {seconds:.2} s (evolution {seconds_evolve:.3} s)\nwritten to {}/",
        out.display()
    );
    o
}
