#![no_main]
//! The index's file readers on arbitrary bytes: the manifest, a key segment (open, every
//! lookup path, check) and a catalog segment (open, every record, check), each also with its
//! magic prepended so that the fuzzer reaches the headers: never a panic, never an allocation
//! driven by a count or length field alone.

use libfuzzer_sys::fuzz_target;
use neardup_index::{CatalogPage, CatalogReader, KeySegmentReader, Manifest};
use std::sync::OnceLock;

static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();

fn with_magic(magic: &[u8], data: &[u8]) -> Vec<u8> {
    let mut v = magic.to_vec();
    v.extend_from_slice(data);
    v
}

fuzz_target!(|data: &[u8]| {
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap()).path();
    for bytes in [data.to_vec(), with_magic(b"NDIDXMAN", data)] {
        std::fs::write(dir.join("MANIFEST"), &bytes).unwrap();
        let _ = Manifest::open(dir);
    }
    let keys = dir.join("s.keys");
    for bytes in [data.to_vec(), with_magic(b"NDIDXKEY", data)] {
        std::fs::write(&keys, &bytes).unwrap();
        if let Ok(r) = KeySegmentReader::open(&keys) {
            let (mut scratch, mut out) = (Vec::new(), Vec::new());
            for key in [0, 1, u64::MAX] {
                let _ = r.lookup(key, &mut scratch, &mut out);
            }
            let _ = r.check(|_| true);
        }
    }
    let pages = dir.join("s.pages");
    for bytes in [data.to_vec(), with_magic(b"NDIDXPAG", data)] {
        std::fs::write(&pages, &bytes).unwrap();
        if let Ok(r) = CatalogReader::open(&pages) {
            let mut p = CatalogPage::default();
            for id in r.ids().take(64) {
                let _ = r.get(id, &mut p);
            }
            let _ = r.check();
        }
    }
});
