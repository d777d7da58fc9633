//! Pages of a column chunk: reading (header decode, CRC check, decompression, v1/v2
//! section split) and writing (compression, header, CRC).
//!
//! I/O free: [`PageReader`] walks a column chunk's bytes it is given, and [`PageWriter`]
//! appends pages to a buffer. Sizes in page headers are checked against the bytes
//! actually present (and a configurable limit) before anything is allocated; pages that
//! need no decompression are handed out as slices of the chunk, without a copy.
//!
//! ```
//! use bytes::Bytes;
//! use herringbone_codec::compression::Codec;
//! use herringbone_codec::page::{DataPageV2, Page, PageReader, PageReaderOptions, PageWriter};
//! use herringbone_format::metadata::Encoding;
//!
//! let mut writer = PageWriter::new(Codec::Snappy).with_crc(true);
//! let mut chunk = Vec::new();
//! writer
//!     .write_data_page_v2(&mut chunk, &DataPageV2 {
//!         rep_levels: &[],
//!         def_levels: &[2, 0x07],
//!         values: &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
//!         num_values: 3,
//!         num_nulls: 0,
//!         num_rows: 3,
//!         encoding: Encoding::PLAIN,
//!         statistics: None,
//!     })
//!     .unwrap();
//!
//! let options = PageReaderOptions::default().with_verify_crc(true);
//! let mut reader = PageReader::new(Bytes::from(chunk), Codec::Snappy, options);
//! match reader.next_page().unwrap() {
//!     Some(Page::DataV2 { values, num_rows, .. }) => {
//!         assert_eq!(num_rows, 3);
//!         assert_eq!(&values[..], &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
//!     }
//!     other => panic!("unexpected {other:?}"),
//! }
//! assert!(reader.next_page().unwrap().is_none());
//! ```

use bytes::Bytes;
use herringbone_format::metadata::{
    ColumnMetaData, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding, PageHeader,
    PageType, Statistics,
};
use herringbone_format::thrift::{CompactReader, CompactWriter, ThriftStruct};

use crate::compression::{Codec, DEFAULT_MAX_UNCOMPRESSED_SIZE};
use crate::crc;
use crate::crypto::{ColumnDecryptor, ColumnEncryptor, ModuleType};
use crate::error::{Error, ErrorKind, Result};

mod chunk_bytes;
mod locations;

use chunk_bytes::ChunkBytes;
pub use chunk_bytes::ChunkSource;
pub use locations::PageLocations;

/// Bytes added to the chunk length of files from parquet-mr before 1.2.9, which left the
/// dictionary page header out of `total_compressed_size` (PARQUET-816); the reference
/// readers pad by the same bound.
const MAX_DICTIONARY_HEADER_SIZE: u64 = 100;

/// The byte range of a column chunk's pages in its file.
///
/// It starts at the dictionary page when there is one, else at the first data page;
/// `dictionary_page_offset` of 0 (written by some writers for "none") or past the first
/// data page is ignored. It spans `total_compressed_size` bytes, plus up to 100 bytes
/// (within the file) for files of parquet-mr before 1.2.9 (`created_by` says which),
/// whose sizes left out the dictionary page header. Because that padding may reach into
/// the next chunk, pair it with [`PageReader::with_num_values`].
pub fn column_chunk_range(
    meta: &ColumnMetaData,
    created_by: Option<&str>,
    file_len: u64,
) -> Result<std::ops::Range<u64>> {
    let start = match meta.dictionary_page_offset {
        Some(dict) if dict > 0 && dict < meta.data_page_offset => dict,
        _ => meta.data_page_offset,
    };
    let start = u64::try_from(start)
        .map_err(|_| Error::corrupt(format!("column chunk starts at negative offset {start}")))?;
    let len = u64::try_from(meta.total_compressed_size).map_err(|_| {
        Error::corrupt(format!(
            "column chunk total_compressed_size {} is negative",
            meta.total_compressed_size
        ))
    })?;
    let end = start
        .checked_add(len)
        .filter(|&end| end <= file_len)
        .ok_or_else(|| {
            Error::corrupt(format!(
                "column chunk at {start} of {len} bytes lies beyond the end of the file ({file_len} bytes)"
            ))
        })?;
    let end = if created_by.is_some_and(misses_dictionary_header_size) {
        end.saturating_add(MAX_DICTIONARY_HEADER_SIZE).min(file_len)
    } else {
        end
    };
    Ok(start..end)
}

/// Whether `created_by` names parquet-mr older than 1.2.9 (a bare `parquet-mr` counts as
/// version 0, as the reference readers parse it).
fn misses_dictionary_header_size(created_by: &str) -> bool {
    let (application, version) = match created_by.split_once(" version ") {
        Some((application, rest)) => (application.trim(), rest.trim()),
        None => (created_by.trim(), ""),
    };
    if application != "parquet-mr" {
        return false;
    }
    let mut parts = version
        .split(|c: char| !c.is_ascii_digit())
        .take(3)
        .map(|part| part.parse::<u64>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    let patch = parts.next().unwrap_or(0);
    (major, minor, patch) < (1, 2, 9)
}

impl From<herringbone_format::Error> for Error {
    fn from(error: herringbone_format::Error) -> Self {
        Error::new(ErrorKind::Metadata, "invalid page header").with_source(error)
    }
}

/// Bytes of a chunk a page header is first looked for in (doubled while the header runs
/// past them).
const HEADER_PROBE: usize = 1024;

/// A recycled decompression buffer is kept for a page unless it is more than
/// [`SCRATCH_KEPT_RATIO`] times the page's size and above [`SCRATCH_KEPT_MIN`] bytes.
const SCRATCH_KEPT_RATIO: usize = 4;
/// See [`SCRATCH_KEPT_RATIO`]: buffers up to this size are always kept.
const SCRATCH_KEPT_MIN: usize = 64 * 1024;

/// How a [`PageReader`] checks what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageReaderOptions {
    verify_crc: bool,
    max_page_size: usize,
}

