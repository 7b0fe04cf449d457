//! `week1/` to `week3/`: three weekly crawls of one URL space, made from the sample's stable
//! version with known changes; `collection/`, weeks 1 and 2 as an archive stores them (revisit
//! records for unchanged payloads); `damaged.warc.gz`.
//!
//! Of the documentation pages (in file order, `k` counting them):
//!
//! | pages | week 2 | week 3 |
//! |---|---|---|
//! | every 4th (`k % 4 == 0`) | its "fetched on" line has the new date | again |
//! | `k % 10 == 1` | one word added to its first paragraph | |
//! | `k % 10 == 2` | | one word added |
//! | `k == 3` | gone (404) | gone |
//! | `k == 5` | | every other paragraph removed (a large edit) |
//! | `k == 6` | | another page's content under its URL |
//! | `k == 7` | | moved (301 to page 8) |
//! | page 10 | also on `docs-mirror.example` (a copy) | the copy again |
//!
//! Other records (style sheets, scripts, redirect stubs) are stored unchanged every week.

use crate::sample::{is_doc_page, Sample};
use crate::warc::{Original, Response, WarcFile};
use crate::{DemoError, Files};
use neardup_ingest::Page;

/// The Monday of each week's crawl.
const DAYS: [(&str, &str); 3] = [
    ("2026-11-02", "Monday 2 November 2026"),
    ("2026-11-09", "Monday 9 November 2026"),
    ("2026-11-16", "Monday 16 November 2026"),
];

/// The host the copied page appears on.
pub(crate) const MIRROR: &str = "https://docs-mirror.example/";

/// One capture of a week.
struct Capture {
    url: String,
    status: u16,
    content_type: String,
    location: Option<String>,
    body: Vec<u8>,
}

pub(crate) fn write(sample: &Sample, files: &mut Files) -> Result<(), DemoError> {
    let pages = sample.version("stable");
    let docs: Vec<&Page> = pages.iter().filter(|p| is_doc_page(p)).collect();
    // The page whose paragraphs week 3 halves: the one with the most (after the first 12).
    let longest = docs
        .iter()
        .enumerate()
        .skip(12)
        .max_by_key(|(_, p)| crate::text::paragraphs(&String::from_utf8_lossy(&p.body)).len())
        .map(|(k, _)| k)
        .unwrap_or(5);
    let weeks: Vec<Vec<Capture>> = (0..3).map(|w| week(pages, &docs, longest, w)).collect();
    for (w, caps) in weeks.iter().enumerate() {
        let n = w + 1;
        if n == 3 {
            let half = caps.len() / 2;
            let (a, b) = caps.split_at(half);
            let (fa, _) = warc_of("week3-a.warc.gz", w, a, 0);
            let (fb, _) = warc_of("week3-b.warc.gz", w, b, half);
            files.add("week3/week3-a.warc.gz", fa.bytes);
            files.add("week3/week3-b.warc.gz", fb.bytes);
        } else {
            let (f, _) = warc_of(&format!("week{n}.warc.gz"), w, caps, 0);
            files.add(&format!("week{n}/week{n}.warc.gz"), f.bytes);
        }
    }
    files.about(
        "week1/ week2/ week3/",
        "three weekly crawls of one URL space (dated pages, edits, a page gone, one moved, a copy on a mirror)",
    );
    collection(&weeks, files);
    packages(&weeks, files);
    damaged(&weeks[0], files)?;
    Ok(())
}

