//! The Overlap table on real pages (the committed sample crawl): sort-based, external and coarse
//! counting all equal a brute-force count of shared chunks.

use crate::common;

use neardup_engine::{NoProgress, PipelineConfig, Visitor};
use neardup_overlap::{
    chunk_fingerprints, overlap_brute_force, overlap_coarse, overlap_external, overlap_sorted,
    Chunking, CoarseConfig, FingerprintWidth,
};

struct Chunks(Chunking, Vec<(neardup_ingest::PageId, Vec<u64>)>);

impl Visitor for Chunks {
    type Output = Vec<(neardup_ingest::PageId, Vec<u64>)>;
    fn visit(&mut self, page: &neardup_ingest::Page, doc: Option<&neardup_text::Document>) {
        if let Some(doc) = doc {
            let mut fps = Vec::new();
            chunk_fingerprints(doc, self.0, FingerprintWidth::Bits32, &mut fps);
            self.1.push((page.id, fps));
        }
    }
    fn finish(self) -> Self::Output {
        self.1
    }
}

#[test]
fn every_method_equals_brute_force_on_real_pages() {
    let inputs = common::sample_inputs();
    for (chunking, t) in [
        (Chunking::Lines(2), 5u32),
        (Chunking::Sentences, 3),
        (Chunking::WordSeq(8), 10),
    ] {
        let run = neardup_engine::run(
            &inputs,
            &PipelineConfig::default(),
            || Chunks(chunking, Vec::new()),
            &NoProgress,
        )
        .unwrap();
        let mut docs: Vec<(neardup_ingest::PageId, Vec<u64>)> =
            run.outputs.into_iter().flatten().collect();
        docs.sort_by_key(|d| d.0);
        let sets: Vec<Vec<u64>> = docs.into_iter().map(|d| d.1).collect();
        let table: Vec<(u64, u32)> = sets
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.iter().map(move |&f| (f, i as u32)))
            .collect();
        let max_df = 200;
        let want = overlap_brute_force(&sets, t, max_df);
        assert!(!want.is_empty());
        assert_eq!(
            overlap_sorted(table.clone(), t, max_df).rows,
            want,
            "{chunking:?}"
        );
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(
            overlap_external(table.clone(), t, max_df, 4096, tmp.path())
                .unwrap()
                .0
                .rows,
            want,
            "{chunking:?}"
        );
        let cfg = CoarseConfig {
            counters: 1 << 12,
            hashes: 2,
            pilot: 0.05,
        };
        assert_eq!(
            overlap_coarse(table, t, max_df, &cfg).0.rows,
            want,
            "{chunking:?}"
        );
    }
}
