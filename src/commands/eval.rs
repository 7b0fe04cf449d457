//! `neardup eval`.

use crate::flags::{EvalArgs, SiteArg};
use anyhow::{bail, Context, Result};
use neardup_engine::{Input, NoProgress, PipelineConfig, Visitor};
use neardup_eval::{
    break_even, evaluate, myers_distance, pr_curve, pr_svg, summary, Label, Predicted,
};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// Splits one CSV record (RFC 4180 quoting; no embedded newlines).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Rows of a CSV or JSONL table as column -> value maps.
pub(crate) fn read_table(path: &Path) -> Result<Vec<HashMap<String, serde_json::Value>>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let jsonl = path
        .extension()
        .is_some_and(|e| e == "jsonl" || e == "json")
        || text.trim_start().starts_with('{');
    let mut rows = Vec::new();
    if jsonl {
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: HashMap<String, serde_json::Value> =
                serde_json::from_str(line).with_context(|| {
                    format!("{}: line {}: not a JSON object", path.display(), i + 1)
                })?;
            rows.push(v);
        }
    } else {
        let mut lines = text.lines();
        let header = csv_fields(
            lines
                .next()
                .context("empty CSV file")?
                .trim_end_matches('\r'),
        );
        for (i, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let f = csv_fields(line.trim_end_matches('\r'));
            if f.len() != header.len() {
                bail!(
                    "{}: line {}: {} fields where the header has {}",
                    path.display(),
                    i + 2,
                    f.len(),
                    header.len()
                );
            }
            rows.push(
                header
                    .iter()
                    .cloned()
                    .zip(f.into_iter().map(serde_json::Value::String))
                    .collect(),
            );
        }
    }
    Ok(rows)
}

pub(crate) fn text(v: Option<&serde_json::Value>) -> Option<String> {
    match v? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    }
}

pub(crate) fn number(v: Option<&serde_json::Value>) -> Option<f64> {
    match v? {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// Keeps the term fingerprints of the pages whose URLs are wanted.
struct Collect {
    wanted: Arc<HashSet<String>>,
    got: Vec<(String, Vec<u64>)>,
}

impl Visitor for Collect {
    type Output = Vec<(String, Vec<u64>)>;
    fn visit(&mut self, page: &neardup_ingest::Page, doc: Option<&neardup_text::Document>) {
        if let Some(doc) = doc {
            if self.wanted.contains(&page.url) {
                let terms = doc.terms().map(|t| term_hash(t.as_bytes())).collect();
                self.got.push((page.url.clone(), terms));
            }
        }
    }
    fn finish(self) -> Self::Output {
        self.got
    }
}

/// A 64-bit FNV-1a of a term (only compared for equality within one run).
fn term_hash(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x100_0000_01b3)
    })
}

