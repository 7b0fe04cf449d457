//! Labelled page pairs against a dedup run: precision, recall and F1 overall, per kind and for
//! same-site vs different-site pairs; the precision-recall curve of a pairs table's score and its
//! break-even; the term differences (Myers diff of the token sequences) of predicted pairs; with
//! curves, every score over all labelled pairs from the pages' signatures, and paper 000's
//! Figure 1 (random projection, hyperlink map, and both).

use super::{bad_row, label, number, records, text};
use crate::sketching::{assemble, SketchVisitor};
use crate::{Error, Input, NoProgress, PipelineConfig, Visitor};
use neardup_dedup::rphm::{HmParams, LinkGraphStats, RpHm};
use neardup_dedup::SiteRule;
use neardup_eval::{break_even, evaluate, indel_distance, pr_curve, Label, PrPoint, Predicted};
use neardup_report::Table;
use neardup_sketch::SketchParams;
use neardup_store::Corpus;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Curves of every score over all labelled pairs, from the signatures of the labelled crawl.
#[derive(Clone, Debug)]
pub struct CurveOptions {
    /// Signature parameters (with simhash bits and random-projection dimensions for the
    /// C-similarity and rp-hm curves).
    pub params: SketchParams,
    /// The hyperlink-map iteration of paper 000's curves.
    pub hm: HmParams,
    /// Values of D (RP tolerance) to draw a curve of C for; empty = percentiles of the
    /// positive pairs' RP distances.
    pub rp_tol_grid: Vec<f64>,
}

/// What a page-pair eval does.
#[derive(Clone, Debug)]
pub struct PairEvalOptions {
    /// Labelled pairs: url_a, url_b, label (1/0), optionally kind.
    pub truth: PathBuf,
    /// A dedup `pairs` or `clusters` table.
    pub pred: PathBuf,
    /// The crawl, for term differences and curves (may be empty).
    pub crawl: Vec<Input>,
    /// The pairs table's column scoring the PR curve.
    pub score: String,
    /// What "the same site" means.
    pub site: SiteRule,
    /// Term differences of at most this many predicted pairs.
    pub max_diffs: usize,
    /// Curves of every score (needs the crawl).
    pub curves: Option<CurveOptions>,
}

/// A point of a precision-recall curve, as `pr.csv` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrRow {
    /// Pairs scoring at least this are predicted.
    pub threshold: f64,
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
}

impl Table for PrRow {
    const NAME: &'static str = "pr";
}

/// A point of one score's curve, as `curves.csv` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveRow {
    /// The score (or rp-hm curve).
    pub score: String,
    /// Threshold (a distance for rp-hm curves: predicted at or below it).
    pub threshold: f64,
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
}

impl Table for CurveRow {
    const NAME: &'static str = "curves";
}

/// Term differences of predicted pairs.
#[derive(Clone, Debug, Serialize)]
pub struct TermDifferences {
    /// Pairs whose pages were both found in the crawl.
    pub pairs: usize,
    /// Mean inserted plus deleted terms.
    pub mean: f64,
    /// Median.
    pub median: usize,
    /// 90th percentile.
    pub p90: usize,
    /// Every pair's count.
    pub values: Vec<usize>,
}

/// A named curve with its break-even point.
#[derive(Clone, Debug, Serialize)]
pub struct NamedCurve {
    /// The score or curve.
    pub name: String,
    /// Its points.
    pub points: Vec<PrPoint>,
    /// Where precision and recall meet.
    pub break_even: Option<PrPoint>,
}

/// Paper 000's Figure 1 over the labelled pairs.
#[derive(Clone, Debug, Serialize)]
pub struct RpHmCurves {
    /// The hyperlink-map iteration.
    pub params: HmParams,
    /// The D values.
    pub rp_tol_grid: Vec<f64>,
    /// RP only, HM only, then one curve of C per D.
    pub curves: Vec<NamedCurve>,
    /// The best RP+HM break-even (the lower of precision and recall highest).
    pub best: Option<(String, PrPoint)>,
    /// The link graph.
    pub link_graph: LinkGraphStats,
    /// Signature time.
    pub seconds: f64,
}

