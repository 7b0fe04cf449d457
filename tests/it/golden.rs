//! Golden outputs of every command: each case runs the binary on committed data and compares
//! every file it writes (and what it prints) with `tests/golden/<case>/`. Timings, thread counts
//! and the machine's paths are normalized first, so what is left must be byte-identical.
//! `NEARDUP_BLESS=1 cargo test golden` rewrites the golden copies.

use crate::util::{neardup, root};
use std::collections::BTreeMap;
use std::path::Path;

/// One command run: its name (the golden folder) and its arguments. `$OUT` stands for the case's
/// output folder, `$TMP` for the test's scratch folder (earlier cases' outputs live there).
struct Case {
    name: &'static str,
    args: &'static [&'static str],
}

const LABELS: &str = "url_a,url_b,label,kind\n\
https://doc.rust-lang.org/stable/std/fmt/trait.Pointer.html,https://doc.rust-lang.org/nightly/std/fmt/trait.Pointer.html,1,version\n\
https://doc.rust-lang.org/1.63.0/book/2018-edition/appendix-00.html,https://doc.rust-lang.org/1.63.0/book/2018-edition/ch12-04-testing-the-librarys-functionality.html,1,redirect\n\
https://doc.rust-lang.org/stable/std/index.html,https://other.example.org/std/index.html,1,\"url, only\"\n\
https://doc.rust-lang.org/stable/std/fmt/trait.Pointer.html,https://doc.rust-lang.org/stable/std/str/struct.Chars.html,0,template\n";

const CASES: &[Case] = &[
    Case {
        name: "scan",
        args: &["scan", "-j", "2", "--json", "$OUT/scan.json"],
    },
    Case {
        name: "dedup",
        args: &["dedup", "-j", "2", "--out", "$OUT", "--pairs", "--stats"],
    },
    Case {
        name: "dedup-split-csv",
        args: &[
            "dedup",
            "-j",
            "2",
            "--out",
            "$OUT",
            "--algo",
            "split",
            "--pairs",
            "--format",
            "csv",
            "--site",
            "registered-domain",
        ],
    },
    Case {
        name: "dedup-rp-hm",
        args: &[
            "dedup", "-j", "2", "--out", "$OUT", "--algo", "rp-hm", "--pairs",
        ],
    },
    Case {
        name: "dedup-bands-verify-star",
        args: &[
            "dedup",
            "-j",
            "2",
            "--out",
            "$OUT",
            "--lsh",
            "bands",
            "--verify",
            "--cluster",
            "star",
            "--boilerplate",
            "host-frequency",
            "--keep",
            "shortest-url",
            "--pairs",
        ],
    },
    Case {
        name: "eval",
        args: &[
            "eval",
            "--truth",
            "$TMP/labels.csv",
            "--pred",
            "$TMP/dedup/pairs.jsonl",
            "--out",
            "$OUT",
            "--crawl",
            "data/sample",
            "--curves",
        ],
    },
    Case {
        name: "overlap",
        args: &["overlap", "-j", "2", "--out", "$OUT"],
    },
    Case {
        name: "overlap-coarse",
        args: &["overlap", "-j", "2", "--out", "$OUT", "--method", "coarse"],
    },
    Case {
        name: "mirrors",
        args: &[
            "mirrors",
            "-j",
            "2",
            "tests/fixtures/mirrors.warc.gz",
            "--out",
            "$OUT",
        ],
    },
    Case {
        name: "evolve",
        args: &["evolve", "-j", "2", "--out", "$OUT"],
    },
    Case {
        name: "replicas",
        args: &[
            "replicas",
            "-j",
            "2",
            "tests/fixtures/replicas.warc.gz",
            "--out",
            "$OUT",
            "--em-from-scratch",
        ],
    },
    Case {
        name: "site-eval",
        args: &[
            "eval",
            "--truth",
            "tests/fixtures/replica-labels.csv",
            "--pred",
            "$TMP/replicas",
            "--out",
            "$OUT",
        ],
    },
];

