//! [`WriterProperties`]: the knobs of the writer, per file and per column.

use std::collections::HashMap;

use herringbone_codec::compression::Codec;
use herringbone_codec::crypto::FileEncryptionProperties;
use herringbone_format::metadata::{Encoding, KeyValue, SortingColumn};

use crate::variant::VariantShredding;

/// Default target size of a data page, in uncompressed bytes.
pub const DEFAULT_PAGE_SIZE: usize = 1024 * 1024;
/// Default limit of a column chunk's dictionary page, in PLAIN-encoded bytes; past it the
/// chunk falls back to its non-dictionary encoding.
pub const DEFAULT_DICTIONARY_PAGE_SIZE: usize = 1024 * 1024;
/// Default maximum rows per row group.
pub const DEFAULT_MAX_ROW_GROUP_ROWS: usize = 1024 * 1024;
/// Default maximum rows per data page.
pub const DEFAULT_DATA_PAGE_ROW_LIMIT: usize = 20_000;
/// Default length that statistics min/max byte arrays are truncated to.
pub const DEFAULT_STATISTICS_TRUNCATE_LENGTH: usize = 64;
/// Default false-positive probability of a Bloom filter.
pub const DEFAULT_BLOOM_FILTER_FPP: f64 = 0.05;
/// Default number of distinct values a Bloom filter is sized for.
pub const DEFAULT_BLOOM_FILTER_NDV: u64 = 1_000_000;

/// The `created_by` string written in the footer.
pub const CREATED_BY: &str = concat!("herringbone version ", env!("CARGO_PKG_VERSION"));

/// Which data page header version to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataPageVersion {
    /// `DATA_PAGE`: levels and values compressed together, levels length-prefixed.
    #[default]
    V1,
    /// `DATA_PAGE_V2`: levels stored uncompressed ahead of the compressed values.
    V2,
}

/// How much min/max/null-count information to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
pub enum StatisticsLevel {
    /// No statistics at all.
    None,
    /// Statistics in the column chunk metadata only.
    Chunk,
    /// Chunk statistics plus per-page statistics: the column index (and the page headers).
    #[default]
    Page,
}

/// Where the Bloom filters of a row group are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BloomFilterPosition {
    /// After each row group's column chunks (as arrow-rs does by default): the filters
    /// are not held in memory past their row group.
    #[default]
    AfterRowGroup,
    /// All together at the end of the file, before the page indexes (as parquet-mr and
    /// pyarrow do): a reader fetches every filter in one range, at the price of holding
    /// them until the file is closed.
    End,
}

/// Bloom filter sizing for one column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BloomFilterProperties {
    /// Target false-positive probability, in (0, 1).
    pub fpp: f64,
    /// Number of distinct values the filter is sized for.
    pub ndv: u64,
}

/// Settings one column may override.
#[derive(Debug, Clone, Default, PartialEq)]
struct ColumnProperties {
    encoding: Option<Encoding>,
    dictionary_enabled: Option<bool>,
    compression: Option<Codec>,
    statistics: Option<StatisticsLevel>,
    bloom_filter: Option<BloomFilterProperties>,
}

/// Writer settings: built with [`WriterProperties::builder`].
///
/// Column settings are keyed by the dotted path of the leaf column in the Parquet schema
/// (`a.b`, or `tags.list.element` for a list's elements).
#[derive(Debug, Clone, PartialEq)]
pub struct WriterProperties {
    compression: Codec,
    dictionary_enabled: bool,
    dictionary_page_size_limit: usize,
    data_page_version: DataPageVersion,
    max_row_group_rows: usize,
    max_row_group_bytes: usize,
    data_page_size_limit: usize,
    data_page_row_limit: usize,
    statistics: StatisticsLevel,
    statistics_truncate_length: Option<usize>,
    write_page_header_statistics: bool,
    write_crc: bool,
    bloom_filter_position: BloomFilterPosition,
    write_arrow_schema: bool,
    key_value_metadata: Vec<KeyValue>,
    sorting_columns: Option<Vec<SortingColumn>>,
    created_by: String,
    threads: usize,
    default_column: ColumnProperties,
    columns: HashMap<String, ColumnProperties>,
    encryption: Option<FileEncryptionProperties>,
    variant_shredding: HashMap<String, VariantShredding>,
}

