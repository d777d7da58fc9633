//! Row groups decoded ahead: the reader's second axis of parallelism, beside the
//! columns of a batch ([`super::pool`]).
//!
//! Column parallelism alone is limited by the costliest column (a file's one long
//! string column can be most of its decode). So a reader with threads keeps two row
//! groups open: the one being read and the next. Whenever the one being read has no
//! batch ready, one step decodes the next batch of each open row group, the columns of
//! both as one list of tasks that the caller's thread and the pool's take from
//! ([`super::pool::decode_columns`]: no thread ever waits on another while a task is
//! left, and nothing runs once the step returns). The next row group's batches wait in
//! order until the one before it is read.
//!
//! ```text
//!   step:   row group g   batch k   [col 0] [col 1] ... ┐  one list of tasks
//!           row group g+1 batch k   [col 0] [col 1] ... ┘
//!   read:   g's batches as they come, then g+1's (already decoded), then g+2's
//! ```
//!
//! Opening a row group is the reader's business (`open_next`): the file reader reads its
//! small chunks there; the async stream hands over a row group whose fetch is done, or
//! says its chunks are still on their way ([`Opening::Fetching`]), and the step goes on
//! with those open.
//!
//! Row groups are opened in pairs, so that the two decoded together are in step: their
//! costly first batches (dictionary pages, the first page of each column) fall in the
//! same step, where the threads share them. The caller's thread opens row groups beside
//! a step (reading their small chunks, building their column readers): the next pair
//! when the step decodes the last batches of those open, one when fewer than two are
//! open. Only the file's first two are a step apart: the first is opened before any
//! step, with nothing to decode beside it, and the second beside the first one's first
//! batch (opening both first would be time the pool waits). Row groups read in one
//! batch each are opened one at a time: every batch is a first one, nothing to pair.
//!
//! A row group's next batch is planned as soon as the one before it is decoded, so a
//! row group whose rows are all read ends there, not in a step of empty tasks. The
//! columns of a row group's last batch release their readers' buffers in their own
//! tasks ([`super::column::ColumnReader::release`]); what is left of a row group read to
//! its end (thousands of small frees for a wide one) is dropped beside the next step.
//!
//! Memory: beside the batch being handed out, at most the decoded batches of one row
//! group ahead (the next row group's batches, as many as the current one has had), the
//! readers of the row group read last until the next step, and those of the row groups
//! opened beside the last step of two (a pair; one when they are read in one batch).

use std::collections::VecDeque;
use std::sync::Arc;

use arrow_array::RecordBatch;
use rayon::ThreadPool;

use super::pool::{ColumnTask, TaskOutcome, decode_columns};
use super::row_group::{BatchPlan, RowGroupDecoder};
use super::selection::RowSelector;
use crate::error::{Error, Result};

/// How many row groups are decoded at once: the one being read and the next (a pair,
/// opened together).
const OPEN_ROW_GROUPS: usize = 2;

/// The row groups a reader with threads has open, decoded a batch of each at a time.
#[derive(Debug)]
pub(crate) struct Lookahead {
    pool: Arc<ThreadPool>,
    /// In the order they are read; the first is the one being read.
    open: VecDeque<OpenRowGroup>,
    /// The error opening the row group after those open: handed out after their batches.
    failed: Option<Error>,
    /// No row group is left to open.
    exhausted: bool,
    /// The row group read to its end last, dropped beside the next step.
    retired: Option<RowGroupDecoder>,
    /// Per column, what the first batch of the row group opened last took: the
    /// expected cost of the next row group's first batch, which also reads the column's
    /// dictionary (tenfold a later batch for a long string column: ordered by a later
    /// batch's cost, or last for not being known, it would end its step alone).
    first_batch_costs: Vec<u64>,
}

/// What opening the next row group gave.
pub(crate) type Opened = Result<Opening>;

/// What asking for the next row group found.
// Made and moved once per row group: boxing the decoder would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Opening {
    /// Its decoder and the selection's runs over its rows.
    RowGroup(RowGroupDecoder, VecDeque<RowSelector>),
    /// Its chunks are still on their way (an async input): asked for again at the next
    /// step, or, with nothing open to decode meanwhile, once they are here
    /// ([`Next::Fetching`]).
    #[cfg_attr(not(feature = "async"), allow(dead_code))]
    Fetching,
    /// No row group is left.
    End,
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
    /// Nothing is open to decode and the next row group's chunks are still on their
    /// way: ask again once they are here.
    Fetching,
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
    /// The next batch to decode; `None` once the row group has ended.
    next: Option<BatchPlan>,
    /// Batches decoded so far.
    batches: usize,
}

