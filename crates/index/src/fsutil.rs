//! Durable file replacement: write a temporary file, fsync it, rename it into place, fsync the
//! folder (so the rename itself survives a crash).

use crate::{io_err, IndexError};
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` durably and atomically: readers see the old file or the new one.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    let tmp = path.with_extension("tmp");
    let mut f = File::create(&tmp).map_err(io_err(&tmp))?;
    f.write_all(bytes).map_err(io_err(&tmp))?;
    f.sync_all().map_err(io_err(&tmp))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(io_err(path))?;
    sync_dir(path)
}

/// Fsyncs the folder holding `path`.
pub(crate) fn sync_dir(path: &Path) -> Result<(), IndexError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}
