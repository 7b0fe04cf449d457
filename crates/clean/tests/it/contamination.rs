//! Contamination against a brute-force reference: every n-gram of every document compared word
//! by word with every n-gram of every evaluation item (the first item holding it named), spans
//! merged as documented; the run's rows must equal the reference's. Documents mix Latin, CJK
//! and Hebrew; the leaked items come back in other case and punctuation.

use neardup_clean::{contamination, Action, ContaminationOptions};
use neardup_pipeline::{Input, PipelineConfig};
use proptest::prelude::*;
use std::collections::HashMap;

use crate::common::Rng;

const VOCAB: [&str; 12] = [
    "the", "answer", "is", "paris", "東", "京", "שלום", "עולם", "x", "equals", "four", "café",
];

fn text(r: &mut Rng, words: usize) -> String {
    let mut t = String::new();
    for i in 0..words {
        if i > 0 {
            t.push_str([" ", ", ", "\n", " - "][r.below(4) as usize]);
        }
        t.push_str(VOCAB[r.below(VOCAB.len() as u64) as usize]);
    }
    t
}

/// Words as the documentation defines them, written here without the library: lowercased
/// runs of letters and digits, a Han, Hiragana or Katakana character alone.
fn ref_words(t: &str) -> Vec<(usize, usize, String)> {
    let mut out: Vec<(usize, usize, String)> = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    for (i, c) in t.char_indices() {
        let cjk = matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xf900..=0xfaff);
        if cjk || !c.is_alphanumeric() {
            if let Some((s, w)) = cur.take() {
                out.push((s, i, w));
            }
            if cjk {
                out.push((i, i + c.len_utf8(), c.to_string()));
            }
        } else {
            let e = cur.get_or_insert((i, String::new()));
            e.1.extend(c.to_lowercase());
        }
    }
    if let Some((s, w)) = cur {
        out.push((s, t.len(), w));
    }
    out
}

/// (record, item id, start char, end char, n-grams) of every span.
fn reference(docs: &[String], items: &[String], n: usize) -> Vec<(u64, String, u64, u64, u64)> {
    let mut first: HashMap<Vec<String>, usize> = HashMap::new();
    for (k, it) in items.iter().enumerate() {
        let ws: Vec<String> = ref_words(it).into_iter().map(|w| w.2).collect();
        for g in ws.windows(n) {
            first.entry(g.to_vec()).or_insert(k);
        }
    }
    let mut rows = Vec::new();
    for (d, t) in docs.iter().enumerate() {
        let ws = ref_words(t);
        let mut hits: Vec<(usize, usize)> = Vec::new();
        if ws.len() >= n {
            for i in 0..=ws.len() - n {
                let g: Vec<String> = ws[i..i + n].iter().map(|w| w.2.clone()).collect();
                if let Some(&k) = first.get(&g) {
                    hits.push((k, i));
                }
            }
        }
        hits.sort_unstable();
        let mut spans = Vec::new();
        let mut i = 0;
        while i < hits.len() {
            let (k, a) = hits[i];
            let (mut last, mut count) = (a, 1);
            i += 1;
            while i < hits.len() && hits[i].0 == k && hits[i].1 <= last + n {
                last = hits[i].1;
                count += 1;
                i += 1;
            }
            let (s, e) = (ws[a].0, ws[last + n - 1].1);
            let start = t[..s].chars().count() as u64;
            spans.push((
                d as u64,
                format!("q{k}"),
                start,
                start + t[s..e].chars().count() as u64,
                count,
            ));
        }
        spans.sort_by(|x, y| (x.2, &x.1).cmp(&(y.2, &y.1)));
        rows.extend(spans);
    }
    rows
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn spans_equal_the_brute_force_reference(seed in any::<u64>(), n in 2usize..6, docs_n in 1usize..25) {
        let mut r = Rng(seed | 1);
        let items: Vec<String> = (0..4).map(|_| { let k = 3 + r.below(12) as usize; text(&mut r, k) }).collect();
        let mut leaked = false;
        let docs: Vec<String> = (0..docs_n)
            .map(|_| {
                let k = r.below(30) as usize;
                let mut t = text(&mut r, k);
                if r.below(2) == 0 {
                    // A leaked item, in upper case with other punctuation.
                    let it = &items[r.below(items.len() as u64) as usize];
                    leaked |= ref_words(it).len() >= n;
                    t.push_str(". ");
                    t.push_str(&it.to_uppercase().replace(", ", "; "));
                    t.push(' ');
                    let k = r.below(10) as usize;
                    t.push_str(&text(&mut r, k));
                }
                t
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let eval = dir.path().join("eval.jsonl");
        std::fs::write(&eval, items.iter().enumerate().map(|(k, t)| serde_json::json!({"id": format!("q{k}"), "text": t}).to_string() + "\n").collect::<String>()).unwrap();
        let corpus = dir.path().join("docs.jsonl");
        std::fs::write(&corpus, docs.iter().enumerate().map(|(d, t)| serde_json::json!({"id": d, "text": t}).to_string() + "\n").collect::<String>()).unwrap();
        let options = ContaminationOptions { ngram: n, action: Action::Report, ..ContaminationOptions::default() };
        let mut rows = Vec::new();
        let pipeline = PipelineConfig { threads: 2, ..PipelineConfig::default() };
        contamination(&[Input::file(corpus)], &[eval], &pipeline, &options, None, &neardup_pipeline::NoProgress, |row| {
            rows.push((row.record, row.item_id, row.start, row.end, row.ngrams));
            Ok(())
        }).unwrap();
        prop_assert!(!leaked || !rows.is_empty(), "a leak was not found");
        prop_assert_eq!(rows, reference(&docs, &items, n));
    }
}
