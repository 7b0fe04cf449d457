//! The state every request shares ([`App`]): the snapshot, pooled lookups, the writer's queue,
//! the metrics, and the blocking pool's admission ([`on_pool`]).

use crate::config::ServeConfig;
use crate::errors::{internal, ApiError, NO_LINE};
use crate::metrics::Metrics;
use axum::http::StatusCode;
use neardup_index::{Added, Looked, Lookup, NewPage, Snapshot};
use neardup_ingest::Page;
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The state every request shares.
pub(crate) struct App {
    /// The index, opened once.
    pub(crate) index: neardup_index::Index,
    /// The snapshot requests read (replaced by the writer after every commit, or by the
    /// refresher of a read-only service).
    pub(crate) snap: Arc<RwLock<Arc<Snapshot>>>,
    pub(crate) config: ServeConfig,
    pub(crate) lookups: Mutex<Vec<Lookup>>,
    pub(crate) slots: Arc<Semaphore>,
    /// The body budget in KiB ([`crate::ServeConfig::body_budget`]; [`reserve_body`]).
    pub(crate) bodies: Arc<Semaphore>,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) writes: Writes,
    /// The writer thread's queue; taken (closed) at shutdown.
    pub(crate) writer: Mutex<Option<std::sync::mpsc::Sender<AddJob>>>,
}

/// Why a group of adds was not committed (the index's error, told to every request of the
/// group).
#[derive(Debug, thiserror::Error)]
#[error("the add was not committed: {message}")]
pub(crate) struct CommitFailed {
    pub(crate) message: String,
    /// The index's disk (or the user's quota on it) is full.
    pub(crate) disk_full: bool,
}

impl CommitFailed {
    pub(crate) fn of(e: &(dyn std::error::Error + 'static)) -> CommitFailed {
        let mut at = Some(e);
        let mut disk_full = false;
        while let Some(e) = at {
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                // ENOSPC and EDQUOT (Linux numbers; `StorageFull` and `QuotaExceeded` where
                // the standard library names them).
                disk_full |= matches!(io.raw_os_error(), Some(28 | 122))
                    || io.kind() == std::io::ErrorKind::StorageFull
                    || io.kind() == std::io::ErrorKind::QuotaExceeded;
            }
            at = e.source();
        }
        CommitFailed {
            message: e.to_string(),
            disk_full,
        }
    }

    /// The answer: 507 `disk-full` (the add can be sent again once there is room; lookups
    /// still answer), else 500 `index`.
    pub(crate) fn answer(self) -> crate::errors::ApiError {
        if !self.disk_full {
            return crate::errors::internal(self);
        }
        crate::errors::ApiError {
            line: crate::errors::NO_LINE,
            status: axum::http::StatusCode::INSUFFICIENT_STORAGE,
            kind: "disk-full",
            message: format!(
                "{self}; the index's disk is full: nothing of this add was kept, lookups still \
                 answer; send it again once there is room"
            ),
        }
    }
}

