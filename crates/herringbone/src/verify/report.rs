//! What the verifier finds: problems (the file breaks a promise it makes), warnings
//! (a deviation readers tolerate, or something that could not be checked) and counts
//! of what was checked.

use std::fmt;

/// Which promise a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Check {
    /// The `PAR1` magic at the start and end of the file.
    Magic,
    /// The footer: its length, its Thrift encoding, its fields.
    Footer,
    /// The schema and the column orders.
    Schema,
    /// Row group fields: `num_rows`, sizes, ordinals, the file's `num_rows`.
    RowGroup,
    /// Column chunk metadata: type, path, codec, offsets, sizes, value counts,
    /// encodings, encoding statistics.
    ChunkMetadata,
    /// A page header: decodable, sizes within the chunk, a known page type.
    PageHeader,
    /// A page's CRC32.
    Crc,
    /// Decompressing a page to its declared size.
    Decompression,
    /// Decoding a page's levels and values.
    Decoding,
    /// Definition and repetition levels against the schema and the record structure.
    Levels,
    /// Value, null and row counts of pages and chunks against their headers.
    Counts,
    /// The dictionary page and the indices into it.
    Dictionary,
    /// Column chunk statistics against the values.
    Statistics,
    /// Page header statistics against the page's values.
    PageStatistics,
    /// The column index against the pages.
    ColumnIndex,
    /// The offset index against the pages.
    OffsetIndex,
    /// Size statistics (byte array bytes, level histograms) against the data.
    SizeStatistics,
    /// The Bloom filter: readable, and holding every value of the chunk.
    BloomFilter,
    /// The row group's declared sort order.
    SortingColumns,
    /// Modular encryption: modules that need keys.
    Encryption,
    /// Reading the row group through the Arrow reader.
    ArrowRead,
}

impl Check {
    /// A stable name for machines (`page.crc`, `statistics`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Check::Magic => "magic",
            Check::Footer => "footer",
            Check::Schema => "schema",
            Check::RowGroup => "row_group",
            Check::ChunkMetadata => "chunk_metadata",
            Check::PageHeader => "page_header",
            Check::Crc => "crc",
            Check::Decompression => "decompression",
            Check::Decoding => "decoding",
            Check::Levels => "levels",
            Check::Counts => "counts",
            Check::Dictionary => "dictionary",
            Check::Statistics => "statistics",
            Check::PageStatistics => "page_statistics",
            Check::ColumnIndex => "column_index",
            Check::OffsetIndex => "offset_index",
            Check::SizeStatistics => "size_statistics",
            Check::BloomFilter => "bloom_filter",
            Check::SortingColumns => "sorting_columns",
            Check::Encryption => "encryption",
            Check::ArrowRead => "arrow_read",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a finding is: as precise as the check allows.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    /// Row group index.
    pub row_group: Option<usize>,
    /// Leaf column index in the schema.
    pub column_index: Option<usize>,
    /// Dotted column path.
    pub column: Option<String>,
    /// Page index within the column chunk (the dictionary page counts).
    pub page: Option<usize>,
    /// File offset of the structure (page header, index, filter, footer).
    pub offset: Option<u64>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(g) = self.row_group {
            parts.push(format!("row group {g}"));
        }
        if let Some(c) = &self.column {
            parts.push(format!("column {c}"));
        }
        if let Some(p) = self.page {
            parts.push(format!("page {p}"));
        }
        if let Some(o) = self.offset {
            parts.push(format!("offset {o}"));
        }
        if parts.is_empty() {
            f.write_str("file")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Where.
    pub location: Location,
    /// Which promise.
    pub check: Check,
    /// What is wrong, in words.
    pub message: String,
    /// What the data says (when there is a value to compare).
    pub expected: Option<String>,
    /// What the file declares.
    pub found: Option<String>,
}

impl Finding {
    pub(crate) fn new(location: Location, check: Check, message: impl Into<String>) -> Self {
        Self {
            location,
            check,
            message: message.into(),
            expected: None,
            found: None,
        }
    }

    pub(crate) fn values(mut self, expected: impl Into<String>, found: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self.found = Some(found.into());
        self
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.location, self.check, self.message)?;
        if let (Some(expected), Some(found)) = (&self.expected, &self.found) {
            write!(f, " (expected {expected}, found {found})")?;
        }
        Ok(())
    }
}

/// Counts of what was checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// File size in bytes.
    pub file_len: u64,
    /// Row groups checked.
    pub row_groups: usize,
    /// Column chunks checked.
    pub column_chunks: usize,
    /// Pages whose headers were read.
    pub pages: usize,
    /// Page CRCs compared.
    pub crcs: usize,
    /// Levels decoded (values and nulls).
    pub levels: u64,
    /// Statistics (chunk and page) compared.
    pub statistics: usize,
    /// Column indexes compared.
    pub column_indexes: usize,
    /// Offset indexes compared.
    pub offset_indexes: usize,
    /// Bloom filters probed.
    pub bloom_filters: usize,
    /// Row groups read through the Arrow reader.
    pub arrow_row_groups: usize,
    /// Encrypted modules that authenticated (footer, page headers and pages, column
    /// and offset indexes, Bloom filter headers and bitsets), when keys were given.
    pub encrypted_modules: usize,
}

/// The verifier's answer about one file.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// False when the file could not be read at all (no magic, no decodable footer):
    /// then [`Report::problems`] says why and nothing else was checked.
    pub readable: bool,
    /// Promises the file breaks.
    pub problems: Vec<Finding>,
    /// Deviations readers tolerate, and what could not be checked.
    pub warnings: Vec<Finding>,
    /// What was checked.
    pub summary: Summary,
}

impl Report {
    /// Whether the file is readable and no problem was found.
    pub fn is_clean(&self) -> bool {
        self.readable && self.problems.is_empty()
    }

    /// The exit status `hb verify` uses: 0 clean, 1 problems, 2 unreadable.
    pub fn exit_code(&self) -> u8 {
        if !self.readable {
            2
        } else if self.problems.is_empty() {
            0
        } else {
            1
        }
    }
}
