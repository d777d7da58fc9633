//! Bloom filters of column chunks: loading them and asking them about literals.
//!
//! A literal is hashed over the PLAIN encoding of the column's physical type, as the
//! writer hashed the values: an `Int8` literal of an INT32 column as 4 little-endian
//! bytes, a date as its INT32 days, a decimal as the unscaled integer of its storage
//! (INT32, INT64 or a FIXED_LEN_BYTE_ARRAY of the column's width), a string as its
//! bytes. Literals whose stored form is not known for certain (decimals in
//! variable-length byte arrays, INT96, booleans) are not looked up: the filter answers
//! "maybe".

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type,
    DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType,
    Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_buffer::i256;
use arrow_schema::{DataType, TimeUnit};
use herringbone_codec::bloom::{self, SplitBlockBloomFilter};
use herringbone_codec::crypto::module::LENGTH_LEN;
use herringbone_codec::crypto::{ColumnDecryptor, decrypt_bloom_filter};
use herringbone_format::footer::decode_bloom_filter_header;
use herringbone_format::metadata::{ColumnChunk, Type};
use herringbone_format::schema::ColumnDescriptor;

use crate::error::{Error, Result};
use crate::read::ChunkReader;

/// The largest bitset read (the writers' maximum; a larger one is an error).
const MAX_BITSET_BYTES: usize = 128 * 1024 * 1024;

/// The Bloom filter hash of every value of `values` (a column's value type), or `None`
/// when one of them has no known stored form.
pub(crate) fn hashes(values: &ArrayRef, descr: &ColumnDescriptor) -> Option<Vec<u64>> {
    (0..values.len())
        .map(|i| {
            if values.is_null(i) {
                None
            } else {
                hash_value(values, i, descr)
            }
        })
        .collect()
}

