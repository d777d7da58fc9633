//! Parallel decode of one batch: the columns of a row group are independent (each has
//! its own pages, levels and buffers), so a batch's columns are decoded side by side on
//! a rayon pool, then assembled in order as on one thread. Only the batch memory limit
//! is shared: every column charges one count ([`Budget::shared`]), so the batch keeps to
//! the same limit, and a batch that fits on one thread fits here.
//!
//! The reader above adds the other axis, row groups ([`super::lookahead`]).

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use super::budget::Budget;
use super::column::ColumnReader;
use crate::error::{Error, Result};

/// The pool of `threads` decode threads, or `None` for one thread (the caller's: no pool
/// and nothing shared, the sequential code path).
pub(crate) fn decode_pool(threads: usize) -> Result<Option<Arc<ThreadPool>>> {
    if threads <= 1 {
        return Ok(None);
    }
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("herringbone-reader-{i}"))
        .build()
        .map(|pool| Some(Arc::new(pool)))
        .map_err(|e| Error::invalid_argument(format!("cannot start {threads} reader threads: {e}")))
}

/// Decodes the columns of a row group's batches on a pool.
#[derive(Debug)]
pub(crate) struct ParallelColumns {
    pool: Arc<ThreadPool>,
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

    /// Applies `steps` to every column in a batch of `selected` rows, as
    /// [`ColumnReader::decode_steps`] does on one thread. Every column is decoded even
    /// when one fails; the error returned is that of the first failing column in the
    /// schema's order, as on one thread (which column runs out of a batch memory limit
    /// first may differ).
    pub(crate) fn decode(
        &mut self,
        columns: &mut [Box<dyn ColumnReader>],
        steps: &[(bool, usize)],
        selected: usize,
    ) -> Result<()> {
        if let Some(budget) = self.budgets.first_mut() {
            budget.reset();
        }
        debug_assert_eq!(columns.len(), self.budgets.len());
        let budgets = &mut self.budgets;
        let results: Vec<Result<()>> = self.pool.install(|| {
            columns
                .par_iter_mut()
                .zip(budgets.par_iter_mut())
                .with_max_len(1)
                .map(|(column, budget)| column.decode_steps(steps, selected, budget))
                .collect()
        });
        results.into_iter().collect()
    }
}
