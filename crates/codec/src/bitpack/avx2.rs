//! AVX2 unpack kernels for `u32` and `u64` output, chosen at run time.
//!
//! The portable kernel extracts every lane with scalar shifts; at widths where a value
//! straddles 64-bit words often (15, 17, 18, 24 into `u32`, 40 into `u64`) that is
//! slower than arrow-rs's 32-bit word kernels. These kernels instead handle a whole
//! vector of lanes per step: a block of 8 values of width `W` is `W` bytes and starts
//! on a byte boundary; each 128-bit half of a vector is loaded from the byte where its
//! first value starts, a byte shuffle (`vpshufb`, one constant table per width) moves
//! each value's bytes into its own lane, a per-lane variable shift (`vpsrlv`) drops
//! the bits below it and a mask drops the bits above. When a value spans one byte
//! more than a lane holds, a second shuffle brings that byte in and a left shift
//! merges it. A block is one vector of `u32` lanes or two of `u64` lanes.
//!
//! All tables are computed at compile time per width by `const fn`s, and
//! [`Lanes::USABLE`] says whether every byte a lane needs lies in its 16-byte half;
//! the callers in `bitpack.rs` also keep the portable kernel at the widths where it
//! measured as fast.

use std::arch::x86_64::{
    __m128i, __m256i, _mm_loadu_si128, _mm256_and_si256, _mm256_loadu_si256, _mm256_or_si256,
    _mm256_set_m128i, _mm256_shuffle_epi8, _mm256_sllv_epi32, _mm256_sllv_epi64, _mm256_srlv_epi32,
    _mm256_srlv_epi64, _mm256_storeu_si256,
};

use super::GROUP;

/// Per-width constants of a block kernel with lanes of `LANE` bits (32 or 64).
pub(super) struct Lanes<const LANE: usize, const W: usize>;

/// The constants of one width, computed by [`tables`]. A block is 8 values (`W`
/// bytes, so it starts on a byte boundary); it takes `LANE / 32` vectors, each made of
/// two 128-bit halves loaded from the byte where the half's first value starts.
#[derive(Clone, Copy)]
struct Tables {
    /// Per vector: byte shuffle putting the first `LANE / 8` bytes of each value in
    /// its lane (0x80, i.e. zero, for bytes the value does not use).
    low: [[u8; 32]; 2],
    /// Per vector: byte shuffle putting the value's byte after those in the lane's
    /// lowest byte (0x80 where the value fits without it).
    high: [[u8; 32]; 2],
    /// Per vector: right shift of each lane (the value's bit offset in its first
    /// byte), as little-endian lane integers.
    shift_right: [[u8; 32]; 2],
    /// Per vector: left shift of the extra byte, `LANE - shift_right` per lane.
    shift_left: [[u8; 32]; 2],
    /// Whether any lane needs the extra byte.
    needs_high: bool,
    /// Byte offset, from the block start, of each half's 16-byte load.
    half_offset: [usize; 4],
    /// Bytes read from the block start by the last load.
    read: usize,
    /// Whether every needed byte lies within its half (the kernel is valid).
    usable: bool,
}

/// Computes the tables of width `w` for lanes of `lane` bits (32 or 64).
const fn tables(lane: usize, w: usize) -> Tables {
    let vectors = lane / 32;
    let per_half = 4 / vectors;
    let lane_bytes = lane / 8;
    let mut t = Tables {
        low: [[0x80; 32]; 2],
        high: [[0x80; 32]; 2],
        shift_right: [[0; 32]; 2],
        shift_left: [[0; 32]; 2],
        needs_high: false,
        half_offset: [0; 4],
        read: 0,
        usable: w > 0 && w < lane,
    };
    let mut j = 0;
    while j < 8 {
        let half = j / per_half;
        let vector = half / 2;
        let base = half * per_half * w / 8;
        t.half_offset[half] = base;
        if base + 16 > t.read {
            t.read = base + 16;
        }
        let rel_bit = j * w - 8 * base;
        let byte = rel_bit / 8;
        let shift = rel_bit % 8;
        let needed = (shift + w).div_ceil(8);
        let slot = (half % 2) * 16 + (j % per_half) * lane_bytes;
        let mut k = 0;
        while k < lane_bytes {
            if k < needed {
                if byte + k >= 16 {
                    t.usable = false;
                } else {
                    t.low[vector][slot + k] = (byte + k) as u8;
                }
            }
            k += 1;
        }
        if needed > lane_bytes {
            t.needs_high = true;
            if byte + lane_bytes >= 16 {
                t.usable = false;
            } else {
                t.high[vector][slot] = (byte + lane_bytes) as u8;
            }
        }
        t.shift_right[vector][(j % (2 * per_half)) * lane_bytes] = shift as u8;
        t.shift_left[vector][(j % (2 * per_half)) * lane_bytes] = (lane - shift) as u8;
        j += 1;
    }
    t
}

