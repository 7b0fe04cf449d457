//! `neardup serve`: near-duplicate lookups over HTTP against a persistent index, for crawlers
//! deciding at fetch time whether to store, skip or down-rank a page. The only crate with
//! tokio and axum; every answer comes from `neardup_engine::index` ([`Lookup`], `stats`).
//!
//! This first slice serves reads: `POST /v1/lookup` (a page as JSON: URL and HTML or text ->
//! duplicate or not, every matching indexed page with its crawl and the evidence) and
//! `POST /v1/lookup:batch` (NDJSON), `GET /cdx` (a CDX server's answer by URL), `GET
//! /v1/stats`, `GET /healthz`, `GET /readyz`, `GET /metrics` (Prometheus text: requests by
//! route and status, a latency histogram per route, errors by kind, the index's size). Work runs on tokio's blocking pool, at most
//! `max_concurrency` lookups at once (a request waits for a slot up to `request_timeout`, then
//! gets 503); a body over `max_body_bytes` gets 413; every error is JSON
//! `{"error": KIND, "message": ...}` with a 4xx status (5xx only for a failure of the index
//! itself). SIGTERM or SIGINT stops accepting connections and lets requests in flight finish.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use neardup_engine::index::{Looked, Lookup, Snapshot};
use neardup_engine::PipelineConfig;
use neardup_ingest::Page;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;

/// How the service runs.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The index folder.
    pub index: PathBuf,
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Request bodies larger than this get 413.
    pub max_body_bytes: usize,
    /// Lookups running at once at most.
    pub max_concurrency: usize,
    /// How long a request may wait for a slot and then run.
    pub request_timeout: Duration,
    /// How pages are tokenized (as `index add` did).
    pub pipeline: PipelineConfig,
}

impl ServeConfig {
    /// Defaults: 127.0.0.1:8088, 16 MiB bodies, 2 lookups per core, 10 s.
    pub fn new(index: PathBuf) -> ServeConfig {
        let pipeline = PipelineConfig::default();
        ServeConfig {
            index,
            listen: SocketAddr::from(([127, 0, 0, 1], 8088)),
            max_body_bytes: 16 << 20,
            max_concurrency: 2 * pipeline.threads.max(1),
            request_timeout: Duration::from_secs(10),
            pipeline,
        }
    }
}

/// Why the service could not start or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The index could not be opened.
    #[error(transparent)]
    Index(#[from] neardup_engine::Error),
    /// The address could not be bound, or serving failed.
    #[error("{addr}: {source}")]
    Io {
        /// The address.
        addr: SocketAddr,
        /// What went wrong.
        source: std::io::Error,
    },
}

/// The state every request shares.
struct App {
    snap: Arc<Snapshot>,
    config: ServeConfig,
    lookups: Mutex<Vec<Lookup>>,
    slots: Arc<Semaphore>,
    metrics: Metrics,
}

/// Upper bounds (seconds) of the request latency histogram.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// What `/metrics` reports (Prometheus text format).
#[derive(Default)]
struct Metrics {
    /// Requests by (route, status).
    requests: Mutex<std::collections::BTreeMap<(&'static str, u16), u64>>,
    /// Errors by kind.
    errors: Mutex<std::collections::BTreeMap<&'static str, u64>>,
    /// Requests doing work on the blocking pool now, and the most there ever were.
    running: std::sync::atomic::AtomicU64,
    running_max: std::sync::atomic::AtomicU64,
    /// Per route: counts per latency bucket (the last: above every bound), sum of seconds.
    latency: Mutex<std::collections::BTreeMap<&'static str, ([u64; BUCKETS.len() + 1], f64)>>,
}

impl Metrics {
    fn record(&self, route: &'static str, status: u16, seconds: f64) {
        *self
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry((route, status))
            .or_default() += 1;
        let mut l = self.latency.lock().unwrap_or_else(|p| p.into_inner());
        let (counts, sum) = l.entry(route).or_insert(([0; BUCKETS.len() + 1], 0.0));
        let b = BUCKETS.partition_point(|&u| u < seconds);
        counts[b] += 1;
        *sum += seconds;
    }

