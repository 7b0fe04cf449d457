#![no_main]
//! The kept-corpus writer (`dedup --write-kept`, `neardup.dedup(write_kept=...)`) on arbitrary
//! JSONL or WARC bytes: every other record the readers read is removed, the rest written out;
//! never a panic, and the file written reads back as exactly the kept records (URL and body),
//! in order.

use libfuzzer_sys::fuzz_target;
use neardup_clean::{write_kept, KeptOptions, KeptPlan};
use neardup_ingest::{open_source, Page, ReadOptions};
use std::path::Path;

fn pages(path: &Path) -> Vec<(u32, String, Vec<u8>)> {
    let Ok(mut src) = open_source(path, None, 0, &ReadOptions::default()) else {
        return Vec::new();
    };
    let mut page = Page::default();
    let mut out = Vec::new();
    while let Ok(true) = src.next_page(&mut page) {
        out.push((page.id.ordinal, page.url.clone(), page.body.clone()));
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let ext = ["jsonl", "warc"][usize::from(sel % 2)];
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join(format!("in.{ext}"));
    std::fs::write(&input, rest).unwrap();
    let before = pages(&input);
    let mut plan = KeptPlan::new(1);
    let keep = |ordinal: u32| (ordinal ^ u32::from(sel >> 1)) % 2 == 0;
    for (ordinal, _, _) in &before {
        if !keep(*ordinal) {
            plan.removed(0, *ordinal);
        }
    }
    let out = dir.path().join("out");
    let guard = neardup_report::OutputGuard::new([&input]);
    let options = KeptOptions {
        counts: sel & 4 != 0,
        language: false,
    };
    if write_kept(&[input.clone()], &plan, &out, &guard, &options).is_err() {
        return;
    }
    let after: Vec<(String, Vec<u8>)> = pages(&out.join(format!("in.{ext}")))
        .into_iter()
        .map(|(_, u, b)| (u, b))
        .collect();
    let want: Vec<(String, Vec<u8>)> = before
        .into_iter()
        .filter(|(o, _, _)| keep(*o))
        .map(|(_, u, b)| (u, b))
        .collect();
    if !options.counts {
        assert_eq!(after, want);
    } else {
        assert_eq!(after.len(), want.len());
    }
});
