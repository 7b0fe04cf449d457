//! `dedup --write-kept`: the kept corpus from the command line, on files pyarrow and gzip wrote.

use crate::util::*;

#[test]
fn write_kept_writes_each_input_in_its_format_and_refuses_what_it_cannot() {
    let tmp = tempfile::tempdir().unwrap();
    // Two JSONL shards holding the same documents (the second a gzip copy): every document of
    // the second is a copy of one in the first.
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::copy(fixture("pages.jsonl"), a.join("pages.jsonl")).unwrap();
    std::fs::copy(fixture("pages.jsonl.gz"), b.join("pages.jsonl.gz")).unwrap();
    let out = tmp.path().join("out");
    let kept = tmp.path().join("kept");
    let fields = [
        "--url-field",
        "link",
        "--text-field",
        "content",
        "--html-field",
        "body_html",
        "--id-field",
        "doc_id",
    ];
    let mut args = vec![
        "dedup",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--write-kept",
        kept.to_str().unwrap(),
        "--no-report",
    ];
    args.extend(fields);
    let o = run_ok(&args);
    let text = String::from_utf8_lossy(&o.stdout);
    // Three pages and, in each shard, two records neardup could not read (passed through: the
    // run did not judge them).
    assert!(text.contains("kept corpus: 7 records written"), "{text}");
    // The first shard whole, byte for byte; the second without its three copies, still gzip.
    assert_eq!(
        std::fs::read(kept.join("a/pages.jsonl")).unwrap(),
        std::fs::read(fixture("pages.jsonl")).unwrap()
    );
    let gz = std::fs::read(kept.join("b/pages.jsonl.gz")).unwrap();
    assert_eq!(&gz[..2], &[0x1f, 0x8b]);
    let mut lines = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut lines).unwrap();
    let original = std::fs::read_to_string(fixture("pages.jsonl")).unwrap();
    let unread: Vec<&str> = original
        .lines()
        .filter(|l| !l.contains("\"content\""))
        .collect();
    assert_eq!(lines.lines().collect::<Vec<_>>(), unread);
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["kept"]["files"][1]["records_removed"], 3);
    assert_eq!(summary["kept"]["files"][1]["records_written"], 2);
    // Again: our own files are replaced.
    run_ok(&args);
    // Parquet (written by pyarrow): every row, the one neardup could not read too (no
    // duplicates inside it).
    let pq = tmp.path().join("kept-pq");
    let mut args = vec!["dedup", &fixture("pages.parquet")]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    args.extend(
        [
            "--out",
            out.to_str().unwrap(),
            "--write-kept",
            pq.to_str().unwrap(),
            "--kept-counts",
            "--no-report",
            "-q",
        ]
        .map(String::from),
    );
    args.extend(fields.map(String::from));
    run_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let written = std::fs::read(pq.join("pages.parquet")).unwrap();
    assert_eq!(&written[..4], b"PAR1");
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["kept"]["files"][0]["records_written"], 4);
    assert_eq!(summary["kept"]["files"][0]["records_removed"], 0);
    // A WARC input is refused before anything is read; nothing is written.
    let refused = tmp.path().join("refused");
    let o = neardup(
        &[
            "dedup",
            &fixture("basic.warc"),
            "--out",
            out.to_str().unwrap(),
            "--write-kept",
            refused.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("JSONL and Parquet") && err.contains("warc"),
        "{err}"
    );
    assert!(!refused.exists());
    // A file of the same name neardup did not write is not replaced.
    let mine = tmp.path().join("mine");
    std::fs::create_dir_all(mine.join("a")).unwrap();
    std::fs::write(mine.join("a/pages.jsonl"), "mine\n").unwrap();
    let mut args = vec![
        "dedup",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--write-kept",
        mine.to_str().unwrap(),
        "-q",
    ];
    args.extend(fields);
    let o = neardup(&args, &root());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(mine.join("a/pages.jsonl")).unwrap(),
        "mine\n"
    );
}