impl OpenRowGroup {
    /// A row group opened to read the rows `runs` select, in batches of `batch_size`.
    fn new(
        mut decoder: RowGroupDecoder,
        runs: VecDeque<RowSelector>,
        batch_size: usize,
        first_batch_costs: &[u64],
    ) -> Self {
        decoder.expect_costs(first_batch_costs);
        let mut group = Self {
            decoder,
            runs,
            ready: VecDeque::new(),
            error: None,
            next: None,
            batches: 0,
        };
        group.plan_next(batch_size);
        group
    }

    /// Plans the next batch: none when the row group has no step left (every row read,
    /// or only a skip to its end left).
    fn plan_next(&mut self, batch_size: usize) {
        let batch = self.decoder.plan_batch(&mut self.runs, batch_size);
        self.next = (!batch.is_empty()).then_some(batch);
    }

    fn done(&self) -> bool {
        self.next.is_none()
    }

    /// Whether the row group's next batch is its last: it reaches the row group's end,
    /// or the selection's.
    fn ends_with_next_batch(&self) -> bool {
        self.next
            .as_ref()
            .is_none_or(|batch| batch.rows() >= self.decoder.rows_left() || self.runs.is_empty())
    }

    fn progress(&self) -> Progress {
        Progress {
            started: self.batches > 0,
            ends_with_next_batch: self.ends_with_next_batch(),
        }
    }

    /// Takes the batch `batch` (its columns' tasks done with `outcomes`) into the row
    /// group's ready batches and plans the next, or ends the row group.
    fn end_batch(&mut self, batch: &BatchPlan, outcomes: Vec<TaskOutcome>, batch_size: usize) {
        self.batches += 1;
        match self.decoder.end_batch(batch, outcomes) {
            Ok(Some(batch)) => {
                self.ready.push_back(batch);
                self.plan_next(batch_size);
            }
            // A batch of skips alone: the row group may still have rows to read.
            Ok(None) => self.plan_next(batch_size),
            Err(e) => self.error = Some(e),
        }
    }
}

impl Lookahead {
    pub(crate) fn new(pool: Arc<ThreadPool>) -> Self {
        Self {
            pool,
            open: VecDeque::with_capacity(OPEN_ROW_GROUPS),
            failed: None,
            exhausted: false,
            retired: None,
            first_batch_costs: Vec::new(),
        }
    }

    /// Whether another row group may be opened.
    fn wants_row_group(&self) -> bool {
        self.open.len() < OPEN_ROW_GROUPS && self.can_open()
    }

    /// Whether a row group is left to open.
    fn can_open(&self) -> bool {
        self.failed.is_none() && !self.exhausted
    }

    /// Takes what opening the next row group gave: a row group open after those open,
    /// to read the rows its runs (the selection's runs over exactly that row group's
    /// rows) select; nothing yet, while its chunks are fetched; the end of the row
    /// groups; or the reader's error once the row groups open before it are read.
    /// Returns whether a row group was opened.
    fn accept(&mut self, opened: Opened, batch_size: usize) -> bool {
        match opened {
            Ok(Opening::RowGroup(decoder, runs)) => {
                let group = OpenRowGroup::new(decoder, runs, batch_size, &self.first_batch_costs);
                self.open.push_back(group);
                return true;
            }
            Ok(Opening::Fetching) => {}
            Ok(Opening::End) => self.exhausted = true,
            Err(error) => self.failed = Some(error),
        }
        false
    }

    /// The next batch of the row group being read, decoding a step when none is ready;
    /// its error once its batches before the error are handed out. `open_next` opens
    /// the next row group in file order: on the caller's thread while the pool decodes
    /// a step, so that opening one (reading its small chunks, building its column
    /// readers) is not time the pool waits. Its argument says whether the pool is idle
    /// (nothing open to decode beside the opening, as for the first row group): the
    /// opening may then share its reads with the pool.
    pub(crate) fn next_batch(
        &mut self,
        batch_size: usize,
        open_next: &mut dyn FnMut(bool) -> Opened,
    ) -> Result<Next> {
        loop {
            // Nothing open to decode beside the opening: opened first. (One, not a
            // pair: the second is opened beside the first one's first step, which
            // leaves the first pair a step apart; see `step`.)
            while self.open.is_empty() && self.wants_row_group() {
                if !self.accept(open_next(true), batch_size) && self.can_open() {
                    return Ok(Next::Fetching);
                }
            }
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
            if first.done() {
                let pages = first.decoder.page_counts();
                self.retired = self.open.pop_front().map(|group| group.decoder);
                return Ok(Next::RowGroupDone(pages));
            }
            self.step(batch_size, open_next);
        }
    }

