//! The `neardup` command line. Parsing lives in `flags`, each subcommand in `commands`; the
//! work is done by the library crates under `crates/`.

mod commands;
mod flags;
mod inputs;
mod output;
mod progress;

use clap::Parser;
use flags::{Cli, Command};
use std::process::ExitCode;

/// glibc malloc arenas: at most one per core. With a single arena (what this process ran
/// before), every thread that allocates waits on one lock: the rows of 200,000 synthetic pages
/// took 88 ms with one and 43 ms with four on 2 cores; with glibc's default (eight per core)
/// what the reader and worker threads free stays resident in their arenas (about 40 MB more
/// peak on the development crawl, growing with it). One per core measured 2-4% more peak
/// memory than one in all (bench/results/scaling-2026-11-28.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn malloc_arenas() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let arenas = libc::c_int::try_from(cores.clamp(1, 256)).unwrap_or(1);
    // SAFETY: mallopt only sets a parameter of the allocator; it runs before any thread starts
    // and takes no pointer.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, arenas);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn malloc_arenas() {}

/// Raises this process's soft limit on open files to `want` (`neardup serve`: one a
/// connection), as far as the hard limit allows; a lower limit only caps connections sooner.
#[cfg(unix)]
#[allow(unsafe_code)]
pub(crate) fn raise_open_files(want: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 || lim.rlim_cur >= want {
            return;
        }
        lim.rlim_cur = want.min(lim.rlim_max);
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
    }
}

#[cfg(not(unix))]
pub(crate) fn raise_open_files(_want: u64) {}

fn main() -> ExitCode {
    malloc_arenas();
    let cli = Cli::parse();
    flags::VERBOSE.store(cli.verbose, std::sync::atomic::Ordering::Relaxed);
    flags::QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    let result = match &cli.command {
        Command::Demo(args) => commands::demo::run(args, cli.quiet),
        Command::Scan(args) => commands::scan::run(args, cli.quiet, cli.verbose),
        Command::Dedup(args) => commands::dedup::run(args, cli.quiet),
        Command::Sketch(args) => commands::sketch::run(args, cli.quiet),
        Command::Index(cmd) => commands::index::run(cmd, cli.quiet),
        Command::Serve(args) => commands::serve::run(args, cli.quiet),
        Command::Eval(args) => commands::eval::run(args, cli.quiet),
        Command::Overlap(args) => commands::overlap::run(args, cli.quiet),
        Command::Paragraphs(args) => commands::paragraphs::run(args, cli.quiet),
        Command::Decontaminate(args) => commands::decontaminate::run(args, cli.quiet),
        Command::Mirrors(args) => commands::mirrors::run(args, cli.quiet),
        Command::Evolve(args) => commands::evolve::run(args, cli.quiet),
        Command::Changes(args) => commands::changes::run(args, cli.quiet),
        Command::Audit(args) => commands::audit::run(args, cli.quiet),
        Command::Replicas(args) => commands::replicas::run(args, cli.quiet),
        Command::Report(args) => commands::report::run(args, cli.quiet),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let engine = e
                .chain()
                .find_map(|c| c.downcast_ref::<neardup_engine::Error>());
            let report = e
                .chain()
                .find_map(|c| c.downcast_ref::<neardup_report::ReportError>());
            let worded = engine
                .and_then(flags::in_flag_words)
                .or_else(|| report.and_then(flags::report_in_flag_words));
            match worded {
                Some(text) => eprintln!("neardup: {text}"),
                None => eprintln!("neardup: {}", without_repeats(&e)),
            }
            let usage = e.chain().any(|c| c.is::<flags::Usage>());
            ExitCode::from(match engine {
                _ if usage => 2,
                Some(e) if e.is_strict_stop() => 3,
                Some(e) if e.is_usage() => 2,
                Some(neardup_engine::Error::NothingRead { .. }) => 4,
                _ => 1,
            })
        }
    }
}

/// The error and its causes, each cause left out when the text before already says it (library
/// errors name their path and cause in their own message).
fn without_repeats(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
