//! `neardup serve`'s adds, through a real HTTP client on loopback: each add is durable before
//! its answer and taken once (`?if-new=1`, the WARC and JSON paths), the first seen wins; SIGKILL
//! under a load of adds loses no acknowledged add; SIGTERM drains adds in flight; crawl budgets
//! cap a crawler trap and clusters list their members.

use crate::serve::{curl_get, indexed_sample, json_of, page_json, post, sample_pages, Server};
use crate::util::*;

#[test]
fn serve_takes_adds_once_durably_and_the_first_seen_wins() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("idx");
    let d = d.to_str().unwrap();
    run_ok(&["index", "create", d, "-q"]);
    let pages = sample_pages(6);
    let server = Server::start(d, &["--label", "live"]);
    let base = server.base.clone();
    let json: &[&str] = &["content-type: application/json"];

    // An add, then the same add again (a retried request): held, not added twice.
    let (code, text) = post(&format!("{base}/v1/add"), &page_json(&pages[0], ""), json);
    assert_eq!(code, 200, "{text}");
    let r = json_of(&text);
    assert_eq!(
        (&r["status"], &r["page_id"], &r["label"]),
        (&"added".into(), &0.into(), &"live".into()),
        "{r}"
    );
    let (_, text) = post(
        &format!("{base}/v1/add?if-new=0"),
        &page_json(&pages[0], ""),
        json,
    );
    let r = json_of(&text);
    assert_eq!(
        (&r["status"], &r["page_id"]),
        (&"held".into(), &0.into()),
        "{r}"
    );
    // Acknowledged means readable: a lookup finds it with its crawl and evidence.
    let (_, text) = post(
        &format!("{base}/v1/lookup"),
        &page_json(&pages[0], ""),
        json,
    );
    let r = json_of(&text);
    assert_eq!(
        (
            &r["duplicate"],
            &r["matches"][0]["page"],
            &r["matches"][0]["label"]
        ),
        (&true.into(), &0.into(), &"live".into()),
        "{r}"
    );
    assert_eq!(r["matches"][0]["identical_payload"], true);

    // If new: a near copy of a held page is not added, and says what it duplicates.
    let (_, text) = post(
        &format!("{base}/v1/add?if-new=1"),
        &page_json(&pages[0], "<p>one more line at the end</p>"),
        json,
    );
    let r = json_of(&text);
    assert_eq!(r["status"], "duplicate", "{r}");
    assert_eq!(r["matches"][0]["page"], 0);
    assert_eq!(r["matches"][0]["identical_payload"], false);
    assert!(r["matches"][0]["estimated_jaccard"].as_f64().unwrap() > 0.8);

    // A batch, if new: a page and its near copy in one request: the first is added, the
    // second is its duplicate; a bad line is answered in its place; a label per line.
    let mut batch = Vec::new();
    batch.extend(page_json(&pages[1], ""));
    batch.push(b'\n');
    batch.extend(page_json(&pages[1], "<p>and a footer</p>"));
    batch.extend(b"\n{\"url\": 3}\n");
    let other = serde_json::json!({"url": "https://elsewhere.example/", "text": "a page on another subject entirely, with words of its own", "label": "other"});
    batch.extend(serde_json::to_vec(&other).unwrap());
    let (code, text) = post(
        &format!("{base}/v1/add:batch?if-new=1"),
        &batch,
        &["content-type: application/x-ndjson"],
    );
    assert_eq!(code, 200, "{text}");
    let rs: Vec<serde_json::Value> = text.lines().map(json_of).collect();
    assert_eq!(rs.len(), 4, "{text}");
    assert_eq!(
        (&rs[0]["status"], &rs[0]["page_id"]),
        (&"added".into(), &1.into())
    );
    assert_eq!(
        (&rs[1]["status"], &rs[1]["matches"][0]["page"]),
        (&"duplicate".into(), &1.into())
    );
    assert_eq!(
        (&rs[2]["line"], &rs[2]["error"]),
        (&3.into(), &"bad-request".into())
    );
    assert_eq!(
        (&rs[3]["status"], &rs[3]["label"], &rs[3]["page_id"]),
        (&"added".into(), &"other".into(), &2.into())
    );

    // A raw HTTP response, as a crawler fetched it.
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n".to_vec();
    http.extend_from_slice(&pages[3].body);
    let url = pages[3].url.as_str();
    let (code, text) = post(
        &format!(
            "{base}/v1/add?url={}&date=2026-11-23T10:00:00Z&id=r3",
            urlencode(url)
        ),
        &http,
        &["content-type: application/http; msgtype=response"],
    );
    assert_eq!(code, 200, "{text}");
    let r = json_of(&text);
    assert_eq!(
        (&r["status"], &r["id"], &r["url"]),
        (&"added".into(), &"r3".into(), &url.into()),
        "{r}"
    );
    // The same capture as a WARC record (written by the sample's own bytes): found.
    let (code, text) = post(
        &format!("{base}/v1/lookup?url=x"),
        &http,
        &["content-type: application/warc"],
    );
    assert_eq!(code, 400, "{text}");
    let warc = warc_record(url, &http);
    let (code, text) = post(
        &format!("{base}/v1/lookup"),
        &warc,
        &["content-type: application/warc"],
    );
    assert_eq!(code, 200, "{text}");
    let r = json_of(&text);
    assert_eq!(
        (&r["duplicate"], &r["matches"][0]["page"]),
        (&true.into(), &3.into()),
        "{r}"
    );
    // A WARC batch with a malformed record between two good ones: each good one is answered,
    // the bad one in its place with its offset, as the CLI skips and counts it (issue 58: the
    // whole body was refused).
    let mut batch = warc_record(url, &http);
    batch.extend_from_slice(b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: x\r\n\r\n");
    batch.extend(warc_record(url, &http));
    let (code, text) = post(
        &format!("{base}/v1/lookup:batch"),
        &batch,
        &["content-type: application/warc"],
    );
    assert_eq!(code, 200, "{text}");
    let rs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rs.len(), 3, "{text}");
    assert_eq!(
        (&rs[0]["duplicate"], &rs[2]["duplicate"]),
        (&true.into(), &true.into()),
        "{text}"
    );
    assert_eq!(rs[1]["error"], "bad-request", "{text}");
    assert!(
        rs[1]["message"].as_str().unwrap().contains("offset"),
        "{text}"
    );
    // The CDX endpoint knows the capture, with its date.
    let (_, line) = curl_get(
        &format!("{base}/cdx"),
        &[("url", url), ("fl", "timestamp,digest,label,page")],
    );
    assert_eq!(
        line.trim(),
        format!(
            "20261123100000 {} live 3",
            r["digest"].as_str().unwrap().trim_start_matches("sha1:")
        )
    );

    // Mistakes: 4xx with a JSON error.
    for (url, body, headers, want) in [
        (
            format!("{base}/v1/add?if-new=maybe"),
            page_json(&pages[4], ""),
            json,
            400,
        ),
        (
            format!("{base}/v1/add?label=%07"),
            page_json(&pages[4], ""),
            json,
            400,
        ),
        (
            format!("{base}/v1/add?nope=1"),
            page_json(&pages[4], ""),
            json,
            400,
        ),
        (
            format!("{base}/v1/add"),
            b"HTTP/1.1 200 OK\r\n\r\nhi".to_vec(),
            &["content-type: application/http"][..],
            400,
        ),
        (
            format!("{base}/v1/add"),
            b"<p>x</p>".to_vec(),
            &["content-type: text/html"][..],
            415,
        ),
        (
            format!("{base}/v1/lookup?if-new=1"),
            page_json(&pages[4], ""),
            json,
            400,
        ),
        (
            format!("{base}/v1/add"),
            b"WARC/1.0\r\nbroken".to_vec(),
            &["content-type: application/warc"][..],
            400,
        ),
    ] {
        let (code, text) = post(&url, &body, headers);
        assert_eq!(code, want, "{url}: {text}");
        assert!(
            json_of(&text)["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{text}"
        );
    }

    // One writer: the service holds the index's lock.
    let out = neardup(
        &[
            "index",
            "add",
            d,
            root()
                .join("data/sample/rustdocs-1.63.0.warc.gz")
                .to_str()
                .unwrap(),
            "-q",
        ],
        &root(),
    );
    assert!(!out.status.success());

    // SIGTERM commits and exits 0; what was acknowledged is there.
    let mut server = server;
    kill(&server.child, "TERM");
    assert!(server.child.wait().unwrap().success());
    run_ok(&["index", "check", d, "-q"]);
    let out = run_ok(&["index", "stats", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4"), "{text}");
}

/// Clients add pages while the service is killed (SIGKILL) at a random moment; after a
/// restart every acknowledged add is there with the id it was acknowledged with, and the
/// index checks clean.
#[test]
fn serve_killed_under_write_load_loses_no_acknowledged_add() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("idx");
    let d = d.to_str().unwrap();
    run_ok(&["index", "create", d, "-q"]);
    let rounds: u64 = std::env::var("NEARDUP_CRASH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let mut acked: Vec<(String, u64)> = Vec::new();
    for round in 0..rounds {
        let server = Server::start(d, &[]);
        let url = format!("{}/v1/add:batch", server.base);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let got = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for client in 0..4 {
                let (url, stop, got) = (&url, &stop, &got);
                s.spawn(move || {
                    let mut n = 0;
                    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                        let mut body = String::new();
                        for k in 0..10 {
                            let words: String = (0..200).map(|w| format!("r{round}c{client}n{n}k{k}w{w} ")).collect();
                            body.push_str(&serde_json::json!({"url": format!("https://load.example/{round}/{client}/{n}/{k}"), "text": words}).to_string());
                            body.push('\n');
                        }
                        n += 1;
                        let (code, text) = post(url, body.as_bytes(), &["content-type: application/x-ndjson"]);
                        if code != 200 {
                            continue;
                        }
                        for l in text.lines() {
                            let r = json_of(l);
                            assert_eq!(r["status"], "added", "{r}");
                            got.lock().unwrap().push((r["url"].as_str().unwrap().to_string(), r["page_id"].as_u64().unwrap()));
                        }
                    }
                });
            }
            let ms = 300 + (round * 7919 % 700);
            std::thread::sleep(std::time::Duration::from_millis(ms));
            kill(&server.child, "KILL");
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        drop(server);
        acked.extend(got.into_inner().unwrap());
    }
    eprintln!("{} adds acknowledged over {rounds} kills", acked.len());
    assert!(acked.len() > 50, "{} adds acknowledged", acked.len());
    run_ok(&["index", "check", d, "-q"]);
    let server = Server::start(d, &["--read-only"]);
    for (url, page) in &acked {
        let (code, line) = curl_get(
            &format!("{}/cdx", server.base),
            &[("url", url), ("fl", "page")],
        );
        assert_eq!(code, 200);
        assert_eq!(line.trim(), page.to_string(), "{url}");
    }
}

pub(crate) fn kill(child: &std::process::Child, signal: &str) {
    assert!(std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap()
        .success());
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// One WARC response record holding `http`, as warcio writes them (Content-Length, CRLFs).
fn warc_record(url: &str, http: &[u8]) -> Vec<u8> {
    let mut w = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:12345678-1234-1234-1234-123456789abc>\r\nWARC-Date: 2026-11-23T10:00:00Z\r\nWARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    w.extend_from_slice(http);
    w.extend_from_slice(b"\r\n\r\n");
    w
}

/// SIGTERM while a large batch of adds is in flight: the batch is answered in full, the
/// service exits 0, and every page it acknowledged is in the index.
#[test]
fn serve_drains_adds_in_flight_on_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("idx");
    let d = d.to_str().unwrap();
    run_ok(&["index", "create", d, "-q"]);
    // The batch takes seconds in a debug build on a loaded machine: room beyond the 10 s
    // default, which this test is not about.
    let mut server = Server::start(d, &["--timeout", "120"]);
    let url = format!("{}/v1/add:batch", server.base);
    let mut body = String::new();
    for n in 0..3000 {
        let words: String = (0..300).map(|w| format!("d{n}w{w} ")).collect();
        body.push_str(
            &serde_json::json!({"url": format!("https://drain.example/{n}"), "text": words})
                .to_string(),
        );
        body.push('\n');
    }
    let ((code, text), answered) = std::thread::scope(|s| {
        let h = s.spawn(|| {
            let r = post(
                &url,
                body.as_bytes(),
                &["content-type: application/x-ndjson"],
            );
            (r, std::time::Instant::now())
        });
        std::thread::sleep(std::time::Duration::from_millis(150));
        kill(&server.child, "TERM");
        let termed = std::time::Instant::now();
        let (r, answered) = h.join().unwrap();
        (r, answered > termed)
    });
    assert!(
        answered,
        "the batch was answered before SIGTERM: make it larger"
    );
    assert!(server.child.wait().unwrap().success());
    assert_eq!(code, 200, "{text}");
    let acked: Vec<serde_json::Value> = text.lines().map(json_of).collect();
    assert_eq!(acked.len(), 3000);
    assert!(acked.iter().all(|r| r["status"] == "added"), "{text}");
    let server = Server::start(d, &["--read-only"]);
    for r in acked.iter().step_by(37) {
        let (_, line) = curl_get(
            &format!("{}/cdx", server.base),
            &[("url", r["url"].as_str().unwrap()), ("fl", "page")],
        );
        assert_eq!(line.trim(), r["page_id"].to_string());
    }
}

/// A calendar page of a crawler trap: one template, a date that differs.
fn trap_page(day: u32) -> Vec<u8> {
    let words: String = (0..300).map(|i| format!("event{} ", i % 97)).collect();
    let html = format!(
        "<html><head><title>Calendar</title></head><body><h1>Events on day {day}</h1><p>{words}</p></body></html>"
    );
    serde_json::to_vec(&serde_json::json!({
        "url": format!("https://trap.example/calendar?day={day}"),
        "html": html,
        "date": "2026-11-26T00:00:00Z",
    }))
    .unwrap()
}

/// Cluster budgets over HTTP: a lookup names the cluster a page would join (its oldest held
/// match) and the cluster's size; `?budget=N` makes it a duplicate only once the cluster holds
/// N pages; `GET /v1/cluster/{id}` lists the members, paged; mistakes are 4xx.
#[test]
fn budgets_cap_a_trap_and_clusters_list_their_members() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("idx");
    let d = d.to_str().unwrap();
    run_ok(&["index", "create", d, "-q"]);
    let server = Server::start(d, &["--label", "live"]);
    let base = server.base.clone();
    let json: &[&str] = &["content-type: application/json"];
    let look = |day: u32, query: &str| {
        let (code, text) = post(&format!("{base}/v1/lookup{query}"), &trap_page(day), json);
        assert_eq!(code, 200, "{text}");
        json_of(&text)
    };
    // Nothing held: no cluster, not a duplicate; the cluster is named only when asked.
    assert!(look(1, "").get("cluster").is_none());
    let r = look(1, "?cluster=1");
    assert_eq!(
        (&r["duplicate"], &r["cluster"], &r["cluster_size"]),
        (&false.into(), &serde_json::Value::Null, &0.into()),
        "{r}"
    );
    let mut ids = Vec::new();
    for day in 1..=5 {
        let (code, text) = post(&format!("{base}/v1/add"), &trap_page(day), json);
        assert_eq!(code, 200, "{text}");
        ids.push(json_of(&text)["page_id"].as_u64().unwrap());
    }
    // The sixth day's page: its cluster is the first day's page, holding 5 pages.
    let r = look(6, "?matches=0&cluster=1");
    assert_eq!(r["cluster"], ids[0], "{r}");
    assert_eq!(
        (&r["cluster_size"], &r["cluster_size_exact"]),
        (&5.into(), &true.into())
    );
    assert_eq!(r["duplicate"], true);
    // Under a budget: a duplicate once the cluster holds that many pages, exact whatever
    // ?matches says.
    for (budget, dup) in [(1, true), (5, true), (6, false), (100, false)] {
        let r = look(6, &format!("?budget={budget}&matches=1"));
        assert_eq!(r["duplicate"], dup, "budget {budget}: {r}");
        assert_eq!(r["cluster"], ids[0], "budget {budget}: {r}");
        assert!(r["matches"].as_array().unwrap().len() <= 1);
    }
    // The batch door takes the budget too.
    let body = [trap_page(7), b"\n".to_vec(), trap_page(8)].concat();
    let (code, text) = post(&format!("{base}/v1/lookup:batch?budget=6"), &body, json);
    assert_eq!(code, 200, "{text}");
    for line in text.lines() {
        let r = json_of(line);
        assert_eq!(
            (&r["duplicate"], &r["cluster_size"]),
            (&false.into(), &5.into())
        );
    }
    // The cluster's members, paged, in id order, with their evidence.
    let (code, text) = curl_get(&format!("{base}/v1/cluster/{}", ids[0]), &[("limit", "2")]);
    assert_eq!(code, 200, "{text}");
    let c = json_of(&text);
    assert_eq!((&c["size"], &c["more"]), (&5.into(), &true.into()), "{c}");
    let members: Vec<u64> = (c["members"].as_array().unwrap().iter())
        .map(|m| m["page"].as_u64().unwrap())
        .collect();
    assert_eq!(members, ids[..2]);
    assert!(
        c["members"][1]["rule"].is_string() && c["members"][1]["estimated_jaccard"].is_number()
    );
    let (_, text) = curl_get(
        &format!("{base}/v1/cluster/{}", ids[0]),
        &[("offset", "4"), ("limit", "2")],
    );
    let c = json_of(&text);
    assert_eq!(
        (c["members"].as_array().unwrap().len(), &c["more"]),
        (1, &false.into())
    );
    // Mistakes: 4xx with a JSON error.
    for (url, query, status) in [
        (format!("{base}/v1/cluster/999999"), vec![], 404),
        (format!("{base}/v1/cluster/x"), vec![], 400),
        (format!("{base}/v1/cluster/0"), vec![("limit", "5000")], 400),
    ] {
        let (code, text) = curl_get(&url, &query);
        assert_eq!(code, status, "{url}: {text}");
        assert!(json_of(&text)["error"].is_string());
    }
    for q in ["?budget=0", "?budget=x", "?cluster=maybe"] {
        let (code, text) = post(&format!("{base}/v1/lookup{q}"), &trap_page(9), json);
        assert_eq!(code, 400, "{q}: {text}");
    }
}