    /// Decodes the next batch of every open row group that is not done, every column
    /// of them one task, while the caller's thread drops the row group read last and
    /// opens the next row group if one is wanted.
    fn step(&mut self, batch_size: usize, open_next: &mut dyn FnMut(bool) -> Opened) {
        let wanted = row_groups_to_open(
            self.can_open(),
            self.open.iter().map(OpenRowGroup::progress),
        );
        let retired = self.retired.take();
        let mut groups: Vec<(&mut OpenRowGroup, BatchPlan)> = self
            .open
            .iter_mut()
            .filter_map(|group| {
                let batch = group.next.take()?;
                Some((group, batch))
            })
            .collect();
        // Each row group's tasks in schema order, the row groups in file order; its
        // result is its first failing column's, as on one thread.
        let mut counts = Vec::with_capacity(groups.len());
        let mut tasks: Vec<ColumnTask<'_>> = Vec::new();
        for (group, batch) in &mut groups {
            let before = tasks.len();
            group.decoder.column_tasks(batch, &mut tasks);
            counts.push(tasks.len() - before);
        }
        let mut opened = Vec::with_capacity(wanted);
        decode_columns(&self.pool, &mut tasks, || {
            drop(retired);
            for _ in 0..wanted {
                let next = open_next(false);
                let end = !matches!(next, Ok(Opening::RowGroup(..)));
                opened.push(next);
                if end {
                    break;
                }
            }
        });
        let mut outcomes = tasks.into_iter().map(ColumnTask::into_outcome);
        let outcomes: Vec<Vec<TaskOutcome>> = counts
            .iter()
            .map(|&n| outcomes.by_ref().take(n).collect())
            .collect();
        for ((group, batch), outcomes) in groups.into_iter().zip(outcomes) {
            group.end_batch(&batch, outcomes, batch_size);
            if group.batches == 1 {
                self.first_batch_costs.clear();
                self.first_batch_costs
                    .extend_from_slice(group.decoder.costs());
            }
        }
        for opened in opened {
            self.accept(opened, batch_size);
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

/// What the opening schedule looks at of an open row group.
#[derive(Clone, Copy, Debug)]
struct Progress {
    /// It has decoded a batch.
    started: bool,
    /// Its next batch is its last (or it has ended).
    ends_with_next_batch: bool,
}

/// How many row groups to open beside the next step, given whether one is left to open
/// and the progress of those open (in file order).
///
/// The next pair is opened beside the step that decodes the last batches of those
/// open (then up to four are open, the new pair not yet decoded), so that it is
/// decoded in step: a row group opened a step after its partner would meet its
/// costly first batch beside the partner's light second one, a thread waiting.
/// Row groups read in one batch each are opened one at a time: nothing to pair,
/// and a pair opened ahead would hold a third row group's chunks (wide.arrow-rs,
/// 5 row groups of one 40 MB batch: a fresh process's 2-thread read took 191-223
/// ms opening one, 263-276 ms and 60 MiB more at its peak opening a pair).
/// Otherwise one is opened when fewer than two are open, or when those open all
/// end with this step (a third, not yet decoded, while they are read).
fn row_groups_to_open(can_open: bool, open: impl Iterator<Item = Progress> + Clone) -> usize {
    let started = open.clone().any(|group| group.started);
    let all_end = open.clone().all(|group| group.ends_with_next_batch);
    if !can_open {
        0
    } else if all_end && started {
        OPEN_ROW_GROUPS
    } else if all_end || open.count() < OPEN_ROW_GROUPS {
        1
    } else {
        0
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

    fn progress(started: bool, ends_with_next_batch: bool) -> Progress {
        Progress {
            started,
            ends_with_next_batch,
        }
    }

    #[test]
    fn row_groups_are_opened_alone_at_first_then_in_pairs() {
        let to_open = |groups: &[Progress]| row_groups_to_open(true, groups.iter().copied());
        // Nothing open: the first row group, alone.
        assert_eq!(to_open(&[]), 1);
        // The first one, about to decode its first batch: the second beside that step.
        assert_eq!(to_open(&[progress(false, false)]), 1);
        // Two open mid-way, or one of them ending: none.
        assert_eq!(to_open(&[progress(true, false), progress(true, false)]), 0);
        assert_eq!(to_open(&[progress(true, true), progress(true, false)]), 0);
        assert_eq!(to_open(&[progress(true, false), progress(false, true)]), 0);
        // Both decode their last batches in this step: the next pair beside it.
        assert_eq!(to_open(&[progress(true, true), progress(true, true)]), 2);
        assert_eq!(to_open(&[progress(true, true)]), 2);
        // Row groups read in one batch each (none started, each ending with it): one
        // at a time.
        assert_eq!(to_open(&[progress(false, true), progress(false, true)]), 1);
        assert_eq!(to_open(&[progress(false, true)]), 1);
        // No row group left to open: none, whatever the open ones do.
        for groups in [
            &[][..],
            &[progress(true, true), progress(true, true)],
            &[progress(false, true)],
        ] {
            assert_eq!(row_groups_to_open(false, groups.iter().copied()), 0);
        }
    }
}
