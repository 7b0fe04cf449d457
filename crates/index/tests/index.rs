//! The persistent index on the committed sample crawl: what a query finds equals a brute-force
//! comparison of the queried pages with every indexed page under the same keys and rule; an
//! indexed crawl finds itself; one writer at a time.

mod common;

use neardup_dedup::DedupRequest;
use neardup_index::{band_entry_key, AddOptions, AddReport, QueryOptions, QueryRow};
use neardup_index::{Index, Manifest, WriterLock};
use neardup_pipeline::load::load;
use neardup_pipeline::{Error, Input, NoProgress, PipelineConfig, Progress};
use neardup_sketch::SketchParams;
use std::collections::BTreeSet;
use std::path::Path;

// The index's jobs through its handle, each opening the folder as a front end does.

fn create(dir: &Path, request: &DedupRequest) -> Result<Manifest, Error> {
    Index::create(dir, request, neardup_index::Storage::DEFAULT)?.manifest()
}

fn add(
    dir: &Path,
    inputs: &[Input],
    opts: &AddOptions,
    progress: &dyn Progress,
) -> Result<AddReport, Error> {
    Index::open(dir)?.add(inputs, opts, progress)
}

fn query(
    dir: &Path,
    inputs: &[Input],
    opts: &QueryOptions,
    progress: &dyn Progress,
    mut on_row: impl FnMut(QueryRow) -> Result<(), Error>,
) -> Result<neardup_index::QuerySummary, Error> {
    Index::open(dir)?.query(inputs, opts, progress, |_, row| on_row(row))
}

fn check(dir: &Path) -> Result<neardup_index::CheckReport, Error> {
    Index::open(dir)?.check()
}

fn stats(dir: &Path) -> Result<neardup_index::StatsReport, Error> {
    Index::open(dir)?.stats()
}

fn dedup(
    dir: &Path,
    inputs: &[Input],
    opts: &neardup_index::IndexDedupOptions,
    progress: &dyn Progress,
    on_row: impl FnMut(neardup_index::IndexDedupRow) -> Result<(), Error>,
) -> Result<neardup_index::IndexDedupSummary, Error> {
    Index::open(dir)?.dedup(inputs, opts, progress, on_row, |_| Ok(()))
}

/// Adds `inputs` under `label` with the default settings.
fn add_as(
    dir: &std::path::Path,
    inputs: &[neardup_pipeline::Input],
    label: &str,
) -> Result<AddReport, neardup_pipeline::Error> {
    add(
        dir,
        inputs,
        &AddOptions::new(PipelineConfig::default(), label),
        &NoProgress,
    )
}

/// Every match of `inputs` against the index in `dir`, with the default settings.
fn query_rows(
    dir: &std::path::Path,
    inputs: &[neardup_pipeline::Input],
) -> Result<Vec<QueryRow>, neardup_pipeline::Error> {
    let mut rows = Vec::new();
    let opts = QueryOptions::new(PipelineConfig::default());
    query(dir, inputs, &opts, &NoProgress, |r| {
        rows.push(r);
        Ok(())
    })?;
    Ok(rows)
}

