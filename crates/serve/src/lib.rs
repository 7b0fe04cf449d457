//! `neardup serve`: near-duplicate lookups and adds over HTTP against a persistent index, for
//! crawlers deciding at fetch time whether to store, skip or down-rank a page. The only crate
//! with tokio and axum; every answer comes from `neardup_engine::index` ([`Lookup`],
//! [`Writer`], `stats`): this crate only translates HTTP to it and back.
//!
//! Endpoints (`openapi.yaml` in this crate describes each; the tests check the server
//! against it): `POST /v1/lookup` and `POST /v1/lookup:batch` (a page as JSON, NDJSON, a raw
//! WARC or a raw HTTP response -> duplicate or not, every matching indexed page with its crawl
//! and the evidence), `POST /v1/add` and `POST /v1/add:batch` (acknowledged once durable; a
//! retried page is held, not added twice; `?if-new=1` checks and adds in one step), `GET
//! /cdx` (a CDX server's answer by URL), `GET /v1/stats`, `/healthz`, `/readyz`, `/metrics`.
//!
//! Work runs on tokio's blocking pool, at most `max_concurrency` requests at once (a request
//! waits for a slot up to `request_timeout`, then gets 503); adds are sketched there and
//! committed by one writer thread in groups (everything that arrived while the last group was
//! being made durable), which then merges small segments in tiers. A body over
//! `max_body_bytes` gets 413; every error is JSON `{"error": KIND, "message": ...}` with a 4xx
//! status (5xx only for a failure of the index itself). Writes need the token when one is
//! set, and are refused when listening beyond loopback without one, or with `read_only` (then
//! the index is reopened when another process commits to it). SIGTERM or SIGINT stops
//! accepting connections, lets requests in flight finish and commits their adds.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use neardup_engine::index::{Added, Looked, Lookup, NewPage, Snapshot, Writer};
use neardup_engine::PipelineConfig;
use neardup_ingest::Page;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
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
    /// Refuse every write; the index is reopened when another process commits to it.
    pub read_only: bool,
    /// The bearer token writes need (`Authorization: Bearer TOKEN`); without one, writes are
    /// refused unless the service listens on loopback only.
    pub token: Option<String>,
    /// The crawl label of adds that name none.
    pub label: String,
    /// How often a read-only service looks for a newer manifest.
    pub refresh: Duration,
    /// Pages committed in one group at most.
    pub max_group_pages: usize,
    /// Bytes of index segments held in memory (read whole at start and as they are
    /// written), so that their lookups make no system call; the rest is read from disk.
    pub cache_bytes: u64,
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
            read_only: false,
            token: None,
            label: "serve".into(),
            refresh: Duration::from_secs(1),
            max_group_pages: 4096,
            cache_bytes: 1 << 30,
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
    /// The snapshot requests read (replaced by the writer after every commit, or by the
    /// refresher of a read-only service).
    snap: Arc<RwLock<Arc<Snapshot>>>,
    config: ServeConfig,
    lookups: Mutex<Vec<Lookup>>,
    slots: Arc<Semaphore>,
    metrics: Arc<Metrics>,
    writes: Writes,
    /// The writer thread's queue; taken (closed) at shutdown.
    writer: Mutex<Option<std::sync::mpsc::Sender<AddJob>>>,
}

/// Why a group of adds was not committed (the index's error, told to every request of the
/// group).
#[derive(Debug, thiserror::Error)]
#[error("the add was not committed: {0}")]
struct CommitFailed(String);

/// Whether and how writes are allowed.
#[derive(Debug)]
enum Writes {
    /// Allowed (listening on loopback, no token set).
    Open,
    /// Allowed with this bearer token.
    Token(String),
    /// `--read-only`.
    ReadOnly,
    /// Listening beyond loopback without a token.
    Refused,
}

