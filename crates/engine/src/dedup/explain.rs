//! Why two pages of a run matched or did not (`neardup dedup --explain URL_A URL_B`, and
//! `neardup.explain` in Python): the run is made as [`crate::dedup::run`] makes it (the same
//! signatures, site names and clusters), then the pair is judged again rule by rule
//! ([`neardup_dedup::checks`], the rules [`neardup_dedup::accepts`] decides by) beside the texts
//! that were compared: each page's terms as the signatures took them, and what was left out.

use super::samples::{page_terms, Diff, Terms};
use super::{load, DedupSettings};
use crate::{Error, Input, Progress};
use neardup_dedup::{checks, dedup, score, shared_tables, Check, Evidence};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// At most this many terms of each page's compared and left-out text are shown.
pub const SHOWN_TERMS: usize = 120;

/// One page of an explained pair.
#[derive(Clone, Debug, Serialize)]
pub struct ExplainedPage {
    /// Its URL.
    pub url: String,
    /// Its id (the record's `WARC-Record-ID`, or the row's id).
    pub id: String,
    /// The input it was read from.
    pub file: String,
    /// Where its record starts in that file, when it can be read alone.
    pub offset: Option<u64>,
    /// Pages of the run with this URL (the first in input order is explained).
    pub pages_with_url: u64,
    /// Its title as read (empty when it was not read again).
    pub title: String,
    /// Its language (ISO 639-3; `und` when unknown).
    pub language: String,
    /// Terms the signatures were taken of.
    pub compared_terms: u64,
    /// Share of its terms left out as chrome (navigation, headers, footers, link lists): 0
    /// when the whole page was compared.
    pub chrome_share: f64,
    /// Share of its shingles left out as host boilerplate (0 without `--boilerplate`).
    pub boilerplate_share: f64,
    /// Distinct shingles its signatures were taken over.
    pub shingles: u32,
    /// The first [`SHOWN_TERMS`] terms compared, space-separated (empty when the page could
    /// not be read again: signature files, a stream).
    pub compared: String,
    /// The first [`SHOWN_TERMS`] terms left out.
    pub left_out: String,
    /// Its cluster in the run, if it is in one.
    pub cluster: Option<u64>,
}

/// Why two pages matched or did not.
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    /// The first page.
    pub a: ExplainedPage,
    /// The second page.
    pub b: ExplainedPage,
    /// Every score of the pair.
    pub evidence: Evidence,
    /// The candidate tables in which the two share a key (band keys), `None` for methods
    /// without tables.
    pub shared_tables: Option<u64>,
    /// The method's candidate tables.
    pub tables: u64,
    /// Each rule the pair is judged by, and whether it holds.
    pub checks: Vec<Check>,
    /// Whether the pair itself is accepted (its evidence meets the rules).
    pub accepted: bool,
    /// Whether the run put the two in one cluster (directly, or through other pages).
    pub same_cluster: bool,
    /// The answer in a sentence.
    pub verdict: String,
    /// The term diff of the compared texts (`=` both, `-` the first page only, `+` the second
    /// only), the first terms of each ([`super::samples::MAX_DIFF_TERMS`]); empty when a page
    /// could not be read again.
    pub diff: String,
    /// All of the above as text ([`render`]), as `neardup dedup --explain` prints it.
    pub text: String,
}

