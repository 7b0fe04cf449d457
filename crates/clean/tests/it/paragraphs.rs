//! Repeated paragraphs against a brute-force reference: every unit keyed and counted in a plain
//! map, the policy applied document by document. The run's cuts (which units, character offsets,
//! counts, first holders) must equal the reference's; the cleaned text must hold exactly the
//! units kept, none glued to another; spilling sorts give the same answer as sorts in memory.
//! Texts mix Latin, CJK and Hebrew, CRLF and LF, blank lines of spaces.

use neardup_clean::{paragraphs, ParagraphOptions, Policy, SpanRow, Unit};
use neardup_pipeline::{Input, PipelineConfig};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::common::Rng;

const POOL: [&str; 6] = [
    "Home | Products | About us | Contact | Privacy",
    "We use cookies to improve your experience on this site.",
    "東京都の天気は晴れ、明日は雨の予報です。気温は二十度。",
    "זוהי פסקה בעברית שחוזרת על עצמה במסמכים רבים מאוד",
    "Short one",
    "HOME | products | about US | contact | privacy!!",
];

fn word(r: &mut Rng) -> String {
    match r.below(4) {
        0 => format!("語{}", r.below(50)),
        1 => format!("מילה{}", r.below(50)),
        _ => format!("w{}", r.below(400)),
    }
}

/// `n` documents: paragraphs from a small pool (repeated across and within documents) and
/// fresh ones, separated by blank lines of varying form.
fn docs(seed: u64, n: usize) -> Vec<String> {
    let mut r = Rng(seed | 1);
    (0..n)
        .map(|_| {
            let mut text = String::new();
            if r.below(3) == 0 {
                text.push_str(" \n");
            }
            let paras = 1 + r.below(5);
            for p in 0..paras {
                if p > 0 {
                    text.push_str(["\n\n", "\r\n\r\n", "\n  \n\n"][r.below(3) as usize]);
                }
                if r.below(2) == 0 {
                    text.push_str(POOL[r.below(POOL.len() as u64) as usize]);
                } else {
                    let lines = 1 + r.below(2);
                    for l in 0..lines {
                        if l > 0 {
                            text.push('\n');
                        }
                        let words: Vec<String> =
                            (0..(3 + r.below(8))).map(|_| word(&mut r)).collect();
                        text.push_str(&words.join(" "));
                    }
                }
            }
            if r.below(2) == 0 {
                text.push('\n');
            }
            text
        })
        .collect()
}

fn key(text: &str) -> Option<Vec<String>> {
    let mut d = neardup_text::Document::default();
    neardup_text::Tokenizer::default().text(text, &mut d);
    (!d.is_empty()).then(|| d.terms().map(str::to_string).collect())
}

/// A cut as the tests compare it: (start char, end char, docs, first record, first unit).
type Cut = (u64, u64, u64, u64, u32);
/// The cuts by (record, unit).
type Cuts = HashMap<(u64, u32), Cut>;
/// A unit's key: its documents and first holder.
type Seen = HashMap<Vec<String>, (HashSet<u64>, (u64, u32))>;

/// The reference: (record, unit) -> its cut.
fn reference(texts: &[String], o: &ParagraphOptions) -> Cuts {
    let units: Vec<Vec<(usize, usize)>> = texts
        .iter()
        .map(|t| neardup_clean::paragraphs::units(t, o.unit))
        .collect();
    let mut seen: Seen = HashMap::new();
    let mut keyed = Vec::new();
    for (d, (t, us)) in texts.iter().zip(&units).enumerate() {
        for (u, &(s, e)) in us.iter().enumerate() {
            if t[s..e].chars().count() < o.min_chars {
                continue;
            }
            let Some(k) = key(&t[s..e]) else { continue };
            let entry = seen
                .entry(k.clone())
                .or_insert_with(|| (HashSet::new(), (d as u64, u as u32)));
            entry.0.insert(d as u64);
            keyed.push((d as u64, u as u32, k, s, e));
        }
    }
    let mut out = HashMap::new();
    for (d, u, k, s, e) in keyed {
        let (holders, first) = &seen[&k];
        let docs = holders.len() as u64;
        let cut = match o.policy {
            Policy::FirstCopy => (d, u) != *first,
            Policy::Boilerplate { max_docs } => docs > u64::from(max_docs),
        };
        if cut {
            let t = &texts[d as usize];
            let start = t[..s].chars().count() as u64;
            let end = start + t[s..e].chars().count() as u64;
            out.insert((d, u), (start, end, docs, first.0, first.1));
        }
    }
    out
}

