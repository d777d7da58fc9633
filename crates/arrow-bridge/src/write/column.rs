//! The column chunk writer: Arrow leaf values to encoded, compressed pages of one column
//! chunk, with dictionary, statistics, page index entries and a Bloom filter.
//!
//! Values are converted to their physical type ([`Values`]) once per batch, then cut
//! into pieces that end at row boundaries and appended to the open page; a page is
//! closed when its encoded size or row count reaches the limits. While the dictionary
//! is on, every value is looked up (and added) as it arrives; when the dictionary's
//! PLAIN size passes its limit the open page is closed and the rest of the chunk uses
//! the fallback encoding. Data pages go to a buffer of their own so the dictionary page
//! can be put in front of them when the chunk closes.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::BooleanBufferBuilder;
use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_schema::{DataType, IntervalUnit, TimeUnit};
use herringbone_codec::bloom::{self, SplitBlockBloomFilter};
use herringbone_codec::compression::Codec;
use herringbone_codec::encoding::{
    byte_stream_split, delta_binary_packed, delta_byte_array, dictionary, plain,
};
use herringbone_codec::page::{DataPageV1, DataPageV2, PageWriter, WrittenPage};
use herringbone_codec::rle::{self, LengthPrefix, RleEncoder};
use herringbone_format::metadata::{
    BoundaryOrder, ColumnIndex, ColumnMetaData, Encoding, LogicalType, OffsetIndex,
    PageEncodingStats, PageLocation, PageType, SizeStatistics, Statistics, Type,
};
use herringbone_format::schema::ColumnDescriptor;
use herringbone_format::thrift::Text;

use super::dictionary::Dictionary;
use super::levels::LeafLevels;
use super::properties::{DataPageVersion, StatisticsLevel, WriterProperties};
use super::schema::{LeafInfo, LeafKind};
use super::statistics::{self, ByteBounds, MinMax, SortOrder};
use crate::error::{Error, Result};

/// Level slots appended to a page at a time (pages are checked against their limits
/// between pieces).
const PIECE_SLOTS: usize = 1024;

/// Values of one physical type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Values {
    /// BOOLEAN.
    Bool(Vec<bool>),
    /// INT32.
    I32(Vec<i32>),
    /// INT64.
    I64(Vec<i64>),
    /// INT96 (raw 12 bytes).
    I96(Vec<[u8; 12]>),
    /// FLOAT.
    F32(Vec<f32>),
    /// DOUBLE.
    F64(Vec<f64>),
    /// BYTE_ARRAY: `offsets` has one entry more than there are values.
    Bytes {
        /// Value boundaries in `data`.
        offsets: Vec<usize>,
        /// Value bytes back to back.
        data: Vec<u8>,
    },
    /// FIXED_LEN_BYTE_ARRAY.
    Fixed {
        /// Bytes per value.
        width: usize,
        /// Value bytes back to back.
        data: Vec<u8>,
    },
}

impl Values {
    fn empty(physical: Type, width: usize) -> Values {
        match physical {
            Type::BOOLEAN => Values::Bool(Vec::new()),
            Type::INT32 => Values::I32(Vec::new()),
            Type::INT64 => Values::I64(Vec::new()),
            Type::INT96 => Values::I96(Vec::new()),
            Type::FLOAT => Values::F32(Vec::new()),
            Type::DOUBLE => Values::F64(Vec::new()),
            Type::BYTE_ARRAY => Values::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
            _ => Values::Fixed {
                width: width.max(1),
                data: Vec::new(),
            },
        }
    }

