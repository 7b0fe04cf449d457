//! The catalog's tests: records round-trip, every damage is named, every older format reads.

use super::*;

#[test]
fn checked_records_round_trip_and_every_damage_is_an_error() {
    for i in [7, 8] {
        checked_record_round_trips(page(i));
    }
}

fn checked_record_round_trips(p: CatalogPage) {
    let m = p.minvalues.len() as u32;
    let (mut rec, mut scratch) = (Vec::new(), Vec::new());
    p.encode_checked(&mut rec, &mut scratch);
    let mut back = CatalogPage::default();
    back.decode_checked(&rec, m).unwrap();
    assert_eq!(back, p);
    assert!(back.decode_checked(&rec, m + 1).is_err(), "another m");
    for cut in 0..rec.len() {
        assert!(back.decode_checked(&rec[..cut], m).is_err(), "cut at {cut}");
    }
    for i in 0..rec.len() {
        let mut bad = rec.clone();
        bad[i] ^= 0x40;
        assert!(back.decode_checked(&bad, m).is_err(), "byte {i} flipped");
    }
}

fn page(i: u64) -> CatalogPage {
    let set: Vec<u32> = match i % 2 {
        // High bits that an index keeping b-bit sets cuts (leaving 1, 5, 9, 1000 + i).
        0 => vec![1, 5, 9 | 1 << 30, (1000 + i as u32) | 1 << 31],
        _ => Vec::new(),
    };
    // Every fourth page's minvalues are members of its set (told by place from version 12).
    let minvalues = match i % 4 {
        0 => (0..4).map(|k| set[(k + i as usize) % 4]).collect(),
        _ => (0..4)
            .map(|k| ((i * 4 + k) as u32).wrapping_mul(0x0101_0101))
            .collect(),
    };
    CatalogPage {
        url: format!("https://a.example/{i}/é"),
        user_id: format!("<urn:uuid:{i}>"),
        date: "2024-01-01T00:00:00Z".into(),
        host: "a.example".into(),
        token_hash: i * 7,
        body_hash: i * 11,
        payload_sha1: [i as u8; 20],
        payload_sha256: [i as u8 ^ 0x5a; 32],
        chrome: 0.25,
        tokens: i as u32,
        shingles: 3,
        title: [i as u32, 0, 5, 0],
        minvalues,
        minvalue_bits: 32,
        shingle_set: set,
        set_bits: 32,
        print: if i.is_multiple_of(3) {
            Vec::new()
        } else {
            vec![1, i as u8, 0xff]
        },
        language: Language::from_bytes(*b"jpn"),
    }
}

impl CatalogPage {
    fn decode_v8(&mut self, b: &[u8], m: u32) -> Result<(), &'static str> {
        v8::decode(b, m, self, true)
    }
}

#[test]
fn a_catalog_keeps_the_bits_and_prints_its_storage_says() {
    let dir = tempfile::tempdir().unwrap();
    for (bits, prints, set_bits) in [
        (8, false, 18),
        (16, false, 20),
        (16, true, 30),
        (16, false, 32),
        (32, false, 32),
        (32, true, 32),
    ] {
        let storage = crate::Storage {
            minvalue_bits: bits,
            capture_prints: prints,
            key_bits: 64,
            set_bits,
        };
        let path = dir.path().join(format!("c{bits}{prints}{set_bits}.pages"));
        let mut w = CatalogWriter::create(&path, 4, storage, 0).unwrap();
        for i in 0..50 {
            w.push(&page(i)).unwrap();
        }
        w.finish().unwrap();
        let r = CatalogReader::open(&path).unwrap();
        assert_eq!(r.check().unwrap(), 50);
        let (mut p, mut rec, mut again) = (CatalogPage::default(), Vec::new(), Vec::new());
        for i in 0..50 {
            r.get(i, &mut p).unwrap();
            let want = page(i);
            let low = |v: u32| neardup_candidates::low_bits(v, bits);
            assert_eq!(p.minvalue_bits, bits);
            assert_eq!(
                p.minvalues,
                want.minvalues.iter().map(|&v| low(v)).collect::<Vec<_>>()
            );
            let print = if prints {
                want.print.clone()
            } else {
                Vec::new()
            };
            let mut set = Vec::new();
            neardup_candidates::narrow_set(&want.shingle_set, set_bits, &mut set);
            assert_eq!(set.len(), want.shingle_set.len());
            let rest = CatalogPage {
                minvalues: p.minvalues.clone(),
                minvalue_bits: bits,
                shingle_set: set,
                set_bits: if want.shingle_set.is_empty() {
                    32
                } else {
                    set_bits
                },
                print,
                ..want
            };
            assert_eq!(p, rest);
            // One encoding per page: what was read writes the same bytes again.
            let narrow = &mut Vec::new();
            compact::encode(
                &p,
                &storage,
                None,
                compact::Layout::Packed,
                narrow,
                &mut rec,
            );
            let mut back = CatalogPage::default();
            compact::decode(&rec, 4, &mut back, true, &[], compact::Layout::Packed).unwrap();
            compact::encode(
                &back,
                &storage,
                None,
                compact::Layout::Packed,
                narrow,
                &mut again,
            );
            assert_eq!((back, &again), (p.clone(), &rec));
        }
        // A catalog of fewer bits takes no page of more; one of more refuses fewer.
        let mut w = CatalogWriter::create(
            &dir.path().join("x.pages"),
            4,
            crate::Storage::EVERYTHING,
            0,
        )
        .unwrap();
        assert_eq!(w.push(&p).is_ok(), bits == 32 && p.set_bits == 32);
    }
    let bad = crate::Storage {
        minvalue_bits: 12,
        ..crate::Storage::DEFAULT
    };
    assert!(CatalogWriter::create(&dir.path().join("y.pages"), 4, bad, 0).is_err());
}

