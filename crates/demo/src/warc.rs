//! A WARC 1.1 writer for the world's crawls: one gzip member per record, as warcio, wget and
//! Heritrix write them, with `WARC-Payload-Digest` and `WARC-Block-Digest` (SHA-1, base32).
//! Record ids are derived from the record's content and position, so a world is the same bytes
//! every time it is written.

use flate2::{write::GzEncoder, Compression};
use neardup_ingest::digest::{base32, sha1};
use std::io::Write;

/// An HTTP response to store: status, extra headers and the payload.
pub struct Response<'a> {
    pub url: &'a str,
    pub date: &'a str,
    pub status: u16,
    /// `Content-Type` (empty: none).
    pub content_type: &'a str,
    /// Other headers, `name: value` each (a redirect's `Location`).
    pub headers: &'a [(&'a str, String)],
    pub body: &'a [u8],
}

/// What a revisit record points at.
pub struct Original<'a> {
    pub record_id: &'a str,
    pub url: &'a str,
    pub date: &'a str,
    /// The package holding it (`WARC-Refers-To-Container`, as browsertrix-crawler writes it),
    /// when the revisit is in a WACZ package and the original in another.
    pub container: Option<&'a str>,
}

/// A `.warc.gz` file being written in memory.
#[derive(Default)]
pub struct WarcFile {
    pub bytes: Vec<u8>,
    /// Where each record's gzip member starts.
    pub starts: Vec<usize>,
    records: u64,
    name: String,
}

impl WarcFile {
    /// A file that starts with its `warcinfo` record.
    pub fn new(name: &str, date: &str, about: &str) -> WarcFile {
        let mut f = WarcFile {
            name: name.to_string(),
            ..WarcFile::default()
        };
        let info = format!(
            "software: neardup demo\r\nformat: WARC File Format 1.1\r\ndescription: {about}\r\n"
        );
        let id = f.next_id(name);
        f.record(
            &[
                ("WARC-Type", "warcinfo".into()),
                ("WARC-Record-ID", id),
                ("WARC-Date", date.into()),
                ("WARC-Filename", name.into()),
                ("Content-Type", "application/warc-fields".into()),
            ],
            info.as_bytes(),
        );
        f
    }

    /// Appends a response record; returns its record id.
    pub fn response(&mut self, r: &Response) -> String {
        let ip = [("WARC-IP-Address", "151.101.1.1".to_string())];
        self.capture("response", r, &ip, &http_block(r))
    }

    /// Appends a revisit record (profile identical-payload-digest) of `r`, whose payload is not
    /// stored again, pointing at `original`; returns its record id.
    pub fn revisit(&mut self, r: &Response, original: &Original) -> String {
        let refers = [
            (
                "WARC-Profile",
                "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest".to_string(),
            ),
            ("WARC-Refers-To", original.record_id.into()),
            ("WARC-Refers-To-Target-URI", original.url.into()),
            ("WARC-Refers-To-Date", original.date.into()),
        ];
        let mut refers = refers.to_vec();
        if let Some(c) = original.container {
            refers.push(("WARC-Refers-To-Container", format!("file://{c}")));
        }
        self.capture("revisit", r, &refers, &http_head(r))
    }

    /// A record of `r` of WARC type `kind` with `extra` fields and `block`; its record id.
    fn capture(
        &mut self,
        kind: &str,
        r: &Response,
        extra: &[(&str, String)],
        block: &[u8],
    ) -> String {
        let id = self.next_id(r.url);
        let mut fields = vec![
            ("WARC-Type", kind.to_string()),
            ("WARC-Record-ID", id.clone()),
            ("WARC-Date", r.date.into()),
            ("WARC-Target-URI", r.url.into()),
        ];
        fields.extend_from_slice(extra);
        fields.push(("WARC-Payload-Digest", payload_digest(r.body)));
        fields.push(("Content-Type", "application/http; msgtype=response".into()));
        self.record(&fields, block);
        id
    }

    fn next_id(&mut self, url: &str) -> String {
        self.records += 1;
        let d = sha1(format!("{}\n{}\n{}", self.name, self.records, url).as_bytes());
        let h: String = d.iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "<urn:uuid:{}-{}-{}-{}-{}>",
            &h[0..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..32]
        )
    }

    fn record(&mut self, fields: &[(&str, String)], block: &[u8]) {
        let mut rec = Vec::with_capacity(block.len() + 512);
        rec.extend_from_slice(b"WARC/1.1\r\n");
        for (k, v) in fields {
            rec.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
        }
        rec.extend_from_slice(
            format!(
                "WARC-Block-Digest: sha1:{}\r\nContent-Length: {}\r\n\r\n",
                base32(&sha1(block)),
                block.len()
            )
            .as_bytes(),
        );
        rec.extend_from_slice(block);
        rec.extend_from_slice(b"\r\n\r\n");
        let mut gz = GzEncoder::new(Vec::new(), Compression::new(6));
        // Writing to a Vec cannot fail.
        let _ = gz.write_all(&rec);
        if let Ok(member) = gz.finish() {
            self.starts.push(self.bytes.len());
            self.bytes.extend_from_slice(&member);
        }
    }
}

/// `sha1:` and the base32 SHA-1 of `body`, as `WARC-Payload-Digest` carries it.
pub fn payload_digest(body: &[u8]) -> String {
    format!("sha1:{}", base32(&sha1(body)))
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        404 => "Not Found",
        _ => "Status",
    }
}

/// The HTTP status line and headers of `r`, with the blank line that ends them.
fn http_head(r: &Response) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 {} {}\r\n", r.status, reason(r.status));
    if !r.content_type.is_empty() {
        h.push_str(&format!("Content-Type: {}\r\n", r.content_type));
    }
    for (k, v) in r.headers {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    h.push_str(&format!("Content-Length: {}\r\n\r\n", r.body.len()));
    h.into_bytes()
}

/// The HTTP response as stored in a response record (and in `response.http`).
pub fn http_block(r: &Response) -> Vec<u8> {
    let mut b = http_head(r);
    b.extend_from_slice(r.body);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_with_their_digests() {
        let mut f = WarcFile::new("t.warc.gz", "2026-11-02T10:00:00Z", "test");
        let body = b"<html><body><p>hello there</p></body></html>";
        let r = Response {
            url: "https://a.example/x",
            date: "2026-11-02T10:00:01Z",
            status: 200,
            content_type: "text/html; charset=utf-8",
            headers: &[],
            body,
        };
        let id = f.response(&r);
        f.revisit(
            &Response {
                date: "2026-11-09T10:00:01Z",
                ..r
            },
            &Original {
                record_id: &id,
                url: r.url,
                date: r.date,
                container: None,
            },
        );
        let pages = neardup_ingest::pages_of_bytes(
            f.bytes.clone(),
            neardup_ingest::Format::Warc,
            "t.warc.gz",
            &neardup_ingest::ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].body, body);
        assert_eq!(pages[0].payload_digest, payload_digest(body));
        assert_eq!(pages[0].record_id, id);
    }
}
