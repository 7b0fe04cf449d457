#![no_main]
//! The jsonl reader on arbitrary bytes (plain, or gzip/zstd when the bytes start like it): never a
//! panic, never an endless loop, never an allocation driven by a length field alone. The same
//! bytes read with their lines left undecoded and decoded afterwards (`defer_decoding`,
//! `decode`: what a run's workers do) give the same pages. Then each page with a `raw_offset`
//! is read again alone there (`read_records_at`) as the same page.

use libfuzzer_sys::fuzz_target;
use neardup_ingest::{open_bytes, read_records_at, Format, Page, ReadOptions};
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let opts = ReadOptions { max_record_bytes: 1 << 20, ..Default::default() };
    let Ok(mut src) = open_bytes(data.to_vec(), Format::Jsonl, "fuzz", &opts) else { return };
    let mut page = Page::default();
    let mut read = Vec::new();
    let mut all = Vec::new();
    let mut pages = 0usize;
    while let Ok(true) = src.next_page(&mut page) {
        pages += 1;
        if all.len() < 256 {
            all.push((page.offset, page.url.clone(), page.record_id.clone(), page.body.clone()));
        }
        if read.len() < 64 && page.raw_offset.is_some() {
            read.push(std::mem::take(&mut page));
        }
    }
    let later = ReadOptions { defer_decoding: true, ..opts.clone() };
    if let Ok(mut src) = open_bytes(data.to_vec(), Format::Jsonl, "fuzz", &later) {
        let (mut scratch, mut n) = (Vec::new(), 0);
        let mut page = Page::default();
        while let Ok(true) = src.next_page(&mut page) {
            if neardup_ingest::decode(&mut page, &later.fields, &mut scratch).is_err() {
                continue;
            }
            if let Some((offset, url, id, body)) = all.get(n) {
                assert_eq!((page.offset, &page.url, &page.record_id, &page.body), (*offset, url, id, body));
            }
            n += 1;
        }
        assert_eq!(n, pages, "pages decoded later");
    }
    if read.is_empty() {
        return;
    }
    let Ok(mut file) = tempfile::NamedTempFile::new() else { return };
    if file.write_all(data).is_err() {
        return;
    }
    let at: Vec<u64> = read.iter().filter_map(|p| p.raw_offset).collect();
    let Ok(alone) = read_records_at(file.path(), Some(Format::Jsonl), &at, 0, &opts) else {
        return;
    };
    for p in &read {
        let q = alone.iter().find(|(r, _)| Some(*r) == p.raw_offset);
        let (_, q) = q.expect("a page read in full is read alone at its offset");
        assert_eq!((&q.url, &q.record_id, &q.body), (&p.url, &p.record_id, &p.body));
    }
});
