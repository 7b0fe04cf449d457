#![no_main]
//! Paragraph dedup (`neardup paragraphs --write-clean`) on arbitrary JSONL bytes: never a
//! panic; every span it reports lies inside its document's text on character boundaries,
//! units in order; the cleaned corpus holds one line for every line read.

use libfuzzer_sys::fuzz_target;
use neardup_clean::{paragraphs, ParagraphOptions, Unit};
use neardup_ingest::{open_source, Page, ReadOptions};
use neardup_pipeline::{Input, NoProgress, PipelineConfig};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, rest).unwrap();
    let out = dir.path().join("clean");
    let guard = neardup_report::OutputGuard::new([&input]);
    let options = ParagraphOptions {
        unit: if sel % 2 == 0 { Unit::Paragraph } else { Unit::Line },
        min_chars: usize::from(sel >> 4),
        tmp_dir: dir.path().to_path_buf(),
        mem_limit: 1 << 20,
        ..ParagraphOptions::default()
    };
    let mut pipeline = PipelineConfig::default();
    pipeline.threads = 1;
    pipeline.allow_empty = true;
    // Each record's text as the reader gives it (the file may be compressed), by record number.
    let mut texts = std::collections::HashMap::new();
    if let Ok(mut src) = open_source(&input, None, 0, &ReadOptions::default()) {
        let mut page = Page::default();
        while let Ok(true) = src.next_page(&mut page) {
            texts.insert(u64::from(page.id.ordinal), String::from_utf8_lossy(&page.body).into_owned());
        }
    }
    let mut last: Option<(u64, u32)> = None;
    let r = paragraphs(
        &[Input::file(input.clone())],
        &pipeline,
        &options,
        Some((&out, &guard)),
        &NoProgress,
        |s| {
            let text = texts.get(&s.record).expect("a span of a record read");
            let chars = text.chars().count() as u64;
            assert!(s.start < s.end && s.end <= chars, "{s:?} of {chars} characters");
            assert!(last < Some((s.record, s.unit)), "spans in order: {last:?} then {s:?}");
            last = Some((s.record, s.unit));
            Ok(())
        },
    );
    if r.is_ok() {
        // The cleaned corpus reads back with as many records as were read.
        let clean = out.join("in.jsonl");
        if let Ok(mut src) = open_source(&clean, None, 0, &ReadOptions::default()) {
            let mut page = Page::default();
            let mut n = 0;
            while let Ok(true) = src.next_page(&mut page) {
                n += 1;
            }
            assert_eq!(n, texts.len());
        }
    }
});
