//! The prose of a rustdoc page: its `<p>` paragraphs as plain text.

/// The text of every `<p>` element of `html`, tags removed, the common entities decoded and
/// white space collapsed; empty paragraphs left out.
pub(crate) fn paragraphs(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = find_open_p(rest) {
        let after = &rest[at..];
        let Some(gt) = after.find('>') else { break };
        let body = &after[gt + 1..];
        let end = body.find("</p>").unwrap_or(body.len());
        let text = plain(&body[..end]);
        if !text.is_empty() {
            out.push(text);
        }
        rest = &body[end..];
    }
    out
}

fn find_open_p(s: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find("<p") {
        let at = from + i;
        match s.as_bytes().get(at + 2) {
            Some(b'>') | Some(b' ') => return Some(at),
            _ => from = at + 2,
        }
    }
    None
}

/// Tags dropped, entities decoded, white space collapsed.
pub(crate) fn plain(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lowercased words (letters and digits).
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The set of hashed word 5-grams of `text`.
pub(crate) fn shingles(text: &str) -> std::collections::HashSet<u64> {
    use std::hash::{Hash, Hasher};
    let w = words(text);
    let mut out = std::collections::HashSet::new();
    for g in w.windows(5) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        g.hash(&mut h);
        out.insert(h.finish());
    }
    out
}

/// The Jaccard coefficient of two shingle sets (0 when both are empty).
pub(crate) fn jaccard(
    a: &std::collections::HashSet<u64>,
    b: &std::collections::HashSet<u64>,
) -> f64 {
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

/// The whole page as plain text: `<script>` and `<style>` elements dropped, then
/// [`plain`].
pub(crate) fn page_text(html: &str) -> String {
    let mut kept = String::with_capacity(html.len());
    let mut rest = html;
    loop {
        let next = ["<script", "<style"]
            .iter()
            .filter_map(|t| rest.find(t).map(|i| (i, *t)))
            .min();
        let Some((at, tag)) = next else {
            kept.push_str(rest);
            break;
        };
        kept.push_str(&rest[..at]);
        let close = format!("</{}>", &tag[1..]);
        match rest[at..].find(&close) {
            Some(end) => rest = &rest[at + end + close.len()..],
            None => break,
        }
    }
    plain(&kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_are_plain_text() {
        let html = r#"<div><p>One <code>x</code> &amp; two</p><pre>no</pre><p class="a">
        Three</p><param><p></p></div>"#;
        assert_eq!(paragraphs(html), ["One x & two", "Three"]);
    }
}