#[test]
fn queries_equal_brute_force_and_an_indexed_crawl_finds_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let params = SketchParams::default();
    let pipeline = PipelineConfig::default();
    let m = create(&dir, &DedupRequest::default()).unwrap();
    assert!(
        create(&dir, &DedupRequest::default()).is_err(),
        "an index is never created twice"
    );
    let c = common::sample_inputs();
    let a = add_as(&dir, &c[..1], "first").unwrap();
    let b = add_as(&dir, &c[1..2], "second").unwrap();
    assert_eq!((a.first_id, b.first_id), (0, a.pages));
    assert_eq!(Manifest::open(&dir).unwrap().generation, 2);

    // The third crawl against the first two.
    let rows = query_rows(&dir, &c[2..]).unwrap();
    let got: BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| (r.url.clone(), r.match_url.clone()))
        .collect();
    assert!(!got.is_empty());
    assert!(rows
        .iter()
        .all(|r| r.match_label == "first" || r.match_label == "second"));

    let indexed = load(&c[..2], &pipeline, &params, false, None, &NoProgress)
        .unwrap()
        .corpus;
    let queried = load(&c[2..], &pipeline, &params, false, None, &NoProgress)
        .unwrap()
        .corpus;
    let bands = m.matching.bands as usize;
    let fam = indexed.family().clone();
    // The title rule's counts over the indexed pages; each queried page counts once more.
    let mut counts: std::collections::HashMap<(String, u32), u64> = Default::default();
    for i in 0..indexed.len() {
        let ip = indexed.page(i);
        *counts.entry((ip.host.to_string(), 0)).or_default() += 1;
        for &s in ip.title.iter().filter(|&&s| s != 0) {
            *counts.entry((ip.host.to_string(), s)).or_default() += 1;
        }
    }
    let mut want = BTreeSet::new();
    for p in 0..queried.len() {
        let (qp, qm) = (queried.page(p), queried.minvalues(p));
        let count = |host: &str, s: u32| {
            let extra = qp.host == host && (s == 0 || qp.title.contains(&s));
            counts.get(&(host.to_string(), s)).copied().unwrap_or(0) + u64::from(extra)
        };
        let own = |host: &str, title: &[u32; 4]| {
            neardup_dedup::own_segments(title, |s| {
                neardup_dedup::is_site_segment(count(host, s), count(host, 0))
            })
        };
        for i in 0..indexed.len() {
            let (ip, im) = (indexed.page(i), indexed.minvalues(i));
            let collide = (0..bands)
                .any(|t| band_entry_key(&fam, &m, qm, t) == band_entry_key(&fam, &m, im, t));
            let identical = qp.token_hash == ip.token_hash && qp.tokens == ip.tokens;
            let j = match (queried.shingles(p), indexed.shingles(i)) {
                // The bits of each set member the index keeps.
                (Some(x), Some(y)) => {
                    let (mut nx, mut ny) = (Vec::new(), Vec::new());
                    neardup_candidates::narrow_set(x, m.storage.set_bits, &mut nx);
                    neardup_candidates::narrow_set(y, m.storage.set_bits, &mut ny);
                    neardup_candidates::exact_jaccard(&nx, &ny)
                }
                // The bits of each minvalue the index keeps, collisions corrected.
                _ => neardup_candidates::b_bit_jaccard(qm, im, m.storage.minvalue_bits),
            };
            // Containment of the smaller page in the larger, from J and the set sizes.
            let (a, b) = (qp.shingles as f64, ip.shingles as f64);
            let shared = (j * (a + b) / (1.0 + j)).min(a.min(b));
            let c = if a.min(b) > 0.0 {
                (shared / a.min(b)).min(1.0)
            } else {
                0.0
            };
            let titles = neardup_dedup::own_segments_agree(
                &own(qp.host, &qp.title),
                &own(ip.host, &ip.title),
            );
            let same_item = titles == Some(true)
                && (j >= neardup_dedup::SAME_TITLES_JACCARD
                    || (c >= neardup_dedup::SAME_TITLES_CONTAINMENT
                        && j >= neardup_dedup::SAME_TITLES_CONTAINMENT_MIN_JACCARD)
                    || (c >= neardup_dedup::SAME_TITLES_PASSAGE_CONTAINMENT
                        && shared.round()
                            >= f64::from(neardup_dedup::SAME_TITLES_PASSAGE_SHINGLES)));
            let accepted = j >= 0.8 || (c >= 0.8 && j >= 0.4) || same_item;
            if collide && (identical || (accepted && (titles != Some(false) || j >= 0.95))) {
                want.insert((qp.url.to_string(), ip.url.to_string()));
            }
        }
    }
    assert_eq!(got, want);

    // Every page of an indexed crawl finds itself, with identical tokens and body.
    let rows = query_rows(&dir, &c[..1]).unwrap();
    let found: BTreeSet<&str> = rows
        .iter()
        .filter(|r| r.url == r.match_url && r.identical_body && r.match_label == "first")
        .map(|r| r.url.as_str())
        .collect();
    let first = load(&c[..1], &pipeline, &params, false, None, &NoProgress)
        .unwrap()
        .corpus;
    let all: BTreeSet<&str> = first.pages().map(|p| p.url).collect();
    assert_eq!(found, all);
}

#[test]
fn one_writer_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    create(&dir, &DedupRequest::default()).unwrap();
    let held = WriterLock::acquire(&dir).unwrap();
    let c = common::sample_inputs();
    let e = add_as(&dir, &c[..1], "x").unwrap_err();
    assert!(e.to_string().contains("another process"), "{e}");
    drop(held);
    add_as(&dir, &c[..1], "x").unwrap();
    // A reader needs no lock.
    let _held = WriterLock::acquire(&dir).unwrap();
    query_rows(&dir, &c[..1]).unwrap();
}

