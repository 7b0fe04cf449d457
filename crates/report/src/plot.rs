//! Self-contained SVG charts for the figures neardup reproduces: line charts (linear or
//! logarithmic y) and stacked bar charts. No fonts, scripts or external files; the output is
//! deterministic text, so a figure can be diffed and embedded in an HTML report.

use std::fmt::Write as _;

/// The Okabe-Ito palette (told apart with every common colour-vision deficiency), its yellow
/// last (the faintest on white).
pub const COLORS: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

const W: f64 = 640.0;
const H: f64 = 420.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

/// How an axis maps values to positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Linear between the bounds.
    Linear,
    /// Base-10 logarithm between the bounds (both must be positive); values <= 0 are not drawn.
    Log,
}

/// An axis: label, bounds, scale and optional named ticks (for categories such as crawl labels).
#[derive(Clone, Debug)]
pub struct Axis {
    /// Shown along the axis.
    pub label: String,
    /// Lower bound.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
    /// Linear or logarithmic.
    pub scale: Scale,
    /// Ticks with their text; empty = computed.
    pub ticks: Vec<(f64, String)>,
}

impl Axis {
    /// A linear axis.
    pub fn linear(label: &str, min: f64, max: f64) -> Axis {
        Axis {
            label: label.to_string(),
            min,
            max,
            scale: Scale::Linear,
            ticks: Vec::new(),
        }
    }

    /// A logarithmic axis; `min` is raised to a positive value if needed.
    pub fn log(label: &str, min: f64, max: f64) -> Axis {
        let min = if min > 0.0 { min } else { 1e-3 };
        Axis {
            label: label.to_string(),
            min,
            max: max.max(min * 10.0),
            scale: Scale::Log,
            ticks: Vec::new(),
        }
    }

    /// The same axis with named ticks.
    pub fn with_ticks(mut self, ticks: Vec<(f64, String)>) -> Axis {
        self.ticks = ticks;
        self
    }

    /// Position of `v` in [0, 1] along the axis (`None` when it cannot be drawn).
    fn unit(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match self.scale {
            Scale::Linear => {
                let span = self.max - self.min;
                Some(if span > 0.0 {
                    (v - self.min) / span
                } else {
                    0.5
                })
            }
            Scale::Log => {
                if v <= 0.0 {
                    return None;
                }
                let (lo, hi) = (self.min.log10(), self.max.log10());
                Some((v.log10() - lo) / (hi - lo))
            }
        }
    }

    fn ticks(&self) -> Vec<(f64, String)> {
        if !self.ticks.is_empty() {
            return self.ticks.clone();
        }
        match self.scale {
            Scale::Linear => {
                let span = self.max - self.min;
                if span <= 0.0 {
                    return vec![(self.min, fmt_num(self.min))];
                }
                let step = tick_step(span);
                let mut t = (self.min / step).ceil() * step;
                let mut out = Vec::new();
                while t <= self.max + step * 1e-9 {
                    out.push((t, fmt_num(t)));
                    t += step;
                }
                out
            }
            Scale::Log => {
                let (lo, hi) = (
                    self.min.log10().floor() as i32,
                    self.max.log10().ceil() as i32,
                );
                // Powers of ten; 1, 2 and 5 of each decade when the axis spans three or fewer.
                let steps: &[f64] = if hi - lo <= 3 {
                    &[1.0, 2.0, 5.0]
                } else {
                    &[1.0]
                };
                (lo..=hi)
                    .flat_map(|e| steps.iter().map(move |s| s * 10f64.powi(e)))
                    .filter(|&v| v >= self.min * 0.999 && v <= self.max * 1.001)
                    .map(|v| (v, fmt_num(v)))
                    .collect()
            }
        }
    }
}

fn fmt_num(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-3) {
        format!("{v:.0e}")
    } else {
        let s = format!("{v:.3}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" {
            "0".to_string()
        } else {
            s.to_string()
        }
    }
}

/// Escapes text for SVG.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn px(a: &Axis, v: f64) -> Option<f64> {
    a.unit(v)
        .map(|u| LEFT + u.clamp(0.0, 1.0) * (W - LEFT - RIGHT))
}

fn py(a: &Axis, v: f64) -> Option<f64> {
    a.unit(v)
        .map(|u| H - BOTTOM - u.clamp(0.0, 1.0) * (H - TOP - BOTTOM))
}

