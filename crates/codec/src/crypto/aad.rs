//! Additional authenticated data (AAD) of each module: the file AAD (AAD prefix, then
//! `aad_file_unique`) followed by a suffix naming the module.
//!
//! | module | type | row group | column | page |
//! |---|---|---|---|---|
//! | footer | 0 | | | |
//! | ColumnMetaData | 1 | yes | yes | |
//! | data page | 2 | yes | yes | yes |
//! | dictionary page | 3 | yes | yes | |
//! | data page header | 4 | yes | yes | yes |
//! | dictionary page header | 5 | yes | yes | |
//! | ColumnIndex | 6 | yes | yes | |
//! | OffsetIndex | 7 | yes | yes | |
//! | Bloom filter header | 8 | yes | yes | |
//! | Bloom filter bitset | 9 | yes | yes | |
//!
//! The type is one byte; each ordinal is a 2-byte little-endian short, so row groups,
//! columns and pages past 32,767 cannot be encrypted (and are refused on read).
//!
//! ```
//! use herringbone_codec::crypto::{ModuleType, module_aad};
//! let aad = module_aad(b"file", ModuleType::DataPage, 1, 2, Some(3)).unwrap();
//! assert_eq!(aad, b"file\x02\x01\x00\x02\x00\x03\x00");
//! assert!(module_aad(b"file", ModuleType::DataPage, 0, 0, Some(40_000)).is_err());
//! ```

use std::fmt;

use crate::error::{Error, Result};

/// The kind of an encrypted module, as its AAD suffix names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModuleType {
    /// The footer (`FileMetaData`), encrypted or signed.
    Footer,
    /// A column chunk's `ColumnMetaData` (`encrypted_column_metadata`).
    ColumnMetaData,
    /// A data page body.
    DataPage,
    /// A dictionary page body.
    DictionaryPage,
    /// A data page header.
    DataPageHeader,
    /// A dictionary page header.
    DictionaryPageHeader,
    /// A column chunk's `ColumnIndex`.
    ColumnIndex,
    /// A column chunk's `OffsetIndex`.
    OffsetIndex,
    /// A Bloom filter header.
    BloomFilterHeader,
    /// A Bloom filter bitset.
    BloomFilterBitset,
}

impl ModuleType {
    /// The module type byte of the AAD suffix.
    pub fn id(self) -> u8 {
        match self {
            ModuleType::Footer => 0,
            ModuleType::ColumnMetaData => 1,
            ModuleType::DataPage => 2,
            ModuleType::DictionaryPage => 3,
            ModuleType::DataPageHeader => 4,
            ModuleType::DictionaryPageHeader => 5,
            ModuleType::ColumnIndex => 6,
            ModuleType::OffsetIndex => 7,
            ModuleType::BloomFilterHeader => 8,
            ModuleType::BloomFilterBitset => 9,
        }
    }

    /// Whether the AAD suffix carries a page ordinal (data pages and their headers).
    pub fn has_page_ordinal(self) -> bool {
        matches!(self, ModuleType::DataPage | ModuleType::DataPageHeader)
    }

    /// Whether the module is a page body (CTR-encrypted under `AES_GCM_CTR_V1`).
    pub fn is_page(self) -> bool {
        matches!(self, ModuleType::DataPage | ModuleType::DictionaryPage)
    }

    fn name(self) -> &'static str {
        match self {
            ModuleType::Footer => "footer",
            ModuleType::ColumnMetaData => "column metadata",
            ModuleType::DataPage => "data page",
            ModuleType::DictionaryPage => "dictionary page",
            ModuleType::DataPageHeader => "data page header",
            ModuleType::DictionaryPageHeader => "dictionary page header",
            ModuleType::ColumnIndex => "column index",
            ModuleType::OffsetIndex => "offset index",
            ModuleType::BloomFilterHeader => "Bloom filter header",
            ModuleType::BloomFilterBitset => "Bloom filter bitset",
        }
    }
}

impl fmt::Display for ModuleType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The largest ordinal an AAD suffix can carry (a signed 16-bit short).
pub const MAX_ORDINAL: usize = i16::MAX as usize;

fn ordinal(value: usize, what: &str) -> Result<[u8; 2]> {
    if value > MAX_ORDINAL {
        return Err(Error::unsupported(format!(
            "{what} ordinal {value} exceeds {MAX_ORDINAL}: encrypted files hold at most {} {what}s per {}",
            MAX_ORDINAL + 1,
            if what == "page" {
                "column chunk"
            } else if what == "column" {
                "row group"
            } else {
                "file"
            }
        )));
    }
    Ok((value as u16).to_le_bytes())
}

/// The AAD of a module: `file_aad`, the module type and, except for the footer, the row
/// group and column ordinals, then for data pages and their headers the page ordinal
/// (`page` is ignored for other modules and required for those two).
pub fn module_aad(
    file_aad: &[u8],
    module: ModuleType,
    row_group: usize,
    column: usize,
    page: Option<usize>,
) -> Result<Vec<u8>> {
    let mut aad = Vec::with_capacity(file_aad.len() + 7);
    aad.extend_from_slice(file_aad);
    aad.push(module.id());
    if module == ModuleType::Footer {
        return Ok(aad);
    }
    aad.extend_from_slice(&ordinal(row_group, "row group")?);
    aad.extend_from_slice(&ordinal(column, "column")?);
    if module.has_page_ordinal() {
        let page = page.ok_or_else(|| {
            Error::invalid_argument(format!("the AAD of a {module} needs a page ordinal"))
        })?;
        aad.extend_from_slice(&ordinal(page, "page")?);
    }
    Ok(aad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_layout_per_module() {
        let file = b"prefixUNIQ";
        assert_eq!(
            module_aad(file, ModuleType::Footer, 9, 9, Some(9)).unwrap(),
            b"prefixUNIQ\x00"
        );
        assert_eq!(
            module_aad(file, ModuleType::ColumnMetaData, 258, 3, None).unwrap(),
            b"prefixUNIQ\x01\x02\x01\x03\x00"
        );
        assert_eq!(
            module_aad(file, ModuleType::DictionaryPage, 0, 1, Some(7)).unwrap(),
            b"prefixUNIQ\x03\x00\x00\x01\x00"
        );
        assert_eq!(
            module_aad(file, ModuleType::DataPageHeader, 0, 1, Some(32_767)).unwrap(),
            b"prefixUNIQ\x04\x00\x00\x01\x00\xff\x7f"
        );
        for (module, id) in [
            (ModuleType::DictionaryPageHeader, 5),
            (ModuleType::ColumnIndex, 6),
            (ModuleType::OffsetIndex, 7),
            (ModuleType::BloomFilterHeader, 8),
            (ModuleType::BloomFilterBitset, 9),
        ] {
            assert_eq!(
                module_aad(b"", module, 1, 0, None).unwrap(),
                [id, 1, 0, 0, 0]
            );
        }
    }

    #[test]
    fn ordinals_past_a_short_are_refused() {
        let e = module_aad(b"", ModuleType::DataPage, 0, 0, Some(32_768)).unwrap_err();
        assert!(
            e.message().contains("page ordinal 32768 exceeds 32767"),
            "{e}"
        );
        let e = module_aad(b"", ModuleType::ColumnIndex, 40_000, 0, None).unwrap_err();
        assert!(e.message().contains("row group ordinal 40000"), "{e}");
        let e = module_aad(b"", ModuleType::ColumnIndex, 0, 32_768, None).unwrap_err();
        assert!(e.message().contains("column ordinal 32768"), "{e}");
        assert!(module_aad(b"", ModuleType::DataPage, 0, 0, None).is_err());
    }
}