pub fn run(args: &EvalArgs, quiet: bool) -> Result<()> {
    if super::site_eval::is_site_labels(&args.truth)? {
        return super::site_eval::run(args, quiet);
    }
    let site = |u: &str| {
        let host = neardup_text::host_of(u).unwrap_or_default();
        match args.site {
            SiteArg::Henzinger => neardup_text::henzinger_site(&host).to_string(),
            SiteArg::RegisteredDomain => neardup_text::registered_domain(&host).to_string(),
        }
    };
    let mut labels = Vec::new();
    for (i, r) in read_table(&args.truth)?.iter().enumerate() {
        let (Some(a), Some(b)) = (text(r.get("url_a")), text(r.get("url_b"))) else {
            bail!(
                "{}: row {}: url_a and url_b are required",
                args.truth.display(),
                i + 1
            );
        };
        let positive = match text(r.get("label")).as_deref() {
            Some("1") | Some("true") => true,
            Some("0") | Some("false") => false,
            other => bail!(
                "{}: row {}: label must be 1 or 0, found {other:?}",
                args.truth.display(),
                i + 1
            ),
        };
        let same_site = site(&a) == site(&b);
        labels.push(Label {
            a,
            b,
            positive,
            kind: text(r.get("kind")).unwrap_or_default(),
            same_site,
        });
    }
    let rows = read_table(&args.pred)?;
    let is_pairs = rows.first().is_some_and(|r| r.contains_key("url_a"));
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut scores: HashMap<(String, String), f64> = HashMap::new();
    let mut clusters: HashMap<String, u64> = HashMap::new();
    for r in &rows {
        if is_pairs {
            let (Some(a), Some(b)) = (text(r.get("url_a")), text(r.get("url_b"))) else {
                continue;
            };
            if let Some(s) = number(r.get(&args.score)) {
                let k = if a <= b {
                    (a.clone(), b.clone())
                } else {
                    (b.clone(), a.clone())
                };
                scores.insert(k, s);
            }
            pairs.push((a, b));
        } else if let (Some(u), Some(c)) = (text(r.get("url")), number(r.get("cluster"))) {
            clusters.insert(u, c as u64);
        }
    }
    let predicted = if is_pairs {
        Predicted::Pairs(&pairs)
    } else {
        Predicted::Clusters(&clusters)
    };
    let report = evaluate(&labels, &predicted);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("{}: cannot create", args.out.display()))?;
    let mut json = serde_json::json!({ "report": &report, "truth": args.truth, "pred": args.pred });
    let mut o = String::new();
    let pct = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.3}"));
    let _ = writeln!(
        o,
        "{} labelled pairs; {} predicted pairs not labelled",
        report.labelled, report.unlabelled_predictions
    );
    let _ = writeln!(
        o,
        "{:<24} {:>6} {:>6} {:>6} {:>6} {:>9} {:>7} {:>6}",
        "", "TP", "FP", "FN", "TN", "precision", "recall", "F1"
    );
    let mut line = |name: &str, s: &neardup_eval::Scores| {
        let _ = writeln!(
            o,
            "{:<24} {:>6} {:>6} {:>6} {:>6} {:>9} {:>7} {:>6}",
            name,
            s.true_positives,
            s.false_positives,
            s.false_negatives,
            s.true_negatives,
            pct(s.precision),
            pct(s.recall),
            pct(s.f1)
        );
    };
    line("overall", &report.overall);
    line("same site", &report.same_site);
    line("different sites", &report.different_site);
    for (k, s) in &report.by_kind {
        line(
            &format!("kind {}", if k.is_empty() { "(none)" } else { k }),
            s,
        );
    }
    // The precision-recall curve over the score of predicted pairs.
    if is_pairs && !scores.is_empty() {
        let scored: Vec<(bool, Option<f64>)> = labels
            .iter()
            .map(|l| {
                let k = if l.a <= l.b {
                    (l.a.clone(), l.b.clone())
                } else {
                    (l.b.clone(), l.a.clone())
                };
                (l.positive, scores.get(&k).copied())
            })
            .collect();
        let curve = pr_curve(&scored);
        let mut csv = String::from("threshold,precision,recall\n");
        for p in &curve {
            let _ = writeln!(csv, "{},{:.6},{:.6}", p.threshold, p.precision, p.recall);
        }
        let inputs: Vec<Input> = Vec::new();
        crate::output::write_atomic(&args.out.join("pr.csv"), &inputs, csv.as_bytes())?;
        let svg = pr_svg(
            &format!("precision-recall over {}", args.score),
            &[(args.score.as_str(), &curve)],
        );
        crate::output::write_atomic(&args.out.join("pr.svg"), &inputs, svg.as_bytes())?;
        if let Some(b) = break_even(&curve) {
            let _ = writeln!(
                o,
                "break-even over {}: precision {:.3}, recall {:.3} at threshold {}",
                args.score, b.precision, b.recall, b.threshold
            );
            json["break_even"] = serde_json::json!(b);
        }
        json["pr_curve"] = serde_json::json!(curve);
    }
    // Term differences of predicted pairs.
    if !args.crawl.is_empty() {
        let todo: Vec<(String, String)> = if is_pairs {
            pairs.iter().take(args.max_diffs).cloned().collect()
        } else {
            let mut by: HashMap<u64, Vec<&String>> = HashMap::new();
            for (u, c) in &clusters {
                by.entry(*c).or_default().push(u);
            }
            let mut v = Vec::new();
            let mut ids: Vec<_> = by.into_iter().collect();
            ids.sort();
            for (_, mut members) in ids {
                members.sort();
                for m in &members[1..] {
                    v.push((members[0].clone(), (*m).clone()));
                }
            }
            v.truncate(args.max_diffs);
            v
        };
        let wanted: Arc<HashSet<String>> = Arc::new(
            todo.iter()
                .flat_map(|(a, b)| [a.clone(), b.clone()])
                .collect(),
        );
        let inputs = crate::inputs::expand(&args.crawl, None, false)?;
        let run = neardup_engine::run(
            &inputs,
            &PipelineConfig::default(),
            || Collect {
                wanted: wanted.clone(),
                got: Vec::new(),
            },
            &NoProgress,
        )?;
        let seqs: HashMap<String, Vec<u64>> = run.outputs.into_iter().flatten().collect();
        let mut diffs: Vec<usize> = todo
            .iter()
            .filter_map(|(a, b)| Some(myers_distance(seqs.get(a)?, seqs.get(b)?)))
            .collect();
        if let Some((mean, median, p90)) = summary(&mut diffs) {
            let _ = writeln!(o, "term differences over {} predicted pairs: mean {mean:.1}, median {median}, 90th percentile {p90}", diffs.len());
            json["term_differences"] = serde_json::json!({ "pairs": diffs.len(), "mean": mean, "median": median, "p90": p90, "values": diffs });
        }
    }
    if args.curves {
        curves(args, &labels, &mut json, &mut o)?;
    }
    let mut bytes = serde_json::to_vec_pretty(&json)?;
    bytes.push(b'\n');
    crate::output::write_atomic(&args.out.join("eval.json"), &[], &bytes)?;
    if !quiet {
        print!("{o}");
        println!("files: {}", args.out.display());
    }
    Ok(())
}

