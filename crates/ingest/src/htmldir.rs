//! A folder of HTML files mapped to a URL prefix: `DIR/a/b.html` becomes `BASE/a/b.html`.
//! Files are visited in sorted path order so that page ids are stable.

use crate::page::{classify, Page};
use crate::problem::ProblemKind;
use crate::source::{Ctx, IngestError, PageSource};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Reads pages from a folder tree.
pub struct HtmlDirReader {
    root: PathBuf,
    files: Vec<PathBuf>,
    next: usize,
    base: String,
    ctx: Ctx,
    bytes_done: u64,
}

impl HtmlDirReader {
    pub(crate) fn new(root: &Path, ctx: Ctx) -> std::io::Result<HtmlDirReader> {
        let mut files = Vec::new();
        walk(root, &mut files)?;
        files.sort();
        let mut base = ctx
            .opts
            .base_url
            .clone()
            .unwrap_or_else(|| "file:///".to_string());
        if !base.ends_with('/') {
            base.push('/');
        }
        Ok(HtmlDirReader {
            root: root.to_path_buf(),
            files,
            next: 0,
            base,
            ctx,
            bytes_done: 0,
        })
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&entry.path(), out)?;
        } else if ft.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

fn mime_of(path: &Path) -> &'static str {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .as_deref()
    {
        Some("html") | Some("htm") => "text/html",
        Some("xhtml") => "application/xhtml+xml",
        Some("txt") => "text/plain",
        Some("css") => "text/css",
        Some("js") => "application/javascript",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg") | Some("jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        _ => "",
    }
}

impl PageSource for HtmlDirReader {
    fn next_page(&mut self, page: &mut Page) -> Result<bool, IngestError> {
        while self.next < self.files.len() {
            let i = self.next;
            self.next += 1;
            page.clear();
            let path = self.files[i].clone();
            let rel = path.strip_prefix(&self.root).unwrap_or(&path);
            let display = path.display().to_string();
            self.ctx.stats.record_type("file");
            let limit = self.ctx.opts.max_record_bytes;
            let read = std::fs::File::open(&path).and_then(|f| {
                let mut take = f.take(limit + 1);
                page.body.clear();
                take.read_to_end(&mut page.body)
            });
            match read {
                Ok(n) => self.bytes_done += n as u64,
                Err(e) => {
                    self.ctx
                        .problem(0, ProblemKind::Io, format!("{display}: {e}"))?;
                    continue;
                }
            }
            if page.body.len() as u64 > limit {
                self.ctx.problem(
                    0,
                    ProblemKind::RecordTooLarge,
                    format!("{display}: larger than the record limit of {limit} bytes"),
                )?;
                continue;
            }
            page.id = crate::PageId {
                source: self.ctx.source,
                ordinal: i as u32,
            };
            page.url.push_str(&self.base);
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            page.url.push_str(&parts.join("/"));
            let mime = mime_of(&path);
            page.mime.push_str(mime);
            page.content_type.push_str(mime);
            page.kind = classify(mime, &page.body);
            self.ctx.stats.pages += 1;
            return Ok(true);
        }
        Ok(false)
    }

    fn stats(&self) -> &crate::SourceStats {
        &self.ctx.stats
    }

    fn raw_position(&self) -> u64 {
        self.bytes_done
    }
}
