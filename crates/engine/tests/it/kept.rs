//! The kept corpus against a brute-force reference: a dedup run's `remove` table applied line by
//! line (or row by row) to the inputs must give, byte for byte, what `neardup_clean::write_kept`
//! wrote from the run's plan. Random corpora with near-duplicates across files, blank lines,
//! CJK and right-to-left text, plain, gzip and zstd JSONL; Parquet with several row groups.

use arrow_array::{Array, RecordBatch, StringArray};
use neardup_clean::{write_kept, KeptOptions, REMOVED_COPIES_FIELD};
use neardup_engine::dedup::{DedupOptions, DedupReport, DedupSettings};
use neardup_engine::{Input, NoProgress};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A tiny deterministic generator (the corpus is a function of the proptest seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Words of three scripts: Latin, CJK and Hebrew.
fn word(r: &mut Rng) -> String {
    let i = r.below(3000);
    match i % 10 {
        0 => format!(
            "字{}詞",
            char::from_u32(0x4e00 + (i as u32 % 2000)).unwrap()
        ),
        1 => format!("מילה{}", char::from_u32(0x05d0 + (i as u32 % 27)).unwrap()),
        _ => format!("w{i}"),
    }
}

/// `n` documents' texts: fresh ones, and near-copies (one word changed) of earlier ones.
fn texts(r: &mut Rng, n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for _ in 0..n {
        if !out.is_empty() && r.below(3) == 0 {
            let base = out[r.below(out.len() as u64) as usize].clone();
            let mut words: Vec<String> = base.split(' ').map(str::to_string).collect();
            let at = r.below(words.len() as u64) as usize;
            words[at] = word(r);
            out.push(words.join(" "));
        } else {
            out.push((0..80).map(|_| word(r)).collect::<Vec<_>>().join(" "));
        }
    }
    out
}

fn compress(bytes: &[u8], how: u8) -> Vec<u8> {
    match how {
        1 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        }
        2 => zstd::stream::encode_all(bytes, 1).unwrap(),
        _ => bytes.to_vec(),
    }
}

fn decompress(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .unwrap();
    } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        out = zstd::stream::decode_all(bytes).unwrap();
    } else {
        out = bytes.to_vec();
    }
    out
}

fn run(inputs: &[PathBuf]) -> DedupReport {
    let inputs: Vec<Input> = inputs.iter().cloned().map(Input::file).collect();
    let settings = DedupSettings::new(DedupOptions::default()).unwrap();
    neardup_engine::dedup::run(&inputs, &settings, &NoProgress).unwrap()
}

/// The reference: each input's non-blank lines, less those whose id the remove table lists.
fn reference_lines(input: &Path, removed: &HashSet<String>) -> Vec<u8> {
    let text = decompress(&std::fs::read(input).unwrap());
    let mut out = Vec::new();
    for line in text.split_inclusive(|&b| b == b'\n') {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_slice(line).unwrap();
        if !removed.contains(v["id"].as_str().unwrap()) {
            out.extend_from_slice(line);
        }
    }
    out
}

