//! Values and levels to encoded page sections: the writer's one call into the codec's
//! encoders.
//!
//! | encoding | physical types |
//! | --- | --- |
//! | PLAIN | all |
//! | RLE | BOOLEAN (and levels) |
//! | RLE_DICTIONARY | every type but BOOLEAN, through the chunk's dictionary |
//! | DELTA_BINARY_PACKED | INT32, INT64 |
//! | DELTA_LENGTH_BYTE_ARRAY | BYTE_ARRAY |
//! | DELTA_BYTE_ARRAY | BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY |
//! | BYTE_STREAM_SPLIT | FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY |
//!
//! Byte arrays that come straight from Arrow offsets are appended in the layout of
//! PLAIN or DELTA_LENGTH_BYTE_ARRAY as they arrive ([`append_plain_run`],
//! [`append_delta_length_run`]), so a page of strings is not copied twice.

use herringbone_codec::encoding::{
    byte_stream_split, delta_binary_packed, delta_byte_array, plain,
};
use herringbone_codec::rle::{self, LengthPrefix, RleEncoder};
use herringbone_format::metadata::{Encoding, Type};

use super::statistics::ByteBounds;
use super::values::Values;
use crate::error::{Error, Result};

/// Whether `encoding` can encode values of `physical` type (dictionary encodings are
/// chosen with the dictionary switch, not here).
pub(crate) fn check_encoding(physical: Type, encoding: Encoding, column: &str) -> Result<()> {
    let ok = match encoding {
        Encoding::PLAIN => true,
        Encoding::RLE => physical == Type::BOOLEAN,
        Encoding::DELTA_BINARY_PACKED => matches!(physical, Type::INT32 | Type::INT64),
        Encoding::DELTA_LENGTH_BYTE_ARRAY => physical == Type::BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY => {
            matches!(physical, Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY)
        }
        Encoding::BYTE_STREAM_SPLIT => matches!(
            physical,
            Type::FLOAT | Type::DOUBLE | Type::INT32 | Type::INT64 | Type::FIXED_LEN_BYTE_ARRAY
        ),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "column {column}: encoding {encoding} cannot encode {physical} values \
             (dictionary encoding is switched on with set_dictionary_enabled)"
        )))
    }
}

/// Appends `values` PLAIN-encoded to `out`.
pub(crate) fn encode_plain(values: &Values, out: &mut Vec<u8>) -> Result<()> {
    match values {
        Values::Bool(v) => plain::encode_booleans(v, out),
        Values::I32(v) => plain::encode_fixed(v, out),
        Values::I64(v) => plain::encode_fixed(v, out),
        Values::I96(v) => plain::encode_fixed(v, out),
        Values::F32(v) => plain::encode_fixed(v, out),
        Values::F64(v) => plain::encode_fixed(v, out),
        Values::Bytes { offsets, data }
            if offsets.first() == Some(&0) && u32::try_from(data.len()).is_ok() =>
        {
            // Relative ends fit in u32: the run kernel (short values copied as
            // fixed-size windows).
            let ends = offsets[1..].iter().map(|&o| o as u32);
            append_plain_run(data, ends, out, None);
        }
        Values::Bytes { offsets, data } => {
            // Straight from the offsets: no slice list, one reservation.
            out.reserve(data.len() + 4 * (offsets.len() - 1));
            for w in offsets.windows(2) {
                let len = u32::try_from(w[1] - w[0]).map_err(|_| {
                    Error::invalid_argument("a BYTE_ARRAY value is longer than 4 GiB")
                })?;
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&data[w[0]..w[1]]);
            }
        }
        Values::Fixed { width, data } => plain::encode_flba(data, *width, out)?,
    }
    Ok(())
}

