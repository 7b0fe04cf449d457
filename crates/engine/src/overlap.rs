//! `overlap`: the Overlap table of paper 002 over a crawl. Exact copies (same whole-document
//! fingerprint) are removed first, the smallest page id being the central document; the table is
//! computed over the central documents.

use crate::pipeline::{RunOutput, Visitor};
use neardup_ingest::{Page, PageId};
use neardup_overlap::{
    chunk_fingerprints, overlap_external, overlap_sorted, Chunking, CoarseConfig, ExternalStats,
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

/// Replication of pages (paper 002 Figure 1), crawl savings (section 3) and the most replicated
/// collections (Table 2), from exact copies and from the Overlap table.
#[derive(Clone, Debug, Serialize)]
pub struct Replication {
    /// Buckets of replicas per page: "0", "1", "2", "3-10", "11-100", "101-1000", ">1000".
    pub buckets: Vec<&'static str>,
    /// Share of pages per bucket, counting exact copies only.
    pub exact_copies: Vec<f64>,
    /// Share of pages per bucket, counting pages linked by exact copies or >= T shared chunks.
    pub sharing_chunks: Vec<f64>,
    /// Share of pages (and bytes) a crawler need not fetch when it skips exact copies.
    pub savings_exact_pages: f64,
    /// The same in bytes.
    pub savings_exact_bytes: f64,
    /// The same when it also skips pages sharing >= T chunks with a page it keeps.
    pub savings_sharing_pages: f64,
    /// The same in bytes.
    pub savings_sharing_bytes: f64,
    /// Groups replicated on the most hosts.
    pub most_replicated: Vec<Collection>,
}

/// A group of pages replicated on several hosts (paper 002 Table 2).
#[derive(Clone, Debug, Serialize)]
pub struct Collection {
    /// Distinct hosts.
    pub hosts: usize,
    /// Pages.
    pub pages: usize,
    /// Its first page.
    pub representative_url: String,
}

/// Buckets of replicas per page (paper 002 Figure 1).
pub const REPLICA_BUCKETS: [&str; 7] = ["0", "1", "2", "3-10", "11-100", "101-1000", ">1000"];

fn bucket(replicas: usize) -> usize {
    match replicas {
        0 => 0,
        1 => 1,
        2 => 2,
        3..=10 => 3,
        11..=100 => 4,
        101..=1000 => 5,
        _ => 6,
    }
}

/// Replication of pages, crawl savings and the `top` most replicated collections.
pub fn replication(r: &OverlapResult, top: usize) -> Replication {
    let n = r.pages.len();
    let mut copy_size = vec![0usize; n];
    for &c in &r.central {
        copy_size[c as usize] += 1;
    }
    let mut uf = neardup_cluster::UnionFind::new(n as u32);
    for (i, &c) in r.central.iter().enumerate() {
        uf.union(i as u32, c);
    }
    for row in &r.table.rows {
        uf.union(row.a, row.b);
    }
    let mut comp_of: Vec<Option<usize>> = vec![None; n];
    let comps = uf.components();
    for (k, c) in comps.iter().enumerate() {
        for &m in c {
            comp_of[m as usize] = Some(k);
        }
    }
    let share = |counts: [usize; 7]| {
        counts
            .iter()
            .map(|&c| if n == 0 { 0.0 } else { c as f64 / n as f64 })
            .collect()
    };
    let (mut exact, mut sharing) = ([0usize; 7], [0usize; 7]);
    for i in 0..n {
        exact[bucket(copy_size[r.central[i] as usize] - 1)] += 1;
        sharing[bucket(comp_of[i].map_or(0, |k| comps[k].len() - 1))] += 1;
    }
    let total_bytes: u64 = r.pages.iter().map(|p| p.bytes).sum::<u64>().max(1);
    let copies: Vec<usize> = (0..n).filter(|&i| r.central[i] as usize != i).collect();
    let skipped_sharing: Vec<usize> = comps
        .iter()
        .flat_map(|c| c[1..].iter().map(|&m| m as usize))
        .collect();
    let frac = |v: &[usize]| {
        if n == 0 {
            0.0
        } else {
            v.len() as f64 / n as f64
        }
    };
    let bytes =
        |v: &[usize]| v.iter().map(|&i| r.pages[i].bytes).sum::<u64>() as f64 / total_bytes as f64;
    let mut most: Vec<Collection> = comps
        .iter()
        .map(|c| {
            let hosts: std::collections::BTreeSet<&str> = c
                .iter()
                .map(|&m| r.pages[m as usize].host.as_str())
                .collect();
            Collection {
                hosts: hosts.len(),
                pages: c.len(),
                representative_url: r.pages[c[0] as usize].url.clone(),
            }
        })
        .collect();
    most.sort_by(|a, b| {
        b.hosts
            .cmp(&a.hosts)
            .then(b.pages.cmp(&a.pages))
            .then(a.representative_url.cmp(&b.representative_url))
    });
    most.truncate(top);
    Replication {
        buckets: REPLICA_BUCKETS.to_vec(),
        exact_copies: share(exact),
        sharing_chunks: share(sharing),
        savings_exact_pages: frac(&copies),
        savings_exact_bytes: bytes(&copies),
        savings_sharing_pages: frac(&skipped_sharing),
        savings_sharing_bytes: bytes(&skipped_sharing),
        most_replicated: most,
    }
}

/// How the Overlap table is computed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverlapMethod {
    /// Sort-based, in memory.
    Sort,
    /// Sort-based with external sorts: at most `mem_limit` bytes of records in memory, sorted
    /// runs spilled to a private folder under `tmp_dir` (removed when done or on error).
    External {
        /// Bytes of records in memory.
        mem_limit: usize,
        /// Where the spill folder goes.
        tmp_dir: std::path::PathBuf,
    },
    /// Coarse (probabilistic) counting.
    Coarse(CoarseConfig),
}

