//! The Arrow -> Parquet writer.
//!
//! [`ArrowWriter`] takes `RecordBatch`es of one schema and writes a Parquet file to any
//! `Write + Send`. The write side of the bridge is a stack of layers, each calling only
//! the ones below it:
//!
//! ```text
//!  RecordBatch ──► ArrowWriter (this file: row groups, file layout, footer, threads)
//!                    │  sorting: checks declared sorting_columns first
//!                    ▼
//!  Arrow field ──► levels: definition/repetition levels + where the present values are
//!                    │  (a top-level leaf keeps its validity bitmap: no level built)
//!                    ▼
//!  one leaf ─────► chunk::ColumnWriter: cuts pieces at row boundaries, dictionary
//!                    │  and fallback, page limits; metadata: footer and page index
//!                    ▼
//!  Arrow array ──► source: the leaf array downcast once ─► convert (value by value)
//!                    │  values appended to the open page as dictionary indices,
//!                    │  Values, or bytes already in PLAIN / DELTA_LENGTH layout
//!                    ▼
//!  open page ────► page: OpenPage ─► encode (codec encoders, levels) ─► Pages:
//!                    │  statistics, bloom; the codec's PageWriter (compression, CRC)
//!                    ▼
//!  bytes ────────► column chunk (dictionary page + data pages) ─► sink
//! ```
//!
//! Below them all: `values` (the physical-type container), `rows` (which slots a
//! piece takes), `dictionary`, `statistics`, `bloom`. The schema mapping is in
//! [`schema`], the settings in [`properties`].
//!
//! Layout of a file: `PAR1`, then per row group its column chunks (dictionary page, data
//! pages) followed by the row group's Bloom filters (or, with [`BloomFilterPosition::End`],
//! all Bloom filters after the last row group); then all column indexes, then all offset
//! indexes, then the footer. Memory held is the row group in progress (encoded pages and
//! dictionaries), reported by
//! [`ArrowWriter::in_progress_size`]; with [`BloomFilterPosition::End`] the Bloom filters of
//! finished row groups are held too (their size is fixed by NDV and FPP).
//!
//! With [`WriterPropertiesBuilder::set_threads`] above 1, the columns of each batch are
//! encoded (levels, dictionary, pages, compression) on a pool of that many threads; the
//! file is the same, byte for byte, as with one thread.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int32Array, RecordBatch, StringArray};
//! use arrow_schema::{DataType, Field, Schema};
//! use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("id", DataType::Int32, false),
//!     Field::new("name", DataType::Utf8, true),
//! ]));
//! let batch = RecordBatch::try_new(
//!     schema.clone(),
//!     vec![
//!         Arc::new(Int32Array::from(vec![1, 2, 3])),
//!         Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])),
//!     ],
//! )
//! .unwrap();
//! let mut file = Vec::new();
//! let mut writer = ArrowWriter::try_new(&mut file, schema, Some(WriterProperties::new())).unwrap();
//! writer.write(&batch).unwrap();
//! let metadata = writer.close().unwrap();
//! assert_eq!(metadata.num_rows, 3);
//! ```

mod blocks;
mod bloom;
mod chunk;
mod convert;
mod dictionary;
mod encode;
mod geo;
pub mod levels;
mod metadata;
mod page;
pub mod properties;
mod rows;
pub mod schema;
mod sorting;
mod source;
mod statistics;
mod values;

use std::io::Write;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use herringbone_codec::bloom::SplitBlockBloomFilter;
use herringbone_codec::crypto::{ColumnEncryptor, FileEncryptor, ModuleType};
use herringbone_format::footer::encode_footer;
use herringbone_format::metadata::{
    ColumnChunk, ColumnIndex, ColumnOrder, FileMetaData, KeyValue, OffsetIndex, RowGroup,
};
use herringbone_format::thrift::{CompactWriter, Text, ThriftStruct};
use rayon::prelude::*;

pub use properties::{
    BloomFilterPosition, BloomFilterProperties, CREATED_BY, DataPageVersion, StatisticsLevel,
    WriterProperties, WriterPropertiesBuilder,
};
pub use schema::{ArrowToParquetOptions, ParquetSchema, arrow_to_parquet, encode_arrow_schema};

use crate::error::{Error, Result};
use crate::schema::ARROW_SCHEMA_META_KEY;
use crate::variant::VariantWritePlan;
use chunk::{ClosedChunk, ColumnWriter};
use schema::WriteField;
use sorting::SortCheck;

