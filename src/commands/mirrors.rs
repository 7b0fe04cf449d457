//! `neardup mirrors`: flags to [`MirrorsOptions`], the job's report to files and text.

use crate::flags::MirrorsArgs;
use anyhow::Result;
use neardup_engine::mirrors::{MirrorConfig, MirrorsOptions, MirrorsSettings};
use neardup_report::Format;
use std::fmt::Write as _;

pub fn run(args: &MirrorsArgs, quiet: bool) -> Result<()> {
    let params = args.sketch.params()?;
    let settings = MirrorsSettings::new(MirrorsOptions {
        pipeline: args.common.pipeline(),
        clusters: super::cluster_source(&args.clusters, false, args.level.as_deref(), &params)?,
        params,
        hosts_ips: super::hosts_ips(&args.hosts_ips)?,
        config: MirrorConfig {
            min_pages: args.min_pages,
            min_suffix_match: args.min_suffix_match,
            ..MirrorConfig::default()
        },
    })?;
    let inputs = crate::inputs::expand_common(&args.common)?;
    let out = &args.out;
    let outs = crate::output::Outputs::new(&inputs, args.common.force);
    outs.dir(out)?;
    let bar = crate::progress::Bar::new(quiet);
    let report = neardup_engine::mirrors::run(&inputs, &settings, &bar)?;
    let s = &report.summary;
    if s.clustered_urls_not_in_inputs > 0 {
        if let Some(p) = &args.clusters {
            eprintln!(
                "neardup: {}: {} clustered URL(s) are not in the inputs and were skipped",
                p.display(),
                s.clustered_urls_not_in_inputs
            );
        }
    }
    let format: Format = args.format.into();
    let table = outs.table(out, format, &report.rows)?;
    let summary_path = out.join("summary.json");
    let mut json = serde_json::to_vec_pretty(s)?;
    json.push(b'\n');
    outs.write(&summary_path, &json)?;
    outs.end(out, !args.no_report)?;
    if !quiet {
        let c = &s.counts;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} pages{}, {} clusters; {} candidate hosts; {} host pairs sharing pages: {} \
             mirrors, {} partial mirrors, {} aliases ({} unresolvable), {} parked-domain pairs, \
             {} left out for sharing too few URL paths; {} subtree mirrors within a host; {} \
             auto-mirrors (hosts with near-duplicates of their own pages)",
            s.pages,
            super::not_pages_text(&s.not_pages),
            s.clusters,
            c.candidate_hosts,
            c.host_pairs_found,
            c.mirrors,
            c.partial_mirrors,
            c.aliases,
            c.unresolvable,
            c.parked,
            c.rejected_without_common_paths,
            c.subtree_mirrors_within_host,
            c.auto_mirrors
        );
        o.push_str(&super::skipped_text(&s.skipped));
        if let Some(why) = &s.explanation {
            let _ = writeln!(o, "  nothing found: {why}");
        }
        if !s.groups.is_empty() {
            let _ = writeln!(o, "{} groups of hosts:", s.groups.len());
        }
        for g in s.groups.iter().take(20) {
            let shown: Vec<&str> = g.members.iter().take(6).map(String::as_str).collect();
            let more = g.members.len().saturating_sub(shown.len());
            let _ = writeln!(
                o,
                "  group {} ({}, {} members, {} pairs, {} IPs): {}{}",
                g.id,
                g.kind.as_str(),
                g.members.len(),
                g.pairs,
                g.ips,
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        for p in report.rows.iter().take(20) {
            let _ = writeln!(
                o,
                "  {:<15} {}{} ~ {}{}  group {}, shared {} of {} and {} of {} pages, suffixes \
                 {:.2}/{:.2}",
                p.kind.as_str(),
                p.host_a,
                p.prefix_a,
                p.host_b,
                p.prefix_b,
                p.group,
                p.pages_shared_a,
                p.pages_a,
                p.pages_shared_b,
                p.pages_b,
                p.suffix_match_last_arc.unwrap_or(f64::NAN),
                p.suffix_match_four_arcs.unwrap_or(f64::NAN)
            );
        }
        let _ = writeln!(
            o,
            "time: {:.2} s (read+sketch {:.2}, mirrors {:.3})\nfiles:\n  {}\n  {}",
            s.seconds_total,
            s.seconds_read_and_sketch,
            s.seconds_mirrors,
            table,
            summary_path.display()
        );
        print!("{o}");
    }
    Ok(())
}