#[test]
fn check_reads_everything_names_damage_and_adds_clear_what_a_crash_left() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    create(&dir, &DedupRequest::default()).unwrap();
    let c = common::sample_inputs();
    let a = add_as(&dir, &c[..1], "a").unwrap();
    // What a writer killed mid-add leaves: an unfinished file and a finished segment no
    // manifest names. Neither is seen; the next add removes both.
    std::fs::write(dir.join("seg-2.pages.partial"), b"half").unwrap();
    std::fs::copy(dir.join("seg-1.keys"), dir.join("seg-9.keys")).unwrap();
    std::fs::create_dir(dir.join("neardup-sort-x")).unwrap();
    std::fs::write(dir.join("neardup-sort-x/run-0"), b"spilled keys").unwrap();
    let r = check(&dir).unwrap();
    assert_eq!((r.generation, r.segments, r.pages), (1, 3, a.pages));
    let b = add_as(&dir, &c[1..2], "b").unwrap();
    assert!(!dir.join("seg-2.pages.partial").exists() && !dir.join("seg-9.keys").exists());
    assert!(!dir.join("neardup-sort-x").exists());
    let r = check(&dir).unwrap();
    assert_eq!((r.segments, r.pages), (6, a.pages + b.pages));
    assert!(r.keys > 0 && r.bytes > 0);

    // A flipped byte or a cut in any segment is found and named.
    for name in ["seg-1.keys", "seg-2.pages", "seg-2.titles"] {
        let path = dir.join(name);
        let good = std::fs::read(&path).unwrap();
        let mut bad = good.clone();
        let at = bad.len() / 3;
        bad[at] ^= 0x20;
        std::fs::write(&path, &bad).unwrap();
        let e = check(&dir).unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
        std::fs::write(&path, &good[..good.len() - 5]).unwrap();
        let e = check(&dir).unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
        std::fs::write(&path, &good).unwrap();
    }
    check(&dir).unwrap();
}

#[test]
fn pages_and_keys_sorted_on_disk_are_those_sorted_in_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let c = common::sample_inputs();
    let mut files = Vec::new();
    for (name, memory, threads) in [("mem", 256 << 20, 2), ("disk", 4096, 1)] {
        let dir = tmp.path().join(name);
        create(&dir, &DedupRequest::default()).unwrap();
        let mut opts = AddOptions::new(PipelineConfig::default(), "a");
        opts.mem_limit = memory;
        opts.pipeline.threads = threads;
        let r = add(&dir, &c[..2], &opts, &NoProgress).unwrap();
        assert_eq!(r.page_runs > 0, name == "disk", "{r:?}");
        check(&dir).unwrap();
        assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("neardup-sort")));
        files.push(["seg-1.keys", "seg-1.pages"].map(|f| std::fs::read(dir.join(f)).unwrap()));
    }
    assert!(
        files[0] == files[1],
        "the same bytes whatever the memory and threads"
    );
}

