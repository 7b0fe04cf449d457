//! `neardup index` on the sample crawl: create, add two crawls, query the third; the index
//! refuses to be created twice, an out-of-range threshold is a usage error, and a query of an
//! indexed crawl finds every page of it. `dedup --index` one crawl at a time gives the clusters
//! of one `dedup` over all three; digests, stats, remove and compact.

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
    // Lookups on one thread or several, the index in memory or read by block (a 64 KiB
    // memory limit holds none of it and spills queried pages to sorted runs): the same bytes.
    for (threads, mem) in [("1", "1G"), ("3", "64K")] {
        let other = tmp.path().join(format!("q-j{threads}.jsonl"));
        run_ok(&[
            "index",
            "query",
            d,
            &crawl("rustdocs-nightly.warc.gz"),
            "-o",
            other.to_str().unwrap(),
            "-j",
            threads,
            "--mem-limit",
            mem,
            "-q",
        ]);
        assert!(
            std::fs::read(&other).unwrap() == std::fs::read(&out).unwrap(),
            "-j{threads} --mem-limit {mem}"
        );
    }
    for r in &rows {
        let label = r["match_label"].as_str().unwrap();
        assert!(label == "1.63" || label == "stable", "{r}");
        let j = r["exact_jaccard"]
            .as_f64()
            .or(r["estimated_jaccard"].as_f64())
            .unwrap();
        let c = r["containment"].as_f64().unwrap();
        let shared = r["shared_shingles"].as_u64().unwrap();
        let same_item = r["titles"] == "same"
            && (j >= 0.5 || (c >= 0.75 && j >= 0.2) || (c >= 0.4 && shared >= 40));
        assert!(
            j >= 0.8 || (c >= 0.8 && j >= 0.4) || same_item || r["rule"] == "identical-tokens",
            "{r}"
        );
        assert!(
            r["rule"] == "lsh-bands" || r["rule"] == "identical-tokens",
            "{r}"
        );
        assert!(r["url"].as_str().unwrap().contains("/nightly/"));
    }

    // At most 1 match per page: the same pages match, each keeping one of its matches.
    let one = tmp.path().join("q1.jsonl");
    run_ok(&[
        "index",
        "query",
        d,
        &crawl("rustdocs-nightly.warc.gz"),
        "-o",
        one.to_str().unwrap(),
        "--max-matches",
        "1",
        "-q",
    ]);
    let key = |r: &serde_json::Value| (r["url"].to_string(), r["match_page"].as_u64().unwrap());
    let all: std::collections::BTreeSet<_> = rows.iter().map(key).collect();
    let cut = jsonl(&one);
    let urls = |rs: &[serde_json::Value]| -> std::collections::BTreeSet<String> {
        rs.iter().map(|r| r["url"].to_string()).collect()
    };
    assert_eq!(urls(&cut), urls(&rows), "the same pages match");
    assert_eq!(cut.len(), urls(&rows).len(), "one row per matching page");
    assert!(
        cut.iter().all(|r| all.contains(&key(r))),
        "each a match of the full query"
    );

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
    assert!(text.contains(": ok, generation 2: 6 segments"), "{text}");
    let keys = dir.join("seg-1.keys");
    let mut bytes = std::fs::read(&keys).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&keys, &bytes).unwrap();
    let bad = neardup(&["index", "check", d], &root());
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("seg-1.keys"));
}

