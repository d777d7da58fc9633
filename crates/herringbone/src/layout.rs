//! The physical layout of a column chunk: where each page lies, what its header says,
//! and whether its CRC holds, without decompressing or decoding anything.
//!
//! This is what `hb pages` prints, and the first step of verification and recovery.
//! Every size in a header is checked against the bytes actually present before it is
//! used.
//!
//! ```
//! use bytes::Bytes;
//! use herringbone::write::Codec;
//! use herringbone_codec::page::{DataPageV1, PageWriter};
//! use herringbone::metadata::{Encoding, PageType};
//! use herringbone::layout::{CrcStatus, PageWalker};
//!
//! let mut chunk = Vec::new();
//! let mut writer = PageWriter::new(Codec::Uncompressed).with_crc(true);
//! let page = DataPageV1 {
//!     rep_levels: &[],
//!     def_levels: &[],
//!     values: &[1, 0, 0, 0],
//!     num_values: 1,
//!     num_rows: 1,
//!     encoding: Encoding::PLAIN,
//!     def_level_encoding: Encoding::RLE,
//!     rep_level_encoding: Encoding::RLE,
//!     statistics: None,
//! };
//! writer.write_data_page_v1(&mut chunk, &page).unwrap();
//!
//! // The chunk starts at file offset 4, after the magic.
//! let pages: Vec<_> = PageWalker::new(Bytes::from(chunk), 4)
//!     .collect::<Result<_, _>>()
//!     .unwrap();
//! assert_eq!(pages.len(), 1);
//! assert_eq!(pages[0].offset, 4);
//! assert_eq!(pages[0].header.type_, PageType::DATA_PAGE);
//! assert_eq!(pages[0].crc_status(), CrcStatus::Valid);
//! ```

use bytes::Bytes;
use herringbone_codec::crc;
use herringbone_codec::{Error, Result};
use herringbone_format::metadata::{Encoding, PageHeader, PageType, Statistics};
use herringbone_format::thrift::{CompactReader, ThriftStruct};

/// One page as it lies in the file.
#[derive(Debug, Clone)]
pub struct PageSpan {
    /// File offset of the page header.
    pub offset: u64,
    /// The decoded header.
    pub header: PageHeader,
    /// Bytes of the encoded header.
    pub header_len: usize,
    /// `compressed_page_size`, checked to fit in the chunk.
    pub compressed_len: usize,
    /// `uncompressed_page_size`, checked to be non-negative.
    pub uncompressed_len: usize,
    /// The page's stored bytes (after the header).
    pub body: Bytes,
}

/// Whether a page's CRC holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrcStatus {
    /// The header has no `crc` field.
    Absent,
    /// The stored CRC32 matches the page bytes.
    Valid,
    /// It does not.
    Invalid {
        /// The CRC32 the header stores.
        stored: u32,
        /// The CRC32 of the page bytes.
        computed: u32,
    },
}

impl PageSpan {
    /// Header plus stored bytes: the span an offset index's `compressed_page_size`
    /// covers.
    pub fn total_len(&self) -> u64 {
        (self.header_len + self.compressed_len) as u64
    }

    /// File offset just past the page.
    pub fn end(&self) -> u64 {
        self.offset + self.total_len()
    }

    /// Checks the page's CRC32 (over the stored bytes) against its header.
    pub fn crc_status(&self) -> CrcStatus {
        match self.header.crc {
            None => CrcStatus::Absent,
            Some(stored) => {
                let stored = u32::from_ne_bytes(stored.to_ne_bytes());
                let computed = crc::page_crc(&self.body);
                if stored == computed {
                    CrcStatus::Valid
                } else {
                    CrcStatus::Invalid { stored, computed }
                }
            }
        }
    }

    /// Whether this is a data page (v1 or v2).
    pub fn is_data(&self) -> bool {
        matches!(
            self.header.type_,
            PageType::DATA_PAGE | PageType::DATA_PAGE_V2
        )
    }

