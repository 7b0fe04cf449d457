//! `GET /cdx`: a CDX server's answer by URL, for crawlers (warcprox) that dedup by digest.

use crate::errors::{internal, ApiError};
use crate::state::{on_pool, App};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use neardup_ingest::digest::PayloadDigest;
use serde::Deserialize;
use std::sync::Arc;

/// The query of `GET /v1/digest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DigestQuery {
    pub(crate) digest: Option<String>,
}

/// `GET /v1/digest?digest=D`: every held page whose payload has digest `D` in any form
/// (`index digest`'s rows: the digest normalized, the page's SHA-1, URL, id, date, label,
/// page id), oldest first.
pub(crate) async fn digest(
    State(app): State<Arc<App>>,
    query: Result<axum::extract::Query<DigestQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let axum::extract::Query(q) = query.map_err(|e| ApiError::bad(e.body_text()))?;
    let d = q
        .digest
        .filter(|d| !d.is_empty())
        .ok_or_else(|| ApiError::bad("digest is missing"))?;
    if PayloadDigest::parse(&d).is_none() {
        return Err(ApiError::bad(format!(
            "digest {d:?}: expected a SHA-1 or SHA-256 (sha1:/sha256: optional, then base32 or hex)"
        )));
    }
    let rows = on_pool(&app, move |app| {
        Ok(neardup_index::digest_rows(&app.snap(), &[d])?)
    })
    .await?;
    Ok(axum::Json(rows).into_response())
}

/// The query of `GET /cdx` (the CDX server API's names).
#[derive(Debug, Deserialize)]
pub(crate) struct CdxQuery {
    pub(crate) url: Option<String>,
    pub(crate) fl: Option<String>,
    pub(crate) limit: Option<String>,
    pub(crate) filter: Option<String>,
}

/// The fields a CDX line can hold here, in the default order; `label`, `page` and `sha256`
/// are neardup's extensions (the crawl a capture was added with, its index page id, its
/// payload SHA-256 in hex).
pub(crate) const CDX_FIELDS: [&str; 10] = [
    "urlkey",
    "timestamp",
    "original",
    "mimetype",
    "statuscode",
    "digest",
    "length",
    "label",
    "page",
    "sha256",
];

/// `2026-05-01T10:20:30Z` -> `20260501102030`; `-` when the date has not 14 digits.
pub(crate) fn cdx_timestamp(date: &str) -> String {
    let d: String = date.chars().filter(char::is_ascii_digit).take(14).collect();
    if d.len() == 14 {
        d
    } else {
        "-".into()
    }
}

