//! How `Lookup` sketches a page: the record `index add` would hold, whichever way its body's
//! digests are computed.

mod common;

use neardup_dedup::DedupRequest;
use neardup_pipeline::PipelineConfig;

#[test]
fn a_lookup_sketches_the_same_record_with_the_digests_computed_beside_the_tokenizer() {
    use neardup_index::{Lookup, Snapshot};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    neardup_index::Index::create(
        &dir,
        &DedupRequest::default(),
        neardup_index::Storage::DEFAULT,
    )
    .unwrap();
    let snap = std::sync::Arc::new(Snapshot::open(&dir).unwrap());
    let (mut inline, mut beside, mut default) = (
        Lookup::new(snap.clone(), &PipelineConfig::default()),
        Lookup::new(snap.clone(), &PipelineConfig::default()),
        Lookup::new(snap, &PipelineConfig::default()),
    );
    inline.set_digests_alongside(usize::MAX);
    beside.set_digests_alongside(0);
    let c = common::sample_inputs();
    let mut pages = common::sample_pages(&c[0]);
    // A page past the default size (128 KiB), and one whose record names no digest.
    let words: String = (0..40_000).map(|i| format!("w{} ", i % 997)).collect();
    pages.push(neardup_ingest::Page::html(
        "https://example.org/large.html",
        format!("<html><title>Large</title><p>{words}</p></html>"),
    ));
    let (mut same, mut records) = (0, 0);
    for p in &pages {
        let want = inline.sketch(p).cloned();
        assert_eq!(beside.sketch(p).cloned(), want, "{}", p.url);
        assert_eq!(default.sketch(p).cloned(), want, "{}", p.url);
        if let Ok(r) = want {
            records += 1;
            same += usize::from(r.payload_sha256 == neardup_ingest::digest::sha256(&p.body));
        }
    }
    assert!(records > 100 && same == records, "{same} of {records}");
}
