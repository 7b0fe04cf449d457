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

pub(crate) fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError {
        line: NO_LINE,
        status: StatusCode::INTERNAL_SERVER_ERROR,
        kind: "index",
        message: e.to_string(),
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
        message: "no such endpoint; see /v1/lookup, /v1/lookup:batch, /v1/add, /v1/add:batch, /cdx, /v1/stats, /healthz, /readyz, /metrics"
            .into(),
    }
}
