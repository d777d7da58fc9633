//! Value encodings: the specification's examples byte for byte, round trips for every
//! encoding and type, skip consistency, hostile bytes, and arrow-rs cross-checks.

use bytes::Bytes;
use herringbone_codec::encoding::FixedWidth;
use herringbone_codec::encoding::byte_stream_split::{self, ByteStreamSplitDecoder};
use herringbone_codec::encoding::delta_binary_packed::{self, DeltaBinaryPackedDecoder, DeltaInt};
use herringbone_codec::encoding::delta_byte_array::{self, DeltaByteArrayDecoder};
use herringbone_codec::encoding::delta_length_byte_array::{self, DeltaLengthByteArrayDecoder};
use herringbone_codec::encoding::dictionary::{self, DictionaryIndexDecoder};
use herringbone_codec::encoding::plain::{self, PlainBooleanDecoder, PlainDecoder};
use parquet::data_type::{Int32Type, Int64Type};
use parquet::encodings::decoding::{Decoder, DeltaBitPackDecoder};
use parquet::encodings::encoding::{DeltaBitPackEncoder, Encoder};
use proptest::prelude::*;

fn dbp_decode<T: DeltaInt>(bytes: &[u8]) -> Vec<T> {
    let mut decoder = DeltaBinaryPackedDecoder::<T, _>::new(bytes).unwrap();
    let mut out = vec![T::default(); decoder.len()];
    assert_eq!(decoder.decode(&mut out).unwrap(), out.len());
    out
}

#[test]
fn spec_example_delta_binary_packed_1_to_5() {
    // header: block 8, 1 miniblock, 5 values, first 1 (zigzag 2); block: min delta 1
    // (zigzag 2), bit width 0, no miniblock data.
    let expected = [8, 1, 5, 2, 2, 0];
    let mut ours = Vec::new();
    delta_binary_packed::encode_with_layout(&[1i32, 2, 3, 4, 5], 8, 1, &mut ours).unwrap();
    assert_eq!(ours, expected);
    assert_eq!(dbp_decode::<i32>(&expected), [1, 2, 3, 4, 5]);
    assert_eq!(dbp_decode::<i64>(&expected), [1, 2, 3, 4, 5]);
}

#[test]
fn spec_example_delta_binary_packed_7_5_3_1_2_3_4_5() {
    // header: block 8, 1 miniblock, 8 values, first 7 (zigzag 14); block: min delta -2
    // (zigzag 3), bit width 2, then 0,0,0,3,3,3,3 (+ one padding value) on 2 bits.
    let expected = [8, 1, 8, 14, 3, 2, 0b1100_0000, 0b0011_1111];
    let values = [7i64, 5, 3, 1, 2, 3, 4, 5];
    let mut ours = Vec::new();
    delta_binary_packed::encode_with_layout(&values, 8, 1, &mut ours).unwrap();
    assert_eq!(ours, expected);
    assert_eq!(dbp_decode::<i64>(&expected), values);
}

#[test]
fn spec_example_delta_length_byte_array() {
    let values = ["Hello", "World", "Foobar", "ABCDEF"];
    let mut expected = Vec::new();
    delta_binary_packed::encode(&[5i32, 5, 6, 6], &mut expected);
    expected.extend_from_slice(b"HelloWorldFoobarABCDEF");
    let mut ours = Vec::new();
    delta_length_byte_array::encode(&values, &mut ours).unwrap();
    assert_eq!(ours, expected);

    let mut decoder = DeltaLengthByteArrayDecoder::new(&expected).unwrap();
    let (mut offsets, mut data) = (Vec::<i32>::new(), Vec::new());
    assert_eq!(decoder.decode(4, &mut offsets, &mut data).unwrap(), 4);
    assert_eq!(offsets, [0, 5, 10, 16, 22]);
    assert_eq!(data, b"HelloWorldFoobarABCDEF");
    assert_eq!(decoder.position(), expected.len());

    let mut decoder = DeltaLengthByteArrayDecoder::new(&expected).unwrap();
    let mut views = Vec::new();
    assert_eq!(decoder.skip(1).unwrap(), 1);
    assert_eq!(decoder.decode_views(5, &mut views).unwrap(), 3);
    let strings: Vec<&[u8]> = views
        .iter()
        .map(|&(s, l)| &expected[s as usize..(s + l) as usize])
        .collect();
    assert_eq!(strings, [&b"World"[..], b"Foobar", b"ABCDEF"]);
}

