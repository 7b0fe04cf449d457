//! `neardup serve` as a real process answering a real HTTP client (curl) on loopback: a page
//! of an indexed crawl is found with its crawl and evidence; bad input gets a 4xx with a JSON
//! error naming the problem; an oversized body gets 413; /metrics counts all of it; SIGTERM
//! ends it with exit 0.

use crate::util::*;
use std::io::BufRead as _;
use std::path::Path;

/// `curl` to `url` (POSTing the file `body` when given): the status and the body.
fn curl(url: &str, body: Option<&Path>) -> (u16, String) {
    let mut c = std::process::Command::new("curl");
    c.args(["-s", "-o", "-", "-w", "\n%{http_code}", url]);
    if let Some(b) = body {
        c.arg("-H")
            .arg("content-type: application/json")
            .arg("--data-binary")
            .arg(format!("@{}", b.display()));
    }
    let out = c.output().expect("curl");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, code) = text.rsplit_once('\n').expect("a status line");
    (code.trim().parse().expect("a status"), body.to_string())
}

/// `GET url?k=v&...` with every value URL-encoded by curl: the status and the body.
pub(crate) fn curl_get(url: &str, params: &[(&str, &str)]) -> (u16, String) {
    let mut c = std::process::Command::new("curl");
    c.args(["-s", "-G", "-o", "-", "-w", "\n%{http_code}", url]);
    for (k, v) in params {
        c.arg("--data-urlencode").arg(format!("{k}={v}"));
    }
    let out = c.output().expect("curl");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, code) = text.rsplit_once('\n').expect("a status line");
    (code.trim().parse().expect("a status"), body.to_string())
}

/// An index in `tmp/idx` holding the sample's stable crawl (label "stable"): its folder and
/// the crawl.
pub(crate) fn indexed_sample(tmp: &Path) -> (String, std::path::PathBuf) {
    let dir = tmp.join("idx");
    let d = dir.to_str().unwrap().to_string();
    let crawl = root().join("data/sample/rustdocs-stable.warc.gz");
    run_ok(&["index", "create", &d, "-q"]);
    run_ok(&[
        "index",
        "add",
        &d,
        crawl.to_str().unwrap(),
        "--label",
        "stable",
        "-q",
    ]);
    (d, crawl)
}

/// A `neardup serve` child on a free port; killed when dropped.
pub(crate) struct Server {
    pub(crate) child: std::process::Child,
    pub(crate) base: String,
}

