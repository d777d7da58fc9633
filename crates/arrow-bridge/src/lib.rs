//! Parquet pages <-> Arrow arrays: the Arrow side of Herringbone.
//!
//! [`schema`] maps a Parquet schema to Arrow (and records, for every Arrow field, the
//! Parquet levels and leaf columns the reader needs).

#[cfg(feature = "async")]
pub mod async_read;
pub mod decryption;
pub mod error;
pub mod predicate;
pub mod prune;
pub mod read;
pub mod scan;
pub mod schema;
pub mod statistics;
pub mod variant;
pub mod write;

pub use error::{Error, ErrorKind, Result};
pub use read::{ChunkReader, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
pub use write::{
    ArrowWriter, DataPageVersion, StatisticsLevel, WriterProperties, WriterPropertiesBuilder,
};
