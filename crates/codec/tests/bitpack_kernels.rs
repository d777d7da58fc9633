//! The unpack kernels (portable and, where the CPU has it, AVX2) against a bit-by-bit
//! reference: every width of every output type, lengths that are and are not whole
//! groups, start positions inside a byte, and inputs with and without bytes after the
//! packed values (the AVX2 kernel reads 16-byte windows and must stop in time).

use herringbone_codec::bitpack::{self, BitPackable};
use proptest::prelude::*;

/// Value `i` of `width` bits read one bit at a time (LSB-first).
fn reference(input: &[u8], width: usize, first: usize, n: usize) -> Vec<u64> {
    (first..first + n)
        .map(|i| {
            (0..width).fold(0u64, |v, b| {
                let pos = i * width + b;
                v | (u64::from(input[pos / 8] >> (pos % 8) & 1) << b)
            })
        })
        .collect()
}

fn bytes(len: usize, seed: u64) -> Vec<u8> {
    (0..len as u64)
        .map(|i| {
            (i.wrapping_add(seed)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_right(23)) as u8
        })
        .collect()
}

/// Unpacks with `first` and `n`, from an input of exactly the bytes needed plus `slack`.
fn check<T: BitPackable>(width: usize, first: usize, n: usize, slack: usize, seed: u64) {
    let input = bytes(bitpack::packed_len(first + n, width) + slack, seed);
    let mut out = vec![T::default(); n];
    bitpack::unpack_from(&input, width, first, &mut out).unwrap();
    let got: Vec<u64> = out.iter().map(|v| v.to_u64()).collect();
    assert_eq!(
        got,
        reference(&input, width, first, n),
        "{} bits, width {width}, first {first}, n {n}, slack {slack}",
        T::BITS
    );
}

#[test]
fn every_width_every_type_whole_and_partial_groups() {
    for n in [
        0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 511, 640, 1000,
    ] {
        for slack in [0, 1, 15, 40] {
            for width in 0..=8 {
                check::<u8>(width, 0, n, slack, n as u64);
            }
            for width in 0..=16 {
                check::<u16>(width, 0, n, slack, n as u64);
            }
            for width in 0..=32 {
                check::<u32>(width, 0, n, slack, n as u64);
            }
            for width in 0..=64 {
                check::<u64>(width, 0, n, slack, n as u64);
            }
        }
    }
}

#[test]
fn all_ones_and_all_zeros_keep_the_mask_right() {
    for width in 1..=64 {
        let n = 64 * 5 + 7;
        let ones = vec![0xFFu8; bitpack::packed_len(n, width)];
        let mut out = vec![0u64; n];
        bitpack::unpack(&ones, width, &mut out).unwrap();
        assert!(
            out.iter().all(|&v| v == bitpack::mask(width)),
            "width {width}"
        );
        if width <= 32 {
            let mut out = vec![7u32; n];
            bitpack::unpack(&ones, width, &mut out).unwrap();
            assert!(
                out.iter().all(|&v| u64::from(v) == bitpack::mask(width)),
                "width {width}"
            );
            let zeros = vec![0u8; bitpack::packed_len(n, width)];
            bitpack::unpack(&zeros, width, &mut out).unwrap();
            assert!(out.iter().all(|&v| v == 0), "width {width}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn unpack_u32_matches_reference(
        width in 0usize..=32,
        first in 0usize..70,
        n in 0usize..700,
        slack in 0usize..40,
        seed in any::<u64>(),
    ) {
        check::<u32>(width, first, n, slack, seed);
    }

    #[test]
    fn unpack_u64_matches_reference(
        width in 0usize..=64,
        first in 0usize..70,
        n in 0usize..700,
        slack in 0usize..40,
        seed in any::<u64>(),
    ) {
        check::<u64>(width, first, n, slack, seed);
    }

    #[test]
    fn pack_then_unpack_is_identity_u64(width in 0usize..=64, n in 0usize..400, seed in any::<u64>()) {
        let values: Vec<u64> = bytes(n * 8, seed)
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()) & bitpack::mask(width))
            .collect();
        let mut packed = Vec::new();
        bitpack::pack(&values, width, &mut packed).unwrap();
        let mut back = vec![0u64; n];
        bitpack::unpack(&packed, width, &mut back).unwrap();
        prop_assert_eq!(back, values);
    }
}
