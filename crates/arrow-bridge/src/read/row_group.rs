//! The I/O-free decoding core: what a reader reads ([`ReadPlan`]), which byte ranges a
//! row group needs ([`row_group_ranges`]), and the decoder of one row group once they
//! are fetched ([`RowGroupDecoder`]). The synchronous reader is one adapter over it; an
//! asynchronous one fetches the same ranges another way.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Schema, SchemaRef};
use bytes::Bytes;
use herringbone_codec::compression::Codec;
use herringbone_codec::crypto::{ColumnDecryptor, FileDecryptor};
use herringbone_codec::page::{
    ChunkSource, PageLocations, PageReader, PageReaderOptions, column_chunk_range,
};
use herringbone_format::metadata::{ColumnMetaData, FileMetaData, OffsetIndex};
use herringbone_format::schema::SchemaDescriptor;

mod late;

use super::assemble::nested;
use super::budget::{Budget, DEFAULT_BATCH_MEMORY_LIMIT};
use super::column::{ColumnReader, column_reader};
use super::pool::{ColumnTask, LoneField, ParallelColumns, TaskOutcome, decode_columns};
use super::selection::RowSelector;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{ArrowSchemaMapping, ParquetField, ParquetFieldKind};
pub(crate) use late::ResolvedFilter;
pub use late::{FilterFn, MIN_ROWS_PER_RUN, RowFilter};
use late::{LateCounts, Step, dictionary_encoded, keyed_type};

/// The byte ranges a row group's column chunks occupy, one per leaf column of
/// `columns`, in that order: what an I/O adapter fetches before [`RowGroupDecoder::new`].
pub fn row_group_ranges(
    metadata: &FileMetaData,
    row_group: usize,
    columns: &[usize],
    file_len: u64,
) -> Result<Vec<Range<u64>>> {
    if row_group >= metadata.row_groups.len() {
        return Err(Error::invalid_argument(format!(
            "row group {row_group} out of range"
        )));
    }
    columns
        .iter()
        .map(|&c| {
            let meta = chunk_metadata(metadata, row_group, c)?;
            column_chunk_range(meta, metadata.created_by.as_deref(), file_len)
                .map_err(|e| Error::from(e).context(format!("row group {row_group}, column {c}")))
        })
        .collect()
}

/// The metadata of the chunk of leaf `column` in row group `row_group`, which must be
/// in this file: a chunk stored in another file (`file_path`) is an unsupported error
/// here (see [`chunk_location`]).
pub(crate) fn chunk_metadata(
    metadata: &FileMetaData,
    row_group: usize,
    column: usize,
) -> Result<&ColumnMetaData> {
    match chunk_location(metadata, row_group, column)? {
        (None, meta) => Ok(meta),
        (Some(path), _) => Err(external_chunk_unsupported(row_group, column, path)),
    }
}

/// The error for a chunk stored in file `path` where only this file can be read.
pub(crate) fn external_chunk_unsupported(row_group: usize, column: usize, path: &str) -> Error {
    Error::unsupported(format!(
        "row group {row_group}, leaf column {column}: the chunk is stored in file {path:?} \
         (read it with ParquetRecordBatchReaderBuilder::with_external_files)"
    ))
}

/// The file holding the chunk of leaf `column` in row group `row_group` (`None`: this
/// one; else its `file_path`) and the chunk's metadata.
pub(crate) fn chunk_location(
    metadata: &FileMetaData,
    row_group: usize,
    column: usize,
) -> Result<(Option<&str>, &ColumnMetaData)> {
    let chunk = metadata
        .row_groups
        .get(row_group)
        .and_then(|g| g.columns.get(column))
        .ok_or_else(|| {
            Error::corrupt(format!(
                "row group {row_group} has no column chunk for leaf column {column}"
            ))
        })?;
    let meta = chunk.meta_data.as_ref().ok_or_else(|| {
        if chunk.crypto_metadata.is_some() {
            Error::new(ErrorKind::Encrypted, "encrypted: keys required")
        } else {
            Error::corrupt(format!(
                "row group {row_group}, column {column}: column chunk without metadata"
            ))
        }
    })?;
    Ok((chunk.file_path.as_deref().map(|p| p.as_str()), meta))
}

