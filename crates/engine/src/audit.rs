//! `audit`: what a WARC collection holds that replay and storage care about, in one pass over
//! its files (issue 40).
//!
//! * **Revisits**: each revisit record is resolved to the capture it stands for, as replay
//!   would: by `WARC-Refers-To` (the original's record id, followed through revisits), else by
//!   `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`, else by its URL (the target, or
//!   the URI it refers to) and payload digest in an earlier or same-time response (pywb's
//!   lookup), else, for the URI-agnostic profile, by the digest alone. One that resolves by
//!   none of them is *unresolvable*: replay shows nothing for it. A revisit whose original's
//!   digest differs from its own is listed too (replay would show other bytes).
//! * **Chains**: how many revisits stand for each original, and how deep the `WARC-Refers-To`
//!   links run (revisits of revisits).
//! * **Missing headers**: revisits without `WARC-Refers-To-Target-URI` or
//!   `WARC-Refers-To-Date` (WARC 1.1 section 6.7.2 recommends both; replay falls back to a
//!   lookup that may pick another capture).
//! * **Repeated payloads**: responses whose payload (its `WARC-Payload-Digest`, or the SHA-1 of
//!   the decoded payload when none is recorded) is stored in full more than once: the bytes a
//!   revisit record would have saved, for copies of one URL and across URLs.
//! * **Packages**: for WACZ inputs, the packages their revisits need: those a package's
//!   `datapackage.json` requires and those a revisit's `WARC-Refers-To-Container` names,
//!   looked for beside it and read with the rest when found, named when missing
//!   ([`crate::packages`]).
//! * **Near-duplicates per host**: the HTML pages' near-duplicate clusters (the dedup
//!   defaults), as shares of each host's pages. Reported as data only: WARC 1.1 has no revisit
//!   profile for a near-duplicate, so none may be written.

use crate::dedup::{dedup, DedupConfig};
use crate::sketching::{assemble, CorpusSink, SketchPart, SketchVisitor};
use crate::{Error, Input, PipelineConfig, Progress, Visitor};
use neardup_evolve::schedule::parse_date;
use neardup_ingest::digest::{base32, parse_sha1, sha1, Sha1Digest};
use neardup_ingest::{Page, Revisit};
use neardup_sketch::{Family, SketchParams};
use neardup_text::Document;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Chains of at least this many revisits of one original are listed (ukwa-pywb #73 saw
/// chains over 300 slow replay down).
pub const LONG_CHAIN: u64 = 100;

/// How many of the largest repeated payloads, the longest chains and the examples of each
/// problem the report lists (all are counted).
pub const TOP: usize = 20;

/// Revisit-of-revisit links followed at most (a loop of `WARC-Refers-To` ends there).
const MAX_DEPTH: u32 = 1_000;

/// Settings of an audit.
#[derive(Clone, Debug, Default)]
pub struct AuditOptions {
    /// How the files are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Signature parameters of the near-duplicate pass.
    pub params: SketchParams,
}

/// One response (or resource) record as the audit keeps it.
#[derive(Clone, Debug)]
struct Response {
    source: u32,
    offset: u64,
    url: String,
    key: String,
    date: String,
    secs: Option<i64>,
    record_id: String,
    digest: Sha1Digest,
    bytes: u64,
}

/// The audit's visitor: every response's facts, and the sketches of its HTML pages (one pass).
struct AuditVisitor {
    sketch: SketchVisitor,
    responses: Vec<Response>,
    digests_computed: u64,
}

impl Visitor for AuditVisitor {
    type Output = (SketchPart, Vec<Response>, u64);

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
        let digest = match parse_sha1(&page.payload_digest) {
            Some(d) => d,
            None => {
                self.digests_computed += 1;
                sha1(&page.body)
            }
        };
        self.responses.push(Response {
            source: page.id.source,
            offset: page.offset,
            key: url_key(&page.url),
            url: page.url.clone(),
            date: page.date.clone(),
            secs: parse_date(&page.date),
            record_id: page.record_id.clone(),
            digest,
            bytes: page.body.len() as u64,
        });
        self.sketch.visit(page, doc);
    }

    fn end_batch(&mut self) {
        self.sketch.end_batch();
    }

    fn finish(self) -> Self::Output {
        (self.sketch.finish(), self.responses, self.digests_computed)
    }
}

