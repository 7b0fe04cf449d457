//! A damaged gzip member (or record) costs that member only. One member of a multi-member
//! WARC.gz or JSONL.gz (one record of a plain WARC) is cut short, flipped, salted with junk or
//! the file truncated inside it, at random; every other record must be read, once, as the
//! oracle read it from the undamaged file (`tests/fixtures/members.json`: warcio for WARC, gzip
//! and json for JSONL; `tests/fixtures/make_members.py`), and a record of the damaged member
//! that is not read is counted as a problem.

use std::collections::HashMap;

use neardup_ingest::{open_bytes, Format, Page, ReadOptions};
use proptest::prelude::*;
use sha1::{Digest, Sha1};

fn fixture(name: &str) -> Vec<u8> {
    crate::fixture_bytes(name)
}

/// One unit of damage (a member, or a plain WARC's record) and the pages it holds: URL and
/// SHA-1 of the body as the oracle read them.
struct Unit {
    offset: usize,
    length: usize,
    pages: Vec<(String, String)>,
}

/// The oracle's units of `name`.
fn units(name: &str) -> Vec<Unit> {
    let oracle: serde_json::Value =
        serde_json::from_slice(&fixture("members.json")).expect("members.json");
    let entries = oracle[name].as_array().expect("the file's entries");
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    entries
        .iter()
        .map(|e| {
            let pages = match e.get("rows") {
                Some(rows) => rows
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| (text(&r["url"]), text(&r["sha1"])))
                    .collect(),
                None if e["type"] == "response" => vec![(text(&e["uri"]), text(&e["sha1"]))],
                None => vec![],
            };
            Unit {
                offset: e["offset"].as_u64().unwrap() as usize,
                length: e["length"].as_u64().unwrap() as usize,
                pages,
            }
        })
        .collect()
}

/// Every page read: URL -> SHA-1s of the bodies read under it; and the problems counted.
fn read(bytes: Vec<u8>, format: Format) -> (HashMap<String, Vec<String>>, u64) {
    let mut src = open_bytes(bytes, format, "members", &ReadOptions::default()).unwrap();
    let mut page = Page::default();
    let mut pages: HashMap<String, Vec<String>> = HashMap::new();
    while src.next_page(&mut page).unwrap() {
        let sha1 = Sha1::digest(&page.body)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        pages.entry(page.url.clone()).or_default().push(sha1);
    }
    (pages, src.stats().problem_count())
}

/// How one unit is damaged; `at` and `len` are fractions of the unit.
#[derive(Clone, Copy, Debug)]
enum Harm {
    /// The unit's bytes from `at` on are removed (a member cut short; the next one follows).
    CutShort(f64),
    /// One byte at `at` is changed.
    Flip(f64, u8),
    /// Junk is put in at `at`: a gzip header and rubbish (a member start inside the damage).
    Junk(f64, u8),
    /// The file ends at `at` inside the unit (after its first byte).
    Truncate(f64),
    /// `len` bytes from `at` on are removed (a hole inside the unit).
    Hole(f64, f64),
}

fn harm(mut bytes: Vec<u8>, unit: &Unit, how: Harm) -> Vec<u8> {
    let at = |f: f64| unit.offset + ((unit.length as f64 * f) as usize).min(unit.length - 1);
    match how {
        Harm::CutShort(f) => {
            bytes.drain(at(f).max(unit.offset + 1)..unit.offset + unit.length);
        }
        Harm::Flip(f, x) => bytes[at(f)] ^= x.max(1),
        Harm::Junk(f, seed) => {
            let mut junk = vec![0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3];
            junk.extend((0..40u8).map(|i| i.wrapping_mul(seed | 1).wrapping_add(seed)));
            // Not as the file's first bytes: a gzip header there makes the file gzip.
            let i = at(f).max(1);
            bytes.splice(i..i, junk);
        }
        // At least one byte of the unit stays: a file cut where a record ends is whole.
        Harm::Truncate(f) => bytes.truncate(at(f).max(unit.offset + 1)),
        Harm::Hole(f, len) => {
            let from = at(f);
            let to =
                (from + 1 + (unit.length as f64 * len) as usize).min(unit.offset + unit.length);
            bytes.drain(from..to);
        }
    }
    bytes
}

