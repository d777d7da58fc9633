//! Concatenating Parquet files with the same schema into one.
//!
//! [`merge`] copies column chunks as they are (pages byte for byte: no decoding, no
//! re-encoding, CRCs and statistics kept) when every input has the same schema, column
//! orders and writer (`created_by`, which readers consult for known writer bugs), and
//! no input is encrypted (an encrypted chunk's modules are bound to their file by
//! their AADs, so they are never copied: encrypted inputs are read with
//! [`MergeOptions::with_decryption`] and re-encoded, encrypted again when the writer
//! properties say so); offsets in the metadata, the offset indexes and the Bloom
//! filter locations are moved to where the bytes land. Otherwise, or when
//! [`MergeOptions::with_properties`] asks for other writer settings, every row is read
//! and written again through the Arrow reader and writer. Memory follows one column
//! chunk (copy) or one row group (re-encode).
//!
//! ```
//! use bytes::Bytes;
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! use herringbone::ArrowWriter;
//! use herringbone::merge::{merge, MergeMode, MergeOptions};
//!
//! let file = |values: Vec<i32>| {
//!     let column: ArrayRef = Arc::new(Int32Array::from(values));
//!     let batch = RecordBatch::try_from_iter([("x", column)]).unwrap();
//!     let mut out = Vec::new();
//!     let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
//!     writer.write(&batch).unwrap();
//!     writer.close().unwrap();
//!     Bytes::from(out)
//! };
//! let mut merged = Vec::new();
//! let inputs = vec![file(vec![1, 2]), file(vec![3])];
//! let summary = merge(inputs, &mut merged, &MergeOptions::default()).unwrap();
//! assert_eq!(summary.mode, MergeMode::Copied);
//! assert_eq!((summary.rows, summary.row_groups), (3, 2));
//! ```

use std::io::Write;

use bytes::Bytes;
use herringbone_codec::bloom::SplitBlockBloomFilter;
use herringbone_format::footer::{decode_offset_index, encode_footer};
use herringbone_format::metadata::{ColumnChunk, FileMetaData, RowGroup};
use herringbone_format::thrift::{CompactWriter, ThriftStruct};

use std::sync::Arc;

use crate::layout::PageWalker;
use crate::shared::Shared;
use crate::{ArrowWriter, ChunkReader, ParquetRecordBatchReaderBuilder, WriterProperties};
use herringbone_arrow_bridge::read::read_metadata_with_decryption;
use herringbone_codec::crypto::FileDecryptionProperties;

/// Errors of merging: what went wrong and with which input.
pub type Error = herringbone_arrow_bridge::Error;

type Result<T> = std::result::Result<T, Error>;

/// How the inputs were combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeMode {
    /// Column chunks copied byte for byte.
    Copied,
    /// Rows read and written again.
    Reencoded,
}

/// What [`merge`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeSummary {
    /// Copied or re-encoded.
    pub mode: MergeMode,
    /// Why chunks were re-encoded (`None` when copied).
    pub reason: Option<String>,
    /// Rows written.
    pub rows: u64,
    /// Row groups written.
    pub row_groups: usize,
    /// The output's metadata.
    pub metadata: FileMetaData,
}

/// How to merge.
#[derive(Clone, Default)]
pub struct MergeOptions {
    properties: Option<WriterProperties>,
    decryption: Option<FileDecryptionProperties>,
}

impl std::fmt::Debug for MergeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MergeOptions")
            .field("properties", &self.properties)
            .field("keys", &self.decryption.is_some())
            .finish()
    }
}

impl MergeOptions {
    /// Keys of encrypted inputs (the same for every input): their rows are decrypted
    /// and re-encoded. An encrypted input without keys is an error; to merge plaintext
    /// inputs too, build the keys with `with_allow_plaintext_files(true)`.
    pub fn with_decryption(mut self, keys: FileDecryptionProperties) -> Self {
        self.decryption = Some(keys);
        self
    }

    /// Re-encode every row with these writer settings instead of copying chunks.
    pub fn with_properties(mut self, properties: WriterProperties) -> Self {
        self.properties = Some(properties);
        self
    }
}

