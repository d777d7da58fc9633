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
use super::{OffsetSize, check_room, start_offsets};
use crate::error::{Error, Result};
use crate::source::ByteSource;

const CHUNK: usize = 256;

/// Decoder of DELTA_LENGTH_BYTE_ARRAY values, over a borrowed slice
/// ([`DeltaLengthByteArrayDecoder::new`]) or a [`ByteSource`] it owns
/// ([`DeltaLengthByteArrayDecoder::from_source`]).
#[derive(Debug, Clone)]
pub struct DeltaLengthByteArrayDecoder<S: ByteSource> {
    data: S,
    lengths: DeltaBinaryPackedDecoder<i32, S>,
    /// Byte offset of the next value's bytes in `data`.
    pos: usize,
}

impl<'a> DeltaLengthByteArrayDecoder<&'a [u8]> {
    /// Reads the lengths' header and locates the value bytes after them.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::from_source(data)
    }
}

impl<S: ByteSource> DeltaLengthByteArrayDecoder<S> {
    /// [`DeltaLengthByteArrayDecoder::new`] over any [`ByteSource`].
    pub fn from_source(data: S) -> Result<Self> {
        let lengths = DeltaBinaryPackedDecoder::from_source(data.clone())?;
        let pos = lengths.end_offset()?;
        Ok(Self { data, lengths, pos })
    }