    /// An empty [`Values`] of the same variant (and width) as `other`.
    fn empty_like(other: &Values) -> Values {
        match other {
            Values::Bool(_) => Values::Bool(Vec::new()),
            Values::I32(_) => Values::I32(Vec::new()),
            Values::I64(_) => Values::I64(Vec::new()),
            Values::I96(_) => Values::I96(Vec::new()),
            Values::F32(_) => Values::F32(Vec::new()),
            Values::F64(_) => Values::F64(Vec::new()),
            Values::Bytes { .. } => Values::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
            Values::Fixed { width, .. } => Values::Fixed {
                width: *width,
                data: Vec::new(),
            },
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Bool(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::I96(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Bytes { offsets, .. } => offsets.len() - 1,
            Values::Fixed { width, data } => data.len() / width,
        }
    }

    /// The values as byte slices (BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY only).
    pub fn byte_values(&self) -> Box<dyn Iterator<Item = &[u8]> + '_> {
        match self {
            Values::Bytes { offsets, data } => {
                Box::new(offsets.windows(2).map(move |w| &data[w[0]..w[1]]))
            }
            Values::Fixed { width, data } => Box::new(data.chunks_exact(*width)),
            _ => Box::new(std::iter::empty()),
        }
    }

    /// Value `i` as bytes (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96; empty otherwise).
    pub(crate) fn bytes_at(&self, i: usize) -> &[u8] {
        match self {
            Values::Bytes { offsets, data } => &data[offsets[i]..offsets[i + 1]],
            Values::Fixed { width, data } => &data[i * width..(i + 1) * width],
            Values::I96(v) => &v[i],
            _ => &[],
        }
    }

    /// Appends one value given as bytes (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY of the same
    /// width, INT96 of 12 bytes; other variants ignore it).
    pub(crate) fn push_bytes(&mut self, value: &[u8]) {
        match self {
            Values::Bytes { offsets, data } => {
                data.extend_from_slice(value);
                offsets.push(data.len());
            }
            Values::Fixed { data, .. } => data.extend_from_slice(value),
            Values::I96(v) => {
                if let Ok(raw) = <[u8; 12]>::try_from(value) {
                    v.push(raw);
                }
            }
            _ => {}
        }
    }

    /// PLAIN-encoded size of the values.
    fn plain_size(&self) -> usize {
        match self {
            Values::Bool(v) => v.len().div_ceil(8),
            Values::I32(v) => v.len() * 4,
            Values::F32(v) => v.len() * 4,
            Values::I64(v) => v.len() * 8,
            Values::F64(v) => v.len() * 8,
            Values::I96(v) => v.len() * 12,
            Values::Bytes { offsets, data } => data.len() + 4 * (offsets.len() - 1),
            Values::Fixed { data, .. } => data.len(),
        }
    }

    /// Appends values `start..end` of `other` (same variant).
    fn extend_range(&mut self, other: &Values, start: usize, end: usize) {
        match (self, other) {
            (Values::Bool(a), Values::Bool(b)) => a.extend_from_slice(&b[start..end]),
            (Values::I32(a), Values::I32(b)) => a.extend_from_slice(&b[start..end]),
            (Values::I64(a), Values::I64(b)) => a.extend_from_slice(&b[start..end]),
            (Values::I96(a), Values::I96(b)) => a.extend_from_slice(&b[start..end]),
            (Values::F32(a), Values::F32(b)) => a.extend_from_slice(&b[start..end]),
            (Values::F64(a), Values::F64(b)) => a.extend_from_slice(&b[start..end]),
            (
                Values::Bytes { offsets, data },
                Values::Bytes {
                    offsets: bo,
                    data: bd,
                },
            ) => {
                let base = data.len();
                let first = bo[start];
                data.extend_from_slice(&bd[first..bo[end]]);
                offsets.extend(bo[start + 1..=end].iter().map(|o| o - first + base));
            }
            (Values::Fixed { width, data }, Values::Fixed { data: bd, .. }) => {
                data.extend_from_slice(&bd[start * *width..end * *width]);
            }
            _ => {}
        }
    }

    fn clear(&mut self) {
        match self {
            Values::Bool(v) => v.clear(),
            Values::I32(v) => v.clear(),
            Values::I64(v) => v.clear(),
            Values::I96(v) => v.clear(),
            Values::F32(v) => v.clear(),
            Values::F64(v) => v.clear(),
            Values::Bytes { offsets, data } => {
                offsets.clear();
                offsets.push(0);
                data.clear();
            }
            Values::Fixed { data, .. } => data.clear(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sum of the lengths of BYTE_ARRAY values `start..end` (0 for other types; for
    /// size statistics).
    fn byte_len(&self, start: usize, end: usize) -> i64 {
        match self {
            Values::Bytes { offsets, .. } if start < end => (offsets[end] - offsets[start]) as i64,
            _ => 0,
        }
    }

    /// The PLAIN bytes of fixed-width numbers as they lie in memory (little-endian
    /// targets, where PLAIN's little-endian layout is the native one); `None` for
    /// other values and targets.
    fn fixed_plain(&self) -> Option<&[u8]> {
        use arrow_buffer::ToByteSlice;
        if cfg!(target_endian = "big") {
            return None;
        }
        match self {
            Values::I32(v) => Some(v.to_byte_slice()),
            Values::I64(v) => Some(v.to_byte_slice()),
            Values::F32(v) => Some(v.to_byte_slice()),
            Values::F64(v) => Some(v.to_byte_slice()),
            _ => None,
        }
    }

    fn encode_plain(&self, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Values::Bool(v) => plain::encode_booleans(v, out),
            Values::I32(v) => plain::encode_fixed(v, out),
            Values::I64(v) => plain::encode_fixed(v, out),
            Values::I96(v) => plain::encode_fixed(v, out),
            Values::F32(v) => plain::encode_fixed(v, out),
            Values::F64(v) => plain::encode_fixed(v, out),
            Values::Bytes { offsets, data }
                if offsets.first() == Some(&0) && u32::try_from(data.len()).is_ok() =>
            {
                // Relative ends fit in u32: the run kernel (short values copied as
                // fixed-size windows).
                let ends = offsets[1..].iter().map(|&o| o as u32);
                append_plain_run(data, ends, out, None);
            }
            Values::Bytes { offsets, data } => {
                // Straight from the offsets: no slice list, one reservation.
                out.reserve(data.len() + 4 * (offsets.len() - 1));
                for w in offsets.windows(2) {
                    let len = u32::try_from(w[1] - w[0]).map_err(|_| {
                        Error::invalid_argument("a BYTE_ARRAY value is longer than 4 GiB")
                    })?;
                    out.extend_from_slice(&len.to_le_bytes());
                    out.extend_from_slice(&data[w[0]..w[1]]);
                }
            }
            Values::Fixed { width, data } => plain::encode_flba(data, *width, out)?,
        }
        Ok(())
    }

    fn encode(&self, encoding: Encoding, out: &mut Vec<u8>) -> Result<()> {
        match (encoding, self) {
            (Encoding::PLAIN, _) => self.encode_plain(out)?,
            (Encoding::RLE, Values::Bool(v)) => {
                let mut encoder = RleEncoder::new(1);
                for &b in v {
                    encoder.put(u64::from(b));
                }
                encoder.append_to(out, LengthPrefix::With);
            }
            (Encoding::DELTA_BINARY_PACKED, Values::I32(v)) => delta_binary_packed::encode(v, out),
            (Encoding::DELTA_BINARY_PACKED, Values::I64(v)) => delta_binary_packed::encode(v, out),
            (Encoding::DELTA_LENGTH_BYTE_ARRAY, Values::Bytes { offsets, data }) => {
                // The lengths from the offsets, the bytes as one block: the values are
                // already back to back, as DELTA_LENGTH_BYTE_ARRAY stores them.
                let lengths = offsets
                    .windows(2)
                    .map(|w| {
                        i32::try_from(w[1] - w[0]).map_err(|_| {
                            Error::invalid_argument(
                                "DELTA_LENGTH_BYTE_ARRAY value longer than 2 GiB",
                            )
                        })
                    })
                    .collect::<Result<Vec<i32>>>()?;
                delta_binary_packed::encode(&lengths, out);
                out.extend_from_slice(data);
            }
            (Encoding::DELTA_BYTE_ARRAY, Values::Bytes { .. } | Values::Fixed { .. }) => {
                let slices: Vec<&[u8]> = self.byte_values().collect();
                delta_byte_array::encode(&slices, out)?;
            }
            (Encoding::BYTE_STREAM_SPLIT, Values::I32(v)) => {
                byte_stream_split::encode_fixed(v, out)
            }
            (Encoding::BYTE_STREAM_SPLIT, Values::I64(v)) => {
                byte_stream_split::encode_fixed(v, out)
            }
            (Encoding::BYTE_STREAM_SPLIT, Values::F32(v)) => {
                byte_stream_split::encode_fixed(v, out)
            }
            (Encoding::BYTE_STREAM_SPLIT, Values::F64(v)) => {
                byte_stream_split::encode_fixed(v, out)
            }
            (Encoding::BYTE_STREAM_SPLIT, Values::Fixed { width, data }) => {
                byte_stream_split::encode_bytes(data, *width, out)?
            }
            (other, _) => {
                return Err(Error::invalid_argument(format!(
                    "encoding {other} does not apply to these values"
                )));
            }
        }
        Ok(())
    }

    fn bloom_hash(&self, i: usize) -> u64 {
        match self {
            Values::Bool(v) => bloom::hash_i32(i32::from(v[i])),
            Values::I32(v) => bloom::hash_i32(v[i]),
            Values::I64(v) => bloom::hash_i64(v[i]),
            Values::F32(v) => bloom::hash_f32(v[i]),
            Values::F64(v) => bloom::hash_f64(v[i]),
            Values::I96(v) => bloom::hash_int96(&v[i]),
            Values::Bytes { .. } => bloom::hash_byte_array(self.bytes_at(i)),
            Values::Fixed { .. } => bloom::hash_fixed_len_byte_array(self.bytes_at(i)),
        }
    }
}

/// Whether `encoding` can encode values of `physical` type (dictionary encodings are
/// chosen with the dictionary switch, not here).
pub(crate) fn check_encoding(physical: Type, encoding: Encoding, column: &str) -> Result<()> {
    let ok = match encoding {
        Encoding::PLAIN => true,
        Encoding::RLE => physical == Type::BOOLEAN,
        Encoding::DELTA_BINARY_PACKED => matches!(physical, Type::INT32 | Type::INT64),
        Encoding::DELTA_LENGTH_BYTE_ARRAY => physical == Type::BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY => {
            matches!(physical, Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY)
        }
        Encoding::BYTE_STREAM_SPLIT => matches!(
            physical,
            Type::FLOAT | Type::DOUBLE | Type::INT32 | Type::INT64 | Type::FIXED_LEN_BYTE_ARRAY
        ),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "column {column}: encoding {encoding} cannot encode {physical} values \
             (dictionary encoding is switched on with set_dictionary_enabled)"
        )))
    }
}

/// Converts the present values of a leaf (at `indices`) to the physical type.
pub(crate) fn gather(
    array: &ArrayRef,
    indices: &[usize],
    info: &LeafInfo,
    physical: Type,
    width: usize,
) -> Result<Values> {
    macro_rules! prim {
        ($t:ty, $variant:ident, $f:expr) => {{
            let a = array.as_primitive::<$t>();
            let v = a.values();
            Values::$variant(indices.iter().map(|&i| $f(v[i])).collect())
        }};
    }
    if indices.is_empty() {
        return Ok(Values::empty(physical, width));
    }
    let scale_s = info.kind == LeafKind::SecondsToMillis;
    let values = match array.data_type() {
        DataType::Boolean => {
            let a = array.as_boolean();
            Values::Bool(indices.iter().map(|&i| a.value(i)).collect())
        }
        DataType::Int8 => prim!(Int8Type, I32, i32::from),
        DataType::Int16 => prim!(Int16Type, I32, i32::from),
        DataType::Int32 => prim!(Int32Type, I32, |x| x),
        DataType::UInt8 => prim!(UInt8Type, I32, i32::from),
        DataType::UInt16 => prim!(UInt16Type, I32, i32::from),
        DataType::UInt32 => prim!(UInt32Type, I32, |x: u32| x as i32),
        DataType::Int64 => prim!(Int64Type, I64, |x| x),
        DataType::UInt64 => prim!(UInt64Type, I64, |x: u64| x as i64),
        DataType::Float32 => prim!(Float32Type, F32, |x| x),
        DataType::Float64 => prim!(Float64Type, F64, |x| x),
        DataType::Float16 => {
            let a = array.as_primitive::<Float16Type>();
            let mut data = Vec::with_capacity(indices.len() * 2);
            for &i in indices {
                data.extend_from_slice(&a.value(i).to_le_bytes());
            }
            Values::Fixed { width: 2, data }
        }
        DataType::Date32 => prim!(Date32Type, I32, |x| x),
        DataType::Date64 => prim!(Date64Type, I32, |x: i64| x.div_euclid(86_400_000) as i32),
        DataType::Time32(TimeUnit::Second) => {
            prim!(Time32SecondType, I32, |x: i32| x.wrapping_mul(1000))
        }
        DataType::Time32(_) => prim!(Time32MillisecondType, I32, |x| x),
        DataType::Time64(TimeUnit::Microsecond) => prim!(Time64MicrosecondType, I64, |x| x),
        DataType::Time64(_) => prim!(Time64NanosecondType, I64, |x| x),
        DataType::Timestamp(unit, _) => {
            let (v, per_second) = match unit {
                TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().values(), 1),
                TimeUnit::Millisecond => (
                    array.as_primitive::<TimestampMillisecondType>().values(),
                    1_000,
                ),
                TimeUnit::Microsecond => (
                    array.as_primitive::<TimestampMicrosecondType>().values(),
                    1_000_000,
                ),
                TimeUnit::Nanosecond => (
                    array.as_primitive::<TimestampNanosecondType>().values(),
                    1_000_000_000,
                ),
            };
            if info.kind == LeafKind::Int96 {
                let nanos_per_unit: i64 = 1_000_000_000 / per_second;
                Values::I96(
                    indices
                        .iter()
                        .map(|&i| int96(i128::from(v[i]) * i128::from(nanos_per_unit)))
                        .collect(),
                )
            } else if scale_s {
                Values::I64(indices.iter().map(|&i| v[i].wrapping_mul(1000)).collect())
            } else {
                Values::I64(indices.iter().map(|&i| v[i]).collect())
            }
        }
        DataType::Duration(unit) => {
            let v = match unit {
                TimeUnit::Second => array.as_primitive::<DurationSecondType>().values(),
                TimeUnit::Millisecond => array.as_primitive::<DurationMillisecondType>().values(),
                TimeUnit::Microsecond => array.as_primitive::<DurationMicrosecondType>().values(),
                TimeUnit::Nanosecond => array.as_primitive::<DurationNanosecondType>().values(),
            };
            Values::I64(indices.iter().map(|&i| v[i]).collect())
        }
        DataType::Decimal32(_, _) => {
            let v = array.as_primitive::<Decimal32Type>().values();
            decimal(indices.iter().map(|&i| i128::from(v[i])), physical, width)
        }
        DataType::Decimal64(_, _) => {
            let v = array.as_primitive::<Decimal64Type>().values();
            decimal(indices.iter().map(|&i| i128::from(v[i])), physical, width)
        }
        DataType::Decimal128(_, _) => {
            let v = array.as_primitive::<Decimal128Type>().values();
            decimal(indices.iter().map(|&i| v[i]), physical, width)
        }
        DataType::Decimal256(_, _) => {
            let v = array.as_primitive::<Decimal256Type>().values();
            match physical {
                Type::INT32 | Type::INT64 => {
                    decimal(indices.iter().map(|&i| v[i].as_i128()), physical, width)
                }
                _ => {
                    let mut data = Vec::with_capacity(indices.len() * width);
                    for &i in indices {
                        let be = v[i].to_be_bytes();
                        data.extend_from_slice(&be[32 - width.min(32)..]);
                    }
                    Values::Fixed { width, data }
                }
            }
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            let v = array.as_primitive::<IntervalYearMonthType>().values();
            let mut data = Vec::with_capacity(indices.len() * 12);
            for &i in indices {
                data.extend_from_slice(&(v[i] as u32).to_le_bytes());
                data.extend_from_slice(&[0; 8]);
            }
            Values::Fixed { width: 12, data }
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            let v = array.as_primitive::<IntervalDayTimeType>().values();
            let mut data = Vec::with_capacity(indices.len() * 12);
            for &i in indices {
                data.extend_from_slice(&[0; 4]);
                data.extend_from_slice(&(v[i].days as u32).to_le_bytes());
                data.extend_from_slice(&(v[i].milliseconds as u32).to_le_bytes());
            }
            Values::Fixed { width: 12, data }
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            interval_month_day_nano(array.as_primitive::<IntervalMonthDayNanoType>(), indices)?
        }
        DataType::Utf8 => bytes_of(indices, |i| array.as_string::<i32>().value(i).as_bytes()),
        DataType::LargeUtf8 => bytes_of(indices, |i| array.as_string::<i64>().value(i).as_bytes()),
        DataType::Utf8View => bytes_of(indices, |i| array.as_string_view().value(i).as_bytes()),
        DataType::Binary => bytes_of(indices, |i| array.as_binary::<i32>().value(i)),
        DataType::LargeBinary => bytes_of(indices, |i| array.as_binary::<i64>().value(i)),
        DataType::BinaryView => bytes_of(indices, |i| array.as_binary_view().value(i)),
        DataType::FixedSizeBinary(n) => {
            let a = array.as_fixed_size_binary();
            let mut data = Vec::with_capacity(indices.len() * *n as usize);
            for &i in indices {
                data.extend_from_slice(a.value(i));
            }
            Values::Fixed {
                width: *n as usize,
                data,
            }
        }
        other => {
            return Err(Error::unsupported(format!(
                "writing Arrow {other} values is not supported"
            )));
        }
    };
    Ok(values)
}

