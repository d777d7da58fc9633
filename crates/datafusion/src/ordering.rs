//! The output ordering of a scan, from the files' `sorting_columns`.
//!
//! A row group's `sorting_columns` say how the rows inside it are sorted. A partition
//! reads several consecutive row groups (of one or more files), so it is sorted only when
//! the groups also follow each other in that order: the chunk statistics of the first sort
//! key show it (the maximum of one group below the minimum of the next, for an ascending
//! key). When they only touch (equal bounds), the partition is still sorted by the first
//! key but not by the later ones.
//!
//! Only keys whose Arrow order is the Parquet sort order are claimed: integers (signed or
//! unsigned as their logical type says), decimals, dates, times, timestamps, booleans,
//! strings and binaries (byte-wise). Floats are left out: Parquet leaves `-0.0`/`+0.0`
//! and NaN open where DataFusion orders them totally.
//!
//! The order inside a row group is the file's claim (as DataFusion trusts a declared file
//! order); [`HerringboneTable::with_sorting_columns`](crate::HerringboneTable) turns it off.

use std::cmp::Ordering;
use std::sync::Arc;

use datafusion::arrow::array::Array;
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::common::ScalarValue;
use datafusion::physical_expr::PhysicalSortExpr;
use datafusion::physical_expr::expressions::Column;
use herringbone::schema::ParquetFieldKind;
use herringbone::statistics::StatisticsConverter;

use crate::exec::Part;
use crate::table::FileEntry;

/// One key of the declared order: a top-level field of the table and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SortKey {
    pub field: usize,
    pub descending: bool,
    pub nulls_first: bool,
}

/// What a row group's chunk statistics say of the first sort key.
#[derive(Debug, Clone, Default)]
struct GroupBounds {
    min: Option<ScalarValue>,
    max: Option<ScalarValue>,
    nulls: Option<u64>,
}

/// The order every row group of every file declares, with the first key's bounds per
/// row group (to tell whether consecutive row groups continue the order).
#[derive(Debug, Clone, Default)]
pub(crate) struct DeclaredOrder {
    keys: Vec<SortKey>,
    /// Per file, per row group.
    bounds: Vec<Vec<GroupBounds>>,
}

impl DeclaredOrder {
    /// The longest order all row groups of `files` share (empty when one has none).
    pub fn of(files: &[Arc<FileEntry>]) -> Self {
        let mut keys: Option<Vec<SortKey>> = None;
        for file in files {
            for group in &file.metadata().row_groups {
                let declared = group
                    .sorting_columns
                    .as_deref()
                    .unwrap_or_default()
                    .iter()
                    .map_while(|c| {
                        let leaf = usize::try_from(c.column_idx).ok()?;
                        Some(SortKey {
                            field: orderable_field(file, leaf)?,
                            descending: c.descending,
                            nulls_first: c.nulls_first,
                        })
                    });
                keys = Some(match keys {
                    None => declared.collect(),
                    Some(common) => common.into_iter().zip(declared).map_while(same).collect(),
                });
            }
        }
        let keys = keys.unwrap_or_default();
        let bounds = match keys.first() {
            Some(first) => files
                .iter()
                .map(|f| first_key_bounds(f, first.field))
                .collect(),
            None => Vec::new(),
        };
        Self { keys, bounds }
    }

    /// The declared keys.
    pub fn keys(&self) -> &[SortKey] {
        &self.keys
    }

    /// How many leading keys every partition's rows follow, reading its row groups in
    /// order.
    pub fn keys_kept(&self, partitions: &[Vec<Part>]) -> usize {
        let mut kept = self.keys.len();
        for partition in partitions {
            let units: Vec<(usize, usize)> = partition
                .iter()
                .flat_map(|p| p.row_groups.iter().map(move |&g| (p.file, g)))
                .collect();
            for pair in units.windows(2) {
                kept = kept.min(self.keys_across(pair[0], pair[1]));
            }
        }
        kept
    }

    /// How many keys hold across the end of row group `a` and the start of `b`.
    fn keys_across(&self, a: (usize, usize), b: (usize, usize)) -> usize {
        let Some(first) = self.keys.first() else {
            return 0;
        };
        let bounds = |(file, group): (usize, usize)| {
            self.bounds
                .get(file)
                .and_then(|f| f.get(group))
                .cloned()
                .unwrap_or_default()
        };
        let (a, b) = (bounds(a), bounds(b));
        // Nulls sit at one end of the order: only the group at that end may hold them.
        let nulls_in_order = if first.nulls_first {
            b.nulls == Some(0)
        } else {
            a.nulls == Some(0)
        };
        if !nulls_in_order {
            return 0;
        }
        // The last value of `a` against the first of `b`, in the key's direction.
        let (last, next) = if first.descending {
            (a.min, b.max)
        } else {
            (a.max, b.min)
        };
        let (Some(last), Some(next)) = (last, next) else {
            return 0;
        };
        let step = last
            .partial_cmp(&next)
            .map(|o| if first.descending { o.reverse() } else { o });
        match step {
            Some(Ordering::Less) => self.keys.len(),
            Some(Ordering::Equal) => 1,
            _ => 0,
        }
    }

