//! Late materialisation: a [`RowFilter`] is evaluated inside the decoder, between
//! decoding the fields it reads and decoding the others, so that the other fields are
//! decoded only for the rows it keeps.
//!
//! ```text
//! selection runs ─> steps (skip n / read n) of one batch
//!   1. filter fields: every step ──> arrays ──> RowFilter ──> mask (null = false)
//!   2. other fields:  mask sparse (long runs) ──> steps refined by the mask: only the
//!                     matching rows are read, the rest skipped (pages wholly inside a
//!                     skip are never decompressed)
//!                     mask dense (short runs) ──> every step, then filtered
//!   3. filter fields' arrays filtered by the mask (decoded once, never re-read)
//! ```
//!
//! The rule between 2's two ways: refine when the batch's mask has at most one run of
//! matching rows per [`MIN_ROWS_PER_RUN`] rows decoded (or none at all). Each run
//! costs a read and a skip call per column, and a skip inside a page still walks the
//! levels and steps over the values, so for short runs reading everything and
//! filtering with Arrow's kernel is cheaper; long runs (sorted data, rare matches)
//! skip whole pages. 32 is a starting point, not yet a measured optimum: the filter
//! bench's `late` group times both ways ([`RowFilter::with_min_rows_per_run`]).
//!
//! A filter field that is a top-level leaf of byte arrays (strings, binaries,
//! fixed-length bytes) whose chunk is dictionary-encoded throughout (by its page
//! encoding statistics, or its list of encodings when they leave no doubt) is decoded
//! as dictionary keys over the chunk's dictionary, whatever its output type: the
//! filter sees a `Dictionary(Int32, V)` array, which the predicate evaluates once per
//! dictionary entry and maps through the keys; the values are expanded (a `take` of
//! the dictionary) only for the matching rows, and only when the field is returned.
//! Numbers are left as they are: comparing expanded numbers is as cheap as mapping
//! keys.
//!
//! A filter that takes runs ([`RowFilter::with_key_runs`], as a scan's predicate does)
//! is given such a field that it does not return, numbers included, as runs of equal
//! keys:
//! `RunEndEncoded(Int32, Dictionary(Int32, V))`, a repeated index of the page's RLE
//! hybrid one run however long, a run of nulls one null run. The predicate decides each
//! dictionary entry once and each run once; on sorted or clustered data a batch is a
//! handful of runs. A batch whose runs turn out short comes as plain keys instead.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_buffer::BooleanBuffer;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use herringbone_format::metadata::{ColumnMetaData, Encoding, PageType, Type};

use super::{ReadPlan, RowGroupDecoder};
use crate::error::{Error, Result};
use crate::read::assemble::nested;
use crate::read::selection::RowSelector;
use crate::schema::{ParquetField, ParquetFieldKind};

/// The fewest rows decoded per run of matching rows for which the other fields are read
/// for the matching rows only (see [`RowFilter::with_min_rows_per_run`]).
pub const MIN_ROWS_PER_RUN: usize = 32;

/// The function a [`RowFilter`] evaluates: the rows to keep of a batch holding the
/// filter's fields (a null is a row not kept).
pub type FilterFn = dyn FnMut(&RecordBatch) -> Result<BooleanArray> + Send;

