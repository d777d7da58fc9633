//! Parallel decode of one batch: the columns of a row group are independent (each has
//! its own pages, levels and buffers), so a batch's columns are decoded side by side,
//! then assembled in order as on one thread. Only the batch memory limit is shared:
//! every column charges one count ([`Budget::shared`]), so the batch keeps to the same
//! limit, and a batch that fits on one thread fits here.
//!
//! The thread that asks for a batch decodes too: `with_threads(n)` runs `n - 1` pool
//! threads beside it. Every thread takes the next column not yet taken until none is
//! left (a shared counter, not a split fixed in advance, as columns' costs differ
//! tenfold), so the caller's thread is never idle while the pool works, no thread is
//! woken to hand work to another, and the buffers the caller decodes come from its
//! own allocator arena (glibc trims and unmaps the heaps of other threads' arenas as
//! they empty, and the next batch faults them in again: docs/benchmarks.md, "Parallel
//! decode").
//!
//! The reader above adds the other axis, row groups ([`super::lookahead`]).

use std::cmp::Reverse;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use arrow_array::ArrayRef;
use herringbone_format::schema::SchemaDescriptor;
use rayon::{ThreadPool, ThreadPoolBuilder};

use super::assemble::nested;
use super::budget::Budget;
use super::column::ColumnReader;
use crate::error::{Error, Result};
use crate::schema::ParquetField;

/// The pool beside the caller's thread for `threads` decode threads in all, or `None`
/// for one thread (the caller's alone: no pool and nothing shared, the sequential code
/// path).
pub(crate) fn decode_pool(threads: usize) -> Result<Option<Arc<ThreadPool>>> {
    if threads <= 1 {
        return Ok(None);
    }
    ThreadPoolBuilder::new()
        .num_threads(threads - 1)
        .thread_name(|i| format!("herringbone-reader-{i}"))
        .build()
        .map(|pool| Some(Arc::new(pool)))
        .map_err(|e| Error::invalid_argument(format!("cannot start {threads} reader threads: {e}")))
}

/// One column's share of a batch: decoded on whichever thread takes it, and when the
/// column is a top-level field of its own, that field's array built there too (the
/// conversion to its Arrow type and its validity are then off the thread that hands
/// out batches).
#[derive(Debug)]
pub(crate) struct ColumnTask<'a> {
    column: &'a mut dyn ColumnReader,
    budget: &'a mut Budget,
    /// The batch's steps (skip or read, rows), as [`ColumnReader::decode_steps`] takes.
    steps: &'a [(bool, usize)],
    selected: usize,
    field: Option<LoneField<'a>>,
    /// What the column's last batch took (nanoseconds; 0: not known).
    cost: u64,
    /// The batch reaches the end of the column's chunk: its reader is released after it.
    last: bool,
    outcome: TaskOutcome,
}

/// A top-level field that is one leaf column alone.
#[derive(Debug)]
pub(crate) struct LoneField<'a> {
    /// Its index among the batch's fields.
    pub(crate) index: usize,
    /// The leaf column's index in the file schema.
    pub(crate) column: usize,
    pub(crate) field: &'a ParquetField,
    pub(crate) descriptor: &'a SchemaDescriptor,
    /// For errors: the row group decoded.
    pub(crate) row_group: usize,
}

/// What a column's task gave.
#[derive(Debug)]
pub(crate) struct TaskOutcome {
    /// The decode's result.
    pub(crate) decoded: Result<()>,
    /// For a lone field: the field's index and array.
    pub(crate) array: Option<(usize, Result<ArrayRef>)>,
    /// How long the task took, in nanoseconds: the column's cost in the next batch's
    /// order ([`ColumnTask::with_cost`]).
    pub(crate) nanos: u64,
}

