//! `neardup serve`: near-duplicate lookups and adds over HTTP against a persistent index, for
//! crawlers deciding at fetch time whether to store, skip or down-rank a page. The only crate
//! with tokio and axum; every answer comes from one [`neardup_index::Index`] (its lookups,
//! writer and stats): this crate only translates HTTP to it and back. Modules: `config`,
//! `batch`, `conn` (the accept loop; hyper's own error answers given JSON bodies), `errors`, `state`, `metrics`, `status`, `request` (bodies and queries), `lookup`, `add`,
//! `cdx`, `writer`.
//!
//! Endpoints (`openapi.yaml` in this crate describes each; the tests check the server
//! against it): `POST /v1/lookup` and `POST /v1/lookup:batch` (a page as JSON, NDJSON, a raw
//! WARC or a raw HTTP response -> duplicate or not, every matching indexed page with its crawl
//! and the evidence), `POST /v1/add` and `POST /v1/add:batch` (acknowledged once durable; a
//! retried page is held, not added twice; `?if-new=1` checks and adds in one step), `GET
//! /cdx` (a CDX server's answer by URL), `GET /v1/stats`, `/healthz`, `/readyz`, `/metrics`.
//!
//! Work runs on tokio's blocking pool, at most `max_concurrency` requests at once (a request
//! waits for a slot up to `request_timeout`, then gets 503), bodies parsed there too (the
//! runtime's threads only move bytes; the pool's threads are `SCHED_BATCH`, `batch`, so that
//! the runtime's threads get a core as soon as a request or an answer is ready); adds are sketched there and
//! committed by one writer thread in groups (everything that arrived while the last group was
//! being made durable), which then merges small segments in tiers. A body over
//! `max_body_bytes` gets 413, one not sent within `body_timeout` 408; headers not sent within
//! `header_timeout` close the connection; past `max_connections` a connection gets 503; bodies
//! held at once stay within `max_buffered_bytes` (one that cannot reserve its length within
//! `request_timeout` gets 503); an add
//! the full disk cannot hold gets 507. Every error is JSON `{"error": KIND, "message": ...}`
//! with a 4xx status (5xx only for a failure of the index itself or the service's limits).
//! Writes need the token when one is
//! set, and are refused when listening beyond loopback without one, or with `read_only` (then
//! the index is reopened when another process commits to it). SIGTERM or SIGINT stops
//! accepting connections, lets requests in flight finish and commits their adds.

mod add;
mod batch;
mod cdx;
mod changes;
mod config;
mod conn;
mod errors;
mod lookup;
mod metrics;
mod request;
mod state;
mod status;
mod writer;

use crate::add::{add, add_batch};
use crate::cdx::cdx;
pub use crate::config::{ServeConfig, ServeError};
use crate::errors::{method_not_allowed, not_found};
use crate::lookup::{lookup, lookup_batch};
use crate::metrics::Metrics;
use crate::state::{App, Writes};
use crate::status::{measure, metrics, ready, stats};
use crate::writer::{refresh_loop, write_loop};
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use neardup_index::Index;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::Semaphore;

/// Every route the service has (`openapi.yaml` documents each; a unit test checks).
pub(crate) const ROUTES: [&str; 15] = [
    "/v1/lookup",
    "/v1/digest",
    "/v1/cluster/{id}",
    "/v1/lookup:batch",
    "/v1/add",
    "/v1/add:batch",
    "/cdx",
    "/v1/changes",
    "/simhash",
    "/calculate-simhash",
    "/job",
    "/v1/stats",
    "/healthz",
    "/readyz",
    "/metrics",
];

/// The service's routes over `app`.
fn router(app: Arc<App>) -> Router {
    let max_body = app.config.max_body_bytes;
    Router::new()
        .route("/v1/lookup", post(lookup))
        .route("/v1/lookup:batch", post(lookup_batch))
        .route("/v1/add", post(add))
        .route("/v1/add:batch", post(add_batch))
        .route("/v1/cluster/{id}", get(lookup::cluster))
        .route("/v1/digest", get(cdx::digest))
        .route("/v1/stats", get(stats))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics))
        .route("/cdx", get(cdx))
        .route("/v1/changes", get(changes::changes))
        .route("/simhash", get(changes::simhash))
        .route("/calculate-simhash", get(changes::calculate_simhash))
        .route("/job", get(changes::job))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            conn::read_body,
        ))
        .layer(axum::middleware::from_fn_with_state(app.clone(), measure))
        .with_state(app)
}

