//! A set of shards answers exactly what one index holding the same adds answers: the same ids,
//! the same pages held and left out, the same matches with the same evidence, whatever the
//! limit; and an add to a set happens once across its shards.

mod common;

use neardup_dedup::DedupRequest;
use neardup_index::{AddOptions, AddReport, Index, IndexError, QueryOptions, Storage};
use neardup_pipeline::{Error, Input, NoProgress, PipelineConfig};
use std::path::PathBuf;

fn add(index: &Index, inputs: &[Input], label: &str, again: bool) -> Result<AddReport, Error> {
    let mut opts = AddOptions::new(PipelineConfig::default(), label);
    opts.again = again;
    index.add(inputs, &opts, &NoProgress)
}

/// Every row of a query of `inputs`, on two threads, up to `max_matches` a page, as JSON
/// (every field, evidence included).
fn rows(index: &Index, inputs: &[Input], max_matches: Option<usize>) -> Vec<String> {
    let mut opts = QueryOptions::new(PipelineConfig {
        threads: 2,
        ..PipelineConfig::default()
    });
    opts.max_matches = max_matches;
    let mut out = Vec::new();
    index
        .query(inputs, &opts, &NoProgress, |_, row| {
            out.push(serde_json::to_string(&row).unwrap());
            Ok(())
        })
        .unwrap();
    out
}

/// Pages each shard holds.
fn shard_pages(index: &Index) -> Vec<u64> {
    (index.shards().unwrap().iter())
        .map(|s| Index::open(s).unwrap().stats().unwrap().pages)
        .collect()
}

#[test]
fn a_set_of_shards_answers_as_one_index_and_adds_once() {
    let tmp = tempfile::tempdir().unwrap();
    let request = DedupRequest::default();
    let one = Index::create(&tmp.path().join("one"), &request, Storage::DEFAULT).unwrap();
    // One shard inside the set's folder, one outside it (another disk, say).
    let outside = tmp.path().join("elsewhere/b");
    let shards = [PathBuf::from("a"), outside.clone()];
    let set_dir = tmp.path().join("set");
    let set = Index::create_sharded(&set_dir, &shards, &request, Storage::DEFAULT).unwrap();
    assert_eq!(set.shards().unwrap().len(), 2);
    assert!(Index::open(&set_dir).unwrap().shards().is_some());

    let c = common::sample_inputs();
    // The same adds to both: each add lands whole on the shard holding fewest pages.
    let steps: [(&[Input], &str, bool); 3] = [
        (&c[..1], "first", false),
        (&c[1..2], "second", false),
        (&c[2..], "third", false),
    ];
    for (inputs, label, again) in steps {
        let (a, b) = (
            add(&one, inputs, label, again).unwrap(),
            add(&set, inputs, label, again).unwrap(),
        );
        assert_eq!(
            (a.pages, a.held, a.first_id),
            (b.pages, b.held, b.first_id),
            "{label}"
        );
        assert!(a.pages > 0);
        assert!(b.shard.is_some());
    }
    let pages = shard_pages(&set);
    assert!(
        pages.iter().all(|&p| p > 0),
        "both shards hold pages: {pages:?}"
    );
    let (m1, ms) = (one.manifest().unwrap(), set.manifest().unwrap());
    assert_eq!(m1.next_page, ms.next_page);
    assert_eq!(pages.iter().sum::<u64>(), one.stats().unwrap().pages);
    assert_eq!(set.stats().unwrap().pages, one.stats().unwrap().pages);

    // Every page of the crawl against both: every match, the likeliest one, the first three.
    for limit in [None, Some(1), Some(3)] {
        let (a, b) = (rows(&one, &c, limit), rows(&set, &c, limit));
        assert!(!a.is_empty());
        assert_eq!(a, b, "max_matches {limit:?}");
    }

    // A file added to one shard is refused through the set (it is not added to another)...
    let err = add(&set, &c[..1], "again", false).unwrap_err().to_string();
    assert_eq!(
        err,
        add(&one, &c[..1], "again", false).unwrap_err().to_string()
    );
    // ... and its rerun under its label has nothing to do.
    assert!(add(&set, &c[1..2], "second", false).unwrap().already_added);
    // Read again on purpose: every record is held by some shard, none added.
    let (a, b) = (
        add(&one, &c, "again", true).unwrap(),
        add(&set, &c, "again", true).unwrap(),
    );
    assert_eq!((a.pages, a.held), (0, b.held));
    assert_eq!(b.pages, 0);
    assert_eq!(shard_pages(&set), pages);

    // Payload digests and URLs find the same captures.
    let snap = (one.snapshot().unwrap(), set.snapshot().unwrap());
    let (mut digests, mut urls) = (Vec::new(), Vec::new());
    for (id, _) in snap
        .0
        .catalogs()
        .iter()
        .flat_map(|(c, _)| c.ids().step_by(7).zip(0..))
    {
        let mut facts = Default::default();
        snap.0.page(id, &mut facts).unwrap();
        digests.push(format!(
            "sha1:{}",
            neardup_ingest::digest::base32(&facts.payload_sha1)
        ));
        urls.push(facts.url);
    }
    assert!(!digests.is_empty());
    assert_eq!(
        one.digests(&digests).unwrap(),
        set.digests(&digests).unwrap()
    );
    for url in &urls {
        let ids = |s: &neardup_index::Snapshot| -> Vec<(u64, String)> {
            (s.by_url(url).unwrap().into_iter())
                .map(|(id, _, label)| (id, label))
                .collect()
        };
        assert_eq!(ids(&snap.0), ids(&snap.1), "{url}");
    }

    // `check` reads every shard; a compaction changes no answer; a crawl removed from both
    // leaves the same answers; what a set does not run yet is refused by name.
    assert_eq!(set.check().unwrap().pages, one.check().unwrap().pages);
    let before = rows(&set, &c, None);
    assert!(set.compact().unwrap().segments_dropped > 0);
    assert_eq!(rows(&set, &c, None), before);
    let (a, b) = (one.remove("second").unwrap(), set.remove("second").unwrap());
    assert!(a.pages_removed > 0);
    assert_eq!(a.pages_removed, b.pages_removed);
    assert_eq!(rows(&one, &c, None), rows(&set, &c, None));
    assert_ne!(rows(&set, &c, None), before);
    let (a, b) = (
        one.remove("second").unwrap_err(),
        set.remove("second").unwrap_err(),
    );
    assert_eq!(a.to_string(), b.to_string());
    // Its files may be added again, as to one index.
    let (a, b) = (
        add(&one, &c[1..2], "second", false).unwrap(),
        add(&set, &c[1..2], "second", false).unwrap(),
    );
    assert_eq!((a.pages, a.first_id), (b.pages, b.first_id));
    assert_eq!(rows(&one, &c, None), rows(&set, &c, None));
    let err = set.writer().err().unwrap().to_string();
    assert!(err.contains("set of shards"), "{err}");
}

