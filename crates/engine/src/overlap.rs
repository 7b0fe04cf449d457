//! `overlap`: the Overlap table of paper 002 over a crawl. Exact copies (same whole-document
//! fingerprint) are removed first, the smallest page id being the central document; the table is
//! computed over the central documents.

use crate::pipeline::{RunOutput, Visitor};
use neardup_ingest::{Page, PageId};
use neardup_overlap::{
    chunk_fingerprints, overlap_external, overlap_sorted, Chunking, ExternalStats,
    FingerprintWidth, OverlapTable,
};
use neardup_text::Document;
use serde::Serialize;

/// A page of the overlap computation.
#[derive(Clone, Debug)]
pub struct OverlapPage {
    /// Stable id.
    pub id: PageId,
    /// URL.
    pub url: String,
    /// User id.
    pub user_id: String,
    /// Host, lowercased.
    pub host: String,
    /// Payload bytes.
    pub bytes: u64,
    /// Distinct chunks.
    pub chunks: u32,
    /// Whole-document fingerprint (XXH3-64 of the terms).
    pub doc_fingerprint: u64,
}

/// Per-worker collection.
pub struct OverlapPart {
    pages: Vec<OverlapPage>,
    /// Every page's fingerprints back to back (page `i` holds `pages[i].chunks` of them).
    fps: Vec<u64>,
}

/// Collects chunk fingerprints of every HTML/text page.
pub struct OverlapVisitor {
    chunking: Chunking,
    width: FingerprintWidth,
    buf: Vec<u64>,
    whole: Vec<u64>,
    part: OverlapPart,
}

impl OverlapVisitor {
    /// A visitor for a chunking.
    pub fn new(chunking: Chunking, width: FingerprintWidth) -> OverlapVisitor {
        OverlapVisitor {
            chunking,
            width,
            buf: Vec::new(),
            whole: Vec::new(),
            part: OverlapPart {
                pages: Vec::new(),
                fps: Vec::new(),
            },
        }
    }
}

impl Visitor for OverlapVisitor {
    type Output = OverlapPart;

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
        let Some(doc) = doc else { return };
        if doc.is_empty() {
            return;
        }
        chunk_fingerprints(doc, self.chunking, self.width, &mut self.buf);
        chunk_fingerprints(
            doc,
            Chunking::Document,
            FingerprintWidth::Bits64,
            &mut self.whole,
        );
        self.part.pages.push(OverlapPage {
            id: page.id,
            url: page.url.clone(),
            user_id: page.record_id.clone(),
            host: page.host().to_ascii_lowercase(),
            bytes: page.body.len() as u64,
            chunks: self.buf.len() as u32,
            doc_fingerprint: self.whole.first().copied().unwrap_or(0),
        });
        self.part.fps.extend_from_slice(&self.buf);
    }

    fn finish(self) -> OverlapPart {
        self.part
    }
}

/// The result of an overlap run.
#[derive(Debug)]
pub struct OverlapResult {
    /// Pages in input order.
    pub pages: Vec<OverlapPage>,
    /// `central[p]`: the central document of `p`'s exact-copy set (`p` itself when unique).
    pub central: Vec<u32>,
    /// The Overlap table over central documents.
    pub table: OverlapTable,
    /// Counts.
    pub counts: OverlapCounts,
    /// What the external sorts did (when run under a memory limit).
    pub external: Option<ExternalStats>,
    /// What coarse counting did (with [`Method::Coarse`]).
    pub coarse: Option<neardup_overlap::CoarseStats>,
}

/// How the Overlap table is computed (same answer every way).
#[derive(Clone, Debug)]
pub enum Method<'a> {
    /// Sort-based, in memory.
    Sort,
    /// Sort-based with external sorts under a memory limit, spilling into a folder.
    External(usize, &'a std::path::Path),
    /// Coarse (probabilistic) counting.
    Coarse(neardup_overlap::CoarseConfig),
}

/// Counts of an overlap run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct OverlapCounts {
    /// Pages with terms.
    pub pages: u64,
    /// Exact-copy sets (two or more pages).
    pub copy_sets: u64,
    /// Pages that are exact copies of a central document.
    pub copies: u64,
    /// FPrint-DocID entries over central documents.
    pub table_entries: u64,
    /// Bytes of the FPrint-DocID table.
    pub table_bytes: u64,
    /// Pairs in the Overlap table.
    pub overlap_pairs: u64,
}

