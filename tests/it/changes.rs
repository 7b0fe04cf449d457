//! `neardup changes`: two crawls of eight URLs, one URL per change category, each named; the
//! timeline the same on one thread and two; a run where no URL was captured twice says so.

use crate::util::*;
use std::io::Write as _;

/// One WARC response record (uncompressed).
fn record(url: &str, date: &str, status: &str, headers: &str, body: &str) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut w = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{:08x}-0000-0000-0000-000000000000>\r\nWARC-Date: {date}\r\nWARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        url.len() * 31 + date.len() + body.len(),
        http.len()
    )
    .into_bytes();
    w.extend_from_slice(http.as_bytes());
    w.extend_from_slice(b"\r\n\r\n");
    w
}

/// An article of `n` words (letters only: a word with a digit is volatile) from `seed`.
pub(crate) fn article(n: usize, seed: u64) -> Vec<String> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut k = (s >> 33) % 20000;
            let mut w = String::from("q");
            while k > 0 {
                w.push((b'a' + (k % 26) as u8) as char);
                k /= 26;
            }
            w
        })
        .collect()
}

fn page(class: &str, date: &str, words: &[String]) -> String {
    format!(
        "<html><body class=\"{class}\"><nav>home news about</nav><div>Updated {date}</div><main><p>{}</p></main></body></html>",
        words.join(" ")
    )
}

const HTML: &str = "Content-Type: text/html\r\n";

