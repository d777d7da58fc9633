//! Reading Parquet into Arrow `RecordBatch`es.
//!
//! [`ParquetRecordBatchReaderBuilder`] opens a file (anything implementing
//! [`ChunkReader`]: [`Bytes`], [`std::fs::File`]), maps its schema to Arrow
//! ([`crate::schema`]), and builds a [`ParquetRecordBatchReader`], an iterator of
//! `RecordBatch`es.
//!
//! The decoding core is I/O free: [`row_group_ranges`] says which byte ranges a row group
//! needs (one per column chunk of the [`ReadPlan`]), and [`RowGroupDecoder`] decodes them
//! once they are fetched. The synchronous reader is one adapter over it; an asynchronous one
//! fetches the same ranges another way.
//!
//! It reads leaf columns of every physical type, encoding and codec under any nesting of
//! structs, lists (every backward-compatible list shape) and maps.
//!
//! A column read as `Dictionary(K, V)` (the file's `ARROW:schema` hint says so, or a
//! schema supplied with [`ParquetRecordBatchReaderBuilder::with_schema`]) keeps its
//! dictionary-encoded chunks as they are: the chunk's dictionary page is decoded once
//! into an array of type `V`, and every batch is a `DictionaryArray` of the pages'
//! indices over that one array (nothing is hashed). A batch that also takes values from
//! a non-dictionary page (a writer's fallback to PLAIN midway through a chunk), a chunk
//! that is not dictionary-encoded, and a dictionary with more entries than `K` indexes
//! are read as plain values and cast to the dictionary type, batch by batch; a batch
//! whose own distinct values do not fit `K` is then an error naming the column.
//!
//! ```
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! # use bytes::Bytes;
//! # use parquet::arrow::ArrowWriter;
//! use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
//! # let column: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
//! # let batch = RecordBatch::try_from_iter([("x", column)]).unwrap();
//! # let mut file = Vec::new();
//! # let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
//! # writer.write(&batch).unwrap();
//! # writer.close().unwrap();
//! // `file` holds a Parquet file with one nullable INT32 column `x`.
//! let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
//!     .unwrap()
//!     .with_batch_size(2)
//!     .build()
//!     .unwrap();
//! let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
//! assert_eq!(batches.len(), 2);
//! let x = batches[0].column(0).as_any().downcast_ref::<Int32Array>().unwrap();
//! assert_eq!(x, &Int32Array::from(vec![Some(1), None]));
//! ```

mod array;
mod column;
mod dictionary;
mod selection;
mod views;

use std::collections::{HashMap, VecDeque};
#[cfg(not(unix))]
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions, RecordBatchReader};
use arrow_schema::{ArrowError, DataType, Schema, SchemaRef};
use bytes::Bytes;
use herringbone_codec::compression::Codec;
use herringbone_codec::page::{PageReader, PageReaderOptions, column_chunk_range};
use herringbone_format::footer::{FooterOptions, decode_file_metadata, parse_footer_tail};
use herringbone_format::metadata::{ColumnMetaData, FileMetaData};
use herringbone_format::schema::SchemaDescriptor;

use crate::error::{Error, ErrorKind, Result};
use crate::schema::{
    ArrowSchemaMapping, ParquetField, ParquetFieldKind, Projection, SchemaOptions, parquet_to_arrow,
};
use column::{LeafBatch, LeafReader};
pub use selection::{RowSelection, RowSelector};

/// The default number of rows per batch.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// A source of a file's bytes by range: the one I/O operation the reader needs.
///
/// `Send`, so that a reader can move to another thread.
pub trait ChunkReader: Send {
    /// Length of the file in bytes.
    fn len(&self) -> u64;

    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of `range` (within `0..len()`).
    fn get_bytes(&self, range: Range<u64>) -> Result<Bytes>;
}

impl ChunkReader for Bytes {
    fn len(&self) -> u64 {
        Bytes::len(self) as u64
    }

    fn get_bytes(&self, range: Range<u64>) -> Result<Bytes> {
        let end = usize::try_from(range.end)
            .ok()
            .filter(|&e| e <= Bytes::len(self));
        match end {
            Some(end) if range.start <= range.end => Ok(self.slice(range.start as usize..end)),
            _ => Err(Error::invalid_argument(format!(
                "byte range {range:?} outside a buffer of {} bytes",
                Bytes::len(self)
            ))),
        }
    }
}

impl ChunkReader for std::fs::File {
    fn len(&self) -> u64 {
        self.metadata().map(|m| m.len()).unwrap_or(0)
    }

