//! Parquet pages <-> Arrow arrays: the Arrow side of Herringbone.
//!
//! The read pipeline ([`read`]), one batch at a time:
//!
//! ```text
//!  ChunkReader ──footer ranges──> format::FooterReader ──> FileMetaData, schema mapping
//!       │
//!       └─row_group_ranges──> one byte range per column chunk: fetched page by page as
//!                                  │   the batches reach it (sync reader), or whole (async)
//!   per leaf: LeafReader ── codec::PageReader (pages sliced from what is fetched; a page
//!             │               wholly inside a skip is stepped over, not decompressed)
//!             ├── levels: def/rep decoded from the current page, a run at a time
//!             └── decode: values straight into the batch's buffers (values, views)
//!                                  │
//!   assemble: leaf buffers -> Arrow arrays; nested: structs, lists, maps from levels
//!                                  │
//!   RowGroupDecoder: selection runs (read / skip) -> RecordBatch, every buffer charged
//!                    to the batch memory limit first
//! ```
//!
//! [`schema`] maps a Parquet schema to Arrow (and records, for every Arrow field, the
//! Parquet levels and leaf columns the reader needs).
//!
//! ## Write pipeline ([`mod@write`])
//!
//! Each layer calls only the ones below it; one route for every column:
//!
//! ```text
//! RecordBatch ─► ArrowWriter          row groups, sorting check, threads, file layout, footer
//!                 │ per top-level field
//!                 ▼
//!             levels                  Arrow validity/offsets ─► def/rep levels + value slots
//!                 │ per leaf            (top-level leaves: the validity bitmap, no levels)
//!                 ▼
//!             chunk::ColumnWriter     pieces at row boundaries, dictionary + fallback, limits
//!                 │                   ─► metadata: ColumnMetaData, column/offset index
//!                 ▼
//!             source ─► convert       the leaf array downcast once; values into the page
//!                 │                   as indices, `values::Values`, or PLAIN/DELTA bytes
//!                 ▼
//!             page ─► encode          open page ─► levels + values encoded, statistics,
//!                 │                   Bloom filter ─► codec PageWriter (compress, CRC)
//!                 ▼
//!             column chunk bytes      dictionary page + data pages ─► sink
//! ```

#![warn(missing_docs)]

#[cfg(feature = "async")]
pub mod async_read;
#[cfg(feature = "async")]
pub mod async_write;
pub mod decryption;
pub mod error;
mod offsets;
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
