//! DELTA_BYTE_ARRAY (incremental encoding) for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY:
//! the prefix lengths shared with the previous value DELTA_BINARY_PACKED, then the
//! suffixes DELTA_LENGTH_BYTE_ARRAY.
//!
//! ```
//! use herringbone_codec::encoding::delta_byte_array::{self, DeltaByteArrayDecoder};
//! let mut page = Vec::new();
//! delta_byte_array::encode(&["axis", "axle"], &mut page).unwrap();
//! let mut decoder = DeltaByteArrayDecoder::new(&page).unwrap();
//! let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
//! decoder.decode(2, &mut offsets, &mut values).unwrap();
//! assert_eq!(values, b"axisaxle");
//! ```

use super::delta_binary_packed::{self, DeltaBinaryPackedDecoder};
use super::delta_length_byte_array::{self, DeltaLengthByteArrayDecoder};
use super::plain::{SHORT_VALUE, copy_value};
use super::{OffsetSize, check_room, start_offsets};
use crate::error::{Error, Result};
use crate::source::ByteSource;

const CHUNK: usize = 256;

/// Decoder of DELTA_BYTE_ARRAY values, over a borrowed slice
/// ([`DeltaByteArrayDecoder::new`]) or a [`ByteSource`] it owns
/// ([`DeltaByteArrayDecoder::from_source`]).
///
/// A value can repeat most of the previous one in a few bits, so what it rebuilds can
/// be far larger than the page: the appending methods take a byte limit.
#[derive(Debug, Clone)]
pub struct DeltaByteArrayDecoder<S: ByteSource> {
    prefixes: DeltaBinaryPackedDecoder<i32, S>,
    suffixes: DeltaLengthByteArrayDecoder<S>,
    previous: Vec<u8>,
    /// Values and bytes rebuilt into appended output so far: the mean value length that
    /// sizes the output.
    rebuilt_values: usize,
    rebuilt_bytes: usize,
}

impl<'a> DeltaByteArrayDecoder<&'a [u8]> {
    /// Reads both headers; the prefix and suffix counts must agree.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::from_source(data)
    }
}

impl<S: ByteSource> DeltaByteArrayDecoder<S> {
    /// [`DeltaByteArrayDecoder::new`] over any [`ByteSource`].
    pub fn from_source(data: S) -> Result<Self> {
        let prefixes = DeltaBinaryPackedDecoder::<i32, S>::from_source(data.clone())?;
        let suffixes_at = prefixes.end_offset()?;
        let len = data.as_ref().len();
        let suffixes =
            DeltaLengthByteArrayDecoder::from_source(data.slice_range(suffixes_at..len))?;
        if suffixes.remaining() != prefixes.len() {
            return Err(Error::corrupt(format!(
                "DELTA_BYTE_ARRAY: {} prefix lengths but {} suffixes",
                prefixes.len(),
                suffixes.remaining()
            )));
        }
        Ok(Self {
            prefixes,
            suffixes,
            previous: Vec::new(),
            rebuilt_values: 0,
            rebuilt_bytes: 0,
        })
    }

    /// Values not yet decoded or skipped.
    pub fn remaining(&self) -> usize {
        self.prefixes.remaining()
    }

    /// Walks up to `n` values a chunk of at most [`CHUNK`] at a time, handing `per_chunk`
    /// the chunk's prefix lengths (unchecked) and suffix positions (start and length in
    /// [`DeltaLengthByteArrayDecoder::data`]); returns how many values it walked.
    fn by_chunks(
        &mut self,
        n: usize,
        mut per_chunk: impl FnMut(&mut Self, &[i32], &[(usize, usize)]) -> Result<()>,
    ) -> Result<usize> {
        let mut done = 0;
        let mut prefixes = [0i32; CHUNK];
        let mut positions = [(0usize, 0usize); CHUNK];
        while done < n {
            let k = (n - done).min(CHUNK);
            let got = self.prefixes.decode(&mut prefixes[..k])?;
            if got == 0 {
                break;
            }
            let mut walked = 0;
            self.suffixes.byte_array_positions(got, |start, len| {
                positions[walked] = (start, len);
                walked += 1;
            })?;
            if walked != got {
                return Err(Error::corrupt("DELTA_BYTE_ARRAY: suffixes end early"));
            }
            per_chunk(self, &prefixes[..got], &positions[..got])?;
            done += got;
        }
        Ok(done)
    }