/// Concatenates `inputs` (in order) into `output`; see the [module documentation](self).
pub fn merge<R: ChunkReader + Sync + 'static, W: Write + Send>(
    inputs: Vec<R>,
    output: W,
    options: &MergeOptions,
) -> Result<MergeSummary> {
    if inputs.is_empty() {
        return Err(Error::invalid_argument("nothing to merge: no input"));
    }
    let metadata: Vec<FileMetaData> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            read_metadata_with_decryption(input, options.decryption.as_ref())
                .map(|(metadata, _)| metadata)
                .map_err(|e| e.context(format!("input {i}")))
        })
        .collect::<Result<_>>()?;
    let why_not = why_not_copy(&metadata);
    let reason = match (&options.properties, why_not) {
        // Encryption is the reason even with writer options: copying was never possible.
        (_, Some(why)) if why.contains("encrypted") => Some(why),
        (Some(_), _) => Some("writer options given".to_string()),
        (None, why) => why,
    };
    match reason {
        None => copy(&inputs, &metadata, output),
        Some(reason) => {
            let inputs = inputs.into_iter().map(|i| Shared(Arc::new(i))).collect();
            reencode(
                inputs,
                output,
                options.properties.clone(),
                options.decryption.as_ref(),
                reason,
            )
        }
    }
}

/// Why the chunks of these files cannot be copied as they are, if they cannot.
fn why_not_copy(metadata: &[FileMetaData]) -> Option<String> {
    let first = &metadata[0];
    for (i, m) in metadata.iter().enumerate() {
        if m.encryption_algorithm.is_some()
            || m.row_groups.iter().any(|g| {
                g.columns
                    .iter()
                    .any(|c| c.crypto_metadata.is_some() || c.encrypted_column_metadata.is_some())
            })
        {
            return Some(format!(
                "input {i} is encrypted (its chunks are bound to their file: decrypted and encoded again)"
            ));
        }
        if m.row_groups.iter().any(|g| {
            g.columns
                .iter()
                .any(|c| c.file_path.is_some() || c.meta_data.is_none())
        }) {
            return Some(format!("input {i} has column chunks in other files"));
        }
        if m.schema != first.schema {
            return Some(format!(
                "the Parquet schema of input {i} differs from input 0's"
            ));
        }
        if m.column_orders != first.column_orders {
            return Some(format!(
                "the column orders of input {i} differ from input 0's"
            ));
        }
        if m.created_by != first.created_by {
            return Some(format!(
                "input {i} was written by another writer ({:?}, not {:?}): readers judge statistics by the writer",
                m.created_by.as_deref().unwrap_or(""),
                first.created_by.as_deref().unwrap_or("")
            ));
        }
    }
    None
}

/// Counts what is written and where the output is.
struct Output<W: Write> {
    sink: W,
    position: u64,
}

impl<W: Write> Output<W> {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.write_all(bytes).map_err(|e| {
            Error::new(
                herringbone_arrow_bridge::ErrorKind::Io,
                format!("writing the output: {e}"),
            )
        })?;
        self.position += bytes.len() as u64;
        Ok(())
    }
}

/// The byte range of a chunk's pages, found by walking them: `total_compressed_size`
/// is not trusted, as parquet-mr before 1.2.9 left the dictionary header out of it.
fn chunk_extent(
    input: &dyn ChunkReader,
    file: &FileMetaData,
    chunk: &ColumnChunk,
) -> Result<(u64, Bytes)> {
    let meta = chunk
        .meta_data
        .as_ref()
        .ok_or_else(|| Error::corrupt("a column chunk without metadata"))?;
    let range =
        herringbone_codec::page::column_chunk_range(meta, file.created_by.as_deref(), input.len())?;
    let bytes = input.get_bytes(range.clone())?;
    let total = u64::try_from(meta.num_values).unwrap_or(0);
    let mut values = 0u64;
    let mut end = 0u64;
    for span in PageWalker::new(bytes.clone(), range.start) {
        let span = span?;
        end = span.end() - range.start;
        if span.is_data() {
            values += span
                .num_values()
                .and_then(|v| u64::try_from(v).ok())
                .unwrap_or(0);
            if values >= total {
                break;
            }
        }
    }
    Ok((range.start, bytes.slice(..end as usize)))
}

