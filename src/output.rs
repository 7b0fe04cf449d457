//! Writing output files: atomically (a temporary file in the same folder, then a rename), and
//! never over one of the run's inputs.

use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically. `-` means standard output.
pub fn write_atomic(path: &Path, inputs: &[neardup_engine::Input], bytes: &[u8]) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        return Ok(());
    }
    if let Ok(target) = path.canonicalize() {
        for i in inputs {
            if i.path
                .canonicalize()
                .is_ok_and(|p| p == target || target.starts_with(&p))
            {
                bail!(
                    "{}: refusing to write an output over (or inside) an input",
                    path.display()
                );
            }
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .context("output path has no file name")?
        .to_string_lossy();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| -> Result<()> {
        let mut f = std::fs::File::create(&tmp)
            .with_context(|| format!("{}: cannot create", tmp.display()))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
            .with_context(|| format!("{}: cannot rename into place", path.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Creates the output folder `out`, refusing a folder that is, or holds, one of `inputs`.
pub fn create_out_dir<'a>(out: &Path, inputs: impl IntoIterator<Item = &'a Path>) -> Result<()> {
    if let Ok(dir) = out.canonicalize() {
        for i in inputs {
            if i.canonicalize()
                .is_ok_and(|p| p == dir || p.starts_with(&dir))
            {
                bail!(
                    "{}: refusing to write outputs into a folder that holds an input",
                    out.display()
                );
            }
        }
    }
    std::fs::create_dir_all(out)
        .with_context(|| format!("{}: cannot create the output folder", out.display()))
}