/// A filter the reader evaluates on each batch before it decodes the rest of it
/// ([`crate::read::ParquetRecordBatchReaderBuilder::with_row_filter`]): the fields it
/// names (top-level fields of the projection) are decoded first, the others only for
/// the rows it keeps. The batches returned hold the kept rows only.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int32Array, StringArray, RecordBatch, cast::AsArray, types::Int32Type};
/// # use bytes::Bytes;
/// use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowFilter};
/// # use herringbone_arrow_bridge::write::ArrowWriter;
/// # let x: ArrayRef = Arc::new(Int32Array::from((0..100).collect::<Vec<i32>>()));
/// # let tag: ArrayRef = Arc::new(StringArray::from_iter_values((0..100).map(|i| format!("row {i}"))));
/// # let batch = RecordBatch::try_from_iter([("x", x), ("tag", tag)]).unwrap();
/// # let mut file = Vec::new();
/// # let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
/// # writer.write(&batch).unwrap();
/// # writer.close().unwrap();
/// // `file`: x = 0..100, tag = "row 0" .. "row 99".
/// let filter = RowFilter::new(vec!["x".into()], |batch: &RecordBatch| {
///     let x = batch.column(0).as_primitive::<Int32Type>();
///     Ok(x.iter().map(|v| v.map(|v| v % 10 == 3)).collect())
/// });
/// let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
///     .unwrap()
///     .with_row_filter(filter)
///     .build()
///     .unwrap();
/// let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
/// let tags: Vec<&str> = batches.iter().flat_map(|b| b.column(1).as_string::<i32>().iter().flatten()).collect();
/// assert_eq!(tags, ["row 3", "row 13", "row 23", "row 33", "row 43", "row 53", "row 63", "row 73", "row 83", "row 93"]);
/// ```
pub struct RowFilter {
    fields: Vec<String>,
    evaluate: Box<FilterFn>,
    min_rows_per_run: usize,
    key_runs: bool,
    dropped: Vec<String>,
}

impl RowFilter {
    /// A filter reading the top-level fields `fields` (by name) and keeping the rows
    /// where `evaluate` is true. `evaluate` is given a batch of those fields, in the
    /// order of the reader's schema, some of them perhaps as `Dictionary(Int32, V)`
    /// where the schema says `V` (a dictionary-encoded chunk, read as its keys), and returns one
    /// value per row.
    pub fn new(
        fields: Vec<String>,
        evaluate: impl FnMut(&RecordBatch) -> Result<BooleanArray> + Send + 'static,
    ) -> Self {
        Self {
            fields,
            evaluate: Box::new(evaluate),
            min_rows_per_run: MIN_ROWS_PER_RUN,
            key_runs: false,
            dropped: Vec::new(),
        }
    }

    /// Of the filter's fields, those the batches leave out (the reader's schema too):
    /// read for the filter only, never expanded, filtered or returned. A scan reads
    /// a predicate's columns this way when its projection leaves them out.
    pub fn with_fields_dropped(mut self, fields: Vec<String>) -> Self {
        self.dropped = fields;
        self
    }

    /// Whether the filter function takes fields as runs: a top-level leaf field of
    /// type `V` (any but Boolean) that the batches leave out
    /// ([`Self::with_fields_dropped`]) and whose chunk is dictionary-encoded throughout
    /// may then come as `RunEndEncoded(Int32, Dictionary(Int32, V))` (runs of equal
    /// keys, decided once each), as `Dictionary(Int32, V)` or as `V` (where runs are
    /// short). Off by default; a scan's predicate takes runs.
    pub fn with_key_runs(mut self, key_runs: bool) -> Self {
        self.key_runs = key_runs;
        self
    }

    /// The rule between reading the other fields for the kept rows only and reading
    /// them whole then filtering: the first when a batch's mask has at most one run of
    /// kept rows per `rows` rows decoded (default [`MIN_ROWS_PER_RUN`]; 0: always, for
    /// any mask; `usize::MAX`: only when no row is kept).
    pub fn with_min_rows_per_run(mut self, rows: usize) -> Self {
        self.min_rows_per_run = rows;
        self
    }

