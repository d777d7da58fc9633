//! Row groups decoded ahead: the reader's second axis of parallelism, beside the
//! columns of a batch ([`super::pool`]).
//!
//! Column parallelism alone is limited by the costliest column (a file's one long
//! string column can be most of its decode). So a reader with threads keeps two row
//! groups open: the one being read and the next. Whenever the one being read has no
//! batch ready, one step decodes the next batch of each open row group, all their
//! columns together, as one fork-join on the pool (no thread ever waits on another, and
//! nothing runs once the call returns). The next row group's batches wait in order until
//! the one before it is read.
//!
//! ```text
//!   step:   row group g   batch k   [col 0] [col 1] ... ┐  one par_iter on the pool
//!           row group g+1 batch k   [col 0] [col 1] ... ┘
//!   read:   g's batches as they come, then g+1's (already decoded), then g+2 opens
//! ```
//!
//! Memory: beside the batch being handed out, at most the decoded batches of one row
//! group ahead (the next row group's batches, as many as the current one has had).

use std::collections::VecDeque;
use std::sync::Arc;

use arrow_array::RecordBatch;
use rayon::ThreadPool;
use rayon::prelude::*;

use super::row_group::RowGroupDecoder;
use super::selection::RowSelector;
use crate::error::{Error, Result};

/// How many row groups are open at once: the one being read and the next.
const OPEN_ROW_GROUPS: usize = 2;

/// The row groups a reader with threads has open, decoded a batch of each at a time.
#[derive(Debug)]
pub(crate) struct Lookahead {
    pool: Arc<ThreadPool>,
    /// In the order they are read; the first is the one being read.
    open: VecDeque<OpenRowGroup>,
    /// The error opening the row group after those open: handed out after their batches.
    failed: Option<Error>,
}

/// What [`Lookahead::next_batch`] found.
pub(crate) enum Next {
    /// The next batch in file order.
    Batch(RecordBatch),
    /// The row group being read ended, having decoded and skipped these data pages:
    /// open the next one (if any) and ask again.
    RowGroupDone((usize, usize)),
    /// No row group is open.
    End,
}

/// A row group open for reading, with its share of the row selection.
#[derive(Debug)]
struct OpenRowGroup {
    decoder: RowGroupDecoder,
    runs: VecDeque<RowSelector>,
    /// Batches decoded and not yet handed out, in order.
    ready: VecDeque<RecordBatch>,
    /// The error that ended the row group, handed out after its batches.
    error: Option<Error>,
    done: bool,
}

impl OpenRowGroup {
    /// Decodes the row group's next batch.
    fn advance(&mut self, batch_size: usize) {
        match self.decoder.next_selected_batch(&mut self.runs, batch_size) {
            Ok(Some(batch)) => self.ready.push_back(batch),
            Ok(None) => self.done = true,
            Err(e) => {
                self.error = Some(e);
                self.done = true;
            }
        }
    }
}

impl Lookahead {
    pub(crate) fn new(pool: Arc<ThreadPool>) -> Self {
        Self {
            pool,
            open: VecDeque::with_capacity(OPEN_ROW_GROUPS),
            failed: None,
        }
    }

    /// Whether another row group may be opened.
    pub(crate) fn wants_row_group(&self) -> bool {
        self.open.len() < OPEN_ROW_GROUPS && self.failed.is_none()
    }

    /// Records that opening the next row group failed with `error`: the reader's error
    /// once the row groups open before it are read.
    pub(crate) fn push_error(&mut self, error: Error) {
        self.failed = Some(error);
    }

    /// Opens `decoder`'s row group after those open, to read the rows `runs` (the
    /// selection's runs over exactly that row group's rows) select.
    pub(crate) fn push(&mut self, decoder: RowGroupDecoder, runs: VecDeque<RowSelector>) {
        self.open.push_back(OpenRowGroup {
            decoder,
            runs,
            ready: VecDeque::new(),
            error: None,
            done: false,
        });
    }

    /// The next batch of the row group being read, decoding a step when none is ready;
    /// its error once its batches before the error are handed out.
    pub(crate) fn next_batch(&mut self, batch_size: usize) -> Result<Next> {
        loop {
            let Some(first) = self.open.front_mut() else {
                return match self.failed.take() {
                    Some(error) => Err(error),
                    None => Ok(Next::End),
                };
            };
            if let Some(batch) = first.ready.pop_front() {
                return Ok(Next::Batch(batch));
            }
            if let Some(error) = first.error.take() {
                return Err(error);
            }
            if first.done {
                let pages = first.decoder.page_counts();
                self.open.pop_front();
                return Ok(Next::RowGroupDone(pages));
            }
            let open = &mut self.open;
            self.pool.install(|| {
                open.par_iter_mut()
                    .with_max_len(1)
                    .filter(|group| !group.done)
                    .for_each(|group| group.advance(batch_size));
            });
        }
    }

    /// Data pages decoded and skipped so far by the open row groups.
    pub(crate) fn page_counts(&self) -> (usize, usize) {
        self.open.iter().fold((0, 0), |(d, s), group| {
            let (decoded, skipped) = group.decoder.page_counts();
            (d + decoded, s + skipped)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::selection::take_rows;

    #[test]
    fn taking_rows_splits_the_run_that_crosses_the_row_group() {
        let mut runs: VecDeque<_> = [
            RowSelector::skip(3),
            RowSelector::select(5),
            RowSelector::skip(0),
            RowSelector::select(4),
        ]
        .into();
        let first = take_rows(&mut runs, 6);
        assert_eq!(
            first,
            VecDeque::from([RowSelector::skip(3), RowSelector::select(3)])
        );
        let second = take_rows(&mut runs, 6);
        assert_eq!(
            second,
            VecDeque::from([RowSelector::select(2), RowSelector::select(4)])
        );
        assert!(runs.is_empty());
        assert!(
            take_rows(&mut runs, 6).is_empty(),
            "past the selection: nothing"
        );
    }
}