    fn get_bytes(&self, range: Range<u64>) -> Result<Bytes> {
        let len = usize::try_from(range.end.saturating_sub(range.start))
            .map_err(|_| Error::invalid_argument(format!("byte range {range:?} too large")))?;
        if range.end > ChunkReader::len(self) || range.start > range.end {
            return Err(Error::invalid_argument(format!(
                "byte range {range:?} outside a file of {} bytes",
                ChunkReader::len(self)
            )));
        }
        let mut buffer = vec![0u8; len];
        read_exact_at(self, &mut buffer, range.start)?;
        Ok(Bytes::from(buffer))
    }
}

/// Reads `buffer.len()` bytes at `offset` without moving a shared file position where the
/// platform allows it.
#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

#[cfg(not(unix))]
fn read_exact_at(file: &std::fs::File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buffer)
}

/// Reads the footer metadata through a [`ChunkReader`] (two reads: the 8-byte tail, then
/// the footer).
pub fn read_metadata<R: ChunkReader + ?Sized>(input: &R) -> Result<FileMetaData> {
    let len = input.len();
    if len < 12 {
        return Err(Error::new(
            ErrorKind::Format,
            format!("not a Parquet file: {len} bytes, at least 12 needed"),
        ));
    }
    let tail = input.get_bytes(len - 8..len)?;
    let tail: [u8; 8] = tail[..]
        .try_into()
        .map_err(|_| Error::invalid_argument("the reader returned a short footer tail"))?;
    let metadata_len = parse_footer_tail(&tail).map_err(|e| {
        if e.kind() == herringbone_format::ErrorKind::Encrypted {
            // The format error says the same thing again; one sentence is enough.
            Error::new(
                ErrorKind::Encrypted,
                "encrypted: keys required (the file's footer is encrypted)",
            )
        } else {
            Error::from(e)
        }
    })? as u64;
    if metadata_len > len - 12 {
        return Err(Error::new(
            ErrorKind::Format,
            format!("footer of {metadata_len} bytes does not fit a file of {len} bytes"),
        ));
    }
    let start = len - 8 - metadata_len;
    let footer = input.get_bytes(start..len - 8)?;
    Ok(decode_file_metadata(
        footer,
        &FooterOptions::default().with_base_offset(start),
    )?)
}

/// Builds a [`ParquetRecordBatchReader`]: which columns, row groups and rows to read, in
/// batches of how many rows, as which Arrow types.
pub struct ParquetRecordBatchReaderBuilder<T> {
    input: T,
    metadata: Arc<FileMetaData>,
    descriptor: Arc<SchemaDescriptor>,
    schema_options: SchemaOptions,
    supplied_schema: Option<SchemaRef>,
    projection: Projection,
    row_groups: Option<Vec<usize>>,
    selection: Option<RowSelection>,
    batch_size: usize,
    limit: Option<usize>,
    offset: usize,
    verify_crc: bool,
}

