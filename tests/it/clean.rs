//! `dedup --write-kept` and `neardup paragraphs`: clean datasets from the command line, on files pyarrow, gzip and zstd wrote.

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
    // Without languages written, no detector is named.
    assert!(summary["kept"].get("language_detector").is_none());
    // Again: our own files are replaced.
    run_ok(&args);
    // With --kept-language: every JSON object gains its language at its end (und without
    // text); the lines neardup could not read pass as they were.
    let kept2 = tmp.path().join("kept-language");
    let mut with_language = args.clone();
    with_language[6] = kept2.to_str().unwrap();
    with_language.push("--kept-language");
    run_ok(&with_language);
    // The languages written are named with the detector that told them.
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(
        summary["kept"]["language_detector"],
        neardup_text::language::DETECTOR
    );
    let got = std::fs::read_to_string(kept2.join("a/pages.jsonl")).unwrap();
    for (g, w) in got.lines().zip(original.lines()) {
        if serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(w).is_ok() {
            let v: serde_json::Value = serde_json::from_str(g).unwrap();
            let code = v["neardup_language"].as_str().unwrap();
            assert!(
                code.len() == 3 && code.bytes().all(|b| b.is_ascii_lowercase()),
                "{g}"
            );
            assert!(g.starts_with(w.trim_end().trim_end_matches('}')), "{g}");
        } else {
            assert_eq!(g, w);
        }
    }
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

