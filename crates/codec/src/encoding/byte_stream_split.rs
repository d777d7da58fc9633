//! BYTE_STREAM_SPLIT for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY: byte `k`
//! of every value goes to stream `k`; the streams are stored one after the other.
//!
//! ```
//! use herringbone_codec::encoding::byte_stream_split::{self, ByteStreamSplitDecoder};
//! let mut page = Vec::new();
//! byte_stream_split::encode_fixed(&[1.5f32, -2.0], &mut page);
//! let mut decoder = ByteStreamSplitDecoder::new(&page, 4).unwrap();
//! let mut out = [0f32; 2];
//! assert_eq!(decoder.decode_fixed(&mut out).unwrap(), 2);
//! assert_eq!(out, [1.5, -2.0]);
//! ```

use super::FixedWidth;
use crate::error::{Error, Result};
use crate::source::ByteSource;

/// Decoder of BYTE_STREAM_SPLIT values, over a borrowed slice
/// ([`ByteStreamSplitDecoder::new`]) or a [`ByteSource`] it owns
/// ([`ByteStreamSplitDecoder::from_source`]).
#[derive(Debug, Clone)]
pub struct ByteStreamSplitDecoder<S: ByteSource> {
    data: S,
    width: usize,
    num_values: usize,
    next: usize,
}

impl<'a> ByteStreamSplitDecoder<&'a [u8]> {
    /// A decoder of values `width` bytes wide; `data.len()` must be a multiple of it.
    pub fn new(data: &'a [u8], width: usize) -> Result<Self> {
        Self::from_source(data, width)
    }
}

impl<S: ByteSource> ByteStreamSplitDecoder<S> {
    /// [`ByteStreamSplitDecoder::new`] over any [`ByteSource`].
    pub fn from_source(data: S, width: usize) -> Result<Self> {
        if width == 0 {
            return Err(Error::invalid_argument(
                "BYTE_STREAM_SPLIT value width must be positive",
            ));
        }
        let len = data.as_ref().len();
        if !len.is_multiple_of(width) {
            return Err(Error::corrupt(format!(
                "BYTE_STREAM_SPLIT: {len} bytes are not whole {width}-byte values"
            )));
        }
        Ok(Self {
            data,
            width,
            num_values: len / width,
            next: 0,
        })
    }

    /// Values not yet decoded or skipped.
    pub fn remaining(&self) -> usize {
        self.num_values - self.next
    }

    /// Decodes up to `out.len()` values of a fixed-width type whose size is the width.
    pub fn decode_fixed<T: FixedWidth>(&mut self, out: &mut [T]) -> Result<usize> {
        if T::SIZE != self.width {
            return Err(Error::invalid_argument(format!(
                "BYTE_STREAM_SPLIT width {} does not match a {}-byte type",
                self.width,
                T::SIZE
            )));
        }
        let n = out.len().min(self.remaining());
        match T::SIZE {
            4 => self.gather::<T, 4>(&mut out[..n]),
            8 => self.gather::<T, 8>(&mut out[..n]),
            _ => {
                let mut scratch = Vec::with_capacity(n * T::SIZE);
                self.decode_into(n, &mut scratch);
                for (o, chunk) in out[..n].iter_mut().zip(scratch.chunks_exact(T::SIZE)) {
                    *o = T::from_le_slice(chunk);
                }
            }
        }
        self.next += n;
        Ok(n)
    }

    /// Interleaves `W` streams into `out`, `W == T::SIZE`: blocks of 8 values read 8
    /// bytes from each stream as fixed-size arrays (no bounds checks in the transpose).
    fn gather<T: FixedWidth, const W: usize>(&self, out: &mut [T]) {
        let n = out.len();
        let streams: [&[u8]; W] =
            std::array::from_fn(|k| &self.data.as_ref()[k * self.num_values + self.next..][..n]);
        let blocks = n / 8;
        for (b, chunk) in out[..blocks * 8].chunks_exact_mut(8).enumerate() {
            let lanes: [[u8; 8]; W] =
                std::array::from_fn(|k| streams[k][b * 8..b * 8 + 8].try_into().expect("8 bytes"));
            for (j, o) in chunk.iter_mut().enumerate() {
                let bytes: [u8; W] = std::array::from_fn(|k| lanes[k][j]);
                *o = T::from_le_slice(&bytes);
            }
        }
        for i in blocks * 8..n {
            let bytes: [u8; W] = std::array::from_fn(|k| streams[k][i]);
            out[i] = T::from_le_slice(&bytes);
        }
    }

    fn decode_into(&self, n: usize, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + n * self.width, 0);
        let dst = &mut out[start..];
        for k in 0..self.width {
            let stream = &self.data.as_ref()[k * self.num_values + self.next..][..n];
            for (i, &b) in stream.iter().enumerate() {
                dst[i * self.width + k] = b;
            }
        }
    }

    /// Appends up to `n` values of a fixed-width type whose size is the width to `out`;
    /// returns how many.
    pub fn append_fixed<T: FixedWidth>(&mut self, n: usize, out: &mut Vec<T>) -> Result<usize> {
        let n = n.min(self.remaining());
        let start = out.len();
        // Decoded through a block on the stack: the output is not zero-filled first.
        let mut block = [T::default(); 256];
        let mut done = 0;
        while done < n {
            let k = (n - done).min(block.len());
            self.decode_fixed(&mut block[..k])?;
            out.extend_from_slice(&block[..k]);
            done += k;
        }
        debug_assert_eq!(out.len(), start + n);
        Ok(n)
    }

    /// Appends up to `n` values' bytes (FIXED_LEN_BYTE_ARRAY or any width) to `out`.
    pub fn decode_bytes(&mut self, n: usize, out: &mut Vec<u8>) -> Result<usize> {
        let n = n.min(self.remaining());
        self.decode_into(n, out);
        self.next += n;
        Ok(n)
    }

    /// Skips up to `n` values.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let n = n.min(self.remaining());
        self.next += n;
        Ok(n)
    }
}

/// Appends values of `width` bytes given back to back in `values`, split into streams.
pub fn encode_bytes(values: &[u8], width: usize, out: &mut Vec<u8>) -> Result<()> {
    if width == 0 || !values.len().is_multiple_of(width) {
        return Err(Error::invalid_argument(format!(
            "{} bytes are not whole {width}-byte values",
            values.len()
        )));
    }
    let start = out.len();
    out.resize(start + values.len(), 0);
    let n = values.len() / width;
    let dst = &mut out[start..];
    for (i, value) in values.chunks_exact(width).enumerate() {
        for (k, &b) in value.iter().enumerate() {
            dst[k * n + i] = b;
        }
    }
    Ok(())
}

/// Appends fixed-width values split into streams.
pub fn encode_fixed<T: FixedWidth>(values: &[T], out: &mut Vec<u8>) {
    let mut bytes = Vec::with_capacity(values.len() * T::SIZE);
    for &v in values {
        v.extend_le(&mut bytes);
    }
    encode_bytes(&bytes, T::SIZE, out).expect("whole values");
}
