//! Page checksums: CRC32 (IEEE 802.3, the zlib/gzip polynomial) of a page's bytes.
//!
//! The spec computes the checksum over the page exactly as stored after its header:
//! the compressed bytes of a v1 or dictionary page, and for a v2 page the repetition
//! levels, definition levels and (possibly compressed) values as they are laid out one
//! after the other. The header's `crc` field holds it as a Thrift `i32` (same bits).
//!
//! ```
//! use herringbone_codec::crc;
//!
//! let page = b"123456789";
//! assert_eq!(crc::page_crc(page), 0xCBF4_3926);
//! crc::verify_page_crc(page, 0xCBF4_3926_u32 as i32).unwrap();
//! assert!(crc::verify_page_crc(page, 0).is_err());
//! ```

use crate::error::{Error, Result};

/// The CRC32 of a page's stored bytes (everything after its header).
pub fn page_crc(page_bytes: &[u8]) -> u32 {
    crc32fast::hash(page_bytes)
}

/// The CRC32 of a page stored as several consecutive sections (for example the levels
/// and values of a v2 page being written), as if they were one buffer.
pub fn page_crc_of_sections(sections: &[&[u8]]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    for section in sections {
        hasher.update(section);
    }
    hasher.finalize()
}

/// The value to store in `PageHeader.crc` for a checksum.
pub fn crc_header_value(crc: u32) -> i32 {
    i32::from_ne_bytes(crc.to_ne_bytes())
}

/// Checks a page's bytes against the `crc` field of its header.
///
/// Fails with [`ErrorKind::Checksum`](crate::ErrorKind::Checksum), giving both values;
/// the caller adds which page it was.
pub fn verify_page_crc(page_bytes: &[u8], header_crc: i32) -> Result<()> {
    let expected = u32::from_ne_bytes(header_crc.to_ne_bytes());
    let actual = page_crc(page_bytes);
    if actual == expected {
        Ok(())
    } else {
        Err(Error::checksum(format!(
            "page CRC32 mismatch: header says {expected:#010x}, the {} page bytes hash to {actual:#010x}",
            page_bytes.len()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn standard_check_values() {
        // The CRC-32/ISO-HDLC check value and the empty input.
        assert_eq!(page_crc(b"123456789"), 0xCBF4_3926);
        assert_eq!(page_crc(b""), 0);
        assert_eq!(
            page_crc(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }

    #[test]
    fn sections_hash_like_their_concatenation() {
        let whole = b"repetition|definition|values".as_slice();
        assert_eq!(
            page_crc_of_sections(&[&whole[..11], &whole[11..22], &[], &whole[22..]]),
            page_crc(whole)
        );
    }

    #[test]
    fn header_value_is_the_same_bits() {
        assert_eq!(crc_header_value(0xCBF4_3926), 0xCBF4_3926_u32 as i32);
        verify_page_crc(b"123456789", crc_header_value(0xCBF4_3926)).unwrap();
        let err = verify_page_crc(b"123456780", crc_header_value(0xCBF4_3926)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Checksum);
        assert!(err.to_string().contains("0xcbf43926"), "{err}");
    }
}
