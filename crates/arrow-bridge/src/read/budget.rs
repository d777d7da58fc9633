//! The memory limit of one batch: every buffer a batch's columns grow (values, offsets,
//! levels, views) is charged here before it grows, so that a few bytes of a file that
//! claim billions of values (RLE runs, dictionary indices repeating a long value, a
//! FIXED_LEN_BYTE_ARRAY width of 2 GiB, DELTA_BYTE_ARRAY prefixes) end in an error naming
//! the column instead of an allocation the process cannot survive.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, ErrorKind, Result};

/// The default memory limit of one batch (all its columns together): 1 GiB.
pub const DEFAULT_BATCH_MEMORY_LIMIT: usize = 1 << 30;

/// What one batch may still allocate.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    limit: usize,
    used: Used,
}

/// What a batch used so far: counted by the one column reader decoding at a time, or
/// shared by the columns of a batch decoded on several threads at once.
#[derive(Debug, Clone)]
enum Used {
    Own(usize),
    Shared(Arc<AtomicUsize>),
}

impl Budget {
    /// A budget of `limit` bytes, nothing used.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            used: Used::Own(0),
        }
    }

    /// A budget of `limit` bytes whose use is counted in `used`, which every clone of
    /// it shares: one per column of a batch whose columns are decoded in parallel, so
    /// that the batch as a whole keeps to the limit, as it does on one thread.
    pub(crate) fn shared(limit: usize, used: Arc<AtomicUsize>) -> Self {
        Self {
            limit,
            used: Used::Shared(used),
        }
    }

    /// Starts a new batch: nothing used.
    pub(crate) fn reset(&mut self) {
        match &mut self.used {
            Used::Own(used) => *used = 0,
            Used::Shared(used) => used.store(0, Ordering::Relaxed),
        }
    }

    fn used(&self) -> usize {
        match &self.used {
            Used::Own(used) => *used,
            Used::Shared(used) => used.load(Ordering::Relaxed),
        }
    }

    /// Bytes still available.
    pub(crate) fn remaining(&self) -> usize {
        self.limit.saturating_sub(self.used())
    }

    /// Charges `bytes` more to the batch; over the limit, an error (which the column
    /// reader puts its column's path in front of) and nothing charged.
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<()> {
        let limit = self.limit;
        match &mut self.used {
            Used::Own(used) => {
                if bytes <= limit - *used {
                    *used += bytes;
                    return Ok(());
                }
                let needs = used.saturating_add(bytes);
                Err(self.exceeded(Some(needs)))
            }
            // Checked and added in one step, so that columns charging at the same time
            // cannot together pass the limit.
            Used::Shared(used) => {
                match used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                    (bytes <= limit.saturating_sub(u)).then(|| u + bytes)
                }) {
                    Ok(_) => Ok(()),
                    Err(u) => Err(self.exceeded(Some(u.saturating_add(bytes)))),
                }
            }
        }
    }

    /// The error of a batch that would need `bytes` bytes (`None`: more than the
    /// limit, how much more unknown).
    pub(crate) fn exceeded(&self, bytes: Option<usize>) -> Error {
        let limit = size_text(self.limit);
        let needs = match bytes.map(size_text) {
            Some(needs) if needs != limit => format!("{needs} or more, over"),
            _ => "more than".to_string(),
        };
        Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the batch needs {needs} the {limit} batch memory limit \
                 (ParquetRecordBatchReaderBuilder::with_batch_memory_limit, or a smaller batch \
                 size)"
            ),
        )
    }

    /// Makes room in `out` for `additional` more elements, charging their bytes:
    /// capacity grows by doubling, but never past what the budget still allows, so the
    /// vector's allocation stays within the limit too.
    pub(crate) fn reserve<T>(&mut self, out: &mut Vec<T>, additional: usize) -> Result<()> {
        let size = std::mem::size_of::<T>().max(1);
        let bytes = additional.saturating_mul(size);
        self.charge(bytes)?;
        let needed = out.len() + additional;
        if needed > out.capacity() {
            // The budget already covers `needed`; doubling may go further only within
            // what is left of it.
            let affordable = needed + self.remaining() / size;
            let target = needed.max(out.capacity().saturating_mul(2).min(affordable));
            out.reserve_exact(target - out.len());
        }
        Ok(())
    }
}

/// `bytes` in the largest binary unit that keeps it at least 1 (`8 GiB`, `512 MiB`).
pub(crate) fn size_text(bytes: usize) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} bytes");
    }
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_within_the_limit_and_fails_beyond_it() {
        let mut budget = Budget::new(1000);
        budget.charge(600).unwrap();
        assert_eq!(budget.remaining(), 400);
        let error = budget.charge(401).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded);
        let message = error.to_string();
        assert!(
            message.starts_with("the batch needs 1001 bytes"),
            "{message}"
        );
        assert!(
            message.contains("over the 1000 bytes batch memory limit"),
            "{message}"
        );
        assert_eq!(
            budget.remaining(),
            400,
            "nothing charged by a failed charge"
        );
        budget.reset();
        assert_eq!(budget.remaining(), 1000);
    }

    #[test]
    fn shared_budgets_keep_the_batch_to_one_limit() {
        let used = Arc::new(AtomicUsize::new(0));
        let mut first = Budget::shared(1000, used.clone());
        let mut second = Budget::shared(1000, used.clone());
        first.charge(600).unwrap();
        assert_eq!(second.remaining(), 400);
        let error = second.charge(401).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded);
        assert!(
            error.to_string().starts_with("the batch needs 1001 bytes"),
            "{error}"
        );
        second.charge(400).unwrap();
        assert_eq!(first.remaining(), 0);
        // Charged from many threads at once, the total never passes the limit.
        let used = Arc::new(AtomicUsize::new(0));
        let charged: usize = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    let mut budget = Budget::shared(1000, used.clone());
                    scope.spawn(move || (0..100).filter(|_| budget.charge(7).is_ok()).count() * 7)
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(charged, used.load(Ordering::Relaxed));
        assert_eq!(charged, 994, "142 charges of 7 fit in 1000");
        first.reset();
        assert_eq!(second.remaining(), 1000, "a reset clears every clone's use");
    }

    #[test]
    fn reserving_doubles_only_within_the_budget() {
        let mut budget = Budget::new(1024);
        let mut out: Vec<u64> = Vec::new();
        budget.reserve(&mut out, 10).unwrap();
        assert!(out.capacity() >= 10);
        out.extend(0..10);
        // Doubling from 10 would ask for 20; the budget allows 128 elements in all.
        budget.reserve(&mut out, 100).unwrap();
        assert!(
            out.capacity() >= 110 && out.capacity() <= 128,
            "{}",
            out.capacity()
        );
        out.extend(0..100);
        let error = budget.reserve(&mut out, 100).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded);
        // A count whose bytes overflow is an error, not a wrap.
        assert!(budget.reserve(&mut out, usize::MAX / 2).is_err());
    }

    #[test]
    fn sizes_print_in_binary_units() {
        assert_eq!(size_text(512), "512 bytes");
        assert_eq!(size_text(1 << 30), "1 GiB");
        assert_eq!(size_text(8 << 30), "8 GiB");
        assert_eq!(size_text(3 << 19), "1.5 MiB");
        assert_eq!(size_text((8 << 30) - 4), "8 GiB");
    }
}