#[test]
fn dedup_within_a_small_memory_limit_equals_dedup_in_memory() {
    use neardup_index::IndexDedupOptions;
    let tmp = tempfile::tempdir().unwrap();
    let c = common::sample_inputs();
    let mut results = Vec::new();
    for (name, memory, threads) in [("mem", 2usize << 30, 2), ("disk", 64 << 10, 1)] {
        let dir = tmp.path().join(name);
        create(&dir, &DedupRequest::default()).unwrap();
        let mut add_opts = AddOptions::new(PipelineConfig::default(), "first");
        add_opts.mem_limit = memory;
        add_opts.pipeline.threads = threads;
        add(&dir, &c[..1], &add_opts, &NoProgress).unwrap();
        let mut opts = IndexDedupOptions::new(add_opts.pipeline.clone(), Some("second".into()));
        opts.mem_limit = memory;
        opts.tmp_dir = tmp.path().to_path_buf();
        let mut rows = Vec::new();
        let s = dedup(&dir, &c[1..], &opts, &NoProgress, |r| {
            rows.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(s.page_runs > 0, name == "disk", "{s:?}");
        assert!(s.pairs_with_index > 0 && s.pairs_within_run > 0, "{s:?}");
        assert!(rows
            .iter()
            .any(|r| r.new && !r.canonical && r.match_page.is_some()));
        check(&dir).unwrap();
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("neardup-"))
            .collect();
        assert!(left.is_empty(), "scratch left behind: {left:?}");
        let counts = (
            s.pages,
            s.duplicates_of_index,
            s.pages_in_clusters,
            s.pages_to_remove,
            s.clusters,
            s.candidate_pairs,
            s.pairs_with_index,
            s.pairs_within_run,
        );
        let files = ["seg-2.keys", "seg-2.pages", "seg-2.links"]
            .map(|f| std::fs::read(dir.join(f)).unwrap());
        results.push((rows, counts, files));
    }
    assert!(
        results[0] == results[1],
        "the same rows, counts and segments whatever the memory and threads"
    );
}

#[test]
fn a_lookup_page_by_page_finds_what_a_query_finds() {
    use neardup_index::{Looked, Lookup, Snapshot};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    create(&dir, &DedupRequest::default()).unwrap();
    let c = common::sample_inputs();
    add_as(&dir, &c[..2], "old").unwrap();
    let want: BTreeSet<(String, u64, String)> = query_rows(&dir, &c[2..])
        .unwrap()
        .into_iter()
        .map(|r| (r.url, r.match_page, format!("{:.6}", r.estimated_jaccard)))
        .collect();
    assert!(!want.is_empty());

    let snap = std::sync::Arc::new(Snapshot::open(&dir).unwrap());
    let mut lookup = Lookup::new(snap, &PipelineConfig::default());
    let (mut got, mut pages, mut not_pages) = (BTreeSet::new(), 0, 0);
    for page in common::sample_pages(&c[2]) {
        match lookup.page(&page).unwrap() {
            Looked::Page {
                page: p, matches, ..
            } => {
                pages += 1;
                assert_eq!(p.url, page.url);
                for m in matches {
                    assert!(m.label == "old" && !m.facts.url.is_empty());
                    got.insert((
                        page.url.clone(),
                        m.page,
                        format!("{:.6}", m.evidence.estimated_jaccard),
                    ));
                }
            }
            Looked::NotPage(why) => {
                assert!(!why.is_empty());
                not_pages += 1;
            }
        }
    }
    assert!(
        pages > 100 && not_pages > 0,
        "{pages} pages, {not_pages} not pages"
    );
    assert_eq!(got, want);
}

/// Every page of `input` as the index would hold it (sketched one at a time), in order.
fn sketched(
    snap: &std::sync::Arc<neardup_index::Snapshot>,
    input: &neardup_pipeline::Input,
) -> Vec<neardup_index::CatalogPage> {
    let mut lookup = neardup_index::Lookup::new(snap.clone(), &PipelineConfig::default());
    let mut out = Vec::new();
    for page in common::sample_pages(input) {
        if let Ok(p) = lookup.sketch(&page) {
            out.push(p.clone());
        }
    }
    out
}

#[test]
fn a_writer_adding_groups_holds_what_an_add_holds_and_the_first_seen_wins() {
    use neardup_index::{Added, NewPage, Snapshot, Writer};
    let tmp = tempfile::tempdir().unwrap();
    let (batch, served) = (tmp.path().join("batch"), tmp.path().join("served"));
    let c = common::sample_inputs();
    for dir in [&batch, &served] {
        create(dir, &DedupRequest::default()).unwrap();
    }
    add_as(&batch, &c[..1], "old").unwrap();

    // The same crawl added in groups of 7, tiers merged as they pile up.
    let mut w = Writer::open(&served).unwrap();
    w.merge.max_segments = 3;
    assert!(
        WriterLock::acquire(&served).is_err(),
        "the writer holds the lock"
    );
    let pages = sketched(w.snapshot(), &c[0]);
    let mut merges = 0;
    for (g, group) in pages.chunks(7).enumerate() {
        let group: Vec<NewPage> = group
            .iter()
            .map(|p| NewPage {
                page: p.clone(),
                if_new: false,
            })
            .collect();
        let added = w.add("old", &group).unwrap();
        for (i, a) in added.iter().enumerate() {
            assert!(
                matches!(a, Added::Added(id) if *id == (g * 7 + i) as u64),
                "{a:?}"
            );
        }
        merges += usize::from(w.maintain().unwrap().is_some());
    }
    assert!(merges > 2, "{merges} merges");
    let m = Manifest::open(&served).unwrap();
    let keys = m
        .segments
        .iter()
        .filter(|s| s.kind() == Some(neardup_index::SegmentKind::Keys))
        .count();
    let cats = m.segments.iter().filter(|s| s.is_catalog()).count();
    assert!(
        keys <= 3 + 1 && cats <= 3 + 1,
        "{keys} key segments, {cats} catalogs"
    );
    assert_eq!(
        stats(&served).unwrap().pages,
        stats(&batch).unwrap().pages,
        "every page once"
    );
    let rows = |dir| -> BTreeSet<(String, u64, String)> {
        query_rows(dir, &c[1..3])
            .unwrap()
            .into_iter()
            .map(|r| (r.url, r.match_page, format!("{:.6}", r.estimated_jaccard)))
            .collect()
    };
    assert_eq!(
        rows(&served),
        rows(&batch),
        "the same matches, the same ids"
    );

    // A retried group adds nothing: every page is held, with its id.
    let again: Vec<NewPage> = pages[..5]
        .iter()
        .map(|p| NewPage {
            page: p.clone(),
            if_new: true,
        })
        .collect();
    let added = w.add("old", &again).unwrap();
    for (i, a) in added.iter().enumerate() {
        assert!(matches!(a, Added::Held(id) if *id == i as u64), "{a:?}");
    }

    // The next crawl, if new: an added page matches no page held before it; a duplicate
    // names earlier pages only.
    let next = sketched(w.snapshot(), &c[1]);
    let before = w.snapshot().manifest().next_page;
    let (mut added_ids, mut dups) = (Vec::new(), 0);
    for group in next.chunks(16) {
        let group: Vec<NewPage> = group
            .iter()
            .map(|p| NewPage {
                page: p.clone(),
                if_new: true,
            })
            .collect();
        let first = w.snapshot().manifest().next_page;
        for (p, a) in group.iter().zip(w.add("new", &group).unwrap()) {
            match a {
                Added::Added(id) => added_ids.push((id, p.page.clone())),
                Added::Duplicate(ms) => {
                    dups += 1;
                    assert!(!ms.is_empty());
                    assert!(ms.iter().all(|m| m.page < first + group.len() as u64));
                }
                Added::Held(id) => panic!("held {id}"),
            }
        }
        w.maintain().unwrap();
    }
    assert!(dups > 0 && !added_ids.is_empty(), "{dups} duplicates");
    assert!(added_ids.iter().all(|(id, _)| *id >= before));
    drop(w);
    check(&served).unwrap();
    let snap = std::sync::Arc::new(Snapshot::open(&served).unwrap());
    let family = neardup_sketch::Family::new(&snap.manifest().params);
    let scorer = neardup_index::scorer(snap.manifest());
    let mut scratch = neardup_index::Scratch::default();
    for (id, p) in &added_ids {
        let ms = snap.matches(&scorer, &family, p, &mut scratch).unwrap();
        assert!(
            ms.iter().all(|m| m.page >= *id),
            "page {id} was added though it matches {:?}",
            ms.iter().map(|m| m.page).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_lookup_up_to_a_limit_returns_the_likeliest_matches_and_an_exact_answer() {
    use neardup_index::{Ask, Looked, Lookup, Snapshot};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    create(&dir, &DedupRequest::default()).unwrap();
    let c = common::sample_inputs();
    add_as(&dir, &c[..2], "old").unwrap();
    let snap = std::sync::Arc::new(Snapshot::open(&dir).unwrap());
    let mut lookup = Lookup::new(snap, &PipelineConfig::default());
    // The same index read from memory answers the same.
    let cached = Snapshot::open_cached(&dir, u64::MAX).unwrap();
    // Every segment, and the key segments' filters and long runs (within what their
    // bound says: less than the files again).
    let files: u64 = (cached.manifest().segments.iter()).map(|s| s.bytes).sum();
    assert!(cached.cached_bytes() > files);
    assert!(cached.cached_bytes() < 2 * files);
    let mut from_memory = Lookup::new(std::sync::Arc::new(cached), &PipelineConfig::default());
    let ids = |l: &Looked| -> (Vec<u64>, bool) {
        match l {
            Looked::Page { matches, more, .. } => (matches.iter().map(|m| m.page).collect(), *more),
            Looked::NotPage(_) => (Vec::new(), false),
        }
    };
    let (mut cut, mut pages) = (0, 0);
    // New pages, and pages the index holds (the candidates sharing every band key with them,
    // their copies, are found without counting: a lookup naming its cluster counts them all
    // and must rank them the same).
    for page in common::sample_pages(&c[2])
        .into_iter()
        .chain(common::sample_pages(&c[0]))
    {
        let (all, more) = ids(&lookup.page(&page).unwrap());
        assert!(!more);
        assert_eq!(ids(&from_memory.page(&page).unwrap()), (all.clone(), false));
        pages += 1;
        for limit in [1, 2, 5] {
            let (some, more) = ids(&lookup.page_upto(&page, limit).unwrap());
            assert_eq!(some.is_empty(), all.is_empty(), "a duplicate either way");
            assert_eq!(some.len(), all.len().min(limit));
            assert!(some.iter().all(|p| all.contains(p)), "{some:?} of {all:?}");
            cut += usize::from(more);
            // The same answer every time.
            assert_eq!(
                ids(&lookup.page_upto(&page, limit).unwrap()),
                (some.clone(), more)
            );
            let counted = Ask {
                matches: limit,
                cluster: true,
                ..Ask::DEFAULT
            };
            assert_eq!(
                ids(&lookup.page_asking(&page, &counted).unwrap()),
                (some, more),
                "{} up to {limit}",
                page.url
            );
        }
    }
    assert!(pages > 200 && cut > 0, "{pages} pages, {cut} cut short");
}

/// An add in parts (as Spark's executors write it): the sample's pages sketched, split into
/// three parts written out of order, committed at once.
fn add_in_parts(dir: &std::path::Path, inputs: &[neardup_pipeline::Input], label: &str) -> u64 {
    use neardup_index::parts::{sketch_pages, PartWriter, PartsAdd};
    let mut records = Vec::new();
    let (mut rec, mut scratch) = (Vec::new(), Vec::new());
    sketch_pages(dir, inputs, &PipelineConfig::default(), |_, p| {
        p.encode_checked(&mut rec, &mut scratch);
        records.push(rec.clone());
        Ok(())
    })
    .unwrap();
    let adding = PartsAdd::begin(dir).unwrap();
    let (generation, first) = (adding.generation(), adding.first_id());
    let cut = [0, records.len() / 3, records.len() / 2, records.len()];
    let mut written = Vec::new();
    for part in [2u32, 0, 1] {
        let (a, b) = (cut[part as usize], cut[part as usize + 1]);
        let mut w = PartWriter::create(dir, generation, part, 0, first + a as u64).unwrap();
        for r in &records[a..b] {
            w.push_encoded(r).unwrap();
        }
        written.push(w.finish(label).unwrap());
    }
    adding.commit(written).unwrap().pages
}

#[test]
fn an_add_in_parts_holds_what_one_add_holds_and_a_crash_before_its_commit_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, parts) = (tmp.path().join("one"), tmp.path().join("parts"));
    let c = common::sample_inputs();
    for d in [&one, &parts] {
        create(d, &DedupRequest::default()).unwrap();
    }
    let a = add_as(&one, &c[..1], "first").unwrap();
    assert_eq!(add_in_parts(&parts, &c[..1], "first"), a.pages);
    let b = add_as(&one, &c[1..2], "second").unwrap();
    assert_eq!(add_in_parts(&parts, &c[1..2], "second"), b.pages);
    let (qa, qb) = (
        query_rows(&one, &c).unwrap(),
        query_rows(&parts, &c).unwrap(),
    );
    assert!(!qa.is_empty());
    assert_eq!(format!("{qa:?}"), format!("{qb:?}"));
    check(&parts).unwrap();

    // A crash after parts were written, before the commit: the index is as it was, and the
    // next writer removes the parts' files.
    use neardup_index::parts::{sketch_pages, PartWriter, PartsAdd};
    let before = Manifest::open(&parts).unwrap();
    let adding = PartsAdd::begin(&parts).unwrap();
    let mut w = PartWriter::create(&parts, adding.generation(), 0, 0, adding.first_id()).unwrap();
    let mut rec = Vec::new();
    let mut scratch = Vec::new();
    sketch_pages(&parts, &c[2..3], &PipelineConfig::default(), |_, p| {
        p.encode_checked(&mut rec, &mut scratch);
        w.push_encoded(&rec).map(|_| ())
    })
    .unwrap();
    let orphan = w.finish("third").unwrap();
    drop(adding);
    assert_eq!(Manifest::open(&parts).unwrap(), before);
    assert_eq!(query_rows(&parts, &c).unwrap().len(), qb.len());
    add_as(&parts, &c[2..3], "third").unwrap();
    for s in &orphan.segments {
        assert!(!parts.join(&s.name).exists(), "{} left behind", s.name);
    }
}

/// Spark's speculative copies and retries: several attempts at one part write beside each
/// other (one finished, one cut off half-way, one whose report comes); only the reported one
/// lands, the index is the one a single add makes, the others' files are gone, and two
/// reports of one part are refused.
#[test]
fn of_several_attempts_at_a_part_only_the_reported_one_lands() {
    use neardup_index::parts::{sketch_pages, PartWriter, PartsAdd};
    let tmp = tempfile::tempdir().unwrap();
    let (one, parts) = (tmp.path().join("one"), tmp.path().join("parts"));
    let c = common::sample_inputs();
    for d in [&one, &parts] {
        create(d, &DedupRequest::default()).unwrap();
    }
    add_as(&one, &c[..1], "first").unwrap();
    let mut records = Vec::new();
    let (mut rec, mut scratch) = (Vec::new(), Vec::new());
    sketch_pages(&parts, &c[..1], &PipelineConfig::default(), |_, p| {
        p.encode_checked(&mut rec, &mut scratch);
        records.push(rec.clone());
        Ok(())
    })
    .unwrap();
    let write = |adding: &PartsAdd, part: u32, attempt: u64, upto: Option<usize>| {
        let half = records.len() / 2;
        let (a, b) = if part == 0 {
            (0, half)
        } else {
            (half, records.len())
        };
        let mut w = PartWriter::create(
            &parts,
            adding.generation(),
            part,
            attempt,
            adding.first_id() + a as u64,
        )
        .unwrap();
        for r in &records[a..upto.map_or(b, |u| a + u)] {
            w.push_encoded(r).unwrap();
        }
        match upto {
            Some(_) => None, // cut off: dropped before its files are finished
            None => Some(w.finish("first").unwrap()),
        }
    };
    // Two reports of one part: refused, nothing lands.
    let adding = PartsAdd::begin(&parts).unwrap();
    let twice = vec![
        write(&adding, 0, 1, None).unwrap(),
        write(&adding, 0, 2, None).unwrap(),
        write(&adding, 1, 3, None).unwrap(),
    ];
    let before = Manifest::open(&parts).unwrap();
    let e = adding.commit(twice).unwrap_err().to_string();
    assert!(e.contains("without gap or overlap"), "{e}");
    assert_eq!(Manifest::open(&parts).unwrap(), before);
    // Attempts 4 (finished, its report lost), 5 (cut off half-way) and 6 (reported) at part 0.
    let adding = PartsAdd::begin(&parts).unwrap();
    let lost = write(&adding, 0, 4, None).unwrap();
    write(&adding, 0, 5, Some(10));
    let kept = vec![
        write(&adding, 0, 6, None).unwrap(),
        write(&adding, 1, 7, None).unwrap(),
    ];
    let r = adding.commit(kept.clone()).unwrap();
    assert_eq!(r.pages, records.len() as u64);
    check(&parts).unwrap();
    assert_eq!(
        format!("{:?}", query_rows(&parts, &c).unwrap()),
        format!("{:?}", query_rows(&one, &c).unwrap())
    );
    let mut names: Vec<String> = std::fs::read_dir(&parts)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("seg-"))
        .collect();
    names.sort();
    let mut live: Vec<String> = kept
        .iter()
        .flat_map(|p| p.segments.iter().map(|s| s.name.clone()))
        .collect();
    live.sort();
    assert_eq!(names, live, "only the reported attempts' files remain");
    assert!(lost.segments.iter().all(|s| !parts.join(&s.name).exists()));
}

#[test]
fn a_query_names_each_matched_page_by_its_record_whatever_the_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let c = common::sample_inputs();
    let dir = tmp.path().join("idx");
    create(&dir, &DedupRequest::default()).unwrap();
    let opts = AddOptions::new(PipelineConfig::default(), "a");
    add(&dir, &c[..1], &opts, &NoProgress).unwrap();
    let mut got = Vec::new();
    // In memory, then through sorted runs on disk: the same records and rows.
    for memory in [256 << 20, 4096] {
        let mut opts = QueryOptions::new(PipelineConfig::default());
        opts.mem_limit = memory;
        let mut rows = Vec::new();
        Index::open(&dir)
            .unwrap()
            .query(&c[..2], &opts, &NoProgress, |record, row| {
                rows.push((record, row));
                Ok(())
            })
            .unwrap();
        got.push(rows);
    }
    assert_eq!(got[0], got[1]);
    let rows = &got[0];
    assert!(rows.windows(2).all(|w| w[0].0 <= w[1].0), "input order");
    assert!(rows.iter().any(|(r, _)| r.source == 1) && rows.iter().any(|(r, _)| r.source == 0));
    // A record names one page: its rows share its URL, and another record's URL differs.
    let mut url_of = std::collections::BTreeMap::new();
    for (record, row) in rows {
        assert_eq!(url_of.entry(*record).or_insert(&row.url), &&row.url);
    }
    let urls: BTreeSet<_> = url_of.values().collect();
    assert_eq!(urls.len(), url_of.len());
}

