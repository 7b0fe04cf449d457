//! `neardup overlap`: flags to [`OverlapOptions`], the job's report to files and text.

use crate::flags::OverlapArgs;
use crate::progress::Bar;
use anyhow::Result;
use neardup_engine::overlap::{OverlapMethod, OverlapOptions, OverlapSettings, OverlapSummary};
use neardup_overlap::{Chunking, CoarseConfig, FingerprintWidth};
use neardup_report::Format;
use serde::Serialize;

#[derive(Serialize)]
struct SummaryFile<'a> {
    #[serde(flatten)]
    summary: &'a OverlapSummary,
    files: &'a [String],
}

pub fn run(args: &OverlapArgs, quiet: bool) -> Result<()> {
    let settings = OverlapSettings::new(OverlapOptions {
        pipeline: args.common.pipeline(),
        chunking: Chunking::parse(&args.chunk)
            .map_err(|e| crate::flags::usage(format!("--chunk {e}")))?,
        width: match args.fingerprint_bits {
            32 => FingerprintWidth::Bits32,
            64 => FingerprintWidth::Bits64,
            b => {
                return Err(crate::flags::usage(format!(
                    "--fingerprint-bits {b}: expected 32 or 64"
                )))
            }
        },
        min_shared: args.min_shared.max(1),
        max_df: args.max_df.max(2),
        method: match (args.method, args.mem_limit) {
            (crate::flags::OverlapMethodArg::Coarse, _) => OverlapMethod::Coarse(CoarseConfig {
                counters: args.counters.max(1),
                hashes: args.hashes.max(1),
                pilot: args.pilot,
            }),
            (_, Some(m)) => OverlapMethod::External {
                mem_limit: m,
                tmp_dir: args.tmp_dir.clone().unwrap_or_else(std::env::temp_dir),
            },
            (_, None) => OverlapMethod::Sort,
        },
        top: 10,
    })?;
    let all = crate::inputs::expand_common(&args.common)?;
    let outs = crate::output::Outputs::new(&all, args.common.force);
    outs.dir(&args.out)?;
    let bar = Bar::new(quiet);
    let r = neardup_engine::overlap::run(&all, &settings, &bar)?;
    let format: Format = args.format.into();
    let mut files = vec![
        outs.table(&args.out, format, &r.overlap)?,
        outs.table(&args.out, format, &r.copies)?,
        outs.table(&args.out, format, &r.server_overlap)?,
    ];
    let summary = &r.summary;
    outs.summary(&args.out, &mut files, !args.no_report, |files| {
        serde_json::to_vec_pretty(&SummaryFile { summary, files })
    })?;
    outs.end(&args.out, !args.no_report)?;
    if !quiet {
        print!("{}", super::skipped_text(&summary.skipped));
        let k = &summary.counts;
        println!(
            "{} pages ({} exact copies in {} sets removed first); {} chunk fingerprints ({:.1} MB table)",
            k.pages,
            k.copies,
            k.copy_sets,
            k.table_entries,
            k.table_bytes as f64 / 1e6
        );
        println!(
            "overlap table: {} pairs share >= {} chunks ({} pair emissions; {} chunks held by more than {} documents skipped, {} emissions avoided)",
            k.overlap_pairs,
            args.min_shared,
            summary.pair_emissions,
            summary.skipped_fingerprints,
            args.max_df,
            summary.skipped_pair_emissions
        );
        if let Some(e) = &summary.external {
            println!(
                "external sort: {} + {} runs, {:.1} MB of pairs spilled",
                e.table_runs,
                e.pair_runs,
                e.spilled_bytes as f64 / 1e6
            );
        }
        if let Some(c) = &summary.coarse {
            println!(
                "coarse counting: {:.1} MB of counters, heavy buckets {:?}, {} pilot pairs, {} candidates ({} below the threshold)",
                c.counter_bytes as f64 / 1e6,
                c.heavy_buckets,
                c.pilot_pairs,
                c.candidates,
                c.false_candidates
            );
        }
        let rep = &summary.replication;
        println!(
            "server overlap: {} host pair(s) share >= {} chunks ({} hosts)",
            summary.server_overlap_pairs, args.min_shared, summary.hosts
        );
        let pct = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{:.1}%", 100.0 * x))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!("replicas per page {:?}:", rep.buckets);
        println!("  exact copies:          {}", pct(&rep.exact_copies));
        println!(
            "  sharing >= {} chunks:   {}",
            args.min_shared,
            pct(&rep.sharing_chunks)
        );
        println!(
            "crawl savings: {:.1}% of pages ({:.1}% of bytes) skipping exact copies; {:.1}% ({:.1}%) also skipping pages sharing >= {} chunks",
            100.0 * rep.savings_exact_pages,
            100.0 * rep.savings_exact_bytes,
            100.0 * rep.savings_sharing_pages,
            100.0 * rep.savings_sharing_bytes,
            args.min_shared
        );
        for c in rep.most_replicated.iter().take(3) {
            println!(
                "  replicated on {} host(s), {} pages: {}",
                c.hosts, c.pages, c.representative_url
            );
        }
        println!(
            "time: read+chunk {:.2} s, overlap {:.2} s",
            summary.seconds_read_and_chunk, summary.seconds_overlap
        );
        for f in &files {
            println!("  {f}");
        }
    }
    Ok(())
}