/// Every score's curve over all labelled pairs.
#[derive(Clone, Debug, Serialize)]
pub struct ScoreCurves {
    /// estimated_jaccard, b_similarity, c_similarity, exact_jaccard.
    pub scores: Vec<NamedCurve>,
    /// Paper 000's curves, when random projections were computed.
    pub rp_hm: Option<RpHmCurves>,
    /// Labelled pairs with a page missing from the crawl (never predicted).
    pub missing_pages: usize,
}

/// What a page-pair eval found.
#[derive(Clone, Debug, Serialize)]
pub struct PairEval {
    /// The truth table.
    pub truth: PathBuf,
    /// The predictions.
    pub pred: PathBuf,
    /// Precision, recall, F1 overall, per kind, same vs different site.
    pub report: neardup_eval::Report,
    /// The name of the scored column, when the predictions are pairs with scores.
    pub score: Option<String>,
    /// The PR curve over that score.
    pub pr_curve: Option<Vec<PrPoint>>,
    /// Its break-even point.
    pub break_even: Option<PrPoint>,
    /// Term differences of predicted pairs, with a crawl.
    pub term_differences: Option<TermDifferences>,
    /// Every score's curve, when asked for.
    pub curves: Option<ScoreCurves>,
}

impl PairEval {
    /// The rows of `pr.csv`.
    pub fn pr_rows(&self) -> Vec<PrRow> {
        self.pr_curve
            .iter()
            .flatten()
            .map(|p| PrRow {
                threshold: p.threshold,
                precision: p.precision,
                recall: p.recall,
            })
            .collect()
    }

