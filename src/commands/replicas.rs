//! `neardup replicas`.

use crate::flags::ReplicasArgs;
use anyhow::{bail, Result};
use neardup_engine::dedup::{dedup, DedupConfig, Matching};
use neardup_engine::replicas::{replicas, Candidate, ReplicaConfig};
use neardup_replicas::features::Obvious;
use neardup_report::{Column, Format, Kind, Sink, Value};
use std::collections::HashMap;
use std::fmt::Write as _;

fn obvious_name(o: Option<Obvious>) -> &'static str {
    match o {
        Some(Obvious::Www) => "www",
        Some(Obvious::Tld) => "tld",
        None => "",
    }
}

/// The predicted label of a candidate (see `--top`, `--min-score`).
fn predicted(args: &ReplicasArgs, c: &Candidate) -> bool {
    match (args.top, args.min_score) {
        (Some(n), _) => c.rank <= n as u64,
        (None, Some(s)) => c.score >= s,
        (None, None) => c.alpha_pu > 0.5 && c.alpha_nu > 0.5,
    }
}

pub fn run(args: &ReplicasArgs, quiet: bool) -> Result<()> {
    let start = std::time::Instant::now();
    let params = args.sketch.params()?;
    if params.supershingles == 0 {
        bail!("replicas needs supershingles (--supershingles > 0)");
    }
    if let Some(s) = args.min_score {
        if !(0.0..=1.0).contains(&s) {
            bail!("--min-score {s}: expected a value between 0 and 1");
        }
    }
    let min_agree = super::dedup::level(&args.level, params.supershingles)?;
    let extra = match &args.hosts_ips {
        Some(p) => super::mirrors::hosts_ips(p)?,
        None => HashMap::new(),
    };
    let loaded = super::load::load(&args.common, &params, false, None, quiet)?;
    let corpus = &loaded.corpus;
    let out = &args.out;
    crate::output::create_out_dir(out, loaded.inputs.iter().map(|i| i.path.as_path()))?;
    let t = std::time::Instant::now();
    let clusters: Vec<Vec<u32>> = match &args.clusters {
        Some(path) => super::mirrors::clusters_from_file(path, corpus)?,
        None if args.exact => {
            let mut by_hash: HashMap<u64, Vec<u32>> = HashMap::new();
            for (p, m) in corpus.pages.iter().enumerate() {
                by_hash.entry(m.token_hash).or_default().push(p as u32);
            }
            let mut v: Vec<Vec<u32>> = by_hash.into_values().filter(|c| c.len() >= 2).collect();
            v.sort_unstable();
            v
        }
        None => dedup(
            corpus,
            &DedupConfig::new(Matching::Supershingles { min_agree }),
        )
        .clusters
        .into_iter()
        .map(|c| c.members)
        .collect(),
    };
    let seconds_clusters = t.elapsed().as_secs_f64();
    let mut features = 0u8;
    for f in &args.features {
        match neardup_replicas::FEATURE_NAMES.iter().position(|n| n == f) {
            Some(i) => features |= 1 << i,
            None => bail!(
                "--features {f}: expected some of {}",
                neardup_replicas::FEATURE_NAMES.join(",")
            ),
        }
    }
    if features == 0 {
        features = neardup_replicas::lac::MASKS;
    }
    let cfg = ReplicaConfig {
        features,
        max_cluster_sites: args.max_cluster_sites,
        negatives_per_positive: args.negatives_per_positive,
        seed: args.sample_seed,
        em_from_scratch: args.em_from_scratch,
        ..ReplicaConfig::default()
    };
    let t = std::time::Instant::now();
    let report = replicas(corpus, &clusters, &extra, &cfg);
    let seconds_replicas = t.elapsed().as_secs_f64();

    let format: Format = args.format.into();
    let host = |s: u32| report.sites[s as usize].host.as_str();
    let mut files = Vec::new();
    let cols = [
        Column::new("rank", Kind::U64),
        Column::new("host_a", Kind::Str),
        Column::new("host_b", Kind::Str),
        Column::new("predicted", Kind::Bool),
        Column::new("obvious", Kind::Str),
        Column::new("score", Kind::F64),
        Column::new("dominance", Kind::U64),
        Column::new("frontier", Kind::Bool),
        Column::new("alpha_pu", Kind::F64),
        Column::new("alpha_nu", Kind::F64),
        Column::new("normpaths", Kind::F64),
        Column::new("jaccard", Kind::F64),
        Column::new("shared_clusters", Kind::U64),
        Column::new("ndist", Kind::F64),
        Column::new("nmatch", Kind::F64),
        Column::new("ip4", Kind::F64),
        Column::new("ip3", Kind::F64),
        Column::new("fullpath", Kind::F64),
        Column::new("pages_a", Kind::U64),
        Column::new("pages_b", Kind::U64),
        Column::new("dup_pages_a", Kind::U64),
        Column::new("dup_pages_b", Kind::U64),
        Column::new("em_label_pu", Kind::Bool),
        Column::new("em_label_nu", Kind::Bool),
    ];
    let mut sink = Sink::create(out, "replicas", format, &cols)?;
    let mut n_predicted = 0u64;
    for c in &report.candidates {
        let p = predicted(args, c);
        n_predicted += p as u64;
        let f = c.features;
        sink.row(&[
            Value::U64(c.rank),
            Value::Str(host(c.a)),
            Value::Str(host(c.b)),
            Value::Bool(p),
            Value::Str(obvious_name(c.obvious)),
            Value::F64(c.score),
            Value::U64(c.dominance),
            Value::Bool(c.frontier),
            Value::F64(c.alpha_pu),
            Value::F64(c.alpha_nu),
            Value::F64(c.normpaths),
            Value::F64(c.jaccard),
            Value::U64(c.shared_clusters as u64),
            Value::F64(f[0]),
            Value::F64(f[1]),
            Value::F64(f[2]),
            Value::F64(f[3]),
            Value::F64(f[4]),
            Value::U64(report.sites[c.a as usize].pages),
            Value::U64(report.sites[c.b as usize].pages),
            Value::U64(c.dup_pages_a),
            Value::U64(c.dup_pages_b),
            Value::Bool(c.em_label_pu),
            Value::Bool(c.em_label_nu),
        ])?;
    }
    files.push(sink.finish()?.display().to_string());
    let mut sink = Sink::create(
        out,
        "site_clusters",
        format,
        &[
            Column::new("host", Kind::Str),
            Column::new("cluster", Kind::U64),
            Column::new("pages", Kind::U64),
        ],
    )?;
    for &(s, c, n) in &report.site_clusters {
        sink.row(&[
            Value::Str(host(s)),
            Value::U64(c as u64),
            Value::U64(n as u64),
        ])?;
    }
    files.push(sink.finish()?.display().to_string());
    let mut sink = Sink::create(
        out,
        "sites",
        format,
        &[
            Column::new("host", Kind::Str),
            Column::new("pages", Kind::U64),
            Column::new("duplicate_pages", Kind::U64),
            Column::new("ips", Kind::Str),
        ],
    )?;
    for s in &report.sites {
        sink.row(&[
            Value::Str(&s.host),
            Value::U64(s.pages),
            Value::U64(s.duplicate_pages),
            Value::Str(&s.ips.join(" ")),
        ])?;
    }
    files.push(sink.finish()?.display().to_string());

    let summary_path = out.join("summary.json");
    files.push(summary_path.display().to_string());
    let summary = serde_json::json!({
        "inputs": corpus.inputs,
        "pages": corpus.len(),
        "level_b_similarity": min_agree,
        "dup_clusters": if args.clusters.is_some() { "file" } else if args.exact { "exact" } else { "near-duplicate" },
        "config": cfg,
        "counts": report.counts,
        "predicted_replicas": n_predicted,
        "prediction_rule": match (args.top, args.min_score) {
            (Some(n), _) => format!("top {n}"),
            (None, Some(s)) => format!("score >= {s}"),
            (None, None) => "alpha_pu > 0.5 and alpha_nu > 0.5".to_string(),
        },
        "features_used": neardup_replicas::FEATURE_NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| features & (1 << i) != 0)
            .map(|(_, n)| *n)
            .collect::<Vec<_>>(),
        "discretization": {
            "features": neardup_replicas::FEATURE_NAMES,
            "pu": report.discretizer_pu,
            "nu": report.discretizer_nu,
        },
        "times": report.times,
        "seconds_read_and_sketch": loaded.read_time.as_secs_f64(),
        "seconds_clusters": seconds_clusters,
        "seconds_replicas": seconds_replicas,
        "seconds_total": start.elapsed().as_secs_f64(),
        "files": files,
    });
    let mut json = serde_json::to_vec_pretty(&summary)?;
    json.push(b'\n');
    crate::output::write_atomic(&summary_path, &loaded.inputs, &json)?;
    if !quiet {
        let c = &report.counts;
        let tm = &report.times;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} pages on {} sites; {} dup-clusters ({} across sites); {} candidate site pairs; obvious: {} www + {} TLD replicas, {} non-replicas",
            corpus.len(),
            c.sites,
            c.dup_clusters,
            c.inter_site_clusters,
            c.candidates,
            c.obvious_www,
            c.obvious_tld,
            c.obvious_negatives
        );
        let _ = writeln!(
            o,
            "EM: PU {} transitions in {} passes ({:.3} s), NU {} transitions in {} passes ({:.3} s); per candidate: rules {:.1} µs, prediction {:.1} µs, aggregation {:.1} µs",
            tm.em_pu.transitions,
            tm.em_pu.passes,
            tm.em_pu.seconds,
            tm.em_nu.transitions,
            tm.em_nu.passes,
            tm.em_nu.seconds,
            tm.us_rule_extraction_per_candidate,
            tm.us_prediction_per_candidate,
            tm.us_aggregation_per_candidate
        );
        if let (Some(a), Some(b)) = (&tm.em_pu_from_scratch, &tm.em_nu_from_scratch) {
            let _ = writeln!(
                o,
                "EM from scratch: PU {:.3} s, NU {:.3} s; same result as incremental: {}",
                a.seconds,
                b.seconds,
                tm.from_scratch_equal.unwrap_or(false)
            );
        }
        let _ = writeln!(o, "{n_predicted} predicted replicas; best ranked:");
        for c in report.candidates.iter().take(15) {
            let _ = writeln!(
                o,
                "  {:>4}  {} ~ {}  score {:.3} (PU {:.3}, NU {:.3}){}{}",
                c.rank,
                host(c.a),
                host(c.b),
                c.score,
                c.alpha_pu,
                c.alpha_nu,
                if c.obvious.is_some() { " obvious" } else { "" },
                if predicted(args, c) { " *" } else { "" }
            );
        }
        let _ = writeln!(
            o,
            "time: {:.2} s (read+sketch {:.2}, clusters {:.2}, replicas {:.3})\nwritten to {}/",
            start.elapsed().as_secs_f64(),
            loaded.read_time.as_secs_f64(),
            seconds_clusters,
            seconds_replicas,
            out.display()
        );
        print!("{o}");
    }
    Ok(())
}
