//! Split-block Bloom filters: bit-identical to arrow-rs, and the filters stored in the
//! conformance corpus answer "present" for every value written.

use std::path::Path;

use bytes::Bytes;
use herringbone_codec::bloom::{self, SplitBlockBloomFilter};
use parquet::bloom_filter::Sbbf;
use proptest::prelude::*;

/// The bitset arrow-rs writes (its serialised form is a Thrift header + the bitset).
fn arrow_bitset(filter: &Sbbf, num_bytes: usize) -> Vec<u8> {
    let mut serialised = Vec::new();
    filter.write(&mut serialised).unwrap();
    serialised[serialised.len() - num_bytes..].to_vec()
}

fn our_bitset(filter: &SplitBlockBloomFilter) -> Vec<u8> {
    let mut bitset = Vec::new();
    filter.write_bitset(&mut bitset);
    bitset
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bit_identical_to_arrow_rs_for_integers_and_floats(
        ndv in 0u64..5000,
        fpp in 0.001f64..0.5,
        ints in prop::collection::vec(any::<i64>(), 0..300),
    ) {
        let mut theirs = Sbbf::new_with_ndv_fpp(ndv, fpp).unwrap();
        let mut ours = SplitBlockBloomFilter::with_ndv_fpp(ndv, fpp).unwrap();
        for &v in &ints {
            theirs.insert(&v);
            ours.insert(&v);
            theirs.insert(&(v as i32));
            ours.insert(&(v as i32));
            theirs.insert(&(v as f64));
            ours.insert(&(v as f64));
            theirs.insert(&(v as f32));
            ours.insert(&(v as f32));
        }
        prop_assert_eq!(arrow_bitset(&theirs, ours.num_bytes()), our_bitset(&ours));
    }

    #[test]
    fn bit_identical_to_arrow_rs_for_strings(
        num_bytes in 0usize..100_000,
        strings in prop::collection::vec(".{0,40}", 0..200),
    ) {
        let mut theirs = Sbbf::new_with_num_of_bytes(num_bytes);
        let mut ours = SplitBlockBloomFilter::with_num_bytes(num_bytes);
        for s in &strings {
            theirs.insert(s.as_str());
            ours.insert(s.as_str());
            theirs.insert(s.as_bytes());
            ours.insert(s.as_bytes());
        }
        let bitset = our_bitset(&ours);
        prop_assert_eq!(arrow_bitset(&theirs, ours.num_bytes()), bitset.clone());
        // And each answers the same for what the other stored.
        let theirs_back = Sbbf::new(&bitset);
        for s in &strings {
            prop_assert!(ours.check(s.as_str()));
            prop_assert!(theirs_back.check(s.as_str()));
        }
    }
}

#[test]
fn sizes_match_arrow_rs() {
    for (ndv, fpp) in [
        (0, 0.01),
        (1, 0.05),
        (100, 0.01),
        (10_000, 0.001),
        (1_000_000, 0.1),
    ] {
        let ours = SplitBlockBloomFilter::with_ndv_fpp(ndv, fpp).unwrap();
        let theirs = Sbbf::new_with_ndv_fpp(ndv, fpp).unwrap();
        assert_eq!(
            arrow_bitset(&theirs, ours.num_bytes()).len(),
            ours.num_bytes(),
            "ndv {ndv} fpp {fpp}"
        );
        let mut serialised = Vec::new();
        theirs.write(&mut serialised).unwrap();
        // Header: field 1 (1 byte) + zigzag varint of num_bytes + three 4-byte union
        // fields + stop; the rest is the bitset, so the sizes agree exactly.
        let zigzag = (ours.num_bytes() as u64) << 1;
        let varint_len = (64 - zigzag.leading_zeros() as usize).div_ceil(7).max(1);
        assert_eq!(
            serialised.len(),
            1 + varint_len + 12 + 1 + ours.num_bytes(),
            "ndv {ndv} fpp {fpp}"
        );
    }
}

#[test]
fn hash_helpers_hash_the_plain_encoding() {
    assert_eq!(bloom::hash_i32(-1), bloom::hash_bytes(&[0xff; 4]));
    assert_eq!(
        bloom::hash_i64(1),
        bloom::hash_bytes(&[1, 0, 0, 0, 0, 0, 0, 0])
    );
    assert_eq!(
        bloom::hash_f32(1.0),
        bloom::hash_bytes(&0x3f80_0000u32.to_le_bytes())
    );
    assert_ne!(bloom::hash_f64(0.0), bloom::hash_f64(-0.0));
    assert_eq!(
        bloom::hash_int96(&[1; 12]),
        bloom::hash_fixed_len_byte_array(&[1; 12])
    );
}

