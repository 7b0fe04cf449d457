//! The evidence of a pair: its schema lives in `neardup-evidence`.

pub use neardup_evidence::{Evidence, Rule, TitleMatch};
