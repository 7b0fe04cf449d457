//! What the service is told at start ([`ServeConfig`]) and why it could not start or stopped
//! ([`ServeError`]).

use neardup_engine::PipelineConfig;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

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
    /// How long a client may take to send a request's headers (a new connection's first
    /// request, or the next on a kept-alive one) before its connection is closed.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body before it gets 408.
    pub body_timeout: Duration,
    /// Connections open at once at most; one more gets 503 and is closed.
    pub max_connections: usize,
    /// Bytes of request bodies held at once, over every connection (at least
    /// `max_body_bytes`, see [`ServeConfig::body_budget`]): a body reserves its length before
    /// it is read (a chunked one `max_body_bytes`) and keeps it until its answer is sent; one
    /// that cannot reserve within `request_timeout` gets 503 `busy`.
    pub max_buffered_bytes: usize,
}

impl ServeConfig {
    /// Defaults: 127.0.0.1:8088, 16 MiB bodies, 2 lookups per core, 10 s a request, 30 s to
    /// send headers and 30 s a body, 10,000 connections, 1 GiB of bodies at once.
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
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            max_connections: 10_000,
            max_buffered_bytes: 1 << 30,
        }
    }

    /// Bytes of request bodies held at once: `max_buffered_bytes`, raised to
    /// `max_body_bytes` when lower (so that every body the service takes can be read).
    pub fn body_budget(&self) -> usize {
        self.max_buffered_bytes.max(self.max_body_bytes)
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