/// A URL as replay matches it (normalized; as given when it does not parse).
fn url_key(url: &str) -> String {
    neardup_text::normalize_url(url).unwrap_or_else(|| url.to_string())
}

/// How a revisit was resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resolution {
    /// By `WARC-Refers-To` (followed through revisits).
    RefersToRecord,
    /// By `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`.
    RefersToUriAndDate,
    /// By its URL and payload digest (an earlier or same-time response).
    UrlAndDigest,
    /// By the payload digest alone (the URI-agnostic profile).
    DigestOnly,
    /// Not at all: the original is not in the collection.
    Unresolvable,
}

impl Resolution {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::RefersToRecord => "refers-to-record",
            Resolution::RefersToUriAndDate => "refers-to-uri-and-date",
            Resolution::UrlAndDigest => "url-and-digest",
            Resolution::DigestOnly => "digest-only",
            Resolution::Unresolvable => "unresolvable",
        }
    }
}

/// A revisit record the report lists.
#[derive(Clone, Debug, Serialize)]
pub struct RevisitRow {
    /// Its input.
    pub file: String,
    /// Its byte offset there.
    pub offset: u64,
    /// WARC-Target-URI.
    pub url: String,
    /// WARC-Date.
    pub date: String,
    /// WARC-Refers-To, WARC-Refers-To-Target-URI, WARC-Refers-To-Date (empty when absent).
    pub refers_to: [String; 3],
    /// WARC-Payload-Digest.
    pub digest: String,
    /// How it resolved.
    pub resolution: Resolution,
    /// Why, in words.
    pub reason: String,
    /// The original it resolved to: file, offset, date.
    pub original: Option<(String, u64, String)>,
    /// WARC-Refers-To-Container: the package holding the original (empty when absent).
    pub container: String,
}

/// One original and the revisits that stand for it.
#[derive(Clone, Debug, Serialize)]
pub struct Chain {
    /// The original's URL.
    pub url: String,
    /// Its date.
    pub date: String,
    /// Its input and offset.
    pub file: String,
    /// Its byte offset.
    pub offset: u64,
    /// Revisits resolved to it.
    pub revisits: u64,
    /// The deepest revisit-of-revisit link among them (1: each refers to the original).
    pub depth: u32,
}

/// A payload stored in full more than once.
#[derive(Clone, Debug, Serialize)]
pub struct RepeatedPayload {
    /// `sha1:` and its base32 digest.
    pub digest: String,
    /// Bytes of one copy (decoded payload).
    pub bytes: u64,
    /// Responses holding it in full.
    pub copies: u64,
    /// Distinct URLs among them.
    pub urls: u64,
    /// Bytes a revisit record would have saved (`(copies - 1) * bytes`).
    pub bytes_saved: u64,
    /// The first copies: URL and date.
    pub examples: Vec<(String, String)>,
}

/// Payload totals.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PayloadCounts {
    /// Responses (and resources) read.
    pub responses: u64,
    /// Of them, with no SHA-1 `WARC-Payload-Digest` (the audit computed one).
    pub digests_computed: u64,
    /// Payloads stored in full more than once (over all URLs).
    pub repeated: u64,
    /// Copies beyond the first of each.
    pub extra_copies: u64,
    /// Bytes a revisit for every extra copy of the same URL would have saved (the common
    /// "identical payload digest" dedup).
    pub bytes_saved_same_url: u64,
    /// Bytes a revisit for every extra copy, of any URL, would have saved (the URI-agnostic
    /// profile).
    pub bytes_saved_any_url: u64,
    /// Bytes of all payloads.
    pub bytes: u64,
}

