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

use super::plain::copy_value;
use super::{Growth, OffsetSize, check_room, start_offsets};
use crate::error::{Error, Result};
use crate::rle::{LengthPrefix, RleDecoder, Run};
use crate::source::ByteSource;

pub use crate::rle::{check_indices, index_error};

/// The bit width the reference writers use for a dictionary of `len` values: the bits
/// of the largest index (0 for a dictionary of 0 or 1 values).
pub fn bit_width_for(len: usize) -> usize {
    let max_index = len.saturating_sub(1) as u64;
    (64 - max_index.leading_zeros()) as usize
}

/// Decoder of the indices of a dictionary-encoded data page, over a borrowed slice
/// ([`DictionaryIndexDecoder::new`]) or a [`ByteSource`] it owns
/// ([`DictionaryIndexDecoder::from_source`]).
#[derive(Debug, Clone)]
pub struct DictionaryIndexDecoder<S: ByteSource> {
    rle: RleDecoder<S>,
}

impl<'a> DictionaryIndexDecoder<&'a [u8]> {
    /// A decoder over a data page's values section (bit-width byte, then runs).
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::from_source(data)
    }
}

impl<S: ByteSource> DictionaryIndexDecoder<S> {
    /// [`DictionaryIndexDecoder::new`] over any [`ByteSource`].
    pub fn from_source(data: S) -> Result<Self> {
        Ok(Self {
            rle: RleDecoder::from_source_for_dictionary_indices(data)?,
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

    /// Appends up to `n` indices to `out`, each checked against `dictionary_len`;
    /// returns how many (fewer only at the end of the data). On error nothing is
    /// guaranteed about what was appended.
    pub fn append_checked(
        &mut self,
        n: usize,
        dictionary_len: usize,
        out: &mut Vec<u32>,
    ) -> Result<usize> {
        let start = out.len();
        let got = self.rle.append(n, out)?;
        check_indices(&out[start..], dictionary_len)?;
        Ok(got)
    }

    /// The next run of indices (at most `max`): a repeated index costs O(1).
    pub fn next_run(&mut self, max: usize) -> Result<Option<Run<'_>>> {
        self.rle.next_run(max)
    }

    /// Decodes up to `out.len()` indices and writes the dictionary values they address
    /// (for fixed-width values); an out-of-range index is an error.
    pub fn gather<V: Copy>(&mut self, dictionary: &[V], out: &mut [V]) -> Result<usize> {
        self.rle.get_batch_with_dictionary(dictionary, out)
    }

    /// Appends the dictionary values up to `n` indices address (fixed-width values),
    /// without zero-filling `out` first; an out-of-range index is an error. Returns how
    /// many were appended (fewer only at the end of the data).
    pub fn append_gathered<V: Copy>(
        &mut self,
        dictionary: &[V],
        n: usize,
        out: &mut Vec<V>,
    ) -> Result<usize> {
        self.rle.append_with_dictionary(dictionary, n, out)
    }

    /// As [`Self::append_gathered`], each value converted by `convert` as it is
    /// appended (a dictionary kept narrower than the values it is read as).
    pub fn append_gathered_converted<V: Copy, W: Copy>(
        &mut self,
        dictionary: &[V],
        n: usize,
        out: &mut Vec<W>,
        convert: impl Fn(V) -> W,
    ) -> Result<usize> {
        self.rle
            .append_converted_with_dictionary(dictionary, n, out, convert)
    }

    /// Appends the byte-array dictionary values up to `n` indices address: value `i`
    /// of the dictionary is `dictionary_data[offsets[i]..offsets[i + 1]]`. Bytes go to
    /// `values` and end offsets to `offsets` (which gets the start offset first if it
    /// is empty). A repeated index is one check and `count` copies; `values` may not
    /// grow past `max_bytes` ([`ErrorKind::LimitExceeded`](crate::ErrorKind), checked
    /// before the copies are made, so that a few bytes of runs cannot claim unbounded
    /// memory). Returns how many values were appended (fewer only at the end of the
    /// data).
    ///
    /// Copies are fastest when `dictionary_data` has at least
    /// [`SHORT_VALUE`](super::plain::SHORT_VALUE) bytes after its last value (padding
    /// the caller adds once per dictionary).
    pub fn append_byte_arrays<O: OffsetSize>(
        &mut self,
        dictionary_offsets: &[O],
        dictionary_data: &[u8],
        n: usize,
        max_bytes: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<usize> {
        start_offsets(offsets, values)?;
        let dictionary_len = dictionary_offsets.len().saturating_sub(1);
        let mut indices = [0u32; 1024];
        let mut done = 0;
        offsets.reserve(n.min(1 << 16));
        let start_len = values.len();
        while done < n {
            match self.rle.next_run((n - done).min(indices.len()))? {
                None => break,
                Some(Run::Repeated { value, count }) => {
                    let index = usize::try_from(value)
                        .ok()
                        .filter(|&i| i < dictionary_len)
                        .ok_or_else(|| index_error(value, dictionary_len))?;
                    let start = dictionary_offsets[index].position();
                    let len = dictionary_offsets[index + 1].position() - start;
                    check_room(values.len(), len.saturating_mul(count), max_bytes)?;
                    let growth = Growth {
                        start_len,
                        done,
                        n,
                        max_bytes,
                    };
                    growth.reserve(values, len * count, count);
                    for _ in 0..count {
                        copy_value(dictionary_data, start, len, values);
                        offsets.push(O::from_position(values.len()));
                    }
                    done += count;
                }
                Some(Run::BitPacked(run)) => {
                    let indices = &mut indices[..run.len()];
                    run.unpack_into(indices)?;
                    check_indices(indices, dictionary_len)?;
                    let mut total = 0usize;
                    for &i in indices.iter() {
                        let i = i as usize;
                        total +=
                            dictionary_offsets[i + 1].position() - dictionary_offsets[i].position();
                    }
                    check_room(values.len(), total, max_bytes)?;
                    let growth = Growth {
                        start_len,
                        done,
                        n,
                        max_bytes,
                    };
                    growth.reserve(values, total, indices.len());
                    for &i in indices.iter() {
                        let i = i as usize;
                        let start = dictionary_offsets[i].position();
                        let len = dictionary_offsets[i + 1].position() - start;
                        copy_value(dictionary_data, start, len, values);
                        offsets.push(O::from_position(values.len()));
                    }
                    done += indices.len();
                }
            }
        }
        O::check_position(values.len())?;
        Ok(done)
    }

    /// Appends the FIXED_LEN_BYTE_ARRAY dictionary values (each `width` bytes, back to
    /// back in `dictionary`) up to `n` indices address; `out` may not grow past
    /// `max_bytes` (checked before copying). Returns how many values were appended.
    pub fn append_fixed_bytes(
        &mut self,
        dictionary: &[u8],
        width: usize,
        n: usize,
        max_bytes: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        if width == 0 {
            return Err(Error::invalid_argument(
                "FIXED_LEN_BYTE_ARRAY width must be positive",
            ));
        }
        let dictionary_len = dictionary.len() / width;
        let mut indices = [0u32; 1024];
        let mut done = 0;
        while done < n {
            match self.rle.next_run((n - done).min(indices.len()))? {
                None => break,
                Some(Run::Repeated { value, count }) => {
                    let index = usize::try_from(value)
                        .ok()
                        .filter(|&i| i < dictionary_len)
                        .ok_or_else(|| index_error(value, dictionary_len))?;
                    check_room(out.len(), width.saturating_mul(count), max_bytes)?;
                    let value = &dictionary[index * width..(index + 1) * width];
                    out.reserve(width * count);
                    for _ in 0..count {
                        out.extend_from_slice(value);
                    }
                    done += count;
                }
                Some(Run::BitPacked(run)) => {
                    let indices = &mut indices[..run.len()];
                    run.unpack_into(indices)?;
                    check_indices(indices, dictionary_len)?;
                    check_room(out.len(), width * indices.len(), max_bytes)?;
                    gather_fixed(dictionary, width, indices, out);
                    done += indices.len();
                }
            }
        }
        Ok(done)
    }

    /// Skips up to `n` indices (a run at a time, nothing unpacked).
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.rle.skip(n)
    }
}

/// Appends the `width`-byte dictionary values `indices` address (checked against the
/// dictionary's length). Widths up to 16 bytes (decimals, UUIDs, float16) copy with a
/// loop compiled for the width: a fixed-size move per value, not a `memcpy` call.
fn gather_fixed(dictionary: &[u8], width: usize, indices: &[u32], out: &mut Vec<u8>) {
    out.reserve(width * indices.len());
    match width {
        1 => gather_width::<1>(dictionary, indices, out),
        2 => gather_width::<2>(dictionary, indices, out),
        3 => gather_width::<3>(dictionary, indices, out),
        4 => gather_width::<4>(dictionary, indices, out),
        5 => gather_width::<5>(dictionary, indices, out),
        6 => gather_width::<6>(dictionary, indices, out),
        7 => gather_width::<7>(dictionary, indices, out),
        8 => gather_width::<8>(dictionary, indices, out),
        9 => gather_width::<9>(dictionary, indices, out),
        10 => gather_width::<10>(dictionary, indices, out),
        11 => gather_width::<11>(dictionary, indices, out),
        12 => gather_width::<12>(dictionary, indices, out),
        13 => gather_width::<13>(dictionary, indices, out),
        14 => gather_width::<14>(dictionary, indices, out),
        15 => gather_width::<15>(dictionary, indices, out),
        16 => gather_width::<16>(dictionary, indices, out),
        _ => {
            for &i in indices {
                let i = i as usize;
                out.extend_from_slice(&dictionary[i * width..(i + 1) * width]);
            }
        }
    }
}

fn gather_width<const W: usize>(dictionary: &[u8], indices: &[u32], out: &mut Vec<u8>) {
    let (values, _) = dictionary.as_chunks::<W>();
    for &i in indices {
        out.extend_from_slice(&values[i as usize]);
    }
}

/// Appends a data page's dictionary indices: the bit width for `dictionary_len`
/// ([`bit_width_for`]) as one byte, then the RLE / bit-packed indices.
pub fn encode_indices(indices: &[u32], dictionary_len: usize, out: &mut Vec<u8>) {
    let width = bit_width_for(dictionary_len).min(32);
    out.push(width as u8);
    crate::rle::encode_values(indices, width, LengthPrefix::Without, out);
}
