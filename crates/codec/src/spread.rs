//! Spreading dense values to their slots: the values of a page hold only the non-null
//! slots, a column's buffer holds every slot. Given the slots' validity bitmap, the
//! dense values move (in place, from the end, so a value only ever moves up) to the
//! slots whose bit is set and every other slot becomes zero.
//!
//! This is the last step of reading any nullable fixed-width column, so it is a hot
//! kernel: whole words of valid slots are one move and whole words of null slots one
//! fill; mixed words go through the AVX-512 `vpexpand` instructions (one load and one
//! expand per 8 or 16 slots) where the CPU has them, through an AVX2 permute by a table
//! of expansions (one load, one permute and one mask per 32 bytes) where it has AVX2
//! only, and through a loop over the set bits otherwise.
//!
//! ```
//! use herringbone_codec::spread::spread;
//!
//! let mut values = vec![1i64, 2, 3];
//! // Slots 0, 2 and 3 are valid (bits are least significant first).
//! spread(&mut values, &[0b0000_1101], 0, 5).unwrap();
//! assert_eq!(values, [1, 0, 2, 3, 0]);
//! ```

use std::any::TypeId;

use crate::error::{Error, Result};

/// The width of the SIMD lanes values of type `T` move in: their size for the plain
/// numbers of 4, 8 or 16 bytes (whose all-zero pattern is their default, the value of
/// a null slot), 0 for any other type, which takes the portable path. A constant once
/// the function is instantiated.
fn lane_bytes<T: 'static>() -> usize {
    let id = TypeId::of::<T>();
    if [
        TypeId::of::<i32>(),
        TypeId::of::<u32>(),
        TypeId::of::<f32>(),
    ]
    .contains(&id)
    {
        4
    } else if [
        TypeId::of::<i64>(),
        TypeId::of::<u64>(),
        TypeId::of::<f64>(),
    ]
    .contains(&id)
    {
        8
    } else if [TypeId::of::<i128>(), TypeId::of::<u128>()].contains(&id) {
        16
    } else {
        0
    }
}

/// Moves the dense `values` to the `len` slots whose bit is set in `bitmap` (bit
/// `bit_offset + i` for slot `i`, least significant bit first) and sets every other
/// slot to zero; `values` ends up `len` long. There must be exactly one value per set
/// bit, and `bitmap` must hold `bit_offset + len` bits: otherwise nothing changes and an
/// error says which count is off.
pub fn spread<T: Copy + Default + 'static>(
    values: &mut Vec<T>,
    bitmap: &[u8],
    bit_offset: usize,
    len: usize,
) -> Result<()> {
    let bits_needed = bit_offset
        .checked_add(len)
        .ok_or_else(|| Error::invalid_argument("spread: slot count overflows"))?;
    if bits_needed > bitmap.len().saturating_mul(8) {
        return Err(Error::invalid_argument(format!(
            "spread: {len} slots from bit {bit_offset} need more than the {} bytes of the bitmap",
            bitmap.len()
        )));
    }
    let words: Vec<u64> = (0..len.div_ceil(64))
        .map(|w| word_at(bitmap, bit_offset + w * 64, len - w * 64))
        .collect();
    let set: usize = words.iter().map(|w| w.count_ones() as usize).sum();
    if set != values.len() {
        return Err(Error::invalid_argument(format!(
            "spread: {} values for {set} valid slots",
            values.len()
        )));
    }
    let dense = values.len();
    values.resize(len, T::default());
    spread_words(values, &words, dense);
    Ok(())
}

/// The `min(64, remaining)` bits from bit `bit` of `bitmap` as a word (slot `bit` in
/// the lowest bit), zero above them. The bits are within the bitmap.
fn word_at(bitmap: &[u8], bit: usize, remaining: usize) -> u64 {
    let first = bit / 8;
    let mut bytes = [0u8; 16];
    let available = (bitmap.len() - first).min(9);
    bytes[..available].copy_from_slice(&bitmap[first..first + available]);
    let wide = u128::from_le_bytes(bytes) >> (bit % 8);
    let word = wide as u64;
    if remaining >= 64 {
        word
    } else {
        word & ((1u64 << remaining) - 1)
    }
}

/// Spreads `values` (its first `dense` entries are the values, the rest zero; it is
/// as long as the slots) by the slot words `words`, whose set bits number `dense`.
fn spread_words<T: Copy + Default + 'static>(values: &mut [T], words: &[u64], dense: usize) {
    let len = values.len();
    let mut next = dense;
    for (w, &word) in words.iter().enumerate().rev() {
        let start = w * 64;
        let stop = (start + 64).min(len);
        // Every slot below `stop` is valid, so every value there is in its slot
        // already: nothing moves any more.
        if next == stop {
            break;
        }
        let count = stop - start;
        let present = word.count_ones() as usize;
        if present == count {
            values.copy_within(next - count..next, start);
        } else if present == 0 {
            values[start..stop].fill(T::default());
        } else {
            mixed_word(values, start, stop, word, next);
        }
        next -= present;
    }
}

