//! Command-line flags, parsed in two steps (as ripgrep does): clap fills the raw structs below,
//! then [`Common::pipeline`] resolves them into library settings. No library crate sees clap.

use clap::{Args, Parser, Subcommand, ValueEnum};
use neardup_dedup::rphm::{Scaling, TermWeights};
use neardup_dedup::{Choice, Level, SiteRule, SketchRequest};
use neardup_engine::PipelineConfig;
use neardup_ingest::{FieldMap, Format, ReadOptions};
use neardup_sketch::{Content, MinHashFamily, SketchParams};
use neardup_text::TokenizerConfig;
use std::path::PathBuf;

mod dedup;
mod index;
pub use dedup::*;
use dedup::{dedup_about, dedup_defaults};
pub use index::*;

const EXIT_CODES: &str = "\
EXIT CODES:
  0  success (skipped malformed records are reported in the summary, not an error)
  1  error: an input could not be opened or read, an output could not be written
  2  usage error: bad flags or arguments
  3  malformed input with --strict: the first bad record stops the run
  4  no page was read (empty inputs, or every record skipped; the reasons are printed);
     pass --allow-empty to accept an empty run";

const SERVE_EXIT_CODES: &str = "\
EXIT CODES:
  0  stopped by SIGTERM or SIGINT (requests in flight answered, their adds committed)
  1  error: the index could not be opened or locked (another writer holds it: use
     --read-only beside it), the address could not be bound, the token file is unreadable
  2  usage error: bad flags or arguments
SIGNALS:
  SIGTERM, SIGINT  stop accepting connections, finish requests in flight, commit their adds
  SIGKILL          acknowledged adds survive (each was made durable before its answer);
                   the next start removes what an unfinished group left";

