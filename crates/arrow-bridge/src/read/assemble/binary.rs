//! BYTE_ARRAY values as Arrow arrays: `Utf8` / `Binary` and their `Large` forms from
//! [`ByteArrays`] (offsets spread over the null slots, UTF-8 checked in one pass over
//! the whole batch), `Utf8View` / `BinaryView` from [`Views`] (UTF-8 was checked when
//! the views were made), and decimals from big-endian byte arrays.

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryViewArray, GenericBinaryArray, GenericStringArray, StringViewArray,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;

use super::primitive::spread;
use super::{IntoArray, cannot, decimal};
use crate::error::{Error, Result};
use crate::offsets::OffsetWidth;
use crate::read::values::{ByteArrays, Views};
use crate::read::views::starts_char;

impl<O: OffsetWidth> IntoArray for ByteArrays<O> {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        use DataType as D;
        let ByteArrays { mut offsets, data } = self;
        if offsets.is_empty() {
            offsets.push(O::from_position(0));
        }
        match target {
            D::Utf8 | D::Binary if !O::IS_LARGE => {
                byte_array(offsets, data, nulls, len, target == &D::Utf8)
            }
            D::LargeUtf8 | D::LargeBinary if O::IS_LARGE => {
                byte_array(offsets, data, nulls, len, target == &D::LargeUtf8)
            }
            D::Utf8 | D::Binary => {
                let narrow = narrow_offsets(&offsets)?;
                byte_array(narrow, data, nulls, len, target == &D::Utf8)
            }
            D::LargeUtf8 | D::LargeBinary => {
                let wide = offsets.iter().map(|o| o.position() as i64).collect();
                byte_array::<i64>(wide, data, nulls, len, target == &D::LargeUtf8)
            }
            D::Decimal32(_, _) | D::Decimal64(_, _) | D::Decimal128(_, _) | D::Decimal256(_, _) => {
                let values = offsets
                    .windows(2)
                    .map(|w| &data[w[0].position()..w[1].position()]);
                decimal::array(values, nulls, len, target)
            }
            _ => Err(cannot("BYTE_ARRAY", target)),
        }
    }
}

/// `offsets` as 32-bit offsets, or the error of a batch too large for them.
fn narrow_offsets<O: OffsetWidth>(offsets: &[O]) -> Result<Vec<i32>> {
    let last = offsets.last().map_or(0, |o| o.position());
    i32::check_len(last)?;
    Ok(offsets.iter().map(|o| o.position() as i32).collect())
}

/// Full-length offsets (a null slot repeats the previous offset) from dense ones.
fn spread_offsets<O: OffsetWidth>(dense: Vec<O>, nulls: Option<&NullBuffer>, len: usize) -> Vec<O> {
    let Some(nulls) = nulls else {
        return dense;
    };
    let mut out = Vec::with_capacity(len + 1);
    let mut next = 0;
    out.push(dense[0]);
    for valid in nulls.iter() {
        next += usize::from(valid);
        out.push(dense[next]);
    }
    out
}

/// The string (`utf8`) or binary array of the dense values `offsets` / `data`, spread
/// over `nulls`.
fn byte_array<O: OffsetWidth>(
    offsets: Vec<O>,
    data: Vec<u8>,
    nulls: Option<NullBuffer>,
    len: usize,
    utf8: bool,
) -> Result<ArrayRef> {
    O::check_len(data.len())?;
    let offsets = spread_offsets(offsets, nulls.as_ref(), len);
    // The offsets are checked here, in one branch-free pass that vectorises, so that a
    // bad one is an error (`OffsetBuffer::new` would panic) and is not checked twice.
    // A negative offset would read as a position beyond the data.
    let ordered = offsets
        .windows(2)
        .fold(true, |ok, w| ok & (w[0].position() <= w[1].position()));
    let fits = ordered
        && offsets.last().is_some_and(|o| o.position() <= data.len())
        && offsets.len() == len + 1
        && nulls.as_ref().is_none_or(|n| n.len() == len);
    if !fits {
        return Err(Error::corrupt("string offsets do not match the values"));
    }
    // SAFETY: the offsets are not empty, are never negative (they are built from byte
    // positions) and never decrease (checked just above): what `OffsetBuffer::new`
    // asserts.
    let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
    let data = Buffer::from_vec(data);
    if !utf8 {
        let array = GenericBinaryArray::<O>::try_new(offsets, data, nulls)
            .map_err(|e| Error::corrupt(e.to_string()).with_source(e))?;
        return Ok(Arc::new(array));
    }
    let bytes = data.as_slice();
    // ASCII bytes are UTF-8 and every offset into them is a character boundary;
    // otherwise one check of all the bytes, and one of each offset being where a
    // character starts (a tighter loop than `try_new`'s boundary check).
    let valid = bytes.is_ascii()
        || (std::str::from_utf8(bytes).is_ok()
            && offsets
                .iter()
                .fold(true, |ok, o| ok & starts_char(bytes, o.position())));
    if !valid {
        return Err(Error::corrupt("invalid UTF-8 in a string column"));
    }
    // SAFETY: the offsets start at 0 or above, never decrease, end within `data`, and
    // there is one more than `nulls` has slots (all checked above); `data` is UTF-8 and
    // every offset is at a character boundary (checked just above). That is everything
    // `try_new` checks.
    Ok(Arc::new(unsafe {
        GenericStringArray::<O>::new_unchecked(offsets, data, nulls)
    }))
}

