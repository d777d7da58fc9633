//! FIXED_LEN_BYTE_ARRAY values as Arrow arrays: `FixedSizeBinary` (nulls spread run by
//! run), decimals (big-endian), `Float16` (2 bytes) and intervals (12 bytes: months,
//! days, milliseconds).

use std::sync::Arc;

use arrow_array::types::{
    Float16Type, IntervalDayTimeType, IntervalMonthDayNanoType, IntervalYearMonthType,
};
use arrow_array::{ArrayRef, FixedSizeBinaryArray};
use arrow_buffer::{Buffer, IntervalDayTime, IntervalMonthDayNano, NullBuffer};
use arrow_schema::{DataType, IntervalUnit};

use super::primitive::primitive;
use super::{IntoArray, cannot, decimal};
use crate::error::Result;
use crate::read::values::FixedBytes;

impl IntoArray for FixedBytes {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        fixed_array(self.width, self.data, nulls, len, target)
    }
}

fn fixed_array(
    width: usize,
    data: Vec<u8>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<ArrayRef> {
    use DataType as D;
    let le_u32 = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    Ok(match target {
        D::FixedSizeBinary(w) if usize::try_from(*w).ok() == Some(width) => {
            let values = spread_fixed(&data, width, nulls.as_ref(), len);
            Arc::new(FixedSizeBinaryArray::try_new(
                *w,
                Buffer::from_vec(values),
                nulls,
            )?)
        }
        D::Decimal32(_, _) | D::Decimal64(_, _) | D::Decimal128(_, _) | D::Decimal256(_, _) => {
            decimal::fixed_width_array(&data, width, nulls, len, target)?
        }
        D::Float16 if width == 2 => primitive::<Float16Type>(
            data.chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]))
                .collect(),
            nulls,
            len,
            target,
        )?,
        D::Interval(unit) if width == 12 => {
            let parts = data.chunks_exact(12).map(|b| {
                (
                    le_u32(&b[..4]) as i32,
                    le_u32(&b[4..8]) as i32,
                    le_u32(&b[8..]),
                )
            });
            match unit {
                IntervalUnit::MonthDayNano => primitive::<IntervalMonthDayNanoType>(
                    parts
                        .map(|(m, d, ms)| {
                            IntervalMonthDayNano::new(m, d, i64::from(ms) * 1_000_000)
                        })
                        .collect(),
                    nulls,
                    len,
                    target,
                )?,
                IntervalUnit::YearMonth => primitive::<IntervalYearMonthType>(
                    parts.map(|(m, _, _)| m).collect(),
                    nulls,
                    len,
                    target,
                )?,
                IntervalUnit::DayTime => primitive::<IntervalDayTimeType>(
                    parts
                        .map(|(_, d, ms)| IntervalDayTime::new(d, ms as i32))
                        .collect(),
                    nulls,
                    len,
                    target,
                )?,
            }
        }
        _ => return Err(cannot("FIXED_LEN_BYTE_ARRAY", target)),
    })
}

/// Fixed-width values spread to `len` slots (null slots zeroed).
fn spread_fixed(dense: &[u8], width: usize, nulls: Option<&NullBuffer>, len: usize) -> Vec<u8> {
    let Some(nulls) = nulls else {
        return dense.to_vec();
    };
    let mut out = vec![0u8; len * width];
    let mut next = 0;
    for (start, end) in nulls.inner().set_slices() {
        let n = (end - start) * width;
        out[start * width..end * width].copy_from_slice(&dense[next..next + n]);
        next += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;

    #[test]
    fn intervals_read_as_month_day_nano_or_bytes() {
        let mut raw = Vec::new();
        for part in [14_u32, 3, 1500] {
            raw.extend_from_slice(&part.to_le_bytes());
        }
        let values = FixedBytes {
            width: 12,
            data: raw.clone(),
        };
        let target = DataType::Interval(IntervalUnit::MonthDayNano);
        let array = values.into_array(&target, None, 1).unwrap();
        assert_eq!(
            array.as_primitive::<IntervalMonthDayNanoType>().value(0),
            IntervalMonthDayNano::new(14, 3, 1_500_000_000)
        );
        let values = FixedBytes {
            width: 12,
            data: raw.clone(),
        };
        let array = values
            .into_array(&DataType::FixedSizeBinary(12), None, 1)
            .unwrap();
        assert_eq!(array.as_fixed_size_binary().value(0), &raw[..]);
    }

    #[test]
    fn fixed_size_binary_spreads_values_over_nulls() {
        let values = FixedBytes {
            width: 2,
            data: b"abcd".to_vec(),
        };
        let nulls = NullBuffer::from(vec![true, false, true]);
        let array = values
            .into_array(&DataType::FixedSizeBinary(2), Some(nulls), 3)
            .unwrap();
        let array = array.as_fixed_size_binary();
        assert_eq!(
            array.iter().collect::<Vec<_>>(),
            [Some(&b"ab"[..]), None, Some(&b"cd"[..])]
        );
    }
}
