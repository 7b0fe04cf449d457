//! A set of shards: several index folders read and added to as one index, each shard holding
//! whole adds (its pages' catalog records, keys and title counts), page ids global across the
//! set. A lookup is [`Snapshot::matched`] over the shards' segments side by side
//! (`Snapshot::union`): it asks every shard's key segments for the page's band keys, counts
//! and ranks the candidates together, and reads each candidate's record from the shard that
//! holds its id; so a set answers exactly what one index holding the same adds answers.
//!
//! ```text
//! DIR/SHARDS   the set: its shards' folders (relative to DIR, or absolute), replaced atomically
//! DIR/LOCK     held by an add to the set (the set's adds run one at a time)
//! DIR/<shard>  an index folder of its own (MANIFEST, segments, its writer LOCK)
//! ```
//!
//! An add goes whole to the shard holding the fewest pages, numbered from the set's next id
//! (the largest of the shards' next ids), checked against every shard for files and records
//! already added: so it is one shard's commit, all or nothing, and happens once in the set. A
//! crash leaves what a crashed add to one index leaves. Adding to a shard on its own (not
//! through the set) could reuse ids: a set whose shards hold the same ids is refused at open.
//!
//! `SHARDS` (format 1, little-endian):
//!
//! ```text
//! magic      8 bytes  "NDSHARDS"
//! version    u32      1
//! count      u32      shards, at least 1
//! shard      count x (u32 length, UTF-8 folder)
//! checksum   u64      XXH3-64 (seed 0) of every byte before it
//! ```

use crate::{AddOptions, AddReport, IndexError, Manifest, SegmentEntry, Snapshot, WriterLock};
use neardup_pipeline::{Error, Input, Progress};
use std::path::{Path, PathBuf};

/// The set's file in its folder.
pub const SHARDS_FILE: &str = "SHARDS";

const MAGIC: &[u8; 8] = b"NDSHARDS";
const VERSION: u32 = 1;

/// Whether `dir` holds a set of shards.
pub fn is_set(dir: &Path) -> bool {
    dir.join(SHARDS_FILE).exists()
}

/// Creates the set in `dir`: an index in each of `shards` (relative to `dir`, or absolute;
/// each new or empty) made by `create`, then `SHARDS` naming them. Refused, before anything is
/// created, when `dir` already holds an index or a set, when a shard is named twice, or when a
/// shard's folder holds an index or any other file.
pub(crate) fn create(
    dir: &Path,
    shards: &[PathBuf],
    create: impl Fn(&Path) -> Result<(), Error>,
) -> Result<(), Error> {
    let refuse = |what: String| -> Error {
        IndexError::Shards {
            path: dir.to_path_buf(),
            what,
        }
        .into()
    };
    if shards.is_empty() {
        return Err(refuse("a set of shards needs one shard at least".into()));
    }
    for (path, what) in [
        (dir.join(SHARDS_FILE), "a set of shards"),
        (Manifest::path(dir), "an index"),
    ] {
        if path.exists() {
            return Err(refuse(format!("the folder already holds {what}")));
        }
    }
    let mut names = Vec::new();
    for s in shards {
        let name = s.to_str().ok_or_else(|| {
            refuse(format!(
                "{}: a shard's folder must be named in UTF-8",
                s.display()
            ))
        })?;
        if names.contains(&name) {
            return Err(refuse(format!("the shard {name:?} is named twice")));
        }
        names.push(name);
        let at = dir.join(s);
        if at == dir {
            return Err(refuse(format!(
                "the shard {name:?} is the set's own folder"
            )));
        }
        if Manifest::path(&at).exists() || at.join(SHARDS_FILE).exists() {
            return Err(IndexError::Exists { path: at }.into());
        }
        crate::manifest::refuse_others(&at)?;
    }
    let _lock = WriterLock::acquire_creating(dir)?;
    for s in shards {
        create(&dir.join(s))?;
    }
    crate::fsutil::replace(&dir.join(SHARDS_FILE), &encode(&names))?;
    Ok(())
}