/// What an overlap job does; defaults as `neardup overlap`.
#[derive(Clone, Debug)]
pub struct OverlapOptions {
    /// How inputs are read and tokenized.
    pub pipeline: crate::PipelineConfig,
    /// The chunks.
    pub chunking: Chunking,
    /// Chunk fingerprint width.
    pub width: FingerprintWidth,
    /// Pairs sharing at least this many distinct chunks (the paper's T).
    pub min_shared: u32,
    /// Chunks held by more documents are skipped (and counted).
    pub max_df: usize,
    /// How the table is computed.
    pub method: OverlapMethod,
    /// The most replicated collections listed.
    pub top: usize,
}

impl Default for OverlapOptions {
    fn default() -> Self {
        OverlapOptions {
            pipeline: crate::PipelineConfig::default(),
            chunking: Chunking::Lines(2),
            width: FingerprintWidth::Bits32,
            min_shared: 5,
            max_df: 1000,
            method: OverlapMethod::Sort,
            top: 10,
        }
    }
}

/// Validated [`OverlapOptions`].
#[derive(Clone, Debug)]
pub struct OverlapSettings(OverlapOptions);

impl OverlapSettings {
    /// Checks the options.
    pub fn new(opts: OverlapOptions) -> Result<OverlapSettings, crate::Error> {
        use crate::SettingsError;
        if opts.min_shared == 0 {
            return Err(SettingsError::new("min_shared", 0, "at least 1 shared chunk").into());
        }
        if opts.max_df < 2 {
            return Err(SettingsError::new("max_df", opts.max_df, "at least 2 documents").into());
        }
        match &opts.method {
            OverlapMethod::Coarse(c) => {
                if !(0.0..=1.0).contains(&c.pilot) {
                    return Err(
                        SettingsError::new("pilot", c.pilot, "a share between 0 and 1").into(),
                    );
                }
                let total = (c.counters as u128) * (c.hashes as u128);
                if c.counters == 0 || c.hashes == 0 || c.hashes > 32 || total > 1 << 30 {
                    return Err(SettingsError::new(
                        "counters",
                        format!("{} x {} hashes", c.counters, c.hashes),
                        "1 to 32 hash functions and at most 2^30 counters in all (4 GiB)",
                    )
                    .into());
                }
            }
            OverlapMethod::External { mem_limit: 0, .. } => {
                return Err(SettingsError::new("mem_limit", 0, "a positive byte count").into());
            }
            _ => {}
        }
        Ok(OverlapSettings(opts))
    }

    /// The options.
    pub fn options(&self) -> &OverlapOptions {
        &self.0
    }
}

