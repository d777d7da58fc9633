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
use super::{OffsetSize, start_offsets};
use crate::error::{Error, Result};

const CHUNK: usize = 256;

/// Decoder of DELTA_BYTE_ARRAY values over a borrowed buffer.
#[derive(Debug, Clone)]
pub struct DeltaByteArrayDecoder<'a> {
    data: &'a [u8],
    prefixes: DeltaBinaryPackedDecoder<'a, i32>,
    suffixes: DeltaLengthByteArrayDecoder<'a>,
    suffixes_at: usize,
    previous: Vec<u8>,
}

impl<'a> DeltaByteArrayDecoder<'a> {
    /// Reads both headers; the prefix and suffix counts must agree.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let prefixes = DeltaBinaryPackedDecoder::<i32>::new(data)?;
        let suffixes_at = prefixes.end_offset()?;
        let suffixes = DeltaLengthByteArrayDecoder::new(&data[suffixes_at..])?;
        if suffixes.remaining() != prefixes.len() {
            return Err(Error::corrupt(format!(
                "DELTA_BYTE_ARRAY: {} prefix lengths but {} suffixes",
                prefixes.len(),
                suffixes.remaining()
            )));
        }
        Ok(Self {
            data,
            prefixes,
            suffixes,
            suffixes_at,
            previous: Vec::new(),
        })
    }

    /// Values not yet decoded or skipped.
    pub fn remaining(&self) -> usize {
        self.prefixes.remaining()
    }

    /// Reconstructs up to `n` values, handing each to `sink`.
    fn for_each(&mut self, n: usize, mut sink: impl FnMut(&[u8]) -> Result<()>) -> Result<usize> {
        let mut done = 0;
        let mut prefixes = [0i32; CHUNK];
        let mut views = Vec::with_capacity(CHUNK.min(n));
        let suffix_data = &self.data[self.suffixes_at..];
        while done < n {
            let k = (n - done).min(CHUNK);
            let got = self.prefixes.decode(&mut prefixes[..k])?;
            if got == 0 {
                break;
            }
            views.clear();
            if self.suffixes.decode_views(got, &mut views)? != got {
                return Err(Error::corrupt("DELTA_BYTE_ARRAY: suffixes end early"));
            }
            for (&prefix, &(start, len)) in prefixes[..got].iter().zip(&views) {
                let prefix = usize::try_from(prefix)
                    .ok()
                    .filter(|&p| p <= self.previous.len())
                    .ok_or_else(|| {
                        Error::corrupt(format!(
                            "DELTA_BYTE_ARRAY: prefix length {prefix} exceeds the previous value's {} bytes",
                            self.previous.len()
                        ))
                    })?;
                self.previous.truncate(prefix);
                let start = start as usize;
                self.previous
                    .extend_from_slice(&suffix_data[start..start + len as usize]);
                sink(&self.previous)?;
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
        self.for_each(n, |value| {
            values.extend_from_slice(value);
            offsets.push(O::from_usize(values.len())?);
            Ok(())
        })
    }

    /// Decodes up to `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes, appending them
    /// to `out`; a value of another length is an error.
    pub fn decode_fixed(&mut self, width: usize, n: usize, out: &mut Vec<u8>) -> Result<usize> {
        self.for_each(n, |value| {
            if value.len() != width {
                return Err(Error::corrupt(format!(
                    "DELTA_BYTE_ARRAY: value of {} bytes in a FIXED_LEN_BYTE_ARRAY({width}) column",
                    value.len()
                )));
            }
            out.extend_from_slice(value);
            Ok(())
        })
    }

    /// Skips up to `n` values (each is still rebuilt, as the next depends on it).
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.for_each(n, |_| Ok(()))
    }
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
