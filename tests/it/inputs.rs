//! What INPUT folders stand for (the library's folder walk, `neardup_engine::expand`): the
//! crawl files anywhere below them in name order, every other file named, a folder with no
//! crawl file read as HTML files.

use crate::util::*;

#[test]
fn files_a_crawl_folder_passes_over_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("crawl");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(fixture("basic.warc"), dir.join("basic.warc")).unwrap();
    std::fs::write(dir.join("example-bad.warc.gz.bad"), b"x").unwrap();
    std::fs::write(dir.join("notes.txt"), b"x").unwrap();
    let d = dir.to_str().unwrap();
    let o = neardup(&["scan", d], &root());
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("example-bad.warc.gz.bad") && err.contains("2 file(s) passed over"),
        "{err}"
    );
    assert!(!err.contains("notes.txt"), "{err}");
    let err = String::from_utf8_lossy(&neardup(&["scan", d, "-v"], &root()).stderr).to_string();
    assert!(
        err.contains("notes.txt") && err.contains("example-bad.warc.gz.bad"),
        "{err}"
    );
    let o = neardup(&["scan", d, "-q"], &root());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The defect of issue 58: crawl files in dated subfolders (the way crawls and Common Crawl
/// segments are stored) were read as one folder of HTML files, each WARC an opaque page, and
/// `index add` said "added 0 pages"; links to nothing were passed over without a word.
#[test]
fn crawl_files_in_subfolders_are_read_and_links_to_nothing_named() {
    let tmp = tempfile::tempdir().unwrap();
    let crawl = tmp.path().join("crawl");
    for (sub, name) in [("2024-01", "basic.warc.gz"), ("2024-02", "basic.warc")] {
        std::fs::create_dir_all(crawl.join(sub)).unwrap();
        std::fs::copy(fixture(name), crawl.join(sub).join(name)).unwrap();
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.path().join("gone.warc.gz"), crawl.join("old.warc.gz")).unwrap();
    let c = crawl.to_str().unwrap();
    let o = neardup(&["scan", c], &root());
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    // basic.warc holds 7 pages (6 HTML); one file of each form.
    assert!(
        text.contains("scanned 2 input(s): 14 pages (12 HTML"),
        "{text}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    #[cfg(unix)]
    assert!(
        err.contains("old.warc.gz") && err.contains("a link to nothing"),
        "{err}"
    );
    let idx = tmp.path().join("idx");
    let i = idx.to_str().unwrap();
    run_ok(&["index", "create", i]);
    let o = run_ok(&["index", "add", i, c, "--label", "both"]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("added") && !said.contains("added 0 pages"),
        "{said}"
    );
}
