//! `GET /v1/changes`: one URL's timeline from the index's captures (what changed between
//! captures, by which rule, and when to come back), and wayback-discover-diff's routes over
//! the same prints (`/simhash`, `/calculate-simhash`, `/job`), for the Wayback Machine's
//! "Changes" clients.

use crate::cdx::cdx_timestamp;
use crate::errors::{internal, ApiError};
use crate::state::{on_pool, App};
use axum::extract::State;
use axum::Json;
use neardup_engine::changes::{url_timeline, ScheduleConfig, UrlTimeline};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// The query of these routes.
#[derive(Debug, Deserialize)]
pub(crate) struct ChangesQuery {
    pub(crate) url: Option<String>,
    pub(crate) timestamp: Option<String>,
    pub(crate) year: Option<String>,
    pub(crate) job_id: Option<String>,
}

type Query = Result<axum::extract::Query<ChangesQuery>, axum::extract::rejection::QueryRejection>;

fn query(q: Query) -> Result<ChangesQuery, ApiError> {
    q.map(|axum::extract::Query(q)| q)
        .map_err(|e| ApiError::bad(e.body_text()))
}

/// The timeline of `url` from the index's held captures.
async fn timeline(app: &Arc<App>, url: String) -> Result<UrlTimeline, ApiError> {
    on_pool(app, move |app| {
        let held = app.snap().held_captures(&url).map_err(internal)?;
        Ok(url_timeline(&url, held, &ScheduleConfig::default())?)
    })
    .await
}

fn url_of(q: &ChangesQuery) -> Result<String, ApiError> {
    q.url
        .clone()
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ApiError::bad("url is missing"))
}

/// `GET /v1/changes?url=U`: every capture of `U` the index holds, oldest first, with how it
/// changed since the one before (category, rule, chunks, Jaccard, simhash distance), and
/// when to visit next.
pub(crate) async fn changes(
    State(app): State<Arc<App>>,
    q: Query,
) -> Result<Json<UrlTimeline>, ApiError> {
    let q = query(q)?;
    Ok(Json(timeline(&app, url_of(&q)?).await?))
}

/// A capture's simhash (16 hexadecimal digits) as wayback-discover-diff writes one: base64
/// of its bytes (8 bytes, little-endian, here; wayback-discover-diff's are 256 bits).
fn simhash_text(hex: &str) -> String {
    use base64::Engine as _;
    let v = u64::from_str_radix(hex, 16).unwrap_or(0);
    base64::engine::general_purpose::STANDARD.encode(v.to_le_bytes())
}

/// `GET /simhash?url=U&timestamp=T` (one capture) or `&year=Y` (every capture of a year), in
/// wayback-discover-diff's shapes: `{"simhash": S}`, `{"captures": [[T, S], ...], "total":
/// N, "status": "COMPLETE"}`, or `{"status": "error", "message": "NO_CAPTURES" |
/// "CAPTURE_NOT_FOUND" | "NOT_CAPTURED"}`.
pub(crate) async fn simhash(
    State(app): State<Arc<App>>,
    q: Query,
) -> Result<Json<Value>, ApiError> {
    let q = query(q)?;
    let url = url_of(&q)?;
    let t = timeline(&app, url).await?;
    let error = |m: &str| Json(json!({"status": "error", "message": m}));
    if t.captures.is_empty() {
        return Ok(error("NO_CAPTURES"));
    }
    let stamped = t
        .captures
        .iter()
        .map(|e| (cdx_timestamp(&e.date), simhash_text(&e.simhash)));
    match (&q.timestamp, &q.year) {
        (Some(ts), _) => Ok(match stamped.into_iter().find(|(t, _)| t == ts) {
            Some((_, s)) => Json(json!({ "simhash": s })),
            None => error("CAPTURE_NOT_FOUND"),
        }),
        (None, Some(year)) => {
            let captures: Vec<(String, String)> = stamped
                .filter(|(t, _)| t.starts_with(year.as_str()))
                .collect();
            if captures.is_empty() {
                return Ok(error("NOT_CAPTURED"));
            }
            Ok(Json(json!({
                "captures": captures,
                "total": captures.len(),
                "status": "COMPLETE",
            })))
        }
        (None, None) => Err(ApiError::bad("give timestamp=YYYYMMDDhhmmss or year=YYYY")),
    }
}

/// `GET /calculate-simhash?url=U&year=Y`: wayback-discover-diff starts a job here; the
/// index's prints were made when the pages were added, so the job is done already.
pub(crate) async fn calculate_simhash(q: Query) -> Result<Json<Value>, ApiError> {
    let q = query(q)?;
    let url = url_of(&q)?;
    let year = q
        .year
        .filter(|y| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| ApiError::bad("year=YYYY is missing"))?;
    Ok(Json(
        json!({"status": "started", "job_id": format!("{year}:{url}")}),
    ))
}

/// `GET /job?job_id=J`: every job is done (see `/calculate-simhash`).
pub(crate) async fn job(q: Query) -> Result<Json<Value>, ApiError> {
    let q = query(q)?;
    let id = q
        .job_id
        .filter(|j| !j.is_empty())
        .ok_or_else(|| ApiError::bad("job_id is missing"))?;
    Ok(Json(
        json!({"status": "SUCCESS", "job_id": id, "info": "simhashes are made when pages are added"}),
    ))
}
