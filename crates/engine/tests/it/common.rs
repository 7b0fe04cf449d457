//! What the engine's test files share.

use neardup_engine::Input;
use std::path::PathBuf;

/// The committed sample crawl's three WARC files, in name order.
pub fn sample_inputs() -> Vec<Input> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample");
    let mut inputs: Vec<Input> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .map(Input::file)
        .collect();
    inputs.sort_by_key(|i| i.name());
    inputs
}
