//! Request extraction: the pages of a body (JSON, NDJSON, a WARC, a raw HTTP response) and
//! the query of the page endpoints, each turned into the index's types or the caller's mistake.

use crate::errors::{ApiError, NO_LINE};
use axum::body::Bytes;
use axum::http::StatusCode;
use neardup_ingest::Page;
use serde::Deserialize;

/// A page to look up or add, as JSON.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PageRequest {
    /// The page's URL.
    pub(crate) url: String,
    /// Its HTML (or `text`).
    #[serde(default, deserialize_with = "string")]
    pub(crate) html: Option<String>,
    /// Its text (or `html`).
    #[serde(default, deserialize_with = "string")]
    pub(crate) text: Option<String>,
    /// The caller's id, echoed (and kept by an add).
    #[serde(default, deserialize_with = "string")]
    pub(crate) id: Option<String>,
    /// When it was fetched (ISO 8601), kept by an add.
    #[serde(default, deserialize_with = "string")]
    pub(crate) date: Option<String>,
    /// The crawl an add puts it in (the service's label when none); not for lookups.
    #[serde(default, deserialize_with = "string")]
    pub(crate) label: Option<String>,
}

/// A field that may be missing but, when there, is a string (`null` is the caller's
/// mistake, not a missing field).
pub(crate) fn string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// The query of the lookup and add endpoints: `if-new` for adds; `url`, `date` and `id` name
/// a raw HTTP response's page; `label` the crawl of adds whose body names none.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PageQuery {
    #[serde(rename = "if-new")]
    pub(crate) if_new: Option<String>,
    /// Lookups: matches reported at most (default [`DEFAULT_MATCHES`]; 0: all).
    pub(crate) matches: Option<String>,
    /// Lookups: a duplicate only when the page's cluster already holds this many pages.
    pub(crate) budget: Option<String>,
    /// Lookups: name the cluster the page would join (its oldest match, exact).
    pub(crate) cluster: Option<String>,
    pub(crate) url: Option<String>,
    pub(crate) date: Option<String>,
    pub(crate) id: Option<String>,
    pub(crate) label: Option<String>,
}

/// One page of a request: the page, the caller's id, the crawl label it names.
pub(crate) struct Item {
    pub(crate) page: Page,
    pub(crate) id: String,
    pub(crate) label: Option<String>,
}

/// The page a JSON request names; a request that names none is the caller's mistake.
pub(crate) fn item_of(req: PageRequest) -> Result<Item, ApiError> {
    if req.url.is_empty() {
        return Err(ApiError::bad("url is empty"));
    }
    let page = match (req.html, req.text) {
        (Some(h), None) => Page::html(req.url, h.into_bytes()),
        (None, Some(t)) => Page::text(req.url, t),
        _ => return Err(ApiError::bad("give exactly one of html and text")),
    };
    if let Some(d) = &req.date {
        check_date(d)?;
    }
    let id = req.id.unwrap_or_default();
    Ok(Item {
        page: page
            .with_id(id.clone())
            .with_date(req.date.unwrap_or_default()),
        id,
        label: req.label,
    })
}

/// A fetch date the index can keep: ISO 8601 (`2026-11-23`, `2026-11-23T10:00:00Z`, with
/// seconds' fractions or an offset) or CDX's 14 digits (`20261123100000`); else the caller's
/// mistake, named (a date the index cannot order is not silently kept).
pub(crate) fn check_date(d: &str) -> Result<(), ApiError> {
    if is_date(d) {
        return Ok(());
    }
    Err(ApiError::bad(format!(
        "date {d:?}: expected ISO 8601 (2026-11-23 or 2026-11-23T10:00:00Z) or 14 digits (20261123100000)"
    )))
}

/// Whether the day (of a month 1-12 and a day 1-31, as digits) is in the calendar: no
/// 2026-02-30, no 2025-02-29, 2024-02-29 yes.
fn day_exists(year: &str, month: &str, day: &str) -> bool {
    let (Ok(y), Ok(m), Ok(d)) = (
        year.parse::<u32>(),
        month.parse::<u32>(),
        day.parse::<u32>(),
    ) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    d <= days
}

/// A page URL the index can keep: absolute, `scheme://host...`, with no white space; else
/// the caller's mistake, named (a page stored under "not a url at all" could never be found
/// by URL or host).
pub(crate) fn check_url(u: &str) -> Result<(), ApiError> {
    let ok = u.split_once("://").is_some_and(|(scheme, rest)| {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host = host.rsplit('@').next().unwrap_or("");
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && !host.is_empty()
            && !host.starts_with(':')
    }) && !u.chars().any(char::is_whitespace);
    if ok {
        return Ok(());
    }
    Err(ApiError::bad(format!(
        "url {u:?}: expected an absolute URL (scheme://host/path)"
    )))
}