#[test]
fn paragraphs_cuts_repeated_paragraphs_and_refuses_what_it_cannot() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("docs.jsonl.zst");
    let menu = "Home | Products | About us | Contact | Privacy policy";
    let lines: String = (0..20)
        .map(|i| {
            serde_json::json!({"id": i, "text": format!("{menu}\n\nArticle number {i} says something of its own here.\n")})
                .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(&input, zstd_compress(lines.as_bytes())).unwrap();
    let out = tmp.path().join("out");
    let clean = tmp.path().join("clean");
    let o = run_ok(&[
        "paragraphs",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--write-clean",
        clean.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("cut 19 units"), "{text}");
    assert!(
        text.contains("in     20 documents: \"Home | Products"),
        "{text}"
    );
    let spans = jsonl(&out.join("spans.jsonl"));
    assert_eq!(spans.len(), 19);
    assert!(spans.iter().all(|s| s["language"] == "eng"));
    // The report: the menu as the most repeated paragraph, cuts by language and input.
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    for want in [
        "neardup paragraphs report",
        "Home | Products | About us",
        "Cuts by language",
        "from 19 documents (95.0%)",
    ] {
        assert!(report.contains(want), "{want}");
    }
    assert_eq!(
        (
            spans[0]["record"].as_u64(),
            spans[0]["first_record"].as_u64()
        ),
        (Some(1), Some(0))
    );
    assert_eq!(
        (spans[0]["start"].as_u64(), spans[0]["end"].as_u64()),
        (Some(0), Some(menu.len() as u64))
    );
    // The cleaned file is zstd like its input, the menu left in the first document only.
    let cleaned = String::from_utf8(zstd_decompress(
        &std::fs::read(clean.join("docs.jsonl.zst")).unwrap(),
    ))
    .unwrap();
    assert_eq!(cleaned.matches(menu).count(), 1);
    assert_eq!(cleaned.lines().count(), 20);
    // Bad settings are usage errors naming the flag; a WARC is refused before reading.
    for (args, flag) in [
        (vec!["--unit", "word"], "--unit"),
        (vec!["--policy", "all"], "--policy"),
        (vec!["--max-docs", "3"], "--max-docs"),
    ] {
        let mut a = vec![
            "paragraphs",
            input.to_str().unwrap(),
            "-q",
            "--out",
            out.to_str().unwrap(),
        ];
        a.extend(args.iter().copied());
        let o = neardup(&a, &root());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(flag),
            "{args:?}"
        );
    }
    let o = neardup(
        &[
            "paragraphs",
            &fixture("basic.warc"),
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
}

fn zstd_compress(b: &[u8]) -> Vec<u8> {
    let o = std::process::Command::new("zstd")
        .args(["-q", "-c"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b)?;
            c.wait_with_output()
        })
        .unwrap();
    o.stdout
}

fn zstd_decompress(b: &[u8]) -> Vec<u8> {
    let o = std::process::Command::new("zstd")
        .args(["-q", "-d", "-c"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b)?;
            c.wait_with_output()
        })
        .unwrap();
    o.stdout
}

#[test]
fn decontaminate_finds_leaked_items_cuts_or_drops_them() {
    let tmp = tempfile::tempdir().unwrap();
    let q = "What is the capital of France? The answer is Paris, the city of light and of the government.";
    let eval = tmp.path().join("eval.jsonl");
    std::fs::write(
        &eval,
        format!(
            "{}\n{}\n",
            serde_json::json!({"id": "q0", "text": q}),
            serde_json::json!({"id": "q1", "text": "too short"})
        ),
    )
    .unwrap();
    let corpus = tmp.path().join("c.jsonl");
    let docs: String = (0..10)
        .map(|i| {
            let mut t = format!("Document {i} is about something else entirely. ");
            if i % 4 == 0 {
                t += &format!("Quoted: {} Then it goes on.", q.to_uppercase());
            }
            serde_json::json!({"id": i, "text": t}).to_string() + "\n"
        })
        .collect();
    std::fs::write(&corpus, docs).unwrap();
    let out = tmp.path().join("out");
    let cut = tmp.path().join("cut");
    let o = run_ok(&[
        "decontaminate",
        corpus.to_str().unwrap(),
        "--eval",
        eval.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--write-clean",
        cut.to_str().unwrap(),
        "--margin",
        "0",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("2 evaluation items (1 too short for 13-grams)"),
        "{text}"
    );
    assert!(text.contains("3 contaminated in 3 spans"), "{text}");
    let rows = jsonl(&out.join("contamination.jsonl"));
    assert_eq!(rows.len(), 3);
    // The report: the evaluation set with its items found, every span.
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    for want in [
        "neardup decontaminate report",
        "Contamination by evaluation set",
        "eval.jsonl",
        "Contaminated spans",
    ] {
        assert!(report.contains(want), "{want}");
    }
    // The languages are named with the detector that told them, in the summary and the report.
    let detector = neardup_text::language::DETECTOR;
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["language_detector"], detector);
    let escaped = detector.replace('(', "&#40;");
    assert!(
        report.contains(detector) || report.contains(&escaped),
        "the report names no detector"
    );
    let records: Vec<u64> = rows.iter().map(|r| r["record"].as_u64().unwrap()).collect();
    assert_eq!(records, [0, 4, 8]);
    assert_eq!(rows[0]["item_id"], "q0");
    // The span is the item's words, from "WHAT" to "GOVERNMENT".
    let doc0: String = format!(
        "Document 0 is about something else entirely. Quoted: {} Then it goes on.",
        q.to_uppercase()
    );
    let (s, e) = (
        rows[0]["start"].as_u64().unwrap() as usize,
        rows[0]["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&doc0[s..e], &q.to_uppercase()[..q.len() - 1]);
    let cleaned = jsonl(&cut.join("c.jsonl"));
    assert_eq!(cleaned.len(), 10);
    assert_eq!(
        cleaned[0]["text"],
        "Document 0 is about something else entirely. Quoted: . Then it goes on."
    );
    // Drop: the three documents left out.
    let dropped = tmp.path().join("drop");
    run_ok(&[
        "decontaminate",
        corpus.to_str().unwrap(),
        "--eval",
        eval.to_str().unwrap(),
        "-q",
        "--out",
        out.to_str().unwrap(),
        "--write-clean",
        dropped.to_str().unwrap(),
        "--action",
        "drop",
    ]);
    assert_eq!(jsonl(&dropped.join("c.jsonl")).len(), 7);
    let o = neardup(
        &[
            "decontaminate",
            corpus.to_str().unwrap(),
            "--eval",
            eval.to_str().unwrap(),
            "--action",
            "erase",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(2));
}
