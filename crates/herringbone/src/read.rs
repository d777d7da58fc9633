//! Reading Parquet into Arrow `RecordBatch`es.
//!
//! [`ParquetRecordBatchReaderBuilder::try_new`] reads the footer of anything that
//! implements [`ChunkReader`] (a [`std::fs::File`], [`bytes::Bytes`]); the builder then
//! says what to read — which fields ([`Projection`]), which row groups, which rows
//! ([`RowSelection`], offset, limit), in batches of how many rows, as which Arrow types
//! ([`SchemaOptions`](crate::SchemaOptions)) — and [`build`] returns a
//! [`ParquetRecordBatchReader`], an iterator of batches.
//!
//! ```text
//! file ──> footer ──> Parquet schema ──> Arrow schema (ARROW:schema hint, options)
//!                                           │ projection
//!          row groups ─> column chunks ─> pages ─> decode into Arrow buffers ─> RecordBatch
//!                        (only the selected leaf columns, only the selected rows)
//! ```
//!
//! Before reading, the builder answers what the file holds ([`metadata`],
//! [`parquet_schema`], [`schema`]); after [`build`], the reader answers what it reads:
//! [`arrow_schema`](ParquetRecordBatchReader::arrow_schema),
//! [`leaf_columns`](ParquetRecordBatchReader::leaf_columns) and
//! [`metadata`](ParquetRecordBatchReader::metadata).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
//! # let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..10));
//! # let names: ArrayRef = Arc::new(StringArray::from_iter_values((0..10).map(|i| format!("n{i}"))));
//! # let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)])?;
//! # let mut bytes = Vec::new();
//! # let mut writer = herringbone::ArrowWriter::try_new(&mut bytes, batch.schema(), None)?;
//! # writer.write(&batch)?;
//! # writer.close()?;
//! # let file = bytes::Bytes::from(bytes);
//! use arrow_array::cast::AsArray;
//! use arrow_array::types::Int64Type;
//! use herringbone::read::{ParquetRecordBatchReaderBuilder, Projection, RowSelection};
//!
//! // `file` holds `id: Int64` 0..10 and `name: Utf8`.
//! let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
//! let projection = Projection::from_paths(builder.parquet_schema(), &["id"])?;
//! let reader = builder
//!     .with_projection(projection)
//!     .with_row_selection(RowSelection::from_consecutive_ranges([2..4, 7..8], 10))
//!     .build()?;
//! assert_eq!(reader.leaf_columns(), &[0]);
//! let batch = reader.into_iter().next().unwrap()?;
//! let ids = batch.column(0).as_primitive::<Int64Type>();
//! assert_eq!(ids.values().to_vec(), vec![2, 3, 7]);
//! # Ok(())
//! # }
//! ```
//!
//! [`build`]: ParquetRecordBatchReaderBuilder::build
//! [`metadata`]: ParquetRecordBatchReaderBuilder::metadata
//! [`parquet_schema`]: ParquetRecordBatchReaderBuilder::parquet_schema
//! [`schema`]: ParquetRecordBatchReaderBuilder::schema

#[cfg(feature = "mmap")]
pub use herringbone_arrow_bridge::read::map_file;
pub use herringbone_arrow_bridge::read::{
    ChunkReader, DEFAULT_BATCH_SIZE, DirectoryFiles, ExternalFiles, LossScope, LostRows,
    MIN_ROWS_PER_RUN, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, ReadMetrics,
    ReaderMetadata, RowFilter, RowSelection, RowSelector, SalvageReport, read_metadata,
};
pub use herringbone_arrow_bridge::schema::Projection;
