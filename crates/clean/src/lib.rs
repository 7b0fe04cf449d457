//! Clean datasets, not lists: what a dedup run decided, applied to the user's own files.
//!
//! * [`mod@kept`]: the kept corpus written out in the input's own format (JSONL in, plain, gzip or
//!   zstd: the same out; Parquet in: Parquet out with the same Arrow schema), record by record
//!   in input order, one output file per input file, every byte of a kept record untouched;
//!   optionally each kept record gains its cluster's size and its number of removed copies.
//!
//! * [`mod@paragraphs`]: repeated paragraphs or lines counted over the whole corpus in bounded
//!   memory and cut by a stated policy (the first copy kept, or boilerplate dropped), every cut
//!   a row with its evidence, the cleaned corpus written in the input's format.
//!
//! * [`mod@contamination`]: evaluation items' word n-grams indexed once, the corpus streamed past
//!   them; every matching span with its character offsets; spans cut with a margin, or
//!   documents dropped.
//!
//! The decisions come from the engine as a [`KeptPlan`] (which records of which input were
//! removed, and the clusters of those kept); this crate only reads the inputs again and writes
//! what the plan keeps, atomically, never over an input or a file neardup did not write.
//!
//! ```
//! use neardup_clean::{write_kept, KeptOptions, KeptPlan};
//! let dir = tempfile::tempdir().unwrap();
//! let input = dir.path().join("docs.jsonl");
//! std::fs::write(&input, "{\"text\":\"a\"}\n{\"text\":\"a\"}\n{\"text\":\"b\"}\n").unwrap();
//! // The engine's dedup removed record 1 (a copy of record 0, kept in a cluster of 2).
//! let mut plan = KeptPlan::new(1);
//! plan.removed(0, 1);
//! plan.kept_in_cluster(0, 0, 2);
//! let out = dir.path().join("kept");
//! let guard = neardup_report::OutputGuard::new([&input]);
//! let s = write_kept(&[input], &plan, &out, &guard, &KeptOptions::default()).unwrap();
//! assert_eq!(s.files[0].records_written, 2);
//! let text = std::fs::read_to_string(out.join("docs.jsonl")).unwrap();
//! assert_eq!(text, "{\"text\":\"a\"}\n{\"text\":\"b\"}\n");
//! ```

pub mod contamination;
pub mod json;
pub mod kept;
pub mod paragraphs;
mod rewrite;

pub use crate::contamination::{
    contamination, cut_spans, index_eval, read_eval, Action, ContaminationOptions,
    ContaminationRow, ContaminationSummary, EvalIndex, Span, DEFAULT_MARGIN, DEFAULT_NGRAM,
};
pub use crate::kept::{
    check_inputs, write_kept, CleanError, KeptFile, KeptOptions, KeptPlan, KeptSummary,
    CLUSTER_SIZE_FIELD, LANGUAGE_FIELD, REMOVED_COPIES_FIELD,
};
pub use crate::paragraphs::{
    char_offsets, cut_document, paragraphs, DocumentCut, LanguageCuts, ParagraphFile,
    ParagraphOptions, ParagraphSettingError, ParagraphSummary, Policy, RepeatedUnit, SpanRow, Unit,
    UnitKeys, DEFAULT_MAX_DOCS, DEFAULT_MIN_CHARS,
};
