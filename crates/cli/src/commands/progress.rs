//! A progress bar on stderr for long commands (`hb convert`, `hb scan`), drawn by
//! `indicatif`.
//!
//! It draws only when stderr is a terminal, waits a moment before the first draw (a
//! short run shows nothing), redraws at most ten times a second and erases itself when
//! done or dropped, so an error message or the final report starts on a clean line.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a command runs before the bar appears.
const FIRST_DRAW: Duration = Duration::from_millis(300);
/// Redraws per second at most.
const REDRAW_HZ: u8 = 10;
/// Steps of a bar whose end is known (its fraction is drawn at this resolution).
const STEPS: u64 = 10_000;

/// The progress of one command.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    terminal: bool,
    shown: bool,
    start: Instant,
}

impl Progress {
    /// A bar on stderr, drawn only when stderr is a terminal.
    pub fn on_stderr() -> Self {
        let bar = ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("[{bar:24}] {percent:>3}%  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("#>-"),
        );
        Self {
            bar,
            terminal: std::io::stderr().is_terminal(),
            shown: false,
            start: Instant::now(),
        }
    }

    /// Reports `rows` done and, when the input's size is known, the fraction of it
    /// consumed (0.0..=1.0); without a fraction the bar shows the counts only.
    pub fn update(&mut self, rows: u64, fraction: Option<f64>) {
        if !self.terminal {
            return;
        }
        let elapsed = self.start.elapsed();
        if !self.shown {
            if elapsed < FIRST_DRAW {
                return;
            }
            if fraction.is_none() {
                self.bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
            }
            self.bar
                .set_draw_target(ProgressDrawTarget::stderr_with_hz(REDRAW_HZ));
            self.shown = true;
        }
        if let Some(f) = fraction.filter(|f| f.is_finite()) {
            self.bar
                .set_position((f.clamp(0.0, 1.0) * STEPS as f64) as u64);
        } else {
            self.bar.tick();
        }
        self.bar.set_message(counts(rows, elapsed));
    }

    /// Erases the bar if it was drawn.
    pub fn finish(&mut self) {
        if self.shown {
            self.bar.finish_and_clear();
            self.shown = false;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The counts beside the bar: `1,234,567 rows  812,345 rows/s  1.5 s`.
pub fn counts(rows: u64, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64();
    let rate = if seconds > 0.0 {
        (rows as f64 / seconds) as u64
    } else {
        0
    };
    format!(
        "{} rows  {} rows/s  {:.1} s",
        thousands(rows),
        thousands(rate),
        seconds
    )
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counts_and_rate() {
        assert_eq!(
            counts(1_234_567, Duration::from_secs(2)),
            "1,234,567 rows  617,283 rows/s  2.0 s"
        );
        assert_eq!(
            counts(10, Duration::from_millis(500)),
            "10 rows  20 rows/s  0.5 s"
        );
        assert_eq!(counts(10, Duration::ZERO), "10 rows  0 rows/s  0.0 s");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }

    #[test]
    fn draws_nothing_off_a_terminal() {
        // Tests run with stderr captured or redirected: the bar stays hidden and
        // updates are free.
        let mut progress = Progress::on_stderr();
        progress.terminal = false;
        progress.start -= FIRST_DRAW * 2;
        progress.update(5, Some(0.5));
        assert!(!progress.shown);
        assert!(progress.bar.is_hidden());
    }
}
