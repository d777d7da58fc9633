//! Whether an atom of a predicate may be true somewhere in a container (a row group or a
//! page), from that container's statistics.
//!
//! Every answer is conservative: `false` only when no row of the container can make the
//! atom true; unknown statistics answer `true`.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, Datum, Scalar};
use arrow_cast::cast;
use arrow_schema::DataType;

use crate::error::Result;
use crate::predicate::{Bound, CompareOp};
use crate::statistics::StatisticsArrays;

/// The statistics of one column over the containers, and what is known about them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColumnStats<'a> {
    pub stats: &'a StatisticsArrays,
    /// Float column: NaNs (above or below every number in Arrow's order) may be
    /// outside the bounds unless the NaN count is known to be 0.
    pub float: bool,
}

/// Per container, whether `atom` (a node without AND, OR or NOT) may be true.
pub(crate) fn may_match(
    atom: &Bound,
    column: Option<ColumnStats<'_>>,
    n: usize,
) -> Result<Vec<bool>> {
    let Some(ColumnStats { stats, float }) = column else {
        return Ok(match atom {
            Bound::Const(Some(false) | None) | Bound::NullOr { value: false, .. } => vec![false; n],
            _ => vec![true; n],
        });
    };
    // Containers where the column holds only nulls: nothing but IS NULL is true there.
    let all_null: Vec<bool> = (0..n)
        .map(|i| {
            stats.null_count.is_valid(i)
                && stats.row_count.is_valid(i)
                && stats.null_count.value(i) >= stats.row_count.value(i)
        })
        .collect();
    let has_value = |i: usize| !all_null[i];
    let nan_free = |i: usize| stats.nan_count.is_valid(i) && stats.nan_count.value(i) == 0;
    let out: Vec<bool> = match atom {
        Bound::Const(value) => vec![*value == Some(true); n],
        Bound::NullOr { value, .. } => (0..n).map(|i| *value && has_value(i)).collect(),
        Bound::IsNull { negated: false, .. } => (0..n)
            .map(|i| !stats.null_count.is_valid(i) || stats.null_count.value(i) > 0)
            .collect(),
        Bound::IsNull { negated: true, .. } => (0..n).map(has_value).collect(),
        Bound::Compare { op, value, .. } => {
            let satisfiable_by_nan = float && (!matches!(op, CompareOp::Eq) || is_nan(value));
            let by_bounds = compare_bounds(stats, *op, value)?;
            (0..n)
                .map(|i| has_value(i) && (by_bounds[i] || (satisfiable_by_nan && !nan_free(i))))
                .collect()
        }
        Bound::In {
            values,
            has_null,
            negated: false,
            ..
        } => {
            let _ = has_null;
            let mut any = vec![false; n];
            for j in 0..values.len() {
                let value = values.slice(j, 1);
                let hit = compare_bounds(stats, CompareOp::Eq, &value)?;
                let nan = float && is_nan(&value);
                for i in 0..n {
                    any[i] |= hit[i] || nan;
                }
            }
            (0..n).map(|i| has_value(i) && any[i]).collect()
        }
        Bound::In {
            values,
            has_null,
            negated: true,
            ..
        } => {
            if *has_null {
                // `x NOT IN (.., NULL)` is never true.
                vec![false; n]
            } else {
                // False only where every value is the one listed value.
                let mut all_listed = vec![false; n];
                for j in 0..values.len() {
                    let single = single_value(stats, &values.slice(j, 1))?;
                    for i in 0..n {
                        all_listed[i] |= single[i] && (!float || nan_free(i));
                    }
                }
                (0..n).map(|i| has_value(i) && !all_listed[i]).collect()
            }
        }
        Bound::Like {
            pattern,
            negated,
            case_insensitive,
            ..
        } => {
            let (prefix, only_prefix) = literal_prefix(pattern);
            match (negated, case_insensitive, prefix.is_empty()) {
                (false, false, false) => {
                    let within = prefix_overlaps(stats, prefix.as_bytes())?;
                    (0..n).map(|i| has_value(i) && within[i]).collect()
                }
                (true, false, false) if only_prefix => {
                    // False only where every value starts with the prefix.
                    let covered = prefix_covers(stats, prefix.as_bytes())?;
                    (0..n).map(|i| has_value(i) && !covered[i]).collect()
                }
                _ => (0..n).map(has_value).collect(),
            }
        }
        // Pages have no geospatial statistics; row groups go through
        // [`may_match_spatial`].
        Bound::Spatial { .. } => (0..n).map(has_value).collect(),
        Bound::And(_) | Bound::Or(_) | Bound::Not(_) => vec![true; n],
    };
    Ok(out)
}

