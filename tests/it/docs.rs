//! The README examples run as written: every `sh` and `python` block of README.md and
//! python/README.md, in a folder holding the files they name (`tests/docs/run_examples.py`),
//! with this build's `neardup` and the Python package of `tests/python/prepare.sh`.

use crate::util::root;

#[test]
#[cfg_attr(
    neardup_no_python,
    ignore = "needs `bash tests/python/prepare.sh` first"
)]
fn every_readme_example_runs_as_written() {
    let python = root().join("target/python/venv/bin/python");
    if !python.is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the Python package is not built in CI: run tests/python/prepare.sh first"
        );
        eprintln!("Python package not built: run `bash tests/python/prepare.sh` (skipped)");
        return;
    }
    let out = std::process::Command::new(&python)
        .arg(root().join("tests/docs/run_examples.py"))
        .args(["--neardup", env!("CARGO_BIN_EXE_neardup"), "--python"])
        .arg(&python)
        .current_dir(root())
        .output()
        .expect("run_examples.py runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(" 0 failed"), "{text}");
}
