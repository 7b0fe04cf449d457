//! Command-line flags, parsed in two steps (as ripgrep does): clap fills the raw structs below,
//! then [`Common::pipeline`] resolves them into library settings. No library crate sees clap.

use clap::{Args, Parser, Subcommand, ValueEnum};
use neardup_engine::PipelineConfig;
use neardup_ingest::{FieldMap, Format, ReadOptions};
use neardup_text::TokenizerConfig;
use std::path::PathBuf;

const EXIT_CODES: &str = "\
EXIT CODES:
  0  success (skipped malformed records are reported in the summary, not an error)
  1  error: an input could not be opened or read, an output could not be written
  2  usage error: bad flags or arguments
  3  malformed input with --strict: the first bad record stops the run";

/// neardup finds near-duplicate web pages and replicated web sites in web crawls.
#[derive(Debug, Parser)]
#[command(name = "neardup", version, about, after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    /// Print only errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print more detail (every kept example of a skipped record, per-input lines).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read crawls and report what they hold: pages by source, content type, status and host;
    /// bytes; tokens; records skipped and why; throughput.
    ///
    /// With no INPUT, scans the sample crawl committed in data/sample/.
    #[command(after_help = EXIT_CODES)]
    Scan(ScanArgs),
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
#[derive(Debug, Args)]
pub struct Common {
    /// Crawl files or folders: WARC (.warc, .warc.gz, .warc.zst), ARC (.arc, .arc.gz), JSONL
    /// (.jsonl, .jsonl.gz, .jsonl.zst), Parquet, or a folder. A folder holding crawl files is
    /// read file by file; any other folder is read as HTML files (see --base-url).
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

    /// Skip (and count) records larger than this many bytes, compressed bodies included.
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_name = "BYTES")]
    pub max_record_bytes: u64,

    /// Stop with exit code 3 at the first malformed record instead of skipping it.
    #[arg(long)]
    pub strict: bool,

    /// Resolve and count outlinks (slower: a URL parse per link).
    #[arg(long)]
    pub links: bool,

    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
}

impl Common {
    /// Resolves the flags into pipeline settings.
    pub fn pipeline(&self) -> PipelineConfig {
        let mut cfg = PipelineConfig::default();
        if let Some(t) = self.threads {
            cfg.threads = t.max(1);
        }
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
        };
        cfg.tokenizer = TokenizerConfig {
            links: self.links,
            ..TokenizerConfig::default()
        };
        cfg
    }
}