impl Server {
    pub(crate) fn start(index: &str, extra: &[&str]) -> Server {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(["serve", "--index", index, "-q"])
            .args(if extra.contains(&"--listen") {
                &[][..]
            } else {
                &["--listen", "127.0.0.1:0"][..]
            })
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Server {
            child,
            base: format!("http://{}", line.trim()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_answers_lookups_and_errors_over_http() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let d = dir.to_str().unwrap();
    let crawl = root().join("data/sample/rustdocs-stable.warc.gz");
    run_ok(&["index", "create", d, "-q"]);
    run_ok(&[
        "index",
        "add",
        d,
        crawl.to_str().unwrap(),
        "--label",
        "stable",
        "-q",
    ]);
    let server = Server::start(d, &["--max-body", "256K"]);
    let base = &server.base;
    assert_eq!(curl(&format!("{base}/healthz"), None), (200, "ok\n".into()));
    let (code, body) = curl(&format!("{base}/readyz"), None);
    assert_eq!(code, 200, "{body}");
    let ready: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(ready["ready"], true);
    let (code, body) = curl(&format!("{base}/v1/stats"), None);
    assert_eq!(code, 200);
    let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(stats["crawls"][0]["label"], "stable");

    // Pages of the indexed crawl, as a crawler would send them: each real page is a duplicate
    // of itself in crawl "stable"; redirect stubs are not pages, and say why.
    let mut src =
        neardup_ingest::open_source(&crawl, None, 0, &neardup_ingest::ReadOptions::default())
            .unwrap();
    let mut page = neardup_ingest::Page::default();
    let (mut found, mut not_pages) = (0, 0);
    let req = tmp.path().join("req.json");
    while found < 5 && src.next_page(&mut page).unwrap() {
        if page.body.len() > 200_000 {
            continue;
        }
        let html = String::from_utf8_lossy(&page.body).to_string();
        let body = serde_json::json!({"url": page.url, "html": html, "id": "mine"});
        std::fs::write(&req, serde_json::to_vec(&body).unwrap()).unwrap();
        // The cheap default answer (a duplicate or not, the likeliest match, no cluster)
        // agrees with every match asked for.
        let (code, text) = curl(&format!("{base}/v1/lookup"), Some(&req));
        assert_eq!(code, 200, "{text}");
        let cheap: serde_json::Value = serde_json::from_str(&text).unwrap();
        let (code, text) = curl(&format!("{base}/v1/lookup?matches=0"), Some(&req));
        assert_eq!(code, 200, "{text}");
        let r: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(r["id"], "mine");
        assert_eq!(cheap["duplicate"], r["duplicate"]);
        assert!(cheap.get("cluster").is_none(), "{cheap}");
        if r["page"] == true {
            assert_eq!(cheap["matches"].as_array().unwrap().len(), 1, "{cheap}");
            assert_eq!(cheap["matches"][0], r["matches"][0]);
            assert_eq!(r["duplicate"], true, "{r}");
            let best = &r["matches"][0];
            assert_eq!(best["label"], "stable", "{r}");
            assert!(best["rule"].is_string() && best["estimated_jaccard"].as_f64().unwrap() > 0.8);
            assert!(r["matches"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["url"] == page.url.as_str()));
            found += 1;
            // The CDX read endpoint as warcprox's --cdxserver-dedup asks it: the newest
            // capture's timestamp and payload digest (base32, no prefix).
            let (code, line) = curl_get(
                &format!("{base}/cdx"),
                &[
                    ("url", &page.url),
                    ("fl", "timestamp,digest"),
                    ("filter", "!mimetype:warc/revisit"),
                    ("limit", "-1"),
                ],
            );
            assert_eq!(code, 200, "{line}");
            let digest = r["digest"].as_str().unwrap().strip_prefix("sha1:").unwrap();
            let (ts, d) = line.trim().split_once(' ').expect("timestamp digest");
            assert_eq!(d, digest, "{line}");
            assert!(
                ts.len() == 14 && ts.bytes().all(|b| b.is_ascii_digit()),
                "{line}"
            );
        } else {
            assert!(r["reason"].is_string(), "{r}");
            not_pages += 1;
        }
    }
    assert_eq!(found, 5, "{not_pages} not pages");

    // A batch: one answer per line, in order; a bad line is answered with its error.
    std::fs::write(
        &req,
        "{\"url\": \"https://a.example/1\", \"text\": \"words of a page nobody indexed\"}\n{bad\n\n{\"url\": \"https://a.example/2\", \"text\": \"\", \"id\": \"e\"}\n",
    )
    .unwrap();
    let (code, text) = curl(&format!("{base}/v1/lookup:batch"), Some(&req));
    assert_eq!(code, 200, "{text}");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(
        (&lines[0]["page"], &lines[0]["duplicate"]),
        (&true.into(), &false.into())
    );
    assert_eq!(
        (&lines[1]["line"], &lines[1]["error"]),
        (&2.into(), &"bad-request".into())
    );
    assert_eq!(
        (&lines[2]["page"], &lines[2]["id"]),
        (&false.into(), &"e".into())
    );

    // Bad input: 4xx with a JSON error that names the problem, never a 500.
    let cases: [(&str, u16, &str); 5] = [
        ("{not json", 400, "bad-request"),
        (r#"{"url": "https://a.example/"}"#, 400, "bad-request"),
        (
            r#"{"url": "https://a.example/", "html": "x", "text": "y"}"#,
            400,
            "bad-request",
        ),
        (r#"{"url": "", "html": "<p>x</p>"}"#, 400, "bad-request"),
        (
            r#"{"url": "https://a.example/", "html": "x", "extra": 1}"#,
            400,
            "bad-request",
        ),
    ];
    for (body, want, kind) in cases {
        std::fs::write(&req, body).unwrap();
        let (code, text) = curl(&format!("{base}/v1/lookup"), Some(&req));
        assert_eq!(code, want, "{body}: {text}");
        let e: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(e["error"], kind, "{text}");
        assert!(!e["message"].as_str().unwrap().is_empty());
    }
    let big = serde_json::json!({"url": "https://a.example/", "text": "word ".repeat(100_000)});
    std::fs::write(&req, serde_json::to_vec(&big).unwrap()).unwrap();
    let (code, text) = curl(&format!("{base}/v1/lookup"), Some(&req));
    assert_eq!(code, 413, "{text}");
    assert!(text.contains("body-too-large"), "{text}");
    // The CDX endpoint: every field, extension fields, filters, unknown URLs, bad queries.
    let (code, text) = curl_get(
        &format!("{base}/cdx"),
        &[
            ("url", "https://nowhere.example/"),
            ("fl", "timestamp,digest,label"),
        ],
    );
    assert_eq!((code, text.as_str()), (200, ""));
    for (params, what) in [
        (vec![("fl", "timestamp")], "url is missing"),
        (
            vec![("url", "https://a.example/"), ("fl", "nope")],
            "unknown field",
        ),
        (
            vec![("url", "https://a.example/"), ("filter", "nofield")],
            "[!]FIELD:VALUE",
        ),
        (vec![("url", "https://a.example/"), ("limit", "x")], ""),
    ] {
        let (code, text) = curl_get(&format!("{base}/cdx"), &params);
        assert_eq!(code, 400, "{params:?}: {text}");
        assert!(
            text.contains("bad-request") && text.contains(what),
            "{text}"
        );
    }
    let (code, text) = curl(&format!("{base}/v2/nothing"), None);
    assert_eq!(code, 404);
    assert!(text.contains("not-found"), "{text}");

    // Metrics in Prometheus text: requests by route and status, latency, errors by kind.
    let (code, text) = curl(&format!("{base}/metrics"), None);
    assert_eq!(code, 200);
    for want in [
        "neardup_requests_total{route=\"/v1/lookup\",status=\"200\"}",
        "neardup_requests_total{route=\"/v1/lookup\",status=\"413\"} 1",
        "neardup_request_seconds_bucket{route=\"/v1/lookup\",le=\"+Inf\"}",
        "neardup_errors_total{kind=\"bad-request\"} 9",
        "neardup_errors_total{kind=\"not-found\"} 1",
        "neardup_index_pages ",
    ] {
        assert!(text.contains(want), "{want} missing in\n{text}");
    }

    // SIGTERM: a clean exit.
    let mut server = server;
    let pid = server.child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// Twelve lookups sent at once all get answers; with `--concurrency 12` they overlap, with
/// `--concurrency 2` never more than two ran at a time (the server's own high-water mark); a
/// wait longer than `--timeout` gets 503 busy.
/// The scheduling policy of each thread of process `pid` (field 41 of its tasks' `stat`:
/// 0 `SCHED_OTHER`, 3 `SCHED_BATCH`).
#[cfg(target_os = "linux")]
fn thread_policies(pid: u32) -> Vec<u32> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
    tasks
        .filter_map(|t| std::fs::read_to_string(t.unwrap().path().join("stat")).ok())
        .map(|stat| {
            // Fields from the third on follow the command name's closing parenthesis.
            let (_, rest) = stat.rsplit_once(')').unwrap();
            rest.split_whitespace()
                .nth(41 - 3)
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect()
}

#[test]
fn serve_bounds_the_work_it_does_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = indexed_sample(tmp.path());
    let d = d.as_str();
    let req = tmp.path().join("req.json");
    // A large page, so that lookups take long enough to overlap.
    let text = (0..60_000)
        .map(|i| format!("w{} ", i % 7919))
        .collect::<String>();
    let body = serde_json::json!({"url": "https://a.example/big", "text": text});
    std::fs::write(&req, serde_json::to_vec(&body).unwrap()).unwrap();
    // The high-water mark of 12 lookups sent at once under a limit.
    let most_at_once = |limit: &str| -> u64 {
        let server = Server::start(d, &["--concurrency", limit]);
        let url = format!("{}/v1/lookup", server.base);
        let codes: Vec<u16> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..12)
                .map(|_| s.spawn(|| curl(&url, Some(&req)).0))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(codes.iter().all(|&c| c == 200), "{codes:?}");
        // The slots' threads are batch work to the scheduler, the runtime's are not.
        #[cfg(target_os = "linux")]
        {
            let policies = thread_policies(server.child.id());
            let batch = policies.iter().filter(|&&p| p == 3).count();
            let most: usize = limit.parse::<usize>().unwrap() + 2;
            assert!((1..=most).contains(&batch), "{policies:?}");
            assert!(policies.contains(&0), "{policies:?}");
        }
        let (_, metrics) = curl(&format!("{}/metrics", server.base), None);
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("neardup_work_running_max "))
            .expect("the high-water mark")
            .trim()
            .parse()
            .unwrap()
    };
    // Unbounded enough, the lookups do overlap (so the bound below is a real one).
    assert!(most_at_once("12") >= 3);
    let max = most_at_once("2");
    assert!((1..=2).contains(&max), "{max} at once with --concurrency 2");

    // One slot and a timeout far below a lookup's time: those that wait get 503 busy, as
    // JSON, and the server keeps answering.
    let server = Server::start(d, &["--concurrency", "1", "--timeout", "0.001"]);
    let url = format!("{}/v1/lookup", server.base);
    let answers: Vec<(u16, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8).map(|_| s.spawn(|| curl(&url, Some(&req)))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        answers
            .iter()
            .any(|(c, t)| *c == 503 && (t.contains("busy") || t.contains("timeout"))),
        "{answers:?}"
    );
    assert!(
        answers.iter().all(|(c, _)| *c == 200 || *c == 503),
        "{answers:?}"
    );
    assert_eq!(curl(&format!("{}/healthz", server.base), None).0, 200);
}

/// `curl -X POST` of `body` to `url` with extra headers: the status and the body.
pub(crate) fn post(url: &str, body: &[u8], headers: &[&str]) -> (u16, String) {
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), body).unwrap();
    let mut c = std::process::Command::new("curl");
    c.args(["-s", "-o", "-", "-w", "\n%{http_code}", url]);
    for h in headers {
        c.arg("-H").arg(h);
    }
    c.arg("--data-binary")
        .arg(format!("@{}", tmp.path().display()));
    let out = c.output().expect("curl");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, code) = text.rsplit_once('\n').expect("a status line");
    (code.trim().parse().expect("a status"), body.to_string())
}

#[track_caller]
/// Sends `request` as it is on one connection; the answer's status and body (the connection is
/// closed by the server after an HTTP-level error).
pub(crate) fn raw_request(base: &str, request: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let mut tcp = std::net::TcpStream::connect(base.trim_start_matches("http://")).unwrap();
    // The server may answer and close before it has read everything: a failed write is fine.
    let _ = tcp.write_all(request);
    let mut answer = Vec::new();
    let _ = tcp.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let code = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, body.to_string())
}