impl Default for PageReaderOptions {
    /// CRCs are not verified (like the reference readers' default); pages may be as large
    /// as a page header can declare.
    fn default() -> Self {
        Self {
            verify_crc: false,
            max_page_size: DEFAULT_MAX_UNCOMPRESSED_SIZE,
        }
    }
}

impl PageReaderOptions {
    /// Whether to check each page's CRC32 against its header's `crc` field (when the
    /// writer stored one). A mismatch is an [`ErrorKind::Checksum`] error.
    pub fn with_verify_crc(mut self, verify: bool) -> Self {
        self.verify_crc = verify;
        self
    }

    /// The largest compressed or uncompressed page size accepted, in bytes; larger pages
    /// are refused before anything is allocated for them.
    pub fn with_max_page_size(mut self, max_page_size: usize) -> Self {
        self.max_page_size = max_page_size;
        self
    }

    /// Whether CRCs are verified.
    pub fn verify_crc(&self) -> bool {
        self.verify_crc
    }

    /// The page size limit in bytes.
    pub fn max_page_size(&self) -> usize {
        self.max_page_size
    }
}

/// A decoded page, decompressed and split into its sections.
#[derive(Debug, Clone, PartialEq)]
pub enum Page {
    /// The dictionary page of the chunk.
    Dictionary {
        /// The dictionary values (PLAIN-encoded).
        values: Bytes,
        /// Number of values in the dictionary.
        num_values: usize,
        /// Encoding of the values (PLAIN, or PLAIN_DICTIONARY from old writers).
        encoding: Encoding,
        /// Whether the writer declared the entries sorted.
        is_sorted: bool,
    },
    /// A v1 data page: levels and values share one compressed buffer.
    DataV1 {
        /// Repetition levels, definition levels (each length-prefixed when RLE) and
        /// values, in that order, as the page stores them after decompression.
        buffer: Bytes,
        /// Number of values, nulls included.
        num_values: usize,
        /// Encoding of the values.
        encoding: Encoding,
        /// Encoding of the definition levels.
        def_level_encoding: Encoding,
        /// Encoding of the repetition levels.
        rep_level_encoding: Encoding,
        /// Page statistics, when written.
        statistics: Option<Statistics>,
    },
    /// A v2 data page: levels stored uncompressed and separately from the values.
    DataV2 {
        /// Repetition levels (RLE hybrid, no length prefix).
        rep_levels: Bytes,
        /// Definition levels (RLE hybrid, no length prefix).
        def_levels: Bytes,
        /// Values, decompressed.
        values: Bytes,
        /// Number of values, nulls included.
        num_values: usize,
        /// Number of nulls.
        num_nulls: usize,
        /// Number of rows (records) that start in this page.
        num_rows: usize,
        /// Encoding of the values.
        encoding: Encoding,
        /// Page statistics, when written.
        statistics: Option<Statistics>,
    },
}

impl Page {
    /// The page's byte sections (levels and values).
    fn sections(&self) -> [&[u8]; 3] {
        match self {
            Page::Dictionary { values, .. } => [values, &[], &[]],
            Page::DataV1 { buffer, .. } => [buffer, &[], &[]],
            Page::DataV2 {
                rep_levels,
                def_levels,
                values,
                ..
            } => [rep_levels, def_levels, values],
        }
    }

    /// The page's number of values (dictionary entries for a dictionary page).
    pub fn num_values(&self) -> usize {
        match self {
            Page::Dictionary { num_values, .. }
            | Page::DataV1 { num_values, .. }
            | Page::DataV2 { num_values, .. } => *num_values,
        }
    }

    /// The encoding of the page's values.
    pub fn encoding(&self) -> Encoding {
        match self {
            Page::Dictionary { encoding, .. }
            | Page::DataV1 { encoding, .. }
            | Page::DataV2 { encoding, .. } => *encoding,
        }
    }

    /// Whether this is the dictionary page.
    pub fn is_dictionary(&self) -> bool {
        matches!(self, Page::Dictionary { .. })
    }
}

/// A page header read ahead of its page.
#[derive(Debug, Clone)]
struct PendingHeader {
    header: PageHeader,
    header_len: usize,
    compressed_len: usize,
    uncompressed_len: usize,
}

/// Iterates over the pages of one column chunk.
///
/// Built from the chunk's bytes (`dictionary_page_offset`, or `data_page_offset`, for
/// `total_compressed_size` bytes) and the chunk's codec. Index pages and page types this
/// version does not know are skipped. After an error the reader yields nothing more.
#[derive(Debug)]
pub struct PageReader {
    chunk: ChunkBytes,
    codec: Codec,
    options: PageReaderOptions,
    /// Position of the next page header in `chunk`.
    position: usize,
    /// Index of the next page in the chunk (every page counts, skipped ones too).
    page_index: usize,
    /// File offset of the chunk's first byte, for error messages.
    base_offset: u64,
    pending: Option<PendingHeader>,
    failed: bool,
    /// Values the chunk holds (from its metadata), when known: reading stops once the
    /// data pages have delivered them.
    total_values: Option<u64>,
    values_read: u64,
    /// Pages handed out by [`PageReader::next_page`] (decompressed when compressed).
    pages_decoded: usize,
    /// Pages stepped over by [`PageReader::skip_page`] (never decompressed).
    pages_skipped: usize,
    /// A buffer handed back by [`PageReader::recycle`], decompressed into next.
    scratch: Vec<u8>,
    decryption: Option<PageDecryption>,
    /// The data pages' places from the offset index, when given (plaintext chunks).
    locations: Option<PageLocations>,
}

/// The state of an encrypted chunk's page stream: which module comes next.
#[derive(Debug)]
struct PageDecryption {
    decryptor: ColumnDecryptor,
    /// Whether the chunk starts with a dictionary page (its header is a dictionary
    /// page header module, which no page ordinal counts).
    dictionary_first: bool,
    /// Ordinal of the next data page.
    data_pages: usize,
}

