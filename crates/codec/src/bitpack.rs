//! Bit packing: the kernels under the RLE/bit-packing hybrid, dictionary indices,
//! DELTA_BINARY_PACKED miniblocks and the deprecated BIT_PACKED level encoding.
//!
//! Parquet packs values LSB-first: value `i` of width `w` occupies bits
//! `i*w .. (i+1)*w` of the little-endian bit stream. [`unpack`] and [`pack`] work on
//! whole groups of 64 values with a kernel monomorphised for each bit width (every
//! shift and word index is a constant), chosen once per call; a partial group at
//! the end goes through the same kernel on a zero-padded copy.
//!
//! The deprecated BIT_PACKED encoding packs MSB-first instead; see
//! [`unpack_msb_first`] and [`pack_msb_first`].
//!
//! ```
//! use herringbone_codec::bitpack;
//! // 0..8 at bit width 3, as in the Parquet specification.
//! let mut packed = Vec::new();
//! bitpack::pack(&[0u32, 1, 2, 3, 4, 5, 6, 7], 3, &mut packed).unwrap();
//! assert_eq!(packed, [0b1000_1000, 0b1100_0110, 0b1111_1010]);
//! let mut values = [0u32; 8];
//! bitpack::unpack(&packed, 3, &mut values).unwrap();
//! assert_eq!(values, [0, 1, 2, 3, 4, 5, 6, 7]);
//! ```

use crate::error::{Error, Result};

#[macro_use]
mod macros;
#[cfg(target_arch = "x86_64")]
mod avx2;

/// Values per kernel group: 64 values of width `w` are exactly `w` little-endian
/// 64-bit words.
pub const GROUP: usize = 64;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// Kernel over whole groups: `output.len()` is a multiple of [`GROUP`] and `input`
/// holds at least `output.len() / 64 * width * 8` bytes.
type UnpackKernel<T> = fn(&[u8], &mut [T]);
/// Kernel over whole groups: `values.len()` is a multiple of [`GROUP`]; appends
/// `values.len() / 64 * width * 8` bytes.
type PackKernel<T> = fn(&[T], &mut Vec<u8>);

/// An unsigned integer type that packed values can be unpacked into or packed from.
pub trait BitPackable: Copy + Default + Eq + std::fmt::Debug + sealed::Sealed + 'static {
    /// Width of the type in bits: the largest bit width it can hold.
    const BITS: usize;
    /// Truncating conversion from the 64-bit lane value.
    fn from_u64(value: u64) -> Self;
    /// Widening conversion to 64 bits.
    fn to_u64(self) -> u64;
    #[doc(hidden)]
    fn unpack_kernel(width: usize) -> Option<UnpackKernel<Self>>;
    #[doc(hidden)]
    fn pack_kernel(width: usize) -> Option<PackKernel<Self>>;
    #[doc(hidden)]
    fn unpack_half_kernel(width: usize) -> Option<UnpackKernel<Self>>;
}

