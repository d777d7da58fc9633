//! Decimals from big-endian two's-complement bytes (BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY
//! values), sign-extended to the width of the mapped decimal type.

use arrow_array::ArrayRef;
use arrow_array::types::ArrowPrimitiveType;
use arrow_array::types::{Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type};
use arrow_buffer::{NullBuffer, i256};
use arrow_schema::DataType;

use super::primitive::primitive;
use crate::error::{Error, Result};
use crate::read::decode::decimal::{DecimalValue, MAX_DECIMAL_WIDTH, append_be_decimals};

/// Sign-extends a big-endian two's-complement integer of at most `N` bytes.
fn be_sign_extend<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
    if bytes.len() > N {
        return None;
    }
    let fill = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        0xff
    } else {
        0
    };
    let mut out = [fill; N];
    out[N - bytes.len()..].copy_from_slice(bytes);
    Some(out)
}

pub(crate) fn array<'a>(
    values: impl Iterator<Item = &'a [u8]>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<ArrayRef> {
    let too_wide = |bytes: &[u8]| {
        Error::corrupt(format!(
            "a decimal of {} bytes does not fit {target}",
            bytes.len()
        ))
    };
    // The values are the non-null slots: as many as the iterator says it holds.
    let capacity = values.size_hint().0.min(len);
    if let DataType::Decimal256(_, _) = target {
        let mut dense = Vec::with_capacity(capacity);
        for bytes in values {
            let b = be_sign_extend::<32>(bytes).ok_or_else(|| too_wide(bytes))?;
            dense.push(i256::from_be_bytes(b));
        }
        return primitive::<Decimal256Type>(dense, nulls, len, target);
    }
    let mut dense = Vec::with_capacity(capacity);
    for bytes in values {
        let b = be_sign_extend::<16>(bytes).ok_or_else(|| too_wide(bytes))?;
        dense.push(i128::from_be_bytes(b));
    }
    narrowed(dense, nulls, len, target)
}

