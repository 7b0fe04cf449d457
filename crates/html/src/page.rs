//! One self-contained HTML page: inline CSS, inline SVG, a few lines of plain JavaScript that
//! make tables sortable and filterable (the page reads the same without it), nothing fetched.
//! Everything is written in a fixed order with fixed number formats, so the same inputs give the
//! same bytes.

use std::fmt::Write as _;

/// Escapes text for HTML element content and attribute values. Bidirectional embedding,
/// override and isolate controls (U+202A to U+202E, U+2066 to U+2069) are shown as text
/// (`[U+202E]`): in a URL or a title they would make the text read in another order than it
/// is (`evil\u{202E}gnp.exe` shown as `evilexe.png`). Marks (U+200E, U+200F) are kept: they
/// only steer neutral characters in right-to-left text.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
                let _ = write!(out, "[U+{:04X}]", c as u32);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The page's Content-Security-Policy: nothing is fetched, and the one script that runs is the
/// page's own (by its hash), so text from a crawl can never run even if it were not escaped.
fn content_security_policy() -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let hash = sha2::Sha256::digest(format!("\n{JS}").as_bytes());
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{}'; \
         base-uri 'none'; form-action 'none'",
        base64::engine::general_purpose::STANDARD.encode(hash)
    )
}

/// A number as the report prints it: integers as they are, others with up to `decimals`
/// decimals (trailing zeros dropped).
pub fn num(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "—".to_string();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return group(&format!("{}", v as i64));
    }
    let s = format!("{v:.decimals$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// An integer with comma thousands separators.
pub fn int(v: u64) -> String {
    group(&v.to_string())
}

fn group(digits: &str) -> String {
    let (sign, d) = digits.strip_prefix('-').map_or(("", digits), |d| ("-", d));
    if d.len() <= 3 {
        return digits.to_string();
    }
    let mut out = String::from(sign);
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A percentage of `part` in `whole` (one decimal).
pub fn pct(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.1}%", 100.0 * part / whole)
    } else {
        "—".to_string()
    }
}

/// One cell of a table.
#[derive(Clone, Debug)]
pub enum Cell {
    /// Text.
    Text(String),
    /// A number, sorted by value, shown with up to the given decimals.
    Num(f64, usize),
    /// No value (sorted first ascending).
    Empty,
    /// A URL, shown as a link.
    Url(String),
    /// Markup the caller built (escaped already), sorted by the given text.
    Html(String, String),
}

impl Cell {
    /// A cell from a JSON value: numbers as numbers, text as text (links for URLs), booleans as
    /// yes/no, nulls empty.
    pub fn json(v: Option<&serde_json::Value>) -> Cell {
        match v {
            Some(serde_json::Value::Number(n)) => Cell::Num(n.as_f64().unwrap_or(f64::NAN), 4),
            Some(serde_json::Value::String(s)) if looks_like_url(s) => Cell::Url(s.clone()),
            Some(serde_json::Value::String(s)) => Cell::Text(s.clone()),
            Some(serde_json::Value::Bool(b)) => Cell::Text(if *b { "yes" } else { "no" }.into()),
            Some(serde_json::Value::Null) | None => Cell::Empty,
            Some(other) => Cell::Text(other.to_string()),
        }
    }

    fn render(&self, out: &mut String) {
        match self {
            Cell::Text(s) if s.len() > 80 => {
                let _ = write!(out, "<td class=\"long\">{}</td>", esc(s));
            }
            // A short word (a crawl label, a date, a kind) stays on one line: its hyphens are
            // not places to break it.
            Cell::Text(s) if s.len() <= 24 && !s.contains(char::is_whitespace) => {
                let _ = write!(out, "<td class=\"w\">{}</td>", esc(s));
            }
            Cell::Text(s) => {
                let _ = write!(out, "<td>{}</td>", esc(s));
            }
            Cell::Num(v, d) => {
                let shown = num(*v, *d);
                let _ = write!(
                    out,
                    "<td class=\"n\" data-v=\"{}\">{}</td>",
                    sort_key(*v),
                    shown
                );
            }
            Cell::Empty => out.push_str("<td class=\"n\" data-v=\"\">—</td>"),
            Cell::Url(u) => {
                let _ = write!(out, "<td class=\"u\">{}</td>", link(u));
            }
            Cell::Html(h, key) => {
                let _ = write!(out, "<td data-v=\"{}\">{h}</td>", esc(key));
            }
        }
    }
}

