//! `neardup serve`: the HTTP service over an index (neardup-serve does the serving).

use crate::flags::ServeArgs;
use anyhow::{bail, Context as _, Result};

pub fn run(a: &ServeArgs, quiet: bool) -> Result<()> {
    let seconds = |flag: &str, v: f64| {
        if !(v > 0.0 && v < 1e9) {
            bail!("{flag} {v}: expected seconds above 0");
        }
        Ok(std::time::Duration::from_secs_f64(v))
    };
    seconds("--timeout", a.timeout)?;
    if a.max_connections == 0 {
        bail!("--max-connections 0: expected at least 1");
    }
    let mut cfg = neardup_serve::ServeConfig::new(a.index.clone());
    cfg.listen = a.listen;
    cfg.max_body_bytes = a.max_body;
    if let Some(n) = a.concurrency {
        if n == 0 {
            bail!("--concurrency 0: expected at least 1");
        }
        cfg.max_concurrency = n;
    }
    cfg.request_timeout = std::time::Duration::from_secs_f64(a.timeout);
    cfg.read_only = a.read_only;
    cfg.label = a.label.clone();
    cfg.cache_bytes = a.cache as u64;
    cfg.header_timeout = seconds("--header-timeout", a.header_timeout)?;
    cfg.body_timeout = seconds("--body-timeout", a.body_timeout)?;
    cfg.max_connections = a.max_connections;
    if let Some(n) = a.max_buffered {
        if n < a.max_body {
            bail!(
                "--max-buffered {n}: expected at least --max-body ({})",
                a.max_body
            );
        }
        cfg.max_buffered_bytes = n;
    }
    crate::raise_open_files(a.max_connections as u64 + 256);
    if let Some(f) = &a.token_file {
        let text =
            std::fs::read_to_string(f).with_context(|| format!("--token-file {}", f.display()))?;
        let token = text.trim();
        if token.len() < 16 || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            bail!(
                "--token-file {}: expected one token of at least 16 characters, no spaces",
                f.display()
            );
        }
        cfg.token = Some(token.to_string());
    }
    neardup_serve::run(cfg, |addr| {
        if !quiet {
            println!("listening on http://{addr}");
        } else {
            println!("{addr}");
        }
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}