/// neardup finds near-duplicate web pages and replicated web sites in web crawls.
#[derive(Debug, Parser)]
#[command(name = "neardup", version, about, after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    /// Print only errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print more detail: every kept example of a skipped record (every command), per-input lines
    /// (scan).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write the example world every example of the README runs in: the sample crawl, three
    /// weekly crawls of one URL space, a revisit collection, a damaged WARC, a JSONL corpus with
    /// near-duplicates and repeated paragraphs, an earlier dump in Parquet, an evaluation set
    /// with leaks, labelled pairs, a replica crawl, a folder of HTML files. DIR must not exist
    /// or be empty; README.txt there says what each file is.
    #[command(after_help = EXIT_CODES)]
    Demo(DemoArgs),

    /// Read crawls and report what they hold: pages by source, content type, status and host;
    /// bytes; tokens; records skipped and why; throughput.
    ///
    /// With no INPUT, scans the sample crawl committed in data/sample/.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Scan(ScanArgs),

    /// Find the near-duplicate pages of a crawl, cluster them, and say which to keep.
    #[command(
        long_about = dedup_about(),
        after_help = dedup_defaults(),
        allow_negative_numbers = true
    )]
    Dedup(Box<DedupArgs>),

    /// Compute the signatures of a crawl once and write them to a file for later `dedup` runs.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Sketch(SketchArgs),

    /// A persistent index of pages on disk: create it, add crawls to it, ask of new pages which
    /// indexed pages they are near-duplicates of, look up payload digests, see what it holds,
    /// remove a crawl, compact and check it (`dedup --index` deduplicates against it).
    #[command(subcommand)]
    Index(IndexCommand),

    /// Answer near-duplicate lookups and take adds over HTTP from a persistent index (crawl
    /// time).
    ///
    /// POST /v1/lookup with {"url": U, "html": H} (or "text", or a raw WARC record or HTTP
    /// response) answers whether the page is a near-duplicate of indexed pages and of which,
    /// with the evidence; POST /v1/add adds it (answered once durable; ?if-new=1 adds it only
    /// if it matches nothing); GET /cdx answers as a CDX server (warcprox --cdxserver-dedup);
    /// /v1/stats, /healthz, /readyz, /metrics. crates/serve/openapi.yaml describes them all.
    /// Holds the index's writer lock unless --read-only. Runs until SIGTERM or SIGINT:
    /// requests in flight finish and their adds are committed; exit 0.
    #[command(after_help = SERVE_EXIT_CODES)]
    Serve(ServeArgs),

    /// Remove repeated paragraphs (or lines) from a text corpus: count every unit over the whole
    /// corpus (exactly, in bounded memory), then cut every copy but the first
    /// (--policy first-copy) or every copy of a unit in more than --max-docs documents
    /// (--policy boilerplate: menus, cookie banners). spans.jsonl lists every cut with its
    /// character offsets, count and first holder; --write-clean DIR writes the cleaned corpus
    /// in the inputs' own format (JSONL, Parquet).
    #[command(after_help = EXIT_CODES)]
    Paragraphs(ParagraphsArgs),

    /// Find benchmark contamination: every training document holding any word n-gram (13 words
    /// by default) of an evaluation item; contamination.jsonl lists each span with the item and
    /// its character offsets. With --write-clean DIR, --action cut removes each span and
    /// --margin characters around it, --action drop leaves the document out.
    #[command(after_help = EXIT_CODES)]
    Decontaminate(DecontaminateArgs),

    /// Score predicted pairs or clusters against labelled pairs: precision, recall, F1 overall,
    /// per kind and for same-site vs different-site pairs; with scored pairs, the
    /// precision-recall curve (CSV and SVG) and its break-even point; with --crawl, the term
    /// differences (Myers diff of the token sequences) of the predicted pairs. With site-pair
    /// labels, scores a `neardup replicas` run (ROC and AUC, reduction ratio at fixed
    /// false-positive rates, replica detection rate).
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Eval(EvalArgs),

    /// All-pairs document overlap (Shivakumar and Garcia-Molina 1998): every pair of pages sharing
    /// at least --min-shared chunks (lines, sentences, word sequences...), with the count. Finds
    /// smaller overlaps than shingling, such as a page quoting another. Exact copies are removed
    /// first and reported.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Overlap(OverlapArgs),

    /// Mirrored sites (Fetterly, Manasse, Najork 2004): host pairs, and subtrees of hosts, whose
    /// pages fall into the same near-duplicate clusters, verified by shared URL suffixes (Bharat
    /// and Broder); aliases (www., one IP address) reported as their own kind.
    ///
    /// Writes to --out DIR: mirrors (one row per host pair with prefixes, kind, pages shared,
    /// suffix-match fractions, IPs, example URL pairs) and summary.json (counts, size
    /// distribution).
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Mirrors(MirrorsArgs),

    /// Clusters across crawls of the same URLs (Fetterly, Manasse, Najork 2004 section 3): each
    /// crawl is clustered on its own, then URLs are followed from crawl to crawl.
    ///
    /// Each CRAWL is one crawl, oldest first: a crawl file, a folder of crawl files, a signature
    /// file from `neardup sketch`, or several of these joined with commas. With no CRAWL, runs on
    /// the three versions of the sample site in data/evolve-sample/ (2022-08, 2026-05, 2026-07).
    ///
    /// Writes to --out DIR: coefficients (containment and similarity of every crawl's clusters
    /// with the first crawl's, per week-1 cluster-size range), change and change_buckets (how
    /// much each URL changed between consecutive crawls: minvalues shared, 85 = byte-identical),
    /// hosts (distinct clusters per host, first vs last crawl), events (births, deaths, merges,
    /// splits), recrawl (skip / fetch / prioritize per URL of the last crawl, with the reason),
    /// clusters (each crawl's multi-page clusters), one SVG per figure, summary.json.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Evolve(EvolveArgs),

    /// How each URL changed from capture to capture: unchanged, markup only, dates/times/
    /// counters only, a few words, a large edit, main content replaced, gone, moved.
    ///
    /// Every response record of the inputs (any status) is a capture of its URL; the captures
    /// of a URL are ordered by date and each is compared with the one before it (after a 404
    /// or a redirect, with the last capture that had content). Prints the count per category;
    /// --timeline writes every capture with its category and the rule and scores that decided.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Changes(ChangesArgs),

    /// Audit a WARC collection in one pass: revisit records whose original is not in the
    /// collection (resolved as replay does: WARC-Refers-To, then WARC-Refers-To-Target-URI
    /// and -Date, then URL and payload digest), revisit chain lengths, revisits missing
    /// WARC-Refers-To-Target-URI or -Date, payloads stored in full more than once (the bytes
    /// a revisit would have saved) and each host's share of near-duplicate pages (reported
    /// as data: WARC has no revisit profile for a near-duplicate).
    ///
    /// With no INPUT, audits the sample crawl committed in data/sample/.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Audit(AuditArgs),

    /// Website replicas without labels (Carvalho, de Moura, Veloso, Ziviani 2017): site pairs
    /// sharing a near-duplicate cluster are candidates; obvious replicas (www., TLD variants)
    /// and obvious non-replicas (pairs sharing nothing) seed EM over PU and NU data with a lazy
    /// associative classifier on five crawl-time features (ndist, nmatch, ip4, ip3, fullpath);
    /// both classifiers' scores are aggregated by Pareto dominance. NormPaths is the baseline.
    ///
    /// Writes to --out DIR: replicas (one row per candidate site pair, ranked: features, both
    /// classifiers' likelihoods, dominance, NormPaths, predicted label), site_clusters, sites,
    /// summary.json (counts, discretization, EM and per-candidate times).
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Replicas(ReplicasArgs),

    /// Rebuild the HTML report (report.html) of an output folder from the tables and summaries
    /// in it. Every command that writes an --out folder writes its report; this writes it again,
    /// for a folder whose tables were converted, or after an upgrade.
    ///
    /// The report is one self-contained file (inline CSS, SVG and a few lines of JavaScript,
    /// nothing fetched), byte-identical for the same folder.
    #[command(after_help = EXIT_CODES)]
    Report(ReportArgs),
}

#[derive(Debug, Args)]
pub struct ReplicasArgs {
    /// Do not write report.html (nor, for dedup, the samples table its side-by-side views
    /// come from, which reads the largest clusters' pages a second time).
    #[arg(long)]
    pub no_report: bool,

    #[command(flatten)]
    pub common: Common,

    #[command(flatten)]
    pub sketch: SketchFlags,

    /// Folder for the tables, summary.json and report.html.
    #[arg(short, long, default_value = "neardup-replicas", value_name = "DIR")]
    pub out: PathBuf,

    /// Output format of the tables.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: OutFormat,

    /// Dup-cluster level: very-similar, virtually-identical, or a B-similarity.
    #[arg(long, default_value = "very-similar", value_name = "LEVEL")]
    pub level: String,

    /// Use the clusters of a previous `neardup dedup` run (its clusters table, any algorithm).
    #[arg(long, value_name = "FILE", conflicts_with = "exact")]
    pub clusters: Option<PathBuf>,

    /// Dup-clusters of pages with identical content fingerprints (the same token sequence), as
    /// the paper, instead of near-duplicate clusters.
    #[arg(long)]
    pub exact: bool,

