//! A progress bar on standard error (indicatif). Hidden when standard error is not a terminal
//! or with `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress over the raw bytes of all inputs.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar for `total` raw bytes; hidden when `quiet` or when stderr is not a terminal.
    pub fn new(total: u64, quiet: bool) -> Bar {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {bytes}/{total_bytes} {wide_bar} {binary_bytes_per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar { bar }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl neardup_engine::Progress for Bar {
    fn position(&self, raw_bytes: u64) {
        self.bar.set_position(raw_bytes);
    }
}
