//! A progress bar on standard error (indicatif). Hidden when standard error is not a terminal
//! or with `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress over the raw bytes of all inputs, one bar per pass over them.
pub struct Bar {
    bar: ProgressBar,
    quiet: bool,
}

impl Bar {
    /// A bar; hidden when `quiet` or when stderr is not a terminal.
    pub fn new(quiet: bool) -> Bar {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {bytes}/{total_bytes} {wide_bar} {binary_bytes_per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar { bar, quiet }
    }
}

impl neardup_engine::Progress for Bar {
    fn begin(&self, total_bytes: u64) {
        self.bar.reset();
        self.bar.set_length(total_bytes);
    }

    fn position(&self, raw_bytes: u64) {
        self.bar.set_position(raw_bytes);
    }

    fn end(&self) {
        self.bar.finish_and_clear();
    }

    fn warning(&self, message: &str) {
        if !self.quiet {
            self.bar
                .suspend(|| eprintln!("neardup: warning: {message}"));
        }
    }
}