#[test]
fn spec_example_delta_byte_array() {
    let values = ["axis", "axle", "babble", "babyhood"];
    let mut expected = Vec::new();
    delta_binary_packed::encode(&[0i32, 2, 0, 3], &mut expected);
    delta_binary_packed::encode(&[4i32, 2, 6, 5], &mut expected);
    expected.extend_from_slice(b"axislebabbleyhood");
    let mut ours = Vec::new();
    delta_byte_array::encode(&values, &mut ours).unwrap();
    assert_eq!(ours, expected);

    let mut decoder = DeltaByteArrayDecoder::new(&expected).unwrap();
    let (mut offsets, mut data) = (Vec::<i64>::new(), Vec::new());
    assert_eq!(decoder.decode(10, &mut offsets, &mut data).unwrap(), 4);
    assert_eq!(offsets, [0, 4, 8, 14, 22]);
    assert_eq!(data, b"axisaxlebabblebabyhood");

    let mut decoder = DeltaByteArrayDecoder::new(&expected).unwrap();
    assert_eq!(decoder.skip(3).unwrap(), 3);
    let (mut offsets, mut data) = (Vec::<i32>::new(), Vec::new());
    decoder.decode(1, &mut offsets, &mut data).unwrap();
    assert_eq!(data, b"babyhood");
}

#[test]
fn spec_example_byte_stream_split() {
    let raw = [
        0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6,
    ];
    let expected = [
        0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6,
    ];
    let mut ours = Vec::new();
    byte_stream_split::encode_bytes(&raw, 4, &mut ours).unwrap();
    assert_eq!(ours, expected);
    let floats: Vec<f32> = raw
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut decoder = ByteStreamSplitDecoder::new(&expected, 4).unwrap();
    let mut out = [0f32; 3];
    assert_eq!(decoder.decode_fixed(&mut out).unwrap(), 3);
    assert_eq!(
        out.map(f32::to_bits),
        [0, 1, 2].map(|i| floats[i].to_bits())
    );
    let mut decoder = ByteStreamSplitDecoder::new(&expected, 4).unwrap();
    let mut bytes = Vec::new();
    assert_eq!(decoder.decode_bytes(3, &mut bytes).unwrap(), 3);
    assert_eq!(bytes, raw);
    assert!(ByteStreamSplitDecoder::new(&expected[..11], 4).is_err());
}

