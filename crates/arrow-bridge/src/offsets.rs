//! The one offset-width trait of the crate: Arrow's 32-bit offsets (`Utf8`, `Binary`,
//! `List`, `Map`) and 64-bit ones (`LargeUtf8`, `LargeBinary`, `LargeList`), for the
//! read side (offsets built as values are decoded) and the write side (offsets walked
//! as values are encoded).
//!
//! [`OffsetWidth`] joins Arrow's [`OffsetSizeTrait`] (what the arrays take) and the
//! codec's [`OffsetSize`] (what its byte-array decoders append), and says in errors
//! which type a value that does not fit should be read as.

use arrow_array::OffsetSizeTrait;
use herringbone_codec::encoding::OffsetSize;

use crate::error::{Error, ErrorKind, Result};

/// An Arrow offset type: `i32` or `i64`.
pub(crate) trait OffsetWidth: OffsetSizeTrait + OffsetSize {
    /// The Arrow types with these offsets, for messages ("Utf8 / Binary").
    const TYPES: &'static str;

    /// Fails when `bytes` bytes of values (or elements, for lists) in one batch do not
    /// fit offsets of this width.
    fn check_len(bytes: usize) -> Result<()> {
        if bytes <= Self::MAX_POSITION {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "{bytes} bytes of values in one batch do not fit the {}-bit offsets of \
                 {}; use a smaller batch size or read it as a Large type",
                8 * std::mem::size_of::<Self>(),
                Self::TYPES
            ),
        ))
    }
}

impl OffsetWidth for i32 {
    const TYPES: &'static str = "Utf8 / Binary / List";
}

impl OffsetWidth for i64 {
    const TYPES: &'static str = "LargeUtf8 / LargeBinary / LargeList";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_convert_both_ways_and_the_32_bit_limit_is_an_error() {
        assert_eq!(<i32 as OffsetSize>::from_position(7), 7i32);
        assert_eq!(OffsetSize::position(7i64), 7usize);
        assert!(i32::check_len(i32::MAX as usize).is_ok());
        let error = i32::check_len(i32::MAX as usize + 1).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded);
        let message = error.to_string();
        assert!(message.starts_with("2147483648 bytes"), "{message}");
        assert!(message.contains("Large type"), "{message}");
        assert!(i64::check_len(i32::MAX as usize + 1).is_ok());
    }
}
