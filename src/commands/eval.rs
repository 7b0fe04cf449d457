//! `neardup eval`: flags to the eval job's options, its report to files and text. Page-pair
//! labels score a dedup run; site-pair labels score a replicas run.

use crate::flags::EvalArgs;
use crate::output::Outputs;
use anyhow::Result;
use neardup_engine::dedup::SiteRule;
use neardup_engine::eval::pairs::{CurveOptions, NamedCurve, PairEval, PairEvalOptions};
use neardup_engine::eval::sites::SiteEval;
use neardup_engine::eval::{label_kind, LabelKind};
use neardup_eval::{pr_svg, PrPoint};
use neardup_report::Format;
use serde::Serialize;
use std::fmt::Write as _;

/// eval.json: the job's report as the file has always held it.
#[derive(Serialize)]
struct EvalJson<'a> {
    report: &'a neardup_eval::Report,
    truth: &'a std::path::Path,
    pred: &'a std::path::Path,
    #[serde(skip_serializing_if = "Option::is_none")]
    break_even: Option<PrPoint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pr_curve: Option<&'a [PrPoint]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    term_differences: Option<&'a neardup_engine::eval::pairs::TermDifferences>,
    #[serde(skip_serializing_if = "Option::is_none")]
    curves: Option<std::collections::BTreeMap<&'a str, CurveJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rp_hm: Option<RpHmJson<'a>>,
}

#[derive(Serialize)]
struct CurveJson {
    break_even: PrPoint,
    points: usize,
}

#[derive(Serialize)]
struct RpHmCurveJson<'a> {
    curve: &'a str,
    break_even: PrPoint,
    points: usize,
}

#[derive(Serialize)]
struct BestJson<'a> {
    curve: &'a str,
    break_even: PrPoint,
}

#[derive(Serialize)]
struct RpHmJson<'a> {
    params: neardup_engine::dedup::rphm::HmParams,
    rp_tol_grid: &'a [f64],
    curves: Vec<RpHmCurveJson<'a>>,
    best: Option<BestJson<'a>>,
    link_graph: &'a neardup_engine::dedup::rphm::LinkGraphStats,
    seconds: f64,
}

pub fn run(args: &EvalArgs, quiet: bool) -> Result<()> {
    let mut guarded = vec![args.truth.as_path(), args.pred.as_path()];
    guarded.extend(args.crawl.iter().map(|p| p.as_path()));
    let outs = Outputs::over_paths(guarded, args.force);
    outs.dir(&args.out)?;
    match label_kind(&args.truth)? {
        LabelKind::SitePairs => {
            let e = neardup_engine::eval::sites::run(&args.truth, &args.pred)?;
            sites(args, &outs, &e, quiet)
        }
        LabelKind::PagePairs => {
            let curves = if args.curves {
                // The paper's curves include B-similarity: its Rabin functions unless told.
                let mut params = args
                    .sketch
                    .params_preferring(neardup_sketch::MinHashFamily::Rabin)?;
                if args.sketch.simhash_bits.is_none() {
                    params.simhash_bits = 384;
                }
                if args.sketch.rp_dims.is_none() {
                    params.rp_dims = 5;
                }
                Some(CurveOptions {
                    params,
                    hm: args.rp_hm.params(),
                    rp_tol_grid: args.rp_tol_grid.clone(),
                })
            } else {
                None
            };
            let e = neardup_engine::eval::pairs::run(&PairEvalOptions {
                truth: args.truth.clone(),
                pred: args.pred.clone(),
                crawl: if args.crawl.is_empty() {
                    Vec::new()
                } else {
                    crate::inputs::expand(&args.crawl, None, false)?
                },
                score: args.score.clone(),
                site: args.site.unwrap_or(SiteRule::Henzinger),
                max_diffs: args.max_diffs,
                curves,
            })?;
            pairs(args, &outs, &e, quiet)
        }
    }
}

fn break_even_line(o: &mut String, name: &str, b: &PrPoint) {
    let _ = writeln!(
        o,
        "break-even over {name}: precision {:.3}, recall {:.3} at threshold {}",
        b.precision, b.recall, b.threshold
    );
}