/// [`gather`] for the values `start..end` of `array` taken whole (a top-level column
/// without nulls): a slice copy instead of one indexed load per value. `None` for the
/// types it does not cover, which go through [`gather`].
fn gather_range(array: &ArrayRef, start: usize, end: usize, info: &LeafInfo) -> Option<Values> {
    if end > array.len() || start > end || info.kind != LeafKind::Plain {
        return None;
    }
    fn offsets_data<O: arrow_array::OffsetSizeTrait>(
        offsets: &[O],
        values: &[u8],
        start: usize,
        end: usize,
    ) -> Option<Values> {
        let first = offsets[start].as_usize();
        let last = offsets[end].as_usize();
        let data = values.get(first..last)?.to_vec();
        let offsets = offsets[start..=end]
            .iter()
            .map(|o| o.as_usize() - first)
            .collect();
        Some(Values::Bytes { offsets, data })
    }
    Some(match array.data_type() {
        // Each Arrow type is read through its own primitive type (a Date32 array is not
        // an Int32 array to `as_primitive`).
        DataType::Int32 => {
            Values::I32(array.as_primitive::<Int32Type>().values()[start..end].to_vec())
        }
        DataType::Date32 => {
            Values::I32(array.as_primitive::<Date32Type>().values()[start..end].to_vec())
        }
        DataType::Int64 => {
            Values::I64(array.as_primitive::<Int64Type>().values()[start..end].to_vec())
        }
        DataType::Float32 => {
            Values::F32(array.as_primitive::<Float32Type>().values()[start..end].to_vec())
        }
        DataType::Float64 => {
            Values::F64(array.as_primitive::<Float64Type>().values()[start..end].to_vec())
        }
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            offsets_data(a.value_offsets(), a.value_data(), start, end)?
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            offsets_data(a.value_offsets(), a.value_data(), start, end)?
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            offsets_data(a.value_offsets(), a.value_data(), start, end)?
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            offsets_data(a.value_offsets(), a.value_data(), start, end)?
        }
        _ => return None,
    })
}

/// The values of an Arrow array whose physical form is a plain copy (see
/// [`ColumnWriter::write_flat`]), downcast once per batch so that each run of valid
/// slots costs one slice copy.
enum Direct<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Bytes32(&'a [i32], &'a [u8]),
    Bytes64(&'a [i64], &'a [u8]),
}

impl<'a> Direct<'a> {
    /// `None` for the types (or leaf kinds) that need a conversion per value.
    fn of(array: &'a ArrayRef, info: &LeafInfo) -> Option<Direct<'a>> {
        if info.kind != LeafKind::Plain {
            return None;
        }
        Some(match array.data_type() {
            // Each Arrow type is read through its own primitive type.
            DataType::Int32 => Direct::I32(array.as_primitive::<Int32Type>().values()),
            DataType::Date32 => Direct::I32(array.as_primitive::<Date32Type>().values()),
            DataType::Time32(TimeUnit::Millisecond) => {
                Direct::I32(array.as_primitive::<Time32MillisecondType>().values())
            }
            DataType::Int64 => Direct::I64(array.as_primitive::<Int64Type>().values()),
            DataType::Time64(TimeUnit::Microsecond) => {
                Direct::I64(array.as_primitive::<Time64MicrosecondType>().values())
            }
            DataType::Time64(TimeUnit::Nanosecond) => {
                Direct::I64(array.as_primitive::<Time64NanosecondType>().values())
            }
            DataType::Float32 => Direct::F32(array.as_primitive::<Float32Type>().values()),
            DataType::Float64 => Direct::F64(array.as_primitive::<Float64Type>().values()),
            DataType::Utf8 => {
                let a = array.as_string::<i32>();
                Direct::Bytes32(a.value_offsets(), a.value_data())
            }
            DataType::LargeUtf8 => {
                let a = array.as_string::<i64>();
                Direct::Bytes64(a.value_offsets(), a.value_data())
            }
            DataType::Binary => {
                let a = array.as_binary::<i32>();
                Direct::Bytes32(a.value_offsets(), a.value_data())
            }
            DataType::LargeBinary => {
                let a = array.as_binary::<i64>();
                Direct::Bytes64(a.value_offsets(), a.value_data())
            }
            _ => return None,
        })
    }

    /// Whether the values are byte arrays (Utf8 / Binary, 32- or 64-bit offsets).
    fn is_bytes(&self) -> bool {
        matches!(self, Direct::Bytes32(..) | Direct::Bytes64(..))
    }

    /// Appends byte array values `start..end` to the open page's encoded buffers (see
    /// [`append_plain_run`] and [`append_delta_length_run`]); nothing for other types.
    fn append_encoded(&self, start: usize, end: usize, target: EncodedTarget<'_>) -> Result<()> {
        match *self {
            Direct::Bytes32(offsets, data) => target.append(offsets, data, start, end),
            Direct::Bytes64(offsets, data) => target.append(offsets, data, start, end),
            _ => Ok(()),
        }
    }

    /// Looks up (adding as needed) byte array values `start..end` in `dictionary` and
    /// appends their indices to `out`, and their hashes to `bloom`; the sum of their
    /// lengths. Nothing for other types.
    fn insert_bytes(
        &self,
        dictionary: &mut Dictionary,
        start: usize,
        end: usize,
        out: &mut Vec<u32>,
        bloom: Option<&mut SplitBlockBloomFilter>,
    ) -> usize {
        fn run<O: arrow_array::OffsetSizeTrait + super::dictionary::ByteOffset>(
            offsets: &[O],
            data: &[u8],
            dictionary: &mut Dictionary,
            start: usize,
            end: usize,
            out: &mut Vec<u32>,
            bloom: Option<&mut SplitBlockBloomFilter>,
        ) -> usize {
            dictionary.insert_byte_run(offsets, data, start, end, out);
            if let Some(bloom) = bloom {
                for w in offsets[start..=end].windows(2) {
                    bloom.insert_hash(bloom::hash_byte_array(
                        &data[w[0].as_usize()..w[1].as_usize()],
                    ));
                }
            }
            offsets[end].as_usize() - offsets[start].as_usize()
        }
        match *self {
            Direct::Bytes32(offsets, data) => {
                run(offsets, data, dictionary, start, end, out, bloom)
            }
            Direct::Bytes64(offsets, data) => {
                run(offsets, data, dictionary, start, end, out, bloom)
            }
            _ => 0,
        }
    }

    /// Appends values `start..end` (`end` at most the array's length) to `out`, which
    /// has the matching variant.
    fn append(&self, out: &mut Values, start: usize, end: usize) {
        fn bytes<O: arrow_array::OffsetSizeTrait>(
            offsets: &[O],
            data: &[u8],
            start: usize,
            end: usize,
            out_offsets: &mut Vec<usize>,
            out_data: &mut Vec<u8>,
        ) {
            let first = offsets[start].as_usize();
            let last = offsets[end].as_usize();
            let base = out_data.len();
            out_data.extend_from_slice(&data[first..last]);
            out_offsets.extend(
                offsets[start + 1..=end]
                    .iter()
                    .map(|o| o.as_usize() - first + base),
            );
        }
        match (self, out) {
            (Direct::I32(v), Values::I32(o)) => o.extend_from_slice(&v[start..end]),
            (Direct::I64(v), Values::I64(o)) => o.extend_from_slice(&v[start..end]),
            (Direct::F32(v), Values::F32(o)) => o.extend_from_slice(&v[start..end]),
            (Direct::F64(v), Values::F64(o)) => o.extend_from_slice(&v[start..end]),
            (
                Direct::Bytes32(offsets, data),
                Values::Bytes {
                    offsets: oo,
                    data: od,
                },
            ) => bytes(offsets, data, start, end, oo, od),
            (
                Direct::Bytes64(offsets, data),
                Values::Bytes {
                    offsets: oo,
                    data: od,
                },
            ) => bytes(offsets, data, start, end, oo, od),
            // The physical type follows from the Arrow type, so the variants match.
            _ => {}
        }
    }

    /// Appends the valid values among `start..end` (validity `nulls`) to `out` when
    /// they are fixed-width numbers, a 64-slot word of the bitmap at a time: a full
    /// word is one slice copy, an empty one nothing, a mixed one a value per set bit.
    /// Where the nulls are scattered, runs of valid slots are a value or two long and a
    /// copy per run (a `memcpy` call and a run search each) costs more than the values.
    /// `false` (nothing appended) for byte arrays.
    fn append_valid(
        &self,
        out: &mut Values,
        nulls: &arrow_buffer::NullBuffer,
        start: usize,
        end: usize,
    ) -> bool {
        fn gather<T: Copy>(
            v: &[T],
            out: &mut Vec<T>,
            nulls: &arrow_buffer::NullBuffer,
            start: usize,
            end: usize,
        ) {
            let chunks = arrow_buffer::bit_chunk_iterator::BitChunks::new(
                nulls.validity(),
                nulls.offset() + start,
                end - start,
            );
            out.reserve(end - start);
            let mut word = |w: u64, n: usize, at: usize| {
                if n == 64 && w == u64::MAX {
                    out.extend_from_slice(&v[at..at + 64]);
                    return;
                }
                let mut w = if n < 64 { w & ((1u64 << n) - 1) } else { w };
                while w != 0 {
                    out.push(v[at + w.trailing_zeros() as usize]);
                    w &= w - 1;
                }
            };
            let mut at = start;
            for w in chunks.iter() {
                word(w, 64, at);
                at += 64;
            }
            word(chunks.remainder_bits(), chunks.remainder_len(), at);
        }
        match (self, out) {
            (Direct::I32(v), Values::I32(o)) => gather(v, o, nulls, start, end),
            (Direct::I64(v), Values::I64(o)) => gather(v, o, nulls, start, end),
            (Direct::F32(v), Values::F32(o)) => gather(v, o, nulls, start, end),
            (Direct::F64(v), Values::F64(o)) => gather(v, o, nulls, start, end),
            _ => return false,
        }
        true
    }
}

/// Where [`Direct::append_encoded`] puts a run of byte array values: the open page's
/// buffers, already in the layout of the page's encoding, and its running bounds.
struct EncodedTarget<'a> {
    /// PLAIN (`true`: length-prefixed values) or DELTA_LENGTH_BYTE_ARRAY (`false`:
    /// lengths to `lengths`, bytes back to back to `bytes`).
    plain: bool,
    bytes: &'a mut Vec<u8>,
    lengths: &'a mut Vec<i32>,
    bounds: Option<&'a mut ByteBounds>,
    bloom: Option<&'a mut SplitBlockBloomFilter>,
}