/// Writes Arrow `RecordBatch`es as a Parquet file.
#[derive(Debug)]
pub struct ArrowWriter<W: Write + Send> {
    sink: W,
    position: u64,
    arrow_schema: SchemaRef,
    /// How Variant columns are written (`None`: the schema has none).
    variants: Option<Box<VariantWritePlan>>,
    parquet: ParquetSchema,
    props: WriterProperties,
    /// One writer per leaf column, kept from row group to row group.
    columns: Vec<ColumnWriter>,
    /// The leaf columns of each top-level field (consecutive).
    field_leaves: Vec<Range<usize>>,
    /// Dotted path of each leaf column, for error messages.
    paths: Vec<String>,
    /// The pool columns are encoded on (`None`: one thread, the caller's).
    pool: Option<rayon::ThreadPool>,
    sort_check: Option<SortCheck>,
    rows_in_group: usize,
    row_groups: Vec<RowGroup>,
    /// Page indexes of the written row groups, written after the last one.
    page_indexes: Vec<Vec<(Option<ColumnIndex>, OffsetIndex)>>,
    /// Bloom filters held for the end of the file ([`BloomFilterPosition::End`]), per
    /// row group and column.
    pending_blooms: Vec<Vec<Option<SplitBlockBloomFilter>>>,
    total_rows: i64,
    closed: bool,
    /// Encrypts pages, indexes, Bloom filters, column metadata and the footer.
    encryptor: Option<Arc<FileEncryptor>>,
    options: ArrowToParquetOptions,
}

impl<W: Write + Send> ArrowWriter<W> {
    /// A writer of batches of `schema` into `sink` (default properties when `None`).
    ///
    /// Errors when a type has no Parquet mapping, a column encoding does not fit its
    /// physical type, or a sorting column is not a leaf outside lists.
    pub fn try_new(sink: W, schema: SchemaRef, props: Option<WriterProperties>) -> Result<Self> {
        Self::try_new_with_options(sink, schema, props, ArrowToParquetOptions::default())
    }

