//! A one-line progress bar on stderr for long commands (`hb convert`).
//!
//! It draws only when stderr is a terminal, waits a moment before the first draw (a
//! short conversion shows nothing), redraws at most ten times a second and erases
//! itself when done or dropped, so an error message or the final report starts on a
//! clean line.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How long a command runs before the bar appears.
const FIRST_DRAW: Duration = Duration::from_millis(300);
/// The shortest time between two draws.
const REDRAW: Duration = Duration::from_millis(100);
/// Characters between the brackets of the bar.
const WIDTH: usize = 24;

/// The progress of one command.
#[derive(Debug)]
pub struct Progress {
    enabled: bool,
    start: Instant,
    last_draw: Option<Instant>,
}

impl Progress {
    /// A bar on stderr, active only when stderr is a terminal.
    pub fn on_stderr() -> Self {
        Self {
            enabled: std::io::stderr().is_terminal(),
            start: Instant::now(),
            last_draw: None,
        }
    }

    /// Reports `rows` done and, when the input's size is known, the fraction of it
    /// consumed (0.0..=1.0).
    pub fn update(&mut self, rows: u64, fraction: Option<f64>) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let elapsed = now.duration_since(self.start);
        if elapsed < FIRST_DRAW {
            return;
        }
        if self
            .last_draw
            .is_some_and(|last| now.duration_since(last) < REDRAW)
        {
            return;
        }
        self.last_draw = Some(now);
        let mut err = std::io::stderr().lock();
        // A failed write to the terminal only loses a redraw.
        let _ = write!(err, "\r{}\x1b[K", render(rows, fraction, elapsed));
        let _ = err.flush();
    }

    /// Erases the bar if it was drawn.
    pub fn finish(&mut self) {
        if self.last_draw.take().is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The text of the bar: `[#####-----]  41.7%  1,234,567 rows  812,345 rows/s`; without
/// a known fraction, only the counts.
pub fn render(rows: u64, fraction: Option<f64>, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64();
    let rate = if seconds > 0.0 {
        (rows as f64 / seconds) as u64
    } else {
        0
    };
    let counts = format!(
        "{} rows  {} rows/s  {:.1} s",
        thousands(rows),
        thousands(rate),
        seconds
    );
    match fraction {
        Some(f) if f.is_finite() => {
            let f = f.clamp(0.0, 1.0);
            let filled = ((f * WIDTH as f64) as usize).min(WIDTH);
            format!(
                "[{}{}] {:5.1}%  {counts}",
                "#".repeat(filled),
                "-".repeat(WIDTH - filled),
                f * 100.0
            )
        }
        _ => counts,
    }
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
    fn renders_bar_percent_and_counts() {
        let text = render(1_234_567, Some(0.5), Duration::from_secs(2));
        assert_eq!(
            text,
            "[############------------]  50.0%  1,234,567 rows  617,283 rows/s  2.0 s"
        );
        let text = render(10, None, Duration::from_millis(500));
        assert_eq!(text, "10 rows  20 rows/s  0.5 s");
        // Out-of-range fractions are clamped, not drawn past the bracket.
        let text = render(0, Some(3.0), Duration::ZERO);
        assert!(
            text.starts_with("[########################] 100.0%"),
            "{text}"
        );
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }
}
