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

/// `neardup ARGS` with `stdin` as its standard input.
fn with_stdin(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(args)
        .current_dir(root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run neardup");
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    // Written from another thread: a reader that stops early must not block the writer.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().unwrap();
    out
}

/// `-` is standard input, read as it comes (issue 62: synthetic pages streamed into `index add`
/// with no file on disk): every stream format, compressed or not, gives what the file gives,
/// damage included (named at its byte of the stream), and an index added from a stream answers
/// as one added from the file.
#[test]
fn standard_input_reads_as_the_file_does() {
    for name in [
        "basic.warc",
        "basic.warc.gz",
        "basic.warc.zst",
        "basic.arc.gz",
        "members.jsonl.gz",
        "corrupt-member.warc.gz",
    ] {
        let file = fixture(name);
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a.json"), tmp.path().join("b.json"));
        run_ok(&["scan", &file, "--json", a.to_str().unwrap()]);
        let o = with_stdin(
            &["scan", "-", "--json", b.to_str().unwrap()],
            &std::fs::read(&file).unwrap(),
        );
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // The same but for the name and the timings.
        let text = |p: &std::path::Path| {
            let mut v = read_json(p);
            for k in [
                "seconds",
                "pages_per_second",
                "body_mb_per_second",
                "raw_mb_per_second",
            ] {
                v.as_object_mut().unwrap().remove(k);
            }
            v.to_string().replace(&file, "-")
        };
        assert_eq!(text(&a), text(&b), "{name}");
    }

    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let file = fixture("members.jsonl.gz");
    for idx in [a, b] {
        run_ok(&["index", "create", idx, "-q"]);
    }
    run_ok(&["index", "add", a, &file, "--label", "c", "-q"]);
    let o = with_stdin(
        &["index", "add", b, "-", "--label", "c"],
        &std::fs::read(&file).unwrap(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let answers = |idx: &str| {
        String::from_utf8(run_ok(&["index", "query", idx, &file, "-q"]).stdout).unwrap()
    };
    let answer = answers(a);
    assert!(answer.lines().count() > 0);
    assert_eq!(answer, answers(b));

    // Read once: named twice, or a format that needs a file, is refused with why.
    let o = with_stdin(&["scan", "-", "-"], b"");
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("standard input named twice"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = with_stdin(
        &["scan", "-", "--input-format", "parquet"],
        &std::fs::read(fixture("pages.parquet")).unwrap(),
    );
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("read from disk, not from a stream"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = with_stdin(&["scan", "-"], b"PAR1 not a stream format");
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("WARC, ARC or JSONL is read from a stream"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
