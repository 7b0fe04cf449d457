//! `neardup dedup` with no flags on the committed labelled crawls, kind by kind:
//! tests/fixtures/labelled (bench/make_labelled_crawl.py from data/sample: the bar of issue 16)
//! and tests/fixtures/clothes (bench/make_clothes_crawl.py --seed 2 --scale 0.12: copies in
//! other clothes and the hard negatives of issue 57).

use crate::util::*;

const POSITIVE: &[&str] = &[
    "alias",
    "execution-time",
    "mirror",
    "parked",
    "partial-mirror",
    "print-view",
    "server-name",
    "session-id",
    "stale-mirror",
    "timestamp",
    "visitor-count",
];
const NEGATIVE: &[&str] = &[
    "error-page",
    "redirect",
    "soft-404",
    "template-api",
    "template-news",
    "template-shop",
];

#[test]
fn defaults_find_what_the_web_makes_and_keep_templates_apart() {
    let (r, s) = dedup_scored(&[]);
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    assert!(f(&r["overall"]["f1"]) >= 0.97, "{}", r["overall"]);
    assert!(
        f(&r["same_site"]["precision"]) >= 0.95,
        "{}",
        r["same_site"]
    );
    for k in POSITIVE {
        let recall = f(&r["by_kind"][k]["recall"]);
        assert!(recall >= 0.9, "{k}: recall {recall}");
    }
    let (mut fp, mut all) = (0.0, 0.0);
    for k in NEGATIVE {
        let c = &r["by_kind"][k];
        fp += f(&c["false_positives"]);
        all += f(&c["false_positives"]) + f(&c["true_negatives"]);
    }
    assert!(
        all > 50.0 && fp / all <= 0.02,
        "{fp} of {all} hard negatives matched"
    );
    // Responses that are not pages are counted, not clustered.
    assert_eq!(s["not_pages"]["301"], 16);
    assert_eq!(s["not_pages"]["404"], 16);
    assert_eq!(s["not_pages"]["soft-404"], 15);
}

/// Recall each positive kind of the clothes crawl reaches at least: issue 57's bar, 0.95 for
/// every kind but excerpts (0.85), save one kind still under it: one package in two releases
/// (0.92 here, 22 pairs of 24; bench/results/clothes-2026-11-28.md).
const CLOTHES_RECALL: &[(&str, f64)] = &[
    ("alias", 0.95),
    ("article-template", 0.95),
    ("legacy-mirror", 0.95),
    ("print-view", 0.95),
    ("session-id", 0.95),
    ("small-edit", 0.95),
    ("tracking", 0.95),
    ("short-date", 0.95),
    ("edition", 0.95),
    ("catalogue-template", 0.95),
    ("family", 0.95),
    ("excerpt", 0.85),
    ("catalogue-release", 0.9),
];

#[test]
fn copies_in_other_clothes_are_found_and_different_items_kept_apart() {
    let (r, _) = scored("clothes", &[]);
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    for (k, floor) in CLOTHES_RECALL {
        let c = &r["by_kind"][k];
        let recall = f(&c["recall"]);
        assert!(recall >= *floor, "{k}: recall {recall} < {floor}: {c}");
        let pairs = f(&c["true_positives"]) + f(&c["false_negatives"]);
        assert!(pairs >= 20.0, "{k}: too few pairs: {c}");
    }
    // Every hard negative at most 1% matched (none, at these counts).
    for k in ["short-items", "heavy-template", "languages"] {
        let c = &r["by_kind"][k];
        assert!(f(&c["true_negatives"]) >= 20.0, "{k}: too few pairs: {c}");
        assert_eq!(f(&c["false_positives"]), 0.0, "{k}: {c}");
    }
    assert!(f(&r["overall"]["precision"]) >= 0.99, "{}", r["overall"]);
}

