//! The HTML report every `--out` folder gets: rebuilt byte for byte by `neardup report`, the
//! same whatever the thread count, and opened in a real browser (Debian's Chromium driven by
//! playwright-core, prepared by `tests/browser/prepare.sh`): no console error, no request
//! leaving the file, every figure drawn, tables sorting and filtering, a screenshot of each kept
//! in `target/browser/screenshots/`.

use crate::util::{fixture, jsonl, neardup, read_json, record_count, root, run_ok};
use std::path::{Path, PathBuf};

/// The report with its timings (the one thing that differs between runs) blanked.
fn without_times(html: &str) -> String {
    let secs = regex::Regex::new(r"<td>\d+\.\d+ s</td>").unwrap();
    secs.replace_all(html, "<td># s</td>").into_owned()
}

#[test]
fn a_report_is_rebuilt_byte_for_byte_from_its_folder_and_does_not_depend_on_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("one");
    let two = tmp.path().join("two");
    run_ok(&["dedup", "-q", "-j", "1", "--out", one.to_str().unwrap()]);
    run_ok(&["dedup", "-q", "-j", "2", "--out", two.to_str().unwrap()]);
    let html = std::fs::read(one.join("report.html")).unwrap();
    std::fs::remove_file(one.join("report.html")).unwrap();
    let o = run_ok(&["report", one.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("report.html"));
    assert_eq!(std::fs::read(one.join("report.html")).unwrap(), html);
    let text = |d: &Path| without_times(&std::fs::read_to_string(d.join("report.html")).unwrap());
    assert_eq!(text(&one), text(&two), "1 and 2 threads");
    // The run builds its page from the rows it holds, not from the tables read back: the same
    // page in every format (JSONL and CSV round scores, Parquet does not) and with every score
    // (rp-hm distances, exact Jaccard of --verify, simhash bits of the combined algorithm).
    for (i, (format, extra)) in [
        ("csv", &["--verify", "--cluster", "star"][..]),
        ("parquet", &["--algo", "rp-hm"][..]),
        ("jsonl", &["--algo", "combined", "--pairs"][..]),
        ("parquet", &["--lsh", "bands", "--verify"][..]),
    ]
    .into_iter()
    .enumerate()
    {
        let d = tmp.path().join(format!("fmt{i}"));
        let mut args = vec![
            "dedup",
            "-q",
            "--format",
            format,
            "--out",
            d.to_str().unwrap(),
        ];
        args.extend(extra);
        run_ok(&args);
        let built = std::fs::read(d.join("report.html")).unwrap();
        run_ok(&["report", "-q", d.to_str().unwrap()]);
        assert!(
            std::fs::read(d.join("report.html")).unwrap() == built,
            "{format} {extra:?}: the run's page and the folder's differ"
        );
    }
    // Self-contained: nothing to fetch, the figures and the side-by-side view inline.
    let t = text(&one);
    for fetch in ["src=", "<link", "@import", "url("] {
        assert!(!t.contains(fetch), "{fetch}");
    }
    assert!(t.matches("<svg").count() >= 3);
    assert!(
        t.contains("<del>") && t.contains("<ins>"),
        "a diff is shown"
    );
    assert!(t.contains("Largest clusters (paper 004 Table 1)"));
    // --no-report: neither the page nor the samples its side-by-side views need.
    let bare = tmp.path().join("bare");
    run_ok(&[
        "dedup",
        "-q",
        "--no-report",
        "--out",
        bare.to_str().unwrap(),
    ]);
    assert!(bare.join("clusters.jsonl").is_file());
    assert!(!bare.join("report.html").exists() && !bare.join("samples.jsonl").exists());
    // A folder of no neardup run is refused, and a report.html someone else wrote is kept.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = neardup(&["report", empty.to_str().unwrap()], &root());
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds no neardup output"));
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::copy(one.join("clusters.jsonl"), theirs.join("clusters.jsonl")).unwrap();
    std::fs::write(theirs.join("report.html"), "mine").unwrap();
    let o = neardup(&["report", theirs.to_str().unwrap()], &root());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(theirs.join("report.html")).unwrap(),
        "mine"
    );
}