pub(crate) fn json_of(text: &str) -> serde_json::Value {
    match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => panic!("{e}: {text}"),
    }
}

/// The first `n` pages of the sample's stable crawl with an HTML body under 200 kB.
pub(crate) fn sample_pages(n: usize) -> Vec<neardup_ingest::Page> {
    let crawl = root().join("data/sample/rustdocs-stable.warc.gz");
    let mut src =
        neardup_ingest::open_source(&crawl, None, 0, &neardup_ingest::ReadOptions::default())
            .unwrap();
    let mut out = Vec::new();
    let mut page = neardup_ingest::Page::default();
    while out.len() < n && src.next_page(&mut page).unwrap() {
        let refresh = String::from_utf8_lossy(&page.body).contains("http-equiv=\"refresh\"");
        if page.status == Some(200)
            && page.mime == "text/html"
            && page.body.len() < 200_000
            && !refresh
        {
            out.push(page.clone());
        }
    }
    out
}

pub(crate) fn page_json(p: &neardup_ingest::Page, extra: &str) -> Vec<u8> {
    let html = String::from_utf8_lossy(&p.body).to_string() + extra;
    serde_json::to_vec(&serde_json::json!({"url": p.url, "html": html, "date": p.date})).unwrap()
}

/// Writes need the token when one is set; beyond loopback without one they are refused; a
/// read-only service takes none, holds no lock, and follows another process's adds.
#[test]
fn serve_guards_writes_and_a_read_only_service_follows_adds() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = indexed_sample(tmp.path());
    let d = d.as_str();
    let page = page_json(&sample_pages(1)[0], "");
    let json = "content-type: application/json";
    let token = tmp.path().join("token");
    std::fs::write(&token, "s3cret-token-0123456789\n").unwrap();
    {
        let server = Server::start(d, &["--token-file", token.to_str().unwrap()]);
        let add = format!("{}/v1/add", server.base);
        for auth in [
            None,
            Some("Authorization: Bearer wrong"),
            Some("Authorization: Bearer s3cret-token-012345678"),
        ] {
            let headers: Vec<&str> = [Some(json), auth].into_iter().flatten().collect();
            let (code, text) = post(&add, &page, &headers);
            assert_eq!(code, 401, "{text}");
            assert_eq!(json_of(&text)["error"], "unauthorized");
        }
        let (code, text) = post(
            &add,
            &page,
            &[json, "Authorization: Bearer s3cret-token-0123456789"],
        );
        assert_eq!(
            (code, json_of(&text)["status"].as_str()),
            (200, Some("held")),
            "{text}"
        );
        // The scheme's name in any case (RFC 7235): issue 58.
        let (code, text) = post(
            &add,
            &page,
            &[json, "Authorization: bearer s3cret-token-0123456789"],
        );
        assert_eq!(code, 200, "{text}");
        // Lookups need no token.
        assert_eq!(
            post(&format!("{}/v1/lookup", server.base), &page, &[json]).0,
            200
        );
    }
    std::fs::write(&token, "short").unwrap();
    let out = neardup(
        &[
            "serve",
            "--index",
            d,
            "--token-file",
            token.to_str().unwrap(),
        ],
        &root(),
    );
    assert!(!out.status.success());
    {
        let server = Server::start(d, &["--listen", "0.0.0.0:0"]);
        let (code, text) = post(&format!("{}/v1/add", server.base), &page, &[json]);
        assert_eq!(
            (code, json_of(&text)["error"].as_str()),
            (403, Some("writes-refused")),
            "{text}"
        );
    }
    // --cache 0: every segment is read from disk, and a new one is read as it appears.
    let server = Server::start(d, &["--read-only", "--cache", "0"]);
    let (code, text) = post(&format!("{}/v1/add", server.base), &page, &[json]);
    assert_eq!(
        (code, json_of(&text)["error"].as_str()),
        (403, Some("read-only")),
        "{text}"
    );
    // Another process adds a crawl; the service sees it within a few seconds.
    let nightly = root().join("data/sample/rustdocs-nightly.warc.gz");
    run_ok(&[
        "index",
        "add",
        d,
        nightly.to_str().unwrap(),
        "--label",
        "nightly",
        "-q",
    ]);
    let probe = page_json(
        &{
            let mut src =
                neardup_ingest::open_source(&nightly, None, 0, &Default::default()).unwrap();
            let mut p = neardup_ingest::Page::default();
            while src.next_page(&mut p).unwrap()
                && !(p.status == Some(200) && p.mime == "text/html" && p.body.len() > 5000)
            {
            }
            p
        },
        "",
    );
    let mut seen = false;
    for _ in 0..50 {
        let (_, text) = post(
            &format!("{}/v1/lookup?matches=0", server.base),
            &probe,
            &[json],
        );
        if json_of(&text)["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["label"] == "nightly")
        {
            seen = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(seen, "the read-only service never saw the new crawl");
}

#[test]
fn serve_answers_every_first_hour_mistake_in_json_and_keeps_crawls_named() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = indexed_sample(tmp.path());
    let server = Server::start(&d, &["--max-body", "64K"]);
    let page = r#"{"url": "https://a.example/x", "html": "<html><body><p>a page about ducks</p></body></html>"}"#;
    // curl -d sends a form content type: read as JSON, as the README's example does.
    let out = std::process::Command::new("curl")
        .args(["-s", "-w", "\n%{http_code}"])
        .arg(format!("{}/v1/lookup", server.base))
        .args(["-d", page])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.ends_with("\n200"), "{text}");
    // The wrong method: 405 with a JSON body.
    let out = std::process::Command::new("curl")
        .args(["-s", "-w", "\n%{http_code}", "-X", "DELETE"])
        .arg(format!("{}/v1/lookup", server.base))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, code) = text.rsplit_once('\n').unwrap();
    assert_eq!(code, "405", "{text}");
    assert_eq!(json_of(body)["error"], "method-not-allowed");
    // A date the index cannot order is refused, named.
    let (code, body) = post(
        &format!("{}/v1/add", server.base),
        br#"{"url": "https://a.example/y", "text": "some words here", "date": "yesterday"}"#,
        &["content-type: application/json"],
    );
    assert_eq!(code, 400, "{body}");
    assert!(json_of(&body)["message"]
        .as_str()
        .unwrap()
        .contains("date \"yesterday\""));
    // Over the body limit: the limit and the flag named.
    let big = vec![b' '; 100 << 10];
    let (code, body) = post(&format!("{}/v1/lookup", server.base), &big, &[]);
    assert_eq!(code, 413, "{body}");
    let msg = json_of(&body)["message"].as_str().unwrap().to_string();
    assert!(msg.contains("65536") && msg.contains("--max-body"), "{msg}");
    // cdx's limit that is not a number: named, in JSON.
    let (code, body) = curl_get(
        &format!("{}/cdx", server.base),
        &[("url", "https://a.example/x"), ("limit", "abc")],
    );
    assert_eq!(code, 400, "{body}");
    assert!(json_of(&body)["message"]
        .as_str()
        .unwrap()
        .contains("limit=abc"));
    // An empty limit is not a number either.
    let (code, _) = curl_get(
        &format!("{}/cdx", server.base),
        &[("url", "https://a.example/x"), ("limit", "")],
    );
    assert_eq!(code, 400);
    // A digest filter whose value is no digest is refused, not answered empty (issue 58).
    let (code, body) = curl_get(
        &format!("{}/cdx", server.base),
        &[
            ("url", "https://a.example/x"),
            ("filter", "digest:sha256:zz"),
        ],
    );
    assert_eq!(code, 400, "{body}");
    assert!(json_of(&body)["message"]
        .as_str()
        .unwrap()
        .contains("no digest"));
    // What HTTP itself refuses, before any route: JSON too, with the status HTTP gives.
    let long_url = format!(
        "GET /cdx?url={} HTTP/1.1\r\nhost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    // hyper checks its ~400 KiB limit only between reads, and one read may fill a buffer
    // grown to twice that: headers of 500 KB were read whole (and answered 200) when the
    // server was slow and they had all arrived. Over 800 KiB they are always refused.
    let big_header = format!(
        "GET /healthz HTTP/1.1\r\nx: {}\r\n\r\n",
        "a".repeat(2_000_000)
    );
    for (request, status, kind) in [
        ("NOT HTTP AT ALL\r\n\r\n".to_string(), 400, "bad-http"),
        (
            "GET /healthz HTTP/1.1\r\nbad header\r\n\r\n".into(),
            400,
            "bad-http",
        ),
        (long_url, 414, "uri-too-long"),
        (big_header, 431, "headers-too-large"),
    ] {
        let (code, body) = raw_request(&server.base, request.as_bytes());
        assert_eq!(code, status, "{body}");
        assert_eq!(json_of(&body)["error"], kind, "{body}");
    }
    // Adds through the service, merged by its writer, list no unnamed crawl.
    for i in 0..12 {
        let (code, body) = post(
            &format!("{}/v1/add", server.base),
            format!(r#"{{"url": "https://a.example/{i}", "text": "page {i} about ducks and geese", "date": "2026-11-23T10:00:00Z"}}"#).as_bytes(),
            &["content-type: application/json"],
        );
        assert_eq!(code, 200, "{body}");
    }
    let (code, body) = curl(&format!("{}/v1/stats", server.base), None);
    assert_eq!(code, 200);
    let stats = json_of(&body);
    for c in stats["crawls"].as_array().unwrap() {
        assert!(!c["label"].as_str().unwrap().is_empty(), "{stats}");
    }
}
