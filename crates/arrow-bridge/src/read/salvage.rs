//! Salvage reading: reading on past damage, as the specification's error recovery
//! section allows, and saying what was lost.
//!
//! With [`super::ParquetRecordBatchReaderBuilder::with_salvage`], each row group the
//! reader opens first goes through a checking pass over its projected chunks (the
//! private `damage` module), page by page, which turns damage into lost row ranges. The
//! lost rows of every column are then taken out of the reader's row selection, and the
//! row group is read by the ordinary reader: a damaged page lies wholly inside a skipped run,
//! so the reader steps over it by its header without touching its bytes; a chunk lost
//! whole makes the row group skipped whole (nothing fetched); the rest of a chunk lost
//! ends the row group's reading there. A row lost in any projected column is dropped
//! from every column: nulls are never made up. Every loss is in the
//! [`SalvageReport`].
//!
//! ```
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! # use bytes::Bytes;
//! use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
//! # let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
//! # let batch = RecordBatch::try_from_iter([("x", column)]).unwrap();
//! # let mut file = Vec::new();
//! # let mut writer = parquet::arrow::ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
//! # writer.write(&batch).unwrap();
//! # writer.close().unwrap();
//! let mut reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
//!     .unwrap()
//!     .with_salvage(true)
//!     .build()
//!     .unwrap();
//! let rows: usize = reader.by_ref().map(|b| b.unwrap().num_rows()).sum();
//! assert_eq!(rows, 3);
//! let report = reader.salvage_report().unwrap();
//! assert!(report.is_clean());
//! ```
//!
//! The cost: a salvage read decodes each row group twice (the check, then the read).
//! A reader built without salvage does none of this.

use std::collections::VecDeque;
use std::ops::Range;

use herringbone_codec::page::{PageLocations, column_chunk_range};
use herringbone_format::metadata::{FileMetaData, OffsetIndex};

pub use super::damage::LossScope;
use super::damage::{ChunkToCheck, check_chunk};
use super::input::{SharedInput, offset_indexes};
use super::row_group::{ReadPlan, chunk_location};
use super::selection::{RowSelector, take_rows};
use crate::error::{Error, Result};

/// Rows a salvage read lost, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostRows {
    /// The row group.
    pub row_group: usize,
    /// The leaf column (dotted path) whose damage lost them; `None` when the loss is
    /// not pinned to one column ([`LossScope::RestOfRowGroup`]: the reason names it).
    pub column: Option<String>,
    /// Index of the damaged page in its chunk (counting the dictionary page), when one
    /// is to blame.
    pub page: Option<usize>,
    /// File offset of that page's header.
    pub offset: Option<u64>,
    /// The rows lost, counted in the row group.
    pub rows: Range<usize>,
    /// The same rows counted in the file.
    pub file_rows: Range<u64>,
    /// How much of the chunk was lost.
    pub scope: LossScope,
    /// What was wrong.
    pub reason: String,
}

impl std::fmt::Display for LostRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "row group {}", self.row_group)?;
        if let Some(column) = &self.column {
            write!(f, ", column {column}")?;
        }
        if let Some(page) = self.page {
            write!(f, ", page {page}")?;
        }
        if let Some(offset) = self.offset {
            write!(f, " (offset {offset})")?;
        }
        write!(
            f,
            ": rows {}..{} lost ({} rows, file rows {}..{}; {}): {}",
            self.rows.start,
            self.rows.end,
            self.rows.len(),
            self.file_rows.start,
            self.file_rows.end,
            self.scope,
            self.reason
        )
    }
}

/// What a salvage read lost so far (complete once the reader is exhausted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SalvageReport {
    losses: Vec<LostRows>,
    rows_dropped: usize,
}

impl SalvageReport {
    /// Every loss, in the order found (row groups in reading order; in a row group,
    /// columns in projection order). Losses of several columns may overlap.
    pub fn losses(&self) -> &[LostRows] {
        &self.losses
    }

    /// Rows the read would have returned without the damage and did not (each counted
    /// once, however many columns lost it).
    pub fn rows_dropped(&self) -> usize {
        self.rows_dropped
    }

    /// Whether nothing was lost.
    pub fn is_clean(&self) -> bool {
        self.losses.is_empty()
    }

