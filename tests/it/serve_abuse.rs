//! `neardup serve` under abuse, on loopback, every loop bounded: clients trickling their
//! headers or body a byte at a time do not stop other clients' lookups and are cut off by the
//! header and body timeouts; 5,000 idle connections keep the service's memory bounded and one
//! past `--max-connections` gets 503; a body of exactly `--max-body` is taken and one byte more
//! is not; bodies held at once stay within `--max-buffered`; a full disk during adds answers 507 and loses no acknowledged add; SIGKILL while
//! clients add with `?if-new=1` and retry what was not acknowledged loses no acknowledged add
//! and adds nothing twice.

use crate::serve::{
    curl_get, indexed_sample, json_of, page_json, post, raw_request, sample_pages, Server,
};
use crate::serve_adds::kill;
use crate::util::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn addr(base: &str) -> &str {
    base.trim_start_matches("http://")
}

/// A whole HTTP/1.1 POST of `body` to `path`, closing the connection after the answer.
fn request(path: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Raises this test process's open-file limit to `want` (as far as the hard limit allows);
/// the limit it got.
#[allow(unsafe_code)]
fn open_files(want: u64) -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        if lim.rlim_cur < want {
            lim.rlim_cur = want.min(lim.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
    }
    lim.rlim_cur
}

/// Everything the server sends on `tcp` until it closes the connection (or 10 s pass).
fn answer(tcp: &mut TcpStream) -> String {
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut got = Vec::new();
    let _ = tcp.read_to_end(&mut got);
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn slow_clients_do_not_stop_other_lookups_and_are_cut_off() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = indexed_sample(tmp.path());
    let server = Server::start(&d, &["--header-timeout", "2", "--body-timeout", "2"]);
    let page = page_json(&sample_pages(1)[0], "");
    let req = request("/v1/lookup", &page);
    let head_len = req.len() - page.len();
    let outcomes: Mutex<Vec<(bool, String, Duration)>> = Mutex::new(Vec::new());
    let mut lookups = Vec::new();
    std::thread::scope(|s| {
        for c in 0..256 {
            let (req, outcomes, a) = (&req, &outcomes, addr(&server.base));
            s.spawn(move || {
                // Odd clients send their headers whole and trickle the body; even ones trickle
                // the headers. A byte every 100 ms, for at most 8 s.
                let body = c % 2 == 1;
                let fast = if body { head_len } else { 5 };
                let mut tcp = TcpStream::connect(a).unwrap();
                tcp.write_all(&req[..fast]).unwrap();
                let start = Instant::now();
                for b in &req[fast..] {
                    if start.elapsed() > Duration::from_secs(8) || tcp.write_all(&[*b]).is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                let text = answer(&mut tcp);
                outcomes.lock().unwrap().push((body, text, start.elapsed()));
            });
        }
        // Meanwhile a well-behaved client's lookups, one connection each.
        std::thread::sleep(Duration::from_millis(300));
        for _ in 0..40 {
            let t = Instant::now();
            let (code, text) = raw_request(&server.base, &req);
            assert_eq!(code, 200, "{text}");
            lookups.push(t.elapsed());
        }
    });
    lookups.sort();
    eprintln!(
        "40 lookups beside 256 slow clients: median {:?}, slowest {:?}",
        lookups[20], lookups[39]
    );
    // None waited for a slow client (their timeout is 2 s).
    assert!(lookups[39] < Duration::from_secs(2), "{lookups:?}");
    let outcomes = outcomes.into_inner().unwrap();
    assert_eq!(outcomes.len(), 256);
    for (body, text, took) in &outcomes {
        // Cut off at the timeout, well before the client would have finished (15 s or more).
        assert!(*took < Duration::from_secs(6), "{body} {took:?}: {text}");
        if *body {
            let (head, json) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
            assert!(head.starts_with("HTTP/1.1 408 "), "{text}");
            assert_eq!(json_of(json)["error"], "body-timeout", "{text}");
        } else {
            assert!(!text.contains(" 200 "), "{text}");
        }
    }
    // The service still answers, and counted the timeouts.
    let (code, metrics) = curl_get(&format!("{}/metrics", server.base), &[]);
    assert_eq!(code, 200);
    assert!(metrics.contains("body-timeout"), "{metrics}");
}

#[test]
fn idle_connections_keep_memory_bounded_and_the_connection_cap_holds() {
    let limit = open_files(12_000);
    assert!(
        limit >= 6_000,
        "open-file limit {limit}: cannot hold 5,000 connections"
    );
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = indexed_sample(tmp.path());
    let server = Server::start(
        &d,
        &["--max-connections", "5050", "--header-timeout", "120"],
    );
    let page = page_json(&sample_pages(1)[0], "");
    let req = request("/v1/lookup", &page);
    assert_eq!(raw_request(&server.base, &req).0, 200);
    let before = rss_kib(server.child.id());
    let mut idle: Vec<TcpStream> = (0..5000)
        .map(|_| TcpStream::connect(addr(&server.base)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // Lookups still answer beside them.
    for _ in 0..5 {
        let (code, text) = raw_request(&server.base, &req);
        assert_eq!(code, 200, "{text}");
    }
    let during = rss_kib(server.child.id());
    let per = (during.saturating_sub(before)) as f64 * 1024.0 / 5000.0;
    eprintln!(
        "5,000 idle connections: service RSS {before} KiB -> {during} KiB ({per:.0} bytes a connection)"
    );
    // Bounded: about 11 KB a connection here (hyper's 8 KiB read buffer and the task); at most
    // 20 KiB.
    assert!(
        during < before + 5000 * 20,
        "{before} -> {during} KiB with 5,000 idle connections"
    );
    // Up to the cap (5,050), then one more: 503 with a JSON error, and the connection closed.
    std::thread::sleep(Duration::from_millis(200));
    idle.extend((0..50).map(|_| TcpStream::connect(addr(&server.base)).unwrap()));
    std::thread::sleep(Duration::from_millis(200));
    let mut over = TcpStream::connect(addr(&server.base)).unwrap();
    let text = answer(&mut over);
    let (head, json) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    assert!(head.starts_with("HTTP/1.1 503 "), "{text}");
    assert_eq!(json_of(json)["error"], "too-many-connections");
    // A client that sends its request before reading gets the answer too (closing a socket
    // with unread bytes would reset the connection, and the client could lose the answer).
    for _ in 0..20 {
        let mut over = TcpStream::connect(addr(&server.base)).unwrap();
        over.write_all(&req).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let text = answer(&mut over);
        assert!(text.starts_with("HTTP/1.1 503 "), "{text:?}");
    }
    // Closing the idle ones makes room again.
    drop(idle);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(raw_request(&server.base, &req).0, 200);
    drop(server);

    // An idle connection (nothing sent, or nothing more after an answer on a kept-alive one)
    // is closed after the header timeout.
    let server = Server::start(&d, &["--header-timeout", "1"]);
    let mut quiet: Vec<TcpStream> = (0..50)
        .map(|_| TcpStream::connect(addr(&server.base)).unwrap())
        .collect();
    let mut kept = TcpStream::connect(addr(&server.base)).unwrap();
    let alive = String::from_utf8(request("/v1/lookup", &page))
        .unwrap()
        .replace("Connection: close", "Connection: keep-alive");
    kept.write_all(alive.as_bytes()).unwrap();
    quiet.push(kept);
    let start = Instant::now();
    for tcp in &mut quiet {
        let _ = answer(tcp);
    }
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "idle connections closed after {took:?}"
    );
}

#[test]
fn a_body_of_exactly_max_body_is_taken_and_one_byte_more_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = indexed_sample(tmp.path());
    let server = Server::start(&d, &["--max-body", "4096"]);
    let json = serde_json::json!({"url": "https://edge.example/a", "text": "words at the edge of the limit ".repeat(40)})
        .to_string();
    for path in ["/v1/lookup", "/v1/add"] {
        // JSON may end in white space: the body is padded to the byte.
        let exact = format!("{json}{}", " ".repeat(4096 - json.len()));
        assert_eq!(exact.len(), 4096);
        let (code, text) = raw_request(&server.base, &request(path, exact.as_bytes()));
        assert_eq!(code, 200, "{path}: {text}");
        let over = format!("{exact} ");
        let (code, text) = raw_request(&server.base, &request(path, over.as_bytes()));
        assert_eq!(code, 413, "{path}: {text}");
        let e = json_of(&text);
        assert_eq!(e["error"], "body-too-large", "{e}");
        assert!(e["message"].as_str().unwrap().contains("4096 bytes"), "{e}");
        // Chunked, with no length up front: the same limit.
        let mut chunked = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        )
        .into_bytes();
        for part in over.as_bytes().chunks(1000) {
            chunked.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            chunked.extend_from_slice(part);
            chunked.extend_from_slice(b"\r\n");
        }
        chunked.extend_from_slice(b"0\r\n\r\n");
        let (code, text) = raw_request(&server.base, &chunked);
        assert_eq!(code, 413, "{path} chunked: {text}");
    }
}

#[test]
fn bodies_held_at_once_stay_within_max_buffered() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = indexed_sample(tmp.path());
    // Room for two bodies of --max-body at once.
    let server = Server::start(
        &d,
        &[
            "--max-body",
            "64K",
            "--max-buffered",
            "128K",
            "--body-timeout",
            "4",
            "--timeout",
            "1",
        ],
    );
    let page = page_json(&sample_pages(1)[0], "");
    let lookup = request("/v1/lookup", &page);
    let (code, text) = raw_request(&server.base, &lookup);
    assert_eq!(code, 200, "{text}");
    // Two clients announce bodies they do not send: one of 64 KiB by its length, one chunked
    // (which reserves --max-body).
    let head = |framing: &str| {
        format!(
            "POST /v1/add HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             {framing}\r\nConnection: close\r\n\r\n"
        )
    };
    let started = Instant::now();
    let mut holders: Vec<TcpStream> = ["Content-Length: 65536", "Transfer-Encoding: chunked"]
        .into_iter()
        .map(|framing| {
            let mut tcp = TcpStream::connect(addr(&server.base)).unwrap();
            tcp.write_all(head(framing).as_bytes()).unwrap();
            tcp.write_all(if framing.starts_with("Transfer") {
                b"5\r\n{\"url"
            } else {
                b"{\"url"
            })
            .unwrap();
            tcp
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // A third body waits for room up to --timeout, then gets 503 busy.
    let t = Instant::now();
    let (code, text) = raw_request(&server.base, &lookup);
    let waited = t.elapsed();
    assert_eq!(code, 503, "{text}");
    let e = json_of(&text);
    assert_eq!(e["error"], "busy", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("--max-buffered"),
        "{e}"
    );
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    // A request without a body reserves nothing: it is answered at once.
    let t = Instant::now();
    let (code, _) = curl_get(&format!("{}/v1/stats", server.base), &[]);
    assert_eq!(code, 200);
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    // The holders are cut off at --body-timeout, which frees their room.
    for tcp in &mut holders {
        let text = answer(tcp);
        assert!(text.starts_with("HTTP/1.1 408 "), "{text}");
    }
    assert!(started.elapsed() < Duration::from_secs(8));
    let (code, text) = raw_request(&server.base, &lookup);
    assert_eq!(code, 200, "{text}");
    let (_, metrics) = curl_get(&format!("{}/metrics", server.base), &[]);
    assert!(metrics.contains("busy"), "{metrics}");
    // --max-buffered below --max-body cannot be met.
    let out = neardup(
        &[
            "serve",
            "--index",
            &d,
            "--max-body",
            "64K",
            "--max-buffered",
            "1K",
        ],
        tmp.path(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--max-buffered 1024: expected at least --max-body"),
        "{err}"
    );
}

/// NDJSON of `n` pages for client `client`'s batch `batch`; every third page is a near copy
/// of page 0 of the client's first batch (so `?if-new=1` answers some `duplicate`).
fn batch_body(client: usize, batch: usize, n: usize) -> Vec<u8> {
    let mut body = String::new();
    for k in 0..n {
        let words: String = if k % 3 == 2 {
            (0..200)
                .map(|w| format!("c{client}b0k0w{w} "))
                .chain(std::iter::once(format!("copy{batch}x{k}")))
                .collect()
        } else {
            (0..200)
                .map(|w| format!("c{client}b{batch}k{k}w{w} "))
                .collect()
        };
        let url = format!("https://load.example/{client}/{batch}/{k}");
        body.push_str(&serde_json::json!({"url": url, "text": words}).to_string());
        body.push('\n');
    }
    body.into_bytes()
}

#[test]
fn serve_killed_under_if_new_and_retried_adds_loses_none_and_adds_none_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("idx");
    let d = d.to_str().unwrap();
    run_ok(&["index", "create", d, "-q"]);
    let rounds: usize = std::env::var("NEARDUP_CRASH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    // Per client: the next batch number, and the batch sent but not acknowledged (sent again,
    // first thing, after the restart: a retry).
    let clients = 4;
    let state: Vec<Mutex<(usize, Option<usize>)>> =
        (0..clients).map(|_| Mutex::new((0, None))).collect();
    // url -> (status, page id) as acknowledged; a retried page must get the same id.
    let acked: Mutex<std::collections::BTreeMap<String, (String, Option<u64>)>> =
        Mutex::new(Default::default());
    let (mut retried, mut held_on_retry) = (0, 0);
    // An acknowledgement lost for sure: a batch sent, its answer never read; sent again with
    // ?if-new=1, every page is held with its id (not a duplicate of itself, not added twice).
    {
        let server = Server::start(d, &[]);
        let body = batch_body(99, 0, 9);
        let raw = [
            format!(
                "POST /v1/add:batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n\
                 Content-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
            &body,
        ]
        .concat();
        // The client gives up once the add has landed, never reading its answer.
        let mut gave_up = TcpStream::connect(addr(&server.base)).unwrap();
        gave_up.write_all(&raw).unwrap();
        let start = Instant::now();
        while json(&run_ok(&["index", "stats", d, "--json"]))["pages"] == 0 {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the add never landed"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(gave_up);
        let (code, text) = post(
            &format!("{}/v1/add:batch?if-new=1", server.base),
            &body,
            &["content-type: application/x-ndjson"],
        );
        assert_eq!(code, 200, "{text}");
        let mut acked = acked.lock().unwrap();
        for l in text.lines() {
            let r = json_of(l);
            assert_eq!(r["status"], "held", "{r}");
            held_on_retry += 1;
            acked.insert(
                r["url"].as_str().unwrap().into(),
                ("held".into(), r["page_id"].as_u64()),
            );
        }
    }
    for round in 0..rounds {
        let server = Server::start(d, &[]);
        let stop = AtomicBool::new(false);
        let counts = Mutex::new((0usize, 0usize));
        std::thread::scope(|s| {
            for (client, st) in state.iter().enumerate() {
                let (server, stop, acked, counts) = (&server, &stop, &acked, &counts);
                s.spawn(move || {
                    let if_new = client % 2 == 0;
                    let url = format!(
                        "{}/v1/add:batch{}",
                        server.base,
                        if if_new { "?if-new=1" } else { "" }
                    );
                    while !stop.load(SeqCst) {
                        let (batch, retry) = {
                            let mut g = st.lock().unwrap();
                            match g.1 {
                                Some(b) => (b, true),
                                None => {
                                    g.0 += 1;
                                    g.1 = Some(g.0 - 1);
                                    (g.0 - 1, false)
                                }
                            }
                        };
                        let (code, text) = post(
                            &url,
                            &batch_body(client, batch, 9),
                            &["content-type: application/x-ndjson"],
                        );
                        if code != 200 {
                            continue;
                        }
                        st.lock().unwrap().1 = None;
                        let mut acked = acked.lock().unwrap();
                        for l in text.lines() {
                            let r = json_of(l);
                            let status = r["status"].as_str().unwrap().to_string();
                            let id = r["page_id"].as_u64();
                            assert!(
                                ["added", "held", "duplicate"].contains(&status.as_str()),
                                "{r}"
                            );
                            assert!(if_new || status != "duplicate", "{r}");
                            let url = r["url"].as_str().unwrap().to_string();
                            if let Some((before, was)) = acked.get(&url) {
                                // Sent again: held with the id it was added with, or a
                                // duplicate again.
                                assert!(retry, "{url} answered twice without a retry");
                                assert_eq!(was, &id, "{url}: {before} then {r}");
                            }
                            if retry {
                                let mut c = counts.lock().unwrap();
                                c.0 += 1;
                                c.1 += usize::from(status == "held");
                            }
                            acked.insert(url, (status, id));
                        }
                    }
                });
            }
            let ms = 400 + (round as u64 * 7919 % 600);
            std::thread::sleep(Duration::from_millis(ms));
            kill(&server.child, "KILL");
            stop.store(true, SeqCst);
        });
        drop(server);
        let c = counts.into_inner().unwrap();
        retried += c.0;
        held_on_retry += c.1;
    }
    // A last round only retries what the kills left unacknowledged.
    let server = Server::start(d, &[]);
    for (client, st) in state.iter().enumerate() {
        if let Some(batch) = st.lock().unwrap().1.take() {
            let url = format!(
                "{}/v1/add:batch{}",
                server.base,
                if client % 2 == 0 { "?if-new=1" } else { "" }
            );
            let (code, text) = post(
                &url,
                &batch_body(client, batch, 9),
                &["content-type: application/x-ndjson"],
            );
            assert_eq!(code, 200, "{text}");
            let mut acked = acked.lock().unwrap();
            for l in text.lines() {
                let r = json_of(l);
                let url = r["url"].as_str().unwrap().to_string();
                acked.insert(
                    url,
                    (r["status"].as_str().unwrap().into(), r["page_id"].as_u64()),
                );
            }
        }
    }
    drop(server);
    let acked = acked.into_inner().unwrap();
    let added = acked.values().filter(|(s, _)| s != "duplicate").count();
    let duplicates = acked.len() - added;
    eprintln!(
        "{} pages acknowledged over {rounds} kills ({added} added or held, {duplicates} duplicates under if-new); {retried} answers to retries, {held_on_retry} of them held",
        acked.len()
    );
    assert!(
        added > 50 && duplicates > 5,
        "{added} added, {duplicates} duplicates"
    );
    assert!(held_on_retry >= 9, "{held_on_retry} retried pages held");
    run_ok(&["index", "check", d, "-q"]);
    // Every page acknowledged as added or held is there once, with its id; none acknowledged
    // as a duplicate was added.
    let server = Server::start(d, &["--read-only"]);
    for (url, (status, id)) in &acked {
        let (code, lines) = curl_get(
            &format!("{}/cdx", server.base),
            &[("url", url), ("fl", "page")],
        );
        assert_eq!(code, 200);
        let pages: Vec<&str> = lines.lines().filter(|l| !l.is_empty()).collect();
        match status.as_str() {
            "duplicate" => assert!(pages.is_empty(), "{url}: {pages:?}"),
            _ => assert_eq!(pages, [id.unwrap().to_string()], "{url}"),
        }
    }
    let stats = json(&run_ok(&["index", "stats", d, "--json"]));
    assert_eq!(stats["pages"].as_u64().unwrap() as usize, added);
}

/// Waits up to 30 s for `path` to hold a line; that line.
fn line_of(path: &std::path::Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(t) = std::fs::read_to_string(path) {
            if t.ends_with('\n') {
                return t.trim().to_string();
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_full_disk_during_adds_answers_507_and_loses_no_acknowledged_add() {
    // The index on a 3 MiB tmpfs in a user and mount namespace of its own (`unshare -rm`); the
    // test talks to the service there over loopback.
    if !unshare_allowed("the service's full-disk test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("idx");
    run_ok(&["index", "create", d.to_str().unwrap(), "-q"]);
    let (small, t) = (tmp.path().join("small"), tmp.path());
    std::fs::create_dir(&small).unwrap();
    let script = format!(
        "mount -t tmpfs -o size=3m tmpfs {s}\n\
         cp -a {d} {s}/idx\n\
         \"$NEARDUP\" serve --index {s}/idx --listen 127.0.0.1:0 -q > {t}/addr1 &\n\
         echo $! > {t}/pid1\n\
         wait $! || true\n\
         \"$NEARDUP\" index check {s}/idx -q && echo CHECKED\n\
         \"$NEARDUP\" serve --index {s}/idx --read-only --listen 127.0.0.1:0 -q > {t}/addr2 &\n\
         echo $! > {t}/pid2\n\
         wait $! || true\n",
        s = small.display(),
        d = d.display(),
        t = t.display(),
    );
    let ns = std::process::Command::new("unshare")
        .args(["-rm", "sh", "-ec", &script])
        .env("NEARDUP", env!("CARGO_BIN_EXE_neardup"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let base = format!("http://{}", line_of(&t.join("addr1")));
    let signal = |pid_file: &str, sig: &str| {
        let pid = line_of(&t.join(pid_file));
        std::process::Command::new("kill")
            .args([&format!("-{sig}"), &pid])
            .status()
            .unwrap();
    };
    let mut acked: Vec<(String, u64)> = Vec::new();
    let mut full = None;
    for batch in 0..2000 {
        let (code, text) = post(
            &format!("{base}/v1/add:batch"),
            &batch_body(batch % 7, batch, 20),
            &["content-type: application/x-ndjson"],
        );
        if code == 200 {
            for l in text.lines() {
                let r = json_of(l);
                acked.push((
                    r["url"].as_str().unwrap().into(),
                    r["page_id"].as_u64().unwrap(),
                ));
            }
            continue;
        }
        full = Some((code, text));
        break;
    }
    let (code, text) = full.expect("the disk never filled");
    assert_eq!(code, 507, "{text}");
    let e = json_of(&text);
    assert_eq!(e["error"], "disk-full", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("No space left on device"),
        "{e}"
    );
    eprintln!("{} pages acknowledged before the disk filled", acked.len());
    assert!(acked.len() >= 100, "{}", acked.len());
    // Lookups still answer; a second add gets the same clear answer.
    let page = batch_body(0, 0, 1);
    let (code, text) = post(
        &format!("{base}/v1/lookup"),
        &page[..page.len() - 1],
        &["content-type: application/json"],
    );
    assert_eq!(code, 200, "{text}");
    let (code, text) = post(
        &format!("{base}/v1/add:batch"),
        &batch_body(9, 9999, 20),
        &["content-type: application/x-ndjson"],
    );
    assert_eq!(code, 507, "{text}");
    signal("pid1", "TERM");
    // Restarted (read-only, on the same full disk): every acknowledged add is there.
    let base = format!("http://{}", line_of(&t.join("addr2")));
    for (url, id) in &acked {
        let (code, line) = curl_get(&format!("{base}/cdx"), &[("url", url), ("fl", "page")]);
        assert_eq!(code, 200);
        assert_eq!(line.trim(), id.to_string(), "{url}");
    }
    signal("pid2", "TERM");
    let o = ns.wait_with_output().unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(
        o.status.success() && out.contains("CHECKED"),
        "{out}\n{err}"
    );
}