fn pairs(args: &EvalArgs, outs: &Outputs, e: &PairEval, quiet: bool) -> Result<()> {
    let report = &e.report;
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
    if let (Some(curve), Some(score)) = (&e.pr_curve, &e.score) {
        outs.table(&args.out, Format::Csv, &e.pr_rows())?;
        let svg = pr_svg(
            &format!("precision-recall over {score}"),
            &[(score.as_str(), curve)],
        );
        outs.write(&args.out.join("pr.svg"), svg.as_bytes())?;
        if let Some(b) = &e.break_even {
            break_even_line(&mut o, score, b);
        }
    }
    if let Some(t) = &e.term_differences {
        let _ = writeln!(
            o,
            "term differences over {} predicted pairs: mean {:.1}, median {}, 90th percentile {}",
            t.pairs, t.mean, t.median, t.p90
        );
    }
    let mut curves_json = None;
    let mut rp_hm_json = None;
    if let Some(c) = &e.curves {
        let mut map = std::collections::BTreeMap::new();
        for n in &c.scores {
            if let Some(b) = &n.break_even {
                break_even_line(&mut o, &n.name, b);
                map.insert(
                    n.name.as_str(),
                    CurveJson {
                        break_even: *b,
                        points: n.points.len(),
                    },
                );
            }
        }
        curves_json = Some(map);
        let mut all: Vec<&NamedCurve> = c.scores.iter().collect();
        if let Some(r) = &c.rp_hm {
            let g = &r.link_graph;
            let _ = writeln!(
                o,
                "rp-hm signatures of {} pages in {:.2} s ({:?} term weights, gamma {}, {} iterations): link graph of {} edges, {} pages with children",
                g.pages, r.seconds, r.params.weights, r.params.gamma, r.params.iterations, g.edges, g.pages_with_children
            );
            let mut rows = Vec::new();
            for n in &r.curves {
                if let Some(b) = &n.break_even {
                    let _ = writeln!(
                        o,
                        "break-even over {}: precision {:.3}, recall {:.3} at distance <= {:.3e}",
                        n.name, b.precision, b.recall, b.threshold
                    );
                    rows.push(RpHmCurveJson {
                        curve: &n.name,
                        break_even: *b,
                        points: n.points.len(),
                    });
                }
                all.push(n);
            }
            if let Some((name, b)) = &r.best {
                let _ = writeln!(
                    o,
                    "best RP+HM break-even: {name}, C = {:.3e}: precision {:.3}, recall {:.3}",
                    b.threshold, b.precision, b.recall
                );
            }
            rp_hm_json = Some(RpHmJson {
                params: r.params,
                rp_tol_grid: &r.rp_tol_grid,
                curves: rows,
                best: r.best.as_ref().map(|(n, b)| BestJson {
                    curve: n,
                    break_even: *b,
                }),
                link_graph: &r.link_graph,
                seconds: r.seconds,
            });
        }
        if c.missing_pages > 0 {
            let _ = writeln!(
                o,
                "{} labelled pair(s) have a page missing from the crawl (never predicted)",
                c.missing_pages
            );
        }
        outs.table(&args.out, Format::Csv, &e.curve_rows())?;
        let refs: Vec<(&str, &[PrPoint])> = all
            .iter()
            .map(|n| (n.name.as_str(), n.points.as_slice()))
            .collect();
        outs.write(
            &args.out.join("curves.svg"),
            pr_svg("precision-recall per score, all labelled pairs", &refs).as_bytes(),
        )?;
    }
    let json = EvalJson {
        report,
        truth: &e.truth,
        pred: &e.pred,
        break_even: e.break_even,
        pr_curve: e.pr_curve.as_deref(),
        term_differences: e.term_differences.as_ref(),
        curves: curves_json,
        rp_hm: rp_hm_json,
    };
    let mut bytes = serde_json::to_vec_pretty(&json)?;
    bytes.push(b'\n');
    outs.write(&args.out.join("eval.json"), &bytes)?;
    outs.end(&args.out, !args.no_report)?;
    if !quiet {
        print!("{o}");
        println!("files: {}", args.out.display());
    }
    Ok(())
}

fn sites(args: &EvalArgs, outs: &Outputs, e: &SiteEval, quiet: bool) -> Result<()> {
    let out = &args.out;
    let roc_csv = outs.table(out, Format::Csv, &e.roc_rows())?;
    let methods: Vec<(&str, f64, &[neardup_eval::sites::RocPoint])> = (e.methods.iter())
        .map(|m| (m.method, m.auc, m.roc.as_slice()))
        .collect();
    for (name, svg) in neardup_html::figures::sites(&methods) {
        outs.write(&out.join(name), svg.as_bytes())?;
    }
    let mut json = serde_json::to_vec_pretty(e)?;
    json.push(b'\n');
    let path = out.join("site-eval.json");
    outs.write(&path, &json)?;
    outs.end(out, !args.no_report)?;
    if !quiet {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} pairs ({} replicas, {} of them not among the candidates; {} candidates not in the labels counted as non-replicas)",
            e.pairs_scored,
            e.replicas_labelled,
            e.replicas_not_among_candidates,
            e.candidates_not_in_labels_counted_as_non_replicas
        );
        let _ = writeln!(
            o,
            "  {:<10} {:>7}  {:>22}  {:>22}  {:>8} {:>8} {:>8} {:>8}",
            "method",
            "AUC",
            "FPR 0: TPR / RR",
            "FPR .005: TPR / RR",
            "RDR 10",
            "100",
            "1000",
            "10000"
        );
        for r in &e.methods {
            let op = |f: f64| {
                r.at_fpr
                    .iter()
                    .find(|a| a.max_fpr == f)
                    .map_or(String::new(), |a| {
                        format!("{:.3} / {:.3}", a.tpr, a.reduction_ratio)
                    })
            };
            let rdr: Vec<String> = r
                .replica_detection_rate
                .iter()
                .map(|(_, v)| v.map_or("-".to_string(), |v| format!("{v:.4}")))
                .collect();
            let _ = writeln!(
                o,
                "  {:<10} {:>7.4}  {:>22}  {:>22}  {:>8} {:>8} {:>8} {:>8}",
                r.method,
                r.auc,
                op(0.0),
                op(0.005),
                rdr[0],
                rdr[1],
                rdr[2],
                rdr[3]
            );
        }
        let _ = writeln!(
            o,
            "files:\n  {}\n  {}\n  {}\n  {}",
            path.display(),
            roc_csv,
            out.join("roc.svg").display(),
            out.join("site-pr.svg").display()
        );
        print!("{o}");
    }
    Ok(())
}