    /// The top-level fields it reads.
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// The filter fitted to `plan`: its fields found, the columns split.
    pub(crate) fn resolve(self, plan: &ReadPlan) -> Result<ResolvedFilter> {
        let mut is_filter_field = vec![false; plan.fields.len()];
        for name in &self.dropped {
            if !self.fields.contains(name) {
                return Err(Error::invalid_argument(format!(
                    "row filter: field {name} is dropped but not read by the filter"
                )));
            }
        }
        for name in &self.fields {
            let position = plan
                .fields
                .iter()
                .position(|f| f.field.name() == name)
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "row filter: the projection has no field {name}"
                    ))
                })?;
            is_filter_field[position] = true;
        }
        let mut filter_column = vec![false; plan.columns.len()];
        let mut keyed = vec![false; plan.columns.len()];
        let mut in_runs = vec![false; plan.columns.len()];
        for (position, field) in plan.fields.iter().enumerate() {
            if !is_filter_field[position] {
                continue;
            }
            for leaf in field.leaf_columns() {
                if let Some(i) = plan.columns.iter().position(|&c| c == leaf) {
                    filter_column[i] = true;
                }
            }
            // Runs only for a field not returned: expanding runs of a returned field
            // costs more than deciding them saves.
            let runs = self.key_runs && self.dropped.iter().any(|d| d == field.field.name());
            if let ParquetFieldKind::Primitive {
                column,
                physical_type,
            } = &field.kind
                && (runs
                    || matches!(
                        *physical_type,
                        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY
                    ))
                && *physical_type != Type::BOOLEAN
                && keyable(field.field.data_type())
                && plan.unshredded.is_none()
                && let Some(i) = plan.columns.iter().position(|c| c == column)
            {
                keyed[i] = true;
                in_runs[i] = runs;
            }
        }
        let filter_fields: Vec<usize> = (0..plan.fields.len())
            .filter(|&i| is_filter_field[i])
            .collect();
        let returned: Vec<bool> = plan
            .fields
            .iter()
            .map(|f| !self.dropped.iter().any(|name| name == f.field.name()))
            .collect();
        let filter_schema = Arc::new(Schema::new(
            filter_fields
                .iter()
                .map(|&i| plan.schema.field(i).clone())
                .collect::<Vec<_>>(),
        ));
        // Late only when something is left to decode late, and on the batches as
        // assembled (unshredding Variant columns comes after).
        let late = filter_fields.len() < plan.fields.len() && plan.unshredded.is_none();
        Ok(ResolvedFilter {
            evaluate: self.evaluate,
            min_rows_per_run: self.min_rows_per_run,
            filter_fields,
            filter_column,
            keyed,
            in_runs,
            returned,
            filter_schema,
            late,
        })
    }
}

impl std::fmt::Debug for RowFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowFilter")
            .field("fields", &self.fields)
            .finish_non_exhaustive()
    }
}

/// Whether values of `data_type` can be read as dictionary keys and expanded later.
fn keyable(data_type: &DataType) -> bool {
    !matches!(
        data_type,
        DataType::Dictionary(..) | DataType::Null | DataType::Boolean
    )
}

/// A [`RowFilter`] fitted to a reader's [`ReadPlan`].
pub(crate) struct ResolvedFilter {
    evaluate: Box<FilterFn>,
    min_rows_per_run: usize,
    /// Positions in the plan's fields of the fields the filter reads.
    filter_fields: Vec<usize>,
    /// Per position in the plan's columns: whether it is a leaf of a filter field.
    filter_column: Vec<bool>,
    /// Per position in the plan's columns: read as keys when the chunk is
    /// dictionary-encoded throughout.
    keyed: Vec<bool>,
    /// Per position in the plan's columns: read as runs of keys where keyed.
    in_runs: Vec<bool>,
    /// Per position in the plan's fields: whether the batches hold it.
    returned: Vec<bool>,
    filter_schema: SchemaRef,
    /// Whether the other fields are decoded after the filter (else everything is
    /// decoded, then filtered).
    late: bool,
}

impl std::fmt::Debug for ResolvedFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedFilter")
            .field("filter_fields", &self.filter_fields)
            .field("late", &self.late)
            .finish_non_exhaustive()
    }
}

impl ResolvedFilter {
    /// Per position in the plan's columns: whether the column may be read as keys.
    pub(crate) fn keyed_columns(&self) -> &[bool] {
        &self.keyed
    }

