//! Integration tests of the `neardup` command line on real files: the committed sample crawl
//! (real rustdoc pages written by warcio) and the third-party fixtures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn neardup(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run neardup")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn fixture(name: &str) -> String {
    root()
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn scan_without_input_reads_the_sample_crawl() {
    let out = neardup(&["scan"], &root());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("scanned 3 input(s): 1087 pages (1063 HTML"),
        "{text}"
    );
    assert!(text.contains("doc.rust-lang.org"), "{text}");
    assert!(text.contains("skipped records: 0"), "{text}");
    // Works from another directory too (falls back to the source tree's sample).
    let tmp = tempfile::tempdir().unwrap();
    let out = neardup(&["scan", "-q"], tmp.path());
    assert!(out.status.success());
    assert!(out.stdout.is_empty(), "-q prints nothing");
}

#[test]
fn scan_json_report_is_exact_and_deterministic() {
    let sample = root().join("data/sample").display().to_string();
    let a = json(&neardup(
        &["scan", &sample, "--json", "-", "-j", "1"],
        &root(),
    ));
    let b = json(&neardup(
        &["scan", &sample, "--json", "-", "-j", "2"],
        &root(),
    ));
    for key in [
        "pages",
        "html_pages",
        "tokens",
        "lines",
        "sentences",
        "paragraphs",
        "links",
        "by_content_type",
        "top_hosts",
        "by_record_type",
    ] {
        assert_eq!(a[key], b[key], "{key} differs between 1 and 2 threads");
    }
    assert_eq!(a["pages"], 1087);
    assert_eq!(a["html_pages"], 1063);
    assert_eq!(a["by_record_type"][0]["name"], "response");
    assert_eq!(a["by_source"].as_array().unwrap().len(), 3);
    assert!(a["tokens"].as_u64().unwrap() > 1_000_000);
}

#[test]
fn scan_reports_skipped_records_with_file_offset_and_reason() {
    let v = json(&neardup(
        &[
            "scan",
            &fixture("bad-length.warc"),
            &fixture("corrupt-member.warc.gz"),
            "--json",
            "-",
        ],
        &root(),
    ));
    assert_eq!(v["skipped"], 3);
    let reasons: Vec<&str> = v["skipped_by_reason"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["length-mismatch", "corrupt-gzip"]);
    let ex = &v["skipped_examples"][0];
    assert!(ex["file"].as_str().unwrap().ends_with("bad-length.warc"));
    assert!(ex["offset"].as_u64().unwrap() > 0);
    assert_eq!(v["revisits"], 2);
    assert_eq!(v["revisit_examples"][0]["url"], "http://example.com/again");
}

#[test]
fn strict_turns_the_first_problem_into_exit_code_3() {
    let out = neardup(&["scan", "--strict", &fixture("junk.warc")], &root());
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing-header") && err.contains("junk.warc"),
        "{err}"
    );
    // Without --strict the same file succeeds and reports.
    let out = neardup(&["scan", &fixture("junk.warc")], &root());
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn every_input_format_from_the_command_line() {
    let v = json(&neardup(
        &[
            "scan",
            &fixture("basic.warc.zst"),
            &fixture("basic.arc.gz"),
            &fixture("pages.jsonl"),
            &fixture("pages.parquet"),
            "--url-field",
            "link",
            "--text-field",
            "content",
            "--html-field",
            "body_html",
            "--id-field",
            "doc_id",
            "--json",
            "-",
        ],
        &root(),
    ));
    let formats: Vec<&str> = v["by_source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["warc", "arc", "jsonl", "parquet"]);
    let pages: Vec<u64> = v["by_source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["pages"].as_u64().unwrap())
        .collect();
    assert_eq!(pages, [7, 3, 3, 3]);
    assert_eq!(v["text_pages"], 5);
    let site = fixture("site");
    let v = json(&neardup(
        &[
            "scan",
            &site,
            "--base-url",
            "https://s.example/",
            "--json",
            "-",
        ],
        &root(),
    ));
    assert_eq!(v["pages"], 3);
    assert_eq!(v["top_hosts"][0]["name"], "s.example");
}

#[test]
fn json_output_is_written_atomically_and_never_over_an_input() {
    let tmp = tempfile::tempdir().unwrap();
    let out_path = tmp.path().join("report.json");
    let out = neardup(
        &[
            "scan",
            &fixture("basic.warc"),
            "--json",
            out_path.to_str().unwrap(),
            "-q",
        ],
        &root(),
    );
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    assert_eq!(v["pages"], 7);
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary files left: {leftovers:?}");
    // Refuses to overwrite an input.
    let input = tmp.path().join("in.warc");
    std::fs::copy(fixture("basic.warc"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let out = neardup(
        &[
            "scan",
            input.to_str().unwrap(),
            "--json",
            input.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

#[test]
fn help_documents_exit_codes_and_missing_inputs_fail_cleanly() {
    let out = neardup(&["scan", "--help"], &root());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("EXIT CODES") && help.contains("--strict"),
        "{help}"
    );
    let out = neardup(&["scan", "/nonexistent/crawl.warc.gz"], &root());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/crawl.warc.gz"));
    let out = neardup(&["scan", "--no-such-flag"], &root());
    assert_eq!(out.status.code(), Some(2));
}
