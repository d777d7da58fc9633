//! PLAIN: values back to back. Fixed-width types little-endian, BOOLEAN bit-packed
//! LSB-first, BYTE_ARRAY as a 4-byte little-endian length then the bytes,
//! FIXED_LEN_BYTE_ARRAY as the bytes. Dictionary pages use PLAIN as well.
//!
//! ```
//! use herringbone_codec::encoding::plain::{self, PlainDecoder};
//! let mut page = Vec::new();
//! plain::encode_byte_array(&["hi", "", "there"], &mut page).unwrap();
//! let mut decoder = PlainDecoder::new(&page);
//! decoder.skip_byte_array(1).unwrap();
//! let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
//! assert_eq!(decoder.decode_byte_array(5, &mut offsets, &mut values).unwrap(), 2);
//! assert_eq!(offsets, [0, 0, 5]);
//! assert_eq!(values, b"there");
//! ```

use super::{FixedWidth, Growth, OffsetSize, check_room, start_offsets};
use crate::error::{Error, Result};
use crate::source::ByteSource;

/// Byte-array values up to this many bytes are copied as one block of this size (when
/// the source has that many bytes after the value's start) rather than by a copy call
/// per value; a dictionary padded with this many bytes after its last value copies
/// every short value that way.
pub const SHORT_VALUE: usize = 32;

/// Appends `source[start..start + len]` to `out`. A short value with at least
/// [`SHORT_VALUE`] bytes after its start is copied as one fixed-size block (a couple of
/// vector moves, not a `memcpy` call) and the bytes past it cut off again.
#[inline(always)]
pub(crate) fn copy_value(source: &[u8], start: usize, len: usize, out: &mut Vec<u8>) {
    let end = out.len() + len;
    match source.get(start..start + SHORT_VALUE) {
        Some(block) if len <= SHORT_VALUE => {
            out.extend_from_slice(block);
            out.truncate(end);
        }
        _ => out.extend_from_slice(&source[start..start + len]),
    }
}

/// Decoder of PLAIN values of every type except BOOLEAN (see [`PlainBooleanDecoder`]),
/// over a borrowed slice ([`PlainDecoder::new`]) or a [`ByteSource`] it owns
/// ([`PlainDecoder::from_source`]).
///
/// Each method decodes or skips up to the number asked and returns how many values it
/// handled: fewer only when the data ends. Malformed data (a length running past the
/// end) is an error.
#[derive(Debug, Clone)]
pub struct PlainDecoder<S: ByteSource> {
    data: S,
    pos: usize,
    /// BYTE_ARRAY values (or entries, nulls counted) left in the data, when the caller
    /// said: what sizes the output reserved for a few of them.
    values_left: Option<usize>,
}

impl<'a> PlainDecoder<&'a [u8]> {
    /// A decoder over the values section of a page.
    pub fn new(data: &'a [u8]) -> Self {
        Self::from_source(data)
    }
}

impl<S: ByteSource> PlainDecoder<S> {
    /// [`PlainDecoder::new`] over any [`ByteSource`].
    pub fn from_source(data: S) -> Self {
        Self {
            data,
            pos: 0,
            values_left: None,
        }
    }

    /// Says how many BYTE_ARRAY values the data holds (at most: a page's entry count,
    /// nulls included, will do), so that [`PlainDecoder::append_byte_arrays`] reserves
    /// for `n` values their share of the bytes left instead of a guess.
    pub fn with_value_count(mut self, values: usize) -> Self {
        self.values_left = Some(values);
        self
    }

    /// The bytes the decoder reads.
    pub fn data(&self) -> &S {
        &self.data
    }