/// Pages for the writer thread, and where its answer goes.
struct AddJob {
    label: String,
    pages: Vec<NewPage>,
    /// How many answers the job wants (its pages, before the writer takes them).
    reply_len: usize,
    reply: tokio::sync::oneshot::Sender<Result<Vec<Added>, CommitFailed>>,
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
    /// Groups committed, pages added, tier merges, snapshots reopened (read-only).
    commits: std::sync::atomic::AtomicU64,
    added: std::sync::atomic::AtomicU64,
    merges: std::sync::atomic::AtomicU64,
    reopened: std::sync::atomic::AtomicU64,
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
        for (name, help, v) in [
            (
                "neardup_commits_total",
                "Groups of adds committed.",
                &self.commits,
            ),
            ("neardup_added_pages_total", "Pages added.", &self.added),
            (
                "neardup_merges_total",
                "Tier merges of small segments.",
                &self.merges,
            ),
            (
                "neardup_snapshots_reopened_total",
                "Newer manifests opened (read-only service).",
                &self.reopened,
            ),
        ] {
            let _ = writeln!(o, "# HELP {name} {help}\n# TYPE {name} counter");
            let _ = writeln!(o, "{name} {}", v.load(SeqCst));
        }
        o.push_str("# HELP neardup_index_pages Pages held by the served index snapshot.\n");
        o.push_str("# TYPE neardup_index_pages gauge\n");
        let _ = writeln!(o, "neardup_index_pages {pages}");
        o.push_str("# HELP neardup_index_cached_bytes Bytes of segments read from memory.\n");
        o.push_str("# TYPE neardup_index_cached_bytes gauge\n");
        let _ = writeln!(o, "neardup_index_cached_bytes {}", snap.cached_bytes());
        o.push_str("# HELP neardup_index_bytes Bytes of the served snapshot's segments.\n");
        o.push_str("# TYPE neardup_index_bytes gauge\n");
        let _ = writeln!(o, "neardup_index_bytes {bytes}");
        o
    }
}

impl App {
    /// The snapshot requests read now.
    fn snap(&self) -> Arc<Snapshot> {
        self.snap.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Runs `f` with a pooled [`Lookup`] (made when none is free) on the current snapshot.
    fn with_lookup<T>(&self, f: impl FnOnce(&mut Lookup) -> T) -> T {
        let snap = self.snap();
        let pooled = self.lookups.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut l = pooled.unwrap_or_else(|| Lookup::new(snap.clone(), &self.config.pipeline));
        if !Arc::ptr_eq(l.snapshot(), &snap) {
            l.set_snapshot(snap);
        }
        let r = f(&mut l);
        self.lookups
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(l);
        r
    }

    /// Looks `page` up, reporting `limit` matches at most.
    fn look(&self, page: &Page, limit: usize) -> Result<Looked, neardup_engine::Error> {
        self.with_lookup(|l| l.page_upto(page, limit))
    }

    /// Sketches `page` as an add does: the page, or why it is not one.
    fn sketch(
        &self,
        page: &Page,
    ) -> Result<neardup_index::CatalogPage, neardup_engine::index::NotIndexed> {
        self.with_lookup(|l| l.sketch(page).cloned())
    }

    /// Whether the request may write, from its `Authorization` header.
    fn authorize(&self, headers: &axum::http::HeaderMap) -> Result<(), ApiError> {
        let forbidden = |kind, message: String| ApiError {
            line: NO_LINE,
            status: StatusCode::FORBIDDEN,
            kind,
            message,
        };
        match &self.writes {
            Writes::Open => Ok(()),
            Writes::ReadOnly => Err(forbidden(
                "read-only",
                "the service was started with --read-only".into(),
            )),
            Writes::Refused => Err(forbidden(
                "writes-refused",
                format!(
                    "the service listens on {}, beyond loopback, and has no token: start it with --token-file to take writes",
                    self.config.listen
                ),
            )),
            Writes::Token(want) => {
                let given = headers
                    .get(axum::http::header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.strip_prefix("Bearer "))
                    .unwrap_or("");
                if same_secret(given.as_bytes(), want.as_bytes()) {
                    Ok(())
                } else {
                    Err(ApiError { line: NO_LINE,
                        status: StatusCode::UNAUTHORIZED,
                        kind: "unauthorized",
                        message: "writes need the header Authorization: Bearer TOKEN (the service's --token-file)".into(),
                    })
                }
            }
        }
    }
}

/// Compares a given secret with the wanted one in time that does not depend on where they
/// differ.
fn same_secret(given: &[u8], want: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != want.len());
    for (i, w) in want.iter().enumerate() {
        diff |= w ^ given.get(i).copied().unwrap_or(!w);
    }
    diff == 0
}