/// Explains pages `url_a` and `url_b` of a dedup run over `inputs` (the first page of each URL
/// in input order). An error when a URL names no page the run sketched.
pub fn explain(
    inputs: &[Input],
    settings: &DedupSettings,
    url_a: &str,
    url_b: &str,
    progress: &dyn Progress,
) -> Result<Explanation, Error> {
    let o = settings.options();
    let mut loaded = load(inputs, o, progress)?;
    loaded.corpus.set_references(&o.references);
    let corpus = &loaded.corpus;
    let result = dedup(corpus, &o.config)?;
    let find = |url: &str| -> Result<(u32, u64), Error> {
        let mut first = None;
        let mut n = 0;
        for (p, page) in corpus.pages().enumerate() {
            if page.url == url {
                first = first.or(Some(p as u32));
                n += 1;
            }
        }
        first.map(|p| (p, n)).ok_or_else(|| Error::PageNotFound {
            url: url.to_string(),
            pages: corpus.len() as u64,
        })
    };
    let (a, na) = find(url_a)?;
    let (b, nb) = find(url_b)?;
    let evidence = score(
        corpus,
        &o.config,
        result.rphm.as_ref(),
        &result.titles,
        a,
        b,
    );
    let checks = checks(&o.config, &evidence);
    let accepted = neardup_dedup::accepts(&o.config, &evidence);
    let tables = shared_tables(corpus, &o.config, a, b);
    let cluster = |p: u32| result.cluster_of[p as usize].map(u64::from);
    let same_cluster = a == b || (cluster(a).is_some() && cluster(a) == cluster(b));
    let mut wanted: HashMap<String, HashSet<String>> = HashMap::new();
    for p in [a, b] {
        let page = corpus.page(p);
        wanted
            .entry(page.url.to_string())
            .or_default()
            .insert(page.user_id.to_string());
    }
    let terms = page_terms(
        inputs,
        &o.pipeline,
        o.params.content.scope(),
        wanted,
        Some(corpus),
    )?;
    let key = |p: u32| {
        let page = corpus.page(p);
        (page.url.to_string(), page.user_id.to_string())
    };
    let none = Terms::default();
    let (ta, tb) = (
        terms.get(&key(a)).unwrap_or(&none),
        terms.get(&key(b)).unwrap_or(&none),
    );
    let read_both = terms.contains_key(&key(a)) && terms.contains_key(&key(b));
    let explained = |p: u32, n: u64, t: &Terms| {
        let page = corpus.page(p);
        ExplainedPage {
            url: page.url.to_string(),
            id: page.user_id.to_string(),
            file: corpus.inputs()[page.id.source as usize].clone(),
            offset: page.raw_offset,
            pages_with_url: n,
            title: t.title.clone(),
            language: page.language.code().to_string(),
            compared_terms: t.kept_count,
            chrome_share: f64::from(page.chrome),
            boilerplate_share: f64::from(page.boilerplate),
            shingles: page.shingles,
            compared: first_terms(&t.kept),
            left_out: first_terms(&t.removed),
            cluster: cluster(p),
        }
    };
    let verdict = verdict(accepted, same_cluster, tables, &checks);
    let mut e = Explanation {
        a: explained(a, na, ta),
        b: explained(b, nb, tb),
        evidence,
        shared_tables: tables.map(|(s, _)| s as u64),
        tables: tables.map_or(0, |(_, t)| t as u64),
        checks,
        accepted,
        same_cluster,
        verdict,
        diff: if read_both {
            Diff::of(ta, tb).text
        } else {
            String::new()
        },
        text: String::new(),
    };
    e.text = render(&e);
    Ok(e)
}