impl IntoArray for Views {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        let Views { views, buffers } = self;
        match target {
            DataType::Utf8View => {
                let views = ScalarBuffer::from(spread(views, nulls.as_ref(), len)?);
                // SAFETY: every view was made over a value lying in one of `buffers`
                // (buffer index, offset and length within it, prefix copied from it,
                // short values inline and zero-padded), null slots are zero views, and
                // for a `Utf8View` column every value was checked to be UTF-8 when its
                // view was made (`decode::ViewBytes`). That is everything
                // `StringViewArray::try_new` checks, which would repeat the UTF-8 check
                // value by value.
                Ok(Arc::new(unsafe {
                    StringViewArray::new_unchecked(views, buffers, nulls)
                }))
            }
            DataType::BinaryView => {
                let views = ScalarBuffer::from(spread(views, nulls.as_ref(), len)?);
                Ok(Arc::new(BinaryViewArray::try_new(views, buffers, nulls)?))
            }
            _ => Err(cannot("BYTE_ARRAY", target)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;

    #[test]
    fn strings_spread_their_offsets_over_nulls_and_check_utf8() {
        let values = ByteArrays::<i32> {
            offsets: vec![0, 2, 5],
            data: b"abcde".to_vec(),
        };
        let nulls = NullBuffer::from(vec![false, true, true]);
        let array = values.into_array(&DataType::Utf8, Some(nulls), 3).unwrap();
        let strings = array.as_string::<i32>();
        assert_eq!(
            strings.iter().collect::<Vec<_>>(),
            [None, Some("ab"), Some("cde")]
        );
        assert_eq!(strings.value_offsets(), &[0, 0, 2, 5]);

        let bad = ByteArrays::<i64> {
            offsets: vec![0, 1],
            data: vec![0xff],
        };
        let error = bad.into_array(&DataType::LargeUtf8, None, 1).unwrap_err();
        assert!(error.to_string().contains("invalid UTF-8"), "{error}");
        // An empty batch has no offsets yet.
        let empty = ByteArrays::<i32>::default();
        let nulls = NullBuffer::new_null(2);
        let array = empty.into_array(&DataType::Binary, Some(nulls), 2).unwrap();
        assert_eq!(array.null_count(), 2);
    }

    #[test]
    fn wide_offsets_narrow_for_32_bit_types_when_they_fit() {
        let values = ByteArrays::<i64> {
            offsets: vec![0, 3],
            data: b"xyz".to_vec(),
        };
        let array = values.into_array(&DataType::Binary, None, 1).unwrap();
        assert_eq!(array.as_binary::<i32>().value(0), b"xyz");
        assert!(narrow_offsets(&[0i64, i64::from(i32::MAX) + 1]).is_err());
    }

    #[test]
    fn big_endian_decimals_from_byte_arrays() {
        let values = ByteArrays::<i64> {
            offsets: vec![0, 2, 3],
            data: vec![0xff, 0x38, 0x05],
        };
        let nulls = NullBuffer::from(vec![true, false, true]);
        let target = DataType::Decimal128(5, 2);
        let array = values.into_array(&target, Some(nulls), 3).unwrap();
        let array = array.as_primitive::<arrow_array::types::Decimal128Type>();
        assert_eq!(
            array.iter().collect::<Vec<_>>(),
            vec![Some(-200), None, Some(5)]
        );
        assert_eq!(array.data_type(), &target);
    }
}