#[test]
fn plain_every_physical_type() {
    let mut page = Vec::new();
    plain::encode_booleans(
        &[true, false, true, true, false, false, false, false, true],
        &mut page,
    );
    assert_eq!(page, [0b0000_1101, 0b0000_0001]);
    let mut decoder = PlainBooleanDecoder::new(&page);
    assert_eq!(decoder.skip(2), 2);
    let mut out = [false; 7];
    assert_eq!(decoder.decode(&mut out), 7);
    assert_eq!(out, [true, true, false, false, false, false, true]);

    fn fixed<T: FixedWidth>(values: &[T]) {
        let mut page = Vec::new();
        plain::encode_fixed(values, &mut page);
        assert_eq!(page.len(), values.len() * T::SIZE);
        let mut decoder = PlainDecoder::new(&page);
        let mut out = vec![T::default(); values.len() + 1];
        assert_eq!(decoder.skip_fixed::<T>(1).unwrap(), 1);
        assert_eq!(decoder.decode_fixed(&mut out).unwrap(), values.len() - 1);
        assert_eq!(out[..values.len() - 1], values[1..]);
    }
    fixed(&[i32::MIN, -1, 0, i32::MAX]);
    fixed(&[i64::MIN, -1, 0, i64::MAX]);
    fixed(&[f32::MIN, -0.0, 1.5, f32::INFINITY]);
    fixed(&[f64::MIN, -0.0, 1.5, f64::INFINITY]);
    fixed(&[[1u8; 12], [0xFF; 12], [7; 12]]);
    assert_eq!(
        {
            let mut p = Vec::new();
            plain::encode_fixed(&[1i32, -2], &mut p);
            p
        },
        [1, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF]
    );

    let mut page = Vec::new();
    plain::encode_flba(b"abcdefghi", 3, &mut page).unwrap();
    let mut decoder = PlainDecoder::new(&page);
    let mut out = Vec::new();
    assert_eq!(decoder.skip_flba(3, 1).unwrap(), 1);
    assert_eq!(decoder.decode_flba(3, 5, &mut out).unwrap(), 2);
    assert_eq!(out, b"defghi");

    let mut page = Vec::new();
    plain::encode_byte_array(&["ab", "", "cde"], &mut page).unwrap();
    assert_eq!(
        page,
        [
            2, 0, 0, 0, b'a', b'b', 0, 0, 0, 0, 3, 0, 0, 0, b'c', b'd', b'e'
        ]
    );
    let mut views = Vec::new();
    PlainDecoder::new(&page)
        .decode_byte_array_views(3, &mut views)
        .unwrap();
    assert_eq!(views, [(4, 2), (10, 0), (14, 3)]);
    // A length running past the end is an error that says where.
    let err = PlainDecoder::new(&page[..16])
        .skip_byte_array(3)
        .unwrap_err();
    assert!(err.message().contains("at byte 10"), "{err}");
}

#[test]
fn dictionary_indices_check_and_gather() {
    assert_eq!(dictionary::bit_width_for(0), 0);
    assert_eq!(dictionary::bit_width_for(1), 0);
    assert_eq!(dictionary::bit_width_for(2), 1);
    assert_eq!(dictionary::bit_width_for(256), 8);
    assert_eq!(dictionary::bit_width_for(257), 9);
    let indices: Vec<u32> = (0..1000).map(|i| (i * 7 % 300) as u32).collect();
    let mut page = Vec::new();
    dictionary::encode_indices(&indices, 300, &mut page);
    assert_eq!(page[0], 9);
    let mut decoder = DictionaryIndexDecoder::new(&page).unwrap();
    let mut out = vec![0u32; 1000];
    assert_eq!(decoder.decode_checked(&mut out, 300).unwrap(), 1000);
    assert_eq!(out, indices);
    let mut decoder = DictionaryIndexDecoder::new(&page).unwrap();
    assert!(decoder.decode_checked(&mut out, 299).is_err());
    assert!(dictionary::check_indices(&[0, 5, 2], 5).is_err());
    let dict: Vec<f64> = (0..300).map(|i| i as f64 * 0.5).collect();
    let mut decoder = DictionaryIndexDecoder::new(&page).unwrap();
    decoder.skip(10).unwrap();
    let mut values = vec![0f64; 990];
    assert_eq!(decoder.gather(&dict, &mut values).unwrap(), 990);
    assert!(
        values
            .iter()
            .zip(&indices[10..])
            .all(|(&v, &i)| v == i as f64 * 0.5)
    );
}