impl PageDecryption {
    /// The header module at `page_index` and its page ordinal.
    fn header_module(&self, page_index: usize) -> (ModuleType, Option<usize>) {
        if page_index == 0 && self.dictionary_first {
            (ModuleType::DictionaryPageHeader, None)
        } else {
            (ModuleType::DataPageHeader, Some(self.data_pages))
        }
    }
}

impl PageReader {
    /// A reader over a column chunk's bytes, decompressing with `codec`.
    pub fn new(chunk: Bytes, codec: Codec, options: PageReaderOptions) -> Self {
        Self::over(ChunkBytes::whole(chunk), codec, options)
    }

    /// A reader over a column chunk whose bytes `source` fetches as the pages are
    /// reached: it holds about one page at a time (a page's bytes are freed once nothing
    /// shares them), and pages it skips are never fetched. An encrypted chunk is fetched
    /// whole.
    pub fn from_source(
        source: std::sync::Arc<dyn ChunkSource>,
        codec: Codec,
        options: PageReaderOptions,
    ) -> Self {
        Self::over(ChunkBytes::fetched(source), codec, options)
    }

    fn over(chunk: ChunkBytes, codec: Codec, options: PageReaderOptions) -> Self {
        Self {
            chunk,
            codec,
            options,
            position: 0,
            page_index: 0,
            base_offset: 0,
            pending: None,
            failed: false,
            total_values: None,
            values_read: 0,
            pages_decoded: 0,
            pages_skipped: 0,
            scratch: Vec::new(),
            decryption: None,
            locations: None,
        }
    }

    /// Knows where the chunk's data pages lie from its offset index (checked by
    /// [`PageLocations::new`]): [`PageReader::skip_located`] then jumps over a data page
    /// without fetching or decoding its header, the chunk ends with its last data page,
    /// and a data page found anywhere else is an error. Ignored for an encrypted chunk
    /// (its data pages' AADs are counted along the header walk).
    pub fn with_page_locations(mut self, locations: PageLocations) -> Self {
        if self.decryption.is_none() {
            self.locations = Some(locations);
        }
        self
    }

    /// Length of the chunk in bytes.
    pub fn chunk_len(&self) -> usize {
        self.chunk.len()
    }

    /// Rows of the next page when the offset index places a data page there (see
    /// [`PageReader::with_page_locations`]); `None` otherwise (no index, the dictionary
    /// page comes first, or the end of the chunk).
    pub fn located_rows(&self) -> Option<u64> {
        if self.failed {
            return None;
        }
        let locations = self.locations.as_ref()?;
        locations
            .page_at(self.position)
            .map(|page| locations.rows(page))
    }

    /// Steps over the next page when the offset index places a data page there, as
    /// [`PageReader::skip_page`] does but without reading its header (nothing of it is
    /// fetched); `false` (nothing done) when it does not.
    pub fn skip_located(&mut self) -> bool {
        let Some(locations) = self.locations.as_ref().filter(|_| !self.failed) else {
            return false;
        };
        let Some(page) = locations.page_at(self.position) else {
            return false;
        };
        self.position = locations.end(page);
        self.pending = None;
        self.page_index += 1;
        self.pages_skipped += 1;
        true
    }

    /// Decrypts every page header and body with `decryptor` (an encrypted column
    /// chunk). `dictionary_first` says whether the chunk starts with a dictionary page,
    /// as its metadata's `dictionary_page_offset` does: the first header's module type
    /// (and so its AAD) depends on it.
    pub fn with_decryptor(mut self, decryptor: ColumnDecryptor, dictionary_first: bool) -> Self {
        self.decryption = Some(PageDecryption {
            decryptor,
            dictionary_first,
            data_pages: 0,
        });
        self
    }

    /// Stops after data pages holding `num_values` values (the chunk metadata's
    /// `num_values`), whatever bytes follow: needed when the chunk's byte range is padded
    /// (see [`column_chunk_range`]).
    pub fn with_num_values(mut self, num_values: u64) -> Self {
        self.total_values = Some(num_values);
        self
    }

    /// Reports positions in errors as file offsets, the chunk starting at `offset`.
    pub fn with_base_offset(mut self, offset: u64) -> Self {
        self.base_offset = offset;
        self
    }

    /// Index (in the chunk, counting every page) of the page the next call returns.
    pub fn page_index(&self) -> usize {
        self.page_index
    }

    /// Pages handed out by [`PageReader::next_page`] so far: the pages whose bytes were
    /// checked and decompressed.
    pub fn pages_decoded(&self) -> usize {
        self.pages_decoded
    }

    /// Pages stepped over by [`PageReader::skip_page`] so far, never decompressed.
    pub fn pages_skipped(&self) -> usize {
        self.pages_skipped
    }

    /// Hands back the buffer of a page the caller is done with: when nothing else
    /// shares it (a decompressed page whose values were copied out), the next page is
    /// decompressed into it instead of a fresh allocation.
    pub fn recycle(&mut self, page: Bytes) {
        if let Ok(buffer) = page.try_into_mut() {
            let buffer = Vec::from(buffer);
            if buffer.capacity() > self.scratch.capacity() {
                self.scratch = buffer;
            }
        }
    }

    /// Frees what the reader keeps for pages to come (the chunk's bytes, the scratch
    /// buffer, the decryptor, the page locations) once the caller is done with the
    /// chunk; afterwards it yields no page, and its counts stay.
    pub fn release(&mut self) {
        self.chunk = ChunkBytes::whole(Bytes::new());
        self.position = 0;
        self.pending = None;
        self.scratch = Vec::new();
        self.decryption = None;
        self.locations = None;
        self.failed = true;
    }

    /// File offset (see [`PageReader::with_base_offset`]) of the next page's header.
    pub fn offset(&self) -> u64 {
        self.base_offset + self.position as u64
    }

    fn location(&self) -> String {
        format!("page {} at offset {}", self.page_index, self.offset())
    }