    fn error(&self, kind: &'static str) {
        *self
            .errors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(kind)
            .or_default() += 1;
    }

    /// The Prometheus text exposition.
    fn render(&self, snap: &Snapshot) -> String {
        use std::fmt::Write as _;
        let mut o = String::new();
        o.push_str("# HELP neardup_requests_total HTTP requests by route and status.\n");
        o.push_str("# TYPE neardup_requests_total counter\n");
        for ((route, status), n) in self
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            let _ = writeln!(
                o,
                "neardup_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        o.push_str("# HELP neardup_request_seconds Request latency by route.\n");
        o.push_str("# TYPE neardup_request_seconds histogram\n");
        for (route, (counts, sum)) in self
            .latency
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            let mut cum = 0;
            for (i, c) in counts.iter().enumerate() {
                cum += c;
                let le = BUCKETS.get(i).map_or("+Inf".to_string(), |b| b.to_string());
                let _ = writeln!(
                    o,
                    "neardup_request_seconds_bucket{{route=\"{route}\",le=\"{le}\"}} {cum}"
                );
            }
            let _ = writeln!(o, "neardup_request_seconds_sum{{route=\"{route}\"}} {sum}");
            let _ = writeln!(
                o,
                "neardup_request_seconds_count{{route=\"{route}\"}} {cum}"
            );
        }
        o.push_str("# HELP neardup_errors_total Error answers by kind.\n");
        o.push_str("# TYPE neardup_errors_total counter\n");
        for (kind, n) in self.errors.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let _ = writeln!(o, "neardup_errors_total{{kind=\"{kind}\"}} {n}");
        }
        let pages: u64 = snap
            .catalogs()
            .iter()
            .map(|(c, _)| c.ids().end - c.ids().start)
            .sum();
        let bytes: u64 = snap.manifest().segments.iter().map(|s| s.bytes).sum();
        use std::sync::atomic::Ordering::SeqCst;
        o.push_str(
            "# HELP neardup_work_running Requests doing work now (bounded by --concurrency).\n",
        );
        o.push_str("# TYPE neardup_work_running gauge\n");
        let _ = writeln!(o, "neardup_work_running {}", self.running.load(SeqCst));
        o.push_str("# HELP neardup_work_running_max The most requests ever doing work at once.\n");
        o.push_str("# TYPE neardup_work_running_max gauge\n");
        let _ = writeln!(
            o,
            "neardup_work_running_max {}",
            self.running_max.load(SeqCst)
        );
        o.push_str("# HELP neardup_index_pages Pages held by the served index snapshot.\n");
        o.push_str("# TYPE neardup_index_pages gauge\n");
        let _ = writeln!(o, "neardup_index_pages {pages}");
        o.push_str("# HELP neardup_index_bytes Bytes of the served snapshot's segments.\n");
        o.push_str("# TYPE neardup_index_bytes gauge\n");
        let _ = writeln!(o, "neardup_index_bytes {bytes}");
        o
    }
}

impl App {
    /// Looks `page` up with a pooled [`Lookup`] (made when none is free).
    fn look(&self, page: &Page) -> Result<Looked, neardup_engine::Error> {
        let pooled = self.lookups.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut l = pooled.unwrap_or_else(|| Lookup::new(self.snap.clone(), &self.config.pipeline));
        let r = l.page(page);
        self.lookups
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(l);
        r
    }
}

/// A page to look up.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LookupRequest {
    /// The page's URL.
    url: String,
    /// Its HTML (or `text`).
    #[serde(default)]
    html: Option<String>,
    /// Its text (or `html`).
    #[serde(default)]
    text: Option<String>,
    /// The caller's id, echoed.
    #[serde(default)]
    id: Option<String>,
}