impl Default for WriterProperties {
    fn default() -> Self {
        Self {
            compression: Codec::Uncompressed,
            dictionary_enabled: true,
            dictionary_page_size_limit: DEFAULT_DICTIONARY_PAGE_SIZE,
            data_page_version: DataPageVersion::V1,
            max_row_group_rows: DEFAULT_MAX_ROW_GROUP_ROWS,
            max_row_group_bytes: usize::MAX,
            data_page_size_limit: DEFAULT_PAGE_SIZE,
            data_page_row_limit: DEFAULT_DATA_PAGE_ROW_LIMIT,
            statistics: StatisticsLevel::Page,
            statistics_truncate_length: Some(DEFAULT_STATISTICS_TRUNCATE_LENGTH),
            write_page_header_statistics: false,
            write_crc: false,
            bloom_filter_position: BloomFilterPosition::AfterRowGroup,
            write_arrow_schema: true,
            key_value_metadata: Vec::new(),
            sorting_columns: None,
            created_by: CREATED_BY.to_string(),
            threads: 1,
            default_column: ColumnProperties::default(),
            columns: HashMap::new(),
            encryption: None,
            variant_shredding: HashMap::new(),
        }
    }
}

impl WriterProperties {
    /// Default properties: uncompressed, dictionary on, v1 pages of 1 MiB, page statistics.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder starting from the defaults.
    pub fn builder() -> WriterPropertiesBuilder {
        WriterPropertiesBuilder {
            props: Self::default(),
        }
    }

    /// Codec of `column` (dotted path).
    pub fn compression(&self, column: &str) -> Codec {
        self.column(column)
            .and_then(|c| c.compression)
            .unwrap_or(self.compression)
    }

    /// Whether `column` starts with dictionary encoding.
    pub fn dictionary_enabled(&self, column: &str) -> bool {
        self.column(column)
            .and_then(|c| c.dictionary_enabled)
            .unwrap_or(self.dictionary_enabled)
    }

    /// Non-dictionary encoding requested for `column`, if any.
    pub fn encoding(&self, column: &str) -> Option<Encoding> {
        self.column(column)
            .and_then(|c| c.encoding)
            .or(self.default_column.encoding)
    }

    /// Statistics level of `column`.
    pub fn statistics(&self, column: &str) -> StatisticsLevel {
        self.column(column)
            .and_then(|c| c.statistics)
            .unwrap_or(self.statistics)
    }

    /// Bloom filter settings of `column`, if it gets one.
    pub fn bloom_filter(&self, column: &str) -> Option<BloomFilterProperties> {
        self.column(column)
            .and_then(|c| c.bloom_filter)
            .or(self.default_column.bloom_filter)
    }

    /// Dictionary page size limit in bytes.
    pub fn dictionary_page_size_limit(&self) -> usize {
        self.dictionary_page_size_limit
    }

    /// Data page header version.
    pub fn data_page_version(&self) -> DataPageVersion {
        self.data_page_version
    }

    /// Maximum rows per row group.
    pub fn max_row_group_rows(&self) -> usize {
        self.max_row_group_rows
    }

    /// Buffered bytes after which the row group in progress is closed.
    pub fn max_row_group_bytes(&self) -> usize {
        self.max_row_group_bytes
    }

    /// Target data page size in bytes (encoded, before compression).
    pub fn data_page_size_limit(&self) -> usize {
        self.data_page_size_limit
    }

    /// Maximum rows per data page.
    pub fn data_page_row_limit(&self) -> usize {
        self.data_page_row_limit
    }

    /// Length min/max byte arrays are truncated to (`None`: never).
    pub fn statistics_truncate_length(&self) -> Option<usize> {
        self.statistics_truncate_length
    }

    /// Whether data page headers carry the page's statistics (with
    /// [`StatisticsLevel::Page`]; the column index has them either way).
    pub fn write_page_header_statistics(&self) -> bool {
        self.write_page_header_statistics
    }

    /// Threads the columns of a row group are encoded on (1: the caller's thread only).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Whether page headers carry a CRC32.
    pub fn write_crc(&self) -> bool {
        self.write_crc
    }

    /// Where Bloom filters are written.
    pub fn bloom_filter_position(&self) -> BloomFilterPosition {
        self.bloom_filter_position
    }

    /// Whether the Arrow schema is stored under `ARROW:schema`.
    pub fn write_arrow_schema(&self) -> bool {
        self.write_arrow_schema
    }