/// Adds merge their key segments in tiers once committed (issue 62: a crawl added in many
/// batches keeps few key segments): an index whose adds merged answers every query as one
/// whose adds did not, before and after a crawl is removed, and reads whole.
/// The key segments live in the index in `dir`.
fn key_segments(dir: &Path) -> usize {
    (Manifest::open(dir).unwrap().segments.iter())
        .filter(|s| s.kind() == Some(neardup_index::SegmentKind::Keys))
        .count()
}

/// Every match of `inputs` against the index in `dir`, in an order its segments do not change.
fn sorted_answers(dir: &Path, inputs: &[Input]) -> Vec<QueryRow> {
    let mut rows = query_rows(dir, inputs).unwrap();
    rows.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    rows
}

/// What an add in [`merged_in_tiers`] says of its merge: whether one ran, why it failed, the
/// generation live after it.
struct AddMerged {
    merged: bool,
    error: Option<String>,
    generation: u64,
}

/// Adds each sample input in turn (as crawl `c<i>`, by `add`) to an index in `plain` that never
/// merges and one in `merged` that merges past two key segments whatever their size: the
/// third add merges the three, in a commit of its own, and both answer alike. The inputs.
fn merged_in_tiers(
    plain: &Path,
    merged: &Path,
    add: impl Fn(&Path, &Input, &str, neardup_index::MergePolicy) -> AddMerged,
) -> Vec<Input> {
    use neardup_index::MergePolicy;
    let c = common::sample_inputs();
    let tiers = MergePolicy {
        max_segments: 2,
        max_merge_bytes: u64::MAX,
    };
    for (dir, merge) in [(plain, MergePolicy::NEVER), (merged, tiers)] {
        create(dir, &DedupRequest::default()).unwrap();
        for (i, input) in c.iter().enumerate() {
            let r = add(dir, input, &format!("c{i}"), merge);
            assert!(r.error.is_none(), "{:?}", r.error);
            assert_eq!(r.merged, merge != MergePolicy::NEVER && i == 2, "add {i}");
            assert_eq!(r.generation, Manifest::open(dir).unwrap().generation);
        }
    }
    assert_eq!((key_segments(plain), key_segments(merged)), (3, 1));
    check(merged).unwrap();
    let rows = sorted_answers(plain, &c);
    assert!(!rows.is_empty());
    assert_eq!(rows, sorted_answers(merged, &c));
    c
}

