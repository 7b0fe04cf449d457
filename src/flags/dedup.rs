//! The flags of `neardup dedup`, the main job, and the help text that states its defaults.

use super::{
    choice, parse_bytes, parse_level, parse_share_or_off, BoilerplateFlags, Common, OutFormat,
    RpHmFlags, ShareOrOff, SketchFlags, EXIT_CODES,
};
use clap::Args;
use neardup_cluster::Keep;
use neardup_dedup::{Algo, Choice as _, ClusterMode, DedupRequest, Level, Lsh, SiteRule};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Do not write report.html (nor, for dedup, the samples table its side-by-side views
    /// come from, which reads the largest clusters' pages a second time).
    #[arg(long)]
    pub no_report: bool,

    /// Link each capture in report.html to its replay instead of the live web: a URL template
    /// with {timestamp} (the capture's 14-digit date) and {url}, as pywb and the Wayback
    /// Machine take them (http://localhost:8080/my-coll/{timestamp}/{url}).
    #[arg(long, value_name = "TEMPLATE")]
    pub replay_url: Option<String>,

    /// Write the kept corpus to DIR: every record of the (JSONL or Parquet) inputs the run did
    /// not remove, byte for byte, in input order, one file per input in its own format and
    /// compression (several inputs keep their paths below the folder they share).
    #[arg(long, value_name = "DIR", conflicts_with = "index")]
    pub write_kept: Option<PathBuf>,

    /// A reference input (an earlier dump, repeatable): read and matched like the others, never
    /// written by --write-kept, and a cluster holding one of its pages keeps that page, so every
    /// copy of it in the other inputs is removed (each with its evidence against it).
    #[arg(long, value_name = "PATH", conflicts_with = "index")]
    pub reference: Vec<PathBuf>,

    /// Explain why two pages matched or did not, instead of writing the run's tables: the
    /// run is made as without it (the same signatures, site names and clusters), then the
    /// pair is judged rule by rule beside the texts that were compared (each page's terms as
    /// its signatures took them, and the chrome left out). The first page of each URL in
    /// input order.
    #[arg(long, num_args = 2, value_names = ["URL_A", "URL_B"], conflicts_with_all = ["index", "write_kept"])]
    pub explain: Option<Vec<String>>,

    /// With --explain: also write the explanation as JSON to FILE (`-` for standard output,
    /// then the text is not printed). Written atomically.
    #[arg(long, value_name = "FILE", requires = "explain")]
    pub json: Option<PathBuf>,

    /// With --write-kept: each kept record gains neardup_cluster_size (1 when in no cluster)
    /// and neardup_removed_copies (JSONL fields at the object's end, Parquet UInt64 columns).
    #[arg(long, requires = "write_kept")]
    pub kept_counts: bool,

    /// With --write-kept: each kept record gains neardup_language, its language (ISO 639-3;
    /// und when its text says too little), as the clusters table and summary give it.
    #[arg(long, requires = "write_kept")]
    pub kept_language: bool,

    #[command(flatten)]
    pub common: Common,

    #[command(flatten)]
    pub sketch: SketchFlags,

    /// Folder for the output files and report.html (created if missing; our files in it are
    /// replaced atomically).
    #[arg(short, long, default_value = "neardup-out", value_name = "DIR")]
    pub out: PathBuf,

    /// Output format of the tables.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: OutFormat,

    /// Match level of supershingle matching: very-similar (B-similarity >= 2),
    /// virtually-identical (all supershingles agree), or a B-similarity number.
    #[arg(long, value_parser = parse_level, value_name = "LEVEL")]
    pub level: Option<Level>,

    /// The algorithm: shingles (Alg. B), simhash (Alg. C), combined, split (paper 003), rp-hm
    /// (paper 000).
    #[arg(long, value_parser = choice::<Algo>(), value_name = "ALGO")]
    pub algo: Option<Algo>,

    /// Candidate generation for --algo shingles: LSH bands over the minvalues, or
    /// supershingle combinations (the paper's exact B-similarity semantics).
    #[arg(long, value_parser = choice::<Lsh>(), value_name = "LSH")]
    pub lsh: Option<Lsh>,

    /// Alg. C threshold: agreeing simhash bits (Henzinger: 372 of 384); also the different-site
    /// threshold of --algo split.
    #[arg(long, value_name = "BITS")]
    pub c_threshold: Option<u32>,

    /// C-similarity threshold of the combined algorithm (Henzinger: 355 of 384).
    #[arg(long, value_name = "BITS")]
    pub combined_c_threshold: Option<u32>,

    /// Blocks the simhash is cut into for candidate tables (default: distance + 1, the fewest
    /// tables; more blocks = more tables, fewer pairs examined).
    #[arg(long, value_name = "N")]
    pub simhash_blocks: Option<u32>,

    /// --algo rp-hm: D, the L-infinity tolerance on the random-projection signatures (each
    /// component in [0, 1], see --rp-hm-scaling) [default: 0.0096 fixed, 0.023 collection].
    #[arg(long, value_name = "D")]
    pub rp_tol: Option<f64>,

    /// --algo rp-hm: C, the L-infinity tolerance on the hyperlink-map signatures; 1 = RP only
    /// [default: 0.0068 fixed, 0.00006 collection].
    #[arg(long, value_name = "C")]
    pub hm_tol: Option<f64>,

    #[command(flatten)]
    pub rp_hm: RpHmFlags,

    /// What "the same site" means (--algo split, same_site in the outputs): Henzinger's rule
    /// (the host minus its first label when it has three or more) or the registered domain.
    #[arg(long, value_parser = choice::<SiteRule>(), value_name = "RULE")]
    pub site: Option<SiteRule>,

    #[command(flatten)]
    pub boilerplate: BoilerplateFlags,

    /// Jaccard threshold: chooses the bands with --lsh bands, and the cut of --verify.
    #[arg(long, value_name = "J")]
    pub threshold: Option<f64>,

    /// Also accept a pair when the smaller page's estimated share found in the larger reaches
    /// C and their estimated Jaccard is at least 0.4 (a print view in its article, a copy
    /// missing a sentence); `off` for Jaccard only. On with the default matching (--algo
    /// shingles --lsh bands), off with the papers' methods (defaults below).
    #[arg(long, value_parser = parse_share_or_off, value_name = "C|off")]
    pub containment: Option<ShareOrOff>,

    /// Reject a pair whose titles name different items (site names set aside: two pages of one
    /// template), or one item in two scripts (a translation), unless its estimated Jaccard
    /// reaches J; a pair whose titles name the same item (versions and release names set
    /// aside) is also accepted at Jaccard 0.5, or containment 0.75 with Jaccard 0.2, or when
    /// the two share a passage of 40 shingles making up 0.4 of the smaller page. `off` to
    /// ignore titles. On with the default matching (--algo shingles --lsh bands), off with the
    /// papers' methods.
    #[arg(long, value_parser = parse_share_or_off, value_name = "J|off")]
    pub different_titles_need: Option<ShareOrOff>,

    /// Force the number of bands (with --rows) instead of choosing them from --threshold.
    #[arg(long, requires = "rows", value_name = "B")]
    pub bands: Option<u32>,

    /// Rows per band (with --bands).
    #[arg(long, requires = "bands", value_name = "R")]
    pub rows: Option<u32>,

    /// Recompute the exact Jaccard of the two shingle sets of every matched pair and drop pairs
    /// below --threshold, whatever rule accepted them: pairs only the containment or
    /// same-title rules accepted (a page holding most of another, Jaccard under the threshold)
    /// are dropped too (keeps every page's shingle set in memory;
    /// needs crawl inputs).
    #[arg(long)]
    pub verify: bool,

    /// Match pages only within one language (each page's language is detected from its
    /// text): every language deduplicated apart, as FineWeb2 does.
    #[arg(long)]
    pub per_language: bool,

    /// How clusters form: union-find (transitive) or star (every member matches the canonical
    /// page; guards against chaining through shared templates). Default: union-find, except
    /// star for --algo rp-hm, whose box tolerances chain badly under union-find.
    #[arg(long, value_parser = choice::<ClusterMode>(), value_name = "MODE")]
    pub cluster: Option<ClusterMode>,

    /// Which page of a cluster to keep: the first in input order, the shortest URL, the most
    /// terms, the latest fetch date (ties: input order).
    #[arg(long, value_parser = choice::<Keep>(), value_name = "RULE")]
    pub keep: Option<Keep>,

    /// Also write every matched pair with its scores (pairs.jsonl, .csv or .parquet).
    #[arg(long)]
    pub pairs: bool,

    /// At most this many pairs per cluster in the pairs file.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_pairs_per_cluster: usize,

    /// Print cluster statistics: size distribution with a fitted power-law exponent, the largest
    /// clusters (URLs, hosts, IPs), and the replicas-per-page histogram.
    #[arg(long)]
    pub stats: bool,

    /// Deduplicate against the persistent index in DIR (`neardup index create`): the new pages
    /// against every indexed page and among themselves, clustered with the pairs earlier
    /// `--add-as` runs recorded, with the index's parameters and matching (so its signature
    /// and matching flags cannot be given). Writes clusters (every page of every cluster
    /// holding a new page: its crawl, the cluster's first page, a new page's best match and
    /// the evidence) and summary.json.
    #[arg(long, value_name = "DIR", conflicts_with_all = [
        "k", "no_wrap", "m", "exact_sets", "l", "supershingles", "seed", "simhash_bits",
        "rp_dims", "content", "minhash", "level", "algo", "lsh", "c_threshold",
        "combined_c_threshold", "simhash_blocks", "rp_tol", "hm_tol", "site", "boilerplate",
        "threshold", "containment", "different_titles_need", "bands", "rows", "verify",
        "cluster", "keep", "pairs", "stats", "rp_hm_scaling", "rp_weights", "hm_gamma",
        "hm_iterations",
    ])]
    pub index: Option<PathBuf>,

    /// With --index: add the pages, and the pairs found, to the index under this crawl label
    /// (one commit: all of it or, after a crash, none).
    #[arg(long, value_name = "LABEL", requires = "index")]
    pub add_as: Option<String>,

    /// With --add-as: leave the segments as the add wrote them. By default, once the add has
    /// committed, the newest key segments are merged in tiers when there are too many, as
    /// `index add` does (`index compact` merges all).
    #[arg(long, requires = "add_as")]
    pub no_merge: bool,

    /// With --add-as: read inputs the index records as added before (refused otherwise);
    /// records the index already holds are still not added twice.
    #[arg(long, requires = "add_as")]
    pub again: bool,

    /// With --index: bytes of pages, keys and pairs held in memory at most (suffixes K, M,
    /// G; default 2G; about: the read batches and 20 bytes per page id for the clusters come
    /// on top); the rest waits in sorted runs on disk, so any number of pages runs within it.
    #[arg(long, value_parser = parse_bytes, value_name = "BYTES", requires = "index")]
    pub mem_limit: Option<usize>,

    /// With --index and without --add-as: the folder for the run's pages and sorted runs (a
    /// private subfolder, removed when done); with --add-as they go in the index folder.
    #[arg(long, value_name = "DIR", requires = "index")]
    pub tmp_dir: Option<PathBuf>,

    /// How many of the largest clusters to list.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
}