#[test]
fn urls_share_their_segments_prefixes_and_versions_9_10_and_12_read_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let urls = |i: u64| match i % 5 {
        0 => format!("https://docs.example/std/collections/struct.Map{i}.html"),
        1 => format!("https://docs.example/std/io/fn.read{i}.html?v=/a/b#x/y"),
        2 => format!("http://a.b/{i}"),
        // Its host is told lowercased, without the final dot.
        3 => format!("https://user@Other.Example.:8080/{i}"),
        _ => format!("https://docs.example/std/collections/?page={i}"),
    };
    let pages: Vec<CatalogPage> = (0..200)
        .map(|i| CatalogPage {
            url: urls(i),
            host: neardup_text::host_of(&urls(i)).unwrap_or_default(),
            ..page(i)
        })
        .collect();
    let mut readers = Vec::new();
    for version in [9, 10, 12, INDEX_VERSION] {
        let path = dir.path().join(format!("v{version}.pages"));
        let mut w = CatalogWriter::create(&path, 4, crate::Storage::EVERYTHING, 0)
            .unwrap()
            .writing_version(version);
        for p in &pages {
            w.push(p).unwrap();
        }
        w.finish().unwrap();
        readers.push(CatalogReader::open(&path).unwrap());
    }
    // Three directories (two shared by 80 pages each, `https://user@Other…/` by 40);
    // `http://a.b/` is too short to be one.
    assert_eq!(readers[3].prefixes.len(), 3);
    assert!(readers[0].prefixes.is_empty() && readers[1].prefixes.is_empty());
    assert!(
        readers[2].size() + 200 * 20 < readers[1].size(),
        "{} vs {}",
        readers[2].size(),
        readers[1].size()
    );
    // Version 13's offset entries take 9 bytes where 12's took 16.
    assert_eq!(readers[2].size() - readers[3].size(), 200 * 7);
    for r in &readers {
        assert_eq!(r.check().unwrap(), 200);
        let (mut got, mut buf) = (CatalogPage::default(), Vec::new());
        for (i, want) in pages.iter().enumerate() {
            r.get(i as u64, &mut got).unwrap();
            assert_eq!(&got, want);
            r.get_for_scoring(i as u64, &mut got, &mut buf).unwrap();
            assert_eq!(
                (got.url.as_str(), got.host.as_str()),
                ("", want.host.as_str())
            );
        }
    }
    // A damaged table is named when the segment is opened, never read as other URLs.
    let path = dir.path().join(format!("v{INDEX_VERSION}.pages"));
    let mut bytes = std::fs::read(&path).unwrap();
    let at = readers[3].records_end as usize + 5;
    bytes[at] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    let e = CatalogReader::open(&path).unwrap_err().to_string();
    assert!(e.contains("prefix table"), "{e}");
    // A record naming a prefix its segment does not hold is refused.
    let mut rec = Vec::new();
    compact::encode(
        &pages[0],
        &crate::Storage::EVERYTHING,
        Some(3),
        compact::Layout::Packed,
        &mut Vec::new(),
        &mut rec,
    );
    let short = [compact::Prefix::new(
        "https://docs.example/std/collections/",
    )];
    let mut p = CatalogPage::default();
    assert!(compact::decode(&rec, 4, &mut p, true, &short, compact::Layout::Packed).is_err());
    compact::encode(
        &pages[0],
        &crate::Storage::EVERYTHING,
        Some(0),
        compact::Layout::Packed,
        &mut Vec::new(),
        &mut rec,
    );
    compact::decode(&rec, 4, &mut p, true, &short, compact::Layout::Packed).unwrap();
    assert_eq!(p, pages[0]);
    assert!(compact::decode(&rec, 4, &mut p, true, &[], compact::Layout::Packed).is_err());
}