impl<T: ChunkReader + 'static> ParquetRecordBatchReaderBuilder<T> {
    /// Reads the footer of `input` and prepares to read all of it.
    ///
    /// Errors when the file is not Parquet, its footer is encrypted
    /// ([`ErrorKind::Encrypted`]: "encrypted: keys required") or its metadata is invalid.
    pub fn try_new(input: T) -> Result<Self> {
        let metadata = read_metadata(&input)?;
        let descriptor = SchemaDescriptor::new(&metadata.schema)?;
        Ok(Self {
            input,
            metadata: Arc::new(metadata),
            descriptor: Arc::new(descriptor),
            schema_options: SchemaOptions::default(),
            supplied_schema: None,
            projection: Projection::All,
            row_groups: None,
            selection: None,
            batch_size: DEFAULT_BATCH_SIZE,
            limit: None,
            offset: 0,
            verify_crc: false,
        })
    }

    /// The file's metadata.
    pub fn metadata(&self) -> &Arc<FileMetaData> {
        &self.metadata
    }

    /// The file's Parquet schema.
    pub fn parquet_schema(&self) -> &Arc<SchemaDescriptor> {
        &self.descriptor
    }

    /// The Arrow schema of the whole file under the current schema options (before
    /// projection and any supplied schema).
    pub fn schema(&self) -> Result<SchemaRef> {
        Ok(self.file_mapping()?.schema().clone())
    }

    /// Rows per batch (default [`DEFAULT_BATCH_SIZE`]; 0 is read as 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Which fields to read.
    pub fn with_projection(mut self, projection: Projection) -> Self {
        self.projection = projection;
        self
    }

    /// Which row groups to read, in the order given.
    pub fn with_row_groups(mut self, row_groups: Vec<usize>) -> Self {
        self.row_groups = Some(row_groups);
        self
    }

    /// Reads only the rows `selection` selects, counted over the selected row groups
    /// in the order they are read. Rows past the selection's last run are not read. Row
    /// groups (and, within one, rows) that are skipped whole are not fetched.
    pub fn with_row_selection(mut self, selection: RowSelection) -> Self {
        self.selection = Some(selection);
        self
    }

    /// Reads at most `limit` rows (after the offset, of the selected rows).
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skips the first `offset` rows (of the selected row groups, and of the row
    /// selection if there is one).
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// Whether to check page CRCs where the writer stored them (default `false`).
    pub fn with_verify_crc(mut self, verify: bool) -> Self {
        self.verify_crc = verify;
        self
    }

    /// Options of the Parquet -> Arrow type mapping.
    pub fn with_schema_options(mut self, options: SchemaOptions) -> Self {
        self.schema_options = options;
        self
    }

    /// Reads the (projected) columns as this Arrow schema (see
    /// [`ArrowSchemaMapping::with_supplied_schema`] for what may differ). A `Dictionary`
    /// field over a dictionary-encoded chunk keeps the chunk's dictionary (see the
    /// [module documentation](crate::read)); over plain data each batch is cast to it.
    pub fn with_schema(mut self, schema: SchemaRef) -> Self {
        self.supplied_schema = Some(schema);
        self
    }

    fn file_mapping(&self) -> Result<ArrowSchemaMapping> {
        parquet_to_arrow(
            &self.descriptor,
            self.metadata.key_value_metadata.as_deref(),
            &self.schema_options,
        )
    }

    /// The reader.
    ///
    /// Errors for a projection or row group out of range, a supplied schema that does not
    /// fit, or encrypted columns ([`ErrorKind::Encrypted`]).
    pub fn build(self) -> Result<ParquetRecordBatchReader> {
        let mut mapping = self.file_mapping()?.project(&self.projection)?;
        if let Some(schema) = &self.supplied_schema {
            mapping = mapping.with_supplied_schema(schema)?;
        }
        let num_row_groups = self.metadata.row_groups.len();
        let row_groups = match self.row_groups {
            Some(selected) => {
                if let Some(bad) = selected.iter().find(|&&g| g >= num_row_groups) {
                    return Err(Error::invalid_argument(format!(
                        "row group {bad} out of range (the file has {num_row_groups})"
                    )));
                }
                selected
            }
            None => (0..num_row_groups).collect(),
        };
        if self.metadata.encryption_algorithm.is_some()
            || row_groups.iter().any(|&g| {
                self.metadata.row_groups[g]
                    .columns
                    .iter()
                    .any(|c| c.crypto_metadata.is_some() || c.encrypted_column_metadata.is_some())
            })
        {
            return Err(Error::new(
                ErrorKind::Encrypted,
                "encrypted: keys required (the file's columns are encrypted)",
            ));
        }
        let options = PageReaderOptions::default().with_verify_crc(self.verify_crc);
        let plan = ReadPlan::new(self.descriptor, &mapping, options)?;
        let mut total_rows = 0usize;
        for &g in &row_groups {
            let rows = usize::try_from(self.metadata.row_groups[g].num_rows)
                .map_err(|_| Error::corrupt(format!("row group {g}: negative num_rows")))?;
            total_rows = total_rows.saturating_add(rows);
        }
        let mut selection = self
            .selection
            .unwrap_or_else(|| RowSelection::all(total_rows))
            .offset(self.offset);
        if let Some(limit) = self.limit {
            selection = selection.limit(limit);
        }
        Ok(ParquetRecordBatchReader {
            input: Box::new(self.input),
            metadata: self.metadata,
            plan: Arc::new(plan),
            row_groups: row_groups.into(),
            current: None,
            batch_size: self.batch_size,
            runs: selection.into_runs(),
            failed: false,
        })
    }
}

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

fn chunk_metadata(
    metadata: &FileMetaData,
    row_group: usize,
    column: usize,
) -> Result<&ColumnMetaData> {
    let chunk = metadata
        .row_groups
        .get(row_group)
        .and_then(|g| g.columns.get(column))
        .ok_or_else(|| {
            Error::corrupt(format!(
                "row group {row_group} has no column chunk for leaf column {column}"
            ))
        })?;
    if chunk.file_path.is_some() {
        return Err(Error::unsupported(format!(
            "row group {row_group}, column {column}: column chunks in other files are not supported"
        )));
    }
    chunk.meta_data.as_ref().ok_or_else(|| {
        if chunk.crypto_metadata.is_some() {
            Error::new(ErrorKind::Encrypted, "encrypted: keys required")
        } else {
            Error::corrupt(format!(
                "row group {row_group}, column {column}: column chunk without metadata"
            ))
        }
    })
}

