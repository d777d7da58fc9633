//! AVX2 unpack kernels for `u32` and `u64` output, chosen at run time.
//!
//! The portable kernel extracts every lane with scalar shifts; at widths where a value
//! straddles 64-bit words often (15, 17, 18, 24 into `u32`, 40 into `u64`) that is
//! slower than arrow-rs's 32-bit word kernels. These kernels instead handle a whole
//! block of lanes per step: a block of `8` values (`u32`) or `4` values (`u64`) of
//! width `W` starts on a byte boundary, so its two 128-bit halves are loaded from two
//! byte offsets, a byte shuffle (`vpshufb`, one constant table per width) moves each
//! value's bytes into its own lane, a per-lane variable shift (`vpsrlv`) drops the
//! bits below it and a mask drops the bits above. When a value spans one byte more
//! than a lane holds, a second shuffle brings that byte in and a left shift merges it.
//!
//! All tables are computed at compile time per width by `const fn`s, and
//! [`Lanes::USABLE`] says whether every byte a lane needs lies in its 16-byte half
//! (true for `u32` widths 1..=31 and `u64` widths 1..=62; other widths keep the
//! portable kernel).

use std::arch::x86_64::{
    __m128i, __m256i, _mm_loadu_si128, _mm256_and_si256, _mm256_loadu_si256,
    _mm256_or_si256, _mm256_set_m128i, _mm256_shuffle_epi8, _mm256_sllv_epi32,
    _mm256_sllv_epi64, _mm256_srlv_epi32, _mm256_srlv_epi64, _mm256_storeu_si256,
};

use super::GROUP;

/// Per-width constants of a block kernel with lanes of `LANE` bits (32 or 64).
pub(super) struct Lanes<const LANE: usize, const W: usize>;

/// The constants of one width, computed by [`tables`].
#[derive(Clone, Copy)]
struct Tables {
    /// Byte shuffle putting the first `LANE / 8` bytes of each value in its lane.
    low: [u8; 32],
    /// Byte shuffle putting the value's byte after those in the lane's lowest byte
    /// (0x80, i.e. zero, where the value fits without it).
    high: [u8; 32],
    /// Right shift of each lane (the value's bit offset in its first byte), stored as
    /// 64-bit or 32-bit lanes in little-endian bytes.
    shift_right: [u8; 32],
    /// Left shift of the extra byte: `LANE - shift_right` per lane.
    shift_left: [u8; 32],
    /// Whether any lane needs the extra byte.
    needs_high: bool,
    /// Byte offset of the second 128-bit half's load from the block start.
    half_offset: usize,
    /// Whether every needed byte lies within its half (the kernel is valid).
    usable: bool,
}

/// Computes the tables of width `w` for lanes of `lane` bits.
const fn tables(lane: usize, w: usize) -> Tables {
    let lanes = 256 / lane;
    let per_half = lanes / 2;
    let lane_bytes = lane / 8;
    let half_offset = per_half * w / 8;
    let mut t = Tables {
        low: [0x80; 32],
        high: [0x80; 32],
        shift_right: [0; 32],
        shift_left: [0; 32],
        needs_high: false,
        half_offset,
        usable: w > 0 && w < lane,
    };
    let mut j = 0;
    while j < lanes {
        let half = j / per_half;
        let rel_bit = j * w - 8 * half * half_offset;
        let byte = rel_bit / 8;
        let shift = rel_bit % 8;
        let needed = (shift + w).div_ceil(8);
        let mut k = 0;
        while k < lane_bytes {
            if k < needed {
                if byte + k >= 16 {
                    t.usable = false;
                } else {
                    t.low[half * 16 + (j % per_half) * lane_bytes + k] = (byte + k) as u8;
                }
            }
            k += 1;
        }
        if needed > lane_bytes {
            t.needs_high = true;
            if byte + lane_bytes >= 16 {
                t.usable = false;
            } else {
                t.high[half * 16 + (j % per_half) * lane_bytes] = (byte + lane_bytes) as u8;
            }
        }
        // Shift counts as little-endian lane integers (a count of `lane` shifts to zero).
        t.shift_right[j * lane_bytes] = shift as u8;
        t.shift_left[j * lane_bytes] = (lane - shift) as u8;
        j += 1;
    }
    t
}

impl<const LANE: usize, const W: usize> Lanes<LANE, W> {
    const T: Tables = tables(LANE, W);
    /// Whether the block kernel handles this width.
    pub(super) const USABLE: bool = Self::T.usable;
    /// Values per block (per 256-bit vector).
    const BLOCK: usize = 256 / LANE;
    /// Bytes read from the start of a block: the second half's 16 bytes.
    const READ: usize = Self::T.half_offset + 16;
}