/// A host's near-duplicate share.
#[derive(Clone, Debug, Serialize)]
pub struct HostShare {
    /// The host.
    pub host: String,
    /// Its HTML pages sketched.
    pub pages: u64,
    /// Of them, in a near-duplicate cluster (two pages or more, any host).
    pub near_duplicate: u64,
    /// Of them, byte-identical to another page.
    pub byte_identical: u64,
    /// `near_duplicate / pages`.
    pub share: f64,
}

/// Revisit totals.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RevisitCounts {
    /// Revisit records read.
    pub revisits: u64,
    /// By how they resolved.
    pub by_resolution: BTreeMap<&'static str, u64>,
    /// Without WARC-Refers-To-Target-URI.
    pub missing_refers_to_target_uri: u64,
    /// Without WARC-Refers-To-Date.
    pub missing_refers_to_date: u64,
    /// Resolved to an original whose payload digest differs from theirs.
    pub digest_mismatch: u64,
    /// Originals with at least one revisit.
    pub originals: u64,
    /// Chains by revisits per original: 1, 2-9, 10-99, 100-299, 300 and more.
    pub chain_lengths: [u64; 5],
    /// The longest chain (revisits of one original).
    pub longest_chain: u64,
    /// The deepest revisit-of-revisit link.
    pub deepest: u32,
}

/// Everything an audit finds.
#[derive(Clone, Debug, Serialize)]
pub struct AuditReport {
    /// What wrote this.
    pub written_by: &'static str,
    /// The inputs.
    pub inputs: Vec<String>,
    /// Records by WARC-Type, over all inputs.
    pub records_by_type: BTreeMap<String, u64>,
    /// Malformed records skipped, with file, offset and reason.
    pub skipped: crate::Skipped,
    /// Revisit totals.
    pub revisits: RevisitCounts,
    /// Every unresolvable revisit.
    pub unresolvable: Vec<RevisitRow>,
    /// Every revisit missing WARC-Refers-To-Target-URI or -Date.
    pub missing_headers: Vec<RevisitRow>,
    /// Every revisit whose original has another digest.
    pub digest_mismatches: Vec<RevisitRow>,
    /// Chains of at least [`LONG_CHAIN`] revisits, longest first (at least the [`TOP`]
    /// longest).
    pub longest_chains: Vec<Chain>,
    /// Payload totals.
    pub payloads: PayloadCounts,
    /// The [`TOP`] repeated payloads that cost the most bytes.
    pub repeated_payloads: Vec<RepeatedPayload>,
    /// HTML pages sketched for the near-duplicate pass.
    pub pages_sketched: u64,
    /// Of them, in a near-duplicate cluster.
    pub pages_near_duplicate: u64,
    /// Every host with sketched pages, most pages first.
    pub hosts: Vec<HostShare>,
    /// The WACZ packages read (given, or followed from a package's `relation.requires` or a
    /// revisit's container) and those needed but not found beside the one needing them.
    pub packages: Vec<crate::packages::PackageRow>,
    /// Of them, not found.
    pub missing_packages: u64,
}

/// Audits `inputs` in one pass; where they are WACZ packages, with the packages they need
/// found beside them (a second pass when unresolved revisits name a package not read yet).
pub fn run(
    inputs: &[Input],
    opts: &AuditOptions,
    progress: &dyn Progress,
) -> Result<AuditReport, Error> {
    let mut inputs = inputs.to_vec();
    let mut packages = crate::packages::Packages::of(&inputs);
    packages.follow_requires(&mut inputs)?;
    loop {
        let (mut report, containers) = once(&inputs, opts, progress)?;
        let unresolved: Vec<(String, String)> = report
            .unresolvable
            .iter()
            .map(|r| (r.file.clone(), r.container.clone()))
            .collect();
        // Each pass that goes on has added a package not read before: it ends.
        if packages.follow_containers(&unresolved, &mut inputs)? {
            packages.follow_requires(&mut inputs)?;
            continue;
        }
        report.packages = packages.finish(&containers);
        report.missing_packages = report.packages.iter().filter(|p| !p.found).count() as u64;
        for r in &mut report.unresolvable {
            if let Some(why) =
                crate::packages::missing_container(&report.packages, &r.file, &r.container)
            {
                r.reason.push_str("; ");
                r.reason.push_str(&why);
            }
        }
        return Ok(report);
    }
}

