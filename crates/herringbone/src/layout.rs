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
use herringbone_codec::crypto::{ColumnDecryptor, ModuleType};
use herringbone_codec::{Error, Result};
use herringbone_format::metadata::{Encoding, PageHeader, PageType, Statistics};
use herringbone_format::thrift::{CompactReader, CompactWriter, ThriftStruct};

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
    /// For a page of an encrypted chunk walked with its keys
    /// ([`PageWalker::with_decryptor`]): the page as a plaintext page (its decrypted
    /// header, without CRC and sized to the decrypted body, then that body), or why the
    /// body's module did not decrypt (its tag does not authenticate). `None` for a
    /// plaintext page and for pages other than data and dictionary pages.
    pub plaintext: Option<std::result::Result<Bytes, String>>,
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
        plaintext: None,
    })
}

/// Reads the encrypted page header module at the start of `bytes` (file offset
/// `offset`), checks the page's sizes and decrypts its body module.
fn read_encrypted_span(
    bytes: &Bytes,
    offset: u64,
    decryption: &WalkDecryption,
) -> Result<PageSpan> {
    let decryptor = &decryption.decryptor;
    let (header_module, ordinal) = if decryption.index == 0 && decryption.dictionary_first {
        (ModuleType::DictionaryPageHeader, None)
    } else {
        (ModuleType::DataPageHeader, Some(decryption.data_pages))
    };
    let (plain, header_len) = decryptor
        .decrypt_prefix(header_module, ordinal, bytes)
        .map_err(|e| e.context(format!("page header at offset {offset}")))?;
    let plain = Bytes::from(plain);
    let mut reader = CompactReader::from_bytes(&plain);
    let header = PageHeader::read(&mut reader).map_err(|e| {
        Error::from(e).context(format!("decrypted {header_module} at offset {offset}"))
    })?;
    let size = |value: i32, field: &str| {
        usize::try_from(value).map_err(|_| {
            Error::corrupt(format!(
                "page header at offset {offset}: {field} {value} is negative"
            ))
        })
    };
    let body_module = match header.type_ {
        PageType::DICTIONARY_PAGE => Some(ModuleType::DictionaryPage),
        PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => Some(ModuleType::DataPage),
        _ => None,
    };
    let mut compressed_len = size(header.compressed_page_size, "compressed_page_size")?;
    let uncompressed_len = size(header.uncompressed_page_size, "uncompressed_page_size")?;
    // DuckDB 2.0's compressed_page_size counts the plaintext: the module's own length
    // field sizes the body (as the page reader does).
    if let Some(module) = body_module
        && decryptor.is_empty_aad()
    {
        compressed_len = decryptor.module_size(module, &bytes[header_len..])?;
    }
    let available = bytes.len() - header_len;
    if compressed_len > available {
        return Err(Error::corrupt(format!(
            "page header at offset {offset}: compressed_page_size {compressed_len} exceeds the {available} bytes left"
        )));
    }
    let body = bytes.slice(header_len..header_len + compressed_len);
    let plaintext = body_module.map(|module| {
        let ordinal = (module == ModuleType::DataPage).then_some(decryption.data_pages);
        decryptor
            .decrypt(module, ordinal, &body)
            .map(|plain_body| {
                let mut page_header = header.clone();
                page_header.crc = None;
                page_header.compressed_page_size =
                    i32::try_from(plain_body.len()).unwrap_or(i32::MAX);
                let mut writer = CompactWriter::new();
                page_header.write(&mut writer);
                let mut page = writer.into_inner();
                page.extend_from_slice(&plain_body);
                Bytes::from(page)
            })
            .map_err(|e| e.to_string())
    });
    Ok(PageSpan {
        offset,
        header,
        header_len,
        compressed_len,
        uncompressed_len,
        body,
        plaintext,
    })
}

/// The state of walking an encrypted chunk: which module comes next.
#[derive(Debug)]
struct WalkDecryption {
    decryptor: ColumnDecryptor,
    /// Whether the chunk starts with a dictionary page.
    dictionary_first: bool,
    /// Index of the next page.
    index: usize,
    /// Ordinal of the next data page (the AADs count data pages only).
    data_pages: usize,
}

/// Walks the pages of a column chunk's bytes, header after header, until the bytes
/// end. After an error it yields nothing more.
#[derive(Debug)]
pub struct PageWalker {
    chunk: Bytes,
    base: u64,
    position: usize,
    failed: bool,
    decryption: Option<WalkDecryption>,
}

impl PageWalker {
    /// A walker over `chunk`, whose first byte is at file offset `base`.
    pub fn new(chunk: Bytes, base: u64) -> Self {
        Self {
            chunk,
            base,
            position: 0,
            failed: false,
            decryption: None,
        }
    }

    /// Walks an encrypted chunk: each page header module is decrypted (a header that
    /// does not authenticate ends the walk with an error), each page's body module too
    /// ([`PageSpan::plaintext`]). `dictionary_first`: the chunk starts with a dictionary
    /// page (its metadata has a `dictionary_page_offset` before the first data page).
    pub fn with_decryptor(mut self, decryptor: ColumnDecryptor, dictionary_first: bool) -> Self {
        self.decryption = Some(WalkDecryption {
            decryptor,
            dictionary_first,
            index: 0,
            data_pages: 0,
        });
        self
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
        let span = match &self.decryption {
            None => read_page_span(&rest, self.offset()),
            Some(decryption) => read_encrypted_span(&rest, self.offset(), decryption),
        };
        match span {
            Ok(span) => {
                self.position += span.header_len + span.compressed_len;
                if let Some(decryption) = &mut self.decryption {
                    decryption.index += 1;
                    if span.is_data() {
                        decryption.data_pages += 1;
                    }
                }
                Some(Ok(span))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}