/// Extracts one block of values whose packed bytes start at `ptr`.
///
/// # Safety
/// The CPU supports AVX2, `ptr..ptr + Lanes::<LANE, W>::READ` is readable, and the
/// width is [`Lanes::USABLE`].
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn block<const LANE: usize, const W: usize>(
    ptr: *const u8,
    masks: &[__m256i; 5],
) -> __m256i {
    let [low, high, shift_right, shift_left, value_mask] = *masks;
    // SAFETY: both 16-byte loads lie within `ptr..ptr + READ` (the caller's promise);
    // `loadu` has no alignment requirement.
    let (lo, hi) = unsafe {
        (
            _mm_loadu_si128(ptr.cast::<__m128i>()),
            _mm_loadu_si128(ptr.add(Lanes::<LANE, W>::T.half_offset).cast::<__m128i>()),
        )
    };
    let data = _mm256_set_m128i(hi, lo);
    let bytes = _mm256_shuffle_epi8(data, low);
    let mut value = if LANE == 32 {
        _mm256_srlv_epi32(bytes, shift_right)
    } else {
        _mm256_srlv_epi64(bytes, shift_right)
    };
    if Lanes::<LANE, W>::T.needs_high {
        let extra = _mm256_shuffle_epi8(data, high);
        let extra = if LANE == 32 {
            _mm256_sllv_epi32(extra, shift_left)
        } else {
            _mm256_sllv_epi64(extra, shift_left)
        };
        value = _mm256_or_si256(value, extra);
    }
    _mm256_and_si256(value, value_mask)
}

/// Loads the five constant vectors of a width.
#[inline]
#[target_feature(enable = "avx2")]
fn masks<const LANE: usize, const W: usize>() -> [__m256i; 5] {
    let t = Lanes::<LANE, W>::T;
    let mut value_mask = [0u8; 32];
    let lane_mask = super::mask(W).to_le_bytes();
    for lane in value_mask.chunks_exact_mut(LANE / 8) {
        lane.copy_from_slice(&lane_mask[..LANE / 8]);
    }
    // SAFETY: each array is 32 bytes, exactly one unaligned 256-bit load.
    unsafe {
        [
            _mm256_loadu_si256(t.low.as_ptr().cast()),
            _mm256_loadu_si256(t.high.as_ptr().cast()),
            _mm256_loadu_si256(t.shift_right.as_ptr().cast()),
            _mm256_loadu_si256(t.shift_left.as_ptr().cast()),
            _mm256_loadu_si256(value_mask.as_ptr().cast()),
        ]
    }
}

/// Unpacks whole groups of 64 values of width `W` into `output` (`u32` or `u64`
/// lanes, `LANE` bits each) for as long as every load stays inside `input`; returns
/// how many values were written (a multiple of [`GROUP`]). The caller finishes the
/// rest with the portable kernel.
///
/// # Safety
/// The CPU supports AVX2 and `Lanes::<LANE, W>::USABLE` holds. `T` is the unsigned
/// integer of `LANE` bits.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn unpack_groups<T: Copy, const LANE: usize, const W: usize>(
    input: &[u8],
    output: &mut [T],
) -> usize {
    debug_assert!(Lanes::<LANE, W>::USABLE && size_of::<T>() * 8 == LANE);
    let masks = masks::<LANE, W>();
    let group_bytes = W * GROUP / 8;
    let block_bytes = W * Lanes::<LANE, W>::BLOCK / 8;
    // The last block of group `g` reads up to `g * group_bytes + last_read`.
    let last_read = group_bytes - block_bytes + Lanes::<LANE, W>::READ;
    let groups = (output.len() / GROUP).min(match input.len().checked_sub(last_read) {
        Some(room) => room / group_bytes + 1,
        None => 0,
    });
    let out = output.as_mut_ptr();
    for g in 0..groups {
        let mut b = 0;
        while b < GROUP / Lanes::<LANE, W>::BLOCK {
            let offset = g * group_bytes + b * block_bytes;
            // SAFETY: `offset + READ <= g * group_bytes + last_read <= input.len()` by
            // the choice of `groups`; AVX2 and the width are the caller's promise.
            let value = unsafe { block::<LANE, W>(input.as_ptr().add(offset), &masks) };
            // SAFETY: `g < output.len() / GROUP`, so the `BLOCK` lanes of `T` (32 bytes)
            // at value `g * GROUP + b * BLOCK` lie inside `output`; `storeu` is unaligned.
            unsafe {
                _mm256_storeu_si256(
                    out.add(g * GROUP + b * Lanes::<LANE, W>::BLOCK).cast::<__m256i>(),
                    value,
                )
            };
            b += 1;
        }
    }
    groups * GROUP
}
