//! Connections: the accept loop (HTTP/1.1 through hyper, a header read timeout, a cap on
//! connections open at once, graceful shutdown), [`read_body`] (a body read in full within
//! its timeout and size limit before any handler runs) and [`JsonErrors`], which gives
//! hyper's own error answers a JSON body.
//!
//! A slow client costs a task and its buffers, nothing else: headers it does not finish
//! within `header_timeout` close its connection (an idle kept-alive one too), a body it does
//! not finish within `body_timeout` gets 408; no lookup slot is taken before the body is in.
//! Bodies held at once are bounded too (`max_buffered_bytes`): a body reserves its length
//! from that budget before a byte of it is read, whole or not at all (so reservations never
//! deadlock), and holds it until its answer is sent; one that cannot within `request_timeout`
//! (as long as a lookup waits for a slot) gets 503 `busy`; meanwhile its bytes wait in its
//! socket.
//! Past `max_connections`, a new connection gets 503 at once and is closed.
//!
//! hyper answers a request it cannot parse itself, before any handler runs: 400 (a malformed
//! request line or header), 414 (a URL over 64 KiB) or 431 (headers over the read buffer),
//! each with an empty body. Every error of this service is documented as JSON, so the
//! connection's writes are watched: a response head with one of those statuses and
//! `content-length: 0` (never what a handler sends: every handler error has a body) is
//! rewritten with the same status and a JSON body.

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;

/// How long connections in flight get to finish once a stop is asked for.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// The answer a connection over the cap gets before it is closed.
const TOO_MANY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
connection: close\r\ncontent-length: 102\r\n\r\n\
{\"error\":\"too-many-connections\",\"message\":\"the service holds its most connections at once; try again\"}";

/// Accepts connections and serves `router` on each until `stop` completes; then stops
/// accepting and lets connections in flight finish (up to [`DRAIN_TIMEOUT`]).
pub(crate) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    config: &crate::ServeConfig,
    stop: impl std::future::Future<Output = ()>,
) -> io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .keep_alive(true);
    let open = std::sync::Arc::new(tokio::sync::Semaphore::new(config.max_connections));
    tokio::pin!(stop);
    loop {
        let (tcp, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(c) => c,
                // Out of file descriptors and the like: wait a little, as axum::serve does.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            // Best effort, without waiting: the answer fits any socket buffer.
            let _ = tcp.try_write(TOO_MANY);
            continue;
        };
        // Answers go out as soon as they are written (no Nagle delay behind a small response).
        let _ = tcp.set_nodelay(true);
        let conn = http.serve_connection(
            TokioIo::new(JsonErrors::new(tcp)),
            TowerToHyperService::new(router.clone()),
        );
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A client going away mid-request is not the service's error.
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown()).await;
    Ok(())
}

/// Middleware: reserves the body's bytes from the service's body budget (its length, or
/// `max_body_bytes` for a chunked body), then reads it in full within `body_timeout` and
/// `max_body_bytes` (408 or 413 otherwise) before the handler runs; the reservation is kept
/// until the answer is made. A body the budget cannot hold within `request_timeout` gets 503
/// `busy`. A request without a body reserves nothing.
pub(crate) async fn read_body(
    axum::extract::State(app): axum::extract::State<std::sync::Arc<crate::state::App>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::body::HttpBody as _;
    use axum::response::IntoResponse as _;
    use http_body_util::BodyExt as _;
    let (parts, body) = req.into_parts();
    let max = app.config.max_body_bytes;
    let timeout = app.config.body_timeout;
    let hint = body.size_hint();
    let want = match hint.exact() {
        Some(n) if n > max as u64 => return crate::errors::too_large(max).into_response(),
        Some(n) => n as usize,
        None => max,
    };
    let _reserved = match crate::state::reserve_body(&app, want).await {
        Ok(permit) => permit,
        Err(busy) => return busy.into_response(),
    };
    let read = http_body_util::Limited::new(body, max).collect();
    let bytes = match tokio::time::timeout(timeout, read).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return crate::errors::too_large(max).into_response();
        }
        Ok(Err(e)) => {
            return crate::errors::ApiError::bad(format!("the body could not be read: {e}"))
                .into_response()
        }
        Err(_) => {
            return crate::errors::ApiError {
                status: axum::http::StatusCode::REQUEST_TIMEOUT,
                kind: "body-timeout",
                message: format!(
                    "the body did not arrive within {timeout:?} (neardup serve --body-timeout)"
                ),
                line: crate::errors::NO_LINE,
            }
            .into_response()
        }
    };
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