#[test]
fn dictionary_fixed_bytes_gather_every_width() {
    // Bit-packed indices, then a repeated run (the same index 40 times).
    let mut indices: Vec<u32> = (0..200).map(|i| (i * 11 % 37) as u32).collect();
    indices.extend([5; 40]);
    let mut page = Vec::new();
    dictionary::encode_indices(&indices, 37, &mut page);
    for width in 1..=17usize {
        let dict: Vec<u8> = (0..37 * width).map(|b| (b * 13 + width) as u8).collect();
        let expected: Vec<u8> = indices
            .iter()
            .flat_map(|&i| dict[i as usize * width..(i as usize + 1) * width].to_vec())
            .collect();
        let mut decoder = DictionaryIndexDecoder::new(&page).unwrap();
        let mut out = vec![0xAB];
        let n = decoder
            .append_fixed_bytes(&dict, width, indices.len(), usize::MAX, &mut out)
            .unwrap();
        assert_eq!(n, indices.len(), "width {width}");
        assert_eq!(out[0], 0xAB, "width {width}: what was there stays");
        assert_eq!(out[1..], expected, "width {width}");
        // A dictionary one value short: an index past its end is an error.
        let mut decoder = DictionaryIndexDecoder::new(&page).unwrap();
        let short = &dict[..36 * width];
        let err = decoder
            .append_fixed_bytes(short, width, indices.len(), usize::MAX, &mut Vec::new())
            .unwrap_err();
        assert!(
            err.to_string().contains("out of range"),
            "width {width}: {err}"
        );
    }
}

#[test]
fn delta_binary_packed_arbitrary_trailing_widths_and_padding() {
    // 3 values in a block of 128 with 4 miniblocks: only the first miniblock holds
    // values; the other widths are garbage and have no bodies.
    let mut page = vec![128, 1, 4, 3, 0x02];
    page.extend_from_slice(&[0x02, 1, 0xFF, 200, 65]);
    // min delta 1, deltas relative 1, 0 at 1 bit, padding bits set to 1.
    page.extend_from_slice(&[0b1111_1101, 0xFF, 0xFF, 0xFF]);
    let mut decoder = DeltaBinaryPackedDecoder::<i64, _>::new(&page).unwrap();
    let mut out = [0i64; 3];
    assert_eq!(decoder.decode(&mut out).unwrap(), 3);
    assert_eq!(out, [1, 3, 4]);
    assert_eq!(decoder.end_offset().unwrap(), page.len());
    // An invalid width in a miniblock that holds values is an error.
    let mut bad = page.clone();
    bad[6] = 65;
    assert!(
        DeltaBinaryPackedDecoder::<i64, _>::new(&bad)
            .unwrap()
            .decode(&mut out)
            .is_err()
    );
    // Headers the specification forbids.
    assert!(DeltaBinaryPackedDecoder::<i32, _>::new(&[0, 1, 1, 0]).is_err());
    assert!(DeltaBinaryPackedDecoder::<i32, _>::new(&[128, 1, 3, 1, 0]).is_err());
    assert!(DeltaBinaryPackedDecoder::<i32, _>::new(&[128, 1]).is_err());
}

#[test]
fn delta_binary_packed_extremes_wrap() {
    let values = [i64::MIN, i64::MAX, i64::MIN, 0, i64::MAX, -1, i64::MIN];
    let mut page = Vec::new();
    delta_binary_packed::encode(&values, &mut page);
    assert_eq!(dbp_decode::<i64>(&page), values);
    let values = [i32::MIN, i32::MAX, i32::MIN, 0, i32::MAX, -1, i32::MIN];
    let mut page = Vec::new();
    delta_binary_packed::encode(&values, &mut page);
    assert_eq!(dbp_decode::<i32>(&page), values);
    let mut page = Vec::new();
    delta_binary_packed::encode::<i32>(&[], &mut page);
    assert!(dbp_decode::<i32>(&page).is_empty());
}

fn arrow_dbp_encode_i64(values: &[i64]) -> Vec<u8> {
    let mut encoder = DeltaBitPackEncoder::<Int64Type>::new();
    encoder.put(values).unwrap();
    encoder.flush_buffer().unwrap().to_vec()
}

fn byte_values() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..20),
            prop::collection::vec(prop::sample::select(vec![b'a', b'b']), 0..12),
        ],
        0..300,
    )
}

