//! `neardup dedup`.

use crate::flags::{AlgoArg, ClusterArg, DedupArgs, KeepArg, LshArg, SiteArg};
use anyhow::{bail, Context, Result};
use neardup_candidates::optimal_bands;
use neardup_cluster::{stats, ClusterStats, Keep};
use neardup_engine::dedup::{
    chained_clusters, dedup, largest_clusters, ClusterMode, DedupConfig, DedupCounts, DedupResult,
    Largest, Matching, SiteRule, TableOptions, CHAIN_WARNING,
};
use neardup_report::Format;
use serde::Serialize;
use std::fmt::Write as _;

use crate::output::write_table;

/// Resolves `--level` against the number of supershingles.
pub(crate) fn level(s: &str, m_prime: u32) -> Result<u32> {
    let b = match s {
        "very-similar" => 2,
        "virtually-identical" => m_prime,
        n => n.parse::<u32>().with_context(|| {
            format!("--level {n:?}: expected very-similar, virtually-identical or a number")
        })?,
    };
    if b == 0 || b > m_prime {
        bail!("--level {s}: B-similarity {b} is not between 1 and the {m_prime} supershingles");
    }
    Ok(b)
}

#[derive(Serialize)]
struct Summary<'a> {
    inputs: &'a [String],
    pages_read: u64,
    pages_sketched: u64,
    pages_without_terms: u64,
    pages_not_html_or_text: u64,
    records_skipped: u64,
    percent_near_duplicate: f64,
    percent_virtually_identical: Option<f64>,
    counts: &'a DedupCounts,
    chained_clusters: usize,
    boilerplate_pages_reported: usize,
    boilerplate_mean_fraction: f64,
    largest_clusters: Vec<Largest>,
    cluster_stats: ClusterStats,
    params: &'a neardup_sketch::SketchParams,
    config: &'a DedupConfig,
    seconds_read_and_sketch: f64,
    seconds_total: f64,
    threads: usize,
    files: Vec<String>,
}