impl EncodedTarget<'_> {
    fn append<O: arrow_array::OffsetSizeTrait>(
        self,
        offsets: &[O],
        data: &[u8],
        start: usize,
        end: usize,
    ) -> Result<()> {
        if start >= end {
            return Ok(());
        }
        let first = offsets[start].as_usize();
        let last = offsets[end].as_usize();
        // Every value of the run is at most as long as the run: one check for all.
        if last - first > i32::MAX as usize {
            return Err(Error::invalid_argument(
                "a run of BYTE_ARRAY values longer than 2 GiB (a value too long for a page)",
            ));
        }
        let data = &data[first..last];
        // Offsets relative to the run's first byte, as u32 (checked above).
        let rel = |o: &O| (o.as_usize() - first) as u32;
        let ends = &offsets[start + 1..=end];
        if self.plain {
            append_plain_run(data, ends.iter().map(rel), self.bytes, self.bounds);
        } else {
            append_delta_length_run(data, ends.iter().map(rel), self.bytes, self.lengths);
            if let Some(bounds) = self.bounds {
                let mut prev = 0;
                for end in ends.iter().map(rel) {
                    bounds.update(&data[prev as usize..end as usize]);
                    prev = end;
                }
            }
        }
        if let Some(bloom) = self.bloom {
            let mut prev = 0;
            for end in ends.iter().map(rel) {
                bloom.insert_hash(bloom::hash_byte_array(&data[prev as usize..end as usize]));
                prev = end;
            }
        }
        Ok(())
    }
}

/// Appends the values of `data` (which end at `ends`, relative to `data`) PLAIN-encoded
/// to `out` (each a 4-byte little-endian length, then its bytes), taking each into
/// `bounds`: straight from the Arrow buffers into the page, in one pass.
/// Records the validity of slots `range` in a flat page's bitmap (`nullable`: the
/// column has definition levels at all) and calls `run` with each run of valid slots
/// `from..to`: the one place the flat writer paths walk a piece's nulls.
fn valid_runs(
    page_valid: &mut BooleanBufferBuilder,
    nullable: bool,
    nulls: Option<&arrow_buffer::NullBuffer>,
    range: std::ops::Range<usize>,
    mut run: impl FnMut(usize, usize) -> Result<()>,
) -> Result<()> {
    let (start, end) = (range.start, range.end);
    match nulls {
        None => {
            if nullable {
                page_valid.append_n(end - start, true);
            }
            run(start, end)
        }
        Some(n) => {
            let bits = n.validity();
            let offset = n.offset();
            page_valid.append_packed_range(offset + start..offset + end, bits);
            for (from, to) in BitSliceIterator::new(bits, offset + start, end - start) {
                run(start + from, start + to)?;
            }
            Ok(())
        }
    }
}

fn append_plain_run(
    data: &[u8],
    ends: impl ExactSizeIterator<Item = u32>,
    out: &mut Vec<u8>,
    bounds: Option<&mut ByteBounds>,
) {
    out.reserve(data.len() + 4 * ends.len() + WINDOW);
    let mut prev = 0u32;
    // Short values (most of a column of names, codes, words) are copied as a fixed-size
    // window of the source after their length prefix, and the bytes past the value
    // taken back off: a copy of constant size is a few vector moves where a copy of
    // the value's own length is a call to `memcpy` per value. The window needs WINDOW
    // bytes of source from the value's start; values near the end of `data` take the
    // exact copy.
    const WINDOW: usize = 32;
    macro_rules! run {
        ($each:expr) => {
            for end in ends {
                let (from, to) = (prev as usize, end as usize);
                let value = &data[from..to];
                match data.get(from..from + WINDOW) {
                    Some(window) if value.len() <= WINDOW => {
                        let mut prefixed = [0u8; 4 + WINDOW];
                        prefixed[..4].copy_from_slice(&(end - prev).to_le_bytes());
                        prefixed[4..].copy_from_slice(window);
                        out.extend_from_slice(&prefixed);
                        out.truncate(out.len() - (WINDOW - value.len()));
                    }
                    _ => {
                        out.extend_from_slice(&(end - prev).to_le_bytes());
                        out.extend_from_slice(value);
                    }
                }
                $each(value);
                prev = end;
            }
        };
    }
    // Two loops rather than a branch per value.
    match bounds {
        Some(b) => run!(|v| b.update(v)),
        None => run!(|_| ()),
    }
}

/// Appends the lengths of the values of `data` (which end at `ends`) to `lengths` and
/// their bytes, as one block, to `out`: the DELTA_LENGTH_BYTE_ARRAY layout.
fn append_delta_length_run(
    data: &[u8],
    ends: impl ExactSizeIterator<Item = u32>,
    out: &mut Vec<u8>,
    lengths: &mut Vec<i32>,
) {
    lengths.reserve(ends.len());
    let mut prev = 0u32;
    lengths.extend(ends.map(|end| {
        // At most i32::MAX (the run's length was checked).
        let len = (end - prev) as i32;
        prev = end;
        len
    }));
    out.extend_from_slice(data);
}

fn bytes_of<'a>(indices: &[usize], value: impl Fn(usize) -> &'a [u8]) -> Values {
    let mut offsets = Vec::with_capacity(indices.len() + 1);
    offsets.push(0);
    let mut data = Vec::new();
    for &i in indices {
        data.extend_from_slice(value(i));
        offsets.push(data.len());
    }
    Values::Bytes { offsets, data }
}

fn decimal(values: impl Iterator<Item = i128>, physical: Type, width: usize) -> Values {
    match physical {
        Type::INT32 => Values::I32(values.map(|v| v as i32).collect()),
        Type::INT64 => Values::I64(values.map(|v| v as i64).collect()),
        _ => {
            let mut data = Vec::new();
            for v in values {
                let be = v.to_be_bytes();
                if width <= 16 {
                    data.extend_from_slice(&be[16 - width..]);
                } else {
                    // Sign-extend to the wider width.
                    let fill = if v < 0 { 0xff } else { 0 };
                    data.extend(std::iter::repeat_n(fill, width - 16));
                    data.extend_from_slice(&be);
                }
            }
            Values::Fixed { width, data }
        }
    }
}

/// INT96 of a nanosecond timestamp: nanoseconds of the day, then the Julian day.
fn int96(nanos: i128) -> [u8; 12] {
    const NANOS_PER_DAY: i128 = 86_400_000_000_000;
    const JULIAN_UNIX_EPOCH: i128 = 2_440_588;
    let day = nanos.div_euclid(NANOS_PER_DAY) + JULIAN_UNIX_EPOCH;
    let of_day = nanos.rem_euclid(NANOS_PER_DAY);
    let mut out = [0u8; 12];
    out[..8].copy_from_slice(&(of_day as i64).to_le_bytes());
    out[8..].copy_from_slice(&(day as i32).to_le_bytes());
    out
}

/// The present values of a dictionary array as keys into its (converted) values.
struct KeyedValues {
    /// Dictionary key of every present value.
    keys: Vec<usize>,
    /// Every value of the Arrow dictionary, converted.
    distinct: Values,
    /// Chunk dictionary index of each Arrow dictionary value, once looked up.
    index_of: Vec<u32>,
}

/// Statistics of one written data page.
#[derive(Debug, Clone)]
struct PageInfo {
    written: WrittenPage,
    min_max: Option<MinMax>,
    null_count: i64,
    non_null: usize,
    def_histogram: Vec<i64>,
    rep_histogram: Vec<i64>,
    unencoded_bytes: Option<i64>,
}

/// A closed column chunk: its bytes and everything the footer and page index need, with
/// offsets relative to the start of `bytes`.
#[derive(Debug)]
pub(crate) struct ClosedChunk {
    pub bytes: Vec<u8>,
    pub metadata: ColumnMetaData,
    pub column_index: Option<ColumnIndex>,
    pub offset_index: OffsetIndex,
    pub bloom_filter: Option<SplitBlockBloomFilter>,
}

