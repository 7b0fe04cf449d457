//! Helpers shared by the CLI tests: running the binary, reading what it wrote.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn neardup(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run neardup")
}

pub fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

pub fn fixture(name: &str) -> String {
    root()
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `neardup ARGS` from the repository root and asserts it succeeded (showing its stderr).
pub fn run_ok(args: &[&str]) -> Output {
    let o = neardup(args, &root());
    assert!(
        o.status.success(),
        "neardup {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Runs `cmd` and asserts it succeeded (showing its output): its standard output.
pub fn stdout_of_success(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// A JSON file.
pub fn read_json(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether this machine lets a test run in a new user and mount namespace (`unshare -rm`, to
/// mount a small tmpfs or a read-only bind); where it does not, `what` is skipped with a note,
/// and fails under CI, which must run it.
pub(crate) fn unshare_allowed(what: &str) -> bool {
    let probe = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .output();
    if probe.is_ok_and(|o| o.status.success()) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must run {what} (unshare -rm)"
    );
    eprintln!("skipped: unshare -rm is not allowed here ({what})");
    false
}

/// Appends a suite's closing line (pytest's, schemathesis', the browser checks') to
/// `target/test-counts/NAME.txt`, which `tests/run.sh` prints at its end so that CI shows what
/// ran beside the Rust tests. One write with O_APPEND: tests in other processes may add theirs.
pub fn record_count(name: &str, line: &str) {
    use std::io::Write;
    let dir = root().join("target/test-counts");
    let _ = std::fs::create_dir_all(&dir);
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("{name}.txt")))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    f.write_all(format!("{}\n", line.trim()).as_bytes())
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
}

/// `bytes` (a file ending in the XXH3-64 of every byte before it, as signature files and the
/// index manifest do) with `new` written over the bytes at `at`, its checksum made again.
pub fn overwritten_and_checksummed(bytes: &[u8], at: usize, new: &[u8]) -> Vec<u8> {
    let mut out = bytes[..bytes.len() - 8].to_vec();
    out[at..at + new.len()].copy_from_slice(new);
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}
