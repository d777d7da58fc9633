//! Dictionary encoding (PLAIN_DICTIONARY / RLE_DICTIONARY).
//!
//! The dictionary page holds the distinct values PLAIN-encoded ([`super::plain`]); a
//! data page holds one byte of bit width (0..=32) followed by the indices in the
//! RLE / bit-packing hybrid ([`crate::rle`]), without a length prefix.
//!
//! ```
//! use herringbone_codec::encoding::dictionary::{self, DictionaryIndexDecoder};
//! let mut page = Vec::new();
//! dictionary::encode_indices(&[2, 0, 0, 1], 3, &mut page);
//! let mut decoder = DictionaryIndexDecoder::new(&page).unwrap();
//! let mut values = [0i64; 4];
//! assert_eq!(decoder.gather(&[10, 20, 30], &mut values).unwrap(), 4);
//! assert_eq!(values, [30, 10, 10, 20]);
//! ```

use crate::error::{Error, Result};
use crate::rle::{LengthPrefix, RleDecoder, Run};

/// The bit width the reference writers use for a dictionary of `len` values: the bits
/// of the largest index (0 for a dictionary of 0 or 1 values).
pub fn bit_width_for(len: usize) -> usize {
    let max_index = len.saturating_sub(1) as u64;
    (64 - max_index.leading_zeros()) as usize
}

/// Checks that every index addresses a dictionary of `dictionary_len` values.
pub fn check_indices(indices: &[u32], dictionary_len: usize) -> Result<()> {
    // A branch-free max lets the compiler vectorise; the error path finds the position.
    let max = indices.iter().copied().fold(0u32, u32::max);
    if !indices.is_empty() && max as usize >= dictionary_len {
        let at = indices
            .iter()
            .position(|&i| i as usize >= dictionary_len)
            .unwrap_or(0);
        return Err(Error::corrupt(format!(
            "dictionary index {} at position {at} out of range for a dictionary of {dictionary_len} values",
            indices[at]
        )));
    }
    Ok(())
}

/// Decoder of the indices of a dictionary-encoded data page.
#[derive(Debug, Clone)]
pub struct DictionaryIndexDecoder<'a> {
    rle: RleDecoder<'a>,
}

impl<'a> DictionaryIndexDecoder<'a> {
    /// A decoder over a data page's values section (bit-width byte, then runs).
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Ok(Self {
            rle: RleDecoder::for_dictionary_indices(data)?,
        })
    }

    /// Bit width declared by the page.
    pub fn bit_width(&self) -> usize {
        self.rle.bit_width()
    }

    /// Decodes up to `out.len()` indices without checking them against a dictionary.
    pub fn decode(&mut self, out: &mut [u32]) -> Result<usize> {
        self.rle.get_batch(out)
    }

    /// Decodes up to `out.len()` indices, checking each against `dictionary_len`.
    pub fn decode_checked(&mut self, out: &mut [u32], dictionary_len: usize) -> Result<usize> {
        let n = self.rle.get_batch(out)?;
        check_indices(&out[..n], dictionary_len)?;
        Ok(n)
    }

    /// The next run of indices (at most `max`): a repeated index costs O(1).
    pub fn next_run(&mut self, max: usize) -> Result<Option<Run<'a>>> {
        self.rle.next_run(max)
    }

    /// Decodes up to `out.len()` indices and writes the dictionary values they address
    /// (for fixed-width values); an out-of-range index is an error.
    pub fn gather<V: Copy>(&mut self, dictionary: &[V], out: &mut [V]) -> Result<usize> {
        self.rle.get_batch_with_dictionary(dictionary, out)
    }

    /// Skips up to `n` indices.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.rle.skip(n)
    }
}

/// Appends a data page's dictionary indices: the bit width for `dictionary_len`
/// ([`bit_width_for`]) as one byte, then the RLE / bit-packed indices.
pub fn encode_indices(indices: &[u32], dictionary_len: usize, out: &mut Vec<u8>) {
    let width = bit_width_for(dictionary_len).min(32);
    out.push(width as u8);
    crate::rle::encode_values(indices, width, LengthPrefix::Without, out);
}
