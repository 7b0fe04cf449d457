#![no_main]
//! The signature file parser on arbitrary bytes, with a valid checksum appended so that the
//! fuzzer reaches the header and record parsing: never a panic, never an allocation driven by a
//! count field alone.

use libfuzzer_sys::fuzz_target;
use neardup_store::SignatureReader;

fuzz_target!(|data: &[u8]| {
    let _ = SignatureReader::parse(data);
    let mut v = Vec::with_capacity(data.len() + 16);
    v.extend_from_slice(neardup_store::MAGIC);
    v.extend_from_slice(data);
    let sum = xxhash_rust::xxh3::xxh3_64(&v);
    v.extend_from_slice(&sum.to_le_bytes());
    let _ = SignatureReader::parse(&v);
});
