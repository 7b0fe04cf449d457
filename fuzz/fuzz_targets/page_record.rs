#![no_main]
//! `CatalogPage::decode_checked` (the page records an add in parts ships from the machines that
//! sketch to the ones that write segments) on arbitrary bytes, and on the same bytes behind the
//! version byte and the number of minvalues with a valid checksum appended, so the fuzzer
//! reaches the fields: never a
//! panic, and a record it accepts encodes to a record that decodes and encodes to the same bytes.

use libfuzzer_sys::fuzz_target;
use neardup_index::catalog::PAGE_RECORD_VERSION;
use neardup_index::CatalogPage;

fn check(bytes: &[u8], m: u32) {
    let mut page = CatalogPage::default();
    if page.decode_checked(bytes, m).is_ok() {
        let (mut again, mut scratch) = (Vec::new(), Vec::new());
        page.encode_checked(&mut again, &mut scratch);
        let mut back = CatalogPage::default();
        back.decode_checked(&again, m).expect("a re-encoded record decodes");
        // Compared as bytes: a NaN chrome share is a page equal to itself.
        let mut third = Vec::new();
        back.encode_checked(&mut third, &mut scratch);
        assert_eq!(third, again);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&m, data)) = data.split_first() else {
        return;
    };
    let m = u32::from(m % 8);
    check(data, m);
    let mut v = vec![PAGE_RECORD_VERSION, m as u8];
    v.extend_from_slice(data);
    let sum = xxhash_rust::xxh3::xxh3_64(&v);
    v.extend_from_slice(&sum.to_le_bytes());
    check(&v, m);
});
