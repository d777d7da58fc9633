//! Values from pages: one [`ValueKind`] per family of value buffers (see
//! [`super::values`]), each decoding the encodings its physical types allow, straight
//! into the batch's buffer, a few values at a time, with the codec's decoders.
//!
//! | kind              | buffer            | PLAIN | dictionary | DELTA_BINARY_PACKED | DELTA_LENGTH_BYTE_ARRAY | DELTA_BYTE_ARRAY | BYTE_STREAM_SPLIT | RLE |
//! |-------------------|-------------------|:-----:|:----------:|:---:|:---:|:---:|:---:|:---:|
//! | [`Booleans`]      | `Vec<bool>`       | ✓ | ✓ |   |   |   |   | ✓ |
//! | [`Fixed<T>`]      | `Vec<T>`          | ✓ | ✓ | INT32, INT64 |   |   | ✓ |   |
//! | [`FixedLenBytes`] | [`FixedBytes`]    | ✓ | ✓ |   |   | ✓ | ✓ |   |
//! | [`Decimals<S, D>`] | `Vec<D>`         | ✓ | ✓ | through `S` (INT32, INT64, FIXED_LEN_BYTE_ARRAY) |||||
//! | [`Binary<O>`]     | [`ByteArrays<O>`] | ✓ | ✓ |   | ✓ | ✓ |   |   |
//! | [`ViewBytes`]     | [`Views`]         | ✓ | ✓ |   | ✓ | ✓ |   |   |
//! | [`KeyedKind<K>`]  | [`Keyed`]         | dictionary-encoded pages as keys, others through `K` |||||||
//!
//! A page decoder owns its page ([`bytes::Bytes`], shared with the chunk when the page
//! was not compressed), so it lives from one batch to the next; skipping moves through
//! the page without writing values.
//!
//! [`FixedBytes`]: super::values::FixedBytes
//! [`ByteArrays<O>`]: super::values::ByteArrays
//! [`Views`]: super::values::Views
//! [`Keyed`]: super::values::Keyed

mod boolean;
mod byte_array;
pub(crate) mod decimal;
mod fixed;
mod fixed_len;
mod keyed;
mod view;

use std::sync::Arc;

use bytes::Bytes;
use herringbone_format::metadata::Encoding;

pub(crate) use boolean::Booleans;
pub(crate) use byte_array::Binary;
pub(crate) use decimal::Decimals;
pub(crate) use fixed::Fixed;
pub(crate) use fixed_len::FixedLenBytes;
pub(crate) use keyed::KeyedKind;
pub(crate) use view::ViewBytes;

use super::budget::Budget;
use super::values::ValueBuffer;
use crate::error::{Error, Result};

/// A family of value buffers and how pages decode into them.
pub(crate) trait ValueKind: Send + std::fmt::Debug + 'static {
    /// The values of one batch.
    type Buffer: ValueBuffer;
    /// A chunk's decoded dictionary page.
    type Dictionary: Send + Sync + std::fmt::Debug + 'static;
    /// A data page's values, being decoded.
    type Page: Send + std::fmt::Debug;

    /// An empty buffer.
    fn buffer(&self) -> Self::Buffer;

    /// Room for `values` more values in `out`, charged to `budget`: all their bytes for
    /// fixed widths, their offsets or views for byte arrays (whose bytes are charged
    /// as they are decoded). [`Self::read`] expects it.
    fn reserve(&self, out: &mut Self::Buffer, values: usize, budget: &mut Budget) -> Result<()>;

    /// Decodes a dictionary page of `num_values` PLAIN values.
    fn dictionary(&self, page: Bytes, num_values: usize) -> Result<Self::Dictionary>;

    /// The decoder of a data page's values section, in a page of `entries` level
    /// entries (values and nulls): what an estimate of the values' bytes divides by.
    fn page(
        &self,
        encoding: Encoding,
        values: Bytes,
        entries: usize,
        dictionary: Option<&Arc<Self::Dictionary>>,
    ) -> Result<Self::Page>;

    /// Appends the page's next `n` values to `out` (room reserved with
    /// [`Self::reserve`]); fewer in the page is an error.
    fn read(
        &self,
        page: &mut Self::Page,
        n: usize,
        out: &mut Self::Buffer,
        budget: &mut Budget,
    ) -> Result<()>;

    /// Moves past the page's next `n` values without writing them.
    fn skip(&self, page: &mut Self::Page, n: usize) -> Result<()>;
}

/// Fails unless a decoder that was asked for `wanted` values gave them all.
pub(crate) fn check_count(got: usize, wanted: usize) -> Result<()> {
    if got == wanted {
        Ok(())
    } else {
        Err(Error::corrupt(format!(
            "page holds {got} values where its definition levels need {wanted}"
        )))
    }
}

/// The error of an encoding a physical type does not allow (or this version cannot
/// read).
pub(crate) fn bad_encoding(encoding: Encoding, physical: &str) -> Error {
    Error::unsupported(format!("encoding {encoding:?} for {physical} values"))
}

/// The dictionary of a dictionary-encoded page, or the error of a chunk without one.
pub(crate) fn require_dictionary<D>(dictionary: Option<&Arc<D>>) -> Result<Arc<D>> {
    dictionary
        .cloned()
        .ok_or_else(|| Error::corrupt("dictionary-encoded page without a dictionary page"))
}

/// Whether `encoding` is one of the two dictionary encodings.
pub(crate) fn is_dictionary(encoding: Encoding) -> bool {
    matches!(
        encoding,
        Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
    )
}

/// Fails unless a dictionary page's encoding is PLAIN (or PLAIN_DICTIONARY, which old
/// writers put there).
pub(crate) fn check_dictionary_encoding(encoding: Encoding) -> Result<()> {
    if encoding == Encoding::PLAIN || encoding == Encoding::PLAIN_DICTIONARY {
        Ok(())
    } else {
        Err(Error::unsupported(format!(
            "dictionary page encoding {encoding:?}"
        )))
    }
}