fn first_terms(terms: &[String]) -> String {
    terms
        .iter()
        .take(SHOWN_TERMS)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The answer in a sentence: matched or not, by which rule, or what it lacked.
fn verdict(
    accepted: bool,
    same_cluster: bool,
    tables: Option<(usize, usize)>,
    checks: &[Check],
) -> String {
    let by = checks
        .iter()
        .find(|c| c.role == "accepts" && c.holds)
        .map(|c| c.rule.as_str());
    let failed_requirement = checks.iter().find(|c| c.role == "requires" && !c.holds);
    let candidates = match tables {
        Some((0, _)) => Some(false),
        Some(_) => Some(true),
        None => None,
    };
    match (accepted, same_cluster) {
        (true, true) => format!("matched: {}", by.unwrap_or("accepted")),
        (true, false) if candidates == Some(false) => format!(
            "not matched: the pair meets {} but the two share no candidate key, and no other \
             pages join them",
            by.unwrap_or("the rules")
        ),
        (true, false) => "not in one cluster: the pair is accepted but the clustering (star) \
                          put the two in different clusters"
            .to_string(),
        (false, true) => {
            "in one cluster through other pages: the pair itself is not accepted".to_string()
        }
        (false, false) => match (failed_requirement, by) {
            (Some(req), Some(rule)) => {
                format!("not matched: it meets {rule}, but fails: {}", req.rule)
            }
            (Some(req), None) => {
                format!(
                    "not matched: no rule accepts it, and it fails: {}",
                    req.rule
                )
            }
            _ => "not matched: no rule accepts it".to_string(),
        },
    }
}

/// The explanation as text, for a terminal (its `text` aside).
pub fn render(e: &Explanation) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "{}", e.verdict);
    for (name, p) in [("A", &e.a), ("B", &e.b)] {
        let _ = writeln!(s, "\n{name}: {}", p.url);
        let _ = writeln!(
            s,
            "   title {:?}, language {}, {} terms compared over {} shingles; chrome left out \
             {:.0}%, host boilerplate {:.0}%; {}{}",
            p.title,
            p.language,
            p.compared_terms,
            p.shingles,
            100.0 * p.chrome_share,
            100.0 * p.boilerplate_share,
            p.cluster
                .map_or("in no cluster".to_string(), |c| format!("cluster {c}")),
            if p.pages_with_url > 1 {
                format!(" (the first of {} pages with this URL)", p.pages_with_url)
            } else {
                String::new()
            }
        );
        let _ = writeln!(s, "   compared: {}", p.compared);
        if !p.left_out.is_empty() {
            let _ = writeln!(s, "   left out: {}", p.left_out);
        }
    }
    let ev = &e.evidence;
    let _ =
        writeln!(
        s,
        "\nscores: estimated Jaccard {:.3}{}, containment {:.3}, {} shared shingles, titles {}, \
         {}",
        ev.estimated_jaccard,
        ev.exact_jaccard
            .map_or(String::new(), |j| format!(" (exact {j:.3})")),
        ev.containment,
        ev.shared_shingles,
        ev.titles.name(),
        if ev.same_site { "one site" } else { "two sites" }
    );
    if let Some(shared) = e.shared_tables {
        let _ = writeln!(
            s,
            "candidates: the two share {shared} of {} band keys",
            e.tables
        );
    }
    let _ = writeln!(s, "rules:");
    for c in &e.checks {
        let mark = if c.holds { "yes" } else { "no " };
        let _ = writeln!(s, "   {mark} {} ({})", c.rule, c.role);
    }
    if !e.diff.is_empty() {
        let _ = writeln!(
            s,
            "\ncompared texts (= both, - A only, + B only):\n{}",
            e.diff
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(rule: &str, role: &'static str, holds: bool) -> Check {
        Check {
            rule: rule.into(),
            role,
            holds,
        }
    }

    #[test]
    fn verdicts_name_the_rule_or_what_failed() {
        let accepted = [check("Jaccard >= 0.8", "accepts", true)];
        assert_eq!(
            verdict(true, true, Some((3, 42)), &accepted),
            "matched: Jaccard >= 0.8"
        );
        let refused = [
            check("Jaccard >= 0.8", "accepts", true),
            check("titles need 0.95", "requires", false),
        ];
        assert_eq!(
            verdict(false, false, Some((3, 42)), &refused),
            "not matched: it meets Jaccard >= 0.8, but fails: titles need 0.95"
        );
        assert!(verdict(true, false, Some((0, 42)), &accepted).contains("no candidate key"));
        assert!(verdict(false, true, Some((1, 42)), &[]).contains("through other pages"));
        assert_eq!(
            verdict(false, false, None, &[check("x", "accepts", false)]),
            "not matched: no rule accepts it"
        );
    }
}
