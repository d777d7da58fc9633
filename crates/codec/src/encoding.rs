//! Parquet value encodings: decoders that write into buffers the caller provides and
//! encoders that append to a `Vec<u8>`.
//!
//! | Encoding                           | Physical types                         | Module |
//! |------------------------------------|----------------------------------------|--------|
//! | PLAIN                              | all 8                                  | [`plain`] |
//! | PLAIN_DICTIONARY / RLE_DICTIONARY  | all (indices; dictionary page is PLAIN)| [`dictionary`] |
//! | RLE                                | BOOLEAN values (4-byte length prefix)  | [`crate::rle`] |
//! | BIT_PACKED (deprecated)            | levels only                            | [`crate::bitpack::unpack_msb_first`] |
//! | DELTA_BINARY_PACKED                | INT32, INT64                           | [`delta_binary_packed`] |
//! | DELTA_LENGTH_BYTE_ARRAY            | BYTE_ARRAY                             | [`delta_length_byte_array`] |
//! | DELTA_BYTE_ARRAY                   | BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY       | [`delta_byte_array`] |
//! | BYTE_STREAM_SPLIT                  | FLOAT, DOUBLE, INT32, INT64, FLBA      | [`byte_stream_split`] |
//!
//! Every decoder can skip values without materialising them, for row selections.

pub mod byte_stream_split;
pub mod delta_binary_packed;
pub mod delta_byte_array;
pub mod delta_length_byte_array;
pub mod dictionary;
pub mod plain;

use crate::error::{Error, Result};

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for i64 {}
    impl Sealed for u64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for [u8; 12] {}
}

/// A fixed-width value stored little-endian: INT32 (`i32`/`u32`), INT64 (`i64`/`u64`),
/// FLOAT (`f32`), DOUBLE (`f64`) and INT96 (`[u8; 12]`, the raw 12 bytes).
pub trait FixedWidth:
    Copy + Default + PartialEq + std::fmt::Debug + sealed::Sealed + 'static
{
    /// Bytes per value.
    const SIZE: usize;
    /// The value from exactly `SIZE` little-endian bytes.
    fn from_le_slice(bytes: &[u8]) -> Self;
    /// Appends the `SIZE` little-endian bytes of the value.
    fn extend_le(self, out: &mut Vec<u8>);
    /// Writes the `SIZE` little-endian bytes of the value into `dst` (exactly `SIZE`
    /// bytes long).
    fn write_le(self, dst: &mut [u8]);
}

macro_rules! impl_fixed_width {
    ($($t:ty),*) => {$(
        impl FixedWidth for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn from_le_slice(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("SIZE bytes"))
            }
            #[inline(always)]
            fn extend_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline(always)]
            fn write_le(self, dst: &mut [u8]) {
                dst.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
impl_fixed_width!(i32, u32, i64, u64, f32, f64);

impl FixedWidth for [u8; 12] {
    const SIZE: usize = 12;
    #[inline(always)]
    fn from_le_slice(bytes: &[u8]) -> Self {
        bytes.try_into().expect("12 bytes")
    }
    #[inline(always)]
    fn extend_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self);
    }
    #[inline(always)]
    fn write_le(self, dst: &mut [u8]) {
        dst.copy_from_slice(&self);
    }
}