/// Per row group of `row_groups`, whether the spatial atom may be true, from the
/// geospatial statistics of leaf `leaf` and the null counts in `stats`.
pub(crate) fn may_match_spatial(
    atom: &Bound,
    leaf: usize,
    stats: &StatisticsArrays,
    metadata: &herringbone_format::metadata::FileMetaData,
    row_groups: &[usize],
) -> Result<Vec<bool>> {
    let Bound::Spatial {
        filter,
        edges,
        negated,
        ..
    } = atom
    else {
        return Ok(vec![true; row_groups.len()]);
    };
    let geo = crate::statistics::geo_statistics(metadata, leaf, row_groups)?;
    let has_value = |i: usize| {
        !(stats.null_count.is_valid(i)
            && stats.row_count.is_valid(i)
            && stats.null_count.value(i) >= stats.row_count.value(i))
    };
    Ok(crate::predicate::spatial_may_match(
        filter, *edges, *negated, &geo, &has_value,
    ))
}

fn is_nan(value: &ArrayRef) -> bool {
    match value.data_type() {
        DataType::Float16 => value
            .as_primitive::<arrow_array::types::Float16Type>()
            .value(0)
            .is_nan(),
        DataType::Float32 => value
            .as_primitive::<arrow_array::types::Float32Type>()
            .value(0)
            .is_nan(),
        DataType::Float64 => value
            .as_primitive::<arrow_array::types::Float64Type>()
            .value(0)
            .is_nan(),
        _ => false,
    }
}

/// `op(bounds, value)` per container as the bounds decide it: `true` unless the bounds
/// prove no value satisfies it (unknown bounds, or bounds of another type, are `true`).
fn compare_bounds(stats: &StatisticsArrays, op: CompareOp, value: &ArrayRef) -> Result<Vec<bool>> {
    use arrow_ord::cmp;
    let n = stats.len();
    if stats.min.data_type() != value.data_type() {
        return Ok(vec![true; n]);
    }
    let v = Scalar::new(value.clone());
    let (min, max) = (&stats.min, &stats.max);
    let unknown_true =
        |a: BooleanArray| -> Vec<bool> { a.iter().map(|x| x.unwrap_or(true)).collect() };
    Ok(match op {
        // Some value in min..=max equals v.
        CompareOp::Eq => {
            let lo = unknown_true(cmp::lt_eq(min, &v)?);
            let hi = unknown_true(cmp::gt_eq(max, &v)?);
            (0..n).map(|i| lo[i] && hi[i]).collect()
        }
        CompareOp::NotEq => {
            let single = single_value(stats, value)?;
            single.into_iter().map(|s| !s).collect()
        }
        CompareOp::Lt => unknown_true(cmp::lt(min, &v)?),
        CompareOp::LtEq => unknown_true(cmp::lt_eq(min, &v)?),
        CompareOp::Gt => unknown_true(cmp::gt(max, &v)?),
        CompareOp::GtEq => unknown_true(cmp::gt_eq(max, &v)?),
    })
}

