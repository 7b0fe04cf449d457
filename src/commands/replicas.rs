//! `neardup replicas`: flags to [`ReplicasOptions`], the job's report to files and text.

use crate::flags::ReplicasArgs;
use anyhow::Result;
use neardup_engine::replicas::{
    feature_mask, Prediction, ReplicaConfig, ReplicasOptions, ReplicasSettings, ReplicasSummary,
};
use neardup_report::Format;
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Serialize)]
struct SummaryFile<'a> {
    #[serde(flatten)]
    summary: &'a ReplicasSummary,
    files: &'a [String],
}

pub fn run(args: &ReplicasArgs, quiet: bool) -> Result<()> {
    let params = args.sketch.params()?;
    let settings = ReplicasSettings::new(ReplicasOptions {
        pipeline: args.common.pipeline(),
        clusters: super::cluster_source(&args.clusters, args.exact, Some(&args.level), &params)?,
        params,
        hosts_ips: super::hosts_ips(&args.hosts_ips)?,
        config: ReplicaConfig {
            features: feature_mask(&args.features)?,
            max_cluster_sites: args.max_cluster_sites,
            negatives_per_positive: args.negatives_per_positive,
            seed: args.sample_seed,
            em_from_scratch: args.em_from_scratch,
            ..ReplicaConfig::default()
        },
        prediction: match (args.top, args.min_score) {
            (Some(n), _) => Prediction::Top(n),
            (None, Some(s)) => Prediction::MinScore(s),
            (None, None) => Prediction::BothClassifiers,
        },
    })?;
    let inputs = crate::inputs::expand_common(&args.common)?;
    let out = &args.out;
    let outs = crate::output::Outputs::new(&inputs, args.common.force);
    outs.dir(out)?;
    let bar = crate::progress::Bar::new(quiet);
    let rep = neardup_engine::replicas::run(&inputs, &settings, &bar)?;
    let s = &rep.summary;
    let t = &rep.tables;
    let format: Format = args.format.into();
    let mut files = vec![
        outs.table(out, format, &t.replicas)?,
        outs.table(out, format, &t.site_clusters)?,
        outs.table(out, format, &t.sites)?,
    ];
    outs.summary(out, &mut files, !args.no_report, |files| {
        serde_json::to_vec_pretty(&SummaryFile { summary: s, files })
    })?;
    outs.end(out, !args.no_report)?;
    if !quiet {
        let c = &s.counts;
        let tm = &s.times;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} pages{} on {} sites; {} dup-clusters ({} across sites); {} candidate site pairs; obvious: {} www + {} TLD replicas, {} non-replicas",
            s.pages,
            super::not_pages_text(&s.not_pages),
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
        o.push_str(&super::skipped_text(&s.skipped));
        if t.replicas.is_empty() {
            let _ = writeln!(
                o,
                "no candidate site pairs: no near-duplicate cluster spans two sites"
            );
        } else {
            let _ = writeln!(
                o,
                "{} predicted replicas; best ranked:",
                s.predicted_replicas
            );
        }
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
            "time: {:.2} s (read+sketch {:.2}, clusters {:.2}, replicas {:.3})\nwritten to {}",
            s.seconds_total,
            s.seconds_read_and_sketch,
            s.seconds_clusters,
            s.seconds_replicas,
            crate::output::folder_name(out)
        );
        print!("{o}");
    }
    Ok(())
}
