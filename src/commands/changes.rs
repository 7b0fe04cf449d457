//! `neardup changes`.

use crate::flags::ChangesArgs;
use crate::{inputs, output, progress::Bar};
use anyhow::Result;
use neardup_engine::changes::{Change, ChangesReport, TimelineEntry};
use std::fmt::Write as _;
use std::path::Path;

/// Whether an existing file is a timeline this command wrote (its first line a capture).
fn is_timeline(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.is_empty() || b.starts_with(b"{\"url\":"))
}

pub fn run(args: &ChangesArgs, quiet: bool) -> Result<()> {
    let inputs = inputs::expand_common(&args.common)?;
    let outs = output::Outputs::new(&inputs, args.common.force);
    if let Some(path) = &args.timeline {
        outs.file(path, is_timeline)?;
    }
    if let Some(path) = &args.schedule {
        outs.file(path, is_timeline)?;
    }
    if let Some(path) = &args.json {
        outs.file(path, |p| {
            std::fs::read(p).is_ok_and(|b| b.starts_with(b"{\"written_by\":\"neardup changes\""))
        })?;
    }
    let cfg = args.common.pipeline();
    let bar = Bar::new(quiet);
    let schedule = neardup_engine::changes::ScheduleConfig {
        change_probability: args.change_probability,
        ..Default::default()
    };
    let mut rep = neardup_engine::changes::run(&inputs, &cfg, &schedule, &bar)?;
    if let Some(path) = &args.timeline {
        write_jsonl(&outs, path, &rep.timeline)?;
    }
    if let Some(path) = &args.schedule {
        write_jsonl(&outs, path, &rep.schedule)?;
    }
    if let Some(path) = &args.json {
        // The summary is the report without its rows (as Python's `neardup.changes` gives it).
        let timeline = std::mem::take(&mut rep.timeline);
        let schedule = std::mem::take(&mut rep.schedule);
        outs.stream_file(path, |w| {
            serde_json::to_writer(&mut *w, &rep)?;
            w.write_all(b"\n")?;
            Ok(())
        })?;
        (rep.timeline, rep.schedule) = (timeline, schedule);
    }
    let to_stdout = [&args.timeline, &args.schedule, &args.json]
        .iter()
        .any(|p| p.as_deref() == Some(Path::new("-")));
    if !quiet && !to_stdout {
        print!("{}", human(&rep, args.url.as_deref()));
    }
    Ok(())
}

/// `rows` as JSON lines to `path` (atomically; `-` for standard output).
fn write_jsonl<T: serde::Serialize>(outs: &output::Outputs, path: &Path, rows: &[T]) -> Result<()> {
    outs.stream_file(path, |w| {
        for r in rows {
            serde_json::to_writer(&mut *w, r)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// One URL's timeline from an index, in words.
pub fn url_text(t: &neardup_engine::changes::UrlTimeline) -> String {
    let mut o = String::new();
    if t.captures.is_empty() && t.captures_without_print == 0 {
        let _ = writeln!(
            o,
            "{}: no capture of this URL in the index (URLs are compared normalized; `neardup index stats` lists its crawls)",
            t.url
        );
    } else if t.captures.is_empty() {
        let _ = writeln!(o, "{}: no capture with a print in the index", t.url);
    } else {
        let _ = writeln!(o, "{}:", t.url);
    }
    for e in &t.captures {
        let _ = write!(o, "  {}", e.file);
        line(&mut o, e);
    }
    if t.captures_without_print > 0 {
        let _ = writeln!(
            o,
            "  ({} earlier captures were added without a print)",
            t.captures_without_print
        );
    }
    if let Some(p) = &t.next_visit {
        let _ = writeln!(o, "next visit: {} ({})", p.next_visit, p.plan.reason);
    }
    o
}

fn line(o: &mut String, e: &TimelineEntry) {
    let change = e.change.map_or("first capture", |c| c.as_str());
    let _ = write!(o, "  {}  {:<16}", e.date, change);
    if let Some(rule) = &e.rule {
        let _ = write!(
            o,
            "  {rule} (jaccard {:.3}, simhash distance {}",
            e.jaccard.unwrap_or(0.0),
            e.simhash_distance.unwrap_or(0)
        );
        if let (Some((a, b)), Some((x, y))) = (e.chunks_differing, e.chunks) {
            let _ = write!(o, ", chunks {a} out / {b} in of {x} / {y}");
        }
        o.push(')');
    }
    let _ = writeln!(o);
}

/// The human summary.
pub fn human(r: &ChangesReport, url: Option<&str>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} captures of {} URLs; changes since the capture before:",
        r.captures, r.urls
    );
    for c in Change::ALL.map(Change::as_str) {
        let n = r.by_change.get(c).copied().unwrap_or(0);
        let _ = writeln!(o, "  {n:>10}  {c}");
    }
    let h = &r.holdout;
    if h.urls > 0 {
        let _ = writeln!(
            o,
            "schedule (P(text changed) >= {}, {}-{} days), checked on each URL's last capture \
             ({} URLs, {} text changes):",
            r.schedule_config.change_probability,
            r.schedule_config.min_days,
            r.schedule_config.max_days,
            h.urls,
            h.text_changed
        );
        for (name, reading) in [
            ("spread over each URL's interval", &h.spread),
            ("every URL fetched the crawl before", &h.due_now),
        ] {
            let _ = writeln!(
                o,
                "  {name}: {:.1}% of fetches saved, {:.1}% of text changes missed",
                100.0 * reading.fetches_saved,
                100.0 * reading.changes_missed,
            );
        }
    }
    if r.captures == r.urls {
        let _ = writeln!(
            o,
            "no URL was captured twice: give crawls of the same URLs (WARC files of each \
             crawl, in any order; captures are ordered by WARC-Date)"
        );
    }
    if let Some(url) = url {
        let want = neardup_text::normalize_url(url).unwrap_or_else(|| url.to_string());
        let mine: Vec<&TimelineEntry> = r.timeline.iter().filter(|e| e.url == want).collect();
        if mine.is_empty() {
            let _ = writeln!(o, "{want}: no capture in the inputs");
        } else {
            let _ = writeln!(o, "{want}:");
            for e in mine {
                line(&mut o, e);
            }
        }
    }
    o
}
