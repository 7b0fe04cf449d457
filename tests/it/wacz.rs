//! WACZ packages through the CLI (issue 59): a package is read as its WARC files in every
//! command, whatever the zip's layout (py-wacz's stored members, deflated, ZIP64 headers,
//! streamed with data descriptors), a damaged package costs its damaged part only, and
//! `neardup audit` follows the packages a package needs. Fixtures:
//! `tests/fixtures/make_wacz.py` (py-wacz and warcio, with warcio's reading as the oracle).

use crate::util::{json, jsonl, neardup, root};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    root().join("tests/fixtures/wacz")
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn scan(inputs: &[PathBuf]) -> serde_json::Value {
    let mut args = vec!["scan".to_string()];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(["--json", "-", "-q"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    json(&neardup(&args, &root()))
}

#[test]
fn a_package_is_read_as_its_warc_files_whatever_its_zip_layout() {
    let expected = crate::util::read_json(&dir().join("expected.json"));
    let warcs = scan(&[dir().join("a1.warc.gz"), dir().join("a2.warc.gz")]);
    for (package, members) in expected.as_object().unwrap() {
        let got = scan(&[dir().join(package)]);
        let want: u64 = members
            .as_object()
            .unwrap()
            .values()
            .map(|m| m["http_responses"].as_u64().unwrap())
            .sum();
        assert_eq!(got["pages"].as_u64(), Some(want), "{package}: {got}");
        assert_eq!(got["skipped"], 0, "{package}");
        // One input per member WARC, named as a path through the package.
        let inputs = got["by_source"].as_array().unwrap();
        assert_eq!(
            inputs.len(),
            members.as_object().unwrap().len(),
            "{package}"
        );
        for (input, (name, m)) in inputs.iter().zip(members.as_object().unwrap()) {
            let path = input["path"].as_str().unwrap();
            assert!(path.ends_with(&format!("{package}/{name}")), "{path}");
            assert_eq!(input["records"], m["records"], "{path}");
        }
        if package.starts_with("a") {
            assert_eq!(got["pages"], warcs["pages"], "{package}");
            assert_eq!(got["tokens"], warcs["tokens"], "{package}");
        }
    }
}

/// Rows of an output file with the file names (which differ) left out.
fn rows(path: &Path) -> Vec<String> {
    jsonl(path)
        .into_iter()
        .map(|mut r| {
            r.as_object_mut()
                .unwrap()
                .retain(|k, _| !k.contains("file"));
            r.to_string()
        })
        .collect()
}

#[test]
fn dedup_of_a_package_is_dedup_of_its_warcs_evidence_included() {
    let tmp = tempfile::tempdir().unwrap();
    let (p, w) = (tmp.path().join("p"), tmp.path().join("w"));
    for (out, inputs) in [
        (&p, vec![dir().join("a-deflated.wacz")]),
        (&w, vec![dir().join("a1.warc.gz"), dir().join("a2.warc.gz")]),
    ] {
        let mut args = vec!["dedup".to_string()];
        args.extend(inputs.iter().map(|i| s(i)));
        args.extend(["-o".into(), s(out), "-q".into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = neardup(&args, &root());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for f in ["clusters.jsonl", "remove.jsonl", "samples.jsonl"] {
        let (a, b) = (rows(&p.join(f)), rows(&w.join(f)));
        assert!(!a.is_empty(), "{f}");
        assert_eq!(a, b, "{f}");
    }
    // The samples' texts were read back from inside the (deflated) package.
    let first = &jsonl(&p.join("samples.jsonl"))[0];
    assert!(first["canonical_terms"].as_u64().unwrap() > 100, "{first}");
}

#[test]
fn an_index_adds_a_package_once() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = s(&tmp.path().join("idx"));
    let a = s(&dir().join("a.wacz"));
    let o = neardup(&["index", "create", &idx], &root());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = neardup(&["index", "add", &idx, &a, "-q"], &root());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stats = json(&neardup(&["index", "stats", &idx, "--json"], &root()));
    assert_eq!(stats["pages"], 16, "{stats}");
    // The package's files are recorded as added (by their bytes): adding the package again,
    // or one of its WARC files taken out of it, adds nothing.
    for again in [a, s(&dir().join("a1.warc.gz"))] {
        let o = neardup(&["index", "add", &idx, &again], &root());
        assert!(o.status.success());
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("already added, nothing to do"), "{out}");
    }
    let stats = json(&neardup(&["index", "stats", &idx, "--json"], &root()));
    assert_eq!(stats["pages"], 16, "{stats}");
}

fn audit(dir: &Path, input: &str) -> serde_json::Value {
    json(&neardup(&["audit", input, "--json", "-", "-q"], dir))
}

fn package<'a>(r: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    r["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["package"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("no {name} in {}", r["packages"]))
}

#[test]
fn audit_follows_the_packages_a_package_needs_and_names_the_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let here = tmp.path();
    for f in ["a.wacz", "b.wacz", "b-plain.wacz"] {
        std::fs::copy(dir().join(f), here.join(f)).unwrap();
    }
    // relation.requires names a.wacz (beside it: read) and c.wacz (missing).
    let r = audit(here, "b.wacz");
    assert_eq!(r["revisits"]["revisits"], 9, "{r}");
    assert_eq!(r["revisits"]["by_resolution"]["refers-to-record"], 8, "{r}");
    assert_eq!(r["missing_packages"], 1);
    let a = package(&r, "a.wacz");
    assert_eq!(
        (a["found"].as_bool(), a["read_as"].as_str()),
        (Some(true), Some("required"))
    );
    assert_eq!(a["referred_by_revisits"], 8);
    let c = package(&r, "c.wacz");
    assert_eq!(c["found"], false);
    assert_eq!(c["required_by"][0], "b.wacz");
    assert_eq!(c["crawl_id"], "crawl-c");
    let gone = &r["unresolvable"][0];
    assert!(
        gone["reason"]
            .as_str()
            .unwrap()
            .contains("c.wacz (WARC-Refers-To-Container)"),
        "{gone}"
    );
    // Without relation.requires (py-wacz's own package), the revisits' containers lead to
    // a.wacz all the same.
    let r = audit(here, "b-plain.wacz");
    assert_eq!(r["revisits"]["by_resolution"]["refers-to-record"], 8, "{r}");
    assert_eq!(package(&r, "a.wacz")["read_as"], "referred");
    assert_eq!(r["missing_packages"], 1);
    // Alone, both are missing, and the human report says so.
    std::fs::remove_file(here.join("a.wacz")).unwrap();
    let r = audit(here, "b.wacz");
    assert_eq!(r["missing_packages"], 2);
    assert_eq!(r["revisits"]["by_resolution"]["unresolvable"], 9);
    let o = neardup(&["audit", "b.wacz"], here);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("MISSING: a.wacz (required by b.wacz"),
        "{text}"
    );
    assert!(text.contains("MISSING: c.wacz"), "{text}");
}