/// One pass: the report, and every revisit's (file, WARC-Refers-To-Container).
fn once(
    inputs: &[Input],
    opts: &AuditOptions,
    progress: &dyn Progress,
) -> Result<(AuditReport, Vec<(String, String)>), Error> {
    opts.params.validate()?;
    let mut pipeline = opts.pipeline.clone();
    pipeline.read.every_revisit = true;
    // An audit needs records, not pages: a file of revisits is audited.
    pipeline.records_suffice = true;
    let family = Family::new(&opts.params);
    let sink = CorpusSink::new(family, false);
    let make = || AuditVisitor {
        sketch: SketchVisitor::new(&sink).every_status(pipeline.every_status),
        responses: Vec::new(),
        digests_computed: 0,
    };
    let run = crate::run(inputs, &pipeline, make, progress)?;
    let mut parts = Vec::with_capacity(run.outputs.len());
    let mut responses = Vec::new();
    let mut computed = 0;
    for (part, r, c) in run.outputs {
        parts.push(part);
        responses.extend(r);
        computed += c;
    }
    responses.sort_by_key(|r| (r.source, r.offset));
    let (corpus, sources) = assemble(
        sink,
        crate::RunOutput {
            outputs: parts,
            sources: run.sources,
            elapsed: run.elapsed,
        },
    );
    let files: Vec<String> = sources.iter().map(|s| s.path.clone()).collect();
    let mut records_by_type = BTreeMap::new();
    let mut revisits: Vec<(u32, Revisit)> = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        for (t, n) in &s.stats.by_record_type {
            *records_by_type.entry(t.clone()).or_default() += n;
        }
        revisits.extend(s.stats.revisits.iter().map(|r| (i as u32, r.clone())));
    }
    let skipped = crate::Skipped::of(&sources, opts.pipeline.skipped_examples);
    let config = DedupConfig::accurate(opts.params.m);
    let result = dedup(&corpus, &config)?;
    let mut report = AuditReport {
        written_by: "neardup audit",
        inputs: files.clone(),
        records_by_type,
        skipped,
        revisits: RevisitCounts::default(),
        unresolvable: Vec::new(),
        missing_headers: Vec::new(),
        digest_mismatches: Vec::new(),
        longest_chains: Vec::new(),
        payloads: payloads(&responses, computed),
        repeated_payloads: repeated(&responses),
        pages_sketched: corpus.len() as u64,
        pages_near_duplicate: result.counts.pages_in_clusters,
        hosts: host_shares(&corpus, &result),
        packages: Vec::new(),
        missing_packages: 0,
    };
    resolve(&mut report, &files, &responses, &revisits);
    let containers = revisits
        .iter()
        .map(|(src, v)| {
            (
                files.get(*src as usize).cloned().unwrap_or_default(),
                v.refers_to_container.clone(),
            )
        })
        .collect();
    Ok((report, containers))
}

/// Payload totals: repeated payloads over all URLs and per URL.
fn payloads(responses: &[Response], computed: u64) -> PayloadCounts {
    let mut c = PayloadCounts {
        responses: responses.len() as u64,
        digests_computed: computed,
        bytes: responses.iter().map(|r| r.bytes).sum(),
        ..Default::default()
    };
    let mut any: HashMap<&Sha1Digest, (u64, u64)> = HashMap::new();
    let mut same: HashMap<(&str, &Sha1Digest), (u64, u64)> = HashMap::new();
    for r in responses.iter().filter(|r| r.bytes > 0) {
        let a = any.entry(&r.digest).or_insert((0, r.bytes));
        a.0 += 1;
        let s = same.entry((&r.key, &r.digest)).or_insert((0, r.bytes));
        s.0 += 1;
    }
    for &(n, b) in any.values().filter(|v| v.0 > 1) {
        c.repeated += 1;
        c.extra_copies += n - 1;
        c.bytes_saved_any_url += (n - 1) * b;
    }
    c.bytes_saved_same_url = same.values().map(|&(n, b)| (n - 1) * b).sum();
    c
}

