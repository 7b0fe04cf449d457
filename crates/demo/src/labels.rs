//! `labels.csv`: labelled page pairs of `crawl/` for `neardup eval`, as
//! `bench/make_labels.py` labels the development crawl: the same documentation path in two
//! versions (kind `version`), near-duplicates when the Jaccard of their word 5-grams (scripts
//! and styles left out) is 0.8 or more; and two pages of one version, one folder and one rustdoc
//! page type whose texts differ (kind `same-template`, Jaccard under 0.5, label 0).

use crate::sample::Sample;
use crate::text::{jaccard, page_text, shingles};
use crate::Files;
use std::collections::{BTreeMap, HashSet};

/// Pages by a key: their URL and word 5-grams.
type Pages = Vec<(String, HashSet<u64>)>;

/// At most this many same-template negatives.
const NEGATIVES: usize = 60;

pub(crate) fn write(sample: &Sample, files: &mut Files) {
    // (path below the version, version) -> (url, shingles)
    let mut by_path: BTreeMap<String, Pages> = BTreeMap::new();
    let mut by_folder: BTreeMap<(String, String), Pages> = BTreeMap::new();
    for (version, _) in &sample.versions {
        for p in sample.html(version) {
            let Some(path) = p.url.split(&format!("/{version}/")).nth(1) else {
                continue;
            };
            let sh = shingles(&page_text(&String::from_utf8_lossy(&p.body)));
            if sh.len() < 20 {
                continue;
            }
            let (folder, file) = path.rsplit_once('/').unwrap_or(("", path));
            let kind = file.split('.').next().unwrap_or("");
            by_folder
                .entry((format!("{version}/{folder}"), kind.to_string()))
                .or_default()
                .push((p.url.clone(), sh.clone()));
            by_path
                .entry(path.to_string())
                .or_default()
                .push((p.url.clone(), sh));
        }
    }
    let mut csv = String::from("url_a,url_b,label,kind,jaccard\n");
    let (mut pos, mut neg) = (0, 0);
    for pages in by_path.values() {
        for (i, a) in pages.iter().enumerate() {
            for b in &pages[i + 1..] {
                let j = jaccard(&a.1, &b.1);
                let label = u8::from(j >= 0.8);
                if label == 1 {
                    pos += 1;
                } else {
                    neg += 1;
                }
                csv.push_str(&format!("{},{},{label},version,{j:.4}\n", a.0, b.0));
            }
        }
    }
    let mut negatives = 0;
    'folders: for pages in by_folder.values() {
        for (i, a) in pages.iter().enumerate() {
            for b in &pages[i + 1..] {
                if negatives == NEGATIVES {
                    break 'folders;
                }
                let j = jaccard(&a.1, &b.1);
                if j < 0.5 {
                    csv.push_str(&format!("{},{},0,same-template,{j:.4}\n", a.0, b.0));
                    negatives += 1;
                    break;
                }
            }
        }
    }
    files.add("labels.csv", csv.into_bytes());
    files.about(
        "labels.csv",
        &format!(
            "{} labelled page pairs of crawl/ (url_a, url_b, label, kind, jaccard): {pos} near-duplicates, {} not",
            pos + neg + negatives,
            neg + negatives
        ),
    );
}
