//! `changes`: every capture of every URL across crawls, in time order, each with how it changed
//! since the capture before it ([`neardup_evolve::change`]): the per-URL timeline an archive
//! or a crawler reads (issue 40).
//!
//! Captures are the response records of the inputs (any status); a URL is the same page in
//! every input once normalized ([`neardup_text::normalize_url`]). A capture is compared with
//! the capture before it, or, when that one was gone or a redirect, with the last capture that
//! had content (so a page that comes back is compared with what it was).
//!
//! Signature files written by `neardup sketch --prints` are read as their crawls' captures
//! (each page's print, URL and date; no payload digest nor byte offset is kept there); the
//! timeline of a crawl is the same from its WARC files and from their signature file, for
//! the pages the signature file holds (HTML and text; 200 responses unless sketched with
//! `--every-status`).

use crate::pipeline::Visitor;
use neardup_evolve::change::classify;
pub use neardup_evolve::change::{CapturePrint, Change, Verdict};
pub use neardup_evolve::schedule::{Holdout, Plan, ScheduleConfig};
use neardup_ingest::Page;
use neardup_text::Document;
use serde::Serialize;
use std::collections::BTreeMap;

/// One capture as read.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The normalized URL.
    pub url: String,
    /// WARC-Date (or the input's date).
    pub date: String,
    /// Input index.
    pub source: u32,
    /// Byte offset of the record in its input (`None` when read from a signature file).
    pub offset: Option<u64>,
    /// WARC-Payload-Digest, as recorded.
    pub digest: String,
    /// The print.
    pub print: CapturePrint,
}

/// Collects every capture's print.
#[derive(Default)]
pub struct ChangesVisitor {
    captures: Vec<Capture>,
}

impl Visitor for ChangesVisitor {
    type Output = Vec<Capture>;

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
        let Some(url) = neardup_text::normalize_url(&page.url) else {
            return;
        };
        let print = match doc {
            Some(d) => CapturePrint::new(page.status, &page.body, d.terms()),
            None => CapturePrint::new(page.status, &page.body, std::iter::empty()),
        };
        self.captures.push(Capture {
            url,
            date: page.date.clone(),
            source: page.id.source,
            offset: Some(page.offset),
            digest: page.payload_digest.clone(),
            print,
        });
    }

    fn finish(self) -> Vec<Capture> {
        self.captures
    }
}

/// One line of a URL's timeline.
#[derive(Clone, Debug, Serialize)]
pub struct TimelineEntry {
    /// The URL (normalized).
    pub url: String,
    /// The capture's date.
    pub date: String,
    /// The input it was read from.
    pub file: String,
    /// Its byte offset there (`None` when read from a signature file).
    pub offset: Option<u64>,
    /// Its payload digest, as recorded.
    pub digest: String,
    /// Its HTTP status.
    pub status: Option<u16>,
    /// Its print's 64-bit simhash, 16 hexadecimal digits (JSON numbers lose 64-bit values).
    pub simhash: String,
    /// How it changed since the capture it was compared with (`None` for a URL's first).
    pub change: Option<Change>,
    /// The rule that decided.
    pub rule: Option<String>,
    /// Chunks only the earlier and only this capture hold, when listed.
    pub chunks_differing: Option<(u32, u32)>,
    /// Chunks of the earlier capture and of this one.
    pub chunks: Option<(u32, u32)>,
    /// Their chunk Jaccard.
    pub jaccard: Option<f64>,
    /// Bits their simhashes differ in (0 to 64).
    pub simhash_distance: Option<u32>,
    /// The date of the capture it was compared with.
    pub compared_with: Option<String>,
}

/// The timelines of a run.
#[derive(Clone, Debug, Serialize)]
pub struct ChangesReport {
    /// What wrote this.
    pub written_by: &'static str,
    /// Captures read.
    pub captures: u64,
    /// Distinct URLs.
    pub urls: u64,
    /// Captures per change category (a URL's first capture is not counted).
    pub by_change: BTreeMap<&'static str, u64>,
    /// Every capture, by URL, then date, then input and offset.
    pub timeline: Vec<TimelineEntry>,
    /// The schedule's settings.
    pub schedule_config: ScheduleConfig,
    /// Each URL's next visit, from its history ([`neardup_evolve::schedule`]).
    pub schedule: Vec<UrlPlan>,
    /// The schedule checked by holding out each URL's last capture.
    pub holdout: Holdout,
}