/// What a reader decodes, fixed when it is built and shared by its row groups: the
/// Parquet schema, the (projected) Arrow schema and field tree, the leaf columns to
/// fetch, how pages are checked and how much memory one batch may take. I/O free.
#[derive(Debug, Clone)]
pub struct ReadPlan {
    descriptor: Arc<SchemaDescriptor>,
    schema: SchemaRef,
    fields: Vec<ParquetField>,
    columns: Vec<usize>,
    /// The Arrow type each of `columns` is read into.
    leaf_types: Vec<DataType>,
    options: PageReaderOptions,
    batch_memory_limit: usize,
    decryptor: Option<Arc<FileDecryptor>>,
    /// The schema of the batches when Variant columns are returned unshredded.
    unshredded: Option<SchemaRef>,
    /// Per column: read as dictionary keys where its chunk is dictionary-encoded
    /// throughout (a row filter's leaves; empty: none).
    keyed: Vec<bool>,
    /// Per column: whether those keys are read in runs.
    keys_in_runs: Vec<bool>,
    /// The schema of the batches when a row filter reads fields it does not return.
    returned: Option<SchemaRef>,
    /// The dotted path of each of `columns`, built once for the errors of every chunk.
    paths: Vec<Arc<str>>,
    /// Per column: the index in `fields` of the top-level field that is that column
    /// alone (its decode task on a pool builds the field's array too).
    lone_leaf_fields: Vec<Option<usize>>,
}

impl ReadPlan {
    /// The plan of reading `mapping` (a mapping of `descriptor`, possibly projected).
    pub fn new(
        descriptor: Arc<SchemaDescriptor>,
        mapping: &ArrowSchemaMapping,
        options: PageReaderOptions,
    ) -> Result<Self> {
        fn push_leaf_types(field: &ParquetField, out: &mut Vec<DataType>) {
            match &field.kind {
                ParquetFieldKind::Primitive { .. } => out.push(field.field.data_type().clone()),
                ParquetFieldKind::Struct { children } => {
                    children.iter().for_each(|c| push_leaf_types(c, out));
                }
                ParquetFieldKind::List { element, .. } => push_leaf_types(element, out),
                ParquetFieldKind::Map { key, value, .. } => {
                    push_leaf_types(key, out);
                    push_leaf_types(value, out);
                }
            }
        }
        let mut leaf_types = Vec::new();
        mapping
            .fields()
            .iter()
            .for_each(|f| push_leaf_types(f, &mut leaf_types));
        let columns = mapping.leaf_columns();
        let paths = columns
            .iter()
            .map(|&c| {
                descriptor
                    .column(c)
                    .map_or_else(|| format!("#{c}"), |d| d.path().dotted())
                    .into()
            })
            .collect();
        if leaf_types.len() != columns.len() {
            return Err(Error::invalid_argument(format!(
                "{} leaf types for {} leaf columns",
                leaf_types.len(),
                columns.len()
            )));
        }
        let lone_leaves: HashMap<usize, usize> = mapping
            .fields()
            .iter()
            .enumerate()
            .filter_map(|(i, f)| match f.kind {
                ParquetFieldKind::Primitive { column, .. } => Some((column, i)),
                _ => None,
            })
            .collect();
        let lone_leaf_fields = columns
            .iter()
            .map(|c| lone_leaves.get(c).copied())
            .collect();
        Ok(Self {
            schema: mapping.schema().clone(),
            fields: mapping.fields().to_vec(),
            columns,
            lone_leaf_fields,
            leaf_types,
            descriptor,
            options,
            batch_memory_limit: DEFAULT_BATCH_MEMORY_LIMIT,
            decryptor: None,
            unshredded: None,
            keyed: Vec::new(),
            keys_in_runs: Vec::new(),
            returned: None,
            paths,
        })
    }