/// Week `w` (0-based) of the stable pages (`docs` their documentation pages).
fn week(pages: &[Page], docs: &[&Page], longest: usize, w: usize) -> Vec<Capture> {
    let mut out = Vec::new();
    let mut k = 0;
    for p in pages {
        let mut cap = Capture {
            url: p.url.clone(),
            status: p.status.unwrap_or(200),
            content_type: p.content_type.clone(),
            location: None,
            body: p.body.clone(),
        };
        if !is_doc_page(p) {
            out.push(cap);
            continue;
        }
        let html = String::from_utf8_lossy(&p.body).into_owned();
        let mut html = if k % 4 == 0 { dated(&html, w) } else { html };
        if (k % 10 == 1 && w >= 1) || (k % 10 == 2 && w >= 2) {
            html = one_word_more(&html);
        }
        if k == longest && w >= 2 {
            html = every_other_paragraph(&html);
        }
        if k == 6 && w >= 2 {
            let other = &docs[(k + 100) % docs.len()];
            html = String::from_utf8_lossy(&other.body).into_owned();
        }
        cap.body = html.into_bytes();
        if k == 3 && w >= 1 {
            cap.status = 404;
            cap.body = b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>".to_vec();
        }
        if k == 7 && w >= 2 {
            cap.status = 301;
            cap.location = docs.get(8).map(|p| p.url.clone());
            cap.body = Vec::new();
            cap.content_type.clear();
        }
        if k == 10 && w >= 1 {
            let path = cap
                .url
                .split_once("://")
                .and_then(|(_, rest)| rest.split_once('/'))
                .map(|(_, path)| path.to_string())
                .unwrap_or_default();
            let copy = Capture {
                url: format!("{MIRROR}{path}"),
                status: 200,
                content_type: cap.content_type.clone(),
                location: None,
                body: cap.body.clone(),
            };
            out.push(cap);
            out.push(copy);
        } else {
            out.push(cap);
        }
        k += 1;
    }
    out
}

/// The page with a "fetched on" line for week `w` before `</body>`.
fn dated(html: &str, w: usize) -> String {
    let line = format!(
        "<p class=\"fetched\">Page fetched on {} at 10:{:02}.</p>",
        DAYS[w].1,
        (w * 17 + 3) % 60
    );
    match html.rfind("</body>") {
        Some(at) => format!("{}{line}{}", &html[..at], &html[at..]),
        None => format!("{html}{line}"),
    }
}

/// The first paragraph of the main content with one word added.
fn one_word_more(html: &str) -> String {
    let start = html.find("main-content").unwrap_or(0);
    match html[start..].find("<p>") {
        Some(at) => {
            let at = start + at + 3;
            format!("{}Now {}", &html[..at], &html[at..])
        }
        None => html.to_string(),
    }
}

