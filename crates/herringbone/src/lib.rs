//! Herringbone: an Arrow-native Apache Parquet library.
//!
//! This is the crate applications depend on. It re-exports the layers:
//! [`format`] (file metadata and schema), [`codec`] (encodings, compression, pages,
//! Bloom filters, Variant) and [`arrow`] (the Parquet <-> Arrow schema mapping and the
//! reader). The reader's entry point is also at the top level:
//!
//! ```no_run
//! use herringbone::ParquetRecordBatchReaderBuilder;
//! let file = std::fs::File::open("data.parquet").unwrap();
//! let reader = ParquetRecordBatchReaderBuilder::try_new(file)
//!     .unwrap()
//!     .with_batch_size(8192)
//!     .build()
//!     .unwrap();
//! for batch in reader {
//!     println!("{} rows", batch.unwrap().num_rows());
//! }
//! ```

pub use herringbone_arrow_bridge as arrow;
pub use herringbone_codec as codec;
pub use herringbone_format as format;

pub use herringbone_arrow_bridge::read::{
    ChunkReader, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
pub use herringbone_arrow_bridge::schema::{Projection, SchemaOptions};