/// What a reader decodes, fixed when it is built and shared by its row groups: the
/// Parquet schema, the (projected) Arrow schema and field tree, the leaf columns to
/// fetch, and how pages are checked. I/O free.
#[derive(Debug, Clone)]
pub struct ReadPlan {
    descriptor: Arc<SchemaDescriptor>,
    schema: SchemaRef,
    fields: Vec<ParquetField>,
    columns: Vec<usize>,
    /// The Arrow type each of `columns` is read into.
    leaf_types: Vec<DataType>,
    options: PageReaderOptions,
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
        if leaf_types.len() != columns.len() {
            return Err(Error::invalid_argument(format!(
                "{} leaf types for {} leaf columns",
                leaf_types.len(),
                columns.len()
            )));
        }
        Ok(Self {
            schema: mapping.schema().clone(),
            fields: mapping.fields().to_vec(),
            columns,
            leaf_types,
            descriptor,
            options,
        })
    }

    /// The leaf columns whose chunks a row group needs, in the order
    /// [`RowGroupDecoder::new`] expects them.
    pub fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

/// Decodes one row group from its fetched column chunks, batch by batch. I/O free.
#[derive(Debug)]
pub struct RowGroupDecoder {
    plan: Arc<ReadPlan>,
    readers: Vec<LeafReader>,
    rows_left: usize,
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
        let mut readers = Vec::with_capacity(plan.columns.len());
        for ((&column, target), chunk) in plan.columns.iter().zip(&plan.leaf_types).zip(chunks) {
            let descr = plan.descriptor.column(column).ok_or_else(|| {
                Error::invalid_argument(format!("leaf column {column} is not in the schema"))
            })?;
            let path = descr.path().dotted();
            let meta = chunk_metadata(metadata, row_group, column)?;
            if meta.type_ != descr.physical_type() {
                return Err(Error::corrupt(format!(
                    "row group {row_group}, column {path}: chunk type {:?} where the schema says {:?}",
                    meta.type_,
                    descr.physical_type()
                )));
            }
            let codec = Codec::from_thrift_id(meta.codec.0)
                .map_err(|e| Error::from(e).context(format!("column {path}")))?;
            let num_values = u64::try_from(meta.num_values)
                .map_err(|_| Error::corrupt(format!("column {path}: negative num_values")))?;
            let pages = PageReader::new(chunk, codec, plan.options).with_num_values(num_values);
            readers.push(LeafReader::new(descr, pages, rows, target)?);
        }
        Ok(Self {
            plan,
            readers,
            rows_left: rows,
        })
    }

    /// Rows not yet decoded.
    pub fn rows_left(&self) -> usize {
        self.rows_left
    }

    /// Decodes the next `rows` rows (at most [`Self::rows_left`]) as a batch.
    pub fn next_batch(&mut self, rows: usize) -> Result<RecordBatch> {
        let rows = rows.min(self.rows_left);
        let mut leaves = Vec::new();
        self.read_leaves(rows, &mut leaves)?;
        self.assemble(leaves, rows)
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
        let mut leaves = Vec::new();
        let mut selected = 0;
        while selected < max_rows && self.rows_left > 0 {
            let Some(run) = runs.front_mut() else {
                break;
            };
            let mut n = run.row_count.min(self.rows_left);
            if run.skip {
                self.skip(n)?;
            } else {
                n = n.min(max_rows - selected);
                self.read_leaves(n, &mut leaves)?;
                selected += n;
            }
            run.row_count -= n;
            if run.row_count == 0 {
                runs.pop_front();
            }
        }
        if selected == 0 {
            return Ok(None);
        }
        self.assemble(leaves, selected).map(Some)
    }

    /// Decodes the next `rows` rows of every column, appending them to `leaves` (one
    /// entry per column of the plan, filled on the first call).
    fn read_leaves(&mut self, rows: usize, leaves: &mut Vec<LeafBatch>) -> Result<()> {
        let rows = rows.min(self.rows_left);
        if leaves.is_empty() {
            for reader in &mut self.readers {
                leaves.push(reader.read(rows)?);
            }
        } else {
            for (reader, leaf) in self.readers.iter_mut().zip(leaves.iter_mut()) {
                leaf.append(reader.read(rows)?)
                    .map_err(|e| e.context(format!("column {}", reader.path())))?;
            }
        }
        self.rows_left -= rows;
        Ok(())
    }

    fn assemble(&self, leaves: Vec<LeafBatch>, rows: usize) -> Result<RecordBatch> {
        let plan = &self.plan;
        let mut leaves: HashMap<usize, LeafBatch> =
            plan.columns.iter().copied().zip(leaves).collect();
        let mut arrays = Vec::with_capacity(plan.fields.len());
        for field in &plan.fields {
            arrays.push(array::assemble(field, &mut leaves, &plan.descriptor, rows)?);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        Ok(RecordBatch::try_new_with_options(
            plan.schema.clone(),
            arrays,
            &options,
        )?)
    }

    /// Skips the next `rows` rows (decoding them).
    pub fn skip(&mut self, rows: usize) -> Result<()> {
        let rows = rows.min(self.rows_left);
        for reader in &mut self.readers {
            reader
                .read(rows)
                .map_err(|e| e.context(format!("skipping in column {}", reader.path())))?;
        }
        self.rows_left -= rows;
        Ok(())
    }
}

