//! Catalog records of format 8 and before (read still; written by the tests of that reading):
//! the layout in `catalog.rs`'s header, every field whole.

use super::{CatalogPage, MAX_PRINT_BYTES};
use neardup_text::language::Language;

impl CatalogPage {
    /// The page as a catalog record of format 8 (read still; written by tests of that
    /// reading), replacing `out`'s bytes.
    #[cfg(test)]
    pub(super) fn encode_v8(&self, out: &mut Vec<u8>) {
        out.clear();
        for s in [&self.url, &self.user_id, &self.date, &self.host] {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        out.extend_from_slice(&self.token_hash.to_le_bytes());
        out.extend_from_slice(&self.body_hash.to_le_bytes());
        out.extend_from_slice(&self.payload_sha1);
        out.extend_from_slice(&self.chrome.to_bits().to_le_bytes());
        out.extend_from_slice(&self.tokens.to_le_bytes());
        out.extend_from_slice(&self.shingles.to_le_bytes());
        for v in self.title.iter().chain(&self.minvalues) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(self.shingle_set.len() as u32).to_le_bytes());
        for v in &self.shingle_set {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(self.print.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.print);
        out.extend_from_slice(&self.payload_sha256);
        out.extend_from_slice(&self.language.to_bytes());
    }
}

/// Decodes a record of format 8 or before into `p`; without `names`, its URL, user id, date
/// and capture print are checked but left empty (what scoring does not need).
pub(super) fn decode(
    b: &[u8],
    m: u32,
    p: &mut CatalogPage,
    names: bool,
) -> Result<(), &'static str> {
    let at = std::cell::Cell::new(0usize);
    let take = |n: usize| -> Result<&[u8], &'static str> {
        let from = at.get();
        if b.len() - from < n {
            return Err("the record ends early");
        }
        at.set(from + n);
        Ok(&b[from..from + n])
    };
    let u32_of = |s: &[u8]| u32::from_le_bytes(s.try_into().expect("4"));
    let u64_of = |s: &[u8]| u64::from_le_bytes(s.try_into().expect("8"));
    for (i, s) in [&mut p.url, &mut p.user_id, &mut p.date, &mut p.host]
        .into_iter()
        .enumerate()
    {
        let n = u32_of(take(4)?) as usize;
        let bytes = take(n)?;
        s.clear();
        if names || i == 3 {
            s.push_str(std::str::from_utf8(bytes).map_err(|_| "invalid UTF-8")?);
        }
    }
    p.token_hash = u64_of(take(8)?);
    p.body_hash = u64_of(take(8)?);
    p.payload_sha1 = take(20)?.try_into().expect("20");
    p.chrome = f32::from_bits(u32_of(take(4)?));
    p.tokens = u32_of(take(4)?);
    p.shingles = u32_of(take(4)?);
    for (i, c) in take(16)?.chunks_exact(4).enumerate() {
        p.title[i] = u32_of(c);
    }
    p.minvalues.clear();
    p.minvalues
        .extend(take(4 * m as usize)?.chunks_exact(4).map(u32_of));
    p.minvalue_bits = 32;
    p.set_bits = 32;
    let n = u32_of(take(4)?) as usize;
    p.shingle_set.clear();
    p.shingle_set.extend(
        take(n.checked_mul(4).ok_or("a huge set")?)?
            .chunks_exact(4)
            .map(u32_of),
    );
    p.print.clear();
    // Version 3 records end here.
    if at.get() < b.len() {
        let n = u32_of(take(4)?) as usize;
        if n > MAX_PRINT_BYTES {
            return Err("a capture print longer than 4096 bytes");
        }
        let print = take(n)?;
        // Scoring does not read the print: checked, not copied.
        if names {
            p.print.extend_from_slice(print);
        }
    }
    // Version 4 records end here.
    p.payload_sha256 = [0; 32];
    if at.get() < b.len() {
        p.payload_sha256 = take(32)?.try_into().expect("32");
    }
    // Version 5 records end here.
    p.language = Language::UNKNOWN;
    if at.get() < b.len() {
        p.language = Language::from_bytes(take(3)?.try_into().expect("3"));
    }
    if at.get() != b.len() {
        return Err("unexpected bytes after the record");
    }
    Ok(())
}