fn is_date(d: &str) -> bool {
    let b = d.as_bytes();
    let num = |r: std::ops::Range<usize>, lo: u32, hi: u32| -> bool {
        b.get(r.clone())
            .is_some_and(|x| x.iter().all(u8::is_ascii_digit))
            && d[r].parse::<u32>().is_ok_and(|v| (lo..=hi).contains(&v))
    };
    if b.len() == 14 && b.iter().all(u8::is_ascii_digit) {
        return num(4..6, 1, 12)
            && num(6..8, 1, 31)
            && day_exists(&d[0..4], &d[4..6], &d[6..8])
            && num(8..10, 0, 23)
            && num(10..12, 0, 59)
            && num(12..14, 0, 60);
    }
    let ymd = b.len() >= 10
        && num(0..4, 0, 9999)
        && b[4] == b'-'
        && num(5..7, 1, 12)
        && b[7] == b'-'
        && num(8..10, 1, 31)
        && day_exists(&d[0..4], &d[5..7], &d[8..10]);
    if !ymd {
        return false;
    }
    if b.len() == 10 {
        return true;
    }
    if !(b[10] == b'T' || b[10] == b' ')
        || !(b.len() >= 16 && num(11..13, 0, 23) && b[13] == b':' && num(14..16, 0, 59))
    {
        return false;
    }
    let mut i = 16;
    if b.get(i) == Some(&b':') {
        if !num(i + 1..i + 3, 0, 60) {
            return false;
        }
        i += 3;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
    }
    match &b[i..] {
        [] | [b'Z'] => true,
        [b'+' | b'-', ..] => {
            let rest = &d[i + 1..];
            rest.len() == 5
                && rest.as_bytes()[2] == b':'
                && num(i + 1..i + 3, 0, 23)
                && num(i + 4..i + 6, 0, 59)
        }
        _ => false,
    }
}

/// How a request body is read, from its `Content-Type`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum BodyKind {
    /// A JSON page (one per line in a batch). Also when no type is given.
    Json,
    /// `application/warc`: WARC records (gzipped or not), a page per response record.
    Warc,
    /// `application/http`: one raw HTTP response; the query names its `url`.
    Http,
}

pub(crate) fn body_kind(headers: &axum::http::HeaderMap) -> Result<BodyKind, ApiError> {
    let ct = headers
        .get(axum::http::header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("?").to_ascii_lowercase());
    let essence = ct
        .as_deref()
        .map(|c| c.split(';').next().unwrap_or("").trim().to_string());
    match essence.as_deref() {
        // curl -d sends application/x-www-form-urlencoded: its body is read as JSON too (a
        // real form body answers a JSON error), so the shortest curl line works.
        None
        | Some(
            "application/json"
            | "application/x-ndjson"
            | "text/plain"
            | "application/x-www-form-urlencoded"
            | "",
        ) => Ok(BodyKind::Json),
        Some("application/warc") => Ok(BodyKind::Warc),
        Some("application/http") => Ok(BodyKind::Http),
        Some(other) => Err(ApiError { line: NO_LINE,
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            kind: "unsupported-media-type",
            message: format!(
                "Content-Type {other}: expected application/json (NDJSON for a batch), application/warc or application/http"
            ),
        }),
    }
}