    /// Extra host-to-IP addresses: lines "host,ip" (added to WARC-IP-Address).
    #[arg(long, value_name = "FILE")]
    pub hosts_ips: Option<PathBuf>,

    /// Predict the N best-ranked candidates as replicas (Algorithm 4's n).
    #[arg(long, value_name = "N", conflicts_with = "min_score")]
    pub top: Option<usize>,

    /// Predict the candidates whose aggregated score (share of candidates they dominate) is at
    /// least this. Without --top or --min-score, a candidate is predicted when both classifiers
    /// give it a replica likelihood above 0.5.
    #[arg(long, value_name = "SCORE")]
    pub min_score: Option<f64>,

    /// Obvious non-replicas sampled per obvious replica (paper: 16).
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub negatives_per_positive: usize,

    /// Clusters spanning more sites give no candidate pairs (counted in the summary).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_cluster_sites: usize,

    /// Seed of the obvious non-replica sample.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub sample_seed: u64,

    /// Also run EM rebuilding the classifier after every label transition, to time it against
    /// the incremental updates and check both end the same (paper Table 5).
    #[arg(long)]
    pub em_from_scratch: bool,

    /// Features the classifiers use, comma-separated (paper Table 2 ablations); default all:
    /// ndist,nmatch,ip4,ip3,fullpath.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub features: Vec<String>,
}

#[derive(Debug, Args)]
#[command(mut_arg("inputs", |a| a.value_name("CRAWL").help(
    "One crawl per argument, oldest first: a crawl file, a folder of crawl files, a signature file, or several joined with commas"
)))]
pub struct EvolveArgs {
    /// Do not write report.html (nor, for dedup, the samples table its side-by-side views
    /// come from, which reads the largest clusters' pages a second time).
    #[arg(long)]
    pub no_report: bool,

    #[command(flatten)]
    pub common: Common,

    #[command(flatten)]
    pub sketch: SketchFlags,

    /// Folder for the tables, figures, summary.json and report.html.
    #[arg(short, long, default_value = "neardup-evolve", value_name = "DIR")]
    pub out: PathBuf,

    /// Output format of the tables.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: OutFormat,

    /// Cluster level within each crawl: very-similar, virtually-identical, or a B-similarity.
    #[arg(long, default_value = "very-similar", value_name = "LEVEL")]
    pub level: String,

    /// Names of the crawls, comma-separated, in order (default: from the file names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub labels: Vec<String>,

    /// A cluster of the last crawl is stable (its members may be skipped) when, against every
    /// earlier crawl, the mean similarity coefficient of its URLs is at least this.
    #[arg(long, default_value_t = 0.8, value_name = "PSI")]
    pub stable_similarity: f64,

    /// A stable cluster's representative is prioritized when more than this share of the
    /// cluster's URLs changed by more than a small amount since the previous crawl.
    #[arg(long, default_value_t = 0.5, value_name = "SHARE")]
    pub fast_change_share: f64,
}

#[derive(Debug, Args)]
pub struct MirrorsArgs {
    /// Do not write report.html (nor, for dedup, the samples table its side-by-side views
    /// come from, which reads the largest clusters' pages a second time).
    #[arg(long)]
    pub no_report: bool,

    #[command(flatten)]
    pub common: Common,

    #[command(flatten)]
    pub sketch: SketchFlags,

    /// Folder for mirrors, summary.json and report.html.
    #[arg(short, long, default_value = "neardup-mirrors", value_name = "DIR")]
    pub out: PathBuf,

    /// Output format of the mirrors table.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: OutFormat,

    /// Cluster the pages by supershingles at this level (paper 004): very-similar,
    /// virtually-identical, or a B-similarity. Default: cluster as `neardup dedup` does.
    #[arg(long, value_name = "LEVEL")]
    pub level: Option<String>,

    /// Pages a host pair needs in common (each way) to count (paper 004: 10, for a crawl of
    /// millions of hosts; small mirrors have a handful, and the shared URL paths decide).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub min_pages: u64,

    /// Share of the shared pages whose last URL path arc is also on the other host that a host
    /// pair (other than an alias) needs to be a mirror: sites that share a template but no
    /// URLs are not mirrors.
    #[arg(long, default_value_t = 0.5, value_name = "SHARE")]
    pub min_suffix_match: f64,

    /// Extra host-to-IP addresses: lines "host,ip" (added to WARC-IP-Address).
    #[arg(long, value_name = "FILE")]
    pub hosts_ips: Option<PathBuf>,

    /// Use the clusters of a previous `neardup dedup` run (its clusters.jsonl or .csv, any
    /// algorithm) instead of clustering here; INPUT is still read for hosts, IPs and page counts.
    #[arg(long, value_name = "FILE")]
    pub clusters: Option<PathBuf>,
}

/// Overlap table method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OverlapMethodArg {
    /// Sort-based (external with --mem-limit).
    Sort,
    /// Coarse (probabilistic) counting.
    Coarse,
}

#[derive(Debug, Args)]
pub struct OverlapArgs {
    /// Do not write report.html (nor, for dedup, the samples table its side-by-side views
    /// come from, which reads the largest clusters' pages a second time).
    #[arg(long)]
    pub no_report: bool,

    #[command(flatten)]
    pub common: Common,

    /// Chunks: words, words:N, lines, lines:N (N rendered lines), sentences, paragraphs, document.
    #[arg(long, default_value = "lines:2", value_name = "CHUNKING")]
    pub chunk: String,

