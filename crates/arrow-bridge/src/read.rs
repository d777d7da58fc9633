//! Reading Parquet into Arrow `RecordBatch`es.
//!
//! [`ParquetRecordBatchReaderBuilder`] opens a file (anything implementing
//! [`ChunkReader`]: [`Bytes`], [`std::fs::File`]), maps its schema to Arrow
//! ([`crate::schema`]), and builds a [`ParquetRecordBatchReader`], an iterator of
//! `RecordBatch`es.
//!
//! The decoding core is I/O free: [`row_group_ranges`] says which byte ranges a row group
//! needs (one per column chunk of the [`ReadPlan`]), and [`RowGroupDecoder`] decodes them
//! once they are fetched. The synchronous reader is one adapter over it, which fetches each
//! column chunk page by page as its batches reach it ([`RowGroupDecoder::from_sources`]:
//! a column holds about one page, not its chunk); an asynchronous one fetches the same
//! ranges whole, another way.
//!
//! It reads leaf columns of every physical type, encoding and codec under any nesting of
//! structs, lists (every backward-compatible list shape) and maps.
//!
//! A [`RowFilter`] ([`ParquetRecordBatchReaderBuilder::with_row_filter`]) is evaluated
//! inside the reader: the fields it reads are decoded first, the others only for the rows
//! it keeps (late materialisation; what [`crate::scan`] uses for its predicate).
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

mod assemble;
mod budget;
mod column;
mod damage;
mod decode;
mod external;
mod input;
mod leaf;
mod levels;
mod lookahead;
#[cfg(feature = "mmap")]
mod mmap;
mod pool;
mod reader_metadata;
mod row_group;
pub mod salvage;
mod selection;
mod values;
mod views;

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
#[cfg(not(unix))]
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, Schema, SchemaRef};
use bytes::Bytes;
use herringbone_codec::crypto::{FileDecryptionProperties, FileDecryptor, decode_footer};
use herringbone_codec::page::{ChunkSource, PageReaderOptions, column_chunk_range};
use herringbone_format::footer::{FooterOptions, FooterReader};
use herringbone_format::metadata::{FileMetaData, OffsetIndex};
use herringbone_format::schema::SchemaDescriptor;

use crate::error::{Error, ErrorKind, Result};
use crate::schema::{ArrowSchemaMapping, Projection, SchemaOptions, parquet_to_arrow};
pub use budget::DEFAULT_BATCH_MEMORY_LIMIT;
pub use external::{DirectoryFiles, ExternalFiles};
pub(crate) use input::OffsetIndexFetch;
use input::{InputRange, SharedInput, offset_indexes};
pub(crate) use lookahead::{Lookahead, Next, Opened, Opening};
#[cfg(feature = "mmap")]
pub use mmap::map_file;
#[cfg(feature = "async")]
pub(crate) use pool::decode_pool;
pub use reader_metadata::ReaderMetadata;
pub(crate) use row_group::ResolvedFilter;
pub use row_group::{
    FilterFn, MIN_ROWS_PER_RUN, ReadPlan, RowFilter, RowGroupDecoder, row_group_ranges,
};
use row_group::{chunk_location, external_chunk_unsupported};
use salvage::fitting_offset_indexes;
pub use salvage::{LossScope, LostRows, SalvageReport};
pub(crate) use selection::take_rows;
pub use selection::{RowSelection, RowSelector};

/// The default number of rows per batch.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// A source of a file's bytes by range: the one I/O operation the reader needs.
///
/// `Send + Sync` (as arrow-rs's `ChunkReader` is), so that a reader can move to another
/// thread and the columns decoded on several threads ([`with_threads`]) fetch their
/// pages at the same time.
///
/// [`with_threads`]: ParquetRecordBatchReaderBuilder::with_threads
pub trait ChunkReader: Send + Sync {
    /// Length of the file in bytes.
    fn len(&self) -> u64;

    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of `range` (within `0..len()`).
    fn get_bytes(&self, range: Range<u64>) -> Result<Bytes>;

    /// The bytes from `range.start`, at least to `needed_end` and at most to
    /// `range.end` (`range.start <= needed_end <= range.end`): the page reader asks for
    /// a little more than a page (the next page's header) and takes less when that is
    /// all the input holds. By default [`Self::get_bytes`]`(range)`; an input holding
    /// only some of the file in memory (the pages an engine fetched ahead) hands out
    /// what it has instead of fetching the rest.
    fn get_bytes_within(&self, range: Range<u64>, needed_end: u64) -> Result<Bytes> {
        let _ = needed_end;
        self.get_bytes(range)
    }