/// Appends `values` in `encoding` (not a dictionary encoding) to `out`.
pub(crate) fn encode(values: &Values, encoding: Encoding, out: &mut Vec<u8>) -> Result<()> {
    match (encoding, values) {
        (Encoding::PLAIN, _) => encode_plain(values, out)?,
        (Encoding::RLE, Values::Bool(v)) => {
            let mut encoder = RleEncoder::new(1);
            for &b in v {
                encoder.put(u64::from(b));
            }
            encoder.append_to(out, LengthPrefix::With);
        }
        (Encoding::DELTA_BINARY_PACKED, Values::I32(v)) => delta_binary_packed::encode(v, out),
        (Encoding::DELTA_BINARY_PACKED, Values::I64(v)) => delta_binary_packed::encode(v, out),
        (Encoding::DELTA_LENGTH_BYTE_ARRAY, Values::Bytes { offsets, data }) => {
            // The lengths from the offsets, the bytes as one block: the values are
            // already back to back, as DELTA_LENGTH_BYTE_ARRAY stores them.
            let lengths = offsets
                .windows(2)
                .map(|w| {
                    i32::try_from(w[1] - w[0]).map_err(|_| {
                        Error::invalid_argument("DELTA_LENGTH_BYTE_ARRAY value longer than 2 GiB")
                    })
                })
                .collect::<Result<Vec<i32>>>()?;
            delta_binary_packed::encode(&lengths, out);
            out.extend_from_slice(data);
        }
        (Encoding::DELTA_BYTE_ARRAY, Values::Bytes { .. } | Values::Fixed { .. }) => {
            let slices: Vec<&[u8]> = values.byte_values().collect();
            delta_byte_array::encode(&slices, out)?;
        }
        (Encoding::BYTE_STREAM_SPLIT, Values::I32(v)) => byte_stream_split::encode_fixed(v, out),
        (Encoding::BYTE_STREAM_SPLIT, Values::I64(v)) => byte_stream_split::encode_fixed(v, out),
        (Encoding::BYTE_STREAM_SPLIT, Values::F32(v)) => byte_stream_split::encode_fixed(v, out),
        (Encoding::BYTE_STREAM_SPLIT, Values::F64(v)) => byte_stream_split::encode_fixed(v, out),
        (Encoding::BYTE_STREAM_SPLIT, Values::Fixed { width, data }) => {
            byte_stream_split::encode_bytes(data, *width, out)?
        }
        (other, _) => {
            return Err(Error::invalid_argument(format!(
                "encoding {other} does not apply to these values"
            )));
        }
    }
    Ok(())
}

/// Bits per level of levels up to `max`.
pub(crate) fn level_bit_width(max: i16) -> usize {
    (16 - (max as u16).leading_zeros()) as usize
}

/// Appends `levels` (each in `0..=max`) RLE / bit-packing hybrid encoded.
pub(crate) fn encode_levels(levels: &[i16], max: i16, prefix: LengthPrefix, out: &mut Vec<u8>) {
    // Levels are 0..=max (never negative): as u16 for the packing kernels.
    let unsigned: Vec<u16> = levels.iter().map(|&l| l as u16).collect();
    rle::encode_values(&unsigned, level_bit_width(max), prefix, out);
}

/// How many of `levels` are 0, 1, ..., `max` (empty when `max` is 0: such a column has
/// no levels to count).
pub(crate) fn histogram(levels: &[i16], max: i16) -> Vec<i64> {
    if max == 0 {
        return Vec::new();
    }
    if max <= 4 {
        // One counting pass per level over blocks small enough to stay in L1: each
        // pass is a vectorized compare-and-add, where one increment per level in
        // memory would wait on the previous one to the same slot (most levels are
        // equal to their neighbours). The counts of a block are 16-bit (eight lanes a
        // vector; a `usize` count keeps two), widened once per block.
        const BLOCK: usize = 4096;
        let mut h = vec![0i64; max as usize + 1];
        for block in levels.chunks(BLOCK) {
            for (v, count) in (0..=max).zip(h.iter_mut()) {
                let n = block
                    .iter()
                    .fold(0u16, |n, &l| n.wrapping_add(u16::from(l == v)));
                *count += i64::from(n);
            }
        }
        return h;
    }
    let mut h = vec![0i64; max as usize + 1];
    for &l in levels {
        if let Some(slot) = h.get_mut(l as usize) {
            *slot += 1;
        }
    }
    h
}

/// Appends the values of `data` (which end at `ends`, relative to `data`) PLAIN-encoded
/// to `out` (each a 4-byte little-endian length, then its bytes), taking each into
/// `bounds`: straight from the Arrow buffers into the page, in one pass.
pub(crate) fn append_plain_run(
    data: &[u8],
    ends: impl ExactSizeIterator<Item = u32>,
    out: &mut Vec<u8>,
    bounds: Option<&mut ByteBounds>,
) {
    out.reserve(data.len() + 4 * ends.len() + WIDE_WINDOW);
    let mut prev = 0u32;
    // Values up to a window long (most of a column of names, codes, words, URLs) are
    // copied as a fixed-size window of the source after their length prefix, and the
    // bytes past the value taken back off: a copy of constant size is a few vector
    // moves where a copy of the value's own length is a call to `memcpy` per value.
    // Two windows, so that short values do not pay for the wide one. A window needs
    // its width of source from the value's start; values near the end of `data` take
    // the exact copy.
    const WINDOW: usize = 32;
    const WIDE_WINDOW: usize = 96;
    macro_rules! run {
        ($each:expr) => {
            for end in ends {
                let (from, to) = (prev as usize, end as usize);
                let value = &data[from..to];
                let prefix = (end - prev).to_le_bytes();
                let tail = data.get(from..).unwrap_or_default();
                if value.len() <= WINDOW
                    && let Some(window) = tail.first_chunk::<WINDOW>()
                {
                    let mut prefixed = [0u8; 4 + WINDOW];
                    prefixed[..4].copy_from_slice(&prefix);
                    prefixed[4..].copy_from_slice(window);
                    out.extend_from_slice(&prefixed);
                    out.truncate(out.len() - (WINDOW - value.len()));
                } else if value.len() <= WIDE_WINDOW
                    && let Some(window) = tail.first_chunk::<WIDE_WINDOW>()
                {
                    out.extend_from_slice(&prefix);
                    out.extend_from_slice(window);
                    out.truncate(out.len() - (WIDE_WINDOW - value.len()));
                } else {
                    out.extend_from_slice(&prefix);
                    out.extend_from_slice(value);
                }
                $each(value);
                prev = end;
            }
        };
    }
    // Two loops rather than a branch per value.
    match bounds {
        Some(b) => run!(|v| b.update(v)),
        None => run!(|_| ()),
    }
}

