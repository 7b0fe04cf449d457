//! `neardup serve`: the HTTP service over an index (neardup-serve does the serving).

use crate::flags::ServeArgs;
use anyhow::{bail, Context as _, Result};
use neardup_serve::ServeConfig;
use std::time::Duration;

pub fn run(a: &ServeArgs, quiet: bool) -> Result<()> {
    let cfg = config(a)?;
    crate::raise_open_files(cfg.max_connections as u64 + 256);
    neardup_serve::run(cfg, |addr| {
        if !quiet {
            println!("listening on http://{addr}");
        } else {
            println!("{addr}");
        }
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
    })?;
    eprintln!("stopped");
    Ok(())
}

/// The service's configuration: `ServeConfig::new`'s defaults, changed where a flag says so.
fn config(a: &ServeArgs) -> Result<ServeConfig> {
    let seconds = |flag: &str, v: Option<f64>, default: Duration| match v {
        None => Ok(default),
        Some(v) if v > 0.0 && v < 1e9 => Ok(Duration::from_secs_f64(v)),
        Some(v) => bail!("{flag} {v}: expected seconds above 0"),
    };
    let at_least_one = |flag: &str, v: Option<usize>, default: usize| match v {
        None => Ok(default),
        Some(0) => bail!("{flag} 0: expected at least 1"),
        Some(n) => Ok(n),
    };
    let mut cfg = ServeConfig::new(a.index.clone());
    cfg.request_timeout = seconds("--timeout", a.timeout, cfg.request_timeout)?;
    cfg.header_timeout = seconds("--header-timeout", a.header_timeout, cfg.header_timeout)?;
    cfg.body_timeout = seconds("--body-timeout", a.body_timeout, cfg.body_timeout)?;
    cfg.max_connections =
        at_least_one("--max-connections", a.max_connections, cfg.max_connections)?;
    cfg.max_concurrency = at_least_one("--concurrency", a.concurrency, cfg.max_concurrency)?;
    cfg.listen = a.listen.unwrap_or(cfg.listen);
    cfg.max_body_bytes = a.max_body.unwrap_or(cfg.max_body_bytes);
    cfg.read_only = a.read_only;
    cfg.label = a.label.clone().unwrap_or(cfg.label);
    cfg.cache_bytes = a.cache.map_or(cfg.cache_bytes, |n| n as u64);
    if let Some(n) = a.max_buffered {
        if n < cfg.max_body_bytes {
            bail!(
                "--max-buffered {n}: expected at least --max-body ({})",
                cfg.max_body_bytes
            );
        }
        cfg.max_buffered_bytes = n;
    }
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
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::{Cli, Command};
    use clap::{CommandFactory as _, Parser as _};

    fn args(flags: &[&str]) -> ServeArgs {
        let argv = ["neardup", "serve", "--index", "ix"].iter().chain(flags);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Serve(a) => a,
            _ => unreachable!(),
        }
    }

    /// A byte count as the help text writes it.
    fn bytes(n: usize) -> String {
        match n {
            n if n % (1 << 30) == 0 => format!("{}G", n >> 30),
            n if n % (1 << 20) == 0 => format!("{}M", n >> 20),
            n => n.to_string(),
        }
    }

    #[test]
    fn no_flag_is_the_library_default_and_the_help_names_it() {
        let got = config(&args(&[])).unwrap();
        let want = ServeConfig::new("ix".into());
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        let help = Cli::command()
            .find_subcommand_mut("serve")
            .unwrap()
            .render_long_help()
            .to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for default in [
            format!("default: {};", want.listen),
            format!("default: {})", bytes(want.max_body_bytes)),
            format!("default: {})", want.request_timeout.as_secs()),
            format!("default: {})", want.label),
            format!("default: {})", bytes(want.cache_bytes as usize)),
            format!("default: {})", want.header_timeout.as_secs()),
            format!("default: {})", want.body_timeout.as_secs()),
            format!("default: {})", want.max_connections),
            format!("default: {})", bytes(want.max_buffered_bytes)),
        ] {
            assert!(help.contains(&default), "{default:?} is not in:\n{help}");
        }
    }

    #[test]
    fn flags_change_what_they_name_and_bad_values_are_refused() {
        let cfg = config(&args(&[
            "--cache",
            "0",
            "--timeout",
            "2.5",
            "--max-body",
            "1M",
            "--max-buffered",
            "4M",
            "--label",
            "c1",
            "--max-connections",
            "7",
        ]))
        .unwrap();
        assert_eq!(cfg.cache_bytes, 0);
        assert_eq!(cfg.request_timeout, Duration::from_millis(2500));
        assert_eq!(
            (cfg.max_body_bytes, cfg.max_buffered_bytes),
            (1 << 20, 4 << 20)
        );
        assert_eq!((cfg.label.as_str(), cfg.max_connections), ("c1", 7));
        for bad in [
            &["--timeout", "0"][..],
            &["--body-timeout=-1"],
            &["--max-connections", "0"],
            &["--concurrency", "0"],
            &["--max-body", "2M", "--max-buffered", "1M"],
        ] {
            assert!(config(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