    /// [`ArrowWriter::try_new`] with schema mapping options (e.g. INT96 timestamps).
    pub fn try_new_with_options(
        mut sink: W,
        schema: SchemaRef,
        props: Option<WriterProperties>,
        options: ArrowToParquetOptions,
    ) -> Result<Self> {
        let props = props.unwrap_or_default();
        let variants = VariantWritePlan::new(&schema, props.variant_shredding())?.map(Box::new);
        let written = variants.as_ref().map_or(&schema, |v| v.written());
        let parquet = arrow_to_parquet(written, options)?;
        let parquet = geo::refer_to_projjson(parquet, props.key_value_metadata())?;
        let (columns, field_leaves, paths) = leaf_writers(&parquet, &props)?;
        let pool = match props.threads() {
            0 | 1 => None,
            n => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("herringbone-writer-{i}"))
                    .build()
                    .map_err(|e| {
                        Error::invalid_argument(format!("cannot start {n} writer threads: {e}"))
                    })?,
            ),
        };
        let sort_check = props
            .sorting_columns()
            .filter(|c| !c.is_empty())
            .map(|c| SortCheck::new(c, &parquet))
            .transpose()?;
        let encryptor = match props.encryption() {
            Some(encryption) => {
                let encryptor = FileEncryptor::new(encryption.clone())?;
                encryptor
                    .check_column_keys(paths.iter().map(String::as_str))
                    .map_err(|e| Error::invalid_argument(e.message().to_string()))?;
                Some(Arc::new(encryptor))
            }
            None => None,
        };
        let mut columns = columns;
        set_encryptors(&mut columns, encryptor.as_deref(), &paths, 0)?;
        let magic = encryptor.as_ref().map_or(*b"PAR1", |e| e.magic());
        sink.write_all(&magic)?;
        Ok(Self {
            sink,
            position: 4,
            arrow_schema: schema,
            variants,
            options,
            parquet,
            props,
            columns,
            field_leaves,
            paths,
            pool,
            sort_check,
            rows_in_group: 0,
            row_groups: Vec::new(),
            page_indexes: Vec::new(),
            pending_blooms: Vec::new(),
            total_rows: 0,
            closed: false,
            encryptor,
        })
    }

    /// The Parquet schema being written (with a Variant column shredded
    /// [`Auto`](crate::variant::VariantShredding::Auto), final after the first
    /// non-empty batch).
    pub fn parquet_schema(&self) -> &ParquetSchema {
        &self.parquet
    }

    /// The Arrow schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        &self.arrow_schema
    }

    /// Bytes buffered for the row group in progress.
    pub fn in_progress_size(&self) -> usize {
        self.columns.iter().map(ColumnWriter::memory_size).sum()
    }

    /// Rows buffered in the row group in progress.
    pub fn in_progress_rows(&self) -> usize {
        self.rows_in_group
    }

    /// Bytes written to the sink so far.
    pub fn bytes_written(&self) -> u64 {
        self.position
    }

    /// Appends a batch (any size: it is split across row groups as needed).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.closed {
            return Err(Error::invalid_argument("the writer is closed"));
        }
        if batch.num_columns() != self.arrow_schema.fields().len() {
            return Err(Error::invalid_argument(format!(
                "batch has {} columns, the writer's schema {}",
                batch.num_columns(),
                self.arrow_schema.fields().len()
            )));
        }
        for (i, (column, field)) in batch
            .columns()
            .iter()
            .zip(self.arrow_schema.fields())
            .enumerate()
        {
            if column.data_type() != field.data_type() {
                return Err(Error::invalid_argument(format!(
                    "batch column {i} ({}) is {}, the writer's schema says {}",
                    field.name(),
                    column.data_type(),
                    field.data_type()
                )));
            }
        }
        let transformed;
        let batch = match &mut self.variants {
            None => batch,
            Some(variants) => {
                if variants.needs_inference() && batch.num_rows() > 0 {
                    // Nothing is written yet: the schema can still change.
                    variants.infer(batch)?;
                    self.parquet = geo::refer_to_projjson(
                        arrow_to_parquet(variants.written(), self.options)?,
                        self.props.key_value_metadata(),
                    )?;
                    let (mut columns, field_leaves, paths) =
                        leaf_writers(&self.parquet, &self.props)?;
                    set_encryptors(
                        &mut columns,
                        self.encryptor.as_deref(),
                        &paths,
                        self.row_groups.len(),
                    )?;
                    self.sort_check = self
                        .props
                        .sorting_columns()
                        .filter(|c| !c.is_empty())
                        .map(|c| SortCheck::new(c, &self.parquet))
                        .transpose()?;
                    (self.columns, self.field_leaves, self.paths) = (columns, field_leaves, paths);
                }
                transformed = variants.transform(batch)?;
                &transformed
            }
        };
        let mut offset = 0;
        while offset < batch.num_rows() {
            let room = self.props.max_row_group_rows() - self.rows_in_group;
            let len = room.min(batch.num_rows() - offset);
            let slice = batch.slice(offset, len);
            if let Some(check) = &mut self.sort_check {
                let first_row = self.total_rows as u64 + self.rows_in_group as u64;
                check.check(&slice, first_row)?;
            }
            self.write_rows(&slice)?;
            offset += len;
            if self.rows_in_group >= self.props.max_row_group_rows()
                || self.in_progress_size() >= self.props.max_row_group_bytes()
            {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Writes the rows of `batch` (all in the row group in progress) into the column
    /// writers: each top-level field's levels, then each of its leaves, on the pool when
    /// there is one.
    fn write_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        let paths = &self.paths;
        let mut tasks = Vec::with_capacity(self.field_leaves.len());
        let mut rest = self.columns.as_mut_slice();
        for ((field, array), leaves) in self
            .parquet
            .fields
            .iter()
            .zip(batch.columns())
            .zip(&self.field_leaves)
        {
            let (columns, tail) = rest.split_at_mut(leaves.len());
            rest = tail;
            tasks.push(FieldTask {
                field,
                array,
                columns,
                first_leaf: leaves.start,
            });
        }
        match &self.pool {
            None => tasks.into_iter().try_for_each(|t| t.run(paths, false))?,
            Some(pool) => {
                pool.install(|| tasks.into_par_iter().try_for_each(|t| t.run(paths, true)))?
            }
        }
        self.rows_in_group += batch.num_rows();
        Ok(())
    }

    /// Closes the row group in progress (nothing happens when it is empty).
    pub fn flush(&mut self) -> Result<()> {
        if self.rows_in_group == 0 {
            return Ok(());
        }
        let closed: Vec<ClosedChunk> = match &self.pool {
            None => self
                .columns
                .iter_mut()
                .map(ColumnWriter::close)
                .collect::<Result<_>>()?,
            Some(pool) => pool.install(|| {
                self.columns
                    .par_iter_mut()
                    .map(ColumnWriter::close)
                    .collect::<Result<_>>()
            })?,
        };
        if let Some(check) = &mut self.sort_check {
            check.reset();
        }
        let group_start = self.position;
        let mut chunks = Vec::with_capacity(closed.len());
        let mut indexes = Vec::with_capacity(closed.len());
        let mut blooms = Vec::new();
        let mut total_uncompressed = 0i64;
        for (column, closed) in self.columns.iter_mut().zip(closed) {
            let base = self.position as i64;
            let size = closed.len();
            self.sink.write_all(&closed.dictionary_page)?;
            for block in &closed.data {
                self.sink.write_all(block)?;
            }
            self.position += size as u64;
            column.recycle(closed.data);
            let mut metadata = closed.metadata;
            metadata.data_page_offset += base;
            if let Some(d) = &mut metadata.dictionary_page_offset {
                *d += base;
            }
            total_uncompressed += metadata.total_uncompressed_size;
            let mut offset_index = closed.offset_index;
            for location in &mut offset_index.page_locations {
                location.offset += base;
            }
            indexes.push((closed.column_index, offset_index));
            blooms.push(closed.bloom_filter);
            chunks.push(ColumnChunk {
                file_offset: metadata
                    .dictionary_page_offset
                    .unwrap_or(metadata.data_page_offset),
                meta_data: Some(metadata),
                ..ColumnChunk::default()
            });
        }
        match self.props.bloom_filter_position() {
            // Bloom filters of this row group, after its column chunks.
            BloomFilterPosition::AfterRowGroup => {
                self.write_blooms(&mut chunks, blooms, self.row_groups.len())?
            }
            BloomFilterPosition::End => self.pending_blooms.push(blooms),
        }
        let total_compressed: i64 = chunks
            .iter()
            .filter_map(|c| c.meta_data.as_ref())
            .map(|m| m.total_compressed_size)
            .sum();
        let ordinal = i16::try_from(self.row_groups.len()).ok();
        self.row_groups.push(RowGroup {
            columns: chunks,
            total_byte_size: total_uncompressed,
            num_rows: self.rows_in_group as i64,
            sorting_columns: self.props.sorting_columns().map(<[_]>::to_vec),
            file_offset: Some(group_start as i64),
            total_compressed_size: Some(total_compressed),
            ordinal,
        });
        self.page_indexes.push(indexes);
        set_encryptors(
            &mut self.columns,
            self.encryptor.as_deref(),
            &self.paths,
            self.row_groups.len(),
        )?;
        self.total_rows += self.rows_in_group as i64;
        self.rows_in_group = 0;
        Ok(())
    }

    /// Flushes the last row group, writes the page indexes and the footer, and returns
    /// the file metadata.
    pub fn close(mut self) -> Result<FileMetaData> {
        self.finish()
    }

    /// Like [`ArrowWriter::close`], keeping the writer (which accepts nothing more).
    pub fn finish(&mut self) -> Result<FileMetaData> {
        if self.closed {
            return Err(Error::invalid_argument("the writer is already closed"));
        }
        self.flush()?;
        self.closed = true;
        // Held Bloom filters (BloomFilterPosition::End), before the page indexes.
        let mut row_groups = std::mem::take(&mut self.row_groups);
        let pending = std::mem::take(&mut self.pending_blooms);
        for (index, (group, blooms)) in row_groups.iter_mut().zip(pending).enumerate() {
            self.write_blooms(&mut group.columns, blooms, index)?;
        }
        self.row_groups = row_groups;
        // Column indexes first, then offset indexes, as the reference writers lay them out.
        let encryptor = self.encryptor.clone();
        let module = |kind: ModuleType, g: usize, c: usize, plain: Vec<u8>| -> Result<Vec<u8>> {
            match column_encryptor(encryptor.as_deref(), &self.paths, g, c)? {
                None => Ok(plain),
                Some(e) => {
                    let mut out = Vec::new();
                    e.encrypt(kind, None, &[&plain], &mut out)?;
                    Ok(out)
                }
            }
        };
        for (g, (group, indexes)) in self
            .row_groups
            .iter_mut()
            .zip(&self.page_indexes)
            .enumerate()
        {
            for (c, (chunk, (column_index, _))) in group.columns.iter_mut().zip(indexes).enumerate()
            {
                if let Some(index) = column_index {
                    let bytes = module(ModuleType::ColumnIndex, g, c, encode_struct(index))?;
                    chunk.column_index_offset = Some(self.position as i64);
                    chunk.column_index_length = Some(to_i32(bytes.len(), "column index length")?);
                    self.sink.write_all(&bytes)?;
                    self.position += bytes.len() as u64;
                }
            }
        }
        for (g, (group, indexes)) in self
            .row_groups
            .iter_mut()
            .zip(&self.page_indexes)
            .enumerate()
        {
            for (c, (chunk, (_, offset_index))) in group.columns.iter_mut().zip(indexes).enumerate()
            {
                let bytes = module(ModuleType::OffsetIndex, g, c, encode_struct(offset_index))?;
                chunk.offset_index_offset = Some(self.position as i64);
                chunk.offset_index_length = Some(to_i32(bytes.len(), "offset index length")?);
                self.sink.write_all(&bytes)?;
                self.position += bytes.len() as u64;
            }
        }
        let mut key_value: Vec<KeyValue> = self.props.key_value_metadata().to_vec();
        if self.props.write_arrow_schema()
            && !key_value
                .iter()
                .any(|kv| kv.key.as_str() == ARROW_SCHEMA_META_KEY)
        {
            key_value.push(KeyValue {
                key: Text::from(ARROW_SCHEMA_META_KEY),
                value: Some(Text::from(
                    encode_arrow_schema(
                        self.variants
                            .as_ref()
                            .map_or(&self.arrow_schema, |v| v.written()),
                    )
                    .as_str(),
                )),
            });
        }
        let metadata = FileMetaData {
            version: 2,
            schema: self.parquet.elements.clone(),
            num_rows: self.total_rows,
            row_groups: std::mem::take(&mut self.row_groups),
            key_value_metadata: (!key_value.is_empty()).then_some(key_value),
            created_by: Some(Text::from(self.props.created_by())),
            column_orders: Some(vec![
                ColumnOrder::TypeDefinedOrder;
                self.parquet.descriptor.num_columns()
            ]),
            ..FileMetaData::default()
        };
        let mut metadata = metadata;
        let mut footer = Vec::new();
        match &self.encryptor {
            None => encode_footer(&metadata, &mut footer),
            Some(encryptor) => {
                for (g, group) in metadata.row_groups.iter_mut().enumerate() {
                    for (c, chunk) in group.columns.iter_mut().enumerate() {
                        if let Some(e) = column_encryptor(Some(encryptor), &self.paths, g, c)? {
                            encryptor.seal_column_chunk(chunk, &e)?;
                        }
                    }
                }
                encryptor.write_footer(&metadata, &mut footer)?;
            }
        }
        self.sink.write_all(&footer)?;
        self.position += footer.len() as u64;
        self.sink.flush()?;
        Ok(metadata)
    }

    /// Writes the Bloom filters of one row group's chunks at the current position and
    /// records their offsets and lengths in the chunk metadata.
    fn write_blooms(
        &mut self,
        chunks: &mut [ColumnChunk],
        blooms: Vec<Option<SplitBlockBloomFilter>>,
        row_group: usize,
    ) -> Result<()> {
        for (column, (chunk, bloom)) in chunks.iter_mut().zip(blooms).enumerate() {
            if let Some(bloom) = bloom {
                let mut bytes = Vec::new();
                let encryptor =
                    column_encryptor(self.encryptor.as_deref(), &self.paths, row_group, column)?;
                let len = match encryptor {
                    None => bloom.write(&mut bytes),
                    Some(e) => {
                        // Header and bitset are two modules.
                        let header = encode_struct(&bloom.header());
                        let mut bitset = Vec::new();
                        bloom.write_bitset(&mut bitset);
                        e.encrypt(ModuleType::BloomFilterHeader, None, &[&header], &mut bytes)?;
                        e.encrypt(ModuleType::BloomFilterBitset, None, &[&bitset], &mut bytes)?;
                        bytes.len()
                    }
                };
                if let Some(meta) = &mut chunk.meta_data {
                    meta.bloom_filter_offset = Some(self.position as i64);
                    meta.bloom_filter_length = Some(to_i32(len, "Bloom filter length")?);
                }
                self.sink.write_all(&bytes)?;
                self.position += bytes.len() as u64;
            }
        }
        Ok(())
    }

    /// The sink, after [`ArrowWriter::finish`].
    pub fn into_inner(self) -> W {
        self.sink
    }
}

