//! neardup-clean's integration tests, one binary (a module a file): contamination and paragraphs
//! on real files.

mod common;
mod contamination;
mod paragraphs;
