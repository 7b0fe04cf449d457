//! External sorting of fixed-size records under a memory limit: records are buffered, sorted
//! and spilled as runs (little-endian files) to a private temporary folder whenever the buffer
//! reaches the limit, then merged k ways (at most [`MAX_FAN_IN`] runs at a time, merging in
//! several passes when there are more). The folder is removed when the sorter or its output
//! iterator is dropped, so also on errors and panics.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Runs merged at once (bounded open files).
pub const MAX_FAN_IN: usize = 64;

/// A record with a fixed little-endian encoding.
pub trait Record: Copy + Ord + Send {
    /// Encoded size in bytes.
    const SIZE: usize;
    /// Writes `SIZE` bytes.
    fn encode(&self, out: &mut [u8]);
    /// Reads `SIZE` bytes.
    fn decode(b: &[u8]) -> Self;
}

impl Record for u64 {
    const SIZE: usize = 8;
    fn encode(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
}

impl Record for (u64, u64) {
    const SIZE: usize = 16;
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.0.to_le_bytes());
        out[8..].copy_from_slice(&self.1.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        (
            u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(b[8..].try_into().expect("8 bytes")),
        )
    }
}

impl Record for (u64, u32) {
    const SIZE: usize = 12;
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.0.to_le_bytes());
        out[8..].copy_from_slice(&self.1.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        (
            u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            u32::from_le_bytes(b[8..].try_into().expect("4 bytes")),
        )
    }
}

/// Sorts any number of records with at most `mem_limit` bytes of them in memory.
pub struct ExternalSorter<T: Record> {
    buf: Vec<T>,
    cap: usize,
    dir: Option<tempfile::TempDir>,
    parent: PathBuf,
    runs: Vec<PathBuf>,
    spilled_bytes: u64,
}

impl<T: Record> ExternalSorter<T> {
    /// A sorter keeping at most `mem_limit` bytes of records in memory; spill files go to a new
    /// folder inside `tmp`.
    pub fn new(mem_limit: usize, tmp: &Path) -> ExternalSorter<T> {
        let cap = (mem_limit / std::mem::size_of::<T>().max(1)).max(1);
        ExternalSorter {
            buf: Vec::new(),
            cap,
            dir: None,
            parent: tmp.to_path_buf(),
            runs: Vec::new(),
            spilled_bytes: 0,
        }
    }

    /// Adds a record.
    pub fn push(&mut self, r: T) -> io::Result<()> {
        if self.buf.capacity() == 0 {
            // Exactly the limit (a doubling vector could reach twice it); pages never
            // written to are never resident.
            self.buf.reserve_exact(self.cap);
        }
        self.buf.push(r);
        if self.buf.len() >= self.cap {
            self.spill()?;
        }
        Ok(())
    }

    /// Number of run files written so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Bytes written to spill files.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled_bytes
    }

    fn dir(&mut self) -> io::Result<PathBuf> {
        if self.dir.is_none() {
            self.dir = Some(
                tempfile::Builder::new()
                    .prefix("neardup-sort-")
                    .tempdir_in(&self.parent)?,
            );
        }
        Ok(self.dir.as_ref().expect("just set").path().to_path_buf())
    }

    fn spill(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.buf.sort_unstable();
        let path = self.dir()?.join(format!("run-{}", self.runs.len()));
        write_run(&path, self.buf.iter().copied())?;
        self.spilled_bytes += (self.buf.len() * T::SIZE) as u64;
        self.runs.push(path);
        self.buf.clear();
        Ok(())
    }

    /// Finishes: the records in sorted order (duplicates kept).
    pub fn finish(mut self) -> io::Result<Sorted<T>> {
        if self.runs.is_empty() {
            self.buf.sort_unstable();
            let buf = std::mem::take(&mut self.buf);
            return Ok(Sorted {
                mem: buf.into_iter(),
                heap: BinaryHeap::new(),
                readers: Vec::new(),
                _dir: None,
            });
        }
        self.spill()?;
        // Merge in passes until a single merge of at most MAX_FAN_IN runs is left.
        let mut n = self.runs.len();
        while self.runs.len() > MAX_FAN_IN {
            let group: Vec<PathBuf> = self.runs.drain(..MAX_FAN_IN).collect();
            let path = self.dir()?.join(format!("run-{n}"));
            n += 1;
            merge_into::<T>(&group, &path)?;
            for g in &group {
                std::fs::remove_file(g)?;
            }
            self.runs.push(path);
        }
        let mut readers = Vec::with_capacity(self.runs.len());
        let mut heap = BinaryHeap::new();
        for (i, p) in self.runs.iter().enumerate() {
            let mut r = RunReader::<T>::open(p)?;
            if let Some(x) = r.next_record()? {
                heap.push(Reverse((x, i)));
            }
            readers.push(r);
        }
        Ok(Sorted {
            mem: Vec::new().into_iter(),
            heap,
            readers,
            _dir: self.dir.take(),
        })
    }
}