/// The shards' folders of the set in `dir`, as `SHARDS` names them, resolved against `dir`.
pub fn open(dir: &Path) -> Result<Vec<PathBuf>, IndexError> {
    let path = dir.join(SHARDS_FILE);
    let bytes = std::fs::read(&path).map_err(|e| IndexError::io(&path, e))?;
    let names =
        decode(&bytes).map_err(|(offset, what)| IndexError::damaged(&path, offset, what))?;
    Ok(names.iter().map(|n| dir.join(n)).collect())
}

fn encode(names: &[&str]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(MAGIC);
    v.extend_from_slice(&VERSION.to_le_bytes());
    v.extend_from_slice(&(names.len() as u32).to_le_bytes());
    for n in names {
        v.extend_from_slice(&(n.len() as u32).to_le_bytes());
        v.extend_from_slice(n.as_bytes());
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&v);
    v.extend_from_slice(&sum.to_le_bytes());
    v
}

/// The folders `SHARDS` names, or the offset and what is wrong.
fn decode(bytes: &[u8]) -> Result<Vec<String>, (u64, String)> {
    let Some(body_len) = bytes.len().checked_sub(8) else {
        return Err((0, "shorter than its checksum".into()));
    };
    let (body, sum) = bytes.split_at(body_len);
    let (want, got) = (
        u64::from_le_bytes(sum.try_into().unwrap_or_default()),
        xxhash_rust::xxh3::xxh3_64(body),
    );
    if want != got {
        return Err((
            body_len as u64,
            format!("checksum mismatch: the file says {want:#018x}, its bytes give {got:#018x} (damaged or truncated)"),
        ));
    }
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], (u64, String)> {
        let s = body
            .get(at..at + n)
            .ok_or((at as u64, "ends early".to_string()))?;
        at += n;
        Ok(s)
    };
    if take(8)? != MAGIC {
        return Err((0, "not a set of shards (no NDSHARDS magic)".into()));
    }
    let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or_default());
    let version = u32_at(take(4)?);
    if version != VERSION {
        return Err((
            8,
            format!("format {version}; this build reads format {VERSION}"),
        ));
    }
    let count = u32_at(take(4)?);
    if count == 0 {
        return Err((12, "names no shard".into()));
    }
    let mut names = Vec::new();
    for _ in 0..count {
        let len = u32_at(take(4)?) as usize;
        let name =
            std::str::from_utf8(take(len)?).map_err(|_| (0, "a name is not UTF-8".into()))?;
        names.push(name.to_string());
    }
    Ok(names)
}

/// The set's manifest, made of its shards' (in the order of `SHARDS`): their parameters, which
/// must agree; the largest next id; a generation that grows with every shard's; every shard's
/// segments (segment `n` of shard `i` named `"i/n"`) and files added.
pub(crate) fn union_manifest(dir: &Path, shards: &[Manifest]) -> Result<Manifest, IndexError> {
    let Some(first) = shards.first() else {
        return Err(IndexError::Shards {
            path: dir.to_path_buf(),
            what: "names no shard".into(),
        });
    };
    let mut m = Manifest {
        generation: 0,
        segments: Vec::new(),
        inputs: Vec::new(),
        ..first.clone()
    };
    for (i, s) in shards.iter().enumerate() {
        if (&s.params, &s.matching, &s.storage) != (&first.params, &first.matching, &first.storage)
        {
            return Err(IndexError::Shards {
                path: dir.to_path_buf(),
                what: format!(
                    "shard {i} was made with other parameters than shard 0 ({} against {}): a \
                     set's shards are made together",
                    s.storage.describe(),
                    first.storage.describe()
                ),
            });
        }
        m.generation += s.generation;
        m.next_page = m.next_page.max(s.next_page);
        (m.segments).extend(s.segments.iter().map(|e| SegmentEntry {
            name: format!("{i}/{}", e.name),
            ..e.clone()
        }));
        m.inputs.extend(s.inputs.iter().cloned());
    }
    Ok(m)
}

/// Each shard's manifest now, in the order of `SHARDS`.
fn manifests(shards: &[PathBuf]) -> Result<Vec<Manifest>, IndexError> {
    shards.iter().map(|s| Manifest::open(s)).collect()
}

/// The set's manifest now ([`union_manifest`] of its shards').
pub(crate) fn manifest(dir: &Path, shards: &[PathBuf]) -> Result<Manifest, IndexError> {
    union_manifest(dir, &manifests(shards)?)
}