impl<'a> ColumnTask<'a> {
    pub(crate) fn new(
        column: &'a mut dyn ColumnReader,
        budget: &'a mut Budget,
        steps: &'a [(bool, usize)],
        selected: usize,
    ) -> Self {
        Self {
            column,
            budget,
            steps,
            selected,
            field: None,
            cost: 0,
            last: false,
            outcome: TaskOutcome {
                decoded: Ok(()),
                array: None,
                nanos: 0,
            },
        }
    }

    /// The column's last batch took `nanos` nanoseconds: costlier tasks are taken first,
    /// so that the one that ends a step is a short one.
    pub(crate) fn with_cost(mut self, nanos: u64) -> Self {
        self.cost = nanos;
        self
    }

    /// The batch ends the column's chunk (`last`): the task then releases the column's
    /// reader ([`ColumnReader::release`]) once done.
    pub(crate) fn ending_chunk(mut self, last: bool) -> Self {
        self.last = last;
        self
    }

    /// The task builds `field`'s array too once the column is decoded.
    pub(crate) fn with_field(mut self, field: Option<LoneField<'a>>) -> Self {
        self.field = field;
        self
    }

    fn run(&mut self) {
        let start = Instant::now();
        self.run_timed();
        self.outcome.nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    }

    fn run_timed(&mut self) {
        self.outcome.decoded =
            self.column
                .decode_batch(self.steps, self.selected, self.budget, self.last);
        if let (Ok(()), Some(lone)) = (&self.outcome.decoded, &self.field) {
            let leaf = self.column.finish();
            let array = nested::primitive(
                lone.field,
                lone.column,
                leaf,
                lone.descriptor,
                self.selected,
            )
            .map_err(|e| e.context(format!("row group {}", lone.row_group)));
            self.outcome.array = Some((lone.index, array));
        }
    }

    /// What decoding the column's share gave.
    pub(crate) fn into_outcome(self) -> TaskOutcome {
        self.outcome
    }
}

/// Decodes every task, on the caller's thread and `pool`'s together, the caller's
/// thread running `beside` first (work of its own that the pool need not wait for);
/// returns when all are done. Every task is run even when one fails (each keeps its
/// own result).
pub(crate) fn decode_columns(
    pool: &ThreadPool,
    tasks: &mut [ColumnTask<'_>],
    beside: impl FnOnce(),
) {
    if tasks.len() <= 1 {
        beside();
        tasks.iter_mut().for_each(ColumnTask::run);
        return;
    }
    // Costliest first (what each column's last batch took; ties in schema order): the
    // last task taken, which the other threads may wait on, is then a cheap one.
    let mut order: Vec<(u64, &mut ColumnTask<'_>)> =
        tasks.iter_mut().map(|t| (t.cost, t)).collect();
    order.sort_by_key(|&(cost, _)| Reverse(cost));
    // A lock per task, taken once by the one thread the counter hands it to: never
    // contended, it only proves to the compiler that the task is not shared.
    let slots: Vec<Mutex<&mut ColumnTask<'_>>> =
        order.into_iter().map(|(_, t)| Mutex::new(t)).collect();
    run_shared(pool, slots.len(), beside, |i| {
        // A poisoned lock means a task panicked; the scope re-raises that panic.
        let mut task = slots[i]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        task.run();
    });
}

/// Runs `job(i)` for every `i` in `0..count` on the caller's thread and `pool`'s
/// together, the caller's thread running `beside` first; returns when all are done.
/// Every thread takes the next index not yet taken (a shared counter, not a split fixed
/// in advance), so no thread waits while an index is left.
fn run_shared(pool: &ThreadPool, count: usize, beside: impl FnOnce(), job: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= count {
                break;
            }
            job(i);
        }
    };
    let helpers = pool.current_num_threads().min(count.saturating_sub(1));
    pool.in_place_scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|_| work());
        }
        beside();
        work();
    });
}