/// The [`TOP`] repeated payloads by bytes saved.
fn repeated(responses: &[Response]) -> Vec<RepeatedPayload> {
    let mut groups: HashMap<&Sha1Digest, Vec<&Response>> = HashMap::new();
    for r in responses.iter().filter(|r| r.bytes > 0) {
        groups.entry(&r.digest).or_default().push(r);
    }
    let mut out: Vec<RepeatedPayload> = groups
        .into_iter()
        .filter(|(_, g)| g.len() > 1)
        .map(|(d, g)| {
            let mut urls: Vec<&str> = g.iter().map(|r| r.key.as_str()).collect();
            urls.sort_unstable();
            urls.dedup();
            let copies = g.len() as u64;
            RepeatedPayload {
                digest: format!("sha1:{}", base32(d)),
                bytes: g[0].bytes,
                copies,
                urls: urls.len() as u64,
                bytes_saved: (copies - 1) * g[0].bytes,
                examples: g
                    .iter()
                    .take(5)
                    .map(|r| (r.url.clone(), r.date.clone()))
                    .collect(),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        (b.bytes_saved, b.copies, &a.digest).cmp(&(a.bytes_saved, a.copies, &b.digest))
    });
    out.truncate(TOP);
    out
}

/// Each host's near-duplicate share, most pages first.
fn host_shares(corpus: &neardup_store::Corpus, r: &crate::dedup::DedupResult) -> Vec<HostShare> {
    let mut identical = vec![false; corpus.len() as usize];
    for set in &r.byte_identical {
        for &p in set {
            identical[p as usize] = true;
        }
    }
    let mut hosts: BTreeMap<&str, HostShare> = BTreeMap::new();
    for (p, page) in corpus.pages().enumerate() {
        let h = hosts.entry(page.host).or_insert_with(|| HostShare {
            host: page.host.to_string(),
            pages: 0,
            near_duplicate: 0,
            byte_identical: 0,
            share: 0.0,
        });
        h.pages += 1;
        h.near_duplicate += u64::from(r.cluster_of[p].is_some());
        h.byte_identical += u64::from(identical[p]);
    }
    let mut out: Vec<HostShare> = hosts.into_values().collect();
    for h in &mut out {
        h.share = h.near_duplicate as f64 / h.pages as f64;
    }
    out.sort_by(|a, b| b.pages.cmp(&a.pages).then_with(|| a.host.cmp(&b.host)));
    out
}

/// Where a revisit's `WARC-Refers-To` leads.
#[derive(Clone, Copy)]
enum Node {
    Response(usize),
    Revisit(usize),
}

/// Resolves every revisit; fills the revisit counts, the lists and the chains.
fn resolve(
    report: &mut AuditReport,
    files: &[String],
    responses: &[Response],
    revisits: &[(u32, Revisit)],
) {
    let mut by_id: HashMap<&str, Node> = HashMap::new();
    for (i, r) in responses.iter().enumerate() {
        if !r.record_id.is_empty() {
            by_id
                .entry(r.record_id.as_str())
                .or_insert(Node::Response(i));
        }
    }
    for (j, (_, v)) in revisits.iter().enumerate() {
        if !v.record_id.is_empty() {
            by_id
                .entry(v.record_id.as_str())
                .or_insert(Node::Revisit(j));
        }
    }
    let mut by_url_date: HashMap<(&str, i64), usize> = HashMap::new();
    let mut by_url_digest: HashMap<(&str, &Sha1Digest), Vec<usize>> = HashMap::new();
    let mut by_digest: HashMap<&Sha1Digest, usize> = HashMap::new();
    for (i, r) in responses.iter().enumerate() {
        if let Some(t) = r.secs {
            by_url_date.entry((&r.key, t)).or_insert(i);
        }
        by_url_digest
            .entry((&r.key, &r.digest))
            .or_default()
            .push(i);
        by_digest.entry(&r.digest).or_insert(i);
    }
    let keys: Vec<(String, String)> = revisits
        .iter()
        .map(|(_, v)| (url_key(&v.url), url_key(&v.refers_to_target_uri)))
        .collect();
    // One revisit's original and how it was found, without following revisits.
    let direct = |j: usize| -> (Resolution, Option<Node>, String) {
        let v = &revisits[j].1;
        if !v.refers_to_record.is_empty() {
            if let Some(&n) = by_id.get(v.refers_to_record.as_str()) {
                return (Resolution::RefersToRecord, Some(n), String::new());
            }
        }
        let (own, target) = (&keys[j].0, &keys[j].1);
        if !v.refers_to_target_uri.is_empty() {
            if let Some(&i) =
                parse_date(&v.refers_to_date).and_then(|t| by_url_date.get(&(target.as_str(), t)))
            {
                return (
                    Resolution::RefersToUriAndDate,
                    Some(Node::Response(i)),
                    String::new(),
                );
            }
        }
        let digest = parse_sha1(&v.payload_digest);
        if let Some(d) = &digest {
            let when = parse_date(&v.date);
            for url in [target, own].into_iter().filter(|u| !u.is_empty()) {
                if let Some(found) = by_url_digest.get(&(url.as_str(), d)) {
                    // The latest copy at or before the revisit, else the first.
                    let best = found
                        .iter()
                        .copied()
                        .filter(
                            |&i| matches!((responses[i].secs, when), (Some(a), Some(b)) if a <= b),
                        )
                        .max_by_key(|&i| responses[i].secs)
                        .unwrap_or(found[0]);
                    return (
                        Resolution::UrlAndDigest,
                        Some(Node::Response(best)),
                        String::new(),
                    );
                }
            }
            if v.profile.contains("uri-agnostic") {
                if let Some(&i) = by_digest.get(d) {
                    return (
                        Resolution::DigestOnly,
                        Some(Node::Response(i)),
                        String::new(),
                    );
                }
            }
        }
        let mut why = Vec::new();
        if !v.refers_to_record.is_empty() {
            why.push(format!("no record {}", v.refers_to_record));
        }
        if !v.refers_to_target_uri.is_empty() {
            why.push(format!(
                "no capture of {} at {}",
                v.refers_to_target_uri,
                if v.refers_to_date.is_empty() {
                    "(no date)"
                } else {
                    &v.refers_to_date
                }
            ));
        }
        match &digest {
            Some(_) => why.push(format!(
                "no response of the URL with digest {}",
                v.payload_digest
            )),
            None => why.push("no SHA-1 payload digest to look up".to_string()),
        }
        (Resolution::Unresolvable, None, why.join("; "))
    };
    let row = |j: usize, res: Resolution, reason: String, original: Option<usize>| {
        let (src, v) = &revisits[j];
        RevisitRow {
            file: files.get(*src as usize).cloned().unwrap_or_default(),
            offset: v.offset,
            url: v.url.clone(),
            date: v.date.clone(),
            refers_to: [
                v.refers_to_record.clone(),
                v.refers_to_target_uri.clone(),
                v.refers_to_date.clone(),
            ],
            digest: v.payload_digest.clone(),
            resolution: res,
            reason,
            original: original.map(|i| {
                let r = &responses[i];
                (
                    files.get(r.source as usize).cloned().unwrap_or_default(),
                    r.offset,
                    r.date.clone(),
                )
            }),
            container: v.refers_to_container.clone(),
        }
    };
    let c = &mut report.revisits;
    c.revisits = revisits.len() as u64;
    let mut chains: HashMap<usize, (u64, u32)> = HashMap::new();
    for (j, (_, v)) in revisits.iter().enumerate() {
        // Follow revisit-of-revisit links to a response.
        let (first, mut node, mut reason) = direct(j);
        let mut depth = 1;
        while let Some(Node::Revisit(k)) = node {
            if depth >= MAX_DEPTH {
                (node, reason) = (None, format!("WARC-Refers-To links loop past {MAX_DEPTH}"));
                break;
            }
            let (_, n, why) = direct(k);
            (node, reason, depth) = (n, why, depth + 1);
        }
        let original = match node {
            Some(Node::Response(i)) => Some(i),
            _ => None,
        };
        let res = if original.is_some() {
            first
        } else {
            Resolution::Unresolvable
        };
        *c.by_resolution.entry(res.as_str()).or_default() += 1;
        let missing = v.refers_to_target_uri.is_empty() || v.refers_to_date.is_empty();
        c.missing_refers_to_target_uri += u64::from(v.refers_to_target_uri.is_empty());
        c.missing_refers_to_date += u64::from(v.refers_to_date.is_empty());
        if missing {
            let mut what = Vec::new();
            if v.refers_to_target_uri.is_empty() {
                what.push("WARC-Refers-To-Target-URI");
            }
            if v.refers_to_date.is_empty() {
                what.push("WARC-Refers-To-Date");
            }
            report.missing_headers.push(row(
                j,
                res,
                format!("no {}", what.join(" nor ")),
                original,
            ));
        }
        match original {
            None => report.unresolvable.push(row(j, res, reason, None)),
            Some(i) => {
                let e = chains.entry(i).or_insert((0, 0));
                e.0 += 1;
                e.1 = e.1.max(depth);
                c.deepest = c.deepest.max(depth);
                let theirs = parse_sha1(&v.payload_digest);
                if theirs.is_some_and(|d| d != responses[i].digest) {
                    c.digest_mismatch += 1;
                    let why = format!(
                        "the original's payload digest is sha1:{}",
                        base32(&responses[i].digest)
                    );
                    report.digest_mismatches.push(row(j, res, why, Some(i)));
                }
            }
        }
    }
    c.originals = chains.len() as u64;
    for &(n, _) in chains.values() {
        let b = match n {
            1 => 0,
            2..=9 => 1,
            10..=99 => 2,
            100..=299 => 3,
            _ => 4,
        };
        c.chain_lengths[b] += 1;
        c.longest_chain = c.longest_chain.max(n);
    }
    let mut longest: Vec<(usize, u64, u32)> =
        chains.into_iter().map(|(i, (n, d))| (i, n, d)).collect();
    longest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let keep = longest
        .iter()
        .take_while(|c| c.1 >= LONG_CHAIN)
        .count()
        .max(TOP);
    report.longest_chains = longest
        .into_iter()
        .take(keep)
        .map(|(i, n, d)| {
            let r = &responses[i];
            Chain {
                url: r.url.clone(),
                date: r.date.clone(),
                file: files.get(r.source as usize).cloned().unwrap_or_default(),
                offset: r.offset,
                revisits: n,
                depth: d,
            }
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(url: &str, id: &str, date: &str, payload: &[u8]) -> Response {
        Response {
            source: 0,
            offset: 0,
            url: url.to_string(),
            key: url_key(url),
            date: date.to_string(),
            secs: parse_date(date),
            record_id: id.to_string(),
            digest: sha1(payload),
            bytes: payload.len() as u64,
        }
    }

    fn revisit(url: &str, id: &str, refers: [&str; 3], payload: &[u8], profile: &str) -> Revisit {
        Revisit {
            refers_to_container: String::new(),
            url: url.to_string(),
            date: "2026-02-01T00:00:00Z".to_string(),
            record_id: id.to_string(),
            refers_to_record: refers[0].to_string(),
            refers_to_target_uri: refers[1].to_string(),
            refers_to_date: refers[2].to_string(),
            payload_digest: format!("sha1:{}", base32(&sha1(payload))),
            profile: profile.to_string(),
            ..Default::default()
        }
    }

    #[test]
    fn revisits_resolve_as_replay_resolves_them() {
        let a = "https://a.example/";
        let d1 = "2026-01-01T00:00:00Z";
        let responses = vec![
            response(a, "<id1>", d1, b"one"),
            response("https://b.example/x", "<id2>", d1, b"two"),
        ];
        let agnostic =
            "http://netpreserve.org/warc/1.1/revisit/uri-agnostic-identical-payload-digest";
        let revisits: Vec<(u32, Revisit)> = [
            revisit(a, "<r1>", ["<id1>", a, d1], b"one", ""),
            revisit(a, "<r2>", ["<r1>", "", ""], b"one", ""),
            revisit(
                a,
                "<r3>",
                ["<gone>", a, "2026-01-01T00:00:00.000Z"],
                b"one",
                "",
            ),
            revisit(a, "<r4>", ["", "", ""], b"one", ""),
            revisit("https://c.example/", "<r5>", ["", "", ""], b"two", agnostic),
            revisit("https://c.example/", "<r6>", ["", "", ""], b"two", ""),
            revisit(a, "<r7>", ["<id1>", a, d1], b"other", ""),
        ]
        .into_iter()
        .map(|r| (0, r))
        .collect();
        let mut report = AuditReport {
            written_by: "test",
            inputs: vec!["f".into()],
            records_by_type: BTreeMap::new(),
            skipped: crate::Skipped::of(&[], 0),
            revisits: RevisitCounts::default(),
            unresolvable: Vec::new(),
            missing_headers: Vec::new(),
            digest_mismatches: Vec::new(),
            longest_chains: Vec::new(),
            payloads: PayloadCounts::default(),
            repeated_payloads: Vec::new(),
            pages_sketched: 0,
            pages_near_duplicate: 0,
            hosts: Vec::new(),
            packages: Vec::new(),
            missing_packages: 0,
        };
        resolve(&mut report, &["f".into()], &responses, &revisits);
        let c = &report.revisits;
        let by = |k: &str| c.by_resolution.get(k).copied().unwrap_or(0);
        assert_eq!(by("refers-to-record"), 3, "{c:?}");
        assert_eq!(by("refers-to-uri-and-date"), 1);
        assert_eq!(by("url-and-digest"), 1);
        assert_eq!(by("digest-only"), 1);
        assert_eq!(by("unresolvable"), 1);
        assert_eq!(report.unresolvable[0].url, "https://c.example/");
        assert_eq!(c.deepest, 2);
        // r1..r4 and r7 stand for the first response; r5 for the second.
        assert_eq!((c.originals, c.longest_chain), (2, 5));
        assert_eq!(c.chain_lengths, [1, 1, 0, 0, 0]);
        assert_eq!(c.digest_mismatch, 1);
        assert_eq!(report.digest_mismatches[0].url, a);
        assert_eq!(
            (c.missing_refers_to_target_uri, c.missing_refers_to_date),
            (4, 4)
        );
    }

    #[test]
    fn repeated_payloads_count_the_bytes_a_revisit_saves() {
        let d = "2026-01-01T00:00:00Z";
        let rs = vec![
            response("https://a.example/s.css", "", d, b"body{}"),
            response("https://a.example/s.css", "", d, b"body{}"),
            response("https://b.example/s.css", "", d, b"body{}"),
            response("https://a.example/e", "", d, b""),
            response("https://a.example/e2", "", d, b""),
            response("https://a.example/u", "", d, b"unique"),
        ];
        let c = payloads(&rs, 0);
        assert_eq!((c.repeated, c.extra_copies), (1, 2));
        assert_eq!((c.bytes_saved_same_url, c.bytes_saved_any_url), (6, 12));
        let top = repeated(&rs);
        assert_eq!(top.len(), 1);
        assert_eq!((top[0].copies, top[0].urls, top[0].bytes_saved), (3, 2, 12));
    }
}