fn removed_ids(r: &DedupReport) -> HashSet<String> {
    r.tables.remove.iter().map(|x| x.id.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn kept_jsonl_is_the_input_less_the_removed_lines_byte_for_byte(
        seed in 1u64..u64::MAX,
        n in 2usize..40,
        files in 1usize..4,
        compression in proptest::collection::vec(0u8..3, 3),
        blank_every in 0usize..5,
        crlf in any::<bool>(),
    ) {
        let mut r = Rng(seed);
        let docs = texts(&mut r, n);
        let dir = tempfile::tempdir().unwrap();
        let mut inputs = Vec::new();
        for f in 0..files {
            let mut body = Vec::new();
            for (i, t) in docs.iter().enumerate().filter(|(i, _)| i % files == f) {
                // Fields in varying order, one nested, non-ASCII kept as written.
                let line = if i % 2 == 0 {
                    format!(r#"{{"id":"f{f}-d{i}","text":"{t}","meta":{{"n":{i},"tag":"é"}}}}"#)
                } else {
                    format!(r#"{{"meta":[{i},null],"text":"{t}","id":"f{f}-d{i}"}}"#)
                };
                body.extend_from_slice(line.as_bytes());
                body.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                if blank_every > 0 && i % blank_every == 0 {
                    body.extend_from_slice(b"  \n");
                }
            }
            let ext = ["jsonl", "jsonl.gz", "jsonl.zst"][compression[f] as usize];
            let sub = dir.path().join(format!("part{f}"));
            std::fs::create_dir(&sub).unwrap();
            let path = sub.join(format!("docs.{ext}"));
            std::fs::write(&path, compress(&body, compression[f])).unwrap();
            inputs.push(path);
        }
        let report = run(&inputs);
        let removed = removed_ids(&report);
        let out = dir.path().join("kept");
        let guard = neardup_report::OutputGuard::new(&inputs);
        let s = write_kept(&inputs, &report.kept, &out, &guard, &KeptOptions::default()).unwrap();
        prop_assert_eq!(s.files.len(), inputs.len());
        let mut written = 0;
        for (input, f) in inputs.iter().zip(&s.files) {
            let got = std::fs::read(&f.output).unwrap();
            // Written with the input's own compression.
            prop_assert_eq!(got.starts_with(&[0x1f, 0x8b]), input.to_string_lossy().ends_with(".gz"));
            prop_assert_eq!(decompress(&got), reference_lines(input, &removed));
            written += f.records_written;
            prop_assert_eq!(f.records_read, f.records_written + f.records_removed);
        }
        prop_assert_eq!(written as usize, n - removed.len());

        // With counts and languages: the same objects, each with its cluster's size, removed
        // copies and its text's language.
        let sizes: HashMap<String, u64> = report
            .tables
            .clusters
            .iter()
            .filter(|c| c.canonical)
            .map(|c| (c.id.clone(), c.cluster_size))
            .collect();
        let out2 = dir.path().join("kept-counts");
        let s = write_kept(&inputs, &report.kept, &out2, &guard, &KeptOptions { counts: true, language: true }).unwrap();
        for (input, f) in inputs.iter().zip(&s.files) {
            let got = decompress(&std::fs::read(&f.output).unwrap());
            let want = reference_lines(input, &removed);
            let got_lines: Vec<&[u8]> = got.split_inclusive(|&b| b == b'\n').collect();
            let want_lines: Vec<&[u8]> = want.split_inclusive(|&b| b == b'\n').collect();
            prop_assert_eq!(got_lines.len(), want_lines.len());
            for (g, w) in got_lines.iter().zip(&want_lines) {
                let mut g: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(g).unwrap();
                let w: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(w).unwrap();
                let size = g.remove(neardup_clean::CLUSTER_SIZE_FIELD).unwrap().as_u64().unwrap();
                let copies = g.remove(REMOVED_COPIES_FIELD).unwrap().as_u64().unwrap();
                let language = g.remove(neardup_clean::LANGUAGE_FIELD).unwrap();
                let want = neardup_text::language::detect(w["text"].as_str().unwrap());
                prop_assert_eq!(language.as_str().unwrap(), want.code());
                let id = w["id"].as_str().unwrap();
                prop_assert_eq!(size, sizes.get(id).copied().unwrap_or(1));
                prop_assert_eq!(copies, size - 1);
                prop_assert_eq!(&g, &w);
            }
        }
    }
}

#[test]
fn kept_parquet_has_the_inputs_schema_metadata_and_rows_less_the_removed() {
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    let dir = tempfile::tempdir().unwrap();
    let mut r = Rng(7);
    let docs = texts(&mut r, 60);
    let ids: Vec<String> = (0..docs.len()).map(|i| format!("d{i}")).collect();
    let numbers: Vec<Option<i64>> = (0..docs.len() as i64)
        .map(|i| (i % 4 != 0).then_some(i))
        .collect();
    let schema = Arc::new(
        Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("text", DataType::Utf8, false),
            Field::new("n", DataType::Int64, true),
        ])
        .with_metadata(HashMap::from([("origin".to_string(), "test".to_string())])),
    );
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from(ids)),
            Arc::new(StringArray::from(docs)),
            Arc::new(arrow_array::Int64Array::from(numbers)),
        ],
    )
    .unwrap();
    let input = dir.path().join("docs.parquet");
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(16))
        .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
        .build();
    let mut w =
        ArrowWriter::try_new(std::fs::File::create(&input).unwrap(), schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();

    let report = run(std::slice::from_ref(&input));
    let removed = removed_ids(&report);
    assert!(!removed.is_empty(), "the corpus has near-duplicates");
    let out = dir.path().join("kept");
    let guard = neardup_report::OutputGuard::new([&input]);
    let s = write_kept(
        std::slice::from_ref(&input),
        &report.kept,
        &out,
        &guard,
        &KeptOptions::default(),
    )
    .unwrap();
    let read = |p: &Path| {
        let b = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(p).unwrap()).unwrap();
        let compression = b.metadata().row_group(0).column(0).compression();
        let schema = b.schema().clone();
        let batches: Vec<RecordBatch> = b.build().unwrap().map(Result::unwrap).collect();
        (
            arrow_select::concat::concat_batches(&schema, &batches).unwrap(),
            schema,
            compression,
        )
    };
    let (got, got_schema, got_compression) = read(Path::new(&s.files[0].output));
    let (all, in_schema, in_compression) = read(&input);
    assert_eq!(
        got_schema, in_schema,
        "the same Arrow schema, metadata included"
    );
    assert_eq!(got_compression, in_compression);
    // The reference: the input's rows whose id was not removed, in order.
    let id_col = all
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let keep: Vec<usize> = (0..all.num_rows())
        .filter(|&i| !removed.contains(id_col.value(i)))
        .collect();
    assert_eq!(got.num_rows(), keep.len());
    assert_eq!(s.files[0].records_removed as usize, removed.len());
    for (c, col) in got.columns().iter().enumerate() {
        let want = all.column(c);
        for (row, &i) in keep.iter().enumerate() {
            assert_eq!(
                col.slice(row, 1).to_data(),
                want.slice(i, 1).to_data(),
                "column {c} row {row}"
            );
        }
    }
    // With counts: two UInt64 columns more, the cluster sizes the clusters table gives.
    let s = write_kept(
        std::slice::from_ref(&input),
        &report.kept,
        &dir.path().join("counts"),
        &guard,
        &KeptOptions {
            counts: true,
            language: true,
        },
    )
    .unwrap();
    let (got, schema, _) = read(Path::new(&s.files[0].output));
    assert_eq!(schema.fields().len(), in_schema.fields().len() + 3);
    let languages = got
        .column(5)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let texts = got
        .column(1)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    for row in 0..got.num_rows() {
        assert_eq!(
            languages.value(row),
            neardup_text::language::detect(texts.value(row)).code()
        );
    }
    let sizes: HashMap<String, u64> = report
        .tables
        .clusters
        .iter()
        .filter(|c| c.canonical)
        .map(|c| (c.id.clone(), c.cluster_size))
        .collect();
    let ids = got
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let size_col = got
        .column(3)
        .as_any()
        .downcast_ref::<arrow_array::UInt64Array>()
        .unwrap();
    let copies = got
        .column(4)
        .as_any()
        .downcast_ref::<arrow_array::UInt64Array>()
        .unwrap();
    for i in 0..got.num_rows() {
        let want = sizes.get(ids.value(i)).copied().unwrap_or(1);
        assert_eq!((size_col.value(i), copies.value(i)), (want, want - 1));
    }
}