/// One URL's next visit.
#[derive(Clone, Debug, Serialize)]
pub struct UrlPlan {
    /// The URL.
    pub url: String,
    /// Its last capture's date.
    pub last_capture: String,
    /// When to visit next (an ISO 8601 date; empty when the dates could not be read).
    pub next_visit: String,
    /// The plan: history counts, rate, interval and reason.
    #[serde(flatten)]
    pub plan: Plan,
}

/// The timelines of captures (any order): sorted by URL, date, input, offset; each compared
/// with the one before it.
pub fn timelines(
    mut captures: Vec<Capture>,
    files: &[String],
    cfg: &ScheduleConfig,
) -> ChangesReport {
    captures.sort_by(|a, b| {
        (&a.url, &a.date, a.source, a.offset).cmp(&(&b.url, &b.date, b.source, b.offset))
    });
    let mut by_change: BTreeMap<&'static str, u64> =
        Change::ALL.iter().map(|c| (c.as_str(), 0)).collect();
    let mut timeline = Vec::with_capacity(captures.len());
    let mut urls = 0;
    let mut last_content: Option<usize> = None;
    for (i, c) in captures.iter().enumerate() {
        let first = i == 0 || captures[i - 1].url != c.url;
        if first {
            urls += 1;
            last_content = None;
        }
        let before = if first {
            None
        } else {
            let prev = i - 1;
            let prev_gone = matches!(
                captures[prev].print.status,
                Some(301 | 302 | 303 | 307 | 308 | 404 | 410)
            );
            Some(if prev_gone {
                last_content.unwrap_or(prev)
            } else {
                prev
            })
        };
        let verdict = before.map(|b| classify(&captures[b].print, &c.print));
        if let Some(v) = &verdict {
            *by_change.entry(v.change.as_str()).or_default() += 1;
        }
        if !matches!(
            c.print.status,
            Some(301 | 302 | 303 | 307 | 308 | 404 | 410)
        ) {
            last_content = Some(i);
        }
        timeline.push(TimelineEntry {
            url: c.url.clone(),
            date: c.date.clone(),
            file: files.get(c.source as usize).cloned().unwrap_or_default(),
            offset: c.offset,
            digest: c.digest.clone(),
            status: c.print.status,
            simhash: format!("{:016x}", c.print.simhash),
            change: verdict.as_ref().map(|v| v.change),
            chunks_differing: verdict.as_ref().and_then(|v| v.chunks_differing),
            chunks: verdict.as_ref().map(|v| v.chunks),
            jaccard: verdict.as_ref().map(|v| v.jaccard),
            simhash_distance: verdict.as_ref().map(|v| v.simhash_distance),
            rule: verdict.map(|v| v.rule),
            compared_with: before.map(|b| captures[b].date.clone()),
        });
    }
    let copies = copies(&captures);
    let (schedule, holdout) = plans(&timeline, &copies, cfg);
    ChangesReport {
        written_by: "neardup changes",
        captures: captures.len() as u64,
        urls,
        by_change,
        holdout,
        schedule_config: *cfg,
        schedule,
        timeline,
    }
}

/// A URL's captures as the schedule reads them: date (seconds) and change.
type History = Vec<(i64, Option<Change>)>;

