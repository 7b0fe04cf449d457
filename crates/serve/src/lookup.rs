//! `POST /v1/lookup` and `/v1/lookup:batch`: each page against the index, every match with
//! its evidence.

use crate::errors::{body_error, ApiError};
use crate::request::{ask, body_kind, items, no_if_new, page_query, Item, PageQueryArg};
use crate::state::{on_pool, App};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use neardup_index::Looked;
use serde::Serialize;
use std::sync::Arc;

/// The answer for one page.
#[derive(Debug, Serialize)]
pub(crate) struct PageResponse {
    pub(crate) url: String,
    pub(crate) id: String,
    /// Whether the index would hold it as a page (200 HTML or text with terms).
    pub(crate) page: bool,
    /// Why not, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// It matches at least one indexed page (under `?budget=N`: its cluster holds N pages).
    pub(crate) duplicate: bool,
    /// With `?cluster=1` (or a budget): the cluster it would join, the oldest held page it
    /// matches (`GET /v1/cluster/{id}`); null when it matches none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cluster: Option<Option<u64>>,
    /// How many held pages it matches (at least this many unless `cluster_size_exact`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cluster_size: Option<u64>,
    /// Whether `cluster_size` is exact (scoring stopped at `matches` or `budget` otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cluster_size_exact: Option<bool>,
    /// Its payload SHA-1 as `sha1:BASE32`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) digest: Option<String>,
    /// Its payload SHA-256 as `sha256:` and hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sha256: Option<String>,
    /// Adds: `added`, `held` (already in the index: nothing added), `duplicate` (`if-new`
    /// and it matches: not added) or `not-page`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) status: Option<&'static str>,
    /// Adds: the id the page has in the index (added or held).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) page_id: Option<u64>,
    /// Adds: the crawl it was added to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) label: Option<String>,
    /// Its matches, best first: the likeliest by default, up to `?matches=N` (0: every one).
    pub(crate) matches: Vec<MatchRow>,
    /// Lookups: the limit was reached with candidates left unscored (there may be more
    /// matches; `?matches=0` reports all).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) more_matches: bool,
}

pub(crate) use neardup_index::MatchRow;

/// What a lookup found, as the answer says it.
pub(crate) fn answer(looked: Looked, url: String, id: String) -> PageResponse {
    match looked {
        Looked::NotPage(why) => not_page(url, id, why),
        Looked::Page {
            page: p,
            matches,
            more,
            cluster,
            duplicate,
        } => PageResponse {
            url,
            id,
            page: true,
            reason: None,
            duplicate,
            cluster: cluster.map(|c| c.id),
            cluster_size: cluster.map(|c| c.size),
            cluster_size_exact: cluster.map(|c| c.exact),
            digest: Some(digest(&p.payload_sha1)),
            sha256: Some(sha256(&p.payload_sha256)),
            status: None,
            page_id: None,
            label: None,
            matches: rows(&p.payload_sha1, matches),
            more_matches: more,
        },
    }
}

pub(crate) fn not_page(url: String, id: String, why: String) -> PageResponse {
    PageResponse {
        url,
        id,
        page: false,
        reason: Some(why),
        duplicate: false,
        cluster: None,
        cluster_size: None,
        cluster_size_exact: None,
        digest: None,
        sha256: None,
        status: None,
        page_id: None,
        label: None,
        matches: Vec::new(),
        more_matches: false,
    }
}

pub(crate) fn digest(sha1: &[u8; 20]) -> String {
    format!("sha1:{}", neardup_ingest::digest::base32(sha1))
}

pub(crate) fn sha256(d: &[u8; 32]) -> String {
    neardup_ingest::digest::PayloadDigest::Sha256(*d).canonical()
}

pub(crate) fn rows(sha1: &[u8; 20], matches: Vec<neardup_index::Match>) -> Vec<MatchRow> {
    neardup_index::match_rows(sha1, matches)
}

/// An answer or, for a page that could not be read, its error in its place.
pub(crate) type Answer = Result<PageResponse, ApiError>;