    /// Per position in the plan's columns: whether keys are read in runs.
    pub(crate) fn columns_in_runs(&self) -> &[bool] {
        &self.in_runs
    }

    /// Per position in the plan's fields: whether the batches hold it.
    pub(crate) fn returned_fields(&self) -> &[bool] {
        &self.returned
    }

    /// The rows of `batch` (the filter fields) to keep, nulls as false.
    fn mask(&mut self, batch: &RecordBatch) -> Result<BooleanBuffer> {
        let mask = (self.evaluate)(batch)?;
        if mask.len() != batch.num_rows() {
            return Err(Error::invalid_argument(format!(
                "row filter: {} values for a batch of {} rows",
                mask.len(),
                batch.num_rows()
            )));
        }
        Ok(match mask.nulls() {
            Some(nulls) if nulls.null_count() > 0 => mask.values() & nulls.inner(),
            _ => mask.values().clone(),
        })
    }
}

/// Whether every data page of a chunk is dictionary-encoded, as far as its metadata
/// tells for certain.
pub(crate) fn dictionary_encoded(meta: &ColumnMetaData) -> bool {
    let is_dictionary =
        |e: Encoding| e == Encoding::PLAIN_DICTIONARY || e == Encoding::RLE_DICTIONARY;
    if let Some(stats) = &meta.encoding_stats {
        let mut data = stats
            .iter()
            .filter(|s| s.page_type == PageType::DATA_PAGE || s.page_type == PageType::DATA_PAGE_V2)
            .peekable();
        return data.peek().is_some() && data.all(|s| is_dictionary(s.encoding));
    }
    // Without statistics, PLAIN may be the dictionary page's encoding or a fallback
    // page's: only a list with no value encoding but the dictionary's is certain.
    meta.encodings.iter().any(|&e| is_dictionary(e))
        && meta
            .encodings
            .iter()
            .all(|&e| is_dictionary(e) || e == Encoding::RLE || e == Encoding::BIT_PACKED)
}

/// The read type of a keyed leaf whose field's type is `value`: keys, or runs of keys.
pub(crate) fn keyed_type(value: &DataType, runs: bool) -> DataType {
    let keys = DataType::Dictionary(Box::new(DataType::Int32), Box::new(value.clone()));
    if !runs {
        return keys;
    }
    DataType::RunEndEncoded(
        Arc::new(Field::new("run_ends", DataType::Int32, false)),
        Arc::new(Field::new("values", keys, true)),
    )
}

/// Rows the other fields skipped for the filter, and their data pages stepped over
/// without decompression inside skips the filter made or lengthened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LateCounts {
    pub rows: u64,
    pub pages: usize,
}

/// One step of a batch: skip or read, rows, and (for a skip) whether the filter made
/// or lengthened it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    skip: bool,
    rows: usize,
    by_filter: bool,
}

impl Step {
    /// A skip of no rows yet (the other fields' pending skip).
    pub(crate) fn pending() -> Self {
        Self {
            skip: true,
            rows: 0,
            by_filter: false,
        }
    }
}