/// The pages of a request body, each read or the caller's mistake (a batch answers the
/// others); `one`: a single-page endpoint.
pub(crate) fn items(
    kind: BodyKind,
    query: &PageQuery,
    body: Bytes,
    one: bool,
) -> Result<Vec<Result<Item, ApiError>>, ApiError> {
    let opts = neardup_ingest::ReadOptions::default();
    let from_query = |page: Page, label: &Option<String>| Item {
        id: page.record_id.clone(),
        page,
        label: label.clone(),
    };
    for (name, v) in [("url", &query.url), ("label", &query.label)] {
        if v.as_deref() == Some("") {
            return Err(ApiError::bad(format!("{name} in the query is empty")));
        }
    }
    if let Some(d) = &query.date {
        check_date(d)?;
    }
    let got = match kind {
        BodyKind::Json => {
            let text = std::str::from_utf8(&body)
                .map_err(|e| ApiError::bad(format!("the body is not UTF-8: {e}")))?;
            if one {
                let req: PageRequest = serde_json::from_str(text)
                    .map_err(|e| ApiError::bad(format!("the body: {e}")))?;
                vec![item_of(req)]
            } else {
                text.lines()
                    .enumerate()
                    .filter(|(_, l)| !l.trim().is_empty())
                    .map(|(i, line)| {
                        serde_json::from_str::<PageRequest>(line)
                            .map_err(|e| ApiError::bad(format!("the request: {e}")))
                            .and_then(item_of)
                            .map_err(|e| e.on_line(i + 1))
                    })
                    .collect()
            }
        }
        BodyKind::Warc if !one => {
            // A batch is read as the CLI reads a crawl: a malformed record is answered in
            // place (by its offset), the others are looked up or added.
            let (pages, problems, skipped) = neardup_ingest::pages_and_problems_of_bytes(
                body.to_vec(),
                neardup_ingest::Format::Warc,
                "request body",
                &opts,
            )
            .map_err(|e| ApiError::bad(format!("the WARC: {e}")))?;
            let mut got: Vec<(u64, Result<Item, ApiError>)> = pages
                .into_iter()
                .map(|p| (p.offset, Ok(from_query(p, &query.label))))
                .collect();
            let listed = problems.len() as u64;
            for p in problems {
                let e = ApiError::bad(format!(
                    "the WARC's record at offset {} was skipped: {}: {}",
                    p.offset, p.kind, p.detail
                ));
                got.push((p.offset, Err(e)));
            }
            if skipped > listed {
                let e = ApiError::bad(format!(
                    "and {} more records of the WARC were skipped",
                    skipped - listed
                ));
                got.push((u64::MAX, Err(e)));
            }
            if got.is_empty() {
                return Err(ApiError::bad("the WARC holds no response record"));
            }
            got.sort_by_key(|(offset, _)| *offset);
            got.into_iter().map(|(_, i)| i).collect()
        }
        BodyKind::Warc => {
            let pages = neardup_ingest::pages_of_bytes(
                body.to_vec(),
                neardup_ingest::Format::Warc,
                "request body",
                &opts,
            )
            .map_err(|e| ApiError::bad(format!("the WARC: {e}")))?;
            if pages.is_empty() {
                return Err(ApiError::bad("the WARC holds no response record"));
            }
            if one && pages.len() > 1 {
                return Err(ApiError::bad(format!(
                    "the WARC holds {} response records; send one, or use the :batch endpoint",
                    pages.len()
                )));
            }
            pages
                .into_iter()
                .map(|p| Ok(from_query(p, &query.label)))
                .collect()
        }
        BodyKind::Http => {
            let url = query
                .url
                .as_deref()
                .filter(|u| !u.is_empty())
                .ok_or_else(|| {
                    ApiError::bad(
                        "an application/http body needs ?url= (the URL it was fetched from)",
                    )
                })?;
            let page = neardup_ingest::http_response_page(
                url,
                query.date.as_deref().unwrap_or(""),
                &body,
                &opts,
            )
            .map_err(|e| ApiError::bad(format!("the HTTP response: {e}")))?
            .ok_or_else(|| ApiError::bad("the HTTP response holds no page"))?;
            vec![Ok(from_query(page, &query.label))]
        }
    };
    if got.is_empty() {
        return Err(ApiError::bad("the body holds no page"));
    }
    let most = crate::state::MAX_BATCH_PAGES;
    if got.len() > most {
        return Err(ApiError {
            line: NO_LINE,
            status: StatusCode::PAYLOAD_TOO_LARGE,
            kind: "too-many-pages",
            message: format!(
                "the body holds {} pages; a request takes {most} at most: split it into batches of {most} or fewer",
                got.len()
            ),
        });
    }
    // A batch of which no line is a page is a mistake as a whole.
    if got.iter().all(Result::is_err) {
        let e = got.into_iter().find_map(Result::err).expect("an error");
        return Err(e);
    }
    // The query's date and id are defaults for pages that name none.
    Ok(got
        .into_iter()
        .map(|i| {
            i.map(|mut i| {
                if let (true, Some(d)) = (i.page.date.is_empty(), &query.date) {
                    i.page.date = d.clone();
                }
                if let (true, Some(id)) = (i.id.is_empty(), &query.id) {
                    i.page.record_id = id.clone();
                    i.id = id.clone();
                }
                i
            })
        })
        .collect())
}

