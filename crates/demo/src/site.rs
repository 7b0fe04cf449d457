//! The small files: `site/` (a folder of HTML files), `response.http` and `lookup.json` (one
//! page of `crawl/` as a crawler would send it to `neardup serve`), `hosts.csv`.

use crate::sample::Sample;
use crate::warc::{http_block, Response};
use crate::Files;

/// The page `response.http` and `lookup.json` carry: the stable `Chars` page of the sample.
pub(crate) const LOOKUP_PAGE: &str = "https://doc.rust-lang.org/stable/std/str/struct.Chars.html";

pub(crate) fn write(sample: &Sample, files: &mut Files) {
    let pages = sample.html("stable");
    // site/: five documentation pages and a copy of the first under another name.
    for (i, p) in pages.iter().take(5).enumerate() {
        let name = p.url.rsplit('/').next().unwrap_or("page.html");
        let path = if i == 0 {
            "site/index.html".to_string()
        } else {
            format!("site/docs/{name}")
        };
        files.add(&path, p.body.clone());
        if i == 1 {
            files.add(&format!("site/docs/copy-of-{name}"), p.body.clone());
        }
    }
    files.add("site/style.css", b"body { font-family: serif; }\n".to_vec());
    files.about(
        "site/",
        "a folder of HTML files (five pages and a copy of one)",
    );
    let page = pages
        .iter()
        .find(|p| p.url == LOOKUP_PAGE)
        .or_else(|| pages.first());
    if let Some(p) = page {
        let r = Response {
            url: &p.url,
            date: "",
            status: 200,
            content_type: "text/html; charset=utf-8",
            headers: &[],
            body: &p.body,
        };
        files.add("response.http", http_block(&r));
        let lookup = serde_json::json!({
            "url": "https://copies.example/chars.html",
            "html": String::from_utf8_lossy(&p.body),
        });
        files.add("lookup.json", lookup.to_string().into_bytes());
        files.about(
            "response.http lookup.json",
            &format!("{}: an HTTP response, and a lookup body (url, html) of the same page at another URL", p.url),
        );
    }
    files.add(
        "hosts.csv",
        b"doc.rust-lang.org,151.101.1.1\ndocs-mirror.example,203.0.113.7\n".to_vec(),
    );
    files.about("hosts.csv", "host,IP (neardup mirrors --hosts-ips)");
}