fn sort_key(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        String::new()
    }
}

pub(crate) fn looks_like_url(s: &str) -> bool {
    (s.starts_with("http://") || s.starts_with("https://")) && !s.contains(char::is_whitespace)
}

/// A link to a page of the crawl (opened only when clicked; nothing is fetched by the report).
pub fn link(url: &str) -> String {
    if looks_like_url(url) {
        format!(
            "<a href=\"{0}\" rel=\"noreferrer noopener\">{0}</a>",
            esc(url)
        )
    } else {
        esc(url)
    }
}

/// A column: its heading, and whether it holds numbers (right-aligned, sorted by value).
#[derive(Clone, Debug)]
pub struct Col {
    /// Heading.
    pub name: String,
    /// Numeric.
    pub numeric: bool,
}

/// Columns from `(name, numeric)` pairs.
pub fn cols(spec: &[(&str, bool)]) -> Vec<Col> {
    spec.iter()
        .map(|&(name, numeric)| Col {
            name: name.to_string(),
            numeric,
        })
        .collect()
}

/// The page being written.
pub struct Page {
    title: String,
    toc: Vec<(String, String)>,
    body: String,
}

const CSS: &str = "\
:root{--fg:#1a1a1a;--muted:#555;--line:#d0d0d0;--band:#f4f6f8;--del:#fbe3cc;--ins:#d3e9f7}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);margin:0 auto;max-width:1180px;padding:0 18px 60px}
header{border-bottom:2px solid var(--fg);margin-bottom:8px}
h1{font-size:1.6em;margin:18px 0 4px}
h2{font-size:1.25em;margin:34px 0 8px;border-bottom:1px solid var(--line);padding-bottom:3px}
h3{font-size:1.05em;margin:22px 0 6px}
nav ul{list-style:none;padding:0;margin:6px 0 14px;display:flex;flex-wrap:wrap;gap:4px 16px}
p.note{color:var(--muted);font-size:.92em}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:8px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
figure{margin:12px 0}figure svg{max-width:100%;height:auto;border:1px solid var(--line)}
figcaption{color:var(--muted);font-size:.9em}
.figs{display:flex;flex-wrap:wrap;gap:12px}.figs figure{flex:1 1 520px}
.scroll{overflow-x:auto;max-height:640px;overflow-y:auto;border:1px solid var(--line);margin:6px 0}
table{border-collapse:collapse;font-size:.88em;width:100%}
caption{text-align:left;font-weight:600;padding:6px 4px}
th,td{padding:3px 8px;border-bottom:1px solid #eee;vertical-align:top;text-align:left}
thead th{position:sticky;top:0;background:#fff;border-bottom:2px solid var(--line)}
tbody tr:nth-child(even){background:var(--band)}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.u{word-break:break-all;min-width:16em}
td.w{white-space:nowrap}
td.long{min-width:30em;font-size:.85em;overflow-wrap:anywhere}
.pair{font-size:.85em;overflow-wrap:anywhere;min-width:30em;padding:2px 0}.pair+.pair{border-top:1px dotted var(--line)}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit}
th[aria-sort=ascending] button::after{content:' \\25B2'}th[aria-sort=descending] button::after{content:' \\25BC'}
input.filter{margin:4px 0;padding:3px 6px;width:22em;font:inherit}
.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.side>div{border:1px solid var(--line);padding:8px;font-size:.88em;line-height:1.6;overflow-wrap:anywhere}
del{background:var(--del);text-decoration:line-through;text-decoration-color:#D55E00}
ins{background:var(--ins);text-decoration:underline;text-decoration-color:#0072B2}
.removed{color:var(--muted);font-size:.85em}
a{color:#0a58a6}
";

const JS: &str = "\
(function(){
function key(c,num){var v=c.getAttribute('data-v');var t=v===null?c.textContent:v;if(!num)return t.toLowerCase();var n=parseFloat(t);return isNaN(n)?-Infinity:n;}
document.querySelectorAll('table.data').forEach(function(t){
var heads=t.tHead.rows[0].cells,body=t.tBodies[0];
Array.prototype.forEach.call(heads,function(th,i){
var b=document.createElement('button');b.type='button';b.textContent=th.textContent;th.textContent='';th.appendChild(b);
b.addEventListener('click',function(){
var up=th.getAttribute('aria-sort')!=='ascending',num=th.classList.contains('n');
Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',up?'ascending':'descending');
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(x,y){var a=key(x.cells[i],num),c=key(y.cells[i],num);return (a<c?-1:a>c?1:0)*(up?1:-1);});
rows.forEach(function(r){body.appendChild(r);});});});
if(body.rows.length<=10)return;
var f=document.createElement('input');f.type='search';f.className='filter';f.placeholder='Filter rows';
f.setAttribute('aria-label','Filter the rows of: '+(t.caption?t.caption.textContent:'this table'));
t.parentNode.parentNode.insertBefore(f,t.parentNode);
f.addEventListener('input',function(){var q=f.value.toLowerCase();Array.prototype.forEach.call(body.rows,function(r){r.hidden=q!==''&&r.textContent.toLowerCase().indexOf(q)<0;});});
});})();
";

impl Page {
    /// A page with this title (also its first heading).
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            toc: Vec::new(),
            body: String::new(),
        }
    }

    /// A section heading, listed in the page's contents.
    pub fn section(&mut self, id: &str, heading: &str) {
        self.toc.push((id.to_string(), heading.to_string()));
        let _ = writeln!(self.body, "<h2 id=\"{}\">{}</h2>", esc(id), esc(heading));
    }

    /// A sub-heading.
    pub fn h3(&mut self, text: &str) {
        let _ = writeln!(self.body, "<h3>{}</h3>", esc(text));
    }

    /// A paragraph of text.
    pub fn p(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p>{}</p>", esc(text));
    }

    /// A note (sampling, what is missing and why).
    pub fn note(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p class=\"note\">{}</p>", esc(text));
    }

    /// Markup the caller built (escaped already).
    pub fn raw(&mut self, html: &str) {
        self.body.push_str(html);
        self.body.push('\n');
    }

    /// Label-value facts.
    pub fn facts(&mut self, facts: &[(String, String)]) {
        self.body.push_str("<dl class=\"facts\">\n");
        for (k, v) in facts {
            let _ = writeln!(self.body, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
        }
        self.body.push_str("</dl>\n");
    }

    /// Figures side by side (each an SVG and its caption).
    pub fn figures(&mut self, figs: &[(String, String)]) {
        if figs.is_empty() {
            return;
        }
        self.body.push_str("<div class=\"figs\">\n");
        for (svg, caption) in figs {
            let _ = writeln!(
                self.body,
                "<figure>{}<figcaption>{}</figcaption></figure>",
                svg.trim_end(),
                esc(caption)
            );
        }
        self.body.push_str("</div>\n");
    }

    /// A sortable, filterable table. `total` is the number of rows there were before the
    /// caller capped them (a note says so when more than were shown).
    pub fn table(&mut self, caption: &str, cols: &[Col], rows: &[Vec<Cell>], total: usize) {
        if rows.len() < total {
            self.note(&format!(
                "{caption}: the first {} of {} rows; the folder's table holds them all.",
                int(rows.len() as u64),
                int(total as u64)
            ));
        }
        let _ = write!(
            self.body,
            "<div class=\"scroll\"><table class=\"data\"><caption>{}</caption>\n<thead><tr>",
            esc(caption)
        );
        for c in cols {
            if c.numeric {
                let _ = write!(
                    self.body,
                    "<th scope=\"col\" class=\"n\">{}</th>",
                    esc(&c.name)
                );
            } else {
                let _ = write!(self.body, "<th scope=\"col\">{}</th>", esc(&c.name));
            }
        }
        self.body.push_str("</tr></thead>\n<tbody>\n");
        for r in rows {
            self.body.push_str("<tr>");
            for c in r {
                c.render(&mut self.body);
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</tbody></table></div>\n");
    }

    /// The whole document.
    pub fn finish(self) -> String {
        let mut out = String::with_capacity(self.body.len() + 8192);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"neardup {}\">\n<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<header><h1>{}</h1>\n",
            content_security_policy(),
            env!("CARGO_PKG_VERSION"),
            esc(&self.title),
            esc(&self.title)
        );
        if !self.toc.is_empty() {
            out.push_str("<nav aria-label=\"Contents\"><ul>");
            for (id, h) in &self.toc {
                let _ = write!(out, "<li><a href=\"#{}\">{}</a></li>", esc(id), esc(h));
            }
            out.push_str("</ul></nav>\n");
        }
        out.push_str("</header>\n<main>\n");
        out.push_str(&self.body);
        let _ = write!(out, "</main>\n<script>\n{JS}</script>\n</body>\n</html>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_numbers_are_fixed() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(num(3.0, 3), "3");
        assert_eq!(num(0.12345, 3), "0.123");
        assert_eq!(num(0.5, 3), "0.5");
        assert_eq!(num(f64::NAN, 3), "—");
        assert_eq!(int(123), "123");
        assert_eq!(int(1234), "1,234");
        assert_eq!(int(12345), "12,345");
        assert_eq!(int(1234567), "1,234,567");
        assert_eq!(num(-1234567.0, 2), "-1,234,567");
        assert_eq!(pct(1.0, 3.0), "33.3%");
    }

    #[test]
    fn a_page_holds_its_tables_and_a_note_when_capped() {
        let mut p = Page::new("t <x>");
        p.section("a", "A");
        p.table(
            "rows",
            &cols(&[("url", false), ("n", true)]),
            &[vec![
                Cell::Url("https://e.org/?a=1&b=2".into()),
                Cell::Num(2.5, 3),
            ]],
            3,
        );
        let html = p.finish();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>t &lt;x&gt;</title>"));
        assert!(html.contains("href=\"https://e.org/?a=1&amp;b=2\""));
        assert!(html.contains("data-v=\"2.5\">2.5</td>"));
        assert!(html.contains("the first 1 of 3 rows"));
        assert!(!html.contains("src="), "nothing is fetched");
    }

    #[test]
    fn crawl_text_is_shown_as_text_and_only_the_page_s_script_may_run() {
        assert_eq!(esc("evil\u{202E}gnp.exe"), "evil[U+202E]gnp.exe");
        assert_eq!(
            esc("\u{2067}a\u{2069} \u{202A}b"),
            "[U+2067]a[U+2069] [U+202A]b"
        );
        // Marks and right-to-left text itself are kept.
        assert_eq!(esc("שלום\u{200F} مرحبا"), "שלום\u{200F} مرحبا");
        assert_eq!(link("javascript:alert(1)"), "javascript:alert(1)");
        assert_eq!(link("data:text/html,<b>"), "data:text/html,&lt;b&gt;");
        let html = Page::new("t").finish();
        let csp = content_security_policy();
        assert!(html.contains(&format!("content=\"{csp}\"")));
        assert!(csp.starts_with("default-src 'none'; ") && !csp.contains("unsafe-eval"));
        // The hash is of the script exactly as the page holds it.
        let script = &html[html.find("<script>").unwrap() + 8..html.find("</script>").unwrap()];
        use base64::Engine as _;
        use sha2::Digest as _;
        let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(script));
        assert!(csp.contains(&format!("'sha256-{hash}'")), "{csp}");
    }
}
