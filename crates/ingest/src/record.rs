//! Shared record handling for the archive readers: turning an HTTP message into a page, and
//! classifying I/O errors from the decompression layer.

use crate::http::{self, HttpError};
use crate::page::{classify, Page};
use crate::problem::ProblemKind;
use crate::source::{Ctx, IngestError};
use std::io;

/// Result of skipping a record block that will not become a page.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Skipped {
    /// The whole block was there.
    Whole,
    /// The block or the stream is broken and counted; go on with the next record.
    Resume,
    /// The stream ended (counted unless already reported); stop reading.
    End,
}

/// Skips `length` bytes of a record starting at `start`, counting a truncation (unless the record
/// was `reported` already) or a stream error. When one of `next_record` (what starts the next
/// record, e.g. `\r\n\r\nWARC/1.`) begins inside the claimed block, the length lied: the block is
/// cut there, the problem counted (unless reported), and reading resumes at the next record.
pub(crate) fn skip_block(
    input: &mut crate::stream::Input,
    ctx: &mut Ctx,
    compression: crate::stream::Compression,
    start: u64,
    length: u64,
    reported: bool,
    next_record: &[&[u8]],
) -> Result<Skipped, IngestError> {
    let end = match input.skip_until(length, next_record) {
        Ok(n) => n,
        Err(e) => {
            let (kind, go_on) = classify_io(&e, compression);
            ctx.problem(start, kind, e.to_string())?;
            return Ok(if go_on { Skipped::Resume } else { Skipped::End });
        }
    };
    let got = match end {
        crate::stream::SkipEnd::Found(at) if next_record_at(input, at) == length => {
            // The blank line before the next record is the block's last bytes (a writer that
            // counted the end marker in Content-Length): the block is whole, as warcio reads it.
            ctx.stats.note("record-end-marker-inside-its-length");
            return Ok(Skipped::Resume);
        }
        crate::stream::SkipEnd::Found(at) => {
            let detail = format!(
                "length {length} runs into the next record after {at} bytes; the record was cut there"
            );
            if reported {
                ctx.stats.note("oversized-length-cut-at-next-record");
            } else {
                ctx.problem(start, ProblemKind::LengthMismatch, detail)?;
            }
            return Ok(Skipped::Resume);
        }
        crate::stream::SkipEnd::Full(n) | crate::stream::SkipEnd::Eof(n) => n,
    };
    if got < length {
        if !reported {
            let detail = format!("record length {length} but the file ends after {got} bytes");
            ctx.problem(start, ProblemKind::TruncatedRecord, detail)?;
        }
        return Ok(Skipped::End);
    }
    Ok(Skipped::Whole)
}

/// Outcome of filling a page from a record.
pub(crate) enum Fill {
    Page,
    Skipped,
}

/// `page.body` holds an HTTP response (status line, headers, body). Parses it, removes
/// transfer and content encodings, and sets status, headers and content type.
pub(crate) fn fill_http(
    page: &mut Page,
    scratch: &mut Vec<u8>,
    ctx: &mut Ctx,
) -> Result<Fill, IngestError> {
    let head = match http::parse_head(&page.body) {
        Ok(h) => h,
        Err(HttpError::Malformed(d)) | Err(HttpError::Encoding(d)) => {
            ctx.problem(page.offset, ProblemKind::BadHttp, d)?;
            return Ok(Fill::Skipped);
        }
        Err(HttpError::TooLarge(n)) => {
            ctx.problem(
                page.offset,
                ProblemKind::BadHttp,
                format!("header of {n} bytes"),
            )?;
            return Ok(Fill::Skipped);
        }
    };
    page.status = Some(head.status);
    page.headers.clear();
    page.headers
        .extend_from_slice(&page.body[head.headers.0..head.headers.1]);
    http::unfold(&mut page.headers);
    page.body.drain(..head.body_at);
    let limit = ctx.opts.max_record_bytes;

    let chunked = http::header_value(&page.headers, b"transfer-encoding").is_some_and(|v| {
        v.split(|&b| b == b',')
            .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"))
    });
    if chunked {
        match http::dechunk(&page.body, scratch, limit) {
            Ok(()) => std::mem::swap(&mut page.body, scratch),
            Err(HttpError::TooLarge(n)) => {
                ctx.problem(
                    page.offset,
                    ProblemKind::DecodedTooLarge,
                    format!("chunked body over {n} bytes, limit {limit}"),
                )?;
                return Ok(Fill::Skipped);
            }
            Err(_) => ctx
                .stats
                .note("chunked-header-but-body-not-chunked-kept-as-is"),
        }
    }

    let coding = http::header_value(&page.headers, b"content-encoding").map(http::coding);
    if let Some(c) = coding.filter(|&c| c != http::Coding::Identity) {
        match http::decode(c, &page.body, scratch, limit) {
            Ok(()) => std::mem::swap(&mut page.body, scratch),
            Err(HttpError::TooLarge(n)) => {
                ctx.problem(
                    page.offset,
                    ProblemKind::DecodedTooLarge,
                    format!("content-encoding expands past {n} bytes, limit {limit} (decompression bomb?)"),
                )?;
                return Ok(Fill::Skipped);
            }
            Err(HttpError::Encoding(d)) | Err(HttpError::Malformed(d)) => {
                if crate::page::looks_like_html(&page.body) {
                    ctx.stats
                        .note("content-encoding-header-but-body-plain-kept-as-is");
                } else {
                    ctx.problem(
                        page.offset,
                        ProblemKind::BadEncoding,
                        format!("content-encoding: {d}"),
                    )?;
                    return Ok(Fill::Skipped);
                }
            }
        }
    }

    match http::header_value(&page.headers, b"content-type") {
        Some(ct) => {
            let ct = String::from_utf8_lossy(ct).into_owned();
            page.set_content_type(&ct);
        }
        None => {
            page.kind = classify("", &page.body);
        }
    }
    Ok(Fill::Page)
}

/// Whether a block cut short by the end of its file still holds a whole HTTP response: its
/// head, and as many body bytes as its Content-Length says (what warcio reads of it).
pub(crate) fn http_whole(block: &[u8]) -> bool {
    let Ok(head) = http::parse_head(block) else {
        return false;
    };
    let headers = &block[head.headers.0..head.headers.1];
    let want = http::header_value(headers, b"content-length")
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.trim().parse::<usize>().ok());
    want.is_some_and(|n| block.len() - head.body_at >= n)
}

/// Where the next record begins when the input stands, `at` bytes into a block, at a needle
/// of blank lines before it: `at` plus those blank lines.
fn next_record_at(input: &mut crate::stream::Input, at: u64) -> u64 {
    let mut peek = Vec::new();
    input.peek(8, &mut peek);
    at + crate::http::leading_space(&peek) as u64
}

/// How an I/O error from the decompressed stream is accounted: the problem kind and whether
/// reading can go on (gzip members resynchronize; other streams cannot).
pub(crate) fn classify_io(
    e: &io::Error,
    compressed: crate::stream::Compression,
) -> (ProblemKind, bool) {
    let msg = e.to_string();
    if msg.starts_with(crate::gzip::GZIP_RESYNC) {
        let kind = if msg.contains("truncated") {
            ProblemKind::TruncatedCompression
        } else {
            ProblemKind::CorruptGzip
        };
        return (kind, true);
    }
    match compressed {
        crate::stream::Compression::Zstd => (ProblemKind::CorruptZstd, false),
        _ => (ProblemKind::Io, false),
    }
}