/// Appends the lengths of the values of `data` (which end at `ends`) to `lengths` and
/// their bytes, as one block, to `out`: the DELTA_LENGTH_BYTE_ARRAY layout. The caller
/// has checked that `data` is shorter than 2 GiB (so every length fits an `i32`).
pub(crate) fn append_delta_length_run(
    data: &[u8],
    ends: impl ExactSizeIterator<Item = u32>,
    out: &mut Vec<u8>,
    lengths: &mut Vec<i32>,
) {
    lengths.reserve(ends.len());
    let mut prev = 0u32;
    lengths.extend(ends.map(|end| {
        let len = (end - prev) as i32;
        prev = end;
        len
    }));
    out.extend_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PLAIN values with their length prefixes, the plain way.
    fn reference(values: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            out.extend_from_slice(v);
        }
        out
    }

    #[test]
    fn level_histograms_count_every_level() {
        // Across block boundaries (4096) and past a 16-bit count per block of one level.
        for max in [1i16, 2, 3, 4, 5, 7] {
            for len in [0usize, 1, 4095, 4096, 4097, 70_000] {
                let levels: Vec<i16> = (0..len)
                    .map(|i| {
                        if i % 3 == 0 {
                            max
                        } else {
                            ((i * 7) % (max as usize + 1)) as i16
                        }
                    })
                    .collect();
                let expected: Vec<i64> = (0..=max)
                    .map(|v| levels.iter().filter(|&&l| l == v).count() as i64)
                    .collect();
                assert_eq!(histogram(&levels, max), expected, "max {max} len {len}");
            }
        }
        assert!(histogram(&[0, 0], 0).is_empty());
    }

    #[test]
    fn plain_runs_of_every_length_near_the_windows() {
        // Lengths 0..=130 across the 32- and 96-byte windows, in several orders, so
        // values sit both far from and within a window of the end of the data; bounds
        // checked.
        let lengths: Vec<usize> = (0..=130)
            .chain((0..=130).rev())
            .chain([97, 96, 95, 33, 32, 31, 0, 1, 64, 96])
            .collect();
        let values: Vec<Vec<u8>> = lengths
            .iter()
            .enumerate()
            .map(|(i, &len)| (0..len).map(|j| (i * 31 + j * 7) as u8).collect())
            .collect();
        for skip in [
            0,
            1,
            60,
            200,
            values.len() - 6,
            values.len() - 3,
            values.len() - 1,
        ] {
            let values = &values[skip..];
            let data: Vec<u8> = values.concat();
            let mut ends = Vec::new();
            let mut at = 0u32;
            for v in values {
                at += v.len() as u32;
                ends.push(at);
            }
            // Output already holding bytes: the run is appended after them.
            let mut out = vec![9u8; 5];
            let mut bounds = ByteBounds::default();
            append_plain_run(&data, ends.iter().copied(), &mut out, Some(&mut bounds));
            assert_eq!(&out[..5], &[9u8; 5]);
            assert_eq!(&out[5..], reference(values).as_slice(), "skip {skip}");
            let mm = bounds.take().expect("bounds");
            assert_eq!(&mm.min, values.iter().min().unwrap());
            assert_eq!(&mm.max, values.iter().max().unwrap());
            let mut out = Vec::new();
            append_plain_run(&data, ends.iter().copied(), &mut out, None);
            assert_eq!(out, reference(values), "skip {skip}");
        }
    }

    #[test]
    fn delta_length_runs_split_lengths_and_bytes() {
        let mut out = vec![1u8];
        let mut lengths = vec![7];
        append_delta_length_run(b"abcdef", [2u32, 2, 6].into_iter(), &mut out, &mut lengths);
        assert_eq!(out, b"\x01abcdef");
        assert_eq!(lengths, vec![7, 2, 0, 4]);
    }

    #[test]
    fn encodings_are_checked_against_the_physical_type() {
        assert!(check_encoding(Type::INT32, Encoding::DELTA_BINARY_PACKED, "a").is_ok());
        let err = check_encoding(Type::DOUBLE, Encoding::DELTA_LENGTH_BYTE_ARRAY, "a.b")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("column a.b") && err.contains("DOUBLE"),
            "{err}"
        );
        assert!(check_encoding(Type::INT64, Encoding::RLE_DICTIONARY, "a").is_err());
        let err = encode(&Values::F64(vec![1.0]), Encoding::RLE, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("RLE"), "{err}");
    }
}