    /// Keep pairs sharing at least this many distinct chunks (the paper's T).
    #[arg(long, default_value_t = 5, value_name = "T")]
    pub min_shared: u32,

    /// Chunk fingerprint width (the paper uses 32 bits).
    #[arg(long, default_value_t = 32, value_parser = clap::builder::RangedU64ValueParser::<u32>::new().range(32..=64), value_name = "BITS")]
    pub fingerprint_bits: u32,

    /// Skip (and report) chunks held by more than this many documents (a copyright line shared
    /// by every page would make the pair cross-product explode).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_df: usize,

    /// How to compute the Overlap table: sort (sort-based, external with --mem-limit) or
    /// coarse (probabilistic counting: counters, a bitmap of heavy buckets, exact candidates).
    #[arg(long, value_enum, default_value = "sort")]
    pub method: OverlapMethodArg,

    /// Coarse counting: counters per hash function.
    #[arg(long, default_value_t = 1 << 24, value_name = "M")]
    pub counters: usize,

    /// Coarse counting: hash functions (a pair is a candidate when all its buckets are heavy).
    #[arg(long, default_value_t = 2, value_name = "K")]
    pub hashes: u32,

    /// Coarse counting: share of fingerprint groups in the pilot sample (0 = none).
    #[arg(long, default_value_t = 0.01, value_name = "F")]
    pub pilot: f64,

    /// Sort externally with at most this many bytes of records in memory (suffixes K, M, G),
    /// spilling sorted runs to --tmp-dir; without it the sorts run in memory.
    #[arg(long, value_parser = parse_bytes, value_name = "BYTES")]
    pub mem_limit: Option<usize>,

    /// Folder for spill files (a private subfolder, removed when done or on error).
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,

    /// Folder for overlap, copies, summary.json and report.html.
    #[arg(short, long, default_value = "neardup-overlap", value_name = "DIR")]
    pub out: PathBuf,

    /// Output format of the tables.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: OutFormat,
}

#[derive(Debug, Args)]
pub struct ParagraphsArgs {
    #[command(flatten)]
    pub common: Common,

    /// Do not write report.html.
    #[arg(long)]
    pub no_report: bool,

    /// What is counted and cut: paragraph (runs of non-blank lines) or line.
    #[arg(long, value_name = "UNIT")]
    pub unit: Option<String>,

    /// first-copy (keep the first occurrence in input order, cut the later ones) or boilerplate
    /// (cut every occurrence of a unit held by more than --max-docs documents).
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<String>,

    /// With --policy boilerplate: documents a unit may be in before every copy is cut.
    #[arg(long, value_name = "K")]
    pub max_docs: Option<u32>,

    /// Units shorter than this many characters are never cut (default 30).
    #[arg(long, value_name = "N")]
    pub min_chars: Option<usize>,

    /// Write the cleaned corpus to DIR: one file per input in its own format, the text field
    /// (JSONL) or column (Parquet) replaced, everything else as it was.
    #[arg(long, value_name = "DIR")]
    pub write_clean: Option<PathBuf>,

    /// Memory for the counting sorts (suffixes K, M, G; default 1G); more spills to --tmp-dir.
    #[arg(long, value_parser = parse_bytes, value_name = "BYTES")]
    pub mem_limit: Option<usize>,

    /// Folder for spill files (a private subfolder, removed when done or on error).
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,

    /// Folder for spans, summary.json.
    #[arg(short, long, default_value = "neardup-paragraphs", value_name = "DIR")]
    pub out: PathBuf,

    /// Output format of the spans table.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: OutFormat,
}

#[derive(Debug, Args)]
pub struct DecontaminateArgs {
    #[command(flatten)]
    pub common: Common,

    /// Do not write report.html.
    #[arg(long)]
    pub no_report: bool,

    /// An evaluation set (JSONL or Parquet, one item per record); repeat for several.
    #[arg(long = "eval", value_name = "FILE", required = true)]
    pub eval: Vec<PathBuf>,

    /// The evaluation sets' text field.
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub eval_text_field: String,

    /// The evaluation sets' id field (an item without one is named by its record number).
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub eval_id_field: String,

    /// Words per n-gram (default 13, as the GPT-3 paper).
    #[arg(long, value_name = "N")]
    pub ngram: Option<usize>,

    /// With --write-clean: report (nothing changed), cut (each span and its margin removed) or
    /// drop (each contaminated document left out).
    #[arg(long, value_name = "ACTION", default_value = "cut")]
    pub action: String,

    /// Characters removed on each side of a span with --action cut (default 200), widened to
    /// whole words.
    #[arg(long, value_name = "CHARS")]
    pub margin: Option<usize>,

    /// Write the corpus again to DIR with --action applied, one file per input in its format.
    #[arg(long, value_name = "DIR")]
    pub write_clean: Option<PathBuf>,

