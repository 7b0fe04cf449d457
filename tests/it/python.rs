//! The Python package (`crates/python`, `python/neardup`) built from this tree and installed
//! into a venv by `tests/python/prepare.sh` (maturin, pytest and datasketch from PyPI; CI runs
//! it first): its pytest suite, `tests/python/`; and the README examples run as written (every
//! `sh` and `python` block of README.md and python/README.md, in a folder holding the files
//! they name: `tests/docs/run_examples.py`).

use crate::util::{root, stdout_of_success};
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
}

#[test]
#[cfg_attr(
    neardup_no_python,
    ignore = "needs `bash tests/python/prepare.sh` first"
)]
fn the_python_package_passes_its_pytest_suite() {
    let Some(python) = prepared_python() else {
        return;
    };
    let text = stdout_of_success(
        std::process::Command::new(python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .env("NEARDUP_BIN", env!("CARGO_BIN_EXE_neardup"))
            .arg(root().join("tests/python")),
    );
    assert!(
        text.contains("passed") && !text.contains("skipped"),
        "{text}"
    );
}
