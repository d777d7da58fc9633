//! A bound predicate over the rows of a `RecordBatch`, with SQL's three-valued logic.
//!
//! Comparisons, `IN` and `LIKE` over a dictionary column are evaluated once per
//! dictionary entry and then taken through the keys, never on the expanded values;
//! over a run-end encoded column (a reader's runs of dictionary keys), once per run,
//! and the run's verdict given to all its rows at once.

use std::sync::Arc;

use arrow_arith::boolean::{and_kleene, not, or_kleene};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, LargeStringArray, RecordBatch, Scalar, StringArray,
    StringViewArray, make_array,
};
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer};
use arrow_schema::DataType;

use super::CompareOp;
use super::bind::{Bound, BoundPredicate};
use crate::error::{Error, Result};

/// Evaluates `predicate` over `batch`.
pub(super) fn evaluate(predicate: &BoundPredicate, batch: &RecordBatch) -> Result<BooleanArray> {
    let mut columns: Vec<Option<ArrayRef>> = vec![None; predicate.columns.len()];
    let mut ctx = Context {
        predicate,
        batch,
        columns: &mut columns,
    };
    ctx.eval(&predicate.root)
}

/// Nulls (unknown) as false: the rows a filter keeps.
pub(crate) fn null_as_false(mask: BooleanArray) -> BooleanArray {
    if mask.null_count() == 0 {
        return mask;
    }
    arrow_select::filter::prep_null_mask_filter(&mask)
}

struct Context<'a> {
    predicate: &'a BoundPredicate,
    batch: &'a RecordBatch,
    columns: &'a mut Vec<Option<ArrayRef>>,
}

impl Context<'_> {
    fn column(&mut self, index: usize) -> Result<ArrayRef> {
        if let Some(array) = &self.columns[index] {
            return Ok(array.clone());
        }
        let bound = &self.predicate.columns[index];
        let array = column_of(self.batch, &bound.path)?;
        // A reader may hand a column bound as `V` over as dictionary keys over `V`, or
        // runs of them (a row filter's dictionary-encoded chunk): evaluated per entry
        // all the same.
        if !holds_values_of(array.data_type(), &bound.data_type) {
            return Err(Error::invalid_argument(format!(
                "filter: column {} is {} in the batch, the predicate was bound to {}",
                bound.dotted(),
                array.data_type(),
                bound.data_type
            )));
        }
        self.columns[index] = Some(array.clone());
        Ok(array)
    }

    fn eval(&mut self, node: &Bound) -> Result<BooleanArray> {
        let rows = self.batch.num_rows();
        Ok(match node {
            Bound::Const(Some(b)) => BooleanArray::new(
                if *b {
                    BooleanBuffer::new_set(rows)
                } else {
                    BooleanBuffer::new_unset(rows)
                },
                None,
            ),
            Bound::Const(None) => BooleanArray::new_null(rows),
            Bound::NullOr { column, value } => {
                let array = self.column(*column)?;
                let values = if *value {
                    BooleanBuffer::new_set(rows)
                } else {
                    BooleanBuffer::new_unset(rows)
                };
                BooleanArray::new(values, array.logical_nulls())
            }
            Bound::IsNull { column, negated } => {
                let array = self.column(*column)?;
                let valid = match array.logical_nulls() {
                    Some(nulls) => nulls.into_inner(),
                    None => BooleanBuffer::new_set(rows),
                };
                let is_null = !&valid;
                BooleanArray::new(if *negated { valid } else { is_null }, None)
            }
            Bound::Compare { column, op, value } => {
                let array = self.column(*column)?;
                per_value(&array, &|values| compare(values, *op, value))?
            }
            Bound::In {
                column,
                values,
                has_null,
                negated,
            } => {
                let array = self.column(*column)?;
                let matched = per_value(&array, &|v| in_list(v, values))?;
                let matched = if *has_null {
                    // A non-match against a list holding NULL is unknown.
                    let known = matched.values().clone();
                    let nulls =
                        NullBuffer::union(matched.nulls(), Some(&NullBuffer::new(known.clone())));
                    BooleanArray::new(known, nulls)
                } else {
                    matched
                };
                if *negated { not(&matched)? } else { matched }
            }
            Bound::Like {
                column,
                pattern,
                negated,
                case_insensitive,
            } => {
                let array = self.column(*column)?;
                per_value(&array, &|v| like(v, pattern, *negated, *case_insensitive))?
            }
            Bound::Spatial {
                column,
                filter,
                edges,
                negated,
            } => {
                let array = self.column(*column)?;
                let bound = &self.predicate.columns[*column].data_type;
                let array = if array.data_type() == bound {
                    array
                } else {
                    arrow_cast::cast(&array, bound)?
                };
                super::spatial::evaluate(filter, *edges, *negated, &array)?
            }
            Bound::And(list) => {
                let mut acc: Option<BooleanArray> = None;
                for child in list {
                    let value = self.eval(child)?;
                    let next = match acc {
                        None => value,
                        Some(a) => and_kleene(&a, &value)?,
                    };
                    // Nothing can become true again.
                    let done = next.null_count() == 0 && next.true_count() == 0;
                    acc = Some(next);
                    if done {
                        break;
                    }
                }
                acc.unwrap_or_else(|| BooleanArray::new(BooleanBuffer::new_set(rows), None))
            }
            Bound::Or(list) => {
                let mut acc: Option<BooleanArray> = None;
                for child in list {
                    let value = self.eval(child)?;
                    let next = match acc {
                        None => value,
                        Some(a) => or_kleene(&a, &value)?,
                    };
                    let done = next.null_count() == 0 && next.true_count() == rows;
                    acc = Some(next);
                    if done {
                        break;
                    }
                }
                acc.unwrap_or_else(|| BooleanArray::new(BooleanBuffer::new_unset(rows), None))
            }
            Bound::Not(inner) => not(&self.eval(inner)?)?,
        })
    }
}