pub fn run(args: &DedupArgs, quiet: bool) -> Result<()> {
    let start = std::time::Instant::now();
    let mut params = args.sketch.params()?;
    if matches!(
        args.algo,
        AlgoArg::Simhash | AlgoArg::Combined | AlgoArg::Split
    ) && args.sketch.simhash_bits.is_none()
    {
        params.simhash_bits = 384;
    }
    if args.algo == AlgoArg::RpHm && args.sketch.rp_dims.is_none() {
        params.rp_dims = 5;
    }
    if !(0.0..=1.0).contains(&args.threshold) {
        bail!(
            "--threshold {}: expected a Jaccard similarity between 0 and 1",
            args.threshold
        );
    }
    let matching = match (args.algo, args.lsh) {
        (AlgoArg::RpHm, _) => Matching::RpHm {
            rp_tol: args.rp_tol,
            hm_tol: args.hm_tol,
            hm: args.rp_hm.params(),
        },
        (AlgoArg::Simhash, _) => Matching::Simhash {
            min_c: args.c_threshold,
            blocks: args.simhash_blocks,
        },
        (AlgoArg::Combined, _) => Matching::Combined {
            min_agree: level(&args.level, params.supershingles)?,
            min_c: args.combined_c_threshold,
        },
        (AlgoArg::Split, _) => Matching::Split {
            min_agree: level(&args.level, params.supershingles)?,
            min_c_same_site: args.combined_c_threshold,
            min_c_other_site: args.c_threshold,
            blocks: args.simhash_blocks,
        },
        (AlgoArg::Shingles, LshArg::Supershingles) => {
            if params.supershingles == 0 {
                bail!("--lsh supershingles needs --supershingles > 0");
            }
            Matching::Supershingles {
                min_agree: level(&args.level, params.supershingles)?,
            }
        }
        (AlgoArg::Shingles, LshArg::Bands) => {
            let (bands, rows) = match (args.bands, args.rows) {
                (Some(b), Some(r)) => (b, r),
                _ => {
                    let b = optimal_bands(params.m, args.threshold, 0.5, 0.5);
                    (b.bands, b.rows)
                }
            };
            if bands == 0 || rows == 0 || bands as u64 * rows as u64 > params.m as u64 {
                bail!(
                    "--bands {bands} x --rows {rows} needs {} minvalues but --minhashes is {}",
                    bands as u64 * rows as u64,
                    params.m
                );
            }
            Matching::Bands { bands, rows }
        }
    };
    let mut cfg = DedupConfig {
        matching,
        threshold: args.threshold,
        verify: args.verify,
        cluster: match args.cluster {
            Some(ClusterArg::UnionFind) => ClusterMode::UnionFind,
            Some(ClusterArg::Star) => ClusterMode::Star,
            None if args.algo == AlgoArg::RpHm => ClusterMode::Star,
            None => ClusterMode::UnionFind,
        },
        keep: match args.keep {
            KeepArg::First => Keep::First,
            KeepArg::ShortestUrl => Keep::ShortestUrl,
            KeepArg::LongestText => Keep::LongestText,
            KeepArg::Newest => Keep::Newest,
        },
        site: match args.site {
            SiteArg::Henzinger => SiteRule::Henzinger,
            SiteArg::RegisteredDomain => SiteRule::RegisteredDomain,
        },
        boilerplate_mostly: None,
    };
    cfg.validate(&params).map_err(anyhow::Error::msg)?;
    let boilerplate = args.boilerplate.config()?;
    cfg.boilerplate_mostly = boilerplate.map(|b| b.mostly);
    let loaded = super::load::load(&args.common, &params, args.verify, boilerplate, quiet)?;
    let out = &args.out;
    crate::output::create_out_dir(out, loaded.inputs.iter().map(|i| i.path.as_path()))?;
    let corpus = &loaded.corpus;
    let result = dedup(corpus, &cfg);
    let format: Format = args.format.into();
    let tables = neardup_engine::dedup::tables(
        corpus,
        &cfg,
        &result,
        TableOptions {
            pairs_per_cluster: args.pairs.then_some(args.max_pairs_per_cluster),
            boilerplate: args.boilerplate.boilerplate != crate::flags::BoilerplateArg::None,
        },
    );
    let mut files = vec![
        write_table(out, format, &tables.clusters)?,
        write_table(out, format, &tables.remove)?,
    ];
    if let Some(p) = &tables.pairs {
        files.push(write_table(out, format, p)?);
    }
    if let Some(b) = &tables.boilerplate {
        files.push(write_table(out, format, b)?);
    }
    files.push(write_table(out, format, &tables.byte_identical)?);

    let sizes: Vec<u64> = result
        .clusters
        .iter()
        .map(|c| c.members.len() as u64)
        .collect();
    let cluster_stats = stats(&sizes);
    let largest = largest_clusters(corpus, &result, args.top);
    let chained = chained_clusters(&result);
    let sketched = corpus.len() as u64;
    let pct = |x: u64| {
        if sketched == 0 {
            0.0
        } else {
            100.0 * x as f64 / sketched as f64
        }
    };
    let summary_path = out.join("summary.json");
    files.push(summary_path.display().to_string());
    let summary = Summary {
        inputs: &corpus.inputs,
        pages_read: sketched + corpus.empty_pages + corpus.other_pages,
        pages_sketched: sketched,
        pages_without_terms: corpus.empty_pages,
        pages_not_html_or_text: corpus.other_pages,
        records_skipped: loaded.sources.iter().map(|s| s.stats.problem_count()).sum(),
        percent_near_duplicate: pct(result.counts.pages_in_clusters),
        percent_virtually_identical: result.counts.virtually_identical_pages.map(pct),
        counts: &result.counts,
        chained_clusters: chained,
        boilerplate_pages_reported: result.boilerplate_pages.len() + corpus.boilerplate_only.len(),
        boilerplate_mean_fraction: if corpus.is_empty() {
            0.0
        } else {
            corpus
                .pages
                .iter()
                .map(|p| p.boilerplate as f64)
                .sum::<f64>()
                / corpus.len() as f64
        },
        largest_clusters: largest,
        cluster_stats,
        params: &params,
        config: &cfg,
        seconds_read_and_sketch: loaded.read_time.as_secs_f64(),
        seconds_total: start.elapsed().as_secs_f64(),
        threads: loaded.threads,
        files: files.clone(),
    };
    let mut json = serde_json::to_vec_pretty(&summary)?;
    json.push(b'\n');
    crate::output::write_atomic(&summary_path, &loaded.inputs, &json)?;
    if !quiet {
        print!("{}", human(&summary, &result, args.stats));
    }
    Ok(())
}