impl<const LANE: usize, const W: usize> Lanes<LANE, W> {
    const T: Tables = tables(LANE, W);
    /// Whether the block kernel handles this width.
    pub(super) const USABLE: bool = Self::T.usable;
    /// Vectors per block of 8 values.
    const VECTORS: usize = LANE / 32;
}

/// Extracts vector `V` of a block of 8 values whose packed bytes start at `ptr`.
///
/// # Safety
/// `ptr..ptr + Tables::read` is readable and the width is [`Lanes::USABLE`].
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn vector<const LANE: usize, const W: usize, const V: usize>(
    ptr: *const u8,
    masks: &[__m256i; 9],
) -> __m256i {
    let t = Lanes::<LANE, W>::T;
    let (low, high, shift_right, shift_left) = (
        masks[4 * V],
        masks[4 * V + 1],
        masks[4 * V + 2],
        masks[4 * V + 3],
    );
    // SAFETY: both 16-byte loads lie within `ptr..ptr + read` (`read` is the furthest
    // half offset + 16, the caller's promise); `loadu` has no alignment requirement.
    let (lo, hi) = unsafe {
        (
            _mm_loadu_si128(ptr.add(t.half_offset[2 * V]).cast::<__m128i>()),
            _mm_loadu_si128(ptr.add(t.half_offset[2 * V + 1]).cast::<__m128i>()),
        )
    };
    let data = _mm256_set_m128i(hi, lo);
    let bytes = _mm256_shuffle_epi8(data, low);
    let mut value = if LANE == 32 {
        _mm256_srlv_epi32(bytes, shift_right)
    } else {
        _mm256_srlv_epi64(bytes, shift_right)
    };
    if t.needs_high {
        let extra = _mm256_shuffle_epi8(data, high);
        let extra = if LANE == 32 {
            _mm256_sllv_epi32(extra, shift_left)
        } else {
            _mm256_sllv_epi64(extra, shift_left)
        };
        value = _mm256_or_si256(value, extra);
    }
    _mm256_and_si256(value, masks[8])
}

/// Loads the constant vectors of a width: per vector its two shuffles and two shift
/// tables, then the value mask.
#[inline]
#[target_feature(enable = "avx2")]
fn masks<const LANE: usize, const W: usize>() -> [__m256i; 9] {
    let t = Lanes::<LANE, W>::T;
    let mut value_mask = [0u8; 32];
    let lane_mask = super::mask(W).to_le_bytes();
    for lane in value_mask.chunks_exact_mut(LANE / 8) {
        lane.copy_from_slice(&lane_mask[..LANE / 8]);
    }
    let load = |bytes: &[u8; 32]| {
        // SAFETY: the array is 32 bytes, exactly one unaligned 256-bit load.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    };
    [
        load(&t.low[0]),
        load(&t.high[0]),
        load(&t.shift_right[0]),
        load(&t.shift_left[0]),
        load(&t.low[1]),
        load(&t.high[1]),
        load(&t.shift_right[1]),
        load(&t.shift_left[1]),
        load(&value_mask),
    ]
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
    // The last block of group `g` (8 values, `W` bytes) reads up to
    // `g * group_bytes + last_read`.
    let last_read = group_bytes - W + Lanes::<LANE, W>::T.read;
    let groups = (output.len() / GROUP).min(match input.len().checked_sub(last_read) {
        Some(room) => room / group_bytes + 1,
        None => 0,
    });
    let out = output.as_mut_ptr();
    let lanes = 256 / LANE;
    for g in 0..groups {
        for b in 0..GROUP / 8 {
            let offset = g * group_bytes + b * W;
            // SAFETY: `offset + read <= g * group_bytes + last_read <= input.len()` by
            // the choice of `groups`; AVX2 and the width are the caller's promise.
            let ptr = unsafe { input.as_ptr().add(offset) };
            let first = g * GROUP + b * 8;
            // SAFETY: as above for the loads. For the stores: `g < output.len() /
            // GROUP`, so the 8 values of `T` from value `first` lie inside `output`,
            // one 32-byte vector per `lanes` values; `storeu` is unaligned.
            unsafe {
                _mm256_storeu_si256(
                    out.add(first).cast::<__m256i>(),
                    vector::<LANE, W, 0>(ptr, &masks),
                );
                if Lanes::<LANE, W>::VECTORS == 2 {
                    _mm256_storeu_si256(
                        out.add(first + lanes).cast::<__m256i>(),
                        vector::<LANE, W, 1>(ptr, &masks),
                    );
                }
            }
        }
    }
    groups * GROUP
}
