//! Opening inputs: format detection from names and first bytes, and the reader for each
//! format. The only module that knows every reader (the readers know only [`crate::source`]).

use crate::page::Page;
use crate::source::{Ctx, Format, IngestError, PageSource, ReadOptions};
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The format a file name says (`x.warc.gz`, `x.arc`, `x.jsonl.zst`, `x.parquet`), if any.
pub fn format_from_name(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let stem = [".gz", ".zst", ".zstd"]
        .iter()
        .find_map(|c| name.strip_suffix(c))
        .unwrap_or(&name);
    let (_, ext) = stem.rsplit_once('.')?;
    match ext {
        "warc" => Some(Format::Warc),
        "arc" => Some(Format::Arc),
        "jsonl" | "ndjson" | "json" => Some(Format::Jsonl),
        "parquet" | "pq" => Some(Format::Parquet),
        _ => None,
    }
}

/// Guesses the format of `path` from its name, then from its first bytes.
pub fn detect_format(path: &Path) -> Result<Format, IngestError> {
    if path.is_dir() {
        return Ok(Format::HtmlDir);
    }
    if let Some(f) = format_from_name(path) {
        return Ok(f);
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Sniff the content.
    let open_err = |source| IngestError::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut raw = [0u8; 4];
    {
        use std::io::Read;
        let mut f = crate::files::open(path).map_err(open_err)?;
        let n = f.read(&mut raw).map_err(open_err)?;
        if &raw[..n] == b"PAR1" {
            return Ok(Format::Parquet);
        }
    }
    let mut opened = crate::stream::open(path).map_err(open_err)?;
    let mut head = [0u8; 16];
    let mut n = 0;
    while n < head.len() {
        match opened.reader.read(&mut head[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    let head = &head[..n];
    sniff(head).ok_or_else(|| IngestError::UnknownFormat {
        path: path.to_path_buf(),
        detail: format!(
            "name {name:?}, first bytes {:?}",
            crate::http::preview(head)
        ),
    })
}

/// The stream format that an input's first (decompressed) bytes show: a WARC or ARC record, or
/// a JSON object, after any leading whitespace.
fn sniff(head: &[u8]) -> Option<Format> {
    let trimmed = &head[head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len())..];
    if trimmed.starts_with(b"WARC/") {
        Some(Format::Warc)
    } else if trimmed.starts_with(b"filedesc://") {
        Some(Format::Arc)
    } else if trimmed.starts_with(b"{") {
        Some(Format::Jsonl)
    } else {
        None
    }
}

/// Opens `path` as a page source of `format` (detected when `None`). `source` is the input's
/// index in the run, which becomes [`crate::PageId::source`].
pub fn open_source(
    path: &Path,
    format: Option<Format>,
    source: u32,
    opts: &ReadOptions,
) -> Result<Box<dyn PageSource>, IngestError> {
    let format = match format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let ctx = Ctx::new(path, source, opts);
    let open_err = |source| IngestError::Open {
        path: path.to_path_buf(),
        source,
    };
    Ok(match format {
        Format::Warc | Format::Arc | Format::Jsonl => {
            let opened = crate::stream::open_threads(path, opts.file_threads);
            stream_reader(format, opened.map_err(open_err)?, ctx)
        }
        Format::Parquet => Box::new(crate::parquet::ParquetReader::new(path, ctx)),
        Format::HtmlDir => {
            Box::new(crate::htmldir::HtmlDirReader::new(path, ctx).map_err(open_err)?)
        }
    })
}

/// The reader of a byte-stream format (WARC, ARC, JSONL; any other is read as WARC) over an
/// opened, decompressed stream: the one dispatch for files, offsets within them and bytes in
/// memory.
fn stream_reader(format: Format, opened: crate::stream::Opened, ctx: Ctx) -> Box<dyn PageSource> {
    match format {
        Format::Arc => Box::new(crate::arc::ArcReader::new(opened, ctx)),
        Format::Jsonl => Box::new(crate::jsonl::JsonlReader::new(opened, ctx)),
        _ => Box::new(crate::warc::WarcReader::new(opened, ctx)),
    }
}

/// Reads the record at `raw_offset` of `path` (the [`Page::raw_offset`] an earlier read of
/// the same file gave: a WARC or JSONL record's byte offset, or a Parquet row) into `page`,
/// reading nothing before it. `format` is the file's (detected when `None`). `Ok(false)` when
/// no page follows there. The caller checks that the page is the one it wanted (the file may
/// have changed since); its `id` and `offset` are not those a read of the whole file gives.
/// For several records of one file, [`read_records_at`].
pub fn read_record_at(
    path: &Path,
    format: Option<Format>,
    raw_offset: u64,
    source: u32,
    opts: &ReadOptions,
    page: &mut Page,
) -> Result<bool, IngestError> {
    let mut got = read_records_at(path, format, &[raw_offset], source, opts)?;
    match got.pop() {
        Some((_, p)) => {
            *page = p;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Reads the records at `raw_offsets` of `path` ([`read_record_at`] for each, in ascending
/// order): the pages found, each with the offset it was read at. A Parquet file is opened once
/// and its rows read column by column, skipping the rows between without decoding them.
pub fn read_records_at(
    path: &Path,
    format: Option<Format>,
    raw_offsets: &[u64],
    source: u32,
    opts: &ReadOptions,
) -> Result<Vec<(u64, Page)>, IngestError> {
    use std::io::{Seek as _, SeekFrom};
    let format = match format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let mut at: Vec<u64> = raw_offsets.to_vec();
    at.sort_unstable();
    at.dedup();
    let mut out = Vec::new();
    if format == Format::Parquet {
        let mut ctx = Ctx::new(path, source, opts);
        crate::parquet::read_rows_at(path, &mut ctx, &at, &mut |r, p| out.push((r, p)))?;
        return Ok(out);
    }
    let open_err = |source| IngestError::Open {
        path: path.to_path_buf(),
        source,
    };
    for raw in at {
        let mut file = crate::files::open(path).map_err(open_err)?;
        file.seek(SeekFrom::Start(raw)).map_err(open_err)?;
        let opened = crate::stream::open_read(std::io::BufReader::with_capacity(64 * 1024, file))
            .map_err(open_err)?;
        let mut reader = stream_reader(format, opened, Ctx::new(path, source, opts));
        let mut page = Page::default();
        if reader.next_page(&mut page)? {
            out.push((raw, page));
        }
    }
    Ok(out)
}

/// The name standard input goes by, as an input argument and in reports.
pub const STDIN_NAME: &str = "-";

/// Reads pages from a byte stream read once as it comes, such as standard input: WARC, ARC or
/// JSONL, plain, gzip or zstd (the compression told by its first bytes, the format too unless
/// `format` names it). `name` stands for a file name in problem reports. Parquet and HTML
/// folders need a file: asking for them here is an error, as are first bytes of no stream
/// format. Returns the reader and the format read.
pub fn open_reader(
    reader: Box<dyn std::io::Read + Send>,
    format: Option<Format>,
    name: &str,
    source: u32,
    opts: &ReadOptions,
) -> Result<(Box<dyn PageSource>, Format), IngestError> {
    use std::io::BufRead as _;
    let path = Path::new(name);
    if let Some(Format::Parquet | Format::HtmlDir) = format {
        // Refused before a byte is read.
        return Err(IngestError::UnknownFormat {
            path: path.to_path_buf(),
            detail: "Parquet files and HTML folders are read from disk, not from a stream".into(),
        });
    }
    let open_err = |source| IngestError::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut opened =
        crate::stream::open_read(std::io::BufReader::with_capacity(256 * 1024, reader))
            .map_err(open_err)?;
    let mut text = std::io::BufReader::with_capacity(256 * 1024, opened.reader);
    let head = text.fill_buf().map_err(open_err)?;
    let format = match format {
        Some(f) => f,
        None => sniff(head).ok_or_else(|| IngestError::UnknownFormat {
            path: path.to_path_buf(),
            detail: format!(
                "a stream whose first bytes are {:?} (WARC, ARC or JSONL is read from a stream)",
                crate::http::preview(&head[..head.len().min(16)])
            ),
        })?,
    };
    opened.reader = Box::new(text);
    Ok((
        stream_reader(format, opened, Ctx::new(path, source, opts)),
        format,
    ))
}

/// Reads pages from bytes in memory (WARC, ARC or JSONL, compressed or not), e.g. for tests and
/// fuzzing. `name` is used in problem reports.
pub fn open_bytes(
    bytes: Vec<u8>,
    format: Format,
    name: &str,
    opts: &ReadOptions,
) -> Result<Box<dyn PageSource>, IngestError> {
    let ctx = Ctx::new(Path::new(name), 0, opts);
    let opened = crate::stream::open_read(std::io::Cursor::new(bytes)).map_err(|source| {
        IngestError::Open {
            path: PathBuf::from(name),
            source,
        }
    })?;
    Ok(stream_reader(format, opened, ctx))
}

/// Every page of a WARC or ARC file held in memory (compressed or not), read strictly: the
/// first malformed record is an error naming its offset and reason. For a request body that
/// carries captures (`neardup serve`).
pub fn pages_of_bytes(
    bytes: Vec<u8>,
    format: Format,
    name: &str,
    opts: &ReadOptions,
) -> Result<Vec<Page>, IngestError> {
    let strict = ReadOptions {
        strict: true,
        ..opts.clone()
    };
    Ok(all_pages(bytes, format, name, &strict)?.0)
}

/// Every page of a WARC or ARC file held in memory, read as a crawl file is read: a malformed
/// record is skipped. The pages, the first [`crate::MAX_EXAMPLES`] problems (file, offset,
/// reason) and how many records were skipped. For a request body whose other captures are
/// answered (`neardup serve`'s batches).
pub fn pages_and_problems_of_bytes(
    bytes: Vec<u8>,
    format: Format,
    name: &str,
    opts: &ReadOptions,
) -> Result<(Vec<Page>, Vec<crate::Problem>, u64), IngestError> {
    let lenient = ReadOptions {
        strict: false,
        ..opts.clone()
    };
    all_pages(bytes, format, name, &lenient)
}

fn all_pages(
    bytes: Vec<u8>,
    format: Format,
    name: &str,
    opts: &ReadOptions,
) -> Result<(Vec<Page>, Vec<crate::Problem>, u64), IngestError> {
    let mut src = open_bytes(bytes, format, name, opts)?;
    let mut out = Vec::new();
    let mut page = Page::default();
    while src.next_page(&mut page)? {
        out.push(std::mem::take(&mut page));
    }
    let stats = src.stats();
    Ok((out, stats.problems.clone(), stats.problem_count()))
}

/// A raw HTTP response (status line, headers, body; chunked and content-encoded bodies as
/// sent) fetched from `url` at `date` (ISO 8601, may be empty), read as the WARC reader reads
/// a response record's block: status, headers, charset and decoded body. `None` when it holds
/// no page (the reader's rules for records); a malformed response is an error naming why.
pub fn http_response_page(
    url: &str,
    date: &str,
    response: &[u8],
    opts: &ReadOptions,
) -> Result<Option<Page>, IngestError> {
    let clean = |s: &str| s.replace(['\r', '\n'], " ");
    let mut warc = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {}\r\n{}Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        clean(url),
        if date.is_empty() {
            String::new()
        } else {
            format!("WARC-Date: {}\r\n", clean(date))
        },
        response.len()
    )
    .into_bytes();
    warc.extend_from_slice(response);
    warc.extend_from_slice(b"\r\n\r\n");
    Ok(pages_of_bytes(warc, Format::Warc, "request body", opts)?
        .into_iter()
        .next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_response_reads_as_its_record_would() {
        let opts = ReadOptions::default();
        let chunked = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n<p>hi \r\n7\r\nthere</\r\n2\r\np>\r\n0\r\n\r\n";
        let p = http_response_page("http://a.test/x", "2026-01-02T03:04:05Z", chunked, &opts)
            .unwrap()
            .unwrap();
        assert_eq!(
            (p.url.as_str(), p.status, p.mime.as_str()),
            ("http://a.test/x", Some(200), "text/html")
        );
        assert_eq!(p.body, b"<p>hi there</p>");
        assert_eq!(p.date, "2026-01-02T03:04:05Z");
        let e = http_response_page("http://a.test/x", "", b"HTTX/1.1 200 OK\r\n\r\nhi", &opts)
            .unwrap_err();
        assert!(e.to_string().contains("HTTP status line"), "{e}");
        // A header cannot be smuggled through the URL.
        let p = http_response_page(
            "http://a.test/\r\nWARC-Type: x",
            "",
            b"HTTP/1.1 404 Not Found\r\n\r\n",
            &opts,
        )
        .unwrap()
        .unwrap();
        assert_eq!(p.status, Some(404));
    }
}