/// `neardup dedup --help`'s description; what it says of the defaults comes from
/// [`DedupRequest::resolve`].
pub(super) fn dedup_about() -> String {
    let matching = DedupRequest::default()
        .resolve()
        .map(|r| {
            format!(
                "{}; {}",
                r.config.matching.describe(&r.params, r.config.threshold, 0),
                r.config.describe_acceptance()
            )
        })
        .unwrap_or_default();
    format!(
        "Find the near-duplicate pages of a crawl, cluster them, and say which to keep.

Pages are tokenized (Henzinger), shingled (k-word windows) and reduced to min-hash signatures
(Fetterly, Manasse, Najork 2004; Henzinger 2006 Alg. B). By default: {matching}. Pages with the
same token sequence are grouped first. --lsh supershingles runs the paper's rule (at least 2
of the supershingles agree: very similar; all: virtually identical); --algo picks paper 003's
and paper 000's other methods. Every output row carries its evidence: the rule and every score.

INPUT may also be signature files written by `neardup sketch`, so a crawl is read once and new
crawls can be compared with old signatures. With no INPUT, runs on the sample crawl in
data/sample/.

Writes to --out DIR: clusters, remove (pages to drop, one kept per cluster), pairs (with
--pairs), byte-identical, samples (the report's side-by-side views), summary.json and
report.html (open it in a browser)."
    )
}