    /// The bytes the decoder reads.
    pub fn data(&self) -> &S {
        &self.data
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

    /// Decodes up to `n` values' lengths, a chunk at a time, checking them against the
    /// bytes present, and hands each chunk's `(start of the first value, lengths)` to
    /// `sink`; the values of a chunk lie back to back from that start.
    fn for_each_chunk(
        &mut self,
        n: usize,
        mut sink: impl FnMut(usize, &[i32]) -> Result<()>,
    ) -> Result<usize> {
        let end = self.data.as_ref().len();
        let mut done = 0;
        let mut lengths = [0i32; CHUNK];
        while done < n {
            let k = (n - done).min(CHUNK);
            let got = self.lengths.decode(&mut lengths[..k])?;
            if got == 0 {
                break;
            }
            let chunk = &lengths[..got];
            // No branch per value: the sign bits are gathered and the sum checked once
            // per chunk (it cannot overflow 64 bits).
            let mut signs = 0i32;
            let mut sum = 0u64;
            for &len in chunk {
                signs |= len;
                sum += u64::from(len as u32);
            }
            if signs < 0 {
                let len = chunk.iter().find(|&&l| l < 0).copied().unwrap_or(-1);
                return Err(Error::corrupt(format!(
                    "DELTA_LENGTH_BYTE_ARRAY: negative length {len}"
                )));
            }
            if sum > (end - self.pos) as u64 {
                return Err(Error::corrupt(format!(
                    "DELTA_LENGTH_BYTE_ARRAY: {got} values of {sum} bytes at byte {} run past the end ({end} bytes)",
                    self.pos
                )));
            }
            sink(self.pos, chunk)?;
            self.pos += sum as usize;
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
        self.append_byte_arrays(n, usize::MAX, offsets, values)
    }

    /// [`Self::decode`] with `values` bounded by `max_bytes`
    /// ([`ErrorKind::LimitExceeded`](crate::ErrorKind)). The values lie back to back in
    /// the page, so the offsets are written first (a prefix sum over the lengths, a
    /// chunk at a time) and then all the values' bytes are one copy into room made for
    /// exactly them: `values` never grows twice in a call.
    pub fn append_byte_arrays<O: OffsetSize>(
        &mut self,
        n: usize,
        max_bytes: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<usize> {
        start_offsets(offsets, values)?;
        let offsets_before = offsets.len();
        offsets.reserve(n.min(self.remaining()));
        let first = self.pos;
        let base = values.len();
        let mut end = base;
        let decoded = self.for_each_chunk(n, |_, lengths| {
            let bytes: usize = lengths.iter().map(|&l| l as usize).sum();
            check_room(end, bytes, max_bytes)?;
            O::check_position(end + bytes)?;
            offsets.extend(lengths.iter().map(|&l| {
                end += l as usize;
                O::from_position(end)
            }));
            Ok(())
        });
        let done = match decoded {
            Ok(done) => done,
            Err(e) => {
                // Offsets of values whose bytes were never copied would point past them.
                offsets.truncate(offsets_before);
                return Err(e);
            }
        };
        // `for_each_chunk` checked every chunk against the bytes present. The output
        // keeps its capacity (it becomes an Arrow buffer): room for exactly these bytes.
        values.reserve_exact(end - base);
        values.extend_from_slice(&self.data.as_ref()[first..first + (end - base)]);
        Ok(done)
    }

    /// Walks up to `n` values a run at a time, handing `sink` each run's start in the
    /// data and its values' lengths (never negative, all within the data, the values
    /// back to back from that start); returns how many values. The form for a caller
    /// that builds something per value in a loop of its own (views of the values).
    ///
    /// ```
    /// use herringbone_codec::encoding::delta_length_byte_array::{self, DeltaLengthByteArrayDecoder};
    /// let mut page = Vec::new();
    /// delta_length_byte_array::encode(&["ab", "", "cde"], &mut page).unwrap();
    /// let mut decoder = DeltaLengthByteArrayDecoder::new(&page).unwrap();
    /// let mut runs = Vec::new();
    /// let got = decoder.value_runs(3, |start, lengths| runs.push((start, lengths.to_vec())));
    /// assert_eq!(got.unwrap(), 3);
    /// assert_eq!(runs, [(page.len() - 5, vec![2, 0, 3])]);
    /// ```
    pub fn value_runs(&mut self, n: usize, mut sink: impl FnMut(usize, &[i32])) -> Result<usize> {
        self.for_each_chunk(n, |start, lengths| {
            sink(start, lengths);
            Ok(())
        })
    }

    /// Walks up to `n` values, handing each one's `(start, len)` in the data to `sink`
    /// (zero-copy views of the values, which lie back to back); returns how many.
    pub fn byte_array_positions(
        &mut self,
        n: usize,
        mut sink: impl FnMut(usize, usize),
    ) -> Result<usize> {
        self.for_each_chunk(n, |mut start, lengths| {
            for &len in lengths {
                sink(start, len as usize);
                start += len as usize;
            }
            Ok(())
        })
    }

    /// Decodes up to `n` values as `(start, len)` views into the data given to `new`.
    pub fn decode_views(&mut self, n: usize, views: &mut Vec<(u32, u32)>) -> Result<usize> {
        if u32::try_from(self.data.as_ref().len()).is_err() {
            return Err(Error::invalid_argument(
                "page data beyond 4 GiB cannot be viewed with u32",
            ));
        }
        self.byte_array_positions(n, |start, len| views.push((start as u32, len as u32)))
    }

    /// Skips up to `n` values (their lengths are still decoded and checked).
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.for_each_chunk(n, |_, _| Ok(()))
    }
}

/// Where the first `n` values of DELTA_LENGTH_BYTE_ARRAY `data` lie, found in one pass
/// over the lengths: returns the byte offset in `data` at which the values start, and
/// `n + 1` ends counted from there (`ends[0]` is 0; value `i` is
/// `data[start + ends[i] as usize..start + ends[i + 1] as usize]`).
///
/// Every length is checked: none negative, all of them together within `data`. Data of
/// 4 GiB or more is an error (the ends are `u32`).
///
/// ```
/// use herringbone_codec::encoding::delta_length_byte_array::{encode, value_ends};
/// let mut page = Vec::new();
/// encode(&["ab", "", "cde"], &mut page).unwrap();
/// let (start, ends) = value_ends(&page, 3).unwrap();
/// assert_eq!(ends, [0, 2, 2, 5]);
/// assert_eq!(&page[start..start + 5], b"abcde");
/// ```
pub fn value_ends(data: &[u8], n: usize) -> Result<(usize, Vec<u32>)> {
    if u32::try_from(data.len()).is_err() {
        return Err(Error::invalid_argument(
            "DELTA_LENGTH_BYTE_ARRAY data of 4 GiB or more",
        ));
    }
    let mut lengths = DeltaBinaryPackedDecoder::<i32, _>::new(data)?;
    if lengths.len() < n {
        return Err(Error::corrupt(format!(
            "DELTA_LENGTH_BYTE_ARRAY holds {} values where {n} are needed",
            lengths.len()
        )));
    }
    let start = lengths.end_offset()?;
    let available = (data.len() - start) as u64;
    // Capacity grows with the values actually decoded: a hostile count costs nothing
    // up front.
    let mut ends = Vec::with_capacity(n.min(data.len()) + 1);
    ends.push(0u32);
    let mut chunk = [0i32; CHUNK];
    let mut end = 0u64;
    let mut done = 0;
    while done < n {
        let k = (n - done).min(CHUNK);
        let got = lengths.decode(&mut chunk[..k])?;
        if got < k {
            return Err(Error::corrupt(format!(
                "DELTA_LENGTH_BYTE_ARRAY: lengths end after {} of {n} values",
                done + got
            )));
        }
        // No branch per value: the sign bits are gathered and the sum checked once per
        // chunk (it cannot overflow 64 bits), so the loop is a plain prefix sum.
        let mut signs = 0i32;
        let mut sum = end;
        let base = ends.len();
        ends.resize(base + k, 0);
        for (out, &len) in ends[base..].iter_mut().zip(&chunk[..k]) {
            signs |= len;
            sum += u64::from(len as u32);
            *out = sum as u32;
        }
        end = sum;
        if signs < 0 {
            let len = chunk[..k].iter().find(|&&l| l < 0).copied().unwrap_or(-1);
            return Err(Error::corrupt(format!(
                "DELTA_LENGTH_BYTE_ARRAY: negative length {len}"
            )));
        }
        if end > available {
            return Err(Error::corrupt(format!(
                "DELTA_LENGTH_BYTE_ARRAY: {} values take {end} bytes from byte {start}, past the end ({} bytes)",
                done + k,
                data.len()
            )));
        }
        done += k;
    }
    Ok((start, ends))
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