#[test]
fn a_damaged_package_costs_its_damaged_part_only() {
    // Cut after its first WARC: that one is read, the cut named.
    let o = neardup(
        &["scan", &s(&dir().join("a-cut.wacz")), "--json", "-"],
        &root(),
    );
    assert!(o.status.success());
    let got = json(&o);
    assert_eq!(got["pages"], 8, "{got}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("a-cut.wacz") && err.contains("no readable central directory"),
        "{err}"
    );
    assert!(
        err.contains("archive/a2.warc.gz") && err.contains("cut short"),
        "{err}"
    );
    // Streamed, cut inside its directory: every member found by its data descriptor.
    let got = scan(&[dir().join("a-streamed-cut.wacz")]);
    assert_eq!(got["pages"], 16, "{got}");
    // Not a zip at all: the error names the package.
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.wacz");
    std::fs::write(&bad, b"not a zip file at all").unwrap();
    let o = neardup(&["scan", &s(&bad)], &root());
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.wacz") && err.contains("not a zip"),
        "{err}"
    );
}

#[test]
fn a_folder_of_packages_is_walked_into_their_warcs() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("crawls")).unwrap();
    std::fs::copy(dir().join("a.wacz"), tmp.path().join("crawls/a.wacz")).unwrap();
    std::fs::copy(dir().join("b.wacz"), tmp.path().join("crawls/b.wacz")).unwrap();
    let got = scan(&[tmp.path().join("crawls")]);
    assert_eq!(got["pages"], 20, "{got}");
    assert_eq!(got["by_source"].as_array().unwrap().len(), 3);
}
