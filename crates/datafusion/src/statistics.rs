//! Planner statistics from the files' column chunk statistics.

use std::sync::Arc;

use datafusion::arrow::array::Array;
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, ScalarValue, Statistics};
use herringbone::schema::ParquetFieldKind;
use herringbone::statistics::{StatisticsArrays, StatisticsConverter};

use crate::table::FileEntry;

/// Statistics of the whole table: exact row counts; per top-level column that is a
/// leaf, null counts and bounds where every row group has them (exact when every bound
/// is, inexact for truncated byte arrays).
pub(crate) fn table_statistics(files: &[Arc<FileEntry>], num_fields: usize) -> Statistics {
    let mut rows = 0usize;
    let mut bytes = 0usize;
    for f in files {
        for g in &f.metadata().row_groups {
            rows = rows.saturating_add(usize::try_from(g.num_rows).unwrap_or(0));
            bytes = bytes.saturating_add(usize::try_from(g.total_byte_size).unwrap_or(0));
        }
    }
    let mut columns = Vec::with_capacity(num_fields);
    for field in 0..num_fields {
        columns.push(column_statistics(files, field).unwrap_or_else(ColumnStatistics::new_unknown));
    }
    Statistics {
        num_rows: Precision::Exact(rows),
        total_byte_size: Precision::Inexact(bytes),
        column_statistics: columns,
    }
}

fn column_statistics(files: &[Arc<FileEntry>], field: usize) -> Option<ColumnStatistics> {
    let mut min: Option<(ScalarValue, bool)> = None;
    let mut max: Option<(ScalarValue, bool)> = None;
    let mut nulls: Option<usize> = Some(0);
    let mut bounds_known = true;
    for f in files {
        let parquet_field = f.mapping.fields().get(field)?;
        let ParquetFieldKind::Primitive { column, .. } = parquet_field.kind else {
            return None;
        };
        let converter =
            StatisticsConverter::for_leaf(column, f.metadata(), f.descriptor(), &f.mapping).ok()?;
        let groups: Vec<usize> = (0..f.metadata().row_groups.len()).collect();
        let stats = converter.row_groups(f.metadata(), &groups).ok()?;
        for i in 0..stats.len() {
            nulls = match (nulls, stats.null_count.is_valid(i)) {
                (Some(n), true) => Some(n.saturating_add(stats.null_count.value(i) as usize)),
                _ => None,
            };
            let all_null = stats.null_count.is_valid(i)
                && stats.null_count.value(i) == stats.row_count.value(i);
            if all_null {
                continue;
            }
            if converter.is_float() {
                // NaNs may lie outside the bounds.
                bounds_known &= stats.nan_count.is_valid(i) && stats.nan_count.value(i) == 0;
            }
            bounds_known &= fold(&mut min, &stats, i, true) && fold(&mut max, &stats, i, false);
        }
    }
    let bound = |b: Option<(ScalarValue, bool)>| match b {
        Some((v, true)) if bounds_known => Precision::Exact(v),
        Some((v, false)) if bounds_known => Precision::Inexact(v),
        _ => Precision::Absent,
    };
    Some(ColumnStatistics {
        null_count: nulls.map_or(Precision::Absent, Precision::Exact),
        max_value: bound(max),
        min_value: bound(min),
        sum_value: Precision::Absent,
        distinct_count: Precision::Absent,
        byte_size: Precision::Absent,
    })
}

/// Folds entry `i` into the running minimum (`is_min`) or maximum; `false` when the
/// entry has no bound (the table's bound is then unknown).
fn fold(
    acc: &mut Option<(ScalarValue, bool)>,
    stats: &StatisticsArrays,
    i: usize,
    is_min: bool,
) -> bool {
    let (array, exact) = if is_min {
        (&stats.min, &stats.min_exact)
    } else {
        (&stats.max, &stats.max_exact)
    };
    if array.is_null(i) {
        return false;
    }
    let Ok(value) = ScalarValue::try_from_array(array, i) else {
        return false;
    };
    let exact = exact.is_valid(i) && exact.value(i);
    *acc = Some(match acc.take() {
        None => (value, exact),
        Some((current, current_exact)) => {
            let replace = match value.partial_cmp(&current) {
                Some(std::cmp::Ordering::Less) => is_min,
                Some(std::cmp::Ordering::Greater) => !is_min,
                _ => false,
            };
            if replace {
                (value, exact)
            } else {
                (current, current_exact)
            }
        }
    });
    true
}