/// Whether and how writes are allowed.
#[derive(Debug)]
pub(crate) enum Writes {
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
pub(crate) struct AddJob {
    pub(crate) label: String,
    pub(crate) pages: Vec<NewPage>,
    /// How many answers the job wants (its pages, before the writer takes them).
    pub(crate) reply_len: usize,
    pub(crate) reply: tokio::sync::oneshot::Sender<Result<Vec<Added>, CommitFailed>>,
}

impl App {
    /// The snapshot requests read now.
    pub(crate) fn snap(&self) -> Arc<Snapshot> {
        self.snap.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Runs `f` with a pooled [`Lookup`] (made when none is free) on the current snapshot.
    pub(crate) fn with_lookup<T>(&self, f: impl FnOnce(&mut Lookup) -> T) -> T {
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

    /// Looks `page` up as `ask` says ([`neardup_index::Lookup::page_asking`]).
    pub(crate) fn look(
        &self,
        page: &Page,
        ask: &neardup_index::Ask,
    ) -> Result<Looked, neardup_engine::Error> {
        self.with_lookup(|l| l.page_asking(page, ask))
    }

    /// Sketches `page` as an add does: the page, or why it is not one.
    pub(crate) fn sketch(
        &self,
        page: &Page,
    ) -> Result<neardup_index::CatalogPage, neardup_index::NotIndexed> {
        self.with_lookup(|l| l.sketch(page).cloned())
    }

    /// Whether the request may write, from its `Authorization` header.
    pub(crate) fn authorize(&self, headers: &axum::http::HeaderMap) -> Result<(), ApiError> {
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
                    .and_then(bearer_token)
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

/// The token of an `Authorization: Bearer TOKEN` header: the scheme's name in any case
/// (RFC 7235 2.1), then white space.
pub(crate) fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim_start_matches(' '))
}

/// Compares a given secret with the wanted one in time that does not depend on where they
/// differ.
pub(crate) fn same_secret(given: &[u8], want: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != want.len());
    for (i, w) in want.iter().enumerate() {
        diff |= w ^ given.get(i).copied().unwrap_or(!w);
    }
    diff == 0
}

/// Whole KiB covering `bytes` (the unit of the body budget's permits, [`App::bodies`]).
pub(crate) fn kib(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(1024)
}

/// Pages one request may carry (lines of an NDJSON batch, responses of a WARC body): a batch
/// larger is refused at once (413) with what to do, rather than running past the timeout on
/// every try.
pub(crate) const MAX_BATCH_PAGES: usize = 10_000;

/// Reserves `bytes` of the body budget, whole or not at all (so reservations cannot
/// deadlock), until the permit is dropped; nothing for 0 bytes. One that cannot within the
/// request timeout gets 503 `busy`.
pub(crate) async fn reserve_body(
    app: &App,
    bytes: usize,
) -> Result<Option<OwnedSemaphorePermit>, ApiError> {
    if bytes == 0 {
        return Ok(None);
    }
    let units = kib(bytes).min(u64::from(u32::MAX)) as u32;
    let wait = app.config.request_timeout;
    match tokio::time::timeout(wait, app.bodies.clone().acquire_many_owned(units)).await {
        Ok(Ok(permit)) => Ok(Some(permit)),
        _ => Err(ApiError::busy(format!(
            "the service holds its most request bodies at once ({} bytes, neardup serve \
             --max-buffered); none ended within {wait:?}",
            app.config.body_budget()
        ))),
    }
}

/// Runs `work` on the blocking pool in one of the `max_concurrency` slots: a request waits
/// for a slot up to the timeout (then 503 `busy`), and gets 503 `timeout` when the work runs
/// past it; the slot stays taken until the work ends, so the limit bounds real work. Work
/// that costs CPU in proportion to a body (parsing it, sketching its pages) runs here, never
/// on the runtime's threads, which only move bytes: a 3 MB page parsed there would hold up
/// every connection that thread serves.
pub(crate) async fn on_pool<T: Send + 'static>(
    app: &Arc<App>,
    work: impl FnOnce(&App) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let timeout = app.config.request_timeout;
    let busy = || {
        let n = app.config.max_concurrency;
        ApiError::busy(format!(
            "{n} requests running; none ended within {timeout:?}"
        ))
    };
    let permit = tokio::time::timeout(timeout, app.slots.clone().acquire_owned())
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())?;
    let worker = app.clone();
    let task = tokio::task::spawn_blocking(move || {
        use std::sync::atomic::Ordering::SeqCst;
        let _permit = permit;
        crate::batch::mark_current();
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
            message: format!(
                "the request took longer than {timeout:?}; the same request will again: send \
                 fewer pages a request (a batch of {MAX_BATCH_PAGES} lines at most is taken; \
                 a few thousand answer within a second or two), or start the service with a \
                 longer --timeout"
            ),
        }),
        Ok(Err(e)) => Err(internal(e)),
        Ok(Ok(r)) => r,
    }
}