    /// User key-value metadata for the footer.
    pub fn key_value_metadata(&self) -> &[KeyValue] {
        &self.key_value_metadata
    }

    /// Sorting columns declared for every row group.
    pub fn sorting_columns(&self) -> Option<&[SortingColumn]> {
        self.sorting_columns.as_deref()
    }

    /// The encryption keys and settings, when the file is encrypted.
    pub fn encryption(&self) -> Option<&FileEncryptionProperties> {
        self.encryption.as_ref()
    }

    /// The `created_by` string.
    pub fn created_by(&self) -> &str {
        &self.created_by
    }

    /// How each Variant column is stored, by its dotted Arrow path (columns not listed:
    /// [`VariantShredding::AsIs`]).
    pub fn variant_shredding(&self) -> &HashMap<String, VariantShredding> {
        &self.variant_shredding
    }

    fn column(&self, column: &str) -> Option<&ColumnProperties> {
        self.columns.get(column)
    }
}

/// Builder of [`WriterProperties`].
#[derive(Debug, Clone)]
pub struct WriterPropertiesBuilder {
    props: WriterProperties,
}

impl WriterPropertiesBuilder {
    /// Codec (and level) for every column without its own.
    pub fn set_compression(mut self, codec: Codec) -> Self {
        self.props.compression = codec;
        self
    }

    /// Whether columns start dictionary-encoded (BOOLEAN columns never are).
    pub fn set_dictionary_enabled(mut self, enabled: bool) -> Self {
        self.props.dictionary_enabled = enabled;
        self
    }

    /// Dictionary page size limit in bytes; past it a chunk falls back mid-chunk.
    pub fn set_dictionary_page_size_limit(mut self, bytes: usize) -> Self {
        self.props.dictionary_page_size_limit = bytes.max(1);
        self
    }

    /// Data page v1 or v2.
    pub fn set_data_page_version(mut self, version: DataPageVersion) -> Self {
        self.props.data_page_version = version;
        self
    }

    /// Maximum rows per row group (at least 1).
    pub fn set_max_row_group_rows(mut self, rows: usize) -> Self {
        self.props.max_row_group_rows = rows.max(1);
        self
    }

    /// Encoded bytes buffered for a row group after which it is closed.
    pub fn set_max_row_group_bytes(mut self, bytes: usize) -> Self {
        self.props.max_row_group_bytes = bytes.max(1);
        self
    }

    /// Target data page size in encoded bytes (at least 1).
    pub fn set_data_page_size_limit(mut self, bytes: usize) -> Self {
        self.props.data_page_size_limit = bytes.max(1);
        self
    }

    /// Maximum rows per data page (at least 1).
    pub fn set_data_page_row_limit(mut self, rows: usize) -> Self {
        self.props.data_page_row_limit = rows.max(1);
        self
    }

    /// Statistics level for every column without its own.
    pub fn set_statistics(mut self, level: StatisticsLevel) -> Self {
        self.props.statistics = level;
        self
    }

    /// Truncation length of min/max byte arrays (`None`: keep them whole).
    pub fn set_statistics_truncate_length(mut self, length: Option<usize>) -> Self {
        self.props.statistics_truncate_length = length.map(|l| l.max(1));
        self
    }

    /// Whether data page headers also carry each page's statistics at
    /// [`StatisticsLevel::Page`] (the column index holds them either way; readers that
    /// prune pages read the column index). Off by default, as in arrow-rs: the page
    /// headers stay small and the file no larger than arrow-rs's at its defaults.
    pub fn set_write_page_header_statistics(mut self, on: bool) -> Self {
        self.props.write_page_header_statistics = on;
        self
    }

    /// Threads to encode the columns of each batch on (levels, dictionary, encoding,
    /// compression; 1, the default, is the caller's thread alone). The file is the same,
    /// byte for byte, whatever the number.
    ///
    /// ```
    /// use herringbone_arrow_bridge::write::WriterProperties;
    /// let props = WriterProperties::builder().set_threads(4).build();
    /// assert_eq!(props.threads(), 4);
    /// ```
    pub fn set_threads(mut self, threads: usize) -> Self {
        self.props.threads = threads.max(1);
        self
    }

    /// Non-dictionary encoding for every column without its own (checked against each
    /// column's physical type when the writer is created).
    pub fn set_encoding(mut self, encoding: Encoding) -> Self {
        self.props.default_column.encoding = Some(encoding);
        self
    }

