//! `neardup mirrors` groups and kinds (issue 40): the mirror crawl with thirty parked names on
//! one parking IP and a small news site with two proxies beside it; the sample crawl's subtree
//! mirrors; an empty result that says why.

use crate::util::*;
use std::io::Write as _;

/// One WARC response record (uncompressed) with an IP address.
fn record(url: &str, ip: &str, body: &str) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut w = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{:08x}-0000-0000-0000-000000000000>\r\nWARC-Date: 2026-11-01T00:00:00Z\r\nWARC-Target-URI: {url}\r\nWARC-IP-Address: {ip}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        url.len() * 131 + body.len(),
        http.len()
    )
    .into_bytes();
    w.extend_from_slice(http.as_bytes());
    w.extend_from_slice(b"\r\n\r\n");
    w
}

/// `n` words drawn from `seed` (letters only).
fn words(n: usize, seed: u64) -> String {
    crate::changes::article(n, seed).join(" ")
}

fn page(title: &str, text: &str) -> String {
    format!("<html><head><title>{title}</title></head><body><p>{text}</p></body></html>")
}

/// Thirty parked names on one IP (two pages each, one template), and a news site with two
/// proxies (other IPs, four deep article pages each).
fn parked_and_news(path: &std::path::Path) {
    let mut f = std::fs::File::create(path).unwrap();
    let template = words(250, 7);
    for i in 0..30 {
        let host = format!("name-{i:02}.example");
        for p in ["/", "/index.html"] {
            let body = page(&host, &format!("{host} is parked. {template}"));
            f.write_all(&record(
                &format!("https://{host}{p}"),
                "198.51.100.7",
                &body,
            ))
            .unwrap();
        }
    }
    for (h, ip) in [
        ("news.example", "192.0.2.10"),
        ("news-proxy.example", "192.0.2.11"),
        ("news-cache.example", "192.0.2.12"),
    ] {
        for k in 0..4 {
            let body = page(&format!("Story {k}"), &words(400, 100 + k));
            let url = format!("https://{h}/2026/11/story-{k}.html");
            f.write_all(&record(&url, ip, &body)).unwrap();
        }
    }
}

#[test]
fn groups_name_every_member_and_kinds_are_right() {
    let tmp = tempfile::tempdir().unwrap();
    let extra = tmp.path().join("parked-and-news.warc");
    parked_and_news(&extra);
    let out = tmp.path().join("m");
    let o = run_ok(&[
        "mirrors",
        &fixture("mirrors.warc.gz"),
        extra.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let groups = summary["groups"].as_array().unwrap();
    let group_of = |host: &str| {
        groups
            .iter()
            .find(|g| g["hosts"].as_array().unwrap().iter().any(|h| h == host))
            .unwrap_or_else(|| panic!("{host} in no group: {groups:?}"))
    };
    // The planted mirror crawl is one group of five hosts.
    let rust = group_of("doc.rust-lang.org");
    assert_eq!(rust["kind"], "mirror");
    assert_eq!(rust["hosts"].as_array().unwrap().len(), 5);
    // Thirty parked names on one IP: one parked group, no alias.
    let parked = group_of("name-00.example");
    assert_eq!(parked["kind"], "parked", "{parked}");
    assert_eq!(parked["hosts"].as_array().unwrap().len(), 30);
    assert_eq!(parked["ips"], 1);
    // The news site and its proxies: a mirror group, not parked.
    let news = group_of("news.example");
    assert_eq!(news["kind"], "mirror", "{news}");
    assert_eq!(news["hosts"].as_array().unwrap().len(), 3);
    assert_eq!(groups.len(), 3, "{groups:?}");
    assert_eq!(summary["counts"]["groups"], 3);
    // Every row names its group, and its group holds both its hosts.
    for r in jsonl(&out.join("mirrors.jsonl")) {
        let g = &groups[r["group"].as_u64().unwrap() as usize - 1];
        assert_eq!(g["id"], r["group"]);
        let hosts = g["hosts"].as_array().unwrap();
        assert!(
            hosts.contains(&r["host_a"]) && hosts.contains(&r["host_b"]),
            "{r}"
        );
        if r["host_a"].as_str().unwrap().starts_with("name-") {
            assert_eq!(r["kind"], "parked", "{r}");
        }
    }
    assert!(
        stdout.contains("(parked, 30 members, 29 pairs, 1 IPs)"),
        "{stdout}"
    );
    // The report shows the groups, every member named, and example URL pairs one to a line.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Groups of hosts"));
    assert!(html.contains("name-29.example") && html.contains("news-cache.example"));
    assert!(html.contains("<div class=\"pair\">"));
}

#[test]
fn subtree_mirrors_count_their_subtrees_and_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    let o = run_ok(&["mirrors", "--out", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let rows = jsonl(&out.join("mirrors.jsonl"));
    assert!(!rows.is_empty());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["counts"]["subtree_mirrors_within_host"],
        rows.len() as u64
    );
    assert_eq!(summary["counts"]["partial_mirrors"], 0);
    let host_pages = summary["pages"].as_u64().unwrap();
    for r in &rows {
        assert_eq!(r["kind"], "subtree-mirror", "{r}");
        assert_eq!(r["host_a"], r["host_b"]);
        // A side's pages are its subtree's, not the whole host's.
        for side in ["pages_a", "pages_b"] {
            let n = r[side].as_u64().unwrap();
            assert!(n < host_pages, "{side} {n} of {host_pages}: {r}");
        }
        assert!(r["pages_shared_a"].as_u64() <= r["pages_a"].as_u64());
    }
    assert!(!stdout.contains("partial-mirror"), "{stdout}");
    // The three versions of the docs are one group of three subtrees.
    let groups = summary["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["members"].as_array().unwrap().len(), 3);
}

#[test]
fn an_empty_result_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let crawl = tmp.path().join("one-site.warc");
    let mut f = std::fs::File::create(&crawl).unwrap();
    for k in 0..5 {
        let body = page(&format!("p{k}"), &words(300, 500 + k));
        f.write_all(&record(
            &format!("https://one.example/p{k}.html"),
            "192.0.2.1",
            &body,
        ))
        .unwrap();
    }
    drop(f);
    let out = tmp.path().join("m");
    let o = run_ok(&[
        "mirrors",
        crawl.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("nothing found: no two pages are near-duplicates"),
        "{stdout}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(summary["explanation"]
        .as_str()
        .unwrap()
        .contains("near-duplicates"));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Nothing was found: no two pages are near-duplicates"));
}