/// The JSON body for one of hyper's own error answers, by status code.
fn error_body(status: &[u8]) -> Option<&'static str> {
    Some(match status {
        b"400" => {
            r#"{"error":"bad-http","message":"the request could not be read as HTTP/1.1 (its request line or a header is malformed)"}"#
        }
        b"414" => {
            r#"{"error":"uri-too-long","message":"the request's URL is over 64 KiB; send long inputs in a POST body"}"#
        }
        b"431" => {
            r#"{"error":"headers-too-large","message":"the request's headers are over the service's read buffer (about 400 KiB)"}"#
        }
        _ => return None,
    })
}

/// If `head` is a whole response head hyper wrote for a request it could not parse (status
/// 400, 414 or 431 with `content-length: 0`), the same head with a JSON body.
fn with_json_body(head: &[u8]) -> Option<Vec<u8>> {
    let status = head.strip_prefix(b"HTTP/1.1 ")?.get(..3)?;
    let body = error_body(status)?;
    let end = head.windows(4).position(|w| w == b"\r\n\r\n")?;
    if end + 4 != head.len() {
        return None;
    }
    let lines = &head[..end + 2];
    let zero = b"content-length: 0\r\n";
    let at = lines
        .windows(zero.len())
        .position(|w| w.eq_ignore_ascii_case(zero))?;
    let mut out = Vec::with_capacity(head.len() + body.len() + 40);
    out.extend_from_slice(&lines[..at]);
    out.extend_from_slice(format!("content-length: {}\r\n", body.len()).as_bytes());
    out.extend_from_slice(b"content-type: application/json\r\n");
    out.extend_from_slice(&lines[at + zero.len()..]);
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body.as_bytes());
    Some(out)
}

/// A connection whose writes are watched for hyper's bodiless error answers (see the module
/// docs). Writes are not vectored, so each response head reaches `poll_write` whole.
pub(crate) struct JsonErrors<T> {
    inner: T,
    /// A rewritten answer accepted from hyper and not yet written out.
    pending: Vec<u8>,
    written: usize,
}

impl<T> JsonErrors<T> {
    pub(crate) fn new(inner: T) -> JsonErrors<T> {
        JsonErrors {
            inner,
            pending: Vec::new(),
            written: 0,
        }
    }
}

impl<T: AsyncWrite + Unpin> JsonErrors<T> {
    /// Writes out what is pending; ready when nothing is.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n = std::task::ready!(
                Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..])
            )?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonErrors<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonErrors<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        std::task::ready!(self.drain(cx))?;
        match with_json_body(buf) {
            Some(answer) => {
                // Taken whole; written out now as far as the socket allows, the rest on the
                // next write, flush or shutdown.
                self.pending = answer;
                if let Poll::Ready(Err(e)) = self.drain(cx) {
                    return Poll::Ready(Err(e));
                }
                Poll::Ready(Ok(buf.len()))
            }
            None => Pin::new(&mut self.inner).poll_write(cx, buf),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_error_heads_gain_a_json_body() {
        let head = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(with_json_body(head).unwrap()).unwrap();
        let (h, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(h.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{h}");
        assert!(
            h.contains(&format!("content-length: {}", body.len())),
            "{h}"
        );
        assert!(h.contains("content-type: application/json") && h.contains("date: x"));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"], "uri-too-long");
        for status in ["400 Bad Request", "431 Request Header Fields Too Large"] {
            let head = format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\n\r\n");
            assert!(with_json_body(head.as_bytes()).is_some(), "{status}");
        }
    }

    #[test]
    fn the_answer_over_the_connection_cap_is_whole_json() {
        let text = std::str::from_utf8(TOO_MANY).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(
            head.ends_with(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"], "too-many-connections");
    }

    #[test]
    fn handler_answers_pass_untouched() {
        for head in [
            // A handler's error has a body.
            &b"HTTP/1.1 400 Bad Request\r\ncontent-length: 57\r\n\r\n"[..],
            // Other statuses, or a head followed by its body in the same write.
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nextra",
            b"HTTP/1.1 400 Bad Request\r\n",
            b"",
        ] {
            assert!(with_json_body(head).is_none(), "{head:?}");
        }
    }
}
