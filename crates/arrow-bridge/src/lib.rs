//! Parquet pages <-> Arrow arrays: the Arrow side of Herringbone.
//!
//! [`schema`] maps a Parquet schema to Arrow (and records, for every Arrow field, the
//! Parquet levels and leaf columns the reader needs).

#![warn(missing_docs)]

pub mod error;
pub mod read;
pub mod schema;
pub mod write;

pub use error::{Error, ErrorKind, Result};
pub use read::{ChunkReader, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
pub use write::{
    ArrowWriter, DataPageVersion, StatisticsLevel, WriterProperties, WriterPropertiesBuilder,
};