/// One top-level field of a batch and the writers of its leaves.
struct FieldTask<'a> {
    field: &'a WriteField,
    array: &'a ArrayRef,
    columns: &'a mut [ColumnWriter],
    first_leaf: usize,
}

impl FieldTask<'_> {
    /// Computes the field's levels and writes each leaf (the leaves in parallel when
    /// `parallel`, on the pool the caller is in).
    fn run(self, paths: &[String], parallel: bool) -> Result<()> {
        let leaves = levels::compute_levels(self.field, self.array)?;
        let context = |k: usize, e: Error| {
            let path = paths.get(self.first_leaf + k).map_or("", String::as_str);
            e.context(format!("column {path}"))
        };
        if parallel && leaves.len() > 1 {
            self.columns
                .par_iter_mut()
                .zip(leaves.par_iter())
                .enumerate()
                .try_for_each(|(k, (column, leaf))| column.write(leaf).map_err(|e| context(k, e)))
        } else {
            self.columns
                .iter_mut()
                .zip(&leaves)
                .enumerate()
                .try_for_each(|(k, (column, leaf))| column.write(leaf).map_err(|e| context(k, e)))
        }
    }
}

/// One writer per leaf column, the leaves of each top-level field and each leaf's dotted
/// path.
type LeafWriters = (Vec<ColumnWriter>, Vec<Range<usize>>, Vec<String>);

