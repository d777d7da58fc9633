//! Decimals decoded straight to the width of their Arrow type: INT32, INT64 and
//! FIXED_LEN_BYTE_ARRAY (up to 16 bytes) values into the `Vec<i32>`, `Vec<i64>` or
//! `Vec<i128>` of a `Decimal32`, `Decimal64` or `Decimal128` array.
//!
//! Read as their physical type, such values were decoded into one buffer and converted
//! into a second when the batch was assembled: TPC-H's `decimal(15, 2)` columns, INT64
//! from arrow-rs and DuckDB and 7-byte FIXED_LEN_BYTE_ARRAY from pyarrow and polars,
//! were gathered from their dictionary as 8 or 7 bytes and then widened to 16. Here a
//! dictionary is converted once, when its page is read, and its values are gathered at
//! their final width; PLAIN values are converted straight from the page.
//!
//! A value that does not fit the target (a `Decimal32` or `Decimal64` read from wider
//! bytes) is an error naming it, for a dictionary when its page is read.

use std::sync::Arc;

use arrow_schema::DataType;
use bytes::Bytes;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::PlainDecoder;
use herringbone_format::metadata::Encoding;

use super::{Fixed, FixedLenBytes, ValueKind, check_count, is_dictionary, require_dictionary};
use crate::error::{Error, Result};
use crate::read::budget::Budget;
use crate::read::values::FixedBytes;

/// The widest FIXED_LEN_BYTE_ARRAY decimal converted here: 16 bytes, an `i128`.
pub(crate) const MAX_DECIMAL_WIDTH: usize = 16;

/// An Arrow decimal's value type: `i32`, `i64` or `i128`.
pub(crate) trait DecimalValue:
    Copy + Default + Send + Sync + std::fmt::Debug + TryFrom<i128> + Into<i128> + 'static
{
    /// `value`'s low bits: for a value known to fit.
    fn low_bits(value: i128) -> Self;
}

macro_rules! decimal_value {
    ($t:ty) => {
        impl DecimalValue for $t {
            #[inline(always)]
            fn low_bits(value: i128) -> Self {
                value as $t
            }
        }
    };
}

decimal_value!(i32);
decimal_value!(i64);
decimal_value!(i128);

/// Appends `values` converted by `value`: unchecked (a loop the compiler vectorises)
/// when every value of `BYTES` bytes fits `D`, else each checked against `target`.
#[inline(always)]
fn append_converted<T, D: DecimalValue, const BYTES: usize>(
    values: &[T],
    value: impl Fn(&T) -> i128,
    out: &mut Vec<D>,
    target: &DataType,
) -> Result<()> {
    if BYTES <= size_of::<D>() {
        out.extend(values.iter().map(|v| D::low_bits(value(v))));
    } else {
        out.reserve(values.len());
        for v in values {
            out.push(fit(value(v), target)?);
        }
    }
    Ok(())
}

/// `value` as `D`, or the error of a value that does not fit `target`.
#[inline(always)]
fn fit<D: DecimalValue>(value: i128, target: &DataType) -> Result<D> {
    D::try_from(value).map_err(|_| not_fitting(value, target))
}

#[cold]
fn not_fitting(value: i128, target: &DataType) -> Error {
    Error::corrupt(format!("decimal {value} does not fit {target}"))
}