/// One snapshot of every shard ([`Snapshot::union`]), each holding up to `cache / shards`
/// bytes of its segments in memory.
pub(crate) fn snapshot(dir: &Path, shards: &[PathBuf], cache: u64) -> Result<Snapshot, IndexError> {
    let each_cache = cache / shards.len().max(1) as u64;
    let each: Vec<Snapshot> = shards
        .iter()
        .map(|s| match each_cache {
            0 => Snapshot::open(s),
            c => Snapshot::open_cached(s, c),
        })
        .collect::<Result<_, _>>()?;
    let manifests: Vec<Manifest> = each.iter().map(|s| s.manifest().clone()).collect();
    Snapshot::union(dir, union_manifest(dir, &manifests)?, each)
}

/// Pages a shard holds (its catalogs' records).
fn pages(m: &Manifest) -> u64 {
    (m.segments.iter())
        .filter(|s| s.is_catalog())
        .map(|s| s.entries)
        .sum()
}

/// Adds `inputs` to the set in `dir`: under the set's lock, to the shard holding the fewest
/// pages (the first of them), with ids from the set's next one, refusing files and leaving
/// out records any shard holds (module doc). The report says which shard took it.
pub(crate) fn add(
    dir: &Path,
    shards: &[PathBuf],
    inputs: &[Input],
    opts: &AddOptions,
    progress: &dyn Progress,
) -> Result<AddReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let each = manifests(shards)?;
    let target = (0..shards.len())
        .min_by_key(|&i| (pages(&each[i]), i))
        .unwrap_or(0);
    // The shards as just read (the set's lock keeps its adds, compactions and removes out).
    let set = Snapshot::union(
        dir,
        union_manifest(dir, &each)?,
        (shards.iter().zip(each))
            .map(|(s, m)| Snapshot::of(s, m))
            .collect::<Result<_, _>>()?,
    )?;
    let mut r = crate::add::add_as_shard(&shards[target], inputs, opts, progress, Some(&set))?;
    r.shard = Some(target);
    Ok(r)
}

/// Checks every shard ([`crate::Index::check`]) and that no two hold the same page id: the
/// shards' counts summed, the set's generation.
pub(crate) fn check(dir: &Path, shards: &[PathBuf]) -> Result<crate::CheckReport, Error> {
    let mut r = crate::CheckReport::default();
    for s in shards {
        r += crate::maintain::check(s)?;
    }
    snapshot(dir, shards, 0)?;
    Ok(r)
}

/// Compacts every shard in turn under the set's lock (each its own commit; the set's answers
/// never change): the reports summed.
pub(crate) fn compact(dir: &Path, shards: &[PathBuf]) -> Result<crate::MaintainReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let mut r = crate::MaintainReport::default();
    for s in shards {
        r += crate::maintain::compact(s)?;
    }
    Ok(r)
}

/// Removes the crawl `label` from every shard holding some of it, one shard's commit after
/// another under the set's lock: the reports summed. A remove stopped between two shards (a
/// crash) leaves the crawl in the others; run again, it removes it there. A label no shard
/// knows is refused, naming the set's labels.
pub(crate) fn remove(
    dir: &Path,
    shards: &[PathBuf],
    label: &str,
) -> Result<crate::MaintainReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let manifests = manifests(shards)?;
    if !manifests
        .iter()
        .any(|m| crate::maintain::holds_crawl(m, label))
    {
        return Err(crate::maintain::unknown_label(label, &manifests));
    }
    let mut r = crate::MaintainReport::default();
    for (s, m) in shards.iter().zip(&manifests) {
        if crate::maintain::holds_crawl(m, label) {
            r += crate::maintain::remove(s, label)?;
        }
    }
    Ok(r)
}

/// What a set of shards does not run yet, refused by name.
pub(crate) fn not_for_sets(dir: &Path, what: &str) -> Error {
    IndexError::Shards {
        path: dir.to_path_buf(),
        what: format!("{what} is not built for a set of shards yet"),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_file_round_trips_and_names_damage() {
        let names = ["shard-0", "/mnt/b/shard-1"];
        let bytes = encode(&names);
        assert_eq!(decode(&bytes).unwrap(), names);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            assert!(decode(&b).is_err(), "flip at {at}");
        }
        assert!(decode(&encode(&[])).unwrap_err().1.contains("no shard"));
    }
}