fn hash_value(values: &ArrayRef, i: usize, descr: &ColumnDescriptor) -> Option<u64> {
    let physical = descr.physical_type();
    macro_rules! int {
        ($t:ty) => {
            i128::from(values.as_primitive::<$t>().value(i))
        };
    }
    // Integers of every width, dates, times, timestamps, durations: the stored integer.
    let integer: Option<i128> = match values.data_type() {
        DataType::Int8 => Some(int!(Int8Type)),
        DataType::Int16 => Some(int!(Int16Type)),
        DataType::Int32 => Some(int!(Int32Type)),
        DataType::Int64 => Some(int!(Int64Type)),
        DataType::UInt8 => Some(int!(UInt8Type)),
        DataType::UInt16 => Some(int!(UInt16Type)),
        DataType::UInt32 => Some(int!(UInt32Type)),
        DataType::UInt64 => Some(int!(UInt64Type)),
        DataType::Date32 => Some(int!(Date32Type)),
        // Dates read as Date64 from INT32 days: back to days.
        DataType::Date64 if physical == Type::INT32 => {
            let ms = int!(Date64Type);
            if ms % 86_400_000 != 0 {
                return None;
            }
            Some(ms / 86_400_000)
        }
        DataType::Date64 => Some(int!(Date64Type)),
        DataType::Time32(TimeUnit::Second) => Some(int!(Time32SecondType)),
        DataType::Time32(_) => Some(int!(Time32MillisecondType)),
        DataType::Time64(TimeUnit::Microsecond) => Some(int!(Time64MicrosecondType)),
        DataType::Time64(_) => Some(int!(Time64NanosecondType)),
        DataType::Timestamp(TimeUnit::Second, _) => Some(int!(TimestampSecondType)),
        DataType::Timestamp(TimeUnit::Millisecond, _) => Some(int!(TimestampMillisecondType)),
        DataType::Timestamp(TimeUnit::Microsecond, _) => Some(int!(TimestampMicrosecondType)),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => Some(int!(TimestampNanosecondType)),
        DataType::Duration(TimeUnit::Second) => Some(int!(DurationSecondType)),
        DataType::Duration(TimeUnit::Millisecond) => Some(int!(DurationMillisecondType)),
        DataType::Duration(TimeUnit::Microsecond) => Some(int!(DurationMicrosecondType)),
        DataType::Duration(TimeUnit::Nanosecond) => Some(int!(DurationNanosecondType)),
        _ => None,
    };
    let decimal: Option<i256> = match values.data_type() {
        DataType::Decimal32(_, _) => {
            Some(i256::from(values.as_primitive::<Decimal32Type>().value(i)))
        }
        DataType::Decimal64(_, _) => {
            Some(i256::from(values.as_primitive::<Decimal64Type>().value(i)))
        }
        DataType::Decimal128(_, _) => Some(i256::from_i128(
            values.as_primitive::<Decimal128Type>().value(i),
        )),
        DataType::Decimal256(_, _) => Some(values.as_primitive::<Decimal256Type>().value(i)),
        _ => None,
    };
    let as_integer = integer.or_else(|| decimal.and_then(|d| d.to_i128()));
    match physical {
        Type::INT32 => {
            // Unsigned values are stored as their bits.
            let v = as_integer?;
            let bits = i32::try_from(v)
                .ok()
                .or_else(|| u32::try_from(v).ok().map(|u| u as i32))?;
            Some(bloom::hash_i32(bits))
        }
        Type::INT64 => {
            let v = as_integer?;
            let bits = i64::try_from(v)
                .ok()
                .or_else(|| u64::try_from(v).ok().map(|u| u as i64))?;
            Some(bloom::hash_i64(bits))
        }
        Type::FLOAT => match values.data_type() {
            DataType::Float32 => Some(bloom::hash_f32(
                values.as_primitive::<Float32Type>().value(i),
            )),
            _ => None,
        },
        Type::DOUBLE => match values.data_type() {
            DataType::Float64 => Some(bloom::hash_f64(
                values.as_primitive::<Float64Type>().value(i),
            )),
            _ => None,
        },
        Type::BYTE_ARRAY => match values.data_type() {
            DataType::Utf8 => Some(bloom::hash_byte_array(
                values.as_string::<i32>().value(i).as_bytes(),
            )),
            DataType::LargeUtf8 => Some(bloom::hash_byte_array(
                values.as_string::<i64>().value(i).as_bytes(),
            )),
            DataType::Utf8View => Some(bloom::hash_byte_array(
                values.as_string_view().value(i).as_bytes(),
            )),
            DataType::Binary => Some(bloom::hash_byte_array(values.as_binary::<i32>().value(i))),
            DataType::LargeBinary => {
                Some(bloom::hash_byte_array(values.as_binary::<i64>().value(i)))
            }
            DataType::BinaryView => Some(bloom::hash_byte_array(values.as_binary_view().value(i))),
            _ => None,
        },
        Type::FIXED_LEN_BYTE_ARRAY => {
            let width = usize::try_from(descr.type_length()?).ok()?;
            match values.data_type() {
                DataType::FixedSizeBinary(_) => {
                    let v = values.as_fixed_size_binary().value(i);
                    (v.len() == width).then(|| bloom::hash_fixed_len_byte_array(v))
                }
                DataType::Float16 if width == 2 => {
                    let v = values.as_primitive::<Float16Type>().value(i);
                    Some(bloom::hash_fixed_len_byte_array(&v.to_le_bytes()))
                }
                _ => {
                    // A decimal: big-endian two's complement, sign-extended to the width.
                    let v = decimal?;
                    let bytes = v.to_be_bytes();
                    if width > 32 {
                        return None;
                    }
                    let (extra, kept) = bytes.split_at(32 - width);
                    let fill = if v.is_negative() { 0xFF } else { 0x00 };
                    let fits = extra.iter().all(|&b| b == fill)
                        && kept
                            .first()
                            .is_none_or(|&b| (b & 0x80 != 0) == v.is_negative());
                    fits.then(|| bloom::hash_fixed_len_byte_array(kept))
                }
            }
        }
        _ => None,
    }
}