/// For each capture (sorted as [`timelines`] sorts them), the URLs (numbered in that order)
/// whose captures in the same input hold the same text once dates are masked, when they are
/// two or more: the copies paper 004's stable clusters are made of.
fn copies(captures: &[Capture]) -> Vec<Option<std::rc::Rc<Vec<u32>>>> {
    let mut url = 0u32;
    let mut url_of = Vec::with_capacity(captures.len());
    for (i, c) in captures.iter().enumerate() {
        if i > 0 && captures[i - 1].url != c.url {
            url += 1;
        }
        url_of.push(url);
    }
    let content = |c: &Capture| matches!(c.print.status, None | Some(200)) && c.print.terms > 0;
    let mut sets: std::collections::HashMap<(u32, u64), Vec<u32>> = Default::default();
    for (c, &u) in captures.iter().zip(&url_of) {
        if content(c) {
            sets.entry((c.source, c.print.masked_hash))
                .or_default()
                .push(u);
        }
    }
    let sets: std::collections::HashMap<(u32, u64), std::rc::Rc<Vec<u32>>> = sets
        .into_iter()
        .filter_map(|(k, mut v)| {
            v.sort_unstable();
            v.dedup();
            (v.len() >= 2).then(|| (k, std::rc::Rc::new(v)))
        })
        .collect();
    captures
        .iter()
        .map(|c| {
            content(c)
                .then(|| sets.get(&(c.source, c.print.masked_hash)).cloned())
                .flatten()
        })
        .collect()
}

/// The representative (the first URL) of the cluster URL `u` was a copy in, when it was the
/// same cluster in each of `entries` (two or more captures) and `u` is not its first URL.
fn follows(u: u32, entries: &[Option<std::rc::Rc<Vec<u32>>>]) -> Option<u32> {
    let first = entries.first()?.as_ref()?;
    let stable = entries.len() >= 2 && entries.iter().all(|e| e.as_ref() == Some(first));
    (stable && first[0] != u).then_some(first[0])
}

/// Each URL's plan (its group is its host; a copy of another URL in a cluster that was the
/// same in each of its crawls follows that URL, paper 004's stable clusters), and the
/// hold-out check (URLs whose dates cannot all be read are planned without dates and left
/// out of the check).
fn plans(
    timeline: &[TimelineEntry],
    copies: &[Option<std::rc::Rc<Vec<u32>>>],
    cfg: &ScheduleConfig,
) -> (Vec<UrlPlan>, Holdout) {
    use neardup_evolve::schedule::{format_date, group_shares, holdout, parse_date, plan, Series};
    let mut hosts: std::collections::HashMap<String, u32> = Default::default();
    // Per URL: first and last entry, host group, history, its entries' copies.
    type Url<'a> = (
        &'a TimelineEntry,
        &'a TimelineEntry,
        u32,
        History,
        &'a [Option<std::rc::Rc<Vec<u32>>>],
    );
    let mut urls: Vec<Url> = Vec::new();
    let mut at = 0;
    for group in timeline.chunk_by(|a, b| a.url == b.url) {
        let dated: Option<History> = group
            .iter()
            .map(|e| parse_date(&e.date).map(|t| (t, e.change)))
            .collect();
        let host = neardup_text::host_of(&group[0].url).unwrap_or_default();
        let n = hosts.len() as u32;
        let g = *hosts.entry(host).or_insert(n);
        let last = group.last().expect("a group holds one entry or more");
        let mine = &copies[at..at + group.len()];
        at += group.len();
        urls.push((&group[0], last, g, dated.unwrap_or_default(), mine));
    }
    let shares = group_shares(urls.iter().map(|u| (u.2, &u.3[..])));
    let mut out: Vec<UrlPlan> = urls
        .iter()
        .map(|(_, last, g, history, _)| {
            let p = plan(history, shares[*g as usize], cfg);
            let next_visit = history.last().map_or(String::new(), |&(t, _)| {
                format_date(t + (p.next_in_days * 86_400.0).round() as i64)
            });
            UrlPlan {
                url: last.url.clone(),
                last_capture: last.date.clone(),
                next_visit,
                plan: p,
            }
        })
        .collect();
    for (u, url) in urls.iter().enumerate() {
        if let Some(r) = follows(u as u32, url.4) {
            let rep = out[r as usize].clone();
            let p = &mut out[u];
            p.next_visit = rep.next_visit;
            p.plan.next_in_days = rep.plan.next_in_days;
            p.plan.reason = format!(
                "the same text as {} in each of its {} captures (a stable cluster, paper \
                 004): visited with it ({})",
                rep.url,
                url.4.len(),
                rep.plan.reason
            );
        }
    }
    let dated: Vec<usize> = (0..urls.len()).filter(|&u| !urls[u].3.is_empty()).collect();
    let series_of: std::collections::HashMap<usize, usize> =
        dated.iter().enumerate().map(|(i, &u)| (u, i)).collect();
    let series: Vec<Series> = dated
        .iter()
        .map(|&u| {
            let (first, _, g, history, mine) = &urls[u];
            // Stable in the history alone: the held-out capture is not looked at.
            let history_copies = &mine[..mine.len().saturating_sub(1)];
            Series {
                url: &first.url,
                group: *g,
                captures: history,
                follows: follows(u as u32, history_copies)
                    .and_then(|r| series_of.get(&(r as usize)).copied()),
            }
        })
        .collect();
    (out, holdout(&series, cfg))
}