/// Assembles the workers' parts in input order and computes the Overlap table, in memory, or
/// with external sorts when `external` gives a memory limit in bytes and a folder for spill files.
pub fn overlap(
    run: &RunOutput<OverlapPart>,
    min_shared: u32,
    max_df: usize,
    method: &Method,
) -> std::io::Result<OverlapResult> {
    // (page, part, offset of its fingerprints in the part), in input order.
    let mut all: Vec<(OverlapPage, usize, usize)> = Vec::new();
    for (w, part) in run.outputs.iter().enumerate() {
        let mut at = 0;
        for p in &part.pages {
            all.push((p.clone(), w, at));
            at += p.chunks as usize;
        }
    }
    all.sort_by_key(|(p, _, _)| p.id);
    let n = all.len();
    // Exact copies: the smallest id of each whole-document fingerprint is the central document.
    let mut first: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    let mut central = Vec::with_capacity(n);
    for (i, (p, _, _)) in all.iter().enumerate() {
        central.push(*first.entry(p.doc_fingerprint).or_insert(i as u32));
    }
    let mut counts = OverlapCounts {
        pages: n as u64,
        ..Default::default()
    };
    counts.copies = central
        .iter()
        .enumerate()
        .filter(|(i, &c)| *i as u32 != c)
        .count() as u64;
    let mut set_sizes: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for &c in &central {
        *set_sizes.entry(c).or_default() += 1;
    }
    counts.copy_sets = set_sizes.values().filter(|&&s| s >= 2).count() as u64;
    let entries = || {
        all.iter()
            .enumerate()
            .filter(|(i, _)| central[*i] == *i as u32)
            .flat_map(|(i, (p, w, at))| {
                run.outputs[*w].fps[*at..*at + p.chunks as usize]
                    .iter()
                    .map(move |&f| (f, i as u32))
            })
    };
    counts.table_entries = entries().count() as u64;
    counts.table_bytes = counts.table_entries * std::mem::size_of::<(u64, u32)>() as u64;
    let (t, ext, coarse) = match method {
        Method::External(limit, tmp) => {
            let (t, stats) = overlap_external(entries(), min_shared, max_df, *limit, tmp)?;
            (t, Some(stats), None)
        }
        Method::Sort => (
            overlap_sorted(entries().collect(), min_shared, max_df),
            None,
            None,
        ),
        Method::Coarse(cfg) => {
            let (t, stats) =
                neardup_overlap::overlap_coarse(entries().collect(), min_shared, max_df, cfg);
            (t, None, Some(stats))
        }
    };
    counts.overlap_pairs = t.rows.len() as u64;
    Ok(OverlapResult {
        pages: all.into_iter().map(|(p, _, _)| p).collect(),
        central,
        table: t,
        counts,
        external: ext,
        coarse,
    })
}

/// Server-level overlap (paper 002 section 1): each host is the union of its documents' chunks;
/// returns the host names (sorted) and the Overlap table over host ids.
pub fn server_overlap(
    run: &RunOutput<OverlapPart>,
    result: &OverlapResult,
    min_shared: u32,
    max_df: usize,
) -> (Vec<String>, OverlapTable) {
    let mut hosts: Vec<String> = result.pages.iter().map(|p| p.host.clone()).collect();
    hosts.sort();
    hosts.dedup();
    let id: std::collections::HashMap<&str, u32> = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), i as u32))
        .collect();
    let mut entries: Vec<(u64, u32)> = Vec::new();
    for part in &run.outputs {
        let mut at = 0;
        for p in &part.pages {
            let h = id[p.host.as_str()];
            entries.extend(part.fps[at..at + p.chunks as usize].iter().map(|&f| (f, h)));
            at += p.chunks as usize;
        }
    }
    // overlap_sorted deduplicates (fingerprint, host) entries: a host holds a chunk once.
    (hosts, overlap_sorted(entries, min_shared, max_df))
}

/// A row of `overlap`: a pair of pages sharing at least T distinct chunks.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct OverlapRow {
    /// First page.
    pub url_a: String,
    /// Its id.
    pub id_a: String,
    /// Second page.
    pub url_b: String,
    /// Its id.
    pub id_b: String,
    /// Distinct chunks shared.
    pub shared: u64,
    /// Distinct chunks of `a`.
    pub chunks_a: u64,
    /// Distinct chunks of `b`.
    pub chunks_b: u64,
}

impl neardup_report::Table for OverlapRow {
    const NAME: &'static str = "overlap";
}

/// A row of `copies`: an exact copy (same chunk set) and the page it was folded into.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct CopyRow {
    /// The copy.
    pub url: String,
    /// Its id.
    pub id: String,
    /// The page standing for all its copies.
    pub central_url: String,
}

impl neardup_report::Table for CopyRow {
    const NAME: &'static str = "copies";
}

/// A row of `server-overlap`: two hosts whose pages, as unions, share at least T chunks.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ServerOverlapRow {
    /// First host.
    pub host_a: String,
    /// Second host.
    pub host_b: String,
    /// Distinct chunks shared.
    pub shared: u64,
}

impl neardup_report::Table for ServerOverlapRow {
    const NAME: &'static str = "server-overlap";
}

/// The `overlap` and `copies` rows of a result.
pub fn page_tables(r: &OverlapResult) -> (Vec<OverlapRow>, Vec<CopyRow>) {
    let overlap = r
        .table
        .rows
        .iter()
        .map(|row| {
            let (a, b) = (&r.pages[row.a as usize], &r.pages[row.b as usize]);
            OverlapRow {
                url_a: a.url.clone(),
                id_a: a.user_id.clone(),
                url_b: b.url.clone(),
                id_b: b.user_id.clone(),
                shared: row.shared as u64,
                chunks_a: a.chunks as u64,
                chunks_b: b.chunks as u64,
            }
        })
        .collect();
    let copies = r
        .central
        .iter()
        .enumerate()
        .filter(|&(i, &c)| c as usize != i)
        .map(|(i, &c)| {
            let (p, cp) = (&r.pages[i], &r.pages[c as usize]);
            CopyRow {
                url: p.url.clone(),
                id: p.user_id.clone(),
                central_url: cp.url.clone(),
            }
        })
        .collect();
    (overlap, copies)
}

/// The `server-overlap` rows of [`server_overlap`]'s output.
pub fn server_rows(hosts: &[String], servers: &OverlapTable) -> Vec<ServerOverlapRow> {
    servers
        .rows
        .iter()
        .map(|row| ServerOverlapRow {
            host_a: hosts[row.a as usize].clone(),
            host_b: hosts[row.b as usize].clone(),
            shared: row.shared as u64,
        })
        .collect()
}