#[test]
fn serialised_filter_is_byte_identical_to_arrow_rs() {
    for (ndv, fpp) in [(10, 0.01), (1000, 0.05), (50_000, 0.001)] {
        let mut theirs = Sbbf::new_with_ndv_fpp(ndv, fpp).unwrap();
        let mut ours = SplitBlockBloomFilter::with_ndv_fpp(ndv, fpp).unwrap();
        for i in 0..ndv as i64 {
            theirs.insert(&i);
            ours.insert(&i);
        }
        let mut their_bytes = Vec::new();
        theirs.write(&mut their_bytes).unwrap();
        let mut our_bytes = Vec::new();
        let written = ours.write(&mut our_bytes);
        assert_eq!(written, our_bytes.len());
        assert_eq!(our_bytes, their_bytes, "ndv {ndv} fpp {fpp}");
        let (back, used) =
            SplitBlockBloomFilter::read(&their_bytes, bloom::BITSET_MAX_BYTES).unwrap();
        assert_eq!(used, their_bytes.len());
        assert_eq!(back, ours);
    }
}

fn corpus_string_column(rel: &str) -> Vec<String> {
    let oracle = herringbone_testkit::oracle(Path::new(rel)).expect("oracle");
    let column = oracle["columns"][0]["name"].as_str().unwrap().to_string();
    assert_eq!(oracle["rows_truncated"], false);
    oracle["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|row| row[&column].as_str().map(str::to_string))
        .collect()
}

#[test]
fn corpus_filters_contain_every_value_of_their_column() {
    for rel in [
        "data/data_index_bloom_encoding_stats.parquet",
        "data/data_index_bloom_encoding_with_length.parquet",
    ] {
        let bytes = Bytes::from(herringbone_testkit::read_corpus_file(Path::new(rel)));
        let metadata = herringbone_format::footer::read_metadata(&bytes).unwrap();
        let chunk = &metadata.row_groups[0].columns[0];
        let meta = chunk.meta_data.as_ref().unwrap();
        let offset =
            usize::try_from(meta.bloom_filter_offset.expect("bloom filter offset")).unwrap();
        let stored = match meta.bloom_filter_length {
            Some(len) => &bytes[offset..offset + usize::try_from(len).unwrap()],
            None => &bytes[offset..],
        };
        let (filter, used) = SplitBlockBloomFilter::read(stored, bloom::BITSET_MAX_BYTES).unwrap();
        if let Some(len) = meta.bloom_filter_length {
            assert_eq!(
                used, len as usize,
                "{rel}: bloom_filter_length covers header + bitset"
            );
        }
        // The format crate's locator agrees on where the bitset lies.
        let location = herringbone_format::footer::read_bloom_filter_header(&bytes, chunk)
            .unwrap()
            .unwrap();
        assert_eq!(location.bitset.end as usize, offset + used, "{rel}");

        let values = corpus_string_column(rel);
        assert_eq!(values.len(), 14, "{rel}");
        for value in &values {
            assert!(
                filter.check(value.as_str()),
                "{rel}: {value:?} reported absent"
            );
        }
        // arrow-rs reads the same bitset and agrees.
        let theirs = Sbbf::new(&stored[used - filter.num_bytes()..used]);
        for value in &values {
            assert!(theirs.check(value.as_str()));
        }
        let absent = ["Herringbone", "not in the column", "hello"];
        let false_positives = absent.iter().filter(|v| filter.check(**v)).count();
        assert!(
            false_positives < absent.len(),
            "{rel}: every absent value reported present"
        );
    }
}

#[test]
fn standalone_filter_files() {
    // Thrift header + bitset, XXH64: the current format.
    let stored = herringbone_testkit::read_corpus_file(Path::new("data/bloom_filter.xxhash.bin"));
    let (filter, used) = SplitBlockBloomFilter::read(&stored, bloom::BITSET_MAX_BYTES).unwrap();
    assert_eq!(used, stored.len());
    assert_eq!(filter.num_bytes(), 1024);
    for value in ["hello", "parquet", "bloom", "filter"] {
        assert!(filter.check(value), "{value:?} reported absent");
    }
    assert!(!filter.check("herringbone") || !filter.check("arrow"));

    // The pre-release layout (plain little-endian ints, Murmur3) is not a Thrift header:
    // reading it is an error, not a filter that answers wrongly.
    let old = herringbone_testkit::read_corpus_file(Path::new("data/bloom_filter.bin"));
    assert!(SplitBlockBloomFilter::read(&old, bloom::BITSET_MAX_BYTES).is_err());
}
