//! Async reads (feature `async`): Parquet from any store that serves byte ranges
//! asynchronously, as a `Stream` of `RecordBatch`es.
//!
//! [`AsyncFileReader`] is the one trait a store implements (`bytes::Bytes` does);
//! [`ParquetRecordBatchStreamBuilder`] reads the footer with one ranged request and
//! fetches each row group's projected chunks, coalesced, while the previous one
//! decodes. With the `object_store` feature, `ObjectStoreReader` reads from
//! `object_store` 0.13.

#[cfg(feature = "object_store")]
pub use herringbone_arrow_bridge::async_read::ObjectStoreReader;
pub use herringbone_arrow_bridge::async_read::{
    AsyncFileReader, DEFAULT_COALESCE_GAP, DEFAULT_FOOTER_SIZE_HINT, ParquetRecordBatchStream,
    ParquetRecordBatchStreamBuilder, Placement, coalesce_ranges, read_metadata_async,
};
