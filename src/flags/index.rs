//! The flags of `neardup index ...` and `neardup serve`: the commands over a persistent index.

use super::{
    parse_bytes, parse_bytes_or_zero, parse_jaccard, parse_share_or_off, Common, ShareOrOff,
    SketchFlags, EXIT_CODES,
};
use clap::{Args, Subcommand};
use neardup_dedup::DedupRequest;
use std::path::PathBuf;

/// `neardup index ...`.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Create an empty index in DIR; its signature parameters and threshold are fixed now and
    /// stored with it.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Create(IndexCreateArgs),
    /// Add the pages of crawls to the index (all of them or, after a crash, none).
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Add(IndexAddArgs),
    /// For every page of the inputs, the indexed pages it is a near-duplicate of, with the
    /// crawl each was added with and the evidence (JSONL, one match per line).
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Query(IndexQueryArgs),
    /// The indexed pages whose payload has a SHA-1 digest (exact duplicates, what web
    /// archives' revisit records need): DIGEST as sha1:BASE32 (a WARC-Payload-Digest), BASE32
    /// or 40 hex digits. JSONL, one page per line, oldest first.
    #[command(after_help = EXIT_CODES)]
    Digest(IndexDigestArgs),
    /// One URL's timeline from the index's captures: each capture (crawl label, date, digest,
    /// simhash) with how it changed since the one before (category, rule, chunks, Jaccard,
    /// simhash distance), and when to visit next, as `neardup changes` says it.
    Changes(IndexChangesArgs),
    /// A cluster's members: the held page ID and every held page it matches, in id order, each
    /// with the evidence (what `GET /v1/cluster/{id}` answers; a lookup names a page's
    /// cluster).
    #[command(after_help = EXIT_CODES)]
    Cluster(IndexClusterArgs),
    /// Read every live file of the index whole and check it: checksums, key order, page ids,
    /// sizes against the manifest. The first problem found is named (file, byte, what).
    #[command(after_help = EXIT_CODES)]
    Check(IndexCheckArgs),
    /// What the index holds: parameters, matching, pages, keys, links, bytes, per crawl.
    #[command(after_help = EXIT_CODES)]
    Stats(IndexStatsArgs),
    /// Remove a crawl: its segments leave the index in one commit; its page ids are never
    /// given out again.
    #[command(after_help = EXIT_CODES)]
    Remove(IndexRemoveArgs),
    /// Merge the key segments into one and the link segments into one (dropping entries of
    /// removed crawls); readers are never blocked.
    #[command(after_help = EXIT_CODES)]
    Compact(IndexCheckArgs),
}

#[derive(Debug, Args)]
pub struct IndexDigestArgs {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// Payload digests to look up.
    #[arg(value_name = "DIGEST", required = true)]
    pub digests: Vec<String>,
}

#[derive(Debug, Args)]
pub struct IndexClusterArgs {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// The cluster's page id.
    #[arg(value_name = "ID")]
    pub id: u64,

    /// Members to skip.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub offset: usize,

    /// Members to print at most.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct IndexChangesArgs {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// The URL.
    #[arg(value_name = "URL")]
    pub url: String,

    /// Print JSON (what `GET /v1/changes` answers).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct IndexStatsArgs {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `neardup serve`'s flags. Each default is `ServeConfig::new`'s (the help text names it; a
/// test holds the two together), so a flag left out is `None` and changes nothing.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The index folder.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,

    /// Address to listen on (default: 127.0.0.1:8088; port 0 picks a free one, and the address
    /// is printed).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<std::net::SocketAddr>,

    /// Request bodies larger than this get 413 (suffixes K, M, G; default: 16M).
    #[arg(long, value_parser = parse_bytes, value_name = "BYTES")]
    pub max_body: Option<usize>,

    /// Lookups running at once at most (default: twice the cores); more wait.
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,

    /// Seconds a request may wait for a slot and then run before it gets 503 (default: 10).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Take no writes (403), and hold no lock: an `index add` may run beside the service, whose
    /// snapshot follows every commit within a second.
    #[arg(long)]
    pub read_only: bool,

    /// A file holding the token writes need (`Authorization: Bearer TOKEN`). Without one,
    /// writes are refused unless --listen is a loopback address.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// The crawl label of adds that name none (default: serve).
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,

    /// Index segments held in memory, oldest first, up to this many bytes (suffixes K, M, G;
    /// 0: none; default: 1G; a key segment counts its key filter and decoded runs too): their
    /// lookups make no system call. The rest is read from disk.
    #[arg(long, value_parser = parse_bytes_or_zero, value_name = "BYTES")]
    pub cache: Option<usize>,

    /// Seconds a client may take to send a request's headers (an idle kept-alive connection
    /// too) before its connection is closed (default: 30).
    #[arg(long, value_name = "SECONDS")]
    pub header_timeout: Option<f64>,

    /// Seconds a client may take to send a request's body before it gets 408 (default: 30).
    #[arg(long, value_name = "SECONDS")]
    pub body_timeout: Option<f64>,

    /// Connections open at once at most; one more gets 503 and is closed (the service raises
    /// its open-file limit to fit, as far as the system allows; default: 10000).
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,

    /// Bytes of request bodies held at once over every connection (suffixes K, M, G; never
    /// below --max-body; default: 1G): a body reserves its length (a chunked one --max-body)
    /// before it is read; one that cannot within --timeout gets 503.
    #[arg(long, value_parser = parse_bytes, value_name = "BYTES")]
    pub max_buffered: Option<usize>,
}