    /// The sort expressions of the first `kept` keys over `schema`, the projected table
    /// schema whose fields are the table's `projection` (all fields when `None`), up to
    /// the first key not projected.
    pub fn sort_exprs(
        &self,
        kept: usize,
        schema: &Schema,
        projection: Option<&[usize]>,
    ) -> Vec<PhysicalSortExpr> {
        let mut exprs = Vec::new();
        for key in self.keys.iter().take(kept) {
            let position = match projection {
                Some(p) => p.iter().position(|&f| f == key.field),
                None => Some(key.field),
            };
            let Some(field) = position.and_then(|i| schema.fields().get(i).map(|f| (i, f))) else {
                break;
            };
            exprs.push(PhysicalSortExpr::new(
                Arc::new(Column::new(field.1.name(), field.0)),
                SortOptions {
                    descending: key.descending,
                    nulls_first: key.nulls_first,
                },
            ));
        }
        exprs
    }
}

fn same((a, b): (SortKey, SortKey)) -> Option<SortKey> {
    (a == b).then_some(a)
}

/// The top-level field that is leaf column `leaf`, when its Arrow order is Parquet's.
fn orderable_field(file: &FileEntry, leaf: usize) -> Option<usize> {
    let field = file.mapping.fields().iter().position(
        |f| matches!(f.kind, ParquetFieldKind::Primitive { column, .. } if column == leaf),
    )?;
    let data_type = file.mapping.schema().fields().get(field)?.data_type();
    orderable(data_type).then_some(field)
}

fn orderable(data_type: &DataType) -> bool {
    use DataType::*;
    matches!(
        data_type,
        Boolean
            | Int8
            | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Decimal32(..)
            | Decimal64(..)
            | Decimal128(..)
            | Decimal256(..)
            | Date32
            | Date64
            | Time32(_)
            | Time64(_)
            | Timestamp(..)
            | Utf8
            | LargeUtf8
            | Utf8View
            | Binary
            | LargeBinary
            | BinaryView
            | FixedSizeBinary(_)
    )
}

/// The first key's bounds and null count per row group of `file` (unknown entries when
/// the statistics cannot be read).
fn first_key_bounds(file: &FileEntry, field: usize) -> Vec<GroupBounds> {
    let groups = file.metadata().row_groups.len();
    let leaf = match file.mapping.fields().get(field).map(|f| &f.kind) {
        Some(ParquetFieldKind::Primitive { column, .. }) => *column,
        _ => return vec![GroupBounds::default(); groups],
    };
    let all: Vec<usize> = (0..groups).collect();
    let stats =
        StatisticsConverter::for_leaf(leaf, file.metadata(), file.descriptor(), &file.mapping)
            .and_then(|c| c.row_groups(file.metadata(), &all));
    let Ok(stats) = stats else {
        return vec![GroupBounds::default(); groups];
    };
    let scalar = |array: &dyn Array, i: usize| {
        if array.is_null(i) {
            None
        } else {
            ScalarValue::try_from_array(array, i).ok()
        }
    };
    (0..stats.len())
        .map(|i| GroupBounds {
            min: scalar(stats.min.as_ref(), i),
            max: scalar(stats.max.as_ref(), i),
            nulls: stats
                .null_count
                .is_valid(i)
                .then(|| stats.null_count.value(i)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(keys: usize, bounds: Vec<(i64, i64, u64)>, descending: bool) -> DeclaredOrder {
        DeclaredOrder {
            keys: (0..keys)
                .map(|field| SortKey {
                    field,
                    descending,
                    nulls_first: false,
                })
                .collect(),
            bounds: vec![
                bounds
                    .into_iter()
                    .map(|(min, max, nulls)| GroupBounds {
                        min: Some(ScalarValue::Int64(Some(min))),
                        max: Some(ScalarValue::Int64(Some(max))),
                        nulls: Some(nulls),
                    })
                    .collect(),
            ],
        }
    }

    fn one_partition(groups: Vec<usize>) -> Vec<Vec<Part>> {
        vec![vec![Part {
            file: 0,
            row_groups: groups,
        }]]
    }

    #[test]
    fn consecutive_row_groups_keep_the_order_only_when_their_bounds_follow() {
        let ascending = order(
            2,
            vec![(0, 9, 0), (10, 19, 0), (19, 30, 0), (5, 6, 0)],
            false,
        );
        assert_eq!(ascending.keys_kept(&one_partition(vec![0, 1])), 2);
        // Touching bounds: the first key only.
        assert_eq!(ascending.keys_kept(&one_partition(vec![0, 1, 2])), 1);
        // Overlap, or out of order: none.
        assert_eq!(ascending.keys_kept(&one_partition(vec![0, 3])), 0);
        assert_eq!(ascending.keys_kept(&one_partition(vec![1, 0])), 0);
        // A pruned group in between does not matter; one group per partition always keeps.
        assert_eq!(ascending.keys_kept(&one_partition(vec![0, 2])), 2);
        let singles = vec![
            vec![Part {
                file: 0,
                row_groups: vec![3],
            }],
            vec![Part {
                file: 0,
                row_groups: vec![0],
            }],
        ];
        assert_eq!(ascending.keys_kept(&singles), 2);

        let descending = order(1, vec![(20, 29, 0), (10, 19, 0)], true);
        assert_eq!(descending.keys_kept(&one_partition(vec![0, 1])), 1);
        assert_eq!(descending.keys_kept(&one_partition(vec![1, 0])), 0);
    }

    #[test]
    fn nulls_only_at_their_end() {
        // Nulls last: a group with nulls may only be the last one.
        let nulls = order(1, vec![(0, 9, 0), (10, 19, 3)], false);
        assert_eq!(nulls.keys_kept(&one_partition(vec![0, 1])), 1);
        let nulls = order(1, vec![(0, 9, 2), (10, 19, 0)], false);
        assert_eq!(nulls.keys_kept(&one_partition(vec![0, 1])), 0);
    }
}
