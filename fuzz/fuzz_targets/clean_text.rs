#![no_main]
//! The clean jobs' text handling on arbitrary bytes: a JSONL line's field found and replaced in
//! place (the result is JSON whenever the line was, with only that field changed), units cut out
//! of a text (what is left re-splits into exactly the units kept), contamination cuts (never
//! inside a character, never a panic).

use libfuzzer_sys::fuzz_target;
use neardup_clean::paragraphs::{units, without_units, Unit};

fuzz_target!(|data: &[u8]| {
    if let Some(f) = neardup_clean::json::string_field(data, "text") {
        let out = f.replaced(data, "x y");
        if let Ok(mut before) = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(data) {
            let mut after: serde_json::Map<String, serde_json::Value> =
                serde_json::from_slice(&out).expect("a replaced JSON line is JSON");
            assert_eq!(after.remove("text"), Some(serde_json::json!("x y")));
            before.remove("text");
            assert_eq!(after, before);
        }
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    for unit in [Unit::Paragraph, Unit::Line] {
        let spans = units(text, unit);
        let cut: Vec<u32> = (0..spans.len() as u32).filter(|i| i % 2 == 1).collect();
        let left = without_units(text, &spans, &cut);
        let kept: Vec<&str> = spans
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, &(s, e))| &text[s..e])
            .collect();
        let back: Vec<&str> = units(&left, unit).iter().map(|&(s, e)| &left[s..e]).collect();
        assert_eq!(back, kept);
    }
    let mut words = Vec::new();
    neardup_clean::contamination::words(text, &mut words);
    if let (Some(a), Some(b)) = (words.first(), words.last()) {
        let (out, _) = neardup_clean::contamination::cut_spans(text, &[(a.start, b.end)], 3);
        assert!(out.len() <= text.len() + 1);
    }
});