#[test]
fn changes_names_each_category_and_is_the_same_on_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let base = article(2000, 1);
    let (d1, d2) = ("2026-01-01T00:00:00Z", "2026-01-08T00:00:00Z");
    let mut week1 = Vec::new();
    let mut week2 = Vec::new();
    let url = |p: &str| format!("https://a.example/{p}");
    let mut few = base.clone();
    few[700] = "altered".into();
    let mut large = base.clone();
    for w in large.iter_mut().skip(500).take(800) {
        w.push_str("zz");
    }
    let cases: Vec<(&str, String, (&str, &str))> = vec![
        (
            "unchanged",
            page("a", "May 1, 2026", &base),
            ("200 OK", HTML),
        ),
        (
            "markup-only",
            page("b", "May 1, 2026", &base),
            ("200 OK", HTML),
        ),
        (
            "dates-only",
            page("a", "June 12, 2026 10:41", &base),
            ("200 OK", HTML),
        ),
        (
            "few-words",
            page("a", "May 1, 2026", &few),
            ("200 OK", HTML),
        ),
        (
            "large-edit",
            page("a", "May 1, 2026", &large),
            ("200 OK", HTML),
        ),
        (
            "content-replaced",
            page("a", "May 1, 2026", &article(2000, 9)),
            ("200 OK", HTML),
        ),
        ("gone", "nothing here".into(), ("404 Not Found", HTML)),
        (
            "moved",
            String::new(),
            ("301 Moved Permanently", "Location: https://b.example/\r\n"),
        ),
    ];
    for (name, after, (status, headers)) in &cases {
        week1.extend(record(
            &url(name),
            d1,
            "200 OK",
            HTML,
            &page("a", "May 1, 2026", &base),
        ));
        week2.extend(record(&url(name), d2, status, headers, after));
    }
    let (w1, w2) = (tmp.path().join("week1.warc"), tmp.path().join("week2.warc"));
    std::fs::File::create(&w1)
        .unwrap()
        .write_all(&week1)
        .unwrap();
    std::fs::File::create(&w2)
        .unwrap()
        .write_all(&week2)
        .unwrap();
    let (w1, w2) = (w1.to_str().unwrap(), w2.to_str().unwrap());
    let one = run_ok(&["changes", w2, w1, "--timeline", "-", "-j", "1"]).stdout;
    let two = run_ok(&["changes", w1, w2, "--timeline", "-", "-j", "2"]).stdout;
    assert_eq!(
        one, two,
        "the same timeline whatever the input order and threads"
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(one)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 16);
    for (name, ..) in &cases {
        let mine: Vec<&serde_json::Value> = lines
            .iter()
            .filter(|l| l["url"] == url(name).as_str())
            .collect();
        assert_eq!(mine.len(), 2, "{name}");
        assert!(mine[0]["change"].is_null() && mine[0]["date"] == d1);
        assert_eq!(mine[1]["change"], *name, "{name}: {}", mine[1]);
        assert_eq!(mine[1]["compared_with"], d1);
        assert!(mine[1]["rule"].is_string(), "{name}: the rule that decided");
    }
    // The same crawls sketched with their prints: the same timeline from the signature files
    // (no byte offset there), for every capture they hold.
    let (s1, s2) = (tmp.path().join("w1.ndsig"), tmp.path().join("w2.ndsig"));
    for (w, s) in [(w1, &s1), (w2, &s2)] {
        run_ok(&[
            "sketch",
            w,
            "-o",
            s.to_str().unwrap(),
            "--prints",
            "--every-status",
            "-q",
        ]);
    }
    let sig = run_ok(&[
        "changes",
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
        "--timeline",
        "-",
    ])
    .stdout;
    let sig: Vec<serde_json::Value> = String::from_utf8(sig)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let without_offset = |l: &serde_json::Value| {
        let mut l = l.clone();
        assert!(l["offset"].is_number() || l["offset"].is_null());
        l["offset"] = serde_json::Value::Null;
        l
    };
    for l in &sig {
        assert!(l["offset"].is_null());
        let same = lines
            .iter()
            .find(|w| w["url"] == l["url"] && w["date"] == l["date"])
            .unwrap_or_else(|| panic!("{l}"));
        assert_eq!(without_offset(same), *l);
    }
    for name in [
        "unchanged",
        "markup-only",
        "dates-only",
        "few-words",
        "large-edit",
        "content-replaced",
    ] {
        assert!(
            sig.iter().any(|l| l["change"] == name),
            "{name} from the signature files"
        );
    }
    // A signature file without prints says how to make one.
    run_ok(&["sketch", w1, "-o", s1.to_str().unwrap(), "--force", "-q"]);
    let o = neardup(&["changes", s1.to_str().unwrap()], &root());
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("neardup sketch --prints"));
    // The same two crawls added to an index: its captures' timeline over HTTP is the files'
    // (for the pages an index holds: 200 responses with terms), and wayback-discover-diff's
    // routes give the same simhashes.
    let idx = tmp.path().join("idx");
    let idx = idx.to_str().unwrap();
    run_ok(&["index", "create", idx, "--timelines", "-q"]);
    for (w, label) in [(w1, "week1"), (w2, "week2")] {
        run_ok(&["index", "add", idx, w, "--label", label, "-q"]);
    }
    // An index created with the defaults keeps no prints: `index changes` says how to keep them.
    let plain = tmp.path().join("plain");
    let plain = plain.to_str().unwrap();
    run_ok(&["index", "create", plain, "-q"]);
    run_ok(&["index", "add", plain, w1, "--label", "week1", "-q"]);
    let o = neardup(&["index", "changes", plain, &url("few-words")], &root());
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("keeps no capture prints") && err.contains("index create --timelines"),
        "{err}"
    );
    let server = crate::serve::Server::start(idx, &[]);
    for name in ["few-words", "large-edit", "content-replaced", "dates-only"] {
        let (status, body) = crate::serve::curl_get(
            &format!("{}/v1/changes", server.base),
            &[("url", &url(name))],
        );
        assert_eq!(status, 200, "{body}");
        let t: serde_json::Value = serde_json::from_str(&body).unwrap();
        let caps = t["captures"].as_array().unwrap();
        assert_eq!(caps.len(), 2, "{body}");
        assert_eq!(caps[0]["file"], "week1");
        let files: Vec<&serde_json::Value> = lines
            .iter()
            .filter(|l| l["url"] == url(name).as_str())
            .collect();
        for (got, want) in caps.iter().zip(&files) {
            for k in [
                "date",
                "change",
                "rule",
                "jaccard",
                "simhash",
                "simhash_distance",
            ] {
                assert_eq!(got[k], want[k], "{name} {k}: {got} vs {want}");
            }
        }
        assert!(t["next_visit"]["next_in_days"].is_number());
        // wayback-discover-diff's shapes over the same prints.
        let (status, body) = crate::serve::curl_get(
            &format!("{}/simhash", server.base),
            &[("url", &url(name)), ("year", "2026")],
        );
        assert_eq!(status, 200, "{body}");
        let y: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (y["total"].as_u64(), y["status"].as_str()),
            (Some(2), Some("COMPLETE"))
        );
        let (ts, sh) = (
            y["captures"][1][0].as_str().unwrap().to_string(),
            y["captures"][1][1].as_str().unwrap().to_string(),
        );
        assert_eq!(ts, "20260108000000");
        let (_, body) = crate::serve::curl_get(
            &format!("{}/simhash", server.base),
            &[("url", &url(name)), ("timestamp", &ts)],
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&body).unwrap()["simhash"],
            sh
        );
    }
    let (_, body) = crate::serve::curl_get(
        &format!("{}/simhash", server.base),
        &[("url", "https://nowhere.example/"), ("year", "2026")],
    );
    assert!(body.contains("NO_CAPTURES"), "{body}");
    let (status, body) = crate::serve::curl_get(
        &format!("{}/calculate-simhash", server.base),
        &[("url", &url("few-words")), ("year", "2026")],
    );
    assert_eq!(status, 200);
    let job: serde_json::Value = serde_json::from_str(&body).unwrap();
    let (status, body) = crate::serve::curl_get(
        &format!("{}/job", server.base),
        &[("job_id", job["job_id"].as_str().unwrap())],
    );
    assert_eq!(status, 200);
    assert!(body.contains("SUCCESS"));
    drop(server);
    let human =
        String::from_utf8(run_ok(&["changes", w1, w2, "--url", &url("few-words")]).stdout).unwrap();
    assert!(human.contains("16 captures of 8 URLs"), "{human}");
    assert!(
        human.contains("few-words") && human.contains("chunks listed"),
        "{human}"
    );
    // Each URL's next visit, with its reason.
    let plans = String::from_utf8(run_ok(&["changes", w1, w2, "--schedule", "-"]).stdout).unwrap();
    let plans: Vec<serde_json::Value> = plans
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(plans.len(), 8);
    for p in &plans {
        assert_eq!(p["last_capture"], d2);
        assert!(
            p["next_visit"].as_str().unwrap() > d2 && p["reason"].is_string(),
            "{p}"
        );
        assert_eq!(p["intervals"], 1);
    }
    let gone = plans
        .iter()
        .find(|p| p["url"] == url("gone").as_str())
        .unwrap();
    assert_eq!(gone["next_in_days"], 28.0);
    let out = neardup(&["changes", w1, w2, "--change-probability", "1.5"], &root());
    assert_eq!(
        out.status.code(),
        Some(2),
        "a probability above 1 is a usage error"
    );
    // One crawl alone: no URL was captured twice, and the summary says so.
    let alone = String::from_utf8(run_ok(&["changes", w1]).stdout).unwrap();
    assert!(alone.contains("no URL was captured twice"), "{alone}");
}