/// Writes one column chunk.
#[derive(Debug)]
pub(crate) struct ColumnWriter {
    path: Vec<String>,
    physical: Type,
    width: usize,
    info: LeafInfo,
    max_def: i16,
    max_rep: i16,
    order: SortOrder,
    is_text: bool,
    codec: Codec,
    encoding: Encoding,
    statistics: StatisticsLevel,
    truncate: Option<usize>,
    version: DataPageVersion,
    page_size_limit: usize,
    page_row_limit: usize,
    dictionary_limit: usize,
    page_writer: PageWriter,
    dictionary: Option<Dictionary>,
    dictionary_used: bool,
    dictionary_active: bool,
    // The open page.
    /// Level slots in the open page.
    page_slots: usize,
    /// Definition levels of the open page as validity bits, when it was filled by
    /// [`ColumnWriter::write_flat`] (maximum definition level 1); `page_def` is then empty.
    page_valid: BooleanBufferBuilder,
    /// The open page was filled by [`ColumnWriter::write_flat`].
    page_flat: bool,
    page_def: Vec<i16>,
    /// Present values in the open page (`page_values` stays empty for the dictionary
    /// pages [`ColumnWriter::write_flat`] fills: their indices are all they need).
    page_non_null: usize,
    /// Sum of the BYTE_ARRAY value lengths in the open page.
    page_unencoded: i64,
    /// One piece's values on their way into the dictionary.
    piece_values: Values,
    page_rep: Vec<i16>,
    page_values: Values,
    /// The open page's values are in `page_encoded` / `page_lengths` (byte arrays that
    /// [`ColumnWriter::write_flat`] wrote straight in the layout of the page's PLAIN or
    /// DELTA_LENGTH_BYTE_ARRAY encoding) rather than in `page_values`.
    page_direct: bool,
    /// See `page_direct`: length-prefixed values (PLAIN) or the value bytes back to back
    /// (DELTA_LENGTH_BYTE_ARRAY).
    page_encoded: Vec<u8>,
    /// See `page_direct`: the value lengths (DELTA_LENGTH_BYTE_ARRAY).
    page_lengths: Vec<i32>,
    /// See `page_direct`: the bounds of the values, kept as they are appended.
    page_bounds: ByteBounds,
    page_indices: Vec<u32>,
    page_rows: usize,
    // The chunk so far.
    data: Vec<u8>,
    pages: Vec<PageInfo>,
    num_values: i64,
    bloom: Option<SplitBlockBloomFilter>,
    scratch_def: Vec<u8>,
    scratch_rep: Vec<u8>,
    scratch_values: Vec<u8>,
    // geo: bounding box and type list of GEOMETRY / GEOGRAPHY chunks.
    geo: Option<herringbone_codec::geo::GeoStatisticsAccumulator>,
}

impl ColumnWriter {
    /// A writer for `column` with the settings `props` has for its dotted path.
    pub fn new(
        column: &ColumnDescriptor,
        info: &LeafInfo,
        props: &WriterProperties,
    ) -> Result<Self> {
        let dotted = column.path().dotted();
        let physical = column.physical_type();
        let width = column.type_length().unwrap_or(0).max(0) as usize;
        let default_encoding = Encoding::PLAIN;
        let encoding = props.encoding(&dotted).unwrap_or(default_encoding);
        check_encoding(physical, encoding, &dotted)?;
        let dictionary = (props.dictionary_enabled(&dotted) && physical != Type::BOOLEAN)
            .then(|| Dictionary::new(Values::empty(physical, width)));
        let bloom = match props.bloom_filter(&dotted) {
            Some(b) => Some(
                SplitBlockBloomFilter::with_ndv_fpp(b.ndv, b.fpp).map_err(|e| {
                    Error::invalid_argument(format!("column {dotted}: bad Bloom filter settings"))
                        .with_source(e)
                })?,
            ),
            None => None,
        };
        let codec = props.compression(&dotted);
        Ok(Self {
            path: column.path().parts().to_vec(),
            physical,
            width,
            info: info.clone(),
            max_def: column.max_def_level(),
            max_rep: column.max_rep_level(),
            order: SortOrder::of(physical, column.logical_type(), column.converted_type()),
            is_text: matches!(
                column.logical_type(),
                Some(LogicalType::String | LogicalType::Json | LogicalType::Enum)
            ),
            codec,
            encoding,
            statistics: props.statistics(&dotted),
            truncate: props.statistics_truncate_length(),
            version: props.data_page_version(),
            page_size_limit: props.data_page_size_limit(),
            page_row_limit: props.data_page_row_limit(),
            dictionary_limit: props.dictionary_page_size_limit(),
            page_writer: PageWriter::new(codec).with_crc(props.write_crc()),
            dictionary_active: dictionary.is_some(),
            dictionary,
            dictionary_used: false,
            page_slots: 0,
            page_valid: BooleanBufferBuilder::new(0),
            page_flat: false,
            page_def: Vec::new(),
            page_non_null: 0,
            page_unencoded: 0,
            piece_values: Values::empty(physical, width),
            page_rep: Vec::new(),
            page_values: Values::empty(physical, width),
            page_direct: false,
            page_encoded: Vec::new(),
            page_lengths: Vec::new(),
            page_bounds: ByteBounds::default(),
            page_indices: Vec::new(),
            page_rows: 0,
            data: Vec::new(),
            pages: Vec::new(),
            num_values: 0,
            bloom,
            scratch_def: Vec::new(),
            scratch_rep: Vec::new(),
            scratch_values: Vec::new(),
            // geo:
            geo: super::geo::accumulator_for(column, props.statistics(&dotted)),
        })
    }

    /// Bytes held: written pages plus an estimate of the open page and dictionary.
    pub fn memory_size(&self) -> usize {
        self.data.len()
            + self.page_estimate()
            + self
                .dictionary
                .as_ref()
                .map_or(0, |d| d.values.plain_size())
    }

    fn page_estimate(&self) -> usize {
        if self.page_slots == 0 {
            return 0;
        }
        let levels = self.page_slots * 2 / 8 + 1;
        let values = if self.dictionary_active {
            let bits =
                dictionary::bit_width_for(self.dictionary.as_ref().map_or(0, |d| d.values.len()));
            self.page_indices.len() * bits / 8
        } else if self.page_direct {
            // What `plain_size` says of the same values.
            self.page_encoded.len() + 4 * self.page_lengths.len()
        } else {
            self.page_values.plain_size()
        };
        levels + values
    }

    /// Appends one batch of levels and values.
    pub fn write(&mut self, levels: &LeafLevels) -> Result<()> {
        if self.page_flat {
            // The open page holds its levels as bits (and perhaps no values, only
            // dictionary indices): close it rather than mix forms.
            self.flush_page()?;
        }
        // A dictionary array: values gathered through its keys, and dictionary indices
        // found once per distinct key rather than by hashing every value.
        let mut from_keys = None;
        let values = if let Some(d) = levels.values.as_any_dictionary_opt() {
            let mapped: Vec<usize> = if levels.indices.is_empty() {
                Vec::new()
            } else if d.values().is_empty() {
                return Err(Error::invalid_argument(
                    "dictionary array with present values but an empty dictionary",
                ));
            } else {
                let keys = d.normalized_keys();
                levels.indices.iter().map(|&i| keys[i]).collect()
            };
            let values = gather(d.values(), &mapped, &self.info, self.physical, self.width)?;
            if self.dictionary_active && !mapped.is_empty() {
                let all: Vec<usize> = (0..d.values().len()).collect();
                let distinct = gather(d.values(), &all, &self.info, self.physical, self.width)?;
                from_keys = Some(KeyedValues {
                    keys: mapped,
                    distinct,
                    index_of: vec![u32::MAX; d.values().len()],
                });
            }
            values
        } else {
            let range = if levels.contiguous {
                gather_range(&levels.values, 0, levels.indices.len(), &self.info)
            } else {
                // Values of a list or struct child without nulls are one run of the
                // leaf array (ascending by one): a slice copy instead of a gather.
                match (levels.indices.first(), levels.indices.last()) {
                    (Some(&first), Some(&last))
                        if last.checked_sub(first) == Some(levels.indices.len() - 1)
                            && levels.indices.windows(2).all(|w| w[1] == w[0] + 1) =>
                    {
                        gather_range(&levels.values, first, last + 1, &self.info)
                    }
                    _ => None,
                }
            };
            match range {
                Some(values) => values,
                None => gather(
                    &levels.values,
                    &levels.indices,
                    &self.info,
                    self.physical,
                    self.width,
                )?,
            }
        };
        // geo:
        if let Some(geo) = &mut self.geo {
            super::geo::add_values(geo, &values);
        }
        if let Some(bloom) = &mut self.bloom {
            for i in 0..values.len() {
                bloom.insert_hash(values.bloom_hash(i));
            }
        }
        let slots = levels.def.len();
        if levels.rep.len() != slots {
            return Err(Error::invalid_argument(
                "definition and repetition levels differ in length",
            ));
        }
        let mut start = 0;
        let mut value_start = 0;
        while start < slots {
            // Cut a piece that ends at a row boundary and stays within the page's rows.
            let row_room = self.page_row_limit.saturating_sub(self.page_rows).max(1);
            let mut end = start;
            let mut rows = 0;
            let mut present = 0;
            if self.max_rep == 0 {
                // One slot per row: the piece is a plain range.
                end = (start + row_room.min(PIECE_SLOTS)).min(slots);
                rows = end - start;
                present = if self.max_def == 0 {
                    rows
                } else {
                    levels.def[start..end]
                        .iter()
                        .filter(|&&d| d == self.max_def)
                        .count()
                };
            }
            if self.max_rep > 0 {
                // The piece ends at the first row start that is either the
                // (row_room + 1)-th row start from `start` or at least PIECE_SLOTS
                // slots in: found with counting passes rather than a branch per slot.
                let rep = &levels.rep;
                let limit = (start + PIECE_SLOTS).min(slots);
                let starts_in = rep[start..limit].iter().filter(|&&r| r == 0).count();
                if starts_in <= row_room {
                    rows = starts_in;
                    end = limit
                        + rep[limit..]
                            .iter()
                            .position(|&r| r == 0)
                            .unwrap_or(slots - limit);
                } else {
                    rows = row_room;
                    end = start
                        + rep[start..limit]
                            .iter()
                            .enumerate()
                            .filter(|(_, r)| **r == 0)
                            .nth(row_room)
                            .map_or(limit - start, |(i, _)| i);
                }
                present = levels.def[start..end]
                    .iter()
                    .filter(|&&d| d == self.max_def)
                    .count();
            }
            self.append_piece(
                levels,
                start,
                end,
                rows,
                &values,
                from_keys.as_mut(),
                value_start,
                present,
            )?;
            value_start += present;
            start = end;
            self.after_piece()?;
        }
        Ok(())
    }