    /// Folder for contamination, summary.json.
    #[arg(
        short,
        long,
        default_value = "neardup-contamination",
        value_name = "DIR"
    )]
    pub out: PathBuf,

    /// Output format of the contamination table.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: OutFormat,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Do not write report.html (nor, for dedup, the samples table its side-by-side views
    /// come from, which reads the largest clusters' pages a second time).
    #[arg(long)]
    pub no_report: bool,

    /// Labelled pairs: CSV with a header holding url_a, url_b, label (1/0) and optionally kind;
    /// or labelled site pairs: host_a, host_b, replica (1/0), kind (paper 001's metrics for a
    /// `neardup replicas` run: ROC and AUC, TPR / precision / reduction ratio of duplicate URLs
    /// at fixed false-positive rates, replica detection rate among k + 1 candidates, for the
    /// PU, NU, PU+NU and NormPaths rankings; candidates not in the labels count as non-replicas).
    #[arg(long, value_name = "LABELS.csv")]
    pub truth: PathBuf,

    /// Replace existing output files that neardup did not write (never an input).
    #[arg(long)]
    pub force: bool,

    /// A `pairs` or `clusters` file written by `neardup dedup` (JSONL or CSV), or with site
    /// labels the output folder (or replicas table) of `neardup replicas`.
    #[arg(long, value_name = "FILE")]
    pub pred: PathBuf,

    /// The score the precision-recall curve runs over (pairs files only).
    #[arg(long, default_value = "estimated_jaccard", value_name = "COLUMN")]
    pub score: String,

    /// Folder for pr.csv, pr.svg, eval.json and report.html.
    #[arg(short, long, default_value = "neardup-eval", value_name = "DIR")]
    pub out: PathBuf,

    /// The crawl the prediction was made from: enables term differences.
    #[arg(long, value_name = "INPUT", num_args = 1..)]
    pub crawl: Vec<PathBuf>,

    /// What "the same site" means (default: Henzinger's rule).
    #[arg(long, value_parser = choice::<SiteRule>(), value_name = "RULE")]
    pub site: Option<SiteRule>,

    /// At most this many predicted pairs are diffed for term differences.
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub max_diffs: usize,

    /// With --crawl: sketch the labelled pages and draw the precision-recall curve of every
    /// score (estimated Jaccard, B-similarity, C-similarity, exact Jaccard) over all labelled
    /// pairs, whatever a dedup run accepted (curves.csv, curves.svg, break-even of each).
    #[arg(long, requires = "crawl")]
    pub curves: bool,

    /// With --curves: the RP tolerances D of the rp-hm curves (each curve fixes D and varies
    /// C, as the paper's Figure 1); default: the 80th, 90th, 95th, 98th and 99th percentiles of
    /// the RP distance over the positive labelled pairs.
    #[arg(long, value_delimiter = ',', value_name = "D,D,...")]
    pub rp_tol_grid: Vec<f64>,

    #[command(flatten)]
    pub rp_hm: RpHmFlags,

    #[command(flatten)]
    pub sketch: SketchFlags,
}

/// How RP and HM signatures are derived from the stored projections and outlinks.
#[derive(Debug, Args)]
pub struct RpHmFlags {
    /// rp-hm: how signatures are scaled to [0, 1]. `fixed`: by bounds that hold for any page
    /// (RP of relative frequencies from [-1, 1]; HM averaging children), so --rp-tol and
    /// --hm-tol mean the same on every crawl; `collection`: the paper's min-max over the
    /// collection and division by the largest HM value.
    #[arg(long, value_parser = choice::<Scaling>(), value_name = "SCALING")]
    pub rp_hm_scaling: Option<Scaling>,

    /// rp-hm: term weights of the bag of words before projection.
    #[arg(long, value_parser = choice::<TermWeights>(), value_name = "WEIGHTS")]
    pub rp_weights: Option<TermWeights>,

    /// rp-hm: damping factor gamma of the hyperlink map.
    #[arg(long, value_name = "GAMMA")]
    pub hm_gamma: Option<f64>,

    /// rp-hm: iterations of the hyperlink map (Di Iorio et al.: 3-5).
    #[arg(long, value_name = "N")]
    pub hm_iterations: Option<u32>,
}

impl RpHmFlags {
    /// The hyperlink-map settings: the library's defaults where no flag is given.
    pub fn params(&self) -> neardup_dedup::rphm::HmParams {
        neardup_dedup::rphm::HmParams::with(
            self.rp_hm_scaling,
            self.rp_weights,
            self.hm_gamma,
            self.hm_iterations,
        )
    }
}

/// Signature parameters (written into every signature file).
#[derive(Debug, Args)]
pub struct SketchFlags {
    /// Words per shingle (k): 5 as in Fetterly et al., 8 as in Henzinger.
    #[arg(short = 'k', long = "shingle-words", value_name = "K")]
    pub k: Option<u32>,

    /// Do not wrap the shingle window around the end of the page (Henzinger's variant).
    #[arg(long)]
    pub no_wrap: bool,

    /// Min-hash functions, i.e. minvalues per page (m).
    #[arg(long = "minhashes", value_name = "M")]
    pub m: Option<u32>,

    /// Pages with at most N distinct shingles keep their shingle set (32-bit fingerprints, no
    /// more room than their minvalues), and two such pages are compared by exact Jaccard
    /// instead of the estimate: small pages are where the estimate errs most. 0 keeps none.
    /// Default: m.
    #[arg(long, value_name = "N")]
    pub exact_sets: Option<u32>,

    /// Minvalues per supershingle (l).
    #[arg(long = "supershingle-size", value_name = "L")]
    pub l: Option<u32>,

    /// Supershingles per page (m'); l x m' must not exceed m.
    #[arg(long, value_name = "N")]
    pub supershingles: Option<u32>,

    /// Seed of every fingerprinting polynomial (same seed and parameters, same signatures).
    #[arg(long, value_name = "SEED")]
    pub seed: Option<u64>,

    /// Bits of the Alg. C simhash (Henzinger: 384; a multiple of 64). Computed when an --algo
    /// needs it (then 384 unless given) or when given; 0 = none.
    #[arg(long, value_name = "BITS")]
    pub simhash_bits: Option<u32>,