/// Appends the big-endian two's-complement integers of `width` bytes (1 to
/// [`MAX_DECIMAL_WIDTH`]) back to back in `data` to `out`, sign-extended, or an error
/// naming the first that does not fit `target`. Each width has a loop of its own: a
/// fixed-size copy and an arithmetic shift per value.
pub(crate) fn append_be_decimals<D: DecimalValue>(
    data: &[u8],
    width: usize,
    out: &mut Vec<D>,
    target: &DataType,
) -> Result<()> {
    match width {
        1 => append_widened::<1, D>(data, out, target),
        2 => append_widened::<2, D>(data, out, target),
        3 => append_widened::<3, D>(data, out, target),
        4 => append_widened::<4, D>(data, out, target),
        5 => append_widened::<5, D>(data, out, target),
        6 => append_widened::<6, D>(data, out, target),
        7 => append_widened::<7, D>(data, out, target),
        8 => append_widened::<8, D>(data, out, target),
        9 => append_widened::<9, D>(data, out, target),
        10 => append_widened::<10, D>(data, out, target),
        11 => append_widened::<11, D>(data, out, target),
        12 => append_widened::<12, D>(data, out, target),
        13 => append_widened::<13, D>(data, out, target),
        14 => append_widened::<14, D>(data, out, target),
        15 => append_widened::<15, D>(data, out, target),
        16 => append_widened::<16, D>(data, out, target),
        _ => Err(Error::corrupt(format!(
            "a decimal of {width} bytes does not fit {target}"
        ))),
    }
}

fn append_widened<const W: usize, D: DecimalValue>(
    data: &[u8],
    out: &mut Vec<D>,
    target: &DataType,
) -> Result<()> {
    const { assert!(W >= 1 && W <= MAX_DECIMAL_WIDTH) };
    let (values, _) = data.as_chunks::<W>();
    // The value in the top bytes; the arithmetic shift brings it down with its sign.
    let widened = |bytes: &[u8; W]| {
        let mut top = [0u8; 16];
        top[..W].copy_from_slice(bytes);
        i128::from_be_bytes(top) >> (8 * (16 - W))
    };
    append_converted::<_, D, W>(values, widened, out, target)
}

/// A physical type decimals are stored as, and how its values convert. Its
/// dictionaries are buffers of its values.
pub(crate) trait DecimalStorage:
    ValueKind<Dictionary = <Self as ValueKind>::Buffer>
{
    /// Bytes of one PLAIN value.
    fn plain_width(&self) -> usize;

    /// Appends the PLAIN values back to back in `bytes`, converted.
    fn append_plain<D: DecimalValue>(
        &self,
        bytes: &[u8],
        out: &mut Vec<D>,
        target: &DataType,
    ) -> Result<()>;

    /// Appends the values of a buffer this kind decoded, converted.
    fn append_buffer<D: DecimalValue>(
        &self,
        buffer: &Self::Buffer,
        out: &mut Vec<D>,
        target: &DataType,
    ) -> Result<()>;

    /// Empties a buffer this kind decoded, keeping its room.
    fn clear(buffer: &mut Self::Buffer);

    /// A dictionary's entries as 64-bit values when every value this type stores fits
    /// 64 bits (taking over the buffer, where the entries already are 64-bit), else the
    /// dictionary back.
    fn narrow_dictionary(
        &self,
        dictionary: Self::Buffer,
    ) -> std::result::Result<Vec<i64>, Self::Buffer>;
}

macro_rules! integer_storage {
    ($t:ty, $narrow:expr) => {
        impl DecimalStorage for Fixed<$t> {
            fn plain_width(&self) -> usize {
                size_of::<$t>()
            }

            fn append_plain<D: DecimalValue>(
                &self,
                bytes: &[u8],
                out: &mut Vec<D>,
                target: &DataType,
            ) -> Result<()> {
                const BYTES: usize = size_of::<$t>();
                let (values, _) = bytes.as_chunks::<BYTES>();
                let value = |le: &[u8; BYTES]| i128::from(<$t>::from_le_bytes(*le));
                append_converted::<_, D, BYTES>(values, value, out, target)
            }

            fn append_buffer<D: DecimalValue>(
                &self,
                buffer: &Vec<$t>,
                out: &mut Vec<D>,
                target: &DataType,
            ) -> Result<()> {
                let value = |x: &$t| i128::from(*x);
                append_converted::<_, D, { size_of::<$t>() }>(buffer, value, out, target)
            }

            fn clear(buffer: &mut Vec<$t>) {
                buffer.clear();
            }

            fn narrow_dictionary(
                &self,
                dictionary: Vec<$t>,
            ) -> std::result::Result<Vec<i64>, Vec<$t>> {
                Ok($narrow(dictionary))
            }
        }
    };
}