#[test]
fn a_set_is_refused_when_its_shards_disagree_or_reuse_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let request = DedupRequest::default();
    let dir = tmp.path().join("set");
    let shards = [PathBuf::from("a"), PathBuf::from("b")];
    let set = Index::create_sharded(&dir, &shards, &request, Storage::DEFAULT).unwrap();
    // Created once, and never over an index.
    assert!(Index::create_sharded(&dir, &shards, &request, Storage::DEFAULT).is_err());
    let other = tmp.path().join("other");
    Index::create(&other.join("a"), &request, Storage::DEFAULT).unwrap();
    let e = Index::create_sharded(&other, &shards, &request, Storage::DEFAULT).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert!(
        !other.join("b").exists(),
        "nothing is created when a shard is refused"
    );
    // A shard's folder holding other files is refused before any shard is made.
    let busy = tmp.path().join("busy");
    std::fs::create_dir_all(busy.join("b")).unwrap();
    std::fs::write(busy.join("b/notes.txt"), "mine").unwrap();
    let e = Index::create_sharded(&busy, &shards, &request, Storage::DEFAULT).unwrap_err();
    assert!(e.to_string().contains("notes.txt"), "{e}");
    assert!(!busy.join("a").exists());
    for bad in [&[][..], &[PathBuf::from("x"), PathBuf::from("x")][..]] {
        let at = tmp.path().join(format!("bad-{}", bad.len()));
        assert!(Index::create_sharded(&at, bad, &request, Storage::DEFAULT).is_err());
    }

    // Pages added to a shard on its own, bypassing the set, take ids the other shard holds.
    let c = common::sample_inputs();
    add(&set, &c[..1], "first", false).unwrap();
    let b = Index::open(&dir.join("b")).unwrap();
    add(&b, &c[1..2], "bypass", false).unwrap();
    let e = Index::open(&dir).unwrap().snapshot().unwrap_err();
    assert!(e.to_string().contains("same page ids"), "{e}");

    // A damaged set file is named at open.
    let path = dir.join(neardup_index::shards::SHARDS_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    match Index::open(&dir).unwrap_err() {
        Error::Index(IndexError::Damaged { path: p, .. }) => assert_eq!(p, path),
        e => panic!("{e}"),
    }
}