    /// Whether small column chunks lying side by side in the file are best fetched
    /// together, in one [`Self::get_bytes`] spanning them (and the few bytes between
    /// them), when a row group is read whole. `true` for a [`std::fs::File`], where
    /// every fetch is a system call and a buffer; `false` by default, for inputs that
    /// serve only the ranges they were asked for (an engine's fetched-ahead ranges).
    fn reads_side_by_side(&self) -> bool {
        false
    }
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
        let outside = || {
            Error::invalid_argument(format!(
                "byte range {range:?} outside a file of {} bytes",
                ChunkReader::len(self)
            ))
        };
        if range.start > range.end {
            return Err(outside());
        }
        // The file's length is asked for only when a read comes up short: a `statx` per
        // fetch was one system call in two on a 5,000-column file.
        match read_range(self, range.start, len) {
            Ok(buffer) => Ok(Bytes::from(buffer)),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(outside()),
            Err(e) => Err(e.into()),
        }
    }

    fn reads_side_by_side(&self) -> bool {
        true
    }
}

/// Reads `len` bytes at `offset` into a new buffer, without moving a shared file
/// position where the platform allows it.
///
/// The bytes go straight into the buffer's uninitialised capacity: zero-filling a page
/// only to overwrite it was 7% of reading an uncompressed string file (glibc hands a
/// reused heap block to `calloc` only after clearing it).
#[cfg(unix)]
fn read_range(file: &std::fs::File, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    // A range is not checked against the file's length first, so the buffer grows with
    // the bytes really read beyond the first 16 MiB (a range past the end costs what
    // the file holds, not what was asked).
    const FIRST_READ: usize = 16 << 20;
    let mut buffer = Vec::with_capacity(len.min(FIRST_READ));
    while buffer.len() < len {
        if buffer.len() == buffer.capacity() {
            buffer.reserve_exact((len - buffer.len()).min(buffer.len()));
        }
        let at = offset + buffer.len() as u64;
        match rustix::io::pread(file, rustix::buffer::spare_capacity(&mut buffer), at) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    // The capacity may exceed `len`, and a read may fill all of it.
    buffer.truncate(len);
    Ok(buffer)
}

#[cfg(not(unix))]
fn read_range(file: &std::fs::File, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    let mut buffer = Vec::new();
    file.take(len as u64).read_to_end(&mut buffer)?;
    if buffer.len() < len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(buffer)
}

/// Reads the footer metadata through a [`ChunkReader`], with the one footer reader of
/// the format crate ([`FooterReader`]): the leading magic and the 8-byte tail, then the
/// footer.
///
/// An encrypted footer is an [`ErrorKind::Encrypted`] error ("encrypted: keys
/// required"); a plaintext footer of an encrypted file is returned as it is (its
/// signature unchecked): see [`read_metadata_with_decryption`].
pub fn read_metadata<R: ChunkReader + ?Sized>(input: &R) -> Result<FileMetaData> {
    Ok(read_metadata_with_decryption(input, None)?.0)
}

/// Reads the footer metadata through a [`ChunkReader`] with decryption keys: decrypts an
/// encrypted footer, verifies a plaintext footer's signature, decrypts the metadata of
/// column chunks under their own keys, and returns the file's decryptor (`None` for a
/// file read without keys or one that is not encrypted). The bytes are fetched by the
/// format crate's [`FooterReader`] (leading magic, tail, footer), decoded by the codec's
/// decrypting footer decoder.
pub fn read_metadata_with_decryption<R: ChunkReader + ?Sized>(
    input: &R,
    decryption: Option<&FileDecryptionProperties>,
) -> Result<(FileMetaData, Option<Arc<FileDecryptor>>)> {
    let mut footer = FooterReader::new(input.len())
        .map_err(footer_error)?
        .with_undecoded_metadata(true);
    while !footer.is_done() {
        let fetched = footer
            .needed()
            .iter()
            .map(|range| input.get_bytes(range.clone()))
            .collect::<Result<Vec<_>>>()?;
        footer.push(&fetched).map_err(footer_error)?;
    }
    let footer = footer.finish_undecoded().map_err(footer_error)?;
    if footer.encrypted_footer && decryption.is_none() {
        return Err(Error::new(
            ErrorKind::Encrypted,
            "encrypted: keys required (the file's footer is encrypted)",
        ));
    }
    let decoded = decode_footer(
        footer.bytes,
        footer.encrypted_footer,
        decryption,
        &FooterOptions::default().with_base_offset(footer.range.start),
    )
    .map_err(|e| {
        let metadata = e.kind() == herringbone_codec::ErrorKind::Metadata;
        let e = Error::from(e);
        if metadata {
            Error::new(ErrorKind::Format, "invalid Parquet metadata").with_source(e)
        } else {
            e
        }
    })?;
    if let Some(decryptor) = &decoded.decryptor {
        let descriptor = SchemaDescriptor::new(&decoded.metadata.schema)?;
        let paths: Vec<String> = descriptor
            .columns()
            .iter()
            .map(|c| c.path().dotted())
            .collect();
        decryptor
            .check_column_keys(paths.iter().map(String::as_str))
            .map_err(|e| Error::invalid_argument(e.message().to_string()))?;
    }
    Ok((decoded.metadata, decoded.decryptor))
}

fn footer_error(e: herringbone_format::Error) -> Error {
    if e.kind() == herringbone_format::ErrorKind::Encrypted {
        // The format error says the same thing again; one sentence is enough.
        Error::new(
            ErrorKind::Encrypted,
            "encrypted: keys required (the file's footer is encrypted)",
        )
    } else {
        Error::from(e)
    }
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
    batch_memory_limit: usize,
    decryptor: Option<Arc<FileDecryptor>>,
    unshredded_variants: bool,
    offset_index: bool,
    salvage: bool,
    row_filter: Option<RowFilter>,
    threads: usize,
    external_files: Option<Arc<dyn ExternalFiles>>,
}

impl<T: ChunkReader + 'static> ParquetRecordBatchReaderBuilder<T> {
    /// Reads the footer of `input` and prepares to read all of it.
    ///
    /// Errors when the file is not Parquet, its footer is encrypted
    /// ([`ErrorKind::Encrypted`]: "encrypted: keys required") or its metadata is invalid.
    /// The plaintext columns of an encrypted file with a plaintext footer can be read.
    pub fn try_new(input: T) -> Result<Self> {
        Self::open(input, None)
    }

    /// Reads the footer of an encrypted file with these keys and prepares to read all of
    /// it. Errors name what is wrong: a missing or wrong footer key, a footer signature
    /// that does not verify, an AAD prefix that is needed or differs, a key given for a
    /// column the file does not have, a column key that does not decrypt its metadata.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
    /// # use bytes::Bytes;
    /// use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
    /// use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
    /// use herringbone_codec::crypto::{FileDecryptionProperties, FileEncryptionProperties};
    ///
    /// let key = b"0123456789012345".to_vec();
    /// # let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
    /// # let batch = RecordBatch::try_from_iter([("x", column)]).unwrap();
    /// let encryption = FileEncryptionProperties::builder(key.clone()).build().unwrap();
    /// let props = WriterProperties::builder().set_encryption(encryption).build();
    /// let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
    /// writer.write(&batch).unwrap();
    /// writer.finish().unwrap();
    /// let file = Bytes::from(writer.into_inner());
    ///
    /// let keys = FileDecryptionProperties::builder().with_footer_key(key).build().unwrap();
    /// let reader = ParquetRecordBatchReaderBuilder::try_new_with_decryption(file, &keys)
    ///     .unwrap()
    ///     .build()
    ///     .unwrap();
    /// let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    /// assert_eq!(batches[0], batch);
    /// ```
    pub fn try_new_with_decryption(
        input: T,
        decryption: &FileDecryptionProperties,
    ) -> Result<Self> {
        Self::open(input, Some(decryption))
    }

    fn open(input: T, decryption: Option<&FileDecryptionProperties>) -> Result<Self> {
        let footer = ReaderMetadata::load_with_decryption(&input, decryption)?;
        Ok(Self::new_with_metadata(input, footer))
    }

    /// Prepares to read all of `input`, whose footer was read before (see
    /// [`ReaderMetadata`]): no footer is read again.
    pub fn new_with_metadata(input: T, footer: ReaderMetadata) -> Self {
        let (metadata, descriptor, decryptor) = footer.into_parts();
        Self {
            input,
            metadata,
            descriptor,
            schema_options: SchemaOptions::default(),
            supplied_schema: None,
            projection: Projection::All,
            row_groups: None,
            selection: None,
            batch_size: DEFAULT_BATCH_SIZE,
            limit: None,
            offset: 0,
            verify_crc: false,
            batch_memory_limit: DEFAULT_BATCH_MEMORY_LIMIT,
            decryptor,
            unshredded_variants: false,
            offset_index: true,
            salvage: false,
            row_filter: None,
            threads: 1,
            external_files: None,
        }
    }

    /// The file's decryptor, when it was opened with keys and is encrypted.
    pub fn decryptor(&self) -> Option<&Arc<FileDecryptor>> {
        self.decryptor.as_ref()
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

    /// Returns only the rows `filter` keeps, decoding the fields it reads first and the
    /// others only for those rows (late materialisation; see [`RowFilter`]). Offset and
    /// limit count rows before the filter. Row groups with a filter read their chunks'
    /// offset indexes (see [`Self::with_offset_index`]), so that the other fields step
    /// over the pages the filter drops whole without fetching them.
    pub fn with_row_filter(mut self, filter: RowFilter) -> Self {
        self.row_filter = Some(filter);
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

    /// The most memory one batch's buffers may take, all columns together (default
    /// [`DEFAULT_BATCH_MEMORY_LIMIT`], 1 GiB). A batch that needs more (a few bytes of
    /// a file can claim billions of values) is an [`ErrorKind::LimitExceeded`] error
    /// naming the row group and column, never an allocation beyond the limit.
    pub fn with_batch_memory_limit(mut self, bytes: usize) -> Self {
        self.batch_memory_limit = bytes;
        self
    }

    /// Whether a row group whose rows the selection (or offset / limit) skips reads
    /// its chunks' offset indexes, to jump over the pages wholly inside a skip without
    /// fetching them or reading their headers (default `true`; a row group read whole
    /// never reads them). Without them, or for chunks that have none, pages are
    /// stepped over by their headers (still never decompressed). An offset index that
    /// does not fit its chunk is an error naming the row group, column and page.
    pub fn with_offset_index(mut self, use_offset_index: bool) -> Self {
        self.offset_index = use_offset_index;
        self
    }

    /// Whether to check page CRCs where the writer stored them (default `false`).
    pub fn with_verify_crc(mut self, verify: bool) -> Self {
        self.verify_crc = verify;
        self
    }

    /// Whether Variant columns come back unshredded (default `false`): every Variant
    /// column, at any depth, as `{metadata, value}` with each row's value reconstructed
    /// from its shredded columns ([`crate::variant::unshred`]); a row that breaks the
    /// shredding rules is then an error naming it.
    pub fn with_unshredded_variants(mut self, unshredded: bool) -> Self {
        self.unshredded_variants = unshredded;
        self
    }

    /// Whether to read on past damage (default `false`), as the specification's error
    /// recovery section allows: a damaged column chunk (metadata, dictionary page) loses
    /// its row group's rows, a damaged page header the rest of its chunk, a damaged page
    /// (CRC, which is then always checked, decryption, decompression, levels, values)
    /// that page's rows; a v1 page of a repeated column, whose rows only its levels
    /// tell, loses the rest of its chunk. Where the chunk's offset index agrees with the
    /// pages read before the damage, a damaged page header or v1 page of a repeated
    /// column loses only that page's rows (the index places the next page and counts
    /// the rows). A row lost in any projected column is left out
    /// of the batches (no null is made up), and every loss is in
    /// [`ParquetRecordBatchReader::salvage_report`]. See [`salvage`] for how.
    ///
    /// Offset, limit and row selection count the file's rows, lost ones included.
    pub fn with_salvage(mut self, salvage: bool) -> Self {
        self.salvage = salvage;
        self
    }

    /// Decodes on `threads` threads: the caller's, which asks for the batches, and a
    /// pool of `threads - 1` beside it (default 1: the caller's thread alone, no pool).
    /// The batches are the same, in the same order, as with one thread.
    ///
    /// Two kinds of work run side by side: the columns of a batch, and the batches of
    /// two row groups, the one being read and the next; the caller's thread also opens
    /// the row group after them meanwhile. Memory: beside the batch handed out, at most
    /// the decoded batches of the next row group, which wait until the row group before
    /// them is read. A salvage read ([`Self::with_salvage`]) decodes columns side by
    /// side but reads row groups one at a time.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    /// # use bytes::Bytes;
    /// use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
    /// # use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
    /// # let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..10_000));
    /// # let names: ArrayRef = Arc::new(StringArray::from_iter_values((0..10_000).map(|i| format!("n{i}"))));
    /// # let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap();
    /// # let props = WriterProperties::builder().set_max_row_group_rows(3000).build();
    /// # let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
    /// # writer.write(&batch).unwrap();
    /// # writer.finish().unwrap();
    /// # let file = Bytes::from(writer.into_inner());
    /// // `file` holds 10,000 rows in four row groups.
    /// let read = |threads| -> Vec<RecordBatch> {
    ///     ParquetRecordBatchReaderBuilder::try_new(file.clone())
    ///         .unwrap()
    ///         .with_threads(threads)
    ///         .build()
    ///         .unwrap()
    ///         .collect::<Result<_, _>>()
    ///         .unwrap()
    /// };
    /// assert_eq!(read(2), read(1));
    /// ```
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Reads column chunks stored in other files (their `file_path`, as in a `_metadata`
    /// summary file) through `files`, e.g. [`DirectoryFiles::beside`] the metadata file.
    /// Without it such a chunk is an unsupported error. Each row group's files are
    /// opened when it is reached and closed after it; their offset indexes are not used
    /// (skips step over pages by their headers), and a salvage read does not check their
    /// pages ahead: damage in them loses the rest of their row group.
    pub fn with_external_files(mut self, files: Arc<dyn ExternalFiles>) -> Self {
        self.external_files = Some(files);
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
        let options = PageReaderOptions::default().with_verify_crc(self.verify_crc);
        let mut plan = ReadPlan::new(self.descriptor, &mapping, options)?
            .with_batch_memory_limit(self.batch_memory_limit)
            .with_decryptor(self.decryptor.clone());
        if self.unshredded_variants {
            plan = plan.with_unshredded_variants()?;
        }
        let filter = match self.row_filter {
            Some(filter) => {
                let filter = filter.resolve(&plan)?;
                plan = plan.with_row_filter(&filter)?;
                Some(filter)
            }
            None => None,
        };
        // Keys are resolved now, so a missing one is reported before any data is read.
        for &g in &row_groups {
            for &c in plan.columns() {
                plan.column_decryptor(&self.metadata, g, c)?;
            }
        }
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
        let pool = pool::decode_pool(self.threads)?;
        // A salvage read goes back to where a failed batch began: one row group at a time.
        // A row filter is evaluated by the open row group's decoder: one at a time too
        // (its columns still decode on the pool).
        let lookahead = pool
            .clone()
            .filter(|_| !self.salvage && filter.is_none())
            .map(Lookahead::new);
        Ok(ParquetRecordBatchReader {
            input: Arc::new(self.input),
            metadata: self.metadata,
            plan: Arc::new(plan),
            row_groups: row_groups.into(),
            current: None,
            batch_size: self.batch_size,
            runs: selection.into_runs(),
            failed: false,
            metrics: ReadMetrics::default(),
            offset_index: self.offset_index,
            salvage: self.salvage.then(SalvageReport::default),
            filter,
            pool,
            lookahead,
            external_files: self.external_files,
        })
    }
}

/// What a reader did so far: how many data and dictionary pages it decompressed
/// (or took as they were, uncompressed) and how many it stepped over without touching
/// their bytes (pages wholly inside a skipped run of rows), and how many row groups it
/// skipped without fetching them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadMetrics {
    /// Pages decoded.
    pub pages_decoded: usize,
    /// Pages skipped without being decompressed.
    pub pages_skipped: usize,
    /// Row groups skipped whole (no byte fetched).
    pub row_groups_skipped: usize,
    /// With a [`RowFilter`]: rows its fields were decoded for and the other fields
    /// were not, as it dropped them (late materialisation).
    pub rows_filtered_late: u64,
    /// With a [`RowFilter`]: data pages of the other fields stepped over without being
    /// decompressed in skips the filter made or lengthened.
    pub pages_skipped_late: usize,
}

/// An iterator of `RecordBatch`es read from a Parquet file; built by
/// [`ParquetRecordBatchReaderBuilder`]. After an error it yields nothing more.
pub struct ParquetRecordBatchReader {
    input: SharedInput,
    metadata: Arc<FileMetaData>,
    plan: Arc<ReadPlan>,
    row_groups: VecDeque<usize>,
    current: Option<RowGroupDecoder>,
    batch_size: usize,
    /// What is left of the row selection (offset and limit included).
    runs: VecDeque<RowSelector>,
    failed: bool,
    /// What finished row groups did.
    metrics: ReadMetrics,
    /// Whether row groups with skips read their chunks' offset indexes.
    offset_index: bool,
    /// What a salvage read lost (`None`: not a salvage read).
    salvage: Option<SalvageReport>,
    /// The row filter, evaluated between the fields it reads and the others.
    filter: Option<ResolvedFilter>,
    /// The decode threads (`None`: the caller's thread alone).
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The row groups open with threads, outside a salvage read (`None`: one at a time
    /// in `current`).
    lookahead: Option<Lookahead>,
    /// Opens the files of chunks stored elsewhere (`file_path`).
    external_files: Option<Arc<dyn ExternalFiles>>,
}

impl ParquetRecordBatchReader {
    /// The next batch, or `None` at the end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if let Some(mut lookahead) = self.lookahead.take() {
            let next = self.next_batch_ahead(&mut lookahead);
            self.lookahead = Some(lookahead);
            return next;
        }
        loop {
            if self.runs.is_empty() {
                return Ok(None);
            }
            if let Some(decoder) = &mut self.current {
                // A salvage read can go back to where a failed batch began.
                let before = self
                    .salvage
                    .is_some()
                    .then(|| (self.runs.clone(), decoder.rows_left()));
                let batch = match &mut self.filter {
                    Some(filter) => {
                        decoder.next_filtered_batch(&mut self.runs, self.batch_size, filter)
                    }
                    None => decoder.next_selected_batch(&mut self.runs, self.batch_size),
                };
                match batch {
                    // A filter may keep no row of a batch: the next one is read.
                    Ok(Some(batch)) if batch.num_rows() == 0 && self.filter.is_some() => {
                        continue;
                    }
                    Ok(Some(batch)) => return Ok(Some(batch)),
                    Ok(None) => {}
                    Err(e) => {
                        let (Some(report), Some((runs, rows_left))) = (&mut self.salvage, before)
                        else {
                            return Err(e);
                        };
                        let group = decoder.row_group();
                        let rows = group_rows(&self.metadata, group)?;
                        self.runs = runs;
                        report.lose_rest(
                            &self.metadata,
                            group,
                            rows,
                            rows_left,
                            &e,
                            &mut self.runs,
                        );
                    }
                }
                self.finish_row_group();
                continue;
            }
            let Some(group) = self.row_groups.pop_front() else {
                return Ok(None);
            };
            let rows = group_rows(&self.metadata, group)?;
            if rows == 0 || self.skip_whole(rows) {
                continue;
            }
            let mut salvage_indexes = None;
            if let Some(report) = &mut self.salvage {
                let mut indexes = if self.offset_index {
                    fitting_offset_indexes(&self.plan, &self.metadata, group, rows, &self.input)
                } else {
                    Vec::new()
                };
                report.check_row_group(
                    &self.plan,
                    &self.metadata,
                    group,
                    rows,
                    &self.input,
                    &mut indexes,
                    &mut self.runs,
                )?;
                salvage_indexes = Some(indexes);
                // Nothing selected in the group any more (or after it): not opened.
                if self.runs.is_empty() || self.skip_whole(rows) {
                    continue;
                }
            }
            match self.open_row_group(group, rows, salvage_indexes, None) {
                Ok(decoder) => self.current = Some(decoder),
                Err(e) => match &mut self.salvage {
                    Some(report) => {
                        report.lose_rest(&self.metadata, group, rows, rows, &e, &mut self.runs)
                    }
                    None => return Err(e),
                },
            }
        }
    }

    /// [`Self::next_batch`] with row groups decoded ahead on the pool.
    fn next_batch_ahead(&mut self, lookahead: &mut Lookahead) -> Result<Option<RecordBatch>> {
        let batch_size = self.batch_size;
        loop {
            // An error opening a row group is handed out in file order: after the
            // batches of the row groups open before it.
            match lookahead.next_batch(batch_size, &mut |pool_idle| {
                self.open_next_row_group(pool_idle)
            })? {
                Next::Batch(batch) => return Ok(Some(batch)),
                Next::RowGroupDone((decoded, skipped)) => {
                    self.metrics.pages_decoded += decoded;
                    self.metrics.pages_skipped += skipped;
                }
                Next::End => return Ok(None),
                // A file's chunks are read as its row group is opened, so this is never
                // returned here; asking again is what it asks for.
                Next::Fetching => {}
            }
        }
    }

    /// The decoder of the next row group with rows selected, and the selection's runs
    /// over its rows (taken off the reader's), or [`Opening::End`]. With `pool_idle`,
    /// its chunks are read on the reader's threads together.
    fn open_next_row_group(&mut self, pool_idle: bool) -> Opened {
        while !self.runs.is_empty() {
            let Some(group) = self.row_groups.pop_front() else {
                break;
            };
            let rows = group_rows(&self.metadata, group)?;
            if rows == 0 || self.skip_whole(rows) {
                continue;
            }
            let fetch_pool = self.pool.as_deref().filter(|_| pool_idle);
            let decoder = self.open_row_group(group, rows, None, fetch_pool)?;
            return Ok(Opening::RowGroup(decoder, take_rows(&mut self.runs, rows)));
        }
        Ok(Opening::End)
    }

    /// Whether the selection skips the next `rows` rows (a row group) whole; if so they
    /// are taken off it and counted.
    fn skip_whole(&mut self, rows: usize) -> bool {
        let Some(run) = self.runs.front_mut() else {
            return false;
        };
        if !run.skip || run.row_count < rows {
            return false;
        }
        // Skipped whole: no bytes are fetched.
        self.metrics.row_groups_skipped += 1;
        run.row_count -= rows;
        if run.row_count == 0 {
            self.runs.pop_front();
        }
        true
    }

    /// The decoder of row group `group` (of `rows` rows), its chunks read page by page
    /// from the input; with the chunks' offset indexes when the selection skips rows
    /// inside it, so that pages wholly skipped are neither fetched nor parsed.
    /// A salvage read hands over the `salvage_indexes` its checking pass went by.
    /// With `fetch_pool` (idle), small chunks are read on its threads and the caller's.
    fn open_row_group(
        &self,
        group: usize,
        rows: usize,
        salvage_indexes: Option<Vec<Option<OffsetIndex>>>,
        fetch_pool: Option<&rayon::ThreadPool>,
    ) -> Result<RowGroupDecoder> {
        // Each column's pages are read from the input as its batches reach them:
        // the reader holds about a page per column, not the row group's chunks (small
        // chunks, which one fetch would read whole anyway, are read whole, side by side
        // in one fetch from a file when no page is skipped).
        let skips = self.filter.is_some() || skips_within(&self.runs, rows);
        let together = !skips && self.salvage.is_none() && self.input.reads_side_by_side();
        let sources = self.chunk_sources(group, together, fetch_pool)?;
        let indexes = if self.offset_index && skips {
            // A salvage read goes by the indexes its checking pass went by: a damaged
            // one must not lose rows the pages still hold.
            match salvage_indexes {
                Some(indexes) => indexes,
                None => offset_indexes(&self.input, &self.metadata, group, self.plan.columns())?,
            }
        } else {
            Vec::new()
        };
        let decoder = RowGroupDecoder::from_sources_with_offset_indexes(
            self.plan.clone(),
            &self.metadata,
            group,
            sources,
            indexes,
        )?
        .with_pool(self.pool.clone());
        Ok(if self.salvage.is_some() {
            decoder.with_tail_unread()
        } else {
            decoder
        })
    }

    /// The source of each planned column's chunk in row group `group`: a range of the
    /// input, or of the file its `file_path` names (each such file opened once).
    ///
    /// With `together` (a row group read whole from an input that
    /// [reads side by side](ChunkReader::reads_side_by_side)) small chunks next to each
    /// other are read in one fetch ([`input::small_chunk_sources`]), on `fetch_pool`'s
    /// threads too when there is one.
    fn chunk_sources(
        &self,
        group: usize,
        together: bool,
        fetch_pool: Option<&rayon::ThreadPool>,
    ) -> Result<Vec<Arc<dyn ChunkSource>>> {
        let created_by = self.metadata.created_by.as_deref();
        let input_len = self.input.len();
        let mut opened: HashMap<&str, (SharedInput, u64)> = HashMap::new();
        let mut sources: Vec<Option<Arc<dyn ChunkSource>>> =
            Vec::with_capacity(self.plan.columns().len());
        // Small chunks of the input, read together after the loop: (slot, range).
        let mut small: Vec<(usize, Range<u64>)> = Vec::new();
        for &column in self.plan.columns() {
            let place = || format!("row group {group}, leaf column {column}");
            let (path, meta) = chunk_location(&self.metadata, group, column)?;
            let (input, len) = match path {
                None => (self.input.clone(), input_len),
                Some(path) => {
                    let files = self
                        .external_files
                        .as_ref()
                        .ok_or_else(|| external_chunk_unsupported(group, column, path))?;
                    match opened.entry(path) {
                        Entry::Occupied(entry) => entry.get().clone(),
                        Entry::Vacant(entry) => {
                            let file = files.open(path).map_err(|e| e.context(place()))?;
                            let len = file.len();
                            entry.insert((Arc::from(file), len)).clone()
                        }
                    }
                }
            };
            let range = column_chunk_range(meta, created_by, len).map_err(|e| {
                let place = match path {
                    Some(path) => format!("{}, file {path:?}", place()),
                    None => place(),
                };
                Error::from(e).context(place)
            })?;
            if together
                && path.is_none()
                && range.end.saturating_sub(range.start) <= input::SMALL_CHUNK
            {
                small.push((sources.len(), range));
                sources.push(None);
            } else {
                sources.push(Some(InputRange::source(input, range)?));
            }
        }
        let (slots, ranges): (Vec<usize>, Vec<Range<u64>>) = small.into_iter().unzip();
        let held = input::small_chunk_sources(&self.input, &ranges, fetch_pool)?;
        for (slot, source) in slots.into_iter().zip(held) {
            sources[slot] = Some(source);
        }
        Ok(sources.into_iter().flatten().collect())
    }

    /// What a salvage read lost so far (complete once the reader is exhausted); `None`
    /// for a reader built without [`ParquetRecordBatchReaderBuilder::with_salvage`].
    pub fn salvage_report(&self) -> Option<&SalvageReport> {
        self.salvage.as_ref()
    }
}

/// The rows of row group `group`.
fn group_rows(metadata: &FileMetaData, group: usize) -> Result<usize> {
    usize::try_from(metadata.row_groups[group].num_rows)
        .map_err(|_| Error::corrupt(format!("row group {group}: negative num_rows")))
}

/// Whether the selection `runs` skips any of the next `rows` rows.
fn skips_within(runs: &VecDeque<RowSelector>, rows: usize) -> bool {
    let mut covered = 0;
    for run in runs {
        if run.skip && run.row_count > 0 {
            return true;
        }
        covered += run.row_count;
        if covered >= rows {
            return false;
        }
    }
    false
}

impl ParquetRecordBatchReader {
    /// Adds the current row group's page counts to the metrics and drops it.
    fn finish_row_group(&mut self) {
        if let Some(decoder) = self.current.take() {
            add_decoder_counts(&mut self.metrics, &decoder);
        }
    }

    /// What the reader did so far (pages decoded and skipped, row groups skipped).
    pub fn metrics(&self) -> ReadMetrics {
        let mut metrics = self.metrics;
        let open = self.current.as_ref().map(RowGroupDecoder::page_counts);
        let ahead = self.lookahead.as_ref().map(Lookahead::page_counts);
        for (decoded, skipped) in open.into_iter().chain(ahead) {
            metrics.pages_decoded += decoded;
            metrics.pages_skipped += skipped;
        }
        if let Some(decoder) = &self.current {
            let late = decoder.late_counts();
            metrics.rows_filtered_late += late.rows;
            metrics.pages_skipped_late += late.pages;
        }
        metrics
    }
}

/// Adds what `decoder` did to `metrics`.
fn add_decoder_counts(metrics: &mut ReadMetrics, decoder: &RowGroupDecoder) {
    let (decoded, skipped) = decoder.page_counts();
    metrics.pages_decoded += decoded;
    metrics.pages_skipped += skipped;
    let late = decoder.late_counts();
    metrics.rows_filtered_late += late.rows;
    metrics.pages_skipped_late += late.pages;
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
        self.plan.schema().clone()
    }
}

impl std::fmt::Debug for ParquetRecordBatchReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRecordBatchReader")
            .field("schema", self.plan.schema())
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
            .field("batch_memory_limit", &self.batch_memory_limit)
            .field("unshredded_variants", &self.unshredded_variants)
            .field("salvage", &self.salvage)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl ParquetRecordBatchReader {
    /// The schema of the batches.
    pub fn arrow_schema(&self) -> &Schema {
        self.plan.schema()
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
        self.plan.descriptor()
    }
}
