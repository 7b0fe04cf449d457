//! `neardup overlap`.

use crate::flags::OverlapArgs;
use crate::output::write_table;
use crate::{inputs, progress::Bar};
use anyhow::{Context, Result};
use neardup_engine::overlap::{
    overlap, page_tables, server_overlap, server_rows, Method, OverlapCounts, OverlapResult,
    OverlapVisitor,
};
use neardup_overlap::{Chunking, CoarseConfig, FingerprintWidth};
use neardup_report::Format;
use serde::Serialize;

/// Replication of pages (paper 002 Figure 1), crawl savings (section 3) and the most replicated
/// collections (Table 2), from exact copies and from the Overlap table.
#[derive(Serialize)]
struct Replication {
    /// Buckets of replicas per page: "0", "1", "2", "3-10", "11-100", "101-1000", ">1000".
    buckets: Vec<&'static str>,
    /// Share of pages per bucket, counting exact copies only.
    exact_copies: Vec<f64>,
    /// Share of pages per bucket, counting pages linked by exact copies or >= T shared chunks.
    sharing_chunks: Vec<f64>,
    /// Share of pages (and bytes) a crawler need not fetch when it skips exact copies.
    savings_exact_pages: f64,
    savings_exact_bytes: f64,
    /// The same when it also skips pages sharing >= T chunks with a page it keeps.
    savings_sharing_pages: f64,
    savings_sharing_bytes: f64,
    /// Groups replicated on the most hosts.
    most_replicated: Vec<Collection>,
}

#[derive(Serialize)]
struct Collection {
    hosts: usize,
    pages: usize,
    representative_url: String,
}

const BUCKETS: [&str; 7] = ["0", "1", "2", "3-10", "11-100", "101-1000", ">1000"];

fn bucket(replicas: usize) -> usize {
    match replicas {
        0 => 0,
        1 => 1,
        2 => 2,
        3..=10 => 3,
        11..=100 => 4,
        101..=1000 => 5,
        _ => 6,
    }
}

fn replication(r: &OverlapResult, top: usize) -> Replication {
    let n = r.pages.len();
    let mut copy_size = vec![0usize; n];
    for &c in &r.central {
        copy_size[c as usize] += 1;
    }
    let mut uf = neardup_cluster::UnionFind::new(n as u32);
    for (i, &c) in r.central.iter().enumerate() {
        uf.union(i as u32, c);
    }
    for row in &r.table.rows {
        uf.union(row.a, row.b);
    }
    let mut comp_of = vec![usize::MAX; n];
    let comps = uf.components();
    for (k, c) in comps.iter().enumerate() {
        for &m in c {
            comp_of[m as usize] = k;
        }
    }
    let share = |counts: [usize; 7]| {
        counts
            .iter()
            .map(|&c| if n == 0 { 0.0 } else { c as f64 / n as f64 })
            .collect()
    };
    let (mut exact, mut sharing) = ([0usize; 7], [0usize; 7]);
    for i in 0..n {
        exact[bucket(copy_size[r.central[i] as usize] - 1)] += 1;
        let comp = comp_of[i];
        sharing[bucket(if comp == usize::MAX {
            0
        } else {
            comps[comp].len() - 1
        })] += 1;
    }
    let total_bytes: u64 = r.pages.iter().map(|p| p.bytes).sum::<u64>().max(1);
    let copies: Vec<usize> = (0..n).filter(|&i| r.central[i] as usize != i).collect();
    let skipped_sharing: Vec<usize> = comps
        .iter()
        .flat_map(|c| c[1..].iter().map(|&m| m as usize))
        .collect();
    let frac = |v: &[usize]| {
        if n == 0 {
            0.0
        } else {
            v.len() as f64 / n as f64
        }
    };
    let bytes =
        |v: &[usize]| v.iter().map(|&i| r.pages[i].bytes).sum::<u64>() as f64 / total_bytes as f64;
    let mut most: Vec<Collection> = comps
        .iter()
        .map(|c| {
            let hosts: std::collections::BTreeSet<&str> = c
                .iter()
                .map(|&m| r.pages[m as usize].host.as_str())
                .collect();
            Collection {
                hosts: hosts.len(),
                pages: c.len(),
                representative_url: r.pages[c[0] as usize].url.clone(),
            }
        })
        .collect();
    most.sort_by(|a, b| {
        b.hosts
            .cmp(&a.hosts)
            .then(b.pages.cmp(&a.pages))
            .then(a.representative_url.cmp(&b.representative_url))
    });
    most.truncate(top);
    Replication {
        buckets: BUCKETS.to_vec(),
        exact_copies: share(exact),
        sharing_chunks: share(sharing),
        savings_exact_pages: frac(&copies),
        savings_exact_bytes: bytes(&copies),
        savings_sharing_pages: frac(&skipped_sharing),
        savings_sharing_bytes: bytes(&skipped_sharing),
        most_replicated: most,
    }
}

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
    hosts: usize,
    server_overlap_pairs: usize,
    replication: Replication,
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
    crate::output::create_out_dir(&args.out, all.iter().map(|i| i.path.as_path()))?;
    let format: Format = args.format.into();
    let (overlap_rows, copies) = page_tables(&r);
    let mut files = vec![
        write_table(&args.out, format, &overlap_rows)?,
        write_table(&args.out, format, &copies)?,
    ];
    // Server level: hosts as unions of their documents.
    let (hosts, servers) = server_overlap(&run, &r, args.min_shared.max(1), args.max_df.max(2));
    files.push(write_table(
        &args.out,
        format,
        &server_rows(&hosts, &servers),
    )?);
    let replication = replication(&r, 10);
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
        hosts: hosts.len(),
        server_overlap_pairs: servers.rows.len(),
        replication,
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
        println!("time: read+chunk {read:.2} s, overlap {overlap_secs:.2} s");
        for f in &summary.files {
            println!("  {f}");
        }
    }
    Ok(())
}
