//! A capture as a store of captures (the index) holds it: what a per-URL timeline is made of.

/// One held capture of a URL: the crawl it was added with, its date, its payload SHA-1
/// (zeros when unknown) and its capture print's bytes (empty when none was kept).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeldCapture {
    /// The crawl it was added with.
    pub label: String,
    /// Its date.
    pub date: String,
    /// Its payload SHA-1 (zeros: unknown).
    pub payload_sha1: [u8; 20],
    /// Its capture print's bytes.
    pub print: Vec<u8>,
}
