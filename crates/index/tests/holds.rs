//! An add looks for the records the index already holds with every page's identity keys asked
//! of each key segment in one pass before it stores a page (`Holds::asked_before`), or, past
//! its memory for the keys found, page by page: both find the same records held.

mod common;

use neardup_dedup::DedupRequest;
use neardup_index::{AddOptions, AddReport, Index, QueryOptions, Storage};
use neardup_pipeline::{Input, NoProgress, PipelineConfig};
use std::path::Path;

fn add(dir: &Path, inputs: &[Input], label: &str, mem_limit: usize) -> AddReport {
    let mut opts = AddOptions::new(PipelineConfig::default(), label);
    opts.again = true;
    opts.mem_limit = mem_limit;
    Index::open(dir)
        .unwrap()
        .add(inputs, &opts, &NoProgress)
        .unwrap()
}

/// Every row of a query of `inputs`, as JSON.
fn rows(dir: &Path, inputs: &[Input]) -> Vec<String> {
    let mut out = Vec::new();
    let opts = QueryOptions::new(PipelineConfig::default());
    (Index::open(dir).unwrap())
        .query(inputs, &opts, &NoProgress, |_, row| {
            out.push(serde_json::to_string(&row).unwrap());
            Ok(())
        })
        .unwrap();
    out
}

#[test]
fn records_held_are_found_however_the_keys_are_asked() {
    let c = common::sample_inputs();
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    // 64 KiB keeps a few keys found (every page is then looked up alone) and spills the
    // staged pages; 256 MiB keeps them all.
    for mem_limit in [64 << 10, 256 << 20] {
        let dir = tmp.path().join(format!("idx-{mem_limit}"));
        Index::create(&dir, &DedupRequest::default(), Storage::DEFAULT).unwrap();
        let first = add(&dir, &c[..1], "first", mem_limit);
        assert!(first.pages > 0 && first.held == 0);
        // The first file again: every record held, none added.
        let again = add(&dir, &c[..1], "again", mem_limit);
        assert_eq!((again.pages, again.held), (0, first.pages));
        // Every file: the first's records held, the others' added once.
        let all = add(&dir, &c, "all", mem_limit);
        assert!(all.pages > 0);
        assert!(all.held >= first.pages, "{all:?}");
        let pages = Index::open(&dir).unwrap().stats().unwrap().pages;
        assert_eq!(pages, first.pages + all.pages);
        seen.push((
            (first.pages, again.held, all.pages, all.held),
            rows(&dir, &c),
        ));
    }
    assert!(!seen[0].1.is_empty());
    assert_eq!(seen[0], seen[1]);
}
