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

/// An Arrow-style offset type for variable-length values: `i32` or `i64`.
pub trait OffsetSize: Copy + Default + PartialEq + std::fmt::Debug + 'static {
    /// The offset for a byte position, or an error if it does not fit.
    fn from_usize(value: usize) -> Result<Self>;
}

impl OffsetSize for i32 {
    fn from_usize(value: usize) -> Result<Self> {
        i32::try_from(value).map_err(|_| {
            Error::invalid_argument(format!(
                "byte array data of {value} bytes does not fit 32-bit offsets"
            ))
        })
    }
}

impl OffsetSize for i64 {
    fn from_usize(value: usize) -> Result<Self> {
        i64::try_from(value)
            .map_err(|_| Error::invalid_argument(format!("offset {value} does not fit i64")))
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
