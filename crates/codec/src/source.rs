//! Where a decoder reads its bytes from: a borrowed slice, or a shared [`Bytes`] that
//! the decoder owns.
//!
//! Every decoder of [`crate::rle`] and [`crate::encoding`] is generic over its
//! [`ByteSource`]. Over `&[u8]` (what `new` takes) a decoder borrows the caller's
//! buffer for one short piece of work. Over [`Bytes`] (what `from_source` takes) it
//! holds its page: a streaming reader keeps it from one batch to the next and decodes
//! a few values at a time, and the page stays alive exactly as long as a decoder needs
//! it. Slicing a `Bytes` shares it; nothing is copied either way.
//!
//! ```
//! use bytes::Bytes;
//! use herringbone_codec::rle::{RleDecoder, RleEncoder};
//! let mut encoder = RleEncoder::new(1);
//! encoder.put_run(1, 100);
//! let page = Bytes::from(encoder.finish());
//! // A decoder that owns its bytes can be kept in a struct between calls.
//! let mut decoder = RleDecoder::from_source(page, 1).unwrap();
//! assert_eq!(decoder.skip(60).unwrap(), 60);
//! assert_eq!(decoder.skip(60).unwrap(), 40);
//! ```

use std::ops::Range;

use bytes::Bytes;

/// Bytes a decoder reads: `&[u8]` (borrowed) or [`Bytes`] (shared, owned).
pub trait ByteSource: AsRef<[u8]> + Clone {
    /// The bytes `range` of this source, sharing them (`range` within the source).
    fn slice_range(&self, range: Range<usize>) -> Self;
}

impl ByteSource for &[u8] {
    #[inline]
    fn slice_range(&self, range: Range<usize>) -> Self {
        &self[range]
    }
}

impl ByteSource for Bytes {
    #[inline]
    fn slice_range(&self, range: Range<usize>) -> Self {
        self.slice(range)
    }
}
