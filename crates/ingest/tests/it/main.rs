//! The readers' integration tests, one binary (a module a file): every format on real files, and
//! property tests against damaged and re-framed input.

mod lenient;
mod members;
mod parquet;
mod props;
mod readers;

/// The bytes of a file of `tests/fixtures`.
pub(crate) fn fixture_bytes(name: &str) -> Vec<u8> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