/// The frame: title, grid, ticks, axis labels.
fn frame(title: &str, x: &Axis, y: &Axis, x_ticks: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\" aria-label=\"{}\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{:.1}\" y=\"20\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
        escape(title),
        (W - RIGHT + LEFT) / 2.0,
        escape(title)
    );
    let (x0, x1) = (LEFT, W - RIGHT);
    let (y0, y1) = (H - BOTTOM, TOP);
    for (v, t) in y.ticks() {
        if let Some(p) = py(y, v) {
            let _ = writeln!(
                s,
                "<line x1=\"{x0:.1}\" y1=\"{p:.1}\" x2=\"{x1:.1}\" y2=\"{p:.1}\" stroke=\"#e5e5e5\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                x0 - 5.0,
                p + 4.0,
                escape(&t)
            );
        }
    }
    if x_ticks {
        for (v, t) in x.ticks() {
            if let Some(p) = px(x, v) {
                let _ = writeln!(
                    s,
                    "<line x1=\"{p:.1}\" y1=\"{y0:.1}\" x2=\"{p:.1}\" y2=\"{y1:.1}\" stroke=\"#f0f0f0\"/><text x=\"{p:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                    y0 + 15.0,
                    escape(&t)
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "<rect x=\"{x0:.1}\" y=\"{y1:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#999\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text><text x=\"14\" y=\"{:.1}\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">{}</text>",
        x1 - x0,
        y0 - y1,
        (x0 + x1) / 2.0,
        H - 12.0,
        escape(&x.label),
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0,
        escape(&y.label)
    );
    s
}

fn legend(s: &mut String, k: usize, name: &str, color: &str) {
    let (lx, ly) = (W - RIGHT + 12.0, TOP + 8.0 + 16.0 * k as f64);
    let _ = writeln!(
        s,
        "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"12\" height=\"10\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        ly - 9.0,
        lx + 16.0,
        ly,
        escape(name)
    );
}

/// A named series of points.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points, drawn in order.
    pub points: Vec<(f64, f64)>,
}

/// The step between ticks of a linear axis spanning `span` (> 0): 1, 2, 2.5 or 5 times a power
/// of ten, for at most six steps.
fn tick_step(span: f64) -> f64 {
    let mag = 10f64.powf((span / 5.0).log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|f| f * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag)
}

/// `top` (> 0) raised to the next tick of an axis from zero, so that the tallest bar ends at or
/// below a labelled tick and can be read off the axis.
fn to_next_tick(top: f64) -> f64 {
    let step = tick_step(top);
    (top / step - 1e-9).ceil().max(1.0) * step
}

/// A series' points in pixels, clamped to the frame; points a log axis cannot show are left out.
fn plotted(x: &Axis, y: &Axis, ser: &Series) -> Vec<(f64, f64)> {
    ser.points
        .iter()
        .filter_map(|&(a, b)| Some((px(x, a)?, py(y, b)?)))
        .collect()
}

/// A line chart with one polyline (and a dot per point when `markers`) per series.
pub fn line_chart(title: &str, x: &Axis, y: &Axis, series: &[Series], markers: bool) -> String {
    let mut s = frame(title, x, y, true);
    for (k, ser) in series.iter().enumerate() {
        let c = COLORS[k % COLORS.len()];
        let pts = plotted(x, y, ser);
        let path: Vec<String> = pts.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>",
            path.join(" ")
        );
        if markers {
            for (a, b) in &pts {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{a:.1}\" cy=\"{b:.1}\" r=\"3\" fill=\"{c}\"/>"
                );
            }
        }
        legend(&mut s, k, &ser.name, c);
    }
    s + "</svg>\n"
}

/// Dots for measured points and lines for fitted ones, on the same axes (a log-log
/// distribution and its fitted power law, say): `dots` first in the legend, then `lines`.
pub fn dots_and_lines(
    title: &str,
    x: &Axis,
    y: &Axis,
    dots: &[Series],
    lines: &[Series],
) -> String {
    let mut s = frame(title, x, y, true);
    for (k, ser) in dots.iter().chain(lines).enumerate() {
        let c = COLORS[k % COLORS.len()];
        let pts = plotted(x, y, ser);
        if k < dots.len() {
            for (a, b) in &pts {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{a:.1}\" cy=\"{b:.1}\" r=\"3.5\" fill=\"{c}\"/>"
                );
            }
        } else {
            let path: Vec<String> = pts.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
            let _ = writeln!(
                s,
                "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" stroke-dasharray=\"6 3\" points=\"{}\"/>",
                path.join(" ")
            );
        }
        legend(&mut s, k, &ser.name, c);
    }
    s + "</svg>\n"
}

/// A histogram of `values` over `bins` equal bins between `min` and `max` (values outside are
/// counted in the first or last bin; non-finite values are left out). Bars are labelled by their
/// lower bound.
pub fn histogram(
    title: &str,
    x_label: &str,
    y_label: &str,
    values: &[f64],
    min: f64,
    max: f64,
    bins: usize,
) -> String {
    let bins = bins.max(1);
    let mut counts = vec![0.0f64; bins];
    let span = if max > min { max - min } else { 1.0 };
    for &v in values.iter().filter(|v| v.is_finite()) {
        let b = (((v - min) / span) * bins as f64).floor();
        counts[(b.max(0.0) as usize).min(bins - 1)] += 1.0;
    }
    let categories: Vec<String> = (0..bins)
        .map(|b| fmt_num(min + span * b as f64 / bins as f64))
        .collect();
    stacked_bars(
        title,
        x_label,
        y_label,
        &categories,
        &[(format!("{} values", values.len()), counts)],
    )
}