/// Whether an array of type `array` holds values of type `bound`: of that type, or
/// dictionary keys over such values, or runs of either.
fn holds_values_of(array: &DataType, bound: &DataType) -> bool {
    if array == bound {
        return true;
    }
    match array {
        DataType::Dictionary(_, values) => values.as_ref() == bound,
        DataType::RunEndEncoded(_, values) => holds_values_of(values.data_type(), bound),
        _ => false,
    }
}

/// `f` over the values of `array`: for a dictionary, over its values once, then taken
/// through the keys (a null key is null); for runs, over the runs' values, each
/// result then given to its run's rows.
fn per_value(
    array: &ArrayRef,
    f: &dyn Fn(&dyn Array) -> Result<BooleanArray>,
) -> Result<BooleanArray> {
    if let Some(runs) = array.as_run_opt::<Int32Type>() {
        let on_runs = per_value(&runs.values_slice(), f)?;
        return Ok(spread_runs(
            runs.run_ends().sliced_values(),
            &on_runs,
            array.len(),
        ));
    }
    if let DataType::RunEndEncoded(..) = array.data_type() {
        return Err(Error::unsupported(format!(
            "filter: {} (runs are read with Int32 run ends)",
            array.data_type()
        )));
    }
    if let Some(dict) = array.as_any_dictionary_opt() {
        if dict.values().is_empty() {
            // No entries: every key is null.
            return Ok(BooleanArray::new_null(array.len()));
        }
        let on_values = f(dict.values().as_ref())?;
        let keys = dict.normalized_keys();
        let key_nulls = dict.keys().logical_nulls();
        let entries = on_values.len();
        let entry_true = on_values.values();
        let valid = |i: usize| {
            let k = keys[i];
            k < entries && on_values.is_valid(k) && key_nulls.as_ref().is_none_or(|n| n.is_valid(i))
        };
        // Without nulls among the keys or the entries' results, and keys in range
        // (checked once), a result is one lookup per row.
        let simple =
            key_nulls.is_none() && on_values.null_count() == 0 && keys.iter().all(|&k| k < entries);
        if simple {
            let values = BooleanBuffer::collect_bool(keys.len(), |i| entry_true.value(keys[i]));
            return Ok(BooleanArray::new(values, None));
        }
        let validity = BooleanBuffer::collect_bool(keys.len(), valid);
        let values = BooleanBuffer::collect_bool(keys.len(), |i| {
            validity.value(i) && entry_true.value(keys[i])
        });
        let nulls = NullBuffer::new(validity);
        return Ok(BooleanArray::new(
            values,
            (nulls.null_count() > 0).then_some(nulls),
        ));
    }
    f(array.as_ref())
}