/// A page to look up or add, as JSON.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PageRequest {
    /// The page's URL.
    url: String,
    /// Its HTML (or `text`).
    #[serde(default, deserialize_with = "string")]
    html: Option<String>,
    /// Its text (or `html`).
    #[serde(default, deserialize_with = "string")]
    text: Option<String>,
    /// The caller's id, echoed (and kept by an add).
    #[serde(default, deserialize_with = "string")]
    id: Option<String>,
    /// When it was fetched (ISO 8601), kept by an add.
    #[serde(default, deserialize_with = "string")]
    date: Option<String>,
    /// The crawl an add puts it in (the service's label when none); not for lookups.
    #[serde(default, deserialize_with = "string")]
    label: Option<String>,
}

/// A field that may be missing but, when there, is a string (`null` is the caller's
/// mistake, not a missing field).
fn string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// The query of the lookup and add endpoints: `if-new` for adds; `url`, `date` and `id` name
/// a raw HTTP response's page; `label` the crawl of adds whose body names none.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PageQuery {
    #[serde(rename = "if-new")]
    if_new: Option<String>,
    /// Lookups: matches reported at most (default [`DEFAULT_MATCHES`]; 0: all).
    matches: Option<String>,
    url: Option<String>,
    date: Option<String>,
    id: Option<String>,
    label: Option<String>,
}

/// Matches a lookup reports by default, the likeliest first (`?matches=0`: every one).
const DEFAULT_MATCHES: usize = 10;

/// One page of a request: the page, the caller's id, the crawl label it names.
struct Item {
    page: Page,
    id: String,
    label: Option<String>,
}

/// The answer for one page.
#[derive(Debug, Serialize)]
struct PageResponse {
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
    /// Adds: `added`, `held` (already in the index: nothing added), `duplicate` (`if-new`
    /// and it matches: not added) or `not-page`.
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
    /// Adds: the id the page has in the index (added or held).
    #[serde(skip_serializing_if = "Option::is_none")]
    page_id: Option<u64>,
    /// Adds: the crawl it was added to.
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    /// Every match, best first (up to the lookup's `matches`).
    matches: Vec<MatchRow>,
    /// Lookups: the limit was reached with candidates left unscored (there may be more
    /// matches; `?matches=0` reports all).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    more_matches: bool,
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
    /// The line of a batch's body it is about.
    line: Option<usize>,
}

/// No line: what every error but a batch line's has.
const NO_LINE: Option<usize> = None;

impl ApiError {
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            line: NO_LINE,
            status: StatusCode::BAD_REQUEST,
            kind: "bad-request",
            message: message.into(),
        }
    }

    fn on_line(self, line: usize) -> ApiError {
        ApiError {
            line: Some(line),
            ..self
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

/// Every route the service has (`openapi.yaml` documents each; a unit test checks).
const ROUTES: [&str; 9] = [
    "/v1/lookup",
    "/v1/lookup:batch",
    "/v1/add",
    "/v1/add:batch",
    "/cdx",
    "/v1/stats",
    "/healthz",
    "/readyz",
    "/metrics",
];

/// Counts every request by route and status, its latency, and error answers by kind.
async fn measure(
    State(app): State<Arc<App>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = req.uri().path();
    let route = ROUTES
        .iter()
        .find(|r| **r == path)
        .copied()
        .unwrap_or("other");
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
        app.metrics.render(&app.snap()),
    )
        .into_response()
}

impl From<BytesRejection> for ApiError {
    fn from(r: BytesRejection) -> ApiError {
        let status = r.status();
        ApiError {
            line: NO_LINE,
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
        line: NO_LINE,
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
        line: NO_LINE,
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
            line: NO_LINE,
            status: StatusCode::SERVICE_UNAVAILABLE,
            kind: "timeout",
            message: format!("the request took longer than {timeout:?}"),
        }),
        Ok(Err(e)) => Err(internal(e)),
        Ok(Ok(r)) => r.map_err(internal),
    }
}

