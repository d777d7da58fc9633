//! Herringbone: an Arrow-native Apache Parquet library.
//!
//! This is the crate applications depend on. It re-exports the layers:
//! [`format`] (file metadata and schema), [`codec`] (encodings, compression, pages,
//! Bloom filters, Variant) and, as they land, the Arrow read and write paths.

pub use herringbone_codec as codec;
pub use herringbone_format as format;