fn copy<R: ChunkReader, W: Write>(
    inputs: &[R],
    metadata: &[FileMetaData],
    sink: W,
) -> Result<MergeSummary> {
    let mut out = Output { sink, position: 0 };
    out.write(b"PAR1")?;
    let mut row_groups = Vec::new();
    // Index structures go after every row group, before the footer (as writers do).
    let mut column_indexes: Vec<(usize, usize, Bytes)> = Vec::new();
    let mut offset_indexes: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    for (i, (input, file)) in inputs.iter().zip(metadata).enumerate() {
        let context = |e: Error| e.context(format!("input {i}"));
        for group in &file.row_groups {
            let g = row_groups.len();
            let mut new_group = RowGroup {
                ordinal: i16::try_from(g).ok(),
                ..group.clone()
            };
            let mut group_start = None;
            let mut compressed = 0i64;
            for (c, chunk) in group.columns.iter().enumerate() {
                let (old_start, bytes) = chunk_extent(input, file, chunk).map_err(context)?;
                let new_start = out.position;
                group_start.get_or_insert(new_start);
                out.write(&bytes)?;
                let shift = |offset: i64| offset - old_start as i64 + new_start as i64;
                let mut new_chunk = chunk.clone();
                new_chunk.file_offset = new_start as i64;
                let meta = new_chunk
                    .meta_data
                    .as_mut()
                    .expect("checked by why_not_copy");
                meta.data_page_offset = shift(meta.data_page_offset);
                meta.dictionary_page_offset = meta
                    .dictionary_page_offset
                    .map(|d| if d > 0 { shift(d) } else { d });
                meta.index_page_offset = meta.index_page_offset.map(shift);
                meta.total_compressed_size = bytes.len() as i64;
                compressed += bytes.len() as i64;
                if let Some(location) = chunk.column_index_offset.zip(chunk.column_index_length) {
                    let bytes = index_bytes(input, location).map_err(context)?;
                    column_indexes.push((g, c, bytes));
                }
                if let Some(location) = chunk.offset_index_offset.zip(chunk.offset_index_length) {
                    let bytes = index_bytes(input, location).map_err(context)?;
                    let mut index = decode_offset_index(&bytes, location.0 as u64)
                        .map_err(|e| context(e.into()))?;
                    for page in &mut index.page_locations {
                        page.offset = shift(page.offset);
                    }
                    let mut writer = CompactWriter::new();
                    index.write(&mut writer);
                    offset_indexes.push((g, c, writer.into_inner()));
                }
                new_group.columns[c] = new_chunk;
            }
            // Bloom filters after the group's chunks.
            for (c, chunk) in group.columns.iter().enumerate() {
                let meta = chunk.meta_data.as_ref().expect("checked by why_not_copy");
                let Some(offset) = meta.bloom_filter_offset else {
                    continue;
                };
                let bytes =
                    bloom_filter_bytes(input, offset, meta.bloom_filter_length).map_err(context)?;
                let new_meta = new_group.columns[c].meta_data.as_mut().expect("copied");
                new_meta.bloom_filter_offset = Some(out.position as i64);
                new_meta.bloom_filter_length = i32::try_from(bytes.len()).ok();
                out.write(&bytes)?;
            }
            new_group.file_offset = group_start.map(|s| s as i64);
            new_group.total_compressed_size = Some(compressed);
            row_groups.push(new_group);
        }
    }
    for (g, c, bytes) in column_indexes {
        let chunk = &mut row_groups[g].columns[c];
        chunk.column_index_offset = Some(out.position as i64);
        chunk.column_index_length = i32::try_from(bytes.len()).ok();
        out.write(&bytes)?;
    }
    for (g, c, bytes) in offset_indexes {
        let chunk = &mut row_groups[g].columns[c];
        chunk.offset_index_offset = Some(out.position as i64);
        chunk.offset_index_length = i32::try_from(bytes.len()).ok();
        out.write(&bytes)?;
    }
    let first = &metadata[0];
    let rows: i64 = row_groups.iter().map(|g| g.num_rows).sum();
    let merged = FileMetaData {
        version: metadata.iter().map(|m| m.version).max().unwrap_or(1),
        schema: first.schema.clone(),
        num_rows: rows,
        row_groups,
        key_value_metadata: first.key_value_metadata.clone(),
        created_by: first.created_by.clone(),
        column_orders: first.column_orders.clone(),
        encryption_algorithm: None,
        footer_signing_key_metadata: None,
    };
    let mut footer = Vec::new();
    encode_footer(&merged, &mut footer);
    out.write(&footer)?;
    out.sink.flush().map_err(|e| {
        Error::new(
            herringbone_arrow_bridge::ErrorKind::Io,
            format!("writing the output: {e}"),
        )
    })?;
    Ok(MergeSummary {
        mode: MergeMode::Copied,
        reason: None,
        rows: u64::try_from(rows).unwrap_or(0),
        row_groups: merged.row_groups.len(),
        metadata: merged,
    })
}