/// The summary of an overlap job (`summary.json`).
#[derive(Clone, Debug, Serialize)]
pub struct OverlapSummary {
    /// Skipped records by reason, with the first examples.
    pub skipped: crate::Skipped,
    /// The chunks.
    pub chunking: Chunking,
    /// Fingerprint bits.
    pub fingerprint_bits: u32,
    /// The paper's T.
    pub min_shared: u32,
    /// The document-frequency cap.
    pub max_df: usize,
    /// Pages, copies, table entries, pairs.
    pub counts: OverlapCounts,
    /// Chunks held by more than `max_df` documents.
    pub skipped_fingerprints: u64,
    /// Pair emissions those would have made.
    pub skipped_pair_emissions: u64,
    /// Pair emissions made.
    pub pair_emissions: u64,
    /// Reading and chunking.
    pub seconds_read_and_chunk: f64,
    /// The Overlap table.
    pub seconds_overlap: f64,
    /// The external sort's memory limit.
    pub mem_limit: Option<usize>,
    /// External sort statistics.
    pub external: Option<neardup_overlap::ExternalStats>,
    /// Coarse counting statistics.
    pub coarse: Option<neardup_overlap::CoarseStats>,
    /// Distinct hosts.
    pub hosts: usize,
    /// Host pairs sharing at least T chunks.
    pub server_overlap_pairs: usize,
    /// Replication of pages and crawl savings (paper 002).
    pub replication: Replication,
}

/// What an overlap job found.
#[derive(Clone, Debug, Serialize)]
pub struct OverlapReport {
    /// Counts, replication, timings.
    pub summary: OverlapSummary,
    /// Page pairs sharing at least T chunks.
    pub overlap: Vec<OverlapRow>,
    /// Exact copies.
    pub copies: Vec<CopyRow>,
    /// Host pairs sharing at least T chunks.
    pub server_overlap: Vec<ServerOverlapRow>,
}

/// Runs an overlap job.
pub fn run(
    inputs: &[crate::Input],
    settings: &OverlapSettings,
    progress: &dyn crate::Progress,
) -> Result<OverlapReport, crate::Error> {
    crate::on_threads(settings.options().pipeline.threads, || {
        run_here(inputs, settings, progress)
    })
}

fn run_here(
    inputs: &[crate::Input],
    settings: &OverlapSettings,
    progress: &dyn crate::Progress,
) -> Result<OverlapReport, crate::Error> {
    let o = settings.options();
    let (chunking, width) = (o.chunking, o.width);
    let run = crate::run(
        inputs,
        &o.pipeline,
        || OverlapVisitor::new(chunking, width),
        progress,
    )?;
    let read = run.elapsed.as_secs_f64();
    let t = std::time::Instant::now();
    let method = match &o.method {
        OverlapMethod::Sort => Method::Sort,
        OverlapMethod::External { mem_limit, tmp_dir } => Method::External(*mem_limit, tmp_dir),
        OverlapMethod::Coarse(c) => Method::Coarse(*c),
    };
    let r =
        overlap(&run, o.min_shared, o.max_df, &method).map_err(|source| crate::Error::Scratch {
            path: match &o.method {
                OverlapMethod::External { tmp_dir, .. } => tmp_dir.clone(),
                _ => std::env::temp_dir(),
            },
            source,
        })?;
    let seconds_overlap = t.elapsed().as_secs_f64();
    let (overlap_rows, copies) = page_tables(&r);
    // Server level: hosts as unions of their documents.
    let (hosts, servers) = server_overlap(&run, &r, o.min_shared, o.max_df);
    let server_overlap = server_rows(&hosts, &servers);
    let summary = OverlapSummary {
        skipped: crate::Skipped::of(&run.sources, o.pipeline.skipped_examples),
        chunking,
        fingerprint_bits: match width {
            FingerprintWidth::Bits32 => 32,
            FingerprintWidth::Bits64 => 64,
        },
        min_shared: o.min_shared,
        max_df: o.max_df,
        skipped_fingerprints: r.table.skipped_fingerprints,
        skipped_pair_emissions: r.table.skipped_pair_emissions,
        pair_emissions: r.table.pair_emissions,
        seconds_read_and_chunk: read,
        seconds_overlap,
        mem_limit: match &o.method {
            OverlapMethod::External { mem_limit, .. } => Some(*mem_limit),
            _ => None,
        },
        external: r.external.clone(),
        coarse: r.coarse.clone(),
        hosts: hosts.len(),
        server_overlap_pairs: servers.rows.len(),
        replication: replication(&r, o.top),
        counts: r.counts,
    };
    Ok(OverlapReport {
        summary,
        overlap: overlap_rows,
        copies,
        server_overlap,
    })
}