integer_storage!(i32, |entries: Vec<i32>| entries
    .into_iter()
    .map(i64::from)
    .collect());
integer_storage!(i64, |entries: Vec<i64>| entries);

impl DecimalStorage for FixedLenBytes {
    fn plain_width(&self) -> usize {
        self.width
    }

    fn append_plain<D: DecimalValue>(
        &self,
        bytes: &[u8],
        out: &mut Vec<D>,
        target: &DataType,
    ) -> Result<()> {
        append_be_decimals(bytes, self.width, out, target)
    }

    fn append_buffer<D: DecimalValue>(
        &self,
        buffer: &FixedBytes,
        out: &mut Vec<D>,
        target: &DataType,
    ) -> Result<()> {
        append_be_decimals(&buffer.data, self.width, out, target)
    }

    fn clear(buffer: &mut FixedBytes) {
        buffer.data.clear();
    }

    fn narrow_dictionary(
        &self,
        dictionary: FixedBytes,
    ) -> std::result::Result<Vec<i64>, FixedBytes> {
        if self.width > size_of::<i64>() {
            return Err(dictionary);
        }
        let mut entries = Vec::with_capacity(dictionary.data.len() / self.width);
        // At most eight bytes: every value fits, nothing to fail.
        match append_be_decimals(&dictionary.data, self.width, &mut entries, &DataType::Null) {
            Ok(()) => Ok(entries),
            Err(_) => Err(dictionary),
        }
    }
}

/// Decimals stored as `S` (INT32, INT64 or FIXED_LEN_BYTE_ARRAY of at most
/// [`MAX_DECIMAL_WIDTH`] bytes), decoded into the `Vec<D>` of an Arrow decimal of type
/// `target`.
#[derive(Debug)]
pub(crate) struct Decimals<S, D> {
    stored: S,
    target: DataType,
    _value: std::marker::PhantomData<D>,
}

impl<S: DecimalStorage, D: DecimalValue> Decimals<S, D> {
    /// Decimals stored as `stored` read as `target`. The column table picks this kind
    /// for FIXED_LEN_BYTE_ARRAY of at most [`MAX_DECIMAL_WIDTH`] bytes; a wider one
    /// would fail each read with the error of `append_be_decimals`.
    pub(crate) fn new(stored: S, target: DataType) -> Self {
        Self {
            stored,
            target,
            _value: std::marker::PhantomData,
        }
    }
}

/// A chunk's dictionary of decimals, converted when its page is read. Read as 128-bit
/// decimals, entries that all fit 64 bits are kept at 64 and widened as they are
/// gathered: half the bytes to gather from (a 1 MiB dictionary page of INT64 stays
/// 1 MiB, within a core's cache, where widened it took 2).
#[derive(Debug)]
pub(crate) enum DecimalDictionary<D> {
    Narrow(Vec<i64>),
    Target(Vec<D>),
}

/// A data page of decimals.
#[derive(Debug)]
pub(crate) enum DecimalPage<S: ValueKind, D> {
    Plain(PlainDecoder<Bytes>),
    Dictionary {
        indices: DictionaryIndexDecoder<Bytes>,
        dictionary: Arc<DecimalDictionary<D>>,
    },
    /// DELTA_BINARY_PACKED, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT: decoded as stored,
    /// into `decoded` (a few values at a time), then converted.
    Stored {
        page: S::Page,
        decoded: S::Buffer,
    },
}

impl<S: DecimalStorage, D: DecimalValue> ValueKind for Decimals<S, D> {
    type Buffer = Vec<D>;
    type Dictionary = DecimalDictionary<D>;
    type Page = DecimalPage<S, D>;

    fn buffer(&self) -> Vec<D> {
        Vec::new()
    }

    fn reserve(&self, out: &mut Vec<D>, values: usize, budget: &mut Budget) -> Result<()> {
        budget.reserve(out, values)
    }