/// An iterator of `RecordBatch`es read from a Parquet file; built by
/// [`ParquetRecordBatchReaderBuilder`]. After an error it yields nothing more.
pub struct ParquetRecordBatchReader {
    input: Box<dyn ChunkReader>,
    metadata: Arc<FileMetaData>,
    plan: Arc<ReadPlan>,
    row_groups: VecDeque<usize>,
    current: Option<RowGroupDecoder>,
    batch_size: usize,
    /// What is left of the row selection (offset and limit included).
    runs: VecDeque<RowSelector>,
    failed: bool,
}

impl ParquetRecordBatchReader {
    /// The next batch, or `None` at the end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if self.runs.is_empty() {
                return Ok(None);
            }
            if let Some(decoder) = &mut self.current {
                if let Some(batch) = decoder.next_selected_batch(&mut self.runs, self.batch_size)? {
                    return Ok(Some(batch));
                }
                self.current = None;
                continue;
            }
            let Some(group) = self.row_groups.pop_front() else {
                return Ok(None);
            };
            let rows = usize::try_from(self.metadata.row_groups[group].num_rows)
                .map_err(|_| Error::corrupt(format!("row group {group}: negative num_rows")))?;
            if rows == 0 {
                continue;
            }
            if let Some(run) = self.runs.front_mut()
                && run.skip
                && run.row_count >= rows
            {
                // Skipped whole: no bytes are fetched.
                run.row_count -= rows;
                if run.row_count == 0 {
                    self.runs.pop_front();
                }
                continue;
            }
            let ranges =
                row_group_ranges(&self.metadata, group, &self.plan.columns, self.input.len())?;
            let mut chunks = Vec::with_capacity(ranges.len());
            for range in ranges {
                chunks.push(self.input.get_bytes(range)?);
            }
            self.current = Some(RowGroupDecoder::new(
                self.plan.clone(),
                &self.metadata,
                group,
                chunks,
            )?);
        }
    }
}

impl Iterator for ParquetRecordBatchReader {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_batch() {
            Ok(batch) => batch.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e.into()))
            }
        }
    }
}

impl RecordBatchReader for ParquetRecordBatchReader {
    fn schema(&self) -> SchemaRef {
        self.plan.schema.clone()
    }
}

impl std::fmt::Debug for ParquetRecordBatchReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRecordBatchReader")
            .field("schema", &self.plan.schema)
            .field("row_groups_left", &self.row_groups)
            .field("batch_size", &self.batch_size)
            .field("selection_runs_left", &self.runs.len())
            .finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for ParquetRecordBatchReaderBuilder<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRecordBatchReaderBuilder")
            .field("projection", &self.projection)
            .field("row_groups", &self.row_groups)
            .field("selection", &self.selection)
            .field("batch_size", &self.batch_size)
            .field("offset", &self.offset)
            .field("limit", &self.limit)
            .field("verify_crc", &self.verify_crc)
            .finish_non_exhaustive()
    }
}

impl ParquetRecordBatchReader {
    /// The schema of the batches.
    pub fn arrow_schema(&self) -> &Schema {
        &self.plan.schema
    }

    /// The leaf columns read (indexes into [`Self::parquet_schema`]'s columns), in the
    /// order the batches' fields hold them: what a caller sums sizes or statistics over.
    pub fn leaf_columns(&self) -> &[usize] {
        self.plan.columns()
    }

    /// The file's metadata (row groups, column chunks, statistics, key-value metadata).
    pub fn metadata(&self) -> &Arc<FileMetaData> {
        &self.metadata
    }

    /// The file's Parquet schema.
    pub fn parquet_schema(&self) -> &Arc<SchemaDescriptor> {
        &self.plan.descriptor
    }
}