    /// Dimensions of the random projection of the bag of words (Di Iorio et al.: 5). Computed
    /// when --algo rp-hm needs it (then 5 unless given) or when given; 0 = none. Signature files
    /// made with it also keep every page's outlinks.
    #[arg(long, value_name = "K")]
    pub rp_dims: Option<u32>,

    /// Which terms of a page the signatures are taken over: its main content (navigation,
    /// headers, footers, sidebars and link lists left out; domain names and the page's own host
    /// and path as one term) or every term, as the papers take them.
    #[arg(long, value_parser = choice::<Content>(), value_name = "WHAT")]
    pub content: Option<Content>,

    /// How the minvalues are drawn: one-permutation hashing densified by re-hashing rounds (one
    /// hash per shingle for pages that fill every bin) or the papers' m independent Rabin functions (m hashes per shingle).
    /// Default: rabin for supershingle matching (--lsh supershingles, combined, split,
    /// evolve), oph otherwise.
    #[arg(long, value_parser = choice::<MinHashFamily>(), value_name = "FAMILY")]
    pub minhash: Option<MinHashFamily>,
}

impl SketchFlags {
    /// What the flags said, for the library to resolve.
    pub fn request(&self) -> SketchRequest {
        SketchRequest {
            shingle_words: self.k,
            wrap: self.no_wrap.then_some(false),
            minhashes: self.m,
            exact_sets: self.exact_sets,
            supershingle_size: self.l,
            supershingles: self.supershingles,
            seed: self.seed,
            simhash_bits: self.simhash_bits,
            rp_dims: self.rp_dims,
            content: self.content,
            minhash: self.minhash,
        }
    }

    /// The validated parameters; the min-hash family is `preferred` unless --minhash says.
    pub fn params_preferring(&self, preferred: MinHashFamily) -> anyhow::Result<SketchParams> {
        Ok(self
            .request()
            .resolve(preferred)
            .map_err(neardup_engine::Error::from)?)
    }

    /// The validated parameters (the default min-hash family unless --minhash says).
    pub fn params(&self) -> anyhow::Result<SketchParams> {
        self.params_preferring(SketchParams::default().minhash)
    }
}

#[derive(Debug, Args)]
pub struct SketchArgs {
    #[command(flatten)]
    pub common: Common,

    #[command(flatten)]
    pub sketch: SketchFlags,

    /// The signature file to write (atomically); its parameters go next to it as FILE.params.json.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Also keep each page's capture print (about 470 bytes: hashes of its bytes, text and
    /// masked text, and its chunks), so `neardup changes` can read the file as a crawl's
    /// captures. With --every-status, redirects and 404s are kept too (gone and moved).
    #[arg(long)]
    pub prints: bool,
}

fn parse_jaccard(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!("{s:?}: expected a Jaccard similarity in (0, 1]")),
    }
}

/// Boilerplate detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BoilerplateArg {
    /// Every shingle counts.
    None,
    /// Shingles on more than --boilerplate-fraction of their host's pages are dropped (one
    /// extra pass over the crawl; counts kept in a fixed-size count-min sketch).
    HostFrequency,
}

/// Boilerplate flags.
#[derive(Debug, Args)]
pub struct BoilerplateFlags {
    /// Host boilerplate detection (Henzinger's proposed fix for same-site false positives).
    #[arg(long, value_enum, default_value = "none")]
    pub boilerplate: BoilerplateArg,

    /// A shingle on more than this share of its host's pages is boilerplate.
    #[arg(long, default_value_t = 0.5, value_name = "F")]
    pub boilerplate_fraction: f64,

    /// Hosts with fewer pages are left alone.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub boilerplate_min_host_pages: u32,

    /// Pages at least this share boilerplate are reported (boilerplate table), not clustered.
    #[arg(long, default_value_t = 0.9, value_name = "F")]
    pub boilerplate_page: f64,
}

impl BoilerplateFlags {
    /// The engine settings, `None` when off (the shares are checked by the library).
    pub fn config(&self) -> Option<neardup_engine::boilerplate::BoilerplateConfig> {
        (self.boilerplate != BoilerplateArg::None).then(|| {
            neardup_engine::boilerplate::BoilerplateConfig {
                fraction: self.boilerplate_fraction,
                min_host_pages: self.boilerplate_min_host_pages,
                mostly: self.boilerplate_page,
                ..Default::default()
            }
        })
    }
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    Jsonl,
    Csv,
    Parquet,
}

impl From<OutFormat> for neardup_report::Format {
    fn from(f: OutFormat) -> neardup_report::Format {
        match f {
            OutFormat::Jsonl => neardup_report::Format::Jsonl,
            OutFormat::Csv => neardup_report::Format::Csv,
            OutFormat::Parquet => neardup_report::Format::Parquet,
        }
    }
}

#[derive(Debug, Args)]
pub struct ChangesArgs {
    #[command(flatten)]
    pub common: Common,

    /// Write every capture's line (URL, date, file, offset, digest, status, change, rule,
    /// chunks differing, Jaccard, the date compared with) as JSONL to FILE (`-` for standard
    /// output). Written atomically.
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,

    /// Write each URL's next visit (from its history of text changes: Cho and
    /// Garcia-Molina's rate estimate; the date, the interval and the reason) as JSONL to FILE
    /// (`-` for standard output). Written atomically.
    #[arg(long, value_name = "FILE")]
    pub schedule: Option<PathBuf>,

