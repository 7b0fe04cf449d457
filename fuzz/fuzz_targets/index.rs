#![no_main]
//! The index's file readers on arbitrary bytes: the manifest, a key segment (open, every
//! lookup path, check) and a catalog segment (open, every record, check), each also with its
//! magic prepended so that the fuzzer reaches the headers, and a key segment framed with right
//! checksums around arbitrary block bytes so that it reaches the packed blocks' decoder: never
//! a panic, never an allocation driven by a count or length field alone.

use libfuzzer_sys::fuzz_target;
use neardup_index::{CatalogPage, CatalogReader, KeySegmentReader, Manifest};
use std::sync::OnceLock;

static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();

fn with_magic(magic: &[u8], data: &[u8]) -> Vec<u8> {
    let mut v = magic.to_vec();
    v.extend_from_slice(data);
    v
}

/// A version 6 key segment whose one block is `data` after 10 bytes (u16 entries, u64 first
/// key), its header, directory and checksums right.
fn framed(data: &[u8]) -> Option<Vec<u8>> {
    let (head, block) = data.split_at_checked(10)?;
    let entries = u16::from_le_bytes([head[0], head[1]]) as u64 % 1025;
    let first = u64::from_le_bytes(head[2..10].try_into().ok()?);
    if entries == 0 {
        return None;
    }
    let xxh = xxhash_rust::xxh3::xxh3_64;
    let mut h = [0u8; 32];
    h[..8].copy_from_slice(b"NDIDXKEY");
    h[8..12].copy_from_slice(&neardup_index::manifest::INDEX_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&1024u32.to_le_bytes());
    h[16..24].copy_from_slice(&entries.to_le_bytes());
    h[24..32].copy_from_slice(&(block.len() as u64).to_le_bytes());
    let mut footer = first.to_le_bytes().to_vec();
    footer.extend_from_slice(&32u64.to_le_bytes());
    footer.extend_from_slice(&xxh(block).to_le_bytes());
    let mut sum = xxhash_rust::xxh3::Xxh3::new();
    sum.update(&h);
    sum.update(&footer);
    let mut file = h.to_vec();
    file.extend_from_slice(block);
    file.extend_from_slice(&footer);
    file.extend_from_slice(&sum.digest().to_le_bytes());
    file.extend_from_slice(b"NDIDXEND");
    Some(file)
}

fuzz_target!(|data: &[u8]| {
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap()).path();
    for bytes in [data.to_vec(), with_magic(b"NDIDXMAN", data)] {
        std::fs::write(dir.join("MANIFEST"), &bytes).unwrap();
        let _ = Manifest::open(dir);
    }
    let keys = dir.join("s.keys");
    let framed = framed(data);
    for bytes in [data.to_vec(), with_magic(b"NDIDXKEY", data)]
        .into_iter()
        .chain(framed)
    {
        std::fs::write(&keys, &bytes).unwrap();
        if let Ok(r) = KeySegmentReader::open(&keys) {
            let (mut scratch, mut out) = (Vec::new(), Vec::new());
            let probe = data.get(2..10).map_or(7, |b| u64::from_le_bytes(b.try_into().unwrap()));
            for key in [0, 1, u64::MAX, probe, probe.wrapping_add(1 << 40)] {
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