    /// Appends a top-level leaf column (no lists or structs above it) straight from
    /// its array, when the type is one [`Direct`] copies: the slots are the rows, the
    /// definition levels (maximum 1) are the validity bits, kept as a bitmap and
    /// encoded from it, and the present values are copied into the page as one slice
    /// per run of valid slots. `Ok(false)` (nothing written) when this path does not
    /// apply; the caller then goes through [`ColumnWriter::write`].
    pub fn write_flat(&mut self, array: &ArrayRef, nullable: bool) -> Result<bool> {
        if self.max_rep != 0 || self.max_def != i16::from(nullable) {
            return Ok(false);
        }
        let Some(source) = Direct::of(array, &self.info) else {
            return Ok(false);
        };
        if self.page_slots > 0 && !self.page_flat {
            // The open page holds materialised levels: close it rather than mix forms.
            self.flush_page()?;
        }
        let nulls = array.logical_nulls().filter(|n| n.null_count() > 0);
        if let Some(n) = &nulls
            && !nullable
        {
            return Err(Error::invalid_argument(format!(
                "a non-nullable field of type {} holds {} nulls",
                array.data_type(),
                n.null_count()
            )));
        }
        // geo:
        if let Some(geo) = &mut self.geo {
            super::geo::add_array(geo, array, nulls.as_ref());
        }
        let slots = array.len();
        let mut start = 0;
        while start < slots {
            let row_room = self.page_row_limit.saturating_sub(self.page_rows).max(1);
            let end = (start + row_room.min(PIECE_SLOTS)).min(slots);
            // Byte arrays without the dictionary go straight into the page's encoding.
            let direct = !self.dictionary_active
                && source.is_bytes()
                && matches!(
                    self.encoding,
                    Encoding::PLAIN | Encoding::DELTA_LENGTH_BYTE_ARRAY
                );
            if direct {
                if self.page_slots > 0 && !self.page_direct {
                    self.flush_page()?;
                }
                self.write_flat_encoded(&source, nulls.as_ref(), start, end)?;
                start = end;
                self.after_piece()?;
                continue;
            }
            if self.page_direct {
                self.flush_page()?;
            }
            if self.dictionary_active && source.is_bytes() {
                self.write_flat_dictionary_bytes(&source, nulls.as_ref(), start, end)?;
                start = end;
                self.after_piece()?;
                continue;
            }
            // While the dictionary is on, the page needs only the indices: the piece's
            // values go through a scratch buffer, and the page's bounds come from the
            // dictionary entries it uses.
            let dictionary = self.dictionary.as_mut().filter(|_| self.dictionary_active);
            let target = if dictionary.is_some() {
                self.piece_values.clear();
                &mut self.piece_values
            } else {
                &mut self.page_values
            };
            let first_value = target.len();
            match nulls.as_ref() {
                Some(n) if source.append_valid(target, n, start, end) => {
                    let offset = n.offset();
                    self.page_valid
                        .append_packed_range(offset + start..offset + end, n.validity());
                }
                _ => valid_runs(
                    &mut self.page_valid,
                    self.max_def > 0,
                    nulls.as_ref(),
                    start..end,
                    |from, to| {
                        source.append(target, from, to);
                        Ok(())
                    },
                )?,
            }
            let last_value = target.len();
            self.page_flat = true;
            self.page_slots += end - start;
            self.page_rows += end - start;
            self.page_non_null += last_value - first_value;
            self.page_unencoded += target.byte_len(first_value, last_value);
            if let Some(bloom) = &mut self.bloom {
                for i in first_value..last_value {
                    bloom.insert_hash(target.bloom_hash(i));
                }
            }
            if let Some(dict) = dictionary {
                dict.insert_range(target, first_value, last_value, &mut self.page_indices);
            }
            start = end;
            self.after_piece()?;
        }
        Ok(true)
    }

    /// One piece (slots `start..end`) of [`ColumnWriter::write_flat`] for byte arrays
    /// without the dictionary: each run of valid values is appended to the page in the
    /// layout of its encoding, with bounds and Bloom filter hashes taken on the way (no
    /// [`Values`] copy in between).
    fn write_flat_encoded(
        &mut self,
        source: &Direct<'_>,
        nulls: Option<&arrow_buffer::NullBuffer>,
        start: usize,
        end: usize,
    ) -> Result<()> {
        let track_bounds =
            self.statistics != StatisticsLevel::None && self.order == SortOrder::Bytes;
        let plain = self.encoding == Encoding::PLAIN;
        let before = self.page_encoded.len();
        let mut present = 0;
        valid_runs(
            &mut self.page_valid,
            self.max_def > 0,
            nulls,
            start..end,
            |from, to| {
                present += to - from;
                source.append_encoded(
                    from,
                    to,
                    EncodedTarget {
                        plain,
                        bytes: &mut self.page_encoded,
                        lengths: &mut self.page_lengths,
                        bounds: track_bounds.then_some(&mut self.page_bounds),
                        bloom: self.bloom.as_mut(),
                    },
                )
            },
        )?;
        self.page_direct = true;
        self.page_flat = true;
        self.page_slots += end - start;
        self.page_rows += end - start;
        self.page_non_null += present;
        let added = self.page_encoded.len() - before;
        // PLAIN adds 4 bytes of length per value; the value bytes are the rest.
        self.page_unencoded += if plain { added - 4 * present } else { added } as i64;
        Ok(())
    }

    /// One piece (slots `start..end`) of [`ColumnWriter::write_flat`] for byte arrays
    /// while the dictionary is on: each run of valid values is looked up in the
    /// dictionary straight from the Arrow buffers; the page keeps only the indices.
    fn write_flat_dictionary_bytes(
        &mut self,
        source: &Direct<'_>,
        nulls: Option<&arrow_buffer::NullBuffer>,
        start: usize,
        end: usize,
    ) -> Result<()> {
        let Some(dictionary) = self.dictionary.as_mut() else {
            return Ok(());
        };
        let before = self.page_indices.len();
        let mut unencoded = 0;
        valid_runs(
            &mut self.page_valid,
            self.max_def > 0,
            nulls,
            start..end,
            |from, to| {
                unencoded += source.insert_bytes(
                    dictionary,
                    from,
                    to,
                    &mut self.page_indices,
                    self.bloom.as_mut(),
                );
                Ok(())
            },
        )?;
        self.page_flat = true;
        self.page_slots += end - start;
        self.page_rows += end - start;
        self.page_non_null += self.page_indices.len() - before;
        self.page_unencoded += unencoded as i64;
        Ok(())
    }

