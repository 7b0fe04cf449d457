//! `neardup overlap`.

use crate::flags::{OutFormat, OverlapArgs};
use crate::{inputs, progress::Bar};
use anyhow::{Context, Result};
use neardup_engine::overlap::{overlap, Method, OverlapCounts, OverlapVisitor};
use neardup_overlap::{Chunking, CoarseConfig, FingerprintWidth};
use neardup_report::{Column, Format, Kind, Sink, Value};
use serde::Serialize;

#[derive(Serialize)]
struct Summary<'a> {
    chunking: Chunking,
    fingerprint_bits: u32,
    min_shared: u32,
    max_df: usize,
    counts: &'a OverlapCounts,
    skipped_fingerprints: u64,
    skipped_pair_emissions: u64,
    pair_emissions: u64,
    seconds_read_and_chunk: f64,
    seconds_overlap: f64,
    mem_limit: Option<usize>,
    external: Option<neardup_overlap::ExternalStats>,
    coarse: Option<neardup_overlap::CoarseStats>,
    files: Vec<String>,
}

pub fn run(args: &OverlapArgs, quiet: bool) -> Result<()> {
    let chunking = Chunking::parse(&args.chunk)
        .map_err(anyhow::Error::msg)
        .context("--chunk")?;
    let width = match args.fingerprint_bits {
        32 => FingerprintWidth::Bits32,
        64 => FingerprintWidth::Bits64,
        b => anyhow::bail!("--fingerprint-bits {b}: expected 32 or 64"),
    };
    let c = &args.common;
    let all = inputs::expand(
        &c.inputs,
        c.input_format.map(Into::into),
        c.base_url.is_some(),
    )?;
    let cfg = c.pipeline();
    let total: u64 = all
        .iter()
        .map(|i| std::fs::metadata(&i.path).map_or(0, |m| m.len()))
        .sum();
    let bar = Bar::new(total, quiet);
    let run = neardup_engine::run(&all, &cfg, || OverlapVisitor::new(chunking, width), &bar);
    bar.finish();
    let run = run?;
    let read = run.elapsed.as_secs_f64();
    let t = std::time::Instant::now();
    let tmp = args.tmp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let method = match (args.method, args.mem_limit) {
        (crate::flags::OverlapMethodArg::Coarse, _) => {
            if !(0.0..=1.0).contains(&args.pilot) {
                anyhow::bail!("--pilot {}: expected a share between 0 and 1", args.pilot);
            }
            Method::Coarse(CoarseConfig {
                counters: args.counters.max(1),
                hashes: args.hashes.max(1),
                pilot: args.pilot,
            })
        }
        (_, Some(m)) => Method::External(m, tmp.as_path()),
        (_, None) => Method::Sort,
    };
    let r = overlap(&run, args.min_shared.max(1), args.max_df.max(2), &method)
        .with_context(|| format!("external sort in {}", tmp.display()))?;
    let overlap_secs = t.elapsed().as_secs_f64();
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("{}: cannot create", args.out.display()))?;
    let format = match args.format {
        OutFormat::Jsonl => Format::Jsonl,
        OutFormat::Csv => Format::Csv,
        OutFormat::Parquet => Format::Parquet,
    };
    let mut files = Vec::new();
    let cols = [
        Column {
            name: "url_a",
            kind: Kind::Str,
        },
        Column {
            name: "id_a",
            kind: Kind::Str,
        },
        Column {
            name: "url_b",
            kind: Kind::Str,
        },
        Column {
            name: "id_b",
            kind: Kind::Str,
        },
        Column {
            name: "shared",
            kind: Kind::U64,
        },
        Column {
            name: "chunks_a",
            kind: Kind::U64,
        },
        Column {
            name: "chunks_b",
            kind: Kind::U64,
        },
    ];
    let mut s = Sink::create(&args.out, "overlap", format, &cols)?;
    for row in &r.table.rows {
        let (a, b) = (&r.pages[row.a as usize], &r.pages[row.b as usize]);
        s.row(&[
            Value::Str(&a.url),
            Value::Str(&a.user_id),
            Value::Str(&b.url),
            Value::Str(&b.user_id),
            Value::U64(row.shared as u64),
            Value::U64(a.chunks as u64),
            Value::U64(b.chunks as u64),
        ])?;
    }
    files.push(s.finish()?.display().to_string());
    let cols = [
        Column {
            name: "url",
            kind: Kind::Str,
        },
        Column {
            name: "id",
            kind: Kind::Str,
        },
        Column {
            name: "central_url",
            kind: Kind::Str,
        },
    ];
    let mut s = Sink::create(&args.out, "copies", format, &cols)?;
    for (i, &c) in r.central.iter().enumerate() {
        if c as usize != i {
            let (p, cp) = (&r.pages[i], &r.pages[c as usize]);
            s.row(&[
                Value::Str(&p.url),
                Value::Str(&p.user_id),
                Value::Str(&cp.url),
            ])?;
        }
    }
    files.push(s.finish()?.display().to_string());
    let summary_path = args.out.join("summary.json");
    files.push(summary_path.display().to_string());
    let summary = Summary {
        chunking,
        fingerprint_bits: args.fingerprint_bits,
        min_shared: args.min_shared,
        max_df: args.max_df,
        counts: &r.counts,
        skipped_fingerprints: r.table.skipped_fingerprints,
        skipped_pair_emissions: r.table.skipped_pair_emissions,
        pair_emissions: r.table.pair_emissions,
        seconds_read_and_chunk: read,
        seconds_overlap: overlap_secs,
        mem_limit: args.mem_limit,
        external: r.external.clone(),
        coarse: r.coarse.clone(),
        files,
    };
    let mut json = serde_json::to_vec_pretty(&summary)?;
    json.push(b'\n');
    crate::output::write_atomic(&summary_path, &all, &json)?;
    if !quiet {
        let k = &r.counts;
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
            r.table.pair_emissions,
            r.table.skipped_fingerprints,
            args.max_df,
            r.table.skipped_pair_emissions
        );
        if let Some(e) = &r.external {
            println!(
                "external sort: {} + {} runs, {:.1} MB of pairs spilled",
                e.table_runs,
                e.pair_runs,
                e.spilled_bytes as f64 / 1e6
            );
        }
        if let Some(c) = &r.coarse {
            println!(
                "coarse counting: {:.1} MB of counters, heavy buckets {:?}, {} pilot pairs, {} candidates ({} below the threshold)",
                c.counter_bytes as f64 / 1e6,
                c.heavy_buckets,
                c.pilot_pairs,
                c.candidates,
                c.false_candidates
            );
        }
        println!("time: read+chunk {read:.2} s, overlap {overlap_secs:.2} s");
        for f in &summary.files {
            println!("  {f}");
        }
    }
    Ok(())
}