    /// The number of values (levels) a data page holds, entries of a dictionary page;
    /// `None` when the header lacks its type's sub-header.
    pub fn num_values(&self) -> Option<i32> {
        let h = &self.header;
        match h.type_ {
            PageType::DATA_PAGE => h.data_page_header.as_ref().map(|d| d.num_values),
            PageType::DATA_PAGE_V2 => h.data_page_header_v2.as_ref().map(|d| d.num_values),
            PageType::DICTIONARY_PAGE => h.dictionary_page_header.as_ref().map(|d| d.num_values),
            _ => None,
        }
    }

    /// The encoding of the page's values, when its header says.
    pub fn encoding(&self) -> Option<Encoding> {
        let h = &self.header;
        match h.type_ {
            PageType::DATA_PAGE => h.data_page_header.as_ref().map(|d| d.encoding),
            PageType::DATA_PAGE_V2 => h.data_page_header_v2.as_ref().map(|d| d.encoding),
            PageType::DICTIONARY_PAGE => h.dictionary_page_header.as_ref().map(|d| d.encoding),
            _ => None,
        }
    }

    /// The statistics in a data page header.
    pub fn statistics(&self) -> Option<&Statistics> {
        let h = &self.header;
        match h.type_ {
            PageType::DATA_PAGE => h.data_page_header.as_ref()?.statistics.as_ref(),
            PageType::DATA_PAGE_V2 => h.data_page_header_v2.as_ref()?.statistics.as_ref(),
            _ => None,
        }
    }
}

/// Reads the page header at the start of `bytes` (which begin at file offset `offset`)
/// and checks its sizes against the bytes present.
pub fn read_page_span(bytes: &Bytes, offset: u64) -> Result<PageSpan> {
    let mut reader = CompactReader::from_bytes(bytes).with_base_offset(offset);
    let header = PageHeader::read(&mut reader)?;
    let header_len = reader.position();
    let size = |value: i32, field: &str| {
        usize::try_from(value).map_err(|_| {
            Error::corrupt(format!(
                "page header at offset {offset}: {field} {value} is negative"
            ))
        })
    };
    let compressed_len = size(header.compressed_page_size, "compressed_page_size")?;
    let uncompressed_len = size(header.uncompressed_page_size, "uncompressed_page_size")?;
    let available = bytes.len() - header_len;
    if compressed_len > available {
        return Err(Error::corrupt(format!(
            "page header at offset {offset}: compressed_page_size {compressed_len} exceeds the {available} bytes left"
        )));
    }
    let body = bytes.slice(header_len..header_len + compressed_len);
    Ok(PageSpan {
        offset,
        header,
        header_len,
        compressed_len,
        uncompressed_len,
        body,
    })
}

/// Walks the pages of a column chunk's bytes, header after header, until the bytes
/// end. After an error it yields nothing more.
#[derive(Debug)]
pub struct PageWalker {
    chunk: Bytes,
    base: u64,
    position: usize,
    failed: bool,
}

impl PageWalker {
    /// A walker over `chunk`, whose first byte is at file offset `base`.
    pub fn new(chunk: Bytes, base: u64) -> Self {
        Self {
            chunk,
            base,
            position: 0,
            failed: false,
        }
    }

    /// File offset of the next page header.
    pub fn offset(&self) -> u64 {
        self.base + self.position as u64
    }

    /// Bytes not walked yet.
    pub fn remaining(&self) -> usize {
        self.chunk.len() - self.position
    }
}

impl Iterator for PageWalker {
    type Item = Result<PageSpan>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.position >= self.chunk.len() {
            return None;
        }
        let rest = self.chunk.slice(self.position..);
        match read_page_span(&rest, self.offset()) {
            Ok(span) => {
                self.position += span.header_len + span.compressed_len;
                Some(Ok(span))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}
