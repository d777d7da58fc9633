//! DELTA_LENGTH_BYTE_ARRAY: the lengths DELTA_BINARY_PACKED (as INT32), then all the
//! bytes back to back.
//!
//! ```
//! use herringbone_codec::encoding::delta_length_byte_array::{self, DeltaLengthByteArrayDecoder};
//! let mut page = Vec::new();
//! delta_length_byte_array::encode(&["Hello", "World"], &mut page).unwrap();
//! let mut decoder = DeltaLengthByteArrayDecoder::new(&page).unwrap();
//! let (mut offsets, mut values) = (Vec::<i64>::new(), Vec::new());
//! assert_eq!(decoder.decode(2, &mut offsets, &mut values).unwrap(), 2);
//! assert_eq!((offsets, values), (vec![0, 5, 10], b"HelloWorld".to_vec()));
//! ```

use super::delta_binary_packed::{self, DeltaBinaryPackedDecoder};
use super::{OffsetSize, start_offsets};
use crate::error::{Error, Result};

const CHUNK: usize = 256;

/// Decoder of DELTA_LENGTH_BYTE_ARRAY values over a borrowed buffer.
#[derive(Debug, Clone)]
pub struct DeltaLengthByteArrayDecoder<'a> {
    data: &'a [u8],
    lengths: DeltaBinaryPackedDecoder<'a, i32>,
    /// Byte offset of the next value's bytes in `data`.
    pos: usize,
    end: usize,
}

impl<'a> DeltaLengthByteArrayDecoder<'a> {
    /// Reads the lengths' header and locates the value bytes after them.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let lengths = DeltaBinaryPackedDecoder::new(data)?;
        let pos = lengths.end_offset()?;
        Ok(Self {
            data,
            lengths,
            pos,
            end: data.len(),
        })
    }

    /// Byte offset just past the last value's bytes, once every value has been read;
    /// before that, the offset of the next value's bytes.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Values not yet decoded or skipped.
    pub fn remaining(&self) -> usize {
        self.lengths.remaining()
    }

    /// Decodes up to `n` values' (start, len) positions in the data, chunk by chunk,
    /// checking lengths against the bytes present.
    fn for_each(
        &mut self,
        n: usize,
        mut sink: impl FnMut(usize, usize) -> Result<()>,
    ) -> Result<usize> {
        let mut done = 0;
        let mut lengths = [0i32; CHUNK];
        while done < n {
            let k = (n - done).min(CHUNK);
            let got = self.lengths.decode(&mut lengths[..k])?;
            if got == 0 {
                break;
            }
            for &len in &lengths[..got] {
                let len = usize::try_from(len).map_err(|_| {
                    Error::corrupt(format!("DELTA_LENGTH_BYTE_ARRAY: negative length {len}"))
                })?;
                if len > self.end - self.pos {
                    return Err(Error::corrupt(format!(
                        "DELTA_LENGTH_BYTE_ARRAY: value of {len} bytes at byte {} runs past the end ({} bytes)",
                        self.pos, self.end
                    )));
                }
                sink(self.pos, len)?;
                self.pos += len;
            }
            done += got;
        }
        Ok(done)
    }

    /// Decodes up to `n` values, appending bytes to `values` and end offsets to
    /// `offsets` (which gets the start offset first if empty).
    pub fn decode<O: OffsetSize>(
        &mut self,
        n: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<usize> {
        start_offsets(offsets, values)?;
        let data = self.data;
        let first = self.pos;
        let base = values.len();
        let mut last_end = first;
        let done = self.for_each(n, |start, len| {
            last_end = start + len;
            offsets.push(O::from_usize(base + last_end - first)?);
            Ok(())
        })?;
        // The values are contiguous: one copy for the whole batch.
        values.extend_from_slice(&data[first..last_end]);
        Ok(done)
    }

    /// Decodes up to `n` values as `(start, len)` views into the data given to `new`.
    pub fn decode_views(&mut self, n: usize, views: &mut Vec<(u32, u32)>) -> Result<usize> {
        self.for_each(n, |start, len| {
            let start = u32::try_from(start).map_err(|_| {
                Error::invalid_argument("page data beyond 4 GiB cannot be viewed with u32")
            })?;
            views.push((start, len as u32));
            Ok(())
        })
    }

    /// Skips up to `n` values.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.for_each(n, |_, _| Ok(()))
    }
}

/// Appends `values` DELTA_LENGTH_BYTE_ARRAY encoded.
pub fn encode<V: AsRef<[u8]>>(values: &[V], out: &mut Vec<u8>) -> Result<()> {
    let lengths = values
        .iter()
        .map(|v| {
            i32::try_from(v.as_ref().len()).map_err(|_| {
                Error::invalid_argument("DELTA_LENGTH_BYTE_ARRAY value longer than 2 GiB")
            })
        })
        .collect::<Result<Vec<i32>>>()?;
    delta_binary_packed::encode(&lengths, out);
    for value in values {
        out.extend_from_slice(value.as_ref());
    }
    Ok(())
}