    /// After a piece of a batch: closes the page when it is full, and falls back from
    /// the dictionary mid-chunk when it outgrew its limit (the pages so far keep the
    /// dictionary, written in front of them at close; the rest use the fallback
    /// encoding).
    fn after_piece(&mut self) -> Result<()> {
        if self.page_estimate() >= self.page_size_limit || self.page_rows >= self.page_row_limit {
            self.flush_page()?;
        }
        if self.dictionary_active
            && self
                .dictionary
                .as_ref()
                .is_some_and(|d| d.values.plain_size() > self.dictionary_limit)
        {
            self.flush_page()?;
            self.dictionary_active = false;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn append_piece(
        &mut self,
        levels: &LeafLevels,
        start: usize,
        end: usize,
        rows: usize,
        values: &Values,
        from_keys: Option<&mut KeyedValues>,
        value_start: usize,
        present: usize,
    ) -> Result<()> {
        let value_end = value_start + present;
        if value_end > values.len() {
            return Err(Error::invalid_argument(
                "levels announce more values than the leaf array holds",
            ));
        }
        self.page_def.extend_from_slice(&levels.def[start..end]);
        self.page_slots += end - start;
        if self.max_rep > 0 {
            // Without repetition the levels are all 0 and never encoded.
            self.page_rep.extend_from_slice(&levels.rep[start..end]);
        }
        self.page_rows += rows;
        self.page_non_null += present;
        self.page_unencoded += values.byte_len(value_start, value_end);
        // While the dictionary is on, the page needs only the indices (its bounds come
        // from the dictionary entries they use): no copy of the values. The page is
        // closed before the dictionary falls back, so a page never mixes the two.
        let dictionary = self.dictionary.as_mut().filter(|_| self.dictionary_active);
        if dictionary.is_none() {
            self.page_values
                .extend_range(values, value_start, value_end);
        }
        if let Some(dict) = dictionary {
            match from_keys {
                Some(keyed) => {
                    for &key in &keyed.keys[value_start..value_end] {
                        if keyed.index_of[key] == u32::MAX {
                            keyed.index_of[key] = dict.insert(&keyed.distinct, key);
                        }
                        self.page_indices.push(keyed.index_of[key]);
                    }
                }
                None => dict.insert_range(values, value_start, value_end, &mut self.page_indices),
            }
        }
        Ok(())
    }

    /// Encodes, compresses and writes the open page.
    fn flush_page(&mut self) -> Result<()> {
        if self.page_slots == 0 {
            return Ok(());
        }
        let num_slots = self.page_slots;
        let bitmap_levels = self.max_def > 0 && self.page_flat;
        let non_null = self.page_non_null;
        let null_count = num_slots - non_null;
        let prefix = match self.version {
            DataPageVersion::V1 => LengthPrefix::With,
            DataPageVersion::V2 => LengthPrefix::Without,
        };
        self.scratch_def.clear();
        self.scratch_rep.clear();
        if bitmap_levels {
            // Maximum level 1: the levels are the validity bits, encoded as they are.
            rle::encode_bitmap(
                self.page_valid.as_slice(),
                num_slots,
                prefix,
                &mut self.scratch_def,
            );
        } else if self.max_def > 0 {
            encode_levels(&self.page_def, self.max_def, prefix, &mut self.scratch_def);
        }
        if self.max_rep > 0 {
            encode_levels(&self.page_rep, self.max_rep, prefix, &mut self.scratch_rep);
        }
        self.scratch_values.clear();
        let dict_len = self.dictionary.as_ref().map_or(0, |d| d.values.len());
        // PLAIN values written by `write_flat_encoded` are the values section as they are.
        let values_in_place = self.page_direct && self.encoding == Encoding::PLAIN;
        let encoding = if self.page_direct {
            if !values_in_place {
                // DELTA_LENGTH_BYTE_ARRAY: the lengths, then the bytes as one block.
                delta_binary_packed::encode(&self.page_lengths, &mut self.scratch_values);
                self.scratch_values.extend_from_slice(&self.page_encoded);
            }
            self.encoding
        } else if self.dictionary_active && dict_len > 0 {
            dictionary::encode_indices(&self.page_indices, dict_len, &mut self.scratch_values);
            self.dictionary_used = true;
            Encoding::RLE_DICTIONARY
        } else if self.encoding == Encoding::PLAIN && self.page_values.fixed_plain().is_some() {
            // Fixed-width numbers are their PLAIN bytes already: written from
            // `page_values` below, no copy into `scratch_values`.
            Encoding::PLAIN
        } else {
            self.page_values
                .encode(self.encoding, &mut self.scratch_values)?;
            self.encoding
        };
        let values_section: &[u8] = if values_in_place {
            &self.page_encoded
        } else if self.scratch_values.is_empty()
            && !self.page_direct
            && encoding == Encoding::PLAIN
            && let Some(bytes) = self.page_values.fixed_plain()
        {
            bytes
        } else {
            &self.scratch_values
        };
        let min_max = if self.statistics == StatisticsLevel::None {
            None
        } else {
            match &self.dictionary {
                _ if self.page_direct => self.page_bounds.take(),
                Some(dict) if self.page_values.is_empty() && !self.page_indices.is_empty() => {
                    dictionary_min_max(&dict.values, &self.page_indices, self.order)
                }
                _ => statistics::min_max(&self.page_values, self.order),
            }
        };
        let header_statistics = (self.statistics == StatisticsLevel::Page)
            .then(|| self.to_statistics(min_max.as_ref(), null_count as i64));
        let written = match self.version {
            DataPageVersion::V1 => self.page_writer.write_data_page_v1(
                &mut self.data,
                &DataPageV1 {
                    rep_levels: &self.scratch_rep,
                    def_levels: &self.scratch_def,
                    values: values_section,
                    num_values: num_slots,
                    num_rows: self.page_rows,
                    encoding,
                    def_level_encoding: Encoding::RLE,
                    rep_level_encoding: Encoding::RLE,
                    statistics: header_statistics,
                },
            )?,
            DataPageVersion::V2 => self.page_writer.write_data_page_v2(
                &mut self.data,
                &DataPageV2 {
                    rep_levels: &self.scratch_rep,
                    def_levels: &self.scratch_def,
                    values: values_section,
                    num_values: num_slots,
                    num_nulls: null_count,
                    num_rows: self.page_rows,
                    encoding,
                    statistics: header_statistics,
                },
            )?,
        };
        self.pages.push(PageInfo {
            written,
            min_max,
            null_count: null_count as i64,
            non_null,
            def_histogram: if bitmap_levels {
                vec![null_count as i64, non_null as i64]
            } else {
                histogram(&self.page_def, self.max_def)
            },
            rep_histogram: histogram(&self.page_rep, self.max_rep),
            unencoded_bytes: (self.physical == Type::BYTE_ARRAY).then_some(self.page_unencoded),
        });
        self.num_values += num_slots as i64;
        self.page_slots = 0;
        self.page_flat = false;
        self.page_valid.truncate(0);
        self.page_def.clear();
        self.page_rep.clear();
        self.page_values.clear();
        self.page_direct = false;
        self.page_encoded.clear();
        self.page_lengths.clear();
        self.page_non_null = 0;
        self.page_unencoded = 0;
        self.page_indices.clear();
        self.page_rows = 0;
        Ok(())
    }

    /// Thrift statistics from bounds (truncated) and a null count.
    fn to_statistics(&self, min_max: Option<&MinMax>, null_count: i64) -> Statistics {
        let mut stats = Statistics {
            null_count: Some(null_count),
            ..Statistics::default()
        };
        if let Some(mm) = min_max {
            let (min, min_exact, max, max_exact) = self.truncated(mm);
            stats.min_value = Some(min.into());
            stats.max_value = Some(max.into());
            stats.is_min_value_exact = Some(min_exact);
            stats.is_max_value_exact = Some(max_exact);
        }
        stats
    }

    fn truncated(&self, mm: &MinMax) -> (Vec<u8>, bool, Vec<u8>, bool) {
        match self.truncate {
            Some(len) if self.physical == Type::BYTE_ARRAY => {
                let (min, min_exact) = statistics::truncate_min(&mm.min, len, self.is_text);
                let (max, max_exact) = statistics::truncate_max(&mm.max, len, self.is_text);
                (min, min_exact, max, max_exact)
            }
            _ => (mm.min.clone(), true, mm.max.clone(), true),
        }
    }

    /// Encrypts this chunk's page headers and pages (an encrypted column).
    pub fn with_encryptor(mut self, encryptor: herringbone_codec::crypto::ColumnEncryptor) -> Self {
        let pages = std::mem::replace(&mut self.page_writer, PageWriter::new(self.codec));
        self.page_writer = pages.with_encryptor(encryptor);
        self
    }

    /// Finishes the chunk: the dictionary page in front of the data pages, and the
    /// metadata with offsets relative to the chunk's first byte.
    pub fn close(mut self) -> Result<ClosedChunk> {
        self.flush_page()?;
        let mut bytes = Vec::new();
        let mut dictionary_page = None;
        if self.dictionary_used
            && let Some(dict) = &self.dictionary
        {
            let mut plain_values = Vec::with_capacity(dict.values.plain_size());
            dict.values.encode_plain(&mut plain_values)?;
            dictionary_page = Some(self.page_writer.write_dictionary_page(
                &mut bytes,
                &plain_values,
                dict.values.len(),
                false,
            )?);
        }
        let shift = bytes.len();
        if shift == 0 {
            // No dictionary page: the data pages are the chunk, no copy.
            bytes = std::mem::take(&mut self.data);
        } else {
            bytes.extend_from_slice(&self.data);
        }
        for page in &mut self.pages {
            page.written.offset += shift;
        }

        let mut encodings = Vec::new();
        let mut add_encoding = |e: Encoding| {
            if !encodings.contains(&e) {
                encodings.push(e);
            }
        };
        let mut encoding_stats: Vec<PageEncodingStats> = Vec::new();
        let mut count_page = |page_type: PageType, encoding: Encoding| match encoding_stats
            .iter_mut()
            .find(|s| s.page_type == page_type && s.encoding == encoding)
        {
            Some(s) => s.count += 1,
            None => encoding_stats.push(PageEncodingStats {
                page_type,
                encoding,
                count: 1,
            }),
        };
        let mut total_uncompressed = 0i64;
        if let Some(d) = &dictionary_page {
            add_encoding(Encoding::PLAIN);
            count_page(PageType::DICTIONARY_PAGE, Encoding::PLAIN);
            total_uncompressed += (d.header_size + d.uncompressed_page_size) as i64;
        }
        add_encoding(Encoding::RLE);
        for page in &self.pages {
            add_encoding(page.written.encoding);
            count_page(page.written.page_type, page.written.encoding);
            total_uncompressed +=
                (page.written.header_size + page.written.uncompressed_page_size) as i64;
        }

        let mut chunk_min_max = None;
        let mut null_count = 0i64;
        for page in &self.pages {
            if let Some(mm) = &page.min_max {
                statistics::merge(self.physical, self.order, &mut chunk_min_max, mm);
            }
            null_count += page.null_count;
        }
        let chunk_statistics = (self.statistics != StatisticsLevel::None)
            .then(|| self.to_statistics(chunk_min_max.as_ref(), null_count));

        let size_statistics = self.size_statistics();
        let column_index = self.column_index();
        let offset_index = OffsetIndex {
            page_locations: self
                .pages
                .iter()
                .map(|p| PageLocation {
                    offset: p.written.offset as i64,
                    compressed_page_size: p.written.total_size() as i32,
                    first_row_index: p.written.first_row_index.unwrap_or(0) as i64,
                })
                .collect(),
            unencoded_byte_array_data_bytes: (self.physical == Type::BYTE_ARRAY).then(|| {
                self.pages
                    .iter()
                    .map(|p| p.unencoded_bytes.unwrap_or(0))
                    .collect()
            }),
        };
        let data_page_offset = self.pages.first().map_or(shift, |p| p.written.offset) as i64;
        let metadata = ColumnMetaData {
            type_: self.physical,
            encodings: encodings.into(),
            path_in_schema: self.path.iter().map(|p| Text::from(p.as_str())).collect(),
            codec: self.codec.compression_codec(),
            num_values: self.num_values,
            total_uncompressed_size: total_uncompressed,
            total_compressed_size: bytes.len() as i64,
            data_page_offset,
            dictionary_page_offset: dictionary_page.as_ref().map(|d| d.offset as i64),
            statistics: chunk_statistics,
            encoding_stats: Some(encoding_stats.into()),
            size_statistics,
            // geo:
            geospatial_statistics: super::geo::finish(self.geo.as_ref()),
            ..ColumnMetaData::default()
        };
        Ok(ClosedChunk {
            bytes,
            metadata,
            column_index,
            offset_index,
            bloom_filter: self.bloom.take(),
        })
    }

    fn size_statistics(&self) -> Option<SizeStatistics> {
        let unencoded = (self.physical == Type::BYTE_ARRAY).then(|| {
            self.pages
                .iter()
                .map(|p| p.unencoded_bytes.unwrap_or(0))
                .sum()
        });
        let sum = |pick: fn(&PageInfo) -> &Vec<i64>| -> Option<Vec<i64>> {
            let first = pick(self.pages.first()?);
            if first.is_empty() {
                return None;
            }
            let mut total = vec![0i64; first.len()];
            for page in &self.pages {
                for (t, v) in total.iter_mut().zip(pick(page)) {
                    *t += v;
                }
            }
            Some(total)
        };
        let stats = SizeStatistics {
            unencoded_byte_array_data_bytes: unencoded,
            repetition_level_histogram: sum(|p| &p.rep_histogram).map(Into::into),
            definition_level_histogram: sum(|p| &p.def_histogram).map(Into::into),
        };
        (stats != SizeStatistics::default()).then_some(stats)
    }

    fn column_index(&self) -> Option<ColumnIndex> {
        if self.statistics != StatisticsLevel::Page || self.order == SortOrder::Undefined {
            return None;
        }
        // A page with values but no bounds (only NaN) cannot be described: no index.
        if self
            .pages
            .iter()
            .any(|p| p.non_null > 0 && p.min_max.is_none())
        {
            return None;
        }
        let mut index = ColumnIndex::default();
        for page in &self.pages {
            let is_null_page = page.non_null == 0;
            index.null_pages.push(is_null_page);
            match &page.min_max {
                Some(mm) if !is_null_page => {
                    let (min, _, max, _) = self.truncated(mm);
                    index.min_values.push(min.into());
                    index.max_values.push(max.into());
                }
                _ => {
                    index.min_values.push(Vec::new().into());
                    index.max_values.push(Vec::new().into());
                }
            }
        }
        index.boundary_order = self.boundary_order();
        index.null_counts = Some(self.pages.iter().map(|p| p.null_count).collect());
        if self.max_rep > 0 {
            index.repetition_level_histograms = Some(
                self.pages
                    .iter()
                    .flat_map(|p| p.rep_histogram.clone())
                    .collect(),
            );
        }
        if self.max_def > 0 {
            index.definition_level_histograms = Some(
                self.pages
                    .iter()
                    .flat_map(|p| p.def_histogram.clone())
                    .collect(),
            );
        }
        Some(index)
    }

    fn boundary_order(&self) -> BoundaryOrder {
        use std::cmp::Ordering;
        let bounds: Vec<&MinMax> = self
            .pages
            .iter()
            .filter_map(|p| p.min_max.as_ref())
            .collect();
        let cmp = |a: &[u8], b: &[u8]| statistics::compare(self.physical, self.order, a, b);
        let ascending = bounds.windows(2).all(|w| {
            cmp(&w[0].min, &w[1].min) != Ordering::Greater
                && cmp(&w[0].max, &w[1].max) != Ordering::Greater
        });
        let descending = bounds.windows(2).all(|w| {
            cmp(&w[0].min, &w[1].min) != Ordering::Less
                && cmp(&w[0].max, &w[1].max) != Ordering::Less
        });
        if ascending {
            BoundaryOrder::ASCENDING
        } else if descending {
            BoundaryOrder::DESCENDING
        } else {
            BoundaryOrder::UNORDERED
        }
    }
}

/// Bounds of a dictionary page's values from the dictionary entries its `indices` use:
/// the minimum and maximum over the distinct values equal those over all values, and a
/// page of 20,000 values often uses only a few hundred entries. Each used entry is
/// marked once, then the marked entries are gathered (in dictionary order) and bounded.
fn dictionary_min_max(dictionary: &Values, indices: &[u32], order: SortOrder) -> Option<MinMax> {
    let len = dictionary.len();
    let mut distinct = Values::empty_like(dictionary);
    if len <= indices.len() * 4 {
        let mut used = vec![false; len];
        for &i in indices {
            if let Some(u) = used.get_mut(i as usize) {
                *u = true;
            }
        }
        let mut i = 0;
        while i < len {
            if used[i] {
                let start = i;
                while i < len && used[i] {
                    i += 1;
                }
                distinct.extend_range(dictionary, start, i);
            } else {
                i += 1;
            }
        }
    } else {
        // A large dictionary and a small page: the page's own values.
        for &i in indices {
            let i = i as usize;
            if i < len {
                distinct.extend_range(dictionary, i, i + 1);
            }
        }
    }
    statistics::min_max(&distinct, order)
}

fn level_bit_width(max: i16) -> usize {
    (16 - (max as u16).leading_zeros()) as usize
}

fn encode_levels(levels: &[i16], max: i16, prefix: LengthPrefix, out: &mut Vec<u8>) {
    // Levels are 0..=max (never negative): as u16 for the packing kernels.
    let unsigned: Vec<u16> = levels.iter().map(|&l| l as u16).collect();
    rle::encode_values(&unsigned, level_bit_width(max), prefix, out);
}

fn histogram(levels: &[i16], max: i16) -> Vec<i64> {
    if max == 0 {
        return Vec::new();
    }
    if max <= 4 {
        // One counting pass per level over blocks small enough to stay in L1: each
        // pass is a vectorized compare-and-add, where one increment per level in
        // memory would wait on the previous one to the same slot (most levels are
        // equal to their neighbours). The counts of a block are 16-bit (eight lanes a
        // vector; a `usize` count keeps two), widened once per block.
        const BLOCK: usize = 4096;
        let mut h = vec![0i64; max as usize + 1];
        for block in levels.chunks(BLOCK) {
            for (v, count) in (0..=max).zip(h.iter_mut()) {
                let n = block
                    .iter()
                    .fold(0u16, |n, &l| n.wrapping_add(u16::from(l == v)));
                *count += i64::from(n);
            }
        }
        return h;
    }
    let mut h = vec![0i64; max as usize + 1];
    for &l in levels {
        if let Some(slot) = h.get_mut(l as usize) {
            *slot += 1;
        }
    }
    h
}

/// `Interval(MonthDayNano)` values as Parquet INTERVAL (months, days, milliseconds as u32
/// LE): the format has no sub-millisecond part, so nanoseconds that are not whole
/// milliseconds, or negative values anywhere, are refused rather than silently changed.
fn interval_month_day_nano(
    array: &arrow_array::PrimitiveArray<IntervalMonthDayNanoType>,
    indices: &[usize],
) -> Result<Values> {
    //
    let v = array.values();
    let mut data = Vec::with_capacity(indices.len() * 12);
    for &i in indices {
        let x = v[i];
        let millis = if x.nanoseconds % 1_000_000 == 0 {
            u32::try_from(x.nanoseconds / 1_000_000).ok()
        } else {
            None
        };
        let (Ok(months), Ok(days), Some(millis)) =
            (u32::try_from(x.months), u32::try_from(x.days), millis)
        else {
            return Err(Error::invalid_argument(format!(
                "interval (months {}, days {}, nanoseconds {}) has no Parquet INTERVAL form \
                 (non-negative months and days, whole milliseconds that fit a u32)",
                x.months, x.days, x.nanoseconds
            )));
        };
        data.extend_from_slice(&months.to_le_bytes());
        data.extend_from_slice(&days.to_le_bytes());
        data.extend_from_slice(&millis.to_le_bytes());
    }
    Ok(Values::Fixed { width: 12, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PLAIN values with their length prefixes, the plain way.
    fn reference(values: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            out.extend_from_slice(v);
        }
        out
    }

    #[test]
    fn level_histograms_count_every_level() {
        // Across block boundaries (4096) and past a 16-bit count per block of one level.
        for max in [1i16, 2, 3, 4, 5, 7] {
            for len in [0usize, 1, 4095, 4096, 4097, 70_000] {
                let levels: Vec<i16> = (0..len)
                    .map(|i| {
                        if i % 3 == 0 {
                            max
                        } else {
                            ((i * 7) % (max as usize + 1)) as i16
                        }
                    })
                    .collect();
                let expected: Vec<i64> = (0..=max)
                    .map(|v| levels.iter().filter(|&&l| l == v).count() as i64)
                    .collect();
                assert_eq!(histogram(&levels, max), expected, "max {max} len {len}");
            }
        }
        assert!(histogram(&[0, 0], 0).is_empty());
    }

    #[test]
    fn plain_runs_of_every_length_near_the_window() {
        // Lengths 0..=70 around the 32-byte window, in several orders, so values sit
        // both far from and within a window of the end of the data; bounds checked.
        let lengths: Vec<usize> = (0..=70)
            .chain((0..=70).rev())
            .chain([33, 32, 31, 0, 1])
            .collect();
        let values: Vec<Vec<u8>> = lengths
            .iter()
            .enumerate()
            .map(|(i, &len)| (0..len).map(|j| (i * 31 + j * 7) as u8).collect())
            .collect();
        for skip in [0, 1, 60, values.len() - 3, values.len() - 1] {
            let values = &values[skip..];
            let data: Vec<u8> = values.concat();
            let mut ends = Vec::new();
            let mut at = 0u32;
            for v in values {
                at += v.len() as u32;
                ends.push(at);
            }
            // Output already holding bytes: the run is appended after them.
            let mut out = vec![9u8; 5];
            let mut bounds = ByteBounds::default();
            append_plain_run(&data, ends.iter().copied(), &mut out, Some(&mut bounds));
            assert_eq!(&out[..5], &[9u8; 5]);
            assert_eq!(&out[5..], reference(values).as_slice(), "skip {skip}");
            let mm = bounds.take().expect("bounds");
            assert_eq!(&mm.min, values.iter().min().unwrap());
            assert_eq!(&mm.max, values.iter().max().unwrap());
            let mut out = Vec::new();
            append_plain_run(&data, ends.iter().copied(), &mut out, None);
            assert_eq!(out, reference(values), "skip {skip}");
        }
    }
}