    /// The schedule visits a URL again when its text has changed with at least this
    /// probability (lower: more fetches, fewer changes missed). A URL's own history is joined
    /// by two pseudo intervals of its host's share of changes, so a quiet page is visited
    /// less often but still visited.
    #[arg(long, default_value_t = neardup_engine::changes::ScheduleConfig::default().change_probability, value_name = "P")]
    pub change_probability: f64,

    /// Write the summary (counts per change, the schedule's settings and its hold-out check)
    /// as JSON to FILE (`-` for standard output). Written atomically.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Print this URL's timeline.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub common: Common,

    /// Also write the whole audit (every unresolvable revisit, every revisit missing a
    /// header, the longest chains, the largest repeated payloads, every host) as JSON to FILE
    /// (`-` for standard output). Written atomically.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// How many hosts and examples of each finding to list in the human summary.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    #[command(flatten)]
    pub common: Common,

    /// Also write the report as JSON to this file (`-` for standard output). Written atomically.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// How many hosts, content types, problems to list in the human summary.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
}

/// Input format names for `--input-format`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    Warc,
    Arc,
    HtmlDir,
    Jsonl,
    Parquet,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Warc => Format::Warc,
            FormatArg::Arc => Format::Arc,
            FormatArg::HtmlDir => Format::HtmlDir,
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Parquet => Format::Parquet,
        }
    }
}

/// Flags shared by every command that reads crawls.
#[derive(Clone, Debug, Args)]
pub struct Common {
    /// Crawl files or folders: WARC (.warc, .warc.gz, .warc.zst), ARC (.arc, .arc.gz), JSONL
    /// (.jsonl, .jsonl.gz, .jsonl.zst), Parquet, or a folder. A folder holding crawl files is
    /// read file by file; any other folder is read as HTML files (see --base-url). `-` is
    /// standard input: WARC, ARC or JSONL, plain or compressed, read once as it comes.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Force the input format instead of detecting it from the name and first bytes.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<FormatArg>,

    /// URL prefix for a folder of HTML files: DIR/a/b.html becomes BASE/a/b.html.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// JSONL/Parquet field holding the page URL.
    #[arg(long, default_value = "url", value_name = "NAME")]
    pub url_field: String,

    /// JSONL/Parquet field holding HTML (tokenized as HTML).
    #[arg(long, default_value = "html", value_name = "NAME")]
    pub html_field: String,

    /// JSONL/Parquet field holding plain text (used when the HTML field is absent).
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_field: String,

    /// JSONL/Parquet field holding your own id, carried through to every output.
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,

    /// Skip (and count) records larger than this many bytes, compressed bodies included
    /// (suffixes K, M, G, T or KiB, MiB, GiB, TiB: powers of 1024; KB, MB, GB: powers of 1000).
    #[arg(long, default_value = "64MiB", value_parser = parse_bytes_u64, value_name = "BYTES")]
    pub max_record_bytes: u64,

    /// Stop with exit code 3 at the first malformed record instead of skipping it.
    #[arg(long)]
    pub strict: bool,

    /// Resolve and count outlinks (slower: a URL parse per link).
    #[arg(long)]
    pub links: bool,

    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(short = 'j', long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub threads: Option<usize>,

    /// Replace existing output files that neardup did not write (never an input).
    #[arg(long)]
    pub force: bool,

    /// Accept a run that reads no page (otherwise exit code 4, with the reasons).
    #[arg(long)]
    pub allow_empty: bool,

    /// Treat every response as a page, whatever its HTTP status. By default only 200 responses
    /// are pages (and records without a status: resource records, dataset rows, files);
    /// redirects, errors, meta-refresh redirects and soft 404s are counted by status, never
    /// clustered.
    #[arg(long)]
    pub every_status: bool,
}

/// A share between 0 and 1, or `off` (`None`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShareOrOff(pub Option<f64>);

/// A setting chosen by name: the library's names ([`Choice`]), listed in `--help`.
fn choice<T: Choice + Send + Sync>() -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(T::names())
        .map(|s| T::parse(&s).expect("clap checked the name"))
}

fn parse_level(s: &str) -> Result<Level, String> {
    Level::parse(s).map_err(|e| e.to_string())
}

fn parse_share_or_off(s: &str) -> Result<ShareOrOff, String> {
    if s.eq_ignore_ascii_case("off") {
        return Ok(ShareOrOff(None));
    }
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(ShareOrOff(Some(v))),
        _ => Err(format!("{s:?}: expected a share between 0 and 1, or off")),
    }
}

/// `-v` given on the command line (set once by `main`): every command then keeps and prints
/// every kept example of a skipped record.
pub static VERBOSE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// `-q` given on the command line (set once by `main`): warnings are not printed.
pub static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Common {
    /// Resolves the flags into pipeline settings.
    pub fn pipeline(&self) -> PipelineConfig {
        let mut cfg = PipelineConfig::default();
        if VERBOSE.load(std::sync::atomic::Ordering::Relaxed) > 0 {
            cfg.skipped_examples = neardup_ingest::MAX_EXAMPLES;
        }
        if let Some(t) = self.threads {
            cfg.threads = t.max(1);
        }
        cfg.allow_empty = self.allow_empty;
        cfg.every_status = self.every_status;
        cfg.read = ReadOptions {
            max_record_bytes: self.max_record_bytes,
            strict: self.strict,
            fields: FieldMap {
                url: self.url_field.clone(),
                html: self.html_field.clone(),
                text: self.text_field.clone(),
                id: self.id_field.clone(),
            },
            base_url: self.base_url.clone(),
            ..ReadOptions::default()
        };
        cfg.tokenizer = TokenizerConfig {
            links: self.links,
            ..TokenizerConfig::default()
        };
        cfg
    }
}

