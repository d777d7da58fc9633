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

use super::{FixedWidth, OffsetSize, start_offsets};
use crate::error::{Error, Result};

/// Decoder of PLAIN values of every type except BOOLEAN (see [`PlainBooleanDecoder`]).
///
/// Each method decodes or skips up to the number asked and returns how many values it
/// handled: fewer only when the data ends. Malformed data (a length running past the
/// end) is an error.
#[derive(Debug, Clone)]
pub struct PlainDecoder<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> PlainDecoder<'a> {
    /// A decoder over the values section of a page.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// Byte offset of the next value in the data.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    pub fn remaining_bytes(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Decodes up to `out.len()` fixed-width values (INT32, INT64, INT96, FLOAT, DOUBLE).
    pub fn decode_fixed<T: FixedWidth>(&mut self, out: &mut [T]) -> Result<usize> {
        let n = out.len().min(self.remaining_bytes() / T::SIZE);
        let bytes = &self.data[self.pos..self.pos + n * T::SIZE];
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
        let bytes = &self.data[self.pos..self.pos + n * T::SIZE];
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
        out.extend_from_slice(&self.data[self.pos..self.pos + n * width]);
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

    /// Reads the next BYTE_ARRAY value's position: (start, len) in the data.
    #[inline]
    fn next_byte_array(&mut self) -> Result<Option<(usize, usize)>> {
        if self.pos == self.data.len() {
            return Ok(None);
        }
        let Some(prefix) = self.data.get(self.pos..self.pos + 4) else {
            return Err(Error::corrupt(format!(
                "PLAIN BYTE_ARRAY: length prefix truncated at byte {}",
                self.pos
            )));
        };
        let len = u32::from_le_bytes(prefix.try_into().expect("4 bytes")) as usize;
        let start = self.pos + 4;
        if len > self.data.len() - start {
            return Err(Error::corrupt(format!(
                "PLAIN BYTE_ARRAY: value at byte {} has length {len}, only {} bytes remain",
                self.pos,
                self.data.len() - start
            )));
        }
        self.pos = start + len;
        Ok(Some((start, len)))
    }

    /// Decodes up to `n` BYTE_ARRAY values, appending their bytes to `values` and their
    /// end offsets to `offsets` (which gets the start offset first if it is empty).
    pub fn decode_byte_array<O: OffsetSize>(
        &mut self,
        n: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<usize> {
        start_offsets(offsets, values)?;
        let mut decoded = 0;
        while decoded < n {
            let Some((start, len)) = self.next_byte_array()? else {
                break;
            };
            values.extend_from_slice(&self.data[start..start + len]);
            offsets.push(O::from_usize(values.len())?);
            decoded += 1;
        }
        Ok(decoded)
    }

    /// Decodes up to `n` BYTE_ARRAY values as `(start, len)` views into the data given
    /// to [`PlainDecoder::new`], for zero-copy view arrays.
    pub fn decode_byte_array_views(
        &mut self,
        n: usize,
        views: &mut Vec<(u32, u32)>,
    ) -> Result<usize> {
        let mut decoded = 0;
        while decoded < n {
            let Some((start, len)) = self.next_byte_array()? else {
                break;
            };
            let start = u32::try_from(start).map_err(|_| {
                Error::invalid_argument("page data beyond 4 GiB cannot be viewed with u32")
            })?;
            views.push((start, len as u32));
            decoded += 1;
        }
        Ok(decoded)
    }

    /// Skips up to `n` BYTE_ARRAY values.
    pub fn skip_byte_array(&mut self, n: usize) -> Result<usize> {
        let mut skipped = 0;
        while skipped < n && self.next_byte_array()?.is_some() {
            skipped += 1;
        }
        Ok(skipped)
    }
}

/// Decoder of PLAIN BOOLEAN values (bit-packed, LSB first).
#[derive(Debug, Clone)]
pub struct PlainBooleanDecoder<'a> {
    data: &'a [u8],
    bit: usize,
}

impl<'a> PlainBooleanDecoder<'a> {
    /// A decoder over the values section of a page.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, bit: 0 }
    }

    fn available(&self) -> usize {
        self.data.len() * 8 - self.bit
    }

    /// Decodes up to `out.len()` values; returns how many.
    pub fn decode(&mut self, out: &mut [bool]) -> usize {
        let n = out.len().min(self.available());
        for (i, value) in out[..n].iter_mut().enumerate() {
            let bit = self.bit + i;
            *value = self.data[bit / 8] >> (bit % 8) & 1 == 1;
        }
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
