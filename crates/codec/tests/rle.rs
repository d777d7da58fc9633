//! RLE / bit-packing hybrid and bit packing: spec examples, round trips, hostile input
//! and cross-checks against arrow-rs.

use bytes::Bytes;
use herringbone_codec::bitpack;
use herringbone_codec::rle::{
    LengthPrefix, RleDecoder, RleEncoder, Run, encode_bitmap, encode_values,
};
use proptest::prelude::*;

fn encode(values: &[u64], width: usize) -> Vec<u8> {
    let mut encoder = RleEncoder::new(width);
    for &v in values {
        encoder.put(v);
    }
    encoder.finish()
}

fn decode_all(bytes: &[u8], width: usize, n: usize) -> Vec<u64> {
    let mut decoder = RleDecoder::new(bytes, width).unwrap();
    let mut out = vec![0u64; n];
    assert_eq!(decoder.get_batch(&mut out).unwrap(), n);
    out
}

#[test]
fn spec_example_rle_hybrid_0_to_7_width_3() {
    // Encodings.md: one bit-packed run of one group, header (1 << 1) | 1.
    let expected = [0x03, 0b1000_1000, 0b1100_0110, 0b1111_1010];
    let values: Vec<u64> = (0..8).collect();
    assert_eq!(encode(&values, 3), expected);
    assert_eq!(decode_all(&expected, 3, 8), values);
}

#[test]
fn spec_example_bit_packed_msb_first_0_to_7_width_3() {
    let expected = [0b0000_0101, 0b0011_1001, 0b0111_0111];
    let mut packed = Vec::new();
    bitpack::pack_msb_first(&[0u8, 1, 2, 3, 4, 5, 6, 7], 3, &mut packed).unwrap();
    assert_eq!(packed, expected);
    let mut out = [0u16; 8];
    bitpack::unpack_msb_first(&expected, 3, 0, &mut out).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
    let mut tail = [0u16; 3];
    bitpack::unpack_msb_first(&expected, 3, 5, &mut tail).unwrap();
    assert_eq!(tail, [5, 6, 7]);
    assert!(bitpack::unpack_msb_first(&expected, 3, 0, &mut [0u16; 9]).is_err());
}

#[test]
fn length_prefix_and_dictionary_framings() {
    let values = [1u64, 1, 0, 1, 0, 0, 0, 1, 1, 1];
    let mut encoder = RleEncoder::new(1);
    values.iter().for_each(|&v| encoder.put(v));
    let mut framed = Vec::new();
    encoder.append_to(&mut framed, LengthPrefix::With);
    framed.extend_from_slice(b"rest");
    let (mut decoder, used) = RleDecoder::with_length_prefix(&framed, 1).unwrap();
    assert_eq!(&framed[used..], b"rest");
    let mut out = [0u8; 10];
    assert_eq!(decoder.get_batch(&mut out).unwrap(), 10);
    assert_eq!(out.map(u64::from), values);

    let mut dict_page = vec![2u8];
    let mut encoder = RleEncoder::new(2);
    [3u64, 0, 2, 2].iter().for_each(|&v| encoder.put(v));
    encoder.append_to(&mut dict_page, LengthPrefix::Without);
    let mut decoder = RleDecoder::for_dictionary_indices(&dict_page).unwrap();
    let dictionary = ["a", "b", "c", "d"];
    let mut out = [""; 4];
    assert_eq!(
        decoder
            .get_batch_with_dictionary(&dictionary, &mut out)
            .unwrap(),
        4
    );
    assert_eq!(out, ["d", "a", "c", "c"]);
    let mut decoder = RleDecoder::for_dictionary_indices(&dict_page).unwrap();
    let err = decoder
        .get_batch_with_dictionary(&dictionary[..3], &mut out)
        .unwrap_err();
    assert!(err.message().contains("out of range"), "{err}");
}

#[test]
fn a_run_of_a_million_nulls_is_one_step() {
    let mut encoder = RleEncoder::new(1);
    encoder.put_run(0, 1_000_000);
    encoder.put_run(1, 70_000);
    let bytes = encoder.finish();
    assert!(bytes.len() < 10, "{bytes:?}");
    let mut decoder = RleDecoder::new(&bytes, 1).unwrap();
    assert_eq!(
        decoder.next_run(usize::MAX).unwrap(),
        Some(Run::Repeated {
            value: 0,
            count: 1_000_000
        })
    );
    assert_eq!(
        decoder.next_run(5).unwrap(),
        Some(Run::Repeated { value: 1, count: 5 })
    );
    assert_eq!(decoder.skip(usize::MAX).unwrap(), 69_995);
    assert_eq!(decoder.next_run(1).unwrap(), None);
}

