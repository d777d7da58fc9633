//! Herringbone: an Arrow-native Apache Parquet library.
//!
//! Herringbone reads Parquet files straight into Arrow [`RecordBatch`]es and writes
//! `RecordBatch`es to Parquet. Bad input is an [`Error`] that says what was wrong and
//! where, never a panic or an unbounded allocation.
//!
//! # Where things are
//!
//! | module | what |
//! | --- | --- |
//! | [`read`] | [`ParquetRecordBatchReaderBuilder`]: projection, row groups, row selection, offset / limit, batch size, salvage reading past damage ([`read::SalvageReport`]); the reader exposes its Arrow schema, leaf columns and file metadata |
//! | [`write`](mod@write) | [`ArrowWriter`] and [`WriterProperties`]: codecs, encodings, dictionary, page versions and limits, statistics, Bloom filters, CRC |
//! | [`schema`] | the Parquet <-> Arrow type mapping and its options ([`SchemaOptions`]), the Parquet schema tree ([`schema::SchemaDescriptor`]) and its text form |
//! | [`metadata`] | the file metadata: row groups, column chunks, statistics, page indexes, key-value metadata |
//! | [`variant`] | the Variant binary encoding (decode, encode, JSON) and the Arrow kernels over Variant columns (shred, unshred, `variant_get`) |
//! | [`encryption`] | Parquet modular encryption: [`encryption::FileDecryptionProperties`], [`encryption::FileEncryptionProperties`], key tools (KMS, key material, wrapping) |
//! | [`statistics`] | row-group and page statistics as typed Arrow arrays ([`statistics::StatisticsConverter`]) |
//! | [`predicate`] | filter expressions ([`predicate::Predicate`]) over columns: parse, bind, evaluate on batches |
//! | [`prune`] | skipping row groups and pages by statistics, page indexes and Bloom filters |
//! | [`scan`] | a filtered read: prune, then read and filter ([`scan::ScanBuilder`]) |
//! | `async_read` | (feature `async`, `object_store`) the reader over an async source: `AsyncFileReader`, `ParquetRecordBatchStream` |
//! | `async_write` | (feature `async`, `object_store`) the writer into an async sink: `AsyncFileWriter`, `AsyncArrowWriter` |
//! | [`layout`] | walking the pages of a column chunk, CRC status |
//! | [`verify`] | checking a file against the specification ([`verify::verify`]) |
//! | [`recover`] | rebuilding the footer of a truncated file from its pages |
//! | [`merge`] | concatenating files with one schema, copying pages where it can |
//!
//! The entry points are also at the top level. Every fallible call returns
//! [`Result`]`<T>` with one [`Error`] type whose [`ErrorKind`] says what kind of failure
//! it was.
//!
//! # Reading
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! # let ids: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
//! # let batch = RecordBatch::try_from_iter([("id", ids)])?;
//! # let mut bytes = Vec::new();
//! # let mut writer = herringbone::ArrowWriter::try_new(&mut bytes, batch.schema(), None)?;
//! # writer.write(&batch)?;
//! # writer.close()?;
//! # let file = bytes::Bytes::from(bytes);
//! use herringbone::ParquetRecordBatchReaderBuilder;
//!
//! // `file` is a `std::fs::File` or `bytes::Bytes` holding a Parquet file.
//! let reader = ParquetRecordBatchReaderBuilder::try_new(file)?
//!     .with_batch_size(8192)
//!     .build()?;
//! println!("{}", reader.arrow_schema());
//! let mut rows = 0;
//! for batch in reader {
//!     rows += batch?.num_rows();
//! }
//! assert_eq!(rows, 3);
//! # Ok(())
//! # }
//! ```
//!
//! # Writing
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! use herringbone::{ArrowWriter, Codec, WriterProperties};
//!
//! let ids: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
//! let batch = RecordBatch::try_from_iter([("id", ids)])?;
//! # #[cfg(feature = "zstd")]
//! let props = WriterProperties::builder()
//!     .set_compression(Codec::Zstd { level: 3 })
//!     .build();
//! # #[cfg(not(feature = "zstd"))]
//! # let props = WriterProperties::builder().build();
//! let mut file = Vec::new(); // or a std::fs::File
//! let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props))?;
//! writer.write(&batch)?;
//! let metadata = writer.close()?;
//! assert_eq!(metadata.num_rows, 3);
//! # Ok(())
//! # }
//! ```
//!
//! # Cargo features
//!
//! The compression codecs are features, all on by default: `snappy`, `gzip`, `brotli`,
//! `lz4` (LZ4 and LZ4_RAW), `zstd` and `lzo`. With `default-features = false` and only the ones
//! you need, a file that uses a codec left out is an [`ErrorKind::Unsupported`] error,
//! "codec SNAPPY not compiled in (feature `snappy`)"; [`Codec::is_compiled_in`] tells in
//! advance. `async` adds the async reader, `object_store` a source over
//! `object_store` 0.13. Encryption is always compiled in.
//!
//! [`RecordBatch`]: arrow_array::RecordBatch
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "async")]
pub mod async_read;
#[cfg(feature = "async")]
pub mod async_write;
pub mod encryption;
pub mod layout;
pub mod merge;
pub mod metadata;
pub mod predicate;
pub mod prune;
pub mod read;
pub mod recover;
pub mod scan;
pub mod schema;
mod shared;
pub mod statistics;
pub mod variant;
pub mod verify;
pub mod write;

pub use herringbone_arrow_bridge::error::{Error, ErrorKind, Result};

pub use read::{
    ChunkReader, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, Projection,
    RowSelection, RowSelector,
};
pub use schema::SchemaOptions;
pub use write::{
    ArrowWriter, BloomFilterProperties, Codec, DataPageVersion, Encoding, StatisticsLevel,
    WriterProperties, WriterPropertiesBuilder,
};
