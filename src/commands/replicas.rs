//! `neardup replicas`.

use crate::flags::ReplicasArgs;
use crate::output::write_table;
use anyhow::{bail, Result};
use neardup_engine::dedup::{dedup, DedupConfig, Matching};
use neardup_engine::replicas::{exact_clusters, replicas, Prediction, ReplicaConfig};
use neardup_report::Format;
use std::collections::HashMap;
use std::fmt::Write as _;

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
        None if args.exact => exact_clusters(corpus),
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
    let prediction = match (args.top, args.min_score) {
        (Some(n), _) => Prediction::Top(n),
        (None, Some(s)) => Prediction::MinScore(s),
        (None, None) => Prediction::BothClassifiers,
    };
    let t = neardup_engine::replicas::tables(&report, prediction);
    let n_predicted = t.replicas.iter().filter(|r| r.predicted).count() as u64;
    let mut files = vec![
        write_table(out, format, &t.replicas)?,
        write_table(out, format, &t.site_clusters)?,
        write_table(out, format, &t.sites)?,
    ];

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
        for c in t.replicas.iter().take(15) {
            let _ = writeln!(
                o,
                "  {:>4}  {} ~ {}  score {:.3} (PU {:.3}, NU {:.3}){}{}",
                c.rank,
                c.host_a,
                c.host_b,
                c.score,
                c.alpha_pu,
                c.alpha_nu,
                if c.obvious.is_empty() { "" } else { " obvious" },
                if c.predicted { " *" } else { "" }
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