/// The answer for one page.
#[derive(Debug, Serialize)]
struct LookupResponse {
    url: String,
    id: String,
    /// Whether the index would hold it as a page (200 HTML or text with terms).
    page: bool,
    /// Why not, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// It matches at least one indexed page.
    duplicate: bool,
    /// Its payload SHA-1 as `sha1:BASE32`.
    #[serde(skip_serializing_if = "Option::is_none")]
    digest: Option<String>,
    /// Every match, best first.
    matches: Vec<MatchRow>,
}

/// One indexed page a looked-up page matches, with the evidence.
#[derive(Debug, Serialize)]
struct MatchRow {
    page: u64,
    url: String,
    id: String,
    date: String,
    label: String,
    rule: neardup_dedup::Rule,
    estimated_jaccard: f64,
    exact_jaccard: Option<f64>,
    containment: f64,
    identical_payload: bool,
}

/// An error answer: `{"error": kind, "message": ...}`.
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl ApiError {
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            kind: "bad-request",
            message: message.into(),
        }
    }
}

/// The kind of an error answer, for the metrics layer.
#[derive(Clone, Copy, Debug)]
struct ErrorKind(&'static str);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({"error": self.kind, "message": self.message});
        let mut r = (self.status, Json(body)).into_response();
        r.extensions_mut().insert(ErrorKind(self.kind));
        r
    }
}

/// Counts every request by route and status, its latency, and error answers by kind.
async fn measure(
    State(app): State<Arc<App>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let route = match req.uri().path() {
        "/v1/lookup" => "/v1/lookup",
        "/v1/lookup:batch" => "/v1/lookup:batch",
        "/v1/stats" => "/v1/stats",
        "/healthz" => "/healthz",
        "/readyz" => "/readyz",
        "/metrics" => "/metrics",
        "/cdx" => "/cdx",
        _ => "other",
    };
    let start = std::time::Instant::now();
    let r = next.run(req).await;
    app.metrics
        .record(route, r.status().as_u16(), start.elapsed().as_secs_f64());
    if let Some(ErrorKind(k)) = r.extensions().get::<ErrorKind>() {
        app.metrics.error(k);
    } else if r.status().is_client_error() {
        app.metrics.error("client");
    }
    r
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        app.metrics.render(&app.snap),
    )
        .into_response()
}

impl From<BytesRejection> for ApiError {
    fn from(r: BytesRejection) -> ApiError {
        let status = r.status();
        ApiError {
            status,
            kind: if status == StatusCode::PAYLOAD_TOO_LARGE {
                "body-too-large"
            } else {
                "bad-body"
            },
            message: r.body_text(),
        }
    }
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        kind: "index",
        message: e.to_string(),
    }
}

/// Runs `work` on the blocking pool in one of the `max_concurrency` slots: a request waits
/// for a slot up to the timeout (then 503 `busy`), and gets 503 `timeout` when the work runs
/// past it; the slot stays taken until the work ends, so the limit bounds real work.
async fn on_pool<T: Send + 'static>(
    app: &Arc<App>,
    work: impl FnOnce(&App) -> Result<T, neardup_engine::Error> + Send + 'static,
) -> Result<T, ApiError> {
    let timeout = app.config.request_timeout;
    let busy = || ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        kind: "busy",
        message: format!(
            "{} requests running; none ended within {timeout:?}",
            app.config.max_concurrency
        ),
    };
    let permit = tokio::time::timeout(timeout, app.slots.clone().acquire_owned())
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())?;
    let worker = app.clone();
    let task = tokio::task::spawn_blocking(move || {
        use std::sync::atomic::Ordering::SeqCst;
        let _permit = permit;
        let m = &worker.metrics;
        let now = m.running.fetch_add(1, SeqCst) + 1;
        m.running_max.fetch_max(now, SeqCst);
        let r = work(&worker);
        m.running.fetch_sub(1, SeqCst);
        r
    });
    match tokio::time::timeout(timeout, task).await {
        Err(_) => Err(ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            kind: "timeout",
            message: format!("the request took longer than {timeout:?}"),
        }),
        Ok(Err(e)) => Err(internal(e)),
        Ok(Ok(r)) => r.map_err(internal),
    }
}

