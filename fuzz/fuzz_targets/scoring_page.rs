#![no_main]
//! `ScoringPage::decode` (the records a distributed run ships between its steps) on arbitrary
//! bytes, and on the same bytes behind the version byte with a valid checksum appended, so the
//! fuzzer reaches the fields: never a panic, and a record it accepts encodes back to the same
//! bytes.

use libfuzzer_sys::fuzz_target;
use neardup_dedup::parts::{ScoringPage, SCORING_PAGE_VERSION};

fn check(bytes: &[u8]) {
    let mut page = ScoringPage::default();
    if page.decode(bytes).is_ok() {
        let mut again = Vec::new();
        page.encode(&mut again);
        assert_eq!(again, bytes);
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let mut v = vec![SCORING_PAGE_VERSION];
    v.extend_from_slice(data);
    let sum = xxhash_rust::xxh3::xxh3_64(&v);
    v.extend_from_slice(&sum.to_le_bytes());
    check(&v);
});
