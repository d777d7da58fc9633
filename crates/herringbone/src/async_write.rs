//! Async writes (feature `async`): Parquet into any sink that takes bytes
//! asynchronously.
//!
//! [`AsyncFileWriter`] is the one trait a sink implements (every `futures` `AsyncWrite`
//! does); [`AsyncArrowWriter`] encodes with the synchronous writer into a buffer and
//! hands it to the sink when it passes a threshold, so memory stays bounded by the row
//! group being written. With the `object_store` feature, `ObjectStoreWriter` writes an
//! object of an `object_store` 0.13 store.

#[cfg(feature = "object_store")]
pub use herringbone_arrow_bridge::async_write::ObjectStoreWriter;
pub use herringbone_arrow_bridge::async_write::{
    AsyncArrowWriter, AsyncFileWriter, DEFAULT_FLUSH_THRESHOLD,
};