impl RowGroupDecoder {
    /// [`Self::next_selected_batch`] with `filter` evaluated before the fields it does
    /// not read are decoded: `Some` batch of the kept rows (perhaps none) while the
    /// row group has selected rows, `None` when it has no more.
    pub(crate) fn next_filtered_batch(
        &mut self,
        runs: &mut VecDeque<RowSelector>,
        max_rows: usize,
        filter: &mut ResolvedFilter,
    ) -> Result<Option<RecordBatch>> {
        let (steps, position, selected) = self.batch_steps(runs, max_rows);
        self.budget.reset();
        let all = |_: usize| true;
        let filter_column = filter.filter_column.clone();
        if selected == 0 {
            if filter.late {
                // Only skips: the other fields take them with their next read.
                self.decode_columns(&|i| filter_column[i], &steps, 0)?;
                self.pending_skip.rows += position;
            } else {
                self.decode_columns(&all, &steps, 0)?;
            }
            self.rows_left -= position;
            return Ok(None);
        }
        let plan = self.plan.clone();
        if !filter.late {
            // Everything, then filtered: the filter reads every field, or the batches
            // are unshredded after assembly.
            self.decode_columns(&all, &steps, selected)?;
            self.rows_left -= position;
            let fields: Vec<usize> = (0..plan.fields.len()).collect();
            let arrays = self.assemble_fields(&fields, selected)?;
            let sub_arrays = filter
                .filter_fields
                .iter()
                .map(|&i| arrays[i].clone())
                .collect();
            let sub = self.filter_batch(filter, sub_arrays, selected)?;
            let mask = BooleanArray::new(filter.mask(&sub)?, None);
            let rows = mask.true_count();
            let arrays = arrays
                .iter()
                .enumerate()
                .filter(|&(i, _)| filter.returned[i])
                .map(|(i, a)| {
                    self.expand(
                        arrow_select::filter::filter(a, &mask)?,
                        plan.schema.field(i),
                    )
                })
                .collect::<Result<Vec<_>>>()?;
            let batch = self.batch_of(plan.returned_schema().clone(), arrays, rows)?;
            return match &plan.unshredded {
                Some(schema) => {
                    let plain = crate::variant::unshred_batch(&batch)?;
                    self.batch_of(schema.clone(), plain.columns().to_vec(), rows)
                        .map(Some)
                }
                None => Ok(Some(batch)),
            };
        }

        // 1. The filter's fields, every row of the batch.
        self.decode_columns(&|i| filter_column[i], &steps, selected)?;
        let filter_arrays = self.assemble_fields(&filter.filter_fields, selected)?;
        let sub = self.filter_batch(filter, filter_arrays.clone(), selected)?;
        let mask = filter.mask(&sub)?;
        let matched = mask.count_set_bits();

        // 2. The other fields: for the matching rows only, or for all and filtered.
        let others = |i: usize| !filter_column[i];
        let other_fields: Vec<usize> = (0..plan.fields.len())
            .filter(|i| !filter.filter_fields.contains(i))
            .collect();
        let slices: Vec<(usize, usize)> = mask.set_slices().collect();
        let refine =
            slices.is_empty() || slices.len().saturating_mul(filter.min_rows_per_run) <= selected;
        let mask = BooleanArray::new(mask, None);
        let other_arrays = if refine {
            let refined = self.defer_tail(refine_steps(&steps, &slices));
            self.decode_refined(&others, &refined, matched)?;
            self.late.rows += (selected - matched) as u64;
            self.assemble_fields(&other_fields, matched)?
        } else {
            let plain = steps.iter().map(|&(skip, rows)| Step {
                skip,
                rows,
                by_filter: false,
            });
            let steps = self.defer_tail(plain.collect());
            self.decode_refined(&others, &steps, selected)?;
            self.assemble_fields(&other_fields, selected)?
                .iter()
                .map(|a| Ok(arrow_select::filter::filter(a, &mask)?))
                .collect::<Result<Vec<_>>>()?
        };
        self.rows_left -= position;

        // 3. The filter's fields, filtered (and expanded where read as keys).
        let mut arrays: Vec<Option<ArrayRef>> = vec![None; plan.fields.len()];
        for (&i, array) in filter.filter_fields.iter().zip(filter_arrays) {
            if !filter.returned[i] {
                continue;
            }
            let kept = if matched == selected {
                array
            } else {
                arrow_select::filter::filter(&array, &mask)?
            };
            arrays[i] = Some(self.expand(kept, plan.schema.field(i))?);
        }
        for (&i, array) in other_fields.iter().zip(other_arrays) {
            arrays[i] = Some(array);
        }
        let arrays = arrays
            .into_iter()
            .zip(&filter.returned)
            .filter(|&(_, &returned)| returned)
            .map(|(a, _)| {
                a.ok_or_else(|| Error::invalid_argument("row filter: a field was not read"))
            })
            .collect::<Result<Vec<_>>>()?;
        self.batch_of(plan.returned_schema().clone(), arrays, matched)
            .map(Some)
    }