/// The answers of a lookup request, one per page, as `ask` says (on the pool).
fn look_up(
    app: &App,
    items: Vec<Result<Item, ApiError>>,
    ask: &neardup_index::Ask,
) -> Result<Vec<Answer>, ApiError> {
    if let Some(l) = items.iter().flatten().find_map(|i| i.label.as_ref()) {
        return Err(ApiError::bad(format!(
            "label {l:?}: a lookup adds nothing; label is for /v1/add"
        )));
    }
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(match item {
            Ok(Item { page, id, .. }) => Ok(answer(app.look(&page, ask)?, page.url, id)),
            Err(e) => Err(e),
        });
    }
    Ok(out)
}

/// The one answer of a single-page endpoint.
pub(crate) fn one(mut answers: Vec<Answer>) -> Result<Response, ApiError> {
    Ok(Json(answers.pop().expect("one page")?).into_response())
}

/// A batch's answers as NDJSON: an error in a page's place is `{"line": N, "error": KIND,
/// "message": ...}` (N counts the body's lines, or the WARC's pages).
pub(crate) fn ndjson(answers: Vec<Answer>) -> Response {
    let mut body = String::new();
    for (i, a) in answers.into_iter().enumerate() {
        let v = match a {
            Ok(r) => serde_json::to_value(r),
            Err(e) => Ok(serde_json::json!({
                "line": e.line.unwrap_or(i + 1), "error": e.kind, "message": e.message
            })),
        };
        body.push_str(&v.expect("an answer serializes").to_string());
        body.push('\n');
    }
    (
        [(axum::http::header::CONTENT_TYPE, "application/x-ndjson")],
        body,
    )
        .into_response()
}

/// The answers of a lookup request: its pages (one for `/v1/lookup`).
pub(crate) async fn lookup_answers(
    app: Arc<App>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
    single: bool,
) -> Result<Vec<Answer>, ApiError> {
    let q = page_query(query)?;
    no_if_new(&q)?;
    let ask = ask(&q)?;
    let body = body.map_err(|r| body_error(r, app.config.max_body_bytes))?;
    let kind = body_kind(&headers)?;
    on_pool(&app, move |app| {
        look_up(app, items(kind, &q, body, single)?, &ask)
    })
    .await
}

/// `POST /v1/lookup`: one page (JSON, a WARC holding one response record, or a raw HTTP
/// response with `?url=`) -> its answer.
pub(crate) async fn lookup(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    one(lookup_answers(app, headers, query, body, true).await?)
}

/// `POST /v1/lookup:batch`: pages as NDJSON (or a WARC's response records), one answer per
/// line in the same order; all of a batch runs in one slot.
pub(crate) async fn lookup_batch(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    Ok(ndjson(
        lookup_answers(app, headers, query, body, false).await?,
    ))
}

/// The query of `GET /v1/cluster/{id}`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClusterQuery {
    offset: Option<String>,
    limit: Option<String>,
}

/// Members a cluster page lists by default, and at most.
const CLUSTER_PAGE: usize = 100;
const CLUSTER_PAGE_MAX: usize = 1000;

/// `GET /v1/cluster/{id}?offset=&limit=`: the cluster's page and the held pages it matches.
pub(crate) async fn cluster(
    State(app): State<Arc<App>>,
    path: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
    query: Result<axum::extract::Query<ClusterQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let id = path.map_err(|e| ApiError::bad(e.body_text()))?.0;
    let q = query
        .map_err(|e| ApiError::bad(format!("the query: {}", e.body_text())))?
        .0;
    let id: u64 = id
        .parse()
        .map_err(|_| ApiError::bad(format!("cluster {id:?}: expected a page id")))?;
    let count = |name: &str, v: &Option<String>, default: usize, max: usize| match v {
        None => Ok(default),
        Some(s) => match s.parse::<usize>() {
            Ok(n) if n <= max => Ok(n),
            _ => Err(ApiError::bad(format!(
                "{name}={s:?}: expected a count up to {max}"
            ))),
        },
    };
    let offset = count("offset", &q.offset, 0, usize::MAX)?;
    let limit = count("limit", &q.limit, CLUSTER_PAGE, CLUSTER_PAGE_MAX)?;
    let got = on_pool(&app, move |app| {
        Ok(app
            .with_lookup(|l| l.cluster(id, offset, limit))?
            .map(neardup_index::ClusterAnswer::from))
    })
    .await?;
    let Some(c) = got else {
        return Err(ApiError::missing(format!("the index holds no page {id}")));
    };
    Ok(Json(c).into_response())
}
