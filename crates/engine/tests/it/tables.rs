//! Every table neardup writes, neardup reads back, in every format: each job's rows from a real
//! run on the committed sample are written as JSONL, CSV and Parquet and read back into the same
//! row struct. Parquet keeps full floats (equal to the rows); JSONL and CSV keep 6 significant
//! digits (equal to each other).

use neardup_engine::dedup::{DedupOptions, DedupSettings};
use neardup_engine::evolve::{Crawl, EvolveOptions, EvolveSettings};
use neardup_engine::mirrors::{MirrorsOptions, MirrorsSettings};
use neardup_engine::overlap::{OverlapOptions, OverlapSettings};
use neardup_engine::replicas::{ReplicasOptions, ReplicasSettings};
use neardup_engine::{Input, NoProgress};
use neardup_report::{read_rows, Format, Table, TableWriter};
use std::fmt::Debug;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sample() -> Vec<Input> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("data/sample"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v.into_iter().map(Input::file).collect()
}

fn round_trip<T: Table + PartialEq + Debug>(dir: &Path, rows: &[T]) {
    assert!(!rows.is_empty(), "{}: no rows to test with", T::NAME);
    let mut back = Vec::new();
    for f in [Format::Jsonl, Format::Csv, Format::Parquet] {
        let sub = dir.join(format!("{}-{}", T::NAME, f.extension()));
        std::fs::create_dir_all(&sub).unwrap();
        let mut w = TableWriter::<T>::create(&sub, f).unwrap();
        for r in rows {
            w.write(r).unwrap();
        }
        let path = w.finish().unwrap();
        let got: Vec<T> = read_rows(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.len(), rows.len(), "{} {f:?}", T::NAME);
        back.push(got);
    }
    assert_eq!(
        back[0],
        back[1],
        "{}: JSONL and CSV read back alike",
        T::NAME
    );
    assert_eq!(back[2], rows, "{}: Parquet reads back exactly", T::NAME);
}