/// The page a request names; a request that names none is the caller's mistake.
fn page_of(req: &LookupRequest) -> Result<Page, ApiError> {
    if req.url.is_empty() {
        return Err(ApiError::bad("url is empty"));
    }
    let page = match (&req.html, &req.text) {
        (Some(h), None) => Page::html(req.url.clone(), h.as_bytes()),
        (None, Some(t)) => Page::text(req.url.clone(), t.as_str()),
        _ => return Err(ApiError::bad("give exactly one of html and text")),
    };
    Ok(page.with_id(req.id.clone().unwrap_or_default()))
}

/// What a lookup found, as the answer says it.
fn answer(looked: Looked, url: String, id: String) -> LookupResponse {
    match looked {
        Looked::NotPage(why) => LookupResponse {
            url,
            id,
            page: false,
            reason: Some(why),
            duplicate: false,
            digest: None,
            matches: Vec::new(),
        },
        Looked::Page { page: p, matches } => LookupResponse {
            url,
            id,
            page: true,
            reason: None,
            duplicate: !matches.is_empty(),
            digest: Some(format!(
                "sha1:{}",
                neardup_ingest::digest::base32(&p.payload_sha1)
            )),
            matches: matches
                .into_iter()
                .map(|m| MatchRow {
                    page: m.page,
                    identical_payload: m.facts.payload_sha1 == p.payload_sha1,
                    url: m.facts.url,
                    id: m.facts.user_id,
                    date: m.facts.date,
                    label: m.label,
                    rule: m.evidence.rule,
                    estimated_jaccard: m.evidence.estimated_jaccard,
                    exact_jaccard: m.evidence.exact_jaccard,
                    containment: m.evidence.containment,
                })
                .collect(),
        },
    }
}

async fn lookup(
    State(app): State<Arc<App>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<LookupResponse>, ApiError> {
    let body = body?;
    let req: LookupRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::bad(format!("the body: {e}")))?;
    let page = page_of(&req)?;
    let (looked, page) = on_pool(&app, move |app| app.look(&page).map(|l| (l, page))).await?;
    Ok(Json(answer(looked, page.url, req.id.unwrap_or_default())))
}

/// `POST /v1/lookup:batch`: one request per line (NDJSON), one answer per line in the same
/// order; a line that is not a request gets `{"line": N, "error": KIND, "message": ...}` in
/// its place (the others are answered). All of a batch runs in one slot.
async fn lookup_batch(
    State(app): State<Arc<App>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = body?;
    let text = std::str::from_utf8(&body)
        .map_err(|e| ApiError::bad(format!("the body is not UTF-8: {e}")))?
        .to_string();
    let lines = on_pool(&app, move |app| {
        let mut out = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let req = serde_json::from_str::<LookupRequest>(line)
                .map_err(|e| ApiError::bad(format!("the request: {e}")))
                .and_then(|r| page_of(&r).map(|p| (r, p)));
            let v = match req {
                Ok((r, page)) => {
                    let looked = app.look(&page)?;
                    serde_json::to_value(answer(looked, page.url, r.id.unwrap_or_default()))
                }
                Err(e) => Ok(serde_json::json!({
                    "line": i + 1, "error": e.kind, "message": e.message
                })),
            };
            out.push(v.expect("an answer serializes"));
        }
        Ok(out)
    })
    .await?;
    let mut body = String::new();
    for v in lines {
        body.push_str(&v.to_string());
        body.push('\n');
    }
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/x-ndjson")],
        body,
    )
        .into_response())
}

