//! `neardup serve` against real clients from PyPI (`tests/clients/prepare.sh` installs them
//! into a venv; CI runs it first): warcprox writing revisit records through the service's
//! /cdx, and schemathesis throwing generated requests, good and bad, at every endpoint of
//! `crates/serve/openapi.yaml`.

use crate::util::{record_count, root, run_ok, stdout_of_success};
use std::path::PathBuf;

/// The clients' venv `bin` folder; `None` (skipped, except in CI) when not prepared.
fn clients() -> Option<PathBuf> {
    let dir = std::env::var_os("NEARDUP_CLIENTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/clients"));
    let bin = dir.join("venv/bin");
    if bin.join("schemathesis").is_file() && bin.join("warcprox").is_file() {
        return Some(bin);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the HTTP clients are missing in CI: run tests/clients/prepare.sh first"
    );
    eprintln!("HTTP clients not installed: run `bash tests/clients/prepare.sh` (skipped)");
    None
}

#[test]
#[cfg_attr(
    neardup_no_clients,
    ignore = "needs `bash tests/clients/prepare.sh` first"
)]
fn warcprox_writes_revisits_for_what_the_service_holds() {
    let Some(bin) = clients() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let text = stdout_of_success(
        std::process::Command::new(bin.join("python"))
            .arg(root().join("tests/clients/warcprox_dedup.py"))
            .args(["--neardup", env!("CARGO_BIN_EXE_neardup"), "--sample"])
            .arg(root().join("data/sample/rustdocs-stable.warc.gz"))
            .arg("--work")
            .arg(tmp.path()),
    );
    assert!(text.contains("11 revisits, 1 response"), "{text}");
}

#[test]
#[cfg_attr(
    neardup_no_clients,
    ignore = "needs `bash tests/clients/prepare.sh` first"
)]
fn schemathesis_finds_the_service_true_to_its_openapi_file() {
    let Some(bin) = clients() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("idx");
    let d = d.to_str().unwrap();
    let crawl = root().join("data/sample/rustdocs-stable.warc.gz");
    run_ok(&["index", "create", d, "-q"]);
    run_ok(&["index", "add", d, crawl.to_str().unwrap(), "-q"]);
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(["serve", "--index", d, "--listen", "127.0.0.1:0", "-q"])
        .args(["--max-body", "1M"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut addr = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut addr,
    )
    .unwrap();
    // Every check but positive_data_acceptance: WARC, raw HTTP and NDJSON bodies have
    // grammars a schema cannot state, so a schema-valid string there is mostly a bad body
    // (400, as documented). One worker: hypothesis' lambda cache is not thread-safe in the
    // coverage phase.
    let out = std::process::Command::new(bin.join("schemathesis"))
        .arg("run")
        .arg(root().join("crates/serve/openapi.yaml"))
        .args(["--url", &format!("http://{}", addr.trim())])
        .args([
            "--checks",
            "all",
            "--exclude-checks",
            "positive_data_acceptance",
        ])
        .args([
            "--phases",
            "examples,coverage,fuzzing",
            "--max-examples",
            "60",
        ])
        .args(["--workers", "1", "--seed", "20261123", "--no-color"])
        .env("SCHEMATHESIS_HOOKS", "st_hooks")
        .env("PYTHONPATH", root().join("tests/clients"))
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let _ = server.kill();
    let stderr = server.wait_with_output().unwrap().stderr;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("passed"), "{text}");
    // Its summary: the operations tested and the test cases generated, with how they fared.
    let summary: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            l.starts_with("API Operations")
                || l.starts_with("Tested:")
                || l.starts_with("Test cases:")
                || l.contains(" passed")
        })
        .collect();
    record_count("schemathesis", &summary.join("; "));
    let log = String::from_utf8_lossy(&stderr);
    assert!(!log.contains("panicked"), "{log}");
}
