//! Where a catalog's bytes go: `catalog_bytes DIR` reads every record of the index in DIR and
//! prints, per catalog segment and for the whole index, the pages, the records' bytes, the
//! bytes of their shingle sets and minvalues (the record's length less its length without the
//! set, plus the minvalues kept whole), and how many pages repeat the set and minvalues of an
//! earlier page of their segment, or of any earlier segment, with those pages' signature bytes.
//! Measures what storing an identical signature once would save (bench/results).

use neardup_index::catalog::compact::{self, Layout};
use neardup_index::{CatalogPage, CatalogReader, Snapshot};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Default)]
struct Tally {
    pages: u64,
    record_bytes: u64,
    signature_bytes: u64,
    repeats_in_segment: u64,
    repeat_bytes_in_segment: u64,
    repeats_anywhere: u64,
    repeat_bytes_anywhere: u64,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.pages += o.pages;
        self.record_bytes += o.record_bytes;
        self.signature_bytes += o.signature_bytes;
        self.repeats_in_segment += o.repeats_in_segment;
        self.repeat_bytes_in_segment += o.repeat_bytes_in_segment;
        self.repeats_anywhere += o.repeats_anywhere;
        self.repeat_bytes_anywhere += o.repeat_bytes_anywhere;
    }

    fn print(&self, name: &str) {
        let per = |b: u64| b as f64 / self.pages.max(1) as f64;
        println!(
            "{name}: {} pages, records {:.1} B/page, sets and minvalues {:.1} B/page; repeats in \
             their segment {} ({:.1}%, {:.1} B/page), of any earlier page {} ({:.1}%, {:.1} B/page)",
            self.pages,
            per(self.record_bytes),
            per(self.signature_bytes),
            self.repeats_in_segment,
            100.0 * self.repeats_in_segment as f64 / self.pages.max(1) as f64,
            per(self.repeat_bytes_in_segment),
            self.repeats_anywhere,
            100.0 * self.repeats_anywhere as f64 / self.pages.max(1) as f64,
            per(self.repeat_bytes_anywhere),
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args_os()
            .nth(1)
            .ok_or("usage: catalog_bytes DIR")?,
    );
    let snap = Snapshot::open(&dir)?;
    let storage = snap.manifest().storage;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pages"))
        .collect();
    files.sort();
    let (mut all, mut seen) = (Tally::default(), HashMap::<Vec<u32>, u64>::new());
    let mut narrow = Vec::new();
    let (mut page, mut bare, mut rec) =
        (CatalogPage::default(), CatalogPage::default(), Vec::new());
    for path in files {
        let r = CatalogReader::open(&path)?;
        let mut t = Tally::default();
        let mut here = HashMap::<Vec<u32>, u64>::new();
        for id in r.ids() {
            r.get(id, &mut page)?;
            compact::encode(&page, &storage, None, Layout::Packed, &mut narrow, &mut rec);
            let full = rec.len() as u64;
            bare.clone_from(&page);
            bare.shingle_set.clear();
            compact::encode(&bare, &storage, None, Layout::Packed, &mut narrow, &mut rec);
            let whole = page.minvalues.len() as u64 * u64::from(storage.minvalue_bits) / 8;
            let sig = full - rec.len() as u64 + whole;
            t.pages += 1;
            t.record_bytes += full;
            t.signature_bytes += sig;
            let mut key = page.minvalues.clone();
            key.push(u32::MAX);
            key.extend_from_slice(&page.shingle_set);
            if here.insert(key.clone(), id).is_some() {
                t.repeats_in_segment += 1;
                t.repeat_bytes_in_segment += sig;
            }
            if seen.insert(key, id).is_some() {
                t.repeats_anywhere += 1;
                t.repeat_bytes_anywhere += sig;
            }
        }
        t.print(&path.display().to_string());
        all.add(&t);
    }
    all.print("index");
    Ok(())
}