#[test]
fn every_table_reads_back_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut opts = DedupOptions {
        pairs_per_cluster: Some(1000),
        ..DedupOptions::default()
    };
    opts.boilerplate = Some(Default::default());
    opts.boilerplate.as_mut().unwrap().fraction = 0.2;
    opts.boilerplate.as_mut().unwrap().mostly = 0.1;
    let r = neardup_engine::dedup::run(&sample(), &DedupSettings::new(opts).unwrap(), &NoProgress)
        .unwrap();
    round_trip(d, &r.tables.clusters);
    round_trip(d, &r.tables.remove);
    round_trip(d, r.tables.pairs.as_ref().unwrap());
    round_trip(d, r.tables.boilerplate.as_ref().unwrap());
    round_trip(d, &r.tables.byte_identical);

    let fixture = |n: &str| vec![Input::file(root().join("tests/fixtures").join(n))];
    let m = neardup_engine::mirrors::run(
        &fixture("mirrors.warc.gz"),
        &MirrorsSettings::new(MirrorsOptions::default()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    round_trip(d, &m.rows);

    let r = neardup_engine::replicas::run(
        &fixture("replicas.warc.gz"),
        &ReplicasSettings::new(ReplicasOptions::default()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    round_trip(d, &r.tables.replicas);
    round_trip(d, &r.tables.site_clusters);
    round_trip(d, &r.tables.sites);

    let o = neardup_engine::overlap::run(
        &sample(),
        &OverlapSettings::new(OverlapOptions::default()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    round_trip(d, &o.overlap);
    round_trip(d, &o.copies);

    let mut crawls: Vec<PathBuf> = std::fs::read_dir(root().join("data/evolve-sample"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    crawls.sort();
    let crawls: Vec<Crawl> = crawls
        .into_iter()
        .enumerate()
        .map(|(i, p)| Crawl {
            label: format!("c{i}"),
            inputs: vec![Input::file(p)],
        })
        .collect();
    let e = neardup_engine::evolve::run(
        &crawls,
        &EvolveSettings::new(EvolveOptions::default()).unwrap(),
        &NoProgress,
        &mut |_, _, _| {},
    )
    .unwrap();
    let t = &e.tables;
    round_trip(d, &t.coefficients);
    round_trip(d, &t.change);
    round_trip(d, &t.change_buckets);
    round_trip(d, &t.hosts);
    round_trip(d, &t.events);
    round_trip(d, &t.recrawl);
    round_trip(d, &t.clusters);
}

/// The report's samples read with the run's corpus (each page at its record's offset) are the
/// samples a second pass over the whole crawl finds, and they read back in every format.
#[test]
fn samples_read_at_record_offsets_are_those_a_whole_second_pass_finds() {
    let seeked = samples_read_alone_and_by_a_second_pass(&sample());
    assert_eq!(seeked.len(), 10);
    let dir = tempfile::tempdir().unwrap();
    round_trip(dir.path(), &seeked);
}

/// A dedup run's 10 samples of `inputs` (read with the run's corpus), checked equal to those a
/// whole second pass over `inputs` finds.
fn samples_read_alone_and_by_a_second_pass(
    inputs: &[Input],
) -> Vec<neardup_engine::dedup::samples::SampleRow> {
    let opts = DedupOptions {
        samples: 10,
        ..DedupOptions::default()
    };
    let settings = DedupSettings::new(opts).unwrap();
    let r = neardup_engine::dedup::run(inputs, &settings, &NoProgress).unwrap();
    let seeked = r.tables.samples.expect("samples asked for");
    let o = settings.options();
    let whole = neardup_engine::dedup::samples::samples(
        inputs,
        &o.pipeline,
        o.params.content.scope(),
        &r.tables.clusters,
        10,
        None,
    )
    .unwrap();
    assert_eq!(seeked, whole, "{}", inputs[0].name());
    seeked
}

/// The same for JSONL and Parquet inputs (the sample crawl's HTML pages written as rows; the
/// Parquet file in row groups of 50 rows): each sampled page is read alone (a JSONL line at its
/// byte offset, a Parquet row by skipping the rows before it) and the samples are those a second
/// pass over the whole file finds.
#[test]
fn samples_of_jsonl_and_parquet_read_alone_are_those_a_second_pass_finds() {
    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    let dir = tempfile::tempdir().unwrap();
    let (mut urls, mut htmls, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    let opts = neardup_ingest::ReadOptions::default();
    for input in sample() {
        let path = input.as_path().unwrap();
        let mut src = neardup_ingest::open_source(path, None, 0, &opts).unwrap();
        let mut page = neardup_ingest::Page::default();
        while src.next_page(&mut page).unwrap() {
            if page.status == Some(200) && page.kind == neardup_ingest::BodyKind::Html {
                urls.push(page.url.clone());
                htmls.push(String::from_utf8_lossy(&page.body).into_owned());
                ids.push(format!("row-{}", ids.len()));
            }
        }
    }
    assert!(urls.len() > 200, "{} pages", urls.len());
    let jsonl = dir.path().join("pages.jsonl");
    let mut text = String::new();
    for ((u, h), i) in urls.iter().zip(&htmls).zip(&ids) {
        text += &serde_json::json!({"id": i, "url": u, "html": h}).to_string();
        text.push('\n');
    }
    std::fs::write(&jsonl, text).unwrap();
    let parquet = dir.path().join("pages.parquet");
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", std::sync::Arc::new(StringArray::from(ids.clone()))),
        ("url", std::sync::Arc::new(StringArray::from(urls.clone()))),
        (
            "html",
            std::sync::Arc::new(StringArray::from(htmls.clone())),
        ),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(50))
        .build();
    let mut w = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&parquet).unwrap(),
        batch.schema(),
        Some(props),
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    for path in [jsonl, parquet] {
        let seeked = samples_read_alone_and_by_a_second_pass(&[Input::file(path.clone())]);
        assert!(
            seeked.len() >= 5,
            "{}: {} samples",
            path.display(),
            seeked.len()
        );
    }
}

/// The typed placement of every clustered page is the clusters table row for row: the same
/// canonical flag, the input the row names, and for every page but the canonical one its row
/// of `remove` (same id, same cluster), each row of `remove` once.
#[test]
fn placed_pages_are_the_clusters_rows_typed() {
    let r = neardup_engine::dedup::run(
        &sample(),
        &DedupSettings::new(DedupOptions::default()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    let t = &r.tables;
    assert!(!t.clusters.is_empty());
    assert_eq!(t.placed.len(), t.clusters.len());
    let mut removed = vec![false; t.remove.len()];
    for (row, placed) in t.clusters.iter().zip(&t.placed) {
        assert_eq!(placed.page == placed.canonical, row.canonical);
        assert_eq!(r.summary.inputs[placed.page.source as usize], row.file);
        match placed.remove_row.map(|j| j as usize) {
            Some(j) => {
                let gone = &t.remove[j];
                assert_eq!((&gone.id, gone.cluster), (&row.id, row.cluster));
                assert!(
                    !std::mem::replace(&mut removed[j], true),
                    "remove row {j} twice"
                );
            }
            None => assert!(row.canonical),
        }
    }
    assert!(removed.iter().all(|&r| r), "a remove row no page points at");
}
