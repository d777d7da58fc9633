//! Every value decoder fed arbitrary bytes, with parameters (which decoder, bit width,
//! counts) taken from the first input bytes. Asserts: no panic, and skipping then
//! reading yields what reading everything and dropping the prefix yields.
#![no_main]

use herringbone_codec::bitpack;
use herringbone_codec::encoding::byte_stream_split::ByteStreamSplitDecoder;
use herringbone_codec::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use herringbone_codec::encoding::delta_byte_array::DeltaByteArrayDecoder;
use herringbone_codec::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::{PlainBooleanDecoder, PlainDecoder};
use herringbone_codec::rle::RleDecoder;
use libfuzzer_sys::fuzz_target;

/// Caps the number of values asked for, so a hostile count cannot make the fuzzer
/// allocate without bound (the decoders themselves never allocate by a count).
const MAX_VALUES: usize = 4096;

/// Reads everything after skipping `skip` values and compares with reading everything.
/// `read(decoder_fresh, skip, n)` returns the values read after skipping, or `None`
/// on an error (errors may legitimately differ in position, so they end the check).
fn check_skip<T: PartialEq + std::fmt::Debug>(
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

fuzz_target!(|input: &[u8]| {
    if input.len() < 4 {
        return;
    }
    let (params, data) = input.split_at(4);
    let which = params[0] % 12;
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
            let mut d = DeltaBinaryPackedDecoder::<i32>::new(data).ok()?;
            d.skip(s).ok()?;
            let mut out = vec![0i32; k];
            let got = d.decode(&mut out).ok()?;
            out.truncate(got);
            Some(out)
        }),
        4 => check_skip(skip, n, |s, k| {
            let mut d = DeltaBinaryPackedDecoder::<i64>::new(data).ok()?;
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
            Some(
                offsets
                    .windows(2)
                    .map(|w| values[w[0] as usize..w[1] as usize].to_vec())
                    .collect(),
            )
        }),
        6 => check_skip(skip, n, |s, k| {
            let mut d = DeltaByteArrayDecoder::new(data).ok()?;
            d.skip(s).ok()?;
            let (mut offsets, mut values) = (Vec::<i64>::new(), Vec::new());
            d.decode(k, &mut offsets, &mut values).ok()?;
            Some(
                offsets
                    .windows(2)
                    .map(|w| values[w[0] as usize..w[1] as usize].to_vec())
                    .collect(),
            )
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
            let _ = bitpack::unpack_from(data, w, skip, &mut lsb);
            let mut msb = vec![0u64; n];
            let _ = bitpack::unpack_msb_first(data, w, skip, &mut msb);
        }
    }
});