fn write_run<T: Record>(path: &Path, records: impl Iterator<Item = T>) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(1 << 16, File::create(path)?);
    let mut b = vec![0u8; T::SIZE];
    for r in records {
        r.encode(&mut b);
        w.write_all(&b)?;
    }
    w.flush()
}

/// Merges sorted runs into one run file, streaming (one record per run in memory).
fn merge_into<T: Record>(runs: &[PathBuf], path: &Path) -> io::Result<()> {
    let mut readers = Vec::new();
    let mut heap = BinaryHeap::new();
    for (i, p) in runs.iter().enumerate() {
        let mut r = RunReader::<T>::open(p)?;
        if let Some(x) = r.next_record()? {
            heap.push(Reverse((x, i)));
        }
        readers.push(r);
    }
    let mut w = BufWriter::with_capacity(1 << 16, File::create(path)?);
    let mut b = vec![0u8; T::SIZE];
    while let Some(Reverse((x, i))) = heap.pop() {
        x.encode(&mut b);
        w.write_all(&b)?;
        if let Some(y) = readers[i].next_record()? {
            heap.push(Reverse((y, i)));
        }
    }
    w.flush()
}

struct RunReader<T> {
    r: BufReader<File>,
    b: Vec<u8>,
    _t: std::marker::PhantomData<T>,
}

impl<T: Record> RunReader<T> {
    fn open(p: &Path) -> io::Result<Self> {
        Ok(RunReader {
            r: BufReader::with_capacity(1 << 16, File::open(p)?),
            b: vec![0; T::SIZE],
            _t: std::marker::PhantomData,
        })
    }

    fn next_record(&mut self) -> io::Result<Option<T>> {
        match self.r.read_exact(&mut self.b) {
            Ok(()) => Ok(Some(T::decode(&self.b))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Sorted records, from memory or merged from runs.
pub struct Sorted<T: Record> {
    mem: std::vec::IntoIter<T>,
    heap: BinaryHeap<Reverse<(T, usize)>>,
    readers: Vec<RunReader<T>>,
    _dir: Option<tempfile::TempDir>,
}

impl<T: Record> Iterator for Sorted<T> {
    type Item = io::Result<T>;

    fn next(&mut self) -> Option<io::Result<T>> {
        if self.readers.is_empty() {
            return self.mem.next().map(Ok);
        }
        let Reverse((x, i)) = self.heap.pop()?;
        match self.readers[i].next_record() {
            Ok(Some(y)) => self.heap.push(Reverse((y, i))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
        #[test]
        fn sorts_like_sort(xs in proptest::collection::vec(any::<u64>(), 0..3000), limit in 8usize..400) {
            let tmp = tempfile::tempdir().unwrap();
            let mut s = ExternalSorter::<u64>::new(limit, tmp.path());
            for &x in &xs {
                s.push(x).unwrap();
            }
            let got: Vec<u64> = s.finish().unwrap().map(|r| r.unwrap()).collect();
            let mut want = xs.clone();
            want.sort_unstable();
            prop_assert_eq!(got, want);
            // Spill folders are gone once the output is dropped.
            prop_assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        }
    }

    #[test]
    fn many_runs_merge_in_passes() {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::<(u64, u32)>::new(16 * 10, tmp.path());
        for i in (0..5000u64).rev() {
            s.push((i % 97, i as u32)).unwrap();
        }
        assert!(s.runs() > MAX_FAN_IN);
        let got: Vec<(u64, u32)> = s.finish().unwrap().map(|r| r.unwrap()).collect();
        assert!(got.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(got.len(), 5000);
    }
}
