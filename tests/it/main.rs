//! Integration tests of the `neardup` command line on real files: the committed sample crawl
//! (real rustdoc pages written by warcio) and the third-party fixtures.

mod accuracy;
mod changes;
mod clean;
mod clients;
mod golden;
mod index;
mod index_damage;
mod inputs;
mod mirror_groups;
mod outputs;
mod python;
mod report;
mod serve;
mod serve_abuse;
mod serve_adds;
mod shards;
mod thirdparty;
mod util;
mod wacz;

use std::path::Path;
use std::path::PathBuf;
use util::*;

#[test]
fn scan_without_input_reads_the_sample_crawl() {
    let out = run_ok(&["scan"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("scanned 3 input(s): 1087 pages (1063 HTML"),
        "{text}"
    );
    assert!(text.contains("doc.rust-lang.org"), "{text}");
    assert!(text.contains("skipped records: 0"), "{text}");
    // -q prints nothing.
    let out = neardup(&["scan", "-q"], &root());
    assert!(out.status.success());
    assert!(out.stdout.is_empty(), "-q prints nothing");
    // Elsewhere, with no sample in the current folder, it says what to pass instead of reading
    // the tree the binary was built from.
    let tmp = tempfile::tempdir().unwrap();
    for cmd in ["scan", "dedup", "evolve"] {
        let out = neardup(&[cmd, "-q"], tmp.path());
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("data/") && err.contains("INPUT"),
            "{cmd}: {err}"
        );
    }
}