fn human(s: &Summary, r: &DedupResult, with_stats: bool) -> String {
    let mut o = String::new();
    let c = s.counts;
    let _ = writeln!(
        o,
        "read {} pages from {} input(s) in {:.2} s: {} sketched, {} without terms, {} not HTML/text, {} records skipped",
        s.pages_read,
        s.inputs.len(),
        s.seconds_read_and_sketch,
        s.pages_sketched,
        s.pages_without_terms,
        s.pages_not_html_or_text,
        s.records_skipped
    );
    let how = match s.config.matching {
        Matching::Supershingles { min_agree } => format!(
            "{} supershingle tables (B-similarity >= {min_agree} of {})",
            c.tables, s.params.supershingles
        ),
        Matching::Bands { bands, rows } => format!("LSH {bands} bands x {rows} rows (threshold {})", s.config.threshold),
        Matching::Simhash { min_c, .. } => format!(
            "Alg. C: {} simhash tables (C-similarity >= {min_c} of {})",
            c.tables, s.params.simhash_bits
        ),
        Matching::Combined { min_agree, min_c } => format!(
            "combined: {} supershingle tables (B-similarity >= {min_agree}), kept at C-similarity >= {min_c} of {}",
            c.tables, s.params.simhash_bits
        ),
        Matching::Split { min_agree, min_c_same_site, min_c_other_site, .. } => format!(
            "split: {} tables; same site B >= {min_agree} and C >= {min_c_same_site}, other sites C >= {min_c_other_site} of {}",
            c.tables, s.params.simhash_bits
        ),
        Matching::RpHm { rp_tol, hm_tol, hm } => {
            let hm_part = if hm_tol >= 1.0 {
                "RP only".to_string()
            } else {
                format!("||X1-X2||inf < C = {hm_tol} (gamma {}, {} iterations)", hm.gamma, hm.iterations)
            };
            let dims = s.params.rp_dims * if hm_tol >= 1.0 { 1 } else { 2 };
            format!("rp-hm: k-d tree over {dims} dimensions, ||R1-R2||inf < D = {rp_tol}, {hm_part}")
        }
    };
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
        let _ = writeln!(
            o,
            "chaining: {} cluster(s) hold a member whose estimated Jaccard with the canonical page is below {CHAIN_WARNING} (try --cluster star)",
            s.chained_clusters
        );
    }
    if !s.largest_clusters.is_empty() {
        let _ = writeln!(
            o,
            "largest clusters:\n  {:>6} {:>6} {:>4} {:>7}  canonical url",
            "pages", "hosts", "ips", "min J"
        );
        for l in &s.largest_clusters {
            let _ = writeln!(
                o,
                "  {:>6} {:>6} {:>4} {:>7.3}  {}",
                l.size, l.hosts, l.ips, l.min_estimated_jaccard, l.canonical_url
            );
        }
    }
    if with_stats {
        let st = &s.cluster_stats;
        let alpha = st
            .power_law_alpha
            .map_or("n/a".to_string(), |a| format!("{a:.2}"));
        let _ = writeln!(o, "cluster sizes (fitted power-law exponent {alpha}):");
        for (size, n) in &st.size_distribution {
            let _ = writeln!(o, "  {size:>6} pages: {n} cluster(s)");
        }
        let _ = writeln!(o, "replicas per page:");
        for (rep, n) in &st.replicas_per_page {
            let _ = writeln!(o, "  {rep:>6} replicas: {n} page(s)");
        }
    }
    let secs: Vec<String> = c
        .seconds
        .iter()
        .map(|(n, t)| format!("{n} {t:.2}"))
        .collect();
    let _ = writeln!(
        o,
        "time: {:.2} s total (read+sketch {:.2}, {})",
        s.seconds_total,
        s.seconds_read_and_sketch,
        secs.join(", ")
    );
    let _ = writeln!(o, "files:");
    for f in &s.files {
        let _ = writeln!(o, "  {f}");
    }
    let _ = r;
    o
}
