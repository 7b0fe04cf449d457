//! Text of web pages as neardup sees it: charset decoding, Henzinger's HTML tokenization
//! (paper 003, section 2), links, line/sentence/paragraph boundaries, and the URL rules (host,
//! Henzinger's site, registered domain).
//!
//! ```
//! use neardup_text::{Document, Tokenizer};
//!
//! let tok = Tokenizer::default();
//! let mut doc = Document::new();
//! tok.html(b"<title>Hi</title><p>Visit www.Example.com/a.html <img src=\"/i/logo.png\">",
//!          None, "http://example.com/", &mut doc);
//! let terms: Vec<&str> = doc.terms().collect();
//! assert_eq!(terms, ["hi", "visit", "www", "example", "com", "a", "html", "logo.png"]);
//! ```

mod chars;
mod charset;
mod document;
mod entities;
pub mod language;
mod plain;
mod title;
mod tokenize;
mod url;
mod zones;

pub use crate::charset::{charset_param, decode, meta_charset, sniff, CharsetSource};
pub use crate::document::{Document, Scope, SignatureTerms, Terms};
pub use crate::plain::{text_terms, TermScratch};
pub use crate::title::TitleKey;
pub use crate::tokenize::{is_unsegmented_cjk, Tokenizer, TokenizerConfig};
pub use crate::url::{
    canonical_link, henzinger_site, host_of, host_span, is_ip_literal, normalize_url,
    registered_domain, resolve_link,
};
pub use crate::zones::{MIN_LANDMARK_TERMS, MIN_MAIN_TERMS, NAME_TERM};

#[cfg(test)]
mod tests;
