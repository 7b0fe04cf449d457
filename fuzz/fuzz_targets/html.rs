#![no_main]
//! The HTML tokenizer (charset sniffing, decoding, markup, entities, links) on arbitrary bytes.

use libfuzzer_sys::fuzz_target;
use neardup_text::{Document, Tokenizer, TokenizerConfig};

fuzz_target!(|data: &[u8]| {
    let tok = Tokenizer::new(TokenizerConfig { links: true, img_terms: true });
    let mut doc = Document::new();
    tok.html(data, None, "http://fuzz.example/a/b.html", &mut doc);
    for b in [doc.lines(), doc.sentences(), doc.paragraphs()] {
        assert!(b.windows(2).all(|w| w[0] < w[1]));
        assert!(b.iter().all(|&i| (i as usize) < doc.len()));
    }
    assert!(doc.terms().all(|t| !t.is_empty()));
});