/// `dedup --explain`: a matched excerpt names the rule that accepted it and shows the texts
/// compared; a pair of two items of one template names the rule it fails; a URL not in the
/// run is an error naming it; the JSON says what the text says.
#[test]
fn explain_names_the_rule_the_scores_and_the_texts_compared() {
    let crawl = fixture("clothes/crawl.warc.gz");
    let labels = std::fs::read_to_string(fixture("clothes/labels.csv")).unwrap();
    let pair = |kind: &str| -> (String, String) {
        let l = labels
            .lines()
            .find(|l| l.split(',').nth(3) == Some(kind))
            .unwrap();
        let mut f = l.split(',');
        (f.next().unwrap().into(), f.next().unwrap().into())
    };
    let (a, b) = pair("excerpt");
    let o = run_ok(&["dedup", &crawl, "--explain", &a, &b]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("matched: titles name the same item"),
        "{text}"
    );
    assert!(text.contains(&format!("A: {a}")) && text.contains(&format!("B: {b}")));
    assert!(text.contains("compared texts (= both"), "{text}");
    let explained = |a: &str, b: &str| -> serde_json::Value {
        json(&run_ok(&[
            "dedup",
            &crawl,
            "--explain",
            a,
            b,
            "--json",
            "-",
        ]))
    };
    let e = explained(&a, &b);
    assert_eq!(e["text"].as_str().unwrap(), text);
    assert_eq!(e["accepted"], true);
    assert_eq!(e["same_cluster"], true);
    assert_eq!(e["evidence"]["titles"], "same");
    assert!(e["evidence"]["shared_shingles"].as_u64().unwrap() > 0);
    assert_eq!(e["tables"], 42);

    let (a, b) = pair("short-items");
    let e = explained(&a, &b);
    assert_eq!(e["accepted"], false, "{e}");
    assert_eq!(e["evidence"]["titles"], "different");
    let failed: Vec<&str> = e["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["role"] == "requires" && c["holds"] == false)
        .map(|c| c["rule"].as_str().unwrap())
        .collect();
    assert!(
        failed.iter().any(|r| r.contains("different items")),
        "{failed:?}"
    );
    assert!(e["verdict"].as_str().unwrap().starts_with("not matched"));

    let o = neardup(
        &["dedup", &crawl, "--explain", &a, "https://nowhere.example/"],
        &root(),
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no page with URL https://nowhere.example/"),
        "{err}"
    );
    // --json is --explain's.
    assert!(!neardup(&["dedup", &crawl, "--json", "-"], &root())
        .status
        .success());
}

#[test]
fn mirrors_with_defaults_find_every_planted_pair_and_no_template_sharing_sites() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    run_ok(&[
        "mirrors",
        &fixture("labelled/crawl.warc.gz"),
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let found: std::collections::BTreeMap<(String, String), String> =
        jsonl(&out.join("mirrors.jsonl"))
            .iter()
            .filter(|r| r["host_a"] != r["host_b"])
            .map(|r| {
                let (a, b) = (r["host_a"].as_str().unwrap(), r["host_b"].as_str().unwrap());
                (
                    (a.min(b).to_string(), a.max(b).to_string()),
                    r["kind"].as_str().unwrap().to_string(),
                )
            })
            .collect();
    let labels = std::fs::read_to_string(fixture("labelled/sites.csv")).unwrap();
    let mut positives = 0;
    for line in labels.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (f[0].min(f[1]).to_string(), f[0].max(f[1]).to_string());
        let kind = found.get(&key).map(String::as_str);
        match (f[2], f[3]) {
            ("1", "mirror" | "partial-mirror" | "stale-mirror") => assert!(
                matches!(kind, Some("mirror" | "partial-mirror")),
                "{line}: {kind:?}"
            ),
            ("1", "alias") => assert_eq!(kind, Some("alias"), "{line}"),
            ("1", "parked") => assert_eq!(kind, Some("parked"), "{line}"),
            ("0", _) => assert_eq!(kind, None, "{line}: a false pair"),
            _ => panic!("unexpected label {line}"),
        }
        positives += usize::from(f[2] == "1");
    }
    assert_eq!(
        found.len(),
        positives,
        "no pair beyond the labelled ones: {found:?}"
    );
}

/// rp-hm's default tolerances were fitted on the development set (bench/make_labels.py); with
/// fixed scaling they mean the same on the labelled crawl (the paper's collection scaling and
/// its tolerances gave F1 0.65 there).
#[test]
fn rp_hm_defaults_carry_over_to_a_crawl_they_were_not_fitted_on() {
    let (r, _) = dedup_scored(&["--algo", "rp-hm"]);
    let o = &r["overall"];
    let f1 = o["f1"].as_f64().unwrap();
    let precision = o["precision"].as_f64().unwrap();
    assert!(f1 >= 0.85 && precision >= 0.98, "{o}");
}

/// RP+HM compares links in canonical form: a copy whose every link carries its session id, or
/// names the `www.` alias of its host, links to the pages its original links to, so the
/// hyperlink map finds it as RP alone does (before canonical links: session-id copies 0 of 40),
/// and RP+HM is never below RP on the crawl it was fitted on.
#[test]
fn rp_hm_follows_links_that_carry_session_ids() {
    let recall = |r: &serde_json::Value, k: &str| r["by_kind"][k]["recall"].as_f64().unwrap();
    let (hm, _) = scored("clothes", &["--algo", "rp-hm"]);
    let (rp, _) = scored("clothes", &["--algo", "rp-hm", "--hm-tol", "1"]);
    for k in ["session-id", "alias", "tracking", "small-edit"] {
        assert!(
            recall(&hm, k) >= recall(&rp, k) && recall(&hm, k) >= 0.95,
            "{k}: RP+HM {} RP {}",
            recall(&hm, k),
            recall(&rp, k)
        );
    }
    let f1 = |r: &serde_json::Value| r["overall"]["f1"].as_f64().unwrap();
    let (hm, _) = dedup_scored(&["--algo", "rp-hm"]);
    let (rp, _) = dedup_scored(&["--algo", "rp-hm", "--hm-tol", "1"]);
    assert!(f1(&hm) >= f1(&rp), "RP+HM {} RP {}", f1(&hm), f1(&rp));
}

/// `neardup dedup` on the labelled crawl with `flags`, scored by `neardup eval`: the eval
/// report and dedup's summary.
fn dedup_scored(flags: &[&str]) -> (serde_json::Value, serde_json::Value) {
    scored("labelled", flags)
}

/// `dedup` with `flags` on `tests/fixtures/NAME/crawl.warc.gz`, scored by `eval` against its
/// labels.csv, both run from outside the checkout: the eval report and the run's summary.
fn scored(name: &str, flags: &[&str]) -> (serde_json::Value, serde_json::Value) {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    let e = tmp.path().join("e");
    let crawl = fixture(&format!("{name}/crawl.warc.gz"));
    let mut args = vec!["dedup", crawl.as_str(), "-q", "--out", d.to_str().unwrap()];
    args.extend_from_slice(flags);
    let ok = |args: &[&str]| {
        let o = neardup(args, tmp.path());
        assert!(
            o.status.success(),
            "neardup {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        );
    };
    ok(&args);
    ok(&[
        "eval",
        "-q",
        "--truth",
        &fixture(&format!("{name}/labels.csv")),
        "--pred",
        d.join("clusters.jsonl").to_str().unwrap(),
        "-o",
        e.to_str().unwrap(),
    ]);
    (
        read_json(&e.join("eval.json"))["report"].clone(),
        read_json(&d.join("summary.json")),
    )
}
