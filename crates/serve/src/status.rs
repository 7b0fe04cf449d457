//! The service's own state as answers: `/metrics` (and the middleware that counts every
//! request), `/v1/stats` and `/readyz`.

use crate::errors::{internal, ApiError, ErrorKind};
use crate::state::App;
use crate::ROUTES;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;

/// Counts every request by route and status, its latency, and error answers by kind.
pub(crate) async fn measure(
    State(app): State<Arc<App>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = req.uri().path();
    let route = ROUTES
        .iter()
        .find(|r| route_matches(r, path))
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

/// Whether `path` is a request to the route `template` (`/v1/cluster/{id}` takes
/// `/v1/cluster/17`).
fn route_matches(template: &str, path: &str) -> bool {
    let (mut t, mut p) = (template.split('/'), path.split('/'));
    loop {
        match (t.next(), p.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if a == b || (a.starts_with('{') && !b.is_empty()) => {}
            _ => return false,
        }
    }
}

pub(crate) async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        app.metrics.render(&app.snap()),
    )
        .into_response()
}

pub(crate) async fn stats(State(app): State<Arc<App>>) -> Result<Response, ApiError> {
    let index = app.index.clone();
    let s = tokio::task::spawn_blocking(move || index.stats())
        .await
        .map_err(internal)?
        .map_err(internal)?;
    Ok(Json(s).into_response())
}

pub(crate) async fn ready(State(app): State<Arc<App>>) -> Response {
    let snap = app.snap();
    let m = snap.manifest();
    Json(serde_json::json!({"ready": true, "generation": m.generation, "pages": m.next_page}))
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn requests_are_counted_under_their_route() {
        use super::route_matches;
        assert!(route_matches("/v1/cluster/{id}", "/v1/cluster/17"));
        assert!(!route_matches("/v1/cluster/{id}", "/v1/cluster/"));
        assert!(!route_matches("/v1/cluster/{id}", "/v1/cluster/17/x"));
        assert!(route_matches("/v1/lookup", "/v1/lookup"));
        assert!(!route_matches("/v1/lookup", "/v1/lookups"));
    }
}
