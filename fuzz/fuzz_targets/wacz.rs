#![no_main]
//! The WACZ package reader (its zip reader: central directory, ZIP64, the salvage scan of
//! local headers and data descriptors) and `datapackage.json`'s reader on arbitrary bytes:
//! never a panic, never an endless loop, never an allocation driven by a length field alone; a
//! stored member's bytes are the window of the file its entry gives.

use libfuzzer_sys::fuzz_target;
use neardup_ingest::wacz::{parse_datapackage, Method, MemberReader, Package};
use std::io::{Cursor, Read, Seek, SeekFrom};

fuzz_target!(|data: &[u8]| {
    let Ok(p) = Package::read(&mut Cursor::new(data), data.len() as u64) else { return };
    for m in &p.members {
        assert!(m.data_start + m.compressed <= data.len() as u64, "{m:?}");
        let Ok(mut r) = MemberReader::new(Cursor::new(data), m) else { continue };
        let mut out = Vec::new();
        let _ = (&mut r).take(1 << 20).read_to_end(&mut out);
        if m.method == Method::Stored {
            let start = m.data_start as usize;
            assert_eq!(out, &data[start..start + m.size as usize]);
        }
        // A seek back lands where a read from the start would.
        let half = out.len() / 2;
        if r.seek(SeekFrom::Start(half as u64)).is_ok() {
            let mut b = [0u8; 1];
            if r.read(&mut b).unwrap_or(0) == 1 {
                assert_eq!(b[0], out[half]);
            }
        }
        if m.name == "datapackage.json" {
            let _ = parse_datapackage(&out);
        }
    }
});
