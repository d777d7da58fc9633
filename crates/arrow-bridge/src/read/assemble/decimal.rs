//! Decimals from big-endian two's-complement bytes (BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY
//! values), sign-extended to the width of the mapped decimal type.

use arrow_array::ArrayRef;
use arrow_array::types::{Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type};
use arrow_buffer::{NullBuffer, i256};
use arrow_schema::DataType;

use super::primitive::primitive;
use crate::error::{Error, Result};

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
    Ok(match target {
        DataType::Decimal256(_, _) => {
            let mut dense = Vec::new();
            for bytes in values {
                let b = be_sign_extend::<32>(bytes).ok_or_else(|| too_wide(bytes))?;
                dense.push(i256::from_be_bytes(b));
            }
            primitive::<Decimal256Type>(dense, nulls, len, target)?
        }
        _ => {
            let mut dense = Vec::new();
            for bytes in values {
                let b = be_sign_extend::<16>(bytes).ok_or_else(|| too_wide(bytes))?;
                dense.push(i128::from_be_bytes(b));
            }
            match target {
                DataType::Decimal32(_, _) => {
                    let narrowed: Option<Vec<i32>> =
                        dense.iter().map(|&x| i32::try_from(x).ok()).collect();
                    let narrowed = narrowed.ok_or_else(|| too_wide(&[0; 17]))?;
                    primitive::<Decimal32Type>(narrowed, nulls, len, target)?
                }
                DataType::Decimal64(_, _) => {
                    let narrowed: Option<Vec<i64>> =
                        dense.iter().map(|&x| i64::try_from(x).ok()).collect();
                    let narrowed = narrowed.ok_or_else(|| too_wide(&[0; 17]))?;
                    primitive::<Decimal64Type>(narrowed, nulls, len, target)?
                }
                _ => primitive::<Decimal128Type>(dense, nulls, len, target)?,
            }
        }
    })
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
}