/// The query of a lookup or add, or the caller's mistake.
pub(crate) fn page_query(
    query: Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<PageQuery, ApiError> {
    query
        .map(|q| q.0)
        .map_err(|e| ApiError::bad(format!("the query: {}", e.body_text())))
}

/// The query extractor of the page endpoints (its rejection becomes a JSON error).
pub(crate) type PageQueryArg =
    Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>;

/// What a lookup asks ([`neardup_index::Ask`]; its defaults unless the query says):
/// `?matches=N` (0: every match), `?budget=N`, `?cluster=1`. A budget is about the cluster,
/// so it names it too.
pub(crate) fn ask(q: &PageQuery) -> Result<neardup_index::Ask, ApiError> {
    let budget = budget(q)?;
    let cluster = match q.cluster.as_deref() {
        None => false,
        Some("1" | "true") => true,
        Some("0" | "false") => false,
        Some(v) => {
            return Err(ApiError::bad(format!(
                "cluster={v:?}: expected 1 or 0 (true or false)"
            )))
        }
    };
    Ok(neardup_index::Ask {
        matches: match_limit(q)?,
        budget,
        cluster: cluster || budget.is_some(),
    })
}

/// `?matches=N`: matches a lookup reports at most (0: all).
fn match_limit(q: &PageQuery) -> Result<usize, ApiError> {
    match q.matches.as_deref() {
        None => Ok(neardup_index::Ask::DEFAULT.matches),
        Some(n) => match n.parse::<usize>() {
            Ok(0) => Ok(usize::MAX),
            Ok(n) => Ok(n),
            Err(_) => Err(ApiError::bad(format!(
                "matches={n:?}: expected a count (0: every match)"
            ))),
        },
    }
}

/// `?budget=N`: a lookup's page is a duplicate only when its cluster holds N pages (N >= 1).
fn budget(q: &PageQuery) -> Result<Option<u64>, ApiError> {
    match q.budget.as_deref() {
        None => Ok(None),
        Some(n) => match n.parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Some(n)),
            _ => Err(ApiError::bad(format!(
                "budget={n:?}: expected a count of pages, at least 1"
            ))),
        },
    }
}

/// A lookup's query names no add setting.
pub(crate) fn no_if_new(q: &PageQuery) -> Result<(), ApiError> {
    match (&q.if_new, &q.label) {
        (Some(_), _) => Err(ApiError::bad("if-new is for adds (/v1/add)")),
        (_, Some(_)) => Err(ApiError::bad("label is for adds (/v1/add)")),
        _ => Ok(()),
    }
}

/// Whether `?if-new=` says yes.
pub(crate) fn if_new(q: &PageQuery) -> Result<bool, ApiError> {
    match q.if_new.as_deref() {
        None | Some("0" | "false") => Ok(false),
        Some("1" | "true" | "") => Ok(true),
        Some(other) => Err(ApiError::bad(format!(
            "if-new={other:?}: expected 1, true, 0 or false"
        ))),
    }
}

/// A crawl label an add may use: 1 to 256 bytes, no control characters.
pub(crate) fn check_label(label: &str) -> Result<(), ApiError> {
    if label.is_empty() || label.chars().count() > 256 || label.chars().any(char::is_control) {
        return Err(ApiError::bad(format!(
            "label {label:?}: expected 1 to 256 characters, no control characters"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_date;

    #[test]
    fn dates_are_iso_8601_or_cdx_digits() {
        for ok in [
            "2026-11-23",
            "2026-11-23T10:00:00Z",
            "2026-11-23T10:00Z",
            "2026-11-23T10:00:00.123Z",
            "2026-11-23T10:00:00+01:00",
            "2026-11-23 10:00:00",
            "20261123100000",
        ] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "yesterday",
            "",
            "2026-13-01",
            "2026-11-23T25:00:00Z",
            "2026-11-23T10:00:00+1",
            "2026/11/23",
            "20261323100000",
            "2026-11-23Tx",
            "2026-11-23T10:00:00.Z",
            "2026-02-30",
            "2025-02-29",
            "2026-04-31T10:00:00Z",
            "20260230100000",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        assert!(is_date("2024-02-29") && is_date("2000-02-29") && !is_date("1900-02-29"));
    }

    #[test]
    fn urls_to_keep_are_absolute() {
        for ok in [
            "https://a.example/x",
            "http://u@h.example:8080/?q",
            "ftp://h/",
        ] {
            assert!(super::check_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "not a url at all",
            "",
            "/relative",
            "https://",
            "https:///x",
            "1a://h/",
            "https://a.example/a b",
        ] {
            assert!(super::check_url(bad).is_err(), "{bad}");
        }
    }
}
