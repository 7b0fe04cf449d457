//! `neardup scan`.

use crate::flags::ScanArgs;
use crate::{inputs, output, progress::Bar};
use anyhow::Result;
use neardup_engine::scan::{Count, ScanReport};
use std::fmt::Write as _;

pub fn run(args: &ScanArgs, quiet: bool, verbose: u8) -> Result<()> {
    let inputs = inputs::expand_common(&args.common)?;
    let outs = output::Outputs::new(&inputs, args.common.force);
    if let Some(path) = &args.json {
        outs.file(path, neardup_report::is_neardup_json)?;
    }
    let cfg = args.common.pipeline();
    let examples = if verbose > 0 {
        neardup_ingest::MAX_EXAMPLES
    } else {
        args.top
    };
    let top = if verbose > 0 { 100 } else { args.top };
    let bar = Bar::new(quiet);
    // The report is written even when no page was read (it says why); the run then fails
    // with exit 4 as any command does, unless empty runs are allowed.
    let (rep, empty) =
        neardup_engine::scan::run_reporting_empty(&inputs, &cfg, top, examples, &bar)?;
    let to_stdout_json = outs.json_report(args.json.as_deref(), &rep)?;
    if !quiet && !to_stdout_json {
        print!("{}", human(&rep, args.top, verbose));
    }
    if let Some(e) = empty {
        return Err(e.into());
    }
    Ok(())
}

fn mb(b: u64) -> String {
    if b >= 1_000_000_000 {
        format!("{:.2} GB", b as f64 / 1e9)
    } else {
        format!("{:.1} MB", b as f64 / 1e6)
    }
}

fn list(out: &mut String, title: &str, items: &[Count], top: usize) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title}:");
    for c in items.iter().take(top) {
        let _ = writeln!(out, "  {:>10}  {}", c.count, c.name);
    }
    if items.len() > top {
        let rest: u64 = items[top..].iter().map(|c| c.count).sum();
        let _ = writeln!(out, "  {:>10}  ({} more)", rest, items.len() - top);
    }
}

/// The human summary.
pub fn human(r: &ScanReport, top: usize, verbose: u8) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "scanned {} input(s): {} pages ({} HTML, {} text, {} other) in {:.2} s on {} threads",
        r.inputs, r.pages, r.html_pages, r.text_pages, r.other_pages, r.seconds, r.threads
    );
    let _ = writeln!(
        o,
        "bytes: {} read, {} of payload ({} HTML/text); {} tokens, {} empty documents",
        mb(r.raw_bytes),
        mb(r.body_bytes),
        mb(r.analyzed_bytes),
        r.tokens,
        r.empty_documents
    );
    let _ = writeln!(
        o,
        "throughput: {:.0} pages/s, {:.1} MB/s of payload, {:.1} MB/s read",
        r.pages_per_second, r.body_mb_per_second, r.raw_mb_per_second
    );
    let _ = writeln!(o, "by input:");
    for s in &r.by_source {
        let _ = writeln!(
            o,
            "  {:>10}  {} ({}, {} records, {} skipped, {})",
            s.pages,
            s.path,
            s.format,
            s.records,
            s.skipped,
            mb(s.raw_bytes)
        );
    }
    list(&mut o, "content types", &r.by_content_type, top);
    list(&mut o, "HTTP status", &r.by_status, top);
    let _ = writeln!(o, "hosts: {} distinct", r.hosts);
    list(&mut o, "largest hosts", &r.top_hosts, top);
    list(&mut o, "charsets (source)", &r.by_charset, top);
    list(&mut o, "records by type", &r.by_record_type, top);
    if r.revisits > 0 {
        let _ = writeln!(o, "revisits: {} (listed with --json)", r.revisits);
    }
    let _ = writeln!(o, "skipped records: {}", r.skipped);
    list(&mut o, "skipped by reason", &r.skipped_by_reason, 100);
    let shown = if verbose > 0 {
        r.skipped_examples.len()
    } else {
        r.skipped_examples.len().min(top)
    };
    for p in &r.skipped_examples[..shown] {
        let _ = writeln!(o, "  {p}");
    }
    list(&mut o, "lenient decisions", &r.notes, top);
    o
}