    /// The rows of `curves.csv`.
    pub fn curve_rows(&self) -> Vec<CurveRow> {
        let Some(c) = &self.curves else {
            return Vec::new();
        };
        c.scores
            .iter()
            .chain(c.rp_hm.iter().flat_map(|r| r.curves.iter()))
            .flat_map(|n| {
                n.points.iter().map(|p| CurveRow {
                    score: n.name.clone(),
                    threshold: p.threshold,
                    precision: p.precision,
                    recall: p.recall,
                })
            })
            .collect()
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

fn key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// Scores a dedup run's predictions against labelled page pairs.
pub fn run(o: &PairEvalOptions) -> Result<PairEval, Error> {
    let site = |u: &str| {
        let host = neardup_text::host_of(u).unwrap_or_default();
        o.site.site(&host).to_string()
    };
    let mut labels = Vec::new();
    for (i, r) in records(&o.truth)?.iter().enumerate() {
        let (Some(a), Some(b)) = (text(r.get("url_a")), text(r.get("url_b"))) else {
            return Err(bad_row(&o.truth, i, "url_a and url_b are required".into()));
        };
        let positive = label(r.get("label")).map_err(|got| {
            bad_row(
                &o.truth,
                i,
                format!(
                    "label must be 1 or 0, found {}",
                    got.map_or("nothing".to_string(), |g| format!("{g:?}"))
                ),
            )
        })?;
        let same_site = site(&a) == site(&b);
        labels.push(Label {
            a,
            b,
            positive,
            kind: text(r.get("kind")).unwrap_or_default(),
            same_site,
        });
    }
    let rows = records(&o.pred)?;
    let is_pairs = rows.first().is_some_and(|r| r.contains_key("url_a"));
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut scores: HashMap<(String, String), f64> = HashMap::new();
    let mut clusters: HashMap<String, u64> = HashMap::new();
    for r in &rows {
        if is_pairs {
            let (Some(a), Some(b)) = (text(r.get("url_a")), text(r.get("url_b"))) else {
                continue;
            };
            if let Some(s) = number(r.get(&o.score)) {
                scores.insert(key(&a, &b), s);
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
    let mut out = PairEval {
        truth: o.truth.clone(),
        pred: o.pred.clone(),
        report,
        score: None,
        pr_curve: None,
        break_even: None,
        term_differences: None,
        curves: None,
    };
    // The precision-recall curve over the score of predicted pairs.
    if is_pairs && !scores.is_empty() {
        let scored: Vec<(bool, Option<f64>)> = labels
            .iter()
            .map(|l| (l.positive, scores.get(&key(&l.a, &l.b)).copied()))
            .collect();
        let curve = pr_curve(&scored);
        out.break_even = break_even(&curve);
        out.pr_curve = Some(curve);
        out.score = Some(o.score.clone());
    }
    // Term differences of predicted pairs.
    if !o.crawl.is_empty() {
        let todo: Vec<(String, String)> = if is_pairs {
            pairs.iter().take(o.max_diffs).cloned().collect()
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
            v.truncate(o.max_diffs);
            v
        };
        let wanted: Arc<HashSet<String>> = Arc::new(
            todo.iter()
                .flat_map(|(a, b)| [a.clone(), b.clone()])
                .collect(),
        );
        let run = crate::run(
            &o.crawl,
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
            .filter_map(|(a, b)| Some(indel_distance(seqs.get(a)?, seqs.get(b)?)))
            .collect();
        if let Some((mean, median, p90)) = neardup_eval::summary(&mut diffs) {
            out.term_differences = Some(TermDifferences {
                pairs: diffs.len(),
                mean,
                median,
                p90,
                values: diffs,
            });
        }
    }
    if let Some(c) = &o.curves {
        out.curves = Some(curves(&o.crawl, c, &labels)?);
    }
    Ok(out)
}

/// PR curves of every score over all labelled pairs, from signatures of the labelled pages.
fn curves(crawl: &[Input], c: &CurveOptions, labels: &[Label]) -> Result<ScoreCurves, Error> {
    c.params.validate()?;
    let sink = crate::sketching::CorpusSink::new(neardup_sketch::Family::new(&c.params), true);
    let mut pipeline = PipelineConfig::default();
    pipeline.tokenizer.links = c.params.rp_dims > 0;
    let run = crate::run(crawl, &pipeline, || SketchVisitor::new(&sink), &NoProgress)?;
    let (corpus, _) = assemble(sink, run);
    let by_url = corpus.url_index();
    type Score = fn(&Corpus, u32, u32) -> f64;
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
    let mut named = Vec::new();
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
        let points = pr_curve(&scored);
        named.push(NamedCurve {
            name: name.to_string(),
            break_even: break_even(&points),
            points,
        });
    }
    let rp_hm = (c.params.rp_dims > 0).then(|| rp_hm_curves(c, labels, &corpus, &by_url));
    Ok(ScoreCurves {
        scores: named,
        rp_hm,
        missing_pages: missing,
    })
}

/// Paper 000's Figure 1 over the labelled pairs: the RP-only curve (C = 1, D varying), the
/// HM-only curve, and for each D of the grid the curve of C varying; break-even of each, and
/// the best RP+HM break-even. Thresholds are distances: a pair is predicted when its distance
/// is at most the threshold.
fn rp_hm_curves(
    c: &CurveOptions,
    labels: &[Label],
    corpus: &Corpus,
    by_url: &HashMap<&str, u32>,
) -> RpHmCurves {
    let t = Instant::now();
    let sigs = RpHm::new(corpus, c.hm);
    let seconds = t.elapsed().as_secs_f64();
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
    let grid: Vec<f64> = if c.rp_tol_grid.is_empty() {
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
        c.rp_tol_grid.clone()
    };
    // Negated distances: pr_curve predicts scores at or above the threshold.
    type Scored = Vec<(bool, Option<f64>)>;
    let mut scored: Vec<(String, Scored)> = vec![
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
        scored.push((
            format!("rp-hm D = {d:.3e}"),
            dist.iter()
                .map(|&(p, x)| (p, x.filter(|x| x.0 < d).map(|x| -x.1)))
                .collect(),
        ));
    }
    let mut best: Option<(String, PrPoint)> = None;
    let mut curves = Vec::new();
    for (i, (name, s)) in scored.into_iter().enumerate() {
        let mut points = pr_curve(&s);
        for p in &mut points {
            p.threshold = -p.threshold;
        }
        let b = break_even(&points);
        if let Some(b) = b {
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
        curves.push(NamedCurve {
            name,
            points,
            break_even: b,
        });
    }
    RpHmCurves {
        params: c.hm,
        rp_tol_grid: grid,
        curves,
        best,
        link_graph: sigs.stats.graph.clone(),
        seconds,
    }
}