/// A stacked bar chart: one bar per category, one colored segment per layer (`layers[l].1[c]` is
/// the height of layer `l` in category `c`; negative or non-finite heights count as zero).
pub fn stacked_bars(
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    layers: &[(String, Vec<f64>)],
) -> String {
    let height = |l: &(String, Vec<f64>), c: usize| {
        l.1.get(c)
            .copied()
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(0.0)
    };
    let top = (0..categories.len())
        .map(|c| layers.iter().map(|l| height(l, c)).sum::<f64>())
        .fold(0.0, f64::max);
    let n = categories.len().max(1) as f64;
    let x = Axis::linear(x_label, 0.0, n);
    let y = Axis::linear(
        y_label,
        0.0,
        if top > 0.0 { to_next_tick(top) } else { 1.0 },
    );
    let mut s = frame(title, &x, &y, false);
    let slot = (W - LEFT - RIGHT) / n;
    // Label every category when they fit, else about 12 of them.
    let every = categories.len().div_ceil(12).max(1);
    for (c, name) in categories.iter().enumerate() {
        let x0 = LEFT + slot * c as f64 + slot * 0.1;
        let mut base = 0.0;
        for (k, l) in layers.iter().enumerate() {
            let v = height(l, c);
            if v > 0.0 {
                let (Some(ya), Some(yb)) = (py(&y, base), py(&y, base + v)) else {
                    continue;
                };
                let _ = writeln!(
                    s,
                    "<rect x=\"{x0:.2}\" y=\"{yb:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"{}\"><title>{}, {}: {}</title></rect>",
                    slot * 0.8,
                    ya - yb,
                    COLORS[k % COLORS.len()],
                    escape(name),
                    escape(&l.0),
                    if v.fract() == 0.0 && v < 1e15 {
                        format!("{}", v as u64)
                    } else {
                        fmt_num(v)
                    }
                );
            }
            base += v;
        }
        if c % every == 0 {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                x0 + slot * 0.4,
                H - BOTTOM + 15.0,
                escape(name)
            );
        }
    }
    for (k, l) in layers.iter().enumerate() {
        legend(&mut s, k, &l.0, COLORS[k % COLORS.len()]);
    }
    s + "</svg>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_map_bounds_to_the_frame() {
        let a = Axis::linear("x", 0.0, 10.0);
        assert_eq!(a.unit(0.0), Some(0.0));
        assert_eq!(a.unit(10.0), Some(1.0));
        let l = Axis::log("y", 0.01, 100.0);
        assert!((l.unit(1.0).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(l.unit(0.0), None);
        assert_eq!(l.unit(f64::NAN), None);
        let ticks: Vec<String> = l.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(ticks, ["0.01", "0.1", "1", "10", "100"]);
        let ticks: Vec<String> = Axis::linear("x", 0.0, 1.0)
            .ticks()
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(ticks, ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
    }

    #[test]
    fn charts_draw_every_series_and_layer() {
        let series = vec![
            Series {
                name: "a<b".into(),
                points: vec![(1.0, 0.5), (2.0, 1.0)],
            },
            Series {
                name: "c".into(),
                points: vec![(1.0, 0.0), (2.0, 0.25)],
            },
        ];
        let svg = line_chart(
            "t",
            &Axis::linear("x", 1.0, 2.0),
            &Axis::linear("y", 0.0, 1.0),
            &series,
            true,
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("a&lt;b"));
        let bars = stacked_bars(
            "t",
            "x",
            "y",
            &["p".into(), "q".into()],
            &[("l1".into(), vec![1.0, 0.0]), ("l2".into(), vec![1.0, 2.0])],
        );
        // Three non-empty segments and two legend swatches.
        assert_eq!(bars.matches("<rect x=").count(), 3 + 2 + 1);
        // Each segment names its category, layer and height (a tooltip, and read by screen readers).
        assert!(bars.contains("<title>q, l2: 2</title>"));
    }

    #[test]
    fn bars_end_at_or_below_a_labelled_tick() {
        for (top, want) in [
            (10_180.0, 12_000.0),
            (1.0, 1.0),
            (7.0, 8.0),
            (0.3, 0.3),
            (20_001.0, 25_000.0),
        ] {
            let got = to_next_tick(top);
            assert!((got - want).abs() < 1e-9, "{top}: {got}");
            let ticks = Axis::linear("y", 0.0, got).ticks();
            assert!(
                (ticks.last().unwrap().0 - got).abs() < 1e-9 * got,
                "{top}: {ticks:?}"
            );
        }
    }
}
