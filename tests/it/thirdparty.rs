//! neardup's readers on files third-party tools wrote, against warcio's reading of the same
//! files: warcio 1.6.3's own test data, WARCs written by GNU Wget and by warcio's capture_http
//! (`tests/thirdparty/prepare.sh` builds the corpus and warcio's counts; CI runs it first).
//! Every difference from warcio is listed here with its reason.

use crate::util::{neardup, root};
use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("NEARDUP_THIRDPARTY")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/thirdparty"));
    if dir.join("expected.json").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the third-party corpus is missing in CI: run tests/thirdparty/prepare.sh first"
    );
    eprintln!(
        "third-party corpus not built: run `bash tests/thirdparty/prepare.sh` to test the readers \
         on warcio's and Wget's files (skipped)"
    );
    None
}

#[test]
#[cfg_attr(
    neardup_no_thirdparty,
    ignore = "needs `bash tests/thirdparty/prepare.sh` first"
)]
fn page_counts_match_warcio_on_third_party_files() {
    let Some(dir) = corpus() else {
        return;
    };
    let expected: serde_json::Value = crate::util::read_json(&dir.join("expected.json"));
    let files = expected.as_object().unwrap();
    assert!(files.len() >= 14, "{} files", files.len());
    let mut checked = 0;
    for (name, want) in files {
        let path = dir.join(name);
        let o = neardup(
            &[
                "scan",
                path.to_str().unwrap(),
                "--json",
                "-",
                "-q",
                "--allow-empty",
            ],
            &root(),
        );
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let pages = got["pages"].as_u64().unwrap();
        let warcio = want["http_responses"].as_u64().unwrap() + want["resources"].as_u64().unwrap();
        match want["error"].as_str() {
            // warcio refuses a WARC gzipped as one whole file ("non-chunked gzip file detected");
            // neardup reads it: more pages than warcio, none skipped.
            Some(e) if e.contains("non-chunked gzip") => {
                assert!(pages >= 1, "{name}: {pages} pages");
                assert_eq!(got["skipped"], 0, "{name}");
            }
            Some(e) => panic!("{name}: warcio failed in a way this test does not know: {e}"),
            None => {
                assert_eq!(
                    pages, warcio,
                    "{name}: neardup {pages} pages, warcio {warcio}"
                );
            }
        }
        // Where warcio warned (example-trunc.warc: Content-Length 2 bytes short), neardup keeps
        // the page too and notes it; bad.arc's two records with lengths -1 and "abc" are
        // skipped and counted by neardup (warcio reads them as non-HTTP records).
        if name.ends_with("example-trunc.warc") {
            let notes = got["notes"].to_string();
            assert!(
                notes.contains("content-length-a-few-bytes-short-kept"),
                "{notes}"
            );
        }
        if name.ends_with("bad.arc") {
            assert_eq!(got["skipped"], 2, "{name}");
        }
        checked += 1;
    }
    assert_eq!(checked, files.len());
}