    /// The header of the next page, decoded and size-checked but not consumed; `None`
    /// at the end of the chunk.
    pub fn peek_header(&mut self) -> Result<Option<&PageHeader>> {
        if self.failed {
            return Ok(None);
        }
        // Not fused here: a header error is reported again by the next `next_page`.
        match self.load_header() {
            Ok(()) => Ok(self.pending.as_ref().map(|p| &p.header)),
            Err(e) => Err(e.context(self.location())),
        }
    }

    /// [`PageReader::peek_header`], stopping the reader on error.
    fn peek_or_fail(&mut self) -> Result<bool> {
        match self.peek_header() {
            Ok(header) => Ok(header.is_some()),
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }

    fn load_header(&mut self) -> Result<()> {
        if self.pending.is_some() || self.position >= self.chunk.len() {
            return Ok(());
        }
        // With an offset index the data ends with its last page (the values of pages
        // skipped by it are not counted, so `total_values` cannot say).
        if self
            .locations
            .as_ref()
            .is_some_and(|l| self.position >= l.data_end())
        {
            return Ok(());
        }
        if self
            .total_values
            .is_some_and(|total| self.values_read >= total)
        {
            return Ok(());
        }
        let mut left = self.chunk.len() - self.position;
        // A page the offset index places ends where it says, and the dictionary page
        // before the first data page: a header is not looked for beyond them (a source
        // may hold only the pages a selection reads).
        if let Some(locations) = &self.locations {
            let end = match locations.page_at(self.position) {
                Some(page) => locations.end(page),
                None if self.position < locations.first_start() => locations.first_start(),
                None => self.chunk.len(),
            };
            left = left.min(end - self.position);
        }
        let (header, header_len, rest) = match &self.decryption {
            None => {
                // A header is a few dozen bytes (more with statistics): read from what
                // is held, fetching more only when it runs past that.
                let mut want = left.min(HEADER_PROBE);
                loop {
                    let rest = self.chunk.slice_from(self.position, self.position + want)?;
                    let mut reader =
                        CompactReader::from_bytes(&rest).with_base_offset(self.offset());
                    match PageHeader::read(&mut reader) {
                        Ok(header) => {
                            let header_len = reader.position();
                            break (header, header_len, rest);
                        }
                        Err(_) if rest.len() < left => {
                            want = rest.len().saturating_mul(2).min(left)
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            Some(decryption) => {
                let rest = self.chunk.slice_from(self.position, self.chunk.len())?;
                let (module, ordinal) = decryption.header_module(self.page_index);
                let (plain, module_len) = decryption
                    .decryptor
                    .decrypt_prefix(module, ordinal, &rest)?;
                let plain = Bytes::from(plain);
                let mut reader = CompactReader::from_bytes(&plain);
                let header = PageHeader::read(&mut reader)
                    .map_err(|e| Error::from(e).context(format!("decrypted {module}")))?;
                (header, module_len, rest)
            }
        };
        let mut compressed_len = non_negative(header.compressed_page_size, "compressed_page_size")?;
        let uncompressed_len =
            non_negative(header.uncompressed_page_size, "uncompressed_page_size")?;
        let available = left.saturating_sub(header_len);
        // DuckDB 2.0's compressed_page_size counts the plaintext, not the module stored:
        // the module's own length field sizes the body.
        if let Some(decryption) = &self.decryption
            && decryption.decryptor.is_empty_aad()
        {
            let module = match header.type_ {
                PageType::DICTIONARY_PAGE => Some(ModuleType::DictionaryPage),
                PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => Some(ModuleType::DataPage),
                _ => None,
            };
            if let Some(module) = module {
                compressed_len = decryption
                    .decryptor
                    .module_size(module, &rest[header_len..])?;
            }
        }
        if compressed_len > available {
            return Err(Error::corrupt(format!(
                "compressed_page_size {compressed_len} exceeds the {available} bytes left in the column chunk"
            )));
        }
        let limit = self.options.max_page_size;
        if compressed_len > limit || uncompressed_len > limit {
            return Err(Error::unsupported(format!(
                "page of {compressed_len} compressed / {uncompressed_len} uncompressed bytes exceeds the configured page size limit of {limit} bytes"
            )));
        }
        self.pending = Some(PendingHeader {
            header,
            header_len,
            compressed_len,
            uncompressed_len,
        });
        Ok(())
    }

    /// Skips the next page without verifying or decompressing it; returns its header,
    /// `None` at the end of the chunk.
    pub fn skip_page(&mut self) -> Result<Option<PageHeader>> {
        if !self.peek_or_fail()? {
            return Ok(None);
        }
        let pending = self.pending.take().expect("peek_header loaded a header");
        self.position += pending.header_len + pending.compressed_len;
        self.page_index += 1;
        self.pages_skipped += 1;
        let header = pending.header;
        self.count_encrypted_page(&header);
        let data_values = match header.type_ {
            PageType::DATA_PAGE => header.data_page_header.as_ref().map(|h| h.num_values),
            PageType::DATA_PAGE_V2 => header.data_page_header_v2.as_ref().map(|h| h.num_values),
            _ => None,
        };
        self.values_read += data_values.and_then(|n| u64::try_from(n).ok()).unwrap_or(0);
        Ok(Some(header))
    }

    /// The next dictionary or data page; `None` at the end of the chunk.
    pub fn next_page(&mut self) -> Result<Option<Page>> {
        loop {
            if !self.peek_or_fail()? {
                return Ok(None);
            }
            let pending = self.pending.take().expect("peek_header loaded a header");
            // Formatted only for an error: a page read costs no string.
            let (index, offset) = (self.page_index, self.offset());
            let location = || format!("page {index} at offset {offset}");
            if let Err(e) = self.check_located(&pending.header) {
                self.failed = true;
                return Err(e.context(location()));
            }
            let body_start = self.position + pending.header_len;
            let body_end = body_start + pending.compressed_len;
            let body = match self.chunk.slice_from(body_start, body_end) {
                Ok(rest) => rest.slice(..pending.compressed_len),
                Err(e) => {
                    self.failed = true;
                    return Err(e.context(location()));
                }
            };
            self.position = body_start + pending.compressed_len;
            let page_ordinal = self.decryption.as_ref().map(|d| d.data_pages);
            self.page_index += 1;
            self.count_encrypted_page(&pending.header);
            let body = match self.decrypt_body(&pending.header, page_ordinal, body) {
                Ok(body) => body,
                Err(e) => {
                    self.failed = true;
                    return Err(e.context(location()));
                }
            };
            match self.decode_page(&pending, body) {
                Ok(Some(page)) => {
                    if !page.is_dictionary() {
                        self.values_read += page.num_values() as u64;
                    }
                    self.pages_decoded += 1;
                    let chunk_read = self.position >= self.chunk.len()
                        || self.total_values.is_some_and(|t| self.values_read >= t);
                    if chunk_read && !page.sections().iter().any(|s| self.chunk.window_holds(s)) {
                        self.chunk.drop_window();
                    }
                    return Ok(Some(page));
                }
                Ok(None) => continue,
                Err(e) => {
                    self.failed = true;
                    return Err(e.context(location()));
                }
            }
        }
    }

    /// With an offset index, a data page must be where the index places one, and the
    /// dictionary page before the first of them.
    fn check_located(&self, header: &PageHeader) -> Result<()> {
        let Some(locations) = &self.locations else {
            return Ok(());
        };
        let is_data = matches!(header.type_, PageType::DATA_PAGE | PageType::DATA_PAGE_V2);
        if is_data && locations.page_at(self.position).is_none() {
            return Err(Error::corrupt(
                "data page where the offset index places none",
            ));
        }
        if header.type_ == PageType::DICTIONARY_PAGE && self.position >= locations.first_start() {
            return Err(Error::corrupt(
                "dictionary page where the offset index places a data page",
            ));
        }
        Ok(())
    }

    /// Counts a data page of an encrypted chunk (data page AADs carry its ordinal).
    fn count_encrypted_page(&mut self, header: &PageHeader) {
        if let Some(decryption) = &mut self.decryption
            && matches!(header.type_, PageType::DATA_PAGE | PageType::DATA_PAGE_V2)
        {
            decryption.data_pages += 1;
        }
    }

    /// The plaintext body of a page: `body` itself, or its decryption in an encrypted
    /// chunk. The CRC (checked later) covers the bytes as stored, so it is checked on the
    /// encrypted body here.
    fn decrypt_body(
        &self,
        header: &PageHeader,
        page_ordinal: Option<usize>,
        body: Bytes,
    ) -> Result<Bytes> {
        let Some(decryption) = &self.decryption else {
            return Ok(body);
        };
        let is_dictionary = header.type_ == PageType::DICTIONARY_PAGE;
        if !is_dictionary && !matches!(header.type_, PageType::DATA_PAGE | PageType::DATA_PAGE_V2) {
            return Ok(body);
        }
        if self.options.verify_crc
            && let Some(expected) = header.crc
        {
            crc::verify_page_crc(&body, expected)
                .map_err(|e| e.context(format!("{:?}", header.type_)))?;
        }
        let (module, ordinal) = if is_dictionary {
            (ModuleType::DictionaryPage, None)
        } else {
            (ModuleType::DataPage, page_ordinal)
        };
        Ok(Bytes::from(
            decryption.decryptor.decrypt(module, ordinal, &body)?,
        ))
    }

    fn decode_page(&mut self, pending: &PendingHeader, body: Bytes) -> Result<Option<Page>> {
        let header = &pending.header;
        let page_type = header.type_;
        let is_data_or_dictionary = matches!(
            page_type,
            PageType::DATA_PAGE | PageType::DATA_PAGE_V2 | PageType::DICTIONARY_PAGE
        );
        if !is_data_or_dictionary {
            return Ok(None);
        }
        if self.options.verify_crc
            && self.decryption.is_none()
            && let Some(expected) = header.crc
        {
            crc::verify_page_crc(&body, expected)
                .map_err(|e| e.context(format!("{page_type:?}")))?;
        }
        match page_type {
            PageType::DICTIONARY_PAGE => {
                let dict = header.dictionary_page_header.as_ref().ok_or_else(|| {
                    Error::corrupt("DICTIONARY_PAGE without a dictionary_page_header")
                })?;
                self.dictionary_page(dict, body, pending.uncompressed_len)
                    .map(Some)
            }
            PageType::DATA_PAGE => {
                let data = header
                    .data_page_header
                    .as_ref()
                    .ok_or_else(|| Error::corrupt("DATA_PAGE without a data_page_header"))?;
                self.data_page_v1(data, body, pending.uncompressed_len)
                    .map(Some)
            }
            _ => {
                let data = header
                    .data_page_header_v2
                    .as_ref()
                    .ok_or_else(|| Error::corrupt("DATA_PAGE_V2 without a data_page_header_v2"))?;
                self.data_page_v2(data, body, pending.uncompressed_len)
                    .map(Some)
            }
        }
    }

    /// Decompresses `input` into the recycled buffer (or a new one).
    fn decompress(&mut self, input: &[u8], uncompressed_len: usize) -> Result<Bytes> {
        let mut out = std::mem::take(&mut self.scratch);
        // A recycled buffer far larger than the page is let go rather than kept for the
        // rest of the chunk: a dictionary page's (pyarrow's are up to 1 MiB) before data
        // pages of 40 KB held 1 MiB per column, and the peak of a whole-file read rose
        // above arrow-rs's.
        if out.capacity() > SCRATCH_KEPT_MIN
            && out.capacity() / SCRATCH_KEPT_RATIO > uncompressed_len
        {
            out = Vec::new();
        }
        self.codec.decompress_replacing(
            input,
            uncompressed_len,
            self.options.max_page_size,
            &mut out,
        )?;
        Ok(Bytes::from(out))
    }

    /// Decompresses a whole page body (v1 and dictionary pages).
    fn decompress_body(&mut self, body: Bytes, uncompressed_len: usize) -> Result<Bytes> {
        if self.codec == Codec::Uncompressed {
            if body.len() != uncompressed_len {
                return Err(Error::corrupt(format!(
                    "uncompressed page stores {} bytes but declares uncompressed_page_size {uncompressed_len}",
                    body.len()
                )));
            }
            return Ok(body);
        }
        self.decompress(&body, uncompressed_len)
    }

    fn dictionary_page(
        &mut self,
        dict: &DictionaryPageHeader,
        body: Bytes,
        uncompressed_len: usize,
    ) -> Result<Page> {
        let num_values = non_negative(dict.num_values, "dictionary num_values")?;
        Ok(Page::Dictionary {
            values: self.decompress_body(body, uncompressed_len)?,
            num_values,
            encoding: dict.encoding,
            is_sorted: dict.is_sorted.unwrap_or(false),
        })
    }

    fn data_page_v1(
        &mut self,
        data: &DataPageHeader,
        body: Bytes,
        uncompressed_len: usize,
    ) -> Result<Page> {
        let num_values = non_negative(data.num_values, "num_values")?;
        Ok(Page::DataV1 {
            buffer: self.decompress_body(body, uncompressed_len)?,
            num_values,
            encoding: data.encoding,
            def_level_encoding: data.definition_level_encoding,
            rep_level_encoding: data.repetition_level_encoding,
            statistics: data.statistics.clone(),
        })
    }

    fn data_page_v2(
        &mut self,
        data: &DataPageHeaderV2,
        body: Bytes,
        uncompressed_len: usize,
    ) -> Result<Page> {
        let num_values = non_negative(data.num_values, "num_values")?;
        let num_nulls = non_negative(data.num_nulls, "num_nulls")?;
        let num_rows = non_negative(data.num_rows, "num_rows")?;
        let rep_len = non_negative(
            data.repetition_levels_byte_length,
            "repetition_levels_byte_length",
        )?;
        let def_len = non_negative(
            data.definition_levels_byte_length,
            "definition_levels_byte_length",
        )?;
        let levels_len = rep_len + def_len;
        if levels_len > body.len() || levels_len > uncompressed_len {
            return Err(Error::corrupt(format!(
                "level sections of {rep_len} + {def_len} bytes exceed the page ({} compressed / {uncompressed_len} uncompressed bytes)",
                body.len()
            )));
        }
        let rep_levels = body.slice(..rep_len);
        let def_levels = body.slice(rep_len..levels_len);
        let stored_values = body.slice(levels_len..);
        let values_len = uncompressed_len - levels_len;
        let is_compressed = data.is_compressed.unwrap_or(true);
        let values = if !is_compressed || self.codec == Codec::Uncompressed {
            if stored_values.len() != values_len {
                return Err(Error::corrupt(format!(
                    "uncompressed values section stores {} bytes but the header implies {values_len}",
                    stored_values.len()
                )));
            }
            stored_values
        } else {
            self.decompress(&stored_values, values_len)?
        };
        Ok(Page::DataV2 {
            rep_levels,
            def_levels,
            values,
            num_values,
            num_nulls,
            num_rows,
            encoding: data.encoding,
            statistics: data.statistics.clone(),
        })
    }
}

impl Iterator for PageReader {
    type Item = Result<Page>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_page().transpose()
    }
}

impl std::iter::FusedIterator for PageReader {}

fn non_negative(value: i32, field: &str) -> Result<usize> {
    usize::try_from(value).map_err(|_| Error::corrupt(format!("{field} {value} is negative")))
}

fn header_size(value: usize, field: &str) -> Result<i32> {
    i32::try_from(value).map_err(|_| {
        Error::invalid_argument(format!(
            "{field} {value} does not fit the page header's i32"
        ))
    })
}

/// The header of a v1 data page whose sections take `uncompressed` bytes, stored in
/// `compressed` bytes.
fn v1_header(page: &DataPageV1<'_>, uncompressed: usize, compressed: usize) -> Result<PageHeader> {
    Ok(PageHeader {
        type_: PageType::DATA_PAGE,
        uncompressed_page_size: header_size(uncompressed, "uncompressed_page_size")?,
        compressed_page_size: header_size(compressed, "compressed_page_size")?,
        crc: None,
        data_page_header: Some(DataPageHeader {
            num_values: header_size(page.num_values, "num_values")?,
            encoding: page.encoding,
            definition_level_encoding: page.def_level_encoding,
            repetition_level_encoding: page.rep_level_encoding,
            statistics: page.statistics.clone(),
        }),
        ..PageHeader::default()
    })
}

/// The sections of a v1 data page to write.
#[derive(Debug, Clone)]
pub struct DataPageV1<'a> {
    /// Repetition levels as stored (with the 4-byte length prefix when RLE); empty when
    /// the column has no repetition.
    pub rep_levels: &'a [u8],
    /// Definition levels as stored (with the 4-byte length prefix when RLE); empty when
    /// the column is required.
    pub def_levels: &'a [u8],
    /// Encoded values.
    pub values: &'a [u8],
    /// Number of values, nulls included.
    pub num_values: usize,
    /// Number of rows that start in this page (not stored in a v1 header; tracked for
    /// the offset index).
    pub num_rows: usize,
    /// Encoding of the values.
    pub encoding: Encoding,
    /// Encoding of the definition levels (RLE, or BIT_PACKED from old writers).
    pub def_level_encoding: Encoding,
    /// Encoding of the repetition levels.
    pub rep_level_encoding: Encoding,
    /// Page statistics to store in the header.
    pub statistics: Option<Statistics>,
}

/// The sections of a v2 data page to write.
#[derive(Debug, Clone)]
pub struct DataPageV2<'a> {
    /// Repetition levels (RLE hybrid, no length prefix), stored uncompressed.
    pub rep_levels: &'a [u8],
    /// Definition levels (RLE hybrid, no length prefix), stored uncompressed.
    pub def_levels: &'a [u8],
    /// Encoded values, compressed with the writer's codec.
    pub values: &'a [u8],
    /// Number of values, nulls included.
    pub num_values: usize,
    /// Number of nulls.
    pub num_nulls: usize,
    /// Number of rows that start in this page.
    pub num_rows: usize,
    /// Encoding of the values.
    pub encoding: Encoding,
    /// Page statistics to store in the header.
    pub statistics: Option<Statistics>,
}

/// Where a written page landed and what its header says: what the column chunk
/// metadata, the offset index and the page encoding stats need.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenPage {
    /// Kind of page.
    pub page_type: PageType,
    /// Position of the page header in the sink.
    pub offset: usize,
    /// Size of the encoded page header.
    pub header_size: usize,
    /// Bytes stored after the header (`compressed_page_size`).
    pub compressed_page_size: usize,
    /// `uncompressed_page_size` (header excluded).
    pub uncompressed_page_size: usize,
    /// Number of values (dictionary entries for a dictionary page).
    pub num_values: usize,
    /// Rows in the page; `None` for a dictionary page.
    pub num_rows: Option<usize>,
    /// Index in the column chunk of the page's first row; `None` for a dictionary page.
    pub first_row_index: Option<u64>,
    /// Encoding of the values.
    pub encoding: Encoding,
    /// The CRC32 stored in the header, if any.
    pub crc: Option<u32>,
}

impl WrittenPage {
    /// Header plus page bytes: the span an offset index's `compressed_page_size` covers.
    pub fn total_size(&self) -> usize {
        self.header_size + self.compressed_page_size
    }
}

/// Compresses encoded page sections and appends pages (header, then bytes) to a sink.
///
/// Keeps a scratch buffer between pages and counts rows so each written data page knows
/// its first row index.
#[derive(Debug)]
pub struct PageWriter {
    codec: Codec,
    write_crc: bool,
    rows_written: u64,
    scratch: Vec<u8>,
    compressed: Vec<u8>,
    encryption: Option<PageEncryption>,
}

/// An encrypted chunk's page output: the column's encryptor, the next data page
/// ordinal and a buffer for the encrypted body.
#[derive(Debug)]
struct PageEncryption {
    encryptor: ColumnEncryptor,
    data_pages: usize,
    body: Vec<u8>,
    header: Vec<u8>,
}

impl PageWriter {
    /// A writer compressing with `codec`, without CRCs.
    pub fn new(codec: Codec) -> Self {
        Self {
            codec,
            write_crc: false,
            rows_written: 0,
            scratch: Vec::new(),
            compressed: Vec::new(),
            encryption: None,
        }
    }

