#![no_main]
//! The HTML report over an output folder whose files are arbitrary bytes: the first byte picks
//! whose folder it is (dedup, mirrors, evolve, overlap, replicas, eval, site eval), the rest is
//! cut at 0xFF bytes into its files. Building the report returns a page or an error, never a
//! panic, and a page it builds twice is the same bytes.

use libfuzzer_sys::fuzz_target;

const FOLDERS: [&[&str]; 7] = [
    &["clusters.jsonl", "summary.json", "samples.jsonl", "pairs.jsonl"],
    &["mirrors.jsonl", "summary.json"],
    &["coefficients.jsonl", "summary.json", "events.jsonl", "recrawl.jsonl", "fig4-containment.svg"],
    &["overlap.jsonl", "summary.json", "server-overlap.jsonl"],
    &["replicas.jsonl", "summary.json", "sites.jsonl"],
    &["eval.json", "pr.svg"],
    &["site-eval.json", "roc.svg"],
];

fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let files = FOLDERS[kind as usize % FOLDERS.len()];
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files.iter().zip(rest.split(|&b| b == 0xFF)) {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let limits = neardup_html::Limits::default();
    if let Ok(a) = neardup_html::build(dir.path(), &limits) {
        let b = neardup_html::build(dir.path(), &limits).expect("the same folder again");
        assert_eq!(a.html, b.html);
    }
});