/// Reads `inputs` and makes the timelines and the schedule.
pub fn run(
    inputs: &[crate::Input],
    pipeline: &crate::PipelineConfig,
    schedule: &ScheduleConfig,
    progress: &dyn crate::Progress,
) -> Result<ChangesReport, crate::Error> {
    if !(schedule.change_probability > 0.0 && schedule.change_probability < 1.0) {
        return Err(crate::SettingsError::new(
            "change probability",
            schedule.change_probability,
            "a number between 0 and 1",
        )
        .into());
    }
    let (sigs, crawls): (Vec<crate::Input>, Vec<crate::Input>) = inputs
        .iter()
        .cloned()
        .partition(crate::load::is_signature_input);
    // Every response is visited (redirects and errors too): the visitor keeps them all.
    let mut files = Vec::new();
    let mut captures = Vec::new();
    if !crawls.is_empty() || sigs.is_empty() {
        let run = crate::run(&crawls, pipeline, ChangesVisitor::default, progress)?;
        files.extend(run.sources.iter().map(|s| s.path.clone()));
        captures.extend(run.outputs.into_iter().flatten());
    }
    for path in sigs.iter().filter_map(crate::Input::as_path) {
        signature_captures(path, &mut files, &mut captures)?;
    }
    Ok(timelines(captures, &files, schedule))
}

/// The captures a signature file holds (its pages' prints), their inputs appended to `files`.
fn signature_captures(
    path: &std::path::Path,
    files: &mut Vec<String>,
    captures: &mut Vec<Capture>,
) -> Result<(), crate::Error> {
    let mut file = neardup_store::SignatureReader::open(path)?;
    let base = files.len() as u32;
    files.extend(file.inputs.iter().cloned());
    let mut r = neardup_store::PageRecord::default();
    while file.next_record(&mut r)? {
        let print = CapturePrint::decode(&r.print).map_err(|e| crate::Error::BadTable {
            path: path.to_path_buf(),
            what: if r.print.is_empty() {
                format!(
                    "{}: no capture print (write the file with `neardup sketch --prints`)",
                    r.url
                )
            } else {
                format!("{}: {e}", r.url)
            },
        })?;
        let Some(url) = neardup_text::normalize_url(&r.url) else {
            continue;
        };
        captures.push(Capture {
            url,
            date: std::mem::take(&mut r.date),
            source: base + r.source,
            offset: None,
            digest: String::new(),
            print,
        });
    }
    Ok(())
}

pub use neardup_store::HeldCapture;

/// One URL's timeline from held captures.
#[derive(Clone, Debug, Serialize)]
pub struct UrlTimeline {
    /// The URL (normalized).
    pub url: String,
    /// Every capture with a print, oldest first, each with how it changed (`file` is the
    /// crawl's label).
    pub captures: Vec<TimelineEntry>,
    /// When to visit next, from these captures alone (none when there is no capture).
    pub next_visit: Option<UrlPlan>,
    /// Held captures without a print (added before prints were kept): not in the timeline.
    pub captures_without_print: u64,
}