fn run(dir: &Path, texts: &[String], o: &ParagraphOptions) -> (Vec<SpanRow>, Vec<String>) {
    let input = dir.join("docs.jsonl");
    let body: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            serde_json::json!({"id": format!("d{i}"), "text": t, "n": i}).to_string() + "\n"
        })
        .collect();
    std::fs::write(&input, body).unwrap();
    let clean = dir.join("clean");
    let guard = neardup_report::OutputGuard::new([&input]);
    let mut rows = Vec::new();
    let pipeline = PipelineConfig {
        threads: 2,
        ..PipelineConfig::default()
    };
    paragraphs(
        &[Input::file(input)],
        &pipeline,
        o,
        Some((&clean, &guard)),
        &neardup_pipeline::NoProgress,
        |r| {
            rows.push(r.clone());
            Ok(())
        },
    )
    .unwrap();
    let cleaned = std::fs::read_to_string(clean.join("docs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["text"].as_str().unwrap().to_string()
        })
        .collect();
    (rows, cleaned)
}

fn check(texts: &[String], o: &ParagraphOptions) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let (rows, cleaned) = run(dir.path(), texts, o);
    let want = reference(texts, o);
    let got: Cuts = rows
        .iter()
        .map(|r| {
            (
                (r.record, r.unit),
                (r.start, r.end, r.docs, r.first_record, r.first_unit),
            )
        })
        .collect();
    prop_assert_eq!(got.len(), rows.len(), "a unit cut twice");
    prop_assert_eq!(&got, &want);
    // Rows come in input order.
    let order: Vec<(u64, u32)> = rows.iter().map(|r| (r.record, r.unit)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    prop_assert_eq!(order, sorted);
    // The cleaned text holds exactly the units kept, in order, none joined to another.
    for (d, (t, c)) in texts.iter().zip(&cleaned).enumerate() {
        let kept: Vec<&str> = neardup_clean::paragraphs::units(t, o.unit)
            .iter()
            .enumerate()
            .filter(|(u, _)| !want.contains_key(&(d as u64, *u as u32)))
            .map(|(_, &(s, e))| &t[s..e])
            .collect();
        let back: Vec<&str> = neardup_clean::paragraphs::units(c, o.unit)
            .iter()
            .map(|&(s, e)| &c[s..e])
            .collect();
        prop_assert_eq!(back, kept, "document {}", d);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn cuts_equal_the_brute_force_reference(
        seed in any::<u64>(),
        n in 1usize..40,
        line in any::<bool>(),
        boilerplate in proptest::option::of(1u32..5),
        min_chars in prop_oneof![Just(0usize), Just(10), Just(30)],
    ) {
        let o = ParagraphOptions {
            unit: if line { Unit::Line } else { Unit::Paragraph },
            policy: boilerplate.map_or(Policy::FirstCopy, |k| Policy::Boilerplate { max_docs: k }),
            min_chars,
            ..ParagraphOptions::default()
        };
        check(&docs(seed, n), &o)?;
    }
}

#[test]
fn sorts_that_spill_give_the_answer_of_sorts_in_memory() {
    let texts = docs(42, 3000);
    let dir = tempfile::tempdir().unwrap();
    let mut o = ParagraphOptions {
        min_chars: 0,
        ..ParagraphOptions::default()
    };
    let (in_memory, clean_a) = run(dir.path(), &texts, &o);
    o.mem_limit = 1 << 17;
    let (spilled, clean_b) = run(dir.path(), &texts, &o);
    assert!(in_memory.len() > 1000, "{}", in_memory.len());
    assert_eq!(in_memory.len(), spilled.len());
    assert!(in_memory == spilled, "the cuts differ");
    assert!(clean_a == clean_b, "the cleaned texts differ");
}