    /// Encrypts every page header and body with `encryptor` (an encrypted column
    /// chunk): each becomes a module with its own AAD, and `compressed_page_size` counts
    /// the encrypted body.
    pub fn with_encryptor(mut self, encryptor: ColumnEncryptor) -> Self {
        self.encryption = Some(PageEncryption {
            encryptor,
            data_pages: 0,
            body: Vec::new(),
            header: Vec::new(),
        });
        self
    }

    /// Whether to store each page's CRC32 in its header.
    pub fn with_crc(mut self, write_crc: bool) -> Self {
        self.write_crc = write_crc;
        self
    }

    /// The codec pages are compressed with.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Rows in the data pages written so far.
    pub fn rows_written(&self) -> u64 {
        self.rows_written
    }

    /// Writes the dictionary page (PLAIN-encoded values).
    pub fn write_dictionary_page(
        &mut self,
        sink: &mut Vec<u8>,
        values: &[u8],
        num_values: usize,
        is_sorted: bool,
    ) -> Result<WrittenPage> {
        self.compressed.clear();
        self.codec.compress(values, &mut self.compressed)?;
        let header = PageHeader {
            type_: PageType::DICTIONARY_PAGE,
            uncompressed_page_size: header_size(values.len(), "uncompressed_page_size")?,
            compressed_page_size: header_size(self.compressed.len(), "compressed_page_size")?,
            crc: None,
            dictionary_page_header: Some(DictionaryPageHeader {
                num_values: header_size(num_values, "num_values")?,
                encoding: Encoding::PLAIN,
                is_sorted: Some(is_sorted),
            }),
            ..PageHeader::default()
        };
        let compressed = std::mem::take(&mut self.compressed);
        let written = self.append(
            sink,
            header,
            &[&compressed],
            values.len(),
            num_values,
            None,
            Encoding::PLAIN,
        );
        self.compressed = compressed;
        written
    }

