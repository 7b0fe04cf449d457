//! `neardup index` on the sample crawl: create, add two crawls, query the third; the index
//! refuses to be created twice, an out-of-range threshold is a usage error, and a query of an
//! indexed crawl finds every page of it.

use crate::util::*;

#[test]
fn create_add_query() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let d = dir.to_str().unwrap();
    let sample = root().join("data/sample");
    let crawl = |name: &str| sample.join(name).to_str().unwrap().to_string();
    let text = String::from_utf8_lossy(&run_ok(&["index", "create", d]).stdout).to_string();
    assert!(text.contains("matches at Jaccard >= 0.8"), "{text}");
    let again = neardup(&["index", "create", d], &root());
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    let bad = neardup(&["index", "create", "--threshold", "1.5", d], &root());
    assert_eq!(bad.status.code(), Some(2));

    let old = crawl("rustdocs-1.63.0.warc.gz");
    let text =
        String::from_utf8_lossy(&run_ok(&["index", "add", d, &old, "--label", "1.63"]).stdout)
            .to_string();
    assert!(
        text.contains("as crawl \"1.63\"; index generation 1"),
        "{text}"
    );
    run_ok(&[
        "index",
        "add",
        d,
        &crawl("rustdocs-stable.warc.gz"),
        "--label",
        "stable",
        "-q",
    ]);

    let out = tmp.path().join("q.jsonl");
    run_ok(&[
        "index",
        "query",
        d,
        &crawl("rustdocs-nightly.warc.gz"),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    let rows = jsonl(&out);
    assert!(rows.len() > 50, "{}", rows.len());
    for r in &rows {
        let label = r["match_label"].as_str().unwrap();
        assert!(label == "1.63" || label == "stable", "{r}");
        let j = r["exact_jaccard"]
            .as_f64()
            .or(r["estimated_jaccard"].as_f64())
            .unwrap();
        assert!(j >= 0.8 || r["identical_tokens"] == true, "{r}");
        assert!(
            r["rule"] == "lsh-bands" || r["rule"] == "identical-tokens",
            "{r}"
        );
        assert!(r["url"].as_str().unwrap().contains("/nightly/"));
    }

    // The indexed crawl against itself: every page finds itself, byte for byte.
    let stdout = run_ok(&["index", "query", d, &old]).stdout;
    let text = String::from_utf8_lossy(&stdout);
    let selves = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["url"] == r["match_url"] && r["identical_body"] == true)
        .count();
    assert_eq!(selves, 141, "every sketched page of the first crawl");

    let text = String::from_utf8_lossy(&run_ok(&["index", "check", d]).stdout).to_string();
    assert!(text.contains(": ok, generation 2: 4 segments"), "{text}");
    let keys = dir.join("seg-1.keys");
    let mut bytes = std::fs::read(&keys).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&keys, &bytes).unwrap();
    let bad = neardup(&["index", "check", d], &root());
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("seg-1.keys"));
}