/// Spreads the slots `start..stop` of a word with both valid and null slots; the
/// values of its valid slots end at `next`.
#[inline]
fn mixed_word<T: Copy + Default + 'static>(
    values: &mut [T],
    start: usize,
    stop: usize,
    word: u64,
    next: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if lane_bytes::<T>() != 0 && stop - start == 64 {
        // SAFETY: `T` is a plain number of `lane_bytes::<T>()` bytes whose zero bits are
        // its default, the instance's `LANE_BYTES`; the word is whole (64 slots); and
        // `next - popcount(word) <= start`, as `next` counts the values of every valid
        // slot below `start + 64`.
        let spread = unsafe {
            match lane_bytes::<T>() {
                4 => vector_word::<T, 4>(values, start, word, next),
                8 => vector_word::<T, 8>(values, start, word, next),
                _ => vector_word::<T, 16>(values, start, word, next),
            }
        };
        if spread {
            return;
        }
    }
    spread_word_portable(values, start, stop, word, next);
}

/// Spreads a whole word with the widest vector kernel the CPU has; false (nothing
/// done) when it has none.
///
/// # Safety
/// `T` is a plain number of `LANE_BYTES` (4, 8 or 16) bytes whose all-zero pattern is
/// its default; `start + 64 <= values.len()` and `next - word.count_ones() <= start`,
/// `next <= values.len()`.
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn vector_word<T: Copy, const LANE_BYTES: usize>(
    values: &mut [T],
    start: usize,
    word: u64,
    next: usize,
) -> bool {
    if crate::cpu::avx512_f_vl_bw() {
        // SAFETY: AVX-512 F/VL/BW and POPCNT are present; the rest is this function's
        // contract.
        unsafe { avx512::spread_word::<T, LANE_BYTES>(values, start, word, next) };
        true
    } else if crate::cpu::avx2() {
        // SAFETY: AVX2 and POPCNT are present; the rest is this function's contract.
        unsafe { avx2::spread_word::<T, LANE_BYTES>(values, start, word, next) };
        true
    } else {
        false
    }
}

/// [`mixed_word`] without SIMD, for any type and a partial last word.
fn spread_word_portable<T: Copy + Default>(
    values: &mut [T],
    start: usize,
    stop: usize,
    word: u64,
    next: usize,
) {
    let present = word.count_ones() as usize;
    // The word's values are set aside, its slots cleared, and each value put at its
    // set bit (the sources may overlap the word's own slots).
    let mut word_values = [T::default(); 64];
    word_values[..present].copy_from_slice(&values[next - present..next]);
    values[start..stop].fill(T::default());
    let mut bits = word;
    for &value in &word_values[..present] {
        let bit = bits.trailing_zeros() as usize;
        values[start + bit] = value;
        bits &= bits - 1;
    }
}

/// Each 4-bit group of a nibble with every bit doubled: from a mask of lanes, the mask
/// of their halves (the 64-bit halves of 16-byte values, the 32-bit halves of 8-byte
/// ones).
#[cfg(target_arch = "x86_64")]
const DOUBLED: [u8; 16] = {
    let mut table = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let mut bit = 0;
        while bit < 4 {
            if i & (1 << bit) != 0 {
                table[i] |= 0b11 << (2 * bit);
            }
            bit += 1;
        }
        i += 1;
    }
    table
};

