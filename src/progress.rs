//! Progress on stderr for the commands that run longer than a few seconds
//! (run, reproduce, board read, synth, demo). Nothing is drawn under `--json`
//! or when stderr is not a terminal, so scripts and logs see only results.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A progress bar or spinner; cleared when dropped.
pub struct Progress(ProgressBar);

/// Whether progress may be drawn: not quiet, and stderr is a terminal.
fn visible(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

impl Progress {
    /// A bar of `len` steps labelled `what`.
    pub fn bar(len: u64, what: &str, quiet: bool) -> Self {
        let pb = ProgressBar::with_draw_target(Some(len), Self::target(quiet));
        pb.set_style(
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {elapsed_precise} (eta {eta}) {msg}")
                .expect("template parses")
                .progress_chars("=> "),
        );
        pb.set_prefix(what.to_string());
        Self(pb)
    }

    /// A spinner with the elapsed time, labelled `what`, for one long step.
    pub fn spinner(what: &str, quiet: bool) -> Self {
        let pb = ProgressBar::with_draw_target(None, Self::target(quiet));
        pb.set_style(
            ProgressStyle::with_template("{spinner} {prefix} {elapsed_precise} {msg}").expect("template parses"),
        );
        pb.set_prefix(what.to_string());
        pb.enable_steady_tick(Duration::from_millis(200));
        Self(pb)
    }

    fn target(quiet: bool) -> ProgressDrawTarget {
        if visible(quiet) { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() }
    }

    /// Says what is being done now.
    pub fn message(&self, msg: impl Into<String>) {
        self.0.set_message(msg.into());
    }

    /// A handle that sets the message from elsewhere (a callback), made from
    /// the steps done so far.
    pub fn messenger(&self) -> impl Fn(&dyn Fn(u64) -> String) + 'static {
        let pb = self.0.clone();
        move |m| pb.set_message(m(pb.position()))
    }

    /// One step done.
    pub fn inc(&self) {
        self.0.inc(1);
    }

    /// Prints a line above the bar (plain on stderr when the bar is hidden).
    pub fn println(&self, line: impl AsRef<str>) {
        if self.0.is_hidden() {
            eprintln!("{}", line.as_ref());
        } else {
            self.0.println(line);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
