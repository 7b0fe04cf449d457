//! Writing output files through `neardup_report`: atomically (a temporary file in the same
//! folder, synced, then renamed), and never over one of the run's inputs. `-` as a file name
//! means standard output.

use anyhow::Result;
use neardup_report::{OutputGuard, Table, TableWriter};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically, refusing an input's path. `-` means standard output.
pub fn write_atomic(path: &Path, inputs: &[neardup_engine::Input], bytes: &[u8]) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        return Ok(());
    }
    OutputGuard::new(inputs.iter().filter_map(|i| i.as_path())).write(path, bytes)?;
    Ok(())
}

/// Creates the output folder `out`, refusing a folder that is, or holds, one of `inputs`.
pub fn create_out_dir<'a>(out: &Path, inputs: impl IntoIterator<Item = &'a Path>) -> Result<()> {
    OutputGuard::new(inputs).create_dir(out)?;
    Ok(())
}

/// Writes a table's rows to `dir/<name>.<ext>`; returns the path as text.
pub fn write_table<T: Table>(
    dir: &Path,
    format: neardup_report::Format,
    rows: &[T],
) -> Result<String> {
    let mut w = TableWriter::<T>::create(dir, format)?;
    for r in rows {
        w.write(r)?;
    }
    Ok(w.finish()?.display().to_string())
}