/// Every second `<p>` element removed.
fn every_other_paragraph(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut n = 0;
    while let Some(at) = rest.find("<p>") {
        let Some(end) = rest[at..].find("</p>") else {
            break;
        };
        let end = at + end + 4;
        out.push_str(&rest[..at]);
        if n % 2 == 0 {
            out.push_str(&rest[at..end]);
        }
        n += 1;
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn date(w: usize, i: usize) -> String {
    format!("{}T10:{:02}:{:02}Z", DAYS[w].0, i / 60 % 60, i % 60)
}

fn response<'a>(c: &'a Capture, date: &'a str, headers: &'a [(&'a str, String)]) -> Response<'a> {
    Response {
        url: &c.url,
        date,
        status: c.status,
        content_type: &c.content_type,
        headers,
        body: &c.body,
    }
}

fn location(c: &Capture) -> Vec<(&'static str, String)> {
    c.location.iter().map(|l| ("Location", l.clone())).collect()
}

/// A week's captures as a WARC file; the record id and date of each capture.
fn warc_of(
    name: &str,
    w: usize,
    caps: &[Capture],
    first: usize,
) -> (WarcFile, Vec<(String, String)>) {
    let mut f = WarcFile::new(
        name,
        &date(w, 0),
        &format!("neardup demo: weekly crawl {}", w + 1),
    );
    let mut ids = Vec::new();
    for (i, c) in caps.iter().enumerate() {
        let d = date(w, first + i + 1);
        let headers = location(c);
        let id = f.response(&response(c, &d, &headers));
        ids.push((id, d));
    }
    (f, ids)
}

/// `collection/`: week 1 in full; week 2 with each capture whose payload week 1 stored under its
/// URL written as a revisit of that record, and one revisit of a record in no file here.
fn collection(weeks: &[Vec<Capture>], files: &mut Files) {
    let (f1, f2) = archived(weeks, None);
    files.add("collection/2026-11-02.warc.gz", f1);
    files.add("collection/2026-11-09.warc.gz", f2);
    files.about(
        "collection/",
        "weeks 1 and 2 as an archive stores them: unchanged pages as revisits, one whose original is lost",
    );
}

/// The lost original's package (one the world does not have).
const LOST_PACKAGE: &str = "2026-10-26.wacz";

/// `packages/`: the collection as a deduplicating crawler packs it, one WACZ a week: week 2's
/// revisits name week 1's package as their container, and its `datapackage.json` requires it
/// (and the package of the lost original).
fn packages(weeks: &[Vec<Capture>], files: &mut Files) {
    let (f1, f2) = archived(weeks, Some("2026-11-02.wacz"));
    let one = crate::wacz::package(
        &[("2026-11-02.warc.gz", &f1)],
        &[],
        "2026-11-02T00:00:00Z",
        "weekly crawl 1",
    );
    files.add("packages/2026-11-02.wacz", one);
    let two = crate::wacz::package(
        &[("2026-11-09.warc.gz", &f2)],
        &[("2026-11-02.wacz", "weekly-1"), (LOST_PACKAGE, "weekly-0")],
        "2026-11-09T00:00:00Z",
        "weekly crawl 2",
    );
    files.add("packages/2026-11-09.wacz", two);
    files.about(
        "packages/",
        "weeks 1 and 2 as WACZ packages: week 2's revisits in week 1's package, one in a package that is missing",
    );
}

/// Weeks 1 and 2 as an archive stores them (the two files' bytes); with `container`, week 2's
/// revisits name week 1's package as theirs.
fn archived(weeks: &[Vec<Capture>], container: Option<&str>) -> (Vec<u8>, Vec<u8>) {
    let (w1, w2) = (&weeks[0], &weeks[1]);
    let (f1, ids) = warc_of("2026-11-02.warc.gz", 0, w1, 0);
    let by_url: std::collections::HashMap<&str, usize> = w1
        .iter()
        .enumerate()
        .map(|(i, c)| (c.url.as_str(), i))
        .collect();
    let mut f2 = WarcFile::new(
        "2026-11-09.warc.gz",
        &date(1, 0),
        "neardup demo: week 2 with revisits",
    );
    for (i, c) in w2.iter().enumerate() {
        let d = date(1, i + 1);
        let headers = location(c);
        let r = response(c, &d, &headers);
        match by_url.get(c.url.as_str()) {
            Some(&j) if w1[j].body == c.body && c.status == 200 => {
                let (id, odate) = &ids[j];
                f2.revisit(
                    &r,
                    &Original {
                        record_id: id,
                        url: &w1[j].url,
                        date: odate,
                        container,
                    },
                );
            }
            _ => {
                f2.response(&r);
            }
        }
    }
    // A revisit whose original was in a file this collection no longer holds.
    let lost = Capture {
        url: "https://doc.rust-lang.org/stable/lost.html".into(),
        status: 200,
        content_type: "text/html; charset=utf-8".into(),
        location: None,
        body: b"<html><body><p>a page stored in a file that was lost</p></body></html>".to_vec(),
    };
    let d = date(1, w2.len() + 1);
    f2.revisit(
        &response(&lost, &d, &[]),
        &Original {
            record_id: "<urn:uuid:00000000-0000-4000-8000-000000000000>",
            url: &lost.url,
            date: "2026-10-26T10:00:00Z",
            container: container.map(|_| LOST_PACKAGE),
        },
    );
    (f1.bytes, f2.bytes)
}

/// `damaged.warc.gz`: week 1 with bytes inside one record's gzip member overwritten.
fn damaged(w1: &[Capture], files: &mut Files) -> Result<(), DemoError> {
    let (f, _) = warc_of("damaged.warc.gz", 0, w1, 0);
    let mut bytes = f.bytes.clone();
    // The 6th gzip member (the 5th response): its deflate data from its 40th byte on.
    let Some(&at) = f.starts.get(5) else {
        return Err(DemoError::Sample("week 1 has too few records".into()));
    };
    for b in &mut bytes[at + 40..at + 60] {
        *b ^= 0x5a;
    }
    files.add("damaged.warc.gz", bytes);
    files.about(
        "damaged.warc.gz",
        "week 1 with one record damaged (neardup scan skips it and names it; --strict stops)",
    );
    Ok(())
}