fn leaf_writers(parquet: &ParquetSchema, props: &WriterProperties) -> Result<LeafWriters> {
    let columns = parquet
        .descriptor
        .columns()
        .iter()
        .zip(&parquet.leaves)
        .map(|(column, info)| ColumnWriter::new(column, info, props))
        .collect::<Result<Vec<_>>>()?;
    let field_leaves = field_leaves(&parquet.fields)?;
    let paths = parquet
        .descriptor
        .columns()
        .iter()
        .map(|c| c.path().dotted())
        .collect();
    Ok((columns, field_leaves, paths))
}

/// The leaf columns of each field: consecutive ranges, in order.
fn field_leaves(fields: &[WriteField]) -> Result<Vec<Range<usize>>> {
    let mut next = 0;
    fields
        .iter()
        .map(|field| {
            let mut leaves = Vec::new();
            field.leaves(&mut leaves);
            let range = next..next + leaves.len();
            if !leaves.iter().copied().eq(range.clone()) {
                return Err(Error::invalid_argument(
                    "the schema's leaf columns are not numbered in field order",
                ));
            }
            next = range.end;
            Ok(range)
        })
        .collect()
}

/// The encryptor of leaf column `column` (dotted path in `paths`) in row group
/// `row_group`, if it is encrypted.
fn column_encryptor(
    encryptor: Option<&FileEncryptor>,
    paths: &[String],
    row_group: usize,
    column: usize,
) -> Result<Option<ColumnEncryptor>> {
    let Some(encryptor) = encryptor else {
        return Ok(None);
    };
    let path = paths.get(column).map_or("", String::as_str);
    Ok(encryptor.column(path, row_group, column)?)
}

/// Gives each column writer its encryptor for row group `row_group` (the page and
/// header AADs name the row group).
fn set_encryptors(
    columns: &mut [ColumnWriter],
    encryptor: Option<&FileEncryptor>,
    paths: &[String],
    row_group: usize,
) -> Result<()> {
    if encryptor.is_none() {
        return Ok(());
    }
    for (index, column) in columns.iter_mut().enumerate() {
        column.set_encryptor(column_encryptor(encryptor, paths, row_group, index)?);
    }
    Ok(())
}

fn encode_struct<T: ThriftStruct>(value: &T) -> Vec<u8> {
    let mut w = CompactWriter::new();
    value.write(&mut w);
    w.into_inner()
}

fn to_i32(value: usize, what: &str) -> Result<i32> {
    i32::try_from(value).map_err(|_| Error::invalid_argument(format!("{what} {value} exceeds i32")))
}
