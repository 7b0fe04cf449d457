//! The writer lock: an advisory `flock` on `DIR/LOCK`, released by the kernel when the process
//! ends however it ends (no stale lock after a crash). Readers never take it.

use crate::{io_err, IndexError};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// The lock file's name in the index folder.
pub(crate) const LOCK_FILE: &str = "LOCK";

/// The one writer's lock; dropping it releases it.
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
    path: PathBuf,
}

impl WriterLock {
    /// Takes the lock of the index in `dir`, or fails at once if another process holds it.
    pub fn acquire(dir: &Path) -> Result<WriterLock, IndexError> {
        let path = dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_err(&path))?;
        match file.try_lock() {
            Ok(()) => Ok(WriterLock { _file: file, path }),
            Err(TryLockError::WouldBlock) => Err(IndexError::Locked { path }),
            Err(TryLockError::Error(e)) => Err(io_err(&path)(e)),
        }
    }

    /// [`WriterLock::acquire`] on a folder created first if missing (a new index).
    pub fn acquire_creating(dir: &Path) -> Result<WriterLock, IndexError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        WriterLock::acquire(dir)
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_writer_at_a_time_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let a = WriterLock::acquire(dir.path()).unwrap();
        let e = WriterLock::acquire(dir.path()).unwrap_err();
        assert!(matches!(e, IndexError::Locked { .. }), "{e}");
        assert!(e.to_string().contains("another process"));
        drop(a);
        WriterLock::acquire(dir.path()).unwrap();
    }
}