    /// Rebuilds up to `n` values, handing each to `sink` (a value is only valid during
    /// the call: the next one is built in the same buffer); returns how many.
    pub fn decode_with(
        &mut self,
        n: usize,
        mut sink: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<usize> {
        self.by_chunks(n, |this, prefixes, positions| {
            let suffix_data = this.suffixes.data().as_ref();
            for (&prefix, &(start, len)) in prefixes.iter().zip(positions) {
                let prefix = checked_prefix(prefix, this.previous.len())?;
                this.previous.truncate(prefix);
                this.previous
                    .extend_from_slice(&suffix_data[start..start + len]);
                sink(&this.previous)?;
            }
            Ok(())
        })
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
    /// ([`ErrorKind::LimitExceeded`](crate::ErrorKind)), checked before each chunk of up
    /// to 256 values is copied.
    pub fn append_byte_arrays<O: OffsetSize>(
        &mut self,
        n: usize,
        max_bytes: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<usize> {
        start_offsets(offsets, values)?;
        offsets.reserve(n.min(self.remaining()));
        // Each value is rebuilt in place at the end of `values`, its prefix copied from
        // the value before it there (one copy a byte, not two through `previous`);
        // `previous` carries only the last value over to the next call.
        let mut previous_at: Option<usize> = None;
        let result = self.append_in_place(n, max_bytes, offsets, values, &mut previous_at);
        if let Some(at) = previous_at {
            self.previous.clear();
            self.previous.extend_from_slice(&values[at..]);
        }
        let done = result?;
        O::check_position(values.len())?;
        Ok(done)
    }

    /// The loop of [`Self::append_byte_arrays`]; `previous_at` is where the last value
    /// appended starts in `values`.
    fn append_in_place<O: OffsetSize>(
        &mut self,
        n: usize,
        max_bytes: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
        previous_at: &mut Option<usize>,
    ) -> Result<usize> {
        let mut done = 0;
        self.by_chunks(n, |this, prefixes, positions| {
            let got = prefixes.len();
            // Every prefix checked and the chunk's bytes counted before anything is
            // copied: room is made once a chunk, not value by value.
            let mut previous_len = match *previous_at {
                Some(at) => values.len() - at,
                None => this.previous.len(),
            };
            let mut chunk_bytes = 0usize;
            for (&prefix, &(_, len)) in prefixes.iter().zip(positions) {
                let checked = checked_prefix(prefix, previous_len)?;
                previous_len = checked + len;
                chunk_bytes = chunk_bytes.saturating_add(previous_len);
            }
            check_room(values.len(), chunk_bytes, max_bytes)?;
            this.rebuilt_values += got;
            this.rebuilt_bytes = this.rebuilt_bytes.saturating_add(chunk_bytes);
            if values.capacity() - values.len() < chunk_bytes + SHORT_VALUE {
                // Room for the rest of the call at the mean length rebuilt so far: the
                // buffer becomes the Arrow array and keeps its capacity, so it is sized
                // once, not doubled.
                let left = (n - done - got).min(this.remaining());
                let mean = this.rebuilt_bytes / this.rebuilt_values;
                let rest = left.saturating_mul(mean);
                let room = max_bytes.saturating_sub(values.len() + chunk_bytes);
                values.reserve_exact(chunk_bytes + rest.min(room) + SHORT_VALUE);
            }
            let suffix_data = this.suffixes.data().as_ref();
            for (&prefix, &(start, len)) in prefixes.iter().zip(positions) {
                // Checked above.
                let prefix = prefix as usize;
                let value_start = values.len();
                match *previous_at {
                    // A `memcpy` call: block moves measured slower here, as the bytes
                    // were just written (a store-forwarding stall either way).
                    Some(at) => values.extend_from_within(at..at + prefix),
                    None => values.extend_from_slice(&this.previous[..prefix]),
                }
                copy_value(suffix_data, start, len, values);
                offsets.push(O::from_position(values.len()));
                *previous_at = Some(value_start);
            }
            done += got;
            Ok(())
        })
    }

    /// Decodes up to `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes, appending them
    /// to `out`; a value of another length is an error.
    pub fn decode_fixed(&mut self, width: usize, n: usize, out: &mut Vec<u8>) -> Result<usize> {
        self.append_fixed_bytes(width, n, usize::MAX, out)
    }

    /// [`Self::decode_fixed`] with `out` bounded by `max_bytes`
    /// ([`ErrorKind::LimitExceeded`](crate::ErrorKind)).
    pub fn append_fixed_bytes(
        &mut self,
        width: usize,
        n: usize,
        max_bytes: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        self.decode_with(n, |value| {
            if value.len() != width {
                return Err(Error::corrupt(format!(
                    "DELTA_BYTE_ARRAY: value of {} bytes in a FIXED_LEN_BYTE_ARRAY({width}) column",
                    value.len()
                )));
            }
            check_room(out.len(), width, max_bytes)?;
            out.extend_from_slice(value);
            Ok(())
        })
    }

    /// Skips up to `n` values (each is still rebuilt, as the next depends on it).
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.decode_with(n, |_| Ok(()))
    }
}

/// A value's prefix length, which must be within the previous value's `previous_len` bytes.
#[inline(always)]
fn checked_prefix(prefix: i32, previous_len: usize) -> Result<usize> {
    match usize::try_from(prefix) {
        Ok(p) if p <= previous_len => Ok(p),
        _ => Err(prefix_too_long(prefix, previous_len)),
    }
}

#[cold]
fn prefix_too_long(prefix: i32, previous_len: usize) -> Error {
    Error::corrupt(format!(
        "DELTA_BYTE_ARRAY: prefix length {prefix} exceeds the previous value's {previous_len} bytes"
    ))
}

/// Appends `values` DELTA_BYTE_ARRAY encoded (also for FIXED_LEN_BYTE_ARRAY values).
pub fn encode<V: AsRef<[u8]>>(values: &[V], out: &mut Vec<u8>) -> Result<()> {
    let mut prefixes = Vec::with_capacity(values.len());
    let mut suffixes = Vec::with_capacity(values.len());
    let mut previous: &[u8] = &[];
    for value in values {
        let value = value.as_ref();
        let shared = previous
            .iter()
            .zip(value)
            .take_while(|(a, b)| a == b)
            .count();
        prefixes
            .push(i32::try_from(shared).map_err(|_| {
                Error::invalid_argument("DELTA_BYTE_ARRAY value longer than 2 GiB")
            })?);
        suffixes.push(&value[shared..]);
        previous = value;
    }
    delta_binary_packed::encode(&prefixes, out);
    delta_length_byte_array::encode(&suffixes, out)
}