/// `job(i)` for every `i` in `0..count`, run on the caller's thread and `pool`'s
/// together (each thread takes the next index not yet taken), the results in index
/// order. For work with nothing beside it to wait on: the caller takes part, so it
/// does not sit idle while the pool works.
pub(crate) fn map_shared<T: Send>(
    pool: &ThreadPool,
    count: usize,
    job: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    // A lock per slot, taken once by the one thread the counter hands its index to.
    let slots: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    run_shared(
        pool,
        count,
        || {},
        |i| {
            let value = job(i);
            *slots[i]
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(value);
        },
    );
    // Every slot was filled: a job that panicked re-raised its panic above.
    slots
        .into_iter()
        .filter_map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        })
        .collect()
}

/// The column budgets of a row group's batches decoded on a pool.
#[derive(Debug)]
pub(crate) struct ParallelColumns {
    pub(crate) pool: Arc<ThreadPool>,
    /// One per column, all counting the one batch's use.
    budgets: Vec<Budget>,
}

impl ParallelColumns {
    /// Decoding `columns` columns on `pool` within a batch memory limit of `limit` bytes.
    pub(crate) fn new(pool: Arc<ThreadPool>, limit: usize, columns: usize) -> Self {
        let used = Arc::new(AtomicUsize::new(0));
        let budgets = (0..columns)
            .map(|_| Budget::shared(limit, used.clone()))
            .collect();
        Self { pool, budgets }
    }

    /// The tasks of a batch of `selected` rows over `columns` (the batch's memory count
    /// started afresh): `steps` applied to every column, as
    /// [`ColumnReader::decode_steps`] does on one thread, each column released after
    /// them when the batch ends the row group (`last`).
    pub(crate) fn tasks<'a>(
        &'a mut self,
        columns: &'a mut [Box<dyn ColumnReader>],
        steps: &'a [(bool, usize)],
        selected: usize,
        last: bool,
    ) -> impl Iterator<Item = ColumnTask<'a>> {
        if let Some(budget) = self.budgets.first_mut() {
            budget.reset();
        }
        debug_assert_eq!(columns.len(), self.budgets.len());
        columns
            .iter_mut()
            .zip(self.budgets.iter_mut())
            .map(move |(column, budget)| {
                ColumnTask::new(column.as_mut(), budget, steps, selected).ending_chunk(last)
            })
    }

    /// Applies `steps` to every column in a batch of `selected` rows, on the pool and
    /// the caller's thread. Every column is decoded even when one fails; the error
    /// returned is that of the first failing column in the schema's order, as on one
    /// thread (which column runs out of a batch memory limit first may differ).
    pub(crate) fn decode(
        &mut self,
        columns: &mut [Box<dyn ColumnReader>],
        steps: &[(bool, usize)],
        selected: usize,
        last: bool,
    ) -> Result<()> {
        let pool = self.pool.clone();
        let mut tasks: Vec<ColumnTask<'_>> = self.tasks(columns, steps, selected, last).collect();
        decode_columns(&pool, &mut tasks, || {});
        tasks.into_iter().try_for_each(|t| t.into_outcome().decoded)
    }
}

#[cfg(test)]
mod tests {
    use std::thread;

    use super::*;

    #[test]
    fn shared_jobs_run_once_each_on_both_threads_and_come_back_in_order() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let results = map_shared(&pool, 200, |i| {
            // Long enough that the pool's thread takes some before the caller is done.
            thread::sleep(std::time::Duration::from_micros(200));
            (i * 3, thread::current().id())
        });
        let values: Vec<usize> = results.iter().map(|&(v, _)| v).collect();
        assert_eq!(values, (0..200).map(|i| i * 3).collect::<Vec<_>>());
        let caller = thread::current().id();
        assert!(results.iter().any(|&(_, id)| id == caller));
        assert!(results.iter().any(|&(_, id)| id != caller));
        assert!(map_shared(&pool, 0, |i| i).is_empty());
        assert_eq!(map_shared(&pool, 1, |i| i + 1), vec![1]);
    }
}
