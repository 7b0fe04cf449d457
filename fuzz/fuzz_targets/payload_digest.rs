#![no_main]
//! `PayloadDigest::parse` (index digest, `GET /v1/digest`, `/cdx`'s digest filter, WARC
//! headers) on arbitrary text: never a panic; a digest it accepts writes a canonical form that
//! reads back as the same digest, and its base32 and hex forms do too.

use libfuzzer_sys::fuzz_target;
use neardup_ingest::digest::{base32, PayloadDigest};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(d) = PayloadDigest::parse(&text) {
        assert_eq!(PayloadDigest::parse(&d.canonical()), Some(d));
        if let PayloadDigest::Sha1(s) = d {
            assert_eq!(PayloadDigest::parse(&base32(&s).to_lowercase()), Some(d));
            let hex: String = s.iter().map(|b| format!("{b:02X}")).collect();
            assert_eq!(PayloadDigest::parse(&format!("SHA-1:{hex}")), Some(d));
        }
    }
});
