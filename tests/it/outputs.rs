//! Outputs (issue 58, item 5): a refusal comes before anything is written, a file beside an
//! output that neardup did not write is never replaced, and a table of an earlier run does not
//! stay beside a new run's.

use crate::util::*;

#[test]
fn an_output_folder_holding_a_users_file_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("clusters.jsonl"), b"mine\n").unwrap();
    let o = out.to_str().unwrap();
    let r = neardup(
        &["dedup", &fixture("basic.warc.gz"), "-o", o, "-q"],
        &root(),
    );
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("neardup did not write")
            && err.contains("clusters.jsonl")
            && err.contains("--force"),
        "{err}"
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["clusters.jsonl"],
        "nothing written beside the user's file"
    );
    assert_eq!(
        std::fs::read(out.join("clusters.jsonl")).unwrap(),
        b"mine\n"
    );
    // Asked to, it writes beside (and over) it.
    run_ok(&["dedup", &fixture("basic.warc.gz"), "-o", o, "-q", "--force"]);
}

#[test]
fn a_table_of_an_earlier_run_does_not_stay_beside_a_new_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    let crawl = root().join("data/sample/rustdocs-stable.warc.gz");
    let c = crawl.to_str().unwrap();
    run_ok(&["dedup", c, "-o", o, "-q", "--pairs"]);
    assert!(out.join("pairs.jsonl").exists());
    run_ok(&["dedup", c, "-o", o, "-q", "--no-report"]);
    assert!(
        !out.join("pairs.jsonl").exists(),
        "the earlier run's pairs stayed"
    );
    assert!(
        !out.join("report.html").exists(),
        "the earlier run's report stayed"
    );
    let listed = std::fs::read_to_string(out.join(".neardup-files")).unwrap();
    assert!(
        !listed.contains("pairs.jsonl") && listed.contains("clusters.jsonl"),
        "{listed}"
    );
}

#[test]
fn sketch_never_replaces_parameters_it_did_not_write() {
    let tmp = tempfile::tempdir().unwrap();
    let sig = tmp.path().join("s.ndsig");
    let side = tmp.path().join("s.ndsig.params.json");
    std::fs::write(&side, b"{\"mine\": true}\n").unwrap();
    let s = sig.to_str().unwrap();
    let r = neardup(
        &["sketch", &fixture("basic.warc.gz"), "-o", s, "-q"],
        &root(),
    );
    assert_eq!(
        r.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(!sig.exists());
    assert_eq!(std::fs::read(&side).unwrap(), b"{\"mine\": true}\n");
    // Its own parameters it replaces.
    std::fs::remove_file(&side).unwrap();
    run_ok(&["sketch", &fixture("basic.warc.gz"), "-o", s, "-q"]);
    run_ok(&["sketch", &fixture("basic.warc.gz"), "-o", s, "-q"]);
}

/// Issue 58: `scan --json -` printed no JSON when it exited 4 (no page read); the report says
/// why, so it is written, and the exit is still 4.
#[test]
fn scan_writes_its_report_when_no_page_was_read() {
    let tmp = tempfile::tempdir().unwrap();
    let junk = tmp.path().join("x.warc");
    std::fs::write(&junk, b"not a warc at all\n").unwrap();
    let o = neardup(&["scan", junk.to_str().unwrap(), "--json", "-"], &root());
    assert_eq!(o.status.code(), Some(4));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("the report on stdout");
    assert_eq!(
        (r["pages"].as_u64(), r["skipped"].as_u64()),
        (Some(0), Some(1))
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("no page read"));
}