    /// Byte offset of the next value in the data.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    pub fn remaining_bytes(&self) -> usize {
        self.data.as_ref().len() - self.pos
    }

    /// Decodes up to `out.len()` fixed-width values (INT32, INT64, INT96, FLOAT, DOUBLE).
    pub fn decode_fixed<T: FixedWidth>(&mut self, out: &mut [T]) -> Result<usize> {
        let n = out.len().min(self.remaining_bytes() / T::SIZE);
        let bytes = &self.data.as_ref()[self.pos..self.pos + n * T::SIZE];
        for (value, chunk) in out[..n].iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
            *value = T::from_le_slice(chunk);
        }
        self.pos += n * T::SIZE;
        Ok(n)
    }

    /// Appends up to `n` fixed-width values to `out`; returns how many. Unlike
    /// [`Self::decode_fixed`] the output needs no zero-filling first: the values are
    /// written once, straight after the vector's length.
    pub fn append_fixed<T: FixedWidth>(&mut self, n: usize, out: &mut Vec<T>) -> usize {
        let n = n.min(self.remaining_bytes() / T::SIZE);
        let bytes = &self.data.as_ref()[self.pos..self.pos + n * T::SIZE];
        out.extend(bytes.chunks_exact(T::SIZE).map(T::from_le_slice));
        self.pos += n * T::SIZE;
        n
    }

    /// Skips up to `n` fixed-width values.
    pub fn skip_fixed<T: FixedWidth>(&mut self, n: usize) -> Result<usize> {
        self.skip_flba(T::SIZE, n)
    }

    /// Appends up to `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes to `out`.
    pub fn decode_flba(&mut self, width: usize, n: usize, out: &mut Vec<u8>) -> Result<usize> {
        let n = self.flba_count(width, n)?;
        out.extend_from_slice(&self.data.as_ref()[self.pos..self.pos + n * width]);
        self.pos += n * width;
        Ok(n)
    }

    /// Skips up to `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes.
    pub fn skip_flba(&mut self, width: usize, n: usize) -> Result<usize> {
        let n = self.flba_count(width, n)?;
        self.pos += n * width;
        Ok(n)
    }

    fn flba_count(&self, width: usize, n: usize) -> Result<usize> {
        if width == 0 {
            return Err(Error::invalid_argument(
                "FIXED_LEN_BYTE_ARRAY width must be positive",
            ));
        }
        Ok(n.min(self.remaining_bytes() / width))
    }

    /// Walks up to `n` BYTE_ARRAY values, checking each length against the data and
    /// handing `(start, len)` in the data to `sink`; returns how many it walked.
    #[inline(always)]
    fn walk_byte_arrays(
        &mut self,
        n: usize,
        mut sink: impl FnMut(&[u8], usize, usize) -> Result<()>,
    ) -> Result<usize> {
        let data = self.data.as_ref();
        let mut pos = self.pos;
        let mut done = 0;
        while done < n && pos < data.len() {
            let Some(prefix) = data
                .get(pos..pos + 4)
                .and_then(|p| <[u8; 4]>::try_from(p).ok())
            else {
                self.pos = pos;
                return Err(Error::corrupt(format!(
                    "PLAIN BYTE_ARRAY: length prefix truncated at byte {pos}"
                )));
            };
            let len = u32::from_le_bytes(prefix) as usize;
            let start = pos + 4;
            if len > data.len() - start {
                self.pos = pos;
                return Err(Error::corrupt(format!(
                    "PLAIN BYTE_ARRAY: value at byte {pos} has length {len}, only {} bytes remain",
                    data.len() - start
                )));
            }
            if let Err(e) = sink(data, start, len) {
                self.pos = pos;
                return Err(e);
            }
            pos = start + len;
            done += 1;
        }
        self.pos = pos;
        if let Some(left) = &mut self.values_left {
            *left = left.saturating_sub(done);
        }
        Ok(done)
    }

    /// Decodes up to `n` BYTE_ARRAY values, appending their bytes to `values` and their
    /// end offsets to `offsets` (which gets the start offset first if it is empty).
    pub fn decode_byte_array<O: OffsetSize>(
        &mut self,
        n: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<usize> {
        self.append_byte_arrays(n, usize::MAX, offsets, values)
    }

    /// [`Self::decode_byte_array`] in one pass that checks each length, copies the
    /// bytes and writes the end offset; `values` may not grow past `max_bytes`
    /// ([`ErrorKind::LimitExceeded`](crate::ErrorKind)). Room for the bytes is reserved
    /// from the page's average value size, so the buffer is not regrown value by value.
    pub fn append_byte_arrays<O: OffsetSize>(
        &mut self,
        n: usize,
        max_bytes: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<usize> {
        start_offsets(offsets, values)?;
        // Every value takes at least its 4-byte length: a count beyond that is not
        // reserved for.
        let most = n.min(self.remaining_bytes() / 4);
        offsets.reserve(most);
        // The values' share of the bytes left (without their 4-byte lengths) when the
        // count left is known, as the output keeps this capacity; a guess otherwise.
        // Room for the last value's block copy too.
        let estimate = match self.values_left {
            Some(left) if left >= most && left > 0 => {
                let value_bytes = self
                    .remaining_bytes()
                    .saturating_sub(left.saturating_mul(4));
                value_bytes / left * most + (value_bytes % left).saturating_mul(most) / left
            }
            _ => self.remaining_bytes().min(most.saturating_mul(64)),
        };
        let room = max_bytes.saturating_sub(values.len());
        values.reserve_exact(estimate.saturating_add(SHORT_VALUE).min(room));
        let start_len = values.len();
        let mut appended = 0;
        let done = self.walk_byte_arrays(n, |data, start, len| {
            check_room(values.len(), len, max_bytes)?;
            if values.capacity() - values.len() < len + SHORT_VALUE {
                // The estimate fell short (nulls among the entries, longer values
                // further on): room for the rest at the mean length seen, not a doubling.
                let growth = Growth {
                    start_len,
                    done: appended,
                    n: most,
                    max_bytes,
                };
                growth.reserve(values, len, 1);
            }
            copy_value(data, start, len, values);
            offsets.push(O::from_position(values.len()));
            appended += 1;
            Ok(())
        })?;
        O::check_position(values.len())?;
        Ok(done)
    }

    /// Walks up to `n` BYTE_ARRAY values, handing each one's `(start, len)` in the
    /// data to `sink` (zero-copy views of the values); returns how many.
    pub fn byte_array_positions(
        &mut self,
        n: usize,
        mut sink: impl FnMut(usize, usize),
    ) -> Result<usize> {
        self.walk_byte_arrays(n, |_, start, len| {
            sink(start, len);
            Ok(())
        })
    }

    /// Decodes up to `n` BYTE_ARRAY values as `(start, len)` views into the data given
    /// to [`PlainDecoder::new`], for zero-copy view arrays.
    pub fn decode_byte_array_views(
        &mut self,
        n: usize,
        views: &mut Vec<(u32, u32)>,
    ) -> Result<usize> {
        if u32::try_from(self.data.as_ref().len()).is_err() {
            return Err(Error::invalid_argument(
                "page data beyond 4 GiB cannot be viewed with u32",
            ));
        }
        self.byte_array_positions(n, |start, len| views.push((start as u32, len as u32)))
    }

    /// Skips up to `n` BYTE_ARRAY values (their lengths are still checked).
    pub fn skip_byte_array(&mut self, n: usize) -> Result<usize> {
        // The values in one tight loop: one check per value, that its prefix and bytes
        // end within the data (a chain of dependent loads, so every branch counts).
        let data = self.data.as_ref();
        let mut pos = self.pos;
        let mut done = 0;
        while done < n {
            let Some(prefix) = data.get(pos..).and_then(<[u8]>::first_chunk::<4>) else {
                break;
            };
            let next = (pos + 4).saturating_add(u32::from_le_bytes(*prefix) as usize);
            if next > data.len() {
                break;
            }
            pos = next;
            done += 1;
        }
        self.pos = pos;
        if let Some(left) = &mut self.values_left {
            *left = left.saturating_sub(done);
        }
        if done == n || pos == data.len() {
            return Ok(done);
        }
        // A truncated prefix or value: the walk says which.
        Ok(done + self.walk_byte_arrays(n - done, |_, _, _| Ok(()))?)
    }
}

/// Decoder of PLAIN BOOLEAN values (bit-packed, LSB first), over a borrowed slice
/// ([`PlainBooleanDecoder::new`]) or a [`ByteSource`] it owns.
#[derive(Debug, Clone)]
pub struct PlainBooleanDecoder<S: ByteSource> {
    data: S,
    bit: usize,
}

impl<'a> PlainBooleanDecoder<&'a [u8]> {
    /// A decoder over the values section of a page.
    pub fn new(data: &'a [u8]) -> Self {
        Self::from_source(data)
    }
}

impl<S: ByteSource> PlainBooleanDecoder<S> {
    /// [`PlainBooleanDecoder::new`] over any [`ByteSource`].
    pub fn from_source(data: S) -> Self {
        Self { data, bit: 0 }
    }

    fn available(&self) -> usize {
        self.data.as_ref().len() * 8 - self.bit
    }

    /// Decodes up to `out.len()` values; returns how many.
    pub fn decode(&mut self, out: &mut [bool]) -> usize {
        let n = out.len().min(self.available());
        let data = self.data.as_ref();
        for (i, value) in out[..n].iter_mut().enumerate() {
            let bit = self.bit + i;
            *value = data[bit / 8] >> (bit % 8) & 1 == 1;
        }
        self.bit += n;
        n
    }

    /// Appends up to `n` values to `out`; returns how many.
    pub fn append(&mut self, n: usize, out: &mut Vec<bool>) -> usize {
        let n = n.min(self.available());
        let data = self.data.as_ref();
        let first = self.bit;
        out.extend((first..first + n).map(|bit| data[bit / 8] >> (bit % 8) & 1 == 1));
        self.bit += n;
        n
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> usize {
        let n = n.min(self.available());
        self.bit += n;
        n
    }
}

/// Appends fixed-width values little-endian.
pub fn encode_fixed<T: FixedWidth>(values: &[T], out: &mut Vec<u8>) {
    // Size the output once and fill fixed-size chunks: no capacity check per value, and
    // the loop compiles to a straight copy on little-endian targets.
    let start = out.len();
    out.resize(start + values.len() * T::SIZE, 0);
    for (dst, &value) in out[start..].chunks_exact_mut(T::SIZE).zip(values) {
        value.write_le(dst);
    }
}

/// Appends BOOLEAN values bit-packed LSB-first (the last byte padded with zeros).
pub fn encode_booleans(values: &[bool], out: &mut Vec<u8>) {
    for chunk in values.chunks(8) {
        let byte = chunk
            .iter()
            .enumerate()
            .fold(0u8, |acc, (i, &b)| acc | (u8::from(b) << i));
        out.push(byte);
    }
}

/// Appends BYTE_ARRAY values, each as a 4-byte little-endian length and the bytes.
pub fn encode_byte_array<V: AsRef<[u8]>>(values: &[V], out: &mut Vec<u8>) -> Result<()> {
    for value in values {
        let value = value.as_ref();
        let len = u32::try_from(value.len()).map_err(|_| {
            Error::invalid_argument(format!(
                "BYTE_ARRAY value of {} bytes exceeds 4 GiB",
                value.len()
            ))
        })?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(value);
    }
    Ok(())
}

/// Appends FIXED_LEN_BYTE_ARRAY values given back to back in `values`
/// (`values.len()` a multiple of `width`).
pub fn encode_flba(values: &[u8], width: usize, out: &mut Vec<u8>) -> Result<()> {
    if width == 0 || !values.len().is_multiple_of(width) {
        return Err(Error::invalid_argument(format!(
            "{} bytes are not whole FIXED_LEN_BYTE_ARRAY({width}) values",
            values.len()
        )));
    }
    out.extend_from_slice(values);
    Ok(())
}