#[test]
fn compact_records_name_every_damage() {
    let (mut rec, mut p) = (Vec::new(), CatalogPage::default());
    for i in 0..6 {
        let mut want = page(i);
        if i == 1 {
            // Nothing short: another host, an id and date kept as text, no digests.
            want.host = "other.example".into();
            want.user_id = "row-7".into();
            want.date = "2024-01-01".into();
            want.payload_sha1 = [0; 20];
            want.payload_sha256 = [0; 32];
        }
        want.encode(&mut rec);
        p.decode(&rec, 4).unwrap();
        assert_eq!(p, want);
        for cut in 0..rec.len() {
            assert!(p.decode(&rec[..cut], 4).is_err(), "page {i} cut at {cut}");
        }
        let mut longer = rec.clone();
        longer.push(0);
        assert!(p.decode(&longer, 4).is_err());
    }
}

#[test]
fn version_3_to_6_records_read_with_no_print_sha256_or_language() {
    let p = page(5);
    let mut rec = Vec::new();
    p.encode_v8(&mut rec);
    // A version 6 record is this one without its language; version 4 also without its
    // SHA-256; version 3 also without its print length and bytes.
    let v6 = &rec[..rec.len() - 3];
    let v4 = &v6[..v6.len() - 32];
    let v3 = &v4[..v4.len() - 4 - p.print.len()];
    let mut back = CatalogPage::default();
    back.decode_v8(v6, 4).unwrap();
    let no_language = CatalogPage {
        language: Language::UNKNOWN,
        ..p.clone()
    };
    assert_eq!(back, no_language);
    back.decode_v8(v4, 4).unwrap();
    let unknown = CatalogPage {
        payload_sha256: [0; 32],
        ..no_language.clone()
    };
    assert_eq!(back, unknown);
    back.decode_v8(v3, 4).unwrap();
    assert_eq!(
        back,
        CatalogPage {
            print: Vec::new(),
            ..unknown.clone()
        }
    );
    back.decode_v8(&rec, 4).unwrap();
    assert_eq!(back, p);
    // A print length past the bound is refused; so is a cut SHA-256.
    let mut big = v3.to_vec();
    big.extend_from_slice(&(MAX_PRINT_BYTES as u32 + 1).to_le_bytes());
    big.extend(std::iter::repeat_n(0u8, MAX_PRINT_BYTES + 1));
    assert!(back.decode_v8(&big, 4).is_err());
    assert!(back.decode_v8(&rec[..rec.len() - 1], 4).is_err());
}

#[test]
fn round_trip_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.pages");
    let mut w = CatalogWriter::create(&path, 4, crate::Storage::EVERYTHING, 1000).unwrap();
    for i in 0..500 {
        assert_eq!(w.push(&page(i)).unwrap(), 1000 + i);
    }
    assert!(w.push(&CatalogPage::default()).is_err());
    let (n, bytes) = w.finish().unwrap();
    assert_eq!((n, bytes), (500, std::fs::metadata(&path).unwrap().len()));
    let r = CatalogReader::open(&path).unwrap();
    assert_eq!(r.ids(), 1000..1500);
    assert_eq!(r.check().unwrap(), 500);
    let mut p = CatalogPage::default();
    for i in [0u64, 1, 250, 499] {
        r.get(1000 + i, &mut p).unwrap();
        assert_eq!(p, page(i));
    }
    assert!(r.get(1500, &mut p).is_err());
}

#[test]
fn huge_counts_in_a_header_are_named() {
    // Found by the fuzzer: a page count whose offsets would overflow, and a first id whose
    // range would.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("h.pages");
    for (first, pages) in [(0u64, u64::MAX / 16), (0, u64::MAX), (u64::MAX, 1)] {
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&INDEX_VERSION.to_le_bytes());
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&first.to_le_bytes());
        b.extend_from_slice(&pages.to_le_bytes());
        b.extend_from_slice(&[0; 64]);
        std::fs::write(&d, &b).unwrap();
        let e = CatalogReader::open(&d).unwrap_err().to_string();
        assert!(e.contains("too many"), "{e}");
    }
}

#[test]
fn damage_is_named_never_returned() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.pages");
    let mut w = CatalogWriter::create(&path, 4, crate::Storage::DEFAULT, 0).unwrap();
    for i in 0..40 {
        w.push(&page(i)).unwrap();
    }
    w.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let d = dir.path().join("d.pages");
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x04;
        std::fs::write(&d, &b).unwrap();
        let r = CatalogReader::open(&d).and_then(|r| r.check());
        assert!(r.is_err(), "byte {i}");
    }
    for cut in (0..bytes.len()).step_by(7) {
        std::fs::write(&d, &bytes[..cut]).unwrap();
        assert!(
            CatalogReader::open(&d).and_then(|r| r.check()).is_err(),
            "cut {cut}"
        );
    }
}
