#![no_main]
//! The streaming signature file reader on arbitrary bytes, with a valid checksum appended so
//! that the fuzzer reaches the header and record parsing: never a panic, never an allocation
//! driven by a count or length field alone.

use libfuzzer_sys::fuzz_target;
use neardup_store::{PageRecord, SignatureReader};
use std::path::Path;

fn read(bytes: &[u8]) {
    let Ok(mut r) = SignatureReader::from_reader(bytes, Path::new("fuzz")) else {
        return;
    };
    let mut rec = PageRecord::default();
    while let Ok(true) = r.next_record(&mut rec) {}
}

fuzz_target!(|data: &[u8]| {
    read(data);
    let mut v = Vec::with_capacity(data.len() + 16);
    v.extend_from_slice(neardup_store::MAGIC);
    v.extend_from_slice(data);
    let sum = xxhash_rust::xxh3::xxh3_64(&v);
    v.extend_from_slice(&sum.to_le_bytes());
    read(&v);
});