    /// The most memory one batch's buffers may take, all columns together (default
    /// [`DEFAULT_BATCH_MEMORY_LIMIT`]); a batch that needs more is an
    /// [`ErrorKind::LimitExceeded`] error naming the column.
    pub fn with_batch_memory_limit(mut self, bytes: usize) -> Self {
        self.batch_memory_limit = bytes;
        self
    }

    /// Decrypts the chunks of encrypted columns with `decryptor` (from
    /// [`super::read_metadata_with_decryption`]).
    pub fn with_decryptor(mut self, decryptor: Option<Arc<FileDecryptor>>) -> Self {
        self.decryptor = decryptor;
        self
    }

    /// The decryptor of leaf column `column`'s chunk in row group `row_group`: `None`
    /// for a plaintext chunk, an [`ErrorKind::Encrypted`] error naming the column when
    /// the chunk is encrypted and its key is missing.
    pub(crate) fn column_decryptor(
        &self,
        metadata: &FileMetaData,
        row_group: usize,
        column: usize,
    ) -> Result<Option<ColumnDecryptor>> {
        let path = || {
            self.descriptor
                .column(column)
                .map_or_else(|| format!("#{column}"), |d| d.path().dotted())
        };
        crate::decryption::chunk_decryptor_named_by(
            self.decryptor.as_deref(),
            metadata,
            row_group,
            column,
            path,
        )
    }

    /// The plan fitted to a row filter (see [`RowFilter`]): its columns read as
    /// dictionary keys (perhaps in runs) in row groups where their chunk is
    /// dictionary-encoded throughout (only [`RowGroupDecoder`]'s filtered batches
    /// expand them), and the fields it drops left out of the batches.
    pub(crate) fn with_row_filter(mut self, filter: &ResolvedFilter) -> Result<Self> {
        self.keyed = filter.keyed_columns().to_vec();
        self.keys_in_runs = filter.columns_in_runs().to_vec();
        let returned = filter.returned_fields();
        if returned.iter().all(|&r| r) {
            return Ok(self);
        }
        let fields: Vec<_> = (0..self.fields.len())
            .filter(|&i| returned[i])
            .map(|i| self.schema.field(i).clone())
            .collect();
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            self.schema.metadata().clone(),
        ));
        if self.unshredded.is_some() {
            self.unshredded = Some(crate::variant::unshredded_schema(&schema)?);
        }
        self.returned = Some(schema);
        Ok(self)
    }

    /// The same plan returning every Variant column unshredded (see
    /// [`super::ParquetRecordBatchReaderBuilder::with_unshredded_variants`]).
    pub fn with_unshredded_variants(mut self) -> Result<Self> {
        self.unshredded = Some(crate::variant::unshredded_schema(&self.schema)?);
        Ok(self)
    }

    /// The leaf columns whose chunks a row group needs, in the order
    /// [`RowGroupDecoder::new`] expects them.
    pub fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        self.unshredded
            .as_ref()
            .unwrap_or_else(|| self.returned_schema())
    }

    /// The schema of the batches before Variant columns are unshredded: the plan's
    /// fields less those a row filter reads only for itself.
    pub(crate) fn returned_schema(&self) -> &SchemaRef {
        self.returned.as_ref().unwrap_or(&self.schema)
    }

    /// The file's Parquet schema, whose columns [`Self::columns`] indexes.
    pub fn descriptor(&self) -> &Arc<SchemaDescriptor> {
        &self.descriptor
    }

    /// The Arrow type each of [`Self::columns`] is read into.
    pub(crate) fn leaf_types(&self) -> &[DataType] {
        &self.leaf_types
    }

    /// How pages are read and checked.
    pub(crate) fn page_options(&self) -> PageReaderOptions {
        self.options
    }

    /// The most memory one batch's buffers may take.
    pub(crate) fn batch_memory_limit(&self) -> usize {
        self.batch_memory_limit
    }
}

/// A column chunk's bytes: fetched whole, or fetched page by page.
enum Chunk {
    Whole(Bytes),
    Fetched(Arc<dyn ChunkSource>),
}

/// One batch of a row group, planned: the steps (skip or read, rows) its columns take,
/// the rows they cover, the rows they read.
#[derive(Debug)]
pub(crate) struct BatchPlan {
    steps: Vec<(bool, usize)>,
    position: usize,
    selected: usize,
}