fn offsets_to_values(offsets: &[i32], data: &[u8]) -> Vec<Vec<u8>> {
    offsets
        .windows(2)
        .map(|w| data[w[0] as usize..w[1] as usize].to_vec())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn dbp_i64_round_trip_and_arrow_rs(
        values in prop::collection::vec(prop_oneof![any::<i64>(), -100i64..100, Just(i64::MIN), Just(i64::MAX)], 0..700),
        skip in 0usize..800,
    ) {
        let mut ours = Vec::new();
        delta_binary_packed::encode(&values, &mut ours);
        prop_assert_eq!(dbp_decode::<i64>(&ours), values.clone());
        // arrow-rs reads ours, we read arrow-rs's.
        let mut theirs = DeltaBitPackDecoder::<Int64Type>::new();
        theirs.set_data(Bytes::from(ours.clone()), values.len()).unwrap();
        let mut out = vec![0i64; values.len()];
        prop_assert_eq!(theirs.get(&mut out).unwrap(), values.len());
        prop_assert_eq!(&out, &values);
        let arrow_bytes = arrow_dbp_encode_i64(&values);
        prop_assert_eq!(dbp_decode::<i64>(&arrow_bytes), values.clone());
        // Skip then read equals read then drop.
        let skip = skip.min(values.len());
        let mut decoder = DeltaBinaryPackedDecoder::<i64, _>::new(&ours).unwrap();
        prop_assert_eq!(decoder.skip(skip).unwrap(), skip);
        let mut rest = vec![0i64; values.len() - skip];
        prop_assert_eq!(decoder.decode(&mut rest).unwrap(), rest.len());
        prop_assert_eq!(&rest[..], &values[skip..]);
        prop_assert_eq!(decoder.end_offset().unwrap(), ours.len());
    }

    #[test]
    fn dbp_i32_round_trip_and_arrow_rs(
        values in prop::collection::vec(prop_oneof![any::<i32>(), -100i32..100, Just(i32::MIN), Just(i32::MAX)], 0..700),
    ) {
        let mut ours = Vec::new();
        delta_binary_packed::encode(&values, &mut ours);
        prop_assert_eq!(dbp_decode::<i32>(&ours), values.clone());
        let mut theirs = DeltaBitPackDecoder::<Int32Type>::new();
        theirs.set_data(Bytes::from(ours), values.len()).unwrap();
        let mut out = vec![0i32; values.len()];
        prop_assert_eq!(theirs.get(&mut out).unwrap(), values.len());
        prop_assert_eq!(&out, &values);
        let mut encoder = DeltaBitPackEncoder::<Int32Type>::new();
        encoder.put(&values).unwrap();
        let arrow_bytes = encoder.flush_buffer().unwrap();
        prop_assert_eq!(dbp_decode::<i32>(&arrow_bytes), values);
    }

    #[test]
    fn byte_array_encodings_round_trip_and_skip(values in byte_values(), skip in 0usize..400) {
        let skip = skip.min(values.len());
        let expected_rest = &values[skip..];

        let mut page = Vec::new();
        plain::encode_byte_array(&values, &mut page).unwrap();
        let mut decoder = PlainDecoder::new(&page);
        prop_assert_eq!(decoder.skip_byte_array(skip).unwrap(), skip);
        let (mut offsets, mut data) = (Vec::<i32>::new(), Vec::new());
        decoder.decode_byte_array(usize::MAX, &mut offsets, &mut data).unwrap();
        prop_assert_eq!(&offsets_to_values(&offsets, &data), expected_rest);

        let mut page = Vec::new();
        delta_length_byte_array::encode(&values, &mut page).unwrap();
        let mut decoder = DeltaLengthByteArrayDecoder::new(&page).unwrap();
        prop_assert_eq!(decoder.skip(skip).unwrap(), skip);
        let (mut offsets, mut data) = (Vec::<i32>::new(), Vec::new());
        decoder.decode(usize::MAX, &mut offsets, &mut data).unwrap();
        prop_assert_eq!(&offsets_to_values(&offsets, &data), expected_rest);
        prop_assert_eq!(decoder.position(), page.len());

        let mut page = Vec::new();
        delta_byte_array::encode(&values, &mut page).unwrap();
        let mut decoder = DeltaByteArrayDecoder::new(&page).unwrap();
        prop_assert_eq!(decoder.skip(skip).unwrap(), skip);
        let (mut offsets, mut data) = (Vec::<i32>::new(), Vec::new());
        decoder.decode(usize::MAX, &mut offsets, &mut data).unwrap();
        prop_assert_eq!(&offsets_to_values(&offsets, &data), expected_rest);
    }

    #[test]
    fn delta_byte_array_rebuilds_prefixes_across_calls_and_buffers(
        mut values in prop::collection::vec(prop::collection::vec(b'a'..b'e', 0..24), 0..700),
        steps in prop::collection::vec(1usize..90, 1..12),
        fresh_buffer in prop::collection::vec(any::<bool>(), 12),
    ) {
        // Sorted values share long prefixes with the value before them.
        values.sort();
        let mut page = Vec::new();
        delta_byte_array::encode(&values, &mut page).unwrap();
        let mut decoder = DeltaByteArrayDecoder::new(&page).unwrap();
        // Calls of assorted sizes, each into the batch's buffers or fresh ones (a new
        // batch): a value's prefix comes from the value before it, wherever that is.
        let mut decoded: Vec<Vec<u8>> = Vec::new();
        let (mut offsets, mut data) = (Vec::<i32>::new(), Vec::new());
        let mut call = 0;
        while decoded.len() + offsets.len().saturating_sub(1) < values.len() {
            if fresh_buffer[call % fresh_buffer.len()] {
                decoded.extend(offsets_to_values(&offsets, &data));
                offsets.clear();
                data.clear();
            }
            let n = steps[call % steps.len()];
            let got = decoder.append_byte_arrays(n, usize::MAX, &mut offsets, &mut data).unwrap();
            prop_assert!(got > 0);
            call += 1;
        }
        decoded.extend(offsets_to_values(&offsets, &data));
        prop_assert_eq!(&decoded, &values);
        prop_assert_eq!(decoder.append_byte_arrays(1, usize::MAX, &mut offsets, &mut data).unwrap(), 0);

        // A byte limit stops before the value that would pass it, with what came before
        // intact.
        let total: usize = values.iter().map(Vec::len).sum();
        if total > 0 {
            let limit = total / 2;
            let mut decoder = DeltaByteArrayDecoder::new(&page).unwrap();
            let (mut offsets, mut data) = (Vec::<i32>::new(), Vec::new());
            let err = decoder.append_byte_arrays(values.len(), limit, &mut offsets, &mut data);
            prop_assert!(err.is_err());
            prop_assert!(data.len() <= limit);
            let kept = offsets_to_values(&offsets, &data);
            prop_assert_eq!(&kept[..], &values[..kept.len()]);
        }
    }

    #[test]
    fn flba_encodings_round_trip(
        width in prop::sample::select(vec![1usize, 2, 3, 7, 12, 16, 33]),
        seed in prop::collection::vec(any::<u8>(), 0..600),
        skip in 0usize..50,
    ) {
        let n = seed.len() / width;
        let raw = &seed[..n * width];
        let skip = skip.min(n);
        let rest = &raw[skip * width..];

        let mut page = Vec::new();
        plain::encode_flba(raw, width, &mut page).unwrap();
        let mut decoder = PlainDecoder::new(&page);
        decoder.skip_flba(width, skip).unwrap();
        let mut out = Vec::new();
        decoder.decode_flba(width, n, &mut out).unwrap();
        prop_assert_eq!(&out[..], rest);

        let mut page = Vec::new();
        byte_stream_split::encode_bytes(raw, width, &mut page).unwrap();
        let mut decoder = ByteStreamSplitDecoder::new(&page, width).unwrap();
        decoder.skip(skip).unwrap();
        let mut out = Vec::new();
        decoder.decode_bytes(n, &mut out).unwrap();
        prop_assert_eq!(&out[..], rest);

        let values: Vec<&[u8]> = raw.chunks_exact(width).collect();
        let mut page = Vec::new();
        delta_byte_array::encode(&values, &mut page).unwrap();
        let mut decoder = DeltaByteArrayDecoder::new(&page).unwrap();
        decoder.skip(skip).unwrap();
        let mut out = Vec::new();
        decoder.decode_fixed(width, n, &mut out).unwrap();
        prop_assert_eq!(&out[..], rest);
        if n > 0 && width > 1 {
            let mut decoder = DeltaByteArrayDecoder::new(&page).unwrap();
            prop_assert!(decoder.decode_fixed(width - 1, n, &mut out).is_err());
        }
    }

    #[test]
    fn byte_stream_split_fixed_types(values in prop::collection::vec(any::<u64>(), 0..300), skip in 0usize..300) {
        let skip = skip.min(values.len());
        fn check<T: FixedWidth>(values: &[T], skip: usize) -> Result<(), TestCaseError> {
            let mut page = Vec::new();
            byte_stream_split::encode_fixed(values, &mut page);
            let mut decoder = ByteStreamSplitDecoder::new(&page, T::SIZE).unwrap();
            decoder.skip(skip).unwrap();
            let mut out = vec![T::default(); values.len()];
            let n = decoder.decode_fixed(&mut out).unwrap();
            prop_assert_eq!(&out[..n], &values[skip..]);
            Ok(())
        }
        check(&values.iter().map(|&v| v as i32).collect::<Vec<_>>(), skip)?;
        check(&values.iter().map(|&v| v as i64).collect::<Vec<_>>(), skip)?;
        check(&values.iter().map(|&v| v as u32).collect::<Vec<_>>(), skip)?;
        check(&values, skip)?;
        // Compare bit patterns for floats so NaNs compare.
        let floats: Vec<u32> = values.iter().map(|&v| f32::from_bits(v as u32).to_bits()).collect();
        check(&floats, skip)?;
        check(&values.iter().map(|&v| { let mut a = [0u8; 12]; a[..8].copy_from_slice(&v.to_le_bytes()); a }).collect::<Vec<_>>(), skip)?;
    }

    #[test]
    fn decoders_never_panic_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        n in 0usize..500,
        width in 0usize..20,
    ) {
        let mut offsets = Vec::<i32>::new();
        let mut data = Vec::new();
        let mut views = Vec::new();
        let mut plain = PlainDecoder::new(&bytes);
        let _ = plain.decode_byte_array(n, &mut offsets, &mut data);
        let _ = PlainDecoder::new(&bytes).decode_byte_array_views(n, &mut views);
        let _ = PlainDecoder::new(&bytes).decode_flba(width, n, &mut data);
        let _ = PlainDecoder::new(&bytes).decode_fixed(&mut vec![0i64; n]);
        let _ = PlainBooleanDecoder::new(&bytes).decode(&mut vec![false; n]);
        if let Ok(mut d) = DeltaBinaryPackedDecoder::<i32, _>::new(&bytes) {
            let _ = d.end_offset();
            let _ = d.decode(&mut vec![0; n]);
            let _ = d.skip(n);
        }
        if let Ok(mut d) = DeltaBinaryPackedDecoder::<i64, _>::new(&bytes) {
            let _ = d.skip(n / 2);
            let _ = d.decode(&mut vec![0; n]);
        }
        if let Ok(mut d) = DeltaLengthByteArrayDecoder::new(&bytes) {
            let _ = d.skip(n / 3);
            let _ = d.decode(n, &mut offsets, &mut data);
        }
        if let Ok(mut d) = DeltaByteArrayDecoder::new(&bytes) {
            let _ = d.skip(n / 3);
            let _ = d.decode(n, &mut offsets, &mut data);
            let _ = d.decode_fixed(width, n, &mut data);
        }
        if let Ok(mut d) = ByteStreamSplitDecoder::new(&bytes, width) {
            let _ = d.skip(n / 2);
            let _ = d.decode_bytes(n, &mut data);
        }
        if let Ok(mut d) = DictionaryIndexDecoder::new(&bytes) {
            let _ = d.skip(n / 2);
            let _ = d.decode_checked(&mut vec![0; n], 10);
        }
    }
}