/// The page a JSON request names; a request that names none is the caller's mistake.
fn item_of(req: PageRequest) -> Result<Item, ApiError> {
    if req.url.is_empty() {
        return Err(ApiError::bad("url is empty"));
    }
    let page = match (req.html, req.text) {
        (Some(h), None) => Page::html(req.url, h.into_bytes()),
        (None, Some(t)) => Page::text(req.url, t),
        _ => return Err(ApiError::bad("give exactly one of html and text")),
    };
    let id = req.id.unwrap_or_default();
    Ok(Item {
        page: page
            .with_id(id.clone())
            .with_date(req.date.unwrap_or_default()),
        id,
        label: req.label,
    })
}

/// How a request body is read, from its `Content-Type`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum BodyKind {
    /// A JSON page (one per line in a batch). Also when no type is given.
    Json,
    /// `application/warc`: WARC records (gzipped or not), a page per response record.
    Warc,
    /// `application/http`: one raw HTTP response; the query names its `url`.
    Http,
}

fn body_kind(headers: &axum::http::HeaderMap) -> Result<BodyKind, ApiError> {
    let ct = headers
        .get(axum::http::header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("?").to_ascii_lowercase());
    let essence = ct
        .as_deref()
        .map(|c| c.split(';').next().unwrap_or("").trim().to_string());
    match essence.as_deref() {
        None | Some("application/json" | "application/x-ndjson" | "text/plain" | "") => {
            Ok(BodyKind::Json)
        }
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
fn items(
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

/// What a lookup found, as the answer says it.
fn answer(looked: Looked, url: String, id: String) -> PageResponse {
    match looked {
        Looked::NotPage(why) => not_page(url, id, why),
        Looked::Page {
            page: p,
            matches,
            more,
        } => PageResponse {
            url,
            id,
            page: true,
            reason: None,
            duplicate: !matches.is_empty(),
            digest: Some(digest(&p.payload_sha1)),
            status: None,
            page_id: None,
            label: None,
            matches: rows(&p.payload_sha1, matches),
            more_matches: more,
        },
    }
}

fn not_page(url: String, id: String, why: String) -> PageResponse {
    PageResponse {
        url,
        id,
        page: false,
        reason: Some(why),
        duplicate: false,
        digest: None,
        status: None,
        page_id: None,
        label: None,
        matches: Vec::new(),
        more_matches: false,
    }
}

fn digest(sha1: &[u8; 20]) -> String {
    format!("sha1:{}", neardup_ingest::digest::base32(sha1))
}

fn rows(sha1: &[u8; 20], matches: Vec<neardup_engine::index::Match>) -> Vec<MatchRow> {
    matches
        .into_iter()
        .map(|m| MatchRow {
            page: m.page,
            identical_payload: &m.facts.payload_sha1 == sha1,
            url: m.facts.url,
            id: m.facts.user_id,
            date: m.facts.date,
            label: m.label,
            rule: m.evidence.rule,
            estimated_jaccard: m.evidence.estimated_jaccard,
            exact_jaccard: m.evidence.exact_jaccard,
            containment: m.evidence.containment,
        })
        .collect()
}

/// An answer or, for a page that could not be read, its error in its place.
type Answer = Result<PageResponse, ApiError>;

/// The answers of a lookup request, one per page, `limit` matches each at most.
async fn look_up(
    app: &Arc<App>,
    items: Vec<Result<Item, ApiError>>,
    limit: usize,
) -> Result<Vec<Answer>, ApiError> {
    if let Some(l) = items.iter().flatten().find_map(|i| i.label.as_ref()) {
        return Err(ApiError::bad(format!(
            "label {l:?}: a lookup adds nothing; label is for /v1/add"
        )));
    }
    on_pool(app, move |app| {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            out.push(match item {
                Ok(Item { page, id, .. }) => Ok(answer(app.look(&page, limit)?, page.url, id)),
                Err(e) => Err(e),
            });
        }
        Ok(out)
    })
    .await
}

/// The query of a lookup or add, or the caller's mistake.
fn page_query(
    query: Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<PageQuery, ApiError> {
    query
        .map(|q| q.0)
        .map_err(|e| ApiError::bad(format!("the query: {}", e.body_text())))
}

/// The query extractor of the page endpoints (its rejection becomes a JSON error).
type PageQueryArg =
    Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>;

/// The one answer of a single-page endpoint.
fn one(mut answers: Vec<Answer>) -> Result<Response, ApiError> {
    Ok(Json(answers.pop().expect("one page")?).into_response())
}

/// A batch's answers as NDJSON: an error in a page's place is `{"line": N, "error": KIND,
/// "message": ...}` (N counts the body's lines, or the WARC's pages).
fn ndjson(answers: Vec<Answer>) -> Response {
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
async fn lookup_answers(
    app: Arc<App>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
    single: bool,
) -> Result<Vec<Answer>, ApiError> {
    let q = page_query(query)?;
    no_if_new(&q)?;
    let limit = match_limit(&q)?;
    let items = items(body_kind(&headers)?, &q, body?, single)?;
    look_up(&app, items, limit).await
}

/// `POST /v1/lookup`: one page (JSON, a WARC holding one response record, or a raw HTTP
/// response with `?url=`) -> its answer.
async fn lookup(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    one(lookup_answers(app, headers, query, body, true).await?)
}

/// `POST /v1/lookup:batch`: pages as NDJSON (or a WARC's response records), one answer per
/// line in the same order; all of a batch runs in one slot.
async fn lookup_batch(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    Ok(ndjson(
        lookup_answers(app, headers, query, body, false).await?,
    ))
}

/// `?matches=N`: matches a lookup reports at most (0: all).
fn match_limit(q: &PageQuery) -> Result<usize, ApiError> {
    match q.matches.as_deref() {
        None => Ok(DEFAULT_MATCHES),
        Some(n) => match n.parse::<usize>() {
            Ok(0) => Ok(usize::MAX),
            Ok(n) => Ok(n),
            Err(_) => Err(ApiError::bad(format!(
                "matches={n:?}: expected a count (0: every match)"
            ))),
        },
    }
}

/// A lookup's query names no add setting.
fn no_if_new(q: &PageQuery) -> Result<(), ApiError> {
    match (&q.if_new, &q.label) {
        (Some(_), _) => Err(ApiError::bad("if-new is for adds (/v1/add)")),
        (_, Some(_)) => Err(ApiError::bad("label is for adds (/v1/add)")),
        _ => Ok(()),
    }
}

/// Whether `?if-new=` says yes.
fn if_new(q: &PageQuery) -> Result<bool, ApiError> {
    match q.if_new.as_deref() {
        None | Some("0" | "false") => Ok(false),
        Some("1" | "true" | "") => Ok(true),
        Some(other) => Err(ApiError::bad(format!(
            "if-new={other:?}: expected 1, true, 0 or false"
        ))),
    }
}

/// A crawl label an add may use: 1 to 256 bytes, no control characters.
fn check_label(label: &str) -> Result<(), ApiError> {
    if label.is_empty() || label.chars().count() > 256 || label.chars().any(char::is_control) {
        return Err(ApiError::bad(format!(
            "label {label:?}: expected 1 to 256 characters, no control characters"
        )));
    }
    Ok(())
}

/// The answers of an add request, one per page: every page sketched on the pool, then
/// committed by the writer thread, answered once durable.
async fn add_pages(
    app: &Arc<App>,
    items: Vec<Result<Item, ApiError>>,
    if_new: bool,
    label: Option<String>,
) -> Result<Vec<Answer>, ApiError> {
    let label = label.unwrap_or_else(|| app.config.label.clone());
    check_label(&label)?;
    for l in items.iter().flatten().filter_map(|i| i.label.as_deref()) {
        check_label(l)?;
    }
    // Each page's answer when it needs no commit, else its place in a job for the writer
    // (consecutive pages of one label go in one job).
    let sketched = on_pool(app, move |app| {
        Ok(items
            .into_iter()
            .map(|item| {
                item.map(|i| {
                    let label = i.label.unwrap_or_else(|| label.clone());
                    let page = app.sketch(&i.page);
                    (i.page.url, i.id, label, page)
                })
            })
            .collect::<Vec<_>>())
    })
    .await?;
    let mut answers: Vec<Answer> = Vec::with_capacity(sketched.len());
    let mut sha1s = vec![[0u8; 20]; sketched.len()];
    let mut jobs: Vec<(String, Vec<NewPage>, Vec<usize>)> = Vec::new();
    for (i, s) in sketched.into_iter().enumerate() {
        let (url, id, label, page) = match s {
            Err(e) => {
                answers.push(Err(e));
                continue;
            }
            Ok(s) => s,
        };
        let page = match page {
            Err(neardup_engine::index::NotIndexed(why)) => {
                answers.push(Ok(PageResponse {
                    status: Some("not-page"),
                    ..not_page(url, id, why)
                }));
                continue;
            }
            Ok(p) => p,
        };
        sha1s[i] = page.payload_sha1;
        answers.push(Ok(PageResponse {
            url,
            id,
            page: true,
            reason: None,
            duplicate: false,
            digest: Some(digest(&page.payload_sha1)),
            status: None,
            page_id: None,
            label: Some(label.clone()),
            matches: Vec::new(),
            more_matches: false,
        }));
        let new = NewPage { page, if_new };
        match jobs.last_mut() {
            Some((l, pages, at)) if *l == label => {
                pages.push(new);
                at.push(i);
            }
            _ => jobs.push((label, vec![new], vec![i])),
        }
    }
    for (label, pages, at) in jobs {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let sender = app
            .writer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(stopping)?;
        sender
            .send(AddJob {
                label,
                reply_len: pages.len(),
                pages,
                reply,
            })
            .map_err(|_| stopping())?;
        let timeout = app.config.request_timeout;
        let added = tokio::time::timeout(timeout, answer)
            .await
            .map_err(|_| ApiError { line: NO_LINE,
                status: StatusCode::SERVICE_UNAVAILABLE,
                kind: "timeout",
                message: format!(
                    "the add was not committed within {timeout:?}; it may still be: send it again (a page already held is not added twice)"
                ),
            })?
            .map_err(|_| stopping())?
            .map_err(internal)?;
        for (i, a) in at.into_iter().zip(added) {
            let Ok(r) = &mut answers[i] else {
                continue;
            };
            match a {
                Added::Added(p) => (r.status, r.page_id) = (Some("added"), Some(p)),
                Added::Held(p) => (r.status, r.page_id) = (Some("held"), Some(p)),
                Added::Duplicate(ms) => {
                    r.status = Some("duplicate");
                    r.duplicate = true;
                    r.label = None;
                    r.matches = rows(&sha1s[i], ms);
                }
            }
        }
    }
    Ok(answers)
}

fn stopping() -> ApiError {
    ApiError {
        line: NO_LINE,
        status: StatusCode::SERVICE_UNAVAILABLE,
        kind: "stopping",
        message: "the service is stopping; the add was not taken".into(),
    }
}

/// The answers of an add request: its pages (one for `/v1/add`), added to the index.
async fn add_answers(
    app: Arc<App>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
    single: bool,
) -> Result<Vec<Answer>, ApiError> {
    app.authorize(&headers)?;
    let q = page_query(query)?;
    if q.matches.is_some() {
        return Err(ApiError::bad("matches is for lookups"));
    }
    let new = if_new(&q)?;
    let items = items(body_kind(&headers)?, &q, body?, single)?;
    add_pages(&app, items, new, q.label).await
}

/// `POST /v1/add[?if-new=1]`: one page (as `/v1/lookup` takes it) added to the index,
/// answered once durable.
async fn add(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    one(add_answers(app, headers, query, body, true).await?)
}

/// `POST /v1/add:batch[?if-new=1]`: pages as NDJSON (or a WARC's response records), one
/// answer per line in the same order, once all are durable.
async fn add_batch(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    Ok(ndjson(add_answers(app, headers, query, body, false).await?))
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
        app.snap().by_url(&url).map_err(neardup_engine::Error::from)
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
    let snap = app.snap();
    let m = snap.manifest();
    Json(serde_json::json!({"ready": true, "generation": m.generation, "pages": m.next_page}))
        .into_response()
}

async fn not_found() -> ApiError {
    ApiError { line: NO_LINE,
        status: StatusCode::NOT_FOUND,
        kind: "not-found",
        message: "no such endpoint; see /v1/lookup, /v1/lookup:batch, /v1/add, /v1/add:batch, /cdx, /v1/stats, /healthz, /readyz, /metrics"
            .into(),
    }
}

/// The service's routes over `app`.
fn router(app: Arc<App>) -> Router {
    let max_body = app.config.max_body_bytes;
    Router::new()
        .route("/v1/lookup", post(lookup))
        .route("/v1/lookup:batch", post(lookup_batch))
        .route("/v1/add", post(add))
        .route("/v1/add:batch", post(add_batch))
        .route("/v1/stats", get(stats))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics))
        .route("/cdx", get(cdx))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn_with_state(app.clone(), measure))
        .with_state(app)
}

/// Serves until SIGTERM or SIGINT (requests in flight finish, their adds are committed);
/// `on_listening` is told the bound address (port 0 picks one). Unless read-only, holds the
/// index's writer lock from start to end. Builds its own runtime.
pub fn run(config: ServeConfig, on_listening: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let addr = config.listen;
    let io = |source| ServeError::Io { addr, source };
    let writer = match config.read_only {
        true => None,
        false => Some(Writer::open_cached(&config.index, config.cache_bytes)?),
    };
    let snap = match &writer {
        Some(w) => w.snapshot().clone(),
        None => Arc::new(
            Snapshot::open_cached(&config.index, config.cache_bytes)
                .map_err(neardup_engine::Error::from)?,
        ),
    };
    let writes = match (&config.token, config.read_only) {
        (_, true) => Writes::ReadOnly,
        (Some(t), false) => Writes::Token(t.clone()),
        (None, false) if addr.ip().is_loopback() => Writes::Open,
        (None, false) => Writes::Refused,
    };
    let (queue, jobs) = std::sync::mpsc::channel();
    let app = Arc::new(App {
        snap: Arc::new(RwLock::new(snap)),
        slots: Arc::new(Semaphore::new(config.max_concurrency.max(1))),
        lookups: Mutex::new(Vec::new()),
        metrics: Arc::new(Metrics::default()),
        writes,
        writer: Mutex::new(writer.is_some().then_some(queue)),
        config,
    });
    let writing = match writer {
        Some(w) => {
            let (cell, metrics) = (app.snap.clone(), app.metrics.clone());
            let max = app.config.max_group_pages.max(1);
            Some(
                std::thread::Builder::new()
                    .name("neardup-writer".into())
                    .spawn(move || write_loop(w, jobs, &cell, &metrics, max))
                    .map_err(io)?,
            )
        }
        None => None,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(io)?;
    let served = rt.block_on({
        let app = app.clone();
        async move {
            let listener = tokio::net::TcpListener::bind(addr).await.map_err(io)?;
            on_listening(listener.local_addr().map_err(io)?);
            if app.config.read_only {
                tokio::spawn(refresh_loop(app.clone()));
            }
            // Answers go out as soon as they are written (no Nagle delay behind a small
            // response).
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(listener, router(app))
                .with_graceful_shutdown(stop_signal())
                .await
                .map_err(io)
        }
    });
    // The writer commits what it was given, then ends with its queue.
    app.writer.lock().unwrap_or_else(|p| p.into_inner()).take();
    drop(rt);
    if let Some(t) = writing {
        let _ = t.join();
    }
    served
}

/// The writer thread: takes every job waiting (up to `max` pages), commits consecutive jobs
/// of one label as one group, answers each job, publishes the new snapshot, then merges
/// small segments when they pile up; ends when the queue closes and is empty.
fn write_loop(
    mut w: Writer,
    jobs: std::sync::mpsc::Receiver<AddJob>,
    cell: &RwLock<Arc<Snapshot>>,
    metrics: &Metrics,
    max: usize,
) {
    use std::sync::atomic::Ordering::SeqCst;
    let publish = |w: &Writer| {
        *cell.write().unwrap_or_else(|p| p.into_inner()) = w.snapshot().clone();
    };
    while let Ok(job) = jobs.recv() {
        let mut taken = job.pages.len();
        let mut group = vec![job];
        while taken < max {
            match jobs.try_recv() {
                Ok(j) => {
                    taken += j.pages.len();
                    group.push(j);
                }
                Err(_) => break,
            }
        }
        let mut group = group.into_iter().peekable();
        while let Some(first) = group.next() {
            let mut same = vec![first];
            while let Some(j) = group.next_if(|j| j.label == same[0].label) {
                same.push(j);
            }
            let pages: Vec<NewPage> = same
                .iter_mut()
                .flat_map(|j| std::mem::take(&mut j.pages))
                .collect();
            let counts: Vec<usize> = same.iter().map(|j| j.reply_len).collect();
            match w.add(&same[0].label, &pages) {
                Ok(added) => {
                    publish(&w);
                    metrics.commits.fetch_add(1, SeqCst);
                    let n = added
                        .iter()
                        .filter(|a| matches!(a, Added::Added(_)))
                        .count();
                    metrics.added.fetch_add(n as u64, SeqCst);
                    let mut added = added.into_iter();
                    for (j, n) in same.into_iter().zip(counts) {
                        let _ = j.reply.send(Ok(added.by_ref().take(n).collect()));
                    }
                }
                Err(e) => {
                    metrics.error("commit");
                    for j in same {
                        let _ = j.reply.send(Err(CommitFailed(e.to_string())));
                    }
                }
            }
        }
        match w.maintain() {
            Ok(Some(_)) => {
                publish(&w);
                metrics.merges.fetch_add(1, SeqCst);
            }
            Ok(None) => {}
            Err(e) => {
                metrics.error("merge");
                eprintln!("neardup serve: merging segments: {e}");
            }
        }
    }
}

/// A read-only service's refresher: opens the index's newer manifest when another process
/// committed one (readers keep the snapshot they hold).
async fn refresh_loop(app: Arc<App>) {
    loop {
        tokio::time::sleep(app.config.refresh).await;
        let app = app.clone();
        let _ = tokio::task::spawn_blocking(move || {
            let dir = &app.config.index;
            let now = app.snap();
            match neardup_index::Manifest::open(dir) {
                Ok(m) if m.generation != now.manifest().generation => match now.refreshed(dir, m) {
                    Ok(s) => {
                        *app.snap.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(s);
                        app.metrics
                            .reopened
                            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                    Err(e) => {
                        app.metrics.error("refresh");
                        eprintln!("neardup serve: opening the index's new snapshot: {e}");
                    }
                },
                Ok(_) => {}
                Err(e) => {
                    app.metrics.error("refresh");
                    eprintln!("neardup serve: reading the index's manifest: {e}");
                }
            }
        })
        .await;
    }
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

#[cfg(test)]
mod tests {
    /// The paths `openapi.yaml` documents.
    fn documented() -> Vec<String> {
        let spec = include_str!("../openapi.yaml");
        let paths = &spec[spec.find("\npaths:\n").expect("a paths section")..];
        paths
            .lines()
            .filter_map(|l| l.strip_prefix("  /"))
            .map(|l| format!("/{}", l.trim_end_matches(':')))
            .collect()
    }

    #[test]
    fn the_openapi_file_documents_every_route_and_no_other() {
        let mut want: Vec<&str> = super::ROUTES.to_vec();
        want.sort_unstable();
        let mut got = documented();
        got.sort_unstable();
        assert_eq!(got, want);
    }
}
