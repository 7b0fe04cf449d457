//! `POST /v1/add` and `/v1/add:batch` (`?if-new=1`): pages sketched on the blocking pool,
//! committed by the writer thread, acknowledged once durable.

use crate::errors::{body_error, stopping, ApiError, NO_LINE};
use crate::lookup::{digest, ndjson, not_page, one, rows, Answer, PageResponse};
use crate::request::{
    body_kind, check_label, check_url, if_new, items, page_query, Item, PageQueryArg,
};
use crate::state::{on_pool, AddJob, App, CommitFailed};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use neardup_index::{Added, NewPage};
use std::sync::Arc;

/// The answers of an add request, one per page: its pages read (`read`) and sketched on the
/// pool, then committed by the writer thread, answered once durable.
pub(crate) async fn add_pages(
    app: &Arc<App>,
    read: impl FnOnce() -> Result<Vec<Result<Item, ApiError>>, ApiError> + Send + 'static,
    if_new: bool,
    label: Option<String>,
) -> Result<Vec<Answer>, ApiError> {
    let label = label.unwrap_or_else(|| app.config.label.clone());
    check_label(&label)?;
    // Each page's answer when it needs no commit, else its place in a job for the writer
    // (consecutive pages of one label go in one job).
    let sketched = on_pool(app, move |app| {
        let items = read()?;
        for l in items.iter().flatten().filter_map(|i| i.label.as_deref()) {
            check_label(l)?;
        }
        Ok(items
            .into_iter()
            .map(|item| {
                // What is kept must be found again: an add needs an absolute URL (a lookup
                // takes any).
                item.and_then(|i| check_url(&i.page.url).map(|()| i))
                    .map(|i| {
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
            Err(neardup_index::NotIndexed(why)) => {
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
            cluster: None,
            cluster_size: None,
            cluster_size_exact: None,
            digest: Some(digest(&page.payload_sha1)),
            sha256: Some(crate::lookup::sha256(&page.payload_sha256)),
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
            .map_err(CommitFailed::answer)?;
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

/// The answers of an add request: its pages (one for `/v1/add`), added to the index.
pub(crate) async fn add_answers(
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
    let body = body.map_err(|r| body_error(r, app.config.max_body_bytes))?;
    let kind = body_kind(&headers)?;
    let label = q.label.clone();
    add_pages(&app, move || items(kind, &q, body, single), new, label).await
}

/// `POST /v1/add[?if-new=1]`: one page (as `/v1/lookup` takes it) added to the index,
/// answered once durable.
pub(crate) async fn add(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    one(add_answers(app, headers, query, body, true).await?)
}

/// `POST /v1/add:batch[?if-new=1]`: pages as NDJSON (or a WARC's response records), one
/// answer per line in the same order, once all are durable.
pub(crate) async fn add_batch(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    query: PageQueryArg,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    Ok(ndjson(add_answers(app, headers, query, body, false).await?))
}
