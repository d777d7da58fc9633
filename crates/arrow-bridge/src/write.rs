//! The Arrow -> Parquet writer.
//!
//! [`ArrowWriter`] takes `RecordBatch`es of one schema and writes a Parquet file to any
//! `Write + Send`: the schema mapping is in [`schema`], Dremel levels in [`levels`], the
//! per-column chunk writer (encodings, dictionary with fallback, pages, statistics) in
//! `column`, and the settings in [`properties`].
//!
//! Layout of a file: `PAR1`, then per row group its column chunks (dictionary page, data
//! pages) followed by the row group's Bloom filters (or, with [`BloomFilterPosition::End`],
//! all Bloom filters after the last row group); then all column indexes, then all offset
//! indexes, then the footer. Memory held is the row group in progress (encoded pages and
//! dictionaries), reported by
//! [`ArrowWriter::in_progress_size`]; with [`BloomFilterPosition::End`] the Bloom filters of
//! finished row groups are held too (their size is fixed by NDV and FPP).
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

mod column;
mod dictionary;
mod geo;
pub mod levels;
pub mod properties;
pub mod schema;
mod statistics;

use std::io::Write;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use herringbone_codec::bloom::SplitBlockBloomFilter;
use herringbone_codec::crypto::{FileEncryptor, ModuleType};
use herringbone_format::footer::encode_footer;
use herringbone_format::metadata::{
    ColumnChunk, ColumnIndex, ColumnOrder, FileMetaData, KeyValue, OffsetIndex, RowGroup,
};
use herringbone_format::thrift::{CompactWriter, Text, ThriftStruct};

pub use properties::{
    BloomFilterPosition, BloomFilterProperties, CREATED_BY, DataPageVersion, StatisticsLevel,
    WriterProperties, WriterPropertiesBuilder,
};
pub use schema::{ArrowToParquetOptions, ParquetSchema, arrow_to_parquet, encode_arrow_schema};

use crate::error::{Error, Result};
use crate::schema::ARROW_SCHEMA_META_KEY;
use crate::variant::VariantWritePlan;
use column::ColumnWriter;

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
    columns: Vec<ColumnWriter>,
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
    /// Errors when a type has no Parquet mapping or a column encoding does not fit its
    /// physical type.
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
        let encryptor = match props.encryption() {
            Some(encryption) => {
                let encryptor = FileEncryptor::new(encryption.clone())?;
                let paths: Vec<String> = parquet
                    .descriptor
                    .columns()
                    .iter()
                    .map(|c| c.path().dotted())
                    .collect();
                encryptor
                    .check_column_keys(paths.iter().map(String::as_str))
                    .map_err(|e| Error::invalid_argument(e.message().to_string()))?;
                Some(Arc::new(encryptor))
            }
            None => None,
        };
        let columns = new_columns(&parquet, &props, encryptor.as_deref(), 0)?;
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
                    self.columns = new_columns(
                        &self.parquet,
                        &self.props,
                        self.encryptor.as_deref(),
                        self.row_groups.len(),
                    )?;
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

    fn write_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        for (field, array) in self.parquet.fields.iter().zip(batch.columns()) {
            if let schema::WriteKind::Leaf(index) = field.kind {
                // A top-level leaf: levels from the validity bitmap, values by the slice.
                let written = self.columns[index]
                    .write_flat(array, field.nullable)
                    .map_err(|e| self.column_context(index, e))?;
                if written {
                    continue;
                }
            }
            let leaves = levels::compute_levels(field, array)?;
            let mut indices = Vec::new();
            field.leaves(&mut indices);
            for (leaf, index) in leaves.iter().zip(indices) {
                self.columns[index]
                    .write(leaf)
                    .map_err(|e| self.column_context(index, e))?;
            }
        }
        self.rows_in_group += batch.num_rows();
        Ok(())
    }

    /// `e` with the dotted path of leaf column `index` as context.
    fn column_context(&self, index: usize, e: Error) -> Error {
        let path = self
            .parquet
            .descriptor
            .column(index)
            .map(|c| c.path().dotted())
            .unwrap_or_default();
        e.context(format!("column {path}"))
    }

    /// Closes the row group in progress (nothing happens when it is empty).
    pub fn flush(&mut self) -> Result<()> {
        if self.rows_in_group == 0 {
            return Ok(());
        }
        let fresh = new_columns(
            &self.parquet,
            &self.props,
            self.encryptor.as_deref(),
            self.row_groups.len() + 1,
        )?;
        let columns = std::mem::replace(&mut self.columns, fresh);
        let group_start = self.position;
        let mut chunks = Vec::with_capacity(columns.len());
        let mut indexes = Vec::with_capacity(columns.len());
        let mut blooms = Vec::new();
        let mut total_uncompressed = 0i64;
        for column in columns {
            let closed = column.close()?;
            let base = self.position as i64;
            self.sink.write_all(&closed.bytes)?;
            self.position += closed.bytes.len() as u64;
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
            match column_encryptor(encryptor.as_deref(), &self.parquet, g, c)? {
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
                        if let Some(e) = column_encryptor(Some(encryptor), &self.parquet, g, c)? {
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
                    column_encryptor(self.encryptor.as_deref(), &self.parquet, row_group, column)?;
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

/// The column writers of row group `row_group`, encrypting the columns `encryptor` says.
fn new_columns(
    parquet: &ParquetSchema,
    props: &WriterProperties,
    encryptor: Option<&FileEncryptor>,
    row_group: usize,
) -> Result<Vec<ColumnWriter>> {
    parquet
        .descriptor
        .columns()
        .iter()
        .zip(&parquet.leaves)
        .enumerate()
        .map(|(index, (column, info))| {
            let writer = ColumnWriter::new(column, info, props)?;
            Ok(
                match column_encryptor(encryptor, parquet, row_group, index)? {
                    Some(e) => writer.with_encryptor(e),
                    None => writer,
                },
            )
        })
        .collect()
}

/// The encryptor of leaf column `column` in row group `row_group`, if it is encrypted.
fn column_encryptor(
    encryptor: Option<&FileEncryptor>,
    parquet: &ParquetSchema,
    row_group: usize,
    column: usize,
) -> Result<Option<herringbone_codec::crypto::ColumnEncryptor>> {
    let Some(encryptor) = encryptor else {
        return Ok(None);
    };
    let path = parquet
        .descriptor
        .column(column)
        .map(|c| c.path().dotted())
        .unwrap_or_default();
    Ok(encryptor.column(&path, row_group, column)?)
}

fn encode_struct<T: ThriftStruct>(value: &T) -> Vec<u8> {
    let mut w = CompactWriter::new();
    value.write(&mut w);
    w.into_inner()
}

fn to_i32(value: usize, what: &str) -> Result<i32> {
    i32::try_from(value).map_err(|_| Error::invalid_argument(format!("{what} {value} exceeds i32")))
}
