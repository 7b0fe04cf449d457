//! Figures rendered from a job's report (SVG through `neardup_report::plot`): paper 004's
//! figures 4-10 from an evolution, paper 001's Fig. 5 from a site evaluation. The jobs return
//! data; the front end renders them here and writes the files the HTML report embeds.

use neardup_eval::sites::RocPoint;
use neardup_evolve::{Coefficients, EvolveReport, BUCKETS, RANGES};
use neardup_report::plot::{line_chart, stacked_bars, Axis, Series};
use std::collections::BTreeMap;

/// One SVG per figure of paper 004 section 3 that the crawls allow.
pub fn evolve(r: &EvolveReport, labels: &[&str]) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let n = labels.len();
    // Padded so that the first and last labels fit.
    let crawl_axis = Axis::linear("crawl", 0.6, n as f64 + 0.4).with_ticks(
        labels
            .iter()
            .enumerate()
            .map(|(i, l)| (i as f64 + 1.0, l.to_string()))
            .collect(),
    );
    let ranges_present: Vec<usize> = (0..RANGES.len())
        .filter(|&g| r.coefficients.iter().any(|c| c.range == g))
        .collect();
    type Pick = fn(&Coefficients) -> Option<f64>;
    let coefficient_figures: [(&str, &str, &str, Pick); 3] = [
        (
            "fig4-containment.svg",
            "Containment of crawl-n clusters in crawl-1 clusters (paper 004 Fig. 4)",
            "mean |C1 ∩ Cn| / |C1|",
            |c| c.containment,
        ),
        (
            "fig5-similarity.svg",
            "Similarity of crawl-1 and crawl-n clusters (Fig. 5)",
            "mean |C1 ∩ Cn| / |C1 ∪ Cn|",
            |c| c.similarity,
        ),
        (
            "fig7-reverse-containment.svg",
            "Containment of crawl-1 clusters in crawl-n clusters (Fig. 7)",
            "mean |C1 ∩ Cn| / |Cn|",
            |c| c.reverse_containment,
        ),
    ];
    for (file, title, y_label, pick) in coefficient_figures {
        let series: Vec<Series> = ranges_present
            .iter()
            .map(|&g| {
                let urls = r
                    .coefficients
                    .iter()
                    .find(|c| c.range == g)
                    .map_or(0, |c| c.urls);
                Series {
                    name: format!("{} ({urls} URLs)", RANGES[g]),
                    points: r
                        .coefficients
                        .iter()
                        .filter(|c| c.range == g)
                        .filter_map(|c| Some((c.crawl as f64 + 1.0, pick(c)?)))
                        .collect(),
                }
            })
            .collect();
        let y = Axis::linear(y_label, 0.0, 1.0);
        out.push((file, line_chart(title, &crawl_axis, &y, &series, true)));
    }

    // Figure 6: change in the number of distinct clusters per host.
    let mut hist: BTreeMap<i64, u64> = BTreeMap::new();
    for h in r
        .hosts
        .iter()
        .filter(|h| h.pages_first > 0 && h.pages_last > 0)
    {
        *hist
            .entry(h.clusters_last as i64 - h.clusters_first as i64)
            .or_default() += 1;
    }
    if !hist.is_empty() {
        let lo = *hist.keys().next().expect("non-empty") as f64;
        let hi = *hist.keys().last().expect("non-empty") as f64;
        let top = hist.values().copied().max().unwrap_or(1) as f64;
        let series = [Series {
            name: "hosts".into(),
            points: hist.iter().map(|(&k, &v)| (k as f64, v as f64)).collect(),
        }];
        let (lo, hi) = if lo == hi {
            (lo - 1.0, hi + 1.0)
        } else {
            (lo, hi)
        };
        out.push((
            "fig6-host-clusters.svg",
            line_chart(
                &format!(
                    "Change in distinct clusters per host, {} to {} (Fig. 6)",
                    labels[0],
                    labels[n - 1]
                ),
                &Axis::linear("clusters in last crawl - clusters in first crawl", lo, hi),
                &Axis::log("hosts", 0.5, top * 2.0),
                &series,
                true,
            ),
        ));
    }

    let Some(all) = r.change_all() else {
        return out;
    };
    let totals = &all.counts;
    let m = r.m as usize;
    let xs: Vec<String> = (0..=m + 1).map(|x| x.to_string()).collect();
    let per_x: Vec<u64> = (0..=m + 1)
        .map(|x| totals.iter().map(|row| row[x]).sum())
        .collect();
    let share = |g: usize, x: usize| (per_x[x] > 0).then(|| totals[g][x] as f64 / per_x[x] as f64);
    let used: Vec<usize> = (0..RANGES.len())
        .filter(|&g| totals[g].iter().any(|&v| v > 0))
        .collect();
    // Figure 8: for each change amount, which cluster sizes the URLs come from.
    let layers: Vec<(String, Vec<f64>)> = used
        .iter()
        .map(|&g| {
            (
                format!("size {}", RANGES[g]),
                (0..=m + 1).map(|x| share(g, x).unwrap_or(0.0)).collect(),
            )
        })
        .collect();
    out.push((
        "fig8-change-by-size.svg",
        stacked_bars(
            "Cluster size by change amount, all consecutive crawls (Fig. 8)",
            &format!(
                "minvalues shared with the previous crawl ({} = byte-identical)",
                m + 1
            ),
            "share of URLs",
            &xs,
            &layers,
        ),
    ));
    // Figure 9: y / Y, Y the mean height of a range over the change amounts that occur.
    let series: Vec<Series> = used
        .iter()
        .map(|&g| {
            let ys: Vec<(usize, f64)> = (0..=m + 1)
                .filter_map(|x| Some((x, share(g, x)?)))
                .collect();
            let mean = ys.iter().map(|p| p.1).sum::<f64>() / ys.len().max(1) as f64;
            Series {
                name: format!("size {}", RANGES[g]),
                points: ys
                    .iter()
                    .filter(|p| p.1 > 0.0 && mean > 0.0)
                    .map(|&(x, y)| (x as f64, y / mean))
                    .collect(),
            }
        })
        .collect();
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0, f64::max);
    let bottom = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0, f64::min);
    out.push((
        "fig9-relative-change.svg",
        line_chart(
            "Relative contribution of cluster size to change amount (Fig. 9)",
            &Axis::linear(
                "minvalues shared with the previous crawl",
                0.0,
                (m + 1) as f64,
            ),
            &Axis::log(
                "share / mean share of the size range",
                bottom / 2.0,
                top * 2.0,
            ),
            &series,
            true,
        ),
    ));
    // Figure 10: change buckets per cluster-size range.
    let cats: Vec<String> = used.iter().map(|&g| RANGES[g].to_string()).collect();
    let all_buckets = all.buckets(r.m);
    let buckets: Vec<[u64; 6]> = used.iter().map(|&g| all_buckets[g]).collect();
    let layers: Vec<(String, Vec<f64>)> = (0..6)
        .rev()
        .map(|k| {
            (
                BUCKETS[k].to_string(),
                buckets
                    .iter()
                    .map(|b| {
                        let t: u64 = b.iter().sum();
                        if t == 0 {
                            0.0
                        } else {
                            b[k] as f64 / t as f64
                        }
                    })
                    .collect(),
            )
        })
        .collect();
    out.push((
        "fig10-change-buckets.svg",
        stacked_bars(
            "Change amount by cluster size, all consecutive crawls (Fig. 10)",
            "cluster size in the earlier crawl",
            "share of URLs",
            &cats,
            &layers,
        ),
    ));
    out
}

/// `roc.svg` (paper 001 Fig. 5 left) and `site-pr.svg` (Fig. 5 middle) of a site evaluation:
/// one series per ranking method, `(method, AUC, ROC curve)`.
pub fn sites(methods: &[(&str, f64, &[RocPoint])]) -> [(&'static str, String); 2] {
    let series = |f: fn(&RocPoint) -> (f64, f64)| -> Vec<Series> {
        methods
            .iter()
            .map(|(method, auc, roc)| Series {
                name: format!("{method} (AUC {auc:.4})"),
                points: roc.iter().map(f).collect(),
            })
            .collect()
    };
    let unit = |l: &str| Axis::linear(l, 0.0, 1.0);
    [
        (
            "roc.svg",
            line_chart(
                "Website replicas: ROC (paper 001 Fig. 5 left)",
                &unit("false-positive rate"),
                &unit("true-positive rate"),
                &series(|p| (p.fpr, p.tpr)),
                false,
            ),
        ),
        (
            "site-pr.svg",
            line_chart(
                "Website replicas: precision / recall (Fig. 5 middle)",
                &unit("recall"),
                &unit("precision"),
                &series(|p| (p.tpr, p.precision)),
                false,
            ),
        ),
    ]
}
