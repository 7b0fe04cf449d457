//! `neardup mirrors`.

use crate::flags::MirrorsArgs;
use anyhow::{bail, Context, Result};
use neardup_engine::dedup::{dedup, DedupConfig, Matching};
use neardup_engine::mirrors::{mirrors, MirrorConfig, MirrorKind};
use neardup_report::Format;
use std::collections::HashMap;
use std::fmt::Write as _;

fn kind_name(k: MirrorKind) -> &'static str {
    match k {
        MirrorKind::Mirror => "mirror",
        MirrorKind::PartialMirror => "partial-mirror",
        MirrorKind::Alias => "alias",
    }
}

/// Reads "host,ip" lines.
pub(crate) fn hosts_ips(path: &std::path::Path) -> Result<HashMap<String, Vec<String>>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((h, ip)) = line.split_once(',') else {
            bail!("{}: line {}: expected host,ip", path.display(), i + 1);
        };
        out.entry(h.trim().to_ascii_lowercase())
            .or_default()
            .push(ip.trim().to_string());
    }
    Ok(out)
}

/// Clusters of a dedup output file, as page ids of the corpus (URLs not in the corpus are
/// counted and skipped).
pub(crate) fn clusters_from_file(
    path: &std::path::Path,
    corpus: &neardup_store::Corpus,
) -> Result<Vec<Vec<u32>>> {
    let by_url: HashMap<&str, u32> = corpus
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.url.as_str(), i as u32))
        .collect();
    let mut by_cluster: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
    let mut missing = 0u64;
    for row in super::eval::read_table(path)? {
        let url = row.get("url").and_then(|v| v.as_str().map(str::to_string));
        let cluster = row.get("cluster").and_then(|v| match v {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(s) => s.parse().ok(),
            _ => None,
        });
        let (Some(url), Some(cluster)) = (url, cluster) else {
            bail!("{}: rows need url and cluster columns", path.display());
        };
        match by_url.get(url.as_str()) {
            Some(&p) => by_cluster.entry(cluster).or_default().push(p),
            None => missing += 1,
        }
    }
    if missing > 0 {
        eprintln!(
            "neardup: {}: {missing} clustered URL(s) are not in the inputs and were skipped",
            path.display()
        );
    }
    Ok(by_cluster
        .into_values()
        .map(|mut v| {
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect())
}

pub fn run(args: &MirrorsArgs, quiet: bool) -> Result<()> {
    let start = std::time::Instant::now();
    let params = args.sketch.params()?;
    if params.supershingles == 0 {
        bail!("mirrors needs supershingles (--supershingles > 0)");
    }
    let min_agree = super::dedup::level(&args.level, params.supershingles)?;
    let extra = match &args.hosts_ips {
        Some(p) => hosts_ips(p)?,
        None => HashMap::new(),
    };
    let loaded = super::load::load(&args.common, &params, false, None, quiet)?;
    let corpus = &loaded.corpus;
    let cfg = DedupConfig::new(Matching::Supershingles { min_agree });
    let clusters: Vec<Vec<u32>> = match &args.clusters {
        Some(path) => clusters_from_file(path, corpus)?,
        None => dedup(corpus, &cfg)
            .clusters
            .into_iter()
            .map(|c| c.members)
            .collect(),
    };
    let mcfg = MirrorConfig {
        min_pages: args.min_pages,
        ..MirrorConfig::default()
    };
    let t = std::time::Instant::now();
    let report = mirrors(corpus, &clusters, &extra, &mcfg);
    let seconds_mirrors = t.elapsed().as_secs_f64();

    let out = &args.out;
    crate::output::create_out_dir(out, loaded.inputs.iter().map(|i| i.path.as_path()))?;
    let format: Format = args.format.into();
    let table = crate::output::write_table(out, format, &neardup_engine::mirrors::rows(&report))?;
    let summary = serde_json::json!({
        "inputs": corpus.inputs,
        "pages": corpus.len(),
        "clusters": clusters.len(),
        "level_b_similarity": min_agree,
        "config": mcfg,
        "counts": report.counts,
        "size_distribution": report.size_distribution,
        "seconds_read_and_sketch": loaded.read_time.as_secs_f64(),
        "seconds_mirrors": seconds_mirrors,
        "seconds_total": start.elapsed().as_secs_f64(),
    });
    let summary_path = out.join("summary.json");
    let mut json = serde_json::to_vec_pretty(&summary)?;
    json.push(b'\n');
    crate::output::write_atomic(&summary_path, &loaded.inputs, &json)?;
    if !quiet {
        let c = &report.counts;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} pages, {} clusters; {} candidate hosts; {} host pairs found: {} mirrors, {} partial mirrors, {} aliases ({} unresolvable); {} auto-mirrors, {} subtree mirrors within a host",
            corpus.len(),
            clusters.len(),
            c.candidate_hosts,
            c.host_pairs_found,
            c.mirrors,
            c.partial_mirrors,
            c.aliases,
            c.unresolvable,
            c.auto_mirrors,
            c.subtree_mirrors_within_host
        );
        for p in report.pairs.iter().take(20) {
            let _ = writeln!(
                o,
                "  {:<15} {}{} ~ {}{}  shared {}/{} and {}/{}, suffixes {:.2}/{:.2}",
                kind_name(p.kind),
                p.host_a,
                p.prefix_a,
                p.host_b,
                p.prefix_b,
                p.shared_a,
                p.pages_a,
                p.shared_b,
                p.pages_b,
                p.suffix_match_last_arc,
                p.suffix_match_four_arcs
            );
        }
        let _ = writeln!(
            o,
            "time: {:.2} s (read+sketch {:.2}, mirrors {:.3})\nfiles:\n  {}\n  {}",
            start.elapsed().as_secs_f64(),
            loaded.read_time.as_secs_f64(),
            seconds_mirrors,
            table,
            summary_path.display()
        );
        print!("{o}");
    }
    Ok(())
}