fn uleb(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// An INT32 stream whose deltas were taken in 64 bits (as a writer may): the miniblock
/// is 33 bits wide, and the values still come out wrapped in 32 bits.
#[test]
fn delta_binary_packed_int32_with_a_33_bit_miniblock_wraps() {
    let values = [i32::MAX, i32::MIN, i32::MAX, 0, -1, 7, i32::MIN, 3];
    // Header: block 8, 1 miniblock, 8 values, first value; then the block by hand.
    let mut page = Vec::new();
    for v in [8u64, 1, 8] {
        uleb(v, &mut page);
    }
    let zigzag = |v: i64| ((v << 1) ^ (v >> 63)) as u64;
    uleb(zigzag(i64::from(values[0])), &mut page);
    let deltas: Vec<i64> = values
        .windows(2)
        .map(|w| i64::from(w[1]) - i64::from(w[0]))
        .collect();
    let min = *deltas.iter().min().unwrap();
    uleb(zigzag(min), &mut page);
    let packed: Vec<u64> = deltas.iter().map(|d| (d - min) as u64).chain([0]).collect();
    let width = 64 - packed.iter().max().unwrap().leading_zeros() as usize;
    assert_eq!(width, 33);
    page.push(width as u8);
    herringbone_codec::bitpack::pack(&packed, width, &mut page).unwrap();
    assert_eq!(dbp_decode::<i32>(&page), values);
    let mut decoder = DeltaBinaryPackedDecoder::<i32, _>::new(&page).unwrap();
    assert_eq!(decoder.skip(5).unwrap(), 5);
    let mut rest = [0i32; 3];
    assert_eq!(decoder.decode(&mut rest).unwrap(), 3);
    assert_eq!(rest, values[5..]);
}

#[test]
fn delta_length_value_ends_locate_every_value_and_check_the_lengths() {
    let values: Vec<Vec<u8>> = (0..700).map(|i| vec![b'x'; i % 37]).collect();
    let mut page = Vec::new();
    delta_length_byte_array::encode(&values, &mut page).unwrap();
    let (start, ends) = delta_length_byte_array::value_ends(&page, values.len()).unwrap();
    assert_eq!(ends.len(), values.len() + 1);
    for (i, value) in values.iter().enumerate() {
        let (from, to) = (start + ends[i] as usize, start + ends[i + 1] as usize);
        assert_eq!(&page[from..to], &value[..], "value {i}");
    }
    assert_eq!(start + *ends.last().unwrap() as usize, page.len());
    // Fewer than all values is fine; more than the stream holds is not.
    let (_, some) = delta_length_byte_array::value_ends(&page, 10).unwrap();
    assert_eq!(some, ends[..11]);
    let err = delta_length_byte_array::value_ends(&page, 701).unwrap_err();
    assert!(err.to_string().contains("holds 700 values"), "{err}");
    // Lengths running past the bytes present.
    let err = delta_length_byte_array::value_ends(&page[..page.len() - 1], 700).unwrap_err();
    assert!(err.to_string().contains("past the end"), "{err}");
    // A negative length.
    let mut negative = Vec::new();
    delta_binary_packed::encode(&[3i32, -2, 4], &mut negative);
    negative.extend_from_slice(b"abcdefgh");
    let err = delta_length_byte_array::value_ends(&negative, 3).unwrap_err();
    assert!(err.to_string().contains("negative length -2"), "{err}");
}
