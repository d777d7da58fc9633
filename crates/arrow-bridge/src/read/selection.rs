//! Row selection: which rows of the selected row groups a reader returns, as runs of
//! rows to select or skip.
//!
//! Offset and limit are expressed as selections too, so the reader has one mechanism
//! for every way of choosing rows.

use std::collections::VecDeque;
use std::ops::Range;

/// A run of rows to select or skip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowSelector {
    /// Number of rows in the run.
    pub row_count: usize,
    /// Whether the rows are skipped (`true`) or selected.
    pub skip: bool,
}

impl RowSelector {
    /// Selects `row_count` rows.
    pub fn select(row_count: usize) -> Self {
        Self {
            row_count,
            skip: false,
        }
    }

    /// Skips `row_count` rows.
    pub fn skip(row_count: usize) -> Self {
        Self {
            row_count,
            skip: true,
        }
    }
}

/// Which rows to read: runs of selected and skipped rows over the rows of the selected
/// row groups, in order. Rows after the last run are not read.
///
/// ```
/// use herringbone_arrow_bridge::read::{RowSelection, RowSelector};
///
/// // Rows 2..5 and 8..10 of a 12-row file.
/// let selection = RowSelection::from_consecutive_ranges([2..5, 8..10], 12);
/// assert_eq!(selection.selected_rows(), 5);
/// assert_eq!(
///     selection.selectors(),
///     &[
///         RowSelector::skip(2),
///         RowSelector::select(3),
///         RowSelector::skip(3),
///         RowSelector::select(2),
///     ]
/// );
/// // The second and third selected rows (rows 3 and 4).
/// let page = selection.offset(1).limit(2);
/// assert_eq!(
///     page.selectors(),
///     &[RowSelector::skip(3), RowSelector::select(2)]
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowSelection {
    selectors: Vec<RowSelector>,
}

impl RowSelection {
    /// Every one of `rows` rows.
    pub fn all(rows: usize) -> Self {
        Self::from(vec![RowSelector::select(rows)])
    }

    /// The rows of sorted, non-overlapping `ranges` out of `total_rows` rows. Ranges
    /// out of order, overlapping or beyond `total_rows` are clipped to what is left.
    pub fn from_consecutive_ranges(
        ranges: impl IntoIterator<Item = Range<usize>>,
        total_rows: usize,
    ) -> Self {
        let mut selectors = Vec::new();
        let mut at = 0;
        for range in ranges {
            let start = range.start.max(at).min(total_rows);
            let end = range.end.min(total_rows);
            if end <= start {
                continue;
            }
            selectors.push(RowSelector::skip(start - at));
            selectors.push(RowSelector::select(end - start));
            at = end;
        }
        Self::from(selectors)
    }

    /// The runs, merged (adjacent runs of the same kind joined, empty runs dropped).
    pub fn selectors(&self) -> &[RowSelector] {
        &self.selectors
    }

    /// Number of rows selected.
    pub fn selected_rows(&self) -> usize {
        self.selectors
            .iter()
            .filter(|s| !s.skip)
            .map(|s| s.row_count)
            .sum()
    }

    /// Number of rows the runs cover, selected or skipped (up to the last selected
    /// row).
    pub fn total_rows(&self) -> usize {
        self.selectors.iter().map(|s| s.row_count).sum()
    }

    /// The same selection without its first `offset` selected rows.
    pub fn offset(self, offset: usize) -> Self {
        let mut left = offset;
        let mut selectors = Vec::with_capacity(self.selectors.len() + 1);
        for s in self.selectors {
            if s.skip || left == 0 {
                selectors.push(s);
            } else if s.row_count <= left {
                left -= s.row_count;
                selectors.push(RowSelector::skip(s.row_count));
            } else {
                selectors.push(RowSelector::skip(left));
                selectors.push(RowSelector::select(s.row_count - left));
                left = 0;
            }
        }
        Self::from(selectors)
    }

    /// The same selection cut after `limit` selected rows.
    pub fn limit(self, limit: usize) -> Self {
        let mut left = limit;
        let mut selectors = Vec::with_capacity(self.selectors.len());
        for s in self.selectors {
            if s.skip {
                selectors.push(s);
                continue;
            }
            if left == 0 {
                break;
            }
            let take = s.row_count.min(left);
            selectors.push(RowSelector::select(take));
            left -= take;
        }
        Self::from(selectors)
    }

    pub(crate) fn into_runs(self) -> VecDeque<RowSelector> {
        self.selectors.into()
    }
}

impl From<Vec<RowSelector>> for RowSelection {
    fn from(runs: Vec<RowSelector>) -> Self {
        let mut selectors: Vec<RowSelector> = Vec::with_capacity(runs.len());
        for run in runs {
            if run.row_count == 0 {
                continue;
            }
            match selectors.last_mut() {
                Some(last) if last.skip == run.skip => last.row_count += run.row_count,
                _ => selectors.push(run),
            }
        }
        // Trailing skips select nothing.
        while selectors.last().is_some_and(|s| s.skip) {
            selectors.pop();
        }
        Self { selectors }
    }
}

impl FromIterator<RowSelector> for RowSelection {
    fn from_iter<I: IntoIterator<Item = RowSelector>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<_>>())
    }
}

/// Takes the runs over the next `rows` rows off the front of `runs` (a run that reaches
/// past them is split): one row group's share of the selection.
pub(crate) fn take_rows(runs: &mut VecDeque<RowSelector>, rows: usize) -> VecDeque<RowSelector> {
    let mut taken = VecDeque::new();
    let mut left = rows;
    while left > 0 {
        let Some(run) = runs.front_mut() else {
            break;
        };
        let n = run.row_count.min(left);
        if n > 0 {
            taken.push_back(RowSelector {
                row_count: n,
                skip: run.skip,
            });
        }
        run.row_count -= n;
        left -= n;
        if run.row_count == 0 {
            runs.pop_front();
        }
    }
    taken
}
