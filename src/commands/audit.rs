//! `neardup audit`.

use crate::flags::AuditArgs;
use crate::{inputs, output, progress::Bar};
use anyhow::Result;
use neardup_engine::audit::{AuditOptions, AuditReport, RevisitRow, LONG_CHAIN};
use std::fmt::Write as _;

pub fn run(args: &AuditArgs, quiet: bool) -> Result<()> {
    let inputs = inputs::expand_common(&args.common)?;
    let outs = output::Outputs::new(&inputs, args.common.force);
    if let Some(path) = &args.json {
        outs.file(path, neardup_report::is_neardup_json)?;
    }
    let opts = AuditOptions {
        pipeline: args.common.pipeline(),
        ..Default::default()
    };
    let bar = Bar::new(quiet);
    let rep = neardup_engine::audit::run(&inputs, &opts, &bar)?;
    let to_stdout_json = outs.json_report(args.json.as_deref(), &rep)?;
    if !quiet && !to_stdout_json {
        print!("{}", human(&rep, args.top));
    }
    Ok(())
}

fn mb(b: u64) -> String {
    match b {
        0..=9_999 => format!("{b} bytes"),
        10_000..=9_999_999 => format!("{:.1} kB", b as f64 / 1e3),
        10_000_000..=9_999_999_999 => format!("{:.1} MB", b as f64 / 1e6),
        _ => format!("{:.2} GB", b as f64 / 1e9),
    }
}

fn rows(o: &mut String, title: &str, rows: &[RevisitRow], total: u64, top: usize) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(o, "{title}: {total}");
    for r in rows.iter().take(top) {
        let _ = writeln!(o, "  {} byte {}: {} {}", r.file, r.offset, r.url, r.date);
        let _ = writeln!(o, "      {}", r.reason);
    }
    if rows.len() > top {
        let _ = writeln!(o, "  ({} more with --json)", rows.len() - top);
    }
}

/// The WACZ packages read and needed, the missing ones first.
fn packages(o: &mut String, r: &AuditReport) {
    if r.packages.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "packages: {} read, {} needed and missing",
        r.packages.iter().filter(|p| p.found).count(),
        r.missing_packages
    );
    let mut rows: Vec<_> = r.packages.iter().collect();
    rows.sort_by_key(|p| p.found);
    for p in rows {
        let mut why = Vec::new();
        if !p.required_by.is_empty() {
            why.push(format!("required by {}", p.required_by.join(", ")));
        }
        if !p.crawl_id.is_empty() {
            why.push(format!("crawl {}", p.crawl_id));
        }
        if p.referred_by_revisits > 0 {
            why.push(format!(
                "the container of {} revisit(s)",
                p.referred_by_revisits
            ));
        }
        if !p.problem.is_empty() {
            why.push(p.problem.clone());
        }
        let state = match (p.found, p.read_as) {
            (false, _) => "MISSING",
            (true, "given") => "given",
            (true, _) => "read (found beside)",
        };
        let _ = writeln!(
            o,
            "  {state}: {}{}",
            p.package,
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({})", why.join("; "))
            }
        );
    }
}

/// The human summary.
pub fn human(r: &AuditReport, top: usize) -> String {
    let mut o = String::new();
    let types: Vec<String> = r
        .records_by_type
        .iter()
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    let _ = writeln!(
        o,
        "audited {} input(s): {} records ({})",
        r.inputs.len(),
        r.records_by_type.values().sum::<u64>(),
        types.join(", ")
    );
    o.push_str(&crate::commands::skipped_text(&r.skipped));
    packages(&mut o, r);
    let c = &r.revisits;
    if c.revisits == 0 {
        let _ = writeln!(o, "revisits: none");
    } else {
        let by: Vec<String> = c
            .by_resolution
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(o, "revisits: {} resolved by: {}", c.revisits, by.join(", "));
        let [one, few, tens, hundreds, long] = c.chain_lengths;
        let _ = writeln!(
            o,
            "revisit chains: {} originals with revisits; revisits per original: 1: {one}, \
             2-9: {few}, 10-99: {tens}, 100-299: {hundreds}, 300+: {long}; longest {}, \
             deepest revisit-of-revisit link {}",
            c.originals, c.longest_chain, c.deepest
        );
        for ch in r
            .longest_chains
            .iter()
            .take_while(|ch| ch.revisits >= LONG_CHAIN)
            .take(top)
        {
            let _ = writeln!(
                o,
                "  {} revisits of {} {} ({} byte {})",
                ch.revisits, ch.url, ch.date, ch.file, ch.offset
            );
        }
        rows(
            &mut o,
            "unresolvable revisits (replay finds no original in the collection)",
            &r.unresolvable,
            r.unresolvable.len() as u64,
            top,
        );
        let _ = writeln!(
            o,
            "revisits without WARC-Refers-To-Target-URI: {}, without WARC-Refers-To-Date: {}",
            c.missing_refers_to_target_uri, c.missing_refers_to_date
        );
        rows(
            &mut o,
            "revisits whose original holds another payload",
            &r.digest_mismatches,
            c.digest_mismatch,
            top,
        );
    }
    let p = &r.payloads;
    let _ = writeln!(
        o,
        "payloads: {} responses and resources, {} ({} without a recorded SHA-1 digest, \
         computed); {} \
         payloads stored in full more than once, {} extra copies: a revisit would have saved {} \
         for copies of the same URL, {} across URLs",
        p.responses,
        mb(p.bytes),
        p.digests_computed,
        p.repeated,
        p.extra_copies,
        mb(p.bytes_saved_same_url),
        mb(p.bytes_saved_any_url)
    );
    for g in r.repeated_payloads.iter().take(top) {
        let first = g.examples.first().map_or("", |e| e.0.as_str());
        let _ = writeln!(
            o,
            "  {} copies ({} URLs) of {} bytes, {} saved: {} {}",
            g.copies,
            g.urls,
            g.bytes,
            mb(g.bytes_saved),
            g.digest,
            first
        );
    }
    let _ = writeln!(
        o,
        "near-duplicates: {} of {} HTML pages are in a near-duplicate cluster (data only: WARC \
         has no revisit profile for a near-duplicate); by host:",
        r.pages_near_duplicate, r.pages_sketched
    );
    for h in r.hosts.iter().take(top) {
        let _ = writeln!(
            o,
            "  {:>8} pages  {:>5.1}% near-duplicate  {:>5.1}% byte-identical  {}",
            h.pages,
            100.0 * h.share,
            100.0 * h.byte_identical as f64 / h.pages as f64,
            h.host
        );
    }
    if r.hosts.len() > top {
        let _ = writeln!(o, "  ({} more hosts with --json)", r.hosts.len() - top);
    }
    o
}