/// playwright-core's folder; `None` (skipped, except in CI) when not prepared.
fn browser() -> Option<PathBuf> {
    let dir = root().join("target/browser");
    if dir.join("node_modules/playwright-core").is_dir() && Path::new("/usr/bin/chromium").exists()
    {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the browser test is not prepared in CI: run tests/browser/prepare.sh first"
    );
    eprintln!("Chromium or playwright-core missing: run `bash tests/browser/prepare.sh` (skipped)");
    None
}

#[test]
#[cfg_attr(
    neardup_no_browser,
    ignore = "needs `bash tests/browser/prepare.sh` first"
)]
fn every_report_of_the_sample_runs_opens_in_chromium() {
    let Some(dir) = browser() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = |name: &str| tmp.path().join(name).display().to_string();
    let labels = tmp.path().join("labels.csv");
    std::fs::write(
        &labels,
        "url_a,url_b,label,kind\n\
         https://doc.rust-lang.org/stable/std/fmt/trait.Pointer.html,https://doc.rust-lang.org/nightly/std/fmt/trait.Pointer.html,1,version\n\
         https://doc.rust-lang.org/stable/std/fmt/trait.Pointer.html,https://doc.rust-lang.org/stable/std/str/struct.Chars.html,0,template\n",
    )
    .unwrap();
    let runs: Vec<Vec<String>> = vec![
        vec![
            "dedup".into(),
            "--pairs".into(),
            "--out".into(),
            out("dedup"),
        ],
        vec![
            "mirrors".into(),
            fixture("mirrors.warc.gz"),
            "--out".into(),
            out("mirrors"),
        ],
        vec!["evolve".into(), "--out".into(), out("evolve")],
        vec!["overlap".into(), "--out".into(), out("overlap")],
        vec![
            "replicas".into(),
            fixture("replicas.warc.gz"),
            "--out".into(),
            out("replicas"),
        ],
        vec![
            "eval".into(),
            "--truth".into(),
            fixture("replica-labels.csv"),
            "--pred".into(),
            out("replicas"),
            "--out".into(),
            out("site-eval"),
        ],
        vec![
            "eval".into(),
            "--truth".into(),
            labels.display().to_string(),
            "--pred".into(),
            format!("{}/pairs.jsonl", out("dedup")),
            "--crawl".into(),
            "data/sample".into(),
            "--curves".into(),
            "--out".into(),
            out("eval"),
        ],
    ];
    let mut reports = Vec::new();
    for r in &runs {
        let mut args: Vec<&str> = r.iter().map(String::as_str).collect();
        args.push("-q");
        run_ok(&args);
        let name = r.iter().skip_while(|a| *a != "--out").nth(1).unwrap();
        reports.push(format!("{name}/report.html"));
    }
    let shots = dir.join("screenshots");
    let o = std::process::Command::new("node")
        .arg(root().join("tests/browser/check_reports.mjs"))
        .arg(&shots)
        .args(&reports)
        .env("NEARDUP_BROWSER_DIR", &dir)
        .current_dir(root())
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let results: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), reports.len());
    record_count(
        "browser",
        &format!(
            "{} reports opened in Chromium (the runs' reports)",
            results.len()
        ),
    );
    for r in &results {
        assert_eq!(r["ok"], true, "{r}");
        assert!(r["tables"].as_u64().unwrap() >= 1, "{r}");
        assert!(r["sorted"].is_object(), "{r}");
        assert!(
            Path::new(r["screenshot"].as_str().unwrap()).is_file(),
            "{r}"
        );
    }
    let svgs = |name: &str| {
        results
            .iter()
            .find(|r| r["report"].as_str().unwrap().contains(&format!("/{name}/")))
            .unwrap()["svgs"]
            .as_u64()
            .unwrap()
    };
    assert!(svgs("dedup") >= 3, "size distribution and score histograms");
    assert!(svgs("evolve") >= 4, "figures 4-7 at least");
    assert!(svgs("mirrors") >= 1);
}