/// PR curves of every score over all labelled pairs, from signatures of the labelled pages.
fn curves(
    args: &EvalArgs,
    labels: &[Label],
    json: &mut serde_json::Value,
    o: &mut String,
) -> Result<()> {
    use neardup_engine::sketching::{assemble, SketchVisitor};
    let mut params = args.sketch.params()?;
    if args.sketch.simhash_bits.is_none() {
        params.simhash_bits = 384;
    }
    if args.sketch.rp_dims.is_none() {
        params.rp_dims = 5;
    }
    let family = neardup_sketch::Family::new(&params);
    let inputs = crate::inputs::expand(&args.crawl, None, false)?;
    let fam = family.clone();
    let mut pipeline = PipelineConfig::default();
    pipeline.tokenizer.links = params.rp_dims > 0;
    let run = neardup_engine::run(
        &inputs,
        &pipeline,
        || SketchVisitor::new(fam.clone(), true),
        &NoProgress,
    )?;
    let (corpus, _) = assemble(family, run, true);
    let by_url: HashMap<&str, u32> = corpus
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.url.as_str(), i as u32))
        .collect();
    type Score = fn(&neardup_store::Corpus, u32, u32) -> f64;
    let scores: [(&str, Score); 4] = [
        ("estimated_jaccard", |c, a, b| {
            neardup_candidates::estimated_jaccard(c.minvalues(a), c.minvalues(b))
        }),
        ("b_similarity", |c, a, b| {
            neardup_candidates::agreement(c.supershingles(a), c.supershingles(b)) as f64
        }),
        ("c_similarity", |c, a, b| {
            neardup_sketch::c_similarity(c.simhash(a), c.simhash(b)) as f64
        }),
        ("exact_jaccard", |c, a, b| {
            match (c.shingles(a), c.shingles(b)) {
                (Some(x), Some(y)) => neardup_candidates::exact_jaccard(x, y),
                _ => 0.0,
            }
        }),
    ];
    let mut csv = String::from("score,threshold,precision,recall\n");
    let mut all: Vec<(String, Vec<neardup_eval::PrPoint>)> = Vec::new();
    let mut missing = 0;
    for (name, f) in scores {
        let scored: Vec<(bool, Option<f64>)> = labels
            .iter()
            .map(
                |l| match (by_url.get(l.a.as_str()), by_url.get(l.b.as_str())) {
                    (Some(&a), Some(&b)) => (l.positive, Some(f(&corpus, a, b))),
                    _ => (l.positive, None),
                },
            )
            .collect();
        missing = scored.iter().filter(|s| s.1.is_none()).count();
        let curve = pr_curve(&scored);
        for p in &curve {
            let _ = writeln!(
                csv,
                "{name},{},{:.6},{:.6}",
                p.threshold, p.precision, p.recall
            );
        }
        if let Some(b) = break_even(&curve) {
            let _ = writeln!(
                o,
                "break-even over {name}: precision {:.3}, recall {:.3} at threshold {}",
                b.precision, b.recall, b.threshold
            );
            json["curves"][name] = serde_json::json!({ "break_even": b, "points": curve.len() });
        }
        all.push((name.to_string(), curve));
    }
    if params.rp_dims > 0 {
        rp_hm_curves(args, labels, &corpus, &by_url, json, o, &mut csv, &mut all)?;
    }
    if missing > 0 {
        let _ = writeln!(
            o,
            "{missing} labelled pair(s) have a page missing from the crawl (never predicted)"
        );
    }
    crate::output::write_atomic(&args.out.join("curves.csv"), &[], csv.as_bytes())?;
    let refs: Vec<(&str, &[neardup_eval::PrPoint])> = all
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_slice()))
        .collect();
    crate::output::write_atomic(
        &args.out.join("curves.svg"),
        &[],
        pr_svg("precision-recall per score, all labelled pairs", &refs).as_bytes(),
    )?;
    Ok(())
}