fn index_bytes(input: &dyn ChunkReader, (offset, length): (i64, i32)) -> Result<Bytes> {
    let start = u64::try_from(offset)
        .map_err(|_| Error::corrupt(format!("index offset {offset} is negative")))?;
    let len = u64::try_from(length)
        .map_err(|_| Error::corrupt(format!("index length {length} is negative")))?;
    let end = start
        .checked_add(len)
        .filter(|&e| e <= input.len())
        .ok_or_else(|| {
            Error::corrupt(format!(
                "index at {start} of {len} bytes lies beyond the end of the file"
            ))
        })?;
    input.get_bytes(start..end)
}

/// The Bloom filter (header and bitset) at `offset`.
fn bloom_filter_bytes(input: &dyn ChunkReader, offset: i64, length: Option<i32>) -> Result<Bytes> {
    let start = u64::try_from(offset)
        .ok()
        .filter(|&s| s < input.len())
        .ok_or_else(|| Error::corrupt(format!("bloom_filter_offset {offset} outside the file")))?;
    let end = match length {
        Some(len) => start
            .saturating_add(u64::try_from(len).unwrap_or(0))
            .min(input.len()),
        None => input.len(),
    };
    let bytes = input.get_bytes(start..end)?;
    let (_, used) =
        SplitBlockBloomFilter::read(&bytes, herringbone_codec::bloom::BITSET_MAX_BYTES)?;
    Ok(bytes.slice(..used))
}

fn reencode<R: ChunkReader + 'static, W: Write + Send>(
    inputs: Vec<R>,
    output: W,
    properties: Option<WriterProperties>,
    keys: Option<&FileDecryptionProperties>,
    reason: String,
) -> Result<MergeSummary> {
    let mut writer: Option<ArrowWriter<W>> = None;
    let mut output = Some(output);
    let mut schema = None;
    for (i, input) in inputs.into_iter().enumerate() {
        let context = |e: Error| e.context(format!("input {i}"));
        let opened = match keys {
            Some(keys) => ParquetRecordBatchReaderBuilder::try_new_with_decryption(input, keys),
            None => ParquetRecordBatchReaderBuilder::try_new(input),
        };
        let reader = opened.and_then(|b| b.build()).map_err(context)?;
        let this = reader.arrow_schema().clone();
        match &schema {
            None => schema = Some(this.clone()),
            Some(first) if *first != this => {
                return Err(Error::invalid_argument(format!(
                    "input {i}: its Arrow schema differs from input 0's, cannot merge"
                )));
            }
            Some(_) => {}
        }
        if writer.is_none() {
            let sink = output.take().expect("the output is taken once");
            writer = Some(ArrowWriter::try_new(
                sink,
                std::sync::Arc::new(this),
                properties.clone(),
            )?);
        }
        let w = writer.as_mut().expect("created above");
        for batch in reader {
            let batch = batch.map_err(|e| Error::from(e).context(format!("input {i}")))?;
            w.write(&batch)?;
        }
        // One row group (at least) per input, as the copy keeps them.
        w.flush()?;
    }
    let writer = writer.ok_or_else(|| Error::invalid_argument("nothing to merge"))?;
    let metadata = writer.close()?;
    Ok(MergeSummary {
        mode: MergeMode::Reencoded,
        reason: Some(reason),
        rows: u64::try_from(metadata.num_rows).unwrap_or(0),
        row_groups: metadata.row_groups.len(),
        metadata,
    })
}