/// The defaults of `neardup dedup`, as [`DedupRequest::resolve`] gives them, then the exit
/// codes.
pub(super) fn dedup_defaults() -> String {
    let text = match DedupRequest::default().resolve() {
        Ok(r) => {
            let p = &r.params;
            let c = &r.config;
            let share = |v: Option<f64>| v.map_or("off".to_string(), |v| v.to_string());
            format!(
                "DEFAULTS:\n  -k {} --minhashes {} --supershingle-size {} --supershingles {} --content {} \
                 --minhash {}\n  --threshold {} --containment {} --different-titles-need {} \
                 --keep {} --cluster {} --site {}\n  (--containment and --different-titles-need \
                 are off with --lsh supershingles and --algo other than shingles)\n\n",
                p.k,
                p.m,
                p.l,
                p.supershingles,
                p.content.name(),
                p.minhash.name(),
                c.threshold,
                share(c.containment),
                share(c.different_titles_need),
                c.keep.name(),
                c.cluster.name(),
                c.site.name(),
            )
        }
        Err(e) => format!("DEFAULTS: {e}\n\n"),
    };
    text + EXIT_CODES
}

impl DedupArgs {
    /// What the flags said, for the library to resolve ([`DedupRequest::resolve`]).
    pub fn request(&self) -> DedupRequest {
        DedupRequest {
            sketch: self.sketch.request(),
            algo: self.algo,
            lsh: self.lsh,
            level: self.level,
            threshold: self.threshold,
            containment: self.containment.map(|c| c.0),
            different_titles_need: self.different_titles_need.map(|c| c.0),
            bands: self.bands,
            rows: self.rows,
            verify: self.verify.then_some(true),
            per_language: self.per_language.then_some(true),
            cluster: self.cluster,
            keep: self.keep,
            site: self.site,
            c_threshold: self.c_threshold,
            combined_c_threshold: self.combined_c_threshold,
            simhash_blocks: self.simhash_blocks,
            rp_tol: self.rp_tol,
            hm_tol: self.hm_tol,
            rp_hm_scaling: self.rp_hm.rp_hm_scaling,
            rp_weights: self.rp_hm.rp_weights,
            hm_gamma: self.rp_hm.hm_gamma,
            hm_iterations: self.rp_hm.hm_iterations,
        }
    }
}