/// Union-find over string ids: the partition (groups of two or more) that pairs make.
fn partition<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Vec<String>> {
    let mut parent: std::collections::BTreeMap<String, String> = Default::default();
    fn find(p: &mut std::collections::BTreeMap<String, String>, x: &str) -> String {
        let mut x = x.to_string();
        loop {
            let up = p.entry(x.clone()).or_insert_with(|| x.clone()).clone();
            if up == x {
                return x;
            }
            x = up;
        }
    }
    for (a, b) in pairs {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            parent.insert(hi, lo);
        }
    }
    let keys: Vec<String> = parent.keys().cloned().collect();
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for k in keys {
        let r = find(&mut parent, &k);
        groups.entry(r).or_default().push(k);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

#[test]
fn dedup_one_crawl_at_a_time_equals_one_dedup_over_all() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let d = dir.to_str().unwrap();
    let sample = root().join("data/sample");
    run_ok(&["index", "create", d, "-q"]);
    // The index's matching is dedup's default, the title rule included.
    let one = tmp.path().join("one");
    run_ok(&[
        "dedup",
        sample.to_str().unwrap(),
        "-o",
        one.to_str().unwrap(),
        "-q",
    ]);
    let rows = jsonl(&one.join("clusters.jsonl"));
    let canonical: std::collections::HashMap<u64, &str> = rows
        .iter()
        .filter(|r| r["canonical"] == true)
        .map(|r| (r["cluster"].as_u64().unwrap(), r["id"].as_str().unwrap()))
        .collect();
    let want = partition(rows.iter().map(|r| {
        (
            r["id"].as_str().unwrap(),
            canonical[&r["cluster"].as_u64().unwrap()],
        )
    }));
    assert!(want.len() > 100, "{}", want.len());

    let mut runs = Vec::new();
    for (i, name) in [
        "rustdocs-1.63.0.warc.gz",
        "rustdocs-nightly.warc.gz",
        "rustdocs-stable.warc.gz",
    ]
    .iter()
    .enumerate()
    {
        let out = tmp.path().join(format!("run{i}"));
        let text = String::from_utf8_lossy(
            &run_ok(&[
                "dedup",
                "--index",
                d,
                "--add-as",
                name,
                sample.join(name).to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .stdout,
        )
        .to_string();
        assert!(text.contains(&format!("as crawl \"{name}\"")), "{text}");
        let summary = read_json(&out.join("summary.json"));
        assert_eq!(summary["added"]["label"], *name);
        runs.extend(jsonl(&out.join("clusters.jsonl")));
    }
    // Every run reports every page of the clusters its pages joined; together they are the
    // one dedup's clusters, each kept page the same.
    let got = partition(runs.iter().map(|r| {
        (
            r["id"].as_str().unwrap(),
            r["canonical_id"].as_str().unwrap(),
        )
    }));
    assert_eq!(got, want);
    let kept: std::collections::BTreeSet<&str> = canonical.values().copied().collect();
    let last_kept: std::collections::BTreeSet<&str> = runs
        .iter()
        .filter(|r| r["canonical"] == true)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(kept.iter().all(|k| last_kept.contains(k)));
    for r in &runs {
        if r["new"] == true && r["canonical"] == false {
            assert!(r["match_page"].is_u64() && r["rule"].is_string(), "{r}");
        }
    }

    // Without --add-as nothing changes; signature flags are refused (the index fixes them).
    let before = std::fs::read(dir.join("MANIFEST")).unwrap();
    let out = tmp.path().join("again");
    run_ok(&[
        "dedup",
        "--index",
        d,
        sample.join("rustdocs-stable.warc.gz").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(std::fs::read(dir.join("MANIFEST")).unwrap(), before);
    let s = read_json(&out.join("summary.json"));
    assert_eq!(s["duplicates_of_index"], s["pages"], "{s}");
    let refused = neardup(&["dedup", "--index", d, "--threshold", "0.5"], &root());
    assert_eq!(refused.status.code(), Some(2));

    // Exact duplicates by payload digest: every stable page is there under its own crawl.
    let gz = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(sample.join("rustdocs-stable.warc.gz"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&gz.stdout);
    let mut response = false;
    let digest = text
        .lines()
        .filter_map(|l| {
            if let Some(t) = l.strip_prefix("WARC-Type: ") {
                response = t.trim() == "response";
            }
            l.strip_prefix("WARC-Payload-Digest: ").filter(|_| response)
        })
        .nth(5)
        .unwrap()
        .trim()
        .to_string();
    let hits =
        String::from_utf8_lossy(&run_ok(&["index", "digest", d, &digest]).stdout).to_string();
    let hits: Vec<serde_json::Value> = hits
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!hits.is_empty());
    assert!(
        hits.iter().all(|h| h["digest"] == digest.as_str()),
        "{hits:?}"
    );
    let bad = neardup(&["index", "digest", d, "md5:abc"], &root());
    assert_eq!(
        bad.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );

    // Stats, remove a crawl, compact: the pages of the others stay findable.
    let stats = json(&run_ok(&["index", "stats", d, "--json"]));
    assert_eq!(stats["pages"], 680);
    assert_eq!(stats["crawls"].as_array().unwrap().len(), 3);
    run_ok(&[
        "index",
        "remove",
        d,
        "--label",
        "rustdocs-nightly.warc.gz",
        "-q",
    ]);
    let missing = neardup(&["index", "remove", d, "--label", "nope"], &root());
    assert_ne!(missing.status.code(), Some(0));
    let stats = json(&run_ok(&["index", "stats", d, "--json"]));
    assert_eq!(stats["pages"], 680 - 301);
    assert_eq!(stats["next_page"], 680);
    run_ok(&["index", "check", d, "-q"]);
    let compacted = String::from_utf8_lossy(&run_ok(&["index", "compact", d]).stdout).to_string();
    assert!(
        compacted.contains("entries of removed crawls dropped"),
        "{compacted}"
    );
    run_ok(&["index", "check", d, "-q"]);
    let stats = json(&run_ok(&["index", "stats", d, "--json"]));
    // Two crawls left (a catalog and a titles segment each), one key and one link segment.
    assert_eq!(stats["segments"], 2 * 2 + 2, "{stats}");
    let q = tmp.path().join("q.jsonl");
    run_ok(&[
        "index",
        "query",
        d,
        sample.join("rustdocs-nightly.warc.gz").to_str().unwrap(),
        "-o",
        q.to_str().unwrap(),
        "-q",
    ]);
    let rows = jsonl(&q);
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r["match_label"] != "rustdocs-nightly.warc.gz"));
    // With one crawl left, a compaction's segments are that crawl's: stats lists no merged
    // segments, and removing the crawl leaves nothing behind.
    run_ok(&[
        "index",
        "remove",
        d,
        "--label",
        "rustdocs-stable.warc.gz",
        "-q",
    ]);
    run_ok(&["index", "compact", d, "-q"]);
    let stats = json(&run_ok(&["index", "stats", d, "--json"]));
    assert_eq!(stats["merged_segments"], 0, "{stats}");
    assert_eq!(stats["crawls"][0]["segments"], 4, "{stats}");
    run_ok(&[
        "index",
        "remove",
        d,
        "--label",
        "rustdocs-1.63.0.warc.gz",
        "-q",
    ]);
    let stats = json(&run_ok(&["index", "stats", d, "--json"]));
    assert_eq!(
        (stats["segments"].as_u64(), stats["keys"].as_u64()),
        (Some(0), Some(0)),
        "{stats}"
    );
}

/// Issue 58: an add run again after it committed (what an operator does after a crash, and a
/// retry loop keyed on exit 0) has nothing to do and says so, exit 0; the same files under
/// another label are still refused; `--again` reads them again.
#[test]
fn an_add_run_again_under_its_label_has_nothing_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("idx");
    let d = d.to_str().unwrap();
    let crawl = fixture("basic.warc.gz");
    run_ok(&["index", "create", d, "-q"]);
    let first = run_ok(&["index", "add", d, &crawl, "--label", "week1"]);
    assert!(String::from_utf8_lossy(&first.stdout).contains("added 5 pages"));
    let again = run_ok(&["index", "add", d, &crawl, "--label", "week1"]);
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(
        said.contains("already added, nothing to do") && said.contains("\"week1\""),
        "{said}"
    );
    let other = neardup(&["index", "add", d, &crawl, "--label", "week2"], &root());
    assert_eq!(other.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&other.stderr).contains("already added to this index"));
    let forced = run_ok(&["index", "add", d, &crawl, "--label", "week1", "--again"]);
    assert!(String::from_utf8_lossy(&forced.stdout).contains("added 0 pages"));
    let stats = json(&run_ok(&["index", "stats", d, "--json"]));
    assert_eq!(stats["pages"].as_u64(), Some(5));
}