    /// Non-dictionary encoding of one column (dotted path); with the dictionary on it is
    /// the fallback encoding.
    pub fn set_column_encoding(mut self, column: impl Into<String>, encoding: Encoding) -> Self {
        self.column(column).encoding = Some(encoding);
        self
    }

    /// Dictionary on/off for one column.
    pub fn set_column_dictionary_enabled(mut self, column: impl Into<String>, on: bool) -> Self {
        self.column(column).dictionary_enabled = Some(on);
        self
    }

    /// Codec of one column.
    pub fn set_column_compression(mut self, column: impl Into<String>, codec: Codec) -> Self {
        self.column(column).compression = Some(codec);
        self
    }

    /// Statistics level of one column.
    pub fn set_column_statistics(
        mut self,
        column: impl Into<String>,
        level: StatisticsLevel,
    ) -> Self {
        self.column(column).statistics = Some(level);
        self
    }

    /// A Bloom filter for one column, sized for `ndv` distinct values at `fpp`.
    pub fn set_bloom_filter(mut self, column: impl Into<String>, fpp: f64, ndv: u64) -> Self {
        self.column(column).bloom_filter = Some(BloomFilterProperties { fpp, ndv });
        self
    }

    /// A Bloom filter for every column.
    pub fn set_bloom_filter_all(mut self, fpp: f64, ndv: u64) -> Self {
        self.props.default_column.bloom_filter = Some(BloomFilterProperties { fpp, ndv });
        self
    }

    /// Whether page headers carry a CRC32 of the page bytes.
    pub fn set_write_crc(mut self, on: bool) -> Self {
        self.props.write_crc = on;
        self
    }

    /// Where Bloom filters go: after each row group (default) or all at the end.
    pub fn set_bloom_filter_position(mut self, position: BloomFilterPosition) -> Self {
        self.props.bloom_filter_position = position;
        self
    }

    /// Whether to store the Arrow schema under `ARROW:schema` (on by default).
    pub fn set_write_arrow_schema(mut self, on: bool) -> Self {
        self.props.write_arrow_schema = on;
        self
    }

    /// Key-value metadata for the footer (an `ARROW:schema` entry here replaces the
    /// writer's own).
    pub fn set_key_value_metadata(mut self, metadata: Vec<KeyValue>) -> Self {
        self.props.key_value_metadata = metadata;
        self
    }

    /// Declares the rows sorted by these columns (leaf column indices, each ascending
    /// or descending, nulls first or last): every row group records them in the
    /// footer, and every batch is checked first; rows out of that order are an error
    /// naming the column and the row.
    pub fn set_sorting_columns(mut self, columns: Option<Vec<SortingColumn>>) -> Self {
        self.props.sorting_columns = columns;
        self
    }

    /// How the Variant column at `column` (its dotted Arrow path: `v`, or `s.v` inside
    /// struct `s`) is stored: as it comes, unshredded, shredded to a shape, or shredded
    /// to a shape inferred from the first rows. Naming a column that is not a Variant
    /// is an error when the writer is created.
    ///
    /// ```
    /// use herringbone_arrow_bridge::variant::{ShreddedType, VariantShredding};
    /// use herringbone_arrow_bridge::WriterProperties;
    /// let props = WriterProperties::builder()
    ///     .set_variant_shredding("event", VariantShredding::Shape(ShreddedType::parse("ts:timestamp,kind:string").unwrap()))
    ///     .set_variant_shredding("payload", VariantShredding::Auto)
    ///     .build();
    /// assert_eq!(props.variant_shredding().len(), 2);
    /// ```
    pub fn set_variant_shredding(
        mut self,
        column: impl Into<String>,
        shredding: VariantShredding,
    ) -> Self {
        self.props
            .variant_shredding
            .insert(column.into(), shredding);
        self
    }

    /// The `created_by` string (default `herringbone version X`).
    pub fn set_created_by(mut self, created_by: impl Into<String>) -> Self {
        self.props.created_by = created_by.into();
        self
    }

    /// Encrypts the file (modular encryption) with these keys.
    pub fn set_encryption(mut self, encryption: FileEncryptionProperties) -> Self {
        self.props.encryption = Some(encryption);
        self
    }

    /// The properties.
    pub fn build(self) -> WriterProperties {
        self.props
    }

    fn column(&mut self, column: impl Into<String>) -> &mut ColumnProperties {
        self.props.columns.entry(column.into()).or_default()
    }
}