/// `GET /cdx?url=U[&fl=F,...][&limit=N][&filter=[!]FIELD:VALUE]`: the captures of `U`
/// held by the index, one space-separated line each, oldest first (`limit=-1`: the newest
/// only, what warcprox's `--cdxserver-dedup` asks with `fl=timestamp,digest`). Digests are
/// payload SHA-1s in base32, as WARC-Payload-Digest without its `sha1:`; a `digest` or
/// `sha256` filter takes a digest in any form (SHA-1 or SHA-256, base32 or hex, prefixed or
/// not: [`PayloadDigest::parse`]) and matches the capture's payload. The index holds
/// only responses (no revisits), so `!mimetype:warc/revisit` keeps every capture; fields the
/// index does not keep (mimetype, length) are `-`.
pub(crate) async fn cdx(
    State(app): State<Arc<App>>,
    query: Result<axum::extract::Query<CdxQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let axum::extract::Query(q) = query.map_err(|e| ApiError::bad(e.body_text()))?;
    let url = q
        .url
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ApiError::bad("url is missing"))?;
    let fields: Vec<&str> = match &q.fl {
        Some(fl) => fl.split(',').map(str::trim).collect(),
        None => CDX_FIELDS[..7].to_vec(),
    };
    if let Some(f) = fields.iter().find(|f| !CDX_FIELDS.contains(f)) {
        return Err(ApiError::bad(format!(
            "fl: unknown field {f:?}; known: {}",
            CDX_FIELDS.join(",")
        )));
    }
    let mut filters = Vec::new();
    for f in q.filter.iter() {
        let (neg, rest) = match f.strip_prefix('!') {
            Some(r) => (true, r),
            None => (false, f.as_str()),
        };
        match rest.split_once(':') {
            Some((field @ ("digest" | "sha256"), value))
                if PayloadDigest::parse(value).is_none() =>
            {
                return Err(ApiError::bad(format!(
                    "filter {f:?}: {field} {value:?} is no digest: expected a SHA-1 or SHA-256 (sha1:/sha256: optional, then base32 or hex)"
                )))
            }
            Some((field, value)) if CDX_FIELDS.contains(&field) => {
                filters.push((neg, field.to_string(), value.to_string()))
            }
            _ => {
                return Err(ApiError::bad(format!(
                    "filter {f:?}: expected [!]FIELD:VALUE with FIELD one of {}",
                    CDX_FIELDS.join(",")
                )))
            }
        }
    }
    let captures = on_pool(&app, move |app| app.snap().by_url(&url).map_err(internal)).await?;
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    for (page, facts, label) in captures {
        let value = |f: &str| -> String {
            match f {
                "urlkey" => cdx_urlkey(&facts.url),
                "timestamp" => cdx_timestamp(&facts.date),
                "original" => facts.url.clone(),
                "statuscode" => "200".into(),
                "digest" if facts.payload_sha1 != [0; 20] => {
                    neardup_ingest::digest::base32(&facts.payload_sha1)
                }
                "label" => label.clone(),
                "page" => page.to_string(),
                "sha256" if facts.payload_sha256 != [0; 32] => {
                    let c = PayloadDigest::Sha256(facts.payload_sha256).canonical();
                    c["sha256:".len()..].to_string()
                }
                _ => "-".into(),
            }
        };
        let same_payload = |v: &str| match PayloadDigest::parse(v) {
            Some(PayloadDigest::Sha1(d)) => d == facts.payload_sha1 && d != [0; 20],
            Some(PayloadDigest::Sha256(d)) => d == facts.payload_sha256 && d != [0; 32],
            None => false,
        };
        let keep = filters.iter().all(|(neg, field, v)| {
            let hit = match field.as_str() {
                "digest" | "sha256" => same_payload(v) || value(field) == *v,
                _ => value(field) == *v,
            };
            hit != *neg
        });
        if keep {
            rows.push((
                value("timestamp"),
                fields.iter().map(|f| value(f)).collect(),
            ));
        }
    }
    // Oldest first by timestamp, then the order added.
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let rows: Vec<Vec<String>> = rows.into_iter().map(|r| r.1).collect();
    let limit = match q.limit.as_deref() {
        None => None,
        Some(l) => Some(l.parse::<i64>().map_err(|_| {
            ApiError::bad(format!(
                "limit={l}: expected a whole number (N: the oldest N captures, -N: the newest N)"
            ))
        })?),
    };
    let rows: &[Vec<String>] = match limit {
        Some(n) if n < 0 => &rows[rows.len().saturating_sub(n.unsigned_abs() as usize)..],
        Some(n) => &rows[..rows.len().min(n as usize)],
        None => &rows,
    };
    let mut body = String::new();
    for r in rows {
        body.push_str(&r.join(" "));
        body.push('\n');
    }
    Ok((
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        body,
    )
        .into_response())
}

/// A capture's `urlkey`: its URL without the scheme and a trailing slash, lowercased (a
/// sort key, not a SURT).
pub(crate) fn cdx_urlkey(url: &str) -> String {
    url.split_once("://")
        .map_or(url, |(_, rest)| rest)
        .trim_end_matches('/')
        .to_ascii_lowercase()
}