/// Reads `name` with unit `i` damaged and checks every other unit's pages are read, once, as
/// the oracle read them.
fn check(name: &str, format: Format, i: usize, how: Harm) -> Result<(), TestCaseError> {
    let units = units(name);
    let i = i % units.len();
    let bytes = harm(fixture(name), &units[i], how);
    let (pages, problems) = read(bytes, format);
    let truncated = matches!(how, Harm::Truncate(_));
    for (j, unit) in units.iter().enumerate() {
        if j == i || (truncated && j > i) {
            continue;
        }
        for (url, sha1) in &unit.pages {
            let read = pages
                .get(url)
                .map_or(0, |s| s.iter().filter(|s| *s == sha1).count());
            prop_assert_eq!(
                read,
                1,
                "{} with unit {} ({:?}) damaged: {} of unit {} read {} times as it was",
                name,
                i,
                how,
                url,
                j,
                read
            );
        }
    }
    // Nothing read that the file did not hold, but the damaged unit's pages, which may come
    // out damaged (a plain WARC carries no checksum the reader checks), no more of them than
    // the unit held.
    let held: usize = pages
        .iter()
        .map(|(url, sha1s)| {
            sha1s
                .iter()
                .filter(|s| {
                    units
                        .iter()
                        .flat_map(|u| &u.pages)
                        .any(|(u, o)| u == url && o == *s)
                })
                .count()
        })
        .sum();
    let unknown = pages.values().map(Vec::len).sum::<usize>() - held;
    prop_assert!(
        unknown <= units[i].pages.len(),
        "{} with unit {} ({:?}) damaged: {} pages read that no record held",
        name,
        i,
        how,
        unknown
    );
    // A page of the damaged unit that is not read is counted, or (a plain WARC's header, which
    // no checksum covers, damaged into another valid header) read under what its header now
    // says.
    let lost = units[i].pages.iter().any(|(u, _)| !pages.contains_key(u));
    let plain = !name.ends_with(".gz");
    prop_assert!(
        !lost || problems > 0 || (plain && unknown > 0),
        "{} with unit {} ({:?}) damaged: a page lost and no problem counted",
        name,
        i,
        how
    );
    Ok(())
}

fn harms() -> impl Strategy<Value = Harm> {
    prop_oneof![
        (0.0..1.0f64).prop_map(Harm::CutShort),
        (0.0..1.0f64, any::<u8>()).prop_map(|(f, x)| Harm::Flip(f, x)),
        (0.0..1.0f64, any::<u8>()).prop_map(|(f, s)| Harm::Junk(f, s)),
        (0.0..1.0f64).prop_map(Harm::Truncate),
        (0.0..1.0f64, 0.0..0.5f64).prop_map(|(f, l)| Harm::Hole(f, l)),
    ]
}

#[test]
fn undamaged_files_read_as_the_oracle_read_them() {
    for (name, format) in [
        ("members.warc.gz", Format::Warc),
        ("members.warc", Format::Warc),
        ("members.jsonl.gz", Format::Jsonl),
    ] {
        let (pages, problems) = read(fixture(name), format);
        let want: HashMap<String, Vec<String>> = units(name)
            .into_iter()
            .flat_map(|u| u.pages)
            .map(|(u, s)| (u, vec![s]))
            .collect();
        assert!(want.len() >= 36, "{name}");
        assert_eq!(pages, want, "{name}");
        assert_eq!(problems, 0, "{name}");
    }
}

/// The defect of issue 58: three JSONL members of 25 rows, the middle one cut in half.
#[test]
fn a_jsonl_member_cut_in_half_loses_its_own_rows_only() {
    check("members.jsonl.gz", Format::Jsonl, 1, Harm::CutShort(0.5)).unwrap();
    check("members.warc.gz", Format::Warc, 5, Harm::CutShort(0.5)).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_damaged_warc_member_costs_that_member_only(i in 0usize..1000, how in harms()) {
        check("members.warc.gz", Format::Warc, i, how)?;
    }

    #[test]
    fn a_damaged_jsonl_member_costs_that_member_only(i in 0usize..1000, how in harms()) {
        check("members.jsonl.gz", Format::Jsonl, i, how)?;
    }

    #[test]
    fn a_damaged_plain_warc_record_costs_that_record_only(i in 0usize..1000, how in harms()) {
        check("members.warc", Format::Warc, i, how)?;
    }
}