/// One result per row from one per run (`ends`: the runs' ends, the last `rows`).
fn spread_runs(
    ends: impl Iterator<Item = i32>,
    on_runs: &BooleanArray,
    rows: usize,
) -> BooleanArray {
    let mut values = BooleanBufferBuilder::new(rows);
    let mut valid = BooleanBufferBuilder::new(rows);
    let mut start = 0;
    for (run, end) in ends.enumerate() {
        let count = (end as usize).saturating_sub(start);
        values.append_n(count, on_runs.is_valid(run) && on_runs.value(run));
        valid.append_n(count, on_runs.is_valid(run));
        start = end as usize;
    }
    let nulls = NullBuffer::new(valid.finish());
    BooleanArray::new(values.finish(), (nulls.null_count() > 0).then_some(nulls))
}

fn compare(values: &dyn Array, op: CompareOp, value: &ArrayRef) -> Result<BooleanArray> {
    use arrow_ord::cmp;
    let scalar = Scalar::new(value.clone());
    Ok(match op {
        CompareOp::Eq => cmp::eq(&values, &scalar)?,
        CompareOp::NotEq => cmp::neq(&values, &scalar)?,
        CompareOp::Lt => cmp::lt(&values, &scalar)?,
        CompareOp::LtEq => cmp::lt_eq(&values, &scalar)?,
        CompareOp::Gt => cmp::gt(&values, &scalar)?,
        CompareOp::GtEq => cmp::gt_eq(&values, &scalar)?,
    })
}

fn in_list(values: &dyn Array, list: &ArrayRef) -> Result<BooleanArray> {
    let mut acc: Option<BooleanArray> = None;
    for i in 0..list.len() {
        let eq = arrow_ord::cmp::eq(&values, &Scalar::new(list.slice(i, 1)))?;
        acc = Some(match acc {
            None => eq,
            Some(a) => {
                // Both have the nulls of `values`: a plain OR of the bits is enough.
                let bits = a.values() | eq.values();
                BooleanArray::new(bits, a.nulls().cloned())
            }
        });
    }
    Ok(acc.unwrap_or_else(|| {
        BooleanArray::new(
            BooleanBuffer::new_unset(values.len()),
            values.logical_nulls(),
        )
    }))
}

fn like(
    values: &dyn Array,
    pattern: &str,
    negated: bool,
    case_insensitive: bool,
) -> Result<BooleanArray> {
    use arrow_string::like as kernels;
    let pattern: ArrayRef = match values.data_type() {
        DataType::LargeUtf8 => Arc::new(LargeStringArray::from(vec![pattern])),
        DataType::Utf8View => Arc::new(StringViewArray::from(vec![pattern])),
        _ => Arc::new(StringArray::from(vec![pattern])),
    };
    let pattern = Scalar::new(pattern);
    Ok(match (negated, case_insensitive) {
        (false, false) => kernels::like(&values, &pattern)?,
        (true, false) => kernels::nlike(&values, &pattern)?,
        (false, true) => kernels::ilike(&values, &pattern)?,
        (true, true) => kernels::nilike(&values, &pattern)?,
    })
}

/// The array at `path` in `batch`: a top-level column, then struct fields by name. A
/// field under a null struct slot is null.
pub(crate) fn column_of(batch: &RecordBatch, path: &[String]) -> Result<ArrayRef> {
    let missing = || {
        Error::invalid_argument(format!(
            "filter: the batch has no column {}",
            path.join(".")
        ))
    };
    let (first, rest) = path.split_first().ok_or_else(missing)?;
    let mut array = batch.column_by_name(first).ok_or_else(missing)?.clone();
    for name in rest {
        let parent = array.as_struct_opt().ok_or_else(missing)?;
        let child = parent.column_by_name(name).ok_or_else(missing)?.clone();
        array = match parent.nulls() {
            Some(parent_nulls) if parent_nulls.null_count() > 0 => {
                let nulls = NullBuffer::union(Some(parent_nulls), child.nulls());
                let data = child.to_data().into_builder().nulls(nulls).build()?;
                make_array(data)
            }
            _ => child,
        };
    }
    Ok(array)
}
