//! Where one thread's sketching time goes on plain-text pages: `sketch_stages CORPUS.jsonl [N]`
//! reads the `text` field of the first N lines (default all) into memory, then times, on one
//! thread, tokenizing alone, tokenizing plus term fingerprints, shingles, sorting and min-hashing
//! alone, the whole sketch through a document and without one (`Sketcher::sketch_text`), and
//! `text_terms` alone (the peers' benchmark settings: 5-word shingles without wrap-around, 128
//! one-permutation minvalues, every term), printing MB/s and ns per term for each.

use neardup_sketch::{Content, Family, SketchParams, Sketcher};
use neardup_text::{Document, Scope, Tokenizer};
use std::io::BufRead as _;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let path = a.first().ok_or("usage: sketch_stages CORPUS.jsonl [N]")?;
    let n: usize = a
        .get(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(usize::MAX);
    let mut texts = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(path)?)
        .lines()
        .take(n)
    {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        texts.push(v["text"].as_str().unwrap_or("").to_string());
    }
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let tok = Tokenizer::default();
    let mut doc = Document::new();
    let mut params = SketchParams::default().with_minhashes(128);
    params.content = Content::Page;
    params.k = 5;
    params.wrap = false;
    let family = Family::new(&params);
    let mut sk = Sketcher::new(family.clone());
    sk.keep_sets_upto(params.exact_sets as usize);
    let report = |name: &str, secs: f64, terms: usize| {
        println!(
            "{name:<24} {:>7.1} MB/s {:>6.1} ns/term",
            bytes as f64 / secs / 1e6,
            secs * 1e9 / terms as f64
        );
    };
    let mut terms = 0usize;
    let t = Instant::now();
    for text in &texts {
        tok.text(text, &mut doc);
        terms += doc.len();
    }
    report("tokenize", t.elapsed().as_secs_f64(), terms);
    let t = Instant::now();
    let mut x = 0u64;
    for text in &texts {
        tok.text(text, &mut doc);
        for term in doc.signature_terms(Scope::Page) {
            x ^= family.term_fingerprint(term);
        }
    }
    report("+ term fingerprints", t.elapsed().as_secs_f64(), terms);
    // Term fingerprints, kept, to time the later steps alone.
    let mut fps: Vec<Vec<u64>> = Vec::new();
    for text in &texts {
        tok.text(text, &mut doc);
        fps.push(
            doc.signature_terms(Scope::Page)
                .map(|t| family.term_fingerprint(t))
                .collect(),
        );
    }
    let mut sh = Vec::new();
    let mut mv = vec![0u64; 128];
    let t = Instant::now();
    for f in &fps {
        neardup_sketch::shingles(&family, f, &mut sh);
        x ^= sh.first().copied().unwrap_or(0);
    }
    report("shingles alone", t.elapsed().as_secs_f64(), terms);
    let t = Instant::now();
    let mut distinct = 0;
    for f in &fps {
        neardup_sketch::shingles(&family, f, &mut sh);
        sh.sort_unstable();
        sh.dedup();
        distinct += sh.len();
    }
    report("shingles + sort", t.elapsed().as_secs_f64(), terms);
    let t = Instant::now();
    for f in &fps {
        neardup_sketch::shingles(&family, f, &mut sh);
        if !sh.is_empty() {
            neardup_sketch::minhash(&family, &sh, &mut mv);
        }
        x ^= mv[0];
    }
    report("shingles + minhash", t.elapsed().as_secs_f64(), terms);
    println!("distinct shingles {distinct}");
    let t = Instant::now();
    for text in &texts {
        tok.text(text, &mut doc);
        if let Some(s) = sk.sketch(doc.signature_terms(Scope::Page)) {
            x ^= s.minvalues[0];
        }
    }
    report("+ sketch", t.elapsed().as_secs_f64(), terms);
    let t = Instant::now();
    for text in &texts {
        if let Some(s) = sk.sketch_text(text) {
            x ^= s.minvalues[0];
        }
    }
    report("sketch_text", t.elapsed().as_secs_f64(), terms);
    let mut scratch = neardup_text::TermScratch::default();
    let t = Instant::now();
    for text in &texts {
        neardup_text::text_terms(text, &mut scratch, |t| x ^= t.len() as u64);
    }
    report("text_terms alone", t.elapsed().as_secs_f64(), terms);
    let t = Instant::now();
    for text in &texts {
        neardup_text::text_terms(text, &mut scratch, |t| x ^= family.term_fingerprint(t));
    }
    report("+ term fingerprints", t.elapsed().as_secs_f64(), terms);
    println!(
        "{} pages, {bytes} bytes, {terms} terms ({x:x})",
        texts.len()
    );
    Ok(())
}
