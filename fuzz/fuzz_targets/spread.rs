//! `spread` (dense values to their slots by a validity bitmap) fed arbitrary bitmaps:
//! the result equals a slot-by-slot reference for every lane width (the AVX-512 kernel
//! where the CPU has it, the AVX2 one where it has AVX2 only or the fuzz crate's
//! `no-avx512` feature is on, the portable loop otherwise), and a value count that does
//! not match the bitmap is an error that leaves the values as they were.
#![no_main]

use herringbone_codec::spread::spread;
use libfuzzer_sys::fuzz_target;

fn check<T: Copy + Default + PartialEq + std::fmt::Debug + 'static>(
    bitmap: &[u8],
    offset: usize,
    len: usize,
    make: impl Fn(usize) -> T,
) {
    let valid: Vec<bool> = (0..len)
        .map(|i| bitmap[(offset + i) / 8] & (1 << ((offset + i) % 8)) != 0)
        .collect();
    let dense: Vec<T> = (0..valid.iter().filter(|&&v| v).count())
        .map(&make)
        .collect();
    let mut next = dense.iter();
    let expected: Vec<T> = valid
        .iter()
        .map(|&v| {
            if v {
                *next.next().unwrap()
            } else {
                T::default()
            }
        })
        .collect();
    let mut values = dense.clone();
    spread(&mut values, bitmap, offset, len).unwrap();
    assert_eq!(values, expected);
    // One value too many is refused and changes nothing.
    let mut extra = dense.clone();
    extra.push(make(usize::MAX));
    assert!(spread(&mut extra, bitmap, offset, len).is_err());
    assert_eq!(extra.len(), dense.len() + 1);
}

fuzz_target!(|input: &[u8]| {
    let Some((&params, bitmap)) = input.split_first() else {
        return;
    };
    let offset = usize::from(params % 16).min(bitmap.len() * 8);
    let len = bitmap.len() * 8 - offset;
    check(bitmap, offset, len, |i| (i as i32).wrapping_add(1));
    check(bitmap, offset, len, |i| (i as u64).wrapping_add(1));
    check(bitmap, offset, len, |i| i as f64 + 0.5);
    check(bitmap, offset, len, |i| i as u128 + 1);
    check(bitmap, offset, len, |i| (i as u16).wrapping_add(1));
});
