//! Herringbone: an Arrow-native Apache Parquet library.
//!
//! This is the crate applications depend on. It re-exports the layers:
//! [`format`] (file metadata and schema), [`codec`] (encodings, compression, pages,
//! Bloom filters, Variant) and [`arrow`] (the Parquet <-> Arrow schema mapping, the
//! reader and the writer). The reader's and writer's entry points are also at the top
//! level:
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
//!
//! ```no_run
//! use herringbone::{ArrowWriter, Codec, WriterProperties};
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! let ids: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
//! let batch = RecordBatch::try_from_iter([("id", ids)]).unwrap();
//! let props = WriterProperties::builder()
//!     .set_compression(Codec::Zstd { level: 3 })
//!     .build();
//! let file = std::fs::File::create("out.parquet").unwrap();
//! let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
//! writer.write(&batch).unwrap();
//! let metadata = writer.close().unwrap();
//! println!("{} rows", metadata.num_rows);
//! ```

pub use herringbone_arrow_bridge as arrow;
pub use herringbone_codec as codec;
pub use herringbone_format as format;

pub use herringbone_arrow_bridge::read::{
    ChunkReader, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
pub use herringbone_arrow_bridge::schema::{Projection, SchemaOptions};
pub use herringbone_arrow_bridge::write::{
    ArrowWriter, BloomFilterProperties, DataPageVersion, StatisticsLevel, WriterProperties,
    WriterPropertiesBuilder,
};
pub use herringbone_codec::compression::Codec;
pub use herringbone_format::metadata::Encoding;

pub mod layout;
pub mod merge;
pub mod recover;
mod shared;
pub mod verify;
