//! The sample crawl committed in `data/sample/`, built into the binary, and its pages.

use crate::{DemoError, Files};
use neardup_ingest::{Format, Page, ReadOptions};

/// The sample's files: name and bytes, oldest version first.
pub(crate) const FILES: [(&str, &[u8]); 3] = [
    (
        "rustdocs-1.63.0.warc.gz",
        include_bytes!("../../../data/sample/rustdocs-1.63.0.warc.gz"),
    ),
    (
        "rustdocs-stable.warc.gz",
        include_bytes!("../../../data/sample/rustdocs-stable.warc.gz"),
    ),
    (
        "rustdocs-nightly.warc.gz",
        include_bytes!("../../../data/sample/rustdocs-nightly.warc.gz"),
    ),
];

/// The replica crawl of the tests (`tests/fixtures/make_replicas.py`, written by warcio) and its
/// site-pair labels.
pub(crate) const SITES: &[u8] = include_bytes!("../../../tests/fixtures/replicas.warc.gz");
pub(crate) const SITE_LABELS: &[u8] = include_bytes!("../../../tests/fixtures/replica-labels.csv");

/// The sample's pages, by version.
pub(crate) struct Sample {
    /// (version, pages in file order): `1.63.0`, `stable`, `nightly`.
    pub versions: Vec<(&'static str, Vec<Page>)>,
}

impl Sample {
    pub(crate) fn read() -> Result<Sample, DemoError> {
        let mut versions = Vec::new();
        for (name, bytes) in FILES {
            let pages = neardup_ingest::pages_of_bytes(
                bytes.to_vec(),
                Format::Warc,
                name,
                &ReadOptions::default(),
            )
            .map_err(|e| DemoError::Sample(e.to_string()))?;
            let version = name
                .trim_start_matches("rustdocs-")
                .trim_end_matches(".warc.gz");
            versions.push((version, pages));
        }
        Ok(Sample { versions })
    }

    /// The pages of one version.
    pub(crate) fn version(&self, v: &str) -> &[Page] {
        self.versions
            .iter()
            .find(|(name, _)| *name == v)
            .map(|(_, p)| p.as_slice())
            .unwrap_or(&[])
    }

    /// The HTML pages of a version answered 200 that are documentation, not redirect stubs.
    pub(crate) fn html(&self, v: &str) -> Vec<&Page> {
        self.version(v).iter().filter(|p| is_doc_page(p)).collect()
    }
}

/// A 200 HTML page with prose (rustdoc's redirect stubs and tiny pages are left out).
pub(crate) fn is_doc_page(p: &Page) -> bool {
    p.status == Some(200)
        && p.mime == "text/html"
        && p.body.len() > 2000
        && !String::from_utf8_lossy(&p.body[..p.body.len().min(2000)])
            .contains("http-equiv=\"refresh\"")
}

/// `crawl/`: the sample as it is committed.
pub(crate) fn write_crawl(files: &mut Files) {
    for (name, bytes) in FILES {
        files.add(&format!("crawl/{name}"), bytes.to_vec());
    }
    files.about(
        "crawl/",
        "the sample crawl: Rust's documentation in three versions (1.63.0, stable, nightly)",
    );
    files.add("sites.warc.gz", SITES.to_vec());
    files.add("site-labels.csv", SITE_LABELS.to_vec());
    files.about(
        "sites.warc.gz",
        "web sites, some replicating others (neardup replicas); site-labels.csv labels their pairs",
    );
}