impl BatchPlan {
    /// Whether the batch has no step: the row group has nothing left to read or skip.
    pub(crate) fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The rows the batch covers (read or skipped).
    pub(crate) fn rows(&self) -> usize {
        self.position
    }
}

/// Decodes one row group from its fetched column chunks, batch by batch. I/O free.
#[derive(Debug)]
pub struct RowGroupDecoder {
    plan: Arc<ReadPlan>,
    row_group: usize,
    columns: Vec<Box<dyn ColumnReader>>,
    rows_left: usize,
    budget: Budget,
    /// A skip that ends the row group is not applied to the columns (salvage: the rest
    /// of a damaged chunk is never read).
    leave_tail_unread: bool,
    /// The leaf columns read as dictionary keys in this row group (a row filter's),
    /// each with the type it is read as (keys, or runs of keys).
    keyed_columns: Vec<(usize, DataType)>,
    /// What a row filter saved so far.
    late: LateCounts,
    /// With a row filter: rows the other fields are still to skip (see
    /// `late::defer_tail`).
    pending_skip: Step,
    /// The columns' decode on a pool (`None`: one after another on the caller's thread).
    parallel: Option<ParallelColumns>,
    /// Per column, what its last batch's task took (nanoseconds): the order of the next
    /// batch's tasks on a pool. Before the first batch, the chunk's uncompressed size
    /// (bytes: what a column's share of the work is, when nothing has been timed).
    costs: Vec<u64>,
}

impl RowGroupDecoder {
    /// A decoder of row group `row_group` of the file described by `metadata`, given the
    /// bytes of the chunk of each of `plan.columns()` (the ranges [`row_group_ranges`]
    /// lists).
    pub fn new(
        plan: Arc<ReadPlan>,
        metadata: &FileMetaData,
        row_group: usize,
        chunks: Vec<Bytes>,
    ) -> Result<Self> {
        let chunks = chunks.into_iter().map(Chunk::Whole).collect();
        Self::with_chunks(plan, metadata, row_group, chunks, Vec::new())
    }

    /// A decoder of row group `row_group` whose column chunks (one for each of
    /// `plan.columns()`, over the ranges [`row_group_ranges`] lists) are fetched page by
    /// page as the batches need them: each column holds about one page at a time, not
    /// its whole chunk, and pages a selection skips are never fetched.
    pub fn from_sources(
        plan: Arc<ReadPlan>,
        metadata: &FileMetaData,
        row_group: usize,
        sources: Vec<Arc<dyn ChunkSource>>,
    ) -> Result<Self> {
        let chunks = sources.into_iter().map(Chunk::Fetched).collect();
        Self::with_chunks(plan, metadata, row_group, chunks, Vec::new())
    }

    /// [`Self::from_sources`] with the offset index of each chunk that has one (in the
    /// order of `plan.columns()`; missing entries are `None`): skipping then jumps over
    /// the data pages wholly inside a skip without fetching or reading their headers.
    /// Each index is checked against its chunk first (pages within the chunk, in order,
    /// not overlapping, first rows from 0 increasing within the row group): one that
    /// does not fit is an error naming the row group, column and page, as is a page
    /// decoded later whose header disagrees with the index. Ignored for encrypted
    /// chunks.
    pub fn from_sources_with_offset_indexes(
        plan: Arc<ReadPlan>,
        metadata: &FileMetaData,
        row_group: usize,
        sources: Vec<Arc<dyn ChunkSource>>,
        offset_indexes: Vec<Option<OffsetIndex>>,
    ) -> Result<Self> {
        let chunks = sources.into_iter().map(Chunk::Fetched).collect();
        Self::with_chunks(plan, metadata, row_group, chunks, offset_indexes)
    }

