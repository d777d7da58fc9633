//! Split-block Bloom filters: bit-identical to arrow-rs, and the filters stored in the
//! conformance corpus answer "present" for every value written.

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