macro_rules! impl_bit_packable {
    ($t:ident, $unpack:ident) => {
        impl BitPackable for $t {
            const BITS: usize = $t::BITS as usize;
            #[inline(always)]
            fn from_u64(value: u64) -> Self {
                value as $t
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
            fn unpack_kernel(width: usize) -> Option<UnpackKernel<Self>> {
                // Widths without a block kernel get the generic kernel itself, exactly
                // as before the block kernels (a copy at widths 8/16/32/64).
                if block_kernel_width(<Self as BitPackable>::BITS, width) {
                    width_dispatch!(@kernel width, $unpack, $t)
                } else {
                    width_dispatch!(width, unpack_groups, $t, $t)
                }
            }
            fn pack_kernel(width: usize) -> Option<PackKernel<Self>> {
                width_dispatch!(width, pack_groups, $t, $t)
            }
            fn unpack_half_kernel(width: usize) -> Option<UnpackKernel<Self>> {
                width_dispatch!(width, unpack_half_group, $t, $t)
            }
        }
    };
}

/// Whether unpacking `width`-bit values into a `bits`-bit type goes through the AVX2
/// block kernel (when the CPU has AVX2). Measured against the portable kernel: into
/// `u32` it wins at every width but the byte widths (1.25x at width 1 up to 6.8x at
/// 17); into `u64` from width 13 to 58 (1.4-3.9x), while below 13 the portable word
/// extraction is as fast and above 58 most lanes need a ninth byte.
const fn block_kernel_width(bits: usize, width: usize) -> bool {
    match bits {
        32 => width > 0 && width < 32 && width != 8 && width != 16,
        64 => width >= 13 && width <= 58 && width != 16 && width != 32,
        _ => false,
    }
}

impl_bit_packable!(u8, unpack_groups_u8);
impl_bit_packable!(u16, unpack_groups_u16);
impl_bit_packable!(u32, unpack_groups_u32);
impl_bit_packable!(u64, unpack_groups_u64);

fn unpack_groups_u8<const W: usize>(input: &[u8], output: &mut [u8]) {
    unpack_groups::<u8, W>(input, output)
}

fn unpack_groups_u16<const W: usize>(input: &[u8], output: &mut [u16]) {
    unpack_groups::<u16, W>(input, output)
}

/// `u32` output: the AVX2 block kernel where the CPU has AVX2 and the width suits it
/// (see [`avx2`]), then the generic kernel for the groups too close to the end of
/// `input` for its 16-byte loads.
fn unpack_groups_u32<const W: usize>(input: &[u8], output: &mut [u32]) {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if avx2::Lanes::<32, W>::USABLE && block_kernel_width(32, W) && crate::cpu::avx2() {
        // SAFETY: AVX2 is present (checked just above), the width is one the block
        // kernel supports (`USABLE`), and `u32` has 32-bit lanes.
        done = unsafe { avx2::unpack_groups::<u32, 32, W>(input, output) };
    }
    unpack_groups::<u32, W>(&input[done / 8 * W..], &mut output[done..])
}

/// `u64` output: as [`unpack_groups_u32`], with 64-bit lanes.
fn unpack_groups_u64<const W: usize>(input: &[u8], output: &mut [u64]) {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if avx2::Lanes::<64, W>::USABLE && block_kernel_width(64, W) && crate::cpu::avx2() {
        // SAFETY: AVX2 is present (checked just above), the width is one the block
        // kernel supports (`USABLE`), and `u64` has 64-bit lanes.
        done = unsafe { avx2::unpack_groups::<u64, 64, W>(input, output) };
    }
    unpack_groups::<u64, W>(&input[done / 8 * W..], &mut output[done..])
}

/// Mask of the low `width` bits (`width <= 64`).
#[inline(always)]
pub const fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Bytes taken by `num_values` values of `width` bits, rounded up to whole bytes.
#[inline]
pub const fn packed_len(num_values: usize, width: usize) -> usize {
    // Computed as whole bytes + remainder to avoid overflowing for huge counts.
    let bytes = (num_values / 8) * width;
    bytes + ((num_values % 8) * width).div_ceil(8)
}

/// Unpacks whole groups of 64 values of width `W`, with the AVX2 build of the same
/// code when the CPU has it (detected once per call, not per value).
#[inline(never)]
fn unpack_groups<T: BitPackable, const W: usize>(input: &[u8], output: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx2() {
            // SAFETY: the CPU supports AVX2 (checked just above), which is the only
            // requirement of a `target_feature(enable = "avx2")` function; the body is
            // the same safe code as the portable path.
            unsafe { unpack_groups_avx2::<T, W>(input, output) };
            return;
        }
    }
    unpack_groups_portable::<T, W>(input, output)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn unpack_groups_avx2<T: BitPackable, const W: usize>(input: &[u8], output: &mut [T]) {
    unpack_groups_portable::<T, W>(input, output)
}

#[inline(always)]
fn unpack_groups_portable<T: BitPackable, const W: usize>(input: &[u8], output: &mut [T]) {
    if W == 0 {
        output.fill(T::default());
        return;
    }
    if matches!(W, 8 | 16 | 32 | 64) {
        // Power-of-two byte widths are plain little-endian integers: a zero-extending copy
        // the compiler turns into vector loads and widenings.
        let len = output.len().min(input.len() / (W / 8));
        for (value, bytes) in output[..len].iter_mut().zip(input.chunks_exact(W / 8)) {
            let mut word = [0u8; 8];
            word[..W / 8].copy_from_slice(bytes);
            *value = T::from_u64(u64::from_le_bytes(word));
        }
        return;
    }
    let mask = mask(W);
    for (chunk, out) in input
        .chunks_exact(W * 8)
        .zip(output.chunks_exact_mut(GROUP))
    {
        let mut words = [0u64; W];
        for (word, bytes) in words.iter_mut().zip(chunk.chunks_exact(8)) {
            *word = u64::from_le_bytes(bytes.try_into().expect("8-byte chunk"));
        }
        let out: &mut [T; GROUP] = out.try_into().expect("64-value chunk");
        macro_rules! lane {
            ($i:literal) => {{
                let start = $i * W;
                let k = start / 64;
                let s = start % 64;
                let value = if s + W > 64 {
                    (words[k] >> s) | (words[k + 1] << (64 - s))
                } else {
                    words[k] >> s
                };
                out[$i] = T::from_u64(value & mask);
            }};
        }
        unroll_64!(lane);
    }
}

/// Unpacks one half group: the 32 values of width `W` in the first `W * 4` bytes of
/// `input` into `output[..32]`. Partial runs of 32..63 values (DELTA_BINARY_PACKED
/// miniblocks, short RLE bit-packed runs) take this path instead of a padded copy.
#[inline(never)]
fn unpack_half_group<T: BitPackable, const W: usize>(input: &[u8], output: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx2() {
            // SAFETY: the CPU supports AVX2 (checked just above), the only requirement
            // of the `target_feature` function; its body is safe code.
            unsafe { unpack_half_group_avx2::<T, W>(input, output) };
            return;
        }
    }
    unpack_half_group_portable::<T, W>(input, output)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn unpack_half_group_avx2<T: BitPackable, const W: usize>(input: &[u8], output: &mut [T]) {
    unpack_half_group_portable::<T, W>(input, output)
}

#[inline(always)]
fn unpack_half_group_portable<T: BitPackable, const W: usize>(input: &[u8], output: &mut [T]) {
    let out = &mut output[..GROUP / 2];
    if W == 0 {
        out.fill(T::default());
        return;
    }
    let mask = mask(W);
    let bytes = &input[..W * 4];
    let mut words = [0u64; W];
    let mut chunks = bytes.chunks_exact(8);
    for (word, chunk) in words.iter_mut().zip(&mut chunks) {
        *word = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // Odd widths end on half a word.
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        words[W * 4 / 8] = u64::from_le_bytes(last);
    }
    macro_rules! lane {
        ($i:literal) => {{
            if $i < GROUP / 2 {
                let start = $i * W;
                let k = start / 64;
                let s = start % 64;
                let value = if s + W > 64 {
                    (words[k] >> s) | (words[k + 1] << (64 - s))
                } else {
                    words[k] >> s
                };
                out[$i] = T::from_u64(value & mask);
            }
        }};
    }
    unroll_64!(lane);
}

/// Packs whole groups of 64 values of width `W` (bits above `W` are ignored).
#[inline(never)]
fn pack_groups<T: BitPackable, const W: usize>(values: &[T], out: &mut Vec<u8>) {
    if W == 0 {
        return;
    }
    let mask = mask(W);
    out.reserve(values.len() / GROUP * W * 8);
    for group in values.chunks_exact(GROUP) {
        let group: &[T; GROUP] = group.try_into().expect("64-value chunk");
        let mut words = [0u64; W];
        macro_rules! lane {
            ($i:literal) => {{
                let start = $i * W;
                let k = start / 64;
                let s = start % 64;
                let value = group[$i].to_u64() & mask;
                words[k] |= value << s;
                if s + W > 64 {
                    words[k + 1] |= value >> (64 - s);
                }
            }};
        }
        unroll_64!(lane);
        for word in words {
            out.extend_from_slice(&word.to_le_bytes());
        }
    }
}

fn check_width<T: BitPackable>(width: usize) -> Result<()> {
    if width > T::BITS {
        return Err(Error::invalid_argument(format!(
            "bit width {width} does not fit a {}-bit integer",
            T::BITS
        )));
    }
    Ok(())
}

/// Reads the `width`-bit value starting at bit `bit_pos` (LSB-first). Bits past the
/// end of `input` read as zero.
#[inline]
pub fn read_value(input: &[u8], bit_pos: usize, width: usize) -> u64 {
    let byte = bit_pos / 8;
    let shift = bit_pos % 8;
    let mut buf = [0u8; 16];
    if byte < input.len() {
        let available = (input.len() - byte).min(16);
        buf[..available].copy_from_slice(&input[byte..byte + available]);
    }
    ((u128::from_le_bytes(buf) >> shift) as u64) & mask(width)
}

/// Unpacks `output.len()` values of `width` bits from the start of `input` (LSB-first).
///
/// Errors if `width` exceeds the bits of `T` or `input` is shorter than
/// [`packed_len`]`(output.len(), width)`.
pub fn unpack<T: BitPackable>(input: &[u8], width: usize, output: &mut [T]) -> Result<()> {
    unpack_from(input, width, 0, output)
}

/// Unpacks `output.len()` values of `width` bits starting with value number `first`
/// of the packed stream in `input` (LSB-first).
pub fn unpack_from<T: BitPackable>(
    input: &[u8],
    width: usize,
    first: usize,
    output: &mut [T],
) -> Result<()> {
    check_width::<T>(width)?;
    let end = first
        .checked_add(output.len())
        .ok_or_else(|| Error::invalid_argument("value range overflows"))?;
    let needed = packed_len(end, width);
    if input.len() < needed {
        return Err(Error::corrupt(format!(
            "bit-packed data truncated: {} values of width {width} from value {first} need {needed} bytes, {} present",
            output.len(),
            input.len()
        )));
    }
    let kernel = T::unpack_kernel(width).expect("width checked above");
    let mut first = first;
    let mut output = output;
    // Values before the next multiple of 8 do not start on a byte boundary.
    while !first.is_multiple_of(8) && !output.is_empty() {
        output[0] = T::from_u64(read_value(input, first * width, width));
        output = &mut output[1..];
        first += 1;
    }
    if output.is_empty() {
        return Ok(());
    }
    let input = &input[first / 8 * width..];
    let whole = output.len() / GROUP * GROUP;
    let (body, mut tail) = output.split_at_mut(whole);
    kernel(input, body);
    let mut rest = &input[whole / 8 * width..];
    if tail.len() >= GROUP / 2 {
        let half = T::unpack_half_kernel(width).expect("width checked above");
        half(rest, &mut tail[..GROUP / 2]);
        tail = &mut tail[GROUP / 2..];
        rest = &rest[GROUP / 2 / 8 * width..];
    }
    if !tail.is_empty() {
        let rest_len = packed_len(tail.len(), width).min(rest.len());
        let mut padded = [0u8; GROUP * 8];
        padded[..rest_len].copy_from_slice(&rest[..rest_len]);
        let mut group = [T::default(); GROUP];
        kernel(&padded, &mut group);
        tail.copy_from_slice(&group[..tail.len()]);
    }
    Ok(())
}

/// Appends `values` packed at `width` bits each (LSB-first), padding the last byte
/// with zero bits. Bits of a value above `width` are ignored.
pub fn pack<T: BitPackable>(values: &[T], width: usize, out: &mut Vec<u8>) -> Result<()> {
    check_width::<T>(width)?;
    let kernel = T::pack_kernel(width).expect("width checked above");
    let whole = values.len() / GROUP * GROUP;
    kernel(&values[..whole], out);
    let tail = &values[whole..];
    if !tail.is_empty() {
        let mut group = [T::default(); GROUP];
        group[..tail.len()].copy_from_slice(tail);
        let mut scratch = Vec::with_capacity(GROUP * 8);
        kernel(&group, &mut scratch);
        out.extend_from_slice(&scratch[..packed_len(tail.len(), width)]);
    }
    Ok(())
}

/// Unpacks `output.len()` values of the deprecated BIT_PACKED encoding (MSB-first:
/// the first value occupies the most significant bits of the first byte), starting at
/// value number `first`.
pub fn unpack_msb_first<T: BitPackable>(
    input: &[u8],
    width: usize,
    first: usize,
    output: &mut [T],
) -> Result<()> {
    check_width::<T>(width)?;
    let end = first
        .checked_add(output.len())
        .ok_or_else(|| Error::invalid_argument("value range overflows"))?;
    let needed = packed_len(end, width);
    if input.len() < needed {
        return Err(Error::corrupt(format!(
            "BIT_PACKED data truncated: {end} values of width {width} need {needed} bytes, {} present",
            input.len()
        )));
    }
    if width == 0 {
        output.fill(T::default());
        return Ok(());
    }
    for (i, out) in output.iter_mut().enumerate() {
        let bit_pos = (first + i) * width;
        let byte = bit_pos / 8;
        let mut buf = [0u8; 16];
        let available = (input.len() - byte).min(16);
        buf[..available].copy_from_slice(&input[byte..byte + available]);
        // Big-endian view: the value's top bit sits at (bit_pos % 8) from the left.
        let window = u128::from_be_bytes(buf);
        let shift = 128 - (bit_pos % 8) - width;
        *out = T::from_u64((window >> shift) as u64 & mask(width));
    }
    Ok(())
}

/// Appends `values` in the deprecated BIT_PACKED encoding (MSB-first), padding the
/// last byte with zero bits. Bits of a value above `width` are ignored.
pub fn pack_msb_first<T: BitPackable>(values: &[T], width: usize, out: &mut Vec<u8>) -> Result<()> {
    check_width::<T>(width)?;
    let start = out.len();
    out.resize(start + packed_len(values.len(), width), 0);
    let bytes = &mut out[start..];
    for (i, value) in values.iter().enumerate() {
        let value = value.to_u64() & mask(width);
        for bit in 0..width {
            if value >> (width - 1 - bit) & 1 == 1 {
                let pos = i * width + bit;
                bytes[pos / 8] |= 0x80 >> (pos % 8);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference_unpack(input: &[u8], width: usize, n: usize) -> Vec<u64> {
        (0..n)
            .map(|i| {
                let mut v = 0u64;
                for b in 0..width {
                    let pos = i * width + b;
                    if input[pos / 8] >> (pos % 8) & 1 == 1 {
                        v |= 1 << b;
                    }
                }
                v
            })
            .collect()
    }

    fn check<T: BitPackable>() {
        let bytes: Vec<u8> = (0..64 * 8 * 4 + 17)
            .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for width in 0..=T::BITS {
            for n in [0, 1, 7, 8, 63, 64, 65, 130, 200] {
                for first in [0, 3, 8, 13] {
                    let mut out = vec![T::default(); n];
                    unpack_from(&bytes, width, first, &mut out).unwrap();
                    let all = reference_unpack(&bytes, width, first + n);
                    let got: Vec<u64> = out.iter().map(|v| v.to_u64()).collect();
                    assert_eq!(got, all[first..], "width {width} n {n} first {first}");
                }
                let values: Vec<T> = reference_unpack(&bytes, width, 150)
                    .into_iter()
                    .map(T::from_u64)
                    .collect();
                let mut packed = Vec::new();
                pack(&values, width, &mut packed).unwrap();
                assert_eq!(packed.len(), packed_len(150, width));
                let mut back = vec![T::default(); 150];
                unpack(&packed, width, &mut back).unwrap();
                assert_eq!(back, values, "pack round trip width {width}");
            }
        }
        assert!(unpack(&bytes, T::BITS + 1, &mut [T::default(); 1]).is_err());
    }

    #[test]
    fn unpack_matches_bit_by_bit_reference_for_every_type_and_width() {
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }

    #[test]
    fn truncated_input_is_an_error() {
        let err = unpack(&[0u8; 2], 3, &mut [0u32; 8]).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Corrupt);
    }
}