#[test]
fn a_reference_input_takes_every_copy_of_its_documents_out_of_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Rng(11);
    let docs = texts(&mut r, 60);
    // The old dump holds every third document; the new one every document but a few.
    let line = |i: usize, tag: &str| format!(r#"{{"id":"{tag}-{i}","text":"{}"}}"#, docs[i]) + "\n";
    let old: String = (0..docs.len())
        .filter(|i| i % 3 == 0)
        .map(|i| line(i, "old"))
        .collect();
    let new: String = (0..docs.len())
        .filter(|i| i % 7 != 0)
        .map(|i| line(i, "new"))
        .collect();
    let (old_path, new_path) = (dir.path().join("old.jsonl"), dir.path().join("new.jsonl"));
    std::fs::write(&old_path, old).unwrap();
    std::fs::write(&new_path, new).unwrap();
    let run_with = |references: Vec<usize>| {
        let inputs = vec![Input::file(new_path.clone()), Input::file(old_path.clone())];
        let opts = DedupOptions {
            references,
            ..DedupOptions::default()
        };
        neardup_engine::dedup::run(&inputs, &DedupSettings::new(opts).unwrap(), &NoProgress)
            .unwrap()
    };
    let with = run_with(vec![1]);
    // Every cluster holding an old document keeps an old document; each other cluster keeps one.
    let mut by: HashMap<u64, Vec<&neardup_engine::dedup::ClusterRow>> = HashMap::new();
    for c in &with.tables.clusters {
        by.entry(c.cluster).or_default().push(c);
    }
    let mut dropped_by_reference = 0;
    for members in by.values() {
        let kept: Vec<_> = members.iter().filter(|m| m.canonical).collect();
        assert_eq!(kept.len(), 1);
        if members.iter().any(|m| m.id.starts_with("old-")) {
            assert!(kept[0].id.starts_with("old-"), "{members:?}");
            dropped_by_reference += members.iter().filter(|m| m.id.starts_with("new-")).count();
        }
    }
    assert!(dropped_by_reference > 0);
    // The kept corpus: the new dump alone, without those.
    let guard = neardup_report::OutputGuard::new([&new_path, &old_path]);
    let out = dir.path().join("kept");
    let s = write_kept(
        std::slice::from_ref(&new_path),
        &with.kept,
        &out,
        &guard,
        &KeptOptions::default(),
    )
    .unwrap();
    let removed_new: HashSet<String> = removed_ids(&with)
        .into_iter()
        .filter(|i| i.starts_with("new-"))
        .collect();
    assert_eq!(
        std::fs::read(out.join("new.jsonl")).unwrap(),
        reference_lines(&new_path, &removed_new)
    );
    assert_eq!(s.files.len(), 1);
    // Without the reference, a cluster may keep the new copy (the first in input order).
    let without = run_with(vec![]);
    assert!(without
        .tables
        .clusters
        .iter()
        .any(|c| c.canonical && c.id.starts_with("new-") && c.cluster_size > 1));
}