/// Every add path adds a record once: `index add` of a file added before has nothing to do
/// under its label and is refused with what was found under another (or, with `--again`,
/// holds every record), a re-compressed copy of it holds every
/// record, `dedup --add-as` holds them too, and the service answers `held` for an indexed
/// page sent again.
#[test]
fn every_add_path_adds_a_record_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, crawl) = indexed_sample(tmp.path());
    let d = d.as_str();
    let c = crawl.to_str().unwrap();
    let pages = || {
        json(&run_ok(&["index", "stats", d, "--json"]))["pages"]
            .as_u64()
            .unwrap()
    };
    let before = pages();
    // Under the label it was added with: nothing to do (a rerun after a crash); under another
    // label: refused with what was found.
    let o = run_ok(&["index", "add", d, c, "--label", "stable"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("already added, nothing to do"));
    let o = neardup(&["index", "add", d, c, "--label", "stable-again"], &root());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("already added") && err.contains("--again"));
    let o = run_ok(&["index", "add", d, c, "--label", "stable", "--again"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("added 0 pages") && out.contains(&format!("{before} pages already held")),
        "{out}"
    );
    // The same records in another file (decompressed): held one by one.
    let plain = tmp.path().join("plain.warc");
    let mut gz = flate2::read::MultiGzDecoder::new(std::fs::File::open(&crawl).unwrap());
    std::io::copy(&mut gz, &mut std::fs::File::create(&plain).unwrap()).unwrap();
    let plain = plain.to_str().unwrap();
    run_ok(&["index", "add", d, plain, "--label", "copy", "-q"]);
    // dedup --add-as refuses it as added (under "copy", though it held every record).
    let out1 = tmp.path().join("out1");
    let o = neardup(
        &[
            "dedup",
            "--index",
            d,
            plain,
            "--add-as",
            "copy2",
            "-q",
            "-o",
            out1.to_str().unwrap(),
        ],
        &root(),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("already added"));
    let o = run_ok(&[
        "dedup",
        "--index",
        d,
        plain,
        "--add-as",
        "copy2",
        "--again",
        "-o",
        tmp.path().join("out").to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("{before} pages already held")));
    assert_eq!(pages(), before);
    // The service: an indexed page sent again is held with its id.
    let server = Server::start(d, &[]);
    let page = page_json(&sample_pages(1)[0], "");
    let (code, text) = post(
        &format!("{}/v1/add", server.base),
        &page,
        &["content-type: application/json"],
    );
    assert_eq!(code, 200, "{text}");
    assert_eq!(json_of(&text)["status"], "held", "{text}");
    drop(server);
    assert_eq!(pages(), before);
    // Removing the label its add held everything under forgets the file: it may be read again.
    run_ok(&["index", "remove", d, "--label", "copy", "-q"]);
    let o = run_ok(&["index", "add", d, plain, "--label", "copy3"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("{before} pages already held")));
    assert_eq!(pages(), before);
}
