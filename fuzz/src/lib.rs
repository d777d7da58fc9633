//! Shared bodies of the decoder fuzz targets: every value decoder fed arbitrary bytes,
//! with parameters (bit width, counts) taken from the first input bytes. Asserts: no
//! panic, skipping then reading yields what reading everything and dropping the
//! prefix yields, and bit unpacking agrees with a bit-by-bit reference.

use herringbone_codec::bitpack;
use herringbone_codec::encoding::byte_stream_split::ByteStreamSplitDecoder;
use herringbone_codec::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use herringbone_codec::encoding::delta_byte_array::DeltaByteArrayDecoder;
use herringbone_codec::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::{PlainBooleanDecoder, PlainDecoder};
use herringbone_codec::rle::RleDecoder;

/// Caps the number of values asked for, so a hostile count cannot make the fuzzer
/// allocate without bound (the decoders themselves never allocate by a count).
pub const MAX_VALUES: usize = 4096;

/// Reads everything after skipping `skip` values and compares with reading everything.
/// `read(decoder_fresh, skip, n)` returns the values read after skipping, or `None`
/// on an error (errors may legitimately differ in position, so they end the check).
pub fn check_skip<T: PartialEq + std::fmt::Debug>(
    skip: usize,
    n: usize,
    read: impl Fn(usize, usize) -> Option<Vec<T>>,
) {
    let (Some(all), Some(rest)) = (read(0, skip + n), read(skip, n)) else {
        return;
    };
    if all.len() >= skip {
        let expected = &all[skip..];
        assert_eq!(
            &rest[..rest.len().min(expected.len())],
            &expected[..rest.len().min(expected.len())]
        );
    }
}

/// The decoder a fuzz target exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoder {
    /// RLE / bit-packing hybrid, with and without the length prefix.
    Rle,
    /// Dictionary indices and the gather into dictionary values.
    Dictionary,
    /// DELTA_BINARY_PACKED, i32 and i64.
    DeltaBinaryPacked,
    /// DELTA_LENGTH_BYTE_ARRAY.
    DeltaLengthByteArray,
    /// DELTA_BYTE_ARRAY, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
    DeltaByteArray,
    /// BYTE_STREAM_SPLIT of any value width.
    ByteStreamSplit,
    /// PLAIN: byte arrays, fixed-width values and booleans.
    Plain,
    /// Bit unpacking (LSB-first and the deprecated MSB-first).
    Bitpack,
}

impl Decoder {
    /// The case numbers of [`run_case`] that exercise this decoder.
    fn cases(self) -> &'static [u8] {
        match self {
            Decoder::Rle => &[0, 1],
            Decoder::Dictionary => &[2],
            Decoder::DeltaBinaryPacked => &[3, 4],
            Decoder::DeltaLengthByteArray => &[5],
            Decoder::DeltaByteArray => &[6, 7],
            Decoder::ByteStreamSplit => &[8],
            Decoder::Plain => &[9, 10],
            Decoder::Bitpack => &[11],
        }
    }
}

/// Value `i` of `width` bits read one bit at a time (LSB-first), `None` past the end.
fn reference_value(data: &[u8], width: usize, i: usize) -> Option<u64> {
    let mut v = 0u64;
    for b in 0..width {
        let pos = i.checked_mul(width)?.checked_add(b)?;
        v |= u64::from(data.get(pos / 8)? >> (pos % 8) & 1) << b;
    }
    Some(v)
}

/// One decoder case over `input`: the first 4 bytes are parameters, the rest data.
pub fn run(decoder: Decoder, input: &[u8]) {
    if input.len() < 4 {
        return;
    }
    let cases = decoder.cases();
    run_case(cases[usize::from(input[0]) % cases.len()], input);
}

/// Any decoder case over `input`, chosen by its first byte.
pub fn run_any(input: &[u8]) {
    if input.len() < 4 {
        return;
    }
    run_case(input[0] % 12, input);
}