    /// [`Self::new`] (whole chunks) with offset indexes, as
    /// [`Self::from_sources_with_offset_indexes`].
    pub fn new_with_offset_indexes(
        plan: Arc<ReadPlan>,
        metadata: &FileMetaData,
        row_group: usize,
        chunks: Vec<Bytes>,
        offset_indexes: Vec<Option<OffsetIndex>>,
    ) -> Result<Self> {
        let chunks = chunks.into_iter().map(Chunk::Whole).collect();
        Self::with_chunks(plan, metadata, row_group, chunks, offset_indexes)
    }

    fn with_chunks(
        plan: Arc<ReadPlan>,
        metadata: &FileMetaData,
        row_group: usize,
        chunks: Vec<Chunk>,
        mut offset_indexes: Vec<Option<OffsetIndex>>,
    ) -> Result<Self> {
        let group = metadata.row_groups.get(row_group).ok_or_else(|| {
            Error::invalid_argument(format!("row group {row_group} out of range"))
        })?;
        let rows = usize::try_from(group.num_rows).map_err(|_| {
            Error::corrupt(format!(
                "row group {row_group}: num_rows {} is negative",
                group.num_rows
            ))
        })?;
        if chunks.len() != plan.columns.len() {
            return Err(Error::invalid_argument(format!(
                "{} column chunks for {} columns",
                chunks.len(),
                plan.columns.len()
            )));
        }
        offset_indexes.resize(plan.columns.len(), None);
        let mut sizes = Vec::with_capacity(plan.columns.len());
        let mut columns = Vec::with_capacity(plan.columns.len());
        let mut keyed_columns = Vec::new();
        for (position, (((&column, target), chunk), offset_index)) in plan
            .columns
            .iter()
            .zip(&plan.leaf_types)
            .zip(chunks)
            .zip(offset_indexes)
            .enumerate()
        {
            let descr = plan.descriptor.column(column).ok_or_else(|| {
                Error::invalid_argument(format!("leaf column {column} is not in the schema"))
            })?;
            let path = &plan.paths[position];
            // Where the chunk's bytes came from is the caller's business (`chunks`).
            let (_, meta) = chunk_location(metadata, row_group, column)?;
            if meta.type_ != descr.physical_type() {
                return Err(Error::corrupt(format!(
                    "row group {row_group}, column {path}: chunk type {:?} where the schema says {:?}",
                    meta.type_,
                    descr.physical_type()
                )));
            }
            let codec = Codec::from_thrift_id(meta.codec.0).map_err(|e| {
                Error::from(e).context(format!("row group {row_group}, column {path}"))
            })?;
            let num_values = u64::try_from(meta.num_values).map_err(|_| {
                Error::corrupt(format!(
                    "row group {row_group}, column {path}: negative num_values"
                ))
            })?;
            let pages = match chunk {
                Chunk::Whole(bytes) => PageReader::new(bytes, codec, plan.options),
                Chunk::Fetched(source) => PageReader::from_source(source, codec, plan.options),
            };
            let mut pages = pages.with_num_values(num_values);
            if let Some(decryptor) = plan.column_decryptor(metadata, row_group, column)? {
                let dictionary_first = matches!(
                    meta.dictionary_page_offset,
                    Some(d) if d > 0 && d < meta.data_page_offset
                );
                pages = pages.with_decryptor(decryptor, dictionary_first);
            } else if let Some(index) = offset_index {
                // The chunk's first byte in the file, as `row_group_ranges` placed it.
                let start =
                    column_chunk_range(meta, metadata.created_by.as_deref(), u64::MAX)?.start;
                let locations = PageLocations::new(
                    &index.page_locations,
                    start,
                    pages.chunk_len(),
                    rows as u64,
                )
                .map_err(|e| {
                    Error::from(e).context(format!("row group {row_group}, column {path}"))
                })?;
                pages = pages.with_page_locations(locations);
            }
            let target = if plan.keyed.get(position) == Some(&true) && dictionary_encoded(meta) {
                let runs = plan.keys_in_runs.get(position) == Some(&true);
                keyed_columns.push((column, keyed_type(target, runs)));
                &keyed_columns.last().expect("just pushed").1
            } else {
                target
            };
            sizes.push(u64::try_from(meta.total_uncompressed_size).unwrap_or(0));
            columns.push(
                column_reader(
                    descr,
                    plan.paths[position].clone(),
                    target,
                    row_group,
                    pages,
                    rows,
                )
                .map_err(|e| e.context(format!("row group {row_group}")))?,
            );
        }
        let budget = Budget::new(plan.batch_memory_limit);
        Ok(Self {
            plan,
            row_group,
            columns,
            rows_left: rows,
            budget,
            leave_tail_unread: false,
            keyed_columns,
            late: LateCounts::default(),
            pending_skip: Step::pending(),
            parallel: None,
            costs: sizes,
        })
    }