/// Issue 58: `index create` took a folder holding other files, and later writers deleted
/// files there matching their own temporary names. An index needs a folder of its own, and
/// its writers remove only what they wrote.
#[test]
fn an_index_is_made_only_in_a_folder_of_its_own_and_keeps_others_files() {
    let tmp = tempfile::tempdir().unwrap();
    let busy = tmp.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("notes.txt"), b"mine").unwrap();
    let b = busy.to_str().unwrap();
    let o = neardup(&["index", "create", b], &root());
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no index") && err.contains("notes.txt"),
        "{err}"
    );
    assert!(!busy.join("MANIFEST").exists());
    assert_eq!(std::fs::read(busy.join("notes.txt")).unwrap(), b"mine");
    // An empty folder is its own.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = empty.to_str().unwrap();
    run_ok(&["index", "create", e, "-q"]);
    // A file put there later whose name ends like a temporary one survives an add.
    std::fs::write(empty.join("draft.partial"), b"mine").unwrap();
    run_ok(&[
        "index",
        "add",
        e,
        &fixture("basic.warc.gz"),
        "--label",
        "w",
        "-q",
    ]);
    assert_eq!(std::fs::read(empty.join("draft.partial")).unwrap(), b"mine");
}

/// The manifest names the language detector of every file added; an add to an index holding
/// pages whose languages another detector told says so.
#[test]
fn an_add_names_the_other_language_detectors_of_the_pages_held() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let d = dir.to_str().unwrap();
    let crawl = |f: &str| root().join(format!("data/sample/{f}.warc.gz"));
    let (a, b) = (crawl("rustdocs-1.63.0"), crawl("rustdocs-stable"));
    run_ok(&["index", "create", d, "-q"]);
    run_ok(&["index", "add", d, a.to_str().unwrap(), "--label", "a"]);
    let manifest = dir.join("MANIFEST");
    let bytes = std::fs::read(&manifest).unwrap();
    let detector = neardup_text::language::DETECTOR;
    let at = bytes
        .windows(detector.len())
        .position(|w| w == detector.as_bytes())
        .expect("the manifest names the detector");
    // The detector renamed (same length), the checksum made again: as if another build added
    // the first crawl.
    std::fs::write(
        &manifest,
        overwritten_and_checksummed(&bytes, at, b"another"),
    )
    .unwrap();
    let o = neardup(
        &["index", "add", d, b.to_str().unwrap(), "--label", "b"],
        &root(),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("languages told by another") && err.contains(detector),
        "{err}"
    );
    let stats = json(&run_ok(&["index", "stats", d, "--json"]));
    let other = String::from_utf8_lossy(&bytes[at..at + detector.len()]).replacen(
        &detector[..7],
        "another",
        1,
    );
    assert_eq!(
        stats["language_detectors"],
        serde_json::json!([other, detector])
    );
}
