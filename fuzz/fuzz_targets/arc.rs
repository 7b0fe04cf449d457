#![no_main]
//! The arc reader on arbitrary bytes (plain, or gzip/zstd when the bytes start like it): never a
//! panic, never an endless loop, never an allocation driven by a length field alone.

use libfuzzer_sys::fuzz_target;
use neardup_ingest::{open_bytes, Format, Page, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let opts = ReadOptions { max_record_bytes: 1 << 20, ..Default::default() };
    let Ok(mut src) = open_bytes(data.to_vec(), Format::Arc, "fuzz", &opts) else { return };
    let mut page = Page::default();
    while let Ok(true) = src.next_page(&mut page) {}
});