fn run_case(which: u8, input: &[u8]) {
    let (params, data) = input.split_at(4);
    let width = usize::from(params[1]);
    let skip = usize::from(params[2]) * 7;
    let n = (usize::from(params[3]) * 17).min(MAX_VALUES);

    match which {
        0 => check_skip(skip, n, |s, k| {
            let mut d = RleDecoder::new(data, width % 65).ok()?;
            d.skip(s).ok()?;
            let mut out = vec![0u64; k];
            let got = d.get_batch(&mut out).ok()?;
            out.truncate(got);
            Some(out)
        }),
        1 => check_skip(skip, n, |s, k| {
            let (mut d, _) = RleDecoder::with_length_prefix(data, width % 33).ok()?;
            d.skip(s).ok()?;
            let mut out = vec![0u32; k];
            let got = d.get_batch(&mut out).ok()?;
            out.truncate(got);
            Some(out)
        }),
        2 => check_skip(skip, n, |s, k| {
            let mut d = DictionaryIndexDecoder::new(data).ok()?;
            d.skip(s).ok()?;
            let dictionary: Vec<u16> = (0..width as u16 + 1).collect();
            let mut out = vec![0u16; k];
            let got = d.gather(&dictionary, &mut out).ok()?;
            out.truncate(got);
            Some(out)
        }),
        3 => check_skip(skip, n, |s, k| {
            let mut d = DeltaBinaryPackedDecoder::<i32, _>::new(data).ok()?;
            d.skip(s).ok()?;
            let mut out = vec![0i32; k];
            let got = d.decode(&mut out).ok()?;
            out.truncate(got);
            Some(out)
        }),
        4 => check_skip(skip, n, |s, k| {
            let mut d = DeltaBinaryPackedDecoder::<i64, _>::new(data).ok()?;
            let _ = d.end_offset();
            d.skip(s).ok()?;
            let mut out = vec![0i64; k];
            let got = d.decode(&mut out).ok()?;
            out.truncate(got);
            Some(out)
        }),
        5 => check_skip(skip, n, |s, k| {
            let mut d = DeltaLengthByteArrayDecoder::new(data).ok()?;
            d.skip(s).ok()?;
            let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
            d.decode(k, &mut offsets, &mut values).ok()?;
            Some(split_values(&offsets, &values))
        }),
        6 => check_skip(skip, n, |s, k| {
            let mut d = DeltaByteArrayDecoder::new(data).ok()?;
            d.skip(s).ok()?;
            let (mut offsets, mut values) = (Vec::<i64>::new(), Vec::new());
            d.decode(k, &mut offsets, &mut values).ok()?;
            Some(split_values(&offsets, &values))
        }),
        7 => check_skip(skip, n, |s, k| {
            let mut d = DeltaByteArrayDecoder::new(data).ok()?;
            d.skip(s).ok()?;
            let mut out = Vec::new();
            let w = width.max(1);
            d.decode_fixed(w, k, &mut out).ok()?;
            Some(out.chunks(w).map(<[u8]>::to_vec).collect())
        }),
        8 => check_skip(skip, n, |s, k| {
            let mut d = ByteStreamSplitDecoder::new(data, width.max(1)).ok()?;
            d.skip(s).ok()?;
            let mut out = Vec::new();
            let got = d.decode_bytes(k, &mut out).ok()?;
            Some(
                out.chunks(width.max(1))
                    .take(got)
                    .map(<[u8]>::to_vec)
                    .collect(),
            )
        }),
        9 => check_skip(skip, n, |s, k| {
            let mut d = PlainDecoder::new(data);
            d.skip_byte_array(s).ok()?;
            let mut views = Vec::new();
            d.decode_byte_array_views(k, &mut views).ok()?;
            Some(views)
        }),
        10 => {
            check_skip(skip, n, |s, k| {
                let mut d = PlainDecoder::new(data);
                d.skip_fixed::<i64>(s).ok()?;
                let mut out = vec![0i64; k];
                let got = d.decode_fixed(&mut out).ok()?;
                out.truncate(got);
                Some(out)
            });
            check_skip(skip, n, |s, k| {
                let mut d = PlainBooleanDecoder::new(data);
                d.skip(s);
                let mut out = vec![false; k];
                let got = d.decode(&mut out);
                out.truncate(got);
                Some(out)
            });
        }
        _ => {
            let w = width % 65;
            let mut lsb = vec![0u64; n];
            if bitpack::unpack_from(data, w, skip, &mut lsb).is_ok() {
                for (k, &v) in lsb.iter().enumerate() {
                    assert_eq!(Some(v), reference_value(data, w, skip + k), "u64 value {k}");
                }
            }
            if w <= 32 {
                let mut narrow = vec![0u32; n];
                if bitpack::unpack_from(data, w, skip, &mut narrow).is_ok() {
                    for (k, &v) in narrow.iter().enumerate() {
                        assert_eq!(u64::from(v), lsb[k], "u32 value {k}");
                    }
                }
            }
            let mut msb = vec![0u64; n];
            let _ = bitpack::unpack_msb_first(data, w, skip, &mut msb);
        }
    }
}

/// The byte arrays between consecutive `offsets` into `values`, one vector each.
fn split_values<O: Copy + TryInto<usize>>(offsets: &[O], values: &[u8]) -> Vec<Vec<u8>> {
    let at = |o: O| o.try_into().unwrap_or(usize::MAX);
    offsets
        .windows(2)
        .map(|w| values[at(w[0])..at(w[1])].to_vec())
        .collect()
}