#[test]
#[cfg_attr(
    neardup_no_browser,
    ignore = "needs `bash tests/browser/prepare.sh` first"
)]
fn crawl_text_meant_to_run_script_is_shown_as_text_in_every_report() {
    // tests/fixtures/make_hostile.py: URLs, titles and text holding `</script>`, `<img onerror>`,
    // `<svg onload>`, `javascript:` URLs and right-to-left overrides, on two mirrored hosts.
    // Opened in Chromium: no script from the data runs, no dialog opens, no request leaves the
    // page, no `javascript:` link, and the strings are there to read, as text.
    let Some(dir) = browser() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = |name: &str| tmp.path().join(name).display().to_string();
    let (warc, jsonl) = (fixture("hostile.warc.gz"), fixture("hostile.jsonl"));
    let script = "</script><script>window.__pwned='script'</script>";
    let (img, svg, rlo) = (
        "<img src=x onerror=",
        "\"><svg onload=alert('svg')>",
        "[U+202E]",
    );
    let url = "a\"><script>window.__pwned='url'</script>";
    let runs: Vec<(Vec<&str>, String, Vec<&str>)> = vec![
        (
            vec!["dedup", &jsonl, "--replay-url", "{url}"],
            out("dedup-jsonl"),
            vec![
                img,
                rlo,
                "javascript:window.__pwned='self'//mirror-c.example/",
                url,
            ],
        ),
        (vec!["dedup", &warc], out("dedup-warc"), vec![img, rlo, url]),
        (vec!["mirrors", &warc], out("mirrors"), vec![rlo, url]),
        (vec!["overlap", &warc], out("overlap"), vec![img, rlo, url]),
        (
            vec!["evolve", &warc, &warc],
            out("evolve"),
            vec![img, rlo, url],
        ),
        (vec!["replicas", &warc], out("replicas"), vec![]),
        (
            vec!["paragraphs", &jsonl],
            out("paragraphs"),
            vec![script, img, svg, rlo],
        ),
        (
            vec!["decontaminate", &jsonl, "--eval", &jsonl],
            out("decontaminate"),
            vec![script, img, svg, rlo],
        ),
    ];
    let mut expect = serde_json::Map::new();
    let mut reports = Vec::new();
    for (args, folder, shown) in &runs {
        let mut args = args.clone();
        args.extend(["--out", folder, "-q"]);
        run_ok(&args);
        let report = format!("{folder}/report.html");
        expect.insert(report.clone(), serde_json::json!(shown));
        reports.push(report);
    }
    let o = std::process::Command::new("node")
        .arg(root().join("tests/browser/check_reports.mjs"))
        .arg(tmp.path().join("screenshots"))
        .args(&reports)
        .env("NEARDUP_BROWSER_DIR", &dir)
        .env(
            "NEARDUP_EXPECT_TEXT",
            serde_json::Value::Object(expect).to_string(),
        )
        .current_dir(root())
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&o.stdout);
    let results: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), reports.len(), "{text}");
    record_count(
        "browser",
        &format!("{} reports opened in Chromium (shown text)", results.len()),
    );
    for r in &results {
        // Small reports may have no table of three rows to sort: that is not this test's point.
        let problems: Vec<&serde_json::Value> = r["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| *p != "no table to sort")
            .collect();
        assert!(problems.is_empty(), "{r}");
    }
}

#[test]
fn the_report_names_each_capture_and_links_to_its_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let template = "http://localhost:8080/coll/{timestamp}/{url}";
    run_ok(&[
        "dedup",
        "-q",
        "--out",
        out.to_str().unwrap(),
        "--replay-url",
        template,
    ]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains(
            "http://localhost:8080/coll/20220811000002/https://doc.rust-lang.org/1.63.0/"
        ),
        "replay links with the capture's timestamp"
    );
    assert!(html.contains("record (file @ byte)") && html.contains("rustdocs-1.63.0.warc.gz @ "));
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["replay_url"], template);
    // Every clusters row says which capture it is.
    let row = &jsonl(&out.join("clusters.jsonl"))[0];
    assert!(row["date"].as_str().unwrap().starts_with("20"), "{row}");
    assert!(row["file"].as_str().unwrap().ends_with(".warc.gz"), "{row}");
    assert!(row["offset"].as_u64().is_some(), "{row}");
    // A template without {url} is refused.
    let o = neardup(
        &[
            "dedup",
            "-q",
            "--out",
            out.to_str().unwrap(),
            "--replay-url",
            "http://x/",
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
    // `neardup report` relinks an existing folder to another replay, the run's files untouched.
    let other = "http://wayback.example/web/{timestamp}/{url}";
    run_ok(&["report", out.to_str().unwrap(), "--replay-url", other]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html
        .contains("http://wayback.example/web/20220811000002/https://doc.rust-lang.org/1.63.0/"));
    assert_eq!(read_json(&out.join("summary.json"))["replay_url"], template);
    let o = neardup(
        &["report", out.to_str().unwrap(), "--replay-url", "http://x/"],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
}
