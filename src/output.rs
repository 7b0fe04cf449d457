//! Writing output files through `neardup_report`: atomically (a temporary file in the same
//! folder, synced, then renamed), never over one of the run's inputs, never over an existing
//! file neardup did not write (unless `--force`), and every output place checked before any
//! input is read. `-` as a file name means standard output.

use anyhow::Result;
use neardup_engine::Input;
use neardup_report::{OutputGuard, Table, TableWriter};
use std::io::Write;
use std::path::Path;

/// The outputs of one command run.
pub struct Outputs {
    guard: OutputGuard,
}

impl Outputs {
    /// Outputs of a run over `inputs`; `force` allows replacing files neardup did not write.
    pub fn new(inputs: &[Input], force: bool) -> Outputs {
        Outputs::over_paths(inputs.iter().filter_map(Input::as_path), force)
    }

    /// Outputs of a run whose inputs are these paths.
    pub fn over_paths<'a>(inputs: impl IntoIterator<Item = &'a Path>, force: bool) -> Outputs {
        Outputs {
            guard: OutputGuard::new(inputs).force(force),
        }
    }

    /// What may be written where (for writers outside this module).
    pub fn guard(&self) -> &OutputGuard {
        &self.guard
    }

    /// After every output is written: removes the files an earlier run wrote in the output
    /// folders and this one did not (stale tables).
    pub fn finish(&self) -> Result<()> {
        Ok(self.guard.finish()?)
    }

    /// The end of a run writing the folder `dir`: its HTML report when asked (`report`), then
    /// [`Outputs::finish`].
    pub fn end(&self, dir: &Path, report: bool) -> Result<()> {
        if report {
            self.report(dir)?;
        }
        self.finish()
    }

    /// `dir/summary.json`: its name and (with `report`) the HTML report's are added to
    /// `files`, then the JSON `json` makes of that list is written (pretty, one line break
    /// at the end).
    pub fn summary(
        &self,
        dir: &Path,
        files: &mut Vec<String>,
        report: bool,
        json: impl FnOnce(&[String]) -> serde_json::Result<Vec<u8>>,
    ) -> Result<()> {
        let path = dir.join("summary.json");
        files.push(path.display().to_string());
        if report {
            files.push(dir.join(neardup_html::FILE).display().to_string());
        }
        let mut bytes = json(files)?;
        bytes.push(b'\n');
        self.write(&path, &bytes)?;
        Ok(())
    }

    /// Creates the output folder and checks it is writable (before reading).
    pub fn dir(&self, dir: &Path) -> Result<()> {
        Ok(self.guard.create_dir(dir)?)
    }

    /// Checks a single-file output before reading: `-` (standard output) always passes; an
    /// existing file must be neardup's own (`is_ours`) unless forced.
    pub fn file(&self, path: &Path, is_ours: impl Fn(&Path) -> bool) -> Result<()> {
        if path == Path::new("-") {
            return Ok(());
        }
        Ok(self.guard.prepare_file(path, is_ours)?)
    }

    /// A report as pretty JSON to `path` when given (checked with [`Outputs::file`]; `-`:
    /// standard output); true when it went to standard output (so the human summary must
    /// not).
    pub fn json_report<T: serde::Serialize>(&self, path: Option<&Path>, rep: &T) -> Result<bool> {
        let Some(path) = path else {
            return Ok(false);
        };
        let mut bytes = serde_json::to_vec_pretty(rep)?;
        bytes.push(b'\n');
        self.write_file(path, &bytes)?;
        Ok(path == Path::new("-"))
    }

    /// Writes a single-file output checked with [`Outputs::file`] (`-`: standard output).
    pub fn write_file(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        if path == Path::new("-") {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()?;
            return Ok(());
        }
        self.guard.check_file(path)?;
        neardup_report::write_atomic(path, bytes)?;
        Ok(())
    }

    /// Streams a single-file output checked with [`Outputs::file`]: `fill` writes it (to
    /// standard output for `-`, else to a temporary file renamed into place only when `fill`
    /// succeeded, so a failed run leaves the old file).
    pub fn stream_file<T>(
        &self,
        path: &Path,
        fill: impl FnOnce(&mut dyn Write) -> Result<T>,
    ) -> Result<T> {
        if path == Path::new("-") {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let r = fill(&mut out)?;
            out.flush()?;
            return Ok(r);
        }
        self.guard.check_file(path)?;
        let mut f = neardup_report::AtomicFile::create(path)?;
        let r = fill(&mut f)?;
        f.commit()?;
        Ok(r)
    }

    /// Writes a file of an output folder; returns its path as text.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<String> {
        Ok(self.guard.write(path, bytes)?.display().to_string())
    }

    /// A writer of a table's rows to `dir/<name>.<ext>` (claimed now, in place when
    /// finished), for rows that come one at a time.
    pub fn table_writer<T: Table>(
        &self,
        dir: &Path,
        format: neardup_report::Format,
    ) -> Result<TableWriter<T>> {
        self.guard
            .claim(&dir.join(format!("{}.{}", T::NAME, format.extension())))?;
        Ok(TableWriter::<T>::create(dir, format)?)
    }

    /// Writes a table's rows to `dir/<name>.<ext>`; returns the path as text.
    pub fn table<T: Table + Sync>(
        &self,
        dir: &Path,
        format: neardup_report::Format,
        rows: &[T],
    ) -> Result<String> {
        let mut w = self.table_writer::<T>(dir, format)?;
        w.write_all(rows)?;
        Ok(w.finish()?.display().to_string())
    }

    /// Builds the folder's HTML report from the files just written there and writes it
    /// (`report.html`); returns its path as text.
    pub fn report(&self, dir: &Path) -> Result<String> {
        self.report_with(dir, &neardup_html::Limits::default())
    }

    /// [`Outputs::report`] of a dedup folder whose clusters table's rows the run holds.
    pub fn dedup_report(
        &self,
        dir: &Path,
        clusters: Vec<neardup_html::ClusterMember>,
    ) -> Result<String> {
        let r = neardup_html::build_dedup(dir, &neardup_html::Limits::default(), clusters)?;
        self.write(&dir.join(neardup_html::FILE), r.html.as_bytes())
    }

    /// [`Outputs::report`] with what the report shows and links set.
    pub fn report_with(&self, dir: &Path, limits: &neardup_html::Limits) -> Result<String> {
        let r = neardup_html::build(dir, limits)?;
        self.write(&dir.join(neardup_html::FILE), r.html.as_bytes())
    }
}

/// An output folder as the summary names it: with one trailing `/` (`evo/` as given, `out` as
/// `out/`).
pub fn folder_name(dir: &std::path::Path) -> String {
    let s = dir.display().to_string();
    if s.ends_with('/') {
        s
    } else {
        format!("{s}/")
    }
}