/// Reads the Bloom filter of a column chunk, `None` when it has none or is stored in
/// another file (`file_path`: its filter is in that file). An encrypted chunk's filter
/// (a header module, then a bitset module) is decrypted with `decryptor`.
pub(crate) fn read_filter<R: ChunkReader + ?Sized>(
    input: &R,
    chunk: &ColumnChunk,
    decryptor: Option<&ColumnDecryptor>,
) -> Result<Option<SplitBlockBloomFilter>> {
    if chunk.file_path.is_some() {
        return Ok(None);
    }
    let Some(meta) = chunk.meta_data.as_ref() else {
        return Ok(None);
    };
    let Some(offset) = meta.bloom_filter_offset else {
        return Ok(None);
    };
    let file_len = input.len();
    let start = u64::try_from(offset)
        .ok()
        .filter(|&s| s < file_len)
        .ok_or_else(|| {
            Error::corrupt(format!(
                "Bloom filter offset {offset} outside the file ({file_len} bytes)"
            ))
        })?;
    let end = match meta.bloom_filter_length {
        Some(length) => u64::try_from(length)
            .ok()
            .and_then(|l| start.checked_add(l))
            .filter(|&e| e <= file_len)
            .ok_or_else(|| {
                Error::corrupt(format!(
                    "Bloom filter at {start} of {length} bytes outside the file ({file_len} bytes)"
                ))
            })?,
        None => match decryptor {
            None => {
                // The header first (it is short), then as many bytes as it says.
                let head = input.get_bytes(start..file_len.min(start + 64))?;
                decode_bloom_filter_header(&head, start, None)?.bitset.end
            }
            // Two modules, each sized by its length field.
            Some(_) => {
                let header_end = module_end(input, start, "Bloom filter header")?;
                module_end(input, header_end, "Bloom filter bitset")?
            }
        },
    };
    if end > file_len {
        return Err(Error::corrupt(format!(
            "Bloom filter at {start}..{end} outside the file ({file_len} bytes)"
        )));
    }
    if end - start > (MAX_BITSET_BYTES + 1024) as u64 {
        return Err(Error::unsupported(format!(
            "Bloom filter at {start} of {} bytes exceeds the {MAX_BITSET_BYTES}-byte limit",
            end - start
        )));
    }
    let bytes = input.get_bytes(start..end)?;
    let filter = match decryptor {
        None => SplitBlockBloomFilter::read(&bytes, MAX_BITSET_BYTES).map(|(f, _)| f),
        Some(d) => decrypt_bloom_filter(&bytes, d, MAX_BITSET_BYTES).map(|(f, _)| f),
    }
    .map_err(|e| Error::from(e).context(format!("Bloom filter at {start}")))?;
    Ok(Some(filter))
}

/// Where the encrypted module at `start` ends, from its 4-byte length field (checked
/// against the file's size; the caller bounds the total).
fn module_end<R: ChunkReader + ?Sized>(input: &R, start: u64, what: &str) -> Result<u64> {
    let file_len = input.len();
    let field_end = start
        .checked_add(LENGTH_LEN as u64)
        .filter(|&e| e <= file_len)
        .ok_or_else(|| {
            Error::corrupt(format!(
                "{what} module at {start}: no room for its length in the file ({file_len} bytes)"
            ))
        })?;
    let field = input.get_bytes(start..field_end)?;
    let length = match <[u8; LENGTH_LEN]>::try_from(&field[..]) {
        Ok(bytes) => u64::from(u32::from_le_bytes(bytes)),
        Err(_) => {
            return Err(Error::corrupt(format!(
                "{what} module at {start}: short read of its length"
            )));
        }
    };
    let end = field_end + length;
    if end > file_len {
        return Err(Error::corrupt(format!(
            "{what} module at {start} of {length} bytes outside the file ({file_len} bytes)"
        )));
    }
    Ok(end)
}