    /// Writes a v1 data page: levels and values compressed together.
    pub fn write_data_page_v1(
        &mut self,
        sink: &mut Vec<u8>,
        page: &DataPageV1<'_>,
    ) -> Result<WrittenPage> {
        let uncompressed = page.rep_levels.len() + page.def_levels.len() + page.values.len();
        if self.codec == Codec::Uncompressed {
            // The sections go to the sink as they are: no concatenation, no copy through
            // the codec.
            let header = v1_header(page, uncompressed, uncompressed)?;
            return self.append(
                sink,
                header,
                &[page.rep_levels, page.def_levels, page.values],
                uncompressed,
                page.num_values,
                Some(page.num_rows),
                page.encoding,
            );
        }
        self.scratch.clear();
        self.scratch.reserve(uncompressed);
        self.scratch.extend_from_slice(page.rep_levels);
        self.scratch.extend_from_slice(page.def_levels);
        self.scratch.extend_from_slice(page.values);
        self.compressed.clear();
        self.codec.compress(&self.scratch, &mut self.compressed)?;
        let header = v1_header(page, self.scratch.len(), self.compressed.len())?;
        let compressed = std::mem::take(&mut self.compressed);
        let written = self.append(
            sink,
            header,
            &[&compressed],
            self.scratch.len(),
            page.num_values,
            Some(page.num_rows),
            page.encoding,
        );
        self.compressed = compressed;
        written
    }

