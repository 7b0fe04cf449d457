//! What the index's test files share.

use neardup_pipeline::Input;
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

/// Every page of `input` as its reader gives them.
#[allow(dead_code)] // Not every test file reads pages.
pub fn sample_pages(input: &Input) -> Vec<neardup_ingest::Page> {
    let mut src = neardup_ingest::open_source(
        input.as_path().unwrap(),
        None,
        0,
        &neardup_ingest::ReadOptions::default(),
    )
    .unwrap();
    let (mut pages, mut page) = (Vec::new(), neardup_ingest::Page::default());
    while src.next_page(&mut page).unwrap() {
        pages.push(page.clone());
    }
    pages
}