/// The query of `GET /cdx` (the CDX server API's names).
#[derive(Debug, Deserialize)]
struct CdxQuery {
    url: Option<String>,
    fl: Option<String>,
    limit: Option<i64>,
    filter: Option<String>,
}

/// The fields a CDX line can hold here, in the default order; `label` and `page` are
/// neardup's extensions (the crawl a capture was added with, its index page id).
const CDX_FIELDS: [&str; 9] = [
    "urlkey",
    "timestamp",
    "original",
    "mimetype",
    "statuscode",
    "digest",
    "length",
    "label",
    "page",
];

/// `2026-05-01T10:20:30Z` -> `20260501102030`; `-` when the date has not 14 digits.
fn cdx_timestamp(date: &str) -> String {
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
/// payload SHA-1s in base32, as WARC-Payload-Digest without its `sha1:`. The index holds
/// only responses (no revisits), so `!mimetype:warc/revisit` keeps every capture; fields the
/// index does not keep (mimetype, length) are `-`.
async fn cdx(
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
    let captures = on_pool(&app, move |app| {
        app.snap.by_url(&url).map_err(neardup_engine::Error::from)
    })
    .await?;
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
                _ => "-".into(),
            }
        };
        let keep = filters
            .iter()
            .all(|(neg, field, v)| (value(field) == *v) != *neg);
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
    let rows: &[Vec<String>] = match q.limit {
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
fn cdx_urlkey(url: &str) -> String {
    url.split_once("://")
        .map_or(url, |(_, rest)| rest)
        .trim_end_matches('/')
        .to_ascii_lowercase()
}

async fn stats(State(app): State<Arc<App>>) -> Result<Response, ApiError> {
    let dir = app.config.index.clone();
    let s = tokio::task::spawn_blocking(move || neardup_engine::index::stats(&dir))
        .await
        .map_err(internal)?
        .map_err(internal)?;
    Ok(Json(s).into_response())
}

async fn ready(State(app): State<Arc<App>>) -> Response {
    let m = app.snap.manifest();
    Json(serde_json::json!({"ready": true, "generation": m.generation, "pages": m.next_page}))
        .into_response()
}

async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        kind: "not-found",
        message: "no such endpoint; see /v1/lookup, /cdx, /v1/stats, /healthz, /readyz, /metrics"
            .into(),
    }
}

/// The service's routes over the index `config` names (opened now: a snapshot of it).
fn router(config: ServeConfig) -> Result<Router, ServeError> {
    let snap = Arc::new(Snapshot::open(&config.index).map_err(neardup_engine::Error::from)?);
    let app = Arc::new(App {
        snap,
        slots: Arc::new(Semaphore::new(config.max_concurrency.max(1))),
        lookups: Mutex::new(Vec::new()),
        config: config.clone(),
        metrics: Metrics::default(),
    });
    Ok(Router::new()
        .route("/v1/lookup", post(lookup))
        .route("/v1/lookup:batch", post(lookup_batch))
        .route("/v1/stats", get(stats))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics))
        .route("/cdx", get(cdx))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        .layer(axum::middleware::from_fn_with_state(app.clone(), measure))
        .with_state(app))
}

/// Serves until SIGTERM or SIGINT (requests in flight finish); `on_listening` is told the
/// bound address (port 0 picks one). Builds its own runtime.
pub fn run(config: ServeConfig, on_listening: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let addr = config.listen;
    let io = |source| ServeError::Io { addr, source };
    let router = router(config)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(io)?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(io)?;
        on_listening(listener.local_addr().map_err(io)?);
        axum::serve(listener, router)
            .with_graceful_shutdown(stop_signal())
            .await
            .map_err(io)
    })
}

/// SIGTERM or SIGINT.
async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate());
    let int = signal(SignalKind::interrupt());
    match (term, int) {
        (Ok(mut t), Ok(mut i)) => {
            tokio::select! {
                _ = t.recv() => {}
                _ = i.recv() => {}
            }
        }
        _ => std::future::pending::<()>().await,
    }
}
