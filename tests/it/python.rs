//! The Python package (`crates/python`, `python/neardup`) built from this tree and installed
//! into a venv by `tests/python/prepare.sh` (maturin, pytest and datasketch from PyPI; CI runs
//! it first): its pytest suite, `tests/python/`, one test a file; and the README examples run as written (every
//! `sh` and `python` block of README.md and python/README.md, in a folder holding the files
//! they name: `tests/docs/run_examples.py`).

use crate::util::{record_count, root, stdout_of_success};
use std::path::PathBuf;

/// The prepared venv's python; `None` (skipped, except in CI) when not built.
fn prepared_python() -> Option<PathBuf> {
    let dir = std::env::var_os("NEARDUP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/python"));
    let python = dir.join("venv/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the Python package is not built in CI: run tests/python/prepare.sh first"
    );
    eprintln!("Python package not built: run `bash tests/python/prepare.sh` (skipped)");
    None
}

#[test]
#[cfg_attr(
    neardup_no_python,
    ignore = "needs `bash tests/python/prepare.sh` first"
)]
fn every_readme_example_runs_as_written() {
    let Some(python) = prepared_python() else {
        return;
    };
    let text = stdout_of_success(
        std::process::Command::new(&python)
            .arg(root().join("tests/docs/run_examples.py"))
            .args(["--neardup", env!("CARGO_BIN_EXE_neardup"), "--python"])
            .arg(&python)
            .current_dir(root()),
    );
    assert!(text.contains(" 0 failed"), "{text}");
    if let Some(line) = text.lines().rev().find(|l| l.contains(" ok, ")) {
        record_count("examples", line);
    }
}

/// Runs one file of the pytest suite (`tests/python/FILE.py`) with the prepared venv; its closing
/// line ("N passed, M xfailed in S s") goes to the counts `tests/run.sh` prints.
fn pytest_file(file: &str) {
    let Some(python) = prepared_python() else {
        return;
    };
    // A temporary folder of its own: files run at once must not share (or clean) pytest's.
    let tmp = tempfile::tempdir().unwrap();
    let text = stdout_of_success(
        std::process::Command::new(python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(format!(
                "--basetemp={}",
                tmp.path().join("pytest").display()
            ))
            .env("NEARDUP_BIN", env!("CARGO_BIN_EXE_neardup"))
            .arg(root().join(format!("tests/python/{file}.py"))),
    );
    assert!(
        text.contains("passed") && !text.contains("skipped"),
        "{text}"
    );
    if let Some(line) = text.lines().rev().find(|l| l.contains(" passed")) {
        record_count(
            "pytest",
            &format!("{} ({file})", line.trim().trim_matches('=').trim()),
        );
    }
}

/// The pytest suite, one test a file: nextest runs them side by side, each with its own time.
/// `every_pytest_file_has_its_test` keeps the list whole.
macro_rules! pytest_files {
    ($($file:ident),* $(,)?) => {
        $(
            #[test]
            #[cfg_attr(
                neardup_no_python,
                ignore = "needs `bash tests/python/prepare.sh` first"
            )]
            fn $file() {
                pytest_file(stringify!($file));
            }
        )*

        #[test]
        fn every_pytest_file_has_its_test() {
            let listed: std::collections::BTreeSet<String> =
                [$(stringify!($file)),*].map(String::from).into();
            let found: std::collections::BTreeSet<String> =
                std::fs::read_dir(root().join("tests/python"))
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("test_") && n.ends_with(".py"))
                    .map(|n| n.trim_end_matches(".py").to_string())
                    .collect();
            assert_eq!(found, listed, "tests/python's files and the pytest_files! list differ");
        }
    };
}

pytest_files!(
    test_audit,
    test_changes,
    test_datasketch_compat,
    test_datasketch_lsh,
    test_dedup,
    test_demo,
    test_digests,
    test_doors,
    test_evidence,
    test_first_hour,
    test_index,
    test_interrupt,
    test_kept,
    test_objects,
    test_paragraphs,
    test_ray,
    test_read,
    test_scrapy,
    test_spark,
    test_spark_attempts,
    test_stubs,
    test_wacz,
);
