//! Writing Arrow `RecordBatch`es to Parquet.
//!
//! [`ArrowWriter`] takes batches of any size, cuts them into pages and row groups by the
//! limits of its [`WriterProperties`], and writes the footer on [`ArrowWriter::close`].
//! Properties are file-wide defaults with per-column overrides, keyed by the column's
//! dotted Parquet path (`"a.b"`; list elements as `"tags.list.element"`).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
//! use herringbone::write::{
//!     ArrowWriter, Codec, DataPageVersion, Encoding, StatisticsLevel, WriterProperties,
//! };
//!
//! let cities: ArrayRef = Arc::new(StringArray::from(vec!["Oslo", "Lima", "Oslo"]));
//! let temps: ArrayRef = Arc::new(Float64Array::from(vec![3.5, 19.0, 4.25]));
//! let batch = RecordBatch::try_from_iter([("city", cities), ("temp", temps)])?;
//!
//! # #[cfg(feature = "snappy")]
//! let codec = Codec::Snappy;
//! # #[cfg(not(feature = "snappy"))]
//! # let codec = Codec::Uncompressed;
//! let props = WriterProperties::builder()
//!     .set_compression(codec)
//!     .set_data_page_version(DataPageVersion::V2)
//!     .set_statistics(StatisticsLevel::Page)
//!     .set_column_dictionary_enabled("temp", false)
//!     .set_column_encoding("temp", Encoding::BYTE_STREAM_SPLIT)
//!     .set_bloom_filter("city", 0.01, 1000)
//!     .build();
//! let mut file = Vec::new(); // or a std::fs::File
//! let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props))?;
//! writer.write(&batch)?;
//! let metadata = writer.close()?;
//! assert_eq!(metadata.num_rows, 3);
//! assert_eq!(metadata.row_groups[0].columns.len(), 2);
//! # Ok(())
//! # }
//! ```

pub use herringbone_arrow_bridge::write::properties::{
    CREATED_BY, DEFAULT_BLOOM_FILTER_FPP, DEFAULT_BLOOM_FILTER_NDV, DEFAULT_DATA_PAGE_ROW_LIMIT,
    DEFAULT_DICTIONARY_PAGE_SIZE, DEFAULT_MAX_ROW_GROUP_ROWS, DEFAULT_PAGE_SIZE,
    DEFAULT_STATISTICS_TRUNCATE_LENGTH,
};
pub use herringbone_arrow_bridge::write::{
    ArrowToParquetOptions, ArrowWriter, BloomFilterPosition, BloomFilterProperties,
    DataPageVersion, StatisticsLevel, WriterProperties, WriterPropertiesBuilder,
};
pub use herringbone_codec::compression::Codec;
pub use herringbone_format::metadata::Encoding;
