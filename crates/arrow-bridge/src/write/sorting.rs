//! The check behind `sorting_columns`: when the writer is told the rows are sorted
//! ([`WriterPropertiesBuilder::set_sorting_columns`]), every row group it writes says
//! so in its footer, and every batch is checked against it first: rows out of order
//! are an error naming the column and the row, and nothing of that batch is written.
//!
//! The order is lexicographic over the sorting columns, each ascending or descending
//! with nulls first or last, compared in the Arrow type's order (numbers by value,
//! strings and binaries bytewise, floats in IEEE total order). It holds within each row
//! group, as the specification defines `sorting_columns`: across the end of one batch
//! and the start of the next, not across row groups.
//!
//! [`WriterPropertiesBuilder::set_sorting_columns`]:
//! super::properties::WriterPropertiesBuilder::set_sorting_columns

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, make_array};
use arrow_buffer::NullBuffer;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_ord::ord::{DynComparator, make_comparator};
use arrow_schema::SortOptions;
use herringbone_format::metadata::SortingColumn;

use super::schema::{ParquetSchema, WriteField, WriteKind};
use crate::error::{Error, Result};

/// One sorting column: where its leaf array is in a batch and how it is ordered.
#[derive(Debug, Clone)]
struct SortKey {
    /// Dotted Parquet path, for messages.
    name: String,
    /// Index of the top-level field.
    field: usize,
    /// Positions of the struct children from that field down to the leaf.
    path: Vec<usize>,
    options: SortOptions,
}

/// Checks that batches arrive sorted by the declared sorting columns.
#[derive(Debug)]
pub(crate) struct SortCheck {
    keys: Vec<SortKey>,
    /// The last row checked in the row group in progress (one-slot arrays, per key).
    last: Option<Vec<ArrayRef>>,
}

impl SortCheck {
    /// A check of `columns` (leaf column indices of `schema`); an error when one is not
    /// a leaf, or is under a list or map (such a column has no single value per row).
    pub fn new(columns: &[SortingColumn], schema: &ParquetSchema) -> Result<SortCheck> {
        let keys = columns
            .iter()
            .map(|column| {
                let leaf = usize::try_from(column.column_idx)
                    .ok()
                    .filter(|&i| i < schema.descriptor.num_columns())
                    .ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "sorting column {} is not a leaf column of the schema ({} leaves)",
                            column.column_idx,
                            schema.descriptor.num_columns()
                        ))
                    })?;
                let name = schema
                    .descriptor
                    .column(leaf)
                    .map(|c| c.path().dotted())
                    .unwrap_or_default();
                let (field, path) = schema
                    .fields
                    .iter()
                    .enumerate()
                    .find_map(|(i, f)| path_to(f, leaf).map(|p| (i, p)))
                    .ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "sorting column {name} is inside a list or map: its rows hold no \
                             single value to sort by"
                        ))
                    })?;
                Ok(SortKey {
                    name,
                    field,
                    path,
                    options: SortOptions {
                        descending: column.descending,
                        nulls_first: column.nulls_first,
                    },
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SortCheck { keys, last: None })
    }

    /// Checks `batch`, whose first row is row `first_row` of the file, against the
    /// rows before it in the row group.
    pub fn check(&mut self, batch: &RecordBatch, first_row: u64) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let arrays = self
            .keys
            .iter()
            .map(|key| leaf_array(batch.column(key.field), &key.path))
            .collect::<Result<Vec<_>>>()?;
        let within = self.comparators(&arrays, &arrays)?;
        if let Some(last) = &self.last {
            let across = self.comparators(last, &arrays)?;
            if let Some(k) = out_of_order(&across, 0, 0) {
                return Err(self.unsorted(k, &last[k], 0, &arrays[k], 0, first_row));
            }
        }
        for i in 1..batch.num_rows() {
            if let Some(k) = out_of_order(&within, i - 1, i) {
                return Err(self.unsorted(
                    k,
                    &arrays[k],
                    i - 1,
                    &arrays[k],
                    i,
                    first_row + i as u64,
                ));
            }
        }
        let n = batch.num_rows();
        self.last = Some(arrays.iter().map(|a| a.slice(n - 1, 1)).collect());
        Ok(())
    }

    /// A new row group starts: its rows are not compared with the previous group's.
    pub fn reset(&mut self) {
        self.last = None;
    }

    fn comparators(&self, left: &[ArrayRef], right: &[ArrayRef]) -> Result<Vec<DynComparator>> {
        self.keys
            .iter()
            .zip(left.iter().zip(right))
            .map(|(key, (l, r))| {
                make_comparator(l.as_ref(), r.as_ref(), key.options).map_err(|e| {
                    Error::invalid_argument(format!(
                        "sorting column {} cannot be compared: {e}",
                        key.name
                    ))
                })
            })
            .collect()
    }

    fn unsorted(
        &self,
        k: usize,
        before: &ArrayRef,
        i: usize,
        after: &ArrayRef,
        j: usize,
        row: u64,
    ) -> Error {
        let key = &self.keys[k];
        let show = |a: &ArrayRef, i: usize| {
            ArrayFormatter::try_new(a.as_ref(), &FormatOptions::default().with_null("null"))
                .map(|f| f.value(i).to_string())
                .unwrap_or_else(|_| "?".to_string())
        };
        Error::invalid_argument(format!(
            "column {} is not sorted as sorting_columns declares ({}, nulls {}): row {row} \
             ({}) comes after row {} ({})",
            key.name,
            if key.options.descending {
                "descending"
            } else {
                "ascending"
            },
            if key.options.nulls_first {
                "first"
            } else {
                "last"
            },
            show(after, j),
            row.saturating_sub(1),
            show(before, i),
        ))
    }
}

/// The first key (in order) by which row `i` of the left arrays and row `j` of the
/// right ones differ, when it puts the left row after the right one.
fn out_of_order(comparators: &[DynComparator], i: usize, j: usize) -> Option<usize> {
    for (k, cmp) in comparators.iter().enumerate() {
        match cmp(i, j) {
            Ordering::Less => return None,
            Ordering::Equal => {}
            Ordering::Greater => return Some(k),
        }
    }
    None
}

/// Struct child positions from `field` down to leaf column `leaf`; `None` when the leaf
/// is not under `field` or is under a list.
fn path_to(field: &WriteField, leaf: usize) -> Option<Vec<usize>> {
    match &field.kind {
        WriteKind::Leaf(i) => (*i == leaf).then(Vec::new),
        WriteKind::Struct(children) => children.iter().enumerate().find_map(|(i, child)| {
            let mut path = path_to(child, leaf)?;
            path.insert(0, i);
            Some(path)
        }),
        WriteKind::List(_) => None,
    }
}

/// The leaf array at `path` under `array`, null wherever the leaf or a struct above
/// it is null.
fn leaf_array(array: &ArrayRef, path: &[usize]) -> Result<ArrayRef> {
    let mut current = array.clone();
    let mut nulls: Option<NullBuffer> = None;
    for &i in path {
        let s = current.as_struct_opt().ok_or_else(|| {
            Error::invalid_argument(format!(
                "expected a struct array, got {}",
                current.data_type()
            ))
        })?;
        nulls = NullBuffer::union(nulls.as_ref(), s.nulls());
        current = s.column(i).clone();
    }
    let Some(parents) = nulls else {
        return Ok(current);
    };
    let data = current
        .to_data()
        .into_builder()
        .nulls(NullBuffer::union(Some(&parents), current.nulls()))
        .build()
        .map_err(|e| Error::invalid_argument(format!("sorting column: {e}")))?;
    Ok(make_array(data))
}