/// Per container, whether every non-null value is known to equal `value` (exact
/// bounds, both equal to it).
fn single_value(stats: &StatisticsArrays, value: &ArrayRef) -> Result<Vec<bool>> {
    let n = stats.len();
    if stats.min.data_type() != value.data_type() {
        return Ok(vec![false; n]);
    }
    let v = Scalar::new(value.clone());
    let lo = arrow_ord::cmp::eq(&stats.min, &v)?;
    let hi = arrow_ord::cmp::eq(&stats.max, &v)?;
    Ok((0..n)
        .map(|i| {
            lo.is_valid(i)
                && lo.value(i)
                && hi.is_valid(i)
                && hi.value(i)
                && stats.min_exact.is_valid(i)
                && stats.min_exact.value(i)
                && stats.max_exact.is_valid(i)
                && stats.max_exact.value(i)
        })
        .collect())
}

/// The fixed text before a LIKE pattern's first wildcard (escapes resolved), and
/// whether the pattern is exactly that text followed by one `%`.
pub(crate) fn literal_prefix(pattern: &str) -> (String, bool) {
    let mut prefix = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) => prefix.push(escaped),
                None => return (prefix, false),
            },
            '%' => return (prefix, chars.as_str().is_empty()),
            '_' => return (prefix, false),
            c => prefix.push(c),
        }
    }
    (prefix, false)
}

/// The smallest byte string above every string that starts with `prefix` (`None` when
/// there is none: a prefix of only 0xFF bytes).
fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut next = prefix.to_vec();
    while let Some(last) = next.pop() {
        if last < 0xFF {
            next.push(last + 1);
            return Some(next);
        }
    }
    None
}

/// Bounds as binary (strings compared as their UTF-8 bytes, which is Arrow's order).
fn as_binary(array: &ArrayRef) -> Option<ArrayRef> {
    match array.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            cast(array, &DataType::Binary).ok()
        }
        _ => None,
    }
}

fn binary_scalar(bytes: &[u8]) -> impl Datum {
    Scalar::new(arrow_array::BinaryArray::from(vec![bytes]))
}

/// Per container, whether `min..=max` meets the strings that start with `prefix`.
fn prefix_overlaps(stats: &StatisticsArrays, prefix: &[u8]) -> Result<Vec<bool>> {
    let n = stats.len();
    let (Some(min), Some(max)) = (as_binary(&stats.min), as_binary(&stats.max)) else {
        return Ok(vec![true; n]);
    };
    let upper_ok: Vec<bool> = arrow_ord::cmp::gt_eq(&max, &binary_scalar(prefix))?
        .iter()
        .map(|x| x.unwrap_or(true))
        .collect();
    let lower_ok: Vec<bool> = match prefix_successor(prefix) {
        Some(next) => arrow_ord::cmp::lt(&min, &binary_scalar(&next))?
            .iter()
            .map(|x| x.unwrap_or(true))
            .collect(),
        None => vec![true; n],
    };
    Ok((0..n).map(|i| upper_ok[i] && lower_ok[i]).collect())
}

/// Per container, whether every value lies among the strings that start with `prefix`.
fn prefix_covers(stats: &StatisticsArrays, prefix: &[u8]) -> Result<Vec<bool>> {
    let n = stats.len();
    let (Some(min), Some(max), Some(next)) = (
        as_binary(&stats.min),
        as_binary(&stats.max),
        prefix_successor(prefix),
    ) else {
        return Ok(vec![false; n]);
    };
    let lo = arrow_ord::cmp::gt_eq(&min, &binary_scalar(prefix))?;
    let hi = arrow_ord::cmp::lt(&max, &binary_scalar(&next))?;
    Ok((0..n)
        .map(|i| lo.is_valid(i) && lo.value(i) && hi.is_valid(i) && hi.value(i))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_prefixes() {
        assert_eq!(literal_prefix("abc%"), ("abc".into(), true));
        assert_eq!(literal_prefix("abc%d"), ("abc".into(), false));
        assert_eq!(literal_prefix("a\\%b%"), ("a%b".into(), true));
        assert_eq!(literal_prefix("ab_"), ("ab".into(), false));
        assert_eq!(literal_prefix("abc"), ("abc".into(), false));
        assert_eq!(prefix_successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_successor(b"a\xFF"), Some(b"b".to_vec()));
        assert_eq!(prefix_successor(b"\xFF\xFF"), None);
    }
}
