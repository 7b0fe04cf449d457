#![no_main]
//! The Parquet reader on arbitrary bytes (written to a file, as the reader reads files): never a
//! panic, never an endless loop; a malformed file is one counted problem.

use libfuzzer_sys::fuzz_target;
use neardup_ingest::{open_source, Format, Page, ReadOptions};
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let Ok(mut file) = tempfile::NamedTempFile::new() else { return };
    if file.write_all(data).is_err() {
        return;
    }
    let opts = ReadOptions { max_record_bytes: 1 << 20, ..Default::default() };
    let Ok(mut src) = open_source(file.path(), Some(Format::Parquet), 0, &opts) else { return };
    let mut page = Page::default();
    while let Ok(true) = src.next_page(&mut page) {}
});