/// One large `.warc.gz` is inflated on several threads when a run has fewer files than
/// threads: the same pages, counts, skipped records and duplicates as one thread reading it,
/// intact and with a damaged member in the middle.
#[test]
fn one_gzip_file_read_by_several_threads_gives_what_one_thread_gives() {
    let tmp = tempfile::tempdir().unwrap();
    let mut joined = Vec::new();
    for f in ["rustdocs-1.63.0", "rustdocs-stable", "rustdocs-nightly"] {
        joined.extend(std::fs::read(root().join(format!("data/sample/{f}.warc.gz"))).unwrap());
    }
    assert!(joined.len() > 4 << 20, "several inflate jobs");
    let mut damaged = joined.clone();
    damaged[2_500_000] ^= 0x5a;
    for (name, bytes, skipped) in [("joined", joined, 0), ("damaged", damaged, 1)] {
        let file = tmp.path().join(format!("{name}.warc.gz"));
        std::fs::write(&file, bytes).unwrap();
        let file = file.to_str().unwrap();
        let scan = |j: &str| {
            let mut v = json(&neardup(&["scan", file, "--json", "-", "-j", j], &root()));
            let timed = ["seconds", "pages_per_second", "body_mb_per_second"];
            for k in timed.into_iter().chain(["raw_mb_per_second", "threads"]) {
                v.as_object_mut().unwrap().remove(k);
            }
            v
        };
        let one = scan("1");
        assert_eq!(one["skipped"], skipped, "{name}");
        assert_eq!(
            one["raw_bytes"].as_u64(),
            Some(std::fs::metadata(file).unwrap().len())
        );
        for j in ["3", "4"] {
            assert_eq!(one, scan(j), "{name}: scan -j1 and -j{j}");
        }
        let dedup = |j: &str| {
            let out = tmp.path().join(format!("{name}-{j}"));
            run_ok(&["dedup", file, "-q", "-j", j, "--out", out.to_str().unwrap()]);
            ["clusters.jsonl", "remove.jsonl", "byte-identical.jsonl"]
                .map(|t| std::fs::read_to_string(out.join(t)).unwrap())
        };
        let one = dedup("1");
        assert!(!one[0].is_empty(), "{name}: clusters found");
        assert_eq!(one, dedup("4"), "{name}: dedup -j1 and -j4");
    }
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
    let v: serde_json::Value = read_json(&out_path);
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

// ---- dedup and sketch -------------------------------------------------------------------

#[test]
fn dedup_without_input_runs_on_the_sample() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = run_ok(&[
        "dedup",
        "--out",
        out.to_str().unwrap(),
        "--pairs",
        "--stats",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    // 383 of the sample's responses are rustdoc's redirect stubs (meta refresh): not pages.
    assert!(text.contains("clusters: 222 holding 524 pages"), "{text}");
    assert!(text.contains("(meta-refresh: 383)"), "{text}");
    assert!(
        text.contains(
            "LSH 42 bands x 2 rows (threshold 0.8); also accepted at estimated containment >= 0.8"
        ),
        "{text}"
    );
    assert!(text.contains("fitted power-law exponent"), "{text}");
    let summary: serde_json::Value = read_json(&out.join("summary.json"));
    assert_eq!(summary["counts"]["clusters"], 222);
    assert_eq!(summary["counts"]["pages_to_remove"], 302);
    assert_eq!(summary["params"]["minhash"], "oph");
    assert_eq!(summary["not_pages"]["meta-refresh"], 383);
    assert_eq!(summary["params"]["m"], 84);
    assert_eq!(summary["params"]["content"], "main");
    assert_eq!(summary["config"]["containment"], 0.8);
    // Every removed page carries its evidence.
    let remove = std::fs::read_to_string(out.join("remove.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(remove.lines().next().unwrap()).unwrap();
    for k in [
        "url",
        "kept_url",
        "rule",
        "b_similarity",
        "estimated_jaccard",
        "exact_jaccard",
    ] {
        assert!(first.get(k).is_some(), "{k} missing in {first}");
    }
}

#[test]
fn sketch_then_dedup_equals_dedup_and_mixes_with_crawls() {
    let tmp = tempfile::tempdir().unwrap();
    let sample = root().join("data/sample");
    let files: Vec<String> = [
        "rustdocs-1.63.0.warc.gz",
        "rustdocs-nightly.warc.gz",
        "rustdocs-stable.warc.gz",
    ]
    .iter()
    .map(|f| sample.join(f).display().to_string())
    .collect();
    let direct = tmp.path().join("direct");
    run_ok(&[
        "dedup",
        &files[0],
        &files[1],
        &files[2],
        "-q",
        "--out",
        direct.to_str().unwrap(),
    ]);
    // All three sketched into one file, then clustered from it.
    let sig = tmp.path().join("all.ndsig");
    run_ok(&[
        "sketch",
        &files[0],
        &files[1],
        &files[2],
        "-o",
        sig.to_str().unwrap(),
    ]);
    assert!(tmp.path().join("all.ndsig.params.json").exists());
    let from_sig = tmp.path().join("from-sig");
    run_ok(&[
        "dedup",
        sig.to_str().unwrap(),
        "-q",
        "--out",
        from_sig.to_str().unwrap(),
    ]);
    // The first crawl as signatures, the other two read now.
    let one = tmp.path().join("one.ndsig");
    run_ok(&["sketch", &files[0], "-q", "-o", one.to_str().unwrap()]);
    let mixed = tmp.path().join("mixed");
    run_ok(&[
        "dedup",
        one.to_str().unwrap(),
        &files[1],
        &files[2],
        "-q",
        "--out",
        mixed.to_str().unwrap(),
    ]);
    let read = |d: &Path| without_offsets(&d.join("clusters.jsonl"));
    assert_eq!(read(&direct), read(&from_sig));
    // Mixed inputs: crawls are read first, then signature files, so page order (and with it
    // the canonical page under --keep first) differs; the clusters' membership must not.
    let partition = |d: &Path| {
        let mut by_cluster: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
        for l in read(d).lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            by_cluster
                .entry(v["cluster"].as_u64().unwrap())
                .or_default()
                .push(v["url"].as_str().unwrap().to_string());
        }
        let mut sets: Vec<Vec<String>> = by_cluster
            .into_values()
            .map(|mut v| {
                v.sort();
                v
            })
            .collect();
        sets.sort();
        sets
    };
    let (a, b) = (partition(&direct), partition(&mixed));
    assert!(
        a == b,
        "mixed inputs give other clusters: {} vs {} clusters",
        a.len(),
        b.len()
    );
    // Different parameters are refused, --verify needs crawls.
    let o = neardup(
        &[
            "dedup",
            sig.to_str().unwrap(),
            "-k",
            "8",
            "-q",
            "--out",
            mixed.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("parameters"));
    let o = neardup(
        &[
            "dedup",
            sig.to_str().unwrap(),
            "--verify",
            "-q",
            "--out",
            mixed.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn dedup_modes_formats_and_evidence() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let o = run_ok(&[
        "dedup",
        "--lsh",
        "bands",
        "--minhashes",
        "128",
        "--threshold",
        "0.8",
        "--containment",
        "off",
        "--format",
        "csv",
        "--pairs",
        "--max-pairs-per-cluster",
        "1",
        "--verify",
        "--cluster",
        "star",
        "--keep",
        "shortest-url",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("LSH 9 bands x 13 rows (threshold 0.8)"),
        "{text}"
    );
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert!(pairs.starts_with("url_a,id_a,url_b,id_b,cluster,same_host,same_site,rule,b_similarity,estimated_jaccard,exact_jaccard,c_similarity,rp_distance,hm_distance,containment,titles,boilerplate_a,boilerplate_b,shared_shingles\n"));
    // Capped at one pair per cluster.
    let mut clusters: Vec<&str> = pairs
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(4).unwrap())
        .collect();
    let n = clusters.len();
    clusters.dedup();
    assert_eq!(clusters.len(), n);
    // Verified: every exact Jaccard present and >= 0.8 (identical token sequences are 1).
    let remove = std::fs::read_to_string(out.join("remove.csv")).unwrap();
    let exact = remove
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "exact_jaccard")
        .unwrap();
    for l in remove.lines().skip(1) {
        // The exact Jaccard's column counted from the end (URLs and ids may hold commas).
        let from_end = remove.lines().next().unwrap().split(',').count() - 1 - exact;
        let j: f64 = l.rsplit(',').nth(from_end).unwrap().parse().unwrap();
        assert!(j >= 0.8, "{l}");
    }
    let o = neardup(
        &[
            "dedup",
            "--format",
            "parquet",
            "--level",
            "virtually-identical",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    );
    assert!(o.status.success());
    assert!(out.join("clusters.parquet").exists() && out.join("remove.parquet").exists());
    let o = neardup(
        &[
            "dedup",
            "--level",
            "7",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn simhash_combined_and_split_carry_c_similarity() {
    let tmp = tempfile::tempdir().unwrap();
    for algo in ["simhash", "combined", "split"] {
        let out = tmp.path().join(algo);
        let o = neardup(
            &[
                "dedup",
                "--algo",
                algo,
                "--pairs",
                "--out",
                out.to_str().unwrap(),
            ],
            &root(),
        );
        assert!(
            o.status.success(),
            "{algo}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let pairs = std::fs::read_to_string(out.join("pairs.jsonl")).unwrap();
        for l in pairs.lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let c = v["c_similarity"]
                .as_u64()
                .expect("c_similarity in every pair");
            match v["rule"].as_str().unwrap() {
                "simhash" => assert!(c >= 372, "{l}"),
                "combined" => assert!(c >= 355 && v["b_similarity"].as_u64().unwrap() >= 2, "{l}"),
                "identical-tokens" => assert_eq!(c, 384),
                r => panic!("unexpected rule {r}"),
            }
        }
    }
    let o = neardup(
        &[
            "dedup",
            "--algo",
            "simhash",
            "--c-threshold",
            "400",
            "-q",
            "--out",
            tmp.path().join("x").to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn eval_scores_pairs_and_clusters_against_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("d");
    run_ok(&["dedup", "--pairs", "-q", "--out", out.to_str().unwrap()]);
    // Two pairs neardup finds (a cross-version pair and an identical-token pair), one it does
    // not, a labelled negative, on one and on two sites.
    let labels = tmp.path().join("labels.csv");
    std::fs::write(
        &labels,
        "url_a,url_b,label,kind\n\
         https://doc.rust-lang.org/stable/std/fmt/trait.Pointer.html,https://doc.rust-lang.org/nightly/std/fmt/trait.Pointer.html,1,version\n\
         https://doc.rust-lang.org/1.63.0/book/2018-edition/appendix-00.html,https://doc.rust-lang.org/1.63.0/book/2018-edition/ch12-04-testing-the-librarys-functionality.html,1,redirect\n\
         https://doc.rust-lang.org/stable/std/index.html,https://other.example.org/std/index.html,1,\"url, only\"\n\
         https://doc.rust-lang.org/stable/std/fmt/trait.Pointer.html,https://doc.rust-lang.org/stable/std/str/struct.Chars.html,0,template\n",
    )
    .unwrap();
    for (pred, eval_dir) in [("clusters.jsonl", "e1"), ("pairs.jsonl", "e2")] {
        let e = tmp.path().join(eval_dir);
        run_ok(&[
            "eval",
            "--truth",
            labels.to_str().unwrap(),
            "--pred",
            out.join(pred).to_str().unwrap(),
            "--out",
            e.to_str().unwrap(),
            "--crawl",
            root().join("data/sample").to_str().unwrap(),
        ]);
        let v: serde_json::Value = read_json(&e.join("eval.json"));
        let r = &v["report"];
        assert_eq!(r["labelled"], 4);
        assert_eq!(r["overall"]["false_positives"], 0, "{pred}");
        assert_eq!(
            r["overall"]["false_negatives"], 1,
            "{pred}: the other-host page is not in the crawl"
        );
        assert_eq!(r["different_site"]["false_negatives"], 1);
        assert_eq!(r["by_kind"]["url, only"]["false_negatives"], 1);
        assert!(v["term_differences"]["pairs"].as_u64().unwrap() > 0);
        if pred == "pairs.jsonl" {
            assert!(e.join("pr.svg").exists() && e.join("pr.csv").exists());
            assert!(v["break_even"].is_object());
        }
    }
    // Curves of every score over all labelled pairs, from signatures of the labelled pages.
    let e = tmp.path().join("curves");
    run_ok(&[
        "eval",
        "--truth",
        labels.to_str().unwrap(),
        "--pred",
        out.join("clusters.jsonl").to_str().unwrap(),
        "--out",
        e.to_str().unwrap(),
        "--crawl",
        root().join("data/sample").to_str().unwrap(),
        "--curves",
    ]);
    let v: serde_json::Value = read_json(&e.join("eval.json"));
    for score in [
        "estimated_jaccard",
        "b_similarity",
        "c_similarity",
        "exact_jaccard",
    ] {
        assert!(v["curves"][score]["break_even"].is_object(), "{score}");
    }
    assert!(std::fs::read_to_string(e.join("curves.csv"))
        .unwrap()
        .starts_with("score,threshold,precision,recall\n"));
    // Paper 000's curves: RP only, HM only, one per D of the grid.
    let rp = &v["rp_hm"];
    assert!(rp["link_graph"]["edges"].as_u64().unwrap() > 0);
    assert!(rp["curves"].as_array().unwrap().len() >= 2, "{rp}");
}

/// A signature file records the language detector that told its pages' languages; a run
/// that reads one told by another detector (or by one not recorded) says so.
#[test]
fn signature_files_told_by_another_language_detector_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let crawl = root().join("data/sample/rustdocs-1.63.0.warc.gz");
    let crawl = crawl.to_str().unwrap();
    let sig = tmp.path().join("a.ndsig");
    run_ok(&["sketch", crawl, "-q", "-o", sig.to_str().unwrap()]);
    let bytes = std::fs::read(&sig).unwrap();
    let detector = neardup_text::language::DETECTOR;
    let at = bytes
        .windows(detector.len())
        .position(|w| w == detector.as_bytes())
        .expect("the detector is recorded");
    let dedup = |file: &Path| {
        let out = tmp.path().join("out");
        let o = neardup(
            &[
                "dedup",
                file.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--force",
            ],
            &root(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    assert!(!dedup(&sig).contains("languages were told by"));
    // The same file, its detector renamed (same length), its checksum made again.
    let renamed = tmp.path().join("b.ndsig");
    std::fs::write(
        &renamed,
        overwritten_and_checksummed(&bytes, at, b"another"),
    )
    .unwrap();
    let err = dedup(&renamed);
    assert!(
        err.contains("languages were told by another") && err.contains(detector),
        "{err}"
    );
}

#[test]
fn rp_hm_dedup_carries_distances_and_runs_from_signature_files() {
    let tmp = tempfile::tempdir().unwrap();
    let sample = root().join("data/sample");
    let (d, c) = (0.02, 0.001);
    let run = |inputs: &[&str], out: &Path| {
        let mut args = vec![
            "dedup", "--algo", "rp-hm", "--rp-tol", "0.02", "--hm-tol", "0.001",
        ];
        args.extend_from_slice(inputs);
        args.extend_from_slice(&["--pairs", "-q", "--out", out.to_str().unwrap()]);
        run_ok(&args);
    };
    let direct = tmp.path().join("direct");
    run(&[sample.to_str().unwrap()], &direct);
    let pairs = std::fs::read_to_string(direct.join("pairs.jsonl")).unwrap();
    let mut rp_rows = 0;
    for l in pairs.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let (dr, dx) = (
            v["rp_distance"]
                .as_f64()
                .expect("rp_distance in every pair"),
            v["hm_distance"]
                .as_f64()
                .expect("hm_distance in every pair"),
        );
        match v["rule"].as_str().unwrap() {
            "rp-hm" => {
                // Outputs keep 6 significant digits.
                assert!(dr < d * (1.0 + 1e-5) && dx < c * (1.0 + 1e-5), "{l}");
                rp_rows += 1;
            }
            "identical-tokens" => assert_eq!(dr, 0.0),
            r => panic!("unexpected rule {r}"),
        }
    }
    assert!(rp_rows > 0, "some pairs found by the signatures alone");
    let summary: serde_json::Value = read_json(&direct.join("summary.json"));
    assert!(
        summary["counts"]["rp_hm"]["graph"]["edges"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(summary["params"]["rp_dims"], 5);

    // Signatures with projections and outlinks, clustered later: the same clusters.
    let sig = tmp.path().join("sample.ndsig");
    run_ok(&[
        "sketch",
        sample.to_str().unwrap(),
        "--rp-dims",
        "5",
        "-o",
        sig.to_str().unwrap(),
    ]);
    let from_sig = tmp.path().join("from-sig");
    run(&[sig.to_str().unwrap()], &from_sig);
    for f in ["clusters.jsonl", "pairs.jsonl", "remove.jsonl"] {
        assert_eq!(
            without_offsets(&direct.join(f)),
            without_offsets(&from_sig.join(f)),
            "{f}"
        );
    }
    // Signatures without projections cannot run rp-hm.
    let plain = tmp.path().join("plain.ndsig");
    run_ok(&[
        "sketch",
        sample.to_str().unwrap(),
        "-o",
        plain.to_str().unwrap(),
    ]);
    let o = neardup(
        &[
            "dedup",
            "--algo",
            "rp-hm",
            plain.to_str().unwrap(),
            "-q",
            "--out",
            tmp.path().join("x").to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn boilerplate_detection_reports_and_changes_signatures() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("bp");
    // A very low fraction makes most rustdoc chrome boilerplate: pages become mostly boilerplate.
    let o = run_ok(&[
        "dedup",
        "--boilerplate",
        "host-frequency",
        "--boilerplate-fraction",
        "0.05",
        "--boilerplate-page",
        "0.3",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("boilerplate:"), "{text}");
    let s: serde_json::Value = read_json(&out.join("summary.json"));
    assert!(s["boilerplate_mean_fraction"].as_f64().unwrap() > 0.1);
    let reported = s["boilerplate_pages_reported"].as_u64().unwrap();
    assert!(reported > 0);
    let rows = std::fs::read_to_string(out.join("boilerplate.jsonl")).unwrap();
    assert_eq!(rows.lines().count() as u64, reported);
    // Reported pages are not clustered.
    let clusters = std::fs::read_to_string(out.join("clusters.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert!(!clusters.contains(&format!("\"url\":{}", first["url"])));
    let o = neardup(
        &[
            "dedup",
            "--boilerplate",
            "host-frequency",
            "--boilerplate-fraction",
            "2",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn overlap_table_on_the_sample() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ov");
    run_ok(&[
        "overlap",
        "--chunk",
        "lines:2",
        "--min-shared",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    let s: serde_json::Value = read_json(&out.join("summary.json"));
    assert_eq!(s["counts"]["pages"], 1063);
    assert_eq!(s["counts"]["copies"], 229, "exact copies removed first");
    let rows = std::fs::read_to_string(out.join("overlap.jsonl")).unwrap();
    assert_eq!(
        rows.lines().count() as u64,
        s["counts"]["overlap_pairs"].as_u64().unwrap()
    );
    for l in rows.lines().take(50) {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let shared = v["shared"].as_u64().unwrap();
        assert!(
            shared >= 5
                && shared
                    <= v["chunks_a"]
                        .as_u64()
                        .unwrap()
                        .min(v["chunks_b"].as_u64().unwrap()),
            "{l}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(out.join("copies.jsonl"))
            .unwrap()
            .lines()
            .count(),
        229
    );
    // A tiny document-frequency cap skips chunks and says so.
    let o = neardup(
        &[
            "overlap",
            "--max-df",
            "2",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    );
    assert!(o.status.success());
    let s: serde_json::Value = read_json(&out.join("summary.json"));
    assert!(s["skipped_fingerprints"].as_u64().unwrap() > 0);
    assert_eq!(
        neardup(
            &[
                "overlap",
                "--chunk",
                "lines:0",
                "-q",
                "--out",
                out.to_str().unwrap()
            ],
            &root()
        )
        .status
        .code(),
        Some(2)
    );
}

#[test]
fn server_overlap_and_replication_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("hosts.jsonl");
    let shared = "alpha beta gamma\ndelta epsilon zeta\neta theta iota\nkappa lambda mu\nnu xi omicron\npi rho sigma";
    let rows = [
        ("https://a.example/1", format!("{shared}\nonly on a one")),
        (
            "https://a.example/2",
            "page two of a\nnothing shared here".to_string(),
        ),
        ("https://b.example/x", format!("{shared}\nonly on b")),
        (
            "https://c.example/y",
            "something else\nentirely different".to_string(),
        ),
        (
            "https://c.example/z",
            "something else\nentirely different".to_string(),
        ),
    ];
    let text: String = rows
        .iter()
        .map(|(u, t)| serde_json::json!({ "url": u, "text": t }).to_string() + "\n")
        .collect();
    std::fs::write(&corpus, text).unwrap();
    let out = tmp.path().join("ov");
    run_ok(&[
        "overlap",
        corpus.to_str().unwrap(),
        "--chunk",
        "lines",
        "--min-shared",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    let servers = std::fs::read_to_string(out.join("server-overlap.jsonl")).unwrap();
    assert_eq!(
        servers.trim(),
        r#"{"host_a":"a.example","host_b":"b.example","shared":6}"#
    );
    let s: serde_json::Value = read_json(&out.join("summary.json"));
    let rep = &s["replication"];
    // c/z is an exact copy of c/y: 1 page of 5 saved by skipping exact copies.
    assert_eq!(rep["savings_exact_pages"], 0.2);
    // a/1 and b/x share 6 lines: one more page saved.
    assert_eq!(rep["savings_sharing_pages"], 0.4);
    assert_eq!(rep["most_replicated"][0]["hosts"], 2);
    assert_eq!(
        rep["most_replicated"][0]["representative_url"],
        "https://a.example/1"
    );
}

#[test]
fn mirrors_finds_full_partial_subtree_and_alias_pairs_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    run_ok(&[
        "mirrors",
        &fixture("mirrors.warc.gz"),
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(out.join("mirrors.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got: Vec<(String, String, String, String, String)> = rows
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap().to_string();
            (
                s("kind"),
                s("host_a"),
                s("prefix_a"),
                s("host_b"),
                s("prefix_b"),
            )
        })
        .collect();
    let t = |k: &str, a: &str, pa: &str, b: &str, pb: &str| {
        (k.into(), a.into(), pa.into(), b.into(), pb.into())
    };
    // tests/fixtures/make_mirrors.py: a full mirror, a subtree re-published under /pub/rust/,
    // an alias pair on one IP (whose /core/ pages are also the original's /stable/core/), and
    // two unrelated sites that appear nowhere.
    let want = vec![
        t(
            "mirror",
            "doc.rust-lang.org",
            "/",
            "rust-mirror.example.net",
            "/",
        ),
        t(
            "partial-mirror",
            "alias.example.com",
            "/",
            "doc.rust-lang.org",
            "/stable/",
        ),
        t(
            "partial-mirror",
            "alias.example.com",
            "/",
            "rust-mirror.example.net",
            "/stable/",
        ),
        t(
            "partial-mirror",
            "doc.rust-lang.org",
            "/stable/",
            "docs.partial.example.org",
            "/pub/rust/",
        ),
        t(
            "partial-mirror",
            "docs.partial.example.org",
            "/pub/rust/",
            "rust-mirror.example.net",
            "/stable/",
        ),
        t(
            "alias",
            "alias.example.com",
            "/",
            "www.alias.example.com",
            "/",
        ),
    ];
    assert_eq!(got, want);
    for r in &rows {
        assert_eq!(r["suffix_match_last_arc"], 1.0, "{r}");
        assert!(r["pages_shared_a"].as_u64().unwrap() >= 10);
        assert!(!r["examples"].as_str().unwrap().is_empty(), "{r}");
    }
    // One of the 120 shared pages is a redirect stub (meta refresh): not a page.
    assert_eq!(rows[0]["pages_shared_a"], 119);
    assert_eq!(rows[5]["alias_reason"], "www");
    let summary: serde_json::Value = read_json(&out.join("summary.json"));
    assert_eq!(summary["counts"]["mirrors"], 1);
    assert_eq!(summary["counts"]["aliases"], 1);
    assert_eq!(summary["counts"]["partial_mirrors"], 4);
    // Hosts with two or more pages in clusters with their own other pages (min_pages 2).
    assert_eq!(summary["counts"]["auto_mirrors"], 2);

    // A hosts file saying the mirror also answers on the original's IP makes it an alias.
    let hosts = tmp.path().join("hosts.csv");
    std::fs::write(&hosts, "# host,ip\nrust-mirror.example.net,192.0.2.1\n").unwrap();
    let out2 = tmp.path().join("m2");
    run_ok(&[
        "mirrors",
        &fixture("mirrors.warc.gz"),
        "--hosts-ips",
        hosts.to_str().unwrap(),
        "-q",
        "--out",
        out2.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(out2.join("mirrors.jsonl")).unwrap();
    assert!(text
        .lines()
        .any(|l| l.contains("\"host_b\":\"rust-mirror.example.net\"")
            && l.contains("\"kind\":\"alias\"")
            && l.contains("\"alias_reason\":\"same-ip\"")));

    // From a previous dedup run's clusters: the same pairs.
    let d = tmp.path().join("d");
    run_ok(&[
        "dedup",
        &fixture("mirrors.warc.gz"),
        "-q",
        "--out",
        d.to_str().unwrap(),
    ]);
    let out3 = tmp.path().join("m3");
    run_ok(&[
        "mirrors",
        &fixture("mirrors.warc.gz"),
        "--clusters",
        d.join("clusters.jsonl").to_str().unwrap(),
        "-q",
        "--out",
        out3.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read(out.join("mirrors.jsonl")).unwrap(),
        std::fs::read(out3.join("mirrors.jsonl")).unwrap()
    );

    // The sample crawl: of the three versions of the docs under one host, stable and nightly
    // are subtree mirrors. (1.63.0 shared with them mostly rustdoc's redirect stubs, which
    // are not pages.)
    let out = tmp.path().join("s");
    run_ok(&["mirrors", "-q", "--out", out.to_str().unwrap()]);
    let text = std::fs::read_to_string(out.join("mirrors.jsonl")).unwrap();
    let prefixes: Vec<(String, String)> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["host_a"], v["host_b"]);
            (
                v["prefix_a"].as_str().unwrap().into(),
                v["prefix_b"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        prefixes.contains(&("/nightly/".into(), "/stable/".into())),
        "{prefixes:?}"
    );
}

/// Every table of an evolve run, for comparing runs (summary.json holds timings).
fn evolve_tables(dir: &Path) -> Vec<(String, String)> {
    [
        "coefficients",
        "change",
        "change_buckets",
        "hosts",
        "events",
        "recrawl",
        "clusters",
    ]
    .iter()
    .map(|t| {
        let p = dir.join(format!("{t}.jsonl"));
        (t.to_string(), std::fs::read_to_string(&p).unwrap())
    })
    .collect()
}

#[test]
fn evolve_without_input_follows_the_sample_site_across_three_versions() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("e");
    run_ok(&["evolve", "-q", "--out", out.to_str().unwrap()]);
    for f in [
        "fig4-containment.svg",
        "fig5-similarity.svg",
        "fig6-host-clusters.svg",
        "fig7-reverse-containment.svg",
        "fig8-change-by-size.svg",
        "fig9-relative-change.svg",
        "fig10-change-buckets.svg",
    ] {
        let svg = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"), "{f}");
        assert!(svg.contains("<polyline") || svg.contains("<rect x="), "{f}");
    }
    let summary: serde_json::Value = read_json(&out.join("summary.json"));
    let crawls = summary["crawls"].as_array().unwrap();
    let labels: Vec<&str> = crawls
        .iter()
        .map(|c| c["counts"]["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "2022-08-rustdocs-1.63.0",
            "2026-05-rustdocs-stable",
            "2026-07-rustdocs-nightly"
        ]
    );
    // Singletons of crawl 1 keep perfect containment (paper: "a straight line at 1").
    let coefficients = jsonl(&out.join("coefficients.jsonl"));
    for c in coefficients.iter().filter(|c| c["range"] == "1") {
        assert_eq!(c["containment"], 1.0);
    }
    // Crawl 1 against itself is 1 everywhere; the sample has real clusters of 2-10 pages.
    assert!(coefficients
        .iter()
        .filter(|c| c["crawl_index"] == 1)
        .all(|c| c["similarity"] == 1.0 && c["reverse_containment"] == 1.0));
    assert!(coefficients
        .iter()
        .any(|c| c["range"] == "2-10" && c["crawl_index"] == 3));
    // Change rows cover every URL present in two consecutive crawls.
    let compared: u64 = crawls
        .iter()
        .map(|c| c["counts"]["also_in_previous"].as_u64().unwrap())
        .sum();
    let change = jsonl(&out.join("change.jsonl"));
    assert_eq!(
        change
            .iter()
            .map(|r| r["urls"].as_u64().unwrap())
            .sum::<u64>(),
        compared
    );
    assert!(change.iter().all(|r| {
        let s = r["shared_minvalues"].as_u64().unwrap();
        s <= 85 && (s != 85 || r["bucket"] == "no-change")
    }));
    // Every earlier cluster has one fate, every later cluster one origin.
    for e in summary["events"].as_array().unwrap() {
        let n = |k: &str| e[k].as_u64().unwrap();
        assert_eq!(
            n("unchanged") + n("changed") + n("splits") + n("merged") + n("deaths"),
            n("clusters_before")
        );
        assert_eq!(
            n("unchanged") + n("changed") + n("merges") + n("split_pieces") + n("births"),
            n("clusters_after")
        );
    }
    // Advice: one row per URL of the last crawl, each with a reason; a skipped URL names a
    // representative that is itself fetched.
    let recrawl = jsonl(&out.join("recrawl.jsonl"));
    assert_eq!(
        recrawl.len() as u64,
        crawls[2]["counts"]["urls"].as_u64().unwrap()
    );
    let action: std::collections::HashMap<&str, &str> = recrawl
        .iter()
        .map(|r| (r["url"].as_str().unwrap(), r["action"].as_str().unwrap()))
        .collect();
    let skipped: Vec<&serde_json::Value> =
        recrawl.iter().filter(|r| r["action"] == "skip").collect();
    assert!(!skipped.is_empty(), "the sample has stable clusters");
    for r in &skipped {
        assert_eq!(r["reason"], "stable-cluster-member");
        assert_ne!(action[r["representative"].as_str().unwrap()], "skip");
        assert!(r["stability"].as_f64().unwrap() >= 0.8);
    }
    assert!(recrawl
        .iter()
        .all(|r| !r["reason"].as_str().unwrap().is_empty()
            && !r["explanation"].as_str().unwrap().is_empty()));
    let counts = &summary["recrawl"];
    assert_eq!(counts["skip"].as_u64().unwrap(), skipped.len() as u64);
    assert!(summary["recrawl_validation"]["skip_precision"].is_number());
}

#[test]
fn evolve_is_deterministic_and_reads_signature_files_and_joined_crawls() {
    let tmp = tempfile::tempdir().unwrap();
    let sample = root().join("data/evolve-sample");
    let files: Vec<String> = [
        "2022-08-rustdocs-1.63.0",
        "2026-05-rustdocs-stable",
        "2026-07-rustdocs-nightly",
    ]
    .iter()
    .map(|f| sample.join(format!("{f}.warc.gz")).display().to_string())
    .collect();
    let run = |name: &str, crawls: &[&str], extra: &[&str]| -> PathBuf {
        let out = tmp.path().join(name);
        let mut args = vec!["evolve", "-q", "--out", out.to_str().unwrap()];
        args.extend(crawls);
        args.extend(extra);
        run_ok(&args);
        out
    };
    let crawls: Vec<&str> = files.iter().map(String::as_str).collect();
    let a = run("a", &crawls, &["-j", "1"]);
    let b = run("b", &crawls, &["-j", "2"]);
    assert_eq!(evolve_tables(&a), evolve_tables(&b));
    // The first crawl as a signature file (of evolve's min-hash family): the same tables.
    let sig = tmp.path().join("first.ndsig");
    run_ok(&[
        "sketch",
        "-q",
        &files[0],
        "--minhash",
        "rabin",
        "--output",
        sig.to_str().unwrap(),
    ]);
    let c = run(
        "c",
        &[sig.to_str().unwrap(), &files[1], &files[2]],
        &[
            "--labels",
            "2022-08-rustdocs-1.63.0,2026-05-rustdocs-stable,2026-07-rustdocs-nightly",
        ],
    );
    assert_eq!(evolve_tables(&a), evolve_tables(&c));
    // Two files joined with a comma are one crawl.
    let joined = format!("{},{}", files[1], files[2]);
    let d = run("d", &[&files[0], &joined], &[]);
    let summary: serde_json::Value = read_json(&d.join("summary.json"));
    let crawls = summary["crawls"].as_array().unwrap();
    assert_eq!(crawls.len(), 2);
    assert_eq!(crawls[1]["counts"]["label"], "2026-05-rustdocs-stable+1");
    // The nightly pages repeat the stable URLs: the first fetch counts.
    assert!(crawls[1]["counts"]["repeated_urls"].as_u64().unwrap() > 0);
    // Labels must match the crawls.
    let o = neardup(
        &[
            "evolve",
            "-q",
            &files[0],
            "--labels",
            "a,b",
            "--out",
            tmp.path().join("x").to_str().unwrap(),
        ],
        &root(),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--labels"));
}

#[test]
fn replicas_rank_labelled_replicas_above_non_replicas_and_eval_scores_them() {
    // tests/fixtures/make_replicas.py: 36 documentation sections on invented hosts, with www
    // and TLD variants, mirrors, relocated mirrors, other versions, and sites copying pages.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    run_ok(&[
        "replicas",
        &fixture("replicas.warc.gz"),
        "-q",
        "--em-from-scratch",
        "--out",
        out.to_str().unwrap(),
    ]);
    let summary: serde_json::Value = read_json(&out.join("summary.json"));
    let c = &summary["counts"];
    // Four of the 70 sites hold only redirect stubs (meta refresh): not pages.
    assert_eq!(c["sites"], 66);
    assert!(c["obvious_www"].as_u64().unwrap() >= 5 && c["obvious_tld"].as_u64().unwrap() >= 3);
    // The incremental EM equals the one rebuilt after every transition.
    assert_eq!(summary["times"]["from_scratch_equal"], true);
    let rows = jsonl(&out.join("replicas.jsonl"));
    assert_eq!(rows.len() as u64, c["candidates"].as_u64().unwrap());
    let ranks: Vec<u64> = rows.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    assert_eq!(ranks, (1..=rows.len() as u64).collect::<Vec<_>>());
    for r in &rows {
        for k in [
            "alpha_pu", "alpha_nu", "score", "fullpath", "nmatch", "ip3", "ip4",
        ] {
            let v = r[k].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&v), "{k} {v}");
        }
        // www. variants are labelled obvious.
        let (a, b) = (r["host_a"].as_str().unwrap(), r["host_b"].as_str().unwrap());
        if a.strip_prefix("www.") == Some(b) || b.strip_prefix("www.") == Some(a) {
            assert_eq!(r["obvious"], "www");
        }
    }
    // Scored against the builder's labels.
    let ev = tmp.path().join("e");
    run_ok(&[
        "eval",
        "-q",
        "--truth",
        &fixture("replica-labels.csv"),
        "--pred",
        out.to_str().unwrap(),
        "--out",
        ev.to_str().unwrap(),
    ]);
    let e: serde_json::Value = read_json(&ev.join("site-eval.json"));
    let auc = |m: &str| {
        e["methods"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["method"] == m)
            .unwrap()["auc"]
            .as_f64()
            .unwrap()
    };
    for m in ["pu", "nu", "pu+nu"] {
        assert!(auc(m) > 0.7, "{m}: {}", auc(m));
        assert!(auc(m) > auc("normpaths"), "{m} beats NormPaths");
    }
    assert!(ev.join("roc.svg").is_file() && ev.join("roc.csv").is_file());
}

#[test]
fn parquet_and_csv_outputs_are_read_back_by_eval_and_clusters_reuse() {
    let tmp = tempfile::tempdir().unwrap();
    // A replicas run written as Parquet is scored like one written as JSONL.
    let scores = |format: &str| {
        let out = tmp.path().join(format!("r-{format}"));
        let ev = tmp.path().join(format!("e-{format}"));
        run_ok(&[
            "replicas",
            &fixture("replicas.warc.gz"),
            "-q",
            "--format",
            format,
            "--out",
            out.to_str().unwrap(),
        ]);
        run_ok(&[
            "eval",
            "-q",
            "--truth",
            &fixture("replica-labels.csv"),
            "--pred",
            out.to_str().unwrap(),
            "--out",
            ev.to_str().unwrap(),
        ]);
        let v = read_json(&ev.join("site-eval.json"));
        v["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["auc"].as_f64().unwrap())
            .collect::<Vec<f64>>()
    };
    let jsonl = scores("jsonl");
    let parquet = scores("parquet");
    assert_eq!(jsonl.len(), 4);
    for (a, b) in jsonl.iter().zip(&parquet) {
        assert!((a - b).abs() < 1e-5, "{jsonl:?} vs {parquet:?}");
    }
    // Clusters of a dedup run in CSV or Parquet feed mirrors --clusters.
    let mirrors_with = |format: &str| {
        let d = tmp.path().join(format!("d-{format}"));
        let m = tmp.path().join(format!("m-{format}"));
        run_ok(&[
            "dedup",
            &fixture("mirrors.warc.gz"),
            "-q",
            "--format",
            format,
            "--out",
            d.to_str().unwrap(),
        ]);
        let clusters = d.join(format!("clusters.{format}"));
        run_ok(&[
            "mirrors",
            &fixture("mirrors.warc.gz"),
            "-q",
            "--clusters",
            clusters.to_str().unwrap(),
            "--out",
            m.to_str().unwrap(),
        ]);
        std::fs::read_to_string(m.join("mirrors.jsonl")).unwrap()
    };
    let direct = mirrors_with("jsonl");
    assert!(!direct.is_empty());
    assert_eq!(mirrors_with("csv"), direct);
    assert_eq!(mirrors_with("parquet"), direct);
}

#[test]
fn outputs_never_replace_a_file_neardup_did_not_write_and_are_checked_before_reading() {
    let tmp = tempfile::tempdir().unwrap();
    let crawl = tmp.path().join("crawl.warc");
    let other = tmp.path().join("other.warc");
    std::fs::copy(fixture("basic.warc"), &crawl).unwrap();
    std::fs::copy(fixture("basic.warc"), &other).unwrap();
    let before = std::fs::read(&crawl).unwrap();
    // `scan --json crawl/*.warc`: the first crawl file becomes the JSON path. It is refused.
    let o = neardup(
        &[
            "scan",
            "--json",
            crawl.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("was not written by neardup") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read(&crawl).unwrap(), before);
    // neardup's own report may be replaced; someone else's file only with --force.
    let report = tmp.path().join("report.json");
    for _ in 0..2 {
        run_ok(&[
            "scan",
            other.to_str().unwrap(),
            "--json",
            report.to_str().unwrap(),
            "-q",
        ]);
    }
    let theirs = tmp.path().join("theirs.json");
    std::fs::write(&theirs, "{\"mine\": 1}").unwrap();
    let args = [
        "scan",
        other.to_str().unwrap(),
        "--json",
        theirs.to_str().unwrap(),
        "-q",
    ];
    assert_eq!(neardup(&args, &root()).status.code(), Some(1));
    let mut forced = args.to_vec();
    forced.push("--force");
    run_ok(&forced);
    assert_eq!(read_json(&theirs)["pages"], 7);
    // An output folder: files neardup wrote there are replaced on the next run, a file of the
    // same name that it did not write is not.
    let out = tmp.path().join("out");
    let dedup = |extra: &[&str]| {
        let mut a = vec![
            "dedup",
            other.to_str().unwrap(),
            "-q",
            "--out",
            out.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        neardup(&a, &root())
    };
    assert!(dedup(&[]).status.success());
    assert!(
        dedup(&[]).status.success(),
        "a second run replaces its own files"
    );
    std::fs::remove_file(out.join(".neardup-files")).unwrap();
    let o = dedup(&[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("neardup did not write") && err.contains(".jsonl"),
        "{err}"
    );
    assert!(dedup(&["--force"]).status.success());
    // An output folder that cannot be made is found before any input is read: with --strict on
    // a damaged crawl, the error is about the folder (exit 1), not the crawl (exit 3).
    let blocked = crawl.join("sub");
    let o = neardup(
        &[
            "dedup",
            &fixture("junk.warc"),
            "--strict",
            "--out",
            blocked.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(blocked.to_str().unwrap()) || err.contains(crawl.to_str().unwrap()),
        "{err}"
    );
}

#[test]
fn empty_runs_duplicate_inputs_and_bad_values_fail_loudly() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out_s = out.to_str().unwrap();
    // JSONL whose text is under another field name: exit 4, the reason, the fix.
    let wrong = tmp.path().join("wrong.jsonl");
    std::fs::write(
        &wrong,
        "{\"url\":\"https://a.example/1\",\"body\":\"some text\"}\n{\"url\":\"https://a.example/2\",\"body\":\"more\"}\n",
    )
    .unwrap();
    let o = neardup(&["dedup", wrong.to_str().unwrap(), "--out", out_s], &root());
    assert_eq!(o.status.code(), Some(4));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no page read")
            && err.contains("bad-json (2)")
            && err.contains("--text-field"),
        "{err}"
    );
    // With the right field name it reads both pages.
    let o = run_ok(&[
        "dedup",
        wrong.to_str().unwrap(),
        "--text-field",
        "body",
        "--out",
        out_s,
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("of 2 pages"));
    // An empty file, an empty folder: exit 4 unless --allow-empty.
    let empty = tmp.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let folder = tmp.path().join("nothing");
    std::fs::create_dir(&folder).unwrap();
    for input in [&empty, &folder] {
        let o = neardup(
            &["dedup", input.to_str().unwrap(), "-q", "--out", out_s],
            &root(),
        );
        assert_eq!(o.status.code(), Some(4), "{}", input.display());
        run_ok(&[
            "dedup",
            input.to_str().unwrap(),
            "-q",
            "--allow-empty",
            "--out",
            out_s,
        ]);
    }
    // Records skipped among good ones: every command says why, with file and offset.
    let o = run_ok(&["dedup", &fixture("bad-length.warc"), "--out", out_s]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("skipped 2 record(s)") && text.contains("length-mismatch (2)"),
        "{text}"
    );
    assert!(text.contains("bad-length.warc: byte "), "{text}");
    let s = read_json(&out.join("summary.json"));
    assert_eq!(s["skipped"]["records"], 2);
    let bad = fixture("bad-length.warc");
    let good = fixture("basic.warc");
    for args in [
        vec!["sketch", &bad, "-o", ""],
        vec!["mirrors", &bad, "--out", out_s],
        vec!["replicas", &bad, "--out", out_s],
        vec!["overlap", &bad, "--out", out_s],
        vec!["evolve", &good, &bad, "--out", out_s],
    ] {
        let sig = tmp.path().join("skipped.sig");
        let args: Vec<&str> = args
            .into_iter()
            .map(|a| {
                if a.is_empty() {
                    sig.to_str().unwrap()
                } else {
                    a
                }
            })
            .collect();
        let o = neardup(&args, &root());
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            text.contains("skipped 2 record(s)") && text.contains("length-mismatch (2)"),
            "{args:?}: {text}"
        );
        assert!(text.contains("bad-length.warc: byte "), "{args:?}: {text}");
    }
    let s = read_json(&out.join("summary.json"));
    assert_eq!(
        s["crawls"][1]["skipped"]["by_reason"][0][0],
        "length-mismatch"
    );
    // The same file twice (once through another path): read once, with a warning, and no
    // page is removed in favour of itself.
    let copy_dir = tmp.path().join("again");
    std::fs::create_dir(&copy_dir).unwrap();
    let copy = copy_dir.join("basic.warc");
    std::fs::copy(fixture("basic.warc"), &copy).unwrap();
    let o = run_ok(&[
        "dedup",
        &fixture("basic.warc"),
        &fixture("basic.warc"),
        copy.to_str().unwrap(),
        "--out",
        out_s,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("the same file as").count(), 2, "{err}");
    let s = read_json(&out.join("summary.json"));
    assert_eq!(s["pages_read"], 7);
    for r in jsonl(&out.join("remove.jsonl")) {
        assert_ne!(r["url"], r["kept_url"], "{r}");
    }
    // Bad values are usage errors (exit 2) that name the flag; none panics.
    for (args, flag) in [
        (vec!["-k", "0"], "-k 0"),
        (vec!["--minhashes", "0"], "--minhashes 0"),
        (vec!["--threshold", "1.5"], "--threshold 1.5"),
        (vec!["--threshold", "-0.5"], "--threshold -0.5"),
        (vec!["--threads", "50000"], "--threads"),
        (vec!["--max-record-bytes", "12Q"], "--max-record-bytes"),
        (vec!["--level", "seven"], "--level"),
    ] {
        let mut a = vec!["dedup", "-q", "--out", out_s];
        a.extend(args.iter().copied());
        let o = neardup(&a, &root());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(flag),
            "{args:?}"
        );
    }
    // Sizes in every spelling.
    for size in ["64M", "64MiB", "1G", "500KB"] {
        run_ok(&[
            "scan",
            &fixture("basic.warc"),
            "-q",
            "--max-record-bytes",
            size,
        ]);
    }
}

#[test]
fn site_commands_say_why_they_found_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    // One site only: no pair of sites can share a cluster.
    let o = run_ok(&[
        "replicas",
        &fixture("basic.warc"),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("no candidate site pairs: no near-duplicate cluster spans two sites"),
        "{text}"
    );
    assert!(!text.contains("best ranked:"), "{text}");
    let out = tmp.path().join("m");
    let o = run_ok(&[
        "mirrors",
        &fixture("basic.warc"),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("nothing found: "), "{text}");
}

#[test]
fn no_flag_value_panics() {
    // Every numeric flag at its edges: a clean answer (0), or a usage error (2), never a panic
    // (101) or an abort (134).
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let out_s = out.to_str().unwrap();
    let basic = fixture("basic.warc");
    let values = [
        "0",
        "1",
        "4294967295",
        "18446744073709551615",
        "-1",
        "NaN",
        "inf",
        "1e308",
    ];
    let flags: [(&str, &[&str]); 16] = [
        ("dedup", &["-k"]),
        ("dedup", &["--minhashes"]),
        ("dedup", &["--supershingles"]),
        ("dedup", &["--supershingle-size"]),
        ("dedup", &["--threshold"]),
        ("dedup", &["--lsh", "bands", "--rows", "2", "--bands"]),
        ("dedup", &["--algo", "simhash", "--simhash-bits"]),
        ("dedup", &["--algo", "simhash", "--simhash-blocks"]),
        ("dedup", &["--algo", "simhash", "--c-threshold"]),
        ("dedup", &["--algo", "rp-hm", "--rp-dims"]),
        ("dedup", &["--algo", "rp-hm", "--rp-tol"]),
        ("dedup", &["--algo", "rp-hm", "--hm-iterations"]),
        (
            "dedup",
            &["--boilerplate", "host-frequency", "--boilerplate-fraction"],
        ),
        ("overlap", &["--method", "coarse", "--counters"]),
        ("overlap", &["--min-shared"]),
        ("replicas", &["--min-score"]),
    ];
    for (cmd, flag) in flags {
        for v in values {
            let mut args = vec![cmd, basic.as_str(), "-q", "--allow-empty", "--out", out_s];
            args.extend_from_slice(flag);
            args.push(v);
            let o = neardup(&args, &root());
            let code = o.status.code();
            assert!(
                matches!(code, Some(0) | Some(2)),
                "{args:?}: exit {code:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

/// A JSONL table's text without its `offset` column: signature files keep no record offsets, so
/// a run from them says `null` where a run from the crawl names the byte (every other column
/// equal).
fn without_offsets(path: &Path) -> String {
    let mut out = String::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let mut v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(line).unwrap();
        v.remove("offset");
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    out
}