    fn dictionary(&self, page: Bytes, num_values: usize) -> Result<DecimalDictionary<D>> {
        // The stored kind checks the page holds `num_values` values.
        let mut stored = self.stored.dictionary(page, num_values)?;
        if size_of::<D>() > size_of::<i64>() {
            match self.stored.narrow_dictionary(stored) {
                Ok(narrow) => return Ok(DecimalDictionary::Narrow(narrow)),
                Err(wide) => stored = wide,
            }
        }
        let mut values = Vec::<D>::new();
        self.stored
            .append_buffer(&stored, &mut values, &self.target)?;
        if size_of::<D>() > size_of::<i64>() {
            // Wide stored values (pyarrow's 16-byte `decimal128(38, s)`) are mostly
            // small numbers too.
            let narrow: Option<Vec<i64>> = values
                .iter()
                .map(|&v| i64::try_from(v.into()).ok())
                .collect();
            if let Some(narrow) = narrow {
                return Ok(DecimalDictionary::Narrow(narrow));
            }
        }
        Ok(DecimalDictionary::Target(values))
    }

    fn page(
        &self,
        encoding: Encoding,
        values: Bytes,
        entries: usize,
        dictionary: Option<&Arc<DecimalDictionary<D>>>,
    ) -> Result<DecimalPage<S, D>> {
        Ok(match encoding {
            Encoding::PLAIN => DecimalPage::Plain(PlainDecoder::from_source(values)),
            e if is_dictionary(e) => DecimalPage::Dictionary {
                indices: DictionaryIndexDecoder::from_source(values)?,
                dictionary: require_dictionary(dictionary)?,
            },
            other => DecimalPage::Stored {
                page: self.stored.page(other, values, entries, None)?,
                decoded: self.stored.buffer(),
            },
        })
    }

    fn read(
        &self,
        page: &mut DecimalPage<S, D>,
        n: usize,
        out: &mut Vec<D>,
        budget: &mut Budget,
    ) -> Result<()> {
        let got = match page {
            DecimalPage::Plain(plain) => {
                let start = plain.position();
                let got = plain.skip_flba(self.stored.plain_width(), n)?;
                let bytes = &plain.data()[start..plain.position()];
                self.stored.append_plain(bytes, out, &self.target)?;
                got
            }
            DecimalPage::Dictionary {
                indices,
                dictionary,
            } => match dictionary.as_ref() {
                DecimalDictionary::Narrow(values) => {
                    indices
                        .append_gathered_converted(values, n, out, |v| D::low_bits(i128::from(v)))?
                }
                DecimalDictionary::Target(values) => indices.append_gathered(values, n, out)?,
            },
            DecimalPage::Stored { page, decoded } => {
                S::clear(decoded);
                // The stored values are charged too: they are allocated beside the batch.
                self.stored.reserve(decoded, n, budget)?;
                self.stored.read(page, n, decoded, budget)?;
                self.stored.append_buffer(decoded, out, &self.target)?;
                n
            }
        };
        check_count(got, n)
    }