    /// `steps` for the other fields: the skip they were left with before it, and their
    /// final skip left for the next batch's (so that skips of batches the filter drops
    /// whole join into one, and a page across batches is stepped over whole; at the end
    /// of the row group it is never applied).
    fn defer_tail(&mut self, mut steps: Vec<Step>) -> Vec<Step> {
        let pending = std::mem::replace(&mut self.pending_skip, Step::pending());
        if pending.rows > 0 {
            match steps.first_mut() {
                Some(first) if first.skip => {
                    first.rows += pending.rows;
                    first.by_filter |= pending.by_filter;
                }
                _ => steps.insert(0, pending),
            }
        }
        if let Some(&last) = steps.last()
            && last.skip
        {
            self.pending_skip = last;
            steps.pop();
        }
        steps
    }

    /// Rows and pages the other fields skipped for a filter so far.
    pub(crate) fn late_counts(&self) -> LateCounts {
        self.late
    }

    /// The batch the filter is given: its fields' arrays, each field of its array's
    /// type (a leaf read as keys is a dictionary).
    fn filter_batch(
        &self,
        filter: &ResolvedFilter,
        arrays: Vec<ArrayRef>,
        rows: usize,
    ) -> Result<RecordBatch> {
        let fields: Vec<Field> = filter
            .filter_schema
            .fields()
            .iter()
            .zip(&arrays)
            .map(|(f, a)| f.as_ref().clone().with_data_type(a.data_type().clone()))
            .collect();
        self.batch_of(Arc::new(Schema::new(fields)), arrays, rows)
    }

    /// A filter field's array as the schema's field says: keys read for a field of
    /// another type are expanded (the dictionary taken through them).
    fn expand(&self, array: ArrayRef, field: &Field) -> Result<ArrayRef> {
        if array.data_type() == field.data_type() {
            return Ok(array);
        }
        arrow_cast::cast(&array, field.data_type()).map_err(|e| {
            Error::from(e).context(format!("row filter: expanding field {}", field.name()))
        })
    }

    fn batch_of(
        &self,
        schema: SchemaRef,
        arrays: Vec<ArrayRef>,
        rows: usize,
    ) -> Result<RecordBatch> {
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        Ok(RecordBatch::try_new_with_options(schema, arrays, &options)?)
    }

    /// Applies `steps` to the columns `which` selects, counting the pages stepped over
    /// in skips the filter made or lengthened.
    fn decode_refined(
        &mut self,
        which: &dyn Fn(usize) -> bool,
        steps: &[Step],
        selected: usize,
    ) -> Result<()> {
        let budget = &mut self.budget;
        for (i, column) in self.columns.iter_mut().enumerate() {
            if !which(i) {
                continue;
            }
            column.begin(selected, budget)?;
            for step in steps {
                if step.skip {
                    let before = column.page_counts().1;
                    column.skip(step.rows)?;
                    if step.by_filter {
                        self.late.pages += column.page_counts().1 - before;
                    }
                } else {
                    column.read(step.rows, budget)?;
                }
            }
        }
        Ok(())
    }