#[test]
fn width_zero_and_64() {
    let zeros = vec![0u64; 1000];
    let bytes = encode(&zeros, 0);
    assert_eq!(decode_all(&bytes, 0, 1000), zeros);
    let wide: Vec<u64> = (0..100)
        .map(|i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .chain([u64::MAX; 9])
        .collect();
    let bytes = encode(&wide, 64);
    assert_eq!(decode_all(&bytes, 64, wide.len()), wide);
}

/// A value sequence with runs: (value, run length) pairs expanded.
fn runs_strategy(width: usize) -> impl Strategy<Value = Vec<u64>> {
    let max = bitpack::mask(width);
    prop::collection::vec(
        (0..=max, prop_oneof![1usize..4, 1usize..20, 1usize..300]),
        0..40,
    )
    .prop_map(|runs| {
        runs.into_iter()
            .flat_map(|(v, n)| std::iter::repeat_n(v, n))
            .collect()
    })
}

fn width_and_values() -> impl Strategy<Value = (usize, Vec<u64>)> {
    (0usize..=64).prop_flat_map(|w| (Just(w), runs_strategy(w)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn rle_round_trip_every_width((width, values) in width_and_values()) {
        let bytes = encode(&values, width);
        prop_assert!(bytes.len() <= RleEncoder::max_buffer_size(width, values.len()));
        let mut decoder = RleDecoder::new(&bytes, width).unwrap();
        let mut out = vec![0u64; values.len() + 8];
        let n = decoder.get_batch(&mut out).unwrap();
        // Padding of the last bit-packed group decodes as zeros beyond the values.
        prop_assert!(n >= values.len() && n < values.len() + 8);
        prop_assert_eq!(&out[..values.len()], &values[..]);
    }

    #[test]
    fn rle_skip_then_read_equals_read_then_drop(
        (width, values) in width_and_values(),
        skip in 0usize..2000,
        chunk in 1usize..100,
    ) {
        let bytes = encode(&values, width);
        let skip = skip.min(values.len());
        let mut decoder = RleDecoder::new(&bytes, width).unwrap();
        prop_assert_eq!(decoder.skip(skip).unwrap(), skip);
        let mut got = Vec::new();
        let mut buf = vec![0u64; chunk];
        while got.len() < values.len() - skip {
            let n = decoder.get_batch(&mut buf).unwrap();
            prop_assert!(n > 0);
            got.extend_from_slice(&buf[..n]);
        }
        prop_assert_eq!(&got[..values.len() - skip], &values[skip..]);
    }

    #[test]
    fn rle_matches_arrow_rs_both_ways((width, values) in (1usize..=32).prop_flat_map(|w| (Just(w), runs_strategy(w)))) {
        let ours = encode(&values, width);
        let mut theirs = parquet::encodings::rle::RleEncoder::new(width as u8, 1024);
        for &v in &values {
            theirs.put(v);
        }
        let theirs = theirs.consume();
        prop_assert_eq!(&ours, &theirs);
        let mut decoder = parquet::encodings::rle::RleDecoder::new(width as u8);
        decoder.set_data(Bytes::from(ours.clone())).unwrap();
        let mut out = vec![0u32; values.len()];
        prop_assert_eq!(decoder.get_batch(&mut out).unwrap(), values.len());
        prop_assert!(out.iter().zip(&values).all(|(&a, &b)| u64::from(a) == b));
    }

    #[test]
    fn rle_decoder_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
        width in 0usize..=70,
        reads in prop::collection::vec((any::<bool>(), 0usize..300), 1..6),
    ) {
        if let Ok(mut decoder) = RleDecoder::new(&bytes, width) {
            let mut out = vec![0u64; 300];
            for (skip, n) in reads {
                let result = if skip { decoder.skip(n) } else { decoder.get_batch(&mut out[..n]) };
                if result.is_err() {
                    break;
                }
            }
        }
        let _ = RleDecoder::for_dictionary_indices(&bytes).and_then(|mut d| {
            let dict = [0u8; 5];
            let mut out = [0u8; 64];
            d.get_batch_with_dictionary(&dict, &mut out)
        });
        let _ = RleDecoder::with_length_prefix(&bytes, width.min(64));
    }

    #[test]
    fn bitpack_round_trip_and_arrow_rs_unpack(width in 0usize..=32, n in 0usize..300, seed in any::<u64>()) {
        let values: Vec<u32> = (0..n as u64)
            .map(|i| (i.wrapping_add(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as u32 & bitpack::mask(width) as u32)
            .collect();
        let mut packed = Vec::new();
        bitpack::pack(&values, width, &mut packed).unwrap();
        prop_assert_eq!(packed.len(), bitpack::packed_len(n, width));
        let mut reader = parquet::util::bit_util::BitReader::new(Bytes::from(packed.clone()));
        let mut theirs = vec![0u32; n];
        if width > 0 {
            prop_assert_eq!(reader.get_batch(&mut theirs, width), n);
            prop_assert_eq!(&theirs, &values);
        }
        let mut ours = vec![0u32; n];
        bitpack::unpack(&packed, width, &mut ours).unwrap();
        prop_assert_eq!(&ours, &values);
    }
}

#[test]
fn runs_longer_than_2_pow_16_every_output_type() {
    for width in [1usize, 2, 7, 8, 9, 16, 20, 32] {
        let value = bitpack::mask(width) / 3 + 1;
        let mut encoder = RleEncoder::new(width);
        encoder.put_run(value, 70_000);
        for v in 0..20 {
            encoder.put(v & bitpack::mask(width));
        }
        encoder.put_run(0, 1 << 17);
        let bytes = encoder.finish();
        let total = 70_000 + 20 + (1 << 17);
        let mut decoder = RleDecoder::new(&bytes, width).unwrap();
        let mut out = vec![0u32; total];
        assert_eq!(decoder.get_batch(&mut out).unwrap(), total, "width {width}");
        assert!(out[..70_000].iter().all(|&v| u64::from(v) == value));
        assert!(
            out[70_000..70_020]
                .iter()
                .enumerate()
                .all(|(i, &v)| u64::from(v) == i as u64 & bitpack::mask(width))
        );
        assert!(out[70_020..].iter().all(|&v| v == 0));
        if width <= 16 {
            let mut decoder = RleDecoder::new(&bytes, width).unwrap();
            assert_eq!(decoder.skip(69_999).unwrap(), 69_999);
            let mut small = [0u16; 3];
            assert_eq!(decoder.get_batch(&mut small).unwrap(), 3);
            assert_eq!(small.map(u64::from), [value, 0, 1]);
        }
        if width <= 8 {
            let mut decoder = RleDecoder::new(&bytes, width).unwrap();
            let mut bytes_out = vec![0u8; total];
            assert_eq!(decoder.get_batch(&mut bytes_out).unwrap(), total);
            assert!(bytes_out.iter().zip(&out).all(|(&a, &b)| u32::from(a) == b));
        }
    }
    // A bit width wider than the output type is the caller's error, not a panic.
    let mut decoder = RleDecoder::new(&[0x02, 0x01, 0x01], 9).unwrap();
    let err = decoder.get_batch(&mut [0u8; 1]).unwrap_err();
    assert_eq!(err.kind(), herringbone_codec::ErrorKind::InvalidArgument);
}

/// Bits as an LSB-first bitmap with garbage set past `bits.len()` (must be ignored).
fn to_bitmap(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0xA5u8; bits.len().div_ceil(8) + 1];
    for (i, &b) in bits.iter().enumerate() {
        if b {
            out[i / 8] |= 1 << (i % 8);
        } else {
            out[i / 8] &= !(1 << (i % 8));
        }
    }
    out
}

#[test]
fn encode_bitmap_runs_and_mixed_bytes() {
    // 24 ones, a mixed byte, then 17 zeros: the run of ones takes the mixed byte's
    // first bit (25 ones), the next 8 bits are one bit-packed group, 16 zeros remain.
    let mut bits = vec![true; 24];
    bits.extend([true, false, true, false, false, true, true, false]);
    bits.extend([false; 17]);
    let bitmap = to_bitmap(&bits);
    let mut out = Vec::new();
    encode_bitmap(&bitmap, bits.len(), LengthPrefix::Without, &mut out);
    assert_eq!(out, [25 << 1, 1, 0x03, 0b0011_0010, 16 << 1, 0]);
    let decoded = decode_all(&out, 1, bits.len());
    assert_eq!(
        decoded,
        bits.iter().map(|&b| u64::from(b)).collect::<Vec<_>>()
    );
    // Empty and all-one pages, with the v1 length prefix.
    let mut out = Vec::new();
    encode_bitmap(&[], 0, LengthPrefix::With, &mut out);
    assert_eq!(out, [0, 0, 0, 0]);
    let mut out = Vec::new();
    encode_bitmap(&[0xff; 2500], 20_000, LengthPrefix::With, &mut out);
    let (mut decoder, used) = RleDecoder::with_length_prefix(&out, 1).unwrap();
    assert_eq!(used, out.len());
    assert_eq!(
        decoder.next_run(usize::MAX).unwrap(),
        Some(Run::Repeated {
            value: 1,
            count: 20_000
        })
    );
}

#[test]
fn encode_values_long_literal_runs_use_a_varint_header() {
    // 1,000 distinct-ish values: one bit-packed run of 125 groups (two header bytes).
    let values: Vec<u32> = (0..1000u32).map(|i| (i * 7919) % 1024).collect();
    let mut out = Vec::new();
    encode_values(&values, 10, LengthPrefix::Without, &mut out);
    assert_eq!(out.len(), 2 + 1250);
    assert_eq!(
        decode_all(&out, 10, 1000),
        values.iter().map(|&v| u64::from(v)).collect::<Vec<_>>()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn encode_values_round_trips_and_arrow_rs_reads_it(
        (width, values) in (0usize..=32).prop_flat_map(|w| (Just(w), runs_strategy(w))),
        prefixed in any::<bool>(),
    ) {
        let narrow: Vec<u32> = values.iter().map(|&v| v as u32).collect();
        let prefix = if prefixed { LengthPrefix::With } else { LengthPrefix::Without };
        let mut out = vec![7u8];
        encode_values(&narrow, width, prefix, &mut out);
        let stream = if prefixed {
            let (_, used) = RleDecoder::with_length_prefix(&out[1..], width).unwrap();
            prop_assert_eq!(used, out.len() - 1);
            &out[5..]
        } else {
            &out[1..]
        };
        prop_assert_eq!(decode_all(stream, width, values.len()), values.clone());
        // Never larger than the put-at-a-time encoder (which caps bit-packed runs).
        prop_assert!(stream.len() <= encode(&values, width).len());
        if width > 0 {
            let mut decoder = parquet::encodings::rle::RleDecoder::new(width as u8);
            decoder.set_data(Bytes::from(stream.to_vec())).unwrap();
            let mut theirs = vec![0u32; values.len()];
            prop_assert_eq!(decoder.get_batch(&mut theirs).unwrap(), values.len());
            prop_assert_eq!(theirs, narrow);
        }
    }

    #[test]
    fn encode_bitmap_equals_the_levels_it_stands_for(
        runs in prop::collection::vec((any::<bool>(), prop_oneof![1usize..4, 1usize..40, 1usize..400]), 0..30),
        noise in prop::collection::vec(any::<bool>(), 0..100),
    ) {
        let mut bits: Vec<bool> = runs.into_iter().flat_map(|(b, n)| std::iter::repeat_n(b, n)).collect();
        bits.extend(noise);
        let bitmap = to_bitmap(&bits);
        let mut out = Vec::new();
        encode_bitmap(&bitmap, bits.len(), LengthPrefix::Without, &mut out);
        let levels: Vec<u64> = bits.iter().map(|&b| u64::from(b)).collect();
        prop_assert_eq!(decode_all(&out, 1, bits.len()), levels.clone());
        // Close to the reference encoder's runs: repeated runs here start on whole bytes
        // (the reference starts them at any value), which costs a byte or two per run.
        let reference = encode(&levels, 1).len();
        prop_assert!(out.len() <= reference + reference / 4 + 3, "{} vs {}", out.len(), reference);
        let mut decoder = parquet::encodings::rle::RleDecoder::new(1);
        decoder.set_data(Bytes::from(out)).unwrap();
        let mut theirs = vec![0u8; bits.len()];
        prop_assert_eq!(decoder.get_batch(&mut theirs).unwrap(), bits.len());
        prop_assert!(theirs.iter().zip(&bits).all(|(&a, &b)| (a == 1) == b));
    }
}