/// The vectors of a whole word's 64 slots, the highest first, for a kernel that moves
/// `per_vector` values at a time: calls `spread(from, slot, group)` with the index of
/// the vector's first value, its first slot and its `per_vector` bits of `word`, whose
/// values end at `next`. Highest first, as a vector's values lie highest: every load
/// reads below the slots already stored. Each call has `slot + per_vector <= start + 64`
/// and `from <= slot` (the values of the valid slots below `slot` number at most
/// `slot`) when `next - word.count_ones() <= start`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn vectors_from_top(
    start: usize,
    word: u64,
    mut next: usize,
    per_vector: usize,
    mut spread: impl FnMut(usize, usize, u64),
) {
    let mut slot = start + 64;
    while slot > start {
        slot -= per_vector;
        let group = (word >> (slot - start)) & ((1u64 << per_vector) - 1);
        let from = next - group.count_ones() as usize;
        spread(from, slot, group);
        next = from;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        __m512i, _mm512_loadu_si512, _mm512_maskz_expand_epi32, _mm512_maskz_expand_epi64,
        _mm512_storeu_si512,
    };

    use super::DOUBLED;

    /// Spreads the 64 slots from `start` by `word`, whose values end at `next`; one
    /// 64-byte load and one expand per vector of slots, the highest vector first (its
    /// values lie highest, and every load reads below the slots already stored).
    ///
    /// # Safety
    /// The CPU has AVX-512 F, VL and BW and POPCNT; the rest as for
    /// [`super::vector_word`].
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,popcnt")]
    pub(super) unsafe fn spread_word<T: Copy, const LANE_BYTES: usize>(
        values: &mut [T],
        start: usize,
        word: u64,
        next: usize,
    ) {
        let base = values.as_mut_ptr();
        super::vectors_from_top(start, word, next, 64 / LANE_BYTES, |from, slot, group| {
            // SAFETY: `from + per_vector <= slot + per_vector <= start + 64 <=
            // values.len()` (`vectors_from_top`'s bounds and this function's contract).
            // The load reads initialised values (all of `values` is), only slots at or
            // above `slot` have been stored to, and the load completes before this
            // vector's store.
            unsafe {
                let source = _mm512_loadu_si512(base.add(from).cast::<__m512i>());
                let spread = match LANE_BYTES {
                    4 => _mm512_maskz_expand_epi32(group as u16, source),
                    8 => _mm512_maskz_expand_epi64(group as u8, source),
                    _ => _mm512_maskz_expand_epi64(DOUBLED[group as usize], source),
                };
                _mm512_storeu_si512(base.add(slot).cast::<__m512i>(), spread);
            }
        });
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi32, _mm256_loadu_si256,
        _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_storeu_si256,
    };

    use super::DOUBLED;

    /// For each mask of eight 32-bit lanes, the source lane of every lane when the
    /// dense values expand to the set lanes: lane `i` takes value `popcount(mask & (1 <<
    /// i) - 1)`. Lanes whose bit is clear get an index too; they are zeroed afterwards.
    /// AVX2 has no expand instruction: this table (8 KiB) and one permute stand in for
    /// it.
    static EXPAND_SOURCES: [[u32; 8]; 256] = {
        let mut table = [[0u32; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let mut lane = 0;
            let mut rank = 0;
            while lane < 8 {
                table[mask][lane] = rank;
                if mask & (1 << lane) != 0 {
                    rank += 1;
                }
                lane += 1;
            }
            mask += 1;
        }
        table
    };

    /// [`super::avx512::spread_word`] with 32-byte vectors: per vector of slots, one
    /// load, one permute by [`EXPAND_SOURCES`] and a mask of the null lanes.
    ///
    /// # Safety
    /// The CPU has AVX2 and POPCNT; the rest as for [`super::vector_word`].
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn spread_word<T: Copy, const LANE_BYTES: usize>(
        values: &mut [T],
        start: usize,
        word: u64,
        next: usize,
    ) {
        let lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        let base = values.as_mut_ptr();
        super::vectors_from_top(start, word, next, 32 / LANE_BYTES, |from, slot, group| {
            // The group as a mask of 32-bit lanes: a value of 8 or 16 bytes is two or
            // four adjacent lanes, and the doubled bits keep them adjacent and in order.
            let lanes = match LANE_BYTES {
                4 => group as usize,
                8 => DOUBLED[group as usize] as usize,
                _ => DOUBLED[DOUBLED[group as usize] as usize] as usize,
            };
            // SAFETY: a table row is 32 bytes.
            let sources =
                unsafe { _mm256_loadu_si256(EXPAND_SOURCES[lanes].as_ptr().cast::<__m256i>()) };
            let valid = _mm256_cmpeq_epi32(
                _mm256_and_si256(_mm256_set1_epi32(lanes as i32), lane_bits),
                lane_bits,
            );
            // SAFETY: as in the AVX-512 kernel, with 32-byte vectors.
            unsafe {
                let source = _mm256_loadu_si256(base.add(from).cast::<__m256i>());
                let spread = _mm256_and_si256(_mm256_permutevar8x32_epi32(source, sources), valid);
                _mm256_storeu_si256(base.add(slot).cast::<__m256i>(), spread);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slot-by-slot reference: valid slots take the values in order, others zero.
    fn reference<T: Copy + Default>(dense: &[T], valid: &[bool]) -> Vec<T> {
        let mut next = dense.iter();
        valid
            .iter()
            .map(|&v| {
                if v {
                    *next.next().unwrap()
                } else {
                    T::default()
                }
            })
            .collect()
    }

    fn bitmap(valid: &[bool], offset: usize) -> Vec<u8> {
        let mut bytes = vec![0u8; (offset + valid.len()).div_ceil(8)];
        for (i, &v) in valid.iter().enumerate() {
            if v {
                bytes[(offset + i) / 8] |= 1 << ((offset + i) % 8);
            }
        }
        bytes
    }

    fn check<T: Copy + Default + PartialEq + std::fmt::Debug + 'static>(make: impl Fn(usize) -> T) {
        let patterns: Vec<Vec<bool>> = vec![
            (0..300)
                .map(|i| match i {
                    0..64 => true,
                    64..128 => false,
                    _ => (i * 7919) % 5 < 3,
                })
                .collect(),
            (0..1000).map(|i| (i * 31) % 7 != 0).collect(),
            (0..129).map(|i| i % 64 == 63).collect(),
            vec![true; 200],
            vec![false; 77],
            Vec::new(),
        ];
        for valid in &patterns {
            for offset in [0, 3, 8, 13] {
                let dense: Vec<T> = (0..valid.iter().filter(|&&v| v).count())
                    .map(|i| make(i + 1))
                    .collect();
                let mut values = dense.clone();
                spread(&mut values, &bitmap(valid, offset), offset, valid.len()).unwrap();
                assert_eq!(values, reference(&dense, valid), "offset {offset}");
            }
        }
    }

    #[test]
    fn spreading_matches_the_slot_by_slot_definition_for_every_lane_width() {
        check(|i| i as i32);
        check(|i| i as u32);
        check(|i| i as f32 + 0.5);
        check(|i| i as i64 * -3);
        check(|i| i as f64 * 1.25);
        check(|i| (i as u128) << 70 | i as u128);
        check(|i| i as i16);
        check(|i| i % 2 == 0);
        // Not a plain number of a lane's width: the portable path.
        check(|i| [i as u8; 12]);
        check(|i| (i as i32, i as u8));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_kernels_and_the_portable_loop_agree_on_every_mixed_word() {
        // Every 64-slot word shape the kernels see: random masks plus the edge ones.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut words = vec![
            1,
            1 << 63,
            u64::MAX - 1,
            u64::MAX >> 1,
            0x5555_5555_5555_5555,
            0xff00_ff00_ff00_ff00,
        ];
        for _ in 0..200 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            words.push(state);
        }
        let mut kernels: Vec<KernelsByWidth> = Vec::new();
        if crate::cpu::avx512_f_vl_bw() {
            kernels.push((
                "avx512",
                avx512::spread_word::<u32, 4>,
                avx512::spread_word::<u64, 8>,
                avx512::spread_word::<u128, 16>,
            ));
        }
        if crate::cpu::avx2() {
            kernels.push((
                "avx2",
                avx2::spread_word::<u32, 4>,
                avx2::spread_word::<u64, 8>,
                avx2::spread_word::<u128, 16>,
            ));
        }
        for (name, k32, k64, k128) in kernels {
            for &word in &words {
                kernel_matches_portable(name, k32, word, |i| i as u32 * 0x0101);
                kernel_matches_portable(name, k64, word, |i| i as u64 * 0x1_0000_0001);
                kernel_matches_portable(name, k128, word, |i| i as u128 * 0x1_0000_0000_0000_0001);
            }
        }
    }

    /// A vector kernel's signature (`values`, start, word, next).
    #[cfg(target_arch = "x86_64")]
    type Kernel<T> = unsafe fn(&mut [T], usize, u64, usize);

    /// A kernel's name and its instances for 4-, 8- and 16-byte lanes.
    #[cfg(target_arch = "x86_64")]
    type KernelsByWidth = (&'static str, Kernel<u32>, Kernel<u64>, Kernel<u128>);

    /// Spreads one 64-slot word (at slot 0, its values first) with a vector kernel and
    /// with the portable loop, and compares.
    #[cfg(target_arch = "x86_64")]
    fn kernel_matches_portable<T: Copy + Default + PartialEq + std::fmt::Debug>(
        name: &str,
        kernel: Kernel<T>,
        word: u64,
        make: impl Fn(usize) -> T,
    ) {
        let mut spread: Vec<T> = (1..=64).map(make).collect();
        let mut portable = spread.clone();
        let present = word.count_ones() as usize;
        // SAFETY: the caller checked the CPU for the kernel's extensions and chose the
        // kernel of `T`'s width; 64 slots from 0, and the word's `present` values lie
        // at 0..present.
        unsafe { kernel(&mut spread, 0, word, present) };
        spread_word_portable(&mut portable, 0, 64, word, present);
        assert_eq!(
            spread,
            portable,
            "{name}: word {word:#x}, {}-byte lanes",
            size_of::<T>()
        );
    }

    #[test]
    fn a_value_count_that_does_not_match_the_bitmap_is_an_error() {
        let mut values = vec![1i64, 2];
        let error = spread(&mut values, &[0b111], 0, 3).unwrap_err();
        assert!(
            error.to_string().contains("2 values for 3 valid slots"),
            "{error}"
        );
        assert_eq!(values, [1, 2]);
        let error = spread(&mut values, &[0b11], 4, 6).unwrap_err();
        assert!(error.to_string().contains("need more than"), "{error}");
    }
}