/// An offset type for variable-length values: Arrow's `i32` or `i64`, or `usize` for
/// buffers that never become Arrow arrays (the writer's own value buffers).
///
/// Decoders of byte arrays append end offsets of this type; the Arrow side of
/// Herringbone builds its one offset-width trait on this one.
pub trait OffsetSize: Copy + Default + PartialEq + std::fmt::Debug + 'static {
    /// The largest byte position an offset of this width can hold.
    const MAX_POSITION: usize;

    /// The offset for a byte position, or an error if it does not fit.
    fn from_usize(value: usize) -> Result<Self> {
        Self::check_position(value)?;
        Ok(Self::from_position(value))
    }

    /// The offset for byte position `at`, which the caller has checked (or checks
    /// before using the offsets, with [`Self::check_position`]) to be at most
    /// [`Self::MAX_POSITION`]; larger positions wrap.
    fn from_position(at: usize) -> Self;

    /// The byte position of an offset (the offsets built here are never negative).
    fn position(self) -> usize;

    /// Fails ([`ErrorKind::LimitExceeded`](crate::ErrorKind)) when `bytes` bytes of
    /// values do not fit offsets of this width.
    fn check_position(bytes: usize) -> Result<()> {
        if bytes <= Self::MAX_POSITION {
            Ok(())
        } else {
            Err(Error::limit_exceeded(format!(
                "{bytes} bytes of values do not fit {}-bit offsets",
                8 * std::mem::size_of::<Self>()
            )))
        }
    }
}

impl OffsetSize for i32 {
    const MAX_POSITION: usize = i32::MAX as usize;

    #[inline(always)]
    fn from_position(at: usize) -> Self {
        at as i32
    }

    #[inline(always)]
    fn position(self) -> usize {
        self as usize
    }
}

impl OffsetSize for usize {
    const MAX_POSITION: usize = usize::MAX;

    #[inline(always)]
    fn from_position(at: usize) -> Self {
        at
    }

    #[inline(always)]
    fn position(self) -> usize {
        self
    }
}

impl OffsetSize for i64 {
    const MAX_POSITION: usize = i64::MAX as usize;

    #[inline(always)]
    fn from_position(at: usize) -> Self {
        at as i64
    }

    #[inline(always)]
    fn position(self) -> usize {
        self as usize
    }
}

/// Pushes the starting offset if `offsets` is empty, so that it always holds
/// `values + 1` entries as Arrow expects.
pub(crate) fn start_offsets<O: OffsetSize>(offsets: &mut Vec<O>, values: &[u8]) -> Result<()> {
    if offsets.is_empty() {
        offsets.push(O::from_usize(values.len())?);
    }
    Ok(())
}

/// How the bytes of byte-array values appended to an output grow: the output keeps
/// its capacity (it becomes an Arrow buffer), so when a run does not fit, room is made
/// for the run and for the values still to come at the mean length seen so far, exactly,
/// instead of doubling.
pub(crate) struct Growth {
    /// Length of the output's bytes before the first value.
    pub(crate) start_len: usize,
    /// Values appended before this run.
    pub(crate) done: usize,
    /// Values asked for in all.
    pub(crate) n: usize,
    pub(crate) max_bytes: usize,
}

impl Growth {
    /// Makes room for a run of `count` values taking `bytes` bytes (checked against
    /// `max_bytes` already), and for the block copy of its last value.
    #[inline]
    pub(crate) fn reserve(&self, values: &mut Vec<u8>, bytes: usize, count: usize) {
        let needed = bytes + plain::SHORT_VALUE;
        if values.capacity() - values.len() >= needed {
            return;
        }
        let seen_bytes = values.len() - self.start_len + bytes;
        let seen = self.done + count;
        let rest = self.n.saturating_sub(seen);
        let projected = seen_bytes.saturating_mul(rest) / seen.max(1);
        let room = self.max_bytes.saturating_sub(values.len() + bytes);
        values.reserve_exact(needed + projected.min(room));
    }
}

/// Fails ([`ErrorKind::LimitExceeded`](crate::ErrorKind)) when an output of `current`
/// bytes cannot take `adding` more within `max_bytes`.
#[inline]
pub(crate) fn check_room(current: usize, adding: usize, max_bytes: usize) -> Result<()> {
    if adding <= max_bytes.saturating_sub(current) {
        Ok(())
    } else {
        Err(Error::limit_exceeded(format!(
            "values of {} bytes would grow past the limit of {max_bytes} bytes",
            current.saturating_add(adding)
        )))
    }
}