    /// Checks the projected chunks of row group `group` (holding `rows` rows) and takes
    /// the rows they lost out of `runs` (whose front is the group's first row).
    /// `offset_indexes` are the chunks' [`fitting_offset_indexes`] (empty: none used);
    /// an index the pages contradict is taken out, so that the reader does not go by it
    /// either.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_row_group(
        &mut self,
        plan: &ReadPlan,
        metadata: &FileMetaData,
        group: usize,
        rows: usize,
        input: &SharedInput,
        offset_indexes: &mut [Option<OffsetIndex>],
        runs: &mut VecDeque<RowSelector>,
    ) -> Result<()> {
        let file_len = input.len();
        let first_row = first_row_of(metadata, group);
        let mut lost = Vec::new();
        for leaf in 0..plan.columns().len() {
            let chunk = ChunkToCheck {
                plan,
                metadata,
                row_group: group,
                leaf,
                input,
                file_len,
                offset_index: offset_indexes.get(leaf).and_then(Option::as_ref),
            };
            let path = plan
                .descriptor()
                .column(plan.columns()[leaf])
                .map(|c| c.path().dotted());
            let checked = check_chunk(&chunk)?;
            if checked.index_contradicted
                && let Some(index) = offset_indexes.get_mut(leaf)
            {
                *index = None;
            }
            for damage in checked.damage {
                if damage.rows.is_empty() {
                    continue;
                }
                lost.push(damage.rows.clone());
                self.losses.push(LostRows {
                    row_group: group,
                    column: path.clone(),
                    page: damage.page,
                    offset: damage.offset,
                    file_rows: first_row + damage.rows.start as u64
                        ..first_row + damage.rows.end as u64,
                    rows: damage.rows,
                    scope: damage.scope,
                    reason: damage.reason,
                });
            }
        }
        if !lost.is_empty() {
            self.rows_dropped += exclude_rows(runs, rows, &merged(lost));
        }
        Ok(())
    }

    /// Records that reading row group `group` failed with `error` with `rows_left` of
    /// its `rows` rows not yet read, and takes those rows off the front of `runs`
    /// (restored to where the failed batch began): the reader goes on with the next
    /// row group.
    pub(crate) fn lose_rest(
        &mut self,
        metadata: &FileMetaData,
        group: usize,
        rows: usize,
        rows_left: usize,
        error: &Error,
        runs: &mut VecDeque<RowSelector>,
    ) {
        let start = rows - rows_left.min(rows);
        let first_row = first_row_of(metadata, group);
        self.rows_dropped += take_rows(runs, rows_left)
            .iter()
            .filter(|run| !run.skip)
            .map(|run| run.row_count)
            .sum::<usize>();
        self.losses.push(LostRows {
            row_group: group,
            column: None,
            page: None,
            offset: None,
            rows: start..rows,
            file_rows: first_row + start as u64..first_row + rows as u64,
            scope: LossScope::RestOfRowGroup,
            reason: error.to_string(),
        });
    }
}

/// The offset index of each planned chunk of row group `group` that a salvage read goes
/// by, in the checking pass and in the reading after it alike: an index that cannot be
/// read, or does not fit its chunk, is left out (that chunk's pages are walked by their
/// headers) instead of failing the row group; so is the index of a chunk in another
/// file. With a fitting index, a page whose header or (repeated column, v1) row count
/// is lost still has a known place and rows: only that page is lost.
pub(crate) fn fitting_offset_indexes(
    plan: &ReadPlan,
    metadata: &FileMetaData,
    group: usize,
    rows: usize,
    input: &SharedInput,
) -> Vec<Option<OffsetIndex>> {
    let Ok(indexes) = offset_indexes(input, metadata, group, plan.columns()) else {
        return Vec::new();
    };
    let created_by = metadata.created_by.as_deref();
    indexes
        .into_iter()
        .zip(plan.columns())
        .map(|(index, &column)| {
            let index = index?;
            let (None, meta) = chunk_location(metadata, group, column).ok()? else {
                return None;
            };
            let range = column_chunk_range(meta, created_by, input.len()).ok()?;
            let len = usize::try_from(range.end - range.start).ok()?;
            PageLocations::new(&index.page_locations, range.start, len, rows as u64)
                .is_ok()
                .then_some(index)
        })
        .collect()
}

/// The file row of row group `group`'s first row.
fn first_row_of(metadata: &FileMetaData, group: usize) -> u64 {
    metadata.row_groups[..group]
        .iter()
        .map(|g| u64::try_from(g.num_rows).unwrap_or(0))
        .sum()
}

