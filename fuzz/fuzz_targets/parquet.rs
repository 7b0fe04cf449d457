#![no_main]
//! The Parquet reader on arbitrary bytes (written to a file, as the reader reads files): never a
//! panic, never an endless loop; a malformed file is one counted problem. Then the rows it read,
//! and rows named by the input's first bytes, read again alone (`read_records_at`, column by
//! column): each row read in full is read alone as the same page.

use libfuzzer_sys::fuzz_target;
use neardup_ingest::{open_source, read_records_at, Format, Page, ReadOptions};
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let Ok(mut file) = tempfile::NamedTempFile::new() else { return };
    if file.write_all(data).is_err() {
        return;
    }
    let opts = ReadOptions { max_record_bytes: 1 << 20, ..Default::default() };
    let Ok(mut src) = open_source(file.path(), Some(Format::Parquet), 0, &opts) else { return };
    let mut page = Page::default();
    let mut read = Vec::new();
    while let Ok(true) = src.next_page(&mut page) {
        if read.len() < 64 {
            read.push(std::mem::take(&mut page));
        }
    }
    let (pages, problems) = (src.stats().pages, src.stats().problems.len());
    let threaded = ReadOptions { file_threads: 3, ..opts.clone() };
    if let Ok(mut src) = open_source(file.path(), Some(Format::Parquet), 0, &threaded) {
        let mut n = 0;
        while let Ok(true) = src.next_page(&mut page) {
            if let Some(p) = read.get(n) {
                assert_eq!((&page.url, &page.record_id, &page.body, page.offset), (&p.url, &p.record_id, &p.body, p.offset));
            }
            n += 1;
        }
        assert_eq!((src.stats().pages, src.stats().problems.len()), (pages, problems));
    }
    let mut rows: Vec<u64> = read.iter().filter_map(|p| p.raw_offset).collect();
    rows.extend(data.iter().take(4).map(|&b| u64::from(b)));
    rows.push(u64::MAX);
    let Ok(alone) = read_records_at(file.path(), Some(Format::Parquet), &rows, 0, &opts) else {
        return;
    };
    for p in &read {
        if let Some((_, q)) = alone.iter().find(|(r, _)| Some(*r) == p.raw_offset) {
            assert_eq!((&q.url, &q.record_id, &q.body), (&p.url, &p.record_id, &p.body));
        }
    }
});