    fn skip(&self, page: &mut DecimalPage<S, D>, n: usize) -> Result<()> {
        let got = match page {
            DecimalPage::Plain(plain) => plain.skip_flba(self.stored.plain_width(), n)?,
            DecimalPage::Dictionary { indices, .. } => indices.skip(n)?,
            DecimalPage::Stored { page, .. } => {
                self.stored.skip(page, n)?;
                n
            }
        };
        check_count(got, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Big-endian bytes of `value`'s low `width` bytes.
    fn be_bytes(value: i128, width: usize) -> Vec<u8> {
        value.to_be_bytes()[16 - width..].to_vec()
    }

    #[test]
    fn every_width_sign_extends_its_extremes() {
        let target = DataType::Decimal128(38, 0);
        for width in 1..=16usize {
            let bits = 8 * width as u32;
            let (max, min) = if width == 16 {
                (i128::MAX, i128::MIN)
            } else {
                ((1i128 << (bits - 1)) - 1, -(1i128 << (bits - 1)))
            };
            // A value with every byte set differently, cut to the width.
            let pattern = i128::from_be_bytes(core::array::from_fn(|i| 0x81 + i as u8));
            let pattern = (pattern << (128 - bits)) >> (128 - bits);
            let values = [0, 1, -1, max, min, pattern, max / 3, min / 3];
            let data: Vec<u8> = values.iter().flat_map(|&v| be_bytes(v, width)).collect();
            let mut out = Vec::<i128>::new();
            append_be_decimals(&data, width, &mut out, &target).unwrap();
            assert_eq!(out, values, "width {width}");
        }
    }

    #[test]
    fn narrower_targets_take_what_fits_and_name_what_does_not() {
        let data: Vec<u8> = [5i128, -7].iter().flat_map(|&v| be_bytes(v, 7)).collect();
        let mut narrow = Vec::<i64>::new();
        append_be_decimals(&data, 7, &mut narrow, &DataType::Decimal64(18, 2)).unwrap();
        assert_eq!(narrow, [5, -7]);

        let wide = be_bytes(i128::from(i32::MAX) + 1, 7);
        let err = append_be_decimals(&wide, 7, &mut Vec::<i32>::new(), &DataType::Decimal32(9, 0))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("decimal 2147483648 does not fit Decimal32(9, 0)"),
            "{err}"
        );
        let err = append_be_decimals(
            &[0; 17],
            17,
            &mut Vec::<i128>::new(),
            &DataType::Decimal128(38, 0),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("a decimal of 17 bytes does not fit"),
            "{err}"
        );
    }

    /// A PLAIN page of INT64 `values`, read `step` values at a time with a skip of one
    /// value between reads.
    fn read_int64_plain(values: &[i64], step: usize) -> Vec<i128> {
        let kind = Decimals::<Fixed<i64>, i128>::new(Fixed::new(), DataType::Decimal128(18, 2));
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut page = kind
            .page(Encoding::PLAIN, Bytes::from(bytes), values.len(), None)
            .unwrap();
        let mut budget = Budget::new(1 << 20);
        let mut out = Vec::new();
        let mut at = 0;
        while at < values.len() {
            let n = step.min(values.len() - at);
            kind.reserve(&mut out, n, &mut budget).unwrap();
            kind.read(&mut page, n, &mut out, &mut budget).unwrap();
            at += n;
            if at < values.len() {
                kind.skip(&mut page, 1).unwrap();
                at += 1;
            }
        }
        out
    }

    #[test]
    fn plain_int64_values_widen_between_skips() {
        let values = [i64::MIN, -1, 0, 1, i64::MAX, 12_345, -678];
        assert_eq!(
            read_int64_plain(&values, 2),
            [i128::from(i64::MIN), -1, 1, i128::from(i64::MAX), -678]
        );
        assert_eq!(
            read_int64_plain(&values, 7),
            values.map(i128::from).to_vec()
        );
    }

    #[test]
    fn a_dictionary_is_converted_once_and_gathered_at_the_target_width() {
        let kind = Decimals::<FixedLenBytes, i128>::new(
            FixedLenBytes { width: 7 },
            DataType::Decimal128(15, 2),
        );
        let entries = [-5i128, 300, 0x7f_ffff_ffff_ffff];
        let page: Vec<u8> = entries.iter().flat_map(|&v| be_bytes(v, 7)).collect();
        let dictionary = Arc::new(kind.dictionary(Bytes::from(page), 3).unwrap());
        // Seven bytes fit 64 bits: kept narrow, widened as gathered.
        match dictionary.as_ref() {
            DecimalDictionary::Narrow(values) => {
                assert_eq!(
                    values.iter().map(|&v| i128::from(v)).collect::<Vec<_>>(),
                    entries
                )
            }
            other => panic!("a narrow dictionary expected, got {other:?}"),
        }
        // Bit width 2, one bit-packed group of eight indices: 2, 0, 1, 1, 2, 2, 0, 1.
        let indices = Bytes::from(vec![2, 0x03, 0b0101_0010, 0b0100_1010]);
        let mut page = kind
            .page(Encoding::RLE_DICTIONARY, indices, 8, Some(&dictionary))
            .unwrap();
        let mut budget = Budget::new(1 << 20);
        let mut out = Vec::new();
        kind.reserve(&mut out, 8, &mut budget).unwrap();
        kind.read(&mut page, 8, &mut out, &mut budget).unwrap();
        let expected: Vec<i128> = [2, 0, 1, 1, 2, 2, 0, 1].map(|i| entries[i]).to_vec();
        assert_eq!(out, expected);

        // Too few bytes for the declared entries: the stored kind's error.
        let err = kind.dictionary(Bytes::from(vec![0; 13]), 2).unwrap_err();
        assert!(err.to_string().contains("cannot hold 2 values"), "{err}");
    }

    #[test]
    fn a_sixteen_byte_dictionary_is_kept_narrow_only_when_every_entry_fits_64_bits() {
        let kind = Decimals::<FixedLenBytes, i128>::new(
            FixedLenBytes { width: 16 },
            DataType::Decimal128(38, 2),
        );
        let page = |entries: &[i128]| {
            Bytes::from(
                entries
                    .iter()
                    .flat_map(|&v| be_bytes(v, 16))
                    .collect::<Vec<u8>>(),
            )
        };
        let small = [i128::from(i64::MIN), -1, i128::from(i64::MAX)];
        match kind.dictionary(page(&small), 3).unwrap() {
            DecimalDictionary::Narrow(values) => {
                assert_eq!(values, [i64::MIN, -1, i64::MAX])
            }
            other => panic!("a narrow dictionary expected, got {other:?}"),
        }
        let wide = [7, i128::from(i64::MAX) + 1, -3];
        match kind.dictionary(page(&wide), 3).unwrap() {
            DecimalDictionary::Target(values) => assert_eq!(values, wide),
            other => panic!("a 128-bit dictionary expected, got {other:?}"),
        }
    }

    #[test]
    fn a_dictionary_entry_too_wide_for_the_target_is_an_error_when_its_page_is_read() {
        let kind = Decimals::<Fixed<i64>, i32>::new(Fixed::new(), DataType::Decimal32(9, 0));
        let page = Bytes::from(
            [1i64, 1 << 40]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        let err = kind.dictionary(page, 2).unwrap_err();
        assert!(
            err.to_string()
                .contains("decimal 1099511627776 does not fit Decimal32(9, 0)"),
            "{err}"
        );
    }

    #[test]
    fn delta_encoded_int32_decimals_convert_after_decoding() {
        let values: Vec<i32> = (0..300).map(|i| i * 37 - 5_000).collect();
        let mut encoded = Vec::new();
        herringbone_codec::encoding::delta_binary_packed::encode(&values, &mut encoded);
        let kind = Decimals::<Fixed<i32>, i64>::new(Fixed::new(), DataType::Decimal64(10, 2));
        let mut page = kind
            .page(
                Encoding::DELTA_BINARY_PACKED,
                Bytes::from(encoded),
                300,
                None,
            )
            .unwrap();
        let mut budget = Budget::new(1 << 20);
        let mut out = Vec::new();
        for n in [100, 150] {
            kind.reserve(&mut out, n, &mut budget).unwrap();
            kind.read(&mut page, n, &mut out, &mut budget).unwrap();
        }
        kind.skip(&mut page, 50).unwrap();
        let expected: Vec<i64> = values[..250].iter().map(|&v| i64::from(v)).collect();
        assert_eq!(out, expected);
        // Past the page's values: an error, not a short read.
        kind.reserve(&mut out, 1, &mut budget).unwrap();
        assert!(kind.read(&mut page, 1, &mut out, &mut budget).is_err());
    }
}