/// `ranges` sorted, overlapping and adjacent ones joined.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match out.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
}

/// Turns the rows of `lost` (sorted, disjoint, counted from the front of `runs`, within
/// the next `rows` rows) into skipped rows of `runs`; returns how many selected rows that
/// dropped. Adjacent runs of a kind are joined, so that a damaged page lies inside one
/// skip (which the reader steps over whole).
fn exclude_rows(runs: &mut VecDeque<RowSelector>, rows: usize, lost: &[Range<usize>]) -> usize {
    let taken = take_rows(runs, rows);
    let mut out: Vec<RowSelector> = Vec::with_capacity(taken.len() + 2 * lost.len());
    let mut push = |skip: bool, n: usize| match out.last_mut() {
        Some(last) if last.skip == skip => last.row_count += n,
        _ if n > 0 => out.push(RowSelector { row_count: n, skip }),
        _ => {}
    };
    let mut dropped = 0;
    let mut position = 0;
    let mut next_lost = 0;
    for run in taken {
        let end = position + run.row_count;
        while position < end {
            while lost.get(next_lost).is_some_and(|r| r.end <= position) {
                next_lost += 1;
            }
            let (n, in_lost) = match lost.get(next_lost) {
                Some(r) if r.start <= position => (r.end.min(end) - position, true),
                Some(r) => (r.start.min(end) - position, false),
                None => (end - position, false),
            };
            if in_lost && !run.skip {
                dropped += n;
            }
            push(run.skip || in_lost, n);
            position += n;
        }
    }
    for run in out.into_iter().rev() {
        runs.push_front(run);
    }
    // Skips that no selected row follows select nothing (as in a `RowSelection`): the
    // reader must not step into them (they may cover damage).
    while runs.back().is_some_and(|run| run.skip) {
        runs.pop_back();
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(list: &[(bool, usize)]) -> VecDeque<RowSelector> {
        list.iter()
            .map(|&(skip, row_count)| RowSelector { row_count, skip })
            .collect()
    }

    #[test]
    fn lost_rows_become_one_skip_and_count_only_selected_rows() {
        // Rows 0..10 selected, 10..20 skipped by the caller, 20..30 selected, then the
        // next row group's runs.
        let mut r = runs(&[(false, 10), (true, 10), (false, 15)]);
        let dropped = exclude_rows(&mut r, 30, &merged(vec![5..12, 18..22, 25..26]));
        assert_eq!(dropped, 5 + 2 + 1);
        assert_eq!(
            r,
            runs(&[
                (false, 5),
                (true, 17),
                (false, 3),
                (true, 1),
                (false, 4),
                (false, 5)
            ])
        );
    }

    #[test]
    fn losing_the_rest_of_a_row_group_takes_its_rows_off_the_selection() {
        // Row group 0 (500 rows, 64 of them read): 136 selected and 300 skipped rows left,
        // then row group 1's 500 selected rows, which must stay at the front.
        let mut r = runs(&[(false, 136), (true, 300), (false, 500)]);
        let mut report = SalvageReport::default();
        let error = Error::corrupt("a page the check found sound");
        report.lose_rest(&FileMetaData::default(), 0, 500, 436, &error, &mut r);
        assert_eq!(r, runs(&[(false, 500)]));
        assert_eq!(report.rows_dropped(), 136);
        let loss = &report.losses()[0];
        assert_eq!(
            (loss.rows.clone(), loss.scope),
            (64..500, LossScope::RestOfRowGroup)
        );
    }

    #[test]
    fn overlapping_and_adjacent_losses_merge() {
        assert_eq!(merged(vec![5..8, 0..2, 2..3, 7..10]), vec![0..3, 5..10]);
    }

    #[test]
    fn runs_shorter_than_the_group_are_left_short() {
        let mut r = runs(&[(false, 4)]);
        assert_eq!(exclude_rows(&mut r, 10, std::slice::from_ref(&(2..8))), 2);
        // The trailing skip selects nothing: dropped.
        assert_eq!(r, runs(&[(false, 2)]));
        let mut r = runs(&[(false, 10), (true, 5), (false, 5)]);
        assert_eq!(exclude_rows(&mut r, 10, std::slice::from_ref(&(6..10))), 4);
        // The next row group's runs are left as they were.
        assert_eq!(r, runs(&[(false, 6), (true, 4), (true, 5), (false, 5)]));
    }
}
