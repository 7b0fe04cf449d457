//! A small page's kept shingle set is compared on the bits the index keeps of it
//! (`Storage::set_bits`), wherever the pair is scored: a lookup against held pages, two pages
//! of one group, two held pages.

mod common;

use neardup_dedup::DedupRequest;
use neardup_index::{Added, CatalogPage, NewPage, Snapshot, Storage, Writer};
use neardup_pipeline::PipelineConfig;
use std::sync::Arc;

/// A page of the sample with a kept set of 10 members or more, and a copy whose set differs
/// in one member's bit 30 only (another record, other tokens and body).
fn page_and_copy(snap: &Arc<Snapshot>) -> (CatalogPage, CatalogPage) {
    let mut lookup = neardup_index::Lookup::new(snap.clone(), &PipelineConfig::default());
    let c = common::sample_inputs();
    for page in common::sample_pages(&c[0]) {
        let Ok(p) = lookup.sketch(&page) else {
            continue;
        };
        if p.shingle_set.len() < 10 {
            continue;
        }
        let p = p.clone();
        let mut q = p.clone();
        q.url.push_str("?copy");
        q.user_id = "copy".into();
        q.token_hash ^= 1;
        q.body_hash ^= 1;
        q.payload_sha1[0] ^= 1;
        q.payload_sha256[0] ^= 1;
        q.shingle_set[3] ^= 1 << 30;
        q.shingle_set.sort_unstable();
        assert_eq!(q.set_bits, 32);
        return (p, q);
    }
    panic!("no sample page keeps a set of 10");
}

fn index(dir: &std::path::Path, set_bits: u32) -> Writer {
    let storage = Storage {
        set_bits,
        ..Storage::DEFAULT
    };
    neardup_index::Index::create(dir, &DedupRequest::default(), storage).unwrap();
    Writer::open(dir).unwrap()
}

fn added(p: &CatalogPage, if_new: bool) -> NewPage {
    NewPage {
        page: p.clone(),
        if_new,
    }
}

#[test]
fn kept_sets_are_compared_on_the_bits_the_index_keeps() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, bits) in [("cut", Storage::DEFAULT.set_bits), ("whole", 32)] {
        let mut w = index(&tmp.path().join(name), bits);
        let (p, q) = page_and_copy(w.snapshot());
        let n = p.shingle_set.len() as f64;
        // Whole, the sets share all members but one: (n - 1) / (n + 1); cut to fewer bits
        // than 30, they are one set.
        let want = if bits > 30 {
            (n - 1.0) / (n + 1.0)
        } else {
            1.0
        };
        w.add("a", &[added(&p, false)]).unwrap();
        let snap = w.snapshot().clone();
        let family = neardup_sketch::Family::new(&snap.manifest().params);
        let scorer = neardup_index::scorer(snap.manifest());
        let mut scratch = neardup_index::Scratch::default();
        let found = snap.matches(&scorer, &family, &q, &mut scratch).unwrap();
        let m = found
            .iter()
            .find(|m| m.page == 0)
            .expect("the page is a candidate");
        assert_eq!(m.evidence.exact_jaccard, Some(want), "{name}: a lookup");

        // Two pages of one group, the second added if new.
        let mut w2 = index(&tmp.path().join(format!("{name}-group")), bits);
        let got = w2.add("a", &[added(&p, false), added(&q, true)]).unwrap();
        match (&got[0], &got[1]) {
            (Added::Added(0), Added::Duplicate(ms)) => {
                assert_eq!(ms[0].page, 0);
                assert_eq!(ms[0].evidence.exact_jaccard, Some(want), "{name}: a group");
            }
            (Added::Added(0), Added::Added(1)) => assert!(want < 0.8, "{name}: {got:?}"),
            other => panic!("{name}: {other:?}"),
        }

        // Both held: the copy's record keeps the bits the index keeps, and finds the page.
        w.add("b", &[added(&q, false)]).unwrap();
        let snap = w.snapshot().clone();
        let mut held = CatalogPage::default();
        snap.page_with(1, &mut held, &mut Vec::new()).unwrap();
        assert_eq!(held.set_bits, bits.min(32));
        let found = snap.matches(&scorer, &family, &held, &mut scratch).unwrap();
        let m = found
            .iter()
            .find(|m| m.page == 0)
            .expect("the page is a candidate");
        assert_eq!(m.evidence.exact_jaccard, Some(want), "{name}: held pages");
    }
}