/// Serves until SIGTERM or SIGINT (requests in flight finish, their adds are committed);
/// `on_listening` is told the bound address (port 0 picks one). Unless read-only, holds the
/// index's writer lock from start to end. Builds its own runtime.
pub fn run(config: ServeConfig, on_listening: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let addr = config.listen;
    let io = |source| ServeError::Io { addr, source };
    let index = Index::open(&config.index)?.with_cache(config.cache_bytes);
    let writer = match config.read_only {
        true => None,
        false => Some(index.writer()?),
    };
    let snap = match &writer {
        Some(w) => w.snapshot().clone(),
        None => Arc::new(index.snapshot()?),
    };
    let writes = match (&config.token, config.read_only) {
        (_, true) => Writes::ReadOnly,
        (Some(t), false) => Writes::Token(t.clone()),
        (None, false) if addr.ip().is_loopback() => Writes::Open,
        (None, false) => Writes::Refused,
    };
    let (queue, jobs) = std::sync::mpsc::channel();
    let app = Arc::new(App {
        index,
        snap: Arc::new(RwLock::new(snap)),
        slots: Arc::new(Semaphore::new(config.max_concurrency.max(1))),
        bodies: Arc::new(Semaphore::new(
            state::kib(config.body_budget()).min(Semaphore::MAX_PERMITS as u64) as usize,
        )),
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
    // The blocking pool runs the slots' work (at most `max_concurrency` at once) and the
    // status and refresh tasks: a thread for each, not one more per burst of requests (each a
    // stack and a cold cache).
    let rt = tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(app.config.max_concurrency.max(1) + 2)
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
            let config = app.config.clone();
            conn::serve(listener, router(app), &config, stop_signal())
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

/// SIGTERM or SIGINT, said on stderr when it comes (the service's log).
async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate());
    let int = signal(SignalKind::interrupt());
    let name = match (term, int) {
        (Ok(mut t), Ok(mut i)) => {
            tokio::select! {
                _ = t.recv() => "SIGTERM",
                _ = i.recv() => "SIGINT",
            }
        }
        _ => std::future::pending::<&str>().await,
    };
    eprintln!("{name} received: stopping (no new connections; requests in flight finish and their adds are committed)");
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

    /// The `Match` schema's evidence properties are the evidence schema's columns, with their
    /// types and nullability, and the answer's row carries every one of them.
    #[test]
    fn the_openapi_match_carries_the_evidence_schema() {
        let spec = include_str!("../openapi.yaml");
        let at = spec.find("\n    Match:\n").expect("a Match schema");
        let body = &spec[at + 1..];
        // The schema ends at the next line indented as little as its name.
        let end = (body.match_indices('\n'))
            .map(|(i, _)| i + 1)
            .find(|&i| body[i..].starts_with("    ") && !body[i..].starts_with("     "))
            .unwrap_or(body.len());
        let block = &body[..end];
        let props: Vec<(&str, &str)> = block
            .lines()
            .filter_map(|l| l.strip_prefix("        "))
            .filter_map(|l| l.split_once(": "))
            .collect();
        for c in &neardup_evidence::COLUMNS {
            let (_, spec) = props
                .iter()
                .find(|(n, _)| *n == c.name)
                .unwrap_or_else(|| panic!("openapi.yaml's Match lacks {}", c.name));
            let ty = match c.kind {
                neardup_evidence::Kind::Text => "type: string",
                neardup_evidence::Kind::UInt => "type: integer",
                neardup_evidence::Kind::Float => "type: number",
            };
            assert!(spec.contains(ty), "{}: {spec}", c.name);
            assert_eq!(
                spec.contains("nullable: true"),
                c.nullable,
                "{}: {spec}",
                c.name
            );
            assert!(
                block.contains(&format!(" {},", c.name))
                    || block.contains(&format!(" {}]", c.name)),
                "{} not required",
                c.name
            );
        }
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