#[test]
fn adds_merged_in_tiers_answer_as_adds_left_unmerged() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, merged) = (tmp.path().join("plain"), tmp.path().join("merged"));
    let c = merged_in_tiers(&plain, &merged, |dir, input, label, merge| {
        let mut opts = AddOptions::new(PipelineConfig::default(), label);
        opts.merge = merge;
        let r = add(dir, std::slice::from_ref(input), &opts, &NoProgress).unwrap();
        AddMerged {
            merged: r.merged.is_some(),
            error: r.merge_error,
            generation: r.generation,
        }
    });
    // The merged keys belong to no one crawl: a removed crawl's entries are passed over.
    let before = sorted_answers(&plain, &c);
    for dir in [&plain, &merged] {
        Index::open(dir).unwrap().remove("c0").unwrap();
    }
    let after = sorted_answers(&plain, &c);
    assert!(after.len() < before.len());
    assert_eq!(after, sorted_answers(&merged, &c));
    check(&merged).unwrap();
}

/// `dedup --index --add-as` merges the key segments its adds pile up as `index add` does,
/// in a commit after its own, and the merged index answers as the one left unmerged.
#[test]
fn dedup_adds_merge_as_index_adds_do() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, merged) = (tmp.path().join("plain"), tmp.path().join("merged"));
    merged_in_tiers(&plain, &merged, |dir, input, label, merge| {
        let mut opts =
            neardup_index::IndexDedupOptions::new(PipelineConfig::default(), Some(label.into()));
        opts.merge = merge;
        let s = dedup(dir, std::slice::from_ref(input), &opts, &NoProgress, |_| {
            Ok(())
        })
        .unwrap();
        let a = s.added.unwrap();
        // The summary names the add's generation; the merge's is the next.
        AddMerged {
            merged: a.merged.is_some(),
            error: a.merge_error,
            generation: a.generation + u64::from(a.merged.is_some()),
        }
    });
}