    /// Writes a v2 data page: levels stored as given, values compressed (when the codec
    /// compresses at all; `is_compressed` says which).
    pub fn write_data_page_v2(
        &mut self,
        sink: &mut Vec<u8>,
        page: &DataPageV2<'_>,
    ) -> Result<WrittenPage> {
        self.compressed.clear();
        let is_compressed = self.codec != Codec::Uncompressed;
        self.codec.compress(page.values, &mut self.compressed)?;
        let levels_len = page.rep_levels.len() + page.def_levels.len();
        let uncompressed = levels_len + page.values.len();
        let header = PageHeader {
            type_: PageType::DATA_PAGE_V2,
            uncompressed_page_size: header_size(uncompressed, "uncompressed_page_size")?,
            compressed_page_size: header_size(
                levels_len + self.compressed.len(),
                "compressed_page_size",
            )?,
            crc: None,
            data_page_header_v2: Some(DataPageHeaderV2 {
                num_values: header_size(page.num_values, "num_values")?,
                num_nulls: header_size(page.num_nulls, "num_nulls")?,
                num_rows: header_size(page.num_rows, "num_rows")?,
                encoding: page.encoding,
                definition_levels_byte_length: header_size(
                    page.def_levels.len(),
                    "definition_levels_byte_length",
                )?,
                repetition_levels_byte_length: header_size(
                    page.rep_levels.len(),
                    "repetition_levels_byte_length",
                )?,
                is_compressed: Some(is_compressed),
                statistics: page.statistics.clone(),
            }),
            ..PageHeader::default()
        };
        let compressed = std::mem::take(&mut self.compressed);
        let written = self.append(
            sink,
            header,
            &[page.rep_levels, page.def_levels, &compressed],
            uncompressed,
            page.num_values,
            Some(page.num_rows),
            page.encoding,
        );
        self.compressed = compressed;
        written
    }

