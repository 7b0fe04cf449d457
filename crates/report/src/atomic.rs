//! Every file neardup writes goes through here: a temporary file in the target's folder, synced,
//! then renamed over the target, so a reader sees the old file or the new one, never half of
//! one; and an [`OutputGuard`] that refuses to write over, or into a folder holding, one of the
//! run's inputs.

use crate::ReportError;
use std::fs::File;
use std::io::{self, BufWriter, Read as _, Write};
use std::path::{Path, PathBuf};

/// A file being written: bytes go to a temporary sibling; [`AtomicFile::commit`] syncs it and
/// renames it into place. Dropped without `commit`, it removes the temporary file.
pub struct AtomicFile {
    tmp: PathBuf,
    path: PathBuf,
    file: Option<BufWriter<File>>,
    committed: bool,
}

fn io_err(path: &Path, source: io::Error) -> ReportError {
    ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl AtomicFile {
    /// Starts writing `path` (its folder must exist).
    pub fn create(path: &Path) -> Result<AtomicFile, ReportError> {
        let (dir, name) = folder_and_name(path)?;
        // Unique within the process too: threads may write files side by side.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
        let file = File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
        Ok(AtomicFile {
            tmp,
            path: path.to_path_buf(),
            file: Some(BufWriter::with_capacity(1 << 20, file)),
            committed: false,
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The writer (buffered).
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.file.as_mut().expect("an uncommitted file")
    }

    /// Flushes, syncs and renames the file into place, then syncs the folder (the rename
    /// survives a crash); returns its final path.
    pub fn commit(mut self) -> Result<PathBuf, ReportError> {
        let w = self.file.take().expect("an uncommitted file");
        let file = w
            .into_inner()
            .map_err(|e| io_err(&self.tmp, e.into_error()))?;
        file.sync_all().map_err(|e| io_err(&self.tmp, e))?;
        drop(file);
        rename_durably(&self.tmp, &self.path)?;
        self.committed = true;
        Ok(self.path.clone())
    }

    /// Hands the underlying file to a writer that needs to own it (the Parquet writer); the
    /// caller gives it back to [`AtomicFile::commit_file`].
    pub(crate) fn take_file(&mut self) -> Result<File, ReportError> {
        let w = self.file.take().expect("an uncommitted file");
        w.into_inner()
            .map_err(|e| io_err(&self.tmp, e.into_error()))
    }

    /// [`AtomicFile::commit`] for a file taken with [`AtomicFile::take_file`].
    pub(crate) fn commit_file(mut self, file: File) -> Result<PathBuf, ReportError> {
        file.sync_all().map_err(|e| io_err(&self.tmp, e))?;
        drop(file);
        rename_durably(&self.tmp, &self.path)?;
        self.committed = true;
        Ok(self.path.clone())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

/// Bytes written to a [`Writeback`] file between two early syncs.
const WRITEBACK_BYTES: u64 = 8 << 20;

/// A file whose bytes are pushed to disk while more are written: after every
/// [`WRITEBACK_BYTES`] a thread of its own syncs the file's data so far, so that the sync that
/// commits it ([`AtomicFile::commit_file`]) waits for the last stretch only (a 160 MB table
/// waited 57 ms for its one sync at the end of a run, every core idle). An early sync's error
/// is returned by the next write or by [`Writeback::finish`]: the kernel reports a failed sync
/// once, so one dropped here would let the final sync succeed over lost pages.
pub(crate) struct Writeback {
    file: File,
    /// Bytes between two syncs ([`WRITEBACK_BYTES`]).
    every: u64,
    since: u64,
    syncer: Option<Syncer>,
}

/// [`Writeback`]'s thread: asked to sync (one ask waiting at most: it covers every byte
/// written before it starts), it ends at the first error or when the file is finished.
struct Syncer {
    ask: std::sync::mpsc::SyncSender<()>,
    done: std::thread::JoinHandle<io::Result<()>>,
}

impl Syncer {
    fn start(file: File) -> io::Result<Syncer> {
        let (ask, asked) = std::sync::mpsc::sync_channel::<()>(1);
        let done = std::thread::Builder::new()
            .name("neardup-sync".into())
            .spawn(move || asked.iter().try_for_each(|()| file.sync_data()))?;
        Ok(Syncer { ask, done })
    }

    /// Waits for the thread: its first error, if any.
    fn join(self) -> io::Result<()> {
        drop(self.ask);
        self.done
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the file's sync thread panicked")))
    }
}

impl Writeback {
    pub(crate) fn new(file: File) -> Writeback {
        Writeback::every(file, WRITEBACK_BYTES)
    }

    fn every(file: File, every: u64) -> Writeback {
        Writeback {
            file,
            every,
            since: 0,
            syncer: None,
        }
    }

    /// Asks for the bytes written so far to be synced (the thread started on the first ask).
    fn sync_behind(&mut self) -> io::Result<()> {
        let syncer = match self.syncer.take() {
            Some(s) => s,
            None => Syncer::start(self.file.try_clone()?)?,
        };
        match syncer.ask.try_send(()) {
            // Full: a sync not yet started covers these bytes too.
            Ok(()) | Err(std::sync::mpsc::TrySendError::Full(())) => {
                self.syncer = Some(syncer);
                Ok(())
            }
            // The thread ended on an error.
            Err(std::sync::mpsc::TrySendError::Disconnected(())) => {
                syncer.join()?;
                Err(io::Error::other("the file's sync thread ended"))
            }
        }
    }

    /// The file, once every early sync has ended well (the caller syncs the rest).
    pub(crate) fn finish(mut self) -> io::Result<File> {
        if let Some(s) = self.syncer.take() {
            s.join()?;
        }
        Ok(self.file)
    }
}

impl Write for Writeback {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.since += n as u64;
        if self.since >= self.every {
            self.since = 0;
            self.sync_behind()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Renames the synced file `tmp` over `path`, then fsyncs the folder so that the rename itself
/// survives a crash: readers see the old file or the new one. Every durable replacement of
/// neardup (output files, the index's manifest and segments) ends here.
pub fn rename_durably(tmp: &Path, path: &Path) -> Result<(), ReportError> {
    std::fs::rename(tmp, path).map_err(|e| io_err(path, e))?;
    sync_folder(path)
}

/// Writes `bytes` to `tmp`, syncs it and [`rename_durably`] over `path` (for a caller whose
/// temporary name is part of its format, as the index's `MANIFEST.tmp` is).
pub fn replace_durably(tmp: &Path, path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let mut f = File::create(tmp).map_err(|e| io_err(tmp, e))?;
    f.write_all(bytes).map_err(|e| io_err(tmp, e))?;
    f.sync_all().map_err(|e| io_err(tmp, e))?;
    drop(f);
    rename_durably(tmp, path)
}

/// Fsyncs the folder holding `path`, so that a rename into it survives a crash.
pub fn sync_folder(path: &Path) -> Result<(), ReportError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_err(dir, e))
}

/// The folder of a file path (`.` for a bare name) and the file's name.
fn folder_and_name(path: &Path) -> Result<(&Path, String), ReportError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| ReportError::NoFileName {
            path: path.to_path_buf(),
        })?
        .to_string_lossy()
        .into_owned();
    Ok((dir, name))
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<PathBuf, ReportError> {
    let mut f = AtomicFile::create(path)?;
    f.writer().write_all(bytes).map_err(|e| io_err(path, e))?;
    f.commit()
}

/// The file in an output folder that lists the files neardup wrote there (one name a line).
pub const MANIFEST: &str = ".neardup-files";

/// The key of the JSON files neardup writes outside an output folder (`scan --json`) that says
/// who wrote them; its value starts with `neardup`.
pub const WRITTEN_BY: &str = "written_by";

/// An output folder of a run and the names of the files claimed in it.
type Claimed = (PathBuf, Vec<String>);

/// What may be replaced, and where outputs may go: never over (or into a folder holding) one of
/// the run's inputs; never over an existing file neardup did not write, unless forced; and
/// every output place checked writable before any input is read.
#[derive(Clone, Debug, Default)]
pub struct OutputGuard {
    inputs: Vec<PathBuf>,
    force: bool,
    /// The output folders of the run and the files claimed in them.
    claimed: std::sync::Arc<std::sync::Mutex<Vec<Claimed>>>,
}

impl OutputGuard {
    /// A guard over these input paths (files or folders).
    pub fn new<I, P>(inputs: I) -> OutputGuard
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        OutputGuard {
            inputs: inputs
                .into_iter()
                .map(|p| p.as_ref().to_path_buf())
                .collect(),
            force: false,
            claimed: Default::default(),
        }
    }

    /// Allows replacing existing files neardup did not write (never an input).
    pub fn force(mut self, force: bool) -> OutputGuard {
        self.force = force;
        self
    }

    /// Refuses `path` when it is an input or lies inside an input folder.
    pub fn check_file(&self, path: &Path) -> Result<(), ReportError> {
        let Ok(target) = path.canonicalize() else {
            // Not there yet: check its folder instead.
            return match path.parent().map(Path::canonicalize) {
                Some(Ok(dir)) => self.check_inside(path, &dir),
                _ => Ok(()),
            };
        };
        self.check_inside(path, &target)
    }

    fn check_inside(&self, path: &Path, target: &Path) -> Result<(), ReportError> {
        for i in &self.inputs {
            if let Ok(p) = i.canonicalize() {
                if target == p || (p.is_dir() && target.starts_with(&p)) {
                    return Err(ReportError::OverInput {
                        path: path.to_path_buf(),
                        input: i.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Creates the output folder `dir`, refusing a folder that is, or holds, an input, and
    /// checks it is writable (a probe file created and removed): call it before reading.
    pub fn create_dir(&self, dir: &Path) -> Result<(), ReportError> {
        if let Ok(d) = dir.canonicalize() {
            for i in &self.inputs {
                if i.canonicalize().is_ok_and(|p| p == d || p.starts_with(&d)) {
                    return Err(ReportError::FolderHoldsInput {
                        dir: dir.to_path_buf(),
                        input: i.clone(),
                    });
                }
            }
        }
        if dir.exists() && !dir.is_dir() {
            return Err(ReportError::NotAFolder {
                path: dir.to_path_buf(),
            });
        }
        // A folder of outputs holds neardup's files only: one it did not write (its names
        // are listed in the folder's manifest) is refused now, before anything is read or
        // written, not when a table of that name comes to be written. Names beginning with a
        // dot and subfolders are left alone.
        if !self.force && dir.is_dir() {
            let listed = manifest(dir);
            let mut others: Vec<String> = std::fs::read_dir(dir)
                .map_err(|e| io_err(dir, e))?
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.') && !listed.contains(n))
                .collect();
            others.sort();
            if let Some(first) = others.first() {
                return Err(ReportError::FolderNotOurs {
                    dir: dir.to_path_buf(),
                    count: others.len(),
                    first: first.clone(),
                });
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
        probe(dir)?;
        let mut claimed = self.claimed.lock().unwrap_or_else(|p| p.into_inner());
        if !claimed.iter().any(|(d, _)| d == dir) {
            claimed.push((dir.to_path_buf(), Vec::new()));
        }
        Ok(())
    }

    /// After a run's outputs are all written: the files of its output folders that an earlier
    /// run wrote and this one did not (a `pairs.jsonl` a run without pairs would leave beside
    /// its tables) are removed, and the folders' manifests list this run's files.
    pub fn finish(&self) -> Result<(), ReportError> {
        let claimed = self.claimed.lock().unwrap_or_else(|p| p.into_inner());
        for (dir, names) in claimed.iter() {
            let listed = manifest(dir);
            let stale: Vec<&String> = listed.iter().filter(|n| !names.contains(n)).collect();
            if stale.is_empty() {
                continue;
            }
            for name in &stale {
                let path = dir.join(name);
                match std::fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io_err(&path, e)),
                }
            }
            let mut keep: Vec<&String> = listed.iter().filter(|n| names.contains(n)).collect();
            keep.sort();
            let mut text = String::new();
            for n in keep {
                text.push_str(n);
                text.push('\n');
            }
            write_atomic(&dir.join(MANIFEST), text.as_bytes())?;
        }
        Ok(())
    }

    /// Checks, before reading, that `path` may be written as a single-file output: not an input,
    /// its folder writable, and an existing file there either neardup's own (`is_ours`) or
    /// replaced only when forced.
    pub fn prepare_file(
        &self,
        path: &Path,
        is_ours: impl Fn(&Path) -> bool,
    ) -> Result<(), ReportError> {
        self.check_file(path)?;
        if path.is_dir() {
            return Err(ReportError::NotAFile {
                path: path.to_path_buf(),
            });
        }
        if path.exists() && !self.force && !is_ours(path) {
            return Err(ReportError::NotOurs {
                path: path.to_path_buf(),
            });
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(ReportError::Io {
                path: dir.to_path_buf(),
                source: io::Error::new(
                    io::ErrorKind::NotFound,
                    "the output's folder does not exist",
                ),
            });
        }
        probe(dir)
    }

    /// Checks that `path`, a file of an output folder, may be written (not an input; not an
    /// existing file neardup did not write there, unless forced) and records it in the folder's
    /// manifest before it is written, so that a later run may replace it.
    pub fn claim(&self, path: &Path) -> Result<(), ReportError> {
        self.check_file(path)?;
        let (dir, name) = folder_and_name(path)?;
        // The manifest is read, changed and written whole: one claim at a time in a process
        // (a poisoned lock guards nothing but this order).
        static CLAIMS: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = CLAIMS.lock().unwrap_or_else(|p| p.into_inner());
        let mut listed = manifest(dir);
        if path.exists() && !self.force && !listed.contains(&name) {
            return Err(ReportError::NotOurs {
                path: path.to_path_buf(),
            });
        }
        {
            let mut claimed = self.claimed.lock().unwrap_or_else(|p| p.into_inner());
            match claimed.iter_mut().find(|(d, _)| d == dir) {
                Some((_, names)) => names.push(name.clone()),
                None => claimed.push((dir.to_path_buf(), vec![name.clone()])),
            }
        }
        if !listed.contains(&name) {
            listed.push(name);
            // In name order, whichever order threads claimed them in.
            listed.sort();
            let mut text = listed.join("\n");
            text.push('\n');
            write_atomic(&dir.join(MANIFEST), text.as_bytes())?;
        }
        Ok(())
    }

    /// [`OutputGuard::claim`], then [`write_atomic`].
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<PathBuf, ReportError> {
        self.claim(path)?;
        write_atomic(path, bytes)
    }
}

/// The names an output folder's manifest lists.
fn manifest(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join(MANIFEST))
        .map(|t| {
            t.lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Creates and removes a file in `dir`: fails early, with the folder's name, when it cannot be
/// written.
fn probe(dir: &Path) -> Result<(), ReportError> {
    let p = dir.join(format!(".neardup-probe-{}", std::process::id()));
    std::fs::File::create(&p).map_err(|e| io_err(dir, e))?;
    let _ = std::fs::remove_file(&p);
    Ok(())
}

/// True for a JSON file whose top-level [`WRITTEN_BY`] says neardup wrote it.
pub fn is_neardup_json(path: &Path) -> bool {
    let Ok(f) = File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    // The marker is the first key neardup writes; 4 KiB is plenty.
    if io::Read::take(f, 4096).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    let t = text.trim_start();
    t.starts_with('{') && t.contains(&format!("\"{WRITTEN_BY}\": \"neardup"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file synced behind its writes holds what was written, in order, once its syncs have
    /// ended well; its sync thread ran.
    #[test]
    fn a_file_synced_behind_its_writes_holds_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let mut w = Writeback::every(File::create(&path).unwrap(), 4096);
        let mut want = Vec::new();
        for i in 0..2000u32 {
            let piece = format!("{i}:{}\n", "x".repeat(i as usize % 97));
            w.write_all(piece.as_bytes()).unwrap();
            want.extend_from_slice(piece.as_bytes());
        }
        assert!(w.syncer.is_some(), "synced behind the writes");
        let file = w.finish().unwrap();
        file.sync_all().unwrap();
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), want);
    }

    #[test]
    fn threads_writing_side_by_side_all_land_in_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let guard = OutputGuard::new(Vec::<PathBuf>::new());
        std::thread::scope(|s| {
            for t in 0..4 {
                let (guard, dir) = (&guard, dir.path());
                s.spawn(move || {
                    for i in 0..25 {
                        let p = dir.join(format!("t{t}-{i}.jsonl"));
                        guard.write(&p, b"{}").unwrap();
                        guard.write(&p, b"{}\n").unwrap();
                    }
                });
            }
        });
        let listed = manifest(dir.path());
        assert_eq!(listed.len(), 100, "{listed:?}");
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names, 101, "no temporary file left behind");
    }

    #[test]
    fn writes_atomically_and_refuses_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.warc");
        std::fs::write(&input, b"data").unwrap();
        let guard = OutputGuard::new([&input]);
        assert!(matches!(
            guard.write(&input, b"x"),
            Err(ReportError::OverInput { .. })
        ));
        assert_eq!(std::fs::read(&input).unwrap(), b"data");
        assert!(matches!(
            guard.create_dir(dir.path()),
            Err(ReportError::FolderHoldsInput { .. })
        ));
        let out = dir.path().join("out.json");
        guard.write(&out, b"{}").unwrap();
        // The manifest lists it: a second run may replace it; a file neardup did not write may
        // not be replaced unless forced.
        guard.write(&out, b"{}").unwrap();
        let theirs = dir.path().join("theirs.csv");
        std::fs::write(&theirs, b"a,b").unwrap();
        assert!(matches!(
            guard.write(&theirs, b"x"),
            Err(ReportError::NotOurs { .. })
        ));
        assert_eq!(std::fs::read(&theirs).unwrap(), b"a,b");
        assert!(matches!(
            guard.prepare_file(&theirs, |_| false),
            Err(ReportError::NotOurs { .. })
        ));
        guard.clone().force(true).write(&theirs, b"x").unwrap();
        std::fs::remove_file(dir.path().join(MANIFEST)).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"{}");
        // An uncommitted file leaves nothing behind.
        {
            let mut f = AtomicFile::create(&dir.path().join("gone")).unwrap();
            f.writer().write_all(b"half").unwrap();
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["in.warc", "out.json", "theirs.csv"]);
        // Inside an input folder is refused too.
        let folder_guard = OutputGuard::new([dir.path()]);
        assert!(folder_guard
            .check_file(&dir.path().join("new.csv"))
            .is_err());
    }
}