/// Parses a byte count: a number with an optional suffix: K, M, G, T or KiB, MiB, GiB, TiB
/// (powers of 1024), KB, MB, GB, TB (powers of 1000); case-insensitive, `B` alone allowed.
pub fn parse_bytes_u64(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "ki" | "kib" => 1 << 10,
        "m" | "mi" | "mib" => 1 << 20,
        "g" | "gi" | "gib" => 1 << 30,
        "t" | "ti" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => 0,
    };
    num.parse::<u64>()
        .ok()
        .filter(|_| mult > 0)
        .and_then(|n| n.checked_mul(mult))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{s:?}: expected a positive byte count such as 64M, 64MiB or 1G"))
}

/// [`parse_bytes_u64`] for sizes held in memory.
pub fn parse_bytes(s: &str) -> Result<usize, String> {
    let n = parse_bytes_u64(s)?;
    usize::try_from(n).map_err(|_| format!("{s:?}: larger than this machine can address"))
}

/// [`parse_bytes`], or 0 (for a size whose 0 means none, as `serve --cache 0`).
pub fn parse_bytes_or_zero(s: &str) -> Result<usize, String> {
    match s.trim() {
        "0" => Ok(0),
        _ => parse_bytes(s).map_err(|e| format!("{e}, or 0")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_in_every_spelling() {
        for (s, n) in [
            ("64M", 64u64 << 20),
            ("64MiB", 64 << 20),
            ("64mib", 64 << 20),
            ("1G", 1 << 30),
            ("1 GiB", 1 << 30),
            ("500KB", 500_000),
            ("4096", 4096),
            ("2T", 2 << 40),
        ] {
            assert_eq!(parse_bytes_u64(s), Ok(n), "{s}");
        }
        for bad in ["", "M", "0", "-5", "1.5G", "12Q", "99999999999999999999"] {
            assert!(parse_bytes_u64(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_bytes_or_zero(" 0"), Ok(0));
        assert_eq!(parse_bytes_or_zero("1G"), Ok(1 << 30));
        assert!(parse_bytes_or_zero("-0").is_err());
    }
}

/// A flag value the command line cannot use (exit code 2).
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// A usage error.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Usage(message.into()))
}

/// The flag that sets a library setting (the libraries name their options' fields).
fn flag_of(setting: &str) -> String {
    match setting {
        "k" => "-k".into(),
        "m" => "--minhashes".into(),
        "l" => "--supershingle-size".into(),
        "bands" => "--bands x --rows".into(),
        "version" => "the signature version".into(),
        s => format!("--{}", s.replace('_', "-")),
    }
}

/// A library error about settings, said with the flags that set them; `None` for other errors.
pub fn in_flag_words(e: &neardup_engine::Error) -> Option<String> {
    use neardup_engine::dedup::ConfigError;
    use neardup_engine::Error;
    let setting = |s: &str, value: &str, expected: &str| {
        format!("{} {value}: expected {expected}", flag_of(s))
    };
    Some(match e {
        Error::Settings(s) => setting(s.setting, &s.value, &s.expected),
        Error::Params(p) => setting(p.setting, &p.value, &p.expected),
        Error::Config(ConfigError::Setting {
            setting: s,
            value,
            expected,
        }) => setting(s, value, expected),
        Error::Config(ConfigError::MissingSignatures {
            method,
            what,
            param,
        }) => format!("{method} needs {what} (pass {} > 0)", flag_of(param)),
        Error::Ingest(neardup_ingest::IngestError::UnknownFormat { path, .. }) => {
            if path.extension().is_some_and(|x| x == "ndsig") {
                format!("{e} (a damaged signature file? its first bytes are not the signature-file magic)")
            } else {
                format!("{e} (pass --input-format if it is a crawl)")
            }
        }
        Error::Report(r) => return report_in_flag_words(r),
        Error::NothingRead { .. } => format!(
            "{e}. Check the inputs (for JSONL and Parquet, --url-field, --text-field and --html-field name the fields), or pass --allow-empty to accept an empty run"
        ),
        Error::Index(neardup_index::IndexError::AlreadyAdded { .. }) => format!(
            "{e}; pass --again to read it again (records the index holds are still not added twice)"
        ),
        Error::ParamsMismatch { .. } => format!(
            "{e}; pass the same -k/--minhashes/--minhash/--supershingle-size/--supershingles/--seed/--no-wrap/--content"
        ),
        _ => return None,
    })
}

/// An output error, said with the flag that changes it; `None` for other errors.
pub fn report_in_flag_words(e: &neardup_report::ReportError) -> Option<String> {
    match e {
        neardup_report::ReportError::NotOurs { .. } => {
            Some(format!("{e} (pass --force to replace it)"))
        }
        neardup_report::ReportError::FolderNotOurs { .. } => {
            Some(format!("{e} (or pass --force to write beside them)"))
        }
        _ => None,
    }
}

/// `neardup demo DIR`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The folder to write (must not exist, or be empty).
    #[arg(default_value = "neardup-demo")]
    pub dir: PathBuf,
}

/// `neardup report DIR`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The output folder of a dedup, mirrors, evolve, replicas, eval or overlap run.
    pub dir: PathBuf,
    /// A dedup folder's captures link to their replay at this URL template ({timestamp},
    /// {url}; e.g. http://localhost:8080/my-web-archive/{timestamp}/{url} for pywb) instead
    /// of the template the run was given or the live web.
    #[arg(long, value_name = "TEMPLATE")]
    pub replay_url: Option<String>,
}