    /// Adds the CRC, writes header and sections, and records the page.
    #[allow(clippy::too_many_arguments)]
    fn append(
        &mut self,
        sink: &mut Vec<u8>,
        mut header: PageHeader,
        sections: &[&[u8]],
        uncompressed_page_size: usize,
        num_values: usize,
        num_rows: Option<usize>,
        encoding: Encoding,
    ) -> Result<WrittenPage> {
        if self.encryption.is_some() {
            return self.append_encrypted(
                sink,
                header,
                sections,
                uncompressed_page_size,
                num_values,
                num_rows,
                encoding,
            );
        }
        let crc = self.write_crc.then(|| crc::page_crc_of_sections(sections));
        header.crc = crc.map(crc::crc_header_value);
        let offset = sink.len();
        let mut writer = CompactWriter::from_vec(std::mem::take(sink));
        header.write(&mut writer);
        *sink = writer.into_inner();
        let header_size = sink.len() - offset;
        let mut compressed_page_size = 0;
        for section in sections {
            sink.extend_from_slice(section);
            compressed_page_size += section.len();
        }
        self.record(
            offset,
            header_size,
            compressed_page_size,
            &header,
            uncompressed_page_size,
            num_values,
            num_rows,
            encoding,
            crc,
        )
    }

    /// [`PageWriter::append`] for an encrypted chunk: the body is encrypted first (its
    /// size goes in the header, and the CRC covers it as stored), then the header.
    #[allow(clippy::too_many_arguments)]
    fn append_encrypted(
        &mut self,
        sink: &mut Vec<u8>,
        mut header: PageHeader,
        sections: &[&[u8]],
        uncompressed_page_size: usize,
        num_values: usize,
        num_rows: Option<usize>,
        encoding: Encoding,
    ) -> Result<WrittenPage> {
        let encryption = self.encryption.as_mut().expect("checked by the caller");
        let (header_module, body_module, ordinal) = if header.type_ == PageType::DICTIONARY_PAGE {
            (
                ModuleType::DictionaryPageHeader,
                ModuleType::DictionaryPage,
                None,
            )
        } else {
            let ordinal = encryption.data_pages;
            (
                ModuleType::DataPageHeader,
                ModuleType::DataPage,
                Some(ordinal),
            )
        };
        encryption.body.clear();
        let body_len =
            encryption
                .encryptor
                .encrypt(body_module, ordinal, sections, &mut encryption.body)?;
        header.compressed_page_size = header_size(body_len, "compressed_page_size")?;
        let crc = self
            .write_crc
            .then(|| crc::page_crc_of_sections(&[&encryption.body]));
        header.crc = crc.map(crc::crc_header_value);
        let mut writer = CompactWriter::from_vec(std::mem::take(&mut encryption.header));
        header.write(&mut writer);
        encryption.header = writer.into_inner();
        let offset = sink.len();
        let header_size =
            encryption
                .encryptor
                .encrypt(header_module, ordinal, &[&encryption.header], sink)?;
        encryption.header.clear();
        sink.extend_from_slice(&encryption.body);
        if ordinal.is_some() {
            encryption.data_pages += 1;
        }
        self.record(
            offset,
            header_size,
            body_len,
            &header,
            uncompressed_page_size,
            num_values,
            num_rows,
            encoding,
            crc,
        )
    }

    /// Counts the rows of a written page and describes it.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        offset: usize,
        header_size: usize,
        compressed_page_size: usize,
        header: &PageHeader,
        uncompressed_page_size: usize,
        num_values: usize,
        num_rows: Option<usize>,
        encoding: Encoding,
        crc: Option<u32>,
    ) -> Result<WrittenPage> {
        let first_row_index = num_rows.map(|rows| {
            let first = self.rows_written;
            self.rows_written += rows as u64;
            first
        });
        Ok(WrittenPage {
            page_type: header.type_,
            offset,
            header_size,
            compressed_page_size,
            uncompressed_page_size,
            num_values,
            num_rows,
            first_row_index,
            encoding,
            crc,
        })
    }
}
