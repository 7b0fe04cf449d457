//! `/metrics`: requests by route and status, latency histograms and the index's gauges, in
//! Prometheus's text format, counted by one middleware ([`measure`]).

use neardup_index::Snapshot;
use std::sync::Mutex;

/// Upper bounds (seconds) of the request latency histogram.
pub(crate) const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// What `/metrics` reports (Prometheus text format).
#[derive(Default)]
pub(crate) struct Metrics {
    /// Requests by (route, status).
    pub(crate) requests: Mutex<std::collections::BTreeMap<(&'static str, u16), u64>>,
    /// Errors by kind.
    pub(crate) errors: Mutex<std::collections::BTreeMap<&'static str, u64>>,
    /// Requests doing work on the blocking pool now, and the most there ever were.
    pub(crate) running: std::sync::atomic::AtomicU64,
    pub(crate) running_max: std::sync::atomic::AtomicU64,
    /// Per route: counts per latency bucket (the last: above every bound), sum of seconds.
    pub(crate) latency:
        Mutex<std::collections::BTreeMap<&'static str, ([u64; BUCKETS.len() + 1], f64)>>,
    /// Groups committed, pages added, tier merges, snapshots reopened (read-only).
    pub(crate) commits: std::sync::atomic::AtomicU64,
    pub(crate) added: std::sync::atomic::AtomicU64,
    pub(crate) merges: std::sync::atomic::AtomicU64,
    pub(crate) reopened: std::sync::atomic::AtomicU64,
}

impl Metrics {
    pub(crate) fn record(&self, route: &'static str, status: u16, seconds: f64) {
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

    pub(crate) fn error(&self, kind: &'static str) {
        *self
            .errors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(kind)
            .or_default() += 1;
    }

    /// The Prometheus text exposition.
    pub(crate) fn render(&self, snap: &Snapshot) -> String {
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
        o.push_str("# HELP neardup_index_cached_bytes Bytes of memory held by the segments read from memory (files, key filters, long runs).\n");
        o.push_str("# TYPE neardup_index_cached_bytes gauge\n");
        let _ = writeln!(o, "neardup_index_cached_bytes {}", snap.cached_bytes());
        o.push_str("# HELP neardup_index_bytes Bytes of the served snapshot's segments.\n");
        o.push_str("# TYPE neardup_index_bytes gauge\n");
        let _ = writeln!(o, "neardup_index_bytes {bytes}");
        o
    }
}