/// Replaces what differs between machines and runs: paths, timings, thread counts.
fn normalize_text(s: &str, tmp: &str) -> String {
    let root = root().display().to_string();
    let s = s.replace(tmp, "$TMP").replace(&root, "$ROOT");
    let secs = regex::Regex::new(r"\b\d+(\.\d+)? (s|ms|µs)\b|\[[\d., ]*\] s\b").unwrap();
    let timing_line = regex::Regex::new(r"(?m)^(time|throughput): .*$").unwrap();
    let numbers = regex::Regex::new(r"\d+(\.\d+)?").unwrap();
    let s = timing_line.replace_all(&s, |c: &regex::Captures| {
        numbers.replace_all(&c[0], "#").into_owned()
    });
    secs.replace_all(&s, "# s").into_owned()
}

/// Zeroes every number under a key that names a duration, a rate or a thread count.
fn normalize_json(v: &mut serde_json::Value, timing: bool) {
    match v {
        serde_json::Value::Number(_) if timing => *v = serde_json::Value::from(0),
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| normalize_json(x, timing)),
        serde_json::Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                let t = timing
                    || k.contains("seconds")
                    || k.starts_with("us_")
                    || k.ends_with("_per_second")
                    || k == "threads";
                normalize_json(x, t);
            }
        }
        _ => {}
    }
}

fn normalize(name: &str, bytes: &[u8], tmp: &str) -> String {
    let text = normalize_text(&String::from_utf8_lossy(bytes), tmp);
    if name.ends_with(".json") {
        let mut v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
        normalize_json(&mut v, false);
        let mut s = serde_json::to_string_pretty(&v).unwrap();
        s.push('\n');
        s
    } else {
        text
    }
}

/// Every file under `dir` (relative names), Parquet files left out (binary; compared by the
/// format tests through the reader).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_file() && !name.ends_with(".parquet") {
            out.insert(name, std::fs::read(&p).unwrap());
        }
    }
    out
}

#[test]
fn every_command_matches_its_golden_outputs() {
    let bless = std::env::var_os("NEARDUP_BLESS").is_some();
    let tmp = tempfile::tempdir().unwrap();
    let tmp_s = tmp.path().display().to_string();
    std::fs::write(tmp.path().join("labels.csv"), LABELS).unwrap();
    let mut failures = Vec::new();
    for case in CASES {
        let out = tmp.path().join(case.name);
        std::fs::create_dir_all(&out).unwrap();
        let out_s = out.display().to_string();
        let args: Vec<String> = case
            .args
            .iter()
            .map(|a| a.replace("$OUT", &out_s).replace("$TMP", &tmp_s))
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = neardup(&args, &root());
        assert!(
            o.status.success(),
            "{}: {}",
            case.name,
            String::from_utf8_lossy(&o.stderr)
        );
        let mut got = files(&out);
        got.insert("stdout.txt".into(), o.stdout.clone());
        got.insert("stderr.txt".into(), o.stderr.clone());
        let got: BTreeMap<String, String> = got
            .into_iter()
            .map(|(n, b)| {
                let t = normalize(&n, &b, &tmp_s);
                (n, t)
            })
            .collect();
        let dir = root().join("tests/golden").join(case.name);
        if bless {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            for (n, t) in &got {
                std::fs::write(dir.join(n), t).unwrap();
            }
            continue;
        }
        let want: BTreeMap<String, String> = files(&dir)
            .into_iter()
            .map(|(n, b)| (n, String::from_utf8(b).unwrap()))
            .collect();
        let (gn, wn): (Vec<&String>, Vec<&String>) = (got.keys().collect(), want.keys().collect());
        if gn != wn {
            failures.push(format!("{}: files {gn:?}, golden {wn:?}", case.name));
            continue;
        }
        for (n, t) in &got {
            if want[n] != *t {
                let line = t
                    .lines()
                    .zip(want[n].lines())
                    .position(|(a, b)| a != b)
                    .map_or(t.lines().count().min(want[n].lines().count()), |l| l);
                failures.push(format!(
                    "{}/{n} differs from its golden copy from line {}: got {:?}, want {:?}",
                    case.name,
                    line + 1,
                    t.lines().nth(line).unwrap_or(""),
                    want[n].lines().nth(line).unwrap_or("")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "golden outputs differ (NEARDUP_BLESS=1 to accept intended changes):\n{}",
        failures.join("\n")
    );
}