/// Decimals of FIXED_LEN_BYTE_ARRAY values, `width` bytes each, back to back in `data`
/// (a dictionary's values kept as they are stored, or a width or target the decimal
/// kind does not take). Widths up to 16 bytes read as a decimal of up to 128 bits go
/// through the decoder's loop compiled for the width, where [`array`] copies a slice of
/// a length known only at run time.
pub(crate) fn fixed_width_array(
    data: &[u8],
    width: usize,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<ArrayRef> {
    if width > MAX_DECIMAL_WIDTH {
        return array(data.chunks_exact(width), nulls, len, target);
    }
    match target {
        DataType::Decimal32(_, _) => widened::<Decimal32Type>(data, width, nulls, len, target),
        DataType::Decimal64(_, _) => widened::<Decimal64Type>(data, width, nulls, len, target),
        DataType::Decimal128(_, _) => widened::<Decimal128Type>(data, width, nulls, len, target),
        _ => array(data.chunks_exact(width), nulls, len, target),
    }
}

/// The array of decimal type `T` of the `width`-byte big-endian values in `data`.
fn widened<T>(
    data: &[u8],
    width: usize,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<ArrayRef>
where
    T: ArrowPrimitiveType,
    T::Native: DecimalValue,
{
    let mut dense = Vec::with_capacity(data.len() / width);
    append_be_decimals::<T::Native>(data, width, &mut dense, target)?;
    primitive::<T>(dense, nulls, len, target)
}

/// The array of `target` (a 32-, 64- or 128-bit decimal) of 128-bit values: an error
/// when one does not fit a narrower type.
fn narrowed(
    dense: Vec<i128>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<ArrayRef> {
    match target {
        DataType::Decimal32(_, _) => {
            primitive::<Decimal32Type>(narrow(&dense, target)?, nulls, len, target)
        }
        DataType::Decimal64(_, _) => {
            primitive::<Decimal64Type>(narrow(&dense, target)?, nulls, len, target)
        }
        _ => primitive::<Decimal128Type>(dense, nulls, len, target),
    }
}

/// The values as a narrower integer type, or an error naming the first that does not
/// fit.
fn narrow<T: TryFrom<i128>>(dense: &[i128], target: &DataType) -> Result<Vec<T>> {
    dense
        .iter()
        .map(|&x| {
            T::try_from(x).map_err(|_| Error::corrupt(format!("decimal {x} does not fit {target}")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_endian_decimals_sign_extend() {
        assert_eq!(
            be_sign_extend::<16>(&[0xff, 0x38]).map(i128::from_be_bytes),
            Some(-200)
        );
        assert_eq!(
            be_sign_extend::<16>(&[0x00, 0xc8]).map(i128::from_be_bytes),
            Some(200)
        );
        assert_eq!(be_sign_extend::<16>(&[]).map(i128::from_be_bytes), Some(0));
        assert_eq!(be_sign_extend::<16>(&[0; 17]), None);
    }

    /// Big-endian bytes of `value`'s low `width` bytes.
    fn be_bytes(value: i128, width: usize) -> Vec<u8> {
        value.to_be_bytes()[16 - width..].to_vec()
    }

    fn decimal128s(array: &ArrayRef) -> Vec<i128> {
        use arrow_array::Array;
        let array = array
            .as_any()
            .downcast_ref::<arrow_array::Decimal128Array>()
            .expect("a Decimal128 array");
        array.iter().map(|v| v.unwrap_or(0)).collect()
    }

    #[test]
    fn fixed_widths_widen_as_the_general_path_does() {
        for width in 1..=16usize {
            // The extremes of the width, a value around zero and one with every byte set
            // differently.
            let bits = 8 * width as u32;
            let max = if width == 16 {
                i128::MAX
            } else {
                (1i128 << (bits - 1)) - 1
            };
            let min = if width == 16 {
                i128::MIN
            } else {
                -(1i128 << (bits - 1))
            };
            let pattern = i128::from_be_bytes(core::array::from_fn(|i| 0x81 + i as u8));
            let pattern = (pattern << (128 - bits)) >> (128 - bits);
            let values = [0, 1, -1, max, min, pattern, max / 3, min / 3];
            let data: Vec<u8> = values.iter().flat_map(|&v| be_bytes(v, width)).collect();
            let target = DataType::Decimal128(38, 0);
            let fast = fixed_width_array(&data, width, None, values.len(), &target).unwrap();
            let general = array(data.chunks_exact(width), None, values.len(), &target).unwrap();
            assert_eq!(decimal128s(&fast), values, "width {width}");
            assert_eq!(decimal128s(&general), values, "width {width}");
        }
    }

    #[test]
    fn fixed_widths_narrow_or_say_which_value_does_not_fit() {
        let data: Vec<u8> = [5i128, -7].iter().flat_map(|&v| be_bytes(v, 7)).collect();
        let narrow = fixed_width_array(&data, 7, None, 2, &DataType::Decimal64(18, 2)).unwrap();
        let narrow = narrow
            .as_any()
            .downcast_ref::<arrow_array::Decimal64Array>()
            .unwrap();
        assert_eq!(narrow.values().to_vec(), [5i64, -7]);

        let wide = be_bytes(i128::from(i32::MAX) + 1, 7);
        let err = fixed_width_array(&wide, 7, None, 1, &DataType::Decimal32(9, 0)).unwrap_err();
        assert!(
            err.to_string()
                .contains("decimal 2147483648 does not fit Decimal32(9, 0)"),
            "{err}"
        );

        // Wider than 16 bytes: the general path, sign-extended to 256 bits.
        let data = be_bytes(-3, 16)
            .into_iter()
            .fold(vec![0xff; 1], |mut v, b| {
                v.push(b);
                v
            });
        let err = fixed_width_array(&data, 17, None, 1, &DataType::Decimal128(38, 0)).unwrap_err();
        assert!(
            err.to_string()
                .contains("a decimal of 17 bytes does not fit"),
            "{err}"
        );
        let wide = fixed_width_array(&data, 17, None, 1, &DataType::Decimal256(76, 0)).unwrap();
        let wide = wide
            .as_any()
            .downcast_ref::<arrow_array::Decimal256Array>()
            .unwrap();
        assert_eq!(wide.value(0), i256::from_i128(-3));
    }
}