    /// The arrays of the plan's fields at `fields`, from their columns' batches of
    /// `rows` rows; a leaf read as keys keeps its dictionary type.
    fn assemble_fields(&mut self, fields: &[usize], rows: usize) -> Result<Vec<ArrayRef>> {
        let plan = self.plan.clone();
        let mut leaves = HashMap::new();
        for &f in fields {
            for leaf in plan.fields[f].leaf_columns() {
                if let Some(i) = plan.columns.iter().position(|&c| c == leaf) {
                    leaves.insert(leaf, self.columns[i].finish());
                }
            }
        }
        let mut arrays = Vec::with_capacity(fields.len());
        for &f in fields {
            let field = &plan.fields[f];
            let keyed_field;
            let read_as = match &field.kind {
                ParquetFieldKind::Primitive { column, .. } => self
                    .keyed_columns
                    .iter()
                    .find(|(c, _)| c == column)
                    .map(|(_, read_as)| read_as),
                _ => None,
            };
            let field = match read_as {
                Some(read_as) => {
                    keyed_field = keyed(field, read_as);
                    &keyed_field
                }
                None => field,
            };
            arrays.push(
                nested::assemble(field, &mut leaves, &plan.descriptor, rows)
                    .map_err(|e| e.context(format!("row group {}", self.row_group)))?,
            );
        }
        Ok(arrays)
    }
}

/// `field` (a leaf) read as dictionary keys over its values, of type `read_as` (keys,
/// or runs of keys: [`keyed_type`]).
fn keyed(field: &ParquetField, read_as: &DataType) -> ParquetField {
    let mut keyed = field.clone();
    let arrow = field.field.as_ref().clone().with_data_type(read_as.clone());
    keyed.field = Arc::new(arrow);
    keyed
}

/// `steps` (of a batch whose read rows `slices` of the mask keep: ranges over the rows
/// read, in order) with the rows the mask drops skipped. Adjacent skips are joined, so
/// that a page inside them is stepped over whole.
fn refine_steps(steps: &[(bool, usize)], slices: &[(usize, usize)]) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::with_capacity(slices.len() * 2 + steps.len());
    let mut push = |skip: bool, rows: usize, by_filter: bool| {
        if rows == 0 {
            return;
        }
        match out.last_mut() {
            Some(last) if last.skip == skip => {
                last.rows += rows;
                last.by_filter |= by_filter;
            }
            _ => out.push(Step {
                skip,
                rows,
                by_filter,
            }),
        }
    };
    // `read`: position among the rows read; `next`: the first slice not wholly behind.
    let mut read = 0;
    let mut next = 0;
    for &(skip, rows) in steps {
        if skip {
            push(true, rows, false);
            continue;
        }
        let end = read + rows;
        let mut at = read;
        while at < end {
            match slices.get(next) {
                Some(&(start, stop)) if start < end => {
                    if start > at {
                        push(true, start - at, true);
                        at = start;
                    }
                    let until = stop.min(end);
                    push(false, until - at, false);
                    at = until;
                    if stop <= end {
                        next += 1;
                    }
                }
                _ => {
                    push(true, end - at, true);
                    at = end;
                }
            }
        }
        read = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(refined: &[Step]) -> Vec<(bool, usize, bool)> {
        refined
            .iter()
            .map(|s| (s.skip, s.rows, s.by_filter))
            .collect()
    }

    #[test]
    fn refined_steps_skip_what_the_mask_drops() {
        // Read 10, skip 5, read 10; the mask keeps rows 2..4 and 8..13 of the 20 read.
        let refined = refine_steps(&[(false, 10), (true, 5), (false, 10)], &[(2, 4), (8, 13)]);
        assert_eq!(
            steps(&refined),
            [
                (true, 2, true),
                (false, 2, false),
                (true, 4, true),
                (false, 2, false),
                (true, 5, false),
                (false, 3, false),
                (true, 7, true),
            ]
        );
    }

    #[test]
    fn refined_steps_join_skips_around_an_empty_read() {
        let refined = refine_steps(&[(true, 4), (false, 6), (true, 3), (false, 2)], &[(6, 8)]);
        assert_eq!(steps(&refined), [(true, 13, true), (false, 2, false)]);
        let none = refine_steps(&[(false, 100)], &[]);
        assert_eq!(steps(&none), [(true, 100, true)]);
        let all = refine_steps(&[(false, 100)], &[(0, 100)]);
        assert_eq!(steps(&all), [(false, 100, false)]);
    }
}