/// The timeline of `url` from its held captures, as [`timelines`] makes it from crawl files;
/// prints that do not decode are an error (a damaged or newer index).
pub fn url_timeline(
    url: &str,
    held: impl IntoIterator<Item = HeldCapture>,
    cfg: &ScheduleConfig,
) -> Result<UrlTimeline, crate::Error> {
    let key = neardup_text::normalize_url(url).unwrap_or_else(|| url.to_string());
    let mut labels: Vec<String> = Vec::new();
    let mut captures = Vec::new();
    let mut without = 0;
    for h in held {
        if h.print.is_empty() {
            without += 1;
            continue;
        }
        let print = CapturePrint::decode(&h.print).map_err(|e| crate::Error::BadTable {
            path: std::path::PathBuf::from(&key),
            what: format!("the capture of {}: {e}", h.date),
        })?;
        let source = match labels.iter().position(|l| *l == h.label) {
            Some(i) => i,
            None => {
                labels.push(h.label.clone());
                labels.len() - 1
            }
        } as u32;
        captures.push(Capture {
            url: key.clone(),
            date: h.date,
            source,
            offset: None,
            digest: if h.payload_sha1 == [0; 20] {
                String::new()
            } else {
                format!("sha1:{}", neardup_ingest::digest::base32(&h.payload_sha1))
            },
            print,
        });
    }
    let report = timelines(captures, &labels, cfg);
    Ok(UrlTimeline {
        url: key,
        captures: report.timeline,
        next_visit: report.schedule.into_iter().next(),
        captures_without_print: without,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(url: &str, week: u32, text: &str) -> Capture {
        Capture {
            url: url.to_string(),
            date: format!("2026-01-{:02}T00:00:00Z", 1 + 7 * week),
            source: week,
            offset: Some(0),
            digest: String::new(),
            print: CapturePrint::new(Some(200), text.as_bytes(), text.split(' ')),
        }
    }

    #[test]
    fn a_stable_clusters_copy_is_visited_with_its_representative() {
        let words = |seed: usize| -> String {
            (0..400)
                .map(|k| {
                    format!(
                        "w{}",
                        ["a", "b", "c", "d", "e", "f", "g"][(k * seed + k / 3) % 7]
                    )
                })
                .map(|w| w + &"x".repeat(seed % 3))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let (old, new, other) = (words(1), words(2), words(5));
        let mut caps = Vec::new();
        for week in 0..4 {
            let text = if week < 3 { &old } else { &new };
            caps.push(capture("https://a.example/x", week, text));
            caps.push(capture("https://b.example/x", week, text));
            caps.push(capture("https://c.example/y", week, &other));
        }
        let files: Vec<String> = (0..4).map(|w| format!("week{w}")).collect();
        let r = timelines(caps, &files, &ScheduleConfig::default());
        let plan = |u: &str| r.schedule.iter().find(|p| p.url.contains(u)).unwrap();
        let (a, b, c) = (plan("a.example"), plan("b.example"), plan("c.example"));
        assert_eq!(b.next_visit, a.next_visit);
        assert!(
            b.plan.reason.contains("https://a.example/x"),
            "{}",
            b.plan.reason
        );
        assert!(
            !a.plan.reason.contains("stable cluster"),
            "{}",
            a.plan.reason
        );
        assert!(!c.plan.reason.contains("stable cluster"));
        // Held out: a's and b's last captures changed; a (quiet for three weeks) is not due
        // now, so b, which follows it, is not fetched either.
        let h = &r.holdout;
        assert_eq!((h.urls, h.text_changed), (3, 2));
        assert_eq!(h.due_now.fetched, 0);
        assert_eq!(h.due_now.missed, 2);
        // The copies' sets: every capture of a and b is in the same two-URL cluster.
        let caps2: Vec<Capture> = (0..2)
            .flat_map(|w| {
                [
                    capture("https://a.example/x", w, &old),
                    capture("https://b.example/x", w, &old),
                ]
            })
            .collect();
        let mut sorted = caps2;
        sorted.sort_by(|x, y| (&x.url, &x.date).cmp(&(&y.url, &y.date)));
        let c = copies(&sorted);
        assert!(c.iter().all(|s| s.as_deref() == Some(&vec![0, 1])));
        assert_eq!(follows(1, &c[2..]), Some(0));
        assert_eq!(follows(0, &c[..2]), None);
        assert_eq!(follows(1, &c[2..3]), None, "one capture is no history");
    }
}