    /// Decodes the columns of each batch side by side on `pool` (see [`super::pool`]);
    /// the batches are the same as on one thread. A decoder of one column keeps to the
    /// caller's thread.
    pub(crate) fn with_pool(mut self, pool: Option<Arc<rayon::ThreadPool>>) -> Self {
        self.parallel = pool.filter(|_| self.columns.len() > 1).map(|pool| {
            ParallelColumns::new(pool, self.plan.batch_memory_limit, self.columns.len())
        });
        self
    }

    /// Leaves a skip that reaches the end of the row group unapplied (the columns are
    /// not read past the last selected row), as the salvage reader needs.
    pub(crate) fn with_tail_unread(mut self) -> Self {
        self.leave_tail_unread = true;
        self
    }

    /// The row group decoded.
    pub fn row_group(&self) -> usize {
        self.row_group
    }

    /// Rows not yet decoded or skipped.
    pub fn rows_left(&self) -> usize {
        self.rows_left
    }

    /// Per column, what its last batch's task took (nanoseconds; see `costs`).
    pub(crate) fn costs(&self) -> &[u64] {
        &self.costs
    }

    /// Orders the first batch's tasks by `costs` (per column, as [`Self::costs`] gives
    /// them: another row group's of the same read), before any batch of this row group
    /// has been timed. Ignored when the columns differ in number.
    pub(crate) fn expect_costs(&mut self, costs: &[u64]) {
        if costs.len() == self.costs.len() {
            self.costs.copy_from_slice(costs);
        }
    }

    /// Data pages decoded, and data pages stepped over without being decompressed,
    /// so far (all columns together).
    pub fn page_counts(&self) -> (usize, usize) {
        self.columns.iter().fold((0, 0), |(d, s), c| {
            let (decoded, skipped) = c.page_counts();
            (d + decoded, s + skipped)
        })
    }

    /// Decodes the next `rows` rows (at most [`Self::rows_left`]) as a batch.
    pub fn next_batch(&mut self, rows: usize) -> Result<RecordBatch> {
        let rows = rows.min(self.rows_left);
        self.decode(&[(false, rows)], rows, rows)?;
        self.rows_left -= rows;
        self.assemble(rows, Vec::new())
    }

    /// Decodes the rows `runs` selects from the front of this row group, up to
    /// `max_rows` of them, as one batch, and consumes those runs (a run that reaches
    /// past the row group, or past `max_rows`, is shortened). `None` when nothing was
    /// selected before the row group (or the runs) ended.
    pub fn next_selected_batch(
        &mut self,
        runs: &mut VecDeque<RowSelector>,
        max_rows: usize,
    ) -> Result<Option<RecordBatch>> {
        // The batch's steps first, so that every column knows the batch's size before
        // it reads, and then reads column by column.
        let batch = self.plan_batch(runs, max_rows);
        if batch.is_empty() {
            return Ok(None);
        }
        if let Some(pool) = self.parallel.as_ref().map(|p| p.pool.clone()) {
            let mut tasks = Vec::new();
            self.column_tasks(&batch, &mut tasks);
            decode_columns(&pool, &mut tasks, || {});
            let outcomes = tasks.into_iter().map(ColumnTask::into_outcome).collect();
            return self.end_batch(&batch, outcomes);
        }
        self.decode(&batch.steps, batch.selected, batch.position)?;
        self.end_batch(&batch, Vec::new())
    }