#[derive(Debug, Args)]
pub struct IndexRemoveArgs {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// The crawl to remove.
    #[arg(long, value_name = "LABEL", required = true)]
    pub label: String,
}

#[derive(Debug, Args)]
pub struct IndexCheckArgs {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct IndexCreateArgs {
    /// The index folder (created; must not hold an index).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    #[command(flatten)]
    pub sketch: SketchFlags,

    /// Jaccard a match must reach (exact for small pages, else estimated); as dedup's.
    #[arg(long, value_parser = parse_jaccard, value_name = "J")]
    pub threshold: Option<f64>,

    /// Also accept a pair at this estimated containment (with Jaccard >= 0.4), or off; as
    /// dedup's --containment.
    #[arg(long, value_parser = parse_share_or_off, value_name = "SHARE|off")]
    pub containment: Option<ShareOrOff>,

    /// A pair whose titles name different items (site names, learned from every page the
    /// index holds, set aside) needs this Jaccard, or off; as dedup's --different-titles-need.
    #[arg(long, value_parser = parse_share_or_off, value_name = "J|off")]
    pub different_titles_need: Option<ShareOrOff>,

    /// Bits of each minvalue the index keeps: 16 or 32 (b-bit minwise hashing: scores
    /// corrected for chance agreements; fewer bits, smaller pages) [default: 16]
    #[arg(long, value_name = "BITS")]
    pub minvalue_bits: Option<u32>,

    /// Bits of each member of a small page's kept shingle set the index keeps: an even number
    /// from 18 to 32, at least --minvalue-bits (Jaccard of two kept sets taken on those bits;
    /// fewer bits, smaller pages) [default: 22, 32 with 32-bit minvalues]
    #[arg(long, value_name = "BITS")]
    pub set_bits: Option<u32>,

    /// Keep each page's capture print, what `index changes` compares across captures (about a
    /// third of a page's bytes) [default: not kept]
    #[arg(long)]
    pub timelines: bool,

    /// Make a set of N shards in DIR (shard-1 .. shard-N), read and added to as one index:
    /// each add lands whole on the shard holding the fewest pages, every lookup asks them all
    #[arg(long, value_name = "N", conflicts_with = "shard", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub shards: Option<u32>,

    /// Make a set of shards with one in each SHARD (a folder relative to DIR, or absolute: one
    /// on each disk, say); repeat it
    #[arg(long, value_name = "SHARD")]
    pub shard: Vec<PathBuf>,
}

impl IndexCreateArgs {
    /// The shards' folders asked for (none: one index).
    pub fn shard_dirs(&self) -> Vec<PathBuf> {
        match self.shards {
            Some(n) => (1..=n)
                .map(|i| PathBuf::from(format!("shard-{i}")))
                .collect(),
            None => self.shard.clone(),
        }
    }

    /// What each page's record keeps; an error naming a width an index cannot keep.
    pub fn storage(&self) -> anyhow::Result<neardup_index::Storage> {
        neardup_index::Storage::new(
            self.minvalue_bits,
            self.set_bits,
            self.timelines.then_some(true),
        )
        .map_err(anyhow::Error::from)
    }

    /// What the flags said: `dedup`'s request with the index's settings.
    pub fn request(&self) -> DedupRequest {
        DedupRequest {
            sketch: self.sketch.request(),
            threshold: self.threshold,
            containment: self.containment.map(|c| c.0),
            different_titles_need: self.different_titles_need.map(|c| c.0),
            ..DedupRequest::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct IndexAddArgs {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    #[command(flatten)]
    pub common: Common,

    /// The crawl's label, reported with every match of its pages.
    #[arg(long, default_value = "", value_name = "LABEL")]
    pub label: String,

    /// Bytes of sketched pages and keys held in memory at most (suffixes K, M, G; about: the
    /// read batches come on top); more wait in sorted runs inside the index folder, so any
    /// number of pages is added within it.
    #[arg(long, default_value = "2G", value_parser = parse_bytes, value_name = "BYTES")]
    pub mem_limit: usize,

    /// Read inputs the index records as added before (an add of one is refused otherwise);
    /// records the index already holds are still not added twice.
    #[arg(long)]
    pub again: bool,

    /// Leave the segments as the add wrote them. By default, once the add has committed, the
    /// newest key segments are merged in tiers when there are too many (a lookup reads each
    /// once per band), so a crawl added in many batches keeps few; `index compact` merges all.
    #[arg(long)]
    pub no_merge: bool,
}

#[derive(Debug, Args)]
pub struct IndexQueryArgs {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    #[command(flatten)]
    pub common: Common,

    /// Write the matches to FILE (atomically) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Memory for the query at most (suffixes K, M, G): half holds queried pages (more wait
    /// in sorted runs in --tmp-dir so that matches come out in input order), half the
    /// index's segments while they fit (the rest is read from disk by block).
    #[arg(long, default_value = "2G", value_parser = parse_bytes, value_name = "BYTES")]
    pub mem_limit: usize,

    /// Folder for those runs (a private subfolder, removed when done or on error).
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,

    /// Report N matches per page at most, the likeliest first (candidates sharing the most
    /// bands are scored first, and scoring stops at N): far faster for pages with hundreds of
    /// copies. Whether a page matches stays exact. Default: every match.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_matches: Option<u64>,
}