/// Paper 000's Figure 1 over the labelled pairs: the RP-only curve (C = 1, D varying), the
/// HM-only curve, and for each D of the grid the curve of C varying; break-even of each, and
/// the best RP+HM break-even. Thresholds are distances: a pair is predicted when its distance
/// is at most the threshold.
#[allow(clippy::too_many_arguments)]
fn rp_hm_curves(
    args: &EvalArgs,
    labels: &[Label],
    corpus: &neardup_store::Corpus,
    by_url: &HashMap<&str, u32>,
    json: &mut serde_json::Value,
    o: &mut String,
    csv: &mut String,
    all: &mut Vec<(String, Vec<neardup_eval::PrPoint>)>,
) -> Result<()> {
    use neardup_dedup::rphm::RpHm;
    let hm = args.rp_hm.params();
    let t = std::time::Instant::now();
    let sigs = RpHm::new(corpus, hm);
    let seconds = t.elapsed().as_secs_f64();
    let g = &sigs.stats.graph;
    let _ = writeln!(
        o,
        "rp-hm signatures of {} pages in {seconds:.2} s ({:?} term weights, gamma {}, {} iterations): link graph of {} edges, {} pages with children",
        g.pages, hm.weights, hm.gamma, hm.iterations, g.edges, g.pages_with_children
    );
    // (label, RP distance, HM distance), None when a page is missing.
    let dist: Vec<(bool, Option<(f64, f64)>)> = labels
        .iter()
        .map(|l| {
            let d = match (by_url.get(l.a.as_str()), by_url.get(l.b.as_str())) {
                (Some(&a), Some(&b)) => Some(sigs.distances(a, b)),
                _ => None,
            };
            (l.positive, d)
        })
        .collect();
    let grid: Vec<f64> = if args.rp_tol_grid.is_empty() {
        let mut pos: Vec<f64> = dist
            .iter()
            .filter(|d| d.0)
            .filter_map(|d| d.1.map(|x| x.0))
            .collect();
        pos.sort_by(f64::total_cmp);
        let mut g: Vec<f64> = [0.8, 0.9, 0.95, 0.98, 0.99]
            .iter()
            .filter_map(|q| pos.get(((pos.len() as f64 - 1.0) * q).round() as usize))
            .map(|&d| d.max(f64::MIN_POSITIVE))
            .collect();
        g.dedup();
        g.retain(|&d| d > f64::MIN_POSITIVE);
        g
    } else {
        args.rp_tol_grid.clone()
    };
    // Negated distances: pr_curve predicts scores at or above the threshold.
    type Scored = Vec<(bool, Option<f64>)>;
    let mut curves: Vec<(String, Scored)> = vec![
        (
            "rp_distance (C = 1, RP only)".to_string(),
            dist.iter().map(|&(p, d)| (p, d.map(|x| -x.0))).collect(),
        ),
        (
            "hm_distance (HM only)".to_string(),
            dist.iter().map(|&(p, d)| (p, d.map(|x| -x.1))).collect(),
        ),
    ];
    for &d in &grid {
        curves.push((
            format!("rp-hm D = {d:.3e}"),
            dist.iter()
                .map(|&(p, x)| (p, x.filter(|x| x.0 < d).map(|x| -x.1)))
                .collect(),
        ));
    }
    let mut best: Option<(String, neardup_eval::PrPoint)> = None;
    let mut rows = Vec::new();
    for (i, (name, scored)) in curves.into_iter().enumerate() {
        let mut curve = pr_curve(&scored);
        for p in &mut curve {
            p.threshold = -p.threshold;
        }
        for p in &curve {
            let _ = writeln!(
                csv,
                "\"{name}\",{},{:.6},{:.6}",
                p.threshold, p.precision, p.recall
            );
        }
        if let Some(b) = break_even(&curve) {
            let _ = writeln!(
                o,
                "break-even over {name}: precision {:.3}, recall {:.3} at distance <= {:.3e}",
                b.precision, b.recall, b.threshold
            );
            rows.push(serde_json::json!({ "curve": name, "break_even": b, "points": curve.len() }));
            // A curve whose precision and recall never meet is judged by the lower of the two.
            let value = b.precision.min(b.recall);
            if i >= 2
                && best
                    .as_ref()
                    .is_none_or(|(_, p)| p.precision.min(p.recall) < value)
            {
                best = Some((name.clone(), b));
            }
        }
        all.push((name, curve));
    }
    if let Some((name, b)) = &best {
        let _ = writeln!(
            o,
            "best RP+HM break-even: {name}, C = {:.3e}: precision {:.3}, recall {:.3}",
            b.threshold, b.precision, b.recall
        );
    }
    json["rp_hm"] = serde_json::json!({
        "params": hm,
        "rp_tol_grid": grid,
        "curves": rows,
        "best": best.map(|(n, b)| serde_json::json!({ "curve": n, "break_even": b })),
        "link_graph": g,
        "seconds": seconds,
    });
    Ok(())
}