    /// The next batch of at most `max_rows` selected rows, taken off `runs`: what its
    /// columns are to decode ([`Self::column_tasks`]) before [`Self::end_batch`]
    /// assembles it.
    pub(crate) fn plan_batch(
        &self,
        runs: &mut VecDeque<RowSelector>,
        max_rows: usize,
    ) -> BatchPlan {
        let (steps, position, selected) = self.batch_steps(runs, max_rows);
        BatchPlan {
            steps,
            position,
            selected,
        }
    }

    /// The decode of `batch` by each column, added to `tasks` to be run on any thread
    /// (the batch's memory count started afresh); a column that is a top-level field
    /// alone builds its array in its task. A decoder without a pool has one column (see
    /// [`Self::with_pool`]): its one task charges the decoder's budget.
    pub(crate) fn column_tasks<'a>(
        &'a mut self,
        batch: &'a BatchPlan,
        tasks: &mut Vec<ColumnTask<'a>>,
    ) {
        let (steps, selected) = (&batch.steps[..], batch.selected);
        let last = self.ends_row_group(batch.position);
        let plan = &*self.plan;
        let row_group = self.row_group;
        // Keyed columns (a row filter's) are assembled by the filter's own path.
        let assemble_here = self.keyed_columns.is_empty();
        let lone = move |position: usize| {
            let index = plan.lone_leaf_fields.get(position).copied().flatten()?;
            Some(LoneField {
                index,
                column: *plan.columns.get(position)?,
                field: plan.fields.get(index)?,
                descriptor: &plan.descriptor,
                row_group,
            })
            .filter(|_| assemble_here)
        };
        tasks.reserve(self.columns.len());
        match &mut self.parallel {
            Some(parallel) => tasks.extend(
                parallel
                    .tasks(&mut self.columns, steps, selected, last)
                    .zip(&self.costs)
                    .enumerate()
                    .map(|(position, (task, &cost))| {
                        task.with_field(lone(position)).with_cost(cost)
                    }),
            ),
            None => {
                debug_assert!(
                    self.columns.len() <= 1,
                    "a decoder of several columns has a pool"
                );
                self.budget.reset();
                tasks.extend(self.columns.first_mut().map(|c| {
                    ColumnTask::new(c.as_mut(), &mut self.budget, steps, selected)
                        .with_field(lone(0))
                        .ending_chunk(last)
                }));
            }
        }
    }

    /// The batch `batch` planned, its columns decoded by the tasks that gave `outcomes`
    /// (empty: decoded by [`Self::decode`]): assembled, or `None` when it selected no
    /// row. The error is that of the first failing column in the schema's order, as on
    /// one thread.
    pub(crate) fn end_batch(
        &mut self,
        batch: &BatchPlan,
        outcomes: Vec<TaskOutcome>,
    ) -> Result<Option<RecordBatch>> {
        let mut built: Vec<Option<Result<ArrayRef>>> = Vec::new();
        if !outcomes.is_empty() {
            built.resize_with(self.plan.fields.len(), || None);
        }
        for (cost, outcome) in self.costs.iter_mut().zip(&outcomes) {
            *cost = outcome.nanos;
        }
        for outcome in outcomes {
            outcome.decoded?;
            if let Some((slot, array)) = outcome
                .array
                .and_then(|(index, array)| Some((built.get_mut(index)?, array)))
            {
                *slot = Some(array);
            }
        }
        self.rows_left -= batch.position;
        if batch.selected == 0 {
            return Ok(None);
        }
        self.assemble(batch.selected, built).map(Some)
    }

    /// The steps (skip or read, rows) of the next batch of at most `max_rows` selected
    /// rows, taken off `runs`; the rows they cover; the rows they read. A skip that
    /// ends the row group is left out when the tail is to stay unread.
    fn batch_steps(
        &self,
        runs: &mut VecDeque<RowSelector>,
        max_rows: usize,
    ) -> (Vec<(bool, usize)>, usize, usize) {
        let mut steps = Vec::new();
        let mut selected = 0;
        let mut position = 0;
        while selected < max_rows && position < self.rows_left {
            let Some(run) = runs.front_mut() else {
                break;
            };
            let mut n = run.row_count.min(self.rows_left - position);
            if !run.skip {
                n = n.min(max_rows - selected);
                selected += n;
            }
            steps.push((run.skip, n));
            position += n;
            run.row_count -= n;
            if run.row_count == 0 {
                runs.pop_front();
            }
        }
        if self.leave_tail_unread
            && position == self.rows_left
            && matches!(steps.last(), Some(&(true, _)))
        {
            steps.pop();
        }
        (steps, position, selected)
    }

    /// Skips the next `rows` rows: values are not decoded, and pages wholly inside the
    /// skip are not decompressed.
    pub fn skip(&mut self, rows: usize) -> Result<()> {
        let rows = rows.min(self.rows_left);
        self.decode(&[(true, rows)], 0, rows)?;
        self.rows_left -= rows;
        Ok(())
    }

    /// Applies `steps` (skip or read, rows) to every column, in a batch of `selected`
    /// rows that covers the next `rows` rows of the row group (a skip that ends it may
    /// be left out of `steps`: see `leave_tail_unread`).
    fn decode(&mut self, steps: &[(bool, usize)], selected: usize, rows: usize) -> Result<()> {
        let last = self.ends_row_group(rows);
        if let Some(parallel) = &mut self.parallel {
            return parallel.decode(&mut self.columns, steps, selected, last);
        }
        let budget = &mut self.budget;
        budget.reset();
        for column in &mut self.columns {
            column.decode_batch(steps, selected, budget, last)?;
        }
        Ok(())
    }

    /// Whether a batch over the next `rows` rows reaches the row group's end: its
    /// columns are then released as each is decoded ([`ColumnReader::release`]), their
    /// buffers freed one column at a time and reused by the next column's decode.
    fn ends_row_group(&self, rows: usize) -> bool {
        rows >= self.rows_left
    }

    /// Applies `steps` (skip or read, rows) to the columns `which` selects (by position
    /// in the plan's columns), in a batch of `selected` rows, charging the budget as
    /// it stands (a filtered batch decodes its columns in two rounds).
    fn decode_columns(
        &mut self,
        which: &dyn Fn(usize) -> bool,
        steps: &[(bool, usize)],
        selected: usize,
    ) -> Result<()> {
        let budget = &mut self.budget;
        for (i, column) in self.columns.iter_mut().enumerate() {
            if !which(i) {
                continue;
            }
            column.decode_steps(steps, selected, budget)?;
        }
        Ok(())
    }

    /// The batch of `rows` rows from the columns' decoded output; the fields whose
    /// arrays their tasks built (`built`, by field; may be empty) are taken from there.
    fn assemble(
        &mut self,
        rows: usize,
        mut built: Vec<Option<Result<ArrayRef>>>,
    ) -> Result<RecordBatch> {
        let plan = &self.plan;
        let is_built = |position: usize| {
            let field = plan.lone_leaf_fields.get(position).copied().flatten();
            field.is_some_and(|f| matches!(built.get(f), Some(Some(_))))
        };
        let mut leaves: HashMap<usize, _> = HashMap::with_capacity(plan.columns.len());
        for (position, (&column, reader)) in plan.columns.iter().zip(&mut self.columns).enumerate()
        {
            if !is_built(position) {
                leaves.insert(column, reader.finish());
            }
        }
        let mut arrays = Vec::with_capacity(plan.fields.len());
        for (index, field) in plan.fields.iter().enumerate() {
            let array = match built.get_mut(index).and_then(Option::take) {
                Some(array) => array?,
                None => nested::assemble(field, &mut leaves, &plan.descriptor, rows)
                    .map_err(|e| e.context(format!("row group {}", self.row_group)))?,
            };
            arrays.push(array);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        let batch = RecordBatch::try_new_with_options(plan.schema.clone(), arrays, &options)?;
        match &plan.unshredded {
            Some(schema) => {
                let plain = crate::variant::unshred_batch(&batch)?;
                Ok(RecordBatch::try_new_with_options(
                    schema.clone(),
                    plain.columns().to_vec(),
                    &options,
                )?)
            }
            None => Ok(batch),
        }
    }
}
