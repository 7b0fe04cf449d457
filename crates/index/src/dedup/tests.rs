//! Candidates found by reading the index's key segments whole and by asking them the new keys
//! in order ([`crate::KeySegmentReader::seeker`]) are the same: so are the rows.

use super::*;
use crate::{Index, Storage};
use neardup_dedup::DedupRequest;
use neardup_pipeline::{NoProgress, PipelineConfig};
use std::cell::Cell;

#[path = "../../tests/common/mod.rs"]
mod common;

thread_local! {
    /// Which way `candidates` reads the index's keys in this thread (`None`: as it decides).
    pub(super) static SCAN: Cell<Option<bool>> = const { Cell::new(None) };
}

#[test]
fn candidates_read_whole_or_sought_are_the_same() {
    let c = common::sample_inputs();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let index = Index::create(&dir, &DedupRequest::default(), Storage::DEFAULT).unwrap();
    let opts = crate::AddOptions::new(PipelineConfig::default(), "old");
    index.add(&c[..2], &opts, &NoProgress).unwrap();
    let mut opts = IndexDedupOptions::new(PipelineConfig::default(), None);
    opts.tmp_dir = tmp.path().to_path_buf();
    let mut answers = Vec::new();
    for scan in [true, false] {
        SCAN.with(|s| s.set(Some(scan)));
        let mut rows = Vec::new();
        let summary = dedup(
            &dir,
            &c[1..],
            &opts,
            &NoProgress,
            |row| {
                rows.push(serde_json::to_string(&row).unwrap());
                Ok(())
            },
            |_| Ok(()),
        )
        .unwrap();
        assert!(summary.pairs_with_index > 0, "{summary:?}");
        let counts = (summary.candidate_pairs, summary.pairs_with_index);
        answers.push((rows, counts, summary.duplicates_of_index));
    }
    SCAN.with(|s| s.set(None));
    assert_eq!(answers[0], answers[1]);
}
