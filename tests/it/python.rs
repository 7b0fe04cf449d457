//! The Python package (`crates/python`, `python/neardup`) built from this tree and installed
//! into a venv by `tests/python/prepare.sh` (maturin, pytest and datasketch from PyPI; CI runs
//! it first): its pytest suite, `tests/python/`.

use crate::util::{root, stdout_of_success};

#[test]
#[cfg_attr(
    neardup_no_python,
    ignore = "needs `bash tests/python/prepare.sh` first"
)]
fn the_python_package_passes_its_pytest_suite() {
    let dir = std::env::var_os("NEARDUP_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root().join("target/python"));
    let python = dir.join("venv/bin/python");
    if !python.is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the Python package is not built in CI: run tests/python/prepare.sh first"
        );
        eprintln!("Python package not built: run `bash tests/python/prepare.sh` (skipped)");
        return;
    }
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
