//! Error answers: `{"error": KIND, "message": ...}` with a 4xx status (5xx only for a
//! failure of the index itself).

use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An error answer: `{"error": kind, "message": ...}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) kind: &'static str,
    pub(crate) message: String,
    /// The line of a batch's body it is about.
    pub(crate) line: Option<usize>,
}

/// No line: what every error but a batch line's has.
pub(crate) const NO_LINE: Option<usize> = None;

impl ApiError {
    pub(crate) fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            line: NO_LINE,
            status: StatusCode::BAD_REQUEST,
            kind: "bad-request",
            message: message.into(),
        }
    }

    /// A 404 for a thing the route names that the index does not hold.
    pub(crate) fn missing(message: impl Into<String>) -> ApiError {
        ApiError {
            line: NO_LINE,
            status: StatusCode::NOT_FOUND,
            kind: "not-found",
            message: message.into(),
        }
    }

    /// A 503 `busy`: what the request waited for (`message`) did not come within its timeout.
    pub(crate) fn busy(message: String) -> ApiError {
        ApiError {
            line: NO_LINE,
            status: StatusCode::SERVICE_UNAVAILABLE,
            kind: "busy",
            message,
        }
    }

    pub(crate) fn on_line(self, line: usize) -> ApiError {
        ApiError {
            line: Some(line),
            ..self
        }
    }
}

/// The kind of an error answer, for the metrics layer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ErrorKind(pub(crate) &'static str);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({"error": self.kind, "message": self.message});
        let mut r = (self.status, Json(body)).into_response();
        r.extensions_mut().insert(ErrorKind(self.kind));
        r
    }
}

/// A body that could not be read; over the limit, the answer names it and the flag that sets it.
pub(crate) fn body_error(r: BytesRejection, max_body: usize) -> ApiError {
    let status = r.status();
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        return too_large(max_body);
    }
    ApiError {
        line: NO_LINE,
        status,
        kind: "bad-body",
        message: r.body_text(),
    }
}

/// 413: a body over `max_body` bytes.
pub(crate) fn too_large(max_body: usize) -> ApiError {
    ApiError {
        line: NO_LINE,
        status: StatusCode::PAYLOAD_TOO_LARGE,
        kind: "body-too-large",
        message: format!(
            "the body is over this service's limit of {max_body} bytes (neardup serve --max-body); \
             send fewer pages per batch"
        ),
    }
}

/// 405: the path exists, the method does not.
pub(crate) async fn method_not_allowed(
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> ApiError {
    ApiError {
        line: NO_LINE,
        status: StatusCode::METHOD_NOT_ALLOWED,
        kind: "method-not-allowed",
        message: format!(
            "{method} {}: not allowed; the page endpoints take POST, /cdx, /v1/stats, /healthz, /readyz and /metrics GET",
            uri.path()
        ),
    }
}

pub(crate) fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError {
        line: NO_LINE,
        status: StatusCode::INTERNAL_SERVER_ERROR,
        kind: "index",
        message: e.to_string(),
    }
}

/// A failure of the index itself (500 `index`), as work on the pool meets it.
impl From<neardup_engine::Error> for ApiError {
    fn from(e: neardup_engine::Error) -> ApiError {
        internal(e)
    }
}

pub(crate) fn stopping() -> ApiError {
    ApiError {
        line: NO_LINE,
        status: StatusCode::SERVICE_UNAVAILABLE,
        kind: "stopping",
        message: "the service is stopping; the add was not taken".into(),
    }
}

pub(crate) async fn not_found() -> ApiError {
    ApiError { line: NO_LINE,
        status: StatusCode::NOT_FOUND,
        kind: "not-found",
        message: "no such endpoint; see /v1/lookup, /v1/lookup:batch, /v1/add, /v1/add:batch, /v1/cluster/{id}, /v1/digest, /v1/changes, /cdx, /v1/stats, /healthz, /readyz, /metrics"
            .into(),
    }
}
