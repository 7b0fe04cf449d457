//! Prints a page's terms as the main-content rules see them: main-content terms as they are,
//! the others in brackets. A tool for looking at why a page's signature holds what it holds.
//!
//! `cargo run -p neardup-text --example main_terms -- PAGE.html [URL]`

#![allow(clippy::disallowed_methods)] // a tool that reads the page it is given

use neardup_text::{Document, Scope, Tokenizer, TokenizerConfig};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: main_terms PAGE.html [URL]");
        std::process::exit(2);
    };
    let url = args
        .next()
        .unwrap_or_else(|| "https://example.test/".into());
    let html = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let tok = Tokenizer::new(TokenizerConfig::default());
    let mut doc = Document::new();
    tok.html_str(&html, &url, &mut doc);
    let mut out = String::new();
    for i in 0..doc.len() {
        if doc.is_main(i) {
            out.push_str(doc.term(i));
        } else {
            out.push('[');
            out.push_str(doc.term(i));
            out.push(']');
        }
        out.push(' ');
    }
    println!("{out}");
    println!(
        "title: {:?}; {} terms, {} main, uses main: {}",
        doc.title(),
        doc.len(),
        doc.main_len(),
        doc.uses_main(Scope::Main)
    );
}
